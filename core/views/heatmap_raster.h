// The heatmap at screen resolution: only the visible window of the PE table is computed, so a
// table of 2^31 positions never has to exist. Each texel is the exact mean of the cells it
// covers (no aliasing when many cells share a pixel); when zoomed in, texels are the cells.
#pragma once

#include <cstdint>
#include <vector>

#include "encoding/positional_encoding.h"

namespace pe {

struct RasterRequest {
  PeParams params;
  // The visible window in plot coordinates: x in dimensions [0, d_model], y in absolute
  // positions [offset, offset + max_len]. Cell (p, j) covers [j, j+1) x [p, p+1).
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  int width_px = 1, height_px = 1;  // pixels the window covers on screen
  bool operator==(const RasterRequest&) const = default;
};

struct Raster {
  RasterRequest request;
  int width = 0, height = 0;  // texels
  std::vector<float> values;  // (height, width) means of the covered cells
  // Texel column x covers table columns [col_edges[x], col_edges[x+1]); likewise rows, in
  // absolute positions. (width + 1) and (height + 1) entries.
  std::vector<int64_t> col_edges, row_edges;
  bool one_cell_per_texel() const;
  bool empty() const { return width == 0 || height == 0; }
};

// Mean of wave(p * w) over integer p in [first, first + n), in closed form (a Dirichlet-kernel
// sum): exact for n = 1 (then it equals PeValueAt), O(1) for any n.
double MeanOverPositions(const PeColumn& column, int64_t first, int64_t n);

// About how many column means ComputeRaster(request) evaluates: texel rows x visible columns.
int64_t EstimateRasterWork(const RasterRequest& request);

// The raster for `request` (params must be valid). Work is about texel rows x visible columns.
Raster ComputeRaster(const RasterRequest& request);

}  // namespace pe
