// The attention walkthrough (views/walkthrough.h, attention_walkthrough.cpp): every step for every
// scheme at a small and a large size, and its numbers against independent values: closed forms
// written here from the papers' formulas, and numpy values (pasted, with the line that made
// them). Content "ones" (x = (1, ..., 1)) makes the closed forms short: |X_i|^2 = 2 per pair.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "arch/catalogue.h"
#include "encoding/t5_buckets.h"
#include "model/model_schedule.h"
#include "model/param_fields.h"
#include "model/walkthrough_presets.h"
#include "views/walkthrough.h"

namespace pe {
namespace {

ModelParams Params(Scheme scheme, int64_t d, int64_t len) {
  ModelParams m;
  SetScheme(m, scheme);
  m.pe.d_model = d;
  m.pe.max_len = len;
  m.content.kind = ScoreContent::Kind::kOnes;
  m.walkthrough = WalkthroughKind::kAttention;
  return m;
}

Walkthrough Walk(const ModelParams& m) {
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  EXPECT_TRUE(e.ok()) << e.message();
  Result<Walkthrough> w = BuildWalkthrough(m, e.value(), 0);
  EXPECT_TRUE(w.ok()) << w.message();
  return w.ok() ? std::move(w).value() : Walkthrough{};
}

// RoPE with q = k = ones: score(m, n) = (1/sqrt(d)) sum_i 2 cos((m - n) base^(-2i/d))
// (RoFormer eq. 16 with |X_i|^2 = 2).
double RopeOnes(int64_t d, double base, double r) {
  double s = 0;
  for (int64_t i = 0; i < d / 2; ++i) {
    s += 2 * std::cos(r * std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d)));
  }
  return s / std::sqrt(static_cast<double>(d));
}

// Which steps apply, by scheme: 2 (added: sinusoidal, learned), 3 (rotary), 5 (biases), 7 (RoPE's
// frequencies); 1, 4 and 6 always; 8 only with a model open.
std::vector<bool> Applies(Scheme s) {
  const bool added = s == Scheme::kSinusoidal || s == Scheme::kLearned;
  const bool rotary = s == Scheme::kRope || s == Scheme::kXpos || s == Scheme::kMrope;
  const bool bias = s == Scheme::kAlibi || s == Scheme::kT5;
  return {true, added, rotary, true, bias, true, s == Scheme::kRope, false};
}

