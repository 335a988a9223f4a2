// The controls: every parameter of the model input, each with a tooltip that says what it
// means in the transformer. Edits apply at once; invalid values show the core's message here.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <span>
#include <utility>

#include "analysis/attention_score.h"
#include "arch/model_choice.h"
#include "encoding/learned.h"
#include "encoding/rope_encoding.h"
#include "encoding/sinusoidal_presets.h"
#include "figure/markup.h"
#include "figure/text_wrap.h"
#include "io/loaded_table.h"
#include "model/param_fields.h"
#include "model/token_ids.h"
#include "panels/panels.h"
#include "views/compare_view.h"

namespace pe {
namespace {

// A few sentences on what the views show, with the current numbers filled in. They hold for
// every d (one column, odd widths), any offset and any base.
void DrawSinusoidalExplanation(const AppState& state, const Derived& derived) {
  if (!derived.pe_status.ok() || derived.columns.empty()) return;
  const EncodingParams& p = state.params.pe;
  const int64_t zeros = derived.zero_columns, sin_cos_pairs = derived.cos_columns;
  const int64_t waves = static_cast<int64_t>(derived.columns.size()) - zeros;
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("What you are looking at");
  const long long d = p.d_model;
  const long long n_freq = derived.wave_frequencies;
  std::string row = p.offset == 0 ? std::string(
                                        "Row p of the table is the vector added to the token at "
                                        "position p.")
                                  : Printf(
                                        "Row r of the table is the vector added to the token at "
                                        "position %lld + r (the offset).",
                                        static_cast<long long>(p.offset));
  if (d == 1) {
    row += Printf(" Its one column is sin(p w) at the single frequency w = %.6g.",
                  derived.columns[0].wave == Wave::kZero ? 0.0 : derived.columns[0].frequency);
  } else {
    row += Printf(" Its %lld columns are %s of the position at %lld %s.", d,
                  sin_cos_pairs > 0 ? "sines and cosines" : "sines", n_freq,
                  n_freq == 1 ? "frequency" : "different frequencies");
  }
  if (zeros > 0) row += Printf(" The last column is 0 (this layout pads an odd width).");
  WrappedText(row);
  if (waves > 1 && derived.slowest_wavelength > derived.fastest_wavelength) {
    WrappedText(Printf(
        "The fastest wave repeats every %.4g positions, the slowest every %.4g: early columns "
        "tell neighbours apart, late ones tell far-apart positions apart.",
        derived.fastest_wavelength, derived.slowest_wavelength));
  } else if (waves >= 1) {
    WrappedText(Printf("The wave repeats every %.4g positions.", derived.fastest_wavelength));
  }
  if (sin_cos_pairs > 0) {
    WrappedText(
        "A sin/cos pair of one frequency is a point on a circle; moving k positions rotates it "
        "by k times that frequency. So PE(p)\xc2\xb7PE(p+k) depends only on k: the model can "
        "read relative distance.");
  } else {
    WrappedText(
        "With one column there is no sin/cos pair: sin(p w) alone does not tell p from p' where "
        "the sine takes the same value. Widen d_model to 2 for a pair.");
  }
  if (state.params.input.scale) {
    WrappedText(Printf(
        "Before the sum, embeddings are multiplied by \xe2\x88\x9a%lld = %.4g, so the token's "
        "meaning outweighs its position code.",
        d, std::sqrt(static_cast<double>(d))));
  }
}

// What a learned table is, and what a rotary one does, with the current numbers.
void DrawLearnedExplanation(const AppState& state, const Derived&) {
  const EncodingParams& p = state.params.pe;
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("What you are looking at");
  if (const TableRef& t = p.learned().table; t.loaded()) {
    // A table loaded from a file: what it is, never called noise.
    WrappedText(Printf(
        "A learned table (GPT-2's wpe, BERT's position_embeddings) looked up by position and "
        "added to the token embeddings. This one is loaded: %s (hash %s); its rows %lld to "
        "%lld are shown, as trained, so neighbouring rows may be alike where training made "
        "them so. The initialiser and seed do not apply to it. It has no row past its %lld: "
        "the model cannot see longer inputs.",
        t.table->Describe().c_str(), HashText(t.hash).c_str(), static_cast<long long>(p.offset),
        static_cast<long long>(p.offset + p.max_len - 1), static_cast<long long>(t.table->rows())));
    return;
  }
  WrappedText(Printf(
      "A learned table (GPT-2's wpe, BERT's position_embeddings) is a (%lld, %lld) matrix "
      "looked up by position and added to the token embeddings, like the sinusoid but trained. "
      "Here it is as training starts: noise from %s, so neighbouring rows are "
      "unrelated and no row says how far apart two positions are until training makes it so. "
      "It also has no row past max_len: the model cannot see longer inputs.",
      static_cast<long long>(p.max_len), static_cast<long long>(p.d_model),
      InitFormula(p.learned().init, p.d_model).c_str()));
}

void DrawRopeExplanation(const AppState&, const Derived& derived) {
  // The frequencies of the encoding on screen, computed once when it was made.
  if (!derived.encoding || derived.encoding->frequencies() == nullptr) return;
  const EncodingParams& p = derived.encoding->params();
  const RopeParams& r = p.rope();
  const RopeFrequencies& f = *derived.encoding->frequencies();
  const int64_t h = f.d_rot / 2;
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("What you are looking at");
  WrappedText(Printf(
      "RoPE adds nothing to the embeddings. It turns each pair of query and key dimensions by "
      "the angle p\xc2\xb7\xce\xb8_i, so the score q\xc2\xb7k of positions m and n depends "
      "only on m - n. %lld of the %lld head dimensions rotate, in %lld pairs; \xce\xb8_i = "
      "%g^(-2i/%lld).",
      static_cast<long long>(f.d_rot), static_cast<long long>(p.d_model), static_cast<long long>(h),
      r.theta, static_cast<long long>(f.d_rot)));
  if (f.rotating_pairs < h) {
    const double slowest = RopeSlowestWavelength(f);
    WrappedText(Printf(
        "Proportional (p-RoPE, proportion %g): only the first %lld of the %lld pairs turn; the "
        "other %lld have frequency 0, never turn (cos 1, sin 0) and carry meaning free of "
        "position. The slowest turning pair repeats every %.4g positions.",
        r.proportion, static_cast<long long>(f.rotating_pairs), static_cast<long long>(h),
        static_cast<long long>(h - f.rotating_pairs), slowest));
  }
  if (r.pairing == RopePairing::kHalf) {
    WrappedText(Printf("Pairing half (HF rotate_half): dim i turns with dim i + %lld.",
                       static_cast<long long>(h)));
  } else {
    WrappedText("Pairing interleaved (Meta's Llama, GPT-J): dims 2i and 2i+1 turn together.");
  }
  // The two pairings are one rotation up to a fixed reordering of q and k's dimensions.
  std::string perm;
  const std::vector<int64_t> order = InterleavedToHalfPermutation(f.d_rot);
  const int64_t shown = std::min<int64_t>(f.d_rot, 12);
  for (int64_t j = 0; j < shown; ++j) {
    if (j > 0) perm += ' ';
    perm += std::to_string(order[static_cast<size_t>(j)]);
  }
  if (shown < f.d_rot) perm += " ...";
  WrappedText(
      "Both pairings are the same rotation up to a fixed permutation of the q and k "
      "dimensions (HF's Llama conversion permutes W_q and W_k so): half column j holds "
      "interleaved column [" +
      perm + "].");
  if (r.scaling != RopeScaling::kNone) {
    int kept = 0, interpolated = 0, blended = 0;
    for (const RopePair& pair : f.pairs) {
      kept += pair.treatment == PairTreatment::kKept;
      interpolated += pair.treatment == PairTreatment::kInterpolated;
      blended += pair.treatment == PairTreatment::kBlended;
    }
    switch (r.scaling) {
      case RopeScaling::kLinear:
        WrappedText(Printf(
            "Linear x%g (position interpolation): every pair's frequency is divided by %g, so "
            "position p turns like position p/%g did: a %g times longer context stays inside "
            "the angles seen in training, at the price of telling neighbours apart less well.",
            r.factor, r.factor, r.factor, r.factor));
        break;
      case RopeScaling::kNtk:
      case RopeScaling::kDynamicNtk:
        WrappedText(Printf(
            "%s x%g raises the base from %g to %.8g instead of dividing the frequencies: pair 0 "
            "keeps its frequency, and the slower a pair, the more it slows down, until the last "
            "one is divided by about %g. Fast pairs still tell neighbours apart; slow ones "
            "stretch to the longer context.%s",
            r.scaling == RopeScaling::kNtk ? "NTK-aware" : "Dynamic NTK", r.factor, r.theta, f.base,
            r.factor,
            r.scaling == RopeScaling::kDynamicNtk
                ? Printf(" Dynamic: the factor grows with the sequence length (%lld here); up to "
                         "the original %lld the base stays %g.",
                         static_cast<long long>(f.sequence_len),
                         static_cast<long long>(r.original_max_len), r.theta)
                      .c_str()
                : ""));
        break;
      case RopeScaling::kLongrope: {
        const bool uses_long = f.longrope_uses_long;
        const std::vector<double>& list = uses_long ? r.long_factor : r.short_factor;
        const auto [lo, hi] = std::minmax_element(list.begin(), list.end());
        WrappedText(Printf(
            "LongRoPE (Phi-3): pair i's frequency is divided by a number of its own, from the "
            "short list while the sequence is at most the original %lld positions and from the "
            "long list past them. The sequence length here is %lld (%s), so the table uses the "
            "%s list (%.6g to %.6g). The frequencies view draws both lists; the switch is at "
            "L = %lld.",
            static_cast<long long>(r.original_max_len), static_cast<long long>(f.sequence_len),
            r.sequence_len > 0 ? "sequence len" : "the table's last position + 1",
            uses_long ? "long" : "short", *lo, *hi, static_cast<long long>(r.original_max_len)));
        if (!r.attention_factor) {
          WrappedText(
              Printf("s = max_position_embeddings / original = %lld / %lld; the default "
                     "attention factor is sqrt(1 + ln s / ln %lld)%s.",
                     static_cast<long long>(r.max_position_embeddings),
                     static_cast<long long>(r.original_max_len),
                     static_cast<long long>(r.original_max_len),
                     f.attention_factor == 1.0 ? ", 1 since s <= 1" : ""));
        }
        break;
      }
      default:
        WrappedText(Printf(
            "%s x%g: %d pairs keep their frequency, %d are divided by %g (interpolated), %d "
            "are blended between. Fast pairs (small i) turn many times within the original "
            "context, so they are kept; slow ones would meet angles never seen in training, so "
            "they are squeezed.",
            std::string(RopeScalingName(r.scaling)).c_str(), r.factor, kept, interpolated, r.factor,
            blended));
        if (f.base != r.theta) WrappedText(Printf("The base used: %.8g.", f.base));
    }
    if (f.attention_factor != 1.0) {
      WrappedText(
          Printf("cos and sin are multiplied by the attention factor %.8g.", f.attention_factor));
    }
  }
}

void DrawSinusoidalControls(AppState& state) {
  const SinusoidalParams& s = state.params.pe.sinusoidal();
  // Presets: the layout, order, scale and first row of a known implementation.
  const auto presets = SinusoidalPresets();
  // The preset the parameters are now, if any (the combo shows it, so a pick is confirmed).
  std::string preview = "choose...";
  for (const SinusoidalPreset& preset : presets) {
    EncodingParams with = state.params.pe;
    if (ApplySinusoidalPreset(preset.name, with).ok() && with == state.params.pe) {
      preview = std::string(preset.label);
      break;
    }
  }
  std::vector<std::string> preset_labels;
  for (const SinusoidalPreset& preset : presets) preset_labels.emplace_back(preset.label);
  std::vector<const char*> preset_items{"choose..."};
  for (const std::string& l : preset_labels) preset_items.push_back(l.c_str());
  FitComboWidth("preset", preset_items);
  if (ImGui::BeginCombo("preset", preview.c_str())) {
    for (const SinusoidalPreset& preset : presets) {
      if (ImGui::Selectable(std::string(preset.label).c_str())) {
        EditField(state, "preset", "--preset", std::string(preset.name));
      }
      if (ImGui::IsItemHovered()) {
        WrappedTooltip((std::string(preset.note) + "\n" + std::string(preset.source)).c_str());
      }
    }
    ImGui::EndCombo();
  }
  ItemTooltip("Set the layout, wave order, scale and first position of a known implementation.");
  const char* variants[] = {"paper (interleaved)", "t2t [sin|cos]", "tf-text [sin|cos]"};
  const char* variant_names[] = {"paper", "t2t", "tf-text"};
  FieldCombo(state, "variant", "--variant", variants, variant_names,
             "Column layout: paper interleaves sin/cos (PyTorch tutorial code); t2t and tf-text "
             "put all sines first, then all cosines, with slightly different frequencies for "
             "t2t.");
  const char* orders[] = {"sin first", "cos first"};
  const char* order_names[] = {"sin-first", "cos-first"};
  FieldCombo(state, "order", "--order", orders, order_names,
             "Which wave takes the first slot of each pair or half: most code puts sin first; "
             "MusicGen and diffusers' flip_sin_to_cos put cos first.");
  double f64 = 0;
  if (NumberField(state, "base", s.base, &f64,
                  "Base of the geometric frequency ladder = the max timescale (10000 in the "
                  "paper): wavelengths run from 2*pi to about 2*pi*base.")) {
    EditField(state, "base", "--base", FieldNumberText(f64));
  }
  if (NumberField(state, "min timescale", s.min_timescale, &f64,
                  "tensor2tensor's min_timescale (1 by default): the ladder runs from it to the "
                  "base.")) {
    EditField(state, "min timescale", "--min-timescale", FieldNumberText(f64));
  }
  if (NumberField(state, "output scale", s.output_scale, &f64,
                  "Multiplies every value (x-transformers starts it at d^-0.5).")) {
    EditField(state, "output scale", "--output-scale", FieldNumberText(f64));
  }
}

// The four initialisers as the combos show them, in the order of kAllEmbeddingInits.
constexpr const char* kInitLabels[] = {"N(0, 1) nn.Embedding", "N(0, 1/d) fairseq, t2t",
                                       "N(0, 0.02\xc2\xb2) GPT-2, BERT",
                                       "trunc. N(0,1) [-2,2] Haiku"};
constexpr const char* kInitNames[] = {"normal-1", "normal-scaled", "normal-0.02",
                                      "truncated-normal"};

void DrawLearnedControls(AppState& state) {
  // A loaded table replaces the seeded one: the initialiser no longer applies (greyed out).
  // (The loaded file, its shape and hash are named under "Position table from a file".)
  const TableRef& loaded = state.params.pe.learned().table;
  ImGui::BeginDisabled(loaded.loaded());
  ImGui::SetNextItemWidth(
      std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().x -
                                             ImGui::CalcTextSize("position init").x -
                                             ImGui::GetStyle().ItemInnerSpacing.x));
  FieldCombo(state, "position init", "--learned-init", kInitLabels, kInitNames,
             "How the position table starts: GPT-2 and BERT draw N(0, 0.02^2) "
             "(initializer_range); torch.nn.Embedding's default is N(0, 1); fairseq N(0, 1/d); "
             "Haiku's hk.Embed N(0, 1) cut to [-2, 2]. The token embeddings' init (below) sets "
             "this one too. The seed is the one below.");
  ImGui::EndDisabled();
  if (loaded.loaded()) ItemTooltip("Not used: the position table is loaded from a file.");
}

// Token ids typed instead of the text: applied on Enter or when the field loses focus; a value
// the parameter table refuses keeps its message under the field. Empty: back to the text.
void IdsField(AppState& state) {
  const char* label = "ids";
  const ImGuiID id = ImGui::GetID(label);
  FieldEdit& f = state.fields[id];
  // Not being typed into: show the state, unless the last text was refused (kept to be fixed).
  if (!f.active && f.error.empty()) f.text = FormatIds(state.params.example.ids);
  const bool refused = !f.error.empty();
  if (refused) PushRefusedFrame();
  // As wide as the panel allows: a batch is a long line.
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 8,
                                   ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("ids").x -
                                       ImGui::GetStyle().ItemInnerSpacing.x));
  ImGui::InputTextWithHint(label, "2,5,0,9 or 1,2;3,4", &f.text);
  if (refused) PopRefusedFrame();
  ItemTooltip(
      "Token ids instead of the text, as a model receives them: 2,5,0,9 is one sequence, "
      "23,37,3;97,61,19 a batch (rows separated by ';', all of one length).\nEach id picks "
      "row E[id] of the embedding table; every row has positions 0..T-1 (+ offset).\nEmpty: "
      "the ids come from the text. Enter applies.");
  const bool active = ImGui::IsItemActive();
  if (active && !f.active) f.error.clear();
  f.active = active;
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    const std::string text = f.text;
    if (text.find_first_not_of(" \t") == std::string::npos) {
      Edit(state, [](AppState& st) { st.params.example.ids.clear(); });
    } else {
      EditField(state, label, "--ids", text);
    }
  }
  if (!f.error.empty()) ErrorText(f.error);
}

