// The heatmap raster: exact cells when zoomed in, and the closed-form mean when many cells
// share a texel, checked against naive sums in long double.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "base/simd_path.h"
#include "encoding/positional_encoding.h"
#include "encoding/rope_encoding.h"
#include "views/heatmap_raster.h"

namespace pe {
namespace {

// The double arithmetic of a texel mean (closed forms from exact-product angles, a recurrence of
// at most kTexelAnchorRows steps, a sum over a texel's columns) is good to about 1e-14.
constexpr double kTexelMeanTolerance = 1e-13;

long double NaiveMean(const WaveColumn& c, int64_t first, int64_t n) {
  long double acc = 0;
  for (int64_t k = 0; k < n; ++k) acc += WaveValueAt(c, static_cast<double>(first + k));
  return acc / n;
}

// The reference for texel means, written independently of wave.cpp: e^{i m w} in long double with
// m w split into two exact products (w = w_hi + w_lo, w_hi with 31 significant bits, so m w_hi
// fits the 64-bit mantissa for |m| < 2^32), then sin(A + B) = sin A cos B + cos A sin B.
struct LongComplex {
  long double re, im;
};
LongComplex ExactExp(int64_t m, double w) {
  if (w == 0.0) return {1.0L, 0.0L};
  int e = 0;
  std::frexp(w, &e);
  const double scale = std::ldexp(1.0, 31 - e);
  const double w_hi = std::trunc(w * scale) / scale, w_lo = w - w_hi;
  const long double a = static_cast<long double>(m) * w_hi, b = static_cast<long double>(m) * w_lo;
  const long double sa = sinl(a), ca = cosl(a), sb = sinl(b), cb = cosl(b);
  return {ca * cb - sa * sb, sa * cb + ca * sb};
}

// Mean of a wave column over positions [a, a + n): the Dirichlet kernel (sum of a geometric
// series) in long double, amplitude * (sin|cos)((2a + n - 1) w / 2) sin(n w / 2) / (n sin(w / 2)).
long double ReferenceSpanMean(const WaveColumn& c, int64_t a, int64_t n) {
  if (c.wave == Wave::kZero) return 0.0L;
  const long double w = c.frequency;
  if (c.wave == Wave::kAngle) return (static_cast<long double>(a) + (n - 1) / 2.0L) * w;
  const LongComplex mid = ExactExp(2 * a + n - 1, 0.5 * c.frequency);
  const long double factor =
      n == 1 || c.frequency == 0.0 ? 1.0L : ExactExp(n, 0.5 * c.frequency).im / (n * sinl(w / 2));
  return c.amplitude * (c.wave == Wave::kSin ? mid.im : mid.re) * factor;
}

long double ReferenceTexel(std::span<const WaveColumn> cols, int64_t a, int64_t n, int64_t j0,
                           int64_t j1) {
  long double acc = 0;
  for (int64_t j = j0; j < j1; ++j) acc += ReferenceSpanMean(cols[static_cast<size_t>(j)], a, n);
  return acc / (j1 - j0);
}

// A float32 result of a value computed to ~1e-14 and rounded once: within half an ulp of the
// reference, plus the double arithmetic's own error.
void ExpectRoundedFrom(float got, long double want, const char* what, int y, int x) {
  const float f = static_cast<float>(want);
  const double half_ulp = 0.5 * (std::nextafter(std::fabs(f), INFINITY) - std::fabs(f));
  ASSERT_LE(std::fabs(static_cast<long double>(got) - want), half_ulp + kTexelMeanTolerance)
      << what << " texel " << y << "," << x << ": " << got << " vs " << static_cast<double>(want);
}

TEST(HeatmapRaster, ExactProductAnglesMatchLongDouble) {
  EncodingParams p;
  p.d_model = 512;
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const WaveColumn c = DescribeColumn(p, static_cast<int64_t>(rng() % 512));
    const auto m = static_cast<int64_t>(rng() % (int64_t{1} << 32)) - (int64_t{1} << 31);
    const UnitComplex z = ExpOfMultiple(static_cast<double>(m), c.frequency);
    const LongComplex want = ExactExp(m, c.frequency);
    ASSERT_NEAR(z.re, static_cast<double>(want.re), 1e-15) << m << " x " << c.frequency;
    ASSERT_NEAR(z.im, static_cast<double>(want.im), 1e-15) << m << " x " << c.frequency;
  }
}

// The fast texel means (angle-addition recurrence over texel rows, re-anchored every
// kTexelAnchorRows rows) against the long double closed form, at the end of a table of 1e9
// positions, for the layouts and waves that take the fast path.
TEST(HeatmapRaster, FastTexelMeansMatchLongDoubleAtABillion) {
  std::vector<EncodingParams> tables;
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
    EncodingParams p;
    p.d_model = 8192;
    p.max_len = 1'000'000'000;
    p.sinusoidal().variant = v;
    tables.push_back(p);
  }
  for (RopePart part : {RopePart::kCos, RopePart::kSin, RopePart::kAngle}) {
    EncodingParams p;
    p.d_model = 8192;
    p.max_len = 1'000'000'000;
    RopeParams r;
    r.part = part;
    r.scaling = RopeScaling::kYarn;
    r.factor = 8;
    r.original_max_len = 4096;
    p.scheme = r;
    tables.push_back(p);
  }
  // Whole table (spans of 2e6 rows), a window near the end with uneven spans, and one with
  // spans of one and two rows; texels of uneven column counts.
  const struct {
    int64_t r0, r1;
    int rows_px;
    int64_t c0, c1;
    int cols_px;
  } windows[] = {{0, 1'000'000'000, 500, 0, 8192, 800},
                 {999'000'000, 1'000'000'000, 333, 100, 7000, 97},
                 {999'999'000, 999'999'700, 500, 8000, 8192, 50}};
  // On every SIMD path this processor has (the anchors' angles come from vector sine and
  // cosine on the vector paths, the texel rows from the vector loop).
  for (SimdPath path : kAllSimdPaths) {
    if (!CpuHasSimdPath(path)) continue;
    ASSERT_EQ(ForceSimdPath(path).path, path);
    SCOPED_TRACE(SimdPathName(path));
    for (const EncodingParams& p : tables) {
      const EncodingPtr e = MakeEncoding(p).value();
      for (const auto& win : windows) {
        const std::vector<int64_t> rows = RasterEdges(win.r0, win.r1, win.rows_px);
        // Tables with fewer columns (RoPE's d / 2 angles) take the same window scaled.
        const std::vector<int64_t> cols =
            RasterEdges(win.c0 * e->cols() / 8192, win.c1 * e->cols() / 8192, win.cols_px);
        const size_t width = cols.size() - 1;
        std::vector<float> fast((rows.size() - 1) * width);
        ASSERT_TRUE(MeanOverTexels(e->waves(), rows, cols, fast.data()));
        for (size_t y = 0; y + 1 < rows.size(); y += 29) {
          for (size_t x = 0; x < width; x += 13) {
            const long double want =
                ReferenceTexel(e->waves(), rows[y], rows[y + 1] - rows[y], cols[x], cols[x + 1]);
            ExpectRoundedFrom(fast[y * width + x], want, e->FileTag().c_str(), int(y), int(x));
            float naive = 0;  // the per-texel closed forms, for this texel alone
            MeanOverTexelsNaive(e->waves(), std::span(rows).subspan(y, 2),
                                std::span(cols).subspan(x, 2), &naive);
            ExpectRoundedFrom(naive, want, "naive", int(y), int(x));
          }
        }
      }
    }
  }
  ClearForcedSimdPath();
}

// The raster goes through the fast path for a zoomed-out wave table, and its texels are the
// means of the table's cells: a naive sum in long double of every cell of a few texels.
TEST(HeatmapRaster, FastRasterTexelsAreMeansOfTheCellsAtABillion) {
  EncodingParams p;
  p.d_model = 8192;
  p.max_len = 1'000'000'000;
  const EncodingPtr e = MakeEncoding(p).value();
  const Raster r = ComputeRaster({e, 0, 8192, 999'990'000, 1e9, 800, 10});
  ASSERT_EQ(r.height, 10);
  ASSERT_EQ(r.width, 800);
  for (int y : {0, 9}) {
    for (int x : {0, 1, 400, 799}) {
      long double acc = 0;
      int64_t cells = 0;
      for (int64_t pos = r.row_edges[y]; pos < r.row_edges[y + 1]; ++pos) {
        for (int64_t j = r.col_edges[x]; j < r.col_edges[x + 1]; ++j, ++cells) {
          acc += WaveValueAt(e->waves()[static_cast<size_t>(j)], static_cast<double>(pos));
        }
      }
      // Each cell's angle p w is rounded once (up to 6e-8 rad at 1e9); over 10,000 cells those
      // errors average out far below float32 rounding.
      ASSERT_NEAR(r.values[static_cast<size_t>(y) * 800 + x], acc / cells, 1e-8) << y << "," << x;
    }
  }
}

TEST(HeatmapRaster, FastTexelMeansDeclineManySpanLengths) {
  EncodingParams p;
  p.d_model = 16;
  const EncodingPtr e = MakeEncoding(p).value();
  const std::vector<int64_t> rows = {0, 2, 5, 9, 14, 20}, cols = {0, 16};
  std::vector<float> out(5, -7.0f);
  EXPECT_FALSE(MeanOverTexels(e->waves(), rows, cols, out.data()));
  EXPECT_EQ(out[0], -7.0f);  // nothing written
  const std::vector<int64_t> few = {0, 2, 5, 9, 14};
  EXPECT_TRUE(MeanOverTexels(e->waves(), few, cols, out.data()));
  for (size_t y = 0; y + 1 < few.size(); ++y) {
    ExpectRoundedFrom(out[y], ReferenceTexel(e->waves(), few[y], few[y + 1] - few[y], 0, 16),
                      "lengths", int(y), 0);
  }
}

TEST(HeatmapRaster, ClosedFormMeanMatchesTheNaiveSum) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    EncodingParams p;
    p.d_model = 2 + static_cast<int64_t>(rng() % 200);
    p.sinusoidal().variant = static_cast<PeVariant>(rng() % 3);
    p.max_len = 1;
    const WaveColumn c =
        DescribeColumn(p, static_cast<int64_t>(rng() % static_cast<uint64_t>(p.d_model)));
    const auto first = static_cast<int64_t>(rng() % 100'000'000);
    const auto n = 1 + static_cast<int64_t>(rng() % 3000);
    ASSERT_NEAR(MeanOverPositions(c, first, n), NaiveMean(c, first, n), 1e-9)
        << "dim " << c.dim << " first " << first << " n " << n;
  }
  EncodingParams p;
  const WaveColumn c = DescribeColumn(p, 10);
  EXPECT_EQ(MeanOverPositions(c, 12345, 1), WaveValueAt(c, 12345.0));  // n = 1 is the cell itself
}

