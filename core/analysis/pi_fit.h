// Position Interpolation's Figure 2 (Chen, Wong, Chen, Tian 2023, "Extending Context Window of
// Large Language Models via Positional Interpolation", Section 2.2): an attention score as RoPE
// makes it is a(s) = Re sum_j h_j e^(i s theta_j) over the d/2 frequencies theta_j =
// base^(-2j/d). Fitted by least squares to random targets at the trained distances 0..L, it
// stays within about [-1, 1] there, but grows to hundreds or thousands past L (extrapolation),
// while the same function at s/2 (interpolation: distances 0..2L squeezed into 0..L) stays as
// small as inside.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"

namespace pe {

struct PiFit {
  int64_t trained = 0;          // L
  std::vector<double> targets;  // (L + 1): the random targets at s = 0..L, uniform in [-1, 1]
  std::vector<double> cos_coef, sin_coef;  // (d/2): a(s) = sum c_j cos(s w_j) + s_j sin(s w_j)
  std::vector<double> freqs;               // (d/2): w_j
  double Eval(double s) const;
};

// The fit's ridge: min |A x - y|^2 + lambda |x|^2. The slow pairs' columns are nearly equal
// over 0..L (A's condition number is 2.4e16 at d 128, L 2048), so plain least squares has no
// stable answer: its coefficients and what it does past L depend on the solver's cut-off (numpy's
// lstsq gives 3e10 past L, with rcond 1e-6 about 2e3). The paper does not name its solver; a
// small ridge gives one answer any solver agrees on, with the paper's picture: |a| within about
// 0.5 inside and hundreds to thousands past L at d 128, L 2048 (467 with seed 0).
inline constexpr double kPiFitRidge = 1e-6;
// The largest fit: (L + 1 + d) x d doubles and about 2 (L + d) d^2 operations (about 5 GFLOP at
// 512 and 8192).
inline constexpr int64_t kPiFitMaxDim = 512;
inline constexpr int64_t kPiFitMaxTrained = 8192;

// Fits a(s) to L + 1 targets drawn from `seed` (splitmix64, each (x >> 11) 2^-53 mapped to
// [-1, 1]) with the ridge above, by Householder QR in float64. Errors: d odd, < 2 or over
// kPiFitMaxDim, base <= 1, L outside [d, kPiFitMaxTrained] (fewer targets than unknowns, or a
// fit too large to draw).
Result<PiFit> FitPiScore(int64_t d, double base, int64_t trained, uint64_t seed);

}  // namespace pe
