// xPos (Sun et al. 2023, "A Length-Extrapolatable Transformer"): RoPE with a per-pair
// exponential decay, as torchscale's XPOS module (torchscale/component/xpos_relative_position.py)
// builds it.
//
// For head dimension d and pair i in [0, d/2):
//   w_i    = theta^(-2i/d)                  the rotation frequency. torchscale's
//            fixed_pos_embedding takes 1 / 10000^(arange(0, dim) / dim) with dim = d/2 (it is
//            called on the (positions, d/2) scale tensor), i.e. 10000^(-i/(d/2)) = 10000^(-2i/d):
//            the same ladder as RoPE, with theta fixed at 10000 there (a parameter here).
//   zeta_i = (2i + 0.4 d) / (1.4 d)         torchscale's `scale` buffer, (arange(0, d, 2) +
//            0.4 d) / (1.4 d): from 0.2857 (2/7, any d) for pair 0 up to (d - 2 + 0.4 d) / (1.4 d).
//   pairs (2i, 2i + 1): the interleaved pairing (rotate_every_two, duplicate_interleave).
//
// A query at position m is rotated by m w_i and multiplied by zeta_i^(m' / scale_base); a key
// at position n is rotated by n w_i and multiplied by zeta_i^(-n' / scale_base) (torchscale's
// downscale=True), so q_m . k_n = sum_i zeta_i^((m - n) / scale_base) (rotation by (m - n) w_i)
// depends only on m - n, and far keys are damped (zeta_i < 1).
//
// The decay position m' (n'): torchscale rotates by the absolute position (arange(0, length +
// offset)) but raises zeta to the centred position min_pos + k, min_pos = -(length + offset) // 2
// (Python floor division: -ceil((length + offset) / 2)). XposParams::positions picks:
//   kAbsolute: n' = n, the paper's formula (default)
//   kCentred:  n' = n + XposCentreShift(params), torchscale's for a table of length max_len
//              after `offset` earlier positions (XPOS.forward(x, offset) with x of max_len rows)
// The shift multiplies each query pair by the constant zeta_i^(shift / scale_base) and each key
// pair by its inverse, so attention scores are the same either way; only the table differs.
//
// The natural table, (rows, cols), row r at position offset + r:
//   cos, sin: (max_len, d), cos(n w_i) or sin(n w_i) times the chosen side's decay, each pair's
//             value twice in a row (torchscale's duplicate_interleave of sin * scale, cos * scale)
//   angle:    (max_len, d/2), n w_i (no decay: the decay is not an angle)
// Values are computed in double and rounded once to float32. Where the decay leaves float32's
// range torchscale's float32 arithmetic gives inf (growing side) or 0 (shrinking side). Here the
// shrinking side rounds to 0 (and subnormals) as float32 does, and a table whose growing side
// would pass FLT_MAX is refused by ValidateXposParams (max_len is named with its limit), so a
// table never holds inf. With absolute positions the query table only shrinks (n >= 0), so it
// takes any max_len; the key table, and both centred tables, are limited to about
// 70.8 * scale_base positions of growth (ln FLT_MAX / -ln(2/7)).
//
// waves() returns the rotation's wave columns (cos/sin of n w_i, or the angle); the cos / sin
// table is those waves times the decay, which ValueAt includes.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "encoding/encoding.h"

namespace pe {

// zeta_i = (2i + 0.4 d) / (1.4 d), computed in double.
double XposZeta(int64_t d, int64_t i);
// The shift from the absolute position to the decay position: 0 for kAbsolute,
// floor(-(max_len + offset) / 2) for kCentred (valid params).
int64_t XposCentreShift(const EncodingParams& params);
// theta^(-2i/d), as RoPE computes it (long double exponent, rounded once).
double XposFrequency(double theta, int64_t d, int64_t i);

Status ValidateXposParams(const EncodingParams& params);
Result<EncodingPtr> MakeXposEncoding(const EncodingParams& params);

}  // namespace pe
