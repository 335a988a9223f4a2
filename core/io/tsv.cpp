#include "io/tsv.h"

#include <cassert>
#include <charconv>
#include <cmath>

namespace pe {

std::string TsvNumber(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  // Shortest round trip for float (C++17 to_chars without a precision), so 0.1f prints as
  // "0.1", not as its double expansion 0.100000001.
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
  assert(r.ec == std::errc() && "32 characters hold any float");
  return std::string(buf, r.ptr);
}

std::string TsvLabel(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::string TsvRow(std::span<const float> values, std::string_view label) {
  std::string out;
  out.reserve(values.size() * 12 + label.size() + 1);
  bool first = true;
  if (!label.empty()) {
    out += TsvLabel(label);
    first = false;
  }
  for (float v : values) {
    if (!first) out += '\t';
    out += TsvNumber(v);
    first = false;
  }
  out += '\n';
  return out;
}

Status CheckTsvSize(int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0 || (cols > 0 && rows > kMaxTsvCells / cols)) {
    return InvalidArgument("the table has " + std::to_string(rows) + " x " + std::to_string(cols) +
                           " cells, more than the " + std::to_string(kMaxTsvCells) +
                           " that are copied as text; zoom in or narrow the table and copy a "
                           "row or a value");
  }
  return {};
}

Result<std::string> TsvTable(std::span<const float> values, int64_t rows, int64_t cols,
                             std::span<const std::string> col_names,
                             std::span<const std::string> row_names, std::string_view corner) {
  if (Status s = CheckTsvSize(rows, cols); !s.ok()) return s;
  assert(static_cast<int64_t>(values.size()) == rows * cols && "values must be (rows, cols)");
  assert((col_names.empty() || static_cast<int64_t>(col_names.size()) == cols) &&
         "one name per column, or none");
  assert((row_names.empty() || static_cast<int64_t>(row_names.size()) == rows) &&
         "one name per row, or none");
  std::string out;
  if (!col_names.empty()) {
    bool first = true;
    if (!row_names.empty()) {
      out += TsvLabel(corner);
      first = false;
    }
    for (const std::string& name : col_names) {
      if (!first) out += '\t';
      out += TsvLabel(name);
      first = false;
    }
    out += '\n';
  }
  for (int64_t r = 0; r < rows; ++r) {
    const std::span<const float> row =
        values.subspan(static_cast<size_t>(r * cols), static_cast<size_t>(cols));
    if (row_names.empty()) {
      out += TsvRow(row);
    } else {
      // A row named "" still keeps its label column.
      std::string line = TsvLabel(row_names[static_cast<size_t>(r)]);
      for (float v : row) {
        line += '\t';
        line += TsvNumber(v);
      }
      line += '\n';
      out += line;
    }
  }
  return out;
}

}  // namespace pe
