// Values to a figure's image: one colour per value from a colormap, with the values a view
// cannot colour (masked or undefined cells, NaN; overflowed ones, infinite) painted one flat
// colour. Shared by the score, similarity, precision and compare views, so their images come
// from the same code.
#pragma once

#include <cstdint>
#include <vector>

#include "figure/colormap.h"
#include "figure/figure.h"

namespace pe {

// The largest |v| over the values that are not NaN (infinities included); 0 when there is none.
double MaxAbsIgnoringNaN(const std::vector<float>& values);

enum class FlatValues { kNaN, kInfinite };

// values (height, width) row-major, row 0 at y0 -> an image covering [x0, x1] x [y0, y1]:
// MapToRgba(colormap, [lo, hi]) for each value, `flat_color` for the values of kind `flat`.
// `any_flat` (optional) is set to true when one was painted flat, and left as it was otherwise.
struct ValueImageSpec {
  ColormapId colormap = ColormapId::kRdBu;
  double lo = -1, hi = 1;
  FlatValues flat = FlatValues::kNaN;
  Rgba8 flat_color;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
};
FigureImage ValueImage(const std::vector<float>& values, int width, int height,
                       const ValueImageSpec& spec, bool* any_flat = nullptr);

}  // namespace pe
