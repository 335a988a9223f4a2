// ALiBi and T5: golden slopes and buckets, the bias against BLOOM's closed form and HF's bucket
// formula (both written out here again), softmax's indifference to a row shift, exact row means
// and refused parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "encoding/alibi.h"
#include "encoding/t5_buckets.h"
#include "views/figure_export.h"
#include "views/heatmap_raster.h"
#include "views/view_geometry.h"

namespace pe {
namespace {

EncodingParams Alibi(int64_t heads, int64_t head, AlibiMode mode, int64_t len = 40,
                     int64_t offset = 0) {
  EncodingParams p;
  AlibiParams a;
  a.heads = heads;
  a.head = head;
  a.mode = mode;
  p.scheme = a;
  p.max_len = len;
  p.offset = offset;
  return p;
}

EncodingParams T5(T5Direction dir, int64_t buckets = 32, int64_t max_distance = 128,
                  int64_t len = 40, int64_t offset = 0) {
  EncodingParams p;
  T5Params t;
  t.direction = dir;
  t.buckets = buckets;
  t.max_distance = max_distance;
  t.heads = 4;
  t.head = 2;
  t.seed = 7;
  p.scheme = t;
  p.max_len = len;
  p.offset = offset;
  return p;
}

EncodingPtr Make(const EncodingParams& p) {
  Result<EncodingPtr> e = MakeEncoding(p);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e.value() : nullptr;
}

// ---- ALiBi slopes ----------------------------------------------------------------------------

TEST(AlibiSlopes, GoldenExponents) {
  EXPECT_EQ(AlibiSlopeExponents(8, 8.0), (std::vector<double>{-1, -2, -3, -4, -5, -6, -7, -8}));
  EXPECT_EQ(AlibiSlopeExponents(12, 8.0),
            (std::vector<double>{-1, -2, -3, -4, -5, -6, -7, -8, -0.5, -1.5, -2.5, -3.5}));
  EXPECT_EQ(AlibiSlopeExponents(6, 8.0), (std::vector<double>{-2, -4, -6, -8, -1, -3}));
  EXPECT_EQ(AlibiSlopeExponents(1, 8.0), (std::vector<double>{-8}));
  // max_bias scales both parts (MPT): 12 heads with max_bias 4 halve every exponent.
  EXPECT_EQ(AlibiSlopeExponents(12, 4.0), (std::vector<double>{-0.5, -1, -1.5, -2, -2.5, -3, -3.5,
                                                               -4, -0.25, -0.75, -1.25, -1.75}));
  const std::vector<double> s = AlibiSlopes(8, 8.0);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(s[static_cast<size_t>(k)], std::ldexp(1.0, -(k + 1)));
}

// BLOOM's build_alibi_tensor, written out: base = 2^(-2^-(log2(c) - 3)) in float32, slopes
// base^1..base^c, then extra_base (the same for 2c) to the odd powers 1, 3, ... for the rest.
std::vector<float> BloomSlopes(int64_t n) {
  const double c = std::exp2(std::floor(std::log2(static_cast<double>(n))));
  const auto base = static_cast<float>(std::exp2(-std::exp2(-(std::log2(c) - 3))));
  std::vector<float> out;
  for (int p = 1; p <= static_cast<int>(c); ++p)
    out.push_back(std::pow(base, static_cast<float>(p)));
  if (c != static_cast<double>(n)) {
    const auto extra = static_cast<float>(std::exp2(-std::exp2(-(std::log2(2 * c) - 3))));
    const int64_t remaining =
        std::min<int64_t>(static_cast<int64_t>(c), n - static_cast<int64_t>(c));
    for (int64_t k = 0; k < remaining; ++k) {
      out.push_back(std::pow(extra, static_cast<float>(2 * k + 1)));
    }
  }
  return out;
}

TEST(AlibiSlopes, MatchBloomForPowersOfTwoAndOthers) {
  for (int64_t n : {1, 2, 6, 8, 12, 16, 24, 40, 64, 112}) {
    const std::vector<float> bloom = BloomSlopes(n);
    const std::vector<double> ours = AlibiSlopes(n, 8.0);
    ASSERT_EQ(bloom.size(), ours.size()) << n;
    // BLOOM rounds the base to float32 and raises it to the power p: p float32 roundings of
    // relative error 2^-24 at most, which the tolerance allows.
    const auto c = static_cast<size_t>(std::exp2(std::floor(std::log2(static_cast<double>(n)))));
    for (size_t h = 0; h < ours.size(); ++h) {
      const double power =
          h < c ? static_cast<double>(h + 1) : static_cast<double>(2 * (h - c) + 1);
      EXPECT_NEAR(ours[h], bloom[h], (power + 1) * 0x1p-24 * bloom[h]) << n << " heads, head " << h;
    }
  }
}

// BLOOM adds slope * j (the key position); the bias of a row differs from ours by slope * i,
// the same for every key of the row.
TEST(AlibiBias, EqualsBloomUpToARowConstant) {
  for (int64_t heads : {8, 12}) {
    const std::vector<float> bloom = BloomSlopes(heads);
    for (int64_t h = 0; h < heads; ++h) {
      EncodingPtr e = Make(Alibi(heads, h, AlibiMode::kCausal, 30));
      std::vector<float> t(30 * 30);
      e->FillBlock(0, 30, 0, 30, t.data());
      const double m = bloom[static_cast<size_t>(h)];
      for (int i = 0; i < 30; ++i) {
        for (int j = 0; j <= i; ++j) {
          const double bloom_value = m * j;
          EXPECT_NEAR(t[static_cast<size_t>(i * 30 + j)] + m * i, bloom_value, 1e-5)
              << heads << " heads, head " << h << " (" << i << ", " << j << ")";
        }
        for (int j = i + 1; j < 30; ++j) {
          EXPECT_TRUE(e->Masked(i, j));
          EXPECT_EQ(t[static_cast<size_t>(i * 30 + j)], 0.0f);
        }
      }
    }
  }
}

TEST(AlibiBias, CellsAndDescription) {
  EncodingParams p = Alibi(8, 3, AlibiMode::kCausal, 50);  // slope 2^-4
  EncodingPtr e = Make(p);
  EXPECT_EQ(e->family(), Family::kBias);
  EXPECT_EQ(e->cols(), 50);
  EXPECT_EQ(e->Bias(37, 12), -0.0625 * 25);
  EXPECT_EQ(e->DescribeCell(37, 12), "-0.0625 * (37 - 12) = -1.5625");
  EXPECT_EQ(e->Bias(12, 37), 0.0);
  EXPECT_NE(e->DescribeCell(12, 37).find("masked"), std::string::npos);
  EXPECT_EQ(e->Range(), (ValueRange{-0.0625 * 49, 0.0}));
  p.alibi().mode = AlibiMode::kSymmetric;
  e = Make(p);
  EXPECT_EQ(e->Bias(12, 37), -0.0625 * 25);
  EXPECT_FALSE(e->Masked(12, 37));
  EXPECT_EQ(e->DescribeCell(12, 37), "-0.0625 * |12 - 37| = -1.5625");
}

std::vector<double> Softmax(const std::vector<double>& x) {
  double m = -INFINITY;
  for (double v : x) m = std::max(m, v);
  std::vector<double> y;
  double s = 0;
  for (double v : x) s += std::exp(v - m);
  for (double v : x) y.push_back(std::exp(v - m) / s);
  return y;
}

// A row's softmax over its keys is the softmax of the row shifted by any constant: ALiBi's
// relative -m (i - j) and BLOOM's absolute m j attend the same way.
TEST(AlibiBias, RowSoftmaxIsShiftInvariant) {
  EncodingPtr e = Make(Alibi(12, 9, AlibiMode::kCausal, 64, 100));
  std::mt19937 rng(3);
  std::normal_distribution<double> n01;
  const double m = AlibiSlopes(12, 8.0)[9];
  for (int64_t i : {100, 117, 163}) {
    std::vector<double> row, shifted, bloom;
    for (int64_t j = 100; j <= i; ++j) {  // the unmasked keys
      const double content = n01(rng);
      row.push_back(content + e->Bias(i, j));
      shifted.push_back(content + e->Bias(i, j) + 123.25);
      bloom.push_back(content + m * static_cast<double>(j));
    }
    const std::vector<double> a = Softmax(row), b = Softmax(shifted), c = Softmax(bloom);
    for (size_t k = 0; k < a.size(); ++k) {
      EXPECT_NEAR(a[k], b[k], 1e-12);
      EXPECT_NEAR(a[k], c[k], 1e-12);
    }
  }
}

// ---- T5 buckets ------------------------------------------------------------------------------

TEST(T5Buckets, GoldenBidirectional) {
  const std::pair<int64_t, int64_t> golden[] = {{-200, 15}, {-91, 15}, {-90, 14}, {-64, 14},
                                                {-8, 8},    {-1, 1},   {0, 0},    {1, 17},
                                                {7, 23},    {8, 24},   {12, 25},  {91, 31}};
  for (auto [r, b] : golden) EXPECT_EQ(T5Bucket(r, true, 32, 128), b) << "r = " << r;
  std::set<int64_t> used;
  for (int64_t r = -300; r <= 300; ++r) used.insert(T5Bucket(r, true, 32, 128));
  EXPECT_EQ(used.count(16), 0u);
  EXPECT_EQ(used.size(), 31u);
}

TEST(T5Buckets, GoldenCausal) {
  // relative position = key - query = -distance.
  for (int64_t d = 0; d <= 15; ++d) EXPECT_EQ(T5Bucket(-d, false, 32, 128), d);
  EXPECT_EQ(T5Bucket(-16, false, 32, 128), 16);
  EXPECT_EQ(T5Bucket(-19, false, 32, 128), 17);
  EXPECT_EQ(T5Bucket(-112, false, 32, 128), 30);
  for (int64_t d : {113, 128, 500, 1 << 30}) EXPECT_EQ(T5Bucket(-d, false, 32, 128), 31) << d;
  for (int64_t r : {1, 5, 1000}) EXPECT_EQ(T5Bucket(r, false, 32, 128), 0);  // keys after
}

// HF's _relative_position_bucket, op by op as torch evaluates it on a float32 tensor (CPU):
// .float() / max_exact, torch.log, / math.log(...) (a Python float, used as float32), * (n -
// max_exact) (an int), .to(long) (truncation), then min with n - 1.
int64_t HfBucket(int64_t relative_position, bool bidirectional, int64_t num_buckets,
                 int64_t max_distance) {
  int64_t relative_buckets = 0;
  if (bidirectional) {
    num_buckets /= 2;
    relative_buckets += relative_position > 0 ? num_buckets : 0;
    relative_position = std::abs(relative_position);
  } else {
    relative_position = -std::min<int64_t>(relative_position, 0);
  }
  const int64_t max_exact = num_buckets / 2;
  const bool is_small = relative_position < max_exact;
  float t = static_cast<float>(relative_position);
  t = t / static_cast<float>(max_exact);
  t = std::log(t);
  const double py_log =
      std::log(static_cast<double>(max_distance) / static_cast<double>(max_exact));
  t = t / static_cast<float>(py_log);
  t = t * static_cast<float>(num_buckets - max_exact);
  int64_t large = max_exact + static_cast<int64_t>(t);
  large = std::min(large, num_buckets - 1);
  return relative_buckets + (is_small ? relative_position : large);
}

TEST(T5Buckets, MatchHfOverEveryRelativePosition) {
  struct Case {
    bool bidirectional;
    int64_t buckets, max_distance;
  };
  for (Case c : {Case{true, 32, 128}, Case{false, 32, 128}, Case{true, 64, 256},
                 Case{false, 128, 1000}, Case{true, 4, 3}, Case{false, 2, 2}, Case{true, 32, 9}}) {
    for (int64_t r = -300; r <= 300; ++r) {
      ASSERT_EQ(T5Bucket(r, c.bidirectional, c.buckets, c.max_distance),
                HfBucket(r, c.bidirectional, c.buckets, c.max_distance))
          << "r = " << r << ", " << c.buckets << " buckets, max distance " << c.max_distance
          << (c.bidirectional ? ", bidirectional" : ", causal");
    }
  }
  // The edges of the default: 90 -> 14, 91 -> 15 (log(90/8)/log(16)*8 = 6.98, 91: 7.02); 32 is
  // exactly 8 * 16^(4/8): the float32 quotient is exactly 0.5, bucket 12.
  EXPECT_EQ(T5Bucket(-90, true, 32, 128), 14);
  EXPECT_EQ(T5Bucket(-91, true, 32, 128), 15);
  EXPECT_EQ(T5Bucket(-31, true, 32, 128), 11);
  EXPECT_EQ(T5Bucket(-32, true, 32, 128), 12);
  // Where float32 and double part: 20 buckets, max distance 160 (5 exact distances a side), r =
  // -10: log(2) / log(32) * 5 is exactly 1; in float32 it comes out 1, in double 0.99999999...,
  // one bucket lower. HF computes it in float32: bucket 5 + 1.
  EXPECT_EQ(T5Bucket(-10, true, 20, 160), 6);
  EXPECT_EQ(T5Bucket(10, true, 20, 160), 16);
  EXPECT_EQ(HfBucket(-10, true, 20, 160), 6);
  EXPECT_LT(std::log(10.0 / 5.0) / std::log(160.0 / 5.0) * 5.0, 1.0);  // the double path
  // The same in a causal table of 9 buckets (4 exact), max distance 128, distance 8.
  EXPECT_EQ(T5Bucket(-8, false, 9, 128), 5);
}

TEST(T5Bias, TableIsTheHeadsBucketBias) {
  EncodingParams p = T5(T5Direction::kBidirectional, 32, 128, 50, 3);
  EncodingPtr e = Make(p);
  std::vector<float> t(50 * 50);
  e->FillBlock(0, 50, 0, 50, t.data());
  for (int64_t i = 0; i < 50; ++i) {
    for (int64_t j = 0; j < 50; ++j) {
      const int64_t b = T5Bucket(j - i, true, 32, 128);
      ASSERT_EQ(t[static_cast<size_t>(i * 50 + j)], T5BucketBias(p.t5(), 2, b));
      ASSERT_EQ(e->Bias(3 + i, 3 + j), T5BucketBias(p.t5(), 2, b));
    }
  }
  // Another seed, another head: other biases; the stream is not the token table's.
  T5Params other = p.t5();
  other.seed = 8;
  EXPECT_NE(T5BucketBias(other, 2, 5), T5BucketBias(p.t5(), 2, 5));
  EXPECT_NE(T5BucketBias(p.t5(), 1, 5), T5BucketBias(p.t5(), 2, 5));
  EXPECT_NE(e->DescribeCell(10, 4).find("bucket(7 - 10 = -3) = 3"), std::string::npos)
      << e->DescribeCell(10, 4);
}

// ---- row means, rasters ---------------------------------------------------------------------

void ExpectExactMeans(const EncodingParams& p) {
  EncodingPtr e = Make(p);
  const int64_t len = p.max_len;
  std::vector<float> t(static_cast<size_t>(len * len));
  e->FillBlock(0, len, 0, len, t.data());
  std::mt19937 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t r0 = std::uniform_int_distribution<int64_t>(0, len - 1)(rng);
    const int64_t rows = std::uniform_int_distribution<int64_t>(1, len - r0)(rng);
    const int64_t c0 = std::uniform_int_distribution<int64_t>(0, len - 1)(rng);
    const int64_t cols = std::uniform_int_distribution<int64_t>(1, len - c0)(rng);
    std::vector<double> mean(static_cast<size_t>(cols));
    e->MeanOverRows(r0, rows, c0, cols, mean.data());
    for (int64_t j = 0; j < cols; ++j) {
      double s = 0;
      for (int64_t r = r0; r < r0 + rows; ++r) s += t[static_cast<size_t>(r * len + c0 + j)];
      ASSERT_NEAR(mean[static_cast<size_t>(j)], s / static_cast<double>(rows), 1e-5)
          << e->Summary() << " rows " << r0 << "+" << rows << " col " << c0 + j;
    }
  }
}

void ExpectExactBlockMeans(const EncodingParams& p) {
  EncodingPtr e = Make(p);
  const int64_t len = p.max_len;
  std::vector<float> t(static_cast<size_t>(len * len));
  e->FillBlock(0, len, 0, len, t.data());
  std::mt19937 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t r0 = std::uniform_int_distribution<int64_t>(0, len - 1)(rng);
    const int64_t rows = std::uniform_int_distribution<int64_t>(1, len - r0)(rng);
    const int64_t c0 = std::uniform_int_distribution<int64_t>(0, len - 1)(rng);
    const int64_t cols = std::uniform_int_distribution<int64_t>(1, len - c0)(rng);
    double mean = NAN;
    ASSERT_TRUE(e->MeanOverBlock(r0, rows, c0, cols, &mean));
    double s = 0;
    for (int64_t r = r0; r < r0 + rows; ++r) {
      for (int64_t c = c0; c < c0 + cols; ++c) s += t[static_cast<size_t>(r * len + c)];
    }
    ASSERT_NEAR(mean, s / static_cast<double>(rows * cols), 1e-5)
        << e->Summary() << " block " << r0 << "+" << rows << " x " << c0 << "+" << cols;
  }
}

