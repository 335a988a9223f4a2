#include "base/raster_edges.h"

#include <algorithm>

namespace pe {

std::vector<int64_t> RasterEdges(int64_t lo, int64_t hi, int pixels) {
  std::vector<int64_t> edges;
  const int64_t n = hi - lo;
  if (n <= 0) return edges;
  if (n <= pixels) {
    for (int64_t k = lo; k <= hi; ++k) edges.push_back(k);
    return edges;
  }
  for (int k = 0; k <= pixels; ++k) {
    edges.push_back(lo + static_cast<int64_t>(static_cast<double>(n) * k / pixels));
  }
  edges.back() = hi;
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

}  // namespace pe
