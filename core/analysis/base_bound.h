// "Base of RoPE bounds context length" (Men, Xu, Wang, Zhang, Lin, Han, Chen 2024, Section 4):
// with theta_i = base^(-2i/d), attention can tell a similar token from a random one at relative
// distance m only while B(m) = sum_{i=0}^{d/2-1} cos(m theta_i) >= 0, so a model meant to use a
// context of L tokens needs a base whose B stays >= 0 for every m in [0, L]. The first m where B
// turns negative does not grow steadily with the base (at d 128 base 11600 keeps B >= 0 to
// m = 2050, base 12000 only to 1553), so the lower bound is read as the paper's numbers are: the
// smallest base of two significant digits (10, 11, ..., 99 times a power of ten) whose B stays
// >= 0 up to L. At d 128 that gives 4300 for L = 1000, 16000 for 2000, 27000 for 4000 and 84000
// for 8000, the paper's values for 1k to 8k.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"

namespace pe {

// The first m in [1, limit] with B(m) < 0 over the frequencies `freqs`, or limit + 1 when B
// stays >= 0 up to limit. B is summed from each pair's turn e^(i m theta) stepped by one
// rotation per position and set again from cos and sin every 1024 positions (error below 1e-12).
int64_t FirstNegativeB(std::span<const double> freqs, int64_t limit);

// The base grid: 10, 11, ..., 99, 100, 110, ..., 990, 1000, ... up to 9.9e11.
std::vector<double> TwoDigitBases();

struct BaseBound {
  int64_t context = 0;         // L
  double base = 0;             // the smallest grid base whose B stays >= 0 over [0, L]; 0: none
  int64_t first_negative = 0;  // where B of that base first turns negative (> L)
};

// The lower bound for each context (ascending, each >= 1) at head dim `d` (even, >= 2).
// Errors: a context or dim out of range. Cost: about 30 L d/2 rotations for the largest L.
Result<std::vector<BaseBound>> BaseLowerBounds(int64_t d, std::span<const int64_t> contexts);

}  // namespace pe
