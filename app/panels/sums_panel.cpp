// Token sums: the sentence as token chips; for the selected token (or all), the per-dimension
// parts embedding, scaled, positional and sum as bars and as numbers, their norms, and the
// ratio |scaled| / |PE| that the sqrt(d) scaling is about. Also a mode to type vectors by hand.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "encoding/scheme_descriptor.h"
#include "panels/panels.h"
#include "text/byte_groups.h"
#include "text/tokenizer.h"
#include "ui/clipboard.h"
#include "ui/fonts.h"
#include "ui/plot.h"
#include "views/figure_export.h"
#include "views/view_geometry.h"

namespace pe {
namespace {

// Chips for at most this many tokens (the rest are picked by index).
constexpr size_t kMaxChips = 128;

// "All tokens" draws at most kMaxTokenSeries series (view_geometry.h, as the figure); the norms
// table still lists every token. The labels are the figure's.
const char* kPartLabels[] = {"embedding E[id]",
                             "scaled E \xc3\x97 \xe2\x88\x9a"
                             "d",
                             "positional PE[p]", "sum (model input)"};

// The columns of the numbers table (one token) and of the norms table (every token).
const char* const kPartNames[] = {"embedding", "scaled", "positional", "sum"};
const char* const kNormNames[] = {"|E|",
                                  "|E\xc3\x97\xe2\x88\x9a"
                                  "d|",
                                  "|PE|", "|sum|"};

void TokenChips(AppState& state, const SentenceResult& s) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const int64_t offset = state.params.pe.offset;
  // Byte-fallback pieces that spell one character sit together, underlined with it.
  const SubwordTokenizer* subword_tok = state.params.example.subword.get();
  std::vector<ByteFallbackGroup> groups;
  if (subword_tok != nullptr && state.params.example.ids.empty()) {
    groups = ByteFallbackGroups(
        *subword_tok,
        std::span<const int64_t>(s.ids.data(), std::min<size_t>(s.ids.size(), kMaxChips)));
  }
  auto group_of = [&groups](size_t t) -> const ByteFallbackGroup* {
    for (const ByteFallbackGroup& g : groups) {
      if (t >= g.first && t < g.first + g.count) return &g;
    }
    return nullptr;
  };
  auto chip = [&](int index, const std::string& label, bool linked, bool special = false,
                  bool joined = false) {
    const bool selected = state.selection.selected_token == index;
    const float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
    const float gap = joined ? 1.0f : ImGui::GetStyle().ItemSpacing.x;
    if (index != -1 && ImGui::GetItemRectMax().x + gap + w < right) {
      ImGui::SameLine(0, gap);
    }
    ImGui::PushID(index);
    if (selected) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.75f, 0.6f, 0.1f, 1.0f));
    // A special token (<s>, [CLS], one the post-processor added) in a colour of its own.
    if (special && !selected) {
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.45f, 0.25f, 0.6f, 1.0f));
    }
    if (linked) ImGui::PushStyleColor(ImGuiCol_Border, ImVec4(1, 1, 1, 1));
    if (linked) ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 2.0f);
    if (ImGui::Button(label.c_str())) {
      // A token picked by hand is outlined in exported figures too.
      Edit(state, [index](AppState& st) {
        st.selection.selected_token = index;
        st.export_dialog.token_chosen = true;
      });
    }
    if (linked) ImGui::PopStyleVar();
    if (linked) ImGui::PopStyleColor();
    if (special && !selected) ImGui::PopStyleColor();
    if (selected) ImGui::PopStyleColor();
    ImGui::PopID();
  };
  chip(-1, "all tokens", false);
  const size_t shown = std::min<size_t>(s.tokens.size(), kMaxChips);
  for (size_t t = 0; t < shown; ++t) {
    // A space as ␣, a newline as ↵, a tab as →: a chip is one line.
    // A character beyond U+FFFF, which the window cannot draw, by its name.
    const std::string text = s.tokens[t].text == " "
                                 ? std::string("\xe2\x90\xa3")
                                 : NameCodePointsBeyondU16(VisibleWhitespace(s.tokens[t].text));
    char label[160];
    if (state.params.example.ids.empty()) {
      std::snprintf(label, sizeof label, "%s  id %lld  pos %lld", text.c_str(),
                    static_cast<long long>(s.ids[t]),
                    static_cast<long long>(offset + static_cast<int64_t>(t)));
    } else {  // typed ids: the label is the id
      std::snprintf(label, sizeof label, "%s  pos %lld", text.c_str(),
                    static_cast<long long>(offset + static_cast<int64_t>(t)));
    }
    const bool special = subword_tok && t < s.ids.size() && subword_tok->IsSpecial(s.ids[t]);
    const ByteFallbackGroup* group = group_of(t);
    chip(static_cast<int>(t), label,
         state.selection.hover_position == offset + static_cast<int64_t>(t), special,
         group != nullptr && t > group->first);
    if (group != nullptr) {
      // One line under the group's chips (the 1 px gaps between them included).
      const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
      ImDrawList* draw = ImGui::GetWindowDrawList();
      const ImU32 color = ImGui::GetColorU32(ImGuiCol_PlotLinesHovered);
      draw->AddLine(ImVec2(lo.x - (t > group->first ? 1.0f : 0.0f), hi.y + 1),
                    ImVec2(hi.x, hi.y + 1), color, 2.0f);
    }
    if (ImGui::IsItemHovered()) {
      state.selection.next_hover_position = offset + static_cast<int64_t>(t);
      std::string tip;
      if (!s.tokens[t].raw.empty() && s.tokens[t].raw != s.tokens[t].text) {
        // The vocabulary's own string: byte-level BPE writes a space as U+0120 (G-dot).
        char raw[320];
        std::snprintf(
            raw, sizeof raw, "vocabulary entry \"%s\" (id %lld), bytes %lld to %lld of the text",
            s.tokens[t].raw.c_str(), static_cast<long long>(s.ids[t]),
            static_cast<long long>(s.tokens[t].begin), static_cast<long long>(s.tokens[t].end));
        tip = raw;
      }
      if (group != nullptr) {
        // The pieces of one character: which byte this is, and what they spell together.
        std::string pieces;
        for (size_t k = 0; k < group->count; ++k) {
          pieces += subword_tok->DisplayToken(s.ids[group->first + k]);
        }
        char line[200];
        std::snprintf(line, sizeof line,
                      "byte %zu of %zu of \"%s\" (%s): the vocabulary has no token for this "
                      "character, so it is spelled as its UTF-8 bytes, %s",
                      t - group->first + 1, group->count, group->character.c_str(),
                      CodePointName(group->code_point).c_str(), pieces.c_str());
        if (!tip.empty()) tip += '\n';
        tip += line;
      }
      // A character no installed font has draws as a box: name it.
      const std::u32string missing = MissingCodePoints(s.tokens[t].text);
      if (!missing.empty()) {
        std::string names;
        for (char32_t c : missing) {
          if (!names.empty()) names += ", ";
          names += CodePointName(c);
        }
        if (!tip.empty()) tip += '\n';
        tip += names;
        const bool beyond =
            std::any_of(missing.begin(), missing.end(), [](char32_t c) { return c > 0xFFFF; });
        tip += beyond ? ": the window cannot draw characters beyond U+FFFF (its text is 16-bit)"
               : missing.size() == 1 ? ": no installed font has this character"
                                     : ": no installed font has these characters";
      }
      if (!tip.empty()) ImGui::SetTooltip("%s", tip.c_str());
    }
  }
}

