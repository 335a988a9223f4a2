// RoPE frequencies against independent numbers: NTK bases and YaRN's attention factor worked
// out by hand, the pair ranges each scaling keeps and interpolates, a numpy float64 reference
// (tests/reference/rope_reference.py), and the range checks' messages.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "encoding/rope.h"

namespace pe {
namespace {

EncodingParams Rope(int64_t d, double theta = 10000.0, RopeScaling scaling = RopeScaling::kNone,
                    double factor = 1.0) {
  EncodingParams p;
  p.d_model = d;
  p.max_len = 100;
  RopeParams r;
  r.theta = theta;
  r.scaling = scaling;
  r.factor = factor;
  p.scheme = r;
  return p;
}

RopeFrequencies Compute(const EncodingParams& p) {
  const Status s = ValidateRopeParams(p);
  EXPECT_TRUE(s.ok()) << s.message();
  return ComputeRopeFrequencies(p);
}

void ExpectRelNear(double expected, double actual, double rel, const std::string& what) {
  EXPECT_LE(std::abs(actual - expected), rel * std::abs(expected))
      << what << ": expected " << expected << ", got " << actual;
}

// The message of a refused `p`, or "" (and a failure) when it is accepted.
std::string Refusal(const EncodingParams& p) {
  const Status s = ValidateRopeParams(p);
  EXPECT_FALSE(s.ok());
  return s.ok() ? "" : s.message();
}

void ExpectMentions(const std::string& message, const std::vector<std::string>& parts) {
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos) << '"' << part << "\" not in: " << message;
  }
}

TEST(RopeFrequencies, UnscaledIsThetaToTheMinus2iOverD) {
  const RopeFrequencies f = Compute(Rope(128));
  EXPECT_EQ(f.d_rot, 128);
  EXPECT_EQ(f.base, 10000.0);
  EXPECT_EQ(f.attention_factor, 1.0);
  ASSERT_EQ(f.pairs.size(), 64u);
  for (const RopePair& p : f.pairs) {
    ExpectRelNear(std::pow(10000.0, -2.0 * static_cast<double>(p.index) / 128.0), p.original, 1e-15,
                  "pair " + std::to_string(p.index));
    EXPECT_EQ(p.scaled, p.original);
    EXPECT_EQ(p.treatment, PairTreatment::kKept);
    EXPECT_EQ(p.ramp, 1.0);
  }
  EXPECT_EQ(f.pairs[0].original, 1.0);
  EXPECT_EQ(f.pairs[32].original, 0.01);  // 10000^(-1/2), exactly representable after rounding
}

TEST(RopeFrequencies, TreatmentNames) {
  EXPECT_EQ(PairTreatmentName(PairTreatment::kKept), "kept");
  EXPECT_EQ(PairTreatmentName(PairTreatment::kInterpolated), "interpolated");
  EXPECT_EQ(PairTreatmentName(PairTreatment::kBlended), "blended");
}

TEST(RopeFrequencies, LinearInterpolatesEveryPair) {
  const RopeFrequencies f = Compute(Rope(64, 10000.0, RopeScaling::kLinear, 4.0));
  for (const RopePair& p : f.pairs) {
    EXPECT_EQ(p.scaled, p.original / 4.0);
    EXPECT_EQ(p.treatment, PairTreatment::kInterpolated);
    EXPECT_EQ(p.ramp, 0.0);
  }
  // Factor 1 changes nothing.
  for (const RopePair& p : Compute(Rope(64, 10000.0, RopeScaling::kLinear, 1.0)).pairs) {
    EXPECT_EQ(p.treatment, PairTreatment::kKept);
  }
}

// base' = 1e4 * s^(128/126), worked out separately to 0.01.
TEST(RopeFrequencies, NtkBaseAtD128) {
  const double expected[][2] = {{2.0, 20221.26}, {4.0, 40889.94}, {8.0, 82684.62}};
  for (const auto& [factor, base] : expected) {
    const RopeFrequencies f = Compute(Rope(128, 10000.0, RopeScaling::kNtk, factor));
    EXPECT_NEAR(f.base, base, 0.01) << "factor " << factor;
    EXPECT_EQ(f.attention_factor, 1.0);
    for (const RopePair& p : f.pairs) {
      ExpectRelNear(std::pow(f.base, -2.0 * static_cast<double>(p.index) / 128.0), p.scaled, 1e-13,
                    "pair " + std::to_string(p.index));
    }
  }
}

