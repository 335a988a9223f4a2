// The controls: every parameter of the model input, each with a tooltip that says what it
// means in the transformer. Edits apply at once; invalid values show the core's message here.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

#include "panels/panels.h"

namespace pe {
namespace {

// Text wrapped at spaces only, so "6.28319e+09" or "-0.416" is never split across lines.
void WrappedText(const std::string& text) {
  const float width = ImGui::GetContentRegionAvail().x;
  std::string line;
  size_t k = 0;
  while (k < text.size()) {
    const size_t next = text.find(' ', k);
    const std::string word =
        text.substr(k, next == std::string::npos ? std::string::npos : next - k);
    const std::string candidate = line.empty() ? word : line + " " + word;
    if (!line.empty() && ImGui::CalcTextSize(candidate.c_str()).x > width) {
      ImGui::TextUnformatted(line.c_str());
      line = word;
    } else {
      line = candidate;
    }
    if (next == std::string::npos) break;
    k = next + 1;
  }
  if (!line.empty()) ImGui::TextUnformatted(line.c_str());
}

std::string Printf(const char* format, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

// A few sentences on what the views show, with the current numbers filled in. They hold for
// every d (one column, odd widths), any offset and any base.
void DrawExplanation(const AppState& state, const Derived& derived) {
  if (!derived.pe_status.ok() || derived.columns.empty()) return;
  const EncodingParams& p = state.params.pe;
  int64_t waves = 0, zeros = 0, sin_cos_pairs = 0;
  std::vector<double> freqs;
  for (const WaveColumn& c : derived.columns) {
    if (c.wave == Wave::kZero) {
      ++zeros;
      continue;
    }
    ++waves;
    if (c.wave == Wave::kCos) ++sin_cos_pairs;  // every cosine has its sine
    if (std::find(freqs.begin(), freqs.end(), c.frequency) == freqs.end())
      freqs.push_back(c.frequency);
  }
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("What you are looking at");
  const long long d = p.d_model;
  const long long n_freq = static_cast<long long>(freqs.size());
  std::string row = p.offset == 0 ? std::string(
                                        "Row p of the table is the vector added to the token at "
                                        "position p.")
                                  : Printf(
                                        "Row r of the table is the vector added to the token at "
                                        "position %lld + r (the offset).",
                                        static_cast<long long>(p.offset));
  if (d == 1) {
    row += Printf(" Its one column is sin(p w) at the single frequency w = %.6g.",
                  freqs.empty() ? 0.0 : freqs[0]);
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

// Puts `mutate` applied to the current PE parameters through the core's checks: a valid result
// is queued for the next frame, an invalid one is refused with its reason under `label`.
void EditPe(AppState& state, const char* label, const auto& mutate) {
  EncodingParams next = state.params.pe;
  mutate(next);
  if (Status s = ValidateEncodingParams(next); !s.ok()) {
    RefuseField(state, label, s.message());
    return;
  }
  Edit(state, [next](AppState& st) { st.params.pe = next; });
}

}  // namespace

void ItemTooltip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

void ErrorText(const std::string& message) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
  ImGui::TextWrapped("%s", message.c_str());
  ImGui::PopStyleColor();
}

void DrawControlsPanel(AppState& state, const Derived& derived) {
  const ModelParams& p = state.params;
  ImGui::PushItemWidth(ImGui::GetFontSize() * 9);
  ImGui::TextDisabled("Positional encoding");
  int64_t i64 = 0;
  if (NumberField(state, "d_model", p.pe.d_model, &i64,
                  "Width of every token vector: the number of columns of the PE table (1 to "
                  "65536). Type a value, then Enter.")) {
    EditPe(state, "d_model", [&](EncodingParams& q) { q.d_model = i64; });
  }
  if (NumberField(state, "max_len", p.pe.max_len, &i64,
                  "Number of positions in the table: the longest sequence the model can be "
                  "given (1 to 2^31).")) {
    EditPe(state, "max_len", [&](EncodingParams& q) { q.max_len = i64; });
  }
  double f64 = 0;
  if (NumberField(state, "base", p.pe.sinusoidal().base, &f64,
                  "Base of the geometric frequency ladder (10000 in the paper): wavelengths run "
                  "from 2*pi to about 2*pi*base.")) {
    EditPe(state, "base", [&](EncodingParams& q) { q.sinusoidal().base = f64; });
  }
  int variant = static_cast<int>(p.pe.sinusoidal().variant);
  const char* variants[] = {"paper (interleaved)", "t2t [sin|cos]", "tf-text [sin|cos]"};
  if (ImGui::Combo("variant", &variant, variants, 3)) {
    EditPe(state, "variant", [&](EncodingParams& q) { q.sinusoidal().variant = static_cast<PeVariant>(variant); });
  }
  ItemTooltip(
      "Column layout: paper interleaves sin/cos (PyTorch tutorial code); t2t and tf-text put all "
      "sines first, then all cosines, with slightly different frequencies for t2t.");
  if (NumberField(state, "offset", p.pe.offset, &i64,
                  "Position of the first row: a model continuing a long text sees positions "
                  "offset, offset+1, ...")) {
    EditPe(state, "offset", [&](EncodingParams& q) { q.offset = i64; });
  }
  if (!derived.pe_status.ok()) ErrorText(derived.pe_status.message());

  ImGui::Spacing();
  ImGui::TextDisabled("Heatmap");
  int cmap = static_cast<int>(p.colormap);
  const char* cmaps[] = {"RdBu (diverging, 0 = white)", "viridis"};
  if (ImGui::Combo("colormap", &cmap, cmaps, 2)) {
    Edit(state, [cmap](AppState& st) { st.params.colormap = static_cast<ColormapId>(cmap); });
  }
  ItemTooltip(
      "Colours of the heatmap: a diverging map centred on 0 shows sign; viridis is "
      "perceptually uniform and prints well in grey.");

  ImGui::Spacing();
  ImGui::TextDisabled("Input layer");
  bool scale = p.input.scale;
  if (ImGui::Checkbox("scale by sqrt(d_model)", &scale)) {
    Edit(state, [scale](AppState& st) { st.params.input.scale = scale; });
  }
  ItemTooltip(
      "The paper multiplies embeddings by sqrt(d_model) so that they are not drowned by the "
      "positional encoding, whose entries are at most 1.");
  float dropout = static_cast<float>(p.input.dropout);
  if (ImGui::SliderFloat("dropout p", &dropout, 0.0f, 1.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp)) {
    Edit(state, [dropout](AppState& st) { st.params.input.dropout = dropout; });
  }
  ItemTooltip(
      "Probability of zeroing each entry of the sum in train mode; kept entries are scaled by "
      "1/(1-p) so the expected value is unchanged.");
  bool train = p.input.train;
  if (ImGui::Checkbox("train mode", &train)) {
    Edit(state, [train](AppState& st) { st.params.input.train = train; });
  }
  ItemTooltip("Dropout only acts while training; in eval mode it is the identity.");
  uint64_t u64 = 0;
  if (NumberField(state, "dropout seed", p.input.dropout_seed, &u64,
                  "Seed of the dropout mask: the same seed gives the same zeros.")) {
    Edit(state, [u64](AppState& st) { st.params.input.dropout_seed = u64; });
  }
  if (NumberField(state, "embedding seed", p.example.seed, &u64,
                  "Seed of the N(0,1) embedding table (an untrained nn.Embedding).")) {
    Edit(state, [u64](AppState& st) { st.params.example.seed = u64; });
  }
  ImGui::PopItemWidth();

  ImGui::Spacing();
  if (ImGui::Button("Reset to defaults")) {
    Edit(state, [](AppState& st) {
      AppState fresh;
      fresh.show = st.show;
      fresh.params.example.truncate = st.params.example.truncate;
      st = std::move(fresh);
    });
  }
  ItemTooltip(
      "Back to the built-in example: d_model 128, max_len 100, base 10000, "
      "\"The cat sits on the mat\".");
  DrawExplanation(state, derived);
}

void DrawStatusLine(const AppState& state, const Derived& derived) {
  if (!derived.pe_status.ok()) {
    ImGui::TextDisabled("No table: %s", derived.pe_status.message().c_str());
    return;
  }
  const TableSummary& s = derived.summary;
  ImGui::Text("PE table %lld x %lld (%s)   %s [%.6f, %.6f]   |PE(1)| = %.6f",
              static_cast<long long>(state.params.pe.max_len),
              static_cast<long long>(state.params.pe.d_model),
              std::string(VariantName(state.params.pe.sinusoidal().variant)).c_str(),
              s.exact ? "min/max" : "bound", static_cast<double>(s.min), static_cast<double>(s.max),
              s.norm_pe1);
}

}  // namespace pe