// Bars of the chosen series over dimensions; thin lines when bars would be under 2 px wide.
void PartBars(AppState& state, const std::vector<const float*>& series,
              const std::vector<std::string>& names, const std::vector<ImU32>& colors, int64_t d,
              ImVec2 size) {
  PlotSpec spec;
  spec.x_label = "dimension";
  spec.y_label = "value";
  spec.limits = SumsExtent(series, d);  // the same extent the exported figure uses
  spec.x_integer = true;
  spec.min_x_span = std::min<double>(4.0, static_cast<double>(d));
  spec.lock_y = true;
  spec.crosshair = false;
  state.windows[ViewKind::kSums].view.y0 = spec.limits.y0;
  state.windows[ViewKind::kSums].view.y1 = spec.limits.y1;
  if (!state.windows[ViewKind::kSums].fitted) {
    state.windows[ViewKind::kSums].view.x0 = spec.limits.x0;
    state.windows[ViewKind::kSums].view.x1 = spec.limits.x1;
    state.windows[ViewKind::kSums].fitted = true;
  }
  Plot plot("bars", state.windows[ViewKind::kSums].view, spec, size);
  plot.HLine(0.0, CurrentPlotColors().zero_line);
  const PlotRange& v = state.windows[ViewKind::kSums].view;
  const int64_t j0 = std::max<int64_t>(0, static_cast<int64_t>(std::floor(v.x0)));
  const int64_t j1 = std::min<int64_t>(d - 1, static_cast<int64_t>(std::ceil(v.x1)));
  const auto n = static_cast<double>(series.size());
  const double bar = 0.8 / n;
  if (plot.pixels_per_x() * bar >= 2.0) {
    for (size_t k = 0; k < series.size(); ++k) {
      for (int64_t j = j0; j <= j1; ++j) {
        const double x = static_cast<double>(j) - 0.4 + bar * static_cast<double>(k);
        plot.FilledRect(x, 0.0, x + bar * 0.9, series[k][j], colors[k]);
      }
    }
  } else {
    std::vector<double> xs, ys;
    for (size_t k = 0; k < series.size(); ++k) {
      xs.clear();
      ys.clear();
      for (int64_t j = j0; j <= j1; ++j) {
        xs.push_back(static_cast<double>(j));
        ys.push_back(series[k][j]);
      }
      plot.Line(xs.data(), ys.data(), static_cast<int>(xs.size()), colors[k], 1.2f);
    }
  }
  if (plot.hovered()) {
    const auto j = static_cast<int64_t>(std::llround(plot.mouse_x()));
    if (j >= 0 && j < d) {
      ImGui::BeginTooltip();
      ImGui::Text("dimension %lld", static_cast<long long>(j));
      for (size_t k = 0; k < series.size(); ++k) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors[k]), "%s: %.6f", names[k].c_str(),
                           static_cast<double>(series[k][j]));
      }
      ImGui::EndTooltip();
    }
  }
  plot.End();
}

