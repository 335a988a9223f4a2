// The numbers behind each view, as the CLI and the window export them (CSV and NPY).
//   heatmap: the encoding's table, (max_len, cols); CSV header pos,d0,d1,... (pos,i0,i1,... for
//            RoPE's angle, one column per pair)
//   curves:  PE[:, dims], (max_len, len(dims)); CSV header pos,d4,d5,...
//   sum:     the input-layer parts, (T, 4, d_model) in part order embedding, scaled,
//            positional, sum; CSV header token,position,id,part,v0,v1,... one row per token and
//            part. Typed ids in a batch (model/token_ids.h): (batch, T, 4, d_model), CSV
//            header batch,token,position,id,part,v0,...; each token is labelled "id 23".
//   bias, buckets, slopes: the attention-bias views' tables, written by bias_views.cpp (shapes
//            and CSV headers there).
// "pos" is the absolute position (offset + row).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "base/matrix.h"
#include "base/progress.h"
#include "base/status.h"
#include "encoding/encoding.h"
#include "model/input_layer.h"
#include "model/param_fields.h"

namespace pe {

enum class TableFormat { kCsv, kNpy };

// Progress (base/progress.h) is told the fraction done after each block.

// Each dim must be a column of the encoding's table, [0, cols), listed once; at least one.
Status ValidateDims(const Encoding& encoding, const std::vector<int64_t>& dims);

// Rows per streamed block of a table with `cols` columns: about 16 MiB of float32 (at most
// 16384 rows), so large exports fill on every core and progress is reported per block.
int64_t TableBlockRows(int64_t cols);

// Stream the encoding's table in row blocks (the full table is never held). Checks `cap`.
// The EncodingParams overloads build the encoding first (and check the params).
Status WriteHeatmapTable(std::ostream& out, TableFormat format, const Encoding& encoding,
                         const MemoryCap& cap = {}, const Progress& progress = {});
Status WriteCurvesTable(std::ostream& out, TableFormat format, const Encoding& encoding,
                        const std::vector<int64_t>& dims, const MemoryCap& cap = {},
                        const Progress& progress = {});
Status WriteHeatmapTable(std::ostream& out, TableFormat format, const EncodingParams& params,
                         const MemoryCap& cap = {}, const Progress& progress = {});
Status WriteCurvesTable(std::ostream& out, TableFormat format, const EncodingParams& params,
                        const std::vector<int64_t>& dims, const MemoryCap& cap = {},
                        const Progress& progress = {});
// Reports progress (and may be cancelled) after each token's rows.
Status WriteSumTable(std::ostream& out, TableFormat format, const SentenceResult& sentence,
                     const EncodingParams& params, const Progress& progress = {});
// The rows of a batch (ComputeBatch: at least one, all of one length) as one table.
Status WriteBatchSumTable(std::ostream& out, TableFormat format,
                          const std::vector<SentenceResult>& rows, const EncodingParams& params,
                          const Progress& progress = {});

}  // namespace pe
