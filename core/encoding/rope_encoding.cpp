#include "encoding/rope_encoding.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "base/format_text.h"
#include "encoding/wave_encoding.h"

namespace pe {

std::vector<WaveColumn> RopeColumns(const EncodingParams& params, const RopeFrequencies& f) {
  const RopeParams& r = params.rope();
  const int64_t h = f.d_rot / 2;
  std::vector<WaveColumn> cols;
  if (r.part == RopePart::kAngle) {
    for (int64_t i = 0; i < h; ++i) {
      WaveColumn c;
      c.dim = i;
      c.pair = i;
      c.wave = Wave::kAngle;
      c.frequency = f.pairs[static_cast<size_t>(i)].scaled;
      c.exponent_num = 2.0 * static_cast<double>(i);
      c.exponent_den = static_cast<double>(f.d_rot);
      cols.push_back(c);
    }
    return cols;
  }
  for (int64_t j = 0; j < f.d_rot; ++j) {
    WaveColumn c;
    c.dim = j;
    c.pair = r.pairing == RopePairing::kHalf ? j % h : j / 2;
    c.wave = r.part == RopePart::kCos ? Wave::kCos : Wave::kSin;
    c.frequency = f.pairs[static_cast<size_t>(c.pair)].scaled;
    c.amplitude = f.attention_factor;
    c.exponent_num = 2.0 * static_cast<double>(c.pair);
    c.exponent_den = static_cast<double>(f.d_rot);
    cols.push_back(c);
  }
  return cols;
}

std::vector<int64_t> InterleavedToHalfPermutation(int64_t d_rot) {
  const int64_t h = d_rot / 2;
  std::vector<int64_t> perm(static_cast<size_t>(d_rot));
  for (int64_t j = 0; j < d_rot; ++j)
    perm[static_cast<size_t>(j)] = j < h ? 2 * j : 2 * (j - h) + 1;
  return perm;
}

namespace {

class RopeEncoding final : public WaveTableEncoding {
 public:
  explicit RopeEncoding(const EncodingParams& params)
      : RopeEncoding(params, ComputeRopeFrequencies(params)) {}
  RopeEncoding(const EncodingParams& params, RopeFrequencies freq)
      : WaveTableEncoding(params, RopeColumns(params, freq)), freq_(std::move(freq)) {
    // Pair i is (i, i + h) in the half pairing, (2i, 2i + 1) interleaved.
    const int64_t h = freq_.d_rot / 2;
    const bool half = params_.rope().pairing == RopePairing::kHalf;
    for (int64_t i = 0; i < h; ++i) {
      pairs_.push_back({i, half ? i : 2 * i, half ? i + h : 2 * i + 1,
                        freq_.pairs[static_cast<size_t>(i)].scaled, freq_.attention_factor, 0.0});
    }
  }

  int64_t cols() const override { return static_cast<int64_t>(columns_.size()); }
  std::string TableName() const override { return std::string(RopePartName(params_.rope().part)); }
  ColumnNoun column_noun() const override {
    return params_.rope().part == RopePart::kAngle ? ColumnNoun::kPair : ColumnNoun::kDim;
  }
  std::span<const RotaryPair> rotary_pairs() const override { return pairs_; }
  const RopeFrequencies* frequencies() const override { return &freq_; }
  std::string ScalingText() const override {
    return RopeScalingText(params_, freq_.attention_factor);
  }
  ValueRange Range() const override {
    if (params_.rope().part != RopePart::kAngle) {
      return {-freq_.attention_factor, freq_.attention_factor};
    }
    double w_min = INFINITY, w_max = 0;
    for (const RopePair& p : freq_.pairs) {
      w_min = std::min(w_min, p.scaled);
      w_max = std::max(w_max, p.scaled);
    }
    const double lo = static_cast<double>(first_position()) * w_min;
    const double hi = static_cast<double>(last_position()) * w_max;
    return {lo, hi > lo ? hi : lo + 1.0};
  }
  std::string Summary() const override {
    const RopeParams& r = params_.rope();
    std::string s = Fmt(
        "rope %s %s, head dim %lld (d_rot %lld), theta %g",
        std::string(RopePairingName(r.pairing)).c_str(), std::string(RopePartName(r.part)).c_str(),
        static_cast<long long>(params_.d_model), static_cast<long long>(freq_.d_rot), r.theta);
    s += RopeScalingText(params_, freq_.attention_factor);
    s += ProportionText();
    s += Fmt(", L=%lld", static_cast<long long>(params_.max_len));
    if (params_.offset != 0)
      s += Fmt(", from position %lld", static_cast<long long>(params_.offset));
    return s;
  }
  std::string Title() const override {
    const RopeParams& r = params_.rope();
    std::string s = Fmt("RoPE %s (%s, theta %g", TableName().c_str(),
                        std::string(RopePairingName(r.pairing)).c_str(), r.theta);
    s += RopeScalingText(params_, freq_.attention_factor);
    s += ProportionText();
    return s + ")";
  }
  // Proportional RoPE: ", proportion 0.25 (16 of 64 pairs turn)"; empty at 1.
  std::string ProportionText() const {
    const RopeParams& r = params_.rope();
    if (!(r.proportion < 1.0)) return {};
    return Fmt(", proportion %g (%lld of %lld pairs turn)", r.proportion,
               static_cast<long long>(freq_.rotating_pairs),
               static_cast<long long>(freq_.d_rot / 2));
  }
  std::string FileTag() const override {
    const RopeParams& r = params_.rope();
    std::string s = "rope-";
    s += TableName();
    if (r.scaling != RopeScaling::kNone) {
      s += '-';
      s += RopeScalingName(r.scaling);
    }
    return s;
  }
  // R_p v as HF's apply_rotary_pos_emb computes it: v * cos + rotate_half(v) * sin, cos and sin
  // times the attention factor; pair i is (i, i + h) for half, (2i, 2i + 1) for interleaved.
  // The dims past d_rot pass through (partial rotary). Queries and keys turn the same way.
  void RotateQuery(int64_t position, double* v) const override { Rotate(position, v); }
  void RotateKey(int64_t position, double* v) const override { Rotate(position, v); }