// |scaled| / |PE|, or a word when |PE| is 0 (position 0 with one column: sin 0 = 0).
std::string RatioText(const InputParts& parts, int64_t t) {
  const double r = parts.ScaledToPositionalRatio(t);
  if (!std::isfinite(r)) return "undefined (|PE| = 0)";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", r);
  return buf;
}

// Columns as wide as their widest number ("-0.9886041"), never cut: a narrow panel scrolls
// sideways instead of showing "-0.98".
constexpr ImGuiTableFlags kNumberTableFlags =
    ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_RowBg |
    ImGuiTableFlags_BordersOuter | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;

void NumberColumn(const char* name, const char* widest) {
  ImGui::TableSetupColumn(name, ImGuiTableColumnFlags_WidthFixed,
                          std::max(ImGui::CalcTextSize(widest).x, ImGui::CalcTextSize(name).x));
}

// The cell a copy menu was opened on, kept in the panel window's ImGui storage (per window,
// so no state of ours outlives the panel).
void RememberCell(ImGuiID menu, int64_t row, int64_t col) {
  ImGuiStorage* storage = ImGui::GetStateStorage();
  storage->SetInt(menu + 1, static_cast<int>(row));
  storage->SetInt(menu + 2, static_cast<int>(col));
  OpenCopyMenu(menu);
}

// Right-click on the value just drawn opens the copy menu on its cell.
void CopyOnRightClick(ImGuiID menu, int64_t row, int64_t col) {
  if (ImGui::IsItemHovered() && ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
    RememberCell(menu, row, col);
  }
}

void CopyMenu(AppState& state, ImGuiID menu, const CopySource& source) {
  ImGuiStorage* storage = ImGui::GetStateStorage();
  DrawCopyMenu(state, menu, source, storage->GetInt(menu + 1, -1), storage->GetInt(menu + 2, -1));
}

CopySource PartsCopySource(const InputParts& parts, int t) {
  CopySource s;
  s.rows = parts.embedding.cols;
  s.cols = 4;
  s.corner = "dim";
  s.col_name = [](int64_t c) { return std::string(kPartNames[c]); };
  s.row_name = [](int64_t r) { return std::to_string(r); };
  s.value = [&parts, t](int64_t r, int64_t c) { return parts.part(kAllParts[c]).at(t, r); };
  return s;
}

void NumbersTable(AppState& state, const InputParts& parts, int t, ImVec2 size) {
  const ImGuiTableFlags flags = kNumberTableFlags;
  const ImGuiID menu = ImGui::GetID("numbers_copy");
  if (ImGui::BeginTable("numbers", 5, flags, size)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    NumberColumn("dim", "65535");
    for (const char* name : kPartNames) {
      NumberColumn(name, "-1.234567e-05");  // %.7g at its widest
    }
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(parts.embedding.cols));
    while (clipper.Step()) {
      for (int j = clipper.DisplayStart; j < clipper.DisplayEnd; ++j) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%d", j);
        CopyOnRightClick(menu, j, 0);
        for (int k = 0; k < 4; ++k) {
          ImGui::TableNextColumn();
          ImGui::Text("%.7g",
                      static_cast<double>(parts.part(kAllParts[k]).at(t, j)));  // all a float32 has
          CopyOnRightClick(menu, j, k);
        }
      }
    }
    ImGui::EndTable();
  }
  CopyMenu(state, menu, PartsCopySource(parts, t));
}

CopySource NormsCopySource(const InputParts& parts, const std::vector<std::string>& names) {
  CopySource s;
  s.rows = parts.tokens();
  s.cols = 4;
  s.corner = "token";
  s.col_name = [](int64_t c) { return std::string(kNormNames[c]); };
  s.row_name = [&names](int64_t r) { return names[static_cast<size_t>(r)]; };
  s.value = [&parts](int64_t r, int64_t c) {
    return static_cast<float>(parts.Norm(kAllParts[c], r));
  };
  return s;
}

