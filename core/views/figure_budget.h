// How much memory a figure export needs, estimated before anything is built, so an export that
// would not fit under the memory cap is refused with a message instead of running for a minute
// and taking gigabytes. Estimates are upper bounds from the figure's size and content counts;
// the per-item byte costs were measured on SVG exports (the heaviest format per item).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "base/status.h"
#include "figure/figure_render.h"
#include "model/model_params.h"
#include "views/figure_export.h"
#include "views/view_kind.h"

namespace pe {

// Bytes per curve sample: xs and ys (16), the cairo path and the SVG/PDF text of the point.
// Measured: 2001 curves x 1601 samples took 583 MB of peak memory (about 182 bytes each).
inline constexpr uint64_t kFigureBytesPerCurveSample = 192;
// Bytes per bar or line point of the sums figure (rectangle record, path and text).
inline constexpr uint64_t kFigureBytesPerSumItem = 256;
// Bytes per heatmap texel: mean (4), RGBA (4), cairo's image (4) and its encoded copy (~8).
inline constexpr uint64_t kFigureBytesPerTexel = 20;

// Each view's own estimate is its registry entry's `estimate` (view_registry.h, written beside
// the builder whose geometry it restates); these are the counts several of them share.

// Curve samples over a plot `width_px` output pixels wide: two per pixel and one, within
// [64, 20001], as the curve builders sample.
inline uint64_t EstimatedCurveSamples(uint64_t width_px) {
  return std::clamp<uint64_t>(2 * width_px + 1, 64, 20001);
}
// Texels of an image at screen resolution: at most 4096 a side.
inline uint64_t EstimatedScreenTexels(uint64_t px) {
  return std::min<uint64_t>(px, 4096);
}
// Texels of an image of a (columns x rows) window: at screen resolution, never more than the
// window's cells (at least one).
inline uint64_t EstimatedWindowTexels(uint64_t px, double cells) {
  return std::min<uint64_t>({px, 4096, static_cast<uint64_t>(std::max(1.0, std::ceil(cells)))});
}

// The estimate for `view` drawn at `size` in `format`: the PNG surface, then the view's entry.
uint64_t EstimateFigureBytes(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                             const FigureSize& size, FigureFormat format);

// An error naming the estimate and the cap when the figure would not fit under `params.cap`.
Status CheckFigureMemory(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                         const FigureSize& size, FigureFormat format);

}  // namespace pe