TEST(RopeFrequencies, NtkKeepsPairZeroAndBlendsTheRestGeometrically) {
  const RopeFrequencies f = Compute(Rope(128, 10000.0, RopeScaling::kNtk, 8.0));
  EXPECT_EQ(f.pairs[0].treatment, PairTreatment::kKept);
  EXPECT_EQ(f.pairs[0].scaled, 1.0);
  for (size_t i = 1; i < f.pairs.size(); ++i) {
    const RopePair& p = f.pairs[i];
    EXPECT_EQ(p.treatment, PairTreatment::kBlended) << "pair " << i;
    EXPECT_NEAR(p.ramp, 1.0 - 2.0 * static_cast<double>(i) / 126.0, 1e-15) << "pair " << i;
    // The ramp is where the pair sits between interpolated and kept on a log scale.
    EXPECT_NEAR(std::log(p.scaled / (p.original / 8.0)) / std::log(8.0), p.ramp, 1e-12);
  }
  // The last pair lands on original / factor.
  EXPECT_EQ(f.pairs.back().ramp, 0.0);
  ExpectRelNear(f.pairs.back().original / 8.0, f.pairs.back().scaled, 1e-14, "last pair");
  // Factor 1 is the unscaled table.
  const RopeFrequencies same = Compute(Rope(128, 10000.0, RopeScaling::kNtk, 1.0));
  EXPECT_EQ(same.base, 10000.0);
  for (const RopePair& p : same.pairs) EXPECT_EQ(p.treatment, PairTreatment::kKept);
}

TEST(RopeFrequencies, NtkWithTwoRotatedDimsKeepsTheOnlyPair) {
  EncodingParams p = Rope(2, 10000.0, RopeScaling::kNtk, 8.0);
  const RopeFrequencies f = Compute(p);
  ASSERT_EQ(f.pairs.size(), 1u);
  EXPECT_EQ(f.base, 10000.0);
  EXPECT_EQ(f.pairs[0].scaled, 1.0);
  EXPECT_EQ(f.pairs[0].treatment, PairTreatment::kKept);
}

TEST(RopeFrequencies, DynamicNtkIsThetaUpToTheOriginalLength) {
  for (int64_t seq : {1, 100, 2047, 2048}) {
    EncodingParams p = Rope(128, 10000.0, RopeScaling::kDynamicNtk, 4.0);
    p.rope().original_max_len = 2048;
    p.rope().sequence_len = seq;
    const RopeFrequencies f = Compute(p);
    EXPECT_EQ(f.base, 10000.0) << "sequence_len " << seq;
    EXPECT_EQ(f.sequence_len, 2048);
    for (const RopePair& pair : f.pairs) {
      EXPECT_EQ(pair.scaled, pair.original);
      EXPECT_EQ(pair.treatment, PairTreatment::kKept);
    }
  }
}

TEST(RopeFrequencies, DynamicNtkFollowsTheFormulaPastIt) {
  // base' = theta * (factor * seq / original - (factor - 1))^(d / (d - 2))
  auto expected_base = [](double factor, double seq, double original) {
    return 10000.0 * std::pow(factor * seq / original - (factor - 1.0), 128.0 / 126.0);
  };
  EncodingParams p = Rope(128, 10000.0, RopeScaling::kDynamicNtk, 4.0);
  p.rope().original_max_len = 2048;
  p.rope().sequence_len = 8192;
  RopeFrequencies f = Compute(p);
  ExpectRelNear(expected_base(4.0, 8192.0, 2048.0), f.base, 1e-13, "base at 8192");
  EXPECT_EQ(f.sequence_len, 8192);
  for (const RopePair& pair : f.pairs) {
    ExpectRelNear(std::pow(f.base, -2.0 * static_cast<double>(pair.index) / 128.0), pair.scaled,
                  1e-13, "pair " + std::to_string(pair.index));
  }
  // Past factor * original the lowest pairs fall below original / factor: ramp clamped to 0.
  EXPECT_EQ(f.pairs.back().ramp, 0.0);
  EXPECT_LT(f.pairs.back().scaled, f.pairs.back().original / 4.0);

  // sequence_len 0: the table's last position + 1.
  p.rope().sequence_len = 0;
  p.max_len = 3000;
  p.offset = 100;
  f = Compute(p);
  EXPECT_EQ(f.sequence_len, 3100);
  ExpectRelNear(expected_base(4.0, 3100.0, 2048.0), f.base, 1e-13, "base at 3100");
  EXPECT_GT(f.pairs.back().ramp, 0.0);
  EXPECT_LT(f.pairs.back().ramp, 1.0);
}

