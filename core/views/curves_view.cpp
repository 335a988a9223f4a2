// The curves view: chosen table columns as functions of the position (smooth for wave columns,
// the polyline through the rows for tables without a formula), dots at integer positions.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "views/figure_budget.h"
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
    // A bias table's columns are keys (absolute positions), a stored table's dimensions.
    if (e.family() == Family::kBias) {
      std::snprintf(label, sizeof label, "key n=%lld",
                    static_cast<long long>(e.first_position() + col));
    } else {
      std::snprintf(label, sizeof label, "j=%lld", static_cast<long long>(col));
    }
    return label;
  }
  const WaveColumn& c = waves[static_cast<size_t>(col)];
  // The sinusoid's frequency is omega; RoPE's and xPos's are theta (as the papers write them).
  const char* w = e.family() == Family::kRotary ? "\xce\xb8" : "\xcf\x89";
  std::snprintf(label, sizeof label, "j=%lld: i=%lld %s, %s=%.4g, \xce\xbb=%.4g",
                static_cast<long long>(c.dim), static_cast<long long>(c.pair), WaveName(c.wave), w,
                c.frequency, c.wavelength());
  return label;
}

CurveTrace TraceWaveCurve(const Encoding& e, int64_t col, double x0, double x1, int width_px) {
  CurveTrace t;
  const WaveColumn& c = e.waves()[static_cast<size_t>(col)];
  const int samples = CurveSamples(width_px);
  const double step = (x1 - x0) / (samples - 1);
  // The band's range is the bare wave's: only where the encoding's value is that wave.
  const bool bare =
      e.ValueAt(col, x0) == WaveValueAt(c, x0) && e.ValueAt(col, x1) == WaveValueAt(c, x1);
  const bool wave = c.wave == Wave::kSin || c.wave == Wave::kCos;
  if (wave && bare && std::fabs(c.frequency) * step > kLineMaxTurn && width_px >= 1) {
    const int n = width_px;
    t.edges.resize(static_cast<size_t>(n) + 1);
    for (int k = 0; k <= n; ++k) t.edges[static_cast<size_t>(k)] = x0 + (x1 - x0) * k / n;
    t.lo.resize(static_cast<size_t>(n));
    t.hi.resize(static_cast<size_t>(n));
    for (size_t k = 0; k < static_cast<size_t>(n); ++k) {
      const WaveSpan span = WaveRangeOver(c, t.edges[k], t.edges[k + 1]);
      t.lo[k] = span.lo;
      t.hi[k] = span.hi;
    }
    return t;
  }
  t.xs.resize(static_cast<size_t>(samples));
  t.ys.resize(static_cast<size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    const double x = x0 + (x1 - x0) * i / (samples - 1);
    t.xs[static_cast<size_t>(i)] = x;
    t.ys[static_cast<size_t>(i)] = e.ValueAt(col, x);
  }
  return t;
}

namespace {

// The rows [first, last] of the table inside [x0, x1].
std::pair<int64_t, int64_t> RowsInView(const Encoding& e, double x0, double x1) {
  const auto first = static_cast<double>(e.first_position());
  const auto last = static_cast<double>(e.last_position());
  const double a = std::max(first, std::ceil(x0)), b = std::min(last, std::floor(x1));
  if (!(b >= a)) return {0, -1};
  return {static_cast<int64_t>(a), static_cast<int64_t>(b)};
}

}  // namespace

bool TableCurveIsSampled(const Encoding& e, double x0, double x1, int width_px) {
  const auto [a, b] = RowsInView(e, x0, x1);
  return b - a + 1 > std::max(width_px, 1) && b - a + 1 > kMaxExactBandRows;
}

int64_t FirstVisibleQuery(const Encoding& e, int64_t col) {
  if (!e.MasksAnyKey()) return e.first_position();
  // Masks are causal: the key at column col is visible from its own position on.
  const int64_t key = e.first_position() + col;
  return std::max(e.first_position(), e.Masked(key - 1, key) ? key : e.first_position());
}

