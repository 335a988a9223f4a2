// The rotary encoding (RoPE) as an Encoding: the cos, sin or angle table HF's rotary module
// returns (LlamaRotaryEmbedding.forward: cos and sin of the angles, times the attention factor,
// each frequency twice), in the pairing's layout:
//   half:        columns [theta_0 .. theta_{h-1}, theta_0 .. theta_{h-1}] (h = d_rot / 2), what
//                rotate_half pairs: dim i with dim i + h
//   interleaved: each frequency twice in a row, dims 2i and 2i + 1 (Meta's Llama, GPT-J)
//   angle:       p * theta_i, (max_len, h), one column per pair
// Frequencies and the attention factor come from rope.h (every scaling).
#pragma once

#include <string>

#include "base/status.h"
#include "encoding/encoding.h"
#include "encoding/rope.h"

namespace pe {

// The columns of the RoPE table `params.rope().part` picks, in its layout (valid params).
std::vector<WaveColumn> RopeColumns(const EncodingParams& params, const RopeFrequencies& f);

// ", yarn x8 (original 2048), attention factor 1.2079442": a rope scaling with what it depends
// on, so a figure's title is enough to regenerate it; empty without one.
std::string RopeScalingText(const EncodingParams& params, double attention_factor);

// The rotary Encoding (valid params).
Result<EncodingPtr> MakeRopeEncoding(const EncodingParams& params);

// The permutation that takes the interleaved layout to the half layout: half column j holds
// interleaved column perm[j] (perm[j] = 2j for j < h, 2(j - h) + 1 after). HF's conversion of
// Meta's Llama weights permutes the rows of W_q and W_k this way, so the two pairings give the
// same attention scores. (d_rot)
std::vector<int64_t> InterleavedToHalfPermutation(int64_t d_rot);

}  // namespace pe
