// Tab-separated text of tables, for the clipboard (a spreadsheet pastes it into cells): numbers
// as the shortest decimal that reads back as the same float32, one line per row ended by '\n'.
// Not a file format: no quoting; a tab or line break inside a label becomes a space.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"

namespace pe {

// Tables with more cells than this are refused (about 10-16 MB of text).
inline constexpr int64_t kMaxTsvCells = int64_t{1} << 20;

// The shortest decimal that reads back as exactly `v` ("0.84147096", "-1e-05"); "nan", "inf",
// "-inf" for the non-finite.
std::string TsvNumber(float v);

// `text` with every tab, CR and LF turned into a space.
std::string TsvLabel(std::string_view text);

// One line: `label` (if not empty) then the values, tab-separated, ended by '\n'.
std::string TsvRow(std::span<const float> values, std::string_view label = {});

// A table `values` (rows, cols) row-major as a header line (`corner`, then `col_names`) and one
// line per row (`row_names[r]`, then the values). The names may be empty spans: then the header
// line or the label column is left out. Refused, naming the size and kMaxTsvCells, when
// rows * cols exceeds kMaxTsvCells. `col_names` / `row_names`, when given, have cols / rows
// entries.
Result<std::string> TsvTable(std::span<const float> values, int64_t rows, int64_t cols,
                             std::span<const std::string> col_names,
                             std::span<const std::string> row_names, std::string_view corner = {});

// Checks the size alone (as TsvTable does), before the caller computes the values.
Status CheckTsvSize(int64_t rows, int64_t cols);

}  // namespace pe