TEST(RopeFrequencies, YarnAttentionFactor) {
  EXPECT_NEAR(RopeYarnDefaultAttentionFactor(8.0), 1.2079441, 1e-7);
  EXPECT_EQ(RopeYarnDefaultAttentionFactor(1.0), 1.0);
  EncodingParams p = Rope(128, 10000.0, RopeScaling::kYarn, 8.0);
  EXPECT_NEAR(Compute(p).attention_factor, 1.2079441, 1e-7);
  p.rope().attention_factor = 0.75;
  EXPECT_EQ(Compute(p).attention_factor, 0.75);
  // Only YaRN scales cos and sin.
  p.rope().scaling = RopeScaling::kLlama3;
  EXPECT_EQ(Compute(p).attention_factor, 1.0);
}

// Pairs up to `last_kept` keep their frequency, pairs from `first_interpolated` are divided by
// the factor exactly, the ones between are blended.
void ExpectYarnRanges(double theta, int64_t original, int64_t last_kept,
                      int64_t first_interpolated) {
  for (double factor : {2.0, 4.0, 8.0, 16.0, 32.0}) {
    EncodingParams p = Rope(128, theta, RopeScaling::kYarn, factor);
    p.rope().original_max_len = original;
    const RopeFrequencies f = Compute(p);
    EXPECT_EQ(f.yarn_low, static_cast<double>(last_kept));
    EXPECT_EQ(f.yarn_high, static_cast<double>(first_interpolated));
    for (const RopePair& pair : f.pairs) {
      const std::string what = "theta " + std::to_string(theta) + " factor " +
                               std::to_string(factor) + " pair " + std::to_string(pair.index);
      if (pair.index <= last_kept) {
        EXPECT_EQ(pair.scaled, pair.original) << what;
        EXPECT_EQ(pair.treatment, PairTreatment::kKept) << what;
        EXPECT_EQ(pair.ramp, 1.0) << what;
      } else if (pair.index >= first_interpolated) {
        EXPECT_EQ(pair.scaled, pair.original / factor) << what;
        EXPECT_EQ(pair.treatment, PairTreatment::kInterpolated) << what;
        EXPECT_EQ(pair.ramp, 0.0) << what;
      } else {
        EXPECT_EQ(pair.treatment, PairTreatment::kBlended) << what;
        const double ramp = 1.0 - static_cast<double>(pair.index - last_kept) /
                                      static_cast<double>(first_interpolated - last_kept);
        EXPECT_DOUBLE_EQ(pair.ramp, ramp) << what;
        ExpectRelNear((1.0 - ramp) * pair.original / factor + ramp * pair.original, pair.scaled,
                      1e-15, what);
      }
    }
  }
}

TEST(RopeFrequencies, YarnKeepsFastPairsAndInterpolatesSlowOnes) {
  ExpectYarnRanges(10000.0, 2048, 16, 41);
  ExpectYarnRanges(500000.0, 8192, 18, 35);
  // Correction dims 20.94 and 45.03: rounding instead of floor / ceil would give 21 and 45.
  ExpectYarnRanges(10000.0, 4096, 20, 46);
}

TEST(RopeFrequencies, YarnWithFactorOneKeepsEveryPair) {
  const RopeFrequencies f = Compute(Rope(128, 10000.0, RopeScaling::kYarn, 1.0));
  EXPECT_EQ(f.attention_factor, 1.0);
  for (const RopePair& p : f.pairs) {
    EXPECT_EQ(p.scaled, p.original);
    EXPECT_EQ(p.treatment, PairTreatment::kKept);
  }
}

