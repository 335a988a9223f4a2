#include "model/input_layer.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "base/simd_path.h"
#include "io/loaded_table.h"
#include "model/embedding.h"
#include "model/input_layer_kernels.h"
#include "model/token_ids.h"

namespace pe {

Status ValidateInputLayerParams(const InputLayerParams& p) {
  if (!(p.dropout >= 0.0 && p.dropout <= 1.0)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", p.dropout);
    return InvalidArgument(std::string("dropout must be in [0, 1], got ") + buf);
  }
  return {};
}

std::string_view PartName(Part part) {
  switch (part) {
    case Part::kEmbedding:
      return "embedding";
    case Part::kScaled:
      return "scaled";
    case Part::kPositional:
      return "positional";
    case Part::kSum:
      return "sum";
  }
  return "?";
}

const Matrix& InputParts::part(Part p) const {
  switch (p) {
    case Part::kEmbedding:
      return embedding;
    case Part::kScaled:
      return scaled;
    case Part::kPositional:
      return positional;
    case Part::kSum:
      break;
  }
  return sum;
}

double InputParts::Norm(Part p, int64_t t) const {
  const Matrix& m = part(p);
  double acc = 0.0;
  for (int64_t j = 0; j < m.cols; ++j) acc += static_cast<double>(m.at(t, j)) * m.at(t, j);
  return std::sqrt(acc);
}

double InputParts::ScaledToPositionalRatio(int64_t t) const {
  const double pe = Norm(Part::kPositional, t);
  return pe > 0.0 ? Norm(Part::kScaled, t) / pe : INFINITY;
}

void ApplyDropout(float* values, int64_t n, double p, uint64_t seed, uint64_t first_index) {
  DropoutKernel(ActiveSimdPath(), values, n, MakeDropoutPlan(p, seed), first_index);
}

Result<InputParts> CombineInputParts(Matrix embedding, Matrix positional,
                                     const InputLayerParams& params, uint64_t dropout_first) {
  if (Status s = ValidateInputLayerParams(params); !s.ok()) return s.error();
  if (embedding.rows != positional.rows || embedding.cols != positional.cols) {
    return InvalidArgument("embeddings are " + std::to_string(embedding.rows) + " x " +
                           std::to_string(embedding.cols) + " but positional encodings are " +
                           std::to_string(positional.rows) + " x " +
                           std::to_string(positional.cols) + "; they must have the same shape");
  }
  // The JAX pitfall: the table the code adds stayed zero.
  if (params.pe_discarded) std::fill(positional.data.begin(), positional.data.end(), 0.0f);
  InputParts parts;
  parts.scaled = embedding;
  if (params.scale) {
    const float s = static_cast<float>(std::sqrt(static_cast<double>(embedding.cols)));
    for (float& v : parts.scaled.data) v *= s;
  }
  parts.sum = parts.scaled;
  for (size_t k = 0; k < parts.sum.data.size(); ++k) parts.sum.data[k] += positional.data[k];
  if (params.train) {
    ApplyDropout(parts.sum.data.data(), static_cast<int64_t>(parts.sum.data.size()), params.dropout,
                 params.dropout_seed, dropout_first);
  }
  parts.embedding = std::move(embedding);
  parts.positional = std::move(positional);
  return parts;
}

namespace {

// Only schemes that add a vector to each token have a "positional" part to add.
Status CheckAdded(const Encoding& pe) {
  if (pe.family() != Family::kAdded) {
    return InvalidArgument("the " + std::string(SchemeName(pe.scheme())) +
                           " scheme adds nothing to the token embeddings (it rotates queries "
                           "and keys); the input layer is the embeddings alone");
  }
  return {};
}

Status CheckTableWidth(const Matrix& table, const Encoding& pe) {
  if (table.cols != pe.params().d_model) {
    return InvalidArgument("the embedding table has " + std::to_string(table.cols) +
                           " columns but d_model is " + std::to_string(pe.params().d_model));
  }
  return {};
}

// Positional rows for positions offset .. offset + seq - 1: (seq, d).
Matrix PositionalRows(const Encoding& pe, int64_t seq) {
  Matrix m;
  m.rows = seq;
  m.cols = pe.cols();
  m.data.resize(static_cast<size_t>(seq * m.cols));
  pe.FillBlock(0, seq, 0, m.cols, m.data.data());
  return m;
}

Status CheckSequenceFits(int64_t seq, const Encoding& pe) {
  if (seq > pe.rows()) {
    return InvalidArgument("the sequence has " + std::to_string(seq) + " tokens but max_len is " +
                           std::to_string(pe.rows()) + "; raise max_len to at least " +
                           std::to_string(seq));
  }
  return {};
}

}  // namespace

Result<InputParts> ComputeInputParts(const Matrix& table, std::span<const int64_t> ids,
                                     const EncodingParams& pe, const InputLayerParams& params) {
  Result<EncodingPtr> e = MakeEncoding(pe);
  if (!e.ok()) return e.error();
  return ComputeInputParts(table, ids, *e.value(), params);
}

Result<InputParts> ComputeInputParts(const Matrix& table, std::span<const int64_t> ids,
                                     const Encoding& pe, const InputLayerParams& params) {
  if (Status s = CheckAdded(pe); !s.ok()) return s.error();
  if (Status s = CheckTableWidth(table, pe); !s.ok()) return s.error();
  const auto seq = static_cast<int64_t>(ids.size());
  if (Status s = CheckSequenceFits(seq, pe); !s.ok()) return s.error();
  Result<Matrix> embedding = LookupRows(table, ids);
  if (!embedding.ok()) return embedding.error();
  return CombineInputParts(std::move(embedding).value(), PositionalRows(pe, seq), params);
}

Result<Matrix> InputLayerForward(const Matrix& table, std::span<const int64_t> ids, int64_t batch,
                                 int64_t seq, const EncodingParams& pe,
                                 const InputLayerParams& params, const MemoryCap& cap) {
  Result<EncodingPtr> e = MakeEncoding(pe, cap);
  if (!e.ok()) return e.error();
  return InputLayerForward(table, ids, batch, seq, *e.value(), params, cap);
}

Result<Matrix> InputLayerForward(const Matrix& table, std::span<const int64_t> ids, int64_t batch,
                                 int64_t seq, const Encoding& pe, const InputLayerParams& params,
                                 const MemoryCap& cap) {
  if (Status s = CheckAdded(pe); !s.ok()) return s.error();
  if (Status s = ValidateInputLayerParams(params); !s.ok()) return s.error();
  if (batch < 0 || seq < 0 ||
      static_cast<uint64_t>(batch) * static_cast<uint64_t>(seq) != ids.size()) {
    return InvalidArgument("ids hold " + std::to_string(ids.size()) + " values, not batch " +
                           std::to_string(batch) + " x seq " + std::to_string(seq));
  }
  if (Status s = CheckTableWidth(table, pe); !s.ok()) return s.error();
  if (Status s = CheckSequenceFits(seq, pe); !s.ok()) return s.error();
  if (Status s = CheckIds(table.rows, ids); !s.ok()) return s.error();
  const int64_t d = pe.cols();
  Result<Matrix> pe_rows = MakeMatrix("the positional rows", seq, d, cap);
  if (!pe_rows.ok()) return pe_rows;
  pe.FillBlock(0, seq, 0, d, pe_rows.value().data.data());
  if (params.pe_discarded)
    std::fill(pe_rows.value().data.begin(), pe_rows.value().data.end(), 0.0f);
  Result<Matrix> out = MakeMatrix("the input-layer output", batch * seq, d, cap);
  if (!out.ok()) return out;
  InputLayerForwardInto(table, ids, batch, seq, pe_rows.value().data.data(), params,
                        out.value().data.data());
  return out;
}

namespace {
// Outputs of this many bytes or more are written with non-temporal stores (see below).
constexpr int64_t kStreamBytes = int64_t{8} << 20;
// The positional rows of one block of positions take about this much: they stay in the
// second-level cache while the batch's rows of those positions are written.
constexpr int64_t kPositionBlockBytes = int64_t{128} << 10;
}  // namespace

void InputLayerForwardInto(const Matrix& table, std::span<const int64_t> ids, int64_t batch,
                           int64_t seq, const float* pe_rows, const InputLayerParams& params,
                           float* out, OutputStores stores) {
  ForwardArgs args;
  args.table = table.data.data();
  args.ids = ids.data();
  args.pe_rows = pe_rows;
  args.out = out;
  args.seq = seq;
  args.d = table.cols;
  args.scale = params.scale ? static_cast<float>(std::sqrt(static_cast<double>(table.cols))) : 1.0f;
  if (params.train) args.dropout = MakeDropoutPlan(params.dropout, params.dropout_seed);
  const int64_t rows = batch * seq;
  // Output past the caches is written around them (non-temporal stores): nobody reads it back
  // before it would have been evicted, and the stores skip the read for ownership.
  args.stream = stores == OutputStores::kBySize
                    ? rows * table.cols * int64_t{sizeof(float)} >= kStreamBytes
                    : stores == OutputStores::kStreamed;
  // Rows in blocks of positions: for each block, every batch row's run of those positions in
  // memory order. Each positional row is read once per block from the last-level cache rather
  // than once per batch row, and writes go in runs of whole blocks. At 8 x 512 x 1024 (blocks of
  // 32 positions) 15-25% faster than memory order on a Xeon (Cascade Lake), whose last-level
  // cache is slow to read; blocks of 1 to 32 positions measured alike. Each thread takes one
  // contiguous slice of that order.
  args.batch = batch;
  args.block =
      batch > 1 ? std::max<int64_t>(1, kPositionBlockBytes / (table.cols * int64_t{sizeof(float)}))
                : 0;
  const SimdPath path = ActiveSimdPath();
  const int hw = std::max(1, omp_get_max_threads());  // cores, or OMP_NUM_THREADS
  const int64_t threads =
      std::min<int64_t>({static_cast<int64_t>(hw), rows, rows * table.cols / (int64_t{1} << 18)});
  if (threads < 2) {
    ForwardRowsKernel(path, args, 0, rows);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int64_t k = 0; k < threads; ++k) {
    ForwardRowsKernel(path, args, rows * k / threads, rows * (k + 1) / threads);
  }
}

int64_t ExampleBatch(const TextExample& example) {
  return example.ids.empty() ? 1 : static_cast<int64_t>(example.ids.size());
}

namespace {

// The text through the subword tokenizer: readable tokens (raw: the vocabulary's string) and
// their ids.
Result<std::vector<Token>> SubwordTokens(const TextExample& example, std::vector<int64_t>* ids) {
  const SubwordTokenizer& t = *example.subword;
  Result<std::vector<SubwordPiece>> pieces = t.Encode(example.text, example.special_tokens);
  if (!pieces.ok()) return InvalidArgument("--tokenizer-file: " + pieces.message());
  std::vector<Token> tokens;
  tokens.reserve(pieces.value().size());
  for (const SubwordPiece& p : pieces.value()) {
    tokens.push_back({t.DisplayToken(p.id), p.begin, p.end, t.token(p.id)});
    if (ids) ids->push_back(p.id);
  }
  return tokens;
}

// The text's tokens by whichever tokenizer the example names.
std::vector<Token> TextTokens(const TextExample& example) {
  if (!example.subword) return Tokenize(example.text, example.tokenizer);
  Result<std::vector<Token>> tokens = SubwordTokens(example, nullptr);
  return tokens.ok() ? std::move(tokens).value() : std::vector<Token>{};
}

// The ids of the text under a subword tokenizer, and V: the tokenizer's size, or vocab_size
// when given (every id must then be below it).
Result<std::vector<int64_t>> SubwordIds(const TextExample& example, std::vector<Token>* tokens,
                                        int64_t* vocab_size) {
  if (!example.vocabulary.empty()) {
    return InvalidArgument(
        "--vocab and --tokenizer-file cannot be combined: the tokenizer file "
        "has its own vocabulary");
  }
  std::vector<int64_t> ids;
  Result<std::vector<Token>> t = SubwordTokens(example, &ids);
  if (!t.ok()) return t.error();
  const int64_t size = example.subword->size();
  if (example.vocab_size > 0) {
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] >= example.vocab_size) {
        return InvalidArgument("--vocab-size " + std::to_string(example.vocab_size) +
                               " is too small for the text: token " + std::to_string(k) +
                               " has id " + std::to_string(ids[k]) + " (the tokenizer has " +
                               std::to_string(size) + " entries)");
      }
    }
  }
  if (vocab_size) *vocab_size = example.vocab_size > 0 ? example.vocab_size : size;
  if (tokens) *tokens = std::move(t).value();
  return ids;
}

}  // namespace