void DrawTokenEmbeddingControls(AppState& state) {
  const ModelParams& p = state.params;
  ImGui::Spacing();
  ImGui::TextDisabled("Token embeddings");
  // Wide enough for the initialisers' names and their sources.
  ImGui::SetNextItemWidth(std::max(
      ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("init").x -
                                    ImGui::GetStyle().ItemInnerSpacing.x));
  // The four counter-based initialisers and PyTorch's own stream, whose seed is edited below.
  const char* labels[] = {kInitLabels[0], kInitLabels[1], kInitLabels[2], kInitLabels[3],
                          "N(0, 1) PyTorch's numbers"};
  const bool torch = p.example.init == EmbeddingInit::kTorch;
  int index = 4;
  for (int k = 0; k < 4 && !torch; ++k) {
    if (EmbeddingInitName(p.example.init) == kInitNames[k]) index = k;
  }
  // Loaded or typed embedding rows replace the drawn ones: the initialiser does not apply to
  // them (it still starts a learned position table, which the combo above shows).
  const bool e_given = p.example.embeddings.loaded() || !p.example.embedding_rows.empty();
  if (!p.example.embeddings.loaded() && !p.example.embedding_rows.empty()) {
    WrappedText(Printf("E typed: rows E[0] to E[%zu] (--embedding-rows)",
                       p.example.embedding_rows.size() - 1));
  }
  ImGui::BeginDisabled(e_given);
  if (ImGui::Combo("init", &index, labels, 5)) {
    EditField(state, "init", "--init",
              index == 4 ? InitChoiceName({EmbeddingInit::kTorch, p.example.torch_seed,
                                           p.example.torch_kernel})
                         : std::string(kInitNames[index]));
  }
  ImGui::EndDisabled();
  ItemTooltip(
      "Initialiser of the embedding table (the learned position table follows the first "
      "four): N(0, 1) is torch nn.Embedding's default; N(0, 1/d) fairseq's Embedding and "
      "tensor2tensor; N(0, 0.02^2) GPT-2 and BERT (initializer_range); Haiku's hk.Embed "
      "draws N(0, 1) cut to [-2, 2] (std 0.88). With N(0, 1), sqrt(d) scaling makes a "
      "row dwarf PE; with N(0, 1/d) it brings the row to PE's size.\nPyTorch's numbers: "
      "torch.manual_seed(seed); nn.Embedding(V, d).weight, the same values a tutorial prints "
      "(--init torch:SEED); they depend on V (vocab size).");
  if (torch) {
    uint64_t u64 = 0;
    if (NumberField(state, "torch seed", p.example.torch_seed, &u64,
                    "The seed of torch.manual_seed(seed) before nn.Embedding(V, d): row k of "
                    "the table is row k of that weight. Only the low 32 bits reach PyTorch's "
                    "Mersenne Twister.")) {
      EditField(state, "torch seed", "--init",
                InitChoiceName({EmbeddingInit::kTorch, u64, p.example.torch_kernel}));
    }
  }
  IdsField(state);
  int64_t i64 = 0;
  if (NumberField(state, "vocab size", p.example.vocab_size, &i64,
                  "Vocabulary size V: every id must be in [0, V). 0: the largest typed id + 1, "
                  "or the text's vocabulary. The rows E[id] do not depend on V.")) {
    EditField(state, "vocab size", "--vocab-size", std::to_string(i64));
  }
  if (p.example.embeddings.loaded()) {
    WrappedText(p.example.embeddings.table->has_words() && p.example.ids.empty()
                    ? "The embeddings are the loaded word vectors: each word of the text takes "
                      "the file's row for it."
                    : "The embeddings are the loaded table's rows: the ids index them.");
  } else if (!p.example.embedding_rows.empty()) {
    WrappedText(p.example.ids.empty()
                    ? "The embeddings are the typed rows (E[id] is row id); the text's ids "
                      "follow the order of first appearance in the text."
                    : "The embeddings are the typed rows (E[id] is row id); the ids are the "
                      "ones typed above, not the text's.");
  } else {
    WrappedText(p.example.ids.empty() && p.example.subword
                    ? "The embeddings are random and untrained (drawn from the seed); the text's "
                      "ids are the tokenizer file's."
                : p.example.ids.empty()
                    ? "The embeddings are random and untrained (drawn from the seed); the text's "
                      "ids follow the order of first appearance in the text."
                    : "The embeddings are random and untrained (drawn from the seed); the ids are "
                      "the ones typed above, not the text's.");
  }
}

