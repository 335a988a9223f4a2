// Everything the user can change, in plain structs owned by main. Panels edit these; the
// derived cache (derived.h) turns them into tables. No GL or GLFW here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "input_layer.h"
#include "positional_encoding.h"

namespace pe {

enum class ColormapId { kRdBu, kViridis };

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

struct AppState {
  ModelParams params;
  PanelVisibility show;
  std::string text_edit = ModelParams().example.text;  // the text box's buffer
};

}  // namespace pe