int64_t ExampleTokenCount(const TextExample& example) {
  if (!example.ids.empty()) return static_cast<int64_t>(example.ids.front().size());
  return static_cast<int64_t>(TextTokens(example).size());
}

namespace {
size_t RowIndex(const TextExample& example, int64_t row) {
  return static_cast<size_t>(std::clamp<int64_t>(row, 0, ExampleBatch(example) - 1));
}
}  // namespace

std::vector<Token> ExampleTokens(const TextExample& example, int64_t row) {
  if (example.ids.empty()) return TextTokens(example);
  std::vector<Token> tokens;
  for (int64_t id : example.ids[RowIndex(example, row)]) {
    tokens.push_back({"id " + std::to_string(id), 0, 0, {}});
  }
  return tokens;
}

namespace {

// The text's vocabulary: fixed, or built from its tokens in order of first appearance.
Result<Vocabulary> TextVocabulary(const TextExample& example, const std::vector<Token>& tokens) {
  if (example.vocabulary.empty()) return Vocabulary::FromTokens(tokens);
  return Vocabulary::FromList(example.vocabulary);
}

// V for the text's ids: vocab_size when given (the text's ids must fit it), else the
// vocabulary's size.
Result<int64_t> TextVocabSize(const TextExample& example, const Vocabulary& vocab,
                              const std::vector<int64_t>& ids) {
  if (example.vocab_size <= 0) return vocab.size();
  for (size_t t = 0; t < ids.size(); ++t) {
    if (ids[t] >= example.vocab_size) {
      return InvalidArgument("--vocab-size " + std::to_string(example.vocab_size) +
                             " is too small for the text: token " + std::to_string(t) + " has id " +
                             std::to_string(ids[t]) + " (the text's vocabulary has " +
                             std::to_string(vocab.size()) + " entries)");
    }
  }
  return example.vocab_size;
}

}  // namespace

