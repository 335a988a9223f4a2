#include "analysis/check.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>

#include "encoding/encoding.h"
#include "encoding/positional_encoding.h"
#include "encoding/rope.h"
#include "encoding/sinusoidal_presets.h"

namespace pe {

std::string CheckNumberText(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string CheckFloatText(float v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}
namespace {

constexpr double kPi = std::numbers::pi;

std::string Num(double v, int digits = 3) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// The shortest text that reads back to the same double.
std::string Exact(double v) {
  if (v == std::round(v) && std::abs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  for (int prec = 1; prec <= 17; ++prec) {
    char s[48];
    std::snprintf(s, sizeof s, "%.*g", prec, v);
    if (std::strtod(s, nullptr) == v) return s;
  }
  return Num(v, 17);
}

// float bits -> an integer that grows with the value, -0 and +0 both 0.
int64_t OrderedBits(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  const auto magnitude = static_cast<int64_t>(u & 0x7fffffffu);
  return (u & 0x80000000u) != 0 ? -magnitude : magnitude;
}

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  return v[mid];
}

// x rounded to the fewest significant decimal digits (1 to 6) that stay within `rel` of it:
// the value a person most likely typed. None when no short decimal is that close.
std::optional<double> SnapDecimal(double x, double rel) {
  if (!std::isfinite(x) || x == 0.0) return std::nullopt;
  const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(x))));
  for (int digits = 1; digits <= 6; ++digits) {
    const int k = digits - 1 - magnitude;  // decimals kept
    double v = 0;
    if (k >= 0) {
      const double scale = std::pow(10.0, k);
      v = std::round(x * scale) / scale;
    } else {
      const double scale = std::pow(10.0, -k);
      v = std::round(x / scale) * scale;
    }
    if (std::abs(v - x) <= rel * std::abs(x)) return v;
  }
  return std::nullopt;
}

// Weighted least squares y = a + b x. Needs two distinct x with weight.
struct Line {
  double a = std::nan(""), b = std::nan("");
};
Line FitLine(const std::vector<double>& x, const std::vector<double>& y,
             const std::vector<double>& wt) {
  double sw = 0, sx = 0, sy = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    sw += wt[k], sx += wt[k] * x[k], sy += wt[k] * y[k];
  }
  if (!(sw > 0)) return {};
  const double mx = sx / sw, my = sy / sw;
  double sxx = 0, sxy = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    sxx += wt[k] * (x[k] - mx) * (x[k] - mx);
    sxy += wt[k] * (x[k] - mx) * (y[k] - my);
  }
  if (!(sxx > 0)) return {my, 0.0};
  const double b = sxy / sxx;
  return {my - b * mx, b};
}

double WrapAngle(double a) {
  a = std::fmod(a + kPi, 2 * kPi);
  if (a < 0) a += 2 * kPi;
  return a - kPi;
}

// ---- reading a sin/cos pair --------------------------------------------------------------------

struct PairReading {
  double frequency = std::nan("");  // w, radians per row
  double phase = std::nan("");      // angle at row 0, in (-pi, pi]
  double amplitude = std::nan("");
  double weight = 0;  // inverse variance of ln w (relative)
};

// Column `s` is A sin(p w), column `c` A cos(p w), p = first + r: the angle atan2(s, c)
// unwrapped along the rows is a line of slope w (w < pi) and intercept first * w (mod 2 pi).
PairReading ReadSinCosPair(const Matrix& t, int64_t s, int64_t c) {
  PairReading out;
  const int64_t rows = t.rows;
  std::vector<double> amps(static_cast<size_t>(rows));
  std::vector<double> angle(static_cast<size_t>(rows));
  double previous = 0, unwrapped = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const double sv = t.at(r, s), cv = t.at(r, c);
    amps[static_cast<size_t>(r)] = std::hypot(sv, cv);
    const double a = std::atan2(sv, cv);
    unwrapped = r == 0 ? a : unwrapped + WrapAngle(a - previous);
    previous = a;
    angle[static_cast<size_t>(r)] = unwrapped;
  }
  out.amplitude = Median(amps);
  out.phase = WrapAngle(angle[0]);
  if (rows < 2) return out;
  std::vector<double> xs(static_cast<size_t>(rows)), wt(static_cast<size_t>(rows), 1.0);
  for (int64_t r = 0; r < rows; ++r) xs[static_cast<size_t>(r)] = static_cast<double>(r);
  const Line line = FitLine(xs, angle, wt);
  out.frequency = line.b;
  out.phase = WrapAngle(line.a);
  // The slope's error is ~ noise / L^1.5: ln w's error is that over w.
  const double l = static_cast<double>(rows);
  out.weight = line.b > 0 ? line.b * line.b * l * l * l : 0.0;
  return out;
}

// Column values u_r = cos(p w) or sin(p w) (divided by the amplitude), p = first + r: the
// recurrence u_{r-1} + u_{r+1} = 2 cos(w) u_r gives w at any phase; slow pairs, whose cos w is
// too close to 1 for that, are read from acos / asin of the rows where the angle is still
// below a half turn.
PairReading ReadSingleWave(const std::vector<double>& u, int64_t first, bool is_cos) {
  PairReading out;
  const auto rows = static_cast<int64_t>(u.size());
  if (rows < 3) return out;
  double num = 0, den = 0;
  for (int64_t r = 1; r + 1 < rows; ++r) {
    const auto k = static_cast<size_t>(r);
    num += u[k] * (u[k - 1] + u[k + 1]);
    den += 2 * u[k] * u[k];
  }
  double w = den > 0 ? std::acos(std::clamp(num / den, -1.0, 1.0)) : std::nan("");
  const double l = static_cast<double>(rows);
  out.weight = std::isfinite(w) ? w * w * w * w * l : 0.0;
  if (std::isfinite(w) && w < 0.3) {
    const double limit = is_cos ? 2.5 : 1.3;
    double sxy = 0, sxx = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const auto p = static_cast<double>(first + r);
      if (p <= 0 || p * std::max(w, 1e-300) > limit) continue;
      const double v = std::clamp(u[static_cast<size_t>(r)], -1.0, 1.0);
      const double a = is_cos ? std::acos(v) : std::asin(v);
      const double cond = is_cos ? std::sin(a) : std::cos(a);
      const double wt = cond * cond;
      sxy += wt * p * a;
      sxx += wt * p * p;
    }
    if (sxx > 0) {
      w = sxy / sxx;
      out.weight = sxx * 1e14;
    }
  }
  out.frequency = w;
  return out;
}