// LongRoPE chosen without its lists starts them at 1 for every pair (no change yet) in the same
// edit, so the window can switch to it and take the model's lists in the editors below; the
// command line still refuses --rope-scaling longrope without them.
bool StartLongropeLists(AppState& state, const char* label, const std::string& name) {
  const RopeParams& r = state.params.pe.rope();
  if (name != "longrope" || (!r.short_factor.empty() && !r.long_factor.empty())) return false;
  const int64_t pairs = RopeRotaryDims(state.params.pe) / 2;
  std::string ones;
  for (int64_t k = 0; k < pairs; ++k) ones += k == 0 ? "1" : ",1";
  EditFields(state, label,
             {{"--rope-scaling", "longrope"}, {"--short-factor", ones}, {"--long-factor", ones}});
  return true;
}

// A LongRoPE list: a text box that takes a pasted comma list (or a config.json array), applied
// on Enter or when it loses focus, its count and range under it, a refusal in place.
void FactorListField(AppState& state, const char* label, const char* flag,
                     const std::vector<double>& current, const char* tip) {
  const ImGuiID id = ImGui::GetID(label);
  FieldEdit& f = state.fields[id];
  const ParamField* field = FindParamField(flag);
  if (!f.active && f.error.empty()) f.text = field->get(state.params);
  const bool refused = !f.error.empty();
  if (refused) PushRefusedFrame();
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 8,
                                   ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(label).x -
                                       ImGui::GetStyle().ItemInnerSpacing.x));
  ImGui::InputTextWithHint(label, "1.05,1.05,1.1,... (paste)", &f.text,
                           ImGuiInputTextFlags_AutoSelectAll);
  if (refused) PopRefusedFrame();
  ItemTooltip(tip);
  const bool active = ImGui::IsItemActive();
  if (active && !f.active) f.error.clear();
  f.active = active;
  if (ImGui::IsItemDeactivatedAfterEdit() && f.text != field->get(state.params)) {
    EditField(state, label, flag, f.text);
  }
  if (!current.empty()) {
    const auto [lo, hi] = std::minmax_element(current.begin(), current.end());
    ImGui::TextDisabled("%zu numbers, min %.6g, max %.6g", current.size(), *lo, *hi);
  }
  if (!f.error.empty()) ErrorText(f.error);
}

