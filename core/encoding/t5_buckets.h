// T5 relative position buckets (Raffel et al. 2020) with a per-head bias per bucket.
//
// The bucket of a relative position r = key - query follows HF transformers
// T5Attention._relative_position_bucket (models/t5/modeling_t5.py, itself from Mesh TensorFlow):
//   bidirectional (encoder): half = buckets / 2 buckets per side; keys after the query (r > 0)
//                            add half; the distance is |r|
//   causal (decoder):        the distance is max(-r, 0) (keys after the query share bucket 0)
//   with max_exact = half / 2 (bidirectional) or buckets / 2 (causal) and n the buckets of a side:
//     distance < max_exact: its own bucket
//     otherwise:            min(max_exact + int(log(distance / max_exact) /
//                                              log(max_distance / max_exact) * (n - max_exact)),
//                               n - 1)
//   The large branch is computed in float32 as HF does on the CPU (relative_position.float(),
//   torch.log in float32, the Python-double log(max_distance / max_exact) rounded to float32,
//   true division, then .to(long), which truncates), so bucket edges fall where HF's do. It
//   matters where the quotient is a whole number: 20 buckets, max distance 160, r = -10 gives
//   log(2) / log(32) * 5 = 1 in float32 (bucket 6) but 0.99999... in double (bucket 5).
// Golden (bidirectional, 32 buckets, max distance 128): -8 -> 8, -90 -> 14, -91 -> 15, +1 -> 17,
// +12 -> 25, +91 -> 31; bucket 16 is never used (r = 0 takes bucket 0).
//
// The bias of each (head, bucket) is a learned embedding (relative_attention_bias, (buckets,
// heads)) in a real model. Until weights are loaded it is seeded noise:
//   bias(head, bucket) = float32(RandomNormal(T5BiasStream(seed), head * buckets + bucket)),
// a stream derived from the seed that differs from the token-embedding and learned-position
// tables of the same seed.
//
// The natural table is the bias of the chosen head, (max_len, max_len): row = query position,
// column = key position (both offset .. offset + max_len - 1), cell = bias(head, bucket(k - q)).
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "encoding/encoding.h"

namespace pe {

// The bucket of `relative_position` (= key - query), as HF's _relative_position_bucket (valid
// arguments: ValidateT5Params).
int64_t T5Bucket(int64_t relative_position, bool bidirectional, int64_t buckets,
                 int64_t max_distance);
// The largest distance that still has a bucket of its own: buckets / 4 (bidirectional) or
// buckets / 2 (causal).
int64_t T5MaxExact(bool bidirectional, int64_t buckets);

// The distances d = 1 .. last_distance of one side (side +1: keys after the query, r = d;
// -1: keys before it, r = -d) cut into runs of one bucket, nearest first. (at most buckets runs)
struct T5BucketRun {
  int64_t first = 1, last = 1;  // distances
  int64_t bucket = 0;
};
std::vector<T5BucketRun> T5BucketRuns(const T5Params& t5, int side, int64_t last_distance);

uint64_t T5BiasStream(uint64_t seed);
// The seeded bias of `bucket` for `head` (float32 value, as a model's weight).
float T5BucketBias(const T5Params& t5, int64_t head, int64_t bucket);

Status ValidateT5Params(const EncodingParams& params);
Result<EncodingPtr> MakeT5Encoding(const EncodingParams& params);

}  // namespace pe