// ---- candidates --------------------------------------------------------------------------------

struct Draft {
  EncodingParams params;
  int unsnapped = 0;
  std::string hypothesis;  // the layout tried, for "best per layout"
};

EncodingParams ShapeOf(int64_t rows, int64_t d, int64_t offset) {
  EncodingParams p;
  p.d_model = d;
  p.max_len = rows;
  p.offset = offset;
  return p;
}

// Keeps what the user fixed. A discrete key that contradicts the draft's layout was filtered
// out before; numbers are overwritten here.
void ApplyFixed(const CheckConstraints& c, EncodingParams& p) {
  if (c.Has("offset")) p.offset = c.fixed.offset;
  if (p.kind() == Scheme::kSinusoidal && c.fixed.kind() == Scheme::kSinusoidal) {
    const SinusoidalParams& f = c.fixed.sinusoidal();
    SinusoidalParams& s = p.sinusoidal();
    if (c.Has("base")) s.base = f.base;
    if (c.Has("min_timescale")) s.min_timescale = f.min_timescale;
    if (c.Has("output_scale")) s.output_scale = f.output_scale;
  }
  if (p.kind() == Scheme::kRope && c.fixed.kind() == Scheme::kRope) {
    const RopeParams& f = c.fixed.rope();
    RopeParams& r = p.rope();
    if (c.Has("rope_theta")) r.theta = f.theta;
    if (c.Has("scaling_factor")) r.factor = f.factor;
    if (c.Has("original_max_len")) r.original_max_len = f.original_max_len;
    if (c.Has("beta_fast")) r.beta_fast = f.beta_fast;
    if (c.Has("beta_slow")) r.beta_slow = f.beta_slow;
    if (c.Has("attention_factor")) r.attention_factor = f.attention_factor;
    if (c.Has("low_freq_factor")) r.low_freq_factor = f.low_freq_factor;
    if (c.Has("high_freq_factor")) r.high_freq_factor = f.high_freq_factor;
    if (c.Has("sequence_len")) r.sequence_len = f.sequence_len;
  }
}

bool SchemeAllowed(const CheckConstraints& c, Scheme s) {
  return !c.Has("scheme") || c.fixed.kind() == s;
}

