// The check panel: the path of a table (typed, or chosen with the built-in file chooser), a
// teaching case, then what `check` finds in full sentences at the top (the identification, and
// how the table differs from the window's parameters, or the model's), the buttons "Apply the
// identified parameters" and "Compare with model ...", the worst cells (a click zooms the error
// map to one), and the error map and histogram below. The report is computed on a job of its
// own where the window has workers (never in a frame), in the frame otherwise (tests).
#pragma once

#include <imgui.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/check.h"
#include "panels/panels.h"

namespace pe {

struct CheckPanelRequest {
  std::string table;          // FILE[:TENSOR]
  ModelParams params;         // the window's: the intent, and the error map's reference
  std::string compare_model;  // a catalogue model to check against too (empty: none)
  int compare_layer = 0;
  bool operator==(const CheckPanelRequest&) const = default;
};

struct CheckPanelResult {
  CheckPanelRequest request;
  std::string error;  // the table cannot be read or checked
  std::string name, dtype;
  int64_t rows = 0, cols = 0;
  int64_t first_position = 0;         // of the error map's reference
  std::optional<CheckReport> report;  // against the window's parameters
  std::string intent;                 // what the window's parameters are, in words
  // The cells farthest from the error map's reference (the window's parameters), worst first.
  std::vector<CheckCell> worst;
  std::optional<CheckReport> model_report;  // against compare_model's layer
  std::string model_label, model_error;
};

// What the panel shows for `request` (reads the file, runs `check` twice at most).
CheckPanelResult ComputeCheckPanel(const CheckPanelRequest& request);

// The report in full sentences: what the table is, whether it is what was meant (`meant`
// names it: "the window's parameters", "llama-3.1-8b, layer 0"), the warnings and each
// finding of the diagnosis.
std::vector<std::string> CheckReportSentences(const CheckReport& report, const std::string& meant);

// Writes teaching case `name`'s table (check_cases.h) as an NPY file in the temporary folder
// (pe-explorer-check-cases/NAME.npy) and returns its path.
Result<std::string> WriteCheckCase(std::string_view name, const MemoryCap& cap = {});

// The check view's zoom onto a cell: a window of a few columns and rows around it, inside the
// table's extent.
PlotRange CheckCellWindow(const ViewRange& whole, int64_t position, int64_t column);

struct CheckPanelCache;  // check_panel.cpp
// The check view's panel (its registry entry's draw).
void DrawCheckPanel(const PanelEntry& p, AppState& state, const Derived& derived, UiCaches& caches,
                    UiServices& services);
// Where the last frame drew the panel's buttons (screen coordinates of their centres), for tests.
struct CheckPanelLayout {
  ImVec2 apply{-1, -1};             // "Apply the identified parameters"
  std::vector<ImVec2> worst_cells;  // each worst cell's line
};
const CheckPanelLayout* DrawnCheckPanel(const UiCaches& caches);
// The last report the panel shows (null: none yet), for tests.
const CheckPanelResult* ShownCheckPanel(const UiCaches& caches);

}  // namespace pe
