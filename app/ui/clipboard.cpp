#include "ui/clipboard.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <vector>

#include "io/tsv.h"

namespace pe {
namespace {

std::vector<std::string> ColumnNames(const CopySource& s) {
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(s.cols));
  for (int64_t c = 0; c < s.cols; ++c) names.push_back(s.col_name(c));
  return names;
}

// Rows [row0, row0 + rows) of `s` as TSV with its header.
Result<std::string> Rows(const CopySource& s, int64_t row0, int64_t rows) {
  if (Status st = CheckTsvSize(rows, s.cols); !st.ok()) return st;
  std::vector<float> values(static_cast<size_t>(rows * s.cols));
  std::vector<std::string> row_names;
  for (int64_t r = 0; r < rows; ++r) {
    row_names.push_back(s.row_name(row0 + r));
    for (int64_t c = 0; c < s.cols; ++c) {
      values[static_cast<size_t>(r * s.cols + c)] = s.value(row0 + r, c);
    }
  }
  const std::vector<std::string> cols = ColumnNames(s);
  return TsvTable(values, rows, s.cols, cols, row_names, s.corner);
}

}  // namespace

std::string CopyValueText(const CopySource& source, int64_t row, int64_t col) {
  return TsvNumber(source.value(row, col));
}

Result<std::string> CopyRowText(const CopySource& source, int64_t row) {
  return Rows(source, row, 1);
}

Result<std::string> CopyTableText(const CopySource& source) {
  return Rows(source, 0, source.rows);
}

void OpenCopyMenu(ImGuiID menu) {
  ImGui::OpenPopupEx(menu);
}

void DrawCopyMenu(AppState& state, ImGuiID menu, const CopySource& source, int64_t row,
                  int64_t col) {
  if (!ImGui::BeginPopupEx(menu, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoTitleBar |
                                     ImGuiWindowFlags_NoSavedSettings)) {
    return;
  }
  const double now = ImGui::GetTime();
  const bool cell = row >= 0 && row < source.rows && col >= 0 && col < source.cols;
  if (ImGui::MenuItem("Copy value", nullptr, false, cell)) {
    const std::string text = CopyValueText(source, row, col);
    ImGui::SetClipboardText(text.c_str());
    state.toast = {"Copied " + text, false, now + 3.0};
  }
  if (ImGui::MenuItem("Copy row", nullptr, false, cell)) {
    Result<std::string> text = CopyRowText(source, row);
    if (text.ok()) {
      ImGui::SetClipboardText(text.value().c_str());
      state.toast = {"Copied the row " + source.row_name(row) + " (" + std::to_string(source.cols) +
                         " values, tab-separated)",
                     false, now + 3.0};
    } else {
      state.toast = {"Not copied: " + text.message(), true, now + 8.0};
    }
  }
  if (ImGui::MenuItem("Copy table as TSV")) {
    Result<std::string> text = CopyTableText(source);
    if (text.ok()) {
      ImGui::SetClipboardText(text.value().c_str());
      state.toast = {"Copied the table (" + std::to_string(source.rows) + " x " +
                         std::to_string(source.cols) + ", tab-separated)",
                     false, now + 3.0};
    } else {
      state.toast = {"Not copied: " + text.message(), true, now + 8.0};
    }
  }
  ImGui::EndPopup();
}

}  // namespace pe
