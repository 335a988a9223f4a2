// Texels an attention window or the causal mask cuts partly: exact means of their visible cells
// (analysis/masked_texels.h), against the mean over every visible cell written out one by one,
// for every window and texels of 2 x 2 to 50 x 50 cells, and at a billion positions against the
// band's sum worked out here and in numpy.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <span>

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

// f(k) = constant + sum_w (hr cos(w k) - hi sin(w k)) summed over the visible cells, in long
// double: cell by cell (small blocks) or, for blocks of thousands of rows, each offset's count
// of visible cells found row by row.
long double NaiveWaveSum(std::span<const WaveTerm> terms, double constant, const AttentionWindow& w,
                         bool also_causal, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  auto f = [&](int64_t k) {
    long double v = constant;
    for (const WaveTerm& t : terms) {
      const long double a = static_cast<long double>(t.w) * static_cast<long double>(k);
      v += static_cast<long double>(t.hr) * std::cos(a) -
           static_cast<long double>(t.hi) * std::sin(a);
    }
    return v;
  };
  long double total = 0;
  if ((m1 - m0) * (n1 - n0) <= 4096) {
    for (int64_t m = m0; m < m1; ++m) {
      for (int64_t n = n0; n < n1; ++n) {
        if (NaiveSees(w, also_causal, m, n)) total += f(n - m);
      }
    }
    return total;
  }
  const int64_t k_lo = n0 - (m1 - 1);
  std::vector<int64_t> count(static_cast<size_t>(n1 - m0 - k_lo), 0);
  for (int64_t m = m0; m < m1; ++m) {
    for (int64_t n = n0; n < n1; ++n) {
      if (NaiveSees(w, also_causal, m, n)) ++count[static_cast<size_t>(n - m - k_lo)];
    }
  }
  for (size_t i = 0; i < count.size(); ++i) {
    if (count[i] != 0) {
      total += static_cast<long double>(count[i]) * f(k_lo + static_cast<int64_t>(i));
    }
  }
  return total;
}

// Waves from very slow (w N far below 1, where the Dirichlet kernel's derivative cancels) to
// fast, and w = 0.
std::vector<WaveTerm> TestWaves() {
  return {{0.0, 0.3, 0.0},     {1e-9, 0.7, -0.2}, {3e-6, -0.4, 0.9},  {2.5e-4, 1.1, 0.3},
          {0.013, -0.6, -0.5}, {0.2, 0.8, 0.1},   {1.0, -0.25, 0.45}, {2.9, 0.5, -0.35}};
}

// The closed form (pieces of the count of cells at each offset, Dirichlet kernels and their
// derivative) against the long double sum over every visible cell, for the windows whose key
// bounds are m + c, blocks about the band's edges from 1 x 1 to 60 x 45 cells.
TEST(MaskedTexels, WaveSumsEqualTheSumOverEveryVisibleCell) {
  const std::vector<WaveTerm> terms = TestWaves();
  const OffsetWaves f = OffsetWaves::Make(terms, 0.37);
  long double scale = std::abs(0.37);
  for (const WaveTerm& t : terms) scale += std::hypot(t.hr, t.hi);
  const std::vector<AttentionWindow> windows = {{Kind::kFull, 0},
                                                {Kind::kCausal, 0},
                                                {Kind::kSliding, 1},
                                                {Kind::kSliding, 3},
                                                {Kind::kSliding, 17},
                                                {Kind::kSlidingBidirectional, 1},
                                                {Kind::kSlidingBidirectional, 6},
                                                {Kind::kSlidingBidirectional, 75}};
  for (const AttentionWindow& w : windows) {
    for (bool also_causal : {false, true}) {
      SCOPED_TRACE(AttentionWindowText(w) + (also_causal ? " +causal" : ""));
      ASSERT_TRUE(HasLinearKeyBounds(w, also_causal));
      int blocks = 0;
      for (int64_t m0 : {-37, 0, 5, 40}) {
        for (int64_t n0 : {-40, 0, 3, 38, 61}) {
          for (int64_t h : {1, 2, 9, 60}) {
            for (int64_t wd : {1, 4, 13, 45}) {
              const long double want =
                  NaiveWaveSum(terms, 0.37, w, also_causal, m0, m0 + h, n0, n0 + wd);
              const long double got = VisibleWaveSum(f, w, also_causal, m0, m0 + h, n0, n0 + wd);
              const int64_t open = VisibleCells(w, also_causal, m0, m0 + h, n0, n0 + wd);
              if (open > 0 && open < h * wd) ++blocks;
              ASSERT_NEAR(static_cast<double>(got), static_cast<double>(want),
                          1e-13 * static_cast<double>(scale) * static_cast<double>(h * wd))
                  << m0 << " " << h << " " << n0 << " " << wd;
            }
          }
        }
      }
      if (w.kind != Kind::kFull || also_causal) {
        EXPECT_GT(blocks, 50);
      }
    }
  }
}