void DrawLongropeControls(AppState& state) {
  const RopeParams& r = state.params.pe.rope();
  double f64 = 0;
  int64_t i64 = 0;
  if (NumberField(state, "max position emb", r.max_position_embeddings, &i64,
                  "max_position_embeddings M: the extended context (Phi-3 128k: 131072); "
                  "s = M / original sets the default attention factor.")) {
    EditField(state, "max position emb", "--max-position-embeddings", std::to_string(i64));
  }
  if (NumberField(state, "sequence len", r.sequence_len, &i64,
                  "The current sequence length: past the original length the long list "
                  "applies (0: the table's last position + 1).")) {
    EditField(state, "sequence len", "--sequence-len", std::to_string(i64));
  }
  FactorListField(state, "short factors", "--short-factor", r.short_factor,
                  "short_factor: d_rot/2 numbers > 0, one per pair, dividing its frequency "
                  "while the sequence is at most the original length. Paste the list from "
                  "config.json (brackets and spaces are fine); Enter applies.");
  FactorListField(state, "long factors", "--long-factor", r.long_factor,
                  "long_factor: d_rot/2 numbers > 0, used once the sequence is longer than the "
                  "original length. Enter applies.");
  bool custom = r.attention_factor.has_value();
  if (ImGui::Checkbox("set attention factor", &custom)) {
    EditField(state, "attention factor", "--attention-factor",
              custom ? FieldNumberText(RopeLongropeDefaultAttentionFactor(r.max_position_embeddings,
                                                                          r.original_max_len))
                     : "default");
  }
  ItemTooltip("Off: LongRoPE's default sqrt(1 + ln s / ln original), 1 when s <= 1.");
  if (r.attention_factor && NumberField(state, "attention factor", *r.attention_factor, &f64,
                                        "Multiplies cos and sin (> 0).")) {
    EditField(state, "attention factor", "--attention-factor", FieldNumberText(f64));
  }
}

