#include "encoding/xpos.h"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "base/format_text.h"

namespace pe {

namespace {

// The shortest text that reads back as the same double.
std::string FormatNumber(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) return "?";
  return std::string(buf, end);
}

// +1: the query's decay zeta^(n'/scale_base); -1: the key's zeta^(-n'/scale_base).
double SideSign(XposSide side) {
  return side == XposSide::kQuery ? 1.0 : -1.0;
}

// The decay's exponent, sign * n' ln(zeta_i) / scale_base: one expression for every caller, so
// the table, the checks and the rotations agree to the bit.
double DecayExponent(double sign, double decay_position, double log_zeta, double scale_base) {
  return sign * (decay_position * log_zeta / scale_base);
}

// The largest exponent of `side`'s decay over decay positions [k_lo, k_hi]: pair 0 has the
// largest |ln zeta|, the last pair the smallest, and the exponent is linear in both, so the
// maximum is at a corner.
double MaxDecayExponent(int64_t d, double scale_base, XposSide side, int64_t k_lo, int64_t k_hi) {
  const double sign = SideSign(side);
  double best = -INFINITY;
  for (const int64_t i : {int64_t{0}, d / 2 - 1}) {
    const double lz = std::log(XposZeta(d, i));
    for (const int64_t k : {k_lo, k_hi}) {
      best = std::max(best, DecayExponent(sign, static_cast<double>(k), lz, scale_base));
    }
  }
  return best;
}

int64_t CentreShift(XposPositions positions, int64_t max_len, int64_t offset) {
  // Python's -(length + offset) // 2 floors: -ceil((length + offset) / 2) for length + offset > 0.
  return positions == XposPositions::kCentred ? -((max_len + offset + 1) / 2) : 0;
}

// Whether the decay of `params`' side stays inside float32 over its table (its values are then
// finite after rounding).
bool DecayFitsFloat(const EncodingParams& p, int64_t max_len) {
  const XposParams& x = p.xpos();
  const int64_t shift = CentreShift(x.positions, max_len, p.offset);
  const double e = MaxDecayExponent(p.d_model, x.scale_base, x.side, p.offset + shift,
                                    p.offset + max_len - 1 + shift);
  return std::exp(e) <= static_cast<double>(FLT_MAX);
}

}  // namespace

double XposZeta(int64_t d, int64_t i) {
  const auto dd = static_cast<double>(d);
  return (static_cast<double>(2 * i) + 0.4 * dd) / (1.4 * dd);
}

int64_t XposCentreShift(const EncodingParams& params) {
  return CentreShift(params.xpos().positions, params.max_len, params.offset);
}

double XposFrequency(double theta, int64_t d, int64_t i) {
  return static_cast<double>(
      std::exp(-static_cast<long double>(2 * i) / static_cast<long double>(d) *
               std::log(static_cast<long double>(theta))));
}

Status ValidateXposParams(const EncodingParams& p) {
  assert(p.kind() == Scheme::kXpos && "ValidateXposParams needs xPos parameters");
  const XposParams& x = p.xpos();
  if (p.d_model < 2 || p.d_model % 2 != 0) {
    return InvalidArgument("xpos head dim (d_model) must be even and >= 2 (pairs 2i, 2i+1), got " +
                           std::to_string(p.d_model));
  }
  if (!std::isfinite(x.theta) || !(x.theta > 1.0)) {
    return InvalidArgument(
        "xpos theta (--rope-theta) must be a finite number greater than 1, got " +
        FormatNumber(x.theta));
  }
  if (!std::isfinite(x.scale_base) || !(x.scale_base > 0.0)) {
    return InvalidArgument("xpos scale_base must be a finite number greater than 0, got " +
                           FormatNumber(x.scale_base));
  }
  if (x.part == RopePart::kAngle || DecayFitsFloat(p, p.max_len)) return {};
  // The growing side of the decay passes FLT_MAX somewhere in the table: name the longest table
  // that fits (the predicate is monotone in max_len).
  const char* side = x.side == XposSide::kQuery ? "query" : "key";
  const std::string why =
      Fmt("the xpos %s table's decay 0.2857^(%sn'/%g) passes the float32 maximum 3.4e38 (%s "
          "positions, d_model %lld)",
          side, x.side == XposSide::kQuery ? "" : "-", x.scale_base,
          std::string(XposPositionsName(x.positions)).c_str(), static_cast<long long>(p.d_model));
  const char* hint =
      "; a larger scale_base, or the query side with absolute positions, reaches "
      "further";
  if (!DecayFitsFloat(p, 1)) {
    return InvalidArgument(why + ": even one row at offset " + std::to_string(p.offset) +
                           " is too far, so offset must be smaller, got offset " +
                           std::to_string(p.offset) + hint);
  }
  int64_t lo = 1, hi = p.max_len;  // lo fits, hi does not
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (DecayFitsFloat(p, mid) ? lo : hi) = mid;
  }
  return InvalidArgument(why + ": max_len must be in [1, " + std::to_string(lo) + "] with offset " +
                         std::to_string(p.offset) + ", got " + std::to_string(p.max_len) + hint);
}