Result<std::vector<int64_t>> ExampleIds(const TextExample& example, int64_t row,
                                        int64_t* vocab_size) {
  if (!example.ids.empty()) {
    Result<int64_t> v = IdsVocabSize(example.ids, example.vocab_size);
    if (!v.ok()) return v.error();
    if (Status s = CheckIdBatch(example.ids, v.value()); !s.ok()) return s.error();
    if (vocab_size) *vocab_size = v.value();
    return example.ids[RowIndex(example, row)];
  }
  if (example.subword) return SubwordIds(example, nullptr, vocab_size);
  const std::vector<Token> tokens = Tokenize(example.text, example.tokenizer);
  Result<Vocabulary> vocab = TextVocabulary(example, tokens);
  if (!vocab.ok()) return vocab.error();
  std::vector<int64_t> ids = vocab.value().Ids(tokens);
  Result<int64_t> v = TextVocabSize(example, vocab.value(), ids);
  if (!v.ok()) return v.error();
  if (vocab_size) *vocab_size = v.value();
  return ids;
}

Result<SentenceResult> ComputeSentence(const TextExample& example, const EncodingParams& pe,
                                       const InputLayerParams& params, const MemoryCap& cap,
                                       int64_t row) {
  Result<EncodingPtr> e = MakeEncoding(pe, cap);
  if (!e.ok()) return e.error();
  return ComputeSentence(example, *e.value(), params, cap, row);
}

