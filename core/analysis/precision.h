// What storing float32 numbers in bfloat16 or float16 does to them: IEEE 754 rounding to nearest,
// ties to even, done exactly on the bits (no compiler _Float16, no hardware conversion, so every
// platform gives the same result), and the positions each format holds exactly.
//   bfloat16: 1 sign, 8 exponent, 7 stored significand bits (float32's range, 8 significant bits)
//   float16:  1 sign, 5 exponent, 10 stored significand bits (max 65504, subnormals down to 2^-24)
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/choice_names.h"
#include "model/model_params.h"

namespace pe {

// The --dtype names: model/choice_names.h.

// float32 -> bfloat16 bits, round to nearest even. NaN stays NaN (quiet, sign kept); values past
// the largest finite bfloat16 (3.3895e38) by half a unit or more become +-inf.
uint16_t Bf16Bits(float v);
float Bf16ToFloat(uint16_t bits);  // exact: bfloat16 is the top half of a float32
// float32 -> float16 bits, round to nearest even, with float16 subnormals (multiples of 2^-24);
// |v| >= 65520 (65504 plus half a unit) becomes +-inf; NaN stays NaN (quiet, sign kept).
uint16_t Fp16Bits(float v);
float Fp16ToFloat(uint16_t bits);  // exact: every float16 is a float32

// v stored in the format and read back as float32.
float RoundTo(LowPrecision dtype, float v);

// Significant bits p (implicit bit included): 8 for bfloat16, 11 for float16. Every integer of
// magnitude up to 2^p is exact (256, 2048); 2^p + 1 is the first that is not.
int SignificandBits(LowPrecision dtype);
int64_t LargestExactInteger(LowPrecision dtype);

// Position p as a model computes it in the format: the integer goes through float32 first (as
// torch.arange(L, dtype=...) and an int64 -> bfloat16 cast do; exact below 2^24), then it is
// rounded to the format. Infinite when it overflows (float16 from 65520).
float PositionInFormat(LowPrecision dtype, int64_t position);
// The first p in [lo, hi] that the format does not hold exactly, or nothing.
std::optional<int64_t> FirstInexactPosition(LowPrecision dtype, int64_t lo, int64_t hi);
// The first p in (lo, hi] whose position in the format equals that of p - 1 (rows computed from
// such positions repeat), or nothing.
std::optional<int64_t> FirstRepeatedPosition(LowPrecision dtype, int64_t lo, int64_t hi);

}  // namespace pe
