#include "base/ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pe {

double NiceStep(double range, int target) {
  if (!(range > 0) || target < 1) return 1.0;
  const double raw = range / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double nice = norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10;
  return nice * mag;
}

namespace {

std::vector<Tick> TicksAtStep(double lo, double hi, int target, bool integer_only) {
  std::vector<Tick> ticks;
  double step = NiceStep(hi - lo, std::max(1, target));
  if (integer_only) step = std::max(1.0, std::round(step));
  const double first = std::ceil(lo / step - 1e-9) * step;
  // Digits after the point: enough for the step (0.25 needs 2, 5 needs 0).
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  const bool big = std::max(std::fabs(lo), std::fabs(hi)) >= 1e7;
  for (int k = 0; k < 1000; ++k) {
    double v = first + k * step;
    if (v > hi + step * 1e-9) break;
    if (std::fabs(v) < step * 1e-9) v = 0.0;
    char buf[48];
    if (big && step >= 1e6) {
      std::snprintf(buf, sizeof buf, "%.4g", v);
    } else if (decimals > 5) {
      // Tiny steps in powers of ten ("2e-08", not "0.00000002"; a precision view's errors can
      // be 1e-26): three significant digits hold every nice step's multiple.
      std::snprintf(buf, sizeof buf, "%.3g", v);
    } else {
      std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    }
    ticks.push_back({v, buf});
  }
  return ticks;
}

}  // namespace

std::vector<Tick> NiceTicks(double lo, double hi, int target, bool integer_only) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {};
  std::vector<Tick> ticks = TicksAtStep(lo, hi, target, integer_only);
  // A range that falls between its nice steps can hold a single tick (only 0 in [-49.5, 49.5]
  // at step 50), which gives no scale: finer steps until two fit.
  for (int t = std::max(2, target) * 2; ticks.size() < 2 && target >= 2 && t <= 64 * target;
       t *= 2) {
    ticks = TicksAtStep(lo, hi, t, integer_only);
  }
  return ticks;
}

}  // namespace pe
