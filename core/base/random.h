// A counter-based generator that gives the same numbers on every compiler and platform
// (std::normal_distribution does not: its algorithm is left to each standard library).
//
// Bits(seed, k)    = SplitMix64 finaliser of (seed + (k + 1) * 0x9E3779B97F4A7C15)
// Uniform(seed, k) = ((Bits(seed, k) >> 11) + 1) * 2^-53, in (0, 1]
// Normal(seed, k)  = sqrt(-2 ln Uniform(seed, 2k)) * cos(2 pi Uniform(seed, 2k + 1))   (Box-Muller)
// Being counter-based, element k of a stream is computed on its own: any row of a huge
// embedding table costs the same, and nothing depends on the order of evaluation.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

namespace pe {

// Element `counter`'s state before the finaliser; the vector kernels start their lanes from it.
constexpr uint64_t RandomState(uint64_t seed, uint64_t counter) {
  return seed + (counter + 1) * 0x9E3779B97F4A7C15ull;
}

constexpr uint64_t RandomBits(uint64_t seed, uint64_t counter) {
  uint64_t z = RandomState(seed, counter);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr double RandomUniform(uint64_t seed, uint64_t counter) {
  return static_cast<double>((RandomBits(seed, counter) >> 11) + 1) * 0x1.0p-53;
}

inline double RandomNormal(uint64_t seed, uint64_t counter) {
  const double u1 = RandomUniform(seed, 2 * counter);
  const double u2 = RandomUniform(seed, 2 * counter + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace pe
