// torch:SEED, PyTorch's own N(0, 1) numbers: the Mersenne Twister against the standard
// library's, the fill against PyTorch's printed values and against the Box-Muller formula
// written again here in double, the row-by-row path against the whole table, and the --init
// field end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "base/initializers.h"
#include "base/torch_random.h"
#include "model/embedding.h"
#include "model/input_layer.h"
#include "model/param_fields.h"

namespace pe {
namespace {

#include "torch_goldens.inc"

// torch prints 4 decimals: a value agrees when it rounds to the printed one.
constexpr double kPrintedHalfUnit = 0.5e-4 + 1e-7;
// Our float Box-Muller against the same formula in double: logf, sqrtf, cosf, sinf (< 1 ulp each
// in glibc) and theta rounded to float (0.5 ulp of a number < 2 pi, 2.4e-7) move a value by at
// most radius * ~6e-7 with radius <= sqrt(-2 ln 2^-24) = 5.77. PyTorch's AVX2 path (float 2 pi,
// avx_mathfun's Cephes log and sincos, about 2 ulp) obeys the same kind of bound, so the two
// builds of PyTorch and this code agree to within twice this.
constexpr double kFloatVsDouble = 4e-6;

TEST(TorchRandom, MersenneTwisterIsTheStandardOne) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{42}, uint64_t{5489}}) {
    TorchMt19937 ours(seed);
    std::mt19937 standard(static_cast<uint32_t>(seed));
    for (int k = 0; k < 2000; ++k) ASSERT_EQ(ours.Next(), standard()) << seed << " " << k;
  }
  // The C++ standard's check: the 10000th output of the default seed 5489 is 4123659995.
  TorchMt19937 mt(5489);
  mt.Discard(9999);
  EXPECT_EQ(mt.Next(), 4123659995u);
  // at::mt19937 keeps the seed's low 32 bits.
  TorchMt19937 wide((uint64_t{1} << 32) + 7), narrow(7);
  for (int k = 0; k < 10; ++k) EXPECT_EQ(wide.Next(), narrow.Next());
}

TEST(TorchRandom, DiscardSkipsAcrossTwists) {
  for (uint64_t skip : {0u, 1u, 623u, 624u, 625u, 1247u, 1248u, 5000u}) {
    TorchMt19937 a(3), b(3);
    for (uint64_t k = 0; k < skip; ++k) (void)a.Next();
    b.Discard(skip);
    EXPECT_EQ(a.Next(), b.Next()) << skip;
  }
}

TEST(TorchRandom, UniformsKeep24And53Bits) {
  EXPECT_EQ(TorchUniformFloat(0xffffffffu), 1.0f - 0x1.0p-24f);
  EXPECT_EQ(TorchUniformFloat(0xff000000u), 0.0f);
  EXPECT_EQ(TorchUniformFloat(0x00800000u), 0.5f);
  EXPECT_EQ(TorchUniformDouble(0xffffffffu, 0xffffffffu), 1.0 - 0x1.0p-53);
  EXPECT_EQ(TorchUniformDouble(0x00100000u, 0u), 0.5);
  EXPECT_EQ(TorchUniformDouble(0xffe00000u, 0u), 0.0);  // the top 11 bits are dropped
}

TEST(TorchRandom, PrintedPyTorchValues) {
  for (const TorchGolden& g : kTorchGoldens) {
    const std::vector<float> ours = TorchRandn(g.seed, g.rows * g.cols);
    ASSERT_EQ(ours.size(), g.values.size());
    for (size_t k = 0; k < ours.size(); ++k) {
      EXPECT_NEAR(ours[k], g.values[k], kPrintedHalfUnit)
          << "seed " << g.seed << " (" << g.rows << ", " << g.cols << ") value " << k;
    }
  }
}

