// The precision view: float32 -> bfloat16 / float16 rounding against a reference written here
// from the formats' definitions (IEEE 754-2008 section 3: every value of the format listed from
// its sign, exponent and significand, then the nearest one taken, ties to the even encoding),
// the positions each format holds, and the view's tables against values computed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include "analysis/precision.h"
#include "encoding/encoding.h"
#include "model/param_fields.h"
#include "test_support.h"
#include "views/figure_export.h"
#include "views/heatmap_raster.h"
#include "views/view_registry.h"

namespace pe {
namespace {

using pe::testing::NpyArray;
using pe::testing::ParseCsv;
using pe::testing::ParseNpy;
using pe::testing::ReadFile;

// ---- the reference: the value grid ---------------------------------------------------------

struct GridPoint {
  double value;
  uint16_t bits;
};

// Every non-negative finite value of the format in ascending order, then 2^(emax + 1) standing
// for +inf: IEEE rounding to nearest sends to inf exactly what is at least halfway from the
// largest finite value to 2^(emax + 1), and inf's encoding (exponent all ones, significand 0)
// is even, as that value's would be.
//   bfloat16: 8 exponent bits (bias 127), 7 significand bits; subnormals m * 2^-133
//   float16:  5 exponent bits (bias 15), 10 significand bits; subnormals m * 2^-24
std::vector<GridPoint> PositiveGrid(LowPrecision dtype) {
  const int exp_bits = dtype == LowPrecision::kBf16 ? 8 : 5;
  const int man_bits = dtype == LowPrecision::kBf16 ? 7 : 10;
  const int bias = (1 << (exp_bits - 1)) - 1;
  std::vector<GridPoint> grid;
  for (int e = 0; e < (1 << exp_bits) - 1; ++e) {
    for (int m = 0; m < (1 << man_bits); ++m) {
      const double value = e == 0 ? std::ldexp(m, 1 - bias - man_bits)
                                  : std::ldexp((1 << man_bits) + m, e - bias - man_bits);
      grid.push_back({value, static_cast<uint16_t>((e << man_bits) | m)});
    }
  }
  grid.push_back({std::ldexp(1.0, (1 << (exp_bits - 1))),
                  static_cast<uint16_t>(((1 << exp_bits) - 1) << man_bits)});
  return grid;
}

// The encoding of the format value nearest x (finite or infinite, not NaN), ties to even.
uint16_t ReferenceBits(const std::vector<GridPoint>& grid, float x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::abs(static_cast<double>(x));
  if (std::isinf(x) || a >= grid.back().value) return sign | grid.back().bits;
  auto up = std::lower_bound(grid.begin(), grid.end(), a,
                             [](const GridPoint& g, double v) { return g.value < v; });
  if (up->value == a) return sign | up->bits;
  const GridPoint& hi = *up;
  const GridPoint& lo = *(up - 1);
  const double below = a - lo.value, above = hi.value - a;
  if (below < above) return sign | lo.bits;
  if (above < below) return sign | hi.bits;
  return sign | ((lo.bits & 1) == 0 ? lo.bits : hi.bits);
}

uint16_t Bits(LowPrecision dtype, float x) {
  return dtype == LowPrecision::kBf16 ? Bf16Bits(x) : Fp16Bits(x);
}

// The float32 value the format holds for x, by the reference. The grid lists the encodings
// in order from 0, so an encoding's magnitude is its index; the last one is inf.
float ReferenceRound(const std::vector<GridPoint>& grid, float x) {
  const uint16_t bits = ReferenceBits(grid, x);
  const size_t k = bits & 0x7FFF;
  const double v = k + 1 == grid.size() ? INFINITY : grid[k].value;
  return static_cast<float>((bits & 0x8000) ? -v : v);
}

// SplitMix64 (Steele, Lea, Flood 2014): the test's own random bits.
uint64_t SplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Floats that probe the rounding: every halfway point between neighbours of the format (the
// ties) and the float32 values just either side of it, both signs; zeros, the smallest and
// largest float32s, float16's overflow edge; and random bit patterns.
std::vector<float> ProbeValues(const std::vector<GridPoint>& grid) {
  std::vector<float> out;
  for (size_t k = 0; k + 1 < grid.size(); ++k) {
    const double mid = (grid[k].value + grid[k + 1].value) / 2;
    const auto m = static_cast<float>(mid);
    EXPECT_EQ(static_cast<double>(m), mid) << "a halfway point must be a float32";
    for (float v : {m, std::nextafter(m, 0.0f), std::nextafter(m, INFINITY),
                    static_cast<float>(grid[k].value)}) {
      out.push_back(v);
      out.push_back(-v);
    }
  }
  const float kMax = std::numeric_limits<float>::max();
  for (float v : {0.0f,
                  -0.0f,
                  std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::min(),
                  kMax,
                  -kMax,
                  65504.0f,
                  65519.0f,
                  std::nextafter(65520.0f, 0.0f),
                  65520.0f,
                  65536.0f,
                  1e6f,
                  INFINITY,
                  -INFINITY,
                  std::ldexp(1.0f, -25),
                  std::ldexp(3.0f, -26),
                  std::ldexp(1.0f, -24),
                  std::ldexp(1.5f, -24),
                  std::ldexp(1.0f, -14),
                  std::ldexp(1023.5f, -24)}) {
    out.push_back(v);
  }
  uint64_t state = 2024;
  for (int k = 0; k < 200000; ++k) {
    const auto v = std::bit_cast<float>(static_cast<uint32_t>(SplitMix(state)));
    if (!std::isnan(v)) out.push_back(v);
  }
  return out;
}

class Rounding : public ::testing::TestWithParam<LowPrecision> {};

TEST_P(Rounding, MatchesTheNearestValueOfTheFormatTiesToEven) {
  const LowPrecision dtype = GetParam();
  const std::vector<GridPoint> grid = PositiveGrid(dtype);
  int failures = 0;
  for (float x : ProbeValues(grid)) {
    const uint16_t want = ReferenceBits(grid, x);
    const uint16_t got = Bits(dtype, x);
    if (got != want && ++failures <= 10) {
      ADD_FAILURE() << DtypeName(dtype) << "(" << x << " = 0x" << std::hex
                    << std::bit_cast<uint32_t>(x) << "): got 0x" << got << ", want 0x" << want;
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST_P(Rounding, DecodesEveryFiniteEncodingToItsValue) {
  const LowPrecision dtype = GetParam();
  const std::vector<GridPoint> grid = PositiveGrid(dtype);
  for (size_t k = 0; k < grid.size(); ++k) {
    const GridPoint& g = grid[k];
    EXPECT_EQ(g.bits, k);
    for (uint16_t sign : {uint16_t{0}, uint16_t{0x8000}}) {
      const auto bits = static_cast<uint16_t>(sign | g.bits);
      const float v = dtype == LowPrecision::kBf16 ? Bf16ToFloat(bits) : Fp16ToFloat(bits);
      if (k + 1 == grid.size()) {
        EXPECT_TRUE(std::isinf(v));
      } else {
        EXPECT_EQ(static_cast<double>(v), sign ? -g.value : g.value) << std::hex << bits;
      }
      // And back: a value of the format is kept as it is.
      if (!std::isinf(v)) {
        EXPECT_EQ(Bits(dtype, v), bits);
      }
    }
  }
}

TEST_P(Rounding, NanStaysNanWithItsSign) {
  const LowPrecision dtype = GetParam();
  const uint16_t exp_mask = dtype == LowPrecision::kBf16 ? 0x7F80 : 0x7C00;
  // Quiet and signalling NaNs, with payloads in the kept and in the dropped bits only.
  for (uint32_t pattern : {0x7FC00000u, 0x7F800001u, 0x7FA00000u, 0x7FFFFFFFu, 0x7F802000u}) {
    for (uint32_t sign : {0u, 0x80000000u}) {
      const auto x = std::bit_cast<float>(pattern | sign);
      const uint16_t b = Bits(dtype, x);
      EXPECT_EQ(b & exp_mask, exp_mask) << std::hex << pattern;
      EXPECT_NE(b & ~exp_mask & 0x7FFF, 0) << std::hex << pattern;  // not inf
      EXPECT_EQ((b & 0x8000) != 0, sign != 0);
      EXPECT_TRUE(std::isnan(RoundTo(dtype, x)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, Rounding,
                         ::testing::Values(LowPrecision::kBf16, LowPrecision::kFp16),
                         [](const auto& tp) { return std::string(DtypeName(tp.param)); });

TEST(Rounding, HandPickedCases) {
  // bfloat16 keeps the top 16 bits of a float32, rounded: 1 + 2^-8 is halfway between 1 and
  // 1 + 2^-7 and goes to the even 1; 1 + 3 * 2^-8 goes up to 1 + 2^-6.
  EXPECT_EQ(RoundTo(LowPrecision::kBf16, 1.00390625f), 1.0f);
  EXPECT_EQ(RoundTo(LowPrecision::kBf16, 1.01171875f), 1.015625f);
  EXPECT_EQ(RoundTo(LowPrecision::kBf16, std::numeric_limits<float>::max()), INFINITY);
  EXPECT_EQ(Bf16Bits(3.14159265f), 0x4049);  // 3.140625
  // float16: 65504 is the largest finite value, 65520 is halfway to 65536 and overflows.
  EXPECT_EQ(RoundTo(LowPrecision::kFp16, 65519.0f), 65504.0f);
  EXPECT_EQ(RoundTo(LowPrecision::kFp16, 65520.0f), INFINITY);
  EXPECT_EQ(RoundTo(LowPrecision::kFp16, -65520.0f), -INFINITY);
  // Subnormals: 2^-25 is halfway between 0 and 2^-24 and goes to 0 (even); 3 * 2^-25 is
  // halfway between 2^-24 and 2^-23 and goes to 2^-23 (encoding 2, even).
  EXPECT_EQ(Fp16Bits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(Fp16Bits(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_EQ(Fp16Bits(-std::ldexp(1.0f, -24)), 0x8001);
  EXPECT_EQ(Fp16Bits(std::ldexp(1023.5f, -24)), 0x0400);  // rounds up into the normals
  EXPECT_EQ(Fp16Bits(0.1f), 0x2E66);                      // 0.0999755859375
  EXPECT_EQ(Fp16Bits(std::numeric_limits<float>::denorm_min()), 0x0000);
}

// ---- positions -------------------------------------------------------------------------------

TEST(PrecisionPositions, FirstInexactAndFirstRepeatedPositions) {
  // bfloat16 has 8 significant bits: integers up to 2^8 = 256 are exact; 257 lies halfway
  // between 256 and 258 and rounds to the even 256, which 256 also gives. float16 has 11:
  // 2049 -> 2048.
  EXPECT_EQ(LargestExactInteger(LowPrecision::kBf16), 256);
  EXPECT_EQ(LargestExactInteger(LowPrecision::kFp16), 2048);
  EXPECT_EQ(FirstInexactPosition(LowPrecision::kBf16, 0, 100000), 257);
  EXPECT_EQ(FirstRepeatedPosition(LowPrecision::kBf16, 0, 100000), 257);
  EXPECT_EQ(FirstInexactPosition(LowPrecision::kFp16, 0, 100000), 2049);
  EXPECT_EQ(FirstRepeatedPosition(LowPrecision::kFp16, 0, 100000), 2049);
  EXPECT_EQ(PositionInFormat(LowPrecision::kBf16, 257), 256.0f);
  EXPECT_EQ(PositionInFormat(LowPrecision::kFp16, 2049), 2048.0f);
  // A table that ends before them holds every position.
  EXPECT_FALSE(FirstInexactPosition(LowPrecision::kBf16, 0, 256).has_value());
  EXPECT_FALSE(FirstRepeatedPosition(LowPrecision::kBf16, 0, 256).has_value());
  EXPECT_FALSE(FirstRepeatedPosition(LowPrecision::kFp16, -2048, 2048).has_value());
  // Starting later: 300 = 75 * 4 is exact, 301 (spacing 2 there) is halfway between 300 and
  // 302 and rounds to 300 (150 * 2, even).
  EXPECT_EQ(FirstInexactPosition(LowPrecision::kBf16, 300, 1000), 301);
  EXPECT_EQ(FirstRepeatedPosition(LowPrecision::kBf16, 300, 1000), 301);
  // Negative positions (sinusoidal offsets): -1000 = -125 * 8 is exact, -999 rounds to -1000
  // (spacing 4 between 512 and 1024).
  EXPECT_EQ(FirstInexactPosition(LowPrecision::kBf16, -1000, 0), -999);
  EXPECT_EQ(FirstRepeatedPosition(LowPrecision::kBf16, -1000, 0), -999);
  // 259 is halfway between 258 (129 * 2, odd) and 260 (even): it goes up.
  EXPECT_EQ(PositionInFormat(LowPrecision::kBf16, 259), 260.0f);
  // float16 overflows from 65520 on.
  EXPECT_EQ(PositionInFormat(LowPrecision::kFp16, 65519), 65504.0f);
  EXPECT_EQ(PositionInFormat(LowPrecision::kFp16, 65520), INFINITY);
  // The integer goes through float32 first, as PyTorch casts it: 2^25 + 2^17 + 1 becomes the
  // float32 2^25 + 2^17, exactly halfway between two bfloat16 values, and then the even 2^25
  // (rounding the integer directly would give 2^25 + 2^18).
  EXPECT_EQ(PositionInFormat(LowPrecision::kBf16, (int64_t{1} << 25) + (1 << 17) + 1),
            std::ldexp(1.0f, 25));
}

// ---- the view's tables -----------------------------------------------------------------------

ModelParams SmallSinusoid(LowPrecision dtype, int64_t L) {
  ModelParams m;
  m.pe.d_model = 8;
  m.pe.max_len = L;
  m.dtype = dtype;
  return m;
}

std::string ExportToString(ViewKind view, const ModelParams& m, TableFormat format) {
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  EXPECT_TRUE(e.ok());
  const ViewSelection sel = DefaultViews(m);
  const ViewContext c{m, e.value(), sel, {}, FigureFormat::kPng};
  std::ostringstream out;
  Status s = GetView(view).write_table(out, format, c, {});
  EXPECT_TRUE(s.ok()) << s.message();
  return out.str();
}

class PrecisionTable : public ::testing::TestWithParam<LowPrecision> {};

TEST_P(PrecisionTable, NpyIsRoundedMinusFloat32ByTheReference) {
  const LowPrecision dtype = GetParam();
  const std::vector<GridPoint> grid = PositiveGrid(dtype);
  for (Scheme scheme : {Scheme::kSinusoidal, Scheme::kRope, Scheme::kAlibi, Scheme::kLearned}) {
    ModelParams m = SmallSinusoid(dtype, 300);
    SetScheme(m, scheme);
    if (scheme == Scheme::kRope) m.pe.rope().part = RopePart::kAngle;  // values up to 299
    NpyArray npy;
    std::string why;
    ASSERT_TRUE(ParseNpy(ExportToString(ViewKind::kPrecision, m, TableFormat::kNpy), npy, why))
        << why;
    Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
    Result<Matrix> table = ComputeTable(*e.value(), m.cap);
    ASSERT_TRUE(table.ok());
    ASSERT_EQ(npy.shape, (std::vector<int64_t>{table.value().rows, table.value().cols}));
    size_t nonzero = 0;
    for (size_t k = 0; k < npy.data.size(); ++k) {
      const float v = table.value().data[k];
      const float want = ReferenceRound(grid, v) - v;
      ASSERT_EQ(npy.data[k], want) << SchemeName(scheme) << " cell " << k << ", v = " << v;
      nonzero += want != 0.0f ? 1 : 0;
    }
    // Every scheme but ALiBi (multiples of its slope 1/2, exact in float16) has many.
    if (scheme != Scheme::kAlibi) {
      EXPECT_GT(nonzero, npy.data.size() / 10) << SchemeName(scheme);
    }
  }
}

TEST_P(PrecisionTable, CsvSummarisesEachPosition) {
  const LowPrecision dtype = GetParam();
  const std::vector<GridPoint> grid = PositiveGrid(dtype);
  const int64_t L = dtype == LowPrecision::kBf16 ? 300 : 2100;
  const ModelParams m = SmallSinusoid(dtype, L);
  const auto rows = ParseCsv(ExportToString(ViewKind::kPrecision, m, TableFormat::kCsv));
  ASSERT_EQ(rows.size(), static_cast<size_t>(L + 1));
  EXPECT_EQ(rows[0], (std::vector<std::string>{
                         "position", "max_abs_error", "mean_abs_error", "equal_columns",
                         "row_equals_previous", "position_in_dtype", "position_exact",
                         "position_repeats", "max_abs_error_rounded_position"}));
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  Result<Matrix> t = ComputeTable(*e.value(), m.cap);
  const int64_t d = t.value().cols;
  const int64_t threshold = dtype == LowPrecision::kBf16 ? 257 : 2049;
  for (int64_t p = 0; p < L; ++p) {
    const std::vector<std::string>& row = rows[static_cast<size_t>(p + 1)];
    ASSERT_EQ(row.size(), 9u);
    EXPECT_EQ(std::stoll(row[0]), p);
    double mx = 0, sum = 0;
    int64_t equal = 0;
    for (int64_t j = 0; j < d; ++j) {
      const float v = t.value().at(p, j);
      const float q = ReferenceRound(grid, v);
      mx = std::max(mx, std::abs(static_cast<double>(q) - v));
      sum += std::abs(static_cast<double>(q) - v);
      if (p > 0) equal += q == ReferenceRound(grid, t.value().at(p - 1, j)) ? 1 : 0;
    }
    EXPECT_EQ(std::stof(row[1]), static_cast<float>(mx)) << p;
    EXPECT_NEAR(std::stod(row[2]), sum / static_cast<double>(d), 1e-7 * mx + 1e-12) << p;
    EXPECT_EQ(std::stoll(row[3]), equal) << p;
    EXPECT_EQ(row[4], equal == d ? "1" : "0") << p;
    // Positions: exact up to the threshold - 1; the threshold gives the one before it.
    const float held = ReferenceRound(grid, static_cast<float>(p));
    EXPECT_EQ(std::stof(row[5]), held) << p;
    EXPECT_EQ(row[6], static_cast<double>(held) == static_cast<double>(p) ? "1" : "0") << p;
    const bool repeats = p > 0 && held == ReferenceRound(grid, static_cast<float>(p - 1));
    EXPECT_EQ(row[7], repeats ? "1" : "0") << p;
    if (p < threshold) {
      EXPECT_EQ(row[6], "1");
      EXPECT_EQ(row[7], "0");
      EXPECT_EQ(std::stof(row[8]), 0.0f);
    }
  }
  const std::vector<std::string>& at = rows[static_cast<size_t>(threshold + 1)];
  EXPECT_EQ(at[6], "0");
  EXPECT_EQ(at[7], "1");
  // The paper's table at d = 8, w_i = 10000^(-2i/8): computed from the held position
  // threshold - 1 instead of the threshold, the fastest column sin(p) moves the most.
  double shift = 0;
  for (int i = 0; i < 4; ++i) {
    const double w = std::pow(10000.0, -2.0 * i / 8.0);
    for (double (*f)(double) :
         {static_cast<double (*)(double)>(std::sin), static_cast<double (*)(double)>(std::cos)}) {
      shift = std::max(shift, std::abs(f(static_cast<double>(threshold - 1) * w) -
                                       f(static_cast<double>(threshold) * w)));
    }
  }
  EXPECT_NEAR(std::stod(at[8]), shift, 1e-6);
  EXPECT_GT(shift, 0.1);
}

INSTANTIATE_TEST_SUITE_P(Formats, PrecisionTable,
                         ::testing::Values(LowPrecision::kBf16, LowPrecision::kFp16),
                         [](const auto& tp) { return std::string(DtypeName(tp.param)); });

TEST(PrecisionView, LearnedAndBiasTablesLeaveThePositionColumnEmpty) {
  for (Scheme scheme : {Scheme::kLearned, Scheme::kT5}) {
    ModelParams m = SmallSinusoid(LowPrecision::kBf16, 260);
    SetScheme(m, scheme);
    const auto rows = ParseCsv(ExportToString(ViewKind::kPrecision, m, TableFormat::kCsv));
    ASSERT_EQ(rows.size(), 261u);
    EXPECT_EQ(rows[258][0], "257");
    EXPECT_EQ(rows[258][5], "256");
    EXPECT_EQ(rows[258][8], "") << SchemeName(scheme);
  }
}

TEST(PrecisionView, TablesOverTheCapAreRefusedNamingLAndD) {
  ModelParams m = SmallSinusoid(LowPrecision::kBf16, 100000);
  m.pe.d_model = 128;
  m.cap.bytes = 1 << 20;
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  const ViewSelection sel = DefaultViews(m);
  const ViewContext c{m, e.value(), sel, {}, FigureFormat::kPng};
  const Status s = GetView(ViewKind::kPrecision).check_table(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("L = 100000"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("d = 128"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("memory cap of 1.0 MiB"), std::string::npos) << s.message();
  std::ostringstream out;
  EXPECT_FALSE(GetView(ViewKind::kPrecision).write_table(out, TableFormat::kNpy, c, {}).ok());
  EXPECT_TRUE(out.str().empty());
}

TEST(PrecisionView, DtypeFlagNamesTheAllowedValues) {
  const ParamField* f = FindParamField("--dtype");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->key, "dtype");
  ModelParams m;
  const Status bad = f->set(m, "fp8");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("--dtype"), std::string::npos);
  EXPECT_NE(bad.message().find("bf16 or fp16"), std::string::npos);
  EXPECT_NE(bad.message().find("\"fp8\""), std::string::npos);
  ASSERT_TRUE(f->set(m, "fp16").ok());
  EXPECT_EQ(m.dtype, LowPrecision::kFp16);
  EXPECT_EQ(f->get(m), "fp16");
  // Right after --part in the field table.
  const auto fields = ParamFields();
  for (size_t k = 1; k < fields.size(); ++k) {
    if (fields[k].key == "dtype") {
      EXPECT_EQ(fields[k - 1].key, "part");
    }
  }
}

// The figure: the largest |error| it reports is the table's, found by the reference, when
// every texel holds at most 8 x 8 cells; the first inexact position is marked.
TEST(PrecisionView, FigureReportsTheLargestErrorAndMarksThePosition) {
  const ModelParams m = SmallSinusoid(LowPrecision::kBf16, 1000);
  const std::vector<GridPoint> grid = PositiveGrid(LowPrecision::kBf16);
  Result<Figure> f =
      BuildViewFigure(ViewKind::kPrecision, m, DefaultViews(m), {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  Result<Matrix> t = ComputeTable(*e.value(), m.cap);
  double mx = 0;
  int64_t at_p = -1, at_j = -1;
  for (int64_t p = 0; p < t.value().rows; ++p) {
    for (int64_t j = 0; j < t.value().cols; ++j) {
      const float v = t.value().at(p, j);
      const double err = std::abs(static_cast<double>(ReferenceRound(grid, v)) - v);
      if (err > mx) mx = err, at_p = p, at_j = j;
    }
  }
  char want[96];
  std::snprintf(want, sizeof want, "largest |error| shown %.3g, at p = %lld, j = %lld", mx,
                static_cast<long long>(at_p), static_cast<long long>(at_j));
  bool found = false, marked = false;
  for (const FigureLegendItem& it : f.value().legend) {
    found = found || it.label == want;
    marked = marked || it.label.rfind("line: p = 257,", 0) == 0;
  }
  EXPECT_TRUE(found) << want;
  EXPECT_TRUE(marked);
  ASSERT_EQ(f.value().overlays.size(), 1u);
  EXPECT_EQ(f.value().overlays[0].y0, 257.0);
  ASSERT_TRUE(f.value().colorbar.has_value());
  EXPECT_DOUBLE_EQ(f.value().colorbar->vmax, mx);
  // Each texel (a few rows, one column) is coloured by the signed error of largest magnitude
  // among its cells, the first one in row order on a tie.
  ASSERT_TRUE(f.value().image.has_value());
  const FigureImage& im = *f.value().image;
  ASSERT_EQ(im.width, 8);
  ASSERT_LT(im.height, 1000);
  ASSERT_GT(im.height, 125);  // at most 8 rows a texel: the exact rule
  const std::vector<int64_t> edges = RasterEdges(0, 1000, im.height);
  ASSERT_EQ(edges.size(), static_cast<size_t>(im.height) + 1);
  std::vector<float> texels(static_cast<size_t>(im.width * im.height));
  for (int y = 0; y < im.height; ++y) {
    for (int x = 0; x < im.width; ++x) {
      float best = 0.0f;
      for (int64_t p = edges[static_cast<size_t>(y)]; p < edges[static_cast<size_t>(y) + 1]; ++p) {
        const float v = t.value().at(p, x);
        const float err = ReferenceRound(grid, v) - v;
        if (std::abs(err) > std::abs(best)) best = err;
      }
      texels[static_cast<size_t>(y * im.width + x)] = best;
    }
  }
  std::vector<uint8_t> rgba(texels.size() * 4);
  MapToRgba(ColormapId::kRdBu, texels.data(), static_cast<int64_t>(texels.size()),
            static_cast<float>(-mx), static_cast<float>(mx), rgba.data());
  EXPECT_EQ(im.rgba, rgba);
}

TEST(PrecisionView, FigureOfAHugeTableComputesOnlyTheWindow) {
  ModelParams m = SmallSinusoid(LowPrecision::kFp16, 1000000000);
  m.pe.d_model = 512;
  ViewSelection sel = DefaultViews(m);
  Result<Figure> whole = BuildViewFigure(ViewKind::kPrecision, m, sel, {}, FigureFormat::kPng);
  ASSERT_TRUE(whole.ok()) << whole.message();
  EXPECT_TRUE(whole.value().image.has_value());
  sel.windows[ViewKind::kHeatmap] = {0, 16, 2040, 2060};
  Result<Figure> zoomed = BuildViewFigure(ViewKind::kPrecision, m, sel, {}, FigureFormat::kPng);
  ASSERT_TRUE(zoomed.ok());
  ASSERT_TRUE(zoomed.value().image.has_value());
  EXPECT_EQ(zoomed.value().image->width, 16);
  EXPECT_EQ(zoomed.value().image->height, 20);
  ASSERT_EQ(zoomed.value().overlays.size(), 1u);
  EXPECT_EQ(zoomed.value().overlays[0].y0, 2049.0);
}

// A bias table is as wide as it is long: a window of a million keys is judged by 8 columns
// spread evenly in each texel column (the rule the legend states), filled column by column
// without a row of every key. Each texel row here is one query, so every texel is known: the
// error of largest magnitude over its 8 sampled keys, by the reference rounding.
TEST(PrecisionView, WideBiasWindowsSampleTheirColumnsWithoutWholeRows) {
  ModelParams m = SmallSinusoid(LowPrecision::kBf16, 1000000);
  SetScheme(m, Scheme::kAlibi);
  m.pe.alibi().mode = AlibiMode::kSymmetric;
  ViewSelection sel = DefaultViews(m);
  sel.windows[ViewKind::kHeatmap] = {0, 1000000, 0, 64};
  Result<Figure> f = BuildViewFigure(ViewKind::kPrecision, m, sel, {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  ASSERT_TRUE(f.value().image.has_value());
  const FigureImage& im = *f.value().image;
  ASSERT_EQ(im.height, 64);
  ASSERT_GT(im.width, 100);
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  ASSERT_TRUE(e.ok());
  const std::vector<GridPoint> grid = PositiveGrid(LowPrecision::kBf16);
  const std::vector<int64_t> cols = RasterEdges(0, 1000000, im.width);
  std::vector<float> texels(static_cast<size_t>(im.width * im.height));
  double mx = 0;
  for (int y = 0; y < im.height; ++y) {
    for (int x = 0; x < im.width; ++x) {
      const int64_t a = cols[static_cast<size_t>(x)], n = cols[static_cast<size_t>(x) + 1] - a;
      ASSERT_GT(n, 8);
      float best = 0.0f;
      for (int k = 0; k < 8; ++k) {
        const int64_t key = a + static_cast<int64_t>((k + 0.5) * static_cast<double>(n) / 8.0);
        const auto v = static_cast<float>(e.value()->Bias(y, key));
        const float err = ReferenceRound(grid, v) - v;
        if (std::abs(err) > std::abs(best)) best = err;
      }
      texels[static_cast<size_t>(y * im.width + x)] = best;
      mx = std::max(mx, static_cast<double>(std::abs(best)));
    }
  }
  ASSERT_GT(mx, 0.0);
  ASSERT_TRUE(f.value().colorbar.has_value());
  EXPECT_DOUBLE_EQ(f.value().colorbar->vmax, mx);
  std::vector<uint8_t> rgba(texels.size() * 4);
  MapToRgba(ColormapId::kRdBu, texels.data(), static_cast<int64_t>(texels.size()),
            static_cast<float>(-mx), static_cast<float>(mx), rgba.data());
  EXPECT_EQ(im.rgba, rgba);
}

TEST(PrecisionView, AppliesToEveryScheme) {
  for (Scheme s : kAllSchemeKinds) {
    ModelParams m;
    SetScheme(m, s);
    EXPECT_TRUE(ViewApplies(ViewKind::kPrecision, m.pe)) << SchemeName(s);
  }
}

}  // namespace
}  // namespace pe