TEST(BiasMeans, BlockMeansEqualTheSums) {
  ExpectExactBlockMeans(Alibi(12, 9, AlibiMode::kCausal, 150, 5));
  ExpectExactBlockMeans(Alibi(6, 0, AlibiMode::kSymmetric, 150, 0));
  ExpectExactBlockMeans(T5(T5Direction::kBidirectional, 32, 128, 300, 7));
  ExpectExactBlockMeans(T5(T5Direction::kCausal, 16, 40, 200, 0));
  ExpectExactBlockMeans(T5(T5Direction::kBidirectional, 8, 20, 120, 2));
  // The sinusoid has no block form: the raster averages its columns.
  EncodingParams sin;
  double unused = 0;
  EXPECT_FALSE(Make(sin)->MeanOverBlock(0, 2, 0, 2, &unused));
}

TEST(BiasMeans, ClosedFormsEqualTheSums) {
  ExpectExactMeans(Alibi(12, 9, AlibiMode::kCausal, 120, 5));
  ExpectExactMeans(Alibi(6, 0, AlibiMode::kSymmetric, 120, 0));
  ExpectExactMeans(T5(T5Direction::kBidirectional, 32, 128, 300, 7));
  ExpectExactMeans(T5(T5Direction::kCausal, 16, 40, 200, 0));
}

