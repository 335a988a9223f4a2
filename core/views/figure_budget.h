// How much memory a figure export needs, estimated before anything is built, so an export that
// would not fit under the memory cap is refused with a message instead of running for a minute
// and taking gigabytes. Estimates are upper bounds from the figure's size and content counts;
// the per-item byte costs were measured on SVG exports (the heaviest format per item).
#pragma once

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

// The estimate for `view` drawn at `size` in `format`.
uint64_t EstimateFigureBytes(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                             const FigureSize& size, FigureFormat format);

// An error naming the estimate and the cap when the figure would not fit under `params.cap`.
Status CheckFigureMemory(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                         const FigureSize& size, FigureFormat format);

}  // namespace pe
