// Curves: table[pos, col] for chosen columns, drawn as continuous waves (evaluated at
// fractional positions; the polyline through the rows for a learned table) with markers at the
// integer positions a model actually sees.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

#include "panels/panels.h"
#include "ui/plot.h"
#include "views/figure_export.h"
#include "views/view_geometry.h"

namespace pe {
namespace {

constexpr size_t kMaxCurves = kMaxCurveSeries;

const char* WaveName(Wave w) {
  return w == Wave::kSin ? "sin" : w == Wave::kCos ? "cos" : w == Wave::kAngle ? "angle" : "zero";
}

// "d5" for dimension 5, or "k12" for the column of key position 12 (the bias tables).
std::string ColumnName(const Derived& derived, int64_t j) {
  const Encoding& e = *derived.encoding;
  const std::string prefix = AxesOf(e).csv_prefix;
  const int64_t number = prefix == "k" ? e.first_position() + j : j;
  return prefix + std::to_string(number);
}

// "d5  i=2 sin", or "d5" for a table without waves (learned, "k12" for a bias table).
std::string PickerLabel(const Derived& derived, int64_t j) {
  char label[96];
  if (derived.columns.empty()) {
    return ColumnName(derived, j);
  } else {
    const WaveColumn& c = derived.columns[static_cast<size_t>(j)];
    std::snprintf(label, sizeof label, "d%lld  i=%lld %s", static_cast<long long>(j),
                  static_cast<long long>(c.pair), WaveName(c.wave));
  }
  return label;
}

// Column j's wave, or a bare record of its index for a table without waves.
WaveColumn ColumnOf(const Derived& derived, int64_t j) {
  if (!derived.columns.empty()) return derived.columns[static_cast<size_t>(j)];
  WaveColumn c;
  c.dim = j;
  c.pair = j;
  return c;
}

void UpdateSamples(CurvesCache& cache, const Encoding& e, const std::vector<int64_t>& dims,
                   const PlotRange& view, int width_px) {
  const EncodingParams& p = e.params();
  if (!KeyChanged(cache.key, p, dims, view.x0, view.x1, width_px)) return;
  cache.marker_xs.clear();
  const double px_per_pos = width_px / (view.x1 - view.x0);
  if (px_per_pos >= 5.0) {
    const double last = static_cast<double>(e.last_position());
    for (double x = std::max(std::ceil(view.x0), static_cast<double>(e.first_position()));
         x <= std::min(std::floor(view.x1), last); x += 1.0) {
      cache.marker_xs.push_back(x);
    }
  }
  cache.traces.assign(dims.size(), {});
  cache.marker_ys.assign(dims.size(), {});
  for (size_t k = 0; k < dims.size() && k < kMaxCurves; ++k) {
    const int64_t col = dims[k];
    CurveTrace& t = cache.traces[k];
    if (!e.waves().empty()) {
      // The figure's rule: a band where the samples would alias (TraceWaveCurve).
      t = TraceWaveCurve(e, col, view.x0, view.x1, std::max(width_px, 1));
    } else {
      // A table without waves: the polyline through its rows, or each pixel's exact min-max
      // over them (TraceTableCurve, as the figure).
      t = TraceTableCurve(e, col, view.x0, view.x1, std::max(width_px, 1));
    }
    cache.marker_ys[k].resize(cache.marker_xs.size());
    // A masked key's queries have no marker (NaN: Plot::Markers skips it), as no line.
    const auto seen =
        static_cast<double>(e.waves().empty() ? FirstVisibleQuery(e, col) : e.first_position());
    for (size_t s = 0; s < cache.marker_xs.size(); ++s) {
      cache.marker_ys[k][s] = cache.marker_xs[s] < seen
                                  ? std::numeric_limits<double>::quiet_NaN()
                                  : static_cast<float>(e.ValueAt(col, cache.marker_xs[s]));
    }
  }
}

// The quick picks replace the chosen dimensions (queued for the next frame, like every edit).
// The columns the picker lists and the quick picks scan: every one of a model-width table; the
// first kMaxDModel of a bias table, whose columns are its max_len keys (up to 2^31).
int64_t ListedColumns(const Derived& derived) {
  return std::min<int64_t>(derived.encoding->cols(), kMaxDModel);
}

void QuickPicks(AppState& state, const Derived& derived) {
  const int64_t d = ListedColumns(derived);
  std::optional<std::vector<int64_t>> picked;
  if (ImGui::SmallButton("4,5,6,7")) {
    picked.emplace();
    for (int64_t j = 4; j < std::min<int64_t>(8, d); ++j) picked->push_back(j);
  }
  ItemTooltip(
      derived.columns.empty()
          ? "Columns 4 to 7."
          : "Dimensions 4 to 7, the pairs i = 2 and 3 (the Annotated Transformer's figure).");
  // Pairs exist only in tables of waves: a learned or bias table has no "i".
  if (!derived.columns.empty()) ImGui::SameLine();
  if (!derived.columns.empty() && ImGui::SmallButton("every 8th i")) {
    picked.emplace();
    for (int64_t j = 0; j < d && picked->size() < 16; ++j) {
      const WaveColumn c = ColumnOf(derived, j);
      const bool first_of_pair =
          derived.columns.empty() || c.wave == Wave::kSin || c.wave == Wave::kAngle ||
          (c.wave == Wave::kCos && (j == 0 || ColumnOf(derived, j - 1).pair != c.pair));
      if (first_of_pair && c.pair % 8 == 0) picked->push_back(j);
    }
  }
  if (!derived.columns.empty()) {
    ItemTooltip("The sine of pairs i = 0, 8, 16, ...: each is slower than the one before.");
    ImGui::SameLine();
  }
  if (!derived.columns.empty() && ImGui::SmallButton("one pair")) {
    // Pair i = 2, or the highest pair that has both a sine and a cosine in a narrower table.
    int64_t pair = -1;
    for (int64_t j = 0; j < d; ++j) {
      const WaveColumn c = ColumnOf(derived, j);
      if (c.wave == Wave::kCos && c.pair <= 2) pair = std::max(pair, c.pair);
    }
    if (pair < 0) pair = 0;  // d = 1: the lone sine
    picked.emplace();
    // One column per wave: RoPE's tables hold each pair's cos (or sin) twice, and two
    // identical curves would hide each other.
    std::vector<Wave> waves_taken;
    for (int64_t j = 0; j < d && picked->size() < 2; ++j) {
      const WaveColumn c = ColumnOf(derived, j);
      if (c.pair != pair || c.wave == Wave::kZero) continue;
      if (!derived.columns.empty() &&
          std::find(waves_taken.begin(), waves_taken.end(), c.wave) != waves_taken.end()) {
        continue;
      }
      waves_taken.push_back(c.wave);
      picked->push_back(j);
    }
  }
  ItemTooltip(
      "The sin and cos of pair i = 2: the same frequency, a quarter wave apart (the pair with "
      "the highest i when d_model is too small for i = 2).");
  ImGui::SameLine();
  if (ImGui::SmallButton("clear")) picked.emplace();
  if (picked) {
    Edit(state, [dims = *picked](AppState& st) { st.params.curve_dims = dims; });
  }
}

void DimensionPicker(AppState& state, const Derived& derived, CurvesCache& cache, float height,
                     DrawnRecord& drawn) {
  const std::vector<int64_t>& dims = state.params.curve_dims;
  ImGui::SetNextItemWidth(-1);
  const char* hint = !derived.columns.empty()                      ? "search: d12, i=3, cos"
                     : AxesOf(*derived.encoding).csv_prefix == "k" ? "search: k12"
                                                                   : "search: d12";
  ImGui::InputTextWithHint("##dim_search", hint, &state.curves.search);
  if (ImGui::BeginChild("dim_list", ImVec2(0, height), true)) {
    // Rows matching the search, rebuilt only when the search or the columns change.
    if (KeyChanged(cache.match_key, state.curves.search, state.params.pe)) {
      cache.matches.clear();
      for (int64_t j = 0; j < ListedColumns(derived); ++j) {
        if (state.curves.search.empty() ||
            PickerLabel(derived, j).find(state.curves.search) != std::string::npos) {
          cache.matches.push_back(j);
        }
      }
    }
    const std::vector<int64_t>& matches = cache.matches;
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(matches.size()));
    while (clipper.Step()) {
      for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
        const int64_t j = matches[static_cast<size_t>(row)];
        drawn.picker_rows.push_back(ColumnOf(derived, j));
        bool on = std::find(dims.begin(), dims.end(), j) != dims.end();
        const std::string label = PickerLabel(derived, j);
        ImGui::PushID(static_cast<int>(j));
        if (ImGui::Checkbox(label.c_str(), &on)) {
          Edit(state, [j, on](AppState& st) {
            std::vector<int64_t>& chosen = st.params.curve_dims;
            std::erase(chosen, j);
            if (on) chosen.push_back(j);
          });
        }
        ImGui::PopID();
      }
    }
    if (matches.empty()) ImGui::TextDisabled("No dimension matches.");
    if (derived.encoding->cols() > ListedColumns(derived)) {
      ImGui::TextDisabled("The first %lld of %lld columns.",
                          static_cast<long long>(ListedColumns(derived)),
                          static_cast<long long>(derived.encoding->cols()));
    }
  }
  ImGui::EndChild();
}

