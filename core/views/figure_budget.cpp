#include "views/figure_budget.h"

#include <algorithm>
#include <cmath>

#include "views/view_registry.h"

namespace pe {

uint64_t EstimateFigureBytes(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                             const FigureSize& size, FigureFormat format) {
  // The plot area is at most the whole figure, in output pixels.
  const double scale = format == FigureFormat::kPng ? size.scale : 1.0;
  const auto width_px = static_cast<uint64_t>(std::ceil(std::max(1.0, size.width * scale)));
  const auto height_px = static_cast<uint64_t>(std::ceil(std::max(1.0, size.height * scale)));
  // A PNG is drawn on an ARGB image and encoded into memory before it is written.
  uint64_t bytes = format == FigureFormat::kPng ? 8 * width_px * height_px : 0;
  return bytes + GetView(view).estimate({params, sel, width_px, height_px});
}

Status CheckFigureMemory(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                         const FigureSize& size, FigureFormat format) {
  const uint64_t need = EstimateFigureBytes(view, params, sel, size, format);
  if (need <= params.cap.bytes) return {};
  return InvalidArgument("the " + std::string(ViewName(view)) + " figure needs about " +
                         FormatBytes(need) + ", over the memory cap of " +
                         FormatBytes(params.cap.bytes) +
                         "; show fewer dimensions or a smaller figure, or raise the cap "
                         "(--memory-cap-mib)");
}

}  // namespace pe
