#include "encoding/encoding.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "encoding/alibi.h"
#include "encoding/learned.h"
#include "encoding/mrope.h"
#include "encoding/nope.h"
#include "encoding/positional_encoding.h"
#include "encoding/rope_encoding.h"
#include "encoding/t5_buckets.h"
#include "encoding/xpos.h"

namespace pe {

void Encoding::MeanOverRows(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                            double* out) const {
  // Exact by blocks: sum the cells in double, a block of rows at a time.
  std::fill(out, out + cols, 0.0);
  if (rows <= 0 || cols <= 0) return;
  const int64_t block = std::max<int64_t>(1, (int64_t{1} << 16) / cols);
  std::vector<float> buf(static_cast<size_t>(std::min(block, rows) * cols));
  for (int64_t r = 0; r < rows; r += block) {
    const int64_t n = std::min(block, rows - r);
    FillBlock(row0 + r, n, col0, cols, buf.data());
    for (int64_t i = 0; i < n; ++i) {
      const float* row = buf.data() + i * cols;
      for (int64_t j = 0; j < cols; ++j) out[j] += row[j];
    }
  }
  for (int64_t j = 0; j < cols; ++j) out[j] /= static_cast<double>(rows);
}

std::string_view ColumnNounName(ColumnNoun noun) {
  switch (noun) {
    case ColumnNoun::kDim:
      return "dim";
    case ColumnNoun::kPair:
      return "pair";
    case ColumnNoun::kKey:
      return "key";
  }
  return "dim";
}

TableAxes AxesOf(const Encoding& e) {
  switch (e.column_noun()) {
    case ColumnNoun::kPair:
      return {"pair i", "i", "i", "position p", "p"};
    case ColumnNoun::kKey:
      return {"key position n", "n", "k", "query position m", "m"};
    case ColumnNoun::kDim:
      break;
  }
  return {"dimension j", "j", "d", "position p", "p"};
}

Status ValidateEncodingParams(const EncodingParams& p) {
  if (p.d_model < 1 || p.d_model > kMaxDModel) {
    return InvalidArgument("d_model must be in [1, " + std::to_string(kMaxDModel) + "], got " +
                           std::to_string(p.d_model));
  }
  if (p.max_len < 1 || p.max_len > kMaxPosition + 1) {
    return InvalidArgument("max_len must be in [1, " + std::to_string(kMaxPosition + 1) +
                           "], got " + std::to_string(p.max_len));
  }
  // Sinusoidal tables may start at a negative position (relative offsets); the others start at
  // 0 or later. The last position stays at most kMaxPosition.
  const int64_t min_offset = p.kind() == Scheme::kSinusoidal ? -kMaxPosition : 0;
  const int64_t max_offset = kMaxPosition + 1 - p.max_len;
  if (p.offset < min_offset || p.offset > max_offset) {
    return InvalidArgument(
        "offset must be in [" + std::to_string(min_offset) + ", " + std::to_string(max_offset) +
        "] so that the last position stays at most " + std::to_string(kMaxPosition) +
        " with max_len " + std::to_string(p.max_len) + " (" + std::string(SchemeName(p.kind())) +
        "), got " + std::to_string(p.offset));
  }
  switch (p.kind()) {
    case Scheme::kSinusoidal:
      return ValidateSinusoidalParams(p.sinusoidal());
    case Scheme::kLearned:
      return CheckLearnedTable(p);
    case Scheme::kRope:
      return ValidateRopeParams(p);
    case Scheme::kAlibi:
      return ValidateAlibiParams(p);
    case Scheme::kT5:
      return ValidateT5Params(p);
    case Scheme::kXpos:
      return ValidateXposParams(p);
    case Scheme::kNope:
      return {};  // nothing but the shape
    case Scheme::kMrope:
      return ValidateMropeParams(p);
  }
  return {};
}

Status CheckEncodingFits(const EncodingParams& params, const MemoryCap& cap) {
  if (params.kind() != Scheme::kLearned) return {};
  return CheckFloatCount("the learned position table", static_cast<uint64_t>(params.max_len),
                         static_cast<uint64_t>(params.d_model), cap);
}

int64_t StoredCells(const EncodingParams& params) {
  if (params.kind() != Scheme::kLearned || params.max_len <= 0 || params.d_model <= 0) return 0;
  if (params.max_len > INT64_MAX / params.d_model) return INT64_MAX;
  return params.max_len * params.d_model;
}

Result<EncodingPtr> MakeEncoding(const EncodingParams& params, const MemoryCap& cap,
                                 const Progress& progress) {
  if (Status s = ValidateEncodingParams(params); !s.ok()) return s.error();
  switch (params.kind()) {
    case Scheme::kSinusoidal:
      return MakeSinusoidalEncoding(params);
    case Scheme::kLearned:
      return MakeLearnedEncoding(params, cap, progress);
    case Scheme::kRope:
      return MakeRopeEncoding(params);
    case Scheme::kAlibi:
      return MakeAlibiEncoding(params);
    case Scheme::kT5:
      return MakeT5Encoding(params);
    case Scheme::kXpos:
      return MakeXposEncoding(params);
    case Scheme::kNope:
      return MakeNopeEncoding(params);
    case Scheme::kMrope:
      return MakeMropeEncoding(params);
  }
  return InvalidArgument("unknown scheme");
}

Result<Matrix> ComputeTable(const Encoding& encoding, const MemoryCap& cap) {
  Result<Matrix> table =
      MakeMatrix("the " + encoding.TableName() + " table", encoding.rows(), encoding.cols(), cap);
  if (!table.ok()) return table;
  Matrix& m = table.value();
  encoding.FillBlock(0, m.rows, 0, m.cols, m.data.data());
  return table;
}

}  // namespace pe
