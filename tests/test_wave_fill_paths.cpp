// The wave-table fill on its vector path (rows in groups of four, line-aligned streaming stores,
// pairs one at a time before the first line boundary) against the same fill forced onto the
// scalar path (PE_SIMD=scalar), bit for bit: every layout (the sinusoid's three, RoPE's cos and
// sin in both pairings, YaRN's scaled cos, the angle table), widths that take the grouped, the
// row-at-a-time and the scalar-only writers, outputs at every 16-byte offset within a line, row
// counts that are not multiples of four, blocks that cross anchor positions, and blocks large
// enough for streaming stores. The scalar path itself is checked against the formula in
// test_positional_encoding.cpp and test_rope_encoding.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/simd_path.h"
#include "encoding/encoding.h"
#include "encoding/wave.h"

namespace pe {
namespace {

struct Case {
  std::string name;
  EncodingParams params;
};

std::vector<Case> Cases(int64_t d) {
  std::vector<Case> cases;
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
    EncodingParams p;
    p.d_model = d;
    p.max_len = 1 << 20;
    p.sinusoidal().variant = v;
    cases.push_back({"sinusoid " + std::string(VariantName(v)), p});
  }
  struct Rope {
    const char* name;
    RopePart part;
    RopePairing pairing;
    bool yarn;
  };
  for (const Rope& r :
       {Rope{"rope cos half", RopePart::kCos, RopePairing::kHalf, false},
        Rope{"rope sin half", RopePart::kSin, RopePairing::kHalf, false},
        Rope{"rope cos interleaved", RopePart::kCos, RopePairing::kInterleaved, false},
        Rope{"rope sin interleaved", RopePart::kSin, RopePairing::kInterleaved, false},
        Rope{"rope yarn cos half", RopePart::kCos, RopePairing::kHalf, true},
        Rope{"rope angle", RopePart::kAngle, RopePairing::kHalf, false}}) {
    EncodingParams p;
    p.d_model = d;
    p.max_len = 1 << 20;
    RopeParams rp;
    rp.part = r.part;
    rp.pairing = r.pairing;
    if (r.yarn) {
      rp.scaling = RopeScaling::kYarn;
      rp.factor = 8;
      rp.original_max_len = 2048;
    }
    p.scheme = rp;
    cases.push_back({r.name, p});
  }
  return cases;
}

// Rows [row0, row0 + rows) of the encoding's table on `path`, written at `offset` floats into a
// fresh buffer (so the output starts at each 16-byte offset within a 64-byte line).
std::vector<float> Fill(const Encoding& e, SimdPath path, int64_t row0, int64_t rows,
                        int64_t offset) {
  ForceSimdPath(path);
  std::vector<float> buf(static_cast<size_t>(rows * e.cols() + offset + 16), -7.0f);
  e.FillBlock(row0, rows, 0, e.cols(), buf.data() + offset);
  ClearForcedSimdPath();
  return {buf.begin() + offset, buf.begin() + offset + rows * e.cols()};
}

TEST(WaveFillPaths, VectorRowsEqualScalarRowsBitForBit) {
  if (!CpuHasSimdPath(SimdPath::kAvx2)) GTEST_SKIP() << MissingSimdFeatures(SimdPath::kAvx2);
  // 64: whole lines, rows in groups; 40: 160-byte rows, one at a time; 36: 18 pairs, no vector
  // path (both runs scalar); 16: one line per row.
  for (int64_t d : {64, 40, 36, 16}) {
    for (const Case& c : Cases(d)) {
      const EncodingPtr e = MakeEncoding(c.params).value();
      // Across the anchor at 1024 and 2048, with 3 leftover rows.
      for (auto [row0, rows] : {std::pair<int64_t, int64_t>{1000, 1051}, {0, 7}, {5, 1}}) {
        for (int64_t offset : {0, 4, 8, 12}) {
          const std::vector<float> scalar = Fill(*e, SimdPath::kScalar, row0, rows, offset);
          const std::vector<float> vec = Fill(*e, SimdPath::kAvx2, row0, rows, offset);
          ASSERT_EQ(0, std::memcmp(scalar.data(), vec.data(), scalar.size() * sizeof(float)))
              << c.name << " d " << d << " rows " << row0 << "+" << rows << " offset " << offset;
        }
      }
    }
  }
}

TEST(WaveFillPaths, StreamedBlocksEqualScalarRowsBitForBit) {
  if (!CpuHasSimdPath(SimdPath::kAvx2)) GTEST_SKIP() << MissingSimdFeatures(SimdPath::kAvx2);
  // 2600 x 1024 floats = 10 MiB: streaming stores (over 8 MiB), on every core, for the layouts
  // that stream (interleaved, angles) and ordinary stores for the halves.
  for (const Case& c : Cases(1024)) {
    const EncodingPtr e = MakeEncoding(c.params).value();
    for (int64_t offset : {0, 4}) {
      const std::vector<float> scalar = Fill(*e, SimdPath::kScalar, 777, 2601, offset);
      const std::vector<float> vec = Fill(*e, SimdPath::kAvx2, 777, 2601, offset);
      ASSERT_EQ(0, std::memcmp(scalar.data(), vec.data(), scalar.size() * sizeof(float)))
          << c.name << " offset " << offset;
    }
  }
}

}  // namespace
}  // namespace pe
