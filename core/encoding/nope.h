// NoPE: no positional encoding (Kazemnejad et al. 2023, "The Impact of Positional Encoding on
// Length Generalization in Transformers"), the layers of Llama 4 and SmolLM3 that skip RoPE
// (every fourth one). Nothing is added to the tokens, nothing rotates queries or keys, no bias
// reaches the logits: a query at m and a key at n score x_q . x_k / sqrt(d) whatever m and n
// are. Only a causal mask (keys after the query hidden) gives the model order; the paper shows
// a decoder can recover absolute and relative positions from it.
//
// The natural table is what is added to the token embeddings: all zeros, (max_len, d_model), in
// the added family, so the input layer, the sums and the score views work unchanged and show the
// embeddings alone.
#pragma once

#include "base/status.h"
#include "encoding/encoding.h"

namespace pe {

Result<EncodingPtr> MakeNopeEncoding(const EncodingParams& params);

}  // namespace pe
