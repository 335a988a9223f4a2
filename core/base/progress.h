// How long work reports how far it is and is stopped: told the fraction done (0..1) between
// steps; returning false stops the work with an error.
#pragma once

#include <functional>

namespace pe {

using Progress = std::function<bool(double fraction)>;

}  // namespace pe
