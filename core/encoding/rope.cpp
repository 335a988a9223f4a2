#include "encoding/rope.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "encoding/encoding.h"

namespace pe {

namespace {

// The shortest text that reads back as the same double ("0.5", "10000", "inf", "nan").
std::string FormatNumber(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) return "?";
  return std::string(buf, end);
}

bool Finite(double v) {
  return std::isfinite(v);
}

// base^(-2i/d) = exp(-(2i/d) ln base), with ln base given in long double, rounded once to
// double, as DescribeColumn does for the sinusoid (positional_encoding.cpp).
double PairFrequency(long double log_base, int64_t i, int64_t d) {
  return static_cast<double>(
      std::exp(-static_cast<long double>(2 * i) / static_cast<long double>(d) * log_base));
}

// Treatment and ramp from the frequencies, for the scalings that blend original and
// interpolated frequencies (none, linear, YaRN, Llama 3): the exact comparisons win over the
// blend weight, so kept always has ramp 1 and interpolated ramp 0 (YaRN with factor 1 blends
// two equal frequencies: every pair is kept).
void ClassifyBlend(RopePair& pair, double factor, double blend_weight) {
  if (pair.scaled == pair.original) {
    pair.treatment = PairTreatment::kKept;
    pair.ramp = 1.0;
  } else if (pair.scaled == pair.original / factor) {
    pair.treatment = PairTreatment::kInterpolated;
    pair.ramp = 0.0;
  } else {
    pair.treatment = PairTreatment::kBlended;
    pair.ramp = blend_weight;
  }
}

// NTK-style scalings raise the base by alpha^(d/(d-2)) (alpha = factor for static NTK), so
// scaled / original = alpha^(-2i/(d-2)) and
//   ln(scaled / (original / factor)) / ln(factor) = 1 - (2i/(d-2)) ln(alpha) / ln(factor),
// the closed form used here, clamped to [0, 1]. `log_ratio` is ln(alpha) / ln(factor): exactly 1
// for static NTK (so its last pair has ramp exactly 0), +inf when factor is 1 but alpha is not.
void ClassifyNtk(RopePair& pair, int64_t d_rot, long double log_ratio) {
  if (pair.scaled == pair.original) {
    pair.treatment = PairTreatment::kKept;
    pair.ramp = 1.0;
    return;
  }
  pair.treatment = PairTreatment::kBlended;
  // Here i >= 1 and d_rot >= 4 (pair 0 has w = 1 for any base, and d_rot = 2 has no other).
  const long double r = 1.0L - static_cast<long double>(2 * pair.index) /
                                   static_cast<long double>(d_rot - 2) * log_ratio;
  pair.ramp = std::clamp(static_cast<double>(r), 0.0, 1.0);
}

// Both LongRoPE lists given, `pairs` finite numbers > 0 each; the message names the flag, the
// rule and the value.
Status ValidateLongropeFactors(const RopeParams& r, int64_t pairs) {
  const std::pair<const char*, const std::vector<double>*> lists[] = {
      {"--short-factor", &r.short_factor}, {"--long-factor", &r.long_factor}};
  for (const auto& [flag, list] : lists) {
    if (list->empty()) {
      return InvalidArgument(std::string("--rope-scaling longrope needs ") + flag + ": " +
                             std::to_string(pairs) +
                             " comma-separated numbers > 0 (d_rot / 2, one per rotated pair), "
                             "got none");
    }
    if (static_cast<int64_t>(list->size()) != pairs) {
      return InvalidArgument(std::string(flag) + " must hold d_rot / 2 = " + std::to_string(pairs) +
                             " numbers, one per rotated pair, got " + std::to_string(list->size()));
    }
    for (size_t k = 0; k < list->size(); ++k) {
      const double v = (*list)[k];
      if (!Finite(v) || !(v > 0.0)) {
        return InvalidArgument(std::string(flag) + " numbers must be finite and > 0, got " +
                               FormatNumber(v) + " at position " + std::to_string(k + 1));
      }
    }
  }
  // The default attention factor divides by ln(original); an original of 1 would make it
  // infinite (HF computes the same division).
  if (!r.attention_factor && r.original_max_len < 2 &&
      r.max_position_embeddings > r.original_max_len) {
    return InvalidArgument(
        "LongRoPE's default attention factor sqrt(1 + ln s / ln original) needs original max "
        "length (--original-max-len) >= 2, got " +
        std::to_string(r.original_max_len) + " (or give --attention-factor)");
  }
  return {};
}

}  // namespace

