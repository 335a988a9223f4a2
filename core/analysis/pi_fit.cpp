#include "analysis/pi_fit.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace pe {
namespace {

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

double PiFit::Eval(double s) const {
  double a = 0;
  for (size_t j = 0; j < freqs.size(); ++j) {
    a += cos_coef[j] * std::cos(s * freqs[j]) + sin_coef[j] * std::sin(s * freqs[j]);
  }
  return a;
}

Result<PiFit> FitPiScore(int64_t d, double base, int64_t trained, uint64_t seed) {
  if (d < 2 || d % 2 != 0) {
    return InvalidArgument("the pi-fit view needs an even head dimension >= 2, got " +
                           std::to_string(d));
  }
  if (!(base > 1) || !std::isfinite(base)) {
    return InvalidArgument("the pi-fit view needs a base > 1");
  }
  if (d > kPiFitMaxDim) {
    return InvalidArgument(
        "the pi-fit view fits one unknown per rotated dim by QR in float64: "
        "a head dim of at most " +
        std::to_string(kPiFitMaxDim) + ", got " + std::to_string(d));
  }
  if (trained < d || trained > kPiFitMaxTrained) {
    return InvalidArgument("the pi-fit view fits the trained distances 0..L with L in [" +
                           std::to_string(d) + ", " + std::to_string(kPiFitMaxTrained) +
                           "] (at least one target per unknown, the head dim), got " +
                           std::to_string(trained));
  }
  PiFit fit;
  fit.trained = trained;
  const auto h = static_cast<size_t>(d / 2);
  for (size_t j = 0; j < h; ++j) {
    fit.freqs.push_back(std::pow(base, -2.0 * static_cast<double>(j) / static_cast<double>(d)));
  }
  uint64_t state = seed;
  const auto points = static_cast<size_t>(trained + 1), n = static_cast<size_t>(d);
  for (size_t r = 0; r < points; ++r) {
    const double u = static_cast<double>(SplitMix64(state) >> 11) * 0x1.0p-53;
    fit.targets.push_back(2 * u - 1);
  }
  // A (m x n), column-major: cos(s w_j) in column j, sin(s w_j) in column h + j, then the
  // ridge's rows sqrt(lambda) I (targets 0).
  const size_t m = points + n;
  std::vector<double> a(m * n, 0.0), y(m, 0.0);
  std::copy(fit.targets.begin(), fit.targets.end(), y.begin());
  for (size_t j = 0; j < h; ++j) {
    for (size_t r = 0; r < points; ++r) {
      a[j * m + r] = std::cos(static_cast<double>(r) * fit.freqs[j]);
      a[(h + j) * m + r] = std::sin(static_cast<double>(r) * fit.freqs[j]);
    }
  }
  for (size_t c = 0; c < n; ++c) a[c * m + points + c] = std::sqrt(kPiFitRidge);
  // Householder QR: R in the upper triangle of A, Q^T y in y.
  std::vector<double> diag(n, 0.0);
  for (size_t k = 0; k < n; ++k) {
    double* col = &a[k * m];
    double norm = 0;
    for (size_t r = k; r < m; ++r) norm += col[r] * col[r];
    norm = std::sqrt(norm);
    if (norm == 0) continue;  // column k is zero (sin of w = 0 never is, but stay safe)
    const double alpha = col[k] > 0 ? -norm : norm;
    col[k] -= alpha;  // v = x - alpha e_k, kept in place
    const double vv = col[k] * col[k] + (norm * norm - (col[k] + alpha) * (col[k] + alpha));
    diag[k] = alpha;
    if (vv <= 0) continue;
    auto reflect = [&](double* x) {
      double dot = 0;
      for (size_t r = k; r < m; ++r) dot += col[r] * x[r];
      const double f = 2 * dot / vv;
      for (size_t r = k; r < m; ++r) x[r] -= f * col[r];
    };
    for (size_t c = k + 1; c < n; ++c) reflect(&a[c * m]);
    reflect(y.data());
  }
  // Back substitution R x = (Q^T y)[0..n).
  std::vector<double> x(n, 0.0);
  for (size_t k = n; k-- > 0;) {
    if (diag[k] == 0) continue;
    double s = y[k];
    for (size_t c = k + 1; c < n; ++c) s -= a[c * m + k] * x[c];
    x[k] = s / diag[k];
  }
  fit.cos_coef.assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(h));
  fit.sin_coef.assign(x.begin() + static_cast<std::ptrdiff_t>(h), x.end());
  return fit;
}

}  // namespace pe