void DrawRopeControls(AppState& state) {
  const RopeParams& r = state.params.pe.rope();
  double f64 = 0;
  int64_t i64 = 0;
  if (NumberField(state, "rope_theta", r.theta, &f64,
                  "The base of the rotation frequencies (10000; Llama 3: 500000).")) {
    EditField(state, "rope_theta", "--rope-theta", FieldNumberText(f64));
  }
  const char* pairings[] = {"half (rotate_half)", "interleaved (2i, 2i+1)"};
  const char* pairing_names[] = {"half", "interleaved"};
  FieldCombo(state, "pairing", "--rope-pairing", pairings, pairing_names,
             "Which dims turn together: half pairs dim i with i + d_rot/2 (HF Llama, "
             "GPT-NeoX); interleaved pairs 2i with 2i+1 (Meta's Llama, GPT-J, RoFormer).");
  if (NumberField(state, "rotary fraction", r.rotary_fraction, &f64,
                  "GPT-NeoX partial RoPE: the share of the head dims that rotate, (0, 1] "
                  "(GPT-NeoX: 0.25), with exponents over those dims; the rest are left out of "
                  "the table and pass through unchanged. d_rot must come out even.")) {
    EditField(state, "rotary fraction", "--rotary-fraction", FieldNumberText(f64));
  }
  ImGui::TextDisabled("GPT-NeoX partial: the rest left out");
  if (NumberField(state, "rotating proportion", r.proportion, &f64,
                  "p-RoPE (Gemma 4's proportional RoPE), (0, 1]: the first floor(P d / 2) pairs "
                  "turn at theta^(-2i/d) with d the whole head; the other pairs never turn "
                  "(frequency 0: cos 1, sin 0) and stay in the table.")) {
    EditField(state, "rotating proportion", "--rope-proportion", FieldNumberText(f64));
  }
  ImGui::TextDisabled("p-RoPE: the rest never turn");
  {
    // The slowest rotating pair of each at the share set (the one below 1, else 1), from the
    // table each would build with the other settings, scaling included: partial RoPE's exponent
    // runs over d_rot, p-RoPE's over the whole head, so p-RoPE's slowest pair is far faster.
    const EncodingParams& pe = state.params.pe;
    const RopeShareComparison c = CompareRopeShares(pe);
    if (c.partial_status.ok()) {
      std::string text = Printf(
          "At share %g: partial RoPE's slowest pair (%lld of %lld dims) repeats every %.4g "
          "positions",
          c.share, static_cast<long long>(c.partial_dims), static_cast<long long>(pe.d_model),
          c.partial_wavelength);
      if (c.proportional_status.ok()) {
        text += Printf("; p-RoPE's slowest turning pair (%lld of %lld pairs) every %.4g",
                       static_cast<long long>(c.rotating_pairs),
                       static_cast<long long>(pe.d_model / 2), c.proportional_wavelength);
        if (c.rotating_pairs < pe.d_model / 2) {
          text += Printf(", the other %lld never turn",
                         static_cast<long long>(pe.d_model / 2 - c.rotating_pairs));
        }
      } else {
        text += "; p-RoPE at this share: " + c.proportional_status.message();
      }
      WrappedText(text + ".");
    }
  }
  const char* parts[] = {"cos", "sin", "angle p\xc2\xb7\xce\xb8"};
  const char* part_names[] = {"cos", "sin", "angle"};
  FieldCombo(state, "table", "--part", parts, part_names,
             "The table the heatmap and curves show: cos and sin as HF's rotary module returns "
             "them (each frequency twice, in the pairing's layout), or the angle.");
  const char* scalings[] = {"none", "linear (PI)", "NTK-aware",       "dynamic NTK",
                            "YaRN", "Llama 3",     "LongRoPE (Phi-3)"};
  const char* scaling_names[] = {"none", "linear", "ntk",     "dynamic-ntk",
                                 "yarn", "llama3", "longrope"};
  FieldCombo(state, "scaling", "--rope-scaling", scalings, scaling_names,
             "Context extension as in HF config.json rope_scaling: stretch the angles so a longer "
             "context stays inside what training saw.",
             &StartLongropeLists);
  if (r.scaling == RopeScaling::kNone) return;
  ImGui::Indent();
  if (r.scaling != RopeScaling::kLongrope &&
      NumberField(state, "factor", r.factor, &f64, "rope_scaling.factor s (>= 1).")) {
    EditField(state, "factor", "--scaling-factor", FieldNumberText(f64));
  }
  if (r.scaling == RopeScaling::kDynamicNtk || r.scaling == RopeScaling::kYarn ||
      r.scaling == RopeScaling::kLlama3 || r.scaling == RopeScaling::kLongrope) {
    if (NumberField(state, "original len", r.original_max_len, &i64,
                    "original_max_position_embeddings: the context the model was trained on.")) {
      EditField(state, "original len", "--original-max-len", std::to_string(i64));
    }
  }
  if (r.scaling == RopeScaling::kDynamicNtk) {
    if (NumberField(state, "sequence len", r.sequence_len, &i64,
                    "The current sequence length the base is computed for (0: the table's "
                    "last position + 1).")) {
      EditField(state, "sequence len", "--sequence-len", std::to_string(i64));
    }
  }
  if (r.scaling == RopeScaling::kYarn) {
    if (NumberField(state, "beta_fast", r.beta_fast, &f64,
                    "Pairs turning more than beta_fast times in the original context keep "
                    "their frequency (32).")) {
      EditField(state, "beta_fast", "--beta-fast", FieldNumberText(f64));
    }
    if (NumberField(state, "beta_slow", r.beta_slow, &f64,
                    "Pairs turning fewer than beta_slow times are interpolated (1).")) {
      EditField(state, "beta_slow", "--beta-slow", FieldNumberText(f64));
    }
    bool custom = r.attention_factor.has_value();
    if (ImGui::Checkbox("set attention factor", &custom)) {
      EditField(state, "attention factor", "--attention-factor",
                custom ? FieldNumberText(RopeYarnDefaultAttentionFactor(r.factor)) : "default");
    }
    ItemTooltip(
        "Off: YaRN's default 0.1 ln(s) + 1, or the mscale ratio when both mscales are set, "
        "applied to cos and sin as HF does.");
    if (r.attention_factor && NumberField(state, "attention factor", *r.attention_factor, &f64,
                                          "Multiplies cos and sin (> 0).")) {
      EditField(state, "attention factor", "--attention-factor", FieldNumberText(f64));
    }
    bool truncate = r.yarn_truncate;
    if (ImGui::Checkbox("truncate", &truncate)) {
      EditField(state, "truncate", "--yarn-truncate", truncate ? "true" : "false");
    }
    ItemTooltip(
        "On (HF's default): floor the correction range's low end and ceil its high end. Off "
        "(GPT-OSS): keep both fractional.");
    if (NumberField(state, "mscale", r.mscale, &f64,
                    "DeepSeek's mscale (>= 0; 0: not given). With mscale_all_dim also set, the "
                    "attention factor is (0.1 mscale ln s + 1) / (0.1 mscale_all_dim ln s + 1).")) {
      EditField(state, "mscale", "--mscale", FieldNumberText(f64));
    }
    if (NumberField(state, "mscale_all_dim", r.mscale_all_dim, &f64,
                    "DeepSeek's mscale_all_dim (>= 0; 0: not given): the attention factor's "
                    "denominator.")) {
      EditField(state, "mscale_all_dim", "--mscale-all-dim", FieldNumberText(f64));
    }
  }
  if (r.scaling == RopeScaling::kLongrope) DrawLongropeControls(state);
  if (r.scaling == RopeScaling::kLlama3) {
    if (NumberField(state, "low freq factor", r.low_freq_factor, &f64,
                    "Wavelengths above original / low_freq_factor are divided by s (1).")) {
      EditField(state, "low freq factor", "--low-freq-factor", FieldNumberText(f64));
    }
    if (NumberField(state, "high freq factor", r.high_freq_factor, &f64,
                    "Wavelengths below original / high_freq_factor keep their frequency (4).")) {
      EditField(state, "high freq factor", "--high-freq-factor", FieldNumberText(f64));
    }
  }
  ImGui::Unindent();
}

}  // namespace

