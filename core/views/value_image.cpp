#include "views/value_image.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace pe {

double MaxAbsIgnoringNaN(const std::vector<float>& values) {
  double hi = 0.0;
  for (float v : values) {
    if (!std::isnan(v)) hi = std::max(hi, static_cast<double>(std::abs(v)));
  }
  return hi;
}

FigureImage ValueImage(const std::vector<float>& values, int width, int height,
                       const ValueImageSpec& spec, bool* any_flat) {
  assert(values.size() == static_cast<size_t>(width) * static_cast<size_t>(height) &&
         "ValueImage: values must hold width * height entries");
  FigureImage im;
  im.width = width;
  im.height = height;
  im.rgba.resize(static_cast<size_t>(width) * static_cast<size_t>(height) * 4);
  MapToRgba(spec.colormap, values.data(), static_cast<int64_t>(values.size()),
            static_cast<float>(spec.lo), static_cast<float>(spec.hi), im.rgba.data());
  for (size_t i = 0; i < values.size(); ++i) {
    const bool flat = spec.flat == FlatValues::kNaN ? std::isnan(values[i]) : std::isinf(values[i]);
    if (!flat) continue;
    if (any_flat != nullptr) *any_flat = true;
    uint8_t* p = im.rgba.data() + 4 * i;
    p[0] = spec.flat_color.r, p[1] = spec.flat_color.g, p[2] = spec.flat_color.b;
    p[3] = spec.flat_color.a;
  }
  im.x0 = spec.x0, im.x1 = spec.x1, im.y0 = spec.y0, im.y1 = spec.y1;
  return im;
}

}  // namespace pe
