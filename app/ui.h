// The whole UI of one frame, without GL: what the window runs and what headless tests drive.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "app_state.h"
#include "derived.h"
#include "heatmap_raster.h"
#include "raster_worker.h"
#include "texture_store.h"

namespace pe {

// The heatmap's current raster and its texture; pixels are re-mapped only when the raster or
// the colormap changes.
struct HeatmapCache {
  std::optional<Raster> raster;
  ImTextureID texture = nullptr;
  std::optional<ColormapId> uploaded_colormap;
  bool raster_uploaded = false;
  std::vector<unsigned char> rgba;
  ImVec2 plot_min, plot_max;  // the data area on screen last frame
};

// Sampled curves for the visible position range, rebuilt when the range, width, dims or
// parameters change.
struct CurvesCache {
  std::optional<std::tuple<PeParams, std::vector<int64_t>, double, double, int>> key;
  std::vector<double> xs;               // (samples) fractional positions
  std::vector<std::vector<double>> ys;  // (dims, samples)
  std::vector<double> marker_xs;        // (markers) integer positions, when zoomed in
  std::vector<std::vector<double>> marker_ys;
  std::optional<std::tuple<std::string, PeParams>> match_key;  // dimension search
  std::vector<int64_t> matches;
  ImVec2 plot_min, plot_max;  // the data area on screen last frame
};

struct UiCaches {
  DerivedCache derived;
  HeatmapCache heatmap;
  CurvesCache curves;
};

// What the frame may use from outside: where images go and who computes rasters.
class ExportRunner;
class SaveFilePicker;
struct UiServices {
  TextureStore* textures = nullptr;
  RasterWorker* rasters = nullptr;
  ExportRunner* exports = nullptr;   // null: export is not offered
  SaveFilePicker* picker = nullptr;  // null: no native save dialog
};

// Updates the derived data from `state` and draws every visible panel. Never throws.
void DrawUi(AppState& state, UiCaches& caches, UiServices& services);

}  // namespace pe
