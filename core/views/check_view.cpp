// The check view: a table the user computed (--check-table FILE[:TENSOR], shape (L, d))
// against the exact table of the current scheme parameters, shaped like the loaded table
// (d_model = its columns, max_len = its rows, from the current first position).
//   figure: two panels. Left, |table - reference| over the heatmap's window (selection.heatmap)
//           at screen resolution, each texel the largest |error| of all the cells it covers
//           (exact, not sampled). Right, the histogram of the errors in float32 ulps. The
//           legend gives max and mean |error|, the worst cell with both values and the
//           reference formula, and what `check` identifies the table as (tables up to
//           kIdentifyCells cells). With no table loaded the figure says how to load one.
//   NPY:    (L, d) float32, table - reference per cell.
//   CSV:    one row per table row: row,max_abs,mean_abs,max_ulps.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/check.h"
#include "io/file_writers.h"
#include "io/tensor_file.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/heatmap_raster.h"
#include "views/view_builders.h"

namespace pe {
namespace {

// Identification runs on tables up to this many cells (it verifies several candidates).
constexpr int64_t kIdentifyCells = int64_t{1} << 21;
constexpr const char* kMinus = "\xe2\x88\x92";

struct CheckData {
  std::string name;   // FILE or FILE:TENSOR
  std::string dtype;  // as the file says
  Matrix table;       // (L, d)
  EncodingPtr reference;
  Matrix ref;  // (L, d), the reference's table
  Tolerance tol;
};

Result<CheckData> LoadCheckData(const ViewContext& c) {
  const std::string& text = c.params.check_table;
  if (text.empty()) {
    return InvalidArgument(
        "the check view needs a table: --check-table FILE[:TENSOR] (an NPY file, or a tensor of "
        "a .safetensors file, shape (L, d))");
  }
  Result<TensorSpec> spec = ParseTensorSpec(text);
  if (!spec.ok()) return InvalidArgument("--check-table: " + spec.message());
  Result<LoadedTensor> loaded = ReadTensorFile(spec.value(), c.params.cap);
  if (!loaded.ok()) return Error{loaded.error().kind, "--check-table: " + loaded.message()};
  CheckData d;
  d.name = TensorSpecText(spec.value());
  d.dtype = loaded.value().dtype;
  Result<Matrix> table =
      TableFromTensor(loaded.value().values.shape, std::move(loaded.value().values.data));
  if (!table.ok()) return InvalidArgument("--check-table \"" + d.name + "\": " + table.message());
  d.table = std::move(table).value();
  EncodingParams p = c.params.pe;
  p.d_model = d.table.cols;
  p.max_len = d.table.rows;
  Result<EncodingPtr> e = MakeEncoding(p, c.params.cap);
  if (!e.ok()) {
    return InvalidArgument("the reference for the (" + std::to_string(d.table.rows) + ", " +
                           std::to_string(d.table.cols) + ") table of \"" + d.name +
                           "\": " + e.message());
  }
  d.reference = e.value();
  Result<Matrix> ref = ComputeTable(*d.reference, c.params.cap);
  if (!ref.ok()) return ref.error();
  d.ref = std::move(ref).value();
  const ValueRange range = d.reference->Range();
  d.tol.bits = DtypeSignificandBits(d.dtype);
  d.tol.amplitude = std::max(std::abs(range.lo), std::abs(range.hi));
  if (!(d.tol.amplitude > 0) || !std::isfinite(d.tol.amplitude)) d.tol.amplitude = 1.0;
  return d;
}

// The heatmap's window inside the table (dims x positions), or the whole table: also when the
// window is the whole of the current parameters' table, whose shape is not the file's (a
// (2000, 256) file checked from the default (100, 128) parameters is shown whole, not its
// corner).
ViewRange CheckWindow(const ViewContext& c, const CheckData& d) {
  const auto first = static_cast<double>(d.reference->first_position());
  const double end = first + static_cast<double>(d.table.rows);
  const auto cols = static_cast<double>(d.table.cols);
  ViewRange w = c.sel.windows[ViewKind::kHeatmap];
  if (c.encoding) {
    const Encoding& current = *c.encoding;
    const auto c_first = static_cast<double>(current.first_position());
    if (w.x0 <= 0 && w.x1 >= static_cast<double>(current.cols()) && w.y0 <= c_first &&
        w.y1 >= c_first + static_cast<double>(current.rows())) {
      return {0, cols, first, end};
    }
  }
  w.x0 = std::clamp(w.x0, 0.0, cols);
  w.x1 = std::clamp(w.x1, 0.0, cols);
  w.y0 = std::clamp(w.y0, first, end);
  w.y1 = std::clamp(w.y1, first, end);
  if (!(w.x1 > w.x0) || !(w.y1 > w.y0)) return {0, cols, first, end};
  return w;
}

struct ErrorRaster {
  int width = 0, height = 0;
  std::vector<float> values;  // (height, width): max |error| over each texel's cells
  std::vector<int64_t> col_edges, row_edges;  // row edges in table rows
  double max_abs = 0;
};

ErrorRaster ComputeErrorRaster(const CheckData& d, const ViewRange& w, int64_t first, int width_px,
                               int height_px) {
  ErrorRaster r;
  const int64_t cols = d.table.cols, rows = d.table.rows;
  const auto c_lo = static_cast<int64_t>(std::clamp(std::floor(w.x0), 0.0, double(cols)));
  const auto c_hi = static_cast<int64_t>(std::clamp(std::ceil(w.x1), 0.0, double(cols)));
  const auto r_lo =
      static_cast<int64_t>(std::clamp(std::floor(w.y0) - double(first), 0.0, double(rows)));
  const auto r_hi =
      static_cast<int64_t>(std::clamp(std::ceil(w.y1) - double(first), 0.0, double(rows)));
  r.col_edges = RasterEdges(c_lo, c_hi, std::max(1, width_px));
  r.row_edges = RasterEdges(r_lo, r_hi, std::max(1, height_px));
  if (r.col_edges.size() < 2 || r.row_edges.size() < 2) return r;
  r.width = static_cast<int>(r.col_edges.size() - 1);
  r.height = static_cast<int>(r.row_edges.size() - 1);
  r.values.assign(static_cast<size_t>(r.width) * static_cast<size_t>(r.height), 0.0f);
  // Texel column of each table column in the window.
  std::vector<int> texel_of(static_cast<size_t>(c_hi - c_lo));
  for (int x = 0; x < r.width; ++x) {
    for (int64_t j = r.col_edges[x]; j < r.col_edges[x + 1]; ++j) {
      texel_of[static_cast<size_t>(j - c_lo)] = x;
    }
  }
  for (int y = 0; y < r.height; ++y) {
    float* texels = r.values.data() + static_cast<size_t>(y) * static_cast<size_t>(r.width);
    for (int64_t row = r.row_edges[y]; row < r.row_edges[y + 1]; ++row) {
      const float* t = d.table.row(row);
      const float* ref = d.ref.row(row);
      for (int64_t j = c_lo; j < c_hi; ++j) {
        const float e = std::abs(t[j] - ref[j]);
        float& texel = texels[texel_of[static_cast<size_t>(j - c_lo)]];
        texel = std::max(texel, e);
      }
    }
  }
  for (float v : r.values) r.max_abs = std::max(r.max_abs, static_cast<double>(v));
  return r;
}

// The histogram panel's buckets: from 0 ulps to the last bucket that holds a cell.
int LastUsedBucket(const ErrorStats& s) {
  int last = 0;
  for (int k = 0; k < kUlpBuckets; ++k) {
    if (s.ulp_histogram[static_cast<size_t>(k)] > 0) last = k;
  }
  return last;
}

Figure EmptyFigure() {
  Figure f;
  f.title = "Check a table you computed against the exact one";
  f.plot = false;
  f.text.push_back(
      {"No table is loaded. Type the path of an NPY file (or FILE.safetensors:TENSOR) "
       "in the check panel and press Load, or export with --check-table "
       "FILE[:TENSOR].",
       FigureText::Style::kBody});
  f.text.push_back(
      {"The table is compared with the exact table of the current parameters, shaped "
       "like it (d = its columns, L = its rows): |table " +
           std::string(kMinus) +
           " reference| per cell, the worst cell and its formula, and the errors "
           "in float32 ulps.",
       FigureText::Style::kBody});
  f.text.push_back({"pe-explorer check FILE[:TENSOR]", FigureText::Style::kCode});
  f.text.push_back(
      {"names the scheme a table holds: the sinusoidal layout, base, min "
       "timescale, first position and scale, or RoPE's pairing and scaling.",
       FigureText::Style::kBody});
  return f;
}

}  // namespace

Result<Figure> CheckFigure(const ViewContext& c) {
  if (c.params.check_table.empty()) return EmptyFigure();
  Result<CheckData> loaded = LoadCheckData(c);
  if (!loaded.ok()) return loaded.error();
  const CheckData& d = loaded.value();
  const Encoding& e = *d.reference;
  const TableAxes axes = AxesOf(e);
  const ErrorStats s = CompareTables(d.table, d.ref, d.tol);
  Figure f;
  f.title =
      "Check: |table " + std::string(kMinus) + " reference|, " + d.name + " against " + e.Summary();
  const ViewRange w = CheckWindow(c, d);
  f.view = w;
  f.extent =
      ViewRange{0, static_cast<double>(d.table.cols), static_cast<double>(e.first_position()),
                static_cast<double>(e.first_position()) + static_cast<double>(d.table.rows)};
  Figure heat;
  heat.title = "|table " + std::string(kMinus) + " reference| (texel: max over its cells)";
  heat.x = {axes.column_axis, true, false, true};
  heat.y = {axes.row_axis, true, true, true};
  heat.view = w;
  heat.colorbar = FigureColorBar{ColormapId::kViridis, 0, 1, "|error|"};
  Figure hist;
  hist.title = "errors in float32 ulps";
  hist.x = {"ulps", true, false, true};
  hist.y = {"share of cells (%)", false, false};
  const int last = LastUsedBucket(s);
  const int buckets = std::max(last + 1, 4);
  hist.view = {0, static_cast<double>(buckets), 0, 100};
  const int step = buckets > 12 ? (buckets + 11) / 12 : 1;
  for (int k = 0; k < buckets; k += step) {
    hist.x.ticks.push_back({k + 0.5, UlpBucketLabel(k)});
  }
  const int64_t cells = s.rows * s.cols;
  double top = 0;
  for (int k = 0; k < buckets; ++k) {
    const double share =
        cells > 0 ? 100.0 * static_cast<double>(s.ulp_histogram[static_cast<size_t>(k)]) /
                        static_cast<double>(cells)
                  : 0.0;
    top = std::max(top, share);
    if (share > 0) {
      hist.rects.push_back({k + 0.12, 0, k + 0.88, share, SeriesRgba(0), true, 1.0});
    }
  }
  hist.view.y1 = std::max(5.0, top * 1.08);
  f.panels.push_back(std::move(heat));
  f.panels.push_back(std::move(hist));
  // The window's largest |error| (one texel over it all): the colour bar's top, set before the
  // raster's pixels are measured, which come last, with the legend in.
  const double window_max = ComputeErrorRaster(d, w, e.first_position(), 1, 1).max_abs;
  Figure& hp = f.panels[0];
  const double hi = window_max > 0 ? window_max : 1.0;
  hp.colorbar = FigureColorBar{ColormapId::kViridis, 0, hi,
                               window_max > 0 ? "|error|" : "|error| (0 everywhere shown)"};
  // The numbers.
  const int64_t worst_p = e.first_position() + s.worst_row;
  f.legend.push_back({"table: " + d.name + ", (" + std::to_string(d.table.rows) + ", " +
                          std::to_string(d.table.cols) + ") " + d.dtype +
                          "; reference: " + e.Summary(),
                      kNoColor});
  f.legend.push_back({"max |error| " + CheckNumberText(s.max_abs) + ", mean |error| " +
                          CheckNumberText(s.mean_abs) + ", largest " + std::to_string(s.max_ulps) +
                          " ulps; " + std::to_string(s.over_tolerance) + " of " +
                          std::to_string(cells) + " cells beyond float32 rounding",
                      kNoColor});
  f.legend.push_back({"worst cell: " + axes.row_index + " = " + std::to_string(worst_p) + ", " +
                          axes.column_index + " = " + std::to_string(s.worst_col) + ": table " +
                          CheckFloatText(s.worst_table) + ", reference " +
                          CheckFloatText(s.worst_reference) +
                          ", reference = " + e.DescribeCell(worst_p, s.worst_col),
                      kNoColor});
  if (window_max < s.max_abs) {
    f.legend.push_back(
        {"largest |error| in the window shown: " + CheckNumberText(window_max), kNoColor});
  }
  if (cells <= kIdentifyCells) {
    CheckConstraints none;
    none.bits = d.tol.bits;
    Result<CheckReport> id = CheckTable(d.table, none, c.params.cap);
    if (id.ok() && !id.value().ranked.empty()) {
      const CheckCandidate& best = id.value().ranked.front();
      std::string text = id.value().verdict == CheckVerdict::kNoMatch
                             ? "identified: nothing matches; nearest " + best.description +
                                   " (max |error| " + CheckNumberText(best.stats.max_abs) + ")"
                             : "identified: " + best.description +
                                   (best.preset.empty() ? "" : " (" + best.preset + ")") +
                                   (id.value().verdict == CheckVerdict::kFloat32
                                        ? ", computed in float32"
                                        : ", max |error| " + CheckNumberText(best.stats.max_abs));
      f.legend.push_back({text, kNoColor});
      for (const std::string& note : id.value().notes) f.legend.push_back({note, kNoColor});
    }
  }
  f.legend.push_back({"texel: the largest |error| of all the cells it covers", kNoColor});
  const std::vector<PixelSize> px = PanelPixels(c, f);
  const ErrorRaster r = ComputeErrorRaster(d, w, e.first_position(), std::min(px[0].width, 4096),
                                           std::min(px[0].height, 4096));
  if (r.width > 0 && r.height > 0) {
    FigureImage im;
    im.width = r.width;
    im.height = r.height;
    im.rgba.resize(static_cast<size_t>(r.width) * static_cast<size_t>(r.height) * 4);
    MapToRgba(ColormapId::kViridis, r.values.data(), static_cast<int64_t>(r.values.size()), 0.0f,
              static_cast<float>(hi), im.rgba.data());
    const auto first = static_cast<double>(e.first_position());
    im.x0 = static_cast<double>(r.col_edges.front());
    im.x1 = static_cast<double>(r.col_edges.back());
    im.y0 = first + static_cast<double>(r.row_edges.front());
    im.y1 = first + static_cast<double>(r.row_edges.back());
    f.panels[0].image = std::move(im);
  }
  return f;
}

Status CheckCheckTable(const ViewContext& c) {
  Result<CheckData> d = LoadCheckData(c);
  if (!d.ok()) return d.error();
  return {};
}

Status WriteCheckView(std::ostream& out, TableFormat format, const ViewContext& c,
                      const Progress& progress) {
  Result<CheckData> loaded = LoadCheckData(c);
  if (!loaded.ok()) return loaded.error();
  const CheckData& d = loaded.value();
  const int64_t rows = d.table.rows, cols = d.table.cols;
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {rows, cols};
    out << NpyHeader(shape);
  } else {
    // row: the table's row (0-based); max_abs, mean_abs: of |table - reference| over its
    // columns; max_ulps: the largest distance in float32 ulps.
    out << "row,max_abs,mean_abs,max_ulps\n";
  }
  std::vector<float> err(static_cast<size_t>(cols));
  std::string text;
  for (int64_t r = 0; r < rows && out; ++r) {
    const float* t = d.table.row(r);
    const float* ref = d.ref.row(r);
    if (format == TableFormat::kNpy) {
      for (int64_t j = 0; j < cols; ++j) err[static_cast<size_t>(j)] = t[j] - ref[j];
      WriteFloatsLE(out, err.data(), cols);
    } else {
      double mx = 0, sum = 0;
      int64_t ulps = 0;
      for (int64_t j = 0; j < cols; ++j) {
        const double a = std::abs(static_cast<double>(t[j]) - static_cast<double>(ref[j]));
        mx = std::max(mx, a);
        sum += a;
        ulps = std::max(ulps, UlpDistance(t[j], ref[j]));
      }
      text.clear();
      text += std::to_string(r);
      text += ',';
      text += FormatFloat(static_cast<float>(mx));
      text += ',';
      text += FormatFloat(static_cast<float>(sum / static_cast<double>(cols)));
      text += ',';
      text += std::to_string(ulps);
      text += '\n';
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
    }
    if (progress && r % 1024 == 1023 &&
        !progress(static_cast<double>(r + 1) / static_cast<double>(rows))) {
      return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// Until its own estimate: an image at screen resolution and a few curves.
uint64_t CheckEstimate(const EstimateContext& c) {
  const uint64_t w = EstimatedScreenTexels(c.width_px), h = EstimatedScreenTexels(c.height_px);
  return 3 * kFigureBytesPerTexel * w * h +
         kFigureBytesPerCurveSample * EstimatedCurveSamples(c.width_px) * 8;
}

}  // namespace pe
