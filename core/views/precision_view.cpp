// The precision view: what storing the table in bfloat16 or float16 (--dtype) does to it, and
// what happens to positions a model makes in that format (torch.arange(L, dtype=...)).
//   figure: the error bf16(v) - v (or fp16) of the visible window at screen resolution, each
//           texel the signed error of largest magnitude among its cells: all of them when it
//           holds at most kPrecisionTexelSamples (8) rows and columns, else the 8 consecutive
//           rows at its centre and 8 columns spread evenly in it; the first position the format
//           cannot hold is marked.
//   NPY:    (L, cols) float32, rounded - float32 value per cell (inf where float16 overflows).
//   CSV:    one row per position, header
//           position,max_abs_error,mean_abs_error,equal_columns,row_equals_previous,
//           position_in_dtype,position_exact,position_repeats,max_abs_error_rounded_position
//           (meanings at kCsvHeader below).
// Applies to every scheme: the bias schemes' table is one head's (L, L) bias, which models
// add in the attention dtype (BLOOM's ALiBi is built in float32 and cast to it).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "analysis/precision.h"
#include "base/loop_exceptions.h"
#include "base/parallel_chunks.h"
#include "encoding/wave.h"
#include "io/file_writers.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/heatmap_raster.h"
#include "views/value_image.h"
#include "views/view_builders.h"

