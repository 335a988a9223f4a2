// The heatmap of the encoding's table: positions down, columns across, one texture with nearest
// sampling. Only the visible window is computed (heatmap_raster.h) on the raster worker; when
// zoomed in, cell borders and values appear. Hover explains the cell under the pointer.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "panels/panels.h"
#include "ui/clipboard.h"
#include "ui/plot.h"
#include "views/heatmap_raster.h"

namespace pe {
namespace {

// A count of cells or pixels as people read it: whole from 10 up, else two digits (1.2, 0.8), so
// 1.25 rows to a pixel is not "1" and 0.8 px to a cell not "1".
std::string Amount(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 10 ? "%.0f" : "%.2g", v);
  return buf;
}

// The first of `texts` that fits the panel's width, greyed (the last one when none fits): a
// narrow panel gets a shorter note instead of one cut at its edge.
void FittedNote(std::initializer_list<std::string> texts) {
  const float width = ImGui::GetContentRegionAvail().x;
  const std::string* pick = nullptr;
  for (const std::string& t : texts) {
    pick = &t;
    if (ImGui::CalcTextSize(t.c_str()).x <= width) break;
  }
  if (pick != nullptr) ImGui::TextDisabled("%s", pick->c_str());
}

// The selection outline's colour: the one the figures use, far from every colour of the map.
ImU32 OutlineColor(ColormapId colormap) {
  const Rgba8 c = SelectionHighlightColor(colormap);
  return IM_COL32(c.r, c.g, c.b, c.a);
}

// Re-maps the raster to RGBA and uploads it when the raster or the colormap changed.
void UploadIfNeeded(HeatmapCache& cache, ColormapId colormap, TextureStore* textures) {
  if (!cache.raster || cache.raster->empty() || !textures) return;
  if (cache.raster_uploaded && cache.uploaded_colormap == colormap) return;
  const Raster& r = *cache.raster;
  cache.rgba.resize(static_cast<size_t>(r.width) * r.height * 4);
  // The colour range of the encoding the raster was made from (the figure's range too).
  const ValueRange range = r.request.encoding->Range();
  MapToRgba(colormap, r.values.data(), static_cast<int64_t>(r.values.size()),
            static_cast<float>(range.lo), static_cast<float>(range.hi), cache.rgba.data());
  GreyMaskedTexels(r, cache.rgba.data());
  cache.texture = textures->Upload(0, r.width, r.height, cache.rgba.data());
  cache.raster_uploaded = true;
  cache.uploaded_colormap = colormap;
}

void CellTooltip(const AppState& state, const Derived& derived, const HeatmapCache& cache,
                 int64_t pos, int64_t dim, const Plot& plot) {
  (void)state;
  const Encoding& e = *derived.encoding;
  ImGui::BeginTooltip();
  ImGui::Text("position %lld, %s %lld", static_cast<long long>(pos),
              std::string(ColumnNounName(e.column_noun())).c_str(), static_cast<long long>(dim));
  if (!derived.columns.empty()) {
    const WaveColumn& c = derived.columns[static_cast<size_t>(dim)];
    const char* wave = c.wave == Wave::kSin     ? "sin"
                       : c.wave == Wave::kCos   ? "cos"
                       : c.wave == Wave::kAngle ? "angle"
                                                : "zero";
    ImGui::Text("pair i = %lld (%s), frequency = %.6g rad/position", static_cast<long long>(c.pair),
                wave, c.frequency);
    if (c.wave != Wave::kZero) ImGui::Text("wavelength 2*pi/w = %.6g positions", c.wavelength());
  }
  ImGui::Text("value %.7f",
              static_cast<double>(static_cast<float>(e.ValueAt(dim, static_cast<double>(pos)))));
  ImGui::TextDisabled("%s", e.DescribeCell(pos, dim).c_str());
  if (cache.raster && !cache.raster->one_cell_per_texel()) {
    const double rows = 1.0 / plot.pixels_per_y(), cols = 1.0 / plot.pixels_per_x();
    if (rows > 1.0 || cols > 1.0) {
      ImGui::Separator();
      ImGui::TextDisabled("zoomed out: each pixel shows the mean of about %s x %s cells",
                          Amount(std::max(1.0, rows)).c_str(), Amount(std::max(1.0, cols)).c_str());
    }
  }
  ImGui::EndTooltip();
}

}  // namespace