// Every position a table may have: texels come from block means, so this is as quick as a
// small table; a zoomed-in raster (texel = cell) matches the cells.
TEST(BiasMeans, RasterOfEveryPosition) {
  const int64_t all = kMaxPosition + 1;
  for (const EncodingParams& p :
       {Alibi(8, 0, AlibiMode::kCausal, all), Alibi(8, 3, AlibiMode::kSymmetric, all),
        T5(T5Direction::kBidirectional, 32, 128, all),
        T5(T5Direction::kCausal, 32, 128, 1000000)}) {
    EncodingPtr e = Make(p);
    const auto n = static_cast<double>(p.max_len);
    EXPECT_LE(EstimateRasterWork({e, 0, n, 0, n, 800, 600}), 800 * 600);
    const Raster r = ComputeRaster({e, 0, n, 0, n, 800, 600});
    ASSERT_EQ(r.width, 800);
    ASSERT_EQ(r.height, 600);
    const ValueRange range = e->Range();
    for (float v : r.values) {
      ASSERT_TRUE(std::isfinite(v));
      ASSERT_GE(v, range.lo - 1e-3);
      ASSERT_LE(v, range.hi + 1e-3);
    }
    // Texels along the first row: the exact mean of a few, summed cell by cell.
    for (int x : {0, 1, 400, 799}) {
      const int64_t c0 = r.col_edges[static_cast<size_t>(x)];
      const int64_t c1 = r.col_edges[static_cast<size_t>(x) + 1];
      const int64_t q1 = r.row_edges[1];
      if ((c1 - c0) * q1 > (int64_t{1} << 26)) continue;  // too many cells to sum here
      double s = 0;
      for (int64_t q = 0; q < q1; ++q) {
        for (int64_t k = c0; k < c1; ++k) s += static_cast<float>(e->Bias(q, k));
      }
      EXPECT_NEAR(r.values[static_cast<size_t>(x)], s / static_cast<double>((c1 - c0) * q1),
                  1e-4 * std::max(1.0, std::abs(range.lo)))
          << e->Summary() << " texel " << x;
    }
    // Zoomed in on far positions: one texel per cell, each the cell itself.
    const double far = n - 40;
    const Raster z = ComputeRaster({e, far - 30, far, far, far + 20, 30, 20});
    ASSERT_TRUE(z.one_cell_per_texel());
    for (int y = 0; y < z.height; ++y) {
      for (int x = 0; x < z.width; ++x) {
        const int64_t q = z.row_edges[static_cast<size_t>(y)];
        const int64_t k = z.col_edges[static_cast<size_t>(x)];
        ASSERT_EQ(z.values[static_cast<size_t>(y) * z.width + x],
                  static_cast<float>(e->Bias(q, k)));
      }
    }
  }
}

