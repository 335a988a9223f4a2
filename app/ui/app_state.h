// Everything the user can change, in plain structs owned by main. Panels edit these; the
// caches (derived.h, ui.h) turn them into tables. No GL or GLFW here.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "encoding/positional_encoding.h"
#include "figure/colormap.h"
#include "figure/figure_render.h"
#include "io/tensor_file.h"
#include "model/input_layer.h"
#include "model/model_params.h"
#include "ui/plot.h"
#include "ui/ui_settings.h"
#include "views/figure_export.h"
#include "views/view_kind.h"

namespace pe {

struct PanelVisibility {
  bool controls = true;
  bool heatmap = true;
  bool curves = true;
  bool sums = true;
  bool rotation = true;
  bool frequencies = true;
  bool scheme_views = true;  // the views of the scheme below the heatmap and curves
  bool operator==(const PanelVisibility&) const = default;
};

// Vectors typed by hand, to reproduce worked examples (default: the blog's 3 tokens, d = 3,
// "I love NLP", whose sum the blog works out with scaling off).
struct ManualVectors {
  static constexpr int kMaxTokens = 6;
  static constexpr int kMaxDims = 8;
  int tokens = 3;      // 1 to kMaxTokens
  int dims = 3;        // 1 to kMaxDims
  bool scale = false;  // multiply the embeddings by sqrt(dims); this editor's own switch
  std::vector<std::string> labels = {"I", "love", "NLP"};  // (tokens) row names
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
  int64_t batch_row = 0;   // the row of a batch of typed ids the sums show
};

// The pan and zoom window of a view that owns one (views/view_registry.h: ViewWindowSpec): what
// its panel shows and what an export of it draws; fitted to the whole table when the table
// changes (RefitOnNewExtents), or as a session restores it.
struct ViewWindowState {
  PlotRange view;
  bool fitted = false;  // false: fit the view to the table next frame
};

// The curves' own state beside their window.
struct CurvesViewState {
  std::string search;
  bool markers = true;
  // The columns chosen before a narrower table dropped some (d 5 keeps only d4 of 4,5,6,7), and
  // what was left: while the choice stays as it was left, a wider table brings them back.
  std::vector<int64_t> dims_before_narrowing, dims_after_narrowing;
};

struct SumsViewState {
  bool manual = false;  // "type the vectors yourself"
};

// The rotation view: the position p of R_p (-1: the first position + 10) and whether it plays
// (p advances every frame, so the arrows turn).
struct RotationViewState {
  int64_t position = -1;
  bool playing = false;
};

// The walkthrough panel: the step on show (0 to 7, views/walkthrough.h).
struct WalkthroughViewState {
  int step = 0;
  PlotRange view;        // the step's table image
  int fitted_step = -1;  // the step `view` was fitted to; another step fits again
};

// The compare view's window (score: keys by queries; table: columns by positions), shared by
// its three plots and what an export of it draws; fitted to both tables when they change. Its
// notes sit under a fold, closed at first, so the plots get the panel.
struct CompareViewState {
  PlotRange view{0, 0, 0, 0};
  ViewRange whole{0, 0, 0, 0};  // the window of both tables `view` was fitted to
  bool fitted = false;
  bool notes_open = false;
};

// The built-in file chooser (no native dialog needed): the folder listed, the entry picked,
// the extensions shown, and whether it is open.
struct FileChooserState {
  bool open_requested = false;
  std::string folder;  // empty: the current directory
  int picked = -1;     // index into the listing, -1: none
  std::string error;   // why the folder cannot be listed
};

// The check view's window, in the loaded table's coordinates (its columns by its positions): its
// own, since that table may be taller or narrower than the current one, whose heatmap window
// cannot hold it; fitted to the whole file when a table of another shape is loaded.
struct CheckViewState {
  PlotRange view{0, 0, 0, 0};
  ViewRange whole{0, 0, 0, 0};  // the file's extent `view` was fitted to
  bool fitted = false;
  // "Compare with model ...": the catalogue model and layer the table is also checked against
  // (empty: none), and the model's layer count once picked.
  std::string compare_model;
  int compare_layer = 0;
  // The built-in file chooser of the check panel's Browse button.
  FileChooserState chooser;
  // A teaching case's table could not be written or loaded: why (shown in the panel).
  std::string case_error;
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
  float font_size = 12;  // the body text's size in layout units (export --font-size)
  std::string title;     // empty: a title that names the parameters
  std::string error;     // why the last Save was refused
  // The user picked selected_token (a token chip, the token list, or the dialog's checkbox):
  // exported heatmaps and curves outline it only then, as `export --token N` does.
  bool token_chosen = false;
  std::string confirm_path;    // non-empty: asking whether to replace this existing file
  bool saving = false;         // the dialog's export is running: stay open until it ends
  std::string copied_command;  // what "Copy command" last put on the clipboard
  // The command line shown and what it was made from, so it is made again only when one of
  // these changes rather than every frame.
  struct CommandLine {
    ViewKind view = ViewKind::kHeatmap;
    ModelParams params;
    ViewSelection selection;
    FigureSize size;
    std::string title, path, line;
  };
  std::optional<CommandLine> command;
};

// A short message in the corner: what was saved, or why not.
struct Toast {
  std::string text;
  bool error = false;
  double until = 0;  // ImGui time at which it disappears
};

// Text being typed into a numeric field: applied on Enter or when the field loses focus, so a
// half-typed value (the "1" on the way to "16") never reaches the tables.
struct FieldEdit {
  std::string text;
  bool active = false;  // the field had keyboard focus last frame
  std::string error;    // why the last value typed here was refused
};

// Sessions (ui/session.h): the file Save writes to, what the File menu asked for (handled at
// the start of the next frame, with the pending edits), and what the window looked like last
// frame for the next save.
struct SessionUiState {
  std::string path;  // the .pexs file open; empty: none yet (Save asks for a name)
  std::vector<std::string> open_requests;  // sessions or figures to open (menu, drop, command line)
  bool new_requested = false;              // "New session (defaults)"
  bool save_requested = false;             // Ctrl+S / File > Save
  std::string save_as_request;             // a path to save the session to
  bool open_dialog = false, save_as_dialog = false;  // open the path dialog next frame
  std::string dialog_path;                           // the path typed into it
  std::optional<ViewKind> shown_tab;                 // the scheme view's tab on show last frame
  int window_width = 0, window_height = 0;           // the window's size (0: not known, headless)
  std::string notice;  // a message for the toast (shown from the next frame)
  bool notice_error = false;
};

// Undo / redo of parameter changes: the parameters (and selected token) before each change.
// A change is committed as one step when no widget is held, so a slider drag is one step.
struct UndoStep {
  ModelParams params;
  int selected_token = 0;
};
struct UndoHistory {
  static constexpr size_t kMaxSteps = 100;
  std::vector<UndoStep> undo, redo;
  std::optional<UndoStep> committed;  // the state after the last step; empty before the first frame
};

// File > Open (and a file dropped on the window): a table file for the model and what it is
// used for (jobs/table_load_job.h TableTarget: 0 embeddings, 1 learned position table, 2 T5
// bias). The tensor list is read when a path is submitted, never per frame.
// A loaded table's file as it was when the table was read (the views show that copy): a file
// rewritten on disk afterwards (np.save, torch.save) is offered for reloading, never re-read by
// itself.
struct WatchedTable {
  std::string spec;   // the field's FILE[:TENSOR]; empty: nothing loaded there
  uint64_t hash = 0;  // of the table read
  int64_t size = -1;  // the file's size and modification time then (-1: could not stat)
  int64_t mtime_ns = 0;
  int64_t now_size = -1;  // and at the last look
  int64_t now_mtime_ns = 0;
  bool changed = false;  // they differ: the window says so and offers Reload
};

struct OpenTableState {
  bool open_requested = false;  // open the dialog next frame
  std::string path;             // as typed: FILE, or FILE:TENSOR
  std::string listed_path;      // the file `listing` and `note` describe
  std::vector<TensorListing> listing;
  std::string note;        // what the file is (or why it cannot be listed)
  bool tokenizer = false;  // the listed file is a tokenizer (tokenizer.json, GPT-2 vocab.json)
  int picked = -1;         // the tensor chosen in `listing`
  int target = 0;
  std::string error;    // why the last load was refused
  bool loaded = false;  // a load was applied: the dialog closes
  // The loaded tables' files (by TableTarget: embeddings, position table, T5 bias), looked at
  // once a second.
  WatchedTable watched[3];
  double next_watch = 0;
};

// The model picker at the top of the controls (model_controls.cpp): the config file path being
// typed and why the last pick was refused (shown in place until another pick).
struct ModelPickState {
  bool enter_path = false;  // "Open model config..." was chosen: the path field shows
  std::string path;
  std::string error;
  // What the last pick, layer change or Detach did and replaced, for the status line
  // ("layer 5 applied; your edit of rope theta was replaced - Undo restores it"), shown until
  // `note_until` (ImGui time) or the next change of the parameters.
  std::string note;
  double note_until = 0;
  std::shared_ptr<const ModelSchedule> note_model;  // the model and layer the note is about
  int64_t note_layer = -1;
  int64_t menu_layer = -1;  // the layer a right-click on the layers view opened its menu for
  // A config.json or GGUF path to read on the loading job (the Open button); the outcome is
  // applied by the frame (open_table_dialog.cpp), as a dropped model file's is.
  std::string open_request;
};

struct AppState;
// An edit made while a frame is drawn. It is applied at the start of the next frame, before
// anything is derived, so every panel of a frame draws from the same state.
using StateEdit = std::function<void(AppState&)>;

struct AppState {
  ModelParams params;
  PanelVisibility show;
  Selection selection;
  // The windows of the views that own one (heatmap, curves, sum, score, ...), by view.
  ByView<ViewWindowState> windows;
  CurvesViewState curves;
  SumsViewState sums;
  RotationViewState rotation;
  WalkthroughViewState walkthrough;
  CompareViewState compare;
  CheckViewState check_view;
  ManualVectors manual;
  // (cols, rows, first position, scheme, value range as bits) the views were fitted to
  std::array<int64_t, 6> fitted_extents = {-1, -1, -1, -1, -1, -1};
  // Set by a restored session: the encoding its views were saved with. When that encoding
  // arrives (built beside the frames, for a large learned table) its extents are taken as the
  // fitted ones, so the saved views stay; a change of parameters before then clears it.
  std::optional<EncodingParams> restored_views_for;
  ViewKind focused_view = ViewKind::kHeatmap;  // the panel Ctrl+E exports
  std::optional<ViewKind> select_tab;  // a scheme view to bring to front next frame, then cleared
  ExportDialogState export_dialog;
  Toast toast;
  SessionUiState session;
  UndoHistory history;
  // Transient: edits waiting for the next frame, and numeric fields being typed into.
  std::vector<StateEdit> pending_edits;
  std::unordered_map<unsigned, FieldEdit> fields;  // by ImGui id
  // A refused combo choice's reason, for the status line: set by the combo each frame it is
  // drawn, cleared at the start of every frame.
  std::string refusal_line;
  UiSettings ui;  // scale, theme, presentation mode, shortcut overlay (ui_settings.h)
  OpenTableState open_table;
  // Files dropped on the window since the last frame (window.cpp's drop callback queues them;
  // the frame hands each to what opens its kind).
  std::vector<std::string> dropped_files;
  ModelPickState model_pick;
  // Presentation mode was just switched on: the frame presents the tab on show (it knows which
  // views are on screen).
  bool present_tab_on_show = false;
};

// Queues `edit` for the start of the next frame.
inline void Edit(AppState& state, StateEdit edit) {
  state.pending_edits.push_back(std::move(edit));
}

}  // namespace pe
