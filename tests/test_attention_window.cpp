// The attention windows (full, causal, sliding, sliding-bidirectional, chunked) against their
// rules written out naively, their closed-form cell counts against loops, the score raster, the
// attention row and the decay curve under them, and the softmax scale against exp(s q.k).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "analysis/attention_row.h"
#include "analysis/attention_score.h"
#include "model/attention_window.h"
#include "model/param_fields.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

using Kind = AttentionWindowKind;

// The rules as the reference code states them (HF masking_utils.py: causal_mask_function,
// sliding_window_overlay, sliding_window_bidirectional_overlay with local_attention // 2,
// chunked_overlay), one cell at a time.
bool NaiveSees(const AttentionWindow& w, int64_t m, int64_t n) {
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
      return n / w.size == m / w.size && n <= m;  // positions >= 0 here
  }
  return false;
}

std::vector<AttentionWindow> Windows() {
  return {{Kind::kFull, 0},
          {Kind::kCausal, 0},
          {Kind::kSliding, 5},
          {Kind::kSliding, 1},
          {Kind::kSliding, 100},
          {Kind::kSlidingBidirectional, 5},
          {Kind::kSlidingBidirectional, 1},
          {Kind::kSlidingBidirectional, 8},
          {Kind::kChunked, 8},
          {Kind::kChunked, 1},
          {Kind::kChunked, 37}};
}

TEST(AttentionWindow, MasksCountsAndRowRunsMatchANaiveLoop) {
  constexpr int64_t kL = 37;
  for (const AttentionWindow& w : Windows()) {
    for (bool also_causal : {false, true}) {
      SCOPED_TRACE(AttentionWindowText(w) + (also_causal ? " + causal scheme" : ""));
      auto naive = [&](int64_t m, int64_t n) {
        return NaiveSees(w, m, n) && (!also_causal || n <= m);
      };
      for (int64_t m = 0; m < kL; ++m) {
        for (int64_t n = 0; n < kL; ++n)
          ASSERT_EQ(Sees(w, also_causal, m, n), naive(m, n)) << m << " " << n;
      }
      // Every block of a coarse grid of edges, and every one-row and one-column block.
      const std::vector<int64_t> edges = {0, 1, 2, 3, 5, 7, 8, 9, 13, 16, 17, 24, 30, 36, 37};
      for (size_t a = 0; a < edges.size(); ++a) {
        for (size_t b = a + 1; b < edges.size(); ++b) {
          for (size_t c = 0; c < edges.size(); ++c) {
            for (size_t d = c + 1; d < edges.size(); ++d) {
              const int64_t m0 = edges[a], m1 = edges[b], n0 = edges[c], n1 = edges[d];
              int64_t count = 0, first = m1, last = m0;
              for (int64_t m = m0; m < m1; ++m) {
                bool any = false;
                for (int64_t n = n0; n < n1; ++n) {
                  count += naive(m, n) ? 1 : 0;
                  any = any || naive(m, n);
                }
                if (any) {
                  first = std::min(first, m);
                  last = std::max(last, m + 1);
                }
              }
              ASSERT_EQ(VisibleCells(w, also_causal, m0, m1, n0, n1), count)
                  << m0 << ".." << m1 << " x " << n0 << ".." << n1;
              const auto [r0, r1] = RowsSeeing(w, also_causal, m0, m1, n0, n1);
              if (count == 0) {
                EXPECT_EQ(r0, r1);
              } else {
                EXPECT_EQ(r0, first);
                EXPECT_EQ(r1, last);
              }
            }
          }
        }
      }
    }
  }
  // Far from 0 and over a billion rows: the closed form against the rule summed by rows in
  // closed form per row (min/max of the run), so a count past 2^32 is checked too.
  for (const AttentionWindow& w :
       {AttentionWindow{Kind::kSliding, 4096}, AttentionWindow{Kind::kChunked, 8192},
        AttentionWindow{Kind::kSlidingBidirectional, 4096}}) {
    const int64_t m0 = 999'000'000, m1 = 1'000'000'000, n0 = 999'500'000, n1 = 999'800'000;
    int64_t count = 0;
    for (int64_t m = m0; m < m1; ++m) {
      const KeyRun run = VisibleKeys(w, false, m);
      count += std::max<int64_t>(0, std::min(run.hi, n1) - std::max(run.lo, n0));
    }
    EXPECT_EQ(VisibleCells(w, false, m0, m1, n0, n1), count) << AttentionWindowText(w);
  }
}

