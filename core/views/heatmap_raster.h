// The heatmap at screen resolution: only the visible window of an encoding's table is computed,
// so a table of 2^31 positions never has to exist. Each texel is the exact mean of the cells it
// covers (no aliasing when many cells share a pixel); when zoomed in, texels are the cells.
#pragma once

#include <cstdint>
#include <vector>

#include "base/raster_edges.h"
#include "encoding/encoding.h"

namespace pe {

struct RasterRequest {
  EncodingPtr encoding;  // never null in a request that is computed
  // The visible window in plot coordinates: x in columns [0, cols], y in absolute positions
  // [first, first + rows]. Cell (p, j) covers [j, j+1) x [p, p+1).
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  int width_px = 1, height_px = 1;  // pixels the window covers on screen
  // Same encoding parameters and window (encodings are compared by their parameters).
  bool operator==(const RasterRequest& o) const {
    const bool same_encoding =
        encoding == o.encoding ||
        (encoding && o.encoding && encoding->params() == o.encoding->params());
    return same_encoding && x0 == o.x0 && x1 == o.x1 && y0 == o.y0 && y1 == o.y1 &&
           width_px == o.width_px && height_px == o.height_px;
  }
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

// Where an image of texels with these edges ends when drawn with equal texels: the last edge,
// except for edges of one span but the last, cut short at the table's end (a lattice's, see
// analysis/offset_texels.h): there the texels keep their span, so each sits exactly over its
// cells and the last reaches past the end by less than a texel.
double TexelImageEnd(const std::vector<int64_t>& edges);

// About how many column means ComputeRaster(request) evaluates: texel rows x visible columns.
int64_t EstimateRasterWork(const RasterRequest& request);

// The raster for `request`. Work is about texel rows x visible columns.
Raster ComputeRaster(const RasterRequest& request);

// The grey of texels whose every cell is masked (Encoding::Masked: causal ALiBi's keys after the
// query, -inf in a model, 0 in the table), written over `rgba` (the raster's texels mapped to a
// colormap, 4 bytes each), so a masked key never reads as "no penalty".
inline constexpr unsigned char kMaskedTexelGrey = 190;
void GreyMaskedTexels(const Raster& r, unsigned char* rgba);

}  // namespace pe
