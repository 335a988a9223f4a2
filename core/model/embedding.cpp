#include "model/embedding.h"

#include <algorithm>

#include "base/random.h"

namespace pe {

float EmbeddingValue(uint64_t seed, int64_t d_model, int64_t row, int64_t col) {
  return static_cast<float>(RandomNormal(seed, static_cast<uint64_t>(row * d_model + col)));
}

float EmbeddingValue(EmbeddingInit init, uint64_t seed, int64_t d_model, int64_t row,
                     int64_t col) {
  return static_cast<float>(
      InitValue(init, d_model, seed, static_cast<uint64_t>(row * d_model + col)));
}

Result<Matrix> InitEmbeddingNormal(int64_t vocab_size, int64_t d_model, uint64_t seed,
                                   const MemoryCap& cap) {
  return InitEmbedding(EmbeddingInit::kNormal1, vocab_size, d_model, seed, cap);
}

Result<Matrix> InitEmbedding(EmbeddingInit init, int64_t vocab_size, int64_t d_model,
                             uint64_t seed, const MemoryCap& cap) {
  if (vocab_size < 1 || vocab_size > kMaxVocab) {
    return InvalidArgument("vocab_size must be in [1, " + std::to_string(kMaxVocab) + "], got " +
                           std::to_string(vocab_size));
  }
  if (d_model < 1) {
    return InvalidArgument("d_model must be at least 1, got " + std::to_string(d_model));
  }
  Result<Matrix> table = MakeMatrix("the embedding table", vocab_size, d_model, cap);
  if (!table.ok()) return table;
  Matrix& m = table.value();
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t c = 0; c < m.cols; ++c) m.at(r, c) = EmbeddingValue(init, seed, d_model, r, c);
  }
  return table;
}

Status CheckIds(int64_t vocab_size, std::span<const int64_t> ids) {
  for (size_t t = 0; t < ids.size(); ++t) {
    if (ids[t] < 0 || ids[t] >= vocab_size) {
      return InvalidArgument("token id " + std::to_string(ids[t]) + " at index " +
                             std::to_string(t) +
                             " is outside the embedding table: ids must be in [0, " +
                             std::to_string(vocab_size - 1) + "]");
    }
  }
  return {};
}

Result<Matrix> LookupRows(const Matrix& table, std::span<const int64_t> ids) {
  if (Status s = CheckIds(table.rows, ids); !s.ok()) return s.error();
  Matrix out;
  out.rows = static_cast<int64_t>(ids.size());
  out.cols = table.cols;
  out.data.resize(static_cast<size_t>(out.rows * out.cols));
  for (int64_t t = 0; t < out.rows; ++t) {
    const float* src = table.row(ids[static_cast<size_t>(t)]);
    std::copy(src, src + table.cols, out.row(t));
  }
  return out;
}

}  // namespace pe