// The sinusoidal drafts of one layout (variant, order) for a table `assumed_d` wide.
void SinusoidalDrafts(const Matrix& t, int64_t assumed_d, PeVariant variant, WaveOrder order,
                      const CheckConstraints& c, std::vector<Draft>& out) {
  EncodingParams layout = ShapeOf(t.rows, assumed_d, 0);
  SinusoidalParams sp;
  sp.variant = variant;
  sp.order = order;
  layout.scheme = sp;
  const int64_t cols = std::min(t.cols, assumed_d);
  // Pair i's sin and cos columns, and its exponent e_i.
  const int64_t pairs = assumed_d / 2 + 1;
  std::vector<int64_t> sin_col(static_cast<size_t>(pairs), -1),
      cos_col(static_cast<size_t>(pairs), -1);
  std::vector<double> exponent(static_cast<size_t>(pairs), 0.0);
  for (int64_t j = 0; j < cols; ++j) {
    const WaveColumn w = DescribeColumn(layout, j);
    if (w.wave == Wave::kZero) continue;
    const auto i = static_cast<size_t>(w.pair);
    (w.wave == Wave::kSin ? sin_col : cos_col)[i] = j;
    exponent[i] = w.exponent_num / w.exponent_den;
  }
  std::vector<double> es, lnw, wt, amps;
  std::vector<PairReading> readings(static_cast<size_t>(pairs));
  for (int64_t i = 0; i < pairs; ++i) {
    const auto k = static_cast<size_t>(i);
    if (sin_col[k] < 0 || cos_col[k] < 0) continue;
    readings[k] = ReadSinCosPair(t, sin_col[k], cos_col[k]);
    amps.push_back(readings[k].amplitude);
    const PairReading& r = readings[k];
    if (std::isfinite(r.frequency) && r.frequency > 0 && r.weight > 0) {
      es.push_back(exponent[k]);
      lnw.push_back(std::log(r.frequency));
      wt.push_back(r.weight);
    }
  }
  // The noise of a row's angle is about the spread of the amplitudes over the amplitude; a
  // line's intercept over L rows is known to about twice that over sqrt(L).
  double phase_sigma = 1e-7;
  {
    const double a_mid = Median(amps);
    std::vector<double> dev;
    for (int64_t i = 0; i < pairs && std::isfinite(a_mid) && a_mid > 0; ++i) {
      const auto k = static_cast<size_t>(i);
      if (sin_col[k] < 0 || cos_col[k] < 0) continue;
      for (int64_t r = 0; r < t.rows; ++r) {
        dev.push_back(std::abs(std::hypot(t.at(r, sin_col[k]), t.at(r, cos_col[k])) - a_mid));
      }
    }
    if (!dev.empty()) {
      phase_sigma = std::max(
          phase_sigma, 1.5 * Median(dev) / a_mid * 2 / std::sqrt(static_cast<double>(t.rows)));
    }
  }
  const std::string hypothesis =
      "sinusoidal " + std::string(VariantName(variant)) + " " + std::string(WaveOrderName(order));
  Draft d;
  d.hypothesis = hypothesis;
  d.params = layout;
  // ln w = ln m - e ln(base / m): intercept ln m, slope -(ln base - ln m).
  double base = 10000.0, min_ts = 1.0;
  bool read_base = false;
  if (es.size() >= 2) {
    const Line line = FitLine(es, lnw, wt);
    if (std::isfinite(line.a) && std::isfinite(line.b) && line.b < 0) {
      min_ts = std::exp(line.a);
      base = std::exp(line.a - line.b);
      read_base = true;
    }
  } else if (es.size() == 1 && es[0] == 0.0) {
    min_ts = std::exp(lnw[0]);
  }
  if (c.Has("min_timescale") && c.fixed.kind() == Scheme::kSinusoidal) {
    min_ts = c.fixed.sinusoidal().min_timescale;
  }
  std::vector<std::pair<double, int>> bases;  // value, unsnapped
  if (std::optional<double> b = SnapDecimal(base, 1e-4)) bases.push_back({*b, 0});
  if (read_base && (bases.empty() || bases[0].first != base)) bases.push_back({base, 1});
  if (bases.empty()) bases.push_back({10000.0, 0});
  int min_unsnapped = 0;
  if (std::optional<double> m = SnapDecimal(min_ts, 1e-4)) {
    min_ts = *m;
  } else {
    min_unsnapped = 1;
  }
  // The amplitude: 1, d^-1/2 (x-transformers), sqrt(d), or a short decimal.
  double amplitude = Median(amps);
  int scale_unsnapped = 0;
  if (!std::isfinite(amplitude) || amplitude <= 0) amplitude = 1.0;
  {
    const double sd = std::sqrt(static_cast<double>(assumed_d));
    const double known[] = {1.0, 1.0 / sd, sd};
    bool snapped = false;
    // The amplitude is read to about the file's rounding (2^-11 for float16).
    const double rel = std::max(1e-5, std::ldexp(4.0, -c.bits));
    for (double k : known) {
      if (std::abs(amplitude - k) <= rel * k) {
        amplitude = k;
        snapped = true;
        break;
      }
    }
    if (!snapped) {
      if (std::optional<double> v = SnapDecimal(amplitude, rel / 10)) {
        amplitude = *v;
      } else {
        amplitude = static_cast<double>(static_cast<float>(amplitude));
        scale_unsnapped = 1;
      }
    }
  }
  for (const auto& [b, b_unsnapped] : bases) {
    Draft draft = d;
    SinusoidalParams& sd = draft.params.sinusoidal();
    sd.base = b;
    sd.min_timescale = min_ts < b ? min_ts : 1.0;
    sd.output_scale = amplitude;
    draft.unsnapped = b_unsnapped + min_unsnapped + scale_unsnapped;
    // The first position: the slowest pair's phase over its frequency (from the fitted base,
    // more exact than the pair's own slope) gives it roughly; each faster pair then gives it
    // more finely, its whole turns taken from the estimate so far, while the estimate's error
    // stays below a quarter turn of that pair.
    std::vector<std::pair<double, size_t>> by_speed;
    for (int64_t i = 0; i < pairs; ++i) {
      const auto k = static_cast<size_t>(i);
      if (sin_col[k] < 0 || cos_col[k] < 0 || !std::isfinite(readings[k].phase)) continue;
      const double w = sd.min_timescale * std::pow(b / sd.min_timescale, -exponent[k]);
      if (w > 0 && std::isfinite(w)) by_speed.push_back({w, k});
    }
    std::sort(by_speed.begin(), by_speed.end());
    double position = 0, sigma = INFINITY;
    for (const auto& [w, k] : by_speed) {
      const double phase = readings[k].phase;
      if (!std::isfinite(sigma)) {
        position = phase / w;
      } else if (sigma * w < kPi / 4) {
        const double turns = std::round((position * w - phase) / (2 * kPi));
        position = (phase + 2 * kPi * turns) / w;
      } else {
        break;
      }
      sigma = phase_sigma / w;
    }
    const int64_t offset = std::isfinite(position) && std::abs(position) < 1e12
                               ? static_cast<int64_t>(std::llround(position))
                               : 0;
    draft.params.offset = offset;
    ApplyFixed(c, draft.params);
    out.push_back(std::move(draft));
  }
}

