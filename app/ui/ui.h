// What the frame (app/frame) and the panels share: their caches, the services they draw with, and
// what they read off the state. The frame itself: frame/frame.h.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "jobs/figure_worker.h"
#include "jobs/raster_worker.h"
#include "ui/app_state.h"
#include "ui/derived.h"
#include "ui/plot.h"
#include "ui/texture_store.h"
#include "views/compare_view.h"
#include "views/figure_export.h"
#include "views/heatmap_raster.h"
#include "views/view_geometry.h"
#include "views/walkthrough.h"

namespace pe {

// The heatmap's current raster and its texture; pixels are re-mapped only when the raster or
// the colormap changes.
struct HeatmapCache {
  std::optional<Raster> raster;
  ImTextureID texture = nullptr;
  std::optional<ColormapId> uploaded_colormap;
  bool raster_uploaded = false;
  std::vector<unsigned char> rgba;
  ImVec2 plot_min, plot_max;                     // the data area on screen last frame
  int64_t menu_position = -1, menu_column = -1;  // the cell the copy menu was opened on
};

// Sampled curves for the visible position range, rebuilt when the range, width, dims or
// parameters change.
struct CurvesCache {
  std::optional<std::tuple<EncodingParams, std::vector<int64_t>, double, double, int>> key;
  std::vector<CurveTrace> traces;  // (dims): a line or, for a wave too fast for it, a band
  std::vector<double> marker_xs;   // (markers) integer positions, when zoomed in
  std::vector<std::vector<double>> marker_ys;
  std::optional<std::tuple<std::string, EncodingParams>> match_key;  // dimension search
  std::vector<int64_t> matches;
  ImVec2 plot_min, plot_max;  // the data area on screen last frame
};

// A panel that draws its view's core Figure (figure_panel.cpp): the figure on screen and the
// request it was built for (rebuilt, by the figure worker when there is one, when the
// parameters, the selection or the panel's size change), and the plot's own view window (the
// score view's window lives in AppState, where an export finds it).
struct FigurePanelCache {
  std::optional<FigureRequest> built;  // what `figure` / `error` were built for
  std::optional<Figure> figure;
  std::string error;
  PlotRange view;
  ImVec2 area;  // the plot's data area last frame (equal-aspect figures are fitted to it)
  ImTextureID texture = nullptr;  // the figure's image, uploaded once per figure
  bool image_uploaded = false;
};

// The compare panel (compare_panel.cpp): its figure (A | B | A - B) and the second
// configuration, rebuilt when the parameters, the window or the size change; the plots' shared
// view; the cell hovered last frame (highlighted in all three plots this frame).
struct ComparePanelCache {
  std::optional<std::tuple<ModelParams, ViewSelection, double, double>> key;
  std::optional<Figure> figure;
  std::optional<ModelParams> pair_params;  // the parameters `pair` (or `pair_error`) is for
  std::optional<ComparePair> pair;
  // B's parameters (or why there are none) for `b_for`: made again only when those change.
  std::optional<ModelParams> b_for;
  std::optional<Result<ModelParams>> b;
  // B's encoding: a large learned B is built off the UI thread, like A (derived.h).
  EncodingBuilder versus;
  std::string pair_error;
  std::string error;
  std::array<ImTextureID, 3> textures = {nullptr, nullptr, nullptr};
  bool images_uploaded = false;
  bool hovering = false;
  int64_t hover_row = 0, hover_col = 0;  // (query m, key n) or (position p, column j)
};

// The walkthrough of the current parameters and followed token (walkthrough_panel.cpp),
// rebuilt when either changes; the step's table image is uploaded once per step shown.
struct WalkthroughCache {
  std::optional<std::tuple<ModelParams, int>> key;
  std::optional<Walkthrough> walk;
  std::string error;
  ImTextureID texture = nullptr;
  int uploaded_step = -1;  // the step whose image the texture holds
  std::vector<unsigned char> rgba;
  float range = 1.0f;  // the image's colour range, +-range
};

// What the panels drew in the last frame, kept so tests can hold every picture against a fresh
// derivation from the state. Pointers point into the derived data and live until the next frame.
struct DrawnRecord {
  std::optional<EncodingParams> heatmap_image;  // the parameters of the raster on screen, if any
  bool heatmap_computing = false;       // no raster of the current parameters yet, one on its way
  int heatmap_outlined_rows = 0;        // rows of the selection outline (tokens)
  std::vector<WaveColumn> picker_rows;  // the dimension picker's visible rows
  std::vector<WaveColumn> legend;       // the curves' legend entries
  std::vector<const float*> sum_rows;   // (tokens) rows of the sum the sums panel shows, or empty
  int64_t sum_width = 0;                // their length
  const Matrix* manual_sum = nullptr;   // the typed-vectors sum shown, if any
  std::vector<std::pair<ViewKind, const Figure*>> figures;  // figures drawn by figure panels
  const Walkthrough* walkthrough = nullptr;  // the walkthrough the panel drew, if any
  int walkthrough_step = -1;                 // and its step on show
  std::vector<std::pair<ViewKind, ModelParams>> figure_params;  // the parameters each was made of
  std::vector<ViewKind>
      figures_computing;  // figure panels waiting for their new parameters' figure
  std::vector<ViewKind> figures_for_other_window;  // showing another window's, the new on its way
  int shortcut_rows = 0;                           // rows of the shortcut overlay, when it is open
  struct Tab {
    ViewKind view;
    float label_width;  // its name and the frame padding either side, pixels
    float tab_width;    // the tab drawn, pixels (narrower than the label: the name is cut)
  };
  std::vector<Tab> tabs;              // the scheme views' tabs, in order
  std::optional<ViewKind> presented;  // the view presentation mode shows, if any
  void Clear() { *this = DrawnRecord(); }
};

struct UiCaches {
  DerivedCache derived;
  HeatmapCache heatmap;
  CurvesCache curves;
  std::map<ViewKind, FigurePanelCache> figure_panels;
  ComparePanelCache compare;
  WalkthroughCache walkthrough;
  DrawnRecord drawn;
  std::shared_ptr<struct CheckPanelCache> check_panel;  // panels/check_panel.h; made when drawn
};

// What the frame may use from outside: where images go and who computes rasters.
class ExportRunner;
class SaveFilePicker;
class SessionKeeper;
class TableLoadJob;
struct UiServices {
  TextureStore* textures = nullptr;
  RasterWorker* rasters = nullptr;
  ExportRunner* exports = nullptr;    // null: export is not offered
  SaveFilePicker* picker = nullptr;   // null: no native save dialog
  FigureWorker* figures = nullptr;    // null: figure panels build their figures in the frame
  SessionKeeper* sessions = nullptr;  // null: no last session, recent list or autosave
  TableLoadJob* tables = nullptr;     // null: File > Open loads nothing (says so)
};

// What the views were fitted to (cols, rows, first position, scheme, value range as bits): a
// change of these refits every view to the new table.
std::array<int64_t, 6> FitExtents(const Encoding& e);
// The text the panels show (the sentence, typed row names): the font atlas holds its
// characters (ApplyLook).
std::string ShownText(const AppState& state);

// The views of a running window, as an export of it draws them.
ViewSelection ViewsOf(const AppState& state);
// The same for an export of `view`: the compare view's own window replaces the score or heatmap
// window it reads.
ViewSelection ViewsOf(const AppState& state, ViewKind view);

}  // namespace pe