std::string_view PairTreatmentName(PairTreatment t) {
  switch (t) {
    case PairTreatment::kKept:
      return "kept";
    case PairTreatment::kInterpolated:
      return "interpolated";
    case PairTreatment::kBlended:
      return "blended";
  }
  return "kept";
}

int64_t RopeRotaryDims(const EncodingParams& params) {
  // HF: dim = int(head_dim * partial_rotary_factor), the product in double, truncated.
  const double product = static_cast<double>(params.d_model) * params.rope().rotary_fraction;
  if (!(product >= 0.0) || product > 1e18) return 0;  // NaN or out of range: refused anyway
  return static_cast<int64_t>(product);
}

Status ValidateRopeParams(const EncodingParams& params) {
  assert(params.kind() == Scheme::kRope && "ValidateRopeParams needs RoPE parameters");
  const RopeParams& r = params.rope();
  if (!Finite(r.theta) || !(r.theta > 1.0)) {
    return InvalidArgument("rope theta must be a finite number greater than 1, got " +
                           FormatNumber(r.theta));
  }
  {
    const bool in_range = r.rotary_fraction > 0.0 && r.rotary_fraction <= 1.0;
    const int64_t d_rot = in_range ? RopeRotaryDims(params) : 0;
    if (in_range && r.rotary_fraction == 1.0 && params.d_model % 2 != 0) {
      // The whole head rotates, in pairs: the head dimension itself must be even.
      return InvalidArgument(
          "the head dimension (d_model) must be even for rope, whose dimensions turn in pairs, "
          "got " +
          std::to_string(params.d_model));
    }
    if (!in_range || d_rot < 2 || d_rot % 2 != 0) {
      std::string message =
          "rotary fraction must be in (0, 1] and give an even number of rotated dimensions "
          "int(d_model * fraction) >= 2, got " +
          FormatNumber(r.rotary_fraction);
      if (in_range) {
        message += " (with d_model " + std::to_string(params.d_model) + " that is " +
                   std::to_string(d_rot) + ")";
      }
      return InvalidArgument(message);
    }
  }
  if (!Finite(r.factor) || !(r.factor >= 1.0)) {
    return InvalidArgument("rope scaling factor must be a finite number >= 1, got " +
                           FormatNumber(r.factor));
  }
  if (r.original_max_len < 1) {
    return InvalidArgument(
        "original max length (original_max_position_embeddings) must be >= 1, "
        "got " +
        std::to_string(r.original_max_len));
  }
  if (!Finite(r.beta_slow) || !(r.beta_slow > 0.0)) {
    return InvalidArgument("YaRN beta_slow must be a finite number greater than 0, got " +
                           FormatNumber(r.beta_slow));
  }
  if (!Finite(r.beta_fast)) {
    return InvalidArgument("YaRN beta_fast must be a finite number, got " +
                           FormatNumber(r.beta_fast));
  }
  if (!(r.beta_fast > r.beta_slow)) {
    // Names both: either one may be the value just typed.
    return InvalidArgument("YaRN needs beta_fast > beta_slow, got beta_fast " +
                           FormatNumber(r.beta_fast) + " and beta_slow " +
                           FormatNumber(r.beta_slow));
  }
  if (r.attention_factor && (!Finite(*r.attention_factor) || !(*r.attention_factor > 0.0))) {
    return InvalidArgument(std::string(r.scaling == RopeScaling::kLongrope ? "LongRoPE" : "YaRN") +
                           " attention factor must be a finite number greater than 0, got " +
                           FormatNumber(*r.attention_factor));
  }
  if (!Finite(r.low_freq_factor) || !(r.low_freq_factor > 0.0)) {
    return InvalidArgument("Llama 3 low_freq_factor must be a finite number greater than 0, got " +
                           FormatNumber(r.low_freq_factor));
  }
  if (!Finite(r.high_freq_factor) || !(r.high_freq_factor >= r.low_freq_factor)) {
    // Equal factors (Llama 4 Scout: 1 and 1) leave no blend band; HF accepts them
    // (_compute_llama3_parameters only warns).
    return InvalidArgument("Llama 3 high_freq_factor must be a finite number >= low_freq_factor (" +
                           FormatNumber(r.low_freq_factor) + "), got " +
                           FormatNumber(r.high_freq_factor));
  }
  if (r.sequence_len < 0) {
    return InvalidArgument(
        "dynamic NTK sequence length must be >= 0 (0: the table's last position + 1), got " +
        std::to_string(r.sequence_len));
  }
  if (r.max_position_embeddings < 1) {
    return InvalidArgument("LongRoPE max_position_embeddings must be >= 1, got " +
                           std::to_string(r.max_position_embeddings));
  }
  if (r.scaling == RopeScaling::kLongrope) {
    if (Status s = ValidateLongropeFactors(r, RopeRotaryDims(params) / 2); !s.ok()) return s;
  }
  if (!Finite(r.mscale) || !(r.mscale >= 0.0)) {
    return InvalidArgument("YaRN mscale must be a finite number >= 0 (0: not given), got " +
                           FormatNumber(r.mscale));
  }
  if (!Finite(r.mscale_all_dim) || !(r.mscale_all_dim >= 0.0)) {
    return InvalidArgument("YaRN mscale_all_dim must be a finite number >= 0 (0: not given), got " +
                           FormatNumber(r.mscale_all_dim));
  }
  if (!(r.proportion > 0.0 && r.proportion <= 1.0)) {
    return InvalidArgument("rope proportion (--rope-proportion) must be in (0, 1], got " +
                           FormatNumber(r.proportion));
  }
  if (r.proportion < 1.0) {
    // HF keeps one key, partial_rotary_factor, for both: the "proportional" rope type reads it
    // as the rotating proportion over the whole head, every other type as the share of the head
    // in the table. A config cannot ask for both, so neither can these flags.
    if (r.rotary_fraction < 1.0) {
      return InvalidArgument(
          "rope proportion (--rope-proportion) " + FormatNumber(r.proportion) +
          " and rotary fraction (--rotary-fraction) " + FormatNumber(r.rotary_fraction) +
          " cannot both be below 1: HF's partial_rotary_factor is one or the other (p-RoPE keeps "
          "the whole head and stills the rest, partial RoPE leaves the rest out); set one to 1");
    }
    // HF's proportional rope type divides by its factor and does nothing else.
    if (r.scaling != RopeScaling::kNone && r.scaling != RopeScaling::kLinear) {
      return InvalidArgument("rope proportion (--rope-proportion) " + FormatNumber(r.proportion) +
                             " below 1 works with --rope-scaling none or linear (HF's "
                             "proportional rope type divides by factor only), got " +
                             std::string(RopeScalingName(r.scaling)));
    }
    const int64_t k = RopeRotatingPairs(params);
    if (k < 1) {
      return InvalidArgument(
          "rope proportion (--rope-proportion) must leave at least one rotating pair, "
          "floor(proportion * d_model / 2) >= 1, got " +
          FormatNumber(r.proportion) + " (with d_model " + std::to_string(params.d_model) +
          " that is " + std::to_string(k) + ")");
    }
  }
  return {};
}

