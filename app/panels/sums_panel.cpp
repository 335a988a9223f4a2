// Token sums: the sentence as token chips; for the selected token (or all), the per-dimension
// parts embedding, scaled, positional and sum as bars and as numbers, their norms, and the
// ratio |scaled| / |PE| that the sqrt(d) scaling is about. Also a mode to type vectors by hand.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "figure_export.h"
#include "panels.h"
#include "plot/plot.h"

namespace pe {
namespace {

// Chips for at most this many tokens (the rest are picked by index).
constexpr size_t kMaxChips = 128;

// "All tokens" draws at most this many series; the norms table still lists every token.
constexpr int kMaxTokenSeries = 32;

const char* kPartLabels[] = {"embedding E[id]",
                             "scaled E\xc2\xb7\xe2\x88\x9a"
                             "d",
                             "positional PE[pos]", "sum (model input)"};

void TokenChips(AppState& state, const SentenceResult& s) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const int64_t offset = state.params.pe.offset;
  auto chip = [&](int index, const std::string& label, bool linked) {
    const bool selected = state.selection.selected_token == index;
    const float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
    if (index != -1 && ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w < right) {
      ImGui::SameLine();
    }
    ImGui::PushID(index);
    if (selected) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.75f, 0.6f, 0.1f, 1.0f));
    if (linked) ImGui::PushStyleColor(ImGuiCol_Border, ImVec4(1, 1, 1, 1));
    if (linked) ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 2.0f);
    if (ImGui::Button(label.c_str())) state.selection.selected_token = index;
    if (linked) ImGui::PopStyleVar();
    if (linked) ImGui::PopStyleColor();
    if (selected) ImGui::PopStyleColor();
    ImGui::PopID();
  };
  chip(-1, "all tokens", false);
  const size_t shown = std::min<size_t>(s.tokens.size(), kMaxChips);
  for (size_t t = 0; t < shown; ++t) {
    const std::string text =
        s.tokens[t].text == " " ? std::string("\xe2\x90\xa3") : s.tokens[t].text;
    char label[160];
    std::snprintf(label, sizeof label, "%s  id %lld  pos %lld", text.c_str(),
                  static_cast<long long>(s.ids[t]),
                  static_cast<long long>(offset + static_cast<int64_t>(t)));
    chip(static_cast<int>(t), label,
         state.selection.hover_position == offset + static_cast<int64_t>(t));
    if (ImGui::IsItemHovered())
      state.selection.next_hover_position = offset + static_cast<int64_t>(t);
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
  state.sums.view.y0 = spec.limits.y0;
  state.sums.view.y1 = spec.limits.y1;
  if (!state.sums.fitted) {
    state.sums.view.x0 = spec.limits.x0;
    state.sums.view.x1 = spec.limits.x1;
    state.sums.fitted = true;
  }
  Plot plot("bars", state.sums.view, spec, size);
  plot.HLine(0.0, IM_COL32(255, 255, 255, 90));
  const PlotRange& v = state.sums.view;
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

void NumbersTable(const InputParts& parts, int t, ImVec2 size) {
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersOuter | ImGuiTableFlags_SizingStretchSame;
  if (ImGui::BeginTable("numbers", 5, flags, size)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("dim");
    ImGui::TableSetupColumn("embedding");
    ImGui::TableSetupColumn("scaled");
    ImGui::TableSetupColumn("positional");
    ImGui::TableSetupColumn("sum");
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(parts.embedding.cols));
    while (clipper.Step()) {
      for (int j = clipper.DisplayStart; j < clipper.DisplayEnd; ++j) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%d", j);
        for (Part p : kAllParts) {
          ImGui::TableNextColumn();
          ImGui::Text("%.7g", static_cast<double>(parts.part(p).at(t, j)));  // all a float32 has
        }
      }
    }
    ImGui::EndTable();
  }
}