Result<ModelParams> FieldEditResult(const ModelParams& params, const ParamField& field,
                                    const std::string& text) {
  ModelParams next = params;
  Status s = field.set(next, text);
  // As the command line checks what its flags made, then what a table over the cap would be.
  if (s.ok()) s = ValidateEncodingParams(next.pe);
  if (s.ok()) s = CheckLoadedTables(next);
  if (s.ok()) s = CheckEncodingFits(next.pe, next.cap);
  // A new --versus must make B too (a scheme change that B no longer fits is not refused: the
  // compare view says so).
  if (s.ok() && next.versus != params.versus) s = CheckCompareB(next);
  if (!s.ok()) return s.error();
  return next;
}

void EditField(AppState& state, const char* label, const char* flag, const std::string& text) {
  const ParamField* field = FindParamField(flag);
  if (field == nullptr) return;
  if (Result<ModelParams> next = FieldEditResult(state.params, *field, text); !next.ok()) {
    RefuseField(state, label, InWindowTerms(next.message(), label, flag));
    return;
  }
  Edit(state, [field, text](AppState& st) { (void)field->set(st.params, text); });
}

void EditFields(AppState& state, const char* label,
                std::vector<std::pair<std::string, std::string>> edits) {
  if (edits.empty()) return;
  ModelParams next = state.params;
  for (size_t k = 0; k + 1 < edits.size(); ++k) {
    const ParamField* field = FindParamField(edits[k].first);
    if (field == nullptr) return;
    if (Status s = field->set(next, edits[k].second); !s.ok()) {
      RefuseField(state, label, InWindowTerms(s.message(), label, edits[k].first));
      return;
    }
  }
  const ParamField* last = FindParamField(edits.back().first);
  if (last == nullptr) return;
  if (Result<ModelParams> r = FieldEditResult(next, *last, edits.back().second); !r.ok()) {
    RefuseField(state, label, InWindowTerms(r.message(), label, edits.back().first));
    return;
  }
  Edit(state, [edits = std::move(edits)](AppState& st) {
    for (const auto& [flag, text] : edits) (void)FindParamField(flag)->set(st.params, text);
  });
}

void WrappedText(const std::string& text) {
  const float width = ImGui::GetContentRegionAvail().x;
  for (const std::string& line : WrapText(
           text, width, [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; },
           false)) {
    ImGui::TextUnformatted(line.c_str());
  }
}