namespace pe {
namespace {

// A texel holding more cells than this a side is judged by this many rows and columns spread
// evenly in it.
constexpr int64_t kPrecisionTexelSamples = 8;
// Texel rows whose sampled rows lie within this many bytes of table rows are filled together.
constexpr int64_t kPrecisionBlockBytes = int64_t{4} << 20;
// Cells that overflow (float16 from 65520) are drawn in this colour.
constexpr Rgba8 kOverflowBlack{0, 0, 0, 255};

constexpr const char* kCsvHeader =
    // position: the absolute position p of the row
    // max_abs_error, mean_abs_error: of |rounded - v| over the row's columns
    // equal_columns: columns whose rounded value equals the previous row's rounded value
    // row_equals_previous: 1 when all of them do (the stored rows cannot be told apart)
    // position_in_dtype: p as the format holds it (through float32, as PyTorch casts)
    // position_exact: 1 when that is p
    // position_repeats: 1 when it equals that of p - 1 (rows computed from it repeat)
    // max_abs_error_rounded_position: max over columns of |T(position_in_dtype) - T(p)| in
    //   float32, for the tables computed from the position (sinusoidal, rope, xpos); empty for
    //   tables looked up by integer position (learned, the biases)
    "position,max_abs_error,mean_abs_error,equal_columns,row_equals_previous,position_in_dtype,"
    "position_exact,position_repeats,max_abs_error_rounded_position\n";

std::string Num(double v, int digits = 3) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// Tables computed from the position (waves of p w): a position made in the format changes
// them. Learned tables and the biases take integer positions.
bool ComputedFromPosition(const Encoding& e) {
  return !e.waves().empty();
}

// The window the figure shows: the selection's heatmap window inside the table, or the whole
// table when it is empty.
ViewRange PrecisionWindow(const ViewContext& c) {
  const Encoding& e = *c.encoding;
  const auto first = static_cast<double>(e.first_position());
  const double end = first + static_cast<double>(e.rows());
  const auto cols = static_cast<double>(e.cols());
  ViewRange w = c.sel.windows[ViewKind::kHeatmap];
  w.x0 = std::clamp(w.x0, 0.0, cols);
  w.x1 = std::clamp(w.x1, 0.0, cols);
  w.y0 = std::clamp(w.y0, first, end);
  w.y1 = std::clamp(w.y1, first, end);
  if (!(w.x1 > w.x0) || !(w.y1 > w.y0)) return {0, cols, first, end};
  return w;
}

// Up to kPrecisionTexelSamples consecutive positions of [a, b) (all of them when they fit): a
// texel's sampled rows. A wave table's fill starts from the exact anchor at or before its first
// row (a multiple of kPeAnchorPositions) and steps from there, a row of the table's width per
// step, so the run starts at an anchor inside the texel, the one nearest its centre, where there
// is one; else at the centre.
std::pair<int64_t, int64_t> SampleRun(int64_t a, int64_t b) {
  const int64_t n = std::min(b - a, kPrecisionTexelSamples);
  const int64_t centre = a + (b - a - n) / 2;
  const int64_t last = b - n;  // the last start that fits
  const int64_t mod = ((centre % kPeAnchorPositions) + kPeAnchorPositions) % kPeAnchorPositions;
  const int64_t below = centre - mod, above = below + kPeAnchorPositions;
  if (below >= a && (above > last || centre - below <= above - centre)) return {below, n};
  if (above <= last) return {above, n};
  return {centre, n};
}

// Up to kPrecisionTexelSamples indices spread evenly in [a, b) (all of them when they fit).
void SampleSlice(int64_t a, int64_t b, std::vector<int64_t>& out) {
  const int64_t n = b - a;
  if (n <= kPrecisionTexelSamples) {
    for (int64_t k = a; k < b; ++k) out.push_back(k);
    return;
  }
  for (int64_t k = 0; k < kPrecisionTexelSamples; ++k) {
    out.push_back(a + static_cast<int64_t>((static_cast<double>(k) + 0.5) * static_cast<double>(n) /
                                           static_cast<double>(kPrecisionTexelSamples)));
  }
}

struct PrecisionRaster {
  int width = 0, height = 0;
  std::vector<float> values;  // (height, width) signed error of largest |error|
  std::vector<int64_t> col_edges, row_edges;
  bool sampled = false;  // some texel held more cells than it was judged by
  double max_abs = 0;    // largest finite |error|, and where
  int64_t max_position = 0, max_col = 0;
  bool overflow = false;
};

PrecisionRaster ComputePrecisionRaster(const Encoding& e, LowPrecision dtype, const ViewRange& w,
                                       int width_px, int height_px) {
  PrecisionRaster r;
  const int64_t first = e.first_position(), end = first + e.rows(), cols = e.cols();
  const auto c_lo = static_cast<int64_t>(std::clamp(std::floor(w.x0), 0.0, double(cols)));
  const auto c_hi = static_cast<int64_t>(std::clamp(std::ceil(w.x1), 0.0, double(cols)));
  const auto r_lo = static_cast<int64_t>(std::clamp(std::floor(w.y0), double(first), double(end)));
  const auto r_hi = static_cast<int64_t>(std::clamp(std::ceil(w.y1), double(first), double(end)));
  r.col_edges = RasterEdges(c_lo, c_hi, std::max(1, width_px));
  r.row_edges = RasterEdges(r_lo, r_hi, std::max(1, height_px));
  if (r.col_edges.size() < 2 || r.row_edges.size() < 2) return r;
  r.width = static_cast<int>(r.col_edges.size() - 1);
  r.height = static_cast<int>(r.row_edges.size() - 1);
  // The sampled columns, with the texel column each belongs to.
  std::vector<int64_t> sample_cols, sample_texel;
  for (int x = 0; x < r.width; ++x) {
    SampleSlice(r.col_edges[x], r.col_edges[x + 1], sample_cols);
    sample_texel.resize(sample_cols.size(), x);
    r.sampled = r.sampled || r.col_edges[x + 1] - r.col_edges[x] > kPrecisionTexelSamples;
  }
  for (int y = 0; y < r.height; ++y) {
    r.sampled = r.sampled || r.row_edges[y + 1] - r.row_edges[y] > kPrecisionTexelSamples;
  }
  // The sampled rows over every visible column, one FillBlock for a group of texel rows whose
  // runs lie within kPrecisionBlockBytes of rows (texel rows of a few positions share a block;
  // the fast fill makes a row of 65536 in tens of microseconds, where one call per sampled value
  // cost a row's set-up each: 7 s at d 65536). A window too wide for a block of
  // kPrecisionTexelSamples such rows (the bias tables, whose columns are the keys: up to 2^31)
  // fills only the sampled columns instead, a run of adjacent ones per FillBlock, so the buffer
  // holds at most 8 x 8 cells per texel column whatever the table's width.
  const int64_t span = c_hi - c_lo;
  const bool sparse_columns =
      span > kPrecisionBlockBytes / (kPrecisionTexelSamples * int64_t{sizeof(float)});
  // Runs of adjacent sampled columns: [run_start[k], run_start[k + 1]) index sample_cols.
  std::vector<size_t> run_start;
  for (size_t k = 0; k < sample_cols.size(); ++k) {
    if (k == 0 || sample_cols[k] != sample_cols[k - 1] + 1) run_start.push_back(k);
  }
  run_start.push_back(sample_cols.size());
  const int64_t buf_cols = sparse_columns ? static_cast<int64_t>(sample_cols.size()) : span;
  const int64_t block_rows =
      std::max(kPrecisionTexelSamples, kPrecisionBlockBytes / (buf_cols * int64_t{sizeof(float)}));
  std::vector<std::pair<int64_t, int64_t>> runs(static_cast<size_t>(r.height));
  std::vector<int> group_start{0};  // texel rows [group_start[g], group_start[g + 1])
  for (int y = 0; y < r.height; ++y) {
    runs[static_cast<size_t>(y)] = SampleRun(r.row_edges[y], r.row_edges[y + 1]);
    const auto [p0, n] = runs[static_cast<size_t>(y)];
    if (y > 0 && p0 + n - runs[static_cast<size_t>(group_start.back())].first > block_rows) {
      group_start.push_back(y);
    }
  }
  group_start.push_back(r.height);
  const auto groups = static_cast<int64_t>(group_start.size()) - 1;
  r.values.assign(static_cast<size_t>(r.width) * static_cast<size_t>(r.height), 0.0f);
  std::vector<double> row_max(static_cast<size_t>(r.height), 0.0);
  std::vector<int64_t> row_max_pos(static_cast<size_t>(r.height), 0),
      row_max_col(static_cast<size_t>(r.height), 0);
  std::vector<char> row_overflow(static_cast<size_t>(r.height), 0);
  LoopExceptions loop_errors;
#pragma omp parallel for schedule( \
    dynamic,                       \
    1) if (groups > 1 &&           \
           static_cast <int64_t>(r.height) * static_cast <int64_t>(sample_cols.size()) >= 4096)
  for (int64_t g = 0; g < groups; ++g) {
    loop_errors.Run([&] {
      const int y0 = group_start[static_cast<size_t>(g)],
                y1 = group_start[static_cast<size_t>(g) + 1];
      const int64_t b0 = runs[static_cast<size_t>(y0)].first;
      const int64_t b1 =
          runs[static_cast<size_t>(y1) - 1].first + runs[static_cast<size_t>(y1) - 1].second;
      std::vector<float> buf;
      if (!sparse_columns) {
        buf.resize(static_cast<size_t>((b1 - b0) * span));
        e.FillBlock(b0 - first, b1 - b0, c_lo, span, buf.data());
      }
      for (int y = y0; y < y1; ++y) {
        const auto [p0, n_rows] = runs[static_cast<size_t>(y)];
        float* texels = r.values.data() + static_cast<size_t>(y) * r.width;
        if (sparse_columns) {
          // This texel row's sampled rows over the sampled columns, (n_rows, sample_cols) with
          // each run's columns side by side: FillBlock writes a run as (n_rows, run) row-major.
          buf.assign(static_cast<size_t>(n_rows) * sample_cols.size(), 0.0f);
          std::vector<float> part;
          for (size_t run = 0; run + 1 < run_start.size(); ++run) {
            const size_t k0 = run_start[run], k1 = run_start[run + 1];
            const auto n_cols = static_cast<int64_t>(k1 - k0);
            part.resize(static_cast<size_t>(n_rows * n_cols));
            e.FillBlock(p0 - first, n_rows, sample_cols[k0], n_cols, part.data());
            for (int64_t i = 0; i < n_rows; ++i) {
              std::copy_n(part.data() + i * n_cols, n_cols,
                          buf.data() + static_cast<size_t>(i) * sample_cols.size() + k0);
            }
          }
        }
        for (int64_t i = 0; i < n_rows; ++i) {
          const int64_t p = p0 + i;
          const float* row = sparse_columns
                                 ? buf.data() + static_cast<size_t>(i) * sample_cols.size()
                                 : buf.data() + (p - b0) * span;
          for (size_t k = 0; k < sample_cols.size(); ++k) {
            const int64_t j = sample_cols[k];
            const float v = sparse_columns ? row[k] : row[j - c_lo];
            const float err = RoundTo(dtype, v) - v;
            float& t = texels[sample_texel[k]];
            if (std::abs(err) > std::abs(t)) t = err;
            if (std::isinf(err)) {
              row_overflow[static_cast<size_t>(y)] = 1;
            } else if (std::abs(err) > row_max[static_cast<size_t>(y)]) {
              row_max[static_cast<size_t>(y)] = std::abs(err);
              row_max_pos[static_cast<size_t>(y)] = p;
              row_max_col[static_cast<size_t>(y)] = j;
            }
          }
        }
      }
    });
  }
  loop_errors.Rethrow();
  for (size_t y = 0; y < row_max.size(); ++y) {
    r.overflow = r.overflow || row_overflow[y] != 0;
    if (row_max[y] > r.max_abs) {
      r.max_abs = row_max[y];
      r.max_position = row_max_pos[y];
      r.max_col = row_max_col[y];
    }
  }
  return r;
}

// "2^-9" style text of a power of two.
std::string PowerOfTwo(int e) {
  return "2^" + std::to_string(e);
}

}  // namespace