void NormsTable(AppState& state, const InputParts& parts, const std::vector<std::string>& names,
                ImVec2 size) {
  const ImGuiTableFlags flags = kNumberTableFlags;
  const ImGuiID menu = ImGui::GetID("norms_copy");
  if (ImGui::BeginTable("norms", 6, flags, size)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    float token_w = ImGui::CalcTextSize("token").x;
    for (size_t t = 0; t < names.size() && t < 4096; ++t) {
      token_w = std::max(token_w, ImGui::CalcTextSize(names[t].c_str()).x);
    }
    ImGui::TableSetupColumn("token", ImGuiTableColumnFlags_WidthFixed,
                            std::min(token_w, ImGui::GetFontSize() * 12));
    // |E row|, |sqrt(d) E row| and |PE row| side by side: the scaling's role under each init.
    for (const char* name : kNormNames) NumberColumn(name, "00000.0000");
    NumberColumn("|scaled|/|PE|", "undefined (|PE| = 0)");
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;  // only the visible rows: a long text has thousands of tokens
    clipper.Begin(static_cast<int>(parts.tokens()));
    while (clipper.Step()) {
      for (int64_t t = clipper.DisplayStart; t < clipper.DisplayEnd; ++t) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(names[static_cast<size_t>(t)].c_str());
        CopyOnRightClick(menu, t, 0);
        for (int k = 0; k < 4; ++k) {
          ImGui::TableNextColumn();
          ImGui::Text("%.4f", parts.Norm(kAllParts[k], t));
          CopyOnRightClick(menu, t, k);
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(RatioText(parts, t).c_str());
      }
    }
    ImGui::EndTable();
  }
  CopyMenu(state, menu, NormsCopySource(parts, names));
}

// |PE(p)| of the sinusoid: every sin/cos pair adds a^2 (a the output scale), so sqrt(d/2) |a| for
// even d; an odd d's last column is a lone sin (paper, tf-text), adding between 0 and a^2, or
// zero (t2t).
std::string SinusoidNormText(const EncodingParams& pe, int64_t d) {
  const double a = std::abs(pe.sinusoidal().output_scale);
  const double pairs = static_cast<double>(d / 2);
  if (d % 2 == 0) return Printf("|PE| of a sinusoid is sqrt(d/2) = %.3g", a * std::sqrt(pairs));
  if (pe.sinusoidal().variant == PeVariant::kT2t) {
    return Printf("|PE| of this sinusoid is sqrt((d-1)/2) = %.3g (its last column is 0)",
                  a * std::sqrt(pairs));
  }
  return Printf(
      "|PE| of this sinusoid lies between sqrt((d-1)/2) = %.3g and sqrt((d+1)/2) = %.3g "
      "(its last column is a lone sin)",
      a * std::sqrt(pairs), a * std::sqrt(pairs + 1));
}

void NormLine(const SentenceResult& s, const ModelParams& m, int t) {
  const EncodingParams& pe = m.pe;
  const bool scaled = m.input.scale;
  const EmbeddingInit init = m.example.init;
  const bool loaded = m.example.embeddings.loaded();
  const int64_t offset = pe.offset;
  const InputParts& parts = s.parts;
  const int64_t d = parts.embedding.cols;
  const size_t k = static_cast<size_t>(t);
  if (s.tokens[k].text == "id " + std::to_string(s.ids[k])) {  // typed ids: the label is the id
    ImGui::Text("id %lld (position %lld):", static_cast<long long>(s.ids[k]),
                static_cast<long long>(offset + t));
  } else {
    ImGui::Text("\"%s\" (id %lld, position %lld):", s.tokens[k].text.c_str(),
                static_cast<long long>(s.ids[k]), static_cast<long long>(offset + t));
  }
  // Wrapped at spaces only: ImGui's own wrapping breaks "0.457" after its '.'.
  WrappedText(Printf(
      "|E| = %.4f   |E\xc3\x97\xe2\x88\x9a"
      "d| = %.4f   |PE| = %.4f   |sum| = %.4f   "
      "|E\xc3\x97\xe2\x88\x9a"
      "d|/|PE| = %s",
      parts.Norm(Part::kEmbedding, t), parts.Norm(Part::kScaled, t),
      parts.Norm(Part::kPositional, t), parts.Norm(Part::kSum, t), RatioText(parts, t).c_str()));
  ItemTooltip(scaled
                  ? "With sqrt(d) scaling the token's meaning is several times larger than its "
                    "position code, so the position nudges the vector rather than drowning it."
                  : "Without scaling, N(0,1) embeddings have |E| about sqrt(d), the same size as "
                    "|PE| = sqrt(d/2): position and meaning compete equally.");
  // What the initialiser makes of it: the row's expected norm before and after sqrt(d), beside
  // the positional row's.
  const double rd = std::sqrt(static_cast<double>(d));
  const std::string pe_size =
      m.input.pe_discarded
          ? "PE is the zero table the JAX notebook adds (its .at[].set() results are never "
            "kept): the model input is the scaled embedding alone, as the walkthrough shows"
      : !m.example.positional_rows.empty()
          ? Printf("PE is the typed rows P[0] to P[%zu] (--positional-rows): |PE| = %.4g here",
                   m.example.positional_rows.size() - 1, parts.Norm(Part::kPositional, t))
      : pe.kind() == Scheme::kLearned && pe.learned().table.loaded()
          ? Printf("W_pos is the loaded table %s: |W_pos| = %.4g here",
                   pe.learned().table.spec.c_str(), parts.Norm(Part::kPositional, t))
      : pe.kind() == Scheme::kLearned
          ? Printf("|W_pos| is about %.3g (%s)", InitStd(pe.learned().init, d) * rd,
                   InitFormula(pe.learned().init, d).c_str())
      : DescriptorOf(pe.kind()).family == Family::kAdded &&
              DescriptorOf(pe.kind()).vector_symbol.empty()  // adds nothing: NoPE
          ? std::string(
                "NoPE adds no position: PE is the zero vector, the model input is the "
                "token embedding alone")
          : SinusoidNormText(pe, d);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  if (!m.example.embedding_rows.empty() && !loaded) {
    WrappedText(Printf(
        "E is the typed rows E[0] to E[%zu] (--embedding-rows): |E| = %.4g here; "
        "%s.",
        m.example.embedding_rows.size() - 1, parts.Norm(Part::kEmbedding, t), pe_size.c_str()));
  } else if (loaded) {
    // A loaded table's rows have whatever size its training gave them: no initialiser to quote.
    WrappedText(Printf("E is the loaded table's rows: |E| = %.4g here; %s.",
                       parts.Norm(Part::kEmbedding, t), pe_size.c_str()));
  } else {
    WrappedText(
        Printf("E is random and untrained: %s, so |E| is about %.3g and |E\xc3\x97\xe2\x88\x9a"
               "d| about %.3g; %s.",
               InitFormula(init, d).c_str(), InitStd(init, d) * rd, InitStd(init, d) * rd * rd,
               pe_size.c_str()));
  }
  ImGui::PopStyleColor();
}