// RoPE's cos or sin table in one pairing: drafts for each scaling the frequencies suggest.
void RopeDrafts(const Matrix& t, int64_t assumed_d, RopePairing pairing, RopePart part,
                const CheckConstraints& c, std::vector<Draft>& out) {
  if (assumed_d < 2 || assumed_d % 2 != 0 || t.cols < 2) return;
  const int64_t h = assumed_d / 2;
  const int64_t first = c.Has("offset") ? c.fixed.offset : 0;
  // Each pair's column (the mean of its two copies where both are in the table).
  std::vector<std::vector<double>> waves;
  double amplitude = 0;
  for (int64_t i = 0; i < h; ++i) {
    const int64_t a = pairing == RopePairing::kHalf ? i : 2 * i;
    const int64_t b = pairing == RopePairing::kHalf ? i + h : 2 * i + 1;
    std::vector<double> u(static_cast<size_t>(t.rows));
    for (int64_t r = 0; r < t.rows; ++r) {
      const double va = a < t.cols ? t.at(r, a) : std::nan("");
      const double vb = b < t.cols ? t.at(r, b) : va;
      u[static_cast<size_t>(r)] = std::isfinite(va) ? 0.5 * (va + vb) : vb;
      amplitude = std::max(amplitude, std::abs(u[static_cast<size_t>(r)]));
    }
    waves.push_back(std::move(u));
  }
  if (!(amplitude > 0)) amplitude = 1.0;
  // 1, or YaRN's default attention factor once the factor is known (below).
  const double raw_amplitude = amplitude;
  std::vector<double> es, lnw, wt;
  std::vector<double> freq(static_cast<size_t>(h), std::nan(""));
  for (int64_t i = 0; i < h; ++i) {
    std::vector<double>& u = waves[static_cast<size_t>(i)];
    if (!std::isfinite(u[0])) continue;
    for (double& v : u) v /= raw_amplitude;
    const PairReading r = ReadSingleWave(u, first, part == RopePart::kCos);
    freq[static_cast<size_t>(i)] = r.frequency;
    if (std::isfinite(r.frequency) && r.frequency > 0 && r.weight > 0) {
      es.push_back(2.0 * static_cast<double>(i) / static_cast<double>(assumed_d));
      lnw.push_back(std::log(r.frequency));
      wt.push_back(r.weight);
    }
  }
  const std::string hypothesis =
      "rope " + std::string(RopePartName(part)) + " " + std::string(RopePairingName(pairing));
  auto add = [&](RopeParams rp, int unsnapped) {
    if (c.Has("rope_scaling") && c.fixed.kind() == Scheme::kRope &&
        c.fixed.rope().scaling != rp.scaling) {
      return;
    }
    Draft d;
    d.hypothesis = hypothesis;
    d.params = ShapeOf(t.rows, assumed_d, first);
    rp.pairing = pairing;
    rp.part = part;
    d.params.scheme = rp;
    d.unsnapped = unsnapped;
    ApplyFixed(c, d.params);
    out.push_back(std::move(d));
  };
  // The line of all pairs, and the line through w_0 = 1 of the fast pairs that YaRN and Llama 3
  // keep: from pair 1 on, as long as each pair stays on it (within 1e-4 in ln w).
  Line all = es.size() >= 2 ? FitLine(es, lnw, wt) : Line{};
  Line hi = all;
  if (es.size() >= 2 && es[0] == 0.0 && es[1] > 0) {
    double sxy = es[1] * lnw[1] * wt[1], sxx = es[1] * es[1] * wt[1];
    for (size_t k = 2; k < es.size(); ++k) {
      if (std::abs(lnw[k] - sxy / sxx * es[k]) > 1e-4) break;
      sxy += es[k] * lnw[k] * wt[k], sxx += es[k] * es[k] * wt[k];
    }
    hi = {0.0, sxy / sxx};
  }

  auto snap_or = [](double x, double rel, int& unsnapped) {
    if (std::optional<double> v = SnapDecimal(x, rel)) return *v;
    ++unsnapped;
    return x;
  };
  if (!std::isfinite(all.b) || all.b >= 0) {
    add(RopeParams{}, 0);
    return;
  }
  // none: theta = e^-slope of the whole line.
  {
    int u = 0;
    RopeParams rp;
    rp.theta = snap_or(std::exp(-all.b), 1e-4, u);
    add(rp, u);
    // linear: the same line moved down by ln(factor).
    const double f = std::exp(-all.a);
    if (f > 1.01) {
      RopeParams lin = rp;
      lin.scaling = RopeScaling::kLinear;
      lin.factor = snap_or(f, 1e-3, u);
      add(lin, u);
    }
    // ntk: only the base changes, theta' = theta * factor^(d/(d-2)). The table holds theta'
    // alone, so theta is taken from the bases models ship with and the factor read off.
    if (assumed_d > 2) {
      const double theta_eff = std::exp(-all.b);
      for (double theta0 : {10000.0, 100000.0, 500000.0, 1000000.0}) {
        if (theta_eff <= theta0 * 1.01) continue;
        const double dd = static_cast<double>(assumed_d);
        const double fac = std::pow(theta_eff / theta0, (dd - 2) / dd);
        std::optional<double> fs = SnapDecimal(fac, 2e-3);
        if (!fs) continue;
        RopeParams ntk;
        ntk.theta = theta0;
        ntk.scaling = RopeScaling::kNtk;
        ntk.factor = *fs;
        add(ntk, 0);
      }
    }
  }
  // yarn and llama3: the fast pairs keep theta's line, the slowest are divided by the factor.
  if (std::isfinite(hi.b) && hi.b < 0 && h >= 4) {
    int u = 0;
    const double theta = snap_or(std::exp(-hi.b), 1e-3, u);
    double num = 0, den = 0, top = 0;
    std::vector<double> ratio(static_cast<size_t>(h), 0.0);
    for (int64_t i = 0; i < h; ++i) {
      const double w = freq[static_cast<size_t>(i)];
      if (!std::isfinite(w) || w <= 0) continue;
      ratio[static_cast<size_t>(i)] =
          std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(assumed_d)) / w;
      top = std::max(top, ratio[static_cast<size_t>(i)]);
    }
    for (int64_t i = 0; i < h; ++i) {
      const double rho = ratio[static_cast<size_t>(i)];
      if (rho < 0.9 * top) continue;
      const double w = freq[static_cast<size_t>(i)];
      num += w * w * rho, den += w * w;
    }
    const double f_read = den > 0 ? num / den : 1.0;
    if (f_read > 1.2) {
      int uf = u;
      const double f = std::abs(f_read - std::round(f_read)) < 0.05 * f_read
                           ? std::round(f_read)
                           : snap_or(f_read, 1e-2, uf);
      // The attention factor (YaRN): the amplitude, unless it is the default for f.
      std::optional<double> attention;
      const double yarn_default = RopeYarnDefaultAttentionFactor(f);
      if (std::abs(raw_amplitude - yarn_default) > 2e-3 * yarn_default) {
        attention = SnapDecimal(raw_amplitude, 1e-3).value_or(raw_amplitude);
      }
      // Where the ramp between kept and interpolated pairs sits depends on the original
      // context length, which the rounding of HF's ramp bounds leaves a range of: the lengths
      // models ship with are tried.
      for (int64_t original : {2048, 4096, 8192, 16384, 32768}) {
        RopeParams y;
        y.theta = theta;
        y.scaling = RopeScaling::kYarn;
        y.factor = f;
        y.original_max_len = original;
        y.attention_factor = attention;
        add(y, uf);
        if (std::abs(raw_amplitude - 1.0) < 2e-3) {
          RopeParams l3;
          l3.theta = theta;
          l3.scaling = RopeScaling::kLlama3;
          l3.factor = f;
          l3.original_max_len = original;
          add(l3, uf);
        }
      }
    }
  }
}

// ---- verification ------------------------------------------------------------------------------

std::string Describe(const EncodingParams& p) {
  std::string s;
  if (p.kind() == Scheme::kSinusoidal) {
    const SinusoidalParams& sp = p.sinusoidal();
    s = "sinusoidal, " + std::string(VariantName(sp.variant)) + " layout";
    if (sp.order == WaveOrder::kCosFirst) s += ", cos first";
    s += ", base " + Exact(sp.base);
    if (sp.min_timescale != 1.0) s += ", min timescale " + Exact(sp.min_timescale);
    if (sp.output_scale != 1.0) s += ", scale " + Num(sp.output_scale, 6);
  } else if (p.kind() == Scheme::kRope) {
    const RopeParams& r = p.rope();
    s = "rope " + std::string(RopePartName(r.part)) + ", " +
        std::string(RopePairingName(r.pairing)) + " pairing, theta " + Exact(r.theta);
    if (r.scaling != RopeScaling::kNone) {
      s += ", " + std::string(RopeScalingName(r.scaling)) + " factor " + Exact(r.factor);
      if (r.scaling == RopeScaling::kYarn || r.scaling == RopeScaling::kLlama3) {
        s += ", original length " + std::to_string(r.original_max_len);
      }
      if (r.attention_factor) s += ", attention factor " + Exact(*r.attention_factor);
    }
  } else {
    s = std::string(SchemeName(p.kind()));
  }
  s += ", offset " + std::to_string(p.offset);
  return s;
}