TEST(AttentionWindow, TextReadsBackAndBadTextIsRefusedNamingTheFlag) {
  for (const AttentionWindow& w : Windows()) {
    Result<AttentionWindow> back = ParseAttentionWindow(AttentionWindowText(w));
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back.value(), w);
  }
  for (const std::string bad :
       {"sliding:0", "chunked:0", "sliding-bidirectional:-3", "window", "sliding:", "sliding",
        "chunked", "sliding:4k", "sliding:1.5", "Sliding:4", "sliding:2147483649", ""}) {
    Result<AttentionWindow> w = ParseAttentionWindow(bad);
    ASSERT_FALSE(w.ok()) << bad;
    EXPECT_NE(w.message().find("--attention-window"), std::string::npos) << w.message();
    if (!bad.empty()) {
      const std::string value =
          bad.substr(bad.find(':') == std::string::npos ? 0 : bad.find(':') + 1);
      EXPECT_NE(w.message().find(value), std::string::npos) << w.message();
    }
  }
  EXPECT_NE(ParseAttentionWindow("sliding:0").message().find("from 1"), std::string::npos);
  EXPECT_NE(ParseAttentionWindow("window").message().find("sliding:W"), std::string::npos);
  // Through the field table, as the command line and the window set it: causal lands in
  // --causal's field (so metadata reads as before), a band in its own.
  ModelParams m;
  const ParamField* f = FindParamField("--attention-window");
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->set(m, "sliding:4096").ok());
  EXPECT_EQ(m.attention_window, (AttentionWindow{Kind::kSliding, 4096}));
  EXPECT_FALSE(m.causal_mask);
  EXPECT_TRUE(f->recorded(m));
  ASSERT_TRUE(FindParamField("--causal")->set(m, "true").ok());
  EXPECT_TRUE(m.causal_mask);
  EXPECT_EQ(m.attention_window, AttentionWindow{});
  EXPECT_EQ(f->get(m), "causal");
  EXPECT_FALSE(f->recorded(m));
  ASSERT_TRUE(f->set(m, "chunked:8").ok());
  EXPECT_FALSE(m.causal_mask);
  EXPECT_EQ(f->get(m), "chunked:8");
  // The softmax scale: finite and above 0, or "default".
  const ParamField* s = FindParamField("--softmax-scale");
  ASSERT_NE(s, nullptr);
  for (const std::string bad : {"0", "-1", "nan", "inf", "-inf", "", "1/8"}) {
    const Status st = s->set(m, bad);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("--softmax-scale"), std::string::npos);
    EXPECT_NE(st.message().find("greater than 0"), std::string::npos);
    EXPECT_NE(st.message().find("\"" + bad + "\""), std::string::npos) << st.message();
  }
  EXPECT_FALSE(s->recorded(m));
  ASSERT_TRUE(s->set(m, "0.125").ok());
  EXPECT_EQ(m.softmax_scale, 0.125);
  EXPECT_TRUE(s->recorded(m));
  ASSERT_TRUE(s->set(m, "default").ok());
  EXPECT_EQ(m.softmax_scale, 0.0);
}

ModelParams WindowParams(Scheme scheme, int64_t d, int64_t L, const AttentionWindow& w) {
  ModelParams m;
  SetScheme(m, scheme);
  m.pe.d_model = d;
  m.pe.max_len = L;
  if (scheme == Scheme::kAlibi) m.pe.alibi().mode = AlibiMode::kSymmetric;
  m.causal_mask = w.kind == Kind::kCausal;
  m.attention_window = w.kind == Kind::kCausal ? AttentionWindow{} : w;
  return m;
}

AttentionScorer Scorer(const ModelParams& m) {
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  EXPECT_TRUE(e.ok()) << e.message();
  Result<AttentionScorer> s = AttentionScorer::Make(m, e.value());
  EXPECT_TRUE(s.ok()) << s.message();
  return std::move(s).value();
}

