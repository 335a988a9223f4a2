#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "base/ticks.h"
#include "figure/colormap.h"

namespace pe {
namespace {

TEST(Colormap, EndpointsAreTheKeyColours) {
  EXPECT_EQ(MapValue(ColormapId::kRdBu, -1.0f, -1, 1), (Rgba8{0x67, 0x00, 0x1f, 255}));
  EXPECT_EQ(MapValue(ColormapId::kRdBu, 1.0f, -1, 1), (Rgba8{0x05, 0x30, 0x61, 255}));
  EXPECT_EQ(MapValue(ColormapId::kViridis, -1.0f, -1, 1), (Rgba8{0x44, 0x01, 0x54, 255}));
  EXPECT_EQ(MapValue(ColormapId::kViridis, 1.0f, -1, 1), (Rgba8{0xfd, 0xe7, 0x25, 255}));
  // RdBu's middle is near white; values outside the range clamp; NaN takes the low end.
  const Rgba8 mid = MapValue(ColormapId::kRdBu, 0.0f, -1, 1);
  EXPECT_GT(mid.r + mid.g + mid.b, 3 * 225);
  EXPECT_EQ(MapValue(ColormapId::kRdBu, 7.0f, -1, 1), MapValue(ColormapId::kRdBu, 1.0f, -1, 1));
  EXPECT_EQ(ColormapIndex(NAN, -1, 1), 0);
  EXPECT_EQ(ColormapIndex(0.0f, -1, 1), 128);
}

TEST(Colormap, ViridisBrightensMonotonically) {
  const ColorLut& lut = GetColormap(ColormapId::kViridis);
  double last = -1;
  for (const Rgba8& c : lut) {
    const double luma = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
    EXPECT_GE(luma, last - 0.5);
    last = luma;
  }
}

TEST(Colormap, MapToRgbaMatchesMapValue) {
  const float values[] = {-1.0f, -0.3f, 0.0f, 0.42f, 1.0f};
  unsigned char rgba[20];
  MapToRgba(ColormapId::kRdBu, values, 5, -1, 1, rgba);
  for (int k = 0; k < 5; ++k) {
    const Rgba8 c = MapValue(ColormapId::kRdBu, values[k], -1, 1);
    EXPECT_EQ(Rgba8(rgba[4 * k], rgba[4 * k + 1], rgba[4 * k + 2], rgba[4 * k + 3]), c);
  }
}

TEST(Ticks, NiceStepsAndLabels) {
  EXPECT_EQ(NiceStep(100, 5), 20);
  EXPECT_EQ(NiceStep(1, 4), 0.2);
  EXPECT_EQ(NiceStep(2.0, 2), 1);
  auto ticks = NiceTicks(0, 100, 5);
  ASSERT_EQ(ticks.size(), 6u);
  EXPECT_EQ(ticks[1].value, 20);
  EXPECT_EQ(ticks[1].label, "20");
  auto unit = NiceTicks(-1.15, 1.15, 5);
  EXPECT_EQ(unit.front().label, "-1.0");
  EXPECT_EQ(unit.back().label, "1.0");
  for (const Tick& t : unit) EXPECT_NE(t.label, "-0.0");
  auto big = NiceTicks(0, 1e9, 4);
  EXPECT_EQ(big[1].label, "2e+08");
  EXPECT_TRUE(NiceTicks(0, 3, 10, /*integer_only=*/true)[1].value == 1.0);
  EXPECT_TRUE(NiceTicks(5, 5, 4).empty());
  // Tiny steps in powers of ten, not thirty digits after the point (a colour bar of bf16
  // errors of 1e-26); steps down to 1e-5 keep their decimals.
  const std::vector<Tick> tiny = NiceTicks(-6.9e-26, 6.9e-26, 4);
  ASSERT_GE(tiny.size(), 3u);
  EXPECT_EQ(tiny.back().label, "6e-26");
  for (const Tick& t : tiny) EXPECT_LE(t.label.size(), 6u) << t.label;
  EXPECT_EQ(NiceTicks(0, 4e-5, 4)[1].label, "0.00001");
}

// A range between its nice steps still gets a scale: [-49.5, 49.5] asked for 2 ticks would have
// had step 50 and only "0" inside (a colour bar labelled 0 alone); finer steps are taken until
// two fit, all inside the range.
TEST(Ticks, AtLeastTwoWhenTheRangeAllows) {
  for (auto [lo, hi] : {std::pair{-49.5, 49.5}, std::pair{-0.9, 0.9}, std::pair{-49.5, 0.0},
                        std::pair{0.51, 1.49}, std::pair{-3e-5, 3e-5}}) {
    const std::vector<Tick> t = NiceTicks(lo, hi, 2);
    ASSERT_GE(t.size(), 2u) << lo << " " << hi;
    for (const Tick& k : t) {
      EXPECT_GE(k.value, lo) << k.label;
      EXPECT_LE(k.value, hi) << k.label;
    }
    EXPECT_NE(t.front().label, t.back().label);
  }
  const std::vector<Tick> sym = NiceTicks(-49.5, 49.5, 2);
  EXPECT_EQ(sym.front().label, "-40");
  EXPECT_EQ(sym.back().label, "40");
}

}  // namespace
}  // namespace pe
