// The learned position table (encoding/learned.h): its statistics, values worked out here from
// the documented generator (random.h's comment: SplitMix64's finaliser, Box-Muller), that a
// position's row does not depend on the offset shown, that seeds and the token-embedding table
// give other numbers, and the memory cap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "base/block_copy.h"
#include "base/matrix.h"
#include "encoding/encoding.h"
#include "encoding/learned.h"
#include "model/embedding.h"

namespace pe {
namespace {

// ---- the generator, written again from its description ----------------------------------------
// SplitMix64 (Steele, Lea, Flood 2014; Vigna's splitmix64.c next()): the state advances by the
// golden-ratio increment 0x9E3779B97F4A7C15 and each output is the state through the mixing
// function z ^= z >> 30, z *= 0xBF58476D1CE4E5B9, z ^= z >> 27, z *= 0x94D049BB133111EB,
// z ^= z >> 31. Element k of the stream for `seed` is the output after k + 1 advances.
uint64_t Mix64(uint64_t z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z;
}

uint64_t StreamBits(uint64_t seed, uint64_t k) {
  return Mix64(seed + (k + 1) * 0x9E3779B97F4A7C15ull);
}

// The top 53 bits as a double in (0, 1]: ((bits >> 11) + 1) / 2^53.
double StreamUniform(uint64_t seed, uint64_t k) {
  return std::ldexp(static_cast<double>((StreamBits(seed, k) >> 11) + 1), -53);
}

// Box-Muller's cosine branch from uniforms 2k and 2k + 1.
double StreamNormal(uint64_t seed, uint64_t k) {
  const double u1 = StreamUniform(seed, 2 * k), u2 = StreamUniform(seed, 2 * k + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// learned.h: the position table's stream is the first output of the seed xor the bytes of
// "position", and cell (p, c) of a width-d table is std * normal number p * d + c.
float ExpectedLearned(uint64_t seed, double std_dev, int64_t d, int64_t position, int64_t col) {
  const uint64_t stream = StreamBits(seed ^ 0x706f736974696f6eull, 0);
  const uint64_t k =
      static_cast<uint64_t>(position) * static_cast<uint64_t>(d) + static_cast<uint64_t>(col);
  return static_cast<float>(std_dev * StreamNormal(stream, k));
}

EncodingParams Learned(int64_t d, int64_t max_len, LearnedInit init, uint64_t seed,
                       int64_t offset = 0) {
  EncodingParams p;
  p.d_model = d;
  p.max_len = max_len;
  p.offset = offset;
  LearnedParams l;
  l.init = init;
  l.seed = seed;
  p.scheme = l;
  return p;
}

Matrix Table(const EncodingParams& p, const MemoryCap& cap = {}) {
  Result<EncodingPtr> e = MakeEncoding(p, cap);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.message());
  if (!e.ok()) return {};
  Result<Matrix> m = ComputeTable(*e.value(), cap);
  EXPECT_TRUE(m.ok());
  return m.ok() ? std::move(m.value()) : Matrix{};
}

TEST(LearnedGenerator, SplitMix64MatchesItsPublishedFirstOutput) {
  // splitmix64.c seeded with 0: the first next() is 0xE220A8397B1DCDAF.
  EXPECT_EQ(StreamBits(0, 0), 0xE220A8397B1DCDAFull);
}

// N = 4096 * 256 = 1,048,576 independent N(0, s^2) draws (float32 rounding is 1e-7 of a
// value, far below what follows). The sample mean has standard error s / sqrt(N) = s / 1024 and
// the sample standard deviation s / sqrt(2N) ~= s / 1448; six standard errors (a false failure
// about once in 5e8 runs, and the seeds are fixed anyway) give |mean| < 0.006 s and
// |std / s - 1| < 0.0042. The share of |x| < s is 0.682689 with standard error
// sqrt(p (1 - p) / N) = 0.000455, so within 0.0028 of it: a uniform or a mis-scaled draw would
// miss by far more.
TEST(LearnedTable, MeanAndStandardDeviationOfEachInitialiser) {
  for (LearnedInit init : {LearnedInit::kNormal002, LearnedInit::kNormal1}) {
    for (uint64_t seed : {0ull, 1234ull}) {
      const double s = init == LearnedInit::kNormal1 ? 1.0 : 0.02;
      EXPECT_EQ(LearnedInitStd(init, 256), s);
      const Matrix t = Table(Learned(256, 4096, init, seed));
      ASSERT_EQ(t.data.size(), 4096u * 256u);
      const double n = static_cast<double>(t.data.size());
      double sum = 0, within = 0;
      for (float v : t.data) {
        sum += v;
        within += std::abs(v) < s ? 1 : 0;
      }
      const double mean = sum / n;
      double sq = 0;
      for (float v : t.data) sq += (v - mean) * (v - mean);
      const double sd = std::sqrt(sq / (n - 1));
      EXPECT_LT(std::abs(mean), 0.006 * s) << LearnedInitName(init) << " seed " << seed;
      EXPECT_LT(std::abs(sd / s - 1.0), 0.0042) << LearnedInitName(init) << " seed " << seed;
      EXPECT_NEAR(within / n, 0.682689, 0.0028) << LearnedInitName(init) << " seed " << seed;
    }
  }
}

// Cells worked out above from the formula. The same double arithmetic in another translation
// unit gives the same float, but the test allows 4 ulps (EXPECT_FLOAT_EQ) in case this file is
// built with FMA contraction and the core is not.
TEST(LearnedTable, RowsMatchTheDocumentedGenerator) {
  struct Case {
    LearnedInit init;
    uint64_t seed;
    int64_t d, max_len, offset;
  };
  for (const Case& c : {Case{LearnedInit::kNormal002, 0, 768, 40, 0},
                        Case{LearnedInit::kNormal1, 42, 64, 300, 1000},
                        Case{LearnedInit::kNormal002, 0xFFFFFFFFFFFFFFFFull, 17, 10, 123456},
                        Case{LearnedInit::kNormal1, 7, 5, 3, 2'000'000'000}}) {
    const EncodingParams p = Learned(c.d, c.max_len, c.init, c.seed, c.offset);
    const Matrix t = Table(p);
    ASSERT_EQ(t.rows, c.max_len);
    ASSERT_EQ(t.cols, c.d);
    const double s = c.init == LearnedInit::kNormal1 ? 1.0 : 0.02;
    for (int64_t r : {int64_t{0}, c.max_len / 2, c.max_len - 1}) {
      for (int64_t col = 0; col < c.d; ++col) {
        const float want = ExpectedLearned(c.seed, s, c.d, c.offset + r, col);
        EXPECT_FLOAT_EQ(t.at(r, col), want)
            << "seed " << c.seed << " position " << c.offset + r << " col " << col;
        EXPECT_FLOAT_EQ(LearnedValue(p, c.offset + r, col), want);
      }
    }
  }
}

TEST(LearnedTable, APositionsRowDoesNotDependOnTheOffsetShown) {
  for (LearnedInit init : {LearnedInit::kNormal002, LearnedInit::kNormal1}) {
    const Matrix from0 = Table(Learned(96, 64, init, 9));
    const Matrix from5 = Table(Learned(96, 64, init, 9, 5));
    for (int64_t position = 5; position < 64; ++position) {
      for (int64_t col = 0; col < 96; ++col) {
        ASSERT_EQ(from0.at(position, col), from5.at(position - 5, col))
            << "position " << position << " col " << col;
      }
    }
    // and the encoding's own lookups agree
    Result<EncodingPtr> e = MakeEncoding(Learned(96, 64, init, 9, 5));
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e.value()->first_position(), 5);
    EXPECT_EQ(e.value()->ValueAt(3, 12.0), from0.at(12, 3));
  }
}

// Two tables of N(0, 1) numbers that were the same generator state would agree everywhere;
// independent ones agree (to float32) essentially nowhere and are uncorrelated: the sample
// correlation of N pairs has standard error 1 / sqrt(N), so |r| < 6 / sqrt(N).
void ExpectUnrelated(const std::vector<float>& a, const std::vector<float>& b,
                     const std::string& what) {
  ASSERT_EQ(a.size(), b.size());
  int64_t equal = 0;
  double ab = 0, aa = 0, bb = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    equal += a[k] == b[k];
    ab += double(a[k]) * b[k];
    aa += double(a[k]) * a[k];
    bb += double(b[k]) * b[k];
  }
  EXPECT_LE(equal, 2) << what;
  EXPECT_LT(std::abs(ab / std::sqrt(aa * bb)), 6.0 / std::sqrt(double(a.size()))) << what;
}

TEST(LearnedTable, DifferentSeedsGiveDifferentTables) {
  const Matrix a = Table(Learned(128, 512, LearnedInit::kNormal1, 1));
  const Matrix b = Table(Learned(128, 512, LearnedInit::kNormal1, 2));
  const Matrix a_again = Table(Learned(128, 512, LearnedInit::kNormal1, 1));
  EXPECT_EQ(a, a_again);
  ExpectUnrelated(a.data, b.data, "seeds 1 and 2");
}

TEST(LearnedTable, DiffersFromTheTokenEmbeddingOfTheSameSeed) {
  for (uint64_t seed : {0ull, 5ull, 2024ull}) {
    const int64_t d = 64, rows = 256;
    const Matrix pos = Table(Learned(d, rows, LearnedInit::kNormal1, seed));
    std::vector<float> tok(static_cast<size_t>(d * rows));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < d; ++c)
        tok[static_cast<size_t>(r * d + c)] = EmbeddingValue(seed, d, r, c);
    }
    ExpectUnrelated(pos.data, tok, "seed " + std::to_string(seed));
  }
}

TEST(LearnedTable, RefusedOverTheMemoryCapWithAMessageNamingIt) {
  const EncodingParams p = Learned(128, 1000, LearnedInit::kNormal002, 3);
  const uint64_t need = 1000 * 128 * sizeof(float);  // 512,000 bytes
  Result<EncodingPtr> over = MakeEncoding(p, MemoryCap{need - 1});
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.message().find("learned position table"), std::string::npos) << over.message();
  EXPECT_NE(over.message().find("1000 x 128"), std::string::npos) << over.message();
  EXPECT_NE(over.message().find("memory cap"), std::string::npos) << over.message();
  Result<EncodingPtr> at = MakeEncoding(p, MemoryCap{need});
  EXPECT_TRUE(at.ok()) << (at.ok() ? "" : at.message());
  // a huge table is refused before anything is allocated
  Result<EncodingPtr> huge =
      MakeEncoding(Learned(65536, int64_t{1} << 30, LearnedInit::kNormal1, 0));
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.message().find("learned position table"), std::string::npos) << huge.message();
}

