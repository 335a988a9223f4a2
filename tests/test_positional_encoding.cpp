// The PE engine against closed forms, the tutorials' worked numbers, numpy-checked golden vectors,
// a long-double reference, and its structural properties.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <thread>

#include "encoding/encoding.h"
#include "encoding/positional_encoding.h"

namespace pe {
namespace {

constexpr double kGoldenTol = 1e-6;  // golden vectors are printed to 6 decimals
constexpr double kNearTol = 6e-8;    // promised accuracy below position 1e7
constexpr double kFarTol = 1e-6;     // promised accuracy up to 2^31

EncodingParams Params(int64_t d, int64_t len, PeVariant v = PeVariant::kPaper, int64_t offset = 0,
                      double base = 10000.0) {
  EncodingParams p;
  p.d_model = d;
  p.max_len = len;
  p.sinusoidal().variant = v;
  p.offset = offset;
  p.sinusoidal().base = base;
  return p;
}

// The textbook formula in long double: an independent reference for the engine.
long double Reference(const EncodingParams& p, int64_t pos, int64_t dim) {
  const long double d = static_cast<long double>(p.d_model);
  const int64_t h = p.d_model / 2;
  long double expo;
  bool is_sin;
  switch (p.sinusoidal().variant) {
    case PeVariant::kPaper:
      expo = 2.0L * (dim / 2) / d;
      is_sin = dim % 2 == 0;
      break;
    case PeVariant::kT2t: {
      if (dim >= 2 * h) return 0.0L;
      const int64_t i = dim < h ? dim : dim - h;
      expo = static_cast<long double>(i) / static_cast<long double>(std::max<int64_t>(h - 1, 1));
      is_sin = dim < h;
      break;
    }
    default: {
      const int64_t s = p.d_model - h;
      const int64_t i = dim < s ? dim : dim - s;
      expo = 2.0L * i / d;
      is_sin = dim < s;
      break;
    }
  }
  const long double angle = static_cast<long double>(pos) * powl(p.sinusoidal().base, -expo);
  return is_sin ? sinl(angle) : cosl(angle);
}

TEST(PositionalEncoding, Seed001WorkedValuesAtL4D6) {
  Matrix t = ComputePeTable(Params(6, 4)).value();
  EXPECT_NEAR(t.at(2, 0), 0.909297, kGoldenTol);   // sin 2
  EXPECT_NEAR(t.at(2, 1), -0.416147, kGoldenTol);  // cos 2
}

TEST(PositionalEncoding, GoldenVectorsAtPosition1D4) {
  const double paper[] = {0.841471, 0.540302, 0.010000, 0.999950};
  const double t2t[] = {0.841471, 0.000100, 0.540302, 1.000000};
  const double tf[] = {0.841471, 0.010000, 0.540302, 0.999950};
  const std::pair<PeVariant, const double*> cases[] = {
      {PeVariant::kPaper, paper}, {PeVariant::kT2t, t2t}, {PeVariant::kTfText, tf}};
  for (auto [variant, golden] : cases) {
    Matrix t = ComputePeTable(Params(4, 2, variant)).value();
    for (int j = 0; j < 4; ++j) {
      EXPECT_NEAR(t.at(1, j), golden[j], kGoldenTol) << VariantName(variant) << " dim " << j;
    }
  }
}

TEST(PositionalEncoding, DotProductDependsOnlyOnDistance) {
  Matrix t = ComputePeTable(Params(128, 64)).value();
  auto dot = [&](int a, int b) {
    double s = 0;
    for (int j = 0; j < 128; ++j) s += static_cast<double>(t.at(a, j)) * t.at(b, j);
    return s;
  };
  EXPECT_NEAR(dot(10, 15), 47.185012, 1e-5);
  EXPECT_NEAR(dot(50, 55), 47.185012, 1e-5);
  // PE.PE^T is Toeplitz: every diagonal is constant.
  for (int k = 0; k < 8; ++k) {
    for (int p = 0; p + k < 64; p += 7) EXPECT_NEAR(dot(p, p + k), dot(0, k), 1e-5);
  }
}

TEST(PositionalEncoding, RangeAndFirstRow) {
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
    Matrix t = ComputePeTable(Params(33, 200, v)).value();
    for (float x : t.data) {
      ASSERT_GE(x, -1.0f);
      ASSERT_LE(x, 1.0f);
    }
  }
  Matrix t = ComputePeTable(Params(8, 1)).value();
  const std::vector<float> first = {0, 1, 0, 1, 0, 1, 0, 1};
  EXPECT_EQ(t.data, first);
}

TEST(PositionalEncoding, OddDModelExtendsEachVariant) {
  // paper, d=5: the last column is sin(p * 10000^(-4/5)), the next frequency.
  Matrix paper = ComputePeTable(Params(5, 10)).value();
  EXPECT_NEAR(paper.at(7, 4), std::sin(7 * std::pow(10000.0, -0.8)), 1e-7);
  // t2t, d=5: a zero last column.
  Matrix t2t = ComputePeTable(Params(5, 10, PeVariant::kT2t)).value();
  for (int p = 0; p < 10; ++p) EXPECT_EQ(t2t.at(p, 4), 0.0f);
  // tf-text is a column permutation of paper for every d: sines first, then cosines.
  for (int64_t d = 1; d <= 9; ++d) {
    Matrix a = ComputePeTable(Params(d, 20)).value();
    Matrix b = ComputePeTable(Params(d, 20, PeVariant::kTfText)).value();
    const int64_t sines = d - d / 2;
    for (int p = 0; p < 20; ++p) {
      for (int64_t j = 0; j < d; ++j) {
        const int64_t src = j < sines ? 2 * j : 2 * (j - sines) + 1;
        ASSERT_EQ(b.at(p, j), a.at(p, src)) << "d " << d << " col " << j;
      }
    }
  }
}

TEST(PositionalEncoding, NaiveFormulaMatchesEngineForRandomParameters) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t d = 1 + static_cast<int64_t>(rng() % 300);
    const auto variant = static_cast<PeVariant>(rng() % 3);
    const bool far = trial % 2 == 1;
    const int64_t len = 1 + static_cast<int64_t>(rng() % 5);
    const int64_t max_offset = (far ? kMaxPosition : 9'999'999) - len + 1;
    const int64_t offset = static_cast<int64_t>(rng() % static_cast<uint64_t>(max_offset));
    const double base =
        trial % 5 == 0 ? 1.0 + static_cast<double>(rng() % 1000000) / 100.0 : 10000.0;
    EncodingParams p = Params(d, len, variant, offset, base);
    Matrix t = ComputePeTable(p).value();
    for (int64_t r = 0; r < len; ++r) {
      for (int64_t j = 0; j < d; ++j) {
        const long double ref = Reference(p, offset + r, j);
        ASSERT_LE(std::fabs(static_cast<long double>(t.at(r, j)) - ref), far ? kFarTol : kNearTol)
            << "d " << d << " variant " << VariantName(variant) << " pos " << offset + r << " dim "
            << j << " base " << base;
      }
    }
  }
}

