// Copying numbers out of the window as tab-separated text (core/io/tsv.h): a value, a row or a
// whole table, from a right-click menu on the heatmap and the sums panel's tables.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "ui/app_state.h"

namespace pe {

// A table as the panel shows it: `rows` x `cols` values with names for both.
struct CopySource {
  int64_t rows = 0, cols = 0;
  std::string corner;                            // the header's first cell (what rows are)
  std::function<std::string(int64_t)> col_name;  // (col) -> header cell
  std::function<std::string(int64_t)> row_name;  // (row) -> first cell of the row
  std::function<float(int64_t, int64_t)> value;  // (row, col) -> value
};

// The value at (row, col) as the shortest text that reads back as the same float32.
std::string CopyValueText(const CopySource& source, int64_t row, int64_t col);
// The header line and row `row`.
Result<std::string> CopyRowText(const CopySource& source, int64_t row);
// The header line and every row; refused past kMaxTsvCells with a message naming the size.
Result<std::string> CopyTableText(const CopySource& source);

// The right-click menu "Copy value / Copy row / Copy table as TSV" for the cell (row, col) of
// `source`, opened by OpenCopyMenu. The text goes to ImGui's clipboard; a short toast says what
// was copied, or why not. The menu is named by an ID taken once (ImGui::GetID) in the panel,
// so a table or plot that pushes IDs of its own can open it from any cell.
void OpenCopyMenu(ImGuiID menu);
void DrawCopyMenu(AppState& state, ImGuiID menu, const CopySource& source, int64_t row,
                  int64_t col);

}  // namespace pe