void ShowParts(AppState& state, const SentenceResult& s, const std::vector<std::string>& names,
               DrawnRecord& drawn) {
  const InputParts& parts = s.parts;
  const float em = ImGui::GetFontSize();
  const int64_t d = parts.embedding.cols;
  const int tokens = static_cast<int>(parts.tokens());
  const int sel = std::min(state.selection.selected_token, tokens - 1);  // clamped before the frame
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float table_w = std::min(em * 34.0f, avail.x * 0.5f);
  std::vector<const float*> series;
  std::vector<std::string> series_names;
  std::vector<ImU32> colors;
  for (int t = 0; t < tokens; ++t) drawn.sum_rows.push_back(parts.sum.row(t));
  drawn.sum_width = d;
  if (state.params.input.pe_discarded) {
    // The JAX pitfall, named where the sums are shown: the same model input as the walkthrough.
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.95f, 0.65f, 0.2f, 1.0f));
    WrappedText(
        "JAX pitfall (preset jax-pitfall): the positional table the code adds stayed zero "
        "(pe.at[].set() returns a new array the code never keeps), so PE is 0 and the model "
        "input is the scaled embedding alone. The walkthrough's + PE step shows the intended "
        "rows.");
    ImGui::PopStyleColor();
  }
  if (sel >= 0) {
    NormLine(s, state.params, sel);
    for (int k = 0; k < 4; ++k) {
      series.push_back(parts.part(kAllParts[k]).row(sel));
      // The figure's labels (views/sum_view.cpp): a learned table's rows are W_pos[p].
      const bool learned = state.params.pe.kind() == Scheme::kLearned;
      series_names.push_back(k == 2 && learned ? "positional W_pos[p]" : kPartLabels[k]);
      colors.push_back(SeriesColor(k));
    }
  } else {
    if (tokens > kMaxTokenSeries) {
      ImGui::TextDisabled("The sums of the first %d of %d tokens; pick one token for its parts.",
                          kMaxTokenSeries, tokens);
    } else {
      ImGui::TextDisabled("The sum (model input) of every token; pick one token for its parts.");
    }
    for (int t = 0; t < std::min(tokens, kMaxTokenSeries); ++t) {
      series.push_back(parts.sum.row(t));
      series_names.push_back(names[static_cast<size_t>(t)]);
      colors.push_back(SeriesColor(t));
    }
  }
  // Legend above the bars, so it never covers them.
  for (size_t k = 0; k < series.size(); ++k) {
    if (k > 0) ImGui::SameLine();
    ImGui::ColorButton(("##c" + std::to_string(k)).c_str(),
                       ImGui::ColorConvertU32ToFloat4(colors[k]), ImGuiColorEditFlags_NoTooltip,
                       ImVec2(em * 0.8f, em * 0.8f));
    ImGui::SameLine();
    ImGui::TextUnformatted(series_names[k].c_str());
  }
  const float h = ImGui::GetContentRegionAvail().y;
  ImGui::BeginGroup();
  PartBars(state, series, series_names, colors, d, ImVec2(avail.x - table_w - em * 0.5f, h));
  ImGui::EndGroup();
  ImGui::SameLine();
  if (sel >= 0) {
    NumbersTable(state, parts, sel, ImVec2(table_w, h));
  } else {
    NormsTable(state, parts, names, ImVec2(table_w, h));
  }
}