// ---- refused parameters ----------------------------------------------------------------------

void ExpectRefused(const EncodingParams& p, std::initializer_list<const char*> words) {
  const Status s = ValidateEncodingParams(p);
  ASSERT_FALSE(s.ok());
  for (const char* w : words) EXPECT_NE(s.message().find(w), std::string::npos) << s.message();
  EXPECT_FALSE(MakeEncoding(p).ok());
}

// The heatmap and bias pictures grey causal ALiBi's masked keys: every texel whose keys all come
// after its queries, and no other (a texel across the diagonal keeps its mean's colour, as does
// every texel of the symmetric mode). Offsets move queries and keys together.
TEST(BiasPictures, MaskedTexelsAreGreyAndOnlyThose) {
  for (int64_t offset : {int64_t{0}, int64_t{1000}}) {
    for (AlibiMode mode : {AlibiMode::kCausal, AlibiMode::kSymmetric}) {
      for (int64_t len : {int64_t{60}, int64_t{1000}}) {  // one cell a texel; 10 x 10 cells
        const EncodingPtr e = Make(Alibi(8, 0, mode, len, offset));
        const auto first = static_cast<double>(offset);
        const Raster r = ComputeRaster(
            {e, 0, static_cast<double>(len), first, first + static_cast<double>(len), 100, 100});
        ASSERT_FALSE(r.empty());
        std::vector<unsigned char> rgba(static_cast<size_t>(r.width) * r.height * 4, 7);
        GreyMaskedTexels(r, rgba.data());
        int grey = 0;
        for (int y = 0; y < r.height; ++y) {
          for (int x = 0; x < r.width; ++x) {
            const int64_t last_query = r.row_edges[static_cast<size_t>(y) + 1] - 1;
            const int64_t first_key = offset + r.col_edges[static_cast<size_t>(x)];
            const bool all_masked = mode == AlibiMode::kCausal && first_key > last_query;
            const unsigned char* px = &rgba[(static_cast<size_t>(y) * r.width + x) * 4];
            EXPECT_EQ(px[0], all_masked ? kMaskedTexelGrey : 7) << len << " " << y << "," << x;
            grey += all_masked;
          }
        }
        if (mode == AlibiMode::kCausal) {
          EXPECT_GT(grey, r.width * r.height / 3);
        }
      }
    }
  }
}

