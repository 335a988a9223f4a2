#include "views/view_tables.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "io/file_writers.h"

namespace pe {

Status ValidateDims(const PeParams& params, const std::vector<int64_t>& dims) {
  if (dims.empty()) return InvalidArgument("dims must name at least one dimension");
  std::set<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= params.d_model) {
      return InvalidArgument("dims: dimension " + std::to_string(d) + " is outside [0, " +
                             std::to_string(params.d_model - 1) + "] for d_model " +
                             std::to_string(params.d_model));
    }
    if (!seen.insert(d).second) {
      return InvalidArgument("dims: dimension " + std::to_string(d) + " is listed twice");
    }
  }
  return {};
}

Result<std::vector<int64_t>> ParseDimList(const std::string& text) {
  std::vector<int64_t> dims;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    auto parse = [](const std::string& s, int64_t& v) {
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      return ec == std::errc() && p == s.data() + s.size() && !s.empty();
    };
    const size_t dash = item.find('-', 1);
    int64_t a = 0, b = 0;
    if (dash != std::string::npos && parse(item.substr(0, dash), a) &&
        parse(item.substr(dash + 1), b) && a >= 0 && a <= b && b - a < kMaxDModel) {
      for (int64_t d = a; d <= b; ++d) dims.push_back(d);
    } else if (parse(item, a)) {
      dims.push_back(a);
    } else {
      return InvalidArgument("dims: \"" + item +
                             "\" is not a dimension index or a range like 4-7 (in \"" + text +
                             "\")");
    }
    start = comma + 1;
  }
  return dims;
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
Status WritePeColumns(std::ostream& out, TableFormat format, const PeParams& params,
                      const std::vector<int64_t>& dims, const MemoryCap& cap,
                      const Progress& progress) {
  if (Status s = ValidatePeParams(params); !s.ok()) return s;
  const bool all = dims.empty();
  const int64_t cols = all ? params.d_model : static_cast<int64_t>(dims.size());
  if (Status s =
          CheckFloatCount(all ? "the positional-encoding table" : "the curves table",
                          static_cast<uint64_t>(params.max_len), static_cast<uint64_t>(cols), cap);
      !s.ok()) {
    return s;
  }
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {params.max_len, cols};
    out << NpyHeader(shape);
  } else {
    out << "pos";
    for (int64_t j = 0; j < cols; ++j) out << ",d" << (all ? j : dims[static_cast<size_t>(j)]);
    out << '\n';
  }
  const int64_t block_rows = std::min(TableBlockRows(cols), params.max_len);
  std::vector<float> block(static_cast<size_t>(block_rows * (all ? params.d_model : cols)));
  std::vector<float> picked(all ? 0 : static_cast<size_t>(block_rows * cols));
  for (int64_t r0 = 0; r0 < params.max_len && out; r0 += block_rows) {
    const int64_t rows = std::min(block_rows, params.max_len - r0);
    const float* src = block.data();
    if (all) {
      FillPeBlock(params, r0, rows, 0, cols, block.data());
    } else {
      for (int64_t j = 0; j < cols; ++j) {
        // One column at a time: (rows, 1) blocks, gathered row-major below.
        FillPeBlock(params, r0, rows, dims[static_cast<size_t>(j)], 1, block.data() + j * rows);
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

Status WriteHeatmapTable(std::ostream& out, TableFormat format, const PeParams& params,
                         const MemoryCap& cap, const Progress& progress) {
  return WritePeColumns(out, format, params, {}, cap, progress);
}

Status WriteCurvesTable(std::ostream& out, TableFormat format, const PeParams& params,
                        const std::vector<int64_t>& dims, const MemoryCap& cap,
                        const Progress& progress) {
  if (Status s = ValidatePeParams(params); !s.ok()) return s;
  if (Status s = ValidateDims(params, dims); !s.ok()) return s;
  return WritePeColumns(out, format, params, dims, cap, progress);
}

Status WriteSumTable(std::ostream& out, TableFormat format, const SentenceResult& sentence,
                     const PeParams& params) {
  const InputParts& parts = sentence.parts;
  const int64_t seq = parts.tokens();
  const int64_t d = parts.embedding.cols;
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {seq, 4, d};
    out << NpyHeader(shape);
    for (int64_t t = 0; t < seq; ++t) {
      for (Part p : kAllParts) WriteFloatsLE(out, parts.part(p).row(t), d);
    }
  } else {
    out << "token,position,id,part";
    for (int64_t j = 0; j < d; ++j) out << ",v" << j;
    out << '\n';
    for (int64_t t = 0; t < seq; ++t) {
      // Quote the token text as CSV requires (RFC 4180): commas, quotes, spaces.
      std::string quoted = "\"";
      for (char c : sentence.tokens[static_cast<size_t>(t)].text) {
        if (c == '"') quoted += '"';
        quoted += c;
      }
      quoted += '"';
      for (Part p : kAllParts) {
        out << quoted << ',' << params.offset + t << ',' << sentence.ids[static_cast<size_t>(t)]
            << ',' << PartName(p);
        const float* v = parts.part(p).row(t);
        for (int64_t j = 0; j < d; ++j) out << ',' << FormatFloat(v[j]);
        out << '\n';
      }
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

}  // namespace pe
