// Every SIMD path of the input layer, forced one at a time, against a plain reference written
// here: out = dropout(E[id] * sqrt(d) + PE), the sum rounded after the product (no fused
// multiply-add), and the dropout mask from its formula: value k is dropped when
// u_k = ((b_k >> 11) + 1) * 2^-53 <= p, with b_k the k-th output of SplitMix64 (Vigna,
// splitmix64.c) started at the seed, and a kept value is multiplied by float(1 / (1 - p)).
// Equality is bit for bit: every path must draw the same mask and round the same way.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "base/simd_path.h"
#include "model/input_layer.h"

namespace pe {
namespace {

// SplitMix64 as Vigna's splitmix64.c writes it: the state advances by the golden gamma before
// each output.
struct SplitMix64 {
  uint64_t x;
  uint64_t Next() {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

// Output k of the stream started at `seed` (jumping the state: it is a counter).
uint64_t NthOutput(uint64_t seed, uint64_t k) {
  SplitMix64 g{seed + k * 0x9e3779b97f4a7c15ull};
  return g.Next();
}

bool ReferenceDropped(uint64_t seed, uint64_t k, double p) {
  const double u = static_cast<double>((NthOutput(seed, k) >> 11) + 1) * 0x1.0p-53;
  return u <= p;
}

// Reference value of a kept or dropped float.
float ReferenceDropout(float v, bool dropped, double p) {
  return dropped ? 0.0f : v * static_cast<float>(1.0 / (1.0 - p));
}

uint32_t Bits(float f) {
  return std::bit_cast<uint32_t>(f);
}

// Forces a path for one test; skips (naming the missing feature) where the processor lacks it.
class InputLayerSimd : public ::testing::TestWithParam<SimdPath> {
 protected:
  void SetUp() override {
    const std::string missing = MissingSimdFeatures(GetParam());
    if (!missing.empty()) GTEST_SKIP() << "this processor lacks " << missing;
    const SimdChoice c = ForceSimdPath(GetParam());
    ASSERT_EQ(c.path, GetParam()) << c.note;
    ASSERT_EQ(ActiveSimdPath(), GetParam());
  }
  void TearDown() override { ClearForcedSimdPath(); }
};

// Values with every kind of rounding in them, negative zeros and a few large magnitudes.
std::vector<float> TestValues(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  SplitMix64 g{seed};
  for (size_t k = 0; k < n; ++k) {
    const uint64_t b = g.Next();
    v[k] = static_cast<float>(static_cast<double>(b >> 11) * 0x1.0p-53 * 4.0 - 2.0);
    if (b % 97 == 0) v[k] = -0.0f;
    if (b % 89 == 0) v[k] = static_cast<float>(b >> 40) * 1e20f;
  }
  return v;
}

// The whole forward pass for one shape, with the output placed `offset` floats past a 64-byte
// boundary (every alignment the stores meet), against the reference element by element.
void CheckForward(int64_t vocab, int64_t batch, int64_t seq, int64_t d, bool scale, bool train,
                  double p, uint64_t seed, size_t offset,
                  OutputStores stores = OutputStores::kBySize) {
  Matrix table;
  table.rows = vocab;
  table.cols = d;
  table.data = TestValues(static_cast<size_t>(vocab * d), 11);
  const std::vector<float> pe_rows = TestValues(static_cast<size_t>(seq * d), 12);  // (seq, d)
  std::vector<int64_t> ids(static_cast<size_t>(batch * seq));
  for (size_t k = 0; k < ids.size(); ++k) ids[k] = static_cast<int64_t>((k * 7919 + 3) % vocab);
  InputLayerParams params;
  params.scale = scale;
  params.train = train;
  params.dropout = p;
  params.dropout_seed = seed;
  const size_t n = static_cast<size_t>(batch * seq * d);
  std::vector<float> buffer(n + 32, 123.0f);
  float* out = buffer.data();
  while (reinterpret_cast<uintptr_t>(out) % 64 != offset * sizeof(float) % 64) ++out;
  InputLayerForwardInto(table, ids, batch, seq, pe_rows.data(), params, out, stores);
  const float s = scale ? static_cast<float>(std::sqrt(static_cast<double>(d))) : 1.0f;
  for (int64_t bt = 0; bt < batch * seq; ++bt) {
    for (int64_t j = 0; j < d; ++j) {
      const float e = table.at(ids[static_cast<size_t>(bt)], j);
      const float scaled = e * s;
      const float sum = scaled + pe_rows[static_cast<size_t>((bt % seq) * d + j)];
      const auto k = static_cast<uint64_t>(bt * d + j);
      const float want =
          train && p > 0.0
              ? (p >= 1.0 ? 0.0f : ReferenceDropout(sum, ReferenceDropped(seed, k, p), p))
              : sum;
      ASSERT_EQ(Bits(out[k]), Bits(want))
          << SimdPathName(ActiveSimdPath()) << ": value " << k << " (row " << bt << ", column " << j
          << ") is " << out[k] << ", the reference " << want << "; d " << d << ", p " << p;
    }
  }
  // Nothing written outside the output.
  for (float* q = buffer.data(); q < out; ++q) ASSERT_EQ(*q, 123.0f);
  for (float* q = out + n; q < buffer.data() + buffer.size(); ++q) ASSERT_EQ(*q, 123.0f);
}

TEST_P(InputLayerSimd, SumWithoutDropoutIsTheReferenceBitForBit) {
  for (int64_t d : {1, 7, 8, 13, 64, 100, 1024}) {
    for (size_t offset : {0, 1, 3, 5}) CheckForward(50, 2, 9, d, true, false, 0.1, 0, offset);
  }
  CheckForward(50, 2, 9, 33, false, false, 0.0, 0, 1);  // scaling off
  CheckForward(50, 2, 9, 33, true, true, 0.0, 0, 2);    // train with p = 0: no dropout
}

TEST_P(InputLayerSimd, DropoutInTheForwardPassIsTheReferenceBitForBit) {
  for (int64_t d : {1, 7, 8, 13, 64, 100, 1024}) {
    for (size_t offset : {0, 1, 3, 5}) CheckForward(50, 2, 9, d, true, true, 0.1, 77, offset);
  }
  for (double p : {1e-9, 0.5, 0.9, 0.999999, 1.0}) CheckForward(20, 3, 5, 37, true, true, p, 5, 1);
}

// 8 MiB: split over the threads and visited in blocks of positions, written with
// non-temporal stores (as outputs of 8 MiB and more are) and with cached ones.
TEST_P(InputLayerSimd, LargeOutputsAreTheReferenceBitForBit) {
  for (OutputStores stores : {OutputStores::kStreamed, OutputStores::kCached}) {
    CheckForward(300, 4, 512, 1024, true, false, 0.0, 0, 4, stores);
    CheckForward(300, 4, 512, 1024, true, true, 0.25, 9, 4, stores);
    CheckForward(300, 5, 331, 1031, true, true, 0.1, 3, 1, stores);  // rows not whole lines
  }
}

TEST_P(InputLayerSimd, DropoutInPlaceIsTheReferenceBitForBit) {
  // Counters near 2^64 wrap as the generator's state does.
  for (uint64_t first : {uint64_t{0}, uint64_t{1000}, ~uint64_t{0} - 20}) {
    for (int64_t n : {1, 5, 8, 9, 31, 4099}) {
      for (double p : {0.1, 0.5, 0.999}) {
        std::vector<float> v = TestValues(static_cast<size_t>(n), static_cast<uint64_t>(n));
        const std::vector<float> in = v;
        ApplyDropout(v.data(), n, p, 42, first);
        for (int64_t k = 0; k < n; ++k) {
          const auto i = static_cast<size_t>(k);
          const bool dropped = ReferenceDropped(42, first + static_cast<uint64_t>(k), p);
          ASSERT_EQ(Bits(v[i]), Bits(ReferenceDropout(in[i], dropped, p)))
              << SimdPathName(ActiveSimdPath()) << ": value " << k << " of " << n << ", first "
              << first << ", p " << p;
        }
      }
    }
  }
}

// p exactly a drawn uniform: that value drops (u <= p), and one ulp below it keeps. Bounds that
// differ only in the low bits of the draw test the whole 64-bit comparison.
TEST_P(InputLayerSimd, DropoutTieAtTheBoundIsDropped) {
  for (uint64_t k : {uint64_t{3}, uint64_t{12}, uint64_t{1001}}) {
    const double u = static_cast<double>((NthOutput(7, k) >> 11) + 1) * 0x1.0p-53;
    std::vector<float> v(16, 2.0f);
    ApplyDropout(v.data(), 16, u, 7, k - 3);
    EXPECT_EQ(v[3], 0.0f) << "k " << k;
    v.assign(16, 2.0f);
    ApplyDropout(v.data(), 16, std::nextafter(u, 0.0), 7, k - 3);
    EXPECT_NE(v[3], 0.0f) << "k " << k;
  }
}

std::string PathName(const ::testing::TestParamInfo<SimdPath>& info) {
  return std::string(SimdPathName(info.param));
}

INSTANTIATE_TEST_SUITE_P(Paths, InputLayerSimd, ::testing::ValuesIn(kAllSimdPaths), PathName);

// The reference generator itself: the first outputs of splitmix64.c seeded with 0 and 1234567,
// as published with the generator's reference code.
TEST(InputLayerSimdReference, SplitMix64MatchesItsPublishedOutputs) {
  SplitMix64 g{0};
  EXPECT_EQ(g.Next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(g.Next(), 0x6e789e6aa1b965f4ull);
  SplitMix64 h{1234567};
  EXPECT_EQ(h.Next(), 6457827717110365317ull);
  EXPECT_EQ(h.Next(), 3203168211198807973ull);
}

TEST(SimdPathChoice, NamesParseAndUnknownValuesFallBackToTheBestWithAMessage) {
  for (SimdPath p : kAllSimdPaths) EXPECT_EQ(ParseSimdPath(SimdPathName(p)), p);
  EXPECT_EQ(ParseSimdPath("AVX2"), SimdPath::kAvx2);
  EXPECT_FALSE(ParseSimdPath("sse9").has_value());
  const SimdPath best = BestSimdPath();
  EXPECT_TRUE(CpuHasSimdPath(best));
  EXPECT_TRUE(CpuHasSimdPath(SimdPath::kScalar));
  for (const char* v : {static_cast<const char*>(nullptr), "", "auto", "AUTO"}) {
    const SimdChoice c = SimdPathFromEnvironment(v);
    EXPECT_EQ(c.path, best);
    EXPECT_EQ(c.note, "");
  }
  const SimdChoice bad = SimdPathFromEnvironment("sse9");
  EXPECT_EQ(bad.path, best);
  EXPECT_EQ(bad.note, "PE_SIMD=sse9: expected scalar, avx2, avx512 or auto; using " +
                          std::string(SimdPathName(best)));
  EXPECT_EQ(SimdPathFromEnvironment("scalar").path, SimdPath::kScalar);
}

// Asking for a path the processor lacks runs the best one below it and says what is missing.
TEST(SimdPathChoice, AMissingPathFallsBackAndSaysWhichFeatureIsMissing) {
  for (SimdPath p : kAllSimdPaths) {
    const SimdChoice c = ForceSimdPath(p);
    EXPECT_EQ(ActiveSimdPath(), c.path);
    EXPECT_TRUE(CpuHasSimdPath(c.path));
    if (CpuHasSimdPath(p)) {
      EXPECT_EQ(c.path, p);
      EXPECT_EQ(c.note, "");
    } else {
      EXPECT_LT(static_cast<int>(c.path), static_cast<int>(p));
      EXPECT_EQ(c.note, "forcing " + std::string(SimdPathName(p)) + ": this processor lacks " +
                            MissingSimdFeatures(p) + "; using " +
                            std::string(SimdPathName(c.path)));
      const SimdChoice env = SimdPathFromEnvironment(std::string(SimdPathName(p)).c_str());
      EXPECT_EQ(env.path, c.path);
      EXPECT_NE(env.note.find("PE_SIMD=" + std::string(SimdPathName(p)) + ": this processor lacks"),
                std::string::npos)
          << env.note;
    }
    // The forced path runs: a small forward pass is still the reference.
    std::vector<float> v = {1.0f, -2.0f, 3.0f};
    ApplyDropout(v.data(), 3, 0.5, 1, 0);
    for (size_t k = 0; k < 3; ++k) {
      const float in = k == 0 ? 1.0f : (k == 1 ? -2.0f : 3.0f);
      EXPECT_EQ(Bits(v[k]), Bits(ReferenceDropout(in, ReferenceDropped(1, k, 0.5), 0.5)));
    }
  }
  ClearForcedSimdPath();
  if (!CpuHasSimdPath(SimdPath::kAvx512)) {
    EXPECT_NE(MissingSimdFeatures(SimdPath::kAvx512).find("AVX-512"), std::string::npos);
  }
}

}  // namespace
}  // namespace pe