TEST(RopeFrequencies, Llama3KeepsBlendsAndInterpolates) {
  EncodingParams p = Rope(128, 500000.0, RopeScaling::kLlama3, 8.0);
  p.rope().low_freq_factor = 1.0;
  p.rope().high_freq_factor = 4.0;
  p.rope().original_max_len = 8192;
  const RopeFrequencies f = Compute(p);
  int kept = 0, interpolated = 0, blended = 0;
  for (const RopePair& pair : f.pairs) {
    const double wavelen = 2.0 * std::numbers::pi / pair.original;
    switch (pair.treatment) {
      case PairTreatment::kKept:
        ++kept;
        EXPECT_EQ(pair.scaled, pair.original);
        EXPECT_LT(wavelen, 8192.0 / 4.0);
        break;
      case PairTreatment::kInterpolated:
        ++interpolated;
        EXPECT_EQ(pair.scaled, pair.original / 8.0);
        EXPECT_GT(wavelen, 8192.0);
        break;
      case PairTreatment::kBlended: {
        ++blended;
        const double smooth = (8192.0 / wavelen - 1.0) / (4.0 - 1.0);
        EXPECT_NEAR(pair.ramp, smooth, 1e-15);
        EXPECT_GT(pair.ramp, 0.0);
        EXPECT_LT(pair.ramp, 1.0);
        ExpectRelNear((1.0 - smooth) * pair.original / 8.0 + smooth * pair.original, pair.scaled,
                      1e-15, "pair " + std::to_string(pair.index));
        break;
      }
    }
  }
  EXPECT_EQ(kept, 29);
  EXPECT_EQ(interpolated, 29);
  EXPECT_EQ(blended, 6);
  // Kept pairs come first, then the blended ones, then the interpolated ones.
  EXPECT_EQ(f.pairs[28].treatment, PairTreatment::kKept);
  EXPECT_EQ(f.pairs[35].treatment, PairTreatment::kInterpolated);
}

// YaRN with HF v5's truncate and mscale keys (modeling_rope_utils.py, _compute_yarn_parameters:
// find_correction_range(..., truncate), get_mscale(scale, mscale) = 0.1 mscale ln(scale) + 1).
// Numbers worked in numpy from those formulas.
EncodingParams Yarn(int64_t d, double theta, double factor, int64_t original) {
  EncodingParams p = Rope(d, theta, RopeScaling::kYarn, factor);
  p.rope().original_max_len = original;
  return p;
}

TEST(RopeFrequencies, YarnMscaleRatioIsTheAttentionFactor) {
  EncodingParams p = Yarn(64, 10000.0, 40.0, 4096);
  p.rope().mscale = 1.0;
  p.rope().mscale_all_dim = 1.0;
  EXPECT_EQ(Compute(p).attention_factor, 1.0);  // DeepSeek-V3: exactly 1
  // HF tests both for truth: mscale_all_dim 0 falls back to get_mscale(40) = 0.1 ln 40 + 1.
  p.rope().mscale_all_dim = 0.0;
  EXPECT_NEAR(Compute(p).attention_factor, 1.3688879, 5e-8);
  p.rope().mscale = 0.0;
  p.rope().mscale_all_dim = 1.0;
  EXPECT_NEAR(Compute(p).attention_factor, 1.3688879, 5e-8);
  // (0.1 ln 40 + 1) / (0.0707 ln 40 + 1), numpy: 1.0857263992561355
  p.rope().mscale = 1.0;
  p.rope().mscale_all_dim = 0.707;
  EXPECT_NEAR(Compute(p).attention_factor, 1.0857263992561355, 1e-14);
  EXPECT_EQ(RopeYarnMscale(1.0, 5.0), 1.0);  // scale <= 1: 1
  // A given attention factor wins over both (HF reads it first).
  p.rope().attention_factor = 0.5;
  EXPECT_EQ(Compute(p).attention_factor, 0.5);
}

TEST(RopeFrequencies, YarnTruncateFalseKeepsTheFractionalEnds) {
  // GPT-OSS: beta 32 / 1, factor 32, original 4096, base 150000, head 64.
  EncodingParams p = Yarn(64, 150000.0, 32.0, 4096);
  p.rope().yarn_truncate = false;
  RopeFrequencies f = Compute(p);
  EXPECT_NEAR(f.yarn_low, 8.092779, 5e-7);
  EXPECT_NEAR(f.yarn_high, 17.398025, 5e-7);
  EXPECT_NEAR(f.attention_factor, 1.34657359, 5e-9);
  // Pair 8 is below the fractional low end: kept; pair 18 past the high end: interpolated.
  EXPECT_EQ(f.pairs[8].treatment, PairTreatment::kKept);
  EXPECT_EQ(f.pairs[9].treatment, PairTreatment::kBlended);
  EXPECT_EQ(f.pairs[17].treatment, PairTreatment::kBlended);
  EXPECT_EQ(f.pairs[18].treatment, PairTreatment::kInterpolated);
  // numpy: pair 9's ramp weight 1 - (9 - 8.092779) / (17.398025 - 8.092779)
  ExpectRelNear(3.1705696185e-02, f.pairs[9].scaled, 1e-10, "pair 9");
  ExpectRelNear(1.2931870125e-04, f.pairs[17].scaled, 1e-10, "pair 17");
  p.rope().yarn_truncate = true;
  f = Compute(p);
  EXPECT_EQ(f.yarn_low, 8.0);
  EXPECT_EQ(f.yarn_high, 18.0);
  EXPECT_EQ(f.pairs[17].treatment, PairTreatment::kBlended);
  ExpectRelNear(3.1620752275e-02, f.pairs[9].scaled, 1e-10, "truncated pair 9");
  ExpectRelNear(2.2794779580e-04, f.pairs[17].scaled, 1e-10, "truncated pair 17");
}

