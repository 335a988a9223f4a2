// ALiBi: attention with linear biases (Press et al. 2022, "Train Short, Test Long"), as an
// Encoding of the bias family. Nothing is added to the tokens; head h adds -m_h * (i - j) to the
// logit of query i and key j, a penalty growing linearly with the distance.
//
// Slopes (reference code: ofirpress/attention_with_linear_biases, get_slopes in
// fairseq/models/transformer.py; HF transformers models/bloom/modeling_bloom.py
// build_alibi_tensor; MPT's gen_slopes with alibi_bias_max, llm-foundry attention.py):
//   n a power of two:  m_k = 2^(-max_bias * k / n), k = 1..n   (max_bias 8: the paper, BLOOM)
//   otherwise, with c the largest power of two below n: the c slopes of c heads, then every
//   other slope of 2c heads (the odd k: 2^(-max_bias * (2k - 1) / (2c)), k = 1..n - c).
// max_bias for a head count that is not a power of two: the exponents of both parts are scaled
// by max_bias / 8, as MPT's gen_slopes does (it builds the 2c slopes with max_bias and takes the
// odd and the even ones); with max_bias 8 this is exactly the reference code and BLOOM.
//
// The natural table is the bias of the chosen head, (max_len, max_len): rows are query positions,
// columns key positions, both offset .. offset + max_len - 1.
//   causal:    -m (i - j) for keys j <= i; keys after the query (j > i) are masked by the causal
//              mask (their logit is -inf). The table holds 0 there so that it stays finite and
//              plottable; Masked() tells them apart and the bias view greys them out.
//   symmetric: -m |i - j| for every pair (bidirectional ALiBi: MPT's build_alibi_bias with
//              full=True).
// BLOOM adds m * j instead (the key position alone, no query), MPT's causal bias m * (j - L + 1):
// each row differs from ours by a constant, which softmax ignores, so all give the same
// attention.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "encoding/encoding.h"

namespace pe {

inline constexpr int64_t kMaxHeads = 4096;

// The slopes of `heads` heads, (heads), head 0 first (heads >= 1, max_bias > 0).
std::vector<double> AlibiSlopes(int64_t heads, double max_bias);
// The base-2 exponent of each slope, (heads): slope k = 2^exponent[k] (for labels: "2^-1.5").
std::vector<double> AlibiSlopeExponents(int64_t heads, double max_bias);

Status ValidateAlibiParams(const EncodingParams& params);
Result<EncodingPtr> MakeAlibiEncoding(const EncodingParams& params);

}  // namespace pe
