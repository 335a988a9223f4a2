// The transformer input layer, as in the tutorials' PyTorch module and llm.c's encoder_forward:
//   x[t, :] = dropout(E[id_t, :] * (scale ? sqrt(d) : 1) + PE[offset + t, :])
// with every intermediate kept so the app can show and export it. Float32 storage; the norms
// are accumulated in double.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/initializers.h"
#include "base/matrix.h"
#include "base/status.h"
#include "encoding/encoding.h"
#include "text/subword_tokenizer.h"
#include "text/tokenizer.h"

namespace pe {

struct InputLayerParams {
  bool scale = true;     // multiply embeddings by sqrt(d_model) (paper section 3.4)
  double dropout = 0.0;  // p in [0, 1], applied to the sum in train mode (inverted dropout)
  uint64_t dropout_seed = 0;
  bool train = false;  // eval mode makes dropout the identity, as nn.Dropout.eval()
  // The positional table the code adds stayed zero (the JAX notebook's `pe.at[].set()` whose
  // result is never kept): the positional part is zero and the sum is the scaled embedding
  // alone. Set by the jax-pitfall walkthrough preset only.
  bool pe_discarded = false;
  bool operator==(const InputLayerParams&) const = default;
};

Status ValidateInputLayerParams(const InputLayerParams& params);

enum class Part { kEmbedding, kScaled, kPositional, kSum };
inline constexpr Part kAllParts[] = {Part::kEmbedding, Part::kScaled, Part::kPositional,
                                     Part::kSum};
std::string_view PartName(Part part);  // "embedding", "scaled", "positional", "sum"

struct InputParts {
  Matrix embedding;   // (T, d) E[id_t]
  Matrix scaled;      // (T, d) E[id_t] * sqrt(d), or E[id_t] with scaling off
  Matrix positional;  // (T, d) PE[offset + t]
  Matrix sum;         // (T, d) dropout(scaled + positional)
  int64_t tokens() const { return embedding.rows; }
  const Matrix& part(Part p) const;
  // Euclidean norm of one token's part, in double.
  double Norm(Part p, int64_t t) const;
  // |scaled| / |positional| for token t: how much the meaning outweighs the position.
  double ScaledToPositionalRatio(int64_t t) const;
};

// Inverted dropout in place: each of n values is kept with probability 1 - p and scaled by
// 1 / (1 - p), else zeroed; value k draws RandomUniform(seed, first_index + k). p = 1 zeroes all.
// Runs on ActiveSimdPath() (base/simd_path.h); every path gives the same bits.
void ApplyDropout(float* values, int64_t n, double p, uint64_t seed, uint64_t first_index);

// Scale, add and drop out given embeddings and positional rows, both (T, d). Value k of the sum
// draws its dropout from RandomUniform(dropout_seed, dropout_first + k).
Result<InputParts> CombineInputParts(Matrix embedding, Matrix positional,
                                     const InputLayerParams& params, uint64_t dropout_first = 0);

// The parts for ids (T) looked up in `table` (V, d) with the positional rows of `pe`
// (T <= max_len). The encoding must add to the embeddings (Family::kAdded). The EncodingParams
// overloads build the encoding first.
Result<InputParts> ComputeInputParts(const Matrix& table, std::span<const int64_t> ids,
                                     const Encoding& pe, const InputLayerParams& params);
Result<InputParts> ComputeInputParts(const Matrix& table, std::span<const int64_t> ids,
                                     const EncodingParams& pe, const InputLayerParams& params);

// The batched forward pass for ids (batch, seq), the way a model runs it: (batch * seq, d).
// Dropout draws value k of the output from RandomUniform(dropout_seed, k).
Result<Matrix> InputLayerForward(const Matrix& table, std::span<const int64_t> ids, int64_t batch,
                                 int64_t seq, const Encoding& pe, const InputLayerParams& params,
                                 const MemoryCap& cap = {});
Result<Matrix> InputLayerForward(const Matrix& table, std::span<const int64_t> ids, int64_t batch,
                                 int64_t seq, const EncodingParams& pe,
                                 const InputLayerParams& params, const MemoryCap& cap = {});

// The unchecked kernel of InputLayerForward, for callers that own their buffers (benchmarks):
// out[b, t, :] = dropout(table[ids[b, t], :] * scale + pe_rows[t, :]) with ids (batch, seq)
// already checked against the table, pe_rows (seq, d), out (batch * seq, d). Uses all cores
// for large outputs; dropout draws value k of `out` from RandomUniform(dropout_seed, k). Runs on
// ActiveSimdPath() (base/simd_path.h; PE_SIMD=scalar|avx2|avx512 forces one); every path gives
// the same bits. The vector paths write outputs of 8 MiB and more around the caches (kBySize;
// tests force either kind of store).
enum class OutputStores { kBySize, kCached, kStreamed };
void InputLayerForwardInto(const Matrix& table, std::span<const int64_t> ids, int64_t batch,
                           int64_t seq, const float* pe_rows, const InputLayerParams& params,
                           float* out, OutputStores stores = OutputStores::kBySize);

// A sentence run through tokenizer, vocabulary, seeded embeddings and the input layer.
struct TextExample {
  std::string text = "The cat sits on the mat";
  TokenizerKind tokenizer = TokenizerKind::kWord;
  uint64_t seed = 0;  // embedding table seed
  // The embedding table's initialiser (base/initializers.h); N(0, 1) as torch.nn.Embedding.
  EmbeddingInit init = EmbeddingInit::kNormal1;
  // The seed of init = kTorch (--init torch:SEED): torch.manual_seed(torch_seed), then
  // nn.Embedding(V, d). `seed` does not enter that table.
  uint64_t torch_seed = 0;
  // Which of torch's kernels draws it (--init torch:SEED AVX2, torch-scalar:SEED scalar).
  TorchKernel torch_kernel = TorchKernel::kAvx2;
  std::vector<std::string> vocabulary;  // fixed vocabulary; empty: built from the text
  // More tokens than max_len: keep the first max_len, as a model truncates its input (true), or
  // refuse with a message (false, the default: a script should hear about it).
  bool truncate = false;
  // Token ids typed directly instead of text: one row for a sequence, several for a batch
  // (model/token_ids.h). Empty: the ids come from the text. vocab_size V: every id must be in
  // [0, V); 0: V is max id + 1 for typed ids, the size of the text's vocabulary for text.
  std::vector<std::vector<int64_t>> ids;
  int64_t vocab_size = 0;
  // A real subword tokenizer (--tokenizer-file: a tokenizer.json or a GPT-2 folder) replaces
  // `tokenizer` when set: the ids are that tokenizer's and V its size. `subword` is what
  // LoadSubwordTokenizer read from `tokenizer_file` (shared: examples are copied freely).
  std::string tokenizer_file;
  std::shared_ptr<const SubwordTokenizer> subword;  // null until the load step reads the file
  // Whether the subword tokenizer's post-processor adds its tokens ([CLS] ... [SEP], <s>):
  // kAdd, the default, is what a model sees (--special-tokens).
  SpecialTokens special_tokens = SpecialTokens::kAdd;
  // --text-file: a file whose text replaces `text` when the load step reads it (then reset).
  std::optional<std::string> text_file;
  // A token-embedding table loaded from a file (--embeddings, (V, d_model)); empty: the seeded
  // table of `init` and `seed`. Typed ids and the text's ids index its rows; a word-vector
  // file's words name its rows instead, and the text's words are looked up (LoadedTable::
  // FindWord); a word it lacks takes the file's "<unk>" row when it has one, else a zero row
  // (id V, one past the file's rows), and is listed in SentenceResult::unknown_tokens.
  TableRef embeddings;
  // Embedding rows typed by hand (a tutorial's printed table, --embedding-rows): E[k] = row k,
  // each d_model wide, and every id must be below their count. Empty: E from init and seed.
  std::vector<std::vector<float>> embedding_rows;
  // Positional rows typed by hand (a tutorial's printed rows, --positional-rows): the token at
  // position p gets P[p] = row p in place of the scheme's row, each d_model wide; every position
  // used must be typed. Empty: the scheme's rows. The PE table views still show the scheme.
  std::vector<std::vector<float>> positional_rows;
  bool operator==(const TextExample&) const = default;
};

struct SentenceResult {
  std::vector<Token> tokens;  // typed ids are labelled "id 23"
  Vocabulary vocabulary;      // empty for typed ids
  std::vector<int64_t> ids;   // (T)
  int64_t vocab_size = 0;     // V: the ids are in [0, V)
  int64_t row = 0;            // the batch row of typed ids (0 for text)
  int64_t batch = 1;          // rows of typed ids (1 for text)
  InputParts parts;
  int64_t dropped_tokens = 0;  // tokens cut off after max_len (TextExample::truncate)
  // Tokens (indices into `tokens`) a loaded word-vector table has no row for: their embedding
  // is the "<unk>" row or zeros (TextExample::embeddings).
  std::vector<int64_t> unknown_tokens;
};

// Batch rows of the example: the rows of typed ids, or 1 for text.
int64_t ExampleBatch(const TextExample& example);
// Tokens of one row before any truncation: the text's, or the typed ids' row length.
int64_t ExampleTokenCount(const TextExample& example);
// The tokens of batch row `row` (clamped to the batch): the text's tokens, or the typed ids
// labelled "id 23".
std::vector<Token> ExampleTokens(const TextExample& example, int64_t row = 0);
// The ids of batch row `row`, checked: the text's ids in its vocabulary (built in order of first
// appearance unless fixed), or the typed ids, every row of which must be in [0, V)
// (token_ids.h: an error names the id, its place and V). `vocab_size` (may be null) gets V.
Result<std::vector<int64_t>> ExampleIds(const TextExample& example, int64_t row = 0,
                                        int64_t* vocab_size = nullptr);

// The embedding table comes from `example.init` and `example.seed` (embedding.h); only the rows
// used are made. With typed ids, batch row `row` (in [0, ExampleBatch)) is computed, at
// positions offset .. offset + T - 1 like every row; row b's dropout draws continue the
// batch's flat (batch * T, d) order, as InputLayerForward. No tokens is not an error: T = 0.
// The four (T, d) parts must fit under `cap` together, else an error says how much they need.
Result<SentenceResult> ComputeSentence(const TextExample& example, const Encoding& pe,
                                       const InputLayerParams& params, const MemoryCap& cap = {},
                                       int64_t row = 0);
Result<SentenceResult> ComputeSentence(const TextExample& example, const EncodingParams& pe,
                                       const InputLayerParams& params, const MemoryCap& cap = {},
                                       int64_t row = 0);
// Rows `rows` of the example's (vocab_size, d) embedding table (EmbeddingRows with the
// example's initialiser and seed: torch_seed for kTorch, else seed): (rows.size(), d).
Result<Matrix> ExampleEmbeddingRows(const TextExample& example, int64_t vocab_size, int64_t d,
                                    std::span<const int64_t> rows, const MemoryCap& cap = {});
// Every batch row (one for text); the parts of all rows must fit under `cap` together.
Result<std::vector<SentenceResult>> ComputeBatch(const TextExample& example, const Encoding& pe,
                                                 const InputLayerParams& params,
                                                 const MemoryCap& cap = {});

}  // namespace pe