// Drawing a table reports its progress in steps of about 2^20 values, rising to 1, and stops
// when told to; the table drawn with progress is the one drawn without.
TEST(LearnedTable, ProgressRisesToOneAndFalseStopsTheDrawing) {
  const EncodingParams p = Learned(1000, 3000, LearnedInit::kNormal002, 3);  // 3e6 values
  std::vector<double> seen;
  Result<EncodingPtr> e = MakeEncoding(p, {}, [&](double f) {
    seen.push_back(f);
    return true;
  });
  ASSERT_TRUE(e.ok());
  // Steps of 1048 rows (2^20 / 1000): at rows 0, 1048, 2096, then done.
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen.front(), 0.0);
  EXPECT_DOUBLE_EQ(seen[1], 1048.0 / 3000.0);
  EXPECT_EQ(seen.back(), 1.0);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  for (auto [r, c] : {std::pair<int64_t, int64_t>{0, 0}, {1047, 999}, {1048, 0}, {2999, 999}}) {
    EXPECT_EQ(e.value()->ValueAt(c, static_cast<double>(r)), LearnedValue(p, r, c));
  }
  int calls = 0;
  Result<EncodingPtr> stopped = MakeEncoding(p, {}, [&](double) { return ++calls < 2; });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(stopped.message(), "drawing the learned position table was stopped");
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

