// One free function per panel; each draws inside the child region the layout (ui.cpp) gives it.
#pragma once

#include <cstdio>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ui/app_state.h"
#include "ui/derived.h"
#include "ui/ui.h"

namespace pe {

void DrawControlsPanel(AppState& state, const Derived& derived);
// The scheme's "What you are looking at" (the controls panel ends with it), for presentation.
void DrawSchemeExplanation(const AppState& state, const Derived& derived);
void DrawHeatmapPanel(AppState& state, const Derived& derived, HeatmapCache& cache,
                      UiServices& services, DrawnRecord& drawn);
void DrawCurvesPanel(AppState& state, const Derived& derived, CurvesCache& cache,
                     DrawnRecord& drawn);
void DrawSumsPanel(AppState& state, const Derived& derived, DrawnRecord& drawn);
// The guided walkthrough from text to model input: presets, a step list, Back / Next, and the
// step's explanation, formula, numbers and table (walkthrough_panel.cpp).
void DrawWalkthroughPanel(AppState& state, const Derived& derived, WalkthroughCache& cache,
                          UiServices& services, DrawnRecord& drawn);

// The compare view: A | B | A - B with linked hover, and the --versus text (compare_panel.cpp).
void DrawComparePanel(AppState& state, const Derived& derived, ComparePanelCache& cache,
                      UiServices& services, DrawnRecord& drawn);

// Where a figure panel's plot window lives (DrawFigurePanel).
enum class FigureWindow {
  kFigure,    // the figure's own view; double-click fits it again
  kScore,     // AppState's score window (keys by queries), which an export draws too; the
              // figure is computed for it
  kHeatmap,   // the heatmap's window (dims by positions): panning here moves the heatmap
  kOwnTable,  // the check view's own window over the loaded table
};

// The panels that show a view, in layout order: the top row (heatmap, curves), then the views
// below it that apply to the current scheme. Each entry holds every fact of its panel.
struct PanelEntry {
  ViewKind view;
  const char* id;
  // null: the view's title (ViewEntry::title), as the export's default title says it; set only
  // where the panel must say something else.
  const char* title = nullptr;
  bool bottom_row;               // below the heatmap and curves
  bool PanelVisibility::*shown;  // the switch that shows it (the View menu)
  int texture_slot;              // its image's texture slot (the heatmap's is 0)
  void (*draw)(const PanelEntry& p, AppState& state, const Derived& derived, UiCaches& caches,
               UiServices& services);
  // A figure panel's window and the controls above its figure (null: none).
  FigureWindow window = FigureWindow::kFigure;
  void (*controls)(AppState& state, const Derived& derived, ViewKind view) = nullptr;
  // The title for this table when it says something else than `title` (null: `title`).
  const char* (*title_for)(const Derived& derived) = nullptr;
  bool scrollbar = false;    // the panel scrolls with the wheel (sums); plots take it otherwise
  bool needs_model = false;  // shown only while a model is open (the layers view)
};
std::span<const PanelEntry> ViewPanels();
// The entry's title for the current table (title_for, else title, else the view's title).
const char* PanelTitle(const PanelEntry& p, const Derived& derived, const ModelParams& params);
// A view drawn from its core Figure (rotation, frequencies, score, ...) at the panel's size,
// with the entry's controls above it.
void DrawFigurePanel(const PanelEntry& p, AppState& state, const Derived& derived,
                     FigurePanelCache& cache, UiServices& services, DrawnRecord& drawn);
// The controls above a figure panel (figure_panel.cpp): the rotation's position, the scores'
// content (and mask for score and attention), the attention's query, the precision's format,
// the check view's table, the similarity measure.
void RotationControls(AppState& state, const Derived& derived, ViewKind view);
void ScoreControls(AppState& state, const Derived& derived, ViewKind view);
void AttentionControls(AppState& state, const Derived& derived, ViewKind view);
void PrecisionControls(AppState& state, const Derived& derived, ViewKind view);
void SimilarityControls(AppState& state, const Derived& derived, ViewKind view);
// The mrope-neighbours view's query patch: a slider per image index, t, h and w, each set
// through the parameter table as --mrope-patch (mrope_controls.cpp).
void MropeNeighboursControls(AppState& state, const Derived& derived, ViewKind view);
// The attention temperature's choice, numbers and curve (temperature_controls.cpp), under the
// score views' controls.
void TemperatureControls(AppState& state, const Derived& derived);
void DrawStatusLine(const AppState& state, const Derived& derived);

// The controls and the explanation of each scheme family that has its own file: ALiBi and T5
// (bias_controls.cpp), xPos (xpos_controls.cpp). Fields are set through EditField.
void DrawBiasControls(AppState& state);
void DrawBiasExplanation(const AppState& state, const Derived& derived);
void DrawXposControls(AppState& state);
void DrawXposExplanation(const AppState& state, const Derived& derived);
void DrawNopeControls(AppState& state);
void DrawNopeExplanation(const AppState& state, const Derived& derived);
void DrawMropeControls(AppState& state);  // mrope_controls.cpp
void DrawMropeExplanation(const AppState& state, const Derived& derived);
// Sets a field of the parameter table from its text, as the command line does: checked on a copy
// first, refused with its reason under `label`, else queued for the next frame.
void EditField(AppState& state, const char* label, const char* flag, const std::string& text);
// Several fields as one edit (flag, text), set in order and checked together as EditField checks
// one; a refusal goes under `label`.
void EditFields(AppState& state, const char* label,
                std::vector<std::pair<std::string, std::string>> edits);
// What EditField checks, without the window: `params` with `text` set through `field` (its
// parse, range and table rules), then the encoding's checks in the command line's order
// (ValidateEncodingParams, CheckLoadedTables), the memory cap and a new --versus's B. The
// message is the core's, naming flags (EditField puts it in the window's terms).
Result<ModelParams> FieldEditResult(const ModelParams& params, const ParamField& field,
                                    const std::string& text);
// A combo whose entries are a field's values: `names` as the command line spells them, `labels`
// as the window shows them. `edit`, when given, makes the edit of a chosen name itself (and
// returns true) where one choice needs more than its own field set.
using ComboEdit = bool (*)(AppState& state, const char* label, const std::string& name);
void FieldCombo(AppState& state, const char* label, const char* flag,
                std::span<const char* const> labels, std::span<const char* const> names,
                const char* tip, ComboEdit edit = nullptr);
// Text wrapped at spaces, so "6.28319e+09" or "-0.416" is never split across lines; only a word
// wider than the panel on its own is broken inside (WrapText), so nothing is cut at the edge.
void WrappedText(const std::string& text);
// The shortest decimal text that reads back as `v`, as the command line takes numbers.
std::string NumberText(double v);

// printf into a std::string (explanations with their numbers).
template <typename... Args>
std::string Printf(const char* format, Args... args) {
  char buf[768];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

// Export: the dialog (Export... buttons, Ctrl+E) and the progress / result corner.
void OpenExportDialog(AppState& state, ViewKind view);
// `encoding`: the current one (null while none), handed to the export so it is not built again.
void DrawExportDialog(AppState& state, UiServices& services, const EncodingPtr& encoding);
void DrawExportStatus(AppState& state, UiServices& services);
// The figure size the export dialog's choices give (presets, or the custom size).
FigureSize ExportDialogSize(const ExportDialogState& d);

// Sessions (session_menu.cpp): the File menu (new, open, save, save as, recent) and the Edit
// menu (undo, redo), their keys (Ctrl+S, Ctrl+Shift+S, Ctrl+O, Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y),
// and the dialogs that ask for a session's path.
void DrawFileMenu(AppState& state, UiServices& services);
void DrawEditMenu(AppState& state);
// The absolute folder a session path names (the working folder for a bare name), with
// " (no such folder)" when it does not exist: the Save-as dialog shows it under the path.
std::string SessionFolder(const std::string& path);
void DrawSessionDialogs(AppState& state, UiServices& services);

// The heatmap's table for its copy menu (ui/clipboard.h): rows are positions from the first,
// columns the table's columns; values as ValueAt gives them, rounded to float32. `e` must
// outlive the result.
struct CopySource;
struct ParamField;
CopySource HeatmapCopySource(const Encoding& e);

// Shared by panels: a tooltip on the last item, and a panel's error state.
void ItemTooltip(const char* text);
void ErrorText(const std::string& message);
// Why there is no encoding: `prefix` and the error in red, or, while the table is being built,
// a grey "Building ..." line with the time so far.
struct Derived;
void NoEncodingText(const Derived& derived, const std::string& prefix);
// The red frame of a field whose typed text was refused (push before the field, pop after).
void PushRefusedFrame();
void PopRefusedFrame();
// A tooltip of `text` now, wrapped at TooltipWrapWidth() so a long one stays on screen.
void WrappedTooltip(const char* text);
// 30 em, or the display's width less 2 em when that is narrower.
float TooltipWrapWidth();
// Sets the next combo's width to fit its longest entry (text, frame padding and arrow), at
// least the width it would have had, at most what the panel leaves beside `label`.
void FitComboWidth(const char* label, std::span<const char* const> items);
// Whether the last item, a combo showing `shown`, is too narrow for it (its tooltip should then
// give the whole text).
bool ComboClipped(const char* shown);

// A numeric field showing `current`. Returns true with the typed value in `*typed` when the
// user finished typing (Enter or focus loss) a different, well-formed decimal value; Escape
// restores. Ill-formed text, or a reason given to RefuseField, shows in red under the field
// until the user types there again. (number_field.cpp)
bool NumberField(AppState& state, const char* label, int64_t current, int64_t* typed,
                 const char* tip);
bool NumberField(AppState& state, const char* label, uint64_t current, uint64_t* typed,
                 const char* tip);
bool NumberField(AppState& state, const char* label, double current, double* typed,
                 const char* tip);
// The reason is put in the window's words (InWindowTerms).
void RefuseField(AppState& state, const char* label, const std::string& reason);
// A message of the parameter table (worded for the command line) as the window says it: every
// flag of a parameter ("--max-len", "--versus") becomes the label of its control ("max_len",
// "versus"); `flag`, when given, becomes `label` (the control the value was typed into). The
// command line's own messages keep their flags.
std::string InWindowTerms(const std::string& message, std::string_view label,
                          std::string_view flag = {});

// File > Open: the menu items, the dialog (path, the tensors of a safetensors file, what the
// table is for, loading with progress and Cancel), files dropped on the window, and the loaded
// tables' summary in the controls panel. (open_table_dialog.cpp)
void DrawFileMenuItems(AppState& state);
void DrawOpenTableDialog(AppState& state, UiServices& services);
void DrawLoadedTablesInfo(AppState& state, const Derived& derived);

// The model picker, its layer slider, its card and Detach, at the top of the controls
// (model_controls.cpp; the picks themselves are ui/model_pick.h).
void DrawModelControls(AppState& state);
// Queues `next` (a model picked, a layer or Detach) for the next frame as one undo step with
// its note on the status line (ui/model_pick.h ApplyModelStep).
void QueueModelStep(AppState& state, ModelParams next);
// Opens the compare view with B layer `layer` of the open model (--versus "layer=N") and A the
// parameters as they are; a refusal goes under the model picker.
void CompareWithLayer(AppState& state, int64_t layer);
// The Model card's compare button: "Compare layer 0 (sliding 1024, base 1e4) with layer 5
// (global, base 1e6)", the layer shown with the first layer of another treatment
// (LayerClasses); "" without a model or when every layer is treated alike.
std::string CompareOtherLayerLabel(const ModelParams& p);

// The built-in file chooser (file_chooser.cpp): a folder's entries, sub-folders first, then
// the files whose extension (lower-cased, with its dot) is one of `extensions`; hidden ones
// left out. `error`, when given, says why the folder cannot be listed.
struct ChooserEntry {
  std::string name;
  bool folder = false;
};
std::vector<ChooserEntry> ListChooserFolder(const std::string& folder,
                                            std::span<const char* const> extensions,
                                            std::string* error = nullptr);
// The folder above `folder` (the root stays the root).
std::string ChooserParent(const std::string& folder);
// The chooser's modal, opened by s.open_requested: true (with `chosen` the file's path) the
// frame a file is chosen.
bool DrawFileChooser(const char* title, FileChooserState& s,
                     std::span<const char* const> extensions, std::string& chosen);

}  // namespace pe
