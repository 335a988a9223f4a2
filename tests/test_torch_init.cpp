// torch:SEED and torch-scalar:SEED, PyTorch's own N(0, 1) numbers: the Mersenne Twister against
// the standard library's, both of torch's kernels bit for bit against the bits PyTorch printed
// and against its printed 4-decimal values, the fill against the Box-Muller formula written
// again here in double, the row-by-row path against the whole table, and the --init field end
// to end (parsed, saved in a session and read back, used by the sentence).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include "base/initializers.h"
#include "base/torch_random.h"
#include "model/embedding.h"
#include "model/input_layer.h"
#include "model/param_fields.h"
#include "session/session.h"

namespace pe {
namespace {

#include "torch_goldens.inc"

// torch prints 4 decimals: a value agrees when it rounds to the printed one.
constexpr double kPrintedHalfUnit = 0.5e-4 + 1e-7;
// Either kernel against the same formula in double. The scalar kernel: logf, sqrtf, cosf, sinf
// (< 1 ulp each in glibc) and theta rounded to float (0.5 ulp of a number < 2 pi, 2.4e-7) move
// a value by at most radius * ~6e-7 with radius <= sqrt(-2 ln 2^-24) = 5.77. The AVX2 kernel
// (float 2 pi, avx_mathfun's Cephes log and sincos, about 2 ulp) obeys the same kind of bound.
constexpr double kFloatVsDouble = 4e-6;
constexpr TorchKernel kBothKernels[] = {TorchKernel::kAvx2, TorchKernel::kScalar};

const char* KernelName(TorchKernel k) {
  return k == TorchKernel::kAvx2 ? "avx2" : "scalar";
}

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
  for (TorchKernel kernel : kBothKernels) {
    for (const TorchGolden& g : kTorchGoldens) {
      const std::vector<float> ours = TorchRandn(g.seed, g.rows * g.cols, kernel);
      ASSERT_EQ(ours.size(), g.values.size());
      for (size_t k = 0; k < ours.size(); ++k) {
        EXPECT_NEAR(ours[k], g.values[k], kPrintedHalfUnit)
            << KernelName(kernel) << " seed " << g.seed << " (" << g.rows << ", " << g.cols
            << ") value " << k;
      }
    }
  }
}

// Every bit PyTorch printed, with each kernel: the whole fill (mean and std applied as torch
// does) and, for N(0, 1), the values asked one by one.
TEST(TorchRandom, BothKernelsGiveTorchsBits) {
  int differing = 0;
  for (const TorchBitsGolden& g : kTorchBitsGoldens) {
    ASSERT_EQ(g.avx2.size(), g.scalar.size()) << g.python;
    for (TorchKernel kernel : kBothKernels) {
      const std::vector<uint32_t>& want = kernel == TorchKernel::kAvx2 ? g.avx2 : g.scalar;
      const std::vector<float> all = TorchNormal(g.seed, g.n, g.mean, g.std, kernel);
      ASSERT_EQ(static_cast<int64_t>(all.size()), g.n);
      std::vector<int64_t> idx;
      for (size_t k = 0; k < want.size(); ++k) {
        const int64_t i = g.first + static_cast<int64_t>(k);
        idx.push_back(i);
        EXPECT_EQ(std::bit_cast<uint32_t>(all[static_cast<size_t>(i)]), want[k])
            << KernelName(kernel) << ": " << g.python << " value " << i;
      }
      if (g.mean == 0.0 && g.std == 1.0) {
        const std::vector<float> some = TorchNormalAt(g.seed, g.n, idx, kernel);
        for (size_t k = 0; k < want.size(); ++k) {
          EXPECT_EQ(std::bit_cast<uint32_t>(some[k]), want[k])
              << KernelName(kernel) << ": " << g.python << " value " << idx[k] << " alone";
        }
      }
    }
    for (size_t k = 0; k < g.avx2.size(); ++k) differing += g.avx2[k] != g.scalar[k];
  }
  EXPECT_GT(differing, 100);  // the two kernels are told apart, not only the stream
  // The value the two kernels are known by: nn.Embedding(10, 128) after manual_seed(0), [1, 74].
  const int64_t at[] = {128 + 74};
  EXPECT_EQ(std::bit_cast<uint32_t>(TorchNormalAt(0, 1280, at, TorchKernel::kAvx2)[0]),
            0x3ec8b7b0u);
  EXPECT_EQ(std::bit_cast<uint32_t>(TorchNormalAt(0, 1280, at, TorchKernel::kScalar)[0]),
            0x3ec8b7afu);
}

// 100003 values (6250 blocks and the redrawn tail) against a hash of torch's own bytes.
TEST(TorchRandom, LongStreamHashesAsTorchs) {
  auto fnv = [](const std::vector<float>& v) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (float x : v) {
      const uint32_t b = std::bit_cast<uint32_t>(x);
      for (int k = 0; k < 4; ++k) {
        h ^= (b >> (8 * k)) & 0xffu;
        h *= 0x100000001b3ull;
      }
    }
    return h;
  };
  EXPECT_EQ(fnv(TorchRandn(5, 100003, TorchKernel::kAvx2)), kTorchRandn100003Seed5FnvAvx2);
  EXPECT_EQ(fnv(TorchRandn(5, 100003, TorchKernel::kScalar)), kTorchRandn100003Seed5FnvScalar);
}