namespace {

// The complex expm1: e^(x + iy) - 1, accurate when x and y are small.
void ComplexExpm1(double x, double y, double& re, double& im) {
  const double h = std::sin(0.5 * y);
  re = std::expm1(x) * std::cos(y) - 2.0 * h * h;
  im = std::exp(x) * std::sin(y);
}

class XposEncoding final : public Encoding {
 public:
  explicit XposEncoding(const EncodingParams& params)
      : Encoding(params),
        h_(params.d_model / 2),
        sign_(SideSign(params.xpos().side)),
        shift_(XposCentreShift(params)) {
    const XposParams& x = params.xpos();
    for (int64_t i = 0; i < h_; ++i) {
      w_.push_back(XposFrequency(x.theta, params.d_model, i));
      zeta_.push_back(XposZeta(params.d_model, i));
      log_zeta_.push_back(std::log(zeta_.back()));
      // The step of a pair's geometric sums, z - 1 = e^(c + i w) - 1 (DecayedPairMean).
      c_.push_back(DecayExponent(sign_, 1.0, log_zeta_.back(), x.scale_base));
      double re = 0, im = 0;
      ComplexExpm1(c_.back(), w_.back(), re, im);
      den_re_.push_back(re);
      den_im_.push_back(im);
    }
    // Pair i is dims (2i, 2i + 1); q.k decays by zeta_i^((m - n) / scale_base) along it.
    for (int64_t i = 0; i < h_; ++i) {
      const auto k = static_cast<size_t>(i);
      pairs_.push_back({i, 2 * i, 2 * i + 1, w_[k], 1.0, -log_zeta_[k] / x.scale_base});
    }
    // The rotation's waves in the interleaved layout (cos / sin), or one angle per pair.
    const bool angle = x.part == RopePart::kAngle;
    for (int64_t j = 0; j < (angle ? h_ : 2 * h_); ++j) {
      WaveColumn c;
      c.dim = j;
      c.pair = angle ? j : j / 2;
      c.wave = angle ? Wave::kAngle : x.part == RopePart::kCos ? Wave::kCos : Wave::kSin;
      c.frequency = w_[static_cast<size_t>(c.pair)];
      c.exponent_num = 2.0 * static_cast<double>(c.pair);
      c.exponent_den = static_cast<double>(params.d_model);
      columns_.push_back(c);
    }
  }

  int64_t cols() const override { return static_cast<int64_t>(columns_.size()); }
  std::string TableName() const override {
    switch (params_.xpos().part) {
      case RopePart::kCos:
        return "cos\xc2\xb7\xce\xb6";  // "cos·ζ": cos times the decay zeta^(+-n'/sb)
      case RopePart::kSin:
        return "sin\xc2\xb7\xce\xb6";
      case RopePart::kAngle:
        return "angle";
    }
    return "?";
  }
  ColumnNoun column_noun() const override { return angle() ? ColumnNoun::kPair : ColumnNoun::kDim; }

  ValueRange Range() const override {
    if (angle()) {
      const double lo = static_cast<double>(first_position()) * w_.back();
      const double hi = static_cast<double>(last_position()) * w_.front();
      return {lo, hi > lo ? hi : lo + 1.0};
    }
    // |cos * decay| <= decay: the largest decay of the table, at a corner (pair 0 or the last,
    // first or last row).
    const double e =
        MaxDecayExponent(params_.d_model, params_.xpos().scale_base, params_.xpos().side,
                         first_position() + shift_, last_position() + shift_);
    const double m = std::exp(e);
    return {-m, m};
  }