TEST(PositionalEncoding, BlocksMatchTheFullTable) {
  EncodingParams p = Params(37, 50, PeVariant::kT2t, 1000);
  Matrix full = ComputePeTable(p).value();
  std::vector<float> block(7 * 5);
  FillPeBlock(p, 11, 7, 30, 5, block.data());
  for (int r = 0; r < 7; ++r) {
    for (int c = 0; c < 5; ++c) EXPECT_EQ(block[r * 5 + c], full.at(11 + r, 30 + c));
  }
}

TEST(PositionalEncoding, RealValuedPositionsInterpolateTheWave) {
  EncodingParams p = Params(16, 10);
  WaveColumn c = DescribeColumn(p, 6);  // pair 3, sin, w = 10000^(-6/16)
  const double w = std::pow(10000.0, -6.0 / 16.0);
  EXPECT_EQ(c.pair, 3);
  EXPECT_EQ(c.wave, Wave::kSin);
  EXPECT_NEAR(c.frequency, w, 1e-15);
  EXPECT_NEAR(WaveValueAt(c, 2.5), std::sin(2.5 * w), 1e-15);
  EXPECT_NEAR(c.wavelength(), 2 * M_PI / w, 1e-9);
}

TEST(PositionalEncoding, CellFormulaShowsTheNumbers) {
  EncodingParams p = Params(128, 100);
  const std::string f = FormatCellFormula(p, DescribeColumn(p, 8), 12);
  char expected[64];
  std::snprintf(expected, sizeof expected, "sin(12 / 10000^(8/128)) = %.4f",
                std::sin(12.0 / std::pow(10000.0, 8.0 / 128.0)));
  EXPECT_EQ(f, expected);
}