TEST(RopeFrequencies, YarnRangesOfQwenAndDeepSeek) {
  // Qwen2.5 / Qwen3: head 128, base 1e6, original 32768, factor 4.
  RopeFrequencies f = Compute(Yarn(128, 1e6, 4.0, 32768));
  EXPECT_EQ(f.yarn_low, 23.0);
  EXPECT_EQ(f.yarn_high, 40.0);
  EXPECT_NEAR(f.attention_factor, 1.13862944, 5e-9);
  // DeepSeek-V3's rope head: 64, base 1e4, original 4096, factor 40.
  f = Compute(Yarn(64, 1e4, 40.0, 4096));
  EXPECT_EQ(f.yarn_low, 10.0);
  EXPECT_EQ(f.yarn_high, 23.0);
}

TEST(RopeFrequencies, Llama3WithEqualFactorsHasNoBlendBand) {
  // Llama 4 Scout: factor 16, low_freq_factor = high_freq_factor = 1, original 8192. HF's
  // _compute_llama3_parameters keeps pairs with wavelength < 8192, divides the longer ones;
  // its 0 / 0 smooth factor is masked out. The whole vector is checked against numpy in
  // RopeGolden (llama4_scout).
  EncodingParams p = Rope(128, 500000.0, RopeScaling::kLlama3, 16.0);
  p.rope().low_freq_factor = 1.0;
  p.rope().high_freq_factor = 1.0;
  p.rope().original_max_len = 8192;
  const RopeFrequencies f = Compute(p);
  int kept = 0, divided = 0, blended = 0;
  for (const RopePair& pair : f.pairs) {
    const double wavelen = 2.0 * std::numbers::pi / pair.original;
    if (pair.treatment == PairTreatment::kKept) {
      ++kept;
      EXPECT_LT(wavelen, 8192.0);
      EXPECT_EQ(pair.scaled, pair.original);
    } else if (pair.treatment == PairTreatment::kInterpolated) {
      ++divided;
      EXPECT_GT(wavelen, 8192.0);
      EXPECT_EQ(pair.scaled, pair.original / 16.0);
    } else {
      ++blended;
    }
    EXPECT_TRUE(std::isfinite(pair.scaled));
  }
  EXPECT_EQ(kept, 35);
  EXPECT_EQ(divided, 29);
  EXPECT_EQ(blended, 0);
}

TEST(RopeFrequencies, ProportionStillsThePairsPastTheShare) {
  // Gemma 4 global layers: head 256, P 0.25, base 1e6 (HF _compute_proportional_rope_parameters):
  // 32 pairs turn at 1e6^(-2i/256), 96 have frequency 0.
  EncodingParams p = Rope(256, 1e6);
  p.rope().proportion = 0.25;
  EXPECT_EQ(RopeRotatingPairs(p), 32);
  const RopeFrequencies f = Compute(p);
  EXPECT_EQ(f.d_rot, 256);  // the table stays the whole head wide
  ASSERT_EQ(f.pairs.size(), 128u);
  EXPECT_EQ(f.rotating_pairs, 32);
  for (const RopePair& pair : f.pairs) {
    if (pair.index < 32) {
      ExpectRelNear(std::pow(1e6, -2.0 * static_cast<double>(pair.index) / 256.0), pair.scaled,
                    1e-15, "pair " + std::to_string(pair.index));
    } else {
      EXPECT_EQ(pair.original, 0.0);
      EXPECT_EQ(pair.scaled, 0.0);
    }
  }
  // The slowest rotating wavelength, 2 pi 1e6^(62/256) = 178.36304104734475 positions (numpy),
  // against partial RoPE's at the same share, 2 pi 1e6^(62/64) = 4080185.126271958.
  ExpectRelNear(178.36304104734475, 2.0 * std::numbers::pi / f.pairs[31].scaled, 1e-13,
                "slowest rotating wavelength");
  EncodingParams partial = Rope(256, 1e6);
  partial.rope().rotary_fraction = 0.25;
  const RopeFrequencies g = Compute(partial);
  EXPECT_EQ(g.d_rot, 64);
  EXPECT_EQ(g.rotating_pairs, 32);
  ExpectRelNear(4080185.126271958, 2.0 * std::numbers::pi / g.pairs[31].scaled, 1e-13,
                "partial slowest");
  // HF's int(P * d // 2): 64 * 0.3 = 19.2 -> 9 pairs; linear divides the rotating ones only.
  EncodingParams q = Rope(64, 10000.0, RopeScaling::kLinear, 8.0);
  q.rope().proportion = 0.3;
  const RopeFrequencies h = Compute(q);
  EXPECT_EQ(h.rotating_pairs, 9);
  EXPECT_EQ(h.pairs[8].scaled, h.pairs[8].original / 8.0);
  EXPECT_GT(h.pairs[8].scaled, 0.0);
  EXPECT_EQ(h.pairs[9].scaled, 0.0);
}