// Blocks of thousands of rows and keys across the diagonal, and far from the origin: the slow
// waves' sums (w N down to 1e-6) keep their digits.
TEST(MaskedTexels, LargeCutBlocksKeepTheSlowWavesDigits) {
  const std::vector<WaveTerm> terms = TestWaves();
  const OffsetWaves f = OffsetWaves::Make(terms, -0.2);
  for (const AttentionWindow& w :
       {AttentionWindow{Kind::kCausal, 0}, AttentionWindow{Kind::kSliding, 1500},
        AttentionWindow{Kind::kSlidingBidirectional, 3001}}) {
    SCOPED_TRACE(AttentionWindowText(w));
    for (const auto& [m0, h, n0, wd] : std::vector<std::array<int64_t, 4>>{
             {0, 2000, 0, 3000}, {123'456'789, 1700, 123'456'000, 2500}, {5000, 999, 3900, 2048}}) {
      const long double want = NaiveWaveSum(terms, -0.2, w, false, m0, m0 + h, n0, n0 + wd);
      const long double got = VisibleWaveSum(f, w, false, m0, m0 + h, n0, n0 + wd);
      const int64_t open = VisibleCells(w, false, m0, m0 + h, n0, n0 + wd);
      ASSERT_GT(open, 0);
      // Means agree to 1e-12 of the waves' amplitudes.
      EXPECT_NEAR(static_cast<double>(got / open), static_cast<double>(want / open), 1e-12)
          << m0 << " " << h << " " << n0 << " " << wd;
    }
  }
}

// The series of sin(x) / x and its derivative meet the closed forms at |x| = 1/2.
TEST(MaskedTexels, SincSeriesMeetTheClosedForms) {
  for (double x : {0.4999999, -0.4999999, 0.3, 1e-3}) {
    const long double xl = x;
    const long double s = std::sin(xl) / xl, ds = (xl * std::cos(xl) - std::sin(xl)) / (xl * xl);
    EXPECT_NEAR(SincOf(x, std::sin(x)), static_cast<double>(s), 3e-16);
    EXPECT_NEAR(SincSlopeOf(x, std::sin(x), std::cos(x)), static_cast<double>(ds), 1e-15) << x;
  }
  EXPECT_EQ(SincOf(0.0, 0.0), 1.0);
  EXPECT_EQ(SincSlopeOf(0.0, 0.0, 1.0), 0.0);
}

