// The input layer's inner loops, one per SimdPath (base/simd_path.h): the scaled sum of
// embedding and positional rows and inverted dropout. Every path computes the same float32
// values bit for bit: the sum is a rounded product then a rounded add (no fused multiply-add),
// and the dropout mask is the counter-based draw of base/random.h. Callers check their inputs
// and pick the path (input_layer.cpp); nothing here allocates or fails.
#pragma once

#include <cstdint>

#include "base/simd_path.h"

namespace pe {

// Inverted dropout with probability p, prepared once. Value k is dropped when
// RandomUniform(seed, k) <= p. That uniform is (m + 1) * 2^-53 with m = RandomBits >> 11, so the
// test is exactly the integer m < floor(p * 2^53), i.e. RandomBits(seed, k) < bound with
// bound = floor(p * 2^53) * 2^11: no shift and no conversion to double per value.
struct DropoutPlan {
  bool active = false;      // 0 < p: some values may drop
  bool all = false;         // p >= 1: every value becomes 0
  float keep_scale = 1.0f;  // 1 / (1 - p), rounded once to float32
  uint64_t bound = 0;
  uint64_t seed = 0;
};
DropoutPlan MakeDropoutPlan(double p, uint64_t seed);

// values[k] = dropped(first + k) ? 0 : values[k] * keep_scale, for k in [0, n).
void DropoutKernel(SimdPath path, float* values, int64_t n, const DropoutPlan& plan,
                   uint64_t first);

// One batch of the forward pass: rows [first, last) of out (batch * seq, d),
//   out[bt, j] = dropout_{bt * d + j}(table[ids[bt], j] * scale + pe_rows[bt % seq, j]).
// `stream`: write with non-temporal stores where the path has them (the output is larger than
// the caches and is not read back soon).
struct ForwardArgs {
  const float* table = nullptr;    // (V, d)
  const int64_t* ids = nullptr;    // (batch * seq), every id in [0, V)
  const float* pe_rows = nullptr;  // (seq, d)
  float* out = nullptr;            // (batch * seq, d)
  int64_t seq = 0;
  int64_t d = 0;
  float scale = 1.0f;
  DropoutPlan dropout;  // inactive in eval mode
  bool stream = false;
  // The order rows are visited in: with block = P > 0, positions in blocks of P (the last may
  // be shorter), and within a block each batch row's P positions in turn, so row index r of
  // block k is (b, t) = (i / p, kP + i % p) with i = r - kPb and p the block's positions; with
  // block = 0, memory order (r = b seq + t). The kernels' [first, last) are row indices.
  int64_t batch = 1;
  int64_t block = 0;
};
// The output row (b seq + t) that row index r stands for.
inline int64_t OutputRow(const ForwardArgs& a, int64_t r) {
  if (a.block <= 0) return r;
  const int64_t span = a.block * a.batch;
  const int64_t blk = r / span, t0 = blk * a.block;
  const int64_t p = a.seq - t0 < a.block ? a.seq - t0 : a.block;
  const int64_t within = r - blk * span;
  return (within / p) * a.seq + t0 + within % p;
}
void ForwardRowsKernel(SimdPath path, const ForwardArgs& args, int64_t first, int64_t last);

}  // namespace pe
