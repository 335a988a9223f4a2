// Axis ticks at "nice" values (1, 2 or 5 times a power of ten), for the window's plots and for
// exported figures alike.
#pragma once

#include <string>
#include <vector>

namespace pe {

struct Tick {
  double value = 0;
  std::string label;
};

// Ticks inside [lo, hi], about `target` of them (at least 2 when the range allows), with labels
// that have just enough digits to tell neighbours apart. `integer_only` drops fractional steps.
std::vector<Tick> NiceTicks(double lo, double hi, int target, bool integer_only = false);

// The nice step for a range and a target count: 1, 2 or 5 times a power of ten.
double NiceStep(double range, int target);

}  // namespace pe