void NormsTable(const InputParts& parts, const std::vector<std::string>& names, ImVec2 size) {
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersOuter | ImGuiTableFlags_SizingStretchSame;
  if (ImGui::BeginTable("norms", 6, flags, size)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("token");
    ImGui::TableSetupColumn("|E|");
    ImGui::TableSetupColumn("|scaled|");
    ImGui::TableSetupColumn("|PE|");
    ImGui::TableSetupColumn("|sum|");
    ImGui::TableSetupColumn("|scaled|/|PE|");
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;  // only the visible rows: a long text has thousands of tokens
    clipper.Begin(static_cast<int>(parts.tokens()));
    while (clipper.Step()) {
      for (int64_t t = clipper.DisplayStart; t < clipper.DisplayEnd; ++t) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(names[static_cast<size_t>(t)].c_str());
        for (Part p : kAllParts) {
          ImGui::TableNextColumn();
          ImGui::Text("%.4f", parts.Norm(p, t));
        }
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", parts.ScaledToPositionalRatio(t));
      }
    }
    ImGui::EndTable();
  }
}

void NormLine(const SentenceResult& s, int64_t offset, int t, bool scaled) {
  const InputParts& parts = s.parts;
  ImGui::Text("\"%s\" (id %lld, position %lld):", s.tokens[static_cast<size_t>(t)].text.c_str(),
              static_cast<long long>(s.ids[static_cast<size_t>(t)]),
              static_cast<long long>(offset + t));
  ImGui::SameLine();
  ImGui::Text("|E| = %.4f   |scaled| = %.4f   |PE| = %.4f   |sum| = %.4f   |scaled|/|PE| = %.3f",
              parts.Norm(Part::kEmbedding, t), parts.Norm(Part::kScaled, t),
              parts.Norm(Part::kPositional, t), parts.Norm(Part::kSum, t),
              parts.ScaledToPositionalRatio(t));
  ItemTooltip(scaled
                  ? "With sqrt(d) scaling the token's meaning is several times larger than its "
                    "position code, so the position nudges the vector rather than drowning it."
                  : "Without scaling, N(0,1) embeddings have |E| about sqrt(d), the same size as "
                    "|PE| = sqrt(d/2): position and meaning compete equally.");
}

void ShowParts(AppState& state, const SentenceResult& s, const std::vector<std::string>& names) {
  const InputParts& parts = s.parts;
  const float em = ImGui::GetFontSize();
  const int64_t d = parts.embedding.cols;
  const int tokens = static_cast<int>(parts.tokens());
  int& sel = state.selection.selected_token;
  if (sel >= tokens) sel = tokens - 1;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float table_w = std::min(em * 30.0f, avail.x * 0.45f);
  std::vector<const float*> series;
  std::vector<std::string> series_names;
  std::vector<ImU32> colors;
  if (sel >= 0) {
    NormLine(s, state.params.pe.offset, sel, state.params.input.scale);
    for (int k = 0; k < 4; ++k) {
      series.push_back(parts.part(kAllParts[k]).row(sel));
      series_names.push_back(kPartLabels[k]);
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
    NumbersTable(parts, sel, ImVec2(table_w, h));
  } else {
    NormsTable(parts, names, ImVec2(table_w, h));
  }
}

void ManualEditor(AppState& state, const Derived& derived) {
  ManualVectors& m = state.manual;
  const float em = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(em * 6);
  int tokens = m.tokens, dims = m.dims;
  const bool resized = ImGui::SliderInt("tokens", &tokens, 1, 6);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(em * 6);
  const bool resized_d = ImGui::SliderInt("d", &dims, 1, 8);
  if (resized || resized_d) {
    // Keep the values that still have a place.
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
    m = next;
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("blog example")) m = ManualVectors();
  ItemTooltip(
      "3 tokens (I love NLP), d = 3: the worked example whose sum is "
      "[[0.11,0.32,0.43],[0.24,0.65,0.56],[0.77,0.98,0.89]] with scaling off.");
  ImGui::SameLine();
  ImGui::Checkbox("scale by sqrt(d)", &state.params.input.scale);

  auto grid = [&](const char* id, const char* title, std::vector<float>* values,
                  const Matrix* shown) {
    ImGui::BeginGroup();
    ImGui::TextUnformatted(title);
    ImGui::PushID(id);
    for (int t = 0; t < m.tokens; ++t) {
      for (int j = 0; j < m.dims; ++j) {
        if (j > 0) ImGui::SameLine();
        ImGui::PushID(t * 64 + j);
        ImGui::SetNextItemWidth(em * 3.6f);
        if (values) {
          ImGui::InputFloat("##v", &(*values)[static_cast<size_t>(t * m.dims + j)], 0, 0, "%.4g");
        } else {
          ImGui::Text("%7.4f", static_cast<double>(shown->at(t, j)));
          if (j + 1 < m.dims) ImGui::SameLine(0, em * 0.3f);
        }
        ImGui::PopID();
      }
    }
    ImGui::PopID();
    ImGui::EndGroup();
  };
  grid("emb", "embeddings (token x d)", &m.embedding, nullptr);
  ImGui::SameLine(0, em * 1.5f);
  grid("pe", "positional (token x d)", &m.positional, nullptr);
  if (derived.manual.ok()) {
    ImGui::SameLine(0, em * 1.5f);
    grid("sum", "= sum (model input)", nullptr, &derived.manual.value().sum);
    if (state.params.input.scale) {
      ImGui::TextDisabled("Scaling is on: the sum uses E * sqrt(%d) = E * %.4f.", m.dims,
                          std::sqrt(static_cast<double>(m.dims)));
    }
    if (state.params.input.train && state.params.input.dropout > 0) {
      ImGui::TextDisabled("Train mode: dropout p = %.2f is applied to the sum.",
                          state.params.input.dropout);
    }
  } else {
    ErrorText(derived.manual.message());
  }
}

}  // namespace