// `m` with `tokens` x `dims` cells, keeping the values (and row names) that still have a place.
ManualVectors Resized(const ManualVectors& m, int tokens, int dims) {
  ManualVectors next = m;
  next.tokens = tokens;
  next.dims = dims;
  next.embedding.assign(static_cast<size_t>(tokens * dims), 0.0f);
  next.positional.assign(static_cast<size_t>(tokens * dims), 0.0f);
  for (int t = 0; t < std::min(tokens, m.tokens); ++t) {
    for (int j = 0; j < std::min(dims, m.dims); ++j) {
      next.embedding[static_cast<size_t>(t * dims + j)] =
          m.embedding[static_cast<size_t>(t * m.dims + j)];
      next.positional[static_cast<size_t>(t * dims + j)] =
          m.positional[static_cast<size_t>(t * m.dims + j)];
    }
  }
  next.labels.resize(static_cast<size_t>(tokens));
  for (int t = 0; t < tokens; ++t) {
    std::string& name = next.labels[static_cast<size_t>(t)];
    if (name.empty()) name = "token " + std::to_string(t);
  }
  return next;
}

void ManualEditor(AppState& state, const Derived& derived, DrawnRecord& drawn) {
  const ManualVectors& m = state.manual;
  const float em = ImGui::GetFontSize();
  // Ctrl+click lets a user type into a slider: AlwaysClamp keeps that inside the range too.
  int tokens = m.tokens, dims = m.dims;
  ImGui::SetNextItemWidth(em * 6);
  bool resized = ImGui::SliderInt("tokens", &tokens, 1, ManualVectors::kMaxTokens, "%d",
                                  ImGuiSliderFlags_AlwaysClamp);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(em * 6);
  resized |=
      ImGui::SliderInt("d", &dims, 1, ManualVectors::kMaxDims, "%d", ImGuiSliderFlags_AlwaysClamp);
  if (resized && (tokens != m.tokens || dims != m.dims)) {
    tokens = std::clamp(tokens, 1, ManualVectors::kMaxTokens);
    dims = std::clamp(dims, 1, ManualVectors::kMaxDims);
    Edit(state, [tokens, dims](AppState& st) { st.manual = Resized(st.manual, tokens, dims); });
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("blog example")) {
    Edit(state, [](AppState& st) { st.manual = ManualVectors(); });
  }
  ItemTooltip(
      "3 tokens (I love NLP), d = 3: the worked example whose sum is "
      "[[0.11,0.32,0.43],[0.24,0.65,0.56],[0.77,0.98,0.89]] with scaling off.");
  ImGui::SameLine();
  bool scale = m.scale;
  if (ImGui::Checkbox("scale by sqrt(d)", &scale)) {
    Edit(state, [scale](AppState& st) { st.manual.scale = scale; });
  }
  ItemTooltip(
      "Multiply these embeddings by sqrt(d) before the sum. This editor's own switch: the "
      "sentence view keeps its setting.");

  // The sum shown is the one derived from these very vectors (same shape by construction).
  const Result<InputParts>& derived_parts = derived.manual;
  const bool have_sum = derived_parts.ok() && derived_parts.value().sum.rows == m.tokens &&
                        derived_parts.value().sum.cols == m.dims;
  float label_w = 0;
  for (const std::string& name : m.labels)
    label_w = std::max(label_w, ImGui::CalcTextSize(name.c_str()).x);
  const float cell_w = em * 3.6f;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float grid_w = label_w + spacing + static_cast<float>(m.dims) * (cell_w + spacing);
  const float avail_w = ImGui::GetContentRegionAvail().x;
  // Side by side when the three grids fit, else one under the other; the region scrolls.
  const bool side_by_side = 3 * grid_w + 3 * em <= avail_w;
  ImGui::BeginChild("manual_grids", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  auto grid = [&](const char* id, const char* title, const std::vector<float>* values,
                  bool positional, const Matrix* shown) {
    ImGui::BeginGroup();
    ImGui::TextUnformatted(title);
    ImGui::PushID(id);
    for (int t = 0; t < m.tokens; ++t) {
      ImGui::PushID(t);
      const std::string& name = m.labels[static_cast<size_t>(t)];
      if (values) ImGui::AlignTextToFramePadding();
      ImGui::TextUnformatted(name.c_str());
      ImGui::SameLine(0, 0);
      ImGui::Dummy(ImVec2(label_w - ImGui::CalcTextSize(name.c_str()).x, 0));
      for (int j = 0; j < m.dims; ++j) {
        ImGui::SameLine();
        ImGui::PushID(j);
        ImGui::SetNextItemWidth(cell_w);
        const size_t k = static_cast<size_t>(t * m.dims + j);
        if (values) {
          float v = (*values)[k];
          if (ImGui::InputFloat("##v", &v, 0, 0, "%.4g")) {
            const int rows = m.tokens, cols = m.dims;
            Edit(state, [k, v, positional, rows, cols](AppState& st) {
              ManualVectors& mv = st.manual;
              if (mv.tokens != rows || mv.dims != cols) return;  // resized meanwhile
              (positional ? mv.positional : mv.embedding)[k] = v;
            });
          }
        } else {
          ImGui::Text("%.7g", static_cast<double>(shown->at(t, j)));
          if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip("%s, dimension %d: %.9g", name.c_str(), j,
                              static_cast<double>(shown->at(t, j)));
          }
        }
        ImGui::PopID();
      }
      ImGui::PopID();
    }
    ImGui::PopID();
    ImGui::EndGroup();
  };
  grid("emb", "embeddings (token x d)", &m.embedding, false, nullptr);
  if (side_by_side) ImGui::SameLine(0, em * 1.5f);
  grid("pe", "positional (token x d)", &m.positional, true, nullptr);
  if (have_sum) {
    drawn.manual_sum = &derived_parts.value().sum;
    if (side_by_side) ImGui::SameLine(0, em * 1.5f);
    grid("sum",
         m.scale ? "= E \xc3\x97 \xe2\x88\x9a"
                   "d + PE (model input)"
                 : "= E + PE (model input)",
         nullptr, false, &derived_parts.value().sum);
    if (m.scale) {
      ImGui::TextDisabled("Scaling is on: the sum uses E * sqrt(%d) = E * %.4f.", m.dims,
                          std::sqrt(static_cast<double>(m.dims)));
    }
    if (state.params.input.train && state.params.input.dropout > 0) {
      ImGui::TextDisabled("Train mode: dropout p = %.2f is applied to the sum.",
                          state.params.input.dropout);
    }
  } else if (!derived_parts.ok()) {
    ErrorText(derived_parts.message());
  }
  // Export... and the copied command write the sentence's sums, not this editor's vectors.
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  WrappedText(
      "These vectors are this editor's own: Export... and the copied command write the "
      "sentence's sums. To export typed rows, give them as --embedding-rows and "
      "--positional-rows (the i-love-nlp preset does).");
  ImGui::PopStyleColor();
  ImGui::EndChild();
}

}  // namespace