CopySource HeatmapCopySource(const Encoding& e) {
  CopySource s;
  s.rows = e.rows();
  s.cols = e.cols();
  s.corner = "position \\ " + std::string(ColumnNounName(e.column_noun()));
  s.col_name = [](int64_t c) { return std::to_string(c); };
  const int64_t first = e.first_position();
  s.row_name = [first](int64_t r) { return std::to_string(first + r); };
  s.value = [&e, first](int64_t r, int64_t c) {
    return static_cast<float>(e.ValueAt(c, static_cast<double>(first + r)));
  };
  return s;
}

void DrawHeatmapPanel(AppState& state, const Derived& derived, HeatmapCache& cache,
                      UiServices& services, DrawnRecord& drawn) {
  if (!derived.pe_status.ok()) {
    NoEncodingText(derived, "No table to show: ");
    return;
  }
  const Encoding& e = *derived.encoding;
  const int64_t n_cols = e.cols();
  const float em = ImGui::GetFontSize();
  const double first = static_cast<double>(e.first_position());
  const double end = first + static_cast<double>(e.rows());

  PlotSpec spec;
  const TableAxes axes = AxesOf(e);
  spec.x_label = axes.column_axis.c_str();
  spec.y_label = axes.row_axis.c_str();
  spec.limits = {0, static_cast<double>(n_cols), first, end};
  spec.min_x_span = std::min(3.0, static_cast<double>(n_cols));
  spec.min_y_span = std::min(3.0, static_cast<double>(e.rows()));
  spec.y_down = true;
  spec.x_cells = true;
  spec.y_cells = true;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float note_h = ImGui::GetTextLineHeightWithSpacing();
  const ValueRange range = e.Range();  // the colour scale of the image, bar and cell labels
  const float bar_w = ColorBarWidth(static_cast<float>(range.lo), static_cast<float>(range.hi),
                                    avail.y - note_h - em * 2.5f);
  const ImGuiID copy_menu = ImGui::GetID("heatmap_copy");
  Plot plot("heatmap_plot", state.windows[ViewKind::kHeatmap].view, spec,
            ImVec2(avail.x - bar_w, avail.y - note_h));

  // Ask for the raster of what is visible now; draw the newest one we have meanwhile.
  if (services.rasters) {
    RasterRequest req;
    req.encoding = derived.encoding;
    const PlotRange& v = state.windows[ViewKind::kHeatmap].view;
    req.x0 = v.x0;
    req.x1 = v.x1;
    req.y0 = v.y0;
    req.y1 = v.y1;
    req.width_px = std::max(1, static_cast<int>(plot.area_max().x - plot.area_min().x));
    req.height_px = std::max(1, static_cast<int>(plot.area_max().y - plot.area_min().y));
    services.rasters->Request(req);
    if (std::optional<Raster> r = services.rasters->Take()) {
      cache.raster = std::move(r);
      cache.raster_uploaded = false;
    }
  }
  UploadIfNeeded(cache, state.params.colormap, services.textures);
  if (cache.raster && !cache.raster->empty() &&
      cache.raster->request.encoding->params() == e.params() && cache.texture) {
    const Raster& r = *cache.raster;
    drawn.heatmap_image = r.request.encoding->params();
    plot.Image(cache.texture, static_cast<double>(r.col_edges.front()),
               static_cast<double>(r.row_edges.front()), static_cast<double>(r.col_edges.back()),
               static_cast<double>(r.row_edges.back()));
  } else if (services.rasters && services.rasters->Busy()) {
    // The new parameters' picture is on its way (a large table's first raster can take
    // seconds): say so rather than show an empty plot, or the old table as if it were new.
    drawn.heatmap_computing = true;
    const char* text = "Computing the picture for the new parameters...";
    const ImVec2 ts = ImGui::CalcTextSize(text);
    const ImVec2 a = plot.area_min(), b = plot.area_max();
    plot.draw_list()->AddText(ImVec2(0.5f * (a.x + b.x - ts.x), 0.5f * (a.y + b.y - ts.y)),
                              ImGui::GetColorU32(ImGuiCol_TextDisabled), text);
  }

  // Zoomed in: cell borders, then values once they fit.
  const PlotRange& v = state.windows[ViewKind::kHeatmap].view;
  const int64_t c0 = std::max<int64_t>(0, static_cast<int64_t>(std::floor(v.x0)));
  const int64_t c1 = std::min<int64_t>(n_cols, static_cast<int64_t>(std::ceil(v.x1)));
  const auto r0 = static_cast<int64_t>(std::max(first, std::floor(v.y0)));
  const auto r1 = static_cast<int64_t>(std::min(end, std::ceil(v.y1)));
  if (plot.pixels_per_x() >= 6 && plot.pixels_per_y() >= 6) {
    const ImU32 border = IM_COL32(0, 0, 0, 60);
    for (int64_t c = c0; c <= c1; ++c) plot.VLine(static_cast<double>(c), border);
    for (int64_t r = r0; r <= r1; ++r) plot.HLine(static_cast<double>(r), border);
    if (plot.pixels_per_x() >= em * 3.4f && plot.pixels_per_y() >= em * 1.2f) {
      char buf[24];
      // Light text on the dark ends of the colour range, dark text on the light middle.
      const double cell_mid = 0.5 * (range.lo + range.hi);
      const double cell_half_span = 0.5 * (range.hi - range.lo);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t c = c0; c < c1; ++c) {
          const auto value = static_cast<float>(e.ValueAt(c, static_cast<double>(r)));
          std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(value));
          const ImVec2 centre =
              plot.ToPixels(static_cast<double>(c) + 0.5, static_cast<double>(r) + 0.5);
          const ImVec2 ts = ImGui::CalcTextSize(buf);
          // A number is drawn whole or not at all: a cell cut by the plot's edge would show
          // "251" for 0.251.
          if (centre.x - ts.x / 2 < plot.area_min().x || centre.x + ts.x / 2 > plot.area_max().x ||
              centre.y - ts.y / 2 < plot.area_min().y || centre.y + ts.y / 2 > plot.area_max().y) {
            continue;
          }
          const bool dark = std::fabs(value - cell_mid) > 0.55 * cell_half_span ||
                            state.params.colormap != ColormapId::kRdBu;
          plot.draw_list()->AddText(ImVec2(centre.x - ts.x / 2, centre.y - ts.y / 2),
                                    dark ? IM_COL32(255, 255, 255, 230) : IM_COL32(20, 20, 20, 230),
                                    buf);
        }
      }
    }
  }

  // Linked views: the selected token's row, or one outline around all the sentence's rows
  // (per-row lines only where rows are tall enough to keep the table visible between them).
  if (derived.sentence.ok() && !derived.sentence.value().tokens.empty()) {
    const auto tokens = static_cast<double>(derived.sentence.value().tokens.size());
    const int sel = state.selection.selected_token;
    const ImU32 outline = OutlineColor(state.params.colormap);
    const float row_px = plot.pixels_per_y();
    const auto thickness = static_cast<float>(SelectionLineWidth(row_px));
    drawn.heatmap_outlined_rows = sel >= 0 ? 1 : static_cast<int>(tokens);
    if (sel >= 0) {
      const double y = first + sel;
      plot.Rect(0, y, static_cast<double>(n_cols), y + 1, outline, thickness);
    } else {
      plot.Rect(0, first, static_cast<double>(n_cols), first + tokens, outline, thickness);
      if (row_px >= 8.0f) {
        for (double t = 1; t < tokens; ++t) plot.HLine(first + t, outline, 1.0f);
      }
    }
  }
  if (!plot.hovered() && state.selection.hover_position >= 0) {
    plot.HLine(static_cast<double>(state.selection.hover_position) + 0.5,
               CurrentPlotColors().hover_line, 1.0f);
  }

  if (plot.hovered()) {
    const auto dim = static_cast<int64_t>(std::floor(plot.mouse_x()));
    const auto pos = static_cast<int64_t>(std::floor(plot.mouse_y()));
    if (dim >= 0 && dim < n_cols && pos >= e.first_position() && pos <= e.last_position()) {
      state.selection.next_hover_position = pos;
      state.selection.next_hover_dim = dim;
      CellTooltip(state, derived, cache, pos, dim, plot);
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
        cache.menu_position = pos;
        cache.menu_column = dim;
        OpenCopyMenu(copy_menu);
      }
    }
  }
  const double rows_per_px = 1.0 / plot.pixels_per_y(), cols_per_px = 1.0 / plot.pixels_per_x();
  DrawCopyMenu(state, copy_menu, HeatmapCopySource(e), cache.menu_position - e.first_position(),
               cache.menu_column);
  cache.plot_min = plot.area_min();
  cache.plot_max = plot.area_max();
  plot.End();

  ImGui::SameLine();
  // "cos value"; a longer table name ("cos*decay") drops the suffix to fit above the bar.
  std::string bar_label = e.TableName() + " value";
  if (ImGui::CalcTextSize(bar_label.c_str()).x > bar_w - em * 0.5f) bar_label = e.TableName();
  ColorBar("heatmap_colorbar", state.params.colormap, static_cast<float>(range.lo),
           static_cast<float>(range.hi), bar_label.c_str(),
           ImVec2(bar_w - em * 0.5f, avail.y - note_h - em * 2.5f));
  // Say what a pixel is: one cell, or the mean of many (fast waves then average to 0).
  const bool all_waves_average_out =
      derived.slowest_wavelength > 0 && rows_per_px > 2 * derived.slowest_wavelength &&
      e.column_noun() != ColumnNoun::kPair && !derived.columns.empty();
  if (all_waves_average_out) {
    FittedNote({"Every wave repeats within one pixel row here: means are ~0. Scroll to zoom.",
                "Every wave repeats within a pixel row: means ~0. Zoom in.",
                "Means ~0 at this zoom: zoom in."});
    ItemTooltip(
        "Each pixel row covers more positions than the slowest wave's wavelength, so the "
        "exact mean of every pixel is close to 0 (white in RdBu). Zoom in on positions "
        "(Ctrl + wheel) until the stripes appear.");
  } else if (rows_per_px > 1.5 || cols_per_px > 1.5) {
    // What a mean covers in this table's own words, and why it fades: waves cancel, seeded
    // noise (an untrained learned table) shrinks toward 0; biases and loaded tables just average.
    const char* row_noun = axes.row_index == "m" ? "queries" : "pos";
    const char* col_noun = axes.csv_prefix == "k"   ? "keys"
                           : axes.csv_prefix == "i" ? "pairs"
                                                    : "dims";
    const char* why = "";
    if (!derived.columns.empty()) {
      why = " (fast waves average to 0)";
    } else if (e.scheme() == Scheme::kLearned && !e.params().learned().table.loaded()) {
      why = " (random values average toward 0)";
    }
    char mean[160];
    std::snprintf(mean, sizeof mean, "Pixel = mean of ~%.0f %s x %.0f %s",
                  std::max(1.0, rows_per_px), row_noun, std::max(1.0, cols_per_px), col_noun);
    FittedNote({std::string(mean) + why, mean});
    ItemTooltip(
        "The table has more cells than the panel has pixels, so each pixel shows the exact "
        "mean of the cells it covers instead of skipping most of them. Scroll to zoom in "
        "until each pixel is one cell; further in, values appear in the cells.");
  } else {
    char cell[96];
    std::snprintf(cell, sizeof cell, "One cell = %s x %s px.", Amount(1 / cols_per_px).c_str(),
                  Amount(1 / rows_per_px).c_str());
    if (!state.params.example.positional_rows.empty()) {
      // The sums add typed rows instead of this table (the i-love-nlp preset): say so here.
      FittedNote({std::string(cell) + " The sums add the typed rows of --positional-rows, not "
                                      "this table.",
                  "The sums add --positional-rows, not this table.", cell});
    } else {
      FittedNote({std::string(cell) + " Drag to pan, double-click to fit.", cell});
    }
  }
}

}  // namespace pe
