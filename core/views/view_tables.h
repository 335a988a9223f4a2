// The numbers behind each view, as the CLI and the window export them (CSV and NPY).
//   heatmap: the PE table, (max_len, d_model); CSV header pos,d0,d1,...
//   curves:  PE[:, dims], (max_len, len(dims)); CSV header pos,d4,d5,...
//   sum:     the input-layer parts, (T, 4, d_model) in part order embedding, scaled,
//            positional, sum; CSV header token,position,id,part,v0,v1,... one row per token and
//            part.
// "pos" is the absolute position (offset + row).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "model/input_layer.h"
#include "base/matrix.h"
#include "encoding/positional_encoding.h"
#include "base/status.h"

namespace pe {

enum class TableFormat { kCsv, kNpy };

// Told the fraction done after each block; returning false stops the write with an error.
using Progress = std::function<bool(double fraction)>;

// Each dim must be in [0, d_model) and listed once; at least one.
Status ValidateDims(const PeParams& params, const std::vector<int64_t>& dims);
// "4,5,6,7" -> {4, 5, 6, 7}; ranges "0-3" allowed. Errors name the bad item.
Result<std::vector<int64_t>> ParseDimList(const std::string& text);

// Rows per streamed block of a table with `cols` columns: about 16 MiB of float32 (at most
// 16384 rows), so large exports fill on every core and progress is reported per block.
int64_t TableBlockRows(int64_t cols);

// Stream the PE table in row blocks (the full table is never held). Checks params and `cap`.
Status WriteHeatmapTable(std::ostream& out, TableFormat format, const PeParams& params,
                         const MemoryCap& cap = {}, const Progress& progress = {});
Status WriteCurvesTable(std::ostream& out, TableFormat format, const PeParams& params,
                        const std::vector<int64_t>& dims, const MemoryCap& cap = {},
                        const Progress& progress = {});
Status WriteSumTable(std::ostream& out, TableFormat format, const SentenceResult& sentence,
                     const PeParams& params);

}  // namespace pe