// The fill written again from PyTorch's description (DistributionTemplates.h normal_fill, for
// n >= 16), in double from the standard library's mt19937.
std::vector<double> ReferenceFill(uint64_t seed, int64_t n) {
  std::mt19937 mt(static_cast<uint32_t>(seed));
  auto uniform = [&] { return static_cast<double>(mt() % (1u << 24)) / 16777216.0; };
  std::vector<double> u(static_cast<size_t>(n));
  for (double& x : u) x = uniform();
  auto box_muller = [](double* block) {
    for (int j = 0; j < 8; ++j) {
      const double radius = std::sqrt(-2.0 * std::log(1.0 - block[j]));
      const double theta = 2.0 * std::numbers::pi * block[j + 8];
      block[j] = radius * std::cos(theta);
      block[j + 8] = radius * std::sin(theta);
    }
  };
  for (int64_t i = 0; i + 16 <= n; i += 16) box_muller(&u[static_cast<size_t>(i)]);
  if (n % 16 != 0) {
    double* tail = &u[static_cast<size_t>(n - 16)];
    for (int k = 0; k < 16; ++k) tail[k] = uniform();
    box_muller(tail);
  }
  return u;
}

TEST(TorchRandom, FloatFillAgreesWithTheFormulaInDouble) {
  double worst = 0;
  for (int64_t n : {16, 17, 31, 32, 33, 100, 1000, 4099}) {
    for (uint64_t seed : {0u, 7u, 123u}) {
      const std::vector<float> ours = TorchRandn(seed, n);
      const std::vector<double> ref = ReferenceFill(seed, n);
      for (size_t k = 0; k < ours.size(); ++k) {
        worst = std::max(worst, std::abs(ours[k] - ref[k]));
        ASSERT_NEAR(ours[k], ref[k], kFloatVsDouble) << "n " << n << " seed " << seed << " " << k;
      }
    }
  }
  EXPECT_GT(worst, 0.0);  // float is not double: the bound is used, not idle
}

TEST(TorchRandom, SmallTensorsTakeTheDoublePath) {
  // n < 16: pairs of double uniforms, r = sqrt(-2 log1p(-u2)), cos then the cached sin.
  std::mt19937 mt(1);
  auto uniform = [&] {
    const uint64_t hi = mt(), lo = mt();
    return static_cast<double>(((hi << 32) | lo) % (uint64_t{1} << 53)) * 0x1.0p-53;
  };
  std::vector<float> want;
  while (want.size() < 15) {
    const double u1 = uniform(), u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log1p(-u2));
    want.push_back(static_cast<float>(r * std::cos(2.0 * std::numbers::pi * u1)));
    want.push_back(static_cast<float>(r * std::sin(2.0 * std::numbers::pi * u1)));
  }
  for (int64_t n = 1; n < 16; ++n) {
    const std::vector<float> ours = TorchRandn(1, n);
    for (int64_t k = 0; k < n; ++k)
      EXPECT_EQ(ours[static_cast<size_t>(k)], want[static_cast<size_t>(k)]);
  }
}

TEST(TorchRandom, ValuesAtAgreeWithTheWholeFill) {
  std::mt19937 pick(5);
  for (int64_t n : {1, 5, 15, 16, 17, 40, 47, 48, 1000, 1031}) {
    const std::vector<float> all = TorchRandn(9, n);
    std::vector<int64_t> idx;
    for (int k = 0; k < 30; ++k)
      idx.push_back(static_cast<int64_t>(pick() % static_cast<uint32_t>(n)));
    idx.push_back(n - 1);
    idx.push_back(0);
    const std::vector<float> some = TorchNormalAt(9, n, idx);
    for (size_t k = 0; k < idx.size(); ++k) {
      ASSERT_EQ(some[k], all[static_cast<size_t>(idx[k])]) << "n " << n << " index " << idx[k];
    }
  }
}