TEST(RopeValidation, ProportionAndMscaleRefusalsNameFlagRuleAndValue) {
  EncodingParams p = Rope(64);
  const std::pair<double, const char*> bad[] = {
      {0.0, "got 0"}, {-0.5, "got -0.5"}, {1.5, "got 1.5"}};
  for (const auto& [value, says] : bad) {
    p.rope().proportion = value;
    ExpectMentions(Refusal(p), {"--rope-proportion", "(0, 1]", says});
  }
  p.rope().proportion = NAN;
  ExpectMentions(Refusal(p), {"--rope-proportion", "(0, 1]", "got nan"});
  p.rope().proportion = 0.01;  // floor(0.64 / 2) = 0 pairs
  ExpectMentions(Refusal(p), {"--rope-proportion", "at least one rotating pair", "got 0.01",
                              "d_model 64", "that is 0"});
  p.rope().proportion = 0.5;
  p.rope().rotary_fraction = 0.5;
  ExpectMentions(Refusal(p), {"--rope-proportion", "--rotary-fraction", "cannot both be below 1"});
  p.rope().rotary_fraction = 1.0;
  p.rope().scaling = RopeScaling::kYarn;
  ExpectMentions(Refusal(p), {"--rope-proportion", "none or linear", "got yarn"});
  p.rope().scaling = RopeScaling::kLinear;
  EXPECT_TRUE(ValidateRopeParams(p).ok());
  p = Rope(64);
  p.rope().mscale = -1.0;
  ExpectMentions(Refusal(p), {"mscale", ">= 0", "got -1"});
  p.rope().mscale = INFINITY;
  ExpectMentions(Refusal(p), {"mscale", "finite", "got inf"});
  p = Rope(64);
  p.rope().mscale_all_dim = -0.5;
  ExpectMentions(Refusal(p), {"mscale_all_dim", ">= 0", "got -0.5"});
}

TEST(RopeFrequencies, RotaryFractionRotatesAPrefix) {
  EncodingParams p = Rope(64);
  p.rope().rotary_fraction = 0.25;
  EXPECT_EQ(RopeRotaryDims(p), 16);
  const RopeFrequencies f = Compute(p);
  EXPECT_EQ(f.d_rot, 16);
  ASSERT_EQ(f.pairs.size(), 8u);
  // The exponent's denominator is d_rot, not d_model.
  ExpectRelNear(std::pow(10000.0, -2.0 / 16.0), f.pairs[1].original, 1e-15, "pair 1");
  // HF's int(d * fraction): truncated (80 * 0.4 = 32.000000000000004).
  p.d_model = 80;
  p.rope().rotary_fraction = 0.4;
  EXPECT_EQ(RopeRotaryDims(p), 32);
}