int64_t RopeRotatingPairs(const EncodingParams& params) {
  // HF _compute_proportional_rope_parameters: rope_angles = int(rope_proportion * head_dim // 2),
  // the product rounded to double, then halved and floored. Without a proportion below 1 every
  // pair of d_rot turns.
  const RopeParams& r = params.rope();
  const int64_t d = RopeRotaryDims(params);
  if (!(r.proportion < 1.0)) return d / 2;
  const double product = static_cast<double>(params.d_model) * r.proportion;
  if (!(product >= 0.0)) return 0;
  return std::min(static_cast<int64_t>(std::floor(product / 2.0)), d / 2);
}

int64_t RopeDynamicSequenceLength(const EncodingParams& params) {
  const RopeParams& r = params.rope();
  const int64_t seq = r.sequence_len > 0 ? r.sequence_len : params.offset + params.max_len;
  return std::max(seq, r.original_max_len);
}

int64_t RopeLongropeSequenceLength(const EncodingParams& params) {
  const RopeParams& r = params.rope();
  return r.sequence_len > 0 ? r.sequence_len : params.offset + params.max_len;
}

double RopeLongropeDefaultAttentionFactor(int64_t max_position_embeddings, int64_t original) {
  // HF _compute_longrope_parameters: factor = max_position_embeddings /
  // original_max_position_embeddings when the config has both (Phi-3 does), then
  // sqrt(1 + ln(factor) / ln(original)), or 1 for factor <= 1.
  const double s = static_cast<double>(max_position_embeddings) / static_cast<double>(original);
  if (s <= 1.0) return 1.0;
  return std::sqrt(1.0 + std::log(s) / std::log(static_cast<double>(original)));
}

