// The heatmap view: the encoding's table, position by column, as exact per-pixel means.
#include <algorithm>
#include <cstdio>

#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/heatmap_raster.h"
#include "views/view_builders.h"

namespace pe {

void AddMaskedLegend(const Encoding& e, Figure& f) {
  // The first query's row: its last key is after it whenever the table masks anything.
  if (e.MasksAnyKey()) {
    f.legend.push_back({"grey: key after the query, masked (-inf in the model; the table holds " +
                            std::string(e.scheme() == Scheme::kT5 ? "bucket 0's bias" : "0") + ")",
                        Rgba8{kMaskedTexelGrey, kMaskedTexelGrey, kMaskedTexelGrey, 255}});
  }
}

Result<Figure> HeatmapFigure(const ViewContext& c) {
  const Encoding& e = *c.encoding;
  const ViewSelection& sel = c.sel;
  const ViewRange& w = sel.windows[ViewKind::kHeatmap];
  const ModelParams& m = c.params;
  Figure f;
  const TableAxes axes = AxesOf(e);
  f.x = {axes.column_axis, true, false};
  f.y = {axes.row_axis, true, true};
  f.view = w;
  const ValueRange range = e.Range();
  f.colorbar =
      FigureColorBar{m.colormap, range.lo, range.hi,
                     e.TableName() + "(" + axes.row_index + ", " + axes.column_index + ")"};
  AddMaskedLegend(e, f);
  PixelSize px = PlotPixels(c, f);
  // A table with more cells than the figure has pixels is drawn as exact means, which fade
  // (waves cancel, noise shrinks): the figure says so, as the window's caption does.
  const double rows_per_px = (w.y1 - w.y0) / std::min(px.height, 4096);
  const double cols_per_px = (w.x1 - w.x0) / std::min(px.width, 4096);
  if (rows_per_px > 1.5 || cols_per_px > 1.5) {
    char note[160];
    std::snprintf(note, sizeof note, "each pixel: the exact mean of ~%.0f %s x %.0f %s",
                  std::max(1.0, rows_per_px), axes.row_index == "m" ? "queries" : "positions",
                  std::max(1.0, cols_per_px),
                  axes.csv_prefix == "k"   ? "keys"
                  : axes.csv_prefix == "i" ? "pairs"
                                           : "columns");
    f.legend.push_back({note, kNoColor});
    px = PlotPixels(c, f);
  }
  RasterRequest req{
      c.encoding, w.x0, w.x1, w.y0, w.y1, std::min(px.width, 4096), std::min(px.height, 4096)};
  const Raster r = ComputeRaster(req);
  if (!r.empty()) {
    FigureImage im;
    im.width = r.width;
    im.height = r.height;
    im.rgba.resize(static_cast<size_t>(r.width) * r.height * 4);
    MapToRgba(m.colormap, r.values.data(), static_cast<int64_t>(r.values.size()),
              static_cast<float>(range.lo), static_cast<float>(range.hi), im.rgba.data());
    GreyMaskedTexels(r, im.rgba.data());
    im.x0 = static_cast<double>(r.col_edges.front());
    im.x1 = static_cast<double>(r.col_edges.back());
    im.y0 = static_cast<double>(r.row_edges.front());
    im.y1 = static_cast<double>(r.row_edges.back());
    f.image = std::move(im);
  }
  if (sel.highlight && sel.selected_token >= 0) {
    // The panel's outline: a colour no cell has, thin when rows are dense (layout units).
    const double y = static_cast<double>(e.first_position() + sel.selected_token);
    const double row_height = FigurePlotBox(f, c.size).h / (w.y1 - w.y0);
    f.overlays.push_back({0, y, static_cast<double>(e.cols()), y + 1,
                          SelectionHighlightColor(m.colormap), false,
                          SelectionLineWidth(row_height)});
  }
  return f;
}

Status CheckHeatmapTable(const ViewContext& c) {
  return CheckFloatCount("the " + c.encoding->TableName() + " table",
                         static_cast<uint64_t>(c.encoding->rows()),
                         static_cast<uint64_t>(c.encoding->cols()), c.params.cap);
}

Status WriteHeatmapView(std::ostream& out, TableFormat format, const ViewContext& c,
                        const Progress& progress) {
  return WriteHeatmapTable(out, format, *c.encoding, c.params.cap, progress);
}

// As HeatmapFigure: at most 4096 texels a side, never more than the visible cells.
ViewRange HeatmapWhole(const ModelParams&, const Encoding& e) {
  const auto first = static_cast<double>(e.first_position());
  return {0, static_cast<double>(e.cols()), first, first + static_cast<double>(e.rows())};
}

uint64_t HeatmapEstimate(const EstimateContext& c) {
  const ViewRange& window = c.sel.windows[ViewKind::kHeatmap];
  const uint64_t w = EstimatedWindowTexels(c.width_px, window.x1 - window.x0);
  const uint64_t h = EstimatedWindowTexels(c.height_px, window.y1 - window.y0);
  return kFigureBytesPerTexel * w * h;
}

// The title names the table and its shape; a bias table is L x L, its size is max_len alone.
std::string HeatmapTitle(const ModelParams& m, const Encoding& e) {
  std::string t = e.Title();
  if (e.family() != Family::kBias) {
    t += std::string(", ") + std::string(e.WidthLabel()) + " = " + std::to_string(m.pe.d_model);
  }
  return t + ", max_len = " + std::to_string(m.pe.max_len) +
         (m.pe.offset != 0 ? ", from position " + std::to_string(m.pe.offset) : std::string());
}

void HeatmapMetadata(const ModelParams& m, const ViewSelection& sel, MetadataList& out) {
  out.push_back({"highlight", sel.highlight ? "true" : "false"});
  AddPresetMetadata(m, out);
}

}  // namespace pe