  std::string Summary() const override {
    const XposParams& x = params_.xpos();
    std::string s =
        Fmt("xpos %s %s side, head dim %lld, theta %g, scale_base %g, zeta %.4f..%.4f",
            std::string(RopePartName(x.part)).c_str(), std::string(XposSideName(x.side)).c_str(),
            static_cast<long long>(params_.d_model), x.theta, x.scale_base, zeta_.front(),
            zeta_.back());
    if (x.positions == XposPositions::kCentred) {
      s += Fmt(", centred (n' = n - %lld)", static_cast<long long>(-shift_));
    }
    s += Fmt(", L=%lld", static_cast<long long>(params_.max_len));
    if (params_.offset != 0)
      s += Fmt(", from position %lld", static_cast<long long>(params_.offset));
    return s;
  }
  std::string Title() const override {
    const XposParams& x = params_.xpos();
    if (angle()) return Fmt("xPos rotation angle (theta %g)", x.theta);
    return Fmt("xPos %s times the %s decay (theta %g, scale_base %g%s)",
               std::string(RopePartName(x.part)).c_str(), std::string(XposSideName(x.side)).c_str(),
               x.theta, x.scale_base, x.positions == XposPositions::kCentred ? ", centred" : "");
  }
  std::string FileTag() const override {
    const XposParams& x = params_.xpos();
    if (angle()) return "xpos-angle";
    std::string s =
        "xpos-" + std::string(RopePartName(x.part)) + "-" + std::string(XposSideName(x.side));
    if (x.positions == XposPositions::kCentred) s += "-centred";
    return s;
  }
  std::span<const WaveColumn> waves() const override { return columns_; }
  std::span<const RotaryPair> rotary_pairs() const override { return pairs_; }

  double ValueAt(int64_t col, double position) const override {
    const WaveColumn& c = columns_[static_cast<size_t>(col)];
    const double wave = WaveValueAt(c, position);
    if (angle()) return wave;
    return wave * Decay(c.pair, position + static_cast<double>(shift_));
  }

  void FillBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
    const auto run =
        std::span(columns_).subspan(static_cast<size_t>(col0), static_cast<size_t>(cols));
    if (angle()) {
      FillWaveBlock(run, params_.offset, row0, rows, out);
      return;
    }
    if (rows <= 0 || cols <= 0) return;
    FillDecayed(row0, rows, col0, cols, out);
  }

  void MeanOverRows(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                    double* out) const override {
    const int64_t first = params_.offset + row0;
    if (angle() || rows == 1) {
      for (int64_t j = 0; j < cols; ++j) {
        const WaveColumn& c = columns_[static_cast<size_t>(col0 + j)];
        out[j] = angle() ? MeanOverPositions(c, first, rows)
                         : ValueAt(col0 + j, static_cast<double>(first));
      }
      return;
    }
    // The pairs of the columns: each pair's two columns share one complex mean (Re for cos,
    // Im for sin), from e^{i w first} of every pair at once.
    const int64_t pair_lo = columns_[static_cast<size_t>(col0)].pair;
    const int64_t pair_hi = columns_[static_cast<size_t>(col0 + cols - 1)].pair + 1;
    const auto np = static_cast<size_t>(pair_hi - pair_lo);
    std::vector<double> turn_re(np), turn_im(np);
    ExpOfMultiples(static_cast<double>(first),
                   std::span(w_).subspan(static_cast<size_t>(pair_lo), np), turn_re.data(),
                   turn_im.data());
    int64_t done_pair = -1;
    double mean_re = 0, mean_im = 0;
    for (int64_t j = 0; j < cols; ++j) {
      const WaveColumn& c = columns_[static_cast<size_t>(col0 + j)];
      if (c.pair != done_pair) {
        const auto k = static_cast<size_t>(c.pair - pair_lo);
        DecayedPairMean(c.pair, first, rows, turn_re[k], turn_im[k], mean_re, mean_im);
        done_pair = c.pair;
      }
      out[j] = c.wave == Wave::kCos ? mean_re : mean_im;
    }
  }