double RopeYarnDefaultAttentionFactor(double factor) {
  // HF _compute_yarn_parameters, get_mscale(factor) with mscale 1.
  return RopeYarnMscale(factor, 1.0);
}

double RopeYarnMscale(double factor, double mscale) {
  // HF _compute_yarn_parameters, get_mscale(scale, mscale).
  if (factor <= 1.0) return 1.0;
  return 0.1 * mscale * std::log(factor) + 1.0;
}

double RopeYarnAttentionFactor(const RopeParams& r) {
  // HF _compute_yarn_parameters: a given attention_factor wins; else, when mscale and
  // mscale_all_dim are both truthy, their ratio; else get_mscale(factor).
  if (r.attention_factor) return *r.attention_factor;
  if (r.mscale != 0.0 && r.mscale_all_dim != 0.0) {
    return RopeYarnMscale(r.factor, r.mscale) / RopeYarnMscale(r.factor, r.mscale_all_dim);
  }
  return RopeYarnDefaultAttentionFactor(r.factor);
}

RopeFrequencies ComputeRopeFrequencies(const EncodingParams& params) {
  assert(ValidateRopeParams(params).ok() && "ComputeRopeFrequencies needs valid parameters");
  const RopeParams& r = params.rope();
  RopeFrequencies out;
  const int64_t d = RopeRotaryDims(params);
  out.d_rot = d;
  out.base = r.theta;
  const long double log_theta = std::log(static_cast<long double>(r.theta));
  const int64_t n = d / 2;
  // Proportional RoPE (HF _compute_proportional_rope_parameters): pairs from rotating on have
  // frequency 0 before any scaling, and dividing by a factor keeps them 0.
  const int64_t rotating = RopeRotatingPairs(params);
  out.rotating_pairs = rotating;
  out.pairs.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    RopePair& p = out.pairs[static_cast<size_t>(i)];
    p.index = i;
    p.original = i < rotating ? PairFrequency(log_theta, i, d) : 0.0;
    p.scaled = p.original;
    p.treatment = PairTreatment::kKept;
    p.ramp = 1.0;
  }
  const double factor = r.factor;

  switch (r.scaling) {
    case RopeScaling::kNone:
      break;

    case RopeScaling::kLinear:
      // _compute_linear_scaling_rope_parameters: inv_freq / factor.
      for (RopePair& p : out.pairs) {
        p.scaled = p.original / factor;
        ClassifyBlend(p, factor, 0.0);
      }
      break;

    case RopeScaling::kNtk:
    case RopeScaling::kDynamicNtk: {
      // The NTK-aware base change (HF's dynamic NTK at a fixed length): base' = theta *
      // factor^(d/(d-2)). _compute_dynamic_ntk_parameters: base' = theta * alpha^(d/(d-2)) with
      // alpha = factor * seq / original - (factor - 1), written here as the equal
      // 1 + factor * (seq - original) / original, which is exactly 1 at seq == original.
      // ln base' is formed in long double, so a huge factor cannot overflow base' into the
      // frequencies. With d_rot = 2 the exponent d/(d-2) is undefined, but the only pair has
      // w = base'^0 = 1 whatever the base: base' is reported as theta.
      long double log_alpha = 0.0L;
      long double log_ratio = 1.0L;  // ln(alpha) / ln(factor)
      if (r.scaling == RopeScaling::kNtk) {
        log_alpha = std::log(static_cast<long double>(factor));
      } else {
        const int64_t seq = RopeDynamicSequenceLength(params);
        out.sequence_len = seq;
        const long double alpha = 1.0L + static_cast<long double>(factor) *
                                             static_cast<long double>(seq - r.original_max_len) /
                                             static_cast<long double>(r.original_max_len);
        log_alpha = std::log(alpha);
        const long double log_factor = std::log(static_cast<long double>(factor));
        if (log_factor > 0.0L) {
          log_ratio = log_alpha / log_factor;
        } else {
          log_ratio = log_alpha > 0.0L ? HUGE_VALL : 1.0L;
        }
      }
      if (d <= 2 || log_alpha == 0.0L) break;  // base' = theta: every pair kept
      const long double log_base =
          log_theta + static_cast<long double>(d) / static_cast<long double>(d - 2) * log_alpha;
      out.base = static_cast<double>(std::exp(log_base));
      for (RopePair& p : out.pairs) {
        p.scaled = PairFrequency(log_base, p.index, d);
        ClassifyNtk(p, d, log_ratio);
      }
      break;
    }

    case RopeScaling::kYarn: {
      // _compute_yarn_parameters. The correction dimension of a pair that turns `rotations`
      // times over the original context: d ln(original / (rotations 2 pi)) / (2 ln theta),
      // in double as HF computes it (so floor and ceil agree with it at the edges).
      const double original_len = static_cast<double>(r.original_max_len);
      const double dd = static_cast<double>(d);
      auto correction_dim = [&](double rotations) {
        return (dd * std::log(original_len / (rotations * 2.0 * std::numbers::pi))) /
               (2.0 * std::log(r.theta));
      };
      // find_correction_range: with truncate (HF's default) floor the fast end and ceil the
      // slow end; without it (GPT-OSS) keep both fractional; then clamp to [0, d - 1] (d, not
      // d/2, as HF does).
      double low = correction_dim(r.beta_fast);
      double high = correction_dim(r.beta_slow);
      if (r.yarn_truncate) {
        low = std::floor(low);
        high = std::ceil(high);
      }
      low = std::max(low, 0.0);
      high = std::min(high, dd - 1.0);
      if (low == high) high += 0.001;  // linear_ramp_factor's guard against a zero width
      out.yarn_low = low;
      out.yarn_high = high;
      out.attention_factor = RopeYarnAttentionFactor(r);
      for (RopePair& p : out.pairs) {
        // linear_ramp_factor: 0 up to low, 1 from high (in float32 in HF, double here). The
        // extrapolation weight (of the original frequency) is 1 minus it.
        const double linear =
            std::clamp((static_cast<double>(p.index) - low) / (high - low), 0.0, 1.0);
        const double keep = 1.0 - linear;
        const double interpolated = p.original / factor;
        p.scaled = interpolated * (1.0 - keep) + p.original * keep;
        ClassifyBlend(p, factor, keep);
      }
      break;
    }

    case RopeScaling::kLlama3: {
      // _compute_llama3_parameters: thresholds on the wavelength 2 pi / w. With
      // low_freq_factor == high_freq_factor (Llama 4 Scout) the blend band is the one
      // wavelength original / low_freq_factor: HF computes its smooth factor as 0 / 0 (NaN) and
      // Meta's apply_scaling asserts the factors differ; such a pair keeps its frequency here.
      // Every other pair is kept or divided, as in HF. A zero frequency (proportional RoPE) has
      // an infinite wavelength: divided, and stays 0.
      const double original_len = static_cast<double>(r.original_max_len);
      const double low_freq_wavelen = original_len / r.low_freq_factor;
      const double high_freq_wavelen = original_len / r.high_freq_factor;
      for (RopePair& p : out.pairs) {
        const double wavelen = 2.0 * std::numbers::pi / p.original;
        double weight;
        if (wavelen > low_freq_wavelen) {
          p.scaled = p.original / factor;
          weight = 0.0;
        } else if (wavelen < high_freq_wavelen || r.high_freq_factor == r.low_freq_factor) {
          weight = 1.0;
        } else {
          // The smooth factor: 0 at the low-frequency threshold, 1 at the high one.
          weight = (original_len / wavelen - r.low_freq_factor) /
                   (r.high_freq_factor - r.low_freq_factor);
          p.scaled = (1.0 - weight) * (p.original / factor) + weight * p.original;
        }
        ClassifyBlend(p, factor, weight);
      }
      break;
    }

    case RopeScaling::kLongrope: {
      // _compute_longrope_parameters: inv_freq = 1 / (ext_i * base^(2i/d)), ext = long_factor
      // when seq_len > original_max_position_embeddings, else short_factor. Phi-3's rotary
      // embedding picks by the current length (dynamic_rope_update: longrope_frequency_update,
      // seq_len = max(position_ids) + 1); here that length is RopeLongropeSequenceLength.
      const int64_t seq = RopeLongropeSequenceLength(params);
      out.sequence_len = seq;
      out.longrope_uses_long = seq > r.original_max_len;
      out.attention_factor =
          r.attention_factor
              ? *r.attention_factor
              : RopeLongropeDefaultAttentionFactor(r.max_position_embeddings, r.original_max_len);
      const double s =
          static_cast<double>(r.max_position_embeddings) / static_cast<double>(r.original_max_len);
      const std::vector<double>& ext = out.longrope_uses_long ? r.long_factor : r.short_factor;
      for (RopePair& p : out.pairs) {
        const auto k = static_cast<size_t>(p.index);
        out.longrope_short.push_back(p.original / r.short_factor[k]);
        out.longrope_long.push_back(p.original / r.long_factor[k]);
        p.scaled = p.original / ext[k];
        const double ramp =
            s > 1.0 ? std::clamp(1.0 - std::log(ext[k]) / std::log(s), 0.0, 1.0) : 0.0;
        ClassifyBlend(p, s > 1.0 ? s : 1.0, ramp);
      }
      break;
    }
  }
  return out;
}