CurveTrace TraceTableCurve(const Encoding& e, int64_t col, double x0, double x1, int width_px) {
  CurveTrace t;
  // Queries a masked key is hidden from are left out: the curve starts where it is seen.
  const auto first = static_cast<double>(FirstVisibleQuery(e, col));
  const auto last = static_cast<double>(e.last_position());
  if (first > last) return t;
  auto [row_a, row_b] = RowsInView(e, x0, x1);
  if (row_b >= row_a) row_a = std::max(row_a, static_cast<int64_t>(first));
  const int64_t in_view = std::max<int64_t>(row_b - row_a + 1, 0);
  if (width_px >= 1 && in_view > width_px && in_view <= kMaxExactBandRows) {
    // The band covers the table's part of the window, in pixels as wide as the plot's.
    const double b0 = std::max(x0, first), b1 = std::min(x1, last);
    const int n = std::max(1, static_cast<int>(std::lround(width_px * (b1 - b0) / (x1 - x0))));
    t.edges.resize(static_cast<size_t>(n) + 1);
    for (int k = 0; k <= n; ++k) t.edges[static_cast<size_t>(k)] = b0 + (b1 - b0) * k / n;
    t.lo.resize(static_cast<size_t>(n));
    t.hi.resize(static_cast<size_t>(n));
    for (size_t k = 0; k < static_cast<size_t>(n); ++k) {
      const double va = e.ValueAt(col, t.edges[k]), vb = e.ValueAt(col, t.edges[k + 1]);
      t.lo[k] = std::min(va, vb);
      t.hi[k] = std::max(va, vb);
    }
    const double scale = n / (b1 - b0);
    for (int64_t p = row_a; p <= row_b; ++p) {
      const double v = e.ValueAt(col, static_cast<double>(p));
      const auto k = static_cast<size_t>(
          std::clamp<double>(std::floor((static_cast<double>(p) - b0) * scale), 0.0, n - 1.0));
      t.lo[k] = std::min(t.lo[k], v);
      t.hi[k] = std::max(t.hi[k], v);
    }
    return t;
  }
  // The polyline through the rows in view and one beyond each side; past kMaxExactBandRows
  // rows, through every k-th row, at most two a pixel.
  const double lo = std::max(first, std::floor(x0) - 1);
  const double hi = std::min(last, std::ceil(x1) + 1);
  const int samples = CurveSamples(std::max(width_px, 1));
  const double step =
      in_view > kMaxExactBandRows ? std::max(1.0, std::ceil((hi - lo + 1) / samples)) : 1.0;
  for (double x = lo; x <= hi; x += step) {
    t.xs.push_back(x);
    t.ys.push_back(e.ValueAt(col, x));
  }
  return t;
}

std::string TableBandNote(double positions_per_pixel) {
  char note[120];
  std::snprintf(note, sizeof note, "each pixel shows the range of its %.4g rows",
                positions_per_pixel);
  return note;
}