TEST(AttentionWalkthrough, EveryStepOfEverySchemeAtASmallAndALargeSize) {
  for (Scheme s : kAllSchemeKinds) {
    // Large: a billion positions where the scheme computes on demand; the learned table is held.
    const int64_t large_len = s == Scheme::kLearned ? 4096 : int64_t{1} << 30;
    for (auto [d, len] : {std::pair<int64_t, int64_t>{8, 32}, {512, large_len}}) {
      SCOPED_TRACE(std::string(SchemeName(s)) + " d " + std::to_string(d) + " L " +
                   std::to_string(len));
      const Walkthrough w = Walk(Params(s, d, len));
      ASSERT_EQ(w.pages.size(), static_cast<size_t>(kAttentionStepCount));
      ASSERT_EQ(w.bars.size(), w.pages.size());
      EXPECT_EQ(w.kind, WalkthroughKind::kAttention);
      const std::vector<bool> applies = Applies(s);
      for (size_t k = 0; k < w.pages.size(); ++k) {
        const WalkPage& p = w.pages[k];
        EXPECT_EQ(p.step, kAttentionSteps[k]);
        EXPECT_EQ(
            p.title.rfind(std::to_string(k + 1) + ". " + std::string(WalkStepName(p.step)), 0), 0u)
            << p.title;
        EXPECT_EQ(p.applies, applies[k]) << p.title;
        // Never an empty page: a sentence, and a number or a pointer to where the step applies.
        EXPECT_FALSE(p.explanation.empty()) << p.title;
        ASSERT_FALSE(p.numbers.empty()) << p.title;
        if (!p.applies) {
          EXPECT_TRUE(p.numbers.front().find("preset") != std::string::npos ||
                      p.numbers.front().find("step") != std::string::npos ||
                      p.numbers.front().find("--model") != std::string::npos)
              << p.numbers.front();
        } else {
          EXPECT_FALSE(p.code.empty()) << p.title;
        }
      }
      // The pair: query 5, key 2, moved by 10; x.x / sqrt(d) = sqrt(d) with ones.
      const WalkAttention& a = w.attention;
      EXPECT_EQ(a.query, 5);
      EXPECT_EQ(a.key, 2);
      EXPECT_EQ(a.shift, 10);
      const double sd = std::sqrt(static_cast<double>(d));
      switch (s) {
        case Scheme::kRope:
          EXPECT_NEAR(a.score, RopeOnes(d, 10000.0, 3), 1e-9);
          break;
        case Scheme::kMrope:
          // Text only: t = h = w = the position, so RoPE with M-RoPE's base 1e6.
          EXPECT_NEAR(a.score, RopeOnes(d, 1e6, 3), 1e-9);
          break;
        case Scheme::kAlibi:
          // Head 0's slope 2^(-8/8) = 1/2: sqrt(d) - 3/2.
          EXPECT_NEAR(a.score, sd - 1.5, 1e-9);
          break;
        case Scheme::kT5:
          // key - query = -3: bucket 3 (exact below 8), head 0's seeded bias of bucket 3.
          EXPECT_NEAR(a.score, sd + T5BucketBias(Params(s, d, len).pe.t5(), 0, 3), 1e-6);
          break;
        case Scheme::kNope:
          EXPECT_NEAR(a.score, sd, 1e-9);
          break;
        default:
          break;
      }
      if (applies[2] || s == Scheme::kAlibi || s == Scheme::kT5 || s == Scheme::kNope) {
        // Relative schemes: the same m - n, the same score.
        EXPECT_NEAR(a.shifted_score, a.score, 1e-9 * (1 + std::fabs(a.score)));
      }
      // The softmax row sums to 1.
      double sum = 0;
      for (double v : a.softmax_weights) sum += v;
      EXPECT_NEAR(sum, 1.0, 1e-12);
      EXPECT_EQ(a.softmax_keys.size(), 16u);
    }
  }
}

// numpy, paper layout d = 8, x = ones, m = 5, n = 2:
//   pe(p)[2i] = sin(p / 1e4^(2i/8)), pe(p)[2i+1] = cos(...);
//   [x@x, x@pe(2), pe(5)@x, pe(5)@pe(2)], sum / sqrt(8)
TEST(AttentionWalkthrough, FourTermsOfTheSinusoidMatchNumpy) {
  const Walkthrough w = Walk(Params(Scheme::kSinusoidal, 8, 32));
  const WalkAttention& a = w.attention;
  EXPECT_NEAR(a.terms[0], 8.0, 1e-6);
  EXPECT_NEAR(a.terms[1], 3.6936831709420868, 1e-6);
  EXPECT_NEAR(a.terms[2], 2.7354629201530427, 1e-6);
  EXPECT_NEAR(a.terms[3], 1.964889526277523, 1e-6);
  EXPECT_NEAR(a.score, 5.796166878028996, 1e-6);
  ASSERT_EQ(w.bars[1].size(), 4u);
  EXPECT_NEAR(w.bars[1][3].value, 1.964889526277523 / std::sqrt(8.0), 1e-6);
}

