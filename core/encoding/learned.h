// Learned absolute position embeddings: a (max_len, d) table looked up by position and added
// to the token embeddings (GPT-2's wpe, BERT's position_embeddings). Before training the table
// is noise from its initialiser, which is what this scheme shows until a trained table is
// loaded from a file: the table is held behind a pointer so a loaded one fits the same object.
#pragma once

#include <cstdint>

#include "base/matrix.h"
#include "base/status.h"
#include "encoding/encoding.h"

namespace pe {

// The standard deviation of the table's values for a width-d table (InitStd of
// base/initializers.h): 0.02 (GPT-2 and BERT's initializer_range, as in HF
// GPT2PreTrainedModel._init_weights and BertPreTrainedModel._init_weights), 1
// (torch.nn.Embedding.reset_parameters, normal_ with std 1), d^-0.5 (fairseq) or 0.8796 (Haiku's
// truncated normal).
double LearnedInitStd(LearnedInit init, int64_t d_model);

// Value at table row `row` (position offset + row), column `col` of a width-d table:
// InitValue(init, d, LearnedStream(seed), row_position * d + col) (for the normal initialisers
// std * RandomNormal(LearnedStream(seed), ...)), where row_position is the
// absolute position, so the value of a position does not depend on the offset shown. The
// stream is derived from the seed so that it differs from the token-embedding table of the same
// seed (otherwise token id k and position k would get the same vector).
uint64_t LearnedStream(uint64_t seed);
float LearnedValue(const EncodingParams& params, int64_t position, int64_t col);

// With a loaded table (LearnedParams::table): ok when its columns are d_model and it has the
// rows offset .. offset + max_len - 1; else an error naming the file, the flag and the limit.
Status CheckLearnedTable(const EncodingParams& params);

// The learned Encoding (valid params); its table must fit under `cap`. A loaded table's rows
// offset .. offset + max_len - 1 are the table shown (position p is the file's row p).
Result<EncodingPtr> MakeLearnedEncoding(const EncodingParams& params, const MemoryCap& cap,
                                        const Progress& progress = {});

}  // namespace pe
