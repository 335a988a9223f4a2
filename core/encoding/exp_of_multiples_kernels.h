// The vector kernels behind ExpOfMultiples (encoding/wave.h), one per instruction set, each in a
// file of its own compiled for that instruction set (-mavx2 -mfma, -mavx512f -mavx512dq):
// SLEEF declares its vector functions only when the compiler targets their instruction set, so
// they cannot live beside portable code. Those files include no C++ library header (no inline
// function of theirs could be merged into portable code by the linker). Call them only on a
// processor that has the instruction set (ActiveSimdPath).
#pragma once

#include <cstdint>

namespace pe::simd_kernels {

// re[l] + i im[l] = e^{i m w[l]} for l in [0, n), as ExpOfMultiple computes it (the exact product
// m w reduced Cody-Waite), with SLEEF's 1.0-ulp vector sincos for the reduced angle.
void ExpOfMultiplesAvx2(double m, const double* w, int64_t n, double* re, double* im);
void ExpOfMultiplesAvx512(double m, const double* w, int64_t n, double* re, double* im);

}  // namespace pe::simd_kernels
