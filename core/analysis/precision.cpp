#include "analysis/precision.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace pe {

uint16_t Bf16Bits(float v) {
  const auto bits = std::bit_cast<uint32_t>(v);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) {
    // NaN: keep the sign and the top payload bits, set the quiet bit so it stays a NaN.
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  }
  // Round to nearest even on the 16 bits dropped: add just under half a unit, plus one when
  // the kept part is odd (a tie then carries). A carry out of the significand steps the
  // exponent, and out of the largest finite value gives inf, as IEEE rounding does.
  const uint32_t kept_lsb = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7FFFu + kept_lsb) >> 16);
}

float Bf16ToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t Fp16Bits(float v) {
  const auto bits = std::bit_cast<uint32_t>(v);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) {
    // NaN: quiet, with the top 9 payload bits.
    return static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x01FFu));
  }
  if (abs == 0x7F800000u) return static_cast<uint16_t>(sign | 0x7C00u);
  const int exponent = static_cast<int>(abs >> 23) - 127;  // of a float32 normal
  if (exponent >= -14) {
    // Normal range of float16 (or beyond it): keep 10 of the 23 significand bits, round to
    // nearest even; a carry steps the exponent and, past 65504, lands exactly on inf (0x7C00).
    if (exponent > 15) return static_cast<uint16_t>(sign | 0x7C00u);
    uint32_t h = (static_cast<uint32_t>(exponent + 15) << 10) | ((abs >> 13) & 0x03FFu);
    const uint32_t rest = abs & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  // Below 2^-14: a float16 subnormal, a multiple of 2^-24. The float32 value is
  // significand * 2^(exponent - 23) with the implicit bit; in units of 2^-24 that is
  // significand >> (-exponent - 1). Float32 subnormals and everything below 2^-25 go to zero
  // (2^-25 itself is a tie between 0 and 2^-24 and goes to the even 0).
  const int shift = -exponent - 1;  // 14 .. 126
  if (shift > 24) return sign;
  const uint32_t significand = (abs & 0x007FFFFFu) | 0x00800000u;
  uint32_t q = significand >> shift;
  const uint32_t rest = significand & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (q & 1u))) ++q;  // q = 1024 is the smallest normal
  return static_cast<uint16_t>(sign | q);
}

float Fp16ToFloat(uint16_t bits) {
  const float sign = (bits & 0x8000u) ? -1.0f : 1.0f;
  const int exponent = (bits >> 10) & 0x1F;
  const int significand = bits & 0x03FF;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(significand), -24);
  if (exponent == 31) {
    if (significand == 0) return sign * INFINITY;
    // A NaN keeps its sign and payload in the float32 bits.
    return std::bit_cast<float>((static_cast<uint32_t>(bits & 0x8000u) << 16) | 0x7FC00000u |
                                (static_cast<uint32_t>(significand) << 13));
  }
  return sign * std::ldexp(static_cast<float>(1024 + significand), exponent - 25);
}

float RoundTo(LowPrecision dtype, float v) {
  return dtype == LowPrecision::kBf16 ? Bf16ToFloat(Bf16Bits(v)) : Fp16ToFloat(Fp16Bits(v));
}

int SignificandBits(LowPrecision dtype) {
  return dtype == LowPrecision::kBf16 ? 8 : 11;
}

int64_t LargestExactInteger(LowPrecision dtype) {
  return int64_t{1} << SignificandBits(dtype);
}

float PositionInFormat(LowPrecision dtype, int64_t position) {
  return RoundTo(dtype, static_cast<float>(position));
}

std::optional<int64_t> FirstInexactPosition(LowPrecision dtype, int64_t lo, int64_t hi) {
  // Every integer in [-2^p, 2^p] is exact; beyond it the spacing is 2 or more, so every odd
  // integer is inexact and the scans below take at most two steps in each region.
  const int64_t exact = LargestExactInteger(dtype);
  auto inexact = [&](int64_t p) {
    return static_cast<double>(PositionInFormat(dtype, p)) != static_cast<double>(p);
  };
  for (int64_t p = lo; p <= hi && p < -exact; ++p) {
    if (inexact(p)) return p;
  }
  for (int64_t p = std::max(lo, exact + 1); p <= hi; ++p) {
    if (inexact(p)) return p;
  }
  return std::nullopt;
}

std::optional<int64_t> FirstRepeatedPosition(LowPrecision dtype, int64_t lo, int64_t hi) {
  // Where the spacing of the format is 2 or more, among any three consecutive integers two
  // round to the same value, so a repeat is at most a few steps from where the scan starts.
  // Inside [-2^p, 2^p] every integer is exact and none repeats.
  const int64_t exact = LargestExactInteger(dtype);
  auto repeats = [&](int64_t p) {
    return PositionInFormat(dtype, p) == PositionInFormat(dtype, p - 1);
  };
  const int64_t start = lo + 1;
  for (int64_t p = start; p <= hi && p <= -exact; ++p) {
    if (repeats(p)) return p;
  }
  for (int64_t p = std::max(start, exact + 1); p <= hi; ++p) {
    if (repeats(p)) return p;
  }
  return std::nullopt;
}

}  // namespace pe
