// The heatmap raster: exact cells when zoomed in, and the closed-form mean when many cells
// share a texel, checked against naive sums in long double.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "views/heatmap_raster.h"
#include "encoding/positional_encoding.h"

namespace pe {
namespace {

long double NaiveMean(const WaveColumn& c, int64_t first, int64_t n) {
  long double acc = 0;
  for (int64_t k = 0; k < n; ++k) acc += WaveValueAt(c, static_cast<double>(first + k));
  return acc / n;
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