void FieldCombo(AppState& state, const char* label, const char* flag,
                std::span<const char* const> labels, std::span<const char* const> names,
                const char* tip, ComboEdit edit) {
  const ParamField* field = FindParamField(flag);
  const std::string current = field->get(state.params);
  int index = 0;
  for (size_t k = 0; k < names.size(); ++k) {
    if (current == names[k]) index = static_cast<int>(k);
  }
  FitComboWidth(label, labels);
  const ImGuiID id = ImGui::GetID(label);
  // A choice the core refused (a learned table over the memory cap, say) keeps a red frame and
  // says why on the status line (all of it in the tooltip), until another choice or a change of
  // the parameters: lines under the combo would move every control below it.
  const auto it = state.fields.find(id);
  const std::string reason = it != state.fields.end() ? it->second.error : std::string();
  if (!reason.empty()) PushRefusedFrame();
  // A choice too wide for the combo shows its words before the parenthesis ("M-RoPE" for
  // "M-RoPE (rotates q, k by t, h, w)"); the list and the tooltip give it whole.
  const std::string whole = labels[static_cast<size_t>(index)];
  std::string shown = whole;
  const float room =
      ImGui::CalcItemWidth() - ImGui::GetFrameHeight() - ImGui::GetStyle().FramePadding.x * 2;
  if (ImGui::CalcTextSize(whole.c_str()).x > room && whole.rfind(" (") != std::string::npos) {
    shown.resize(whole.rfind(" ("));
  }
  bool chosen = false;
  if (ImGui::BeginCombo(label, shown.c_str())) {
    for (size_t k = 0; k < labels.size(); ++k) {
      ImGui::PushID(static_cast<int>(k));  // as ImGui::Combo does
      if (ImGui::Selectable(labels[k], static_cast<int>(k) == index)) {
        index = static_cast<int>(k);
        chosen = true;
      }
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  if (!reason.empty()) PopRefusedFrame();
  const std::string full =
      shown != whole || ComboClipped(shown.c_str()) ? whole + std::string("\n\n") : "";
  ItemTooltip((full + (reason.empty() ? tip : reason + "\n\n" + tip)).c_str());
  if (chosen) {
    state.fields[id].error.clear();  // a new choice: its own answer
    const std::string name = names[static_cast<size_t>(index)];
    if (!edit || !edit(state, label, name)) EditField(state, label, flag, name);
  }
  if (!reason.empty()) state.refusal_line = std::string(label) + ": " + reason;
}

std::string NumberText(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

float TooltipWrapWidth() {
  const float em = ImGui::GetFontSize();
  return std::max(em * 8, std::min(em * 30, ImGui::GetIO().DisplaySize.x - em * 2));
}

void WrappedTooltip(const char* text) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + TooltipWrapWidth());
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void ItemTooltip(const char* text) {
  if (ImGui::IsItemHovered()) WrappedTooltip(text);
}

bool ComboClipped(const char* shown) {
  const float room =
      ImGui::GetItemRectSize().x - ImGui::GetFrameHeight() - ImGui::GetStyle().FramePadding.x * 2;
  return ImGui::CalcTextSize(shown).x > room;
}

void FitComboWidth(const char* label, std::span<const char* const> items) {
  const ImGuiStyle& style = ImGui::GetStyle();
  float longest = 0;
  for (const char* item : items) longest = std::max(longest, ImGui::CalcTextSize(item).x);
  const float fit = longest + style.FramePadding.x * 2 + ImGui::GetFrameHeight();
  const float label_w = ImGui::CalcTextSize(label, nullptr, true).x;
  const float room =
      ImGui::GetContentRegionAvail().x - (label_w > 0 ? label_w + style.ItemInnerSpacing.x : 0.0f);
  const float width = std::min(std::max(ImGui::CalcItemWidth(), fit), room);
  ImGui::SetNextItemWidth(std::max(width, ImGui::GetFontSize() * 4));
}

void ErrorText(const std::string& message) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
  WrappedText(message);  // never breaks inside a number, as ImGui's wrapping does at '.'

  ImGui::PopStyleColor();
}

void NoEncodingText(const Derived& derived, const std::string& prefix) {
  if (derived.building) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - derived.building_since)
            .count();
    std::string text = derived.pe_status.message();
    if (!text.empty())
      text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    char t[64];
    if (derived.building_fraction > 0) {
      std::snprintf(t, sizeof t, " ... %.0f%%, %.1fs", 100 * derived.building_fraction, s);
    } else {
      std::snprintf(t, sizeof t, " ... %.1fs", s);
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    WrappedText(text + t);
    ImGui::PopStyleColor();
    return;
  }
  ErrorText(prefix + InWindowTerms(derived.pe_status.message(), ""));
}

namespace {

// Each scheme's controls and "what you are looking at", in the order of the Scheme enum (the
// scheme descriptors' order): one entry per scheme, its functions in its controls file.
struct SchemeControls {
  Scheme scheme;
  void (*controls)(AppState& state);
  void (*explanation)(const AppState& state, const Derived& derived);
};
constexpr SchemeControls kSchemeControls[] = {
    {Scheme::kSinusoidal, &DrawSinusoidalControls, &DrawSinusoidalExplanation},
    {Scheme::kLearned, &DrawLearnedControls, &DrawLearnedExplanation},
    {Scheme::kRope, &DrawRopeControls, &DrawRopeExplanation},
    {Scheme::kAlibi, &DrawBiasControls, &DrawBiasExplanation},
    {Scheme::kT5, &DrawBiasControls, &DrawBiasExplanation},
    {Scheme::kXpos, &DrawXposControls, &DrawXposExplanation},
    {Scheme::kNope, &DrawNopeControls, &DrawNopeExplanation},
    {Scheme::kMrope, &DrawMropeControls, &DrawMropeExplanation},
};
constexpr bool ControlsCoverEveryScheme() {
  if (std::size(kSchemeControls) != kSchemeCount) return false;
  for (size_t i = 0; i < kSchemeCount; ++i) {
    if (kSchemeControls[i].scheme != kSchemeDescriptors[i].scheme) return false;
  }
  return true;
}
static_assert(ControlsCoverEveryScheme(), "one kSchemeControls entry per scheme, in enum order");

const SchemeControls& ControlsOf(Scheme s) {
  return kSchemeControls[static_cast<size_t>(s)];
}

}  // namespace

