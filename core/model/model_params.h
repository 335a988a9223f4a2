// The parameters of the model input the app shows: what `export` takes as flags too.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "encoding/positional_encoding.h"
#include "figure/colormap.h"
#include "model/input_layer.h"

namespace pe {

struct ModelParams {
  EncodingParams pe;
  InputLayerParams input;
  TextExample example;
  std::vector<int64_t> curve_dims = {4, 5, 6, 7};
  ColormapId colormap = ColormapId::kRdBu;
  MemoryCap cap;
  bool operator==(const ModelParams&) const = default;
};

}  // namespace pe