Result<SentenceResult> ComputeSentence(const TextExample& example, const Encoding& encoding,
                                       const InputLayerParams& params, const MemoryCap& cap,
                                       int64_t row) {
  if (Status s = CheckAdded(encoding); !s.ok()) return s.error();
  const EncodingParams& pe = encoding.params();
  SentenceResult r;
  r.batch = ExampleBatch(example);
  if (row < 0 || row >= r.batch) {
    return InvalidArgument("batch row " + std::to_string(row) + " is outside [0, " +
                           std::to_string(r.batch - 1) + "]: the ids have " +
                           std::to_string(r.batch) + (r.batch == 1 ? " row" : " rows"));
  }
  r.row = row;
  const LoadedTable* loaded = example.embeddings.table.get();
  if (loaded != nullptr && loaded->cols() != pe.d_model) {
    return InvalidArgument("d_model is " + std::to_string(pe.d_model) +
                           " but the embedding table " + Quoted(example.embeddings.spec) + " has " +
                           std::to_string(loaded->cols()) +
                           " columns; d_model follows the loaded table");
  }
  if (example.ids.empty() && example.subword) {
    Result<std::vector<int64_t>> ids = SubwordIds(example, &r.tokens, &r.vocab_size);
    if (!ids.ok()) return ids.error();
    r.ids = std::move(ids).value();
  } else if (example.ids.empty() && loaded != nullptr && loaded->has_words()) {
    // The file's words name the rows: each word of the text is looked up.
    r.tokens = Tokenize(example.text, example.tokenizer);
    const int64_t unk = loaded->FindWord(kUnknownToken);
    r.vocab_size = unk >= 0 ? loaded->rows() : loaded->rows() + 1;
    for (size_t t = 0; t < r.tokens.size(); ++t) {
      int64_t id = loaded->FindWord(r.tokens[t].text);
      if (id < 0) {
        id = unk >= 0 ? unk : loaded->rows();
        r.unknown_tokens.push_back(static_cast<int64_t>(t));
      }
      r.ids.push_back(id);
    }
  } else if (example.ids.empty()) {
    r.tokens = Tokenize(example.text, example.tokenizer);
    Result<Vocabulary> v = TextVocabulary(example, r.tokens);
    if (!v.ok()) return v.error();
    r.vocabulary = std::move(v).value();
    r.ids = r.vocabulary.Ids(r.tokens);
    Result<int64_t> size = TextVocabSize(example, r.vocabulary, r.ids);
    if (!size.ok()) return size.error();
    r.vocab_size = size.value();
  } else {
    Result<std::vector<int64_t>> ids = ExampleIds(example, row, &r.vocab_size);
    if (!ids.ok()) return ids.error();
    r.ids = std::move(ids).value();
    r.tokens = ExampleTokens(example, row);
  }
  if (loaded != nullptr && !loaded->has_words()) {
    // Ids index the file's rows.
    for (size_t t = 0; t < r.ids.size(); ++t) {
      if (r.ids[t] >= loaded->rows()) {
        return InvalidArgument("token id " + std::to_string(r.ids[t]) + " (token " +
                               std::to_string(t) + ") is outside the embedding table " +
                               Quoted(example.embeddings.spec) + ", whose ids are 0 to " +
                               std::to_string(loaded->rows() - 1));
      }
    }
    r.vocab_size = loaded->rows();
  }
  if (example.truncate && static_cast<int64_t>(r.ids.size()) > pe.max_len) {
    r.dropped_tokens = static_cast<int64_t>(r.ids.size()) - pe.max_len;
    r.ids.resize(static_cast<size_t>(pe.max_len));
    r.tokens.resize(static_cast<size_t>(pe.max_len));
    std::erase_if(r.unknown_tokens, [&](int64_t t) { return t >= pe.max_len; });
  }
  const auto seq = static_cast<int64_t>(r.ids.size());
  if (Status s = CheckSequenceFits(seq, encoding); !s.ok()) return s.error();
  if (Status s = CheckFloatCount("the sentence's four parts", 4 * static_cast<uint64_t>(seq),
                                 static_cast<uint64_t>(pe.d_model), cap);
      !s.ok()) {
    return s.error();
  }
  // Only the rows the sentence uses (the counter-based initialisers make each independently of
  // V; torch:SEED runs PyTorch's stream of V * d values).
  Result<Matrix> embedding =
      ExampleEmbeddingRows(example, r.vocab_size, pe.d_model, r.ids, cap);  // (T, d)
  if (!embedding.ok()) return embedding.error();
  Matrix positional = PositionalRows(encoding, seq);
  if (const std::vector<std::vector<float>>& typed = example.positional_rows; !typed.empty()) {
    // Typed rows (--positional-rows) replace the scheme's: the token at position p gets P[p].
    const auto width = static_cast<int64_t>(typed.front().size());
    if (width != pe.d_model) {
      return InvalidArgument("--positional-rows: the rows have " + std::to_string(width) +
                             " values but d_model is " + std::to_string(pe.d_model) +
                             "; each row is one positional vector P[p] of d_model values");
    }
    for (int64_t t = 0; t < seq; ++t) {
      const int64_t p = pe.offset + t;
      if (p < 0 || p >= static_cast<int64_t>(typed.size())) {
        return InvalidArgument("--positional-rows: token " + std::to_string(t) +
                               " is at position " + std::to_string(p) + " but only P[0] to P[" +
                               std::to_string(typed.size() - 1) + "] are typed");
      }
      std::copy(typed[static_cast<size_t>(p)].begin(), typed[static_cast<size_t>(p)].end(),
                positional.row(t));
    }
  }
  Result<InputParts> parts =
      CombineInputParts(std::move(embedding).value(), std::move(positional), params,
                        static_cast<uint64_t>(row * seq * pe.d_model));
  if (!parts.ok()) return parts.error();
  r.parts = std::move(parts).value();
  return r;
}