TEST(BiasParams, BadValuesAreRefusedWithTheirRange) {
  ExpectRefused(Alibi(0, 0, AlibiMode::kCausal), {"heads", "[1, 4096]", "got 0"});
  ExpectRefused(Alibi(5000, 0, AlibiMode::kCausal), {"heads", "got 5000"});
  ExpectRefused(Alibi(8, 8, AlibiMode::kCausal), {"--head", "[0, 7]", "one of --heads 8", "got 8"});
  ExpectRefused(Alibi(8, -1, AlibiMode::kCausal), {"head", "got -1"});
  EncodingParams a = Alibi(8, 0, AlibiMode::kCausal);
  a.alibi().max_bias = 0;
  ExpectRefused(a, {"--alibi-max-bias", "> 0", "got 0"});
  a.alibi().max_bias = std::numeric_limits<double>::infinity();
  ExpectRefused(a, {"--alibi-max-bias", "got inf"});
  a.alibi().max_bias = std::nan("");
  ExpectRefused(a, {"--alibi-max-bias", "nan"});

  EncodingParams t = T5(T5Direction::kBidirectional, 31, 128);
  ExpectRefused(t, {"--t5-buckets", "even", "got 31"});
  t.t5().buckets = 2;
  ExpectRefused(t, {"buckets", "at least 4", "got 2"});
  t.t5().buckets = 32;
  t.t5().max_distance = 8;  // bidirectional 32: 8 exact distances
  ExpectRefused(t, {"--t5-max-distance", "[9, ", "got 8"});
  t.t5().max_distance = 9;
  EXPECT_TRUE(ValidateEncodingParams(t).ok());
  t.t5().direction = T5Direction::kCausal;  // causal 32: 16 exact distances
  ExpectRefused(t, {"--t5-max-distance", "[17, ", "got 9"});
  t.t5().buckets = 3;
  t.t5().max_distance = 128;
  EXPECT_TRUE(ValidateEncodingParams(t).ok());  // odd is fine for the causal direction
  t.t5().head = 4;
  ExpectRefused(t, {"head", "[0, 3]", "got 4"});
  t.t5().head = 0;
  t.t5().heads = 0;
  ExpectRefused(t, {"heads", "[1, 4096]", "got 0"});
}

