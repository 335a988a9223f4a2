// The real window (GLFW + OpenGL 3) on a display (xvfb-run when there is none): render, read the
// pixels back from the written PNG, and check them against the colormap and the formula. The
// PNGs stay in the build tree (tests/tmp) as artefacts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "encoding/encoding.h"
#include "figure/colormap.h"
#include "image_support.h"
#include "test_support.h"
#include "ui/app_state.h"
#include "window/window.h"

namespace pe {
namespace {

using Image = pe::testing::RgbaImage;

bool LoadPng(const std::string& path, Image& img) {
  img = pe::testing::DecodePng(pe::testing::ReadFile(path));
  return !img.rgba.empty();
}

std::string ArtefactPath(const std::string& name) {
  const std::string dir = PE_TEST_TMP;
  std::system(("mkdir -p " + dir).c_str());
  return dir + "/" + name;
}

int Distance(const unsigned char* px, ImU32 c) {
  const ImVec4 f = ImGui::ColorConvertU32ToFloat4(c);
  return std::abs(px[0] - static_cast<int>(f.x * 255 + 0.5f)) +
         std::abs(px[1] - static_cast<int>(f.y * 255 + 0.5f)) +
         std::abs(px[2] - static_cast<int>(f.z * 255 + 0.5f));
}

// Renders `state` offscreen, returns the screenshot and the caches of the last frame.
void Render(AppState& state, const std::string& name, Image& img, HeatmapCache& heat,
            CurvesCache& curves, int width = 1280, int height = 800) {
  WindowRequest req;
  req.width = width;
  req.height = height;
  req.screenshot = ArtefactPath(name);
  req.frames = 4;
  std::remove(req.screenshot.c_str());
  ASSERT_EQ(RunWindow(state, req,
                      [&](const UiCaches& c) {
                        heat = c.heatmap;
                        curves = c.curves;
                      }),
            0);
  ASSERT_TRUE(LoadPng(req.screenshot, img));
  ASSERT_EQ(img.w, width);
  ASSERT_EQ(img.h, height);
}

TEST(Window, HeatmapPixelsHaveTheColormapColourOfTheirCells) {
  AppState state;
  Image img;
  HeatmapCache heat;
  CurvesCache curves;
  Render(state, "window-default.png", img, heat, curves);
  const PlotRange& v = state.windows[ViewKind::kHeatmap].view;
  ASSERT_EQ(v, (PlotRange{0, 128, 0, 100}));
  const EncodingParams p;
  for (auto [pos, dim] : {std::pair{12, 8}, std::pair{0, 0}, std::pair{99, 127}, std::pair{40, 60},
                          std::pair{7, 3}}) {
    const double x =
        heat.plot_min.x + (dim + 0.5 - v.x0) / (v.x1 - v.x0) * (heat.plot_max.x - heat.plot_min.x);
    const double y =
        heat.plot_min.y + (pos + 0.5 - v.y0) / (v.y1 - v.y0) * (heat.plot_max.y - heat.plot_min.y);
    // The plot's frame is drawn over the data area's outermost pixels: a cell at the edge is
    // read just inside it (still inside the cell, which is more than 2 px tall and wide here).
    const double in_x = std::clamp(x, heat.plot_min.x + 2.0, heat.plot_max.x - 2.0);
    const double in_y = std::clamp(y, heat.plot_min.y + 2.0, heat.plot_max.y - 2.0);
    const unsigned char* px = img.at(static_cast<int>(in_x), static_cast<int>(in_y));
    const Rgba8 want = MapValue(ColormapId::kRdBu, WaveValue(DescribeColumn(p, dim), pos), -1, 1);
    if (pos == 0) continue;  // row 0 carries the selected token's outline
    EXPECT_LE(std::abs(px[0] - want.r) + std::abs(px[1] - want.g) + std::abs(px[2] - want.b), 3)
        << "cell (" << pos << ", " << dim << ") at pixel " << x << "," << y;
  }
}

// One texel per pixel row (RoPE's 2000 positions on a 383-pixel-high area at this size): every
// pixel of the image is its texel's colour. With the image on fractional pixel edges, pixel
// centres sat on texel boundaries and the quad's two triangles rounded them to different rows:
// blocks of the neighbouring row's colour in the right half only, where fast waves make
// neighbouring rows differ.
TEST(Window, HeatmapPixelsAreTheirTexelsAtOneTexelPerPixelRow) {
  AppState state;
  state.params.pe.max_len = 2000;
  state.params.pe.scheme = RopeParams{};
  Image img;
  HeatmapCache heat;
  CurvesCache curves;
  Render(state, "window-rope-2000.png", img, heat, curves, 1500, 950);
  ASSERT_TRUE(heat.raster.has_value());
  const Raster& r = *heat.raster;
  ASSERT_EQ(r.width, 128);
  ASSERT_EQ(r.height, static_cast<int>(heat.plot_max.y - heat.plot_min.y));  // one per row
  ASSERT_EQ(heat.rgba.size(), static_cast<size_t>(r.width) * r.height * 4);
  const double x0 = heat.plot_min.x, y0 = heat.plot_min.y;
  const double w = heat.plot_max.x - x0, h = heat.plot_max.y - y0;
  int checked = 0, wrong = 0;
  // Inside the frame drawn over the area's outermost pixels, and below row 0's outline.
  for (int py = static_cast<int>(y0) + 4; py < static_cast<int>(y0 + h) - 2; ++py) {
    for (int px = static_cast<int>(x0) + 2; px < static_cast<int>(x0 + w) - 2; ++px) {
      const double tx = (px + 0.5 - x0) / w * r.width, ty = (py + 0.5 - y0) / h * r.height;
      // A centre on a texel edge (a column of texels 3.8 pixels wide) may take either texel.
      if (std::fabs(tx - std::round(tx)) < 1e-3 || std::fabs(ty - std::round(ty)) < 1e-3) continue;
      const unsigned char* want =
          &heat.rgba[(static_cast<size_t>(ty) * r.width + static_cast<size_t>(tx)) * 4];
      const unsigned char* got = img.at(px, py);
      ++checked;
      if (std::abs(got[0] - want[0]) + std::abs(got[1] - want[1]) + std::abs(got[2] - want[2]) > 6)
        ++wrong;
    }
  }
  EXPECT_GT(checked, 150000);
  EXPECT_EQ(wrong, 0) << "of " << checked << " pixels";
}

// A learned table's noise, drawn as a line of its own points: every segment is drawn along its
// whole length, the steep ones between two spikes too (ImGui's joins once folded those into
// dashes).
TEST(Window, EverySegmentOfASpikyCurveIsDrawn) {
  AppState state;
  state.params.pe.d_model = 48;
  state.params.pe.max_len = 80;
  state.params.pe.scheme = LearnedParams{};
  state.params.curve_dims = {4};
  Image img;
  HeatmapCache heat;
  CurvesCache curves;
  Render(state, "window-learned-curve.png", img, heat, curves, 1500, 950);
  const EncodingPtr e = MakeEncoding(state.params.pe).value();
  const PlotRange& v = state.windows[ViewKind::kCurves].view;
  const ImU32 color = SeriesColor(0);
  auto to_px = [&](double pos, double value) {
    return ImVec2(
        static_cast<float>(curves.plot_min.x +
                           (pos - v.x0) / (v.x1 - v.x0) * (curves.plot_max.x - curves.plot_min.x)),
        static_cast<float>(curves.plot_min.y + (1.0 - (value - v.y0) / (v.y1 - v.y0)) *
                                                   (curves.plot_max.y - curves.plot_min.y)));
  };
  int steep = 0, missing = 0;
  for (int64_t pos = static_cast<int64_t>(std::ceil(v.x0)); pos + 1 <= v.x1 && pos + 1 < 80;
       ++pos) {
    const ImVec2 a = to_px(static_cast<double>(pos), e->ValueAt(4, static_cast<double>(pos)));
    const ImVec2 b = to_px(pos + 1.0, e->ValueAt(4, pos + 1.0));
    if (std::fabs(b.y - a.y) < 4 * std::fabs(b.x - a.x)) continue;  // only the steep ones
    ++steep;
    for (double s : {0.3, 0.5, 0.7}) {
      const double x = a.x + s * (b.x - a.x), y = a.y + s * (b.y - a.y);
      // The nearest pixel of the curve's colour (blended where it crosses a grid line).
      int best = 1 << 30;
      for (int dy = -2; dy <= 2; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          best = std::min(
              best, Distance(img.at(static_cast<int>(x) + dx, static_cast<int>(y) + dy), color));
        }
      }
      if (best >= 100) {
        ++missing;
        ADD_FAILURE() << "position " << pos << " + " << s << " at pixel " << x << "," << y
                      << ": nearest colour distance " << best;
      }
    }
  }
  EXPECT_GE(steep, 10);
  EXPECT_EQ(missing, 0) << "points of " << steep << " steep segments without the curve's colour";
}

TEST(Window, CurveIsDrawnWhereTheFormulaSays) {
  AppState state;
  state.params.curve_dims = {10};  // i = 5, sin, wavelength ~12.9 positions
  Image img;
  HeatmapCache heat;
  CurvesCache curves;
  Render(state, "window-curve-d10.png", img, heat, curves);
  const PlotRange& v = state.windows[ViewKind::kCurves].view;
  const WaveColumn c = DescribeColumn(state.params.pe, 10);
  const ImU32 color = SeriesColor(0);
  int checked = 0;
  for (double pos = 3.3; pos < 97; pos += 6.1) {
    const double value = WaveValueAt(c, pos);
    auto pixel_y = [&](double val) {
      return curves.plot_min.y +
             (1.0 - (val - v.y0) / (v.y1 - v.y0)) * (curves.plot_max.y - curves.plot_min.y);
    };
    const double x =
        curves.plot_min.x + (pos - v.x0) / (v.x1 - v.x0) * (curves.plot_max.x - curves.plot_min.x);
    auto best_near = [&](double y) {
      int best = 1 << 30;
      for (int dy = -2; dy <= 2; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          best = std::min(
              best, Distance(img.at(static_cast<int>(x) + dx, static_cast<int>(y) + dy), color));
        }
      }
      return best;
    };
    EXPECT_LT(best_near(pixel_y(value)), 60) << "no curve pixel at position " << pos;
    if (std::fabs(value) > 0.5) {  // and none at the mirrored value
      EXPECT_GT(best_near(pixel_y(-value)), 150) << "curve pixel at -value, position " << pos;
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(Window, ScreenshotCommandWritesThePng) {
  const std::string path = ArtefactPath("cli-screenshot.png");
  std::remove(path.c_str());
  const std::string cmd = std::string(PE_EXPLORER_EXE) + " --screenshot " + path +
                          " --frames 2 --size 1000x640 --d-model 64 --max-len 2048";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  Image img;
  ASSERT_TRUE(LoadPng(path, img));
  EXPECT_EQ(img.w, 1000);
  EXPECT_EQ(img.h, 640);
}

}  // namespace
}  // namespace pe
