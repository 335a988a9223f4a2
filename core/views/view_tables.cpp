#include "views/view_tables.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <set>

#include "io/file_writers.h"
#include "io/table_block_writer.h"

namespace pe {

Status ValidateDims(const Encoding& encoding, const std::vector<int64_t>& dims) {
  if (dims.empty()) return InvalidArgument("dims must name at least one dimension");
  std::set<int64_t> seen;
  const int64_t cols = encoding.cols();
  for (int64_t d : dims) {
    if (d < 0 || d >= cols) {
      const bool width = cols == encoding.params().d_model;
      return InvalidArgument(
          "dims: dimension " + std::to_string(d) + " is outside [0, " + std::to_string(cols - 1) +
          "] for " + (width ? "d_model " : "the " + encoding.TableName() + " table's width ") +
          std::to_string(cols));
    }
    if (!seen.insert(d).second) {
      return InvalidArgument("dims: dimension " + std::to_string(d) + " is listed twice");
    }
  }
  return {};
}

int64_t TableBlockRows(int64_t cols) {
  return std::clamp<int64_t>((int64_t{4} << 20) / std::max<int64_t>(1, cols), 1, 16384);
}

namespace {

void WriteCsvRow(std::ostream& out, int64_t pos, const float* values, int64_t n) {
  std::string line = std::to_string(pos);
  for (int64_t j = 0; j < n; ++j) {
    line += ',';
    line += FormatFloat(values[j]);
  }
  line += '\n';
  out.write(line.data(), static_cast<std::streamsize>(line.size()));
}

// Streams rows [0, max_len) of the columns `dims` (empty: all columns) in blocks.
Status WritePeColumns(std::ostream& out, TableFormat format, const Encoding& encoding,
                      const std::vector<int64_t>& dims, const MemoryCap& cap,
                      const Progress& progress) {
  const EncodingParams& params = encoding.params();
  const bool all = dims.empty();
  const int64_t width = encoding.cols();
  const int64_t cols = all ? width : static_cast<int64_t>(dims.size());
  if (Status s =
          CheckFloatCount(all ? "the " + encoding.TableName() + " table" : "the curves table",
                          static_cast<uint64_t>(params.max_len), static_cast<uint64_t>(cols), cap);
      !s.ok()) {
    return s;
  }
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {params.max_len, cols};
    out << NpyHeader(shape);
  } else {
    out << "pos";
    std::string prefix = ",";
    prefix += AxesOf(encoding).csv_prefix;
    for (int64_t j = 0; j < cols; ++j) out << prefix << (all ? j : dims[static_cast<size_t>(j)]);
    out << '\n';
  }
  const int64_t block_rows = std::min(TableBlockRows(cols), params.max_len);
  if (all && format == TableFormat::kNpy) {
    // The whole table as NPY: blocks filled on worker threads while this one writes.
    return WriteTableBlocks(
        out, params.max_len, cols, block_rows,
        [&](int64_t row0, int64_t rows, float* block) {
          encoding.FillBlock(row0, rows, 0, cols, block);
        },
        progress);
  }
  std::vector<float> block(static_cast<size_t>(block_rows * (all ? width : cols)));
  std::vector<float> picked(all ? 0 : static_cast<size_t>(block_rows * cols));
  for (int64_t r0 = 0; r0 < params.max_len && out; r0 += block_rows) {
    const int64_t rows = std::min(block_rows, params.max_len - r0);
    const float* src = block.data();
    if (all) {
      encoding.FillBlock(r0, rows, 0, cols, block.data());
    } else {
      for (int64_t j = 0; j < cols; ++j) {
        // One column at a time: (rows, 1) blocks, gathered row-major below.
        encoding.FillBlock(r0, rows, dims[static_cast<size_t>(j)], 1, block.data() + j * rows);
      }
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < cols; ++j)
          picked[static_cast<size_t>(r * cols + j)] = block[static_cast<size_t>(j * rows + r)];
      }
      src = picked.data();
    }
    if (format == TableFormat::kNpy) {
      WriteFloatsLE(out, src, rows * cols);
    } else {
      for (int64_t r = 0; r < rows; ++r)
        WriteCsvRow(out, params.offset + r0 + r, src + r * cols, cols);
    }
    if (progress &&
        !progress(static_cast<double>(r0 + rows) / static_cast<double>(params.max_len))) {
      return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

}  // namespace

Status WriteHeatmapTable(std::ostream& out, TableFormat format, const Encoding& encoding,
                         const MemoryCap& cap, const Progress& progress) {
  return WritePeColumns(out, format, encoding, {}, cap, progress);
}

Status WriteCurvesTable(std::ostream& out, TableFormat format, const Encoding& encoding,
                        const std::vector<int64_t>& dims, const MemoryCap& cap,
                        const Progress& progress) {
  if (Status s = ValidateDims(encoding, dims); !s.ok()) return s;
  return WritePeColumns(out, format, encoding, dims, cap, progress);
}

Status WriteHeatmapTable(std::ostream& out, TableFormat format, const EncodingParams& params,
                         const MemoryCap& cap, const Progress& progress) {
  Result<EncodingPtr> e = MakeEncoding(params, cap);
  if (!e.ok()) return e.error();
  return WriteHeatmapTable(out, format, *e.value(), cap, progress);
}

Status WriteCurvesTable(std::ostream& out, TableFormat format, const EncodingParams& params,
                        const std::vector<int64_t>& dims, const MemoryCap& cap,
                        const Progress& progress) {
  Result<EncodingPtr> e = MakeEncoding(params, cap);
  if (!e.ok()) return e.error();
  return WriteCurvesTable(out, format, *e.value(), dims, cap, progress);
}

namespace {

// The sum rows of one sentence (or batch row): NPY (T, 4, d) values, or CSV lines
// [batch,]token,position,id,part,v0,... Progress counts tokens over `total` from `done`.
Status WriteSentenceRows(std::ostream& out, TableFormat format, const SentenceResult& sentence,
                         const EncodingParams& params, const std::string& batch_prefix,
                         int64_t done, int64_t total, const Progress& progress) {
  const InputParts& parts = sentence.parts;
  const int64_t seq = parts.tokens();
  const int64_t d = parts.embedding.cols;
  for (int64_t t = 0; t < seq && out; ++t) {
    if (format == TableFormat::kNpy) {
      for (Part p : kAllParts) WriteFloatsLE(out, parts.part(p).row(t), d);
    } else {
      // Quote the token text as CSV requires (RFC 4180): commas, quotes, spaces.
      std::string quoted = "\"";
      for (char c : sentence.tokens[static_cast<size_t>(t)].text) {
        if (c == '"') quoted += '"';
        quoted += c;
      }
      quoted += '"';
      for (Part p : kAllParts) {
        out << batch_prefix << quoted << ',' << params.offset + t << ','
            << sentence.ids[static_cast<size_t>(t)] << ',' << PartName(p);
        const float* v = parts.part(p).row(t);
        for (int64_t j = 0; j < d; ++j) out << ',' << FormatFloat(v[j]);
        out << '\n';
      }
    }
    if (progress && !progress(static_cast<double>(done + t + 1) / static_cast<double>(total))) {
      return RuntimeError("the export was cancelled");
    }
  }
  return {};
}

void WriteSumCsvHeader(std::ostream& out, bool batch, int64_t d) {
  out << (batch ? "batch,token,position,id,part" : "token,position,id,part");
  for (int64_t j = 0; j < d; ++j) out << ",v" << j;
  out << '\n';
}

}  // namespace

Status WriteSumTable(std::ostream& out, TableFormat format, const SentenceResult& sentence,
                     const EncodingParams& params, const Progress& progress) {
  const int64_t seq = sentence.parts.tokens();
  const int64_t d = sentence.parts.embedding.cols;
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {seq, 4, d};
    out << NpyHeader(shape);
  } else {
    WriteSumCsvHeader(out, false, d);
  }
  if (Status s = WriteSentenceRows(out, format, sentence, params, "", 0, seq, progress); !s.ok()) {
    return s;
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

Status WriteBatchSumTable(std::ostream& out, TableFormat format,
                          const std::vector<SentenceResult>& rows, const EncodingParams& params,
                          const Progress& progress) {
  assert(!rows.empty() && "a batch has at least one row");
  const auto batch = static_cast<int64_t>(rows.size());
  const int64_t seq = rows.front().parts.tokens();
  const int64_t d = rows.front().parts.embedding.cols;
  for (const SentenceResult& r : rows) {
    assert(r.parts.tokens() == seq && "every row of a batch has the same length");
    (void)r;
  }
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {batch, seq, 4, d};
    out << NpyHeader(shape);
  } else {
    WriteSumCsvHeader(out, true, d);
  }
  for (int64_t b = 0; b < batch && out; ++b) {
    if (Status s = WriteSentenceRows(out, format, rows[static_cast<size_t>(b)], params,
                                     std::to_string(b) + ",", b * seq, batch * seq, progress);
        !s.ok()) {
      return s;
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

}  // namespace pe
