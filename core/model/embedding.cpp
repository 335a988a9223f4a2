#include "model/embedding.h"

#include <algorithm>

#include "base/random.h"
#include "base/torch_random.h"

namespace pe {

float EmbeddingValue(uint64_t seed, int64_t d_model, int64_t row, int64_t col) {
  return static_cast<float>(RandomNormal(seed, static_cast<uint64_t>(row * d_model + col)));
}

float EmbeddingValue(EmbeddingInit init, uint64_t seed, int64_t d_model, int64_t row, int64_t col) {
  return static_cast<float>(
      InitValue(init, d_model, seed, static_cast<uint64_t>(row * d_model + col)));
}

Result<Matrix> InitEmbeddingNormal(int64_t vocab_size, int64_t d_model, uint64_t seed,
                                   const MemoryCap& cap) {
  return InitEmbedding(EmbeddingInit::kNormal1, vocab_size, d_model, seed, cap);
}

Result<Matrix> InitEmbedding(EmbeddingInit init, int64_t vocab_size, int64_t d_model, uint64_t seed,
                             const MemoryCap& cap, TorchKernel torch_kernel) {
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
  if (init == EmbeddingInit::kTorch) {
    if (vocab_size > kMaxTorchTableValues / d_model) {
      return InvalidArgument("--init torch: nn.Embedding(" + std::to_string(vocab_size) + ", " +
                             std::to_string(d_model) + ") has more than " +
                             std::to_string(kMaxTorchTableValues) + " values");
    }
    m.data = TorchRandn(seed, vocab_size * d_model, torch_kernel);
    return table;
  }
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t c = 0; c < m.cols; ++c) m.at(r, c) = EmbeddingValue(init, seed, d_model, r, c);
  }
  return table;
}

Result<Matrix> EmbeddingRows(EmbeddingInit init, uint64_t seed, int64_t vocab_size, int64_t d_model,
                             std::span<const int64_t> rows, const MemoryCap& cap,
                             TorchKernel torch_kernel) {
  if (d_model < 1) {
    return InvalidArgument("d_model must be at least 1, got " + std::to_string(d_model));
  }
  if (Status s = CheckIds(vocab_size, rows); !s.ok()) return s.error();
  Result<Matrix> out =
      MakeMatrix("the embedding rows", static_cast<int64_t>(rows.size()), d_model, cap);
  if (!out.ok()) return out;
  Matrix& m = out.value();
  if (init != EmbeddingInit::kTorch) {
    for (int64_t r = 0; r < m.rows; ++r) {
      for (int64_t c = 0; c < d_model; ++c) {
        m.at(r, c) = EmbeddingValue(init, seed, d_model, rows[static_cast<size_t>(r)], c);
      }
    }
    return out;
  }
  if (vocab_size > kMaxTorchTableValues / d_model) {
    return InvalidArgument(
        "--init torch: nn.Embedding(V, d) with V = " + std::to_string(vocab_size) +
        " (--vocab-size) and d = " + std::to_string(d_model) + " has " +
        std::to_string(vocab_size * d_model) + " values; PyTorch's stream is reproduced up to " +
        std::to_string(kMaxTorchTableValues) + " (V * d <= 2^28): lower --vocab-size or d_model");
  }
  std::vector<int64_t> indices(static_cast<size_t>(m.rows * d_model));  // flat (row, col)
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t c = 0; c < d_model; ++c) {
      indices[static_cast<size_t>(r * d_model + c)] = rows[static_cast<size_t>(r)] * d_model + c;
    }
  }
  m.data = TorchNormalAt(seed, vocab_size * d_model, indices, torch_kernel);
  return out;
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