TEST(TorchInit, ParsesTorchSeedAndRoundTrips) {
  EXPECT_EQ(ParseInitChoice("torch:0"), (InitChoice{EmbeddingInit::kTorch, 0}));
  EXPECT_EQ(ParseInitChoice("torch:18446744073709551615"),
            (InitChoice{EmbeddingInit::kTorch, 18446744073709551615ull}));
  EXPECT_EQ(ParseInitChoice("normal-0.02"), (InitChoice{EmbeddingInit::kNormal002, 0}));
  for (const char* bad : {"torch", "torch:", "torch:-1", "torch:+1", "torch: 1", "torch:1x",
                          "torch:18446744073709551616", "torch:0x10", "Torch:1"}) {
    EXPECT_FALSE(ParseInitChoice(bad)) << bad;
  }
  EXPECT_FALSE(ParseEmbeddingInit("torch"));  // --learned-init does not take it
  for (const InitChoice c :
       {InitChoice{EmbeddingInit::kTorch, 123}, InitChoice{EmbeddingInit::kNormal1, 0}}) {
    EXPECT_EQ(ParseInitChoice(InitChoiceName(c)), c);
  }
  EXPECT_EQ(InitChoiceName({EmbeddingInit::kTorch, 42}), "torch:42");
}

TEST(TorchInit, EmbeddingRowsAreRowsOfTheWeight) {
  // Raschka's nn.Embedding(6, 3), seed 123; rows asked out of order and repeated.
  const TorchGolden& g = kTorchGoldens[1];
  const std::vector<int64_t> rows = {5, 0, 3, 3};
  const Matrix m = EmbeddingRows(EmbeddingInit::kTorch, 123, 6, 3, rows).value();
  const std::vector<float> all = TorchRandn(123, 18);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int64_t c = 0; c < 3; ++c) {
      EXPECT_EQ(m.at(static_cast<int64_t>(r), c), all[static_cast<size_t>(rows[r] * 3 + c)]);
      EXPECT_NEAR(m.at(static_cast<int64_t>(r), c), g.values[static_cast<size_t>(rows[r] * 3 + c)],
                  kPrintedHalfUnit);
    }
  }
  // The table depends on V: with V = 16 (48 values, no redrawn tail) row 5 comes from the
  // blocks, with V = 6 from the tail drawn after them.
  const int64_t row5[] = {5};
  EXPECT_NE(EmbeddingRows(EmbeddingInit::kTorch, 123, 16, 3, row5).value().data,
            EmbeddingRows(EmbeddingInit::kTorch, 123, 6, 3, row5).value().data);
  EXPECT_EQ(InitEmbedding(EmbeddingInit::kTorch, 6, 3, 123).value().data, all);
}

TEST(TorchInit, TooLargeTablesAreRefusedNamingTheFlags) {
  const int64_t row0[] = {0};
  Result<Matrix> r = EmbeddingRows(EmbeddingInit::kTorch, 0, kMaxVocab, 4096, row0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("--vocab-size"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("--init torch"), std::string::npos) << r.message();
}

TEST(TorchInit, InitFlagGivesTheTutorialsSentence) {
  // The "Experiment 14" write-up: seed 42, nn.Embedding(10, 4), "hello ai" as ids
  // [5, 4, 7, 7, 9, 1, 2, 6]; the sentence's embedding part is the printed lookup.
  ModelParams m;
  ASSERT_TRUE(FindParamField("--init")->set(m, "torch:42").ok());
  EXPECT_EQ(FindParamField("--init")->get(m), "torch:42");
  EXPECT_EQ(m.example.init, EmbeddingInit::kTorch);
  m.example.ids = {{5, 4, 7, 7, 9, 1, 2, 6}};
  m.example.vocab_size = 10;
  EncodingParams pe;
  pe.d_model = 4;
  Result<SentenceResult> r = ComputeSentence(m.example, pe, {});
  ASSERT_TRUE(r.ok()) << r.message();
  const TorchGolden& g = kTorchGoldens[3];
  for (int64_t t = 0; t < 8; ++t) {
    for (int64_t c = 0; c < 4; ++c) {
      const int64_t id = m.example.ids[0][static_cast<size_t>(t)];
      EXPECT_NEAR(r.value().parts.embedding.at(t, c), g.values[static_cast<size_t>(id * 4 + c)],
                  kPrintedHalfUnit);
    }
  }
  Status bad = FindParamField("--init")->set(m, "torch:x");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("torch:SEED"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace pe