std::string FindPreset(const EncodingParams& p) {
  if (p.kind() != Scheme::kSinusoidal) return {};
  for (const SinusoidalPreset& preset : SinusoidalPresets()) {
    EncodingParams q = p;
    if (!ApplySinusoidalPreset(preset.name, q).ok()) continue;
    if (q.scheme == p.scheme && q.offset == p.offset) return std::string(preset.name);
  }
  return {};
}

double AmplitudeOf(const Encoding& e) {
  const ValueRange r = e.Range();
  const double a = std::max(std::abs(r.lo), std::abs(r.hi));
  return a > 0 && std::isfinite(a) ? a : 1.0;
}

// Rows spread over the table (always the first and the last), for a first score.
std::vector<int64_t> SampleRows(int64_t rows) {
  std::vector<int64_t> out;
  const int64_t n = std::min<int64_t>(rows, 48);
  for (int64_t k = 0; k < n; ++k) {
    out.push_back(n == 1 ? 0 : k * (rows - 1) / (n - 1));
  }
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double SampleScore(const Matrix& t, const Encoding& e, int64_t cols,
                   const std::vector<int64_t>& rows) {
  std::vector<float> ref(static_cast<size_t>(cols));
  double worst = 0;
  for (int64_t r : rows) {
    e.FillBlock(r, 1, 0, cols, ref.data());
    for (int64_t j = 0; j < cols; ++j) {
      const double err = std::abs(static_cast<double>(t.at(r, j)) - ref[static_cast<size_t>(j)]);
      worst = std::isnan(err) ? INFINITY : std::max(worst, err);
    }
  }
  return worst / AmplitudeOf(e);
}

// Every cell within what computing the angle p w in float32 (and w itself from exp or pow in
// float32) does to a wave: |error| <= A 2^-24 (4 + |p| w (2 ln(w_max / w_min) + 12)).
bool Float32Explained(const Matrix& t, const Matrix& ref, const Encoding& e, double amplitude) {
  const std::span<const WaveColumn> waves = e.waves();
  if (waves.empty()) return false;
  double w_max = 0, w_min = INFINITY;
  for (const WaveColumn& w : waves) {
    if (w.wave == Wave::kZero || !(w.frequency > 0)) continue;
    w_max = std::max(w_max, w.frequency), w_min = std::min(w_min, w.frequency);
  }
  if (!(w_max > 0)) return false;
  const double span = 2 * std::log(w_max / w_min) + 12;
  const double unit = amplitude * std::ldexp(1.0, -24);
  const int64_t cols = std::min(t.cols, ref.cols);
  for (int64_t r = 0; r < t.rows; ++r) {
    const double p = std::abs(static_cast<double>(e.first_position() + r));
    for (int64_t j = 0; j < cols; ++j) {
      const double w = waves[static_cast<size_t>(j)].frequency;
      const double bound = unit * (4 + p * w * span);
      if (!(std::abs(static_cast<double>(t.at(r, j)) - ref.at(r, j)) <= bound)) return false;
    }
  }
  return true;
}

Result<CheckCandidate> Verify(const Matrix& t, const Draft& d, const CheckConstraints& c,
                              const MemoryCap& cap) {
  Result<EncodingPtr> e = MakeEncoding(d.params, cap);
  if (!e.ok()) return e.error();
  Result<Matrix> ref = ComputeTable(*e.value(), cap);
  if (!ref.ok()) return ref.error();
  CheckCandidate out;
  out.params = d.params;
  out.amplitude = AmplitudeOf(*e.value());
  Tolerance tol;
  tol.absolute = c.tolerance;
  tol.bits = c.bits;
  tol.amplitude = out.amplitude;
  out.stats = CompareTables(t, ref.value(), tol);
  out.score = out.stats.max_abs / out.amplitude;
  out.unsnapped = d.unsnapped;
  out.description = Describe(d.params);
  out.flags = ParamsFlags(d.params);
  out.preset = FindPreset(d.params);
  out.layout = d.hypothesis;
  if (out.stats.over_tolerance == 0 && out.stats.rows > 0) {
    out.verdict = CheckVerdict::kMatch;
  } else if (!c.tolerance && Float32Explained(t, ref.value(), *e.value(), out.amplitude)) {
    out.verdict = CheckVerdict::kFloat32;
  }
  out.worst_formula = e.value()->DescribeCell(e.value()->first_position() + out.stats.worst_row,
                                              out.stats.worst_col);
  return out;
}

int VerdictRank(CheckVerdict v) {
  return v == CheckVerdict::kMatch ? 0 : v == CheckVerdict::kFloat32 ? 1 : 2;
}

// The candidates of every layout for a table `assumed_d` wide, verified and ranked.
Result<std::vector<CheckCandidate>> Identify(const Matrix& t, int64_t assumed_d,
                                             const CheckConstraints& c, const MemoryCap& cap) {
  std::vector<Draft> drafts;
  if (SchemeAllowed(c, Scheme::kSinusoidal)) {
    const bool fixed_sin = c.fixed.kind() == Scheme::kSinusoidal;
    for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
      if (fixed_sin && c.Has("variant") && c.fixed.sinusoidal().variant != v) continue;
      for (WaveOrder o : {WaveOrder::kSinFirst, WaveOrder::kCosFirst}) {
        if (fixed_sin && c.Has("order") && c.fixed.sinusoidal().order != o) continue;
        SinusoidalDrafts(t, assumed_d, v, o, c, drafts);
      }
    }
  }
  if (SchemeAllowed(c, Scheme::kRope)) {
    const bool fixed_rope = c.fixed.kind() == Scheme::kRope;
    for (RopePairing pr : {RopePairing::kHalf, RopePairing::kInterleaved}) {
      if (fixed_rope && c.Has("rope_pairing") && c.fixed.rope().pairing != pr) continue;
      for (RopePart part : {RopePart::kCos, RopePart::kSin}) {
        if (fixed_rope && c.Has("part") && c.fixed.rope().part != part) continue;
        RopeDrafts(t, assumed_d, pr, part, c, drafts);
      }
    }
  }
  // A first score on sampled rows; the best of each layout and the best few overall are then
  // verified on every cell.
  const std::vector<int64_t> rows = SampleRows(t.rows);
  const int64_t cols = std::min(t.cols, assumed_d);
  std::vector<std::pair<double, size_t>> scored;
  for (size_t k = 0; k < drafts.size(); ++k) {
    Result<EncodingPtr> e = MakeEncoding(drafts[k].params, cap);
    if (!e.ok()) continue;
    if (e.value()->cols() < cols) continue;
    scored.push_back({SampleScore(t, *e.value(), cols, rows) + 1e-9 * drafts[k].unsnapped, k});
  }
  std::stable_sort(scored.begin(), scored.end());
  std::vector<size_t> chosen;
  std::vector<std::string> layouts;
  for (const auto& [score, k] : scored) {
    const bool new_layout =
        std::find(layouts.begin(), layouts.end(), drafts[k].hypothesis) == layouts.end();
    if (new_layout || chosen.size() < 3) {
      chosen.push_back(k);
      if (new_layout) layouts.push_back(drafts[k].hypothesis);
    }
  }
  std::vector<CheckCandidate> out;
  for (size_t k : chosen) {
    Result<CheckCandidate> v = Verify(t, drafts[k], c, cap);
    if (!v.ok()) {
      if (v.error().kind == Error::Kind::kInvalidArgument) continue;
      return v.error();
    }
    out.push_back(std::move(v).value());
  }
  std::stable_sort(out.begin(), out.end(), [](const CheckCandidate& a, const CheckCandidate& b) {
    if (VerdictRank(a.verdict) != VerdictRank(b.verdict)) {
      return VerdictRank(a.verdict) < VerdictRank(b.verdict);
    }
    if (a.verdict != CheckVerdict::kNoMatch && a.unsnapped != b.unsnapped) {
      return a.unsnapped < b.unsnapped;
    }
    // Among near misses an unround reading has to be clearly nearer to rank first.
    if (a.verdict == CheckVerdict::kNoMatch) {
      return a.score * (1 + 0.25 * a.unsnapped) < b.score * (1 + 0.25 * b.unsnapped);
    }
    return a.score < b.score;
  });
  // One candidate per layout: the runner-up is another reading of the table, not the same one
  // with a base rounded differently.
  std::vector<CheckCandidate> unique;
  for (CheckCandidate& cand : out) {
    bool seen = false;
    for (const CheckCandidate& u : unique) seen = seen || u.layout == cand.layout;
    if (!seen) unique.push_back(std::move(cand));
  }
  return unique;
}