std::string BandNote(double positions_per_pixel) {
  char note[120];
  std::snprintf(note, sizeof note, "each pixel shows the wave's range over its %.4g positions",
                positions_per_pixel);
  return note;
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
  f.view = sel.windows[ViewKind::kCurves];
  f.hlines.push_back(0.0);
  // As the panel: the first kMaxCurveSeries columns.
  const size_t shown = std::min(m.curve_dims.size(), kMaxCurveSeries);
  for (size_t k = 0; k < shown; ++k) {
    f.legend.push_back({ColumnLegend(e, m.curve_dims[k]), SeriesRgba(static_cast<int>(k))});
  }
  // A causal bias masks a key for the queries before it (-inf in the model): the curves leave
  // those queries out rather than draw the table's value there (0, the largest bias, for ALiBi).
  if (e.MasksAnyKey()) f.legend.push_back({kMaskedCurvesNote, kNoColor});
  const PixelSize px = PlotPixels(c, f);
  const ViewRange& v = sel.windows[ViewKind::kCurves];
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
    // A wave column's exact band (TraceWaveCurve) or a table's per-pixel min-max over its
    // rows (TraceTableCurve); a line where it is faithful.
    CurveTrace t = smooth ? TraceWaveCurve(e, col, v.x0, v.x1, px.width)
                          : TraceTableCurve(e, col, v.x0, v.x1, px.width);
    if (t.band()) {
      f.legend[k].label += " (";
      f.legend[k].label +=
          smooth ? BandNote(t.positions_per_pixel()) : TableBandNote(t.positions_per_pixel());
      f.legend[k].label += ")";
      s.label = f.legend[k].label;
      s.band_edges = std::move(t.edges);
      s.band_lo = std::move(t.lo);
      s.band_hi = std::move(t.hi);
    } else {
      s.xs = std::move(t.xs);
      s.ys = std::move(t.ys);
    }
    if (sel.markers && px_per_pos >= 5.0) {
      const auto seen = smooth ? first : static_cast<double>(FirstVisibleQuery(e, col));
      for (double x = std::max(std::ceil(v.x0), seen); x <= std::min(std::floor(v.x1), last);
           x += 1.0) {
        s.marker_xs.push_back(x);
        s.marker_ys.push_back(static_cast<float>(e.ValueAt(col, x)));
      }
    }
    f.series.push_back(std::move(s));
  }
  if (!smooth && TableCurveIsSampled(e, v.x0, v.x1, px.width)) {
    f.legend.push_back({"more than " + std::to_string(kMaxExactBandRows) +
                            " rows in view: the line passes through every k-th row; zoom in "
                            "for each pixel's exact range",
                        kNoColor});
  }
  if (sel.highlight && sel.selected_token >= 0) {
    const double x = first + sel.selected_token;
    f.overlays.push_back({x, v.y0, x, v.y1, SelectionHighlightColor(m.colormap), false, 1.5});
  }
  return f;
}

Status CheckCurvesTable(const ViewContext& c) {
  return ValidateDims(*c.encoding, c.params.curve_dims);
}

Status WriteCurvesView(std::ostream& out, TableFormat format, const ViewContext& c,
                       const Progress& progress) {
  return WriteCurvesTable(out, format, *c.encoding, c.params.curve_dims, c.params.cap, progress);
}

// As CurvesFigure: clamp(2 * plot width + 1, 64, 20001) samples per chosen dimension, plus at
// most one marker per plot pixel.
ViewRange CurvesWhole(const ModelParams&, const Encoding& e) {
  return CurvesLimits(e);
}

uint64_t CurvesEstimate(const EstimateContext& c) {
  const uint64_t samples = EstimatedCurveSamples(c.width_px) + c.width_px;
  return kFigureBytesPerCurveSample * samples *
         std::min<uint64_t>(c.params.curve_dims.size(), kMaxCurveSeries);
}

std::string CurvesTitle(const ModelParams& m, const Encoding& e) {
  // The positions: ", max_len = 100", and where they start when that is not 0.
  const std::string rows =
      ", max_len = " + std::to_string(m.pe.max_len) +
      (m.pe.offset != 0 ? ", from position " + std::to_string(m.pe.offset) : std::string());
  if (e.family() == Family::kBias) {
    // Its columns are keys: each curve is one key's bias against the query.
    return e.TableName() + "(m, n) of each key n against the query m (" + e.Title() + rows + ")";
  }
  if (e.scheme() == Scheme::kSinusoidal) {
    return "PE(position, dimension) as waves (" + e.FileTag() +
           ", d_model = " + std::to_string(m.pe.d_model) + rows + ")";
  }
  const std::string width(e.WidthLabel());
  return e.TableName() + "(position, column) as " + (e.waves().empty() ? "curves" : "waves") +
         " (" + e.Title() + ", " + width + " = " + std::to_string(m.pe.d_model) + rows + ")";
}

void CurvesMetadata(const ModelParams& m, const ViewSelection& sel, MetadataList& out) {
  out.push_back({"highlight", sel.highlight ? "true" : "false"});
  out.push_back({"markers", sel.markers ? "true" : "false"});
  AddPresetMetadata(m, out);
}

}  // namespace pe