  // "cos(37 * 500000^(-24/128) / 8) = 0.9981": the angle as the scaling makes it.
  std::string DescribeCell(int64_t position, int64_t col) const override {
    const WaveColumn& c = columns_[static_cast<size_t>(col)];
    const RopeParams& r = params_.rope();
    const RopePair& pair = freq_.pairs[static_cast<size_t>(c.pair)];
    const auto p = static_cast<long long>(position);
    const auto num = static_cast<long long>(c.exponent_num);
    const auto den = static_cast<long long>(c.exponent_den);
    std::string angle;
    if (r.scaling == RopeScaling::kNtk || r.scaling == RopeScaling::kDynamicNtk) {
      angle = Fmt("%lld * %.8g^(-%lld/%lld)", p, freq_.base, num, den);
    } else if (r.scaling == RopeScaling::kLongrope) {
      const bool long_list = freq_.longrope_uses_long;
      const std::vector<double>& ext = long_list ? r.long_factor : r.short_factor;
      angle = Fmt("%lld * %g^(-%lld/%lld) / %.9g [%s factor]", p, r.theta, num, den,
                  ext[static_cast<size_t>(c.pair)], long_list ? "long" : "short");
    } else if (pair.treatment == PairTreatment::kKept) {
      angle = Fmt("%lld * %g^(-%lld/%lld)", p, r.theta, num, den);
    } else if (pair.treatment == PairTreatment::kInterpolated) {
      angle = Fmt("%lld * %g^(-%lld/%lld) / %g", p, r.theta, num, den, r.factor);
    } else {
      angle = Fmt("%lld * %.6g [%.3g of %g^(-%lld/%lld), the rest of it / %g]", p, pair.scaled,
                  pair.ramp, r.theta, num, den, r.factor);
    }
    const double value = WaveValueAt(c, static_cast<double>(position));
    if (c.wave == Wave::kAngle) return angle + Fmt(" = %.6g rad", value);
    const std::string scale =
        freq_.attention_factor != 1.0 ? Fmt("%.8g * ", freq_.attention_factor) : std::string();
    return scale + (c.wave == Wave::kCos ? "cos(" : "sin(") + angle + Fmt(") = %.4f", value);
  }

 private:
  void Rotate(int64_t position, double* v) const {
    const int64_t h = freq_.d_rot / 2;
    const bool half = params_.rope().pairing == RopePairing::kHalf;
    const double a = freq_.attention_factor;
    for (int64_t i = 0; i < h; ++i) {
      const double angle =
          static_cast<double>(position) * freq_.pairs[static_cast<size_t>(i)].scaled;
      const double c = std::cos(angle) * a, s = std::sin(angle) * a;
      double& x = v[half ? i : 2 * i];
      double& y = v[half ? i + h : 2 * i + 1];
      const double x0 = x, y0 = y;
      x = x0 * c - y0 * s;
      y = y0 * c + x0 * s;
    }
  }

  RopeFrequencies freq_;
  std::vector<RotaryPair> pairs_;  // (d_rot / 2)
};

}  // namespace

std::string RopeScalingText(const EncodingParams& params, double attention_factor) {
  const RopeParams& r = params.rope();
  if (r.scaling == RopeScaling::kNone) return {};
  if (r.scaling == RopeScaling::kLongrope) {
    // The list in use, the length that chose it and what the switch depends on.
    const int64_t seq = RopeLongropeSequenceLength(params);
    std::string s = Fmt(", longrope %s factors at length %lld (original %lld, max %lld)",
                        seq > r.original_max_len ? "long" : "short", static_cast<long long>(seq),
                        static_cast<long long>(r.original_max_len),
                        static_cast<long long>(r.max_position_embeddings));
    if (attention_factor != 1.0) s += Fmt(", attention factor %.8g", attention_factor);
    return s;
  }
  std::string s = Fmt(", %s x%g", std::string(RopeScalingName(r.scaling)).c_str(), r.factor);
  if (r.scaling == RopeScaling::kDynamicNtk) {
    s += Fmt(" at length %lld (original %lld)",
             static_cast<long long>(RopeDynamicSequenceLength(params)),
             static_cast<long long>(r.original_max_len));
  } else if (r.scaling == RopeScaling::kYarn || r.scaling == RopeScaling::kLlama3) {
    s += Fmt(" (original %lld)", static_cast<long long>(r.original_max_len));
  }
  // YaRN's options that change the table: the correction range's ends kept fractional, and the
  // attention factor given or made from mscale / mscale_all_dim (then said even when it is 1,
  // where the default would not be).
  const bool yarn = r.scaling == RopeScaling::kYarn;
  const bool mscales = yarn && r.mscale != 0.0 && r.mscale_all_dim != 0.0;
  if (yarn && !r.yarn_truncate) s += ", truncate off";
  if (attention_factor != 1.0 || (yarn && (r.attention_factor.has_value() || mscales))) {
    s += Fmt(", attention factor %.8g", attention_factor);
    if (yarn && r.attention_factor.has_value()) {
      s += " (given)";
    } else if (mscales) {
      s += Fmt(" (mscale %g / mscale_all_dim %g)", r.mscale, r.mscale_all_dim);
    }
  }
  return s;
}

Result<EncodingPtr> MakeRopeEncoding(const EncodingParams& params) {
  return EncodingPtr(std::make_shared<RopeEncoding>(params));
}

}  // namespace pe