Matrix Transposed(const Matrix& t) {
  Matrix out;
  out.rows = t.cols;
  out.cols = t.rows;
  out.data.resize(t.data.size());
  for (int64_t r = 0; r < t.rows; ++r) {
    for (int64_t j = 0; j < t.cols; ++j) out.at(j, r) = t.at(r, j);
  }
  return out;
}

Matrix FirstColumns(const Matrix& t, int64_t cols) {
  Matrix out;
  out.rows = t.rows;
  out.cols = cols;
  out.data.resize(static_cast<size_t>(t.rows * cols));
  for (int64_t r = 0; r < t.rows; ++r) {
    std::copy(t.row(r), t.row(r) + cols, out.row(r));
  }
  return out;
}

bool Matches(const std::vector<CheckCandidate>& v) {
  return !v.empty() && v.front().verdict != CheckVerdict::kNoMatch;
}

std::string Float32Note(const CheckCandidate& best) {
  const ErrorStats& s = best.stats;
  return "the error grows with the position (mean |error| " + Num(s.mean_abs_head) +
         " over the first quarter of the rows, " + Num(s.mean_abs_tail) +
         " over the last; largest " + Num(s.max_abs) + " at row " + std::to_string(s.worst_row) +
         "): the table was computed in float32. float32 holds the angle p\xc2\xb7w "
         "to a relative 2^-24, so the angle is off by about p\xc2\xb7w\xc2\xb7"
         "2^-24 radians "
         "(and w itself, made in float32 by exp or pow, by a few 2^-24 relative); every cell is "
         "within A\xc2\xb7"
         "2^-24\xc2\xb7(4 + p\xc2\xb7w\xc2\xb7(2 ln(w_max/w_min) + 12)) of the "
         "exact value. Compute p\xc2\xb7w in float64 and round once to float32 to match to "
         "float32 rounding.";
}

}  // namespace

int64_t UlpDistance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return -1;
  const int64_t d = OrderedBits(a) - OrderedBits(b);
  return d < 0 ? -d : d;
}

int UlpBucket(int64_t ulps) {
  if (ulps < 0) return kUlpBuckets - 1;
  if (ulps == 0) return 0;
  int k = 1;
  while (k < kUlpBuckets - 1 && ulps >= (int64_t{1} << k)) ++k;
  return k;
}

std::string UlpBucketLabel(int bucket) {
  if (bucket == 0) return "0";
  if (bucket == 1) return "1";
  if (bucket >= kUlpBuckets - 1) return ">= 2^" + std::to_string(kUlpBuckets - 2);
  const int64_t lo = int64_t{1} << (bucket - 1), hi = (int64_t{1} << bucket) - 1;
  return std::to_string(lo) + "-" + std::to_string(hi);
}

double Tolerance::CellTolerance(float reference) const {
  if (absolute) return *absolute;
  const double r = std::abs(static_cast<double>(reference));
  double ulp = 0;
  if (r > 0 && std::isfinite(r)) {
    int e = 0;
    std::frexp(r, &e);  // r in [2^(e-1), 2^e)
    ulp = std::ldexp(1.0, e - bits);
  }
  return std::max(ulp, std::ldexp(amplitude, -bits));
}