// Word tokens, char tokens, or the tokenizer file loaded (File > Open of a tokenizer.json or
// a GPT-2 vocab.json, or --tokenizer-file), with Open... to load one.
static void TokenizerPicker(AppState& state) {
  const float em = ImGui::GetFontSize();
  const TextExample& ex = state.params.example;
  ImGui::BeginGroup();
  std::string file_item;
  if (!ex.tokenizer_file.empty()) {
    const size_t slash = ex.tokenizer_file.find_last_of('/', ex.tokenizer_file.size() - 2);
    file_item =
        (slash == std::string::npos ? ex.tokenizer_file : ex.tokenizer_file.substr(slash + 1)) +
        " tokens";
  }
  const char* toks[] = {"word tokens", "char tokens", file_item.c_str()};
  const int count = file_item.empty() ? 2 : 3;
  int tok = ex.subword ? 2 : static_cast<int>(ex.tokenizer);
  ImGui::SetNextItemWidth(em * 8);
  FitComboWidth("##tokenizer", std::span<const char* const>(toks, static_cast<size_t>(count)));
  if (ImGui::Combo("##tokenizer", &tok, toks, count) && tok < 2) {
    Edit(state, [tok](AppState& st) {
      st.params.example.tokenizer = static_cast<TokenizerKind>(tok);
      st.params.example.tokenizer_file.clear();
      st.params.example.subword.reset();
    });
  }
  if (ex.subword) {
    ItemTooltip((ex.tokenizer_file + ": " + ex.subword->Describe() +
                 ". Ids and V are the tokenizer's. Hover a token for its vocabulary entry. "
                 "Word or char tokens drop the file.")
                    .c_str());
  } else {
    ItemTooltip(
        "Word level splits on spaces and punctuation; character level makes every "
        "character (spaces and newlines too) a token. A real subword tokenizer: Open... "
        "a tokenizer.json or a GPT-2 vocab.json (or --tokenizer-file).");
  }
  if (ImGui::SmallButton("Open...##tokenizer_file")) state.open_table.open_requested = true;
  ItemTooltip(
      "Load a tokenizer: a Hugging Face tokenizer.json (GPT-2, Llama 3, BERT) or GPT-2's "
      "vocab.json with merges.txt beside it (File > Open).");
  ImGui::EndGroup();
}

