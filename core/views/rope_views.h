// The numbers behind the rotation and frequencies views (rotation_view.cpp,
// frequency_view.cpp), for the builders, the table writers and the tests.
//   rotation:    RoPE: per pair i of the head, (d_rot / 2, 8): pair, dim_a, dim_b, theta, q_a,
//                q_b, r_a, r_b, with r = R_p q for the chosen position p
//                sinusoidal: per sin/cos pair, (pairs, 11): pair, dim_a, dim_b, frequency,
//                angle, pe_a, pe_b, r_a, r_b, pe_k_a, pe_k_b, with r = R(K) PE(p) and
//                pe_k = PE(p + K) for the chosen position p and offset K
//   frequencies: per pair, (d_rot / 2, 7): pair, original, scaled, original_wavelength,
//                scaled_wavelength, treatment (0 kept, 1 interpolated, 2 blended), ramp
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "encoding/encoding.h"
#include "encoding/encoding_params.h"
#include "encoding/rope.h"

namespace pe {

struct ViewSelection;

// The rotation view's position p: sel.rotation_position, or first + 10 clamped to the table's
// positions when it is -1. An error names the table's positions when p lies outside them.
Result<int64_t> RotationPosition(const ViewSelection& sel, const EncodingParams& params);

// The generator stream of the rotation view's query: the example seed hashed with the bytes of
// "query", so q is neither a row of the token embeddings (the seed itself) nor of a learned
// position table (the seed with "position"). q_j = RandomNormal(RotationQueryStream(seed), j).
uint64_t RotationQueryStream(uint64_t seed);

// The two dims of pair i: (i, i + d_rot/2) for the half pairing, (2i, 2i + 1) interleaved.
struct PairDims {
  int64_t a = 0, b = 0;
};
PairDims RopePairDims(RopePairing pairing, int64_t d_rot, int64_t pair);

struct RotationRow {
  int64_t pair = 0;
  PairDims dims;
  double theta = 0;  // the scaled frequency, radians per position
  double q_a = 0, q_b = 0;
  double r_a = 0, r_b = 0;  // s * (q_a cos(p theta) - q_b sin(p theta), q_a sin + q_b cos)
};

// Every pair of valid RoPE `params`, for the query of `seed` at position `p` (d_rot / 2 rows).
std::vector<RotationRow> RotationRows(const EncodingParams& params, const RopeFrequencies& f,
                                      uint64_t seed, int64_t p);

// The pairs the rotation figure draws: all of them up to `max_shown`, else `max_shown` spread
// evenly over [0, half), always pair 0 and the last pair.
std::vector<int64_t> ShownRotationPairs(int64_t half, int64_t max_shown = 8);

// ---- sinusoidal: PE(p + K) = R(K) PE(p) ---------------------------------------------------
//
// One sin/cos pair of a sinusoidal table, (amp sin(p w), amp cos(p w)), is a point on a circle
// of radius |amp| that turns by w per position. By the angle-addition formulas
//   sin((p + K) w) = sin(p w) cos(K w) + cos(p w) sin(K w)
//   cos((p + K) w) = cos(p w) cos(K w) - sin(p w) sin(K w)
// so with c = cos(K w), s = sin(K w), on the pair's dims (a, b), a < b in the table:
//   sin first (a holds sin): R(K) = [[c, s], [-s, c]]  (turns clockwise with a across, b up)
//   cos first (a holds cos): R(K) = [[c, -s], [s, c]]  (turns counter-clockwise)
// whatever the layout (interleaved paper: (2i, 2i + 1); t2t and tf-text halves: (i, i + h)).
// R(K) depends on K only, not on p: the reason a model can read relative offsets from
// sinusoidal positions (Vaswani et al. 2017, section 3.5).
struct SinusoidRotationRow {
  int64_t pair = 0;
  PairDims dims;                  // a < b
  bool sin_first = true;          // dim a holds the sine
  double frequency = 0;           // w_i, radians per position
  double angle = 0;               // K w_i, radians
  double c = 1, s = 0;            // cos(K w_i), sin(K w_i)
  double pe_a = 0, pe_b = 0;      // PE(p) at dims a and b, as the table holds them (float32)
  double r_a = 0, r_b = 0;        // R(K) PE(p), in double
  double pe_k_a = 0, pe_k_b = 0;  // PE(p + K), as the table would hold them (float32)
};

// Every pair of a sinusoidal `encoding` that has both a sine and a cosine column (the paper's
// and tf-text's odd last sine and t2t's zero column have no partner and are left out), in pair
// order, at position `p` with offset `k`.
std::vector<SinusoidRotationRow> SinusoidRotationRows(const Encoding& encoding, int64_t p,
                                                      int64_t k);

}  // namespace pe