Result<Figure> PrecisionFigure(const ViewContext& c) {
  const Encoding& e = *c.encoding;
  const ModelParams& m = c.params;
  const LowPrecision dtype = m.dtype;
  const std::string fmt(DtypeName(dtype)), fmt_long(DtypeLongName(dtype));
  const TableAxes axes = AxesOf(e);
  Figure f;
  f.title =
      e.TableName() + " in " + fmt_long + ": " + fmt + "(v) \xe2\x88\x92 v (" + e.Summary() + ")";
  f.x = {axes.column_axis, true, false};
  f.y = {axes.row_axis, true, true};
  f.view = PrecisionWindow(c);
  const PixelSize px = PlotPixels(c, f);
  const PrecisionRaster r =
      ComputePrecisionRaster(e, dtype, f.view, std::min(px.width, 4096), std::min(px.height, 4096));
  const double hi = r.max_abs > 0 ? r.max_abs : 1.0;
  f.colorbar = FigureColorBar{ColormapId::kRdBu, -hi, hi, "error"};
  if (r.width > 0 && r.height > 0) {
    f.image = ValueImage(
        r.values, r.width, r.height,
        {ColormapId::kRdBu, -hi, hi, FlatValues::kInfinite, kOverflowBlack,
         static_cast<double>(r.col_edges.front()), static_cast<double>(r.col_edges.back()),
         static_cast<double>(r.row_edges.front()), static_cast<double>(r.row_edges.back())});
  }
  const int bits = SignificandBits(dtype);
  f.legend.push_back({"error = " + fmt + "(v) \xe2\x88\x92 v, v = the float32 value, " + fmt +
                          "(v) = the nearest " + fmt_long + " (ties to even)",
                      kNoColor});
  std::string bound = fmt_long + " keeps " + std::to_string(bits) +
                      " significant bits, |error| \xe2\x89\xa4 " + PowerOfTwo(-bits) +
                      "\xc2\xb7|v|, \xe2\x89\xa4 " + PowerOfTwo(-bits - 1) + " for |v| < 1";
  if (dtype == LowPrecision::kFp16) bound += ", steps of 2^-24 below 2^-14";
  f.legend.push_back({bound, kNoColor});
  if (r.max_abs > 0) {
    f.legend.push_back({"largest |error| shown " + Num(r.max_abs) + ", at " + axes.row_index +
                            " = " + std::to_string(r.max_position) + ", " + axes.column_index +
                            " = " + std::to_string(r.max_col),
                        kNoColor});
  } else if (!r.overflow) {
    f.legend.push_back({"every value shown is exact in " + fmt_long, kNoColor});
  }
  if (r.overflow) {
    f.legend.push_back(
        {"black: \xc2\xb1inf, |v| \xe2\x89\xa5 65520 overflows float16", kOverflowBlack});
  }
  // Positions made in the format: the first that it cannot hold, and the first that repeats
  // the one before it (usually the same), over the table's positions.
  const int64_t first = e.first_position(), last = e.last_position();
  const std::optional<int64_t> inexact = FirstInexactPosition(dtype, first, last);
  const std::optional<int64_t> repeat = FirstRepeatedPosition(dtype, first, last);
  const Rgba8 mark = SelectionHighlightColor(ColormapId::kRdBu);
  auto mark_row = [&](int64_t p, Rgba8 color) {
    if (static_cast<double>(p) < f.view.y0 || static_cast<double>(p) > f.view.y1) return;
    const auto y = static_cast<double>(p);
    f.overlays.push_back({f.view.x0, y, f.view.x1, y, color, false, 2.0});
  };
  const std::string arange = "torch.arange(L, dtype=" + fmt_long + ")";
  auto repeat_text = [&](int64_t p) {
    return std::to_string(p - 1) + " and " + std::to_string(p) + " give the same row";
  };
  if (inexact) {
    std::string text = "line: " + axes.row_index + " = " + std::to_string(*inexact) +
                       ", the first position " + fmt + " cannot hold (" + std::to_string(*inexact) +
                       " \xe2\x86\x92 " + Num(PositionInFormat(dtype, *inexact), 10) + ")";
    if (!ComputedFromPosition(e)) {
      text += ", this table takes integer positions, so that does not reach it";
    } else if (repeat == inexact) {
      text += ", positions made in " + fmt + " (" + arange + ") repeat from there, " +
              repeat_text(*repeat);
    }
    f.legend.push_back({text, mark});
    mark_row(*inexact, mark);
  } else {
    f.legend.push_back({"every position of the table is exact in " + fmt_long +
                            ", integers up to " + std::to_string(LargestExactInteger(dtype)),
                        kNoColor});
  }
  if (repeat && repeat != inexact && ComputedFromPosition(e)) {
    f.legend.push_back({"black line: positions made in " + fmt + " (" + arange +
                            ") repeat from p = " + std::to_string(*repeat) + ", " +
                            repeat_text(*repeat),
                        kOverflowBlack});
    mark_row(*repeat, kOverflowBlack);
  }
  // What such a rounded position does to a table computed from it, at the last visible row.
  if (ComputedFromPosition(e) && !r.row_edges.empty()) {
    const int64_t p = r.row_edges.back() - 1;
    const float held = PositionInFormat(dtype, p);
    double fastest = 0.0;
    for (const WaveColumn& w : e.waves()) fastest = std::max(fastest, std::abs(w.frequency));
    if (std::isinf(held)) {
      f.legend.push_back({"computed from p in " + fmt + ", p = " + std::to_string(p) +
                              " overflows to inf (as every p \xe2\x89\xa5 65520), so do its "
                              "angles",
                          kNoColor});
    } else if (static_cast<double>(held) != static_cast<double>(p)) {
      const double off = std::abs(static_cast<double>(held) - static_cast<double>(p)) * fastest;
      f.legend.push_back({"computed from p in " + fmt + ", row " + std::to_string(p) + " is row " +
                              Num(held, 10) + ", its fastest angle (\xcf\x89 = " + Num(fastest, 4) +
                              ") off by " + Num(off, 4) + " rad",
                          kNoColor});
    }
  }
  const std::string k = std::to_string(kPrecisionTexelSamples);
  f.legend.push_back({r.sampled
                          ? "texel: largest |error| of " + k + "\xc3\x97" + k +
                                " of its cells: " + k + " consecutive rows (from a multiple of " +
                                std::to_string(kPeAnchorPositions) +
                                " inside it, else at its centre), " + k + " columns spread evenly"
                          : std::string("texel: its cell of largest |error|"),
                      kNoColor});
  return f;
}