void DrawSumsPanel(AppState& state, const Derived& derived) {
  const float em = ImGui::GetFontSize();
  ImGui::Checkbox("type the vectors yourself", &state.sums.manual);
  ItemTooltip(
      "Enter small embedding and positional vectors by hand and see their sum, to check "
      "a worked example number by number.");
  if (state.sums.manual) {
    ManualEditor(state, derived);
    return;
  }
  ImGui::SameLine();
  const bool long_text =
      derived.sentence.ok() && derived.sentence.value().tokens.size() > kMaxChips;
  ImGui::SetNextItemWidth(
      std::max(em * 10, ImGui::GetContentRegionAvail().x - em * (long_text ? 26.0f : 16.0f)));
  ImGui::InputTextWithHint("##text", "type a sentence", &state.params.example.text);
  ItemTooltip(
      "The sentence to embed. Word-level tokens by default; the vocabulary is built from "
      "the text in order of first appearance.");
  ImGui::SameLine();
  int tok = static_cast<int>(state.params.example.tokenizer);
  const char* toks[] = {"word tokens", "char tokens"};
  ImGui::SetNextItemWidth(em * 8);
  if (ImGui::Combo("##tokenizer", &tok, toks, 2)) {
    state.params.example.tokenizer = static_cast<TokenizerKind>(tok);
  }
  ItemTooltip(
      "Word level splits on spaces and punctuation; character level makes every "
      "character (spaces too) a token.");

  if (!derived.sentence.ok()) {
    ErrorText(derived.sentence.message());
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
      state.selection.selected_token = std::clamp(index, -1, static_cast<int>(s.tokens.size()) - 1);
    }
    ItemTooltip("Chips show the first 128 tokens; pick any token by its index (-1: all tokens).");
  }
  if (s.tokens.empty()) {
    ImGui::TextDisabled("No tokens yet: type a sentence above.");
    return;
  }
  // At most three rows of chips; more scroll, so the bars and numbers stay in view.
  const float row_h = ImGui::GetFrameHeightWithSpacing();
  float chips_w = ImGui::CalcTextSize("all tokens").x;
  for (size_t t = 0; t < std::min<size_t>(s.tokens.size(), kMaxChips); ++t) {
    chips_w += ImGui::CalcTextSize(s.tokens[t].text.c_str()).x + em * 9.5f;
  }
  const float rows = std::ceil(chips_w / std::max(em, ImGui::GetContentRegionAvail().x));
  if (rows > 3) {
    ImGui::BeginChild("chips", ImVec2(0, row_h * 3 + ImGui::GetStyle().WindowPadding.y), false);
    TokenChips(state, s);
    ImGui::EndChild();
  } else {
    TokenChips(state, s);
  }
  std::vector<std::string> names;
  for (const Token& t : s.tokens) names.push_back(t.text);
  ShowParts(state, s, names);
}

}  // namespace pe