  // "cos(37 * 10000^(-24/128)) * 0.4196429^(37/512) = 0.3121"
  std::string DescribeCell(int64_t position, int64_t col) const override {
    const WaveColumn& c = columns_[static_cast<size_t>(col)];
    const XposParams& x = params_.xpos();
    const auto p = static_cast<long long>(position);
    const std::string angle_text =
        Fmt("%lld * %g^(-%lld/%lld)", p, x.theta, static_cast<long long>(c.exponent_num),
            static_cast<long long>(c.exponent_den));
    const double value = ValueAt(col, static_cast<double>(position));
    if (angle()) return angle_text + Fmt(" = %.6g rad", value);
    const std::string n =
        shift_ == 0 ? Fmt("%lld", p) : Fmt("(%lld - %lld)", p, static_cast<long long>(-shift_));
    return Fmt("%s(%s) * %.7g^(%s%s/%g) = %.6g", c.wave == Wave::kCos ? "cos" : "sin",
               angle_text.c_str(), zeta_[static_cast<size_t>(c.pair)],
               x.side == XposSide::kQuery ? "" : "-", n.c_str(), x.scale_base, value);
  }

  // torchscale's apply_rotary_pos_emb with scale (query) or 1 / scale (key, downscale=True):
  // pair (2i, 2i+1) turns by n w_i and is multiplied by zeta_i^(+-n'/scale_base), in double.
  void RotateQuery(int64_t position, double* v) const override { Rotate(position, 1.0, v); }
  void RotateKey(int64_t position, double* v) const override { Rotate(position, -1.0, v); }

 private:
  bool angle() const { return params_.xpos().part == RopePart::kAngle; }

  // zeta_i^(sign_ n' / scale_base) for the table's side.
  double Decay(int64_t pair, double decay_position) const {
    return std::exp(DecayExponent(sign_, decay_position, log_zeta_[static_cast<size_t>(pair)],
                                  params_.xpos().scale_base));
  }

  void Rotate(int64_t position, double sign, double* v) const {
    const auto n = static_cast<double>(position);
    for (int64_t i = 0; i < h_; ++i) {
      const double a = n * w_[static_cast<size_t>(i)];
      const double m =
          std::exp(DecayExponent(sign, n + static_cast<double>(shift_),
                                 log_zeta_[static_cast<size_t>(i)], params_.xpos().scale_base));
      const double c = std::cos(a) * m, s = std::sin(a) * m;
      double& x = v[2 * i];
      double& y = v[2 * i + 1];
      const double x0 = x, y0 = y;
      x = x0 * c - y0 * s;
      y = y0 * c + x0 * s;
    }
  }

  // Mean of e^{i n w} * zeta^(sign n' / sb) over positions [first, first + n) (n > 1), for
  // pair i with turn = e^{i w first}: a geometric sum of z = e^(c + i w), c = sign ln(zeta) / sb:
  //   sum_{j<n} e^{c (first + shift + j)} e^{i w (first + j)}
  //     = e^{c (first + shift)} e^{i w first} (e^{n (c + i w)} - 1) / (e^{c + i w} - 1),
  // with both differences from the complex expm1, so slow pairs (c, w near 0) keep their digits
  // (the denominator, the same for every span, made once). Re is the cos column's mean, Im the
  // sin column's.
  void DecayedPairMean(int64_t pair, int64_t first, int64_t n, double turn_re, double turn_im,
                       double& re, double& im) const {
    const auto i = static_cast<size_t>(pair);
    const double w = w_[i];
    const auto nn = static_cast<double>(n);
    const double den_re = den_re_[i], den_im = den_im_[i];
    const double den2 = den_re * den_re + den_im * den_im;
    if (!(den2 > 0.0)) {
      // z = 1 to double precision (a scale_base so large that c underflows, and w ~ 0): every
      // term is the same, the mean is the middle one.
      const double mid = static_cast<double>(first) + 0.5 * (nn - 1.0);
      const double decay = Decay(pair, mid + static_cast<double>(shift_));
      re = std::cos(mid * w) * decay;
      im = std::sin(mid * w) * decay;
      return;
    }
    double num_re, num_im;
    ComplexExpm1(nn * c_[i], nn * w, num_re, num_im);
    const double q_re = (num_re * den_re + num_im * den_im) / den2;
    const double q_im = (num_im * den_re - num_re * den_im) / den2;
    const double mag = Decay(pair, static_cast<double>(first + shift_)) / nn;
    re = mag * (turn_re * q_re - turn_im * q_im);
    im = mag * (turn_re * q_im + turn_im * q_re);
  }