void DrawSumsPanel(AppState& state, const Derived& derived, DrawnRecord& drawn) {
  const float em = ImGui::GetFontSize();
  bool manual = state.sums.manual;
  if (ImGui::Checkbox("type the vectors yourself", &manual)) {
    Edit(state, [manual](AppState& st) { st.sums.manual = manual; });
  }
  ItemTooltip(
      "Enter small embedding and positional vectors by hand and see their sum, to check "
      "a worked example number by number.");
  if (state.sums.manual) {
    ManualEditor(state, derived, drawn);
    return;
  }
  ImGui::SameLine();
  const bool long_text =
      derived.sentence.ok() && derived.sentence.value().tokens.size() > kMaxChips;
  const TextExample& ex = state.params.example;
  if (!ex.ids.empty()) {
    // Typed ids replace the text: say so, and pick the batch row shown.
    const auto batch = static_cast<int64_t>(ex.ids.size());
    ImGui::AlignTextToFramePadding();
    if (batch > 1) {
      ImGui::Text("typed ids: a batch of %lld rows; row", static_cast<long long>(batch));
    } else {
      ImGui::TextUnformatted("typed ids (one sequence)");
    }
    ItemTooltip(
        "Token ids typed in the controls (ids) replace the text; clear that field to "
        "embed the text again.");
    if (batch > 1) {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(em * 6);
      int row = static_cast<int>(state.selection.batch_row);
      if (ImGui::InputInt("##batch_row", &row)) {
        const int64_t clamped = std::clamp<int64_t>(row, 0, batch - 1);
        Edit(state, [clamped](AppState& st) { st.selection.batch_row = clamped; });
      }
      ItemTooltip(
          "The row of the batch whose tokens the bars and norms show (0-based); every "
          "row has positions 0..T-1. A .npy/.csv export writes every row.");
    }
  } else {
    // Several lines (a paragraph, a poem, code): Enter starts a new line and Tab types a tab.
    // Three lines tall, more when the text has more (up to eight; beyond that it scrolls).
    const int lines = 1 + static_cast<int>(std::count(ex.text.begin(), ex.text.end(), '\n'));
    const float box_h = ImGui::GetTextLineHeight() * static_cast<float>(std::clamp(lines, 3, 8)) +
                        ImGui::GetStyle().FramePadding.y * 2;
    // The box is a child window: it must fit the panel. The tokenizer picker goes beside it,
    // or below it in a narrow panel.
    const float avail = ImGui::GetContentRegionAvail().x;
    float box_w = avail - em * (long_text ? 26.0f : 16.0f);
    const bool picker_below = box_w < em * 10;
    if (picker_below) box_w = std::max(em * 4, avail);
    std::string text = ex.text;
    if (ImGui::InputTextMultiline("##text", &text, ImVec2(box_w, box_h),
                                  ImGuiInputTextFlags_AllowTabInput)) {
      Edit(state, [text](AppState& st) { st.params.example.text = text; });
    }
    ItemTooltip(
        "The text to embed: a sentence, or several lines (Enter starts a new line; a newline "
        "is a token of the char tokenizer, shown as \xe2\x86\xb5). Word-level tokens by "
        "default; the vocabulary is built from the text in order of first appearance (the "
        "first new word is id 0). To give ids directly, type them in the controls (ids).");
    if (!picker_below) ImGui::SameLine();
    TokenizerPicker(state);
  }

  if (!derived.sentence.ok()) {
    if (derived.building) {
      NoEncodingText(derived, "");
    } else {
      ErrorText(derived.sentence.message());
    }
    return;
  }
  const SentenceResult& s = derived.sentence.value();
  if (s.tokens.size() > kMaxChips) {
    // Long texts show chips for the first tokens only: any token is reachable by its index.
    ImGui::SameLine();
    ImGui::TextDisabled("token #");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em * 6);
    int index = state.selection.selected_token;
    if (ImGui::InputInt("##token_index", &index)) {
      index = std::clamp(index, -1, static_cast<int>(s.tokens.size()) - 1);
      Edit(state, [index](AppState& st) {
        st.selection.selected_token = index;
        st.export_dialog.token_chosen = true;
      });
    }
    ItemTooltip("Chips show the first 128 tokens; pick any token by its index (-1: all tokens).");
  }
  if (s.dropped_tokens > 0) {
    ErrorText("The text has " +
              std::to_string(s.tokens.size() + static_cast<size_t>(s.dropped_tokens)) +
              " tokens but max_len is " + std::to_string(state.params.pe.max_len) +
              ": the model sees the first " + std::to_string(s.tokens.size()) + " (" +
              std::to_string(s.dropped_tokens) + " cut off). Raise max_len to see them all.");
  }
  if (s.tokens.empty()) {
    // Abbreviated: a text of 1,000 spaces is not repeated.
    std::string none = NoTokensMessage(state.params.example.text);
    none[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(none[0])));
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    WrappedText(none + ": type a text above.");
    ImGui::PopStyleColor();
    return;
  }
  // At most three rows of chips; more scroll, so the bars and numbers stay in view.
  const float row_h = ImGui::GetFrameHeightWithSpacing();
  float chips_w = ImGui::CalcTextSize("all tokens").x;
  for (size_t t = 0; t < std::min<size_t>(s.tokens.size(), kMaxChips); ++t) {
    chips_w += ImGui::CalcTextSize(VisibleWhitespace(s.tokens[t].text).c_str()).x + em * 9.5f;
  }
  const float rows = std::ceil(chips_w / std::max(em, ImGui::GetContentRegionAvail().x));
  if (rows > 3) {
    // Three rows, or less in a short panel (large UI scale, small window).
    const float chips_h = std::min(row_h * 3 + ImGui::GetStyle().WindowPadding.y,
                                   std::max(row_h, ImGui::GetContentRegionAvail().y * 0.4f));
    ImGui::BeginChild("chips", ImVec2(0, chips_h), false);
    TokenChips(state, s);
    ImGui::EndChild();
  } else {
    TokenChips(state, s);
  }
  std::vector<std::string> names;
  for (const Token& t : s.tokens) names.push_back(t.text);
  ShowParts(state, s, names, drawn);
}

}  // namespace pe
