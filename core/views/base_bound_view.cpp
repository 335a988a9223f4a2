// The base-bound view: the smallest RoPE base that keeps B(m) = sum_i cos(m theta_i) >= 0 over
// a context of L tokens, against L, on log axes (Men et al. 2024, Figure 1; analysis/base_bound.h
// says how the bound is read), with the current base's own reach and the paper's fitted line.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/base_bound.h"
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

// The largest context drawn: max_len, at least 4096 (the paper's first contexts) and at most
// 2^20 (its last, 1M).
// The scan costs about 30 L d/2 rotations, so a wide head draws fewer contexts: L d/2 at most
// 2^26 (2^20 at d 128, 2^17 at d 1024).
int64_t LargestContext(const EncodingParams& p) {
  const int64_t pairs = std::max<int64_t>(1, RopeRotaryDims(p) / 2);
  const int64_t cap = std::max<int64_t>(4096, (int64_t{1} << 26) / pairs);
  return std::clamp<int64_t>(p.max_len, 4096, std::min<int64_t>(int64_t{1} << 20, cap));
}

// Quarter-octave contexts from 256 to the largest, with the paper's 1000 x 2^k among them.
std::vector<int64_t> Contexts(int64_t largest) {
  std::vector<int64_t> out;
  for (int k = 0;; ++k) {
    const auto l = static_cast<int64_t>(std::llround(256.0 * std::exp2(k / 4.0)));
    if (l > largest) break;
    out.push_back(l);
  }
  for (int64_t l = 1000; l <= largest; l *= 2) out.push_back(l);
  out.push_back(largest);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Status CheckShape(const EncodingParams& p) {
  const int64_t d = RopeRotaryDims(p);
  if (d < 2 || d % 2 != 0) {
    return InvalidArgument("the base-bound view needs an even rotated dimension >= 2, got " +
                           std::to_string(d));
  }
  return {};
}

std::vector<double> Frequencies(double base, int64_t d) {
  std::vector<double> f(static_cast<size_t>(d / 2));
  for (size_t i = 0; i < f.size(); ++i) {
    f[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d));
  }
  return f;
}

}  // namespace

