#include "analysis/pca.h"

#include <Eigen/Dense>
#include <Eigen/SVD>
#include <cmath>
#include <string>

namespace pe {

Result<Pca2> FitPca2(const Matrix& points) {
  const int64_t n = points.rows, d = points.cols;
  if (n < 1 || d < 1) {
    return InvalidArgument("PCA needs at least one point of at least one dimension, got (" +
                           std::to_string(n) + ", " + std::to_string(d) + ")");
  }
  if (n > kMaxPcaPoints) {
    return InvalidArgument("PCA of " + std::to_string(n) + " points: at most " +
                           std::to_string(kMaxPcaPoints) + " are fitted");
  }
  Pca2 pca;
  pca.mean.assign(static_cast<size_t>(d), 0.0);
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < d; ++c) pca.mean[static_cast<size_t>(c)] += points.at(r, c);
  }
  for (double& m : pca.mean) m /= static_cast<double>(n);
  Eigen::MatrixXd x(n, d);  // centred points
  double sum_squares = 0;
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < d; ++c) {
      x(r, c) = static_cast<double>(points.at(r, c)) - pca.mean[static_cast<size_t>(c)];
      sum_squares += x(r, c) * x(r, c);
    }
  }
  const double dof = n > 1 ? static_cast<double>(n - 1) : 1.0;
  pca.total_variance = sum_squares / dof;
  for (auto& axis : pca.axes) axis.assign(static_cast<size_t>(d), 0.0);
  if (sum_squares == 0) return pca;  // one point, or all equal: no direction
  Eigen::BDCSVD<Eigen::MatrixXd> svd(x, Eigen::ComputeThinV);
  const Eigen::VectorXd& s = svd.singularValues();  // descending
  const Eigen::MatrixXd& v = svd.matrixV();         // (d, min(n, d))
  for (int k = 0; k < 2 && k < s.size(); ++k) {
    if (s(k) <= 0) break;
    int64_t largest = 0;
    for (int64_t c = 1; c < d; ++c) {
      if (std::abs(v(c, k)) > std::abs(v(largest, k))) largest = c;
    }
    const double sign = v(largest, k) < 0 ? -1.0 : 1.0;
    for (int64_t c = 0; c < d; ++c)
      pca.axes[static_cast<size_t>(k)][static_cast<size_t>(c)] = sign * v(c, k);
    pca.variance[static_cast<size_t>(k)] = s(k) * s(k) / dof;
    pca.ratio[static_cast<size_t>(k)] = s(k) * s(k) / sum_squares;
  }
  return pca;
}

std::array<double, 2> ProjectPca2(const Pca2& pca, const float* x) {
  std::array<double, 2> out{};
  for (size_t k = 0; k < 2; ++k) {
    double acc = 0;
    for (size_t c = 0; c < pca.mean.size(); ++c) {
      acc += (static_cast<double>(x[c]) - pca.mean[c]) * pca.axes[k][c];
    }
    out[k] = acc;
  }
  return out;
}

}  // namespace pe
