// A 2-D table of a model read from a file, for the parameters to reference (base/table_ref.h):
// a token-embedding table E (V, d), a learned position table (max_len, d) such as GPT-2's wpe,
// or T5's relative_attention_bias (num_buckets, heads). The sources:
//   - an NPY array or a safetensors tensor (io/tensor_file.h names it "FILE[:TENSOR]"): the
//     values are read (pread, not a mapping: a file rewritten in place later, as np.save does,
//     cannot fault a view) and kept as float32 (float32 bit for bit, float16 and bfloat16
//     exactly, float64 rounded to nearest), under the memory cap; a file that changes while it
//     is read is refused;
//   - a word-vector file (io/word_vectors_reader.h: GloVe text, word2vec/fastText .vec text,
//     word2vec binary), whose words name the rows. Text files are parsed on every core in
//     chunks split at line ends (std::from_chars); anything the fast path does not accept is
//     read again by ReadWordVectors, so every message is that reader's.
// Loading makes one pass over the data: it counts NaN and Inf values (loaded as they are, for
// the views to flag) and computes the content hash, reporting progress and stopping when the
// progress callback says so. Tables are cached by path, tensor, size and modification time
// (TableCache), so a frame never reads a file.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/matrix.h"
#include "base/progress.h"
#include "base/status.h"
#include "io/read_support.h"
#include "io/tensor_file.h"

namespace pe {

// The content hash of a table's bytes: FNV-1a 64 (Fowler, Noll, Vo; offset basis
// 0xcbf29ce484222325, prime 0x100000001b3) taken over 8-byte little-endian words instead of
// single bytes (eight times fewer multiplications), the last 1 to 7 bytes one at a time, then
// the byte count xored in and multiplied once more. `state` continues a previous call (a
// safetensors table hashes its header, then its tensor's bytes).
inline constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;
uint64_t HashBytes(std::span<const std::byte> bytes, uint64_t state = kFnvOffsetBasis);
// The final mix of the total byte count.
uint64_t FinishHash(uint64_t state, uint64_t total_bytes);
// 16 lowercase hex digits.
std::string HashText(uint64_t hash);

// What a table is for: which formats it may come from and what its rows mean.
enum class TableUse {
  kEmbeddings,  // --embeddings: NPY, safetensors or a word-vector file; rows are token ids
  kPositions,   // --positions-table: NPY or safetensors; rows are positions (or T5 buckets)
};

class LoadedTable {
 public:
  LoadedTable(const LoadedTable&) = delete;
  LoadedTable& operator=(const LoadedTable&) = delete;
  ~LoadedTable();

  const TensorSpec& spec() const { return spec_; }
  std::string spec_text() const { return TensorSpecText(spec_); }
  // "npy", "safetensors", "glove", "vec", "word2vec-binary"
  const std::string& format() const { return format_; }
  // As the file says: "<f4", "BF16"; "text" or "f32" (word2vec binary) for word vectors.
  const std::string& dtype() const { return dtype_; }
  const std::string& tensor_name() const { return tensor_name_; }
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  uint64_t hash() const { return hash_; }
  uint64_t file_bytes() const { return file_bytes_; }
  int64_t nan_count() const { return nan_count_; }
  int64_t inf_count() const { return inf_count_; }
  bool has_non_finite() const { return nan_count_ != 0 || inf_count_ != 0; }

  // The words naming the rows (word-vector files; empty for tensors), and the row of a word:
  // exact, else with ASCII letters lower-cased (GloVe's vocabularies are lower case); -1 when
  // neither is there.
  const std::vector<std::string>& words() const { return words_; }
  bool has_words() const { return !words_.empty(); }
  int64_t FindWord(std::string_view word) const;

  // Rows [row0, row0 + n) x columns [col0, col0 + ncols) as float32 into `out`, (n, ncols)
  // row-major. The caller keeps the block inside the table.
  void Read(int64_t row0, int64_t n, int64_t col0, int64_t ncols, float* out) const;
  float At(int64_t row, int64_t col) const;
  // Rows [row0, row0 + n) as a (n, cols) matrix, under `cap`.
  Result<Matrix> ReadRows(int64_t row0, int64_t n, const MemoryCap& cap = {}) const;

  // One line for the window and titles: "gpt2.safetensors:wpe.weight, (1024, 768) F32".
  std::string Describe() const;

 private:
  friend Result<std::shared_ptr<const LoadedTable>> LoadTable(const TensorSpec&, TableUse,
                                                              const MemoryCap&, const Progress&);
  friend class TableLoader;
  LoadedTable() = default;

  TensorSpec spec_;
  std::string format_, dtype_, tensor_name_;
  int64_t rows_ = 0, cols_ = 0;
  uint64_t hash_ = 0, file_bytes_ = 0;
  int64_t nan_count_ = 0, inf_count_ = 0;
  std::vector<std::string> words_;
  std::unordered_map<std::string, int64_t> word_rows_;

 public:
  // The value types a file's table is converted from.
  enum class Dtype { kF2, kBf16, kF4, kF8 };

 private:
  // Owned float32 values in chunks of whole rows (a parallel parse fills one per thread):
  // chunk k holds rows [chunk_first_[k], chunk_first_[k + 1]).
  std::vector<std::vector<float>> chunks_;
  std::vector<int64_t> chunk_first_;
};

using LoadedTablePtr = std::shared_ptr<const LoadedTable>;

// Reads the table `spec` names for `use`. A word-vector file is recognised by not being an NPY
// or safetensors file (kEmbeddings only). The table must be 2-D with at least one row and one
// column, and its float32 size must fit under `cap`. Every message starts with the quoted path.
// `threads` (0: every core) parse word-vector text.
Result<LoadedTablePtr> LoadTable(const TensorSpec& spec, TableUse use, const MemoryCap& cap = {},
                                 const Progress& progress = {});
Result<LoadedTablePtr> LoadTable(const TensorSpec& spec, TableUse use, const MemoryCap& cap,
                                 const Progress& progress, int threads);

// Loaded tables by (path, tensor, use, file size, modification time): a hit costs a stat, so
// the parameters can name a table in every frame, every export and every CLI run without
// reading it again; a file changed on disk is read again. Holds at most `capacity` tables
// (the least recently used goes). Thread-safe; two loads of one table may overlap, the first
// to finish is kept.
class TableCache {
 public:
  explicit TableCache(size_t capacity = 8) : capacity_(capacity) {}
  Result<LoadedTablePtr> Get(const TensorSpec& spec, TableUse use, const MemoryCap& cap = {},
                             const Progress& progress = {});
  // The cached table for `spec` when its file has not changed, else null; never reads.
  LoadedTablePtr Peek(const TensorSpec& spec, TableUse use);
  size_t size() const;
  void Clear();

 private:
  struct Entry {
    std::string key;
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    LoadedTablePtr table;
    uint64_t last_use = 0;
  };
  size_t capacity_;
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
};

// The one cache the parameter fields load through (model/param_fields.cpp), shared by the CLI,
// figure metadata read back, and the window's loading job, so a table the window loaded is a
// hit when the field is set.
TableCache& SharedTableCache();

}  // namespace pe