Result<Figure> BaseBoundFigure(const ViewContext& c) {
  const EncodingParams& p = c.params.pe;
  if (Status s = CheckShape(p); !s.ok()) return s.error();
  const int64_t d = RopeRotaryDims(p);
  const int64_t largest = LargestContext(p);
  const std::vector<int64_t> contexts = Contexts(largest);
  Result<std::vector<BaseBound>> bounds = BaseLowerBounds(d, contexts);
  if (!bounds.ok()) return bounds.error();
  const double theta = p.rope().theta;
  // How far the current base keeps B >= 0 (looked for up to 4 x the largest context).
  const int64_t reach = FirstNegativeB(Frequencies(theta, d), 4 * largest) - 1;

  Figure f;
  f.title = "Base of RoPE bounds context (Men et al. 2024): d = " + std::to_string(d);
  f.x = {"context length L (log axis)", false, false};
  f.y = {"smallest base with B(m) \xe2\x89\xa5 0 for m \xe2\x89\xa4 L (log axis)", false, false};
  const double x0 = std::log10(static_cast<double>(contexts.front()));
  const double x1 = std::log10(static_cast<double>(largest));
  FigureSeries curve;
  curve.color = SeriesRgba(0);
  curve.line_width = 1.5;
  double y_lo = std::log10(theta), y_hi = y_lo;
  for (const BaseBound& b : bounds.value()) {
    if (!(b.base > 0)) continue;
    const double x = std::log10(static_cast<double>(b.context)), y = std::log10(b.base);
    curve.xs.push_back(x);
    curve.ys.push_back(y);
    y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    // The paper's contexts (1000 x 2^k) as dots.
    int64_t l = b.context;
    while (l >= 1000 && l % 2 == 0 && l != 1000) l /= 2;
    if (l == 1000) {
      curve.marker_xs.push_back(x);
      curve.marker_ys.push_back(y);
    }
  }
  // The paper's least-squares line through its points: base = 0.0424 L^1.628 (Figure 1).
  FigureSeries fit;
  fit.color = SeriesRgba(2);
  fit.line_width = 1.0;
  for (double x : {x0, x1}) {
    fit.xs.push_back(x);
    fit.ys.push_back(std::log10(0.0424) + 1.628 * x);
    y_lo = std::min(y_lo, fit.ys.back()), y_hi = std::max(y_hi, fit.ys.back());
  }
  // The current base: a level line, and a dot where its B first turns negative.
  FigureSeries own;
  own.color = SeriesRgba(1);
  own.line_width = 1.0;
  own.xs = {x0, x1};
  own.ys = {std::log10(theta), std::log10(theta)};
  if (reach >= contexts.front() && reach <= largest) {
    own.marker_xs.push_back(std::log10(static_cast<double>(reach)));
    own.marker_ys.push_back(std::log10(theta));
    own.marker_radius = 3.5;
  }
  const double pad = 0.06 * std::max(1.0, y_hi - y_lo);
  f.view = {x0, x1, y_lo - pad, y_hi + pad};
  f.x.ticks = LogTicks(x0, x1);
  f.y.ticks = LogTicks(f.view.y0, f.view.y1);
  const bool dot_drawn = !own.marker_xs.empty();
  f.series.push_back(std::move(fit));
  f.series.push_back(std::move(own));
  f.series.push_back(std::move(curve));
  f.legend.push_back(
      {"smallest base (two digits: 10, 11, ..., 990, ...) with B(m) = "
       "\xce\xa3 cos(m \xce\xb8_i) \xe2\x89\xa5 0 for every m \xe2\x89\xa4 L; "
       "dots: L = 1000, 2000, 4000, ... as in the paper",
       SeriesRgba(0)});
  f.legend.push_back(
      {"\xce\xb8 = " + Num(theta, 6) + ": B(m) \xe2\x89\xa5 0 up to m = " +
           (reach > 4 * largest - 1 ? "beyond " + std::to_string(4 * largest)
                                    : std::to_string(reach)) +
           (!dot_drawn ? std::string(" (off the axis)") : std::string(" (the dot)")) +
           ", the context this base bounds",
       SeriesRgba(1)});
  f.legend.push_back({"Men et al.'s fit to their points: base = 0.0424 L^1.628", SeriesRgba(2)});
  f.legend.push_back(
      {"\xce\xb8_i = base^(\xe2\x88\x92"
       "2i/d), d = " +
           std::to_string(d) + (d != p.d_model ? " rotated dims" : std::string()) +
           "; scaling is not part of the bound",
       kNoColor});
  return f;
}

Status CheckBaseBoundTable(const ViewContext& c) {
  return CheckShape(c.params.pe);
}

Status WriteBaseBoundView(std::ostream& out, TableFormat format, const ViewContext& c,
                          const Progress&) {
  if (Status s = CheckBaseBoundTable(c); !s.ok()) return s;
  const EncodingParams& p = c.params.pe;
  const std::vector<int64_t> contexts = Contexts(LargestContext(p));
  Result<std::vector<BaseBound>> bounds = BaseLowerBounds(RopeRotaryDims(p), contexts);
  if (!bounds.ok()) return bounds.error();
  const auto n = static_cast<int64_t>(bounds.value().size());
  if (format == TableFormat::kNpy) {
    // (contexts, 3): L, the lower bound of the base, where that base's B first turns negative.
    std::vector<float> v;
    for (const BaseBound& b : bounds.value()) {
      v.push_back(static_cast<float>(b.context));
      v.push_back(static_cast<float>(b.base));
      v.push_back(static_cast<float>(b.first_negative));
    }
    const int64_t shape[] = {n, 3};
    out << NpyHeader(shape);
    WriteFloatsLE(out, v.data(), 3 * n);
  } else {
    out << "context,lower_bound_base,first_negative_m\n";
    for (const BaseBound& b : bounds.value()) {
      out << b.context << ',' << Num(b.base, 17) << ',' << b.first_negative << '\n';
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// Three lines of at most a hundred points, with a few dots.
uint64_t BaseBoundEstimate(const EstimateContext&) {
  return kFigureBytesPerCurveSample * 256;
}

}  // namespace pe
