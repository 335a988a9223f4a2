// Everything the user can change, in plain structs owned by main. Panels edit these; the
// caches (derived.h, ui.h) turn them into tables. No GL or GLFW here.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "colormap.h"
#include "input_layer.h"
#include "plot/plot.h"
#include "positional_encoding.h"
#include "view_kind.h"

namespace pe {

struct PanelVisibility {
  bool controls = true;
  bool heatmap = true;
  bool curves = true;
  bool sums = true;
  bool operator==(const PanelVisibility&) const = default;
};

// The parameters of the model input the app shows: what `export` takes as flags too.
struct ModelParams {
  PeParams pe;
  InputLayerParams input;
  TextExample example;
  std::vector<int64_t> curve_dims = {4, 5, 6, 7};
  ColormapId colormap = ColormapId::kRdBu;
  MemoryCap cap;
  bool operator==(const ModelParams&) const = default;
};

// Vectors typed by hand, to reproduce worked examples (default: the blog's 3 tokens, d = 3).
struct ManualVectors {
  int tokens = 3;
  int dims = 3;
  std::vector<float> embedding = {0.1f, 0.3f, 0.4f, 0.2f, 0.6f,
                                  0.5f, 0.7f, 0.9f, 0.8f};  // (tokens, dims)
  std::vector<float> positional = {0.01f, 0.02f, 0.03f, 0.04f, 0.05f,
                                   0.06f, 0.07f, 0.08f, 0.09f};  // (tokens, dims)
  bool operator==(const ManualVectors&) const = default;
};

// Linked views: what the pointer is on (written during a frame, read the next) and which token
// is selected.
struct Selection {
  int64_t hover_position = -1;  // absolute position under the pointer last frame, or -1
  int64_t hover_dim = -1;
  int64_t next_hover_position = -1;
  int64_t next_hover_dim = -1;
  int selected_token = 0;  // -1: all tokens
};

struct HeatmapViewState {
  PlotRange view;
  bool fitted = false;  // false: fit the view to the table next frame
};

struct CurvesViewState {
  PlotRange view{0, 100, -1.15, 1.15};
  bool fitted = false;
  std::string search;
  bool markers = true;
};

struct SumsViewState {
  bool manual = false;  // "type the vectors yourself"
  PlotRange view{0, 1, -1, 1};
  bool fitted = false;
};

// The export dialog: what is exported, where, and how large.
struct ExportDialogState {
  bool open_requested = false;  // open the dialog next frame
  ViewKind view = ViewKind::kHeatmap;
  std::string folder;   // empty: the current directory
  std::string name;     // file name; its extension picks the format
  int format = 1;       // index into kExportFormats: png, svg, pdf, csv, npy
  int size_preset = 0;  // 0: 1x, 1: 2x, 2: custom
  float width = 960, height = 540, scale = 1;
  std::string title;  // empty: a title that names the parameters
  std::string error;  // why the last Save was refused
  // The user picked selected_token (a token chip, the token list, or the dialog's checkbox):
  // exported heatmaps and curves outline it only then, as `export --token N` does.
  bool token_chosen = false;
  std::string confirm_path;  // non-empty: asking whether to replace this existing file
  bool saving = false;       // the dialog's export is running: stay open until it ends
};

// A short message in the corner: what was saved, or why not.
struct Toast {
  std::string text;
  bool error = false;
  double until = 0;  // ImGui time at which it disappears
};

struct AppState {
  ModelParams params;
  PanelVisibility show;
  Selection selection;
  HeatmapViewState heatmap;
  CurvesViewState curves;
  SumsViewState sums;
  ManualVectors manual;
  std::array<int64_t, 3> fitted_extents = {-1, -1, -1};  // (d_model, max_len, offset) of the views
  ViewKind focused_view = ViewKind::kHeatmap;            // the panel Ctrl+S exports
  ExportDialogState export_dialog;
  Toast toast;
};

}  // namespace pe
