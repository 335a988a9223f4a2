// Principal component analysis down to two axes, for the projection view: the axes of largest
// variance of a set of points (rows), the share of the variance each explains, and the points'
// coordinates along them. Double precision throughout (Eigen's BDCSVD of the centred points).
// Sign convention: each axis is flipped so that its largest-magnitude loading (the first such
// dimension on a tie) is positive, so a figure does not depend on the solver's signs.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"

namespace pe {

struct Pca2 {
  std::vector<double> mean;                 // (d)
  std::array<std::vector<double>, 2> axes;  // (2, d) unit vectors; zero when rank < 2
  std::array<double, 2> variance{};         // sample variance along each axis (/ (n - 1))
  double total_variance = 0;                // sum over all dimensions (trace of the covariance)
  // variance[k] / total_variance, 0 when all points coincide.
  std::array<double, 2> ratio{};
};

// The most points FitPca2 takes: the decomposition costs n^2 d.
inline constexpr int64_t kMaxPcaPoints = 2048;

// Fit on `points` (n, d), n >= 1, d >= 1; n > kMaxPcaPoints is an error naming the count.
Result<Pca2> FitPca2(const Matrix& points);

// (x - mean) . axes[k] for k = 0, 1, for one point `x` (d).
std::array<double, 2> ProjectPca2(const Pca2& pca, const float* x);

}  // namespace pe
