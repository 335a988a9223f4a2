// The selected row's outline colour and width, shared by the heatmap panel and the figures:
// the colour must stand apart from every colour its colormap can paint a cell with.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "figure/colormap.h"

namespace pe {
namespace {

// CIE76 delta E: about 2.3 is a just-noticeable difference; 60 is the distance between clearly
// different hues of similar lightness. The old gold outline measured 24 against viridis and 55
// against RdBu, and was invisible on viridis' +1.
constexpr double kMinHighlightDistance = 60.0;

double NearestLutDistance(ColormapId id, Rgba8 c) {
  double nearest = 1e300;
  for (const Rgba8& entry : GetColormap(id))
    nearest = std::min(nearest, ColorDistanceLab(c, entry));
  return nearest;
}

TEST(SelectionHighlight, ContrastsWithEveryEntryOfItsColormap) {
  for (ColormapId id : {ColormapId::kRdBu, ColormapId::kViridis}) {
    const Rgba8 c = SelectionHighlightColor(id);
    EXPECT_EQ(c.a, 255);
    EXPECT_GE(NearestLutDistance(id, c), kMinHighlightDistance) << ColormapName(id);
  }
  EXPECT_LT(NearestLutDistance(ColormapId::kViridis, {255, 190, 0, 255}), kMinHighlightDistance)
      << "the bound must reject the gold that vanished on viridis";
}

TEST(SelectionHighlight, LabDistanceMatchesPublishedValues) {
  // sRGB white and black are L* 100 and 0 with a* = b* = 0, so 100 apart.
  EXPECT_NEAR(ColorDistanceLab({255, 255, 255, 255}, {0, 0, 0, 255}), 100.0, 1e-3);
  // sRGB red is L*a*b* (53.24, 80.09, 67.20) (Lindbloom's calculator, D65): its distance to black.
  EXPECT_NEAR(ColorDistanceLab({255, 0, 0, 255}, {0, 0, 0, 255}),
              std::sqrt(53.24 * 53.24 + 80.09 * 80.09 + 67.20 * 67.20), 0.05);
  EXPECT_EQ(ColorDistanceLab({12, 34, 56, 255}, {12, 34, 56, 255}), 0.0);
}

TEST(SelectionHighlight, LineIsThinWhenRowsAreDense) {
  EXPECT_EQ(SelectionLineWidth(0.01), 1.0);  // a million rows on a screen: one pixel
  EXPECT_EQ(SelectionLineWidth(3.0), 1.0);
  EXPECT_EQ(SelectionLineWidth(6.0), 1.5);
  EXPECT_EQ(SelectionLineWidth(40.0), 2.5);  // tall rows: a bold line, never thicker
  for (double h = 0.5; h < 50; h *= 1.3) EXPECT_LE(SelectionLineWidth(h), std::max(1.0, h / 2));
}

}  // namespace
}  // namespace pe