double RopeSlowestWavelength(const RopeFrequencies& freqs) {
  double slowest = 0.0;
  for (const RopePair& p : freqs.pairs) {
    if (p.scaled > 0.0) slowest = std::max(slowest, 2.0 * std::numbers::pi / p.scaled);
  }
  return slowest;
}

RopeShareComparison CompareRopeShares(const EncodingParams& params) {
  const RopeParams& r = params.rope();
  RopeShareComparison out;
  out.share = std::min({r.rotary_fraction, r.proportion, 1.0});
  EncodingParams partial = params, prop = params;
  partial.rope().rotary_fraction = out.share;
  partial.rope().proportion = 1.0;
  prop.rope().rotary_fraction = 1.0;
  prop.rope().proportion = out.share;
  // The wavelength from the table each side would build, scaling included.
  const auto side = [](const EncodingParams& p, Status& status, double& wavelength) {
    status = ValidateEncodingParams(p);
    if (status.ok()) wavelength = RopeSlowestWavelength(ComputeRopeFrequencies(p));
  };
  if (out.share > 0.0) {
    out.partial_dims = RopeRotaryDims(partial);
    out.rotating_pairs = RopeRotatingPairs(prop);
  }
  side(partial, out.partial_status, out.partial_wavelength);
  side(prop, out.proportional_status, out.proportional_wavelength);
  return out;
}

}  // namespace pe