ImU32 ToImU32(Rgba8 c) {
  return IM_COL32(c.r, c.g, c.b, c.a);
}

}  // namespace

void DrawCurvesPanel(AppState& state, const Derived& derived, CurvesCache& cache,
                     DrawnRecord& drawn) {
  if (!derived.pe_status.ok()) {
    NoEncodingText(derived, "No curves to show: ");
    return;
  }
  const Encoding& e = *derived.encoding;
  const float em = ImGui::GetFontSize();
  // Columns beyond the table were dropped before the frame (ui.cpp), so every one is valid.
  const std::vector<int64_t>& dims = state.params.curve_dims;

  QuickPicks(state, derived);
  // On the same row when it fits, else below (a narrow panel would cut it).
  ImGui::SameLine();
  const float markers_w = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                          ImGui::CalcTextSize("markers").x;
  if (ImGui::GetContentRegionAvail().x < markers_w) ImGui::NewLine();
  bool markers = state.curves.markers;
  if (ImGui::Checkbox("markers", &markers)) {
    Edit(state, [markers](AppState& st) { st.curves.markers = markers; });
  }
  ItemTooltip(
      "Dots at the integer positions: the only points a model ever sees. Shown once positions "
      "are at least 5 pixels apart (zoom in); denser, they would cover the curve.");

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // The plot keeps its minimum width (8 em): at large UI scales in a narrow panel the legend
  // gives way rather than running past the panel's edge.
  const float side_w =
      std::max(em * 3.0f, std::min({em * 15.0f, avail.x * 0.42f, avail.x - em * 8.5f}));
  PlotSpec spec;
  spec.x_label = e.family() == Family::kBias ? "query position m" : "position";
  const std::string y_label = e.TableName() + " value";
  spec.y_label = y_label.c_str();
  spec.limits = CurvesLimits(e);
  spec.min_x_span = std::min(2.0, spec.limits.x1 - spec.limits.x0);
  spec.lock_y = true;
  ImGui::BeginGroup();
  Plot plot("curves_plot", state.windows[ViewKind::kCurves].view, spec,
            ImVec2(avail.x - side_w - em * 0.5f, avail.y));
  const int width_px = static_cast<int>(plot.area_max().x - plot.area_min().x);
  UpdateSamples(cache, e, dims, state.windows[ViewKind::kCurves].view, width_px);
  plot.HLine(0.0, CurrentPlotColors().zero_line);
  // Linked views: the selected token's position and the position hovered elsewhere.
  if (state.selection.selected_token >= 0) {
    plot.VLine(static_cast<double>(e.first_position() + state.selection.selected_token),
               ToImU32(SelectionHighlightColor(state.params.colormap)), 1.5f);
  }
  if (!plot.hovered() && state.selection.hover_position >= 0) {
    plot.VLine(static_cast<double>(state.selection.hover_position), CurrentPlotColors().hover_line);
  }
  const size_t shown = std::min(dims.size(), kMaxCurves);
  for (size_t k = 0; k < shown && k < cache.traces.size(); ++k) {
    const ImU32 color = SeriesColor(static_cast<int>(k));
    const CurveTrace& t = cache.traces[k];
    if (t.band()) {
      const ImU32 fill = (color & ~IM_COL32_A_MASK) | (static_cast<ImU32>(140) << IM_COL32_A_SHIFT);
      plot.Band(t.edges.data(), t.lo.data(), t.hi.data(), static_cast<int>(t.lo.size()), fill);
    } else {
      plot.Line(t.xs.data(), t.ys.data(), static_cast<int>(t.xs.size()), color, 1.6f);
    }
    if (state.curves.markers && !cache.marker_xs.empty()) {
      plot.Markers(cache.marker_xs.data(), cache.marker_ys[k].data(),
                   static_cast<int>(cache.marker_xs.size()), color, em * 0.18f);
    }
  }
  if (plot.hovered()) {
    const auto pos = static_cast<int64_t>(std::llround(plot.mouse_x()));
    if (pos >= e.first_position() && pos <= e.last_position()) {
      state.selection.next_hover_position = pos;
      ImGui::BeginTooltip();
      ImGui::Text(e.family() == Family::kBias ? "query m = %lld" : "position %lld",
                  static_cast<long long>(pos));
      for (size_t k = 0; k < shown; ++k) {
        if (e.waves().empty() && pos < FirstVisibleQuery(e, dims[k])) {
          ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(SeriesColor(static_cast<int>(k))),
                             "%s: masked (key after the query)",
                             ColumnName(derived, dims[k]).c_str());
          continue;
        }
        ImGui::TextColored(
            ImGui::ColorConvertU32ToFloat4(SeriesColor(static_cast<int>(k))), "%s = %.6f",
            ColumnName(derived, dims[k]).c_str(),
            static_cast<double>(static_cast<float>(e.ValueAt(dims[k], static_cast<double>(pos)))));
        // The formula with its numbers, for the first few curves (more would fill the screen).
        if (k < 4) ImGui::TextDisabled("   %s", e.DescribeCell(pos, dims[k]).c_str());
      }
      ImGui::EndTooltip();
    }
  }
  if (dims.empty()) {
    // Wrapped to the plot's width, so a narrow panel shows all of it.
    const char* hint = "Pick dimensions on the right, or a quick pick above.";
    const float wrap = std::max(em * 4, plot.area_max().x - plot.area_min().x - em);
    const ImVec2 ts = ImGui::CalcTextSize(hint, nullptr, false, wrap);
    plot.draw_list()->AddText(ImGui::GetFont(), em,
                              ImVec2((plot.area_min().x + plot.area_max().x - ts.x) / 2,
                                     (plot.area_min().y + plot.area_max().y - ts.y) / 2),
                              CurrentPlotColors().dim, hint, nullptr, wrap);
  }
  cache.plot_min = plot.area_min();
  cache.plot_max = plot.area_max();
  plot.End();
  ImGui::EndGroup();

  // Legend (outside the data) and the dimension picker.
  ImGui::SameLine();
  ImGui::BeginGroup();
  const float legend_h =
      std::min(avail.y * 0.45f, ImGui::GetTextLineHeightWithSpacing() * 2.2f *
                                        static_cast<float>(std::max<size_t>(shown, 1)) +
                                    em);
  if (ImGui::BeginChild("legend", ImVec2(side_w, legend_h), true)) {
    for (size_t k = 0; k < shown; ++k) {
      const WaveColumn c = ColumnOf(derived, dims[k]);
      drawn.legend.push_back(c);
      const ImVec2 at = ImGui::GetCursorScreenPos();
      ImGui::GetWindowDrawList()->AddLine(ImVec2(at.x, at.y + em * 0.6f),
                                          ImVec2(at.x + em * 1.2f, at.y + em * 0.6f),
                                          SeriesColor(static_cast<int>(k)), 3.0f);
      ImGui::Dummy(ImVec2(em * 1.4f, em));
      ImGui::SameLine();
      if (derived.columns.empty()) {
        ImGui::TextUnformatted(ColumnName(derived, c.dim).c_str());
        continue;
      }
      ImGui::Text("d%lld: i=%lld %s", static_cast<long long>(c.dim), static_cast<long long>(c.pair),
                  WaveName(c.wave));
      // Frequency and wavelength each stay whole: the second moves to its own line when the
      // legend is too narrow for both.
      char omega[48], lambda[48];
      // The sinusoid's frequency is omega, RoPE's and xPos's theta (as the papers write them).
      const char* w = e.family() == Family::kRotary ? "\xce\xb8" : "\xcf\x89";
      std::snprintf(omega, sizeof omega, "   %s=%.4g", w, c.frequency);
      std::snprintf(lambda, sizeof lambda, "\xce\xbb=%.4g", c.wavelength());
      ImGui::TextDisabled("%s", omega);
      bool hovered = ImGui::IsItemHovered();
      const bool fits = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x +
                            ImGui::CalcTextSize(lambda).x <=
                        ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
      if (fits) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", lambda);
      } else {
        ImGui::Indent(em * 1.2f);
        ImGui::TextDisabled("%s", lambda);
        ImGui::Unindent(em * 1.2f);
      }
      hovered |= ImGui::IsItemHovered();
      if (k < cache.traces.size() && cache.traces[k].band()) {
        ImGui::Indent(em * 1.2f);
        // BandNote's words, wrapped at spaces; the number on a line of its own (ImGui's wrap
        // would split it at its decimal point).
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("band: each pixel shows the wave's range over its");
        ImGui::PopTextWrapPos();
        ImGui::TextDisabled("%.4g positions", cache.traces[k].positions_per_pixel());
        ImGui::Unindent(em * 1.2f);
      }
      if (hovered) {
        ImGui::SetTooltip(
            "frequency \xcf\x89 = %.8g rad/position\nwavelength 2\xcf\x80/\xcf\x89 = %.8g "
            "positions",
            c.frequency, c.wavelength());
      }
    }
    if (e.MasksAnyKey()) {
      // As the exported figure's legend: masked queries are left out, not drawn as 0.
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("%s", kMaskedCurvesNote);
      ImGui::PopTextWrapPos();
    }
    if (dims.size() > kMaxCurves)
      ImGui::TextDisabled("(showing the first %zu of %zu)", kMaxCurves, dims.size());
    if (dims.empty()) ImGui::TextDisabled("No curves chosen.");
  }
  ImGui::EndChild();
  DimensionPicker(
      state, derived, cache,
      std::max(em * 3, avail.y - legend_h - ImGui::GetFrameHeightWithSpacing() - em * 0.5f), drawn);
  ImGui::EndGroup();
}

}  // namespace pe