TEST(RopeFrequencies, SlowestWavelengthIsTheScaledTables) {
  // The slowest wavelength a label quotes is the table's, after the scaling: 2 pi / min inv_freq
  // with inv_freq from HF modeling_rope_utils.py, worked in numpy (float64):
  //   Gemma 3 global layers (head 256, base 1e6, linear factor 8;
  //   _compute_linear_scaling_rope_parameters): 45122676.808297113 (unscaled 5640334.601037139)
  //   Llama 4 Scout (head 128, base 5e5, llama3 factor 16, low = high = 1, original 8192;
  //   _compute_llama3_parameters): 40947128.277941748 (unscaled 2559195.5173713593)
  const EncodingParams gemma = Rope(256, 1e6, RopeScaling::kLinear, 8.0);
  EncodingParams llama = Rope(128, 500000.0, RopeScaling::kLlama3, 16.0);
  llama.rope().low_freq_factor = 1.0;
  llama.rope().high_freq_factor = 1.0;
  llama.rope().original_max_len = 8192;
  ExpectRelNear(45122676.808297113, RopeSlowestWavelength(Compute(gemma)), 1e-13, "gemma 3");
  ExpectRelNear(40947128.277941748, RopeSlowestWavelength(Compute(llama)), 1e-13, "llama 4");
  // The side-by-side hint at share 1: both sides are the whole table.
  for (const auto& [p, wave] :
       {std::pair{gemma, 45122676.808297113}, std::pair{llama, 40947128.277941748}}) {
    const RopeShareComparison c = CompareRopeShares(p);
    ASSERT_TRUE(c.partial_status.ok()) << c.partial_status.message();
    ASSERT_TRUE(c.proportional_status.ok()) << c.proportional_status.message();
    EXPECT_EQ(c.share, 1.0);
    EXPECT_EQ(c.partial_dims, p.d_model);
    EXPECT_EQ(c.rotating_pairs, p.d_model / 2);
    ExpectRelNear(wave, c.partial_wavelength, 1e-13, "partial at share 1");
    ExpectRelNear(wave, c.proportional_wavelength, 1e-13, "p-RoPE at share 1");
  }
  // Gemma 3 at share 0.25 (numpy): partial RoPE, d_rot 64, 2 pi 1e6^(62/64) 8 =
  // 32641481.010175668; p-RoPE, 32 of 128 pairs, 2 pi 1e6^(62/256) 8 = 1426.904328378758.
  EncodingParams share = gemma;
  share.rope().rotary_fraction = 0.25;
  RopeShareComparison c = CompareRopeShares(share);
  EXPECT_EQ(c.share, 0.25);
  EXPECT_EQ(c.partial_dims, 64);
  EXPECT_EQ(c.rotating_pairs, 32);
  ExpectRelNear(32641481.010175668, c.partial_wavelength, 1e-13, "partial at share 0.25");
  ExpectRelNear(1426.904328378758, c.proportional_wavelength, 1e-13, "p-RoPE at share 0.25");
  // p-RoPE takes no scaling but linear: with Llama 3's it says so and quotes no number.
  EncodingParams llama_share = llama;
  llama_share.rope().rotary_fraction = 0.5;
  c = CompareRopeShares(llama_share);
  EXPECT_TRUE(c.partial_status.ok());
  EXPECT_FALSE(c.proportional_status.ok());
  EXPECT_EQ(c.proportional_wavelength, 0.0);
  // No pair turning: 0.
  EXPECT_EQ(RopeSlowestWavelength(RopeFrequencies{}), 0.0);
}

TEST(RopeValidation, RotaryFractionGivingOddOrNoDimsIsRefused) {
  EncodingParams p = Rope(64);
  p.rope().rotary_fraction = 0.3;  // 19.2 -> 19
  ExpectMentions(Refusal(p), {"rotary fraction", "(0, 1]", "even", "got 0.3", "19"});
  p.rope().rotary_fraction = 0.01;  // 0.64 -> 0
  ExpectMentions(Refusal(p), {"rotary fraction", "(0, 1]", ">= 2", "got 0.01"});
  p.rope().rotary_fraction = 0.0;
  ExpectMentions(Refusal(p), {"rotary fraction", "(0, 1]", "got 0"});
  p.rope().rotary_fraction = 1.5;
  ExpectMentions(Refusal(p), {"rotary fraction", "(0, 1]", "got 1.5"});
  p.rope().rotary_fraction = NAN;
  ExpectMentions(Refusal(p), {"rotary fraction", "got nan"});
  // Odd d_model with fraction 1 rotates an odd number of dims: the head dimension is named.
  p = Rope(127);
  ExpectMentions(Refusal(p), {"head dimension", "must be even", "got 127"});
  p = Rope(1);
  ExpectMentions(Refusal(p), {"head dimension", "must be even", "got 1"});
  // A fraction that makes an odd count of an even head names the fraction.
  p = Rope(128);
  p.rope().rotary_fraction = 0.25 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5;  // int(128 * 2^-8) = 0
  ExpectMentions(Refusal(p), {"rotary fraction", "(0, 1]"});
}

