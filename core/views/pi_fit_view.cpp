// The pi-fit view: Position Interpolation's Figure 2 (analysis/pi_fit.h). A score function of
// RoPE's form fitted to random targets at the trained distances 0..L, drawn over 0..2L as is
// (extrapolation) and at s/2 (interpolation), on a symmetric log axis so that both the [-1, 1]
// inside and the thousands outside show.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/pi_fit.h"
#include "encoding/rope.h"
#include "io/file_writers.h"
#include "views/figure_budget.h"
#include "views/view_builders.h"
#include "views/view_geometry.h"

namespace pe {
namespace {

std::string Num(double v, int digits = 4) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// sign(y) log10(1 + |y|): 0 at 0, about log10|y| far from it.
double SymLog(double y) {
  return std::copysign(std::log10(1 + std::abs(y)), y);
}

// The trained length L: max_len, within [the head dim (a target per unknown), the largest fit].
int64_t Trained(const EncodingParams& p) {
  return std::max(RopeRotaryDims(p), std::min(p.max_len, kPiFitMaxTrained));
}

Result<PiFit> Fit(const ModelParams& m) {
  const EncodingParams& p = m.pe;
  return FitPiScore(RopeRotaryDims(p), p.rope().theta, Trained(p), m.example.seed);
}

}  // namespace

Result<Figure> PiFitFigure(const ViewContext& c) {
  Result<PiFit> fit = Fit(c.params);
  if (!fit.ok()) return fit.error();
  const PiFit& pf = fit.value();
  const auto L = static_cast<double>(pf.trained);
  Figure f;
  f.title = "Position Interpolation (Chen et al. 2023, Figure 2): d = " +
            std::to_string(2 * pf.freqs.size()) +
            ", \xce\xb8 = " + Num(c.params.pe.rope().theta, 6) +
            ", trained to L = " + std::to_string(pf.trained);
  f.x = {"relative distance s", false, false, true};
  f.y = {"a(s) (symmetric log axis)", false, false};
  const int samples = CurveSamples(PlotPixels(c, f).width);
  FigureSeries outside, inside, pi, dots, edge;
  outside.color = SeriesRgba(1);
  inside.color = SeriesRgba(0);
  pi.color = SeriesRgba(2);
  dots.color = SeriesRgba(0);
  dots.line_width = 0;
  dots.marker_radius = 1.2;
  edge.color = Rgba8{128, 128, 128, 255};
  edge.line_width = 1.0;
  double max_in = 0, max_out = 0, max_pi = 0, y_hi = 1;
  for (int k = 0; k < samples; ++k) {
    const double s = 2 * L * k / (samples - 1);
    const double a = pf.Eval(s), b = pf.Eval(s / 2);
    (s <= L ? max_in : max_out) = std::max(s <= L ? max_in : max_out, std::abs(a));
    max_pi = std::max(max_pi, std::abs(b));
    FigureSeries& line = s <= L ? inside : outside;
    line.xs.push_back(s);
    line.ys.push_back(SymLog(a));
    pi.xs.push_back(s);
    pi.ys.push_back(SymLog(b));
    y_hi = std::max({y_hi, std::abs(SymLog(a)), std::abs(SymLog(b))});
  }
  // The targets, at most one dot per plot pixel.
  const int64_t step = std::max<int64_t>(1, (pf.trained + 1) / std::max(1, samples / 4));
  for (int64_t s = 0; s <= pf.trained; s += step) {
    dots.marker_xs.push_back(static_cast<double>(s));
    dots.marker_ys.push_back(SymLog(pf.targets[static_cast<size_t>(s)]));
  }
  y_hi *= 1.06;
  edge.xs = {L, L};
  edge.ys = {-y_hi, y_hi};
  f.view = {0, 2 * L, -y_hi, y_hi};
  // Ticks at 0, +-1, +-10, +-100, ... as far as the values go.
  f.y.ticks.push_back({0.0, "0"});
  for (double v = 1; SymLog(v) <= y_hi; v *= 10) {
    f.y.ticks.push_back({SymLog(v), Num(v)});
    f.y.ticks.push_back({-SymLog(v), Num(-v)});
  }
  f.series.push_back(std::move(edge));
  f.series.push_back(std::move(dots));
  f.series.push_back(std::move(pi));
  f.series.push_back(std::move(inside));
  f.series.push_back(std::move(outside));
  f.legend.push_back(
      {"a(s) = \xce\xa3_j c_j cos(s \xce\xb8_j) + d_j sin(s \xce\xb8_j), least squares "
       "to " +
           std::to_string(pf.trained + 1) +
           " random targets in [\xe2\x88\x92"
           "1, 1] at s = 0.." +
           std::to_string(pf.trained) + " (the dots, seed " +
           std::to_string(c.params.example.seed) + "): max |a| " + Num(max_in, 3),
       SeriesRgba(0)});
  f.legend.push_back({"extrapolation, s > L: max |a| " + Num(max_out, 3), SeriesRgba(1)});
  f.legend.push_back(
      {"interpolation, a(s/2) over 0..2L: max |a| " + Num(max_pi, 3), SeriesRgba(2)});
  f.legend.push_back(
      {"\xce\xb8_j = \xce\xb8^(\xe2\x88\x92"
       "2j/d); the grey line is L",
       kNoColor});
  if (pf.trained != c.params.pe.max_len) {
    f.legend.push_back({"L = " + std::to_string(pf.trained) + ", not max_len " +
                            std::to_string(c.params.pe.max_len) +
                            ": the fit takes L from the head dim to " +
                            std::to_string(kPiFitMaxTrained),
                        kNoColor});
  }
  return f;
}

Status CheckPiFitTable(const ViewContext& c) {
  Result<PiFit> fit = Fit(c.params);
  return fit.ok() ? Status{} : Status(fit.error());
}

Status WritePiFitView(std::ostream& out, TableFormat format, const ViewContext& c,
                      const Progress&) {
  Result<PiFit> fit = Fit(c.params);
  if (!fit.ok()) return fit.error();
  const PiFit& pf = fit.value();
  const int64_t n = 2 * pf.trained + 1;
  if (format == TableFormat::kNpy) {
    // (2L + 1, 4): s, the target (NaN past L), a(s), a(s/2).
    std::vector<float> v;
    for (int64_t s = 0; s < n; ++s) {
      v.push_back(static_cast<float>(s));
      v.push_back(s <= pf.trained ? static_cast<float>(pf.targets[static_cast<size_t>(s)])
                                  : std::nanf(""));
      v.push_back(static_cast<float>(pf.Eval(static_cast<double>(s))));
      v.push_back(static_cast<float>(pf.Eval(static_cast<double>(s) / 2)));
    }
    const int64_t shape[] = {n, 4};
    out << NpyHeader(shape);
    WriteFloatsLE(out, v.data(), 4 * n);
  } else {
    out << "s,target,fitted,interpolated\n";
    for (int64_t s = 0; s < n; ++s) {
      out << s << ',';
      if (s <= pf.trained) out << Num(pf.targets[static_cast<size_t>(s)], 17);
      out << ',' << Num(pf.Eval(static_cast<double>(s)), 17) << ','
          << Num(pf.Eval(static_cast<double>(s) / 2), 17) << '\n';
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// Three lines sampled twice per pixel and up to a dot per pixel, and the fit: the augmented
// (L + 1 + d) x d matrix, its targets and the coefficients, in doubles.
uint64_t PiFitEstimate(const EstimateContext& c) {
  uint64_t fit = 0;
  const EncodingParams& p = c.params.pe;
  if (p.kind() == Scheme::kRope && ValidateRopeParams(p).ok()) {
    const auto d = static_cast<uint64_t>(RopeRotaryDims(p));
    const auto rows = static_cast<uint64_t>(Trained(p)) + 1 + d;
    if (d <= kPiFitMaxDim) fit = 8 * (rows * d + 3 * rows + 4 * d);
  }
  return kFigureBytesPerCurveSample * 4 * EstimatedCurveSamples(c.width_px) + fit;
}

}  // namespace pe