// A billion positions under the causal mask, RoPE d 64, content all ones: score(m, n) =
// (1/8) sum_i 2 cos((n - m) w_i), w_i = 10000^(-i/32). The diagonal's texels span 2e6 rows and
// 1.25e6 keys, some 3.25e6 offsets each: their means come from the closed forms (past what the
// offsets' table holds). In texel row 250 (queries 5e8 to 5.02e8) the diagonal cuts key columns
// 400 and 401, in row 77 (1.54e8 to 1.56e8) columns 123 and 124; the cells at offset k number
// c(k) = min(m1, n1 - k) - max(m0, n0 - k) for k <= 0. numpy (float64 cos, long double sums of
// c(k) g(k) / sum c(k)) gave the numbers below; the test sums the same again with g(k) from
// ScoreRow.
TEST(MaskedTexels, BillionPositionCausalTexelsEqualTheDiagonalSum) {
  ModelParams m = Base(Scheme::kRope, 64, 1'000'000'000);
  m.content.kind = ScoreContent::Kind::kOnes;
  const AttentionScorer s = MakeScorer(m, {Kind::kCausal, 0});
  const ScoreRaster r = ComputeScoreRaster(s, {0, 1e9, 0, 1e9, 800, 500});
  ASSERT_EQ(r.width, 800);
  ASSERT_EQ(r.height, 500);
  EXPECT_TRUE(r.exact);
  const struct {
    int y, x;
    int64_t cells;
    double numpy;
  } texels[] = {{250, 400, 1718750625000, 2.3704260461798968e-05},
                {250, 401, 281250375000, 8.548355084622673e-05},
                {77, 123, 2000000500000, -1.7496910037579758e-05},
                {77, 124, 500000500000, 7.51640039007907e-05}};
  std::vector<double> g;
  for (const auto& t : texels) {
    SCOPED_TRACE(std::to_string(t.y) + " " + std::to_string(t.x));
    const int64_t m0 = r.query_edges[t.y], m1 = r.query_edges[t.y + 1];
    const int64_t n0 = r.key_edges[t.x], n1 = r.key_edges[t.x + 1];
    ASSERT_EQ(m1 - m0, 2'000'000);
    ASSERT_EQ(n1 - n0, 1'250'000);
    EXPECT_EQ(s.VisibleCells(m0, m1, n0, n1), t.cells);
    // g(k) for k in [k0, 0]: the keys k0 .. 0 after query 5.01e8.
    const int64_t k0 = n0 - m1 + 1, q = 501'000'000;
    g.resize(static_cast<size_t>(1 - k0));
    ScoreRow(s, q, q + k0, 1 - k0, g.data());
    long double acc = 0, cells = 0;
    for (int64_t k = k0; k <= 0; ++k) {
      const int64_t c = std::min(m1, n1 - k) - std::max(m0, n0 - k);
      if (c <= 0) continue;
      acc += static_cast<long double>(c) * g[static_cast<size_t>(k - k0)];
      cells += static_cast<long double>(c);
    }
    const double want = static_cast<double>(acc / cells);
    EXPECT_NEAR(want, t.numpy, 1e-11);
    const float got = r.values[static_cast<size_t>(t.y) * r.width + t.x];
    EXPECT_NEAR(got, t.numpy, 1e-6 * std::abs(t.numpy));
  }
  // Beside the diagonal: wholly visible on its left, masked on its right.
  EXPECT_FALSE(std::isnan(r.values[250 * 800 + 399]));
  EXPECT_TRUE(std::isnan(r.values[250 * 800 + 402]));
}

// NoPE's content score is one number: under the causal mask at a billion positions every
// visible texel is it, exactly.
TEST(MaskedTexels, BillionPositionCausalNopeIsExact) {
  const AttentionScorer s = MakeScorer(Base(Scheme::kNope, 64, 1'000'000'000), {Kind::kCausal, 0});
  const ScoreRaster r = ComputeScoreRaster(s, {0, 1e9, 0, 1e9, 800, 500});
  EXPECT_TRUE(r.exact);
  const double want = s.Score(5, 3);
  for (int x : {0, 400, 401}) EXPECT_NEAR(r.values[250 * 800 + x], want, 1e-6 * std::abs(want));
}

// Pieces u + v k (ALiBi-like sides, T5-like runs) against the sum over every visible cell.
TEST(MaskedTexels, SegmentSumsEqualTheSumOverEveryVisibleCell) {
  const std::vector<OffsetSegment> segments = {{-400, -30, 0.25, -0.75},
                                               {-30, -3, -1.5, 0.0},
                                               {-3, 1, 0.0, 0.125},
                                               {1, 7, 2.0, -0.5},
                                               {7, 400, 0.5, 0.0}};
  auto f = [&](int64_t k) {
    for (const OffsetSegment& g : segments) {
      if (k >= g.a && k < g.b)
        return static_cast<long double>(g.u) + g.v * static_cast<long double>(k);
    }
    return 0.0L;
  };
  for (const AttentionWindow& w :
       {AttentionWindow{Kind::kFull, 0}, AttentionWindow{Kind::kCausal, 0},
        AttentionWindow{Kind::kSliding, 5}, AttentionWindow{Kind::kSliding, 64},
        AttentionWindow{Kind::kSlidingBidirectional, 20}}) {
    for (bool also_causal : {false, true}) {
      SCOPED_TRACE(AttentionWindowText(w) + (also_causal ? " +causal" : ""));
      for (int64_t m0 : {-37, 0, 5, 40}) {
        for (int64_t n0 : {-40, 0, 3, 38, 61}) {
          for (int64_t h : {1, 2, 9, 60}) {
            for (int64_t wd : {1, 4, 13, 45}) {
              long double want = 0;
              for (int64_t m = m0; m < m0 + h; ++m) {
                for (int64_t n = n0; n < n0 + wd; ++n) {
                  if (NaiveSees(w, also_causal, m, n)) want += f(n - m);
                }
              }
              const long double got =
                  VisibleSegmentSum(segments, w, also_causal, m0, m0 + h, n0, n0 + wd);
              ASSERT_NEAR(static_cast<double>(got), static_cast<double>(want), 1e-9)
                  << m0 << " " << h << " " << n0 << " " << wd;
            }
          }
        }
      }
    }
  }
}

// T5 (bidirectional, 32 buckets) and symmetric ALiBi under the causal mask at a billion
// positions: the diagonal's texels are exact, each the content's one number plus
// sum_k c(k) bias(k) / sum_k c(k) over its 3.25e6 offsets, summed here offset by offset.
TEST(MaskedTexels, BillionPositionCausalBiasTexelsEqualTheDiagonalSum) {
  ModelParams alibi = Base(Scheme::kAlibi, 16, 1'000'000'000);
  alibi.pe.alibi().mode = AlibiMode::kSymmetric;
  for (const ModelParams& m : {Base(Scheme::kT5, 16, 1'000'000'000), alibi}) {
    const AttentionScorer s = MakeScorer(m, {Kind::kCausal, 0});
    SCOPED_TRACE(std::string(s.encoding().descriptor().name));
    const ScoreRaster r = ComputeScoreRaster(s, {0, 1e9, 0, 1e9, 800, 500});
    ASSERT_EQ(r.width, 800);
    EXPECT_TRUE(r.exact);
    const double content = s.Score(7, 7) - s.encoding().Bias(7, 7);
    for (const auto& [y, x] : std::vector<std::pair<int, int>>{{250, 400}, {250, 401}, {77, 124}}) {
      const int64_t m0 = r.query_edges[y], m1 = r.query_edges[y + 1];
      const int64_t n0 = r.key_edges[x], n1 = r.key_edges[x + 1];
      long double acc = 0, cells = 0;
      for (int64_t k = n0 - m1 + 1; k <= 0; ++k) {
        const int64_t c = std::min(m1, n1 - k) - std::max(m0, n0 - k);
        if (c <= 0) continue;
        acc += static_cast<long double>(c) * s.encoding().Bias(1'000'000, 1'000'000 + k);
        cells += static_cast<long double>(c);
      }
      const double want = content + static_cast<double>(acc / cells);
      EXPECT_NEAR(r.values[static_cast<size_t>(y) * r.width + x], want, 1e-6 * std::abs(want))
          << y << " " << x;
    }
  }
}

// Llama 4's temperature (floor 1e6) under the causal mask at a billion positions, RoPE d 64: the
// diagonal's texels (3.25e6 offsets each, past the offsets' table) are summed in closed form
// over each run of one tau. Here the same sum run by run and offset by offset: the run's rows
// [p, q) at offset k number c(k), each scoring tau(p) times the untempered score (ScoreRow of
// the same scheme without the temperature: q . k alone, no bias) at query p and key p + k.
TEST(MaskedTexels, BillionPositionTemperedCausalTexelsEqualTheRunSums) {
  ModelParams m = Base(Scheme::kRope, 64, 1'000'000'000);
  m.content.kind = ScoreContent::Kind::kOnes;
  const AttentionTemperature t{TemperatureKind::kLlama4, 0.1, 1e6};
  const AttentionScorer s = MakeScorer(m, {Kind::kCausal, 0}, t);
  const AttentionScorer plain = MakeScorer(m, {Kind::kCausal, 0});
  ASSERT_TRUE(s.tempered());
  const ScoreRasterRequest req{0, 1e9, 0, 1e9, 800, 500};
  ASSERT_TRUE(CheckScoreRaster(s, req).ok());
  const ScoreRaster r = ComputeScoreRaster(s, req);
  ASSERT_EQ(r.width, 800);
  EXPECT_TRUE(r.exact);
  std::vector<double> g;
  for (const auto& [y, x] : std::vector<std::pair<int, int>>{{250, 400}, {77, 124}}) {
    const int64_t m0 = r.query_edges[y], m1 = r.query_edges[y + 1];
    const int64_t n0 = r.key_edges[x], n1 = r.key_edges[x + 1];
    long double acc = 0, cells = 0;
    int runs = 0;
    for (int64_t p = m0; p < m1;) {
      // The run of one tau from p: tau steps where floor((p + 1) / 1e6) does.
      const int64_t q = std::min(m1, ((p + 1) / 1'000'000 + 1) * 1'000'000 - 1);
      const int64_t k0 = n0 - q + 1;
      if (k0 > 0) {  // rows before the texel's first key see none of its keys
        p = q;
        continue;
      }
      ++runs;
      g.resize(static_cast<size_t>(1 - k0));
      ScoreRow(plain, p, p + k0, 1 - k0, g.data());
      const double tau = TemperatureAt(t, p);
      EXPECT_NEAR(s.Score(p, p - 3), tau * plain.Score(p, p - 3), 1e-9);
      for (int64_t k = k0; k <= 0; ++k) {
        const int64_t c = std::min(q, n1 - k) - std::max(p, n0 - k);
        if (c <= 0) continue;
        acc += static_cast<long double>(c) * tau * g[static_cast<size_t>(k - k0)];
        cells += static_cast<long double>(c);
      }
      p = q;
    }
    EXPECT_GE(runs, 2);
    EXPECT_EQ(cells, static_cast<long double>(s.VisibleCells(m0, m1, n0, n1)));
    const double want = static_cast<double>(acc / cells);
    EXPECT_NEAR(r.values[static_cast<size_t>(y) * r.width + x], want, 1e-6 * std::abs(want) + 1e-12)
        << y << " " << x;
  }
}

// A learned table under every window: the cut texels are exact means of their visible cells
// (prefix sums of the queries, the keys and q_m . K(m + c) over the table's positions; under
// chunked:C, K at each chunk's start), with and without a temperature.
TEST(MaskedTexels, LearnedCutTexelsAreTheMeansOfTheirVisibleCells) {
  constexpr int64_t kL = 400;
  for (const AttentionTemperature& t :
       {AttentionTemperature{}, AttentionTemperature{TemperatureKind::kLlama4, 0.1, 37.0}}) {
    for (const AttentionWindow& w : CuttingWindows()) {
      SCOPED_TRACE(AttentionWindowText(w) + (t.kind == TemperatureKind::kNone ? "" : " tempered"));
      const AttentionScorer s = MakeScorer(Base(Scheme::kLearned, 16, kL), w, t);
      ExpectTexelsAreVisibleMeans(s, kL, false, /*want_exact=*/t.kind == TemperatureKind::kNone);
    }
  }
}

}  // namespace
}  // namespace pe
