// The curves view: chosen table columns as functions of the position (smooth for wave columns,
// the polyline through the rows for tables without a formula), dots at integer positions.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "views/figure_export.h"
#include "views/view_builders.h"
#include "views/view_geometry.h"

namespace pe {

const char* WaveName(Wave w) {
  switch (w) {
    case Wave::kSin:
      return "sin";
    case Wave::kCos:
      return "cos";
    case Wave::kZero:
      return "zero";
    case Wave::kAngle:
      return "angle";
  }
  return "?";
}

std::string ColumnLegend(const Encoding& e, int64_t col) {
  char label[160];
  const auto waves = e.waves();
  if (waves.empty()) {
    std::snprintf(label, sizeof label, "j=%lld", static_cast<long long>(col));
    return label;
  }
  const WaveColumn& c = waves[static_cast<size_t>(col)];
  // The sinusoid's frequency is omega; RoPE's and xPos's are theta (as the papers write them).
  const char* w = e.family() == Family::kRotary ? "\xce\xb8" : "\xcf\x89";
  std::snprintf(label, sizeof label, "j=%lld: i=%lld %s, %s=%.4g, \xce\xbb=%.4g",
                static_cast<long long>(c.dim), static_cast<long long>(c.pair), WaveName(c.wave),
                w, c.frequency, c.wavelength());
  return label;
}

Result<Figure> CurvesFigure(const ViewContext& c) {
  const Encoding& e = *c.encoding;
  const ModelParams& m = c.params;
  const ViewSelection& sel = c.sel;
  if (Status s = ValidateDims(e, m.curve_dims); !s.ok()) return s.error();
  Figure f;
  f.x = {AxesOf(e).row_axis, false, false};
  const TableAxes axes = AxesOf(e);
  const std::string& index = axes.column_index;
  f.y = {e.TableName() + "(" + axes.row_index + ", " + index + ")", false, false};
  f.view = sel.curves;
  f.hlines.push_back(0.0);
  // As the panel: the first kMaxCurveSeries columns.
  const size_t shown = std::min(m.curve_dims.size(), kMaxCurveSeries);
  for (size_t k = 0; k < shown; ++k) {
    f.legend.push_back({ColumnLegend(e, m.curve_dims[k]), SeriesRgba(static_cast<int>(k))});
  }
  const PixelSize px = PlotAreaPixels(f, c.size, c.format);
  const ViewRange& v = sel.curves;
  const int samples = CurveSamples(px.width);
  const double px_per_pos = px.width / (v.x1 - v.x0);
  const auto first = static_cast<double>(e.first_position());
  const auto last = static_cast<double>(e.last_position());
  const bool smooth = !e.waves().empty();
  for (size_t k = 0; k < shown; ++k) {
    const int64_t col = m.curve_dims[k];
    FigureSeries s;
    s.label = f.legend[k].label;
    s.color = SeriesRgba(static_cast<int>(k));
    s.line_width = 1.6;
    if (smooth) {
      for (int i = 0; i < samples; ++i) {
        const double x = v.x0 + (v.x1 - v.x0) * i / (samples - 1);
        s.xs.push_back(x);
        s.ys.push_back(e.ValueAt(col, x));
      }
    } else {
      // The polyline through the rows in view (and one row beyond each side), at most
      // `samples` vertices: more rows than that are decimated to every k-th row.
      const double lo = std::max(first, std::floor(v.x0) - 1);
      const double hi = std::min(last, std::ceil(v.x1) + 1);
      const double step = std::max(1.0, std::ceil((hi - lo + 1) / samples));
      for (double x = lo; x <= hi; x += step) {
        s.xs.push_back(x);
        s.ys.push_back(e.ValueAt(col, x));
      }
    }
    if (sel.markers && px_per_pos >= 5.0) {
      for (double x = std::max(std::ceil(v.x0), first); x <= std::min(std::floor(v.x1), last);
           x += 1.0) {
        s.marker_xs.push_back(x);
        s.marker_ys.push_back(static_cast<float>(e.ValueAt(col, x)));
      }
    }
    f.series.push_back(std::move(s));
  }
  if (sel.highlight && sel.selected_token >= 0) {
    const double x = first + sel.selected_token;
    f.overlays.push_back(
        {x, v.y0, x, v.y1, SelectionHighlightColor(m.colormap), false, 1.5});
  }
  return f;
}

Status CheckCurvesTable(const ViewContext& c) { return ValidateDims(*c.encoding, c.params.curve_dims); }

Status WriteCurvesView(std::ostream& out, TableFormat format, const ViewContext& c,
                       const Progress& progress) {
  return WriteCurvesTable(out, format, *c.encoding, c.params.curve_dims, c.params.cap, progress);
}

}  // namespace pe