ErrorStats CompareTables(const Matrix& table, const Matrix& reference, const Tolerance& tol) {
  ErrorStats s;
  s.rows = std::min(table.rows, reference.rows);
  s.cols = std::min(table.cols, reference.cols);
  if (s.rows == 0 || s.cols == 0) return s;
  const int64_t quarter = std::max<int64_t>(1, s.rows / 4);
  s.worst_table = table.at(0, 0), s.worst_reference = reference.at(0, 0);
  double sum = 0, sum_signed = 0, sum_sq = 0;
  for (int64_t r = 0; r < s.rows; ++r) {
    for (int64_t j = 0; j < s.cols; ++j) {
      const float tv = table.at(r, j), rv = reference.at(r, j);
      const double err = static_cast<double>(tv) - static_cast<double>(rv);
      const double a = std::abs(err);
      const bool bad = std::isnan(a);
      sum += bad ? 0 : a;
      sum_signed += bad ? 0 : err;
      sum_sq += bad ? 0 : err * err;
      if (bad || a > s.max_abs || (r == 0 && j == 0)) {
        if (bad || a > s.max_abs) {
          s.max_abs = bad ? INFINITY : a;
          s.worst_row = r, s.worst_col = j;
          s.worst_table = tv, s.worst_reference = rv;
        }
      }
      if (r < quarter) {
        s.max_abs_head = std::max(s.max_abs_head, bad ? INFINITY : a);
        s.mean_abs_head += bad ? 0 : a;
      }
      if (r >= s.rows - quarter) {
        s.max_abs_tail = std::max(s.max_abs_tail, bad ? INFINITY : a);
        s.mean_abs_tail += bad ? 0 : a;
      }
      const int64_t u = UlpDistance(tv, rv);
      s.max_ulps = u < 0 ? std::numeric_limits<int64_t>::max() : std::max(s.max_ulps, u);
      ++s.ulp_histogram[static_cast<size_t>(UlpBucket(u))];
      if (bad || a > tol.CellTolerance(rv)) ++s.over_tolerance;
    }
  }
  const auto n = static_cast<double>(s.rows * s.cols);
  s.mean_abs_head /= static_cast<double>(quarter * s.cols);
  s.mean_abs_tail /= static_cast<double>(quarter * s.cols);
  s.mean_abs = sum / n;
  s.mean_signed = sum_signed / n;
  s.rms = std::sqrt(sum_sq / n);
  return s;
}