  // The cos / sin table: the rotation by the angle-addition recurrence in double, anchored with
  // an exact cos / sin at every position that is a multiple of kPeAnchorPositions (as
  // FillWaveBlock does, so a value does not depend on how the table is split), times the exact
  // decay of each (position, pair); rounded once to float32. Anchor segments run on all cores.
  void FillDecayed(int64_t row0, int64_t rows, int64_t col0, int64_t cols, float* out) const {
    const int64_t pair_lo = col0 / 2, pair_hi = (col0 + cols - 1) / 2 + 1;
    const int64_t np = pair_hi - pair_lo;
    const int64_t p0 = params_.offset + row0, p_end = p0 + rows;
    constexpr int64_t kA = kPeAnchorPositions;
    const int64_t first_anchor = (p0 >= 0 ? p0 / kA : -((-p0 + kA - 1) / kA)) * kA;
    const int64_t segments = (p_end - 1 - first_anchor) / kA + 1;
    const bool cos_part = params_.xpos().part == RopePart::kCos;
    const double sb = params_.xpos().scale_base;
    const bool parallel = rows * np >= (int64_t{1} << 16) && segments > 1;
#pragma omp parallel for schedule(static) if (parallel)
    for (int64_t seg = 0; seg < segments; ++seg) {
      const int64_t anchor = first_anchor + seg * kA;
      const int64_t lo = std::max(anchor, p0), hi = std::min(anchor + kA, p_end);
      std::vector<double> cs(static_cast<size_t>(np)), sn(static_cast<size_t>(np)),
          cw(static_cast<size_t>(np)), sw(static_cast<size_t>(np));
      for (int64_t k = 0; k < np; ++k) {
        const double w = w_[static_cast<size_t>(pair_lo + k)];
        const double a = static_cast<double>(anchor) * w;
        cs[static_cast<size_t>(k)] = std::cos(a);
        sn[static_cast<size_t>(k)] = std::sin(a);
        cw[static_cast<size_t>(k)] = std::cos(w);
        sw[static_cast<size_t>(k)] = std::sin(w);
      }
      // To the first row asked for with the pairs in registers (the same bits as below).
      StepWavePairs(np, lo - anchor, cw.data(), sw.data(), sn.data(), cs.data());
      for (int64_t p = lo; p < hi; ++p) {
        float* row = out + (p - p0) * cols;
        const auto k_pos = static_cast<double>(p + shift_);
        for (int64_t k = 0; k < np; ++k) {
          const int64_t i = pair_lo + k;
          const double m =
              std::exp(DecayExponent(sign_, k_pos, log_zeta_[static_cast<size_t>(i)], sb));
          const auto v = static_cast<float>(
              (cos_part ? cs[static_cast<size_t>(k)] : sn[static_cast<size_t>(k)]) * m);
          const int64_t j0 = 2 * i - col0;
          if (j0 >= 0) row[j0] = v;
          if (j0 + 1 < cols) row[j0 + 1] = v;
        }
        for (int64_t k = 0; k < np; ++k) {
          const auto u = static_cast<size_t>(k);
          const double c = cs[u], s = sn[u];
          cs[u] = c * cw[u] - s * sw[u];
          sn[u] = s * cw[u] + c * sw[u];
        }
      }
    }
  }

  int64_t h_;
  double sign_;
  int64_t shift_;
  std::vector<double> w_, zeta_, log_zeta_;  // (d/2)
  std::vector<double> c_, den_re_, den_im_;  // (d/2): each pair's c and e^(c + i w) - 1
  std::vector<WaveColumn> columns_;          // (d) or (d/2) for the angle
  std::vector<RotaryPair> pairs_;            // (d/2)
};

}  // namespace

Result<EncodingPtr> MakeXposEncoding(const EncodingParams& params) {
  return EncodingPtr(std::make_shared<XposEncoding>(params));
}

}  // namespace pe