TEST(RopeValidation, MessagesNameTheParameterRangeAndValue) {
  EncodingParams p = Rope(64);
  EXPECT_TRUE(ValidateRopeParams(p).ok());

  p.rope().theta = 1.0;
  ExpectMentions(Refusal(p), {"rope theta", "greater than 1", "got 1"});
  p.rope().theta = INFINITY;
  ExpectMentions(Refusal(p), {"rope theta", "finite", "got inf"});
  p = Rope(64);

  p.rope().factor = 0.5;
  ExpectMentions(Refusal(p), {"rope scaling factor", ">= 1", "got 0.5"});
  p.rope().factor = NAN;
  ExpectMentions(Refusal(p), {"rope scaling factor", "got nan"});
  p = Rope(64);

  p.rope().original_max_len = 0;
  ExpectMentions(Refusal(p), {"original max length", ">= 1", "got 0"});
  p = Rope(64);

  p.rope().beta_fast = 1.0;
  ExpectMentions(Refusal(p), {"beta_fast > beta_slow", "beta_fast 1", "beta_slow 1"});
  p.rope().beta_fast = 32.0;
  p.rope().beta_slow = -2.0;
  ExpectMentions(Refusal(p), {"beta_slow", "greater than 0", "got -2"});
  p = Rope(64);

  p.rope().attention_factor = 0.0;
  ExpectMentions(Refusal(p), {"attention factor", "greater than 0", "got 0"});
  p.rope().attention_factor = -INFINITY;
  ExpectMentions(Refusal(p), {"attention factor", "got -inf"});
  p = Rope(64);

  p.rope().low_freq_factor = 0.0;
  ExpectMentions(Refusal(p), {"low_freq_factor", "greater than 0", "got 0"});
  p.rope().low_freq_factor = 2.0;
  p.rope().high_freq_factor = 1.5;
  ExpectMentions(Refusal(p), {"high_freq_factor", ">= low_freq_factor (2)", "got 1.5"});
  p = Rope(64);

  p.rope().sequence_len = -1;
  ExpectMentions(Refusal(p), {"sequence length", ">= 0", "got -1"});
}

// ComputeRopeFrequencies against tests/reference/rope_reference.py (numpy float64, HF's
// formulas with ** instead of exp / log), whose printed output is tests/rope_golden.inc.
struct RopeGolden {
  const char* name;
  RopeScaling scaling;
  int64_t d_model;
  double fraction, theta, factor;
  int64_t original, sequence_len;
  double beta_fast, beta_slow, attention_factor_given;  // 0: none given
  double low_freq_factor, high_freq_factor;
  int64_t d_rot;
  double base, attention_factor;
  bool truncate;
  double mscale, mscale_all_dim, proportion;
  int64_t rotating_pairs;
  std::vector<double> scaled;
};

const RopeGolden kGolden[] = {
#include "rope_golden.inc"
};

TEST(RopeGolden, EveryScalingMatchesTheNumpyReference) {
  for (const RopeGolden& g : kGolden) {
    EncodingParams p = Rope(g.d_model, g.theta, g.scaling, g.factor);
    RopeParams& r = p.rope();
    r.rotary_fraction = g.fraction;
    r.original_max_len = g.original;
    r.sequence_len = g.sequence_len;
    r.beta_fast = g.beta_fast;
    r.beta_slow = g.beta_slow;
    if (g.attention_factor_given != 0.0) r.attention_factor = g.attention_factor_given;
    r.low_freq_factor = g.low_freq_factor;
    r.high_freq_factor = g.high_freq_factor;
    r.yarn_truncate = g.truncate;
    r.mscale = g.mscale;
    r.mscale_all_dim = g.mscale_all_dim;
    r.proportion = g.proportion;
    const RopeFrequencies f = Compute(p);
    EXPECT_EQ(f.d_rot, g.d_rot) << g.name;
    EXPECT_EQ(f.rotating_pairs, g.rotating_pairs) << g.name;
    ExpectRelNear(g.base, f.base, 1e-12, std::string(g.name) + " base");
    ExpectRelNear(g.attention_factor, f.attention_factor, 1e-12,
                  std::string(g.name) + " attention factor");
    ASSERT_EQ(f.pairs.size(), g.scaled.size()) << g.name;
    for (size_t i = 0; i < g.scaled.size(); ++i) {
      ExpectRelNear(g.scaled[i], f.pairs[i].scaled, 1e-12,
                    std::string(g.name) + " pair " + std::to_string(i));
    }
  }
}

}  // namespace
}  // namespace pe
