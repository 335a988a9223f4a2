// Where to put a text beside each point of a scatter plot so that labels neither cover each
// other nor the points, nor leave the plot: the exported figure (cairo) and the window (ImGui)
// place them with this one function, in their own pixel units.
#pragma once

#include <span>
#include <vector>

namespace pe {

struct LabelRequest {
  double x = 0, y = 0;  // the point, in pixels (y down)
  double w = 0, h = 0;  // the text's size
};
struct PlacedLabel {
  double x = 0, y = 0;  // the text box's top-left corner
  bool shown = true;    // false: no free spot; the label is left out (the hover still names it)
};
struct PixelBox {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// Tries eight spots around each point in turn (right, left, above, below and the corners,
// `gap` away), in the order given, keeping the first inside `area` that overlaps no label
// placed before and no point of `points` (each a square of side 2 * `radius`).
std::vector<PlacedLabel> PlaceLabels(std::span<const LabelRequest> labels,
                                     std::span<const LabelRequest> points, double radius,
                                     double gap, const PixelBox& area);

}  // namespace pe
