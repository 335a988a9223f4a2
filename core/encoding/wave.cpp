#include "encoding/wave.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace pe {

double WaveColumn::wavelength() const {
  if (wave == Wave::kZero || frequency == 0.0) return std::numeric_limits<double>::infinity();
  return 2.0 * std::numbers::pi / frequency;
}

double WaveValueAt(const WaveColumn& column, double position) {
  const double angle = position * column.frequency;
  switch (column.wave) {
    case Wave::kSin:
      return column.amplitude * std::sin(angle);
    case Wave::kCos:
      return column.amplitude * std::cos(angle);
    case Wave::kZero:
      return 0.0;
    case Wave::kAngle:
      return angle;
  }
  return 0.0;
}

float WaveValue(const WaveColumn& column, int64_t position) {
  return static_cast<float>(WaveValueAt(column, static_cast<double>(position)));
}

WaveSpan WaveRangeOver(const WaveColumn& c, double p0, double p1) {
  const double v0 = WaveValueAt(c, p0), v1 = WaveValueAt(c, p1);
  WaveSpan span{std::min(v0, v1), std::max(v0, v1)};
  if (c.wave != Wave::kSin && c.wave != Wave::kCos) return span;  // a line or zero: its ends
  const double a = std::fabs(c.amplitude);
  const double w = std::fabs(c.frequency);
  const double t0 = std::min(p0 * c.frequency, p1 * c.frequency);
  const double t1 = std::max(p0 * c.frequency, p1 * c.frequency);
  constexpr double kTwoPi = 2.0 * std::numbers::pi;
  if (w * (p1 - p0) >= kTwoPi) return {-a, a};
  // Is an angle crest + 2 pi k inside [t0, t1]? The extremes of sin are at pi/2 (+1) and
  // -pi/2 (-1), those of cos at 0 (+1) and pi (-1), each every 2 pi.
  const auto inside = [&](double crest) {
    const double k = std::ceil((t0 - crest) / kTwoPi);
    return crest + kTwoPi * k <= t1;
  };
  const double up = c.wave == Wave::kSin ? 0.5 * std::numbers::pi : 0.0;
  const double down = c.wave == Wave::kSin ? -0.5 * std::numbers::pi : std::numbers::pi;
  // a * (+1) is the top for a >= 0, the bottom for a < 0 (and the other way for -1).
  const bool at_up = inside(up), at_down = inside(down);
  if (c.amplitude >= 0) {
    if (at_up) span.hi = a;
    if (at_down) span.lo = -a;
  } else {
    if (at_up) span.lo = -a;
    if (at_down) span.hi = a;
  }
  return span;
}

double MeanOverPositions(const WaveColumn& c, int64_t first, int64_t n) {
  if (c.wave == Wave::kZero) return 0.0;
  if (n == 1 || c.frequency == 0.0) return WaveValueAt(c, static_cast<double>(first));
  const double w = c.frequency;
  // The angle is linear in p: its mean is the angle at the middle position.
  if (c.wave == Wave::kAngle) return (static_cast<double>(first) + 0.5 * double(n - 1)) * w;
  // sum_{k<n} e^{i(first+k)w} = e^{i(2 first + n - 1) w / 2} sin(n w / 2) / sin(w / 2)
  const double mid = static_cast<double>(2 * first + n - 1) * w * 0.5;
  const double factor =
      std::sin(static_cast<double>(n) * w * 0.5) / (static_cast<double>(n) * std::sin(w * 0.5));
  return c.amplitude * (c.wave == Wave::kSin ? std::sin(mid) : std::cos(mid)) * factor;
}

void FillWaveBlockNaive(std::span<const WaveColumn> columns, int64_t first_position,
                        int64_t row0, int64_t rows, float* out) {
  const auto cols = static_cast<int64_t>(columns.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double position = static_cast<double>(first_position + row0 + r);
    float* dst = out + r * cols;
    for (int64_t j = 0; j < cols; ++j) {
      dst[j] = static_cast<float>(WaveValueAt(columns[static_cast<size_t>(j)], position));
    }
  }
}

}  // namespace pe
