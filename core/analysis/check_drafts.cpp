// Identification for `check` (check.h): reading each pair's frequency, phase and amplitude off
// a table's columns, and the candidate parameters (drafts) each layout's readings suggest, with
// what the user fixed kept. Verification and the report are in check.cpp.
#include "analysis/check_drafts.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <optional>
#include <tuple>
#include <utility>

#include "encoding/positional_encoding.h"
#include "encoding/rope.h"

namespace pe {
namespace {

constexpr double kPi = std::numbers::pi;

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
  Line line = FitLine(xs, angle, wt);
  // A few wrong cells must not move the line: rows far off it (ten times the median
  // distance) are left out and the line fitted again.
  {
    std::vector<double> res(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      const auto k = static_cast<size_t>(r);
      res[k] = std::abs(angle[k] - line.a - line.b * xs[k]);
    }
    const double limit = 10 * Median(res) + 1e-12;
    bool dropped = false;
    for (int64_t r = 0; r < rows; ++r) {
      const auto k = static_cast<size_t>(r);
      if (res[k] > limit) wt[k] = 0, dropped = true;
    }
    if (dropped) line = FitLine(xs, angle, wt);
  }
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
  // The recurrence fitted over every row, then again without the rows whose residual
  // u_{r-1} + u_{r+1} - 2 cos(w) u_r is ten times the median one: a wrong cell touches three.
  std::vector<char> kept(static_cast<size_t>(rows), 1);
  double cos_w = std::nan("");
  for (int pass = 0; pass < 2; ++pass) {
    double num = 0, den = 0;
    for (int64_t r = 1; r + 1 < rows; ++r) {
      const auto k = static_cast<size_t>(r);
      if (kept[k] == 0) continue;
      num += u[k] * (u[k - 1] + u[k + 1]);
      den += 2 * u[k] * u[k];
    }
    cos_w = den > 0 ? num / den : std::nan("");
    if (pass == 1 || !std::isfinite(cos_w)) break;
    std::vector<double> res;
    res.reserve(static_cast<size_t>(rows));
    for (int64_t r = 1; r + 1 < rows; ++r) {
      const auto k = static_cast<size_t>(r);
      res.push_back(std::abs(u[k - 1] + u[k + 1] - 2 * cos_w * u[k]));
    }
    const double limit = 10 * Median(res) + 1e-12;
    bool dropped = false;
    for (int64_t r = 1; r + 1 < rows; ++r) {
      const auto k = static_cast<size_t>(r);
      if (res[k - 1] > limit) kept[k] = 0, dropped = true;
    }
    if (!dropped) break;
  }
  double w = std::isfinite(cos_w) ? std::acos(std::clamp(cos_w, -1.0, 1.0)) : std::nan("");
  const double l = static_cast<double>(rows);
  out.weight = std::isfinite(w) ? w * w * w * w * l : 0.0;
  if (std::isfinite(w) && w < 0.3) {
    const double limit = is_cos ? 2.5 : 1.3;
    // Each row's angle acos(u) or asin(u) against p: a line through 0 of slope w, fitted by
    // weighted least squares, then again without the rows ten times the median distance off it.
    std::vector<double> ps, as, wts;
    for (int64_t r = 0; r < rows; ++r) {
      const auto p = static_cast<double>(first + r);
      if (p <= 0 || p * std::max(w, 1e-300) > limit) continue;
      const double v = std::clamp(u[static_cast<size_t>(r)], -1.0, 1.0);
      const double a = is_cos ? std::acos(v) : std::asin(v);
      const double cond = is_cos ? std::sin(a) : std::cos(a);
      ps.push_back(p), as.push_back(a), wts.push_back(cond * cond);
    }
    auto fit = [&] {
      double sxy = 0, sxx = 0;
      for (size_t k = 0; k < ps.size(); ++k) {
        sxy += wts[k] * ps[k] * as[k];
        sxx += wts[k] * ps[k] * ps[k];
      }
      return std::pair{sxy, sxx};
    };
    auto [sxy, sxx] = fit();
    if (sxx > 0) {
      // Distances from the median slope: one wrong cell near u = +-1 has an angle (and a
      // weight) far above the others' and would carry the least-squares line with it.
      std::vector<double> slopes(ps.size());
      for (size_t k = 0; k < ps.size(); ++k) slopes[k] = as[k] / ps[k];
      const double w0 = Median(slopes);
      std::vector<double> res(ps.size());
      for (size_t k = 0; k < ps.size(); ++k) res[k] = std::abs(as[k] - w0 * ps[k]);
      const double cut = 10 * Median(res) + 1e-12;
      bool dropped = false;
      for (size_t k = 0; k < ps.size(); ++k) {
        if (res[k] > cut) wts[k] = 0, dropped = true;
      }
      if (dropped) std::tie(sxy, sxx) = fit();
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
    if (c.Has("mscale")) r.mscale = f.mscale;
    if (c.Has("mscale_all_dim")) r.mscale_all_dim = f.mscale_all_dim;
    if (c.Has("yarn_truncate")) r.yarn_truncate = f.yarn_truncate;
    if (c.Has("low_freq_factor")) r.low_freq_factor = f.low_freq_factor;
    if (c.Has("high_freq_factor")) r.high_freq_factor = f.high_freq_factor;
    if (c.Has("sequence_len")) r.sequence_len = f.sequence_len;
    if (c.Has("rope_proportion")) r.proportion = f.proportion;
  }
}

}  // namespace

bool SchemeAllowed(const CheckConstraints& c, Scheme s) {
  return !c.Has("scheme") || c.fixed.kind() == s;
}

// The sinusoidal drafts of one layout (variant, order) for a table `assumed_d` wide.
void SinusoidalDrafts(const Matrix& t, int64_t assumed_d, PeVariant variant, WaveOrder order,
                      const CheckConstraints& c, std::vector<CheckDraft>& out) {
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
  CheckDraft d;
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
    CheckDraft draft = d;
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
                const CheckConstraints& c, std::vector<CheckDraft>& out) {
  if (assumed_d < 2 || assumed_d % 2 != 0 || t.cols < 2) return;
  const int64_t h = assumed_d / 2;
  const int64_t first = c.Has("offset") ? c.fixed.offset : 0;
  // Each pair's column (the mean of its two copies where both are in the table).
  std::vector<std::vector<double>> waves;
  std::vector<double> pair_max;  // each pair's largest |value|
  for (int64_t i = 0; i < h; ++i) {
    const int64_t a = pairing == RopePairing::kHalf ? i : 2 * i;
    const int64_t b = pairing == RopePairing::kHalf ? i + h : 2 * i + 1;
    std::vector<double> u(static_cast<size_t>(t.rows));
    double top = 0;
    for (int64_t r = 0; r < t.rows; ++r) {
      const double va = a < t.cols ? t.at(r, a) : std::nan("");
      const double vb = b < t.cols ? t.at(r, b) : va;
      u[static_cast<size_t>(r)] = std::isfinite(va) ? 0.5 * (va + vb) : vb;
      top = std::max(top, std::abs(u[static_cast<size_t>(r)]));
    }
    pair_max.push_back(top);
    waves.push_back(std::move(u));
  }
  // The amplitude: the largest pair maximum that is not above the upper quartile of them by
  // more than 1e-4 (a wrong cell may stand out of its wave; every cos pair reaches A at p = 0,
  // the fast sin pairs come within float rounding of it).
  double amplitude = 0;
  {
    std::vector<double> sorted = pair_max;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    const double quartile = sorted.empty() ? 0.0 : sorted[sorted.size() / 4];
    for (double m : pair_max) {
      if (m <= quartile * (1 + 1e-4)) amplitude = std::max(amplitude, m);
    }
  }
  if (!(amplitude > 0)) amplitude = 1.0;
  RopeReading reading;
  reading.amplitude = amplitude;
  reading.frequency.assign(static_cast<size_t>(h), std::nan(""));
  reading.weight.assign(static_cast<size_t>(h), 0.0);
  for (int64_t i = 0; i < h; ++i) {
    std::vector<double>& u = waves[static_cast<size_t>(i)];
    if (!std::isfinite(u[0])) continue;
    for (double& v : u) v /= amplitude;
    const PairReading r = ReadSingleWave(u, first, part == RopePart::kCos);
    reading.frequency[static_cast<size_t>(i)] = r.frequency;
    reading.weight[static_cast<size_t>(i)] = r.weight;
  }
  // Proportional RoPE (Gemma 4): the last pairs do not turn, cos exactly 1 and sin exactly 0 on
  // every row.
  if (t.rows >= 3) {
    int64_t still = 0;
    for (int64_t i = h - 1; i >= 0; --i) {
      const std::vector<double>& u = waves[static_cast<size_t>(i)];
      const double expected = part == RopePart::kCos ? 1.0 : 0.0;
      bool constant = true;
      for (double v : u) constant = constant && v == expected;
      if (!constant) break;
      ++still;
    }
    reading.still_pairs = still;
  }
  RopeReadingDrafts(
      reading, ShapeOf(t.rows, assumed_d, first),
      "rope " + std::string(RopePartName(part)) + " " + std::string(RopePairingName(pairing)),
      pairing, part, c, out);
}

void RopeReadingDrafts(const RopeReading& reading, const EncodingParams& shape,
                       const std::string& hypothesis, RopePairing pairing, RopePart part,
                       const CheckConstraints& c, std::vector<CheckDraft>& out) {
  const int64_t assumed_d = shape.d_model;
  const int64_t h = assumed_d / 2;
  if (static_cast<int64_t>(reading.frequency.size()) != h || h < 1) return;
  // 1, or YaRN's default attention factor once the factor is known (below); NaN: not known
  // (a frequency vector).
  const double raw_amplitude = reading.amplitude;
  const std::vector<double>& freq = reading.frequency;
  std::vector<double> es, lnw, wt;
  for (int64_t i = 0; i < h; ++i) {
    const double w = freq[static_cast<size_t>(i)];
    const double weight = reading.weight[static_cast<size_t>(i)];
    if (std::isfinite(w) && w > 0 && weight > 0) {
      es.push_back(2.0 * static_cast<double>(i) / static_cast<double>(assumed_d));
      lnw.push_back(std::log(w));
      wt.push_back(weight);
    }
  }
  // Each draft also comes with the proportion of the pairs that turn (after the plain one,
  // which wins a tie on a short table whose slowest pairs round to 1).
  double proportion = 1.0;
  {
    const int64_t still = reading.still_pairs;
    const int64_t turning = h - still;
    if (still > 0 && turning >= 2) {
      proportion = static_cast<double>(turning) / static_cast<double>(h);
      if (std::optional<double> snapped = SnapDecimal(proportion, 1e-9)) proportion = *snapped;
      if (static_cast<int64_t>(std::floor(proportion * static_cast<double>(h))) != turning) {
        proportion = (static_cast<double>(turning) + 0.5) / static_cast<double>(h);
      }
    }
  }
  auto add = [&](RopeParams rp, int unsnapped) {
    if (c.Has("rope_scaling") && c.fixed.kind() == Scheme::kRope &&
        c.fixed.rope().scaling != rp.scaling) {
      return;
    }
    CheckDraft d;
    d.hypothesis = hypothesis;
    d.params = shape;
    rp.pairing = pairing;
    rp.part = part;
    d.params.scheme = rp;
    d.unsnapped = unsnapped;
    ApplyFixed(c, d.params);
    out.push_back(d);
    if (proportion < 1 && !(c.Has("rope_proportion") && c.fixed.kind() == Scheme::kRope)) {
      d.params.rope().proportion = proportion;
      out.push_back(std::move(d));
    }
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

  // How near a reading comes to what was typed: 1e-4 of it from float32 cells, about 2^-bits
  // from bfloat16 or float16 ones (a bf16 table reads theta 10000 as 9960).
  const double read_rel = std::max(1e-4, std::ldexp(4.0, -c.bits));
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
    rp.theta = snap_or(std::exp(-all.b), read_rel, u);
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
    const double theta = snap_or(std::exp(-hi.b), std::max(1e-3, read_rel), u);
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
      if (std::isfinite(raw_amplitude) &&
          std::abs(raw_amplitude - yarn_default) > 2e-3 * yarn_default) {
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
        if (!std::isfinite(raw_amplitude) || std::abs(raw_amplitude - 1.0) < 2e-3) {
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

}  // namespace pe
