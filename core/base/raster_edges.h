// How a range of table rows or columns is sliced into texels: shared by the heatmap raster
// (views) and the score and similarity rasters (analysis), which must slice alike.
#pragma once

#include <cstdint>
#include <vector>

namespace pe {

// Edges of at most `pixels` slices over the integer range [lo, hi): one slice per integer when
// they fit, else slices of (nearly) equal width. (slices + 1) entries, empty when lo >= hi.
std::vector<int64_t> RasterEdges(int64_t lo, int64_t hi, int pixels);

}  // namespace pe