namespace {

Status CheckPrecisionSize(const ViewContext& c) {
  const Encoding& e = *c.encoding;
  const std::string what = "the precision view's error table (L = " + std::to_string(e.rows()) +
                           " positions, d = " + std::to_string(e.cols()) + " columns)";
  return CheckFloatCount(what, static_cast<uint64_t>(e.rows()), static_cast<uint64_t>(e.cols()),
                         c.params.cap);
}

}  // namespace

Status CheckPrecisionTable(const ViewContext& c) {
  return CheckPrecisionSize(c);
}

Status WritePrecisionView(std::ostream& out, TableFormat format, const ViewContext& c,
                          const Progress& progress) {
  if (Status s = CheckPrecisionSize(c); !s.ok()) return s;
  const Encoding& e = *c.encoding;
  const LowPrecision dtype = c.params.dtype;
  const int64_t L = e.rows(), cols = e.cols(), first = e.first_position();
  const bool from_position = ComputedFromPosition(e);
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {L, cols};
    out << NpyHeader(shape);
  } else {
    out << kCsvHeader;
  }
  const int64_t block_rows = std::min(TableBlockRows(cols), L);
  std::vector<float> block(static_cast<size_t>(block_rows * cols));
  std::vector<float> rounded(static_cast<size_t>(block_rows * cols));
  // The rounded row before the block (CSV: equal_columns), and the per-row numbers.
  std::vector<float> previous(static_cast<size_t>(cols));
  std::vector<double> max_err(static_cast<size_t>(block_rows)),
      mean_err(static_cast<size_t>(block_rows)), shift_err(static_cast<size_t>(block_rows));
  std::vector<int64_t> equal(static_cast<size_t>(block_rows));
  for (int64_t r0 = 0; r0 < L && out; r0 += block_rows) {
    const int64_t rows = std::min(block_rows, L - r0);
    e.FillBlock(r0, rows, 0, cols, block.data());
    const int64_t n = rows * cols;
#pragma omp parallel for schedule(static) if (n >= (int64_t{1} << 16))
    for (int64_t k = 0; k < n; ++k) {
      rounded[static_cast<size_t>(k)] = RoundTo(dtype, block[static_cast<size_t>(k)]);
    }
    if (format == TableFormat::kNpy) {
      for (int64_t k = 0; k < n; ++k) {
        block[static_cast<size_t>(k)] =
            rounded[static_cast<size_t>(k)] - block[static_cast<size_t>(k)];
      }
      WriteFloatsLE(out, block.data(), n);
    } else {
#pragma omp parallel for schedule(dynamic, 16) if (n >= (int64_t{1} << 16))
      for (int64_t i = 0; i < rows; ++i) {
        const float* v = block.data() + i * cols;
        const float* q = rounded.data() + i * cols;
        const float* before = i > 0 ? rounded.data() + (i - 1) * cols : previous.data();
        double mx = 0, sum = 0;
        int64_t same = 0;
        for (int64_t j = 0; j < cols; ++j) {
          const double a = std::abs(static_cast<double>(q[j] - v[j]));
          mx = std::max(mx, a);
          sum += a;
          same += q[j] == before[j] ? 1 : 0;
        }
        const auto s = static_cast<size_t>(i);
        max_err[s] = mx;
        mean_err[s] = sum / static_cast<double>(cols);
        equal[s] = r0 + i == 0 ? 0 : same;
        // The table computed from the position the format holds, against the exact one.
        const int64_t p = first + r0 + i;
        const float held = PositionInFormat(dtype, p);
        double shift = 0;
        if (from_position && static_cast<double>(held) != static_cast<double>(p)) {
          for (int64_t j = 0; j < cols; ++j) {
            const auto at_held = static_cast<float>(e.ValueAt(j, static_cast<double>(held)));
            const auto at_p = static_cast<float>(e.ValueAt(j, static_cast<double>(p)));
            const double d = std::abs(static_cast<double>(at_held - at_p));
            shift = std::isnan(d) || std::isnan(shift) ? NAN : std::max(shift, d);
          }
        }
        shift_err[s] = shift;
      }
      std::string text;
      for (int64_t i = 0; i < rows; ++i) {
        const auto s = static_cast<size_t>(i);
        const int64_t p = first + r0 + i;
        const float held = PositionInFormat(dtype, p);
        const bool repeats = r0 + i > 0 && PositionInFormat(dtype, p - 1) == held;
        text += std::to_string(p);
        text += ',';
        text += FormatFloat(static_cast<float>(max_err[s]));
        text += ',';
        text += FormatFloat(static_cast<float>(mean_err[s]));
        text += ',';
        text += std::to_string(equal[s]);
        text += equal[s] == cols ? ",1," : ",0,";
        text += FormatFloat(held);
        text += static_cast<double>(held) == static_cast<double>(p) ? ",1," : ",0,";
        text += repeats ? "1," : "0,";
        if (from_position) text += FormatFloat(static_cast<float>(shift_err[s]));
        text += '\n';
      }
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      std::copy(rounded.begin() + (rows - 1) * cols, rounded.begin() + rows * cols,
                previous.begin());
    }
    if (progress && !progress(static_cast<double>(r0 + rows) / static_cast<double>(L))) {
      return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// As PrecisionFigure: an image of the visible window (at most 4096 texels a side, never more
// than its cells) with a float error per texel, three numbers per texel row, up to 8 sampled
// columns per texel column (index and texel), and per thread a fill buffer of at most 4 times
// the sampled columns.
uint64_t PrecisionEstimate(const EstimateContext& c) {
  const ViewRange& window = c.sel.windows[ViewKind::kHeatmap];
  const double cols = std::ceil(window.x1 - window.x0);
  const double rows = std::ceil(window.y1 - window.y0);
  const uint64_t w = EstimatedWindowTexels(c.width_px, cols);
  const uint64_t h = EstimatedWindowTexels(c.height_px, rows);
  uint64_t bytes = (kFigureBytesPerTexel + sizeof(float)) * w * h + 3 * sizeof(double) * h +
                   8 * 2 * sizeof(int64_t) * w + 2 * 4 * 8 * sizeof(float) * w;
  // Per thread, a block of the sampled rows over the visible columns: about 4 MiB (at least 8
  // rows), never more than the visible cells; windows wider than 2^17 columns (the biases'
  // keys) fill only the sampled columns, 8 rows of at most 8 per texel column.
  const auto vis_cols = static_cast<uint64_t>(std::max(1.0, cols));
  const auto vis_rows = static_cast<uint64_t>(std::max(1.0, rows));
  const uint64_t block = vis_cols > (uint64_t{1} << 17)
                             ? 2 * 8 * 8 * sizeof(float) * w
                             : std::min((uint64_t{4} << 20) + 8 * sizeof(float) * vis_cols,
                                        sizeof(float) * vis_rows * vis_cols);
  bytes += static_cast<uint64_t>(FillThreads()) * block;
  return bytes;
}

}  // namespace pe
