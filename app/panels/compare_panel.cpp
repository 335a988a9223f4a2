// The compare panel: A | B | A - B from the compare view's core Figure (its three panels), drawn
// as three plots that share one view window (zoom or pan one, all follow) and one hovered cell
// (outlined in all three, with the three numbers beside the pointer and under the plots). Above
// them, the --versus text that makes B and what is compared (score or table); a refused text
// keeps its reason under the field. Below, the readout and the notes under a fold (closed at
// first, so the plots get the panel). The window lives in AppState::compare, so an export of
// the view draws what the plots show.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "figure/markup.h"
#include "model/param_fields.h"
#include "panels/panels.h"
#include "ui/plot.h"
#include "views/compare_view.h"
#include "views/view_registry.h"

namespace pe {
namespace {

// Texture slots of the three images, after the figure panels' (1 + view).
constexpr int kFirstTextureSlot = 64;

ImU32 ToImU32(Rgba8 c) {
  return IM_COL32(c.r, c.g, c.b, c.a);
}

std::string Value(double v) {
  if (std::isnan(v)) return "none";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// The --versus text, applied when typing ends (Enter or leaving the field), and the choice of
// score or table.
void CompareControls(AppState& state) {
  const float em = ImGui::GetFontSize();
  const char* label = "versus";
  const ImGuiID id = ImGui::GetID(label);
  FieldEdit& f = state.fields[id];
  if (!f.active && f.error.empty()) f.text = state.params.versus;  // a refused text stays
  ImGui::SetNextItemWidth(std::max(em * 10, ImGui::GetContentRegionAvail().x - em * 16));
  const bool refused = !f.error.empty();
  if (refused) PushRefusedFrame();
  // Empty, B is the scheme's counterpart (DefaultVersus): the hint says which.
  const std::string hint = "empty: " + DefaultVersus(state.params) +
                           "   (key=value,... e.g. scheme=rope,rope_theta=500000)";
  ImGui::InputTextWithHint(label, hint.c_str(), &f.text);
  if (refused) PopRefusedFrame();
  ItemTooltip(
      "B is A with these overrides, key=value separated by commas, the keys of figure metadata: "
      "scheme=rope, d_model=512, base=100, variant=t2t, rope_scaling=yarn,scaling_factor=8 ... "
      "The scheme is applied first (with its defaults), then the rest in the parameter table's "
      "order. Enter applies. Empty: the scheme's counterpart (another base; learned against "
      "sinusoidal; ALiBi's gentlest head; T5's other direction; xPos against RoPE).");
  const bool active = ImGui::IsItemActive();
  f.active = active;
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    f.error.clear();
    if (f.text != state.params.versus) EditField(state, label, "--versus", f.text);
  } else if (ImGui::IsItemDeactivated()) {
    f.error.clear();  // left without an edit: the state's text is back
  }
  ImGui::SameLine();
  const char* labels[] = {"scores", "tables"};
  const char* names[] = {"score", "table"};
  ImGui::SetNextItemWidth(em * 6);
  FieldCombo(state, "compare", "--compare-of", labels, names,
             "What to put side by side: the attention scores score(m, n) of A and B (query by "
             "key), or the encodings' tables (position by column).");
  if (f.error.empty()) return;
  ErrorText(f.error);
  // A refused text changes nothing: when the last B still applies, say which B the plots below
  // show, so they are not read as the refused text's (checked only while a refusal shows).
  if (CheckCompareB(state.params).ok()) {
    const std::string& kept = state.params.versus;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    WrappedText("The plots still show the last B that applied: " +
                (kept.empty() ? DefaultVersus(state.params) + " (the empty default)" : kept) + ".");
    ImGui::PopStyleColor();
  }
}

// An outline of cell [c, c + 1) x [r, r + 1), at least `min_px` wide so it shows when zoomed out.
void OutlineCell(const Plot& plot, double c, double r, float min_px, ImU32 color) {
  ImVec2 a = plot.ToPixels(c, r), b = plot.ToPixels(c + 1, r + 1);
  ImVec2 lo(std::min(a.x, b.x), std::min(a.y, b.y)), hi(std::max(a.x, b.x), std::max(a.y, b.y));
  const ImVec2 mid((lo.x + hi.x) / 2, (lo.y + hi.y) / 2);
  lo.x = std::min(lo.x, mid.x - min_px / 2), hi.x = std::max(hi.x, mid.x + min_px / 2);
  lo.y = std::min(lo.y, mid.y - min_px / 2), hi.y = std::max(hi.y, mid.y + min_px / 2);
  plot.draw_list()->PushClipRect(plot.area_min(), plot.area_max(), true);
  plot.draw_list()->AddRect(lo, hi, IM_COL32(0, 0, 0, 255), 0.0f, 0, 3.5f);
  plot.draw_list()->AddRect(lo, hi, color, 0.0f, 0, 1.8f);
  plot.draw_list()->PopClipRect();
}

}  // namespace

void DrawComparePanel(AppState& state, const Derived& derived, ComparePanelCache& cache,
                      UiServices& services, DrawnRecord& drawn) {
  if (!derived.pe_status.ok()) {
    NoEncodingText(derived, "Nothing to show: ");
    return;
  }
  if (Status s = CheckViewApplies(ViewKind::kCompare, state.params.pe); !s.ok()) {
    ErrorText(s.message());
    return;
  }
  CompareControls(state);
  const float em = ImGui::GetFontSize();
  const bool score = state.params.compare_of == CompareOf::kScore;
  // B is made again only when the parameters change; a large learned B is built beside the
  // frames, and the panel says so until it is there.
  if (!cache.b_for || *cache.b_for != state.params) {
    cache.b_for = state.params;
    cache.b = CompareB(state.params);
  }
  const Result<ModelParams>& b = *cache.b;
  if (b.ok() && cache.versus.Update(b.value().pe, b.value().cap)) cache.pair_params.reset();
  if (b.ok() && cache.versus.building()) {
    const EncodingParts& parts = cache.versus.parts();
    Derived shown;
    shown.pe_status = InvalidArgument("B: " + parts.pe_status.message());
    shown.building = true;
    shown.building_since = cache.versus.building_since();
    shown.building_fraction = cache.versus.building_fraction();
    NoEncodingText(shown, "");
    cache.pair.reset();
    cache.pair_params.reset();
    return;
  }
  if (!cache.pair_params || *cache.pair_params != state.params) {
    cache.pair_params = state.params;
    Result<ComparePair> made = MakeComparePair(state.params, *derived.encoding,
                                               b.ok() ? cache.versus.parts().encoding : nullptr);
    cache.pair.reset();
    cache.pair_error.clear();
    cache.key.reset();
    if (made.ok()) {
      cache.pair = std::move(made).value();
    } else {
      cache.pair_error = made.message();
    }
  }
  if (!cache.pair) {
    ErrorText(InWindowTerms(cache.pair_error, ""));
    return;
  }
  // The figure follows the plots' view within both tables (a table of 2^31 positions pans and
  // zooms): a new pair of tables starts from the whole of both.
  ViewSelection sel = ViewsOf(state);
  sel.windows[ViewKind::kScore] = sel.windows[ViewKind::kHeatmap] = ViewRange{0, 0, 0, 0};
  const ViewRange whole = CompareWindow(state.params, *derived.encoding, *cache.pair, sel);
  CompareViewState& window = state.compare;
  if (!window.fitted || window.whole != whole) {
    window.view = whole;
    window.whole = whole;
    window.fitted = true;
  }
  sel.windows[score ? ViewKind::kScore : ViewKind::kHeatmap] = window.view;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Below the plots: the readout (up to two lines) and the notes' fold; open, the notes take at
  // most a third of the panel and scroll when longer.
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  const float fold_h = ImGui::GetFrameHeightWithSpacing();
  const float notes_h =
      window.notes_open && cache.figure
          ? std::min(avail.y / 3, line_h * static_cast<float>(cache.figure->legend.size() + 1))
          : 0.0f;
  const float readout_h = line_h * 2.0f + fold_h + notes_h + em * 0.3f;
  const float bar_w = em * 4.2f;
  const float plots_h = std::max(em * 8, avail.y - readout_h);
  FigureSize size;
  size.width = std::max(200.0, static_cast<double>(avail.x));
  size.height = std::max(200.0, static_cast<double>(plots_h + readout_h));
  if (KeyChanged(cache.key, state.params, sel, size.width, size.height)) {
    const ViewContext context{state.params, derived.encoding,   sel,
                              size,         FigureFormat::kPng, cache.pair->b_encoding};
    Result<Figure> f = GetView(ViewKind::kCompare).figure(context);
    cache.figure.reset();
    cache.error.clear();
    if (f.ok()) {
      cache.figure = std::move(f).value();
      cache.images_uploaded = false;
    } else {
      cache.error = f.message();
    }
  }
  if (!cache.figure) {
    ErrorText(InWindowTerms(cache.error, ""));
    return;
  }
  const Figure& f = *cache.figure;
  drawn.figures.push_back({ViewKind::kCompare, &f});
  const size_t n = f.panels.size();
  if (services.textures && !cache.images_uploaded) {
    for (size_t k = 0; k < n; ++k) {
      const std::optional<FigureImage>& im = f.panels[k].image;
      cache.textures[k] = im ? services.textures->Upload(kFirstTextureSlot + static_cast<int>(k),
                                                         im->width, im->height, im->rgba.data())
                             : nullptr;
    }
    cache.images_uploaded = true;
  }
  // A | B | bar (A and B) | A - B | bar (A - B); without a difference, A | B | bar, or
  // A | bar | B | bar when the two tables are on ranges of their own.
  const bool own_bars = n == 2 && f.panels[0].colorbar && f.panels[1].colorbar &&
                        f.panels[0].colorbar->label != f.panels[1].colorbar->label;
  const int bars = n == 3 || own_bars ? 2 : 1;
  const float plot_w =
      (avail.x - bar_w * static_cast<float>(bars) - em * 0.5f * static_cast<float>(n)) /
      static_cast<float>(n);
  const Rgba8 highlight = SelectionHighlightColor(f.panels[0].colorbar->colormap);
  bool hovering = false;
  int64_t hover_row = 0, hover_col = 0;
  for (size_t k = 0; k < n; ++k) {
    const Figure& p = f.panels[k];
    ImGui::PushID(static_cast<int>(k));
    if (k > 0) ImGui::SameLine();
    ImGui::BeginGroup();
    PlotSpec spec;
    spec.title = p.title.c_str();
    spec.x_label = p.x.label.c_str();
    spec.y_label = p.y.label.c_str();
    spec.limits = whole;
    spec.x_cells = p.x.cells;
    spec.y_cells = p.y.cells;
    spec.x_integer = p.x.integer;
    spec.y_down = p.y.reversed;
    Plot plot("compare_plot", window.view, spec, ImVec2(plot_w, plots_h));
    if (p.image && cache.textures[k]) {
      plot.Image(cache.textures[k], p.image->x0, p.image->y0, p.image->x1, p.image->y1);
    }
    if (cache.hovering) {
      OutlineCell(plot, static_cast<double>(cache.hover_col), static_cast<double>(cache.hover_row),
                  em * 0.7f, ToImU32(highlight));
    }
    if (plot.hovered()) {
      hovering = true;
      hover_col = static_cast<int64_t>(std::floor(plot.mouse_x()));
      hover_row = static_cast<int64_t>(std::floor(plot.mouse_y()));
    }
    plot.End();
    ImGui::EndGroup();
    if (p.colorbar && (k >= 1 || own_bars)) {
      ImGui::SameLine();
      ColorBar("compare_colorbar", p.colorbar->colormap, static_cast<float>(p.colorbar->vmin),
               static_cast<float>(p.colorbar->vmax), p.colorbar->label.c_str(),
               ImVec2(bar_w - em * 0.5f, plots_h - em * 2.5f));
    }
    ImGui::PopID();
  }
  cache.hovering = hovering;
  cache.hover_row = hover_row;
  cache.hover_col = hover_col;
  // The hovered cell's exact numbers (not the texel means), beside the pointer and below.
  std::string readout = score ? "Hover a cell: query m and key n, with score(m, n) of A, B and A "
                                "\xe2\x88\x92 B."
                              : "Hover a cell: position p and column j, with the value of A, B "
                                "and A \xe2\x88\x92 B.";
  if (hovering) {
    const CompareCell cell =
        CompareCellValues(state.params, derived.encoding, *cache.pair, hover_row, hover_col);
    readout = (score ? "query m = " : "position p = ") + std::to_string(hover_row) +
              (score ? ", key n = " : ", column j = ") + std::to_string(hover_col) + ":   A " +
              Value(cell.a) + ",   B " + Value(cell.b) + ",   A \xe2\x88\x92 B " + Value(cell.diff);
    if (std::isnan(cell.a) || std::isnan(cell.b))
      readout += "   (none: masked, or outside that table)";
    ImGui::BeginTooltip();
    ImGui::Text("%s %lld, %s %lld", score ? "m" : "p", static_cast<long long>(hover_row),
                score ? "n" : "j", static_cast<long long>(hover_col));
    ImGui::Text("A      %s", Value(cell.a).c_str());
    ImGui::Text("B      %s", Value(cell.b).c_str());
    ImGui::Text("A \xe2\x88\x92 B  %s", Value(cell.diff).c_str());
    ImGui::EndTooltip();
  }
  WrappedText(readout);
  // The notes (score definition, content, each configuration's summary) under a fold.
  ImGui::SetNextItemOpen(window.notes_open);
  window.notes_open =
      ImGui::CollapsingHeader(("Notes (" + std::to_string(f.legend.size()) + ")###notes").c_str());
  if (!window.notes_open) return;
  if (!ImGui::BeginChild("compare_legend", ImVec2(0, 0), false)) {
    ImGui::EndChild();
    return;
  }
  for (const FigureLegendItem& item : f.legend) {
    if (item.color.a == 0) {
      WrappedText(MarkupToUnicode(item.label));
      continue;
    }
    // A swatch: its label's wrapped lines all start after it.
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + em * 0.25f),
                                              ImVec2(at.x + em * 0.8f, at.y + em * 0.85f),
                                              ToImU32(item.color));
    ImGui::Indent(em);
    WrappedText(MarkupToUnicode(item.label));
    ImGui::Unindent(em);
  }
  ImGui::EndChild();
}

}  // namespace pe
