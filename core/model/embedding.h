// Token embeddings: a (vocab_size, d_model) table like torch.nn.Embedding, initialised from a
// seed by one of the initialisers of base/initializers.h (N(0, 1) by default, as nn.Embedding;
// random.h has the generator) or filled from explicit values, and row lookup.
#pragma once

#include <cstdint>
#include <span>

#include "base/initializers.h"
#include "base/matrix.h"
#include "base/status.h"

namespace pe {

inline constexpr int64_t kMaxVocab = int64_t{1} << 24;
// The largest table torch:SEED makes, V * d values: its stream is run up to the furthest row used
// (all of it for the last rows), about a second at this size. GPT-2's 50257 x 768 and Llama's
// 32000 x 4096 fit.
inline constexpr int64_t kMaxTorchTableValues = int64_t{1} << 28;

// Entry (row, col) of the seeded N(0, 1) table: RandomNormal(seed, row * d_model + col),
// rounded to float32. The table is the same whatever its vocabulary size.
float EmbeddingValue(uint64_t seed, int64_t d_model, int64_t row, int64_t col);
// Entry (row, col) of the table `init` makes from `seed`: InitValue(init, d_model, seed,
// row * d_model + col), rounded to float32. The normal initialisers scale the same N(0, 1)
// stream, so the tables of one seed differ by a factor only; normal-1 is EmbeddingValue.
float EmbeddingValue(EmbeddingInit init, uint64_t seed, int64_t d_model, int64_t row, int64_t col);

// The (vocab_size, d_model) table for `seed`, or an error for sizes out of range or over `cap`.
Result<Matrix> InitEmbeddingNormal(int64_t vocab_size, int64_t d_model, uint64_t seed,
                                   const MemoryCap& cap = {});
// The same with any initialiser (`torch_kernel` picks kTorch's kernel, base/torch_random.h).
Result<Matrix> InitEmbedding(EmbeddingInit init, int64_t vocab_size, int64_t d_model, uint64_t seed,
                             const MemoryCap& cap = {},
                             TorchKernel torch_kernel = TorchKernel::kAvx2);

// Rows `rows` (each in [0, vocab_size)) of the (vocab_size, d_model) table `init` makes:
// (rows.size(), d_model). The counter-based initialisers give EmbeddingValue(init, seed, ...)
// whatever V; kTorch (seed = the torch seed) gives rows of torch.manual_seed(seed);
// nn.Embedding(V, d).weight, which depend on V (base/torch_random.h), with torch's kernel
// `torch_kernel`, and refuses V * d > kMaxTorchTableValues with a message naming --init and
// --vocab-size.
Result<Matrix> EmbeddingRows(EmbeddingInit init, uint64_t seed, int64_t vocab_size, int64_t d_model,
                             std::span<const int64_t> rows, const MemoryCap& cap = {},
                             TorchKernel torch_kernel = TorchKernel::kAvx2);

// Ok when every id is in [0, vocab_size); else an error naming the first id outside.
Status CheckIds(int64_t vocab_size, std::span<const int64_t> ids);

// Rows of `table` (V, d) for `ids` (n): (n, d). An id outside [0, V) is an error naming it.
Result<Matrix> LookupRows(const Matrix& table, std::span<const int64_t> ids);

}  // namespace pe
