// Texels an attention window or the causal mask cuts partly: exact means of their visible cells
// (analysis/masked_texels.h), against the mean over every visible cell written out one by one,
// for every window and texels of 2 x 2 to 50 x 50 cells, and at a billion positions against the
// band's sum worked out here and in numpy.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/attention_score.h"
#include "analysis/masked_texels.h"
#include "base/raster_edges.h"
#include "model/attention_window.h"
#include "model/param_fields.h"

namespace pe {
namespace {

using Kind = AttentionWindowKind;

// The rules as HF masking_utils.py states them, one cell at a time (positions >= 0).
bool NaiveSees(const AttentionWindow& w, bool also_causal, int64_t m, int64_t n) {
  if (also_causal && n > m) return false;
  switch (w.kind) {
    case Kind::kFull:
      return true;
    case Kind::kCausal:
      return n <= m;
    case Kind::kSliding:
      return n > m - w.size && n <= m;
    case Kind::kSlidingBidirectional:
      return std::abs(m - n) <= w.size / 2;
    case Kind::kChunked:
      return n / w.size == m / w.size && n <= m;
  }
  return false;
}

// Windows whose bands and chunk edges fall inside texels of 2 to 50 cells, narrower and wider
// than a texel.
std::vector<AttentionWindow> CuttingWindows() {
  return {{Kind::kCausal, 0},
          {Kind::kSliding, 1},
          {Kind::kSliding, 3},
          {Kind::kSliding, 17},
          {Kind::kSliding, 120},
          {Kind::kSlidingBidirectional, 1},
          {Kind::kSlidingBidirectional, 6},
          {Kind::kSlidingBidirectional, 75},
          {Kind::kChunked, 1},
          {Kind::kChunked, 7},
          {Kind::kChunked, 33},
          {Kind::kChunked, 130}};
}

// The offset sums of random values against the cell-by-cell sum, over blocks placed every way
// about the band and the chunks' edges (and at negative positions).
TEST(MaskedTexels, OffsetSumsEqualTheSumOverEveryVisibleCell) {
  for (const AttentionWindow& w : CuttingWindows()) {
    for (bool also_causal : {false, true}) {
      SCOPED_TRACE(AttentionWindowText(w) + (also_causal ? " +causal" : ""));
      const int64_t lo = -200, hi = 201;
      std::vector<double> f(static_cast<size_t>(hi - lo));
      for (size_t i = 0; i < f.size(); ++i) f[i] = std::sin(1.7 * static_cast<double>(i) + 0.2);
      const OffsetPrefix p = OffsetPrefix::Make(lo, f);
      int blocks = 0;
      for (int64_t m0 : {-37, 0, 5, 40, 63}) {
        for (int64_t n0 : {-40, 0, 3, 38, 61, 90}) {
          for (int64_t h : {1, 2, 9, 50}) {
            for (int64_t wd : {1, 3, 13, 50}) {
              const auto [a, b] = VisibleOffsetRange(w, also_causal, m0, m0 + h, n0, n0 + wd);
              const long double want =
                  VisibleOffsetSumNaive(p, w, also_causal, m0, m0 + h, n0, n0 + wd);
              if (a >= b) {
                EXPECT_EQ(want, 0.0L);
                continue;
              }
              ASSERT_GE(a, lo);
              ASSERT_LE(b, hi);
              ++blocks;
              const long double got = VisibleOffsetSum(p, w, also_causal, m0, m0 + h, n0, n0 + wd);
              ASSERT_NEAR(static_cast<double>(got), static_cast<double>(want), 1e-9)
                  << m0 << " " << h << " " << n0 << " " << wd;
            }
          }
        }
      }
      EXPECT_GT(blocks, 100);
    }
  }
}

struct Case {
  std::string name;
  ModelParams m;
};

ModelParams Base(Scheme scheme, int64_t d, int64_t L) {
  ModelParams m;
  SetScheme(m, scheme);
  m.pe.d_model = d;
  m.pe.max_len = L;
  return m;
}

// The offset-only schemes: RoPE (plain, partial, YaRN), ALiBi (both modes), T5 (both
// directions), NoPE; xPos and sinusoidal (not offset-only) for the other exact paths.
std::vector<Case> Cases(int64_t L) {
  std::vector<Case> out;
  out.push_back({"rope", Base(Scheme::kRope, 32, L)});
  ModelParams partial = Base(Scheme::kRope, 32, L);
  partial.pe.rope().rotary_fraction = 0.5;
  out.push_back({"rope partial 0.5", partial});
  ModelParams yarn = Base(Scheme::kRope, 32, L);
  yarn.pe.rope().scaling = RopeScaling::kYarn;
  yarn.pe.rope().factor = 8;
  yarn.pe.rope().original_max_len = 64;
  out.push_back({"rope yarn", yarn});
  ModelParams alibi = Base(Scheme::kAlibi, 16, L);
  alibi.pe.alibi().mode = AlibiMode::kSymmetric;
  out.push_back({"alibi symmetric", alibi});
  out.push_back({"alibi causal", Base(Scheme::kAlibi, 16, L)});
  out.push_back({"t5", Base(Scheme::kT5, 16, L)});
  ModelParams t5c = Base(Scheme::kT5, 16, L);
  t5c.pe.t5().direction = T5Direction::kCausal;
  out.push_back({"t5 causal", t5c});
  out.push_back({"nope", Base(Scheme::kNope, 16, L)});
  out.push_back({"xpos", Base(Scheme::kXpos, 16, L)});
  out.push_back({"sinusoidal", Base(Scheme::kSinusoidal, 16, L)});
  return out;
}

AttentionScorer MakeScorer(ModelParams m, const AttentionWindow& w,
                           const AttentionTemperature& t = {}) {
  m.causal_mask = w.kind == Kind::kCausal;
  m.attention_window = w.kind == Kind::kCausal ? AttentionWindow{} : w;
  m.temperature = t;
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  EXPECT_TRUE(e.ok()) << e.message();
  Result<AttentionScorer> s = AttentionScorer::Make(m, e.value());
  EXPECT_TRUE(s.ok()) << s.message();
  return std::move(s).value();
}

// Every texel of rasters of 2 x 2 to 50 x 50 cells against the mean over its visible cells,
// each cell's score from Query and Key (ScoreBlock), summed in long double; reports whether the
// raster says it is exact.
void ExpectTexelsAreVisibleMeans(const AttentionScorer& s, int64_t L, bool also_causal,
                                 bool want_exact) {
  const std::vector<double> keys = ScoreKeys(s, 0, L);
  std::vector<double> cells(static_cast<size_t>(L * L));
  ScoreBlock(s, keys.data(), 0, L, 0, L, cells.data());
  for (int texels :
       {static_cast<int>(L / 2), static_cast<int>(L / 10), static_cast<int>(L / 50), 7}) {
    const ScoreRaster r = ComputeScoreRaster(
        s, {0, static_cast<double>(L), 0, static_cast<double>(L), texels, texels});
    ASSERT_EQ(r.width, texels);
    int cut = 0;
    for (int y = 0; y < r.height; ++y) {
      for (int x = 0; x < r.width; ++x) {
        long double acc = 0;
        int64_t count = 0, all = 0;
        for (int64_t m = r.query_edges[y]; m < r.query_edges[y + 1]; ++m) {
          for (int64_t n = r.key_edges[x]; n < r.key_edges[x + 1]; ++n) {
            ++all;
            if (!NaiveSees(s.window(), also_causal || s.causal_mask(), m, n)) continue;
            acc += cells[static_cast<size_t>(m * L + n)];
            ++count;
          }
        }
        const float got = r.values[static_cast<size_t>(y) * r.width + x];
        if (count == 0) {
          ASSERT_TRUE(std::isnan(got)) << texels << ": " << y << " " << x;
          continue;
        }
        if (count < all) ++cut;
        const double want = static_cast<double>(acc / count);
        ASSERT_NEAR(got, want, 2e-6 * (1 + std::abs(want)))
            << texels << " texels: " << y << " " << x << " (" << count << " of " << all
            << " cells visible)";
      }
    }
    if (want_exact) {
      EXPECT_TRUE(r.exact) << texels;
    }
    EXPECT_GT(cut, 0) << texels;
  }
}

TEST(MaskedTexels, CutTexelsAreTheMeansOfTheirVisibleCells) {
  constexpr int64_t kL = 400;
  for (const Case& c : Cases(kL)) {
    for (const AttentionWindow& w : CuttingWindows()) {
      SCOPED_TRACE(c.name + " " + AttentionWindowText(w));
      const AttentionScorer s = MakeScorer(c.m, w);
      const bool also_causal = s.encoding().Masked(0, 1);
      ExpectTexelsAreVisibleMeans(s, kL, also_causal, /*want_exact=*/true);
    }
  }
}

// Llama 4's temperature with floors of a few positions: tau steps inside the texels.
TEST(MaskedTexels, TemperedCutTexelsAreTheMeansOfTheirVisibleCells) {
  constexpr int64_t kL = 400;
  for (double floor : {3.0, 37.0}) {
    const AttentionTemperature t{TemperatureKind::kLlama4, 0.1, floor};
    for (const Case& c : Cases(kL)) {
      for (const AttentionWindow& w : CuttingWindows()) {
        SCOPED_TRACE(c.name + " " + AttentionWindowText(w) + " floor " + std::to_string(floor));
        const AttentionScorer s = MakeScorer(c.m, w, t);
        ASSERT_TRUE(s.tempered());
        ExpectTexelsAreVisibleMeans(s, kL, s.encoding().Masked(0, 1), /*want_exact=*/true);
      }
    }
  }
}

// A billion positions under sliding:4096, RoPE d 64, content all ones: score(m, n) =
// (1/8) sum_i 2 cos((n - m) w_i), w_i = 10000^(-i/32). Texel row 250 (queries 5e8 to
// 5.02e8) meets the band in key columns 399 to 401 (1.25e6 keys each); in each, the cells at
// offset k number c(k): -k, 1250000 and 750000 + k for k in [-4095, 0]. The texel is
// sum_k c(k) g(k) / sum_k c(k): numpy (float64 cos, long double sums) gave the numbers below;
// here the same sum again with g(k) from Query and Key (AttentionScorer::Score).
TEST(MaskedTexels, BillionPositionBandTexelsEqualTheBandSum) {
  ModelParams m = Base(Scheme::kRope, 64, 1'000'000'000);
  m.content.kind = ScoreContent::Kind::kOnes;
  const AttentionScorer s = MakeScorer(m, {Kind::kSliding, 4096});
  const ScoreRaster r = ComputeScoreRaster(s, {0, 1e9, 0, 1e9, 800, 500});
  ASSERT_EQ(r.width, 800);
  ASSERT_EQ(r.height, 500);
  EXPECT_TRUE(r.exact);
  const int y = 250;
  ASSERT_EQ(r.query_edges[y], 500'000'000);
  ASSERT_EQ(r.query_edges[y + 1], 502'000'000);
  const struct {
    int x;
    double numpy;
  } texels[] = {{399, 0.5434610864936797}, {400, 1.0023724471143696}, {401, 1.0036287047121057}};
  for (const auto& t : texels) {
    SCOPED_TRACE(t.x);
    const int64_t n0 = r.key_edges[t.x], n1 = r.key_edges[t.x + 1];
    ASSERT_EQ(n1 - n0, 1'250'000);
    long double acc = 0, cells = 0;
    for (int64_t k = -4095; k <= 0; ++k) {
      // Rows m with m + k a key of the texel.
      const int64_t lo = std::max(r.query_edges[y], n0 - k);
      const int64_t hi = std::min(r.query_edges[y + 1], n1 - k);
      if (hi <= lo) continue;
      acc += static_cast<long double>(hi - lo) * s.Score(501'000'000, 501'000'000 + k);
      cells += static_cast<long double>(hi - lo);
    }
    const double want = static_cast<double>(acc / cells);
    EXPECT_NEAR(want, t.numpy, 1e-9);  // Score's angles at 5e8: within 1e-10
    const float got = r.values[static_cast<size_t>(y) * r.width + t.x];
    EXPECT_NEAR(got, want, 1e-6 * std::abs(want));
  }
  // The texels beside the band are masked.
  EXPECT_TRUE(std::isnan(r.values[static_cast<size_t>(y) * r.width + 398]));
  EXPECT_TRUE(std::isnan(r.values[static_cast<size_t>(y) * r.width + 402]));
}

}  // namespace
}  // namespace pe
