#include "analysis/base_bound.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace pe {

int64_t FirstNegativeB(std::span<const double> freqs, int64_t limit) {
  const size_t n = freqs.size();
  std::vector<double> c(n), s(n), step_c(n), step_s(n);
  for (size_t i = 0; i < n; ++i) {
    step_c[i] = std::cos(freqs[i]);
    step_s[i] = std::sin(freqs[i]);
  }
  constexpr int64_t kReseed = 1024;
  for (int64_t m = 1; m <= limit; ++m) {
    double b = 0;
    if (m % kReseed == 1 || kReseed == 1) {
      // Exact turns at m (the product m theta is rounded once), then steps from there.
      for (size_t i = 0; i < n; ++i) {
        const double a = static_cast<double>(m) * freqs[i];
        c[i] = std::cos(a);
        s[i] = std::sin(a);
        b += c[i];
      }
    } else {
      for (size_t i = 0; i < n; ++i) {
        const double nc = c[i] * step_c[i] - s[i] * step_s[i];
        const double ns = s[i] * step_c[i] + c[i] * step_s[i];
        c[i] = nc;
        s[i] = ns;
        b += nc;
      }
    }
    if (b < 0) return m;
  }
  return limit + 1;
}

std::vector<double> TwoDigitBases() {
  std::vector<double> out;
  for (int e = 0; e <= 10; ++e) {
    const double scale = std::pow(10.0, e);
    for (int k = 10; k <= 99; ++k) out.push_back(k * scale);
  }
  return out;
}

Result<std::vector<BaseBound>> BaseLowerBounds(int64_t d, std::span<const int64_t> contexts) {
  if (d < 2 || d % 2 != 0 || d > 65536) {
    return InvalidArgument("the base bound needs an even head dimension in [2, 65536], got " +
                           std::to_string(d));
  }
  std::vector<BaseBound> out;
  for (size_t k = 0; k < contexts.size(); ++k) {
    if (contexts[k] < 1 || (k > 0 && contexts[k] <= contexts[k - 1])) {
      return InvalidArgument("the contexts must be ascending and >= 1");
    }
    out.push_back({contexts[k], 0.0, 0});
  }
  size_t next = 0;  // the first context without a base yet
  std::vector<double> freqs(static_cast<size_t>(d / 2));
  for (double base : TwoDigitBases()) {
    if (next == out.size()) break;
    for (size_t i = 0; i < freqs.size(); ++i) {
      freqs[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d));
    }
    const int64_t m0 = FirstNegativeB(freqs, out.back().context);
    while (next < out.size() && m0 > out[next].context) {
      out[next].base = base;
      out[next].first_negative = m0;
      ++next;
    }
  }
  return out;
}

}  // namespace pe