// Causal ALiBi's curves leave a key's masked queries out (the table's 0 there is no bias a
// model adds, and the largest value of the curve): column k starts at query k, in the figure and
// in the trace the window draws, and both legends say so.
TEST(MaskedCurves, CausalAlibiCurvesStartWhereTheKeyIsSeen) {
  ModelParams m;
  SetScheme(m, Scheme::kAlibi);
  m.pe.max_len = 12;
  m.curve_dims = {0, 3, 7};
  const EncodingPtr e = MakeEncoding(m.pe).value();
  ASSERT_TRUE(e->MasksAnyKey());
  for (int64_t col : m.curve_dims) {
    EXPECT_EQ(FirstVisibleQuery(*e, col), col);
    const CurveTrace t = TraceTableCurve(*e, col, -0.5, 11.5, 400);
    ASSERT_FALSE(t.xs.empty());
    EXPECT_EQ(*std::min_element(t.xs.begin(), t.xs.end()), static_cast<double>(col)) << col;
    // The largest bias drawn is the key's own, 0, at m = k only.
    for (size_t i = 0; i < t.xs.size(); ++i) {
      if (t.xs[i] > static_cast<double>(col)) {
        EXPECT_LT(t.ys[i], 0.0) << col;
      }
    }
  }
  ViewSelection sel = DefaultViews(m);
  Result<Figure> f = BuildViewFigure(ViewKind::kCurves, m, sel, FigureSize{}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  bool noted = false;
  for (const FigureLegendItem& l : f.value().legend) noted |= l.label == kMaskedCurvesNote;
  EXPECT_TRUE(noted);
  for (size_t k = 0; k < f.value().series.size(); ++k) {
    const FigureSeries& s = f.value().series[k];
    for (double x : s.xs) EXPECT_GE(x, static_cast<double>(m.curve_dims[k]));
    for (double x : s.marker_xs) EXPECT_GE(x, static_cast<double>(m.curve_dims[k]));
  }
  // Symmetric ALiBi masks nothing: its curves span the table.
  m.pe.alibi().mode = AlibiMode::kSymmetric;
  const EncodingPtr sym = MakeEncoding(m.pe).value();
  EXPECT_EQ(FirstVisibleQuery(*sym, 7), 0);
}

// A causal T5 (a decoder) masks the keys after the query, as the model's causal mask does: the
// bias view greys them instead of showing bucket 0's bias there; bidirectional T5 masks none.
TEST(MaskedCurves, CausalT5MasksTheKeysAfterTheQuery) {
  EncodingParams p;
  p.scheme = T5Params{};
  p.max_len = 16;
  p.t5().direction = T5Direction::kCausal;
  const EncodingPtr causal = MakeEncoding(p).value();
  EXPECT_TRUE(causal->Masked(3, 4));
  EXPECT_FALSE(causal->Masked(4, 4));
  EXPECT_FALSE(causal->Masked(4, 3));
  EXPECT_TRUE(causal->MasksAnyKey());
  const Raster r = ComputeRaster({causal, 0, 16, 0, 16, 16, 16});
  ASSERT_EQ(r.width, 16);
  ASSERT_EQ(r.height, 16);
  std::vector<unsigned char> rgba(16 * 16 * 4, 0);
  GreyMaskedTexels(r, rgba.data());
  EXPECT_EQ(rgba[(2 * 16 + 9) * 4], kMaskedTexelGrey) << "query 2, key 9: masked";
  EXPECT_EQ(rgba[(9 * 16 + 2) * 4], 0) << "query 9, key 2: its bias";
  p.t5().direction = T5Direction::kBidirectional;
  EXPECT_FALSE(MakeEncoding(p).value()->MasksAnyKey());
}

}  // namespace
}  // namespace pe
