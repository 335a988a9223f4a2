// The numbers behind the two RoPE views (rotation_view.cpp, frequency_view.cpp), for the
// builders, the table writers and the tests.
//   rotation:    per pair i of the head, (d_rot / 2, 8): pair, dim_a, dim_b, theta, q_a, q_b,
//                r_a, r_b, with r = R_p q for the chosen position p
//   frequencies: per pair, (d_rot / 2, 7): pair, original, scaled, original_wavelength,
//                scaled_wavelength, treatment (0 kept, 1 interpolated, 2 blended), ramp
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
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
  double theta = 0;     // the scaled frequency, radians per position
  double q_a = 0, q_b = 0;
  double r_a = 0, r_b = 0;  // s * (q_a cos(p theta) - q_b sin(p theta), q_a sin + q_b cos)
};

// Every pair of valid RoPE `params`, for the query of `seed` at position `p` (d_rot / 2 rows).
std::vector<RotationRow> RotationRows(const EncodingParams& params, const RopeFrequencies& f,
                                      uint64_t seed, int64_t p);

// The pairs the rotation figure draws: all of them up to `max_shown`, else `max_shown` spread
// evenly over [0, half), always pair 0 and the last pair.
std::vector<int64_t> ShownRotationPairs(int64_t half, int64_t max_shown = 8);

}  // namespace pe