// CopyRows (base/block_copy.h) by every path it has (cached or streaming stores, one thread or
// several, aligned or not, a column window of a wider table) equals the element-by-element copy.
TEST(CopyRows, EveryPathCopiesTheBlockExactly) {
  const int64_t src_rows = 3000, src_cols = 70;
  std::vector<float> src(static_cast<size_t>(src_rows * src_cols));
  for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<float>(k) * 0.25f - 1000.0f;
  struct Window {
    int64_t row0, rows, col0, cols;
  };
  for (const Window w : {Window{0, 3000, 0, 70}, Window{5, 2900, 3, 61}, Window{1, 1, 1, 1}}) {
    std::vector<float> got(static_cast<size_t>(w.rows * w.cols) + 4);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(got.data()) % 16, 0u);
    for (int stream : {0, 1}) {
      for (int threads : {1, 2, 3}) {
        for (size_t shift : {size_t{0}, size_t{1}, size_t{3}}) {
          std::fill(got.begin(), got.end(), -7.0f);
          CopyRows(src.data() + w.row0 * src_cols + w.col0, src_cols, w.rows, w.cols,
                   got.data() + shift, CopyPath{stream, threads});
          for (int64_t r = 0; r < w.rows; ++r) {
            for (int64_t j = 0; j < w.cols; ++j) {
              ASSERT_EQ(got[shift + static_cast<size_t>(r * w.cols + j)],
                        src[static_cast<size_t>((w.row0 + r) * src_cols + w.col0 + j)])
                  << "stream " << stream << " threads " << threads << " shift " << shift << " row "
                  << r << " col " << j;
            }
          }
          for (size_t k = 0; k < shift; ++k) ASSERT_EQ(got[k], -7.0f);  // nothing before `out`
          ASSERT_EQ(got[shift + static_cast<size_t>(w.rows * w.cols)], -7.0f);  // nor after
        }
      }
    }
  }
}

// A learned table's blocks are the cells of its matrix, by the default path at a size that
// streams (4096 x 1024 float32 = 16 MiB) and for a small window.
TEST(LearnedTable, FillBlockCopiesTheTable) {
  EncodingParams p;
  p.scheme = LearnedParams{};
  p.d_model = 1024;
  p.max_len = 4096;
  const EncodingPtr e = MakeEncoding(p).value();
  std::vector<float> big(static_cast<size_t>(4096 * 1024));
  e->FillBlock(0, 4096, 0, 1024, big.data());
  for (int64_t r : {int64_t{0}, int64_t{1}, int64_t{2047}, int64_t{4095}}) {
    for (int64_t j : {int64_t{0}, int64_t{5}, int64_t{1023}}) {
      ASSERT_EQ(big[static_cast<size_t>(r * 1024 + j)], LearnedValue(p, r, j)) << r << " " << j;
    }
  }
  std::vector<float> small(static_cast<size_t>(7 * 9));
  e->FillBlock(100, 7, 3, 9, small.data());
  for (int64_t r = 0; r < 7; ++r) {
    for (int64_t j = 0; j < 9; ++j) {
      ASSERT_EQ(small[static_cast<size_t>(r * 9 + j)], LearnedValue(p, 100 + r, 3 + j));
    }
  }
}

}  // namespace
}  // namespace pe
