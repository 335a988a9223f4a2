#include "figure/label_placement.h"

namespace pe {
namespace {

bool Overlaps(const PixelBox& a, const PixelBox& b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

}  // namespace

std::vector<PlacedLabel> PlaceLabels(std::span<const LabelRequest> labels,
                                     std::span<const LabelRequest> points, double radius,
                                     double gap, const PixelBox& area) {
  std::vector<PixelBox> taken;
  taken.reserve(labels.size() + points.size());
  for (const LabelRequest& p : points) {
    taken.push_back({p.x - radius, p.y - radius, p.x + radius, p.y + radius});
  }
  std::vector<PlacedLabel> out;
  out.reserve(labels.size());
  for (const LabelRequest& l : labels) {
    const double r = radius + gap;
    // Top-left corners: right, left, above, below, then the four corners.
    const double spots[8][2] = {
        {l.x + r, l.y - l.h / 2}, {l.x - r - l.w, l.y - l.h / 2}, {l.x - l.w / 2, l.y - r - l.h},
        {l.x - l.w / 2, l.y + r}, {l.x + r, l.y - r - l.h},       {l.x - r - l.w, l.y - r - l.h},
        {l.x + r, l.y + r},       {l.x - r - l.w, l.y + r}};
    PlacedLabel placed{0, 0, false};
    for (const auto& s : spots) {
      const PixelBox box{s[0], s[1], s[0] + l.w, s[1] + l.h};
      if (box.x0 < area.x0 || box.y0 < area.y0 || box.x1 > area.x1 || box.y1 > area.y1) continue;
      bool free = true;
      for (const PixelBox& t : taken) {
        if (Overlaps(box, t)) {
          free = false;
          break;
        }
      }
      if (free) {
        placed = {s[0], s[1], true};
        taken.push_back(box);
        break;
      }
    }
    out.push_back(placed);
  }
  return out;
}

}  // namespace pe