// Each texel the mean of its visible cells (NaN when none), at one cell per texel and at a few
// (every cell sampled, so exact), for an added, a rotary and a bias scheme.
TEST(AttentionWindow, ScoreRasterTexelsAreTheMeansOfTheirVisibleCells) {
  constexpr int64_t kL = 37;
  for (Scheme scheme : {Scheme::kSinusoidal, Scheme::kRope, Scheme::kAlibi, Scheme::kXpos}) {
    for (const AttentionWindow& w : Windows()) {
      SCOPED_TRACE(std::string(SchemeName(scheme)) + " " + AttentionWindowText(w));
      const AttentionScorer s = Scorer(WindowParams(scheme, 16, kL, w));
      for (int64_t m = 0; m < kL; ++m) {
        for (int64_t n = 0; n < kL; ++n) ASSERT_EQ(std::isnan(s.Score(m, n)), !NaiveSees(w, m, n));
      }
      for (auto [tw, th] : {std::pair{37, 37}, std::pair{9, 7}, std::pair{5, 6}}) {
        const ScoreRaster r = ComputeScoreRaster(s, {0, kL, 0, kL, tw, th});
        ASSERT_EQ(r.width, tw);
        for (int y = 0; y < r.height; ++y) {
          for (int x = 0; x < r.width; ++x) {
            double acc = 0;
            int64_t cells = 0;
            for (int64_t m = r.query_edges[y]; m < r.query_edges[y + 1]; ++m) {
              for (int64_t n = r.key_edges[x]; n < r.key_edges[x + 1]; ++n) {
                if (!NaiveSees(w, m, n)) continue;
                acc += s.Score(m, n);
                ++cells;
              }
            }
            const float got = r.values[static_cast<size_t>(y) * r.width + x];
            if (cells == 0) {
              EXPECT_TRUE(std::isnan(got)) << y << " " << x;
            } else {
              const double want = acc / static_cast<double>(cells);
              EXPECT_NEAR(got, want, 1e-5 * (1 + std::abs(want))) << y << " " << x;
            }
          }
        }
      }
    }
  }
}

// The softmax row: weights sum to 1 over the visible keys, 0 outside, and agree with the
// softmax of the visible scores written out here; for an enumerated row (rope) and the closed
// forms (alibi, t5).
TEST(AttentionWindow, AttentionRowSumsToOneOverTheVisibleKeysAndIsZeroOutside) {
  constexpr int64_t kL = 37;
  for (Scheme scheme : {Scheme::kRope, Scheme::kAlibi, Scheme::kT5, Scheme::kSinusoidal}) {
    for (const AttentionWindow& w : Windows()) {
      const AttentionScorer s = Scorer(WindowParams(scheme, 8, kL, w));
      for (int64_t q : {int64_t{0}, int64_t{7}, int64_t{8}, int64_t{20}, int64_t{36}}) {
        SCOPED_TRACE(std::string(SchemeName(scheme)) + " " + AttentionWindowText(w) + " query " +
                     std::to_string(q));
        Result<AttentionRow> row = AttentionRow::Make(s, q);
        ASSERT_TRUE(row.ok()) << row.message();
        long double z = 0, sum = 0;
        double hi = -INFINITY;
        int64_t visible = 0;
        for (int64_t n = 0; n < kL; ++n) {
          if (NaiveSees(w, q, n)) hi = std::max(hi, s.Score(q, n));
        }
        for (int64_t n = 0; n < kL; ++n) {
          if (NaiveSees(w, q, n)) z += std::exp(static_cast<long double>(s.Score(q, n) - hi));
        }
        for (int64_t n = 0; n < kL; ++n) {
          const double weight = row.value().Weight(n);
          sum += weight;
          if (!NaiveSees(w, q, n)) {
            EXPECT_EQ(weight, 0.0) << n;
            continue;
          }
          ++visible;
          const auto want =
              static_cast<double>(std::exp(static_cast<long double>(s.Score(q, n) - hi)) / z);
          EXPECT_NEAR(weight, want, 1e-13) << n;
        }
        EXPECT_NEAR(static_cast<double>(sum), 1.0, 1e-13);
        EXPECT_EQ(row.value().unmasked_keys(), visible);
      }
    }
  }
}

// With ones content and RoPE at d = 2 (one pair, frequency theta^0 = 1), q_m . k_n =
// 2 cos(m - n) (RoFormer 3.4.2), so a softmax scale s weighs key n by exp(2 s cos(m - n)):
// the ratio of two keys' weights is exp(2 s (cos(m - n1) - cos(m - n2))). Default s = 1/sqrt(2).
TEST(AttentionWindow, SoftmaxScaleWeighsKeysAsExpOfScaleTimesQDotK) {
  ModelParams m = WindowParams(Scheme::kRope, 2, 10, {});
  m.content.kind = ScoreContent::Kind::kOnes;
  for (double scale : {0.0, 0.25, 1.8739, 3.0}) {
    m.softmax_scale = scale;
    const AttentionScorer s = Scorer(m);
    const double s_eff = scale > 0 ? scale : 1.0 / std::sqrt(2.0);
    EXPECT_DOUBLE_EQ(s.scale(), s_eff);
    const int64_t q = 9;
    Result<AttentionRow> row = AttentionRow::Make(s, q);
    ASSERT_TRUE(row.ok());
    for (int64_t n = 0; n < 10; ++n) {
      EXPECT_NEAR(s.Score(q, n), 2 * s_eff * std::cos(static_cast<double>(q - n)), 1e-12);
      const double ratio = row.value().Weight(n) / row.value().Weight(q);
      EXPECT_NEAR(ratio, std::exp(2 * s_eff * (std::cos(static_cast<double>(q - n)) - 1.0)),
                  1e-12 * ratio)
          << "scale " << scale << " key " << n;
    }
    // The raster takes the same factor (one cell per texel, and the wave paths at many).
    const ScoreRaster r = ComputeScoreRaster(s, {0, 10, 0, 10, 10, 10});
    EXPECT_NEAR(r.values[9 * 10 + 3], 2 * s_eff * std::cos(6.0), 1e-6);
  }
  // A bias is added after the scale (HF BLOOM/MPT: baddbmm(alibi, q, k^T, alpha=scale)).
  ModelParams a = WindowParams(Scheme::kAlibi, 16, 10, {});
  a.content.kind = ScoreContent::Kind::kOnes;
  a.softmax_scale = 0.5;
  // ones . ones = 16, times 0.5; head 0 of 8 has slope 2^-1: bias -0.5 |m - n|.
  EXPECT_DOUBLE_EQ(Scorer(a).Score(7, 3), 8.0 - 0.5 * 4);
}