TEST(HeatmapRaster, ZoomedInTexelsAreTheCells) {
  EncodingParams p;
  p.d_model = 32;
  p.max_len = 50;
  p.offset = 7;
  RasterRequest req{MakeEncoding(p).value(), 3.4, 20.2, 10.5, 30.0, 400, 300};
  Raster r = ComputeRaster(req);
  ASSERT_TRUE(r.one_cell_per_texel());
  EXPECT_EQ(r.col_edges.front(), 3);
  EXPECT_EQ(r.col_edges.back(), 21);
  EXPECT_EQ(r.row_edges.front(), 10);
  EXPECT_EQ(r.row_edges.back(), 30);
  Matrix table = ComputePeTable(p).value();
  for (int y = 0; y < r.height; ++y) {
    for (int x = 0; x < r.width; ++x) {
      ASSERT_EQ(r.values[static_cast<size_t>(y * r.width + x)], table.at(10 - 7 + y, 3 + x));
    }
  }
}

TEST(HeatmapRaster, ZoomedOutTexelsAreMeansOfTheirCells) {
  EncodingParams p;
  p.d_model = 64;
  p.max_len = 5000;
  RasterRequest req{MakeEncoding(p).value(), 0, 64, 0, 5000, 20, 37};
  Raster r = ComputeRaster(req);
  EXPECT_EQ(r.width, 20);
  EXPECT_EQ(r.height, 37);
  EXPECT_FALSE(r.one_cell_per_texel());
  Matrix table = ComputePeTable(p).value();
  for (int y = 0; y < r.height; y += 5) {
    for (int x = 0; x < r.width; x += 3) {
      long double acc = 0;
      int64_t cells = 0;
      for (int64_t row = r.row_edges[y]; row < r.row_edges[y + 1]; ++row) {
        for (int64_t col = r.col_edges[x]; col < r.col_edges[x + 1]; ++col) {
          acc += table.at(row, col);
          ++cells;
        }
      }
      ASSERT_NEAR(r.values[static_cast<size_t>(y * r.width + x)], acc / cells, 2e-6)
          << y << "," << x;
    }
  }
}

TEST(HeatmapRaster, HugeTablesCostOnlyTheirPixels) {
  EncodingParams p;
  p.d_model = 8192;
  p.max_len = 1'000'000'000;
  RasterRequest req{MakeEncoding(p).value(), 0, 8192, 0, 1e9, 300, 200};
  EXPECT_EQ(EstimateRasterWork(req), int64_t{8192} * 200);
  Raster r = ComputeRaster(req);
  EXPECT_EQ(r.width, 300);
  EXPECT_EQ(r.height, 200);
  for (float v : r.values) {
    ASSERT_GE(v, -1.0f);
    ASSERT_LE(v, 1.0f);
  }
  // A view past the table's end yields only the part that exists.
  RasterRequest past{MakeEncoding(p).value(), 8000, 9000, 999'999'990, 1'000'000'100, 100, 100};
  Raster q = ComputeRaster(past);
  EXPECT_EQ(q.col_edges.back(), 8192);
  EXPECT_EQ(q.row_edges.back(), 1'000'000'000);
}

}  // namespace
}  // namespace pe