void DrawControlsPanel(AppState& state, const Derived& derived) {
  const ModelParams& p = state.params;
  ImGui::PushItemWidth(ImGui::GetFontSize() * 8);
  DrawModelControls(state);
  ImGui::TextDisabled("Positional encoding");
  const char* schemes[kSchemeCount];
  const char* scheme_names[kSchemeCount];
  for (size_t i = 0; i < kSchemeCount; ++i) {
    schemes[i] = kSchemeDescriptors[i].window_label.data();
    scheme_names[i] = kSchemeDescriptors[i].name.data();
  }
  FieldCombo(state, "scheme", "--scheme", schemes, scheme_names,
             "How position enters the model: a vector added to each token (sinusoidal, learned: "
             "GPT-2, BERT) or a rotation of queries and keys inside attention (RoPE: Llama, "
             "Qwen, Mistral, GPT-NeoX, GPT-J), or none at all (NoPE: every fourth layer of Llama 4 "
             "and SmolLM3).");
  int64_t i64 = 0;
  const SchemeDescriptor& scheme = DescriptorOf(p.pe.kind());
  const bool rope = scheme.family == Family::kRotary;
  const char* width = scheme.width_label.data();  // a literal: NUL-terminated
  if (NumberField(state, width, p.pe.d_model, &i64,
                  rope ? "Dimension of one attention head: the vectors RoPE rotates (1 to 65536)."
                       : "Width of every token vector: the number of columns of the table (1 to "
                         "65536). Type a value, then Enter.")) {
    EditField(state, width, "--d-model", std::to_string(i64));
  }
  if (NumberField(state, "max_len", p.pe.max_len, &i64,
                  "Number of positions in the table: the longest sequence the model can be "
                  "given (1 to 2^31).")) {
    EditField(state, "max_len", "--max-len", std::to_string(i64));
  }
  if (p.pe.kind() == Scheme::kLearned && p.pe.learned().table.loaded()) {
    // The loaded table set d_model and max_len: say so where they are edited.
    const LoadedTable& t = *p.pe.learned().table.table;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    WrappedText(
        Printf("d_model and max_len follow the loaded table: its %lld columns, its %lld "
               "rows from offset %lld (type a smaller max_len to show fewer)",
               static_cast<long long>(t.cols()), static_cast<long long>(t.rows() - p.pe.offset),
               static_cast<long long>(p.pe.offset)));
    ImGui::PopStyleColor();
  }
  if (NumberField(state, "offset", p.pe.offset, &i64,
                  "Position of the first row: a model continuing a long text sees positions "
                  "offset, offset+1, ... (negative only for the sinusoid: relative offsets).")) {
    EditField(state, "offset", "--offset", std::to_string(i64));
  }
  DrawLoadedTablesInfo(state, derived);
  ControlsOf(p.pe.kind()).controls(state);
  // (While a table is built the panels and status line say so; a line here would move every
  // control below it twice.)
  if (!derived.pe_status.ok() && !derived.building) {
    ErrorText(InWindowTerms(derived.pe_status.message(), ""));
  }

  ImGui::Spacing();
  ImGui::TextDisabled("Heatmap");
  int cmap = static_cast<int>(p.colormap);
  const char* cmaps[] = {"RdBu (diverging)", "viridis", "cividis (colour-blind safe)"};
  static_assert(std::size(cmaps) == kColormapCount, "one label per colormap");
  FitComboWidth("colormap", cmaps);
  if (ImGui::Combo("colormap", &cmap, cmaps, kColormapCount)) {
    EditField(state, "colormap", "--colormap",
              std::string(ColormapName(static_cast<ColormapId>(cmap))));
  }
  ItemTooltip(
      "Colours of the heatmap: a diverging map centred on 0 shows sign; viridis is "
      "perceptually uniform and prints well in grey; cividis (Nunez et al. 2018) looks the "
      "same to readers with red-green colour blindness.");

  ImGui::Spacing();
  // The input layer's settings matter only where the positional vector is added to the tokens.
  const bool added = p.pe.kind() == Scheme::kSinusoidal || p.pe.kind() == Scheme::kLearned;
  ImGui::TextDisabled(added ? "Input layer" : "Model");
  bool scale = p.input.scale;
  if (added) {
    if (ImGui::Checkbox("scale by sqrt(d_model)", &scale)) {
      EditField(state, "scale by sqrt(d_model)", "--no-scale", scale ? "sqrt(d_model)" : "off");
    }
    ItemTooltip(
        "The paper multiplies embeddings by sqrt(d_model) so that they are not drowned by the "
        "positional encoding, whose entries are at most 1.");
    float dropout = static_cast<float>(p.input.dropout);
    if (ImGui::SliderFloat("dropout p", &dropout, 0.0f, 1.0f, "%.2f",
                           ImGuiSliderFlags_AlwaysClamp)) {
      EditField(state, "dropout p", "--dropout", FieldNumberText(dropout));
    }
    ItemTooltip(
        "Probability of zeroing each entry of the sum in train mode; kept entries are scaled by "
        "1/(1-p) so the expected value is unchanged.");
    bool train = p.input.train;
    if (ImGui::Checkbox("train mode", &train)) {
      EditField(state, "train mode", "--train", train ? "train" : "eval");
    }
    ItemTooltip("Dropout only acts while training; in eval mode it is the identity.");
  }
  uint64_t u64 = 0;
  if (added && NumberField(state, "dropout seed", p.input.dropout_seed, &u64,
                           "Seed of the dropout mask: the same seed gives the same zeros.")) {
    EditField(state, "dropout seed", "--dropout-seed", std::to_string(u64));
  }
  if (NumberField(state, "seed", p.example.seed, &u64,
                  "Seed of the model's random tables: the token embeddings (untrained, from the "
                  "init below) and the learned position table.")) {
    EditField(state, "seed", "--seed", std::to_string(u64));
  }
  DrawTokenEmbeddingControls(state);
  ImGui::PopItemWidth();

  ImGui::Spacing();
  if (ImGui::Button("Reset to defaults")) {
    Edit(state, [](AppState& st) {
      AppState fresh;
      fresh.show = st.show;
      fresh.ui = st.ui;  // the UI scale and theme are preferences
      fresh.params.example.truncate = st.params.example.truncate;
      st = std::move(fresh);
    });
  }
  ItemTooltip(
      "Back to the built-in example: d_model 128, max_len 100, base 10000, "
      "\"The cat sits on the mat\".");
  ControlsOf(p.pe.kind()).explanation(state, derived);
}

void DrawSchemeExplanation(const AppState& state, const Derived& derived) {
  ControlsOf(state.params.pe.kind()).explanation(state, derived);
}

void DrawStatusLine(const AppState& state, const Derived& derived) {
  if (!derived.pe_status.ok()) {
    if (derived.building) {
      NoEncodingText(derived, "");
    } else {
      ImGui::TextDisabled("No table: %s", InWindowTerms(derived.pe_status.message(), "").c_str());
    }
    return;
  }
  const TableSummary& s = derived.summary;
  const Encoding& e = *derived.encoding;
  std::string text = Printf("%s table %lld x %lld (%s)   %s [%.6f, %.6f]", e.TableName().c_str(),
                            static_cast<long long>(e.rows()), static_cast<long long>(e.cols()),
                            MarkupToUnicode(e.Summary()).c_str(), s.exact ? "min/max" : "bound",
                            static_cast<double>(s.min), static_cast<double>(s.max));
  if (e.family() == Family::kAdded && s.norm_position >= 0) {
    // Position 1, or the last one the table has (max_len 1 has position 0 only).
    text += Printf("   |PE(%lld)| = %.6f", static_cast<long long>(s.norm_position), s.norm_pe1);
  }
  // What else changes the score views' numbers: the window, the softmax scale, the temperature.
  if (const std::string scores = ScoreOptionsText(state.params); !scores.empty()) {
    text += "   scores: " + scores;
  }
  // The model the parameters came from, "modified from" once a value was changed.
  if (const std::string model = ModelLabel(state.params); !model.empty()) {
    text = model + "   " + text;
  }
  // What the last pick, layer change or Detach replaced, for a few seconds.
  const ModelPickState& pick = state.model_pick;
  if (!pick.note.empty() && ImGui::GetTime() < pick.note_until &&
      pick.note_model == state.params.model && pick.note_layer == state.params.model_layer) {
    text = pick.note + "   " + text;
  }
  ImGui::TextUnformatted(text.c_str());
  // The whole line, for a window too narrow to show its end.
  if (ImGui::CalcTextSize(text.c_str()).x > ImGui::GetContentRegionAvail().x) {
    ItemTooltip(text.c_str());
  }
}

}  // namespace pe