// numpy: 2 cos(3 * 1e4 ** (-arange(0, 8, 2) / 8)) / sqrt(8), and RoFormer's bound
// mean(abs(cumsum(exp(1j r theta)))) for d = 8 at r = 3.
TEST(AttentionWalkthrough, RotationPairsAndTheDecayBoundMatchNumpy) {
  const Walkthrough w = Walk(Params(Scheme::kRope, 8, 32));
  const WalkAttention& a = w.attention;
  const double parts[4] = {-0.70003041, 0.67552491, 0.70678861, 0.7071036};
  ASSERT_EQ(a.pair_parts.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(a.pair_parts[i], parts[i], 1e-7) << i;
  EXPECT_NEAR(a.score, 1.3893867083132596, 1e-9);
  EXPECT_NEAR(a.shifted_score, 1.3893867083132596, 1e-9);
  // Decay: distances 0, 1, 2, 4, ... inside the table; the bound at 0 is (d/2 + 1) / 2.
  ASSERT_GE(a.distances.size(), 3u);
  EXPECT_EQ(a.distances[0], 0);
  EXPECT_NEAR(a.decay_bound[0], 2.5, 1e-12);
  EXPECT_NEAR(a.decay_scores[0], std::sqrt(8.0), 1e-9);
  // d = 128, base 1e4: the bound at r = 0 is (64 + 1) / 2 = 32.5.
  const Walkthrough big = Walk(Params(Scheme::kRope, 128, 1024));
  for (size_t k = 0; k < big.attention.distances.size(); ++k) {
    if (big.attention.distances[k] == 0) {
      EXPECT_NEAR(big.attention.decay_bound[k], 32.5, 1e-9);
    }
  }
  // The score at r = 64 (the eighth distance) is the closed form's.
  ASSERT_GE(big.attention.distances.size(), 8u);
  EXPECT_EQ(big.attention.distances[7], 64);
  EXPECT_NEAR(big.attention.decay_scores[7], RopeOnes(128, 1e4, 64), 1e-9);
}

// xPos, torchscale's XPOS: zeta_i = (2i + 0.4 d) / (1.4 d), q times zeta^(m / 512), k times
// zeta^(-n / 512): numpy sum(2 zeta^(3/512) cos(3 theta)) / sqrt(8) = 1.3888343555460239.
TEST(AttentionWalkthrough, XposScoreMatchesTorchscalesFormula) {
  const Walkthrough w = Walk(Params(Scheme::kXpos, 8, 32));
  EXPECT_NEAR(w.attention.score, 1.3888343555460239, 1e-9);
  double sum = 0;
  for (double v : w.attention.pair_parts) sum += v;
  EXPECT_NEAR(sum, w.attention.score, 1e-9);
}

// ALiBi slopes: get_slopes of ofirpress/attention_with_linear_biases (run in Python): 8 heads
// 2^-1 .. 2^-8; 12 heads: the 8 slopes of 8 heads, then every other slope of 16 heads.
TEST(AttentionWalkthrough, AlibiSlopesAreTheReferenceGetSlopes) {
  ModelParams m = Params(Scheme::kAlibi, 64, 32);
  Walkthrough w = Walk(m);
  ASSERT_EQ(w.attention.slopes.size(), 8u);
  for (size_t h = 0; h < 8; ++h) {
    EXPECT_DOUBLE_EQ(w.attention.slopes[h], std::pow(2.0, -static_cast<double>(h + 1)));
  }
  EXPECT_EQ(w.bars[4].size(), 8u);
  m.pe.alibi().heads = 12;
  w = Walk(m);
  const double golden[12] = {0.5,
                             0.25,
                             0.125,
                             0.0625,
                             0.03125,
                             0.015625,
                             0.0078125,
                             0.00390625,
                             0.7071067811865476,
                             0.35355339059327384,
                             0.17677669529663692,
                             0.08838834764831849};
  ASSERT_EQ(w.attention.slopes.size(), 12u);
  for (size_t h = 0; h < 12; ++h) EXPECT_NEAR(w.attention.slopes[h], golden[h], 1e-15) << h;
}

// T5 buckets: HF modeling_t5.py _relative_position_bucket, run in Python (float32 log as on the
// CPU), bidirectional, 32 buckets, max distance 128.
TEST(AttentionWalkthrough, T5BucketsAreHfsRelativePositionBucket) {
  const Walkthrough w = Walk(Params(Scheme::kT5, 64, 128));
  const std::vector<std::pair<int64_t, int64_t>> golden = {
      {-256, 15}, {-128, 15}, {-64, 14}, {-32, 12}, {-16, 10}, {-8, 8},  {-7, 7},
      {-3, 3},    {-2, 2},    {-1, 1},   {1, 17},   {2, 18},   {3, 19},  {7, 23},
      {8, 24},    {16, 26},   {32, 28},  {64, 30},  {128, 31}, {256, 31}};
  EXPECT_EQ(w.attention.buckets, golden);
}

// The causal ALiBi preset: query 15 over keys 0..15, weights exp(-0.5 (15 - n)) / Z (numpy).
TEST(AttentionWalkthrough, SoftmaxRowOfAlibisPresetIsGeometric) {
  ModelParams m;
  ASSERT_TRUE(ApplyWalkthroughPreset("alibi-8-heads", m).ok());
  m.content.kind = ScoreContent::Kind::kOnes;
  const Walkthrough w = Walk(m);
  const std::vector<double>& wt = w.attention.softmax_weights;
  ASSERT_EQ(wt.size(), 16u);
  EXPECT_NEAR(wt[13], 0.14479785529206343, 1e-12);
  EXPECT_NEAR(wt[14], 0.23873130397178408, 1e-12);
  EXPECT_NEAR(wt[15], 0.39360137884025836, 1e-12);
}

// Llama 3.1 (numpy): wavelengths 2 pi / 500000^(-2i/128) below 8192/4 kept (29), above 8192
// interpolated (29), between blended (6).
TEST(AttentionWalkthrough, Llama31PresetKeepsInterpolatesAndBlendsItsPairs) {
  ModelParams m;
  ASSERT_TRUE(ApplyWalkthroughPreset("llama-3-1-past-8192", m).ok());
  EXPECT_EQ(m.walkthrough, WalkthroughKind::kAttention);
  const Walkthrough w = Walk(m);
  EXPECT_EQ(w.attention.kept, 29);
  EXPECT_EQ(w.attention.interpolated, 29);
  EXPECT_EQ(w.attention.blended, 6);
  EXPECT_TRUE(w.pages[6].applies);
  EXPECT_NE(w.pages[6].code.find("_compute_llama3_parameters"), std::string::npos);
}

TEST(AttentionWalkthrough, PresetsSetTheirSchemesAndNumbers) {
  struct Want {
    const char* name;
    Scheme scheme;
    int64_t d, len;
  };
  for (const Want& want : {Want{"rope-positions-2-and-5", Scheme::kRope, 8, 32},
                           Want{"alibi-8-heads", Scheme::kAlibi, 64, 32},
                           Want{"t5-buckets-of-a-sentence", Scheme::kT5, 64, 128},
                           Want{"llama-3-1-past-8192", Scheme::kRope, 128, 131072},
                           Want{"gpt2-learned-vs-sinusoid", Scheme::kLearned, 768, 1024}}) {
    SCOPED_TRACE(want.name);
    ModelParams m;
    ASSERT_TRUE(ApplyWalkthroughPreset(want.name, m).ok());
    EXPECT_EQ(m.walkthrough, WalkthroughKind::kAttention);
    EXPECT_EQ(m.pe.kind(), want.scheme);
    EXPECT_EQ(m.pe.d_model, want.d);
    EXPECT_EQ(m.pe.max_len, want.len);
    const WalkthroughPreset* p = FindWalkthroughPreset(want.name);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(PresetWalkthrough(*p), WalkthroughKind::kAttention);
  }
  // The input presets stay input presets, and switch the walkthrough back.
  ModelParams m;
  m.walkthrough = WalkthroughKind::kAttention;
  ASSERT_TRUE(ApplyWalkthroughPreset("blog-position-2", m).ok());
  EXPECT_EQ(m.walkthrough, WalkthroughKind::kInput);
  // RoPE at 2 and 5 with ones: numpy 1.3893867083132596 (above).
  ASSERT_TRUE(ApplyWalkthroughPreset("rope-positions-2-and-5", m).ok());
  m.content.kind = ScoreContent::Kind::kOnes;
  EXPECT_NEAR(Walk(m).attention.score, 1.3893867083132596, 1e-9);
  // GPT-2's table: 0.02 sqrt(768) = 0.5542562584220407, the sinusoid's sqrt(384) = 19.5959...
  ASSERT_TRUE(ApplyWalkthroughPreset("gpt2-learned-vs-sinusoid", m).ok());
  const Walkthrough g = Walk(m);
  std::string text;
  for (const std::string& line : g.pages[1].numbers) text += line + "\n";
  EXPECT_NE(text.find("0.554256"), std::string::npos) << text;
  EXPECT_NE(text.find("19.5959"), std::string::npos) << text;
  EXPECT_NE(text.find("1024 \xc3\x97 768"), std::string::npos) << text;
  // T5's sentence: its 24 tokens (23 words and a comma) with their buckets against the last,
  // HF's _relative_position_bucket in Python: key - query = -23 -> 11, -22 -> 10, -15 -> 9,
  // -11 -> 8 (the comma), -8 -> 8, -7 -> 7, -1 -> 1, 0 -> 0.
  ASSERT_TRUE(ApplyWalkthroughPreset("t5-buckets-of-a-sentence", m).ok());
  const Walkthrough t = Walk(m);
  const std::string& line = t.pages[4].numbers.front();
  for (const char* want : {"(position 23)", "Position 11, enters 10", "bucket 9", ", 8, exact 8",
                           "keys 7", "far 1, ones 0"}) {
    EXPECT_NE(line.find(want), std::string::npos) << want << " in " << line;
  }
}

// Gemma 3: local layers (base 10000, sliding 1024) and global ones (base 1e6).
TEST(AttentionWalkthrough, LayersOfAModelWithLocalAndGlobalLayers) {
  Result<ModelSchedule> s = CatalogueModel("gemma-3-4b");
  ASSERT_TRUE(s.ok()) << s.message();
  ModelParams m = Params(Scheme::kRope, 8, 32);
  const int64_t layer = FirstPositionalLayer(s.value());
  ASSERT_TRUE(ApplyLayer(s.value(), layer, m).ok());
  m.model = std::make_shared<const ModelSchedule>(s.value());
  m.model_layer = layer;
  m.content.kind = ScoreContent::Kind::kOnes;
  const Walkthrough w = Walk(m);
  EXPECT_TRUE(w.pages[7].applies);
  ASSERT_EQ(w.attention.layer_groups.size(), 2u);
  std::string all = w.attention.layer_groups[0] + "\n" + w.attention.layer_groups[1];
  EXPECT_NE(all.find("base 10000, sliding:1024"), std::string::npos) << all;
  EXPECT_NE(all.find("base 1e+06"), std::string::npos) << all;
}

// The input walkthrough is what it was: eight input steps, through the same entry point.
TEST(AttentionWalkthrough, TheInputWalkthroughIsUnchanged) {
  ModelParams m;
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  ASSERT_TRUE(e.ok());
  Result<Walkthrough> w = BuildWalkthrough(m, e.value(), 0);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.value().kind, WalkthroughKind::kInput);
  ASSERT_EQ(w.value().pages.size(), static_cast<size_t>(kWalkStepCount));
  for (size_t k = 0; k < kWalkSteps.size(); ++k) EXPECT_EQ(w.value().pages[k].step, kWalkSteps[k]);
  // The field: --walkthrough input|attention, a clear refusal otherwise.
  const ParamField* f = FindParamField("--walkthrough");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->set(m, "attention").ok());
  EXPECT_EQ(m.walkthrough, WalkthroughKind::kAttention);
  const Status bad = f->set(m, "atention");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("--walkthrough must be input or attention"), std::string::npos)
      << bad.message();
}

}  // namespace
}  // namespace pe