Result<Matrix> ExampleEmbeddingRows(const TextExample& example, int64_t vocab_size, int64_t d,
                                    std::span<const int64_t> rows, const MemoryCap& cap) {
  if (const LoadedTable* loaded = example.embeddings.table.get(); loaded != nullptr) {
    // The loaded table's rows; a word the file lacks (id -1, or V = its row count) is a zero row.
    if (loaded->cols() != d) {
      return InvalidArgument("d_model is " + std::to_string(d) + " but the embedding table " +
                             Quoted(example.embeddings.spec) + " has " +
                             std::to_string(loaded->cols()) +
                             " columns; d_model follows the loaded table");
    }
    Result<Matrix> out =
        MakeMatrix("the embedding rows", static_cast<int64_t>(rows.size()), d, cap);
    if (!out.ok()) return out.error();
    for (size_t t = 0; t < rows.size(); ++t) {
      const int64_t id = rows[t];
      if (id > loaded->rows()) {
        return InvalidArgument("token id " + std::to_string(id) +
                               " is outside the embedding table " +
                               Quoted(example.embeddings.spec) + " (ids 0 to " +
                               std::to_string(loaded->rows() - 1) + ")");
      }
      if (id >= 0 && id < loaded->rows()) {
        loaded->Read(id, 1, 0, d, out.value().row(static_cast<int64_t>(t)));
      }
    }
    return out;
  }
  if (const std::vector<std::vector<float>>& typed = example.embedding_rows; !typed.empty()) {
    // Typed rows (--embedding-rows) are E itself: row k is E[k].
    const auto width = static_cast<int64_t>(typed.front().size());
    if (width != d) {
      return InvalidArgument("--embedding-rows: the rows have " + std::to_string(width) +
                             " values but d_model is " + std::to_string(d) +
                             "; each row is one embedding E[k] of d_model values");
    }
    Result<Matrix> out =
        MakeMatrix("the embedding rows", static_cast<int64_t>(rows.size()), d, cap);
    if (!out.ok()) return out.error();
    for (size_t t = 0; t < rows.size(); ++t) {
      const int64_t id = rows[t];
      if (id < 0 || id >= static_cast<int64_t>(typed.size())) {
        return InvalidArgument("--embedding-rows: token " + std::to_string(t) + " has id " +
                               std::to_string(id) + " but only E[0] to E[" +
                               std::to_string(typed.size() - 1) + "] are typed");
      }
      std::copy(typed[static_cast<size_t>(id)].begin(), typed[static_cast<size_t>(id)].end(),
                out.value().row(static_cast<int64_t>(t)));
    }
    return out;
  }
  const uint64_t seed = example.init == EmbeddingInit::kTorch ? example.torch_seed : example.seed;
  return EmbeddingRows(example.init, seed, vocab_size, d, rows, cap, example.torch_kernel);
}

Result<std::vector<SentenceResult>> ComputeBatch(const TextExample& example,
                                                 const Encoding& encoding,
                                                 const InputLayerParams& params,
                                                 const MemoryCap& cap) {
  const int64_t batch = ExampleBatch(example);
  const int64_t tokens = ExampleTokenCount(example);
  if (Status s = CheckFloatCount("the batch's four parts",
                                 4 * static_cast<uint64_t>(batch) * static_cast<uint64_t>(tokens),
                                 static_cast<uint64_t>(encoding.params().d_model), cap);
      !s.ok()) {
    return s.error();
  }
  std::vector<SentenceResult> rows;
  for (int64_t b = 0; b < batch; ++b) {
    Result<SentenceResult> r = ComputeSentence(example, encoding, params, cap, b);
    if (!r.ok()) return r.error();
    rows.push_back(std::move(r).value());
  }
  return rows;
}

}  // namespace pe