bool CheckConstraints::Has(const std::string& key) const {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string_view CheckVerdictName(CheckVerdict v) {
  switch (v) {
    case CheckVerdict::kMatch:
      return "match";
    case CheckVerdict::kFloat32:
      return "float32";
    case CheckVerdict::kNoMatch:
      break;
  }
  return "no match";
}

Result<CheckReport> CheckTable(const Matrix& table, const CheckConstraints& c,
                               const MemoryCap& cap) {
  if (table.rows <= 0 || table.cols <= 0) {
    return InvalidArgument("the table is empty (" + std::to_string(table.rows) + " rows, " +
                           std::to_string(table.cols) + " columns)");
  }
  int64_t non_finite = 0;
  for (float v : table.data) non_finite += std::isfinite(v) ? 0 : 1;
  if (non_finite > 0) {
    return InvalidArgument("the table holds " + std::to_string(non_finite) +
                           " NaN or infinite values; a positional table is finite everywhere");
  }
  CheckReport report;
  report.rows = table.rows;
  report.cols = table.cols;
  report.tolerance_text = c.tolerance
                              ? "|error| <= " + Num(*c.tolerance) + " per cell (--tolerance)"
                              : "float" +
                                    std::string(c.bits == 24   ? "32"
                                                : c.bits == 11 ? "16"
                                                               : "bf16") +
                                    " rounding: 1 ulp of the reference or 2^-" +
                                    std::to_string(c.bits) + " \xc3\x97 amplitude per cell";
  Result<std::vector<CheckCandidate>> ranked = Identify(table, table.cols, c, cap);
  if (!ranked.ok()) return ranked.error();
  report.ranked = std::move(ranked).value();
  if (report.ranked.size() > kCheckCandidatesKept) report.ranked.resize(kCheckCandidatesKept);
  if (report.ranked.empty()) {
    report.notes.push_back("no scheme applies to a table of this shape with the parameters given");
    return report;
  }
  const CheckCandidate& best = report.ranked.front();
  report.verdict = best.verdict;
  if (best.verdict == CheckVerdict::kFloat32) report.notes.push_back(Float32Note(best));
  // A match that needs an unround base (say 19306.98) is more likely a table of the next or
  // previous width with a column missing or extra: the layouts of odd d are prefixes of d + 1.
  const bool suspicious = best.verdict != CheckVerdict::kNoMatch && best.unsnapped > 0;
  if (best.verdict != CheckVerdict::kNoMatch && !suspicious) return report;
  auto clean_match = [](const Result<std::vector<CheckCandidate>>& r) {
    return r.ok() && Matches(r.value()) && r.value().front().unsnapped == 0;
  };
  auto refuse = [&](std::string note) {
    if (suspicious) {
      note += " (the table also equals " + best.description +
              ", whose parameters are not round numbers any implementation uses)";
    }
    report.notes.push_back(std::move(note));
    report.verdict = CheckVerdict::kNoMatch;
    return report;
  };
  // Why nothing matches: the shapes a table most often comes in by mistake, then the error's
  // own shape.
  if (table.rows != table.cols && !suspicious && table.rows <= 65536) {
    Result<std::vector<CheckCandidate>> t = Identify(Transposed(table), table.rows, c, cap);
    if (t.ok() && Matches(t.value())) {
      return refuse("the table is transposed: it holds (d, L) = (" + std::to_string(table.rows) +
                    ", " + std::to_string(table.cols) + "), and as (L, d) = (" +
                    std::to_string(table.cols) + ", " + std::to_string(table.rows) +
                    ") it matches " + t.value().front().description + "; transpose it (table.T)");
    }
  }
  if (table.cols >= 3) {
    Result<std::vector<CheckCandidate>> t =
        Identify(FirstColumns(table, table.cols - 1), table.cols - 1, c, cap);
    if (clean_match(t)) {
      return refuse("one column too many: the first " + std::to_string(table.cols - 1) +
                    " columns match " + t.value().front().description +
                    " (d = " + std::to_string(table.cols - 1) +
                    "), the last column (j = " + std::to_string(table.cols - 1) + ") is extra");
    }
  }
  {
    Result<std::vector<CheckCandidate>> t = Identify(table, table.cols + 1, c, cap);
    if (clean_match(t)) {
      return refuse("one column missing: the " + std::to_string(table.cols) +
                    " columns match the first ones of " + t.value().front().description +
                    " with d = " + std::to_string(table.cols + 1) +
                    "; column j = " + std::to_string(table.cols) + " is not in the table");
    }
  }
  if (suspicious) return report;
  // A constant added to every value: the middle of the table's range is then that constant
  // (a sinusoid spans [-A, A]).
  {
    const auto [lo, hi] = std::minmax_element(table.data.begin(), table.data.end());
    const double shift = 0.5 * (static_cast<double>(*lo) + static_cast<double>(*hi));
    if (std::abs(shift) > 1e-3 * (static_cast<double>(*hi) - static_cast<double>(*lo))) {
      Matrix moved = table;
      for (float& v : moved.data) v = static_cast<float>(static_cast<double>(v) - shift);
      CheckConstraints loose = c;
      // The range's ends are only as near +-A as the rows come to a crest: a loose first look,
      // then the shift is the mean difference from what it found.
      loose.tolerance = std::max(c.tolerance.value_or(0.0), 1e-2 * (*hi - *lo));
      Result<std::vector<CheckCandidate>> t = Identify(moved, table.cols, loose, cap);
      if (t.ok() && Matches(t.value())) {
        const CheckCandidate& found = t.value().front();
        const double exact_shift = shift + found.stats.mean_signed;
        const double spread = found.stats.max_abs + std::abs(found.stats.mean_signed);
        return refuse("every value is off by " + Num(exact_shift) + " (to within " + Num(spread) +
                      "): less that constant, the table matches " + found.description);
      }
    }
  }
  const ErrorStats& s = best.stats;
  const double spread = std::sqrt(std::max(0.0, s.rms * s.rms - s.mean_signed * s.mean_signed));
  if (std::abs(s.mean_signed) > 1e-4 * best.amplitude && spread < 0.05 * std::abs(s.mean_signed)) {
    report.notes.push_back("every value is off by about " + Num(s.mean_signed) + " from " +
                           best.description + " (the same shift in every cell, spread " +
                           Num(spread) + "): a constant added to the table?");
  } else if (s.max_abs < 8 * s.rms && s.max_abs_tail < 4 * s.max_abs_head &&
             s.max_abs_head < 4 * s.max_abs_tail) {
    report.notes.push_back(
        "the nearest candidate, " + best.description + ", differs by " + Num(s.rms) +
        " (rms) spread over every position and column with no growth along the rows (largest " +
        Num(s.max_abs) + "): noise on the values, rows in another order, or another scheme");
  } else {
    report.notes.push_back("the nearest candidate, " + best.description + ", differs by up to " +
                           Num(s.max_abs) + " (row " + std::to_string(s.worst_row) + ", column " +
                           std::to_string(s.worst_col) + "), beyond " + report.tolerance_text);
  }
  return report;
}

Result<Matrix> TableFromTensor(const std::vector<int64_t>& shape, std::vector<float> data) {
  std::vector<int64_t> kept;
  for (int64_t n : shape) {
    if (n != 1) kept.push_back(n);
  }
  auto shape_text = [&] {
    std::string s = "(";
    for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + (shape.size() == 1 ? ",)" : ")");
  };
  if (kept.size() != 2) {
    return InvalidArgument("the tensor has shape " + shape_text() +
                           "; a positional table is 2-D, (positions L, dimensions d)");
  }
  Matrix m;
  m.rows = kept[0];
  m.cols = kept[1];
  m.data = std::move(data);
  if (static_cast<int64_t>(m.data.size()) != m.rows * m.cols) {
    return InvalidArgument("the tensor's data does not fill its shape " + shape_text());
  }
  return m;
}

int DtypeSignificandBits(const std::string& dtype) {
  if (dtype == "<f2" || dtype == ">f2" || dtype == "F16") return 11;
  if (dtype == "BF16") return 8;
  return 24;
}

std::string ParamsFlags(const EncodingParams& p) {
  std::string s = "--scheme " + std::string(SchemeName(p.kind()));
  if (p.kind() == Scheme::kSinusoidal) {
    const SinusoidalParams& sp = p.sinusoidal();
    s += " --variant " + std::string(VariantName(sp.variant));
    s += " --order " + std::string(WaveOrderName(sp.order));
    s += " --base " + Exact(sp.base);
    if (sp.min_timescale != 1.0) s += " --min-timescale " + Exact(sp.min_timescale);
    if (sp.output_scale != 1.0) s += " --output-scale " + Exact(sp.output_scale);
  } else if (p.kind() == Scheme::kRope) {
    const RopeParams& r = p.rope();
    s += " --part " + std::string(RopePartName(r.part));
    s += " --rope-pairing " + std::string(RopePairingName(r.pairing));
    s += " --rope-theta " + Exact(r.theta);
    if (r.scaling != RopeScaling::kNone) {
      s += " --rope-scaling " + std::string(RopeScalingName(r.scaling));
      s += " --scaling-factor " + Exact(r.factor);
      if (r.scaling == RopeScaling::kYarn || r.scaling == RopeScaling::kLlama3) {
        s += " --original-max-len " + std::to_string(r.original_max_len);
      }
      if (r.attention_factor) s += " --attention-factor " + Exact(*r.attention_factor);
    }
  }
  if (p.offset != 0) s += " --offset " + std::to_string(p.offset);
  s += " --d-model " + std::to_string(p.d_model) + " --max-len " + std::to_string(p.max_len);
  return s;
}

}  // namespace pe