// avx_mathfun's log and sincos are Cephes approximations: within a few ulps of the C library's
// (which is < 1 ulp) on the ranges the kernel uses, exact at 1, NaN below 0.
TEST(TorchRandom, AvxLogAndSinCosAreCloseToTheLibrary) {
  std::mt19937 mt(11);
  double worst_log = 0, worst_trig = 0;
  for (int k = 0; k < 200000; ++k) {
    const float u = 1.0f - TorchUniformFloat(mt());  // (0, 1], as u1
    const double want = std::log(static_cast<double>(u));
    worst_log =
        std::max(worst_log, std::abs(TorchAvxLog(u) - want) / std::max(std::abs(want), 1e-30));
    const float theta = static_cast<float>(2.0 * std::numbers::pi) * TorchUniformFloat(mt());
    float s = 0, c = 0;
    TorchAvxSinCos(theta, &s, &c);
    worst_trig = std::max({worst_trig, std::abs(s - std::sin(static_cast<double>(theta))),
                           std::abs(c - std::cos(static_cast<double>(theta)))});
  }
  EXPECT_LT(worst_log, 4 * 0x1.0p-23);
  EXPECT_LT(worst_trig, 4 * 0x1.0p-24);
  EXPECT_EQ(TorchAvxLog(1.0f), 0.0f);
  EXPECT_TRUE(std::isnan(TorchAvxLog(0.0f)));
  EXPECT_TRUE(std::isnan(TorchAvxLog(-1.0f)));
  float s = 1, c = 0;
  TorchAvxSinCos(0.0f, &s, &c);
  EXPECT_EQ(s, 0.0f);
  EXPECT_EQ(c, 1.0f);
  // Far outside the kernel's range (theta < 2 pi) it still returns, with no undefined steps.
  for (float far : {3e9f, -3e9f, std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    TorchAvxSinCos(far, &s, &c);
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
  for (TorchKernel kernel : kBothKernels) {
    double worst = 0;
    for (int64_t n : {16, 17, 31, 32, 33, 100, 1000, 4099}) {
      for (uint64_t seed : {0u, 7u, 123u}) {
        const std::vector<float> ours = TorchRandn(seed, n, kernel);
        const std::vector<double> ref = ReferenceFill(seed, n);
        for (size_t k = 0; k < ours.size(); ++k) {
          worst = std::max(worst, std::abs(ours[k] - ref[k]));
          ASSERT_NEAR(ours[k], ref[k], kFloatVsDouble)
              << KernelName(kernel) << " n " << n << " seed " << seed << " " << k;
        }
      }
    }
    EXPECT_GT(worst, 0.0) << KernelName(kernel);  // float is not double: the bound is used
  }
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
    for (TorchKernel kernel : kBothKernels) {
      const std::vector<float> ours = TorchRandn(1, n, kernel);
      for (int64_t k = 0; k < n; ++k)
        EXPECT_EQ(ours[static_cast<size_t>(k)], want[static_cast<size_t>(k)]);
    }
  }
}

TEST(TorchRandom, ValuesAtAgreeWithTheWholeFill) {
  std::mt19937 pick(5);
  for (TorchKernel kernel : kBothKernels) {
    for (int64_t n : {1, 5, 15, 16, 17, 40, 47, 48, 1000, 1031}) {
      const std::vector<float> all = TorchRandn(9, n, kernel);
      std::vector<int64_t> idx;
      for (int k = 0; k < 30; ++k)
        idx.push_back(static_cast<int64_t>(pick() % static_cast<uint32_t>(n)));
      idx.push_back(n - 1);
      idx.push_back(0);
      const std::vector<float> some = TorchNormalAt(9, n, idx, kernel);
      for (size_t k = 0; k < idx.size(); ++k) {
        ASSERT_EQ(some[k], all[static_cast<size_t>(idx[k])])
            << KernelName(kernel) << " n " << n << " index " << idx[k];
      }
    }
  }
}

TEST(TorchInit, ParsesTorchSeedAndRoundTrips) {
  EXPECT_EQ(ParseInitChoice("torch:0"), (InitChoice{EmbeddingInit::kTorch, 0, TorchKernel::kAvx2}));
  EXPECT_EQ(ParseInitChoice("torch:18446744073709551615"),
            (InitChoice{EmbeddingInit::kTorch, 18446744073709551615ull, TorchKernel::kAvx2}));
  EXPECT_EQ(ParseInitChoice("torch-scalar:7"),
            (InitChoice{EmbeddingInit::kTorch, 7, TorchKernel::kScalar}));
  EXPECT_EQ(ParseInitChoice("torch-scalar:18446744073709551615"),
            (InitChoice{EmbeddingInit::kTorch, 18446744073709551615ull, TorchKernel::kScalar}));
  EXPECT_EQ(ParseInitChoice("normal-0.02"), (InitChoice{EmbeddingInit::kNormal002, 0}));
  for (const char* bad :
       {"torch", "torch:", "torch:-1", "torch:+1", "torch: 1", "torch:1x",
        "torch:18446744073709551616", "torch:0x10", "Torch:1", "torch-scalar",
        "torch-scalar:", "torch-scalar:-1", "torch-scalar:1x", "torch-scalar:18446744073709551616",
        "torch_scalar:1", "torch-avx2:1", "torch-scalar::1", "torch:scalar:1"}) {
    EXPECT_FALSE(ParseInitChoice(bad)) << bad;
  }
  EXPECT_FALSE(ParseEmbeddingInit("torch"));  // --learned-init does not take it
  EXPECT_FALSE(ParseEmbeddingInit("torch-scalar"));
  for (const InitChoice c : {InitChoice{EmbeddingInit::kTorch, 123, TorchKernel::kAvx2},
                             InitChoice{EmbeddingInit::kTorch, 123, TorchKernel::kScalar},
                             InitChoice{EmbeddingInit::kNormal1, 0}}) {
    EXPECT_EQ(ParseInitChoice(InitChoiceName(c)), c);
  }
  EXPECT_EQ(InitChoiceName({EmbeddingInit::kTorch, 42}), "torch:42");
  EXPECT_EQ(InitChoiceName({EmbeddingInit::kTorch, 42, TorchKernel::kScalar}), "torch-scalar:42");
  // The message lists both spellings.
  EXPECT_NE(std::string(kInitChoices).find("torch:SEED"), std::string::npos);
  EXPECT_NE(std::string(kInitChoices).find("torch-scalar:SEED"), std::string::npos);
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
  EXPECT_NE(bad.message().find("torch-scalar:SEED"), std::string::npos) << bad.message();
  // The help names both.
  EXPECT_NE(FindParamField("--init")->help.find("torch-scalar:SEED"), std::string::npos);
}

// --init picks the kernel: nn.Embedding(10, 128) after manual_seed(0) seen through the sentence
// (ids 1 and 9), each kernel giving its own bits of PyTorch's table; the choice survives a
// session saved and read back.
TEST(TorchInit, InitFlagPicksTheKernel) {
  const TorchBitsGolden& rows01 = kTorchBitsGoldens[7];  // weight[0:2]
  ASSERT_EQ(rows01.first, 0);
  ASSERT_EQ(rows01.avx2.size(), 256u);
  for (TorchKernel kernel : kBothKernels) {
    ModelParams m;
    const std::string spec = kernel == TorchKernel::kAvx2 ? "torch:0" : "torch-scalar:0";
    ASSERT_TRUE(FindParamField("--init")->set(m, spec).ok());
    EXPECT_EQ(FindParamField("--init")->get(m), spec);
    EXPECT_EQ(m.example.init, EmbeddingInit::kTorch);
    EXPECT_EQ(m.example.torch_kernel, kernel);
    m.example.ids = {{1, 9, 1}};
    m.example.vocab_size = 10;
    EncodingParams pe;
    pe.d_model = 128;
    Result<SentenceResult> r = ComputeSentence(m.example, pe, {});
    ASSERT_TRUE(r.ok()) << r.message();
    const std::vector<uint32_t>& want = kernel == TorchKernel::kAvx2 ? rows01.avx2 : rows01.scalar;
    for (int64_t t : {0, 2}) {
      for (int64_t c = 0; c < 128; ++c) {
        EXPECT_EQ(std::bit_cast<uint32_t>(r.value().parts.embedding.at(t, c)),
                  want[static_cast<size_t>(128 + c)])
            << spec << " token " << t << " col " << c;
      }
    }
    // A session keeps the kernel.
    SessionContent content{m, {}, {}};
    Result<LoadedSession> back = SessionFromDocument(MakeSessionDocument(content), ModelParams{});
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back.value().content.params.example.torch_kernel, kernel) << spec;
    EXPECT_EQ(back.value().content.params.example.init, EmbeddingInit::kTorch) << spec;
  }
}

}  // namespace
}  // namespace pe