TEST(PositionalEncoding, InvalidParametersNameTheRangeAndValue) {
  auto message = [](EncodingParams p) { return ValidateEncodingParams(p).message(); };
  EXPECT_EQ(message(Params(0, 10)), "d_model must be in [1, 65536], got 0");
  EXPECT_EQ(message(Params(70000, 10)), "d_model must be in [1, 65536], got 70000");
  EXPECT_EQ(message(Params(8, 0)), "max_len must be in [1, 2147483648], got 0");
  EXPECT_EQ(message(Params(8, 10, PeVariant::kPaper, 0, 1.0)),
            "base must be a finite number greater than 1, got 1");
  EXPECT_EQ(message(Params(8, 10, PeVariant::kPaper, 0, NAN)),
            "base must be a finite number greater than 1, got nan");
  EXPECT_EQ(message(Params(8, 10, PeVariant::kPaper, 0, INFINITY)),
            "base must be a finite number greater than 1, got inf");
  // Sinusoidal tables may start below 0 (relative offsets); other schemes may not.
  EXPECT_TRUE(ValidateEncodingParams(Params(8, 10, PeVariant::kPaper, -2147483647)).ok());
  EXPECT_NE(message(Params(8, 10, PeVariant::kPaper, -2147483648LL))
                .find("offset must be in [-2147483647, 2147483638]"),
            std::string::npos);
  EncodingParams learned = Params(8, 10);
  learned.scheme = LearnedParams{};
  learned.offset = -1;
  EXPECT_NE(message(learned).find("offset must be in [0, 2147483638]"), std::string::npos);
  EXPECT_NE(message(learned).find("(learned)"), std::string::npos);
  EXPECT_TRUE(ValidateEncodingParams(Params(8, 10, PeVariant::kPaper, 2147483638)).ok());
  EXPECT_FALSE(ValidateEncodingParams(Params(8, 10, PeVariant::kPaper, 2147483639)).ok());
}

TEST(PositionalEncoding, TablesOverTheMemoryCapAreRefusedBeforeAllocating) {
  MemoryCap cap;
  cap.bytes = 1 << 20;
  Result<Matrix> r = ComputePeTable(Params(1024, 1024), cap);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("4.0 MiB, over the memory cap of 1.0 MiB"), std::string::npos)
      << r.message();
  // The default 2 GiB cap refuses 2^31 x 65536 without trying.
  Result<Matrix> huge = ComputePeTable(Params(65536, int64_t{1} << 31));
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.message().find("512.0 TiB"), std::string::npos) << huge.message();
}

TEST(PositionalEncoding, VariantNamesRoundTrip) {
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
    EXPECT_EQ(ParseVariant(VariantName(v)), v);
  }
  EXPECT_EQ(ParseVariant("Paper"), std::nullopt);
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

TEST(PeFastPath, MatchesTheNaiveReferenceAndTheLongDoubleFormula) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    EncodingParams p =
        Params(1 + static_cast<int64_t>(rng() % 130), 2500, static_cast<PeVariant>(rng() % 3),
               static_cast<int64_t>(rng() % (trial % 2 ? kMaxPosition - 2500 : 9'990'000)));
    Matrix fast = ComputePeTable(p).value();
    Matrix naive = fast;
    FillPeBlockNaive(p, 0, p.max_len, 0, p.d_model, naive.data.data());
    double worst_naive = 0, worst_exact = 0;
    for (int64_t r = 0; r < p.max_len; r += 7) {
      for (int64_t j = 0; j < p.d_model; ++j) {
        worst_naive = std::max(worst_naive, std::fabs(double(fast.at(r, j)) - naive.at(r, j)));
        worst_exact = std::max(
            worst_exact, static_cast<double>(std::fabs(static_cast<long double>(fast.at(r, j)) -
                                                       Reference(p, p.offset + r, j))));
      }
    }
    // Near 1e7 both round the same angle; near 2^31 each carries its own ~2e-7 angle error.
    EXPECT_LE(worst_naive, trial % 2 ? kFarTol : kNearTol) << "trial " << trial;
    EXPECT_LE(worst_exact, trial % 2 ? kFarTol : kNearTol)
        << "trial " << trial << " offset " << p.offset;
  }
}