// The decay curve: a window hides the query from the key past its reach.
TEST(AttentionWindow, DecayCurveIsMaskedPastTheWindow) {
  std::vector<int64_t> dist(37);
  for (int64_t k = 0; k < 37; ++k) dist[static_cast<size_t>(k)] = k;
  for (const AttentionWindow& w : Windows()) {
    const AttentionScorer s = Scorer(WindowParams(Scheme::kRope, 8, 37, w));
    const std::vector<double> v = DecayCurve(s, dist);
    for (int64_t k = 0; k < 37; ++k) {
      EXPECT_EQ(std::isnan(v[static_cast<size_t>(k)]), !NaiveSees(w, k, 0))
          << AttentionWindowText(w) << " k " << k;
    }
  }
}

// A billion positions under sliding:4096: the texels on the diagonal hold a score (the band is
// found in closed form, not by luck of the samples), the far ones are masked, built quickly.
TEST(AttentionWindow, BillionPositionRasterFindsTheBand) {
  for (const AttentionWindow& w :
       {AttentionWindow{Kind::kSliding, 4096}, AttentionWindow{Kind::kChunked, 8192},
        AttentionWindow{Kind::kSlidingBidirectional, 128}}) {
    for (Scheme scheme : {Scheme::kRope, Scheme::kSinusoidal, Scheme::kAlibi}) {
      SCOPED_TRACE(std::string(SchemeName(scheme)) + " " + AttentionWindowText(w));
      const AttentionScorer s = Scorer(WindowParams(scheme, 64, 1'000'000'000, w));
      const ScoreRaster r = ComputeScoreRaster(s, {0, 1e9, 0, 1e9, 400, 400});
      ASSERT_EQ(r.width, 400);
      for (int y = 0; y < r.height; ++y) {
        for (int x = 0; x < r.width; ++x) {
          const int64_t open = s.VisibleCells(r.query_edges[y], r.query_edges[y + 1],
                                              r.key_edges[x], r.key_edges[x + 1]);
          ASSERT_EQ(std::isnan(r.values[static_cast<size_t>(y) * r.width + x]), open == 0)
              << y << " " << x;
        }
      }
    }
  }
}

// The score figure at a billion positions under sliding:4096 stays within its estimate's view
// of the budget (the budget test's figure sizes), and the view names the window.
TEST(AttentionWindow, ScoreFigureAtABillionPositionsNamesTheWindow) {
  ModelParams m = WindowParams(Scheme::kRope, 128, 1'000'000'000, {Kind::kSliding, 4096});
  m.softmax_scale = 0.1657;
  const Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  ASSERT_TRUE(e.ok());
  const ViewSelection sel = DefaultViews(m, *e.value());
  const FigureSize size{480, 320, 1.0};
  ASSERT_TRUE(CheckFigureMemory(ViewKind::kScore, m, sel, size, FigureFormat::kPng).ok());
  const Result<Figure> f =
      BuildViewFigure(ViewKind::kScore, m, sel, size, FigureFormat::kPng, "", e.value());
  ASSERT_TRUE(f.ok()) << f.message();
  std::string legend;
  for (const auto& item : f.value().legend) legend += item.label + "\n";
  EXPECT_NE(legend.find("sliding window W = 4096"), std::string::npos) << legend;
  EXPECT_NE(legend.find("softmax scale s = 0.1657"), std::string::npos) << legend;
  EXPECT_NE(legend.find("1/\xe2\x88\x9a"
                        "128 = 0.08839"),
            std::string::npos)
      << legend;
}

}  // namespace
}  // namespace pe
