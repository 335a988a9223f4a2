// Figures' rasters in the files themselves: each texel lands on one output pixel (PNG at its
// scale; SVG and PDF as rsvg-convert and pdftoppm draw them at 1x and 2x), so a single wrong
// cell of a checked table lights a pixel, and a heatmap pixel is the mean of exactly the cells
// the legend says.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

#include "figure/colormap.h"
#include "figure/figure_render.h"
#include "image_support.h"
#include "test_support.h"
#include "views/figure_export.h"

namespace pe {
namespace {

using pe::testing::RgbaImage;

bool Have(const std::string& tool) {
  return std::system(("command -v " + tool + " > /dev/null 2>&1").c_str()) == 0;
}

class FigureTexels : public pe::testing::TempDirTest {
 public:
  // `f` as a reader sees it: the PNG itself (zoom is its scale), or the SVG drawn by
  // rsvg-convert and the PDF by pdftoppm at `zoom` pixels per unit.
  RgbaImage Seen(const Figure& f, FigureFormat format, const FigureSize& size, int zoom) {
    std::ostringstream out;
    const Status s = RenderFigure(f, format, size, out);
    EXPECT_TRUE(s.ok()) << s.message();
    if (format == FigureFormat::kPng) return pe::testing::DecodePng(out.str());
    const std::string file = Path(format == FigureFormat::kSvg ? "f.svg" : "f.pdf");
    {
      std::ofstream o(file, std::ios::binary);
      o << out.str();
    }
    const std::string png = Path("seen.png");
    const std::string cmd =
        format == FigureFormat::kSvg
            ? "rsvg-convert -z " + std::to_string(zoom) + " -o " + png + " " + file
            : "pdftoppm -r " + std::to_string(72 * zoom) + " -png -singlefile " + file + " " +
                  Path("seen");
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return pe::testing::DecodePng(pe::testing::ReadFile(png));
  }
};

int Differs(const unsigned char* p, Rgba8 c) {
  return std::max({std::abs(p[0] - c.r), std::abs(p[1] - c.g), std::abs(p[2] - c.b)});
}

// Pixels of the check figure's error map (inside its plot area, off the frame) whose colour is
// far from the colour of |error| = 0, and all the pixels looked at.
std::pair<int, int> LitPixels(const RgbaImage& img, const PlotBox& box, double zoom) {
  const Rgba8 zero = MapValue(ColormapId::kViridis, 0.0f, 0.0f, 1.0f);
  int lit = 0, all = 0;
  for (int y = static_cast<int>(std::ceil(box.y * zoom)) + 2;
       y < static_cast<int>((box.y + box.h) * zoom) - 2; ++y) {
    for (int x = static_cast<int>(std::ceil(box.x * zoom)) + 2;
         x < static_cast<int>((box.x + box.w) * zoom) - 2; ++x) {
      ++all;
      if (Differs(img.at(x, y), zero) > 80) ++lit;
    }
  }
  return {lit, all};
}

void ExpectTheWrongCellShows(const EncodingParams& table, int64_t row, int64_t col, float delta,
                             const std::string& path, std::initializer_list<FigureSize> sizes,
                             FigureTexels& t, const std::string& what) {
  ASSERT_TRUE(pe::testing::WriteTableNpyWithAWrongCell(path, table, row, col, delta));
  ModelParams m;
  m.pe = table;
  m.check_table = path;
  const ViewSelection sel = DefaultViews(m);
  for (const FigureSize& size : sizes) {
    // SVG and PDF share their grid (one texel per unit): one build serves both.
    for (FigureFormat built : {FigureFormat::kPng, FigureFormat::kSvg}) {
      if (built != FigureFormat::kPng && size.scale != 1) continue;
      Result<Figure> f = BuildViewFigure(ViewKind::kCheck, m, sel, size, built);
      ASSERT_TRUE(f.ok()) << f.message();
      ASSERT_EQ(f.value().panels.size(), 2u);
      const PlotBox box = FigurePanelPlotBoxes(f.value(), size).front();
      for (FigureFormat format : {FigureFormat::kPng, FigureFormat::kSvg, FigureFormat::kPdf}) {
        if ((format == FigureFormat::kPng) != (built == FigureFormat::kPng)) continue;
        for (int zoom : {1, 2}) {
          if (format == FigureFormat::kPng && zoom != 1) continue;
          const double k = format == FigureFormat::kPng ? size.scale : zoom;
          const RgbaImage img = t.Seen(f.value(), format, size, zoom);
          ASSERT_EQ(img.w, static_cast<int>(std::lround(size.width * k)));
          const auto [lit, all] = LitPixels(img, box, k);
          const std::string where = what + ", " + std::to_string(static_cast<int>(size.width)) +
                                    "x" + std::to_string(static_cast<int>(size.height)) +
                                    " scale " + std::to_string(size.scale) + ", " +
                                    (format == FigureFormat::kPng   ? "PNG"
                                     : format == FigureFormat::kSvg ? "SVG in rsvg-convert"
                                                                    : "PDF in pdftoppm") +
                                    ", zoom " + std::to_string(zoom);
          EXPECT_GE(lit, 1) << where << ": the wrong cell lights no pixel";
          EXPECT_LT(lit, all / 100) << where << ": the map is not the colour of no error";
        }
      }
    }
  }
}

TEST_F(FigureTexels, OneWrongCellOfASinusoidShowsInEveryFormat) {
  if (!Have("rsvg-convert") || !Have("pdftoppm")) {
    GTEST_FAIL() << "rsvg-convert (librsvg2-bin) and pdftoppm (poppler-utils) are needed";
  }
  EncodingParams p;  // the paper's sinusoid
  p.d_model = 64;
  p.max_len = 5000;
  ExpectTheWrongCellShows(p, 3001, 40, 0.05f, Path("hot.npy"),
                          {FigureSize{640, 400, 1}, FigureSize{800, 600, 1},
                           FigureSize{1200, 900, 1}, FigureSize{640, 400, 2}},
                          *this, "sinusoid (3001, 40)");
}

TEST_F(FigureTexels, OneWrongCellOfALlama3RopeTableShowsInEveryFormat) {
  if (!Have("rsvg-convert") || !Have("pdftoppm")) {
    GTEST_FAIL() << "rsvg-convert (librsvg2-bin) and pdftoppm (poppler-utils) are needed";
  }
  EncodingParams p;
  p.d_model = 128;
  p.max_len = 2048;
  RopeParams rp;  // Llama 3: theta 500000, llama3 scaling, the cos table
  rp.theta = 500000;
  rp.scaling = RopeScaling::kLlama3;
  rp.factor = 8;
  rp.original_max_len = 8192;
  p.scheme = rp;
  ExpectTheWrongCellShows(p, 1000, 60, 0.01f, Path("rope.npy"),
                          {FigureSize{640, 400, 1}, FigureSize{1200, 900, 1}}, *this,
                          "llama3 cos (1000, 60)");
}

// A heatmap PNG's pixel is the mean of the cells of its texel: rows [e_k, e_(k+1)) with
// e_k = floor(k L / H) over the H pixel rows of the plot, as the legend's "~L/H positions" says.
TEST_F(FigureTexels, HeatmapPixelsAreTheMeansOfTheirCells) {
  ModelParams m;
  m.pe.d_model = 64;
  m.pe.max_len = 5000;
  const ViewSelection sel = DefaultViews(m);
  for (const FigureSize size : {FigureSize{960, 540, 1}, FigureSize{800, 600, 1.5}}) {
    Result<Figure> f = BuildViewFigure(ViewKind::kHeatmap, m, sel, size, FigureFormat::kPng);
    ASSERT_TRUE(f.ok()) << f.message();
    const PlotBox box = FigurePlotBox(f.value(), size);
    // Pixel rows whose centres lie in the plot.
    const int top = static_cast<int>(std::ceil(box.y * size.scale - 0.5));
    const int rows = static_cast<int>(std::ceil((box.y + box.h) * size.scale - 0.5)) - top;
    const int left = static_cast<int>(std::ceil(box.x * size.scale - 0.5));
    const double px_per_col = box.w * size.scale / 64;
    ASSERT_GT(rows, 100);
    const double per_pixel = 5000.0 / rows;
    char note[64];
    std::snprintf(note, sizeof note, "the exact mean of ~%.0f positions", per_pixel);
    bool said = false;
    for (const FigureLegendItem& it : f.value().legend) {
      said = said || it.label.find(note) != std::string::npos;
    }
    EXPECT_TRUE(said) << note;
    std::ostringstream out;
    ASSERT_TRUE(RenderFigure(f.value(), FigureFormat::kPng, size, out).ok());
    const RgbaImage img = pe::testing::DecodePng(out.str());
    ASSERT_TRUE(f.value().colorbar.has_value());
    const FigureColorBar bar = *f.value().colorbar;
    int checked = 0;
    for (int k = 2; k + 2 < rows; k += 7) {
      const int64_t a = static_cast<int64_t>(std::floor(5000.0 * k / rows));
      const int64_t b = static_cast<int64_t>(std::floor(5000.0 * (k + 1) / rows));
      for (int j : {16, 17, 30, 41}) {
        // PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...).
        const double w = std::pow(10000.0, -static_cast<double>(j / 2 * 2) / 64);
        double sum = 0;
        for (int64_t p = a; p < b; ++p) {
          sum += j % 2 == 0 ? std::sin(static_cast<double>(p) * w)
                            : std::cos(static_cast<double>(p) * w);
        }
        const Rgba8 want =
            MapValue(m.colormap, static_cast<float>(sum / static_cast<double>(b - a)),
                     static_cast<float>(bar.vmin), static_cast<float>(bar.vmax));
        const int x = left + static_cast<int>((j + 0.5) * px_per_col);
        EXPECT_LE(Differs(img.at(x, top + k), want), 2)
            << "pixel row " << k << " (positions " << a << " to " << b - 1 << "), column " << j
            << ", size " << size.width << "x" << size.height << " scale " << size.scale;
        ++checked;
      }
    }
    EXPECT_GT(checked, 100);
  }
}

}  // namespace
}  // namespace pe