TEST(PeFastPath, ValuesDoNotDependOnHowTheTableIsSplit) {
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
    EncodingParams p = Params(45, 5000, v, 123457);
    Matrix full = ComputePeTable(p).value();
    // Row blocks of odd sizes at odd starts.
    std::vector<float> block(static_cast<size_t>(777 * 45));
    for (int64_t r0 = 0; r0 < p.max_len; r0 += 777) {
      const int64_t rows = std::min<int64_t>(777, p.max_len - r0);
      FillPeBlock(p, r0, rows, 0, 45, block.data());
      for (int64_t k = 0; k < rows * 45; ++k) ASSERT_EQ(block[k], full.data[r0 * 45 + k]) << r0;
    }
    // Column subsets.
    std::vector<float> cols(static_cast<size_t>(5000 * 6));
    FillPeBlock(p, 0, 5000, 20, 6, cols.data());
    for (int64_t r = 0; r < 5000; ++r) {
      for (int64_t j = 0; j < 6; ++j) ASSERT_EQ(cols[r * 6 + j], full.at(r, 20 + j));
    }
  }
}

TEST(PeFastPath, LargeTablesUseEveryCoreAndStayExact) {
  EncodingParams p = Params(256, 40000, PeVariant::kPaper, 1'000'000);
  Matrix t = ComputePeTable(p).value();
  for (int64_t r : {0, 1023, 1024, 19999, 20000, 39999}) {
    for (int64_t j : {0, 1, 100, 255}) {
      ASSERT_NEAR(t.at(r, j), static_cast<double>(Reference(p, p.offset + r, j)), kNearTol)
          << r << "," << j;
    }
  }
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

TEST(PeFastPath, StreamedLargeTablesEqualSmallBlocksBitForBit) {
  // 16384 x 1024 float32 = 64 MiB: the streaming-store path. Small blocks take the cached path.
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kTfText}) {
    EncodingParams p = Params(1024, 16384, v, 777);
    Matrix big = ComputePeTable(p).value();
    std::vector<float> block(static_cast<size_t>(5 * 1024));
    for (int64_t r0 : {0, 1000, 8190, 16379}) {
      FillPeBlock(p, r0, 5, 0, 1024, block.data());
      for (int64_t k = 0; k < 5 * 1024; ++k)
        ASSERT_EQ(block[k], big.data[r0 * 1024 + k]) << r0 << " " << k;
    }
    for (int64_t j : {0, 1, 511, 512, 1023}) {
      EXPECT_NEAR(big.at(16000, j), static_cast<double>(Reference(p, 777 + 16000, j)), kNearTol);
    }
  }
}

// The GUI's workers and an export can fill tables at the same time: each call gets its own
// threads and the same bits as a call on its own.
TEST(PeFastPath, ConcurrentCallersGetTheSameTables) {
  const EncodingParams paper = Params(512, 6000, PeVariant::kPaper, 5);
  const EncodingParams t2t = Params(512, 6000, PeVariant::kT2t, 5);
  const Matrix want_paper = ComputePeTable(paper).value();
  const Matrix want_t2t = ComputePeTable(t2t).value();
  std::vector<float> a(want_paper.data.size()), b(want_t2t.data.size());
  for (int round = 0; round < 3; ++round) {
    std::thread other([&] { FillPeBlock(t2t, 0, t2t.max_len, 0, t2t.d_model, b.data()); });
    FillPeBlock(paper, 0, paper.max_len, 0, paper.d_model, a.data());
    other.join();
    ASSERT_EQ(a, want_paper.data);
    ASSERT_EQ(b, want_t2t.data);
  }
}

}  // namespace
}  // namespace pe
