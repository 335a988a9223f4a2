// Exported figures, checked the way a reader of the file would: PNG pixels against the colormap
// and the formula, SVG structure (xmllint), PDF text and page size (poppler), and the metadata
// that lets a figure be regenerated, read back from each format.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "encoding/learned.h"
#include "figure/figure_render.h"
#include "image_support.h"
#include "model/param_fields.h"
#include "test_support.h"
#include "ui/ui.h"
#include "views/figure_export.h"
#include "views/value_image.h"

namespace pe {
namespace {

using Decoded = pe::testing::RgbaImage;
using pe::testing::DecodePng;

std::string Render(const Figure& f, FigureFormat format, const FigureSize& size) {
  std::ostringstream out;
  Status s = RenderFigure(f, format, size, out);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.message());
  return out.str();
}

// tEXt chunks of a PNG, read with a parser of our own (length, type, data, CRC).
std::map<std::string, std::string> PngText(const std::string& png) {
  std::map<std::string, std::string> text;
  size_t at = 8;
  while (at + 12 <= png.size()) {
    const uint32_t len = (uint32_t(uint8_t(png[at])) << 24) |
                         (uint32_t(uint8_t(png[at + 1])) << 16) |
                         (uint32_t(uint8_t(png[at + 2])) << 8) | uint32_t(uint8_t(png[at + 3]));
    const std::string type = png.substr(at + 4, 4);
    if (type == "tEXt") {
      const std::string data = png.substr(at + 8, len);
      const size_t nul = data.find('\0');
      text[data.substr(0, nul)] = data.substr(nul + 1);
    }
    at += 12 + len;
  }
  return text;
}

using pe::testing::Capture;

bool Have(const std::string& tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

class Figures : public pe::testing::TempDirTest {
 protected:
  void Write(const std::string& path, const std::string& bytes) {
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  Figure Build(ViewKind view, const ModelParams& m, const ViewSelection& sel,
               const FigureSize& size, FigureFormat format) {
    Result<Figure> f = BuildViewFigure(view, m, sel, size, format);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.message());
    return f.ok() ? f.value() : Figure();
  }
};

// The shared values-to-image step of the score, similarity, precision and compare views: each
// value is its colormap entry on [lo, hi] (ColormapIndex's rounding), and only the values of
// the flat kind take the flat colour.
// An export reuses the caller's encoding only when it was made from the very parameters asked
// for: a learned table of other parameters (here: another seed, then other rows) is never
// drawn in its place.
TEST(ReuseOrMakeEncoding, ReusesOnlyAnEncodingOfTheSameParameters) {
  EncodingParams p;
  p.scheme = LearnedParams{};
  p.d_model = 8;
  p.max_len = 16;
  const EncodingPtr built = MakeEncoding(p).value();
  Result<EncodingPtr> same = ReuseOrMakeEncoding(p, {}, built);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same.value(), built);
  EncodingParams other = p;
  other.learned().seed = 1;
  Result<EncodingPtr> seeded = ReuseOrMakeEncoding(other, {}, built);
  ASSERT_TRUE(seeded.ok());
  EXPECT_NE(seeded.value(), built);
  EXPECT_EQ(seeded.value()->ValueAt(3, 5.0), LearnedValue(other, 5, 3));
  EXPECT_NE(seeded.value()->ValueAt(3, 5.0), built->ValueAt(3, 5.0));
  other = p;
  other.offset = 4;
  other.max_len = 8;
  Result<EncodingPtr> rows = ReuseOrMakeEncoding(other, {}, built);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows.value()->rows(), 8);
  EXPECT_EQ(rows.value()->ValueAt(0, 4.0), built->ValueAt(0, 4.0));
  // None given: made here.
  EXPECT_TRUE(ReuseOrMakeEncoding(p, {}, nullptr).ok());
}

// A heatmap figure with more cells than pixels says that each pixel is a mean, in its table's
// words (the window's caption does; an exported 10000 x 8192 noise table otherwise looked empty);
// one with a pixel or more per cell says nothing.
TEST(HeatmapFigure, SaysWhenEachPixelIsAMean) {
  auto notes = [](const ModelParams& m) {
    Result<Figure> f =
        BuildViewFigure(ViewKind::kHeatmap, m, DefaultViews(m), {}, FigureFormat::kPng);
    EXPECT_TRUE(f.ok()) << f.message();
    std::string all;
    for (const FigureLegendItem& item : f.value().legend) all += item.label + "\n";
    return all;
  };
  ModelParams m;  // 100 x 128 at 960 x 540: several pixels per cell
  EXPECT_EQ(notes(m).find("each pixel"), std::string::npos) << notes(m);
  m.pe.max_len = 20000;
  m.pe.d_model = 2048;
  const std::string big = notes(m);
  EXPECT_NE(big.find("each pixel: the exact mean of ~"), std::string::npos) << big;
  EXPECT_NE(big.find(" positions x "), std::string::npos) << big;
  EXPECT_NE(big.find(" columns"), std::string::npos) << big;
  SetScheme(m, Scheme::kAlibi);
  m.pe.max_len = 5000;
  const std::string bias = notes(m);
  EXPECT_NE(bias.find(" queries x "), std::string::npos) << bias;
  EXPECT_NE(bias.find(" keys"), std::string::npos) << bias;
}

TEST(ValueImage, EachValueIsItsColourAndOnlyTheFlatKindIsFlat) {
  const float nan = std::nanf(""), inf = INFINITY;
  const std::vector<float> v = {-2.0f, -1.0f, 0.0f, 0.5f, 1.0f, 2.0f, nan, inf, -inf};
  const Rgba8 grey{150, 150, 150, 255}, black{0, 0, 0, 255};
  bool any = false;
  const FigureImage im =
      ValueImage(v, 3, 3, {ColormapId::kRdBu, -1, 1, FlatValues::kNaN, grey, 0, 3, 10, 13}, &any);
  EXPECT_TRUE(any);
  ASSERT_EQ(im.rgba.size(), 36u);
  EXPECT_EQ(im.x1, 3.0);
  EXPECT_EQ(im.y0, 10.0);
  const ColorLut& lut = GetColormap(ColormapId::kRdBu);
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isinf(v[i])) continue;  // not a value these views colour with the map
    const Rgba8 got{im.rgba[4 * i], im.rgba[4 * i + 1], im.rgba[4 * i + 2], im.rgba[4 * i + 3]};
    // Independent: index round((v + 1) / 2 * 255) clamped to [0, 255].
    const double t = std::clamp(std::round((v[i] + 1.0) / 2.0 * 255.0), 0.0, 255.0);
    const Rgba8 want = std::isnan(v[i]) ? grey : lut[static_cast<size_t>(t)];
    EXPECT_EQ(got, want) << i;
  }
  bool none = false;
  const std::vector<float> finite = {0.25f, -0.25f};
  (void)ValueImage(finite, 2, 1, {ColormapId::kRdBu, -1, 1, FlatValues::kNaN, grey}, &none);
  EXPECT_FALSE(none);
  const FigureImage over =
      ValueImage(v, 3, 3, {ColormapId::kViridis, -1, 1, FlatValues::kInfinite, black});
  for (size_t i = 0; i < v.size(); ++i) {
    const Rgba8 got{over.rgba[4 * i], over.rgba[4 * i + 1], over.rgba[4 * i + 2],
                    over.rgba[4 * i + 3]};
    if (std::isinf(v[i])) {
      EXPECT_EQ(got, black) << i;
    } else {
      EXPECT_EQ(got, MapValue(ColormapId::kViridis, v[i], -1, 1)) << i;
    }
  }
  EXPECT_EQ(MaxAbsIgnoringNaN(v), INFINITY);
  EXPECT_EQ(MaxAbsIgnoringNaN({-3.0f, nan, 2.0f}), 3.0);
  EXPECT_EQ(MaxAbsIgnoringNaN({nan}), 0.0);
}

TEST_F(Figures, HeatmapPngPixelsHaveTheirCellsColours) {
  ModelParams m;
  const FigureSize size{960, 540, 1.5};
  const Figure f = Build(ViewKind::kHeatmap, m, DefaultViews(m), size, FigureFormat::kPng);
  ASSERT_TRUE(f.image.has_value());
  EXPECT_EQ(f.image->width, 128);  // one texel per cell: the plot is larger than the table
  EXPECT_EQ(f.image->height, 100);
  const Decoded img = DecodePng(Render(f, FigureFormat::kPng, size));
  ASSERT_EQ(img.w, 1440);
  ASSERT_EQ(img.h, 810);
  const PlotBox box = FigurePlotBox(f, size);
  for (auto [pos, dim] :
       {std::pair{12, 8}, std::pair{0, 0}, std::pair{99, 127}, std::pair{37, 64}}) {
    const double x = (box.x + (dim + 0.5) / 128.0 * box.w) * size.scale;
    const double y = (box.y + (pos + 0.5) / 100.0 * box.h) * size.scale;
    const Rgba8 want =
        MapValue(ColormapId::kRdBu, WaveValue(DescribeColumn(m.pe, dim), pos), -1, 1);
    const unsigned char* px = img.at(static_cast<int>(x), static_cast<int>(y));
    EXPECT_LE(std::abs(px[0] - want.r) + std::abs(px[1] - want.g) + std::abs(px[2] - want.b), 3)
        << "cell " << pos << "," << dim;
  }
}

TEST_F(Figures, SelectedRowIsOutlinedInTheHighlightColourOnlyWhenChosen) {
  ModelParams m;
  m.colormap = ColormapId::kViridis;
  m.pe.d_model = 32;
  m.pe.max_len = 20;
  const FigureSize size{800, 500, 1};
  AppState state;
  state.params = m;
  state.selection.selected_token = 3;
  ViewSelection sel = ViewsOf(state);
  sel.windows[ViewKind::kHeatmap] = DefaultViews(m).windows[ViewKind::kHeatmap];
  EXPECT_TRUE(Build(ViewKind::kHeatmap, m, sel, size, FigureFormat::kPng).overlays.empty())
      << "a window that never had a token chosen exports no outline";
  state.export_dialog.token_chosen = true;
  sel.highlight = ViewsOf(state).highlight;
  const Figure f = Build(ViewKind::kHeatmap, m, sel, size, FigureFormat::kPng);
  ASSERT_EQ(f.overlays.size(), 1u);
  const Rgba8 want = SelectionHighlightColor(ColormapId::kViridis);
  EXPECT_EQ(f.overlays[0].color, want);
  const PlotBox box = FigurePlotBox(f, size);
  EXPECT_EQ(f.overlays[0].line_width, SelectionLineWidth(box.h / 20));
  // The outline's top edge (between rows 2 and 3), found within a pixel, has the highlight's
  // colour at full strength, over cells of every colour along the row.
  const Decoded img = DecodePng(Render(f, FigureFormat::kPng, size));
  const double edge_y = box.y + 3.0 / 20.0 * box.h;
  for (double dim : {2.5, 10.5, 20.5, 29.5}) {
    const int x = static_cast<int>(box.x + dim / 32.0 * box.w);
    int best = 1 << 30;
    for (int dy = -1; dy <= 1; ++dy) {
      const unsigned char* p = img.at(x, static_cast<int>(edge_y) + dy);
      best = std::min(best,
                      std::abs(p[0] - want.r) + std::abs(p[1] - want.g) + std::abs(p[2] - want.b));
    }
    EXPECT_LE(best, 6) << "dimension " << dim;
  }
}

TEST_F(Figures, CurvePngPassesThroughTheFormula) {
  ModelParams m;
  m.curve_dims = {10};
  ViewSelection sel = DefaultViews(m);
  sel.markers = false;
  const FigureSize size{900, 500, 1};
  const Figure f = Build(ViewKind::kCurves, m, sel, size, FigureFormat::kPng);
  const Decoded img = DecodePng(Render(f, FigureFormat::kPng, size));
  const PlotBox box = FigurePlotBox(f, size);
  const WaveColumn c = DescribeColumn(m.pe, 10);
  const Rgba8 color = SeriesRgba(0);
  auto distance_near = [&](double x, double y) {
    int best = 1 << 30;
    for (int dy = -2; dy <= 2; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const unsigned char* p = img.at(static_cast<int>(x) + dx, static_cast<int>(y) + dy);
        best = std::min(
            best, std::abs(p[0] - color.r) + std::abs(p[1] - color.g) + std::abs(p[2] - color.b));
      }
    }
    return best;
  };
  for (double pos = 2.7; pos < 98; pos += 5.3) {
    const double value = WaveValueAt(c, pos);
    const double x =
        box.x + (pos - sel.windows[ViewKind::kCurves].x0) /
                    (sel.windows[ViewKind::kCurves].x1 - sel.windows[ViewKind::kCurves].x0) * box.w;
    auto y_of = [&](double v) { return box.y + box.h - (v + 1.15) / 2.3 * box.h; };
    EXPECT_LT(distance_near(x, y_of(value)), 60) << "position " << pos;
    if (std::fabs(value) > 0.5) {
      EXPECT_GT(distance_near(x, y_of(-value)), 150) << "position " << pos;
    }
  }
}

TEST_F(Figures, NarrowFiguresKeepEveryCharacterOnThePage) {
  // A 500-unit figure whose title and legend ("j=127: i=63 cos, ω=0.0001155, λ=5.441e+04") are
  // wider than the room they have: the title shrinks and the legend wraps, so no ink touches the
  // page edges (text cut there would lose characters, e.g. a value's leading minus sign).
  ModelParams m;
  m.curve_dims = {1, 126, 127};
  const FigureSize size{500, 300, 1};
  const Figure f = Build(ViewKind::kCurves, m, DefaultViews(m), size, FigureFormat::kPng);
  const Decoded img = DecodePng(Render(f, FigureFormat::kPng, size));
  ASSERT_EQ(img.w, 500);
  auto ink = [&](int x, int y) { return img.at(x, y)[0] < 160 && img.at(x, y)[1] < 160; };
  int title_left = img.w, title_right = -1;
  for (int y = 0; y < 30; ++y) {
    for (int x = 0; x < img.w; ++x) {
      if (ink(x, y)) {
        title_left = std::min(title_left, x);
        title_right = std::max(title_right, x);
      }
    }
  }
  EXPECT_GE(title_left, 2) << "the title is cut at the left edge";
  EXPECT_LE(title_right, img.w - 3) << "the title is cut at the right edge";
  for (int y = 0; y < img.h; ++y) {
    for (int x : {img.w - 2, img.w - 1}) {
      EXPECT_FALSE(ink(x, y)) << "text reaches the right edge at y = " << y;
    }
  }
}

// Every character of a legend item, spaces aside: the lines laid out, joined.
std::string WithoutSpaces(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c != ' ') out += c;
  }
  return out;
}

TEST_F(Figures, LegendWrapsLongWordsAndKeepsEveryCharacter) {
  // A word with no space wider than the legend's room (HF's function name in the T5 notes) and
  // a list of numbers: each is laid out in lines that fit, and the lines give the text back.
  Figure f;
  f.view = {0, 1, 0, 1};
  const std::string long_word = "T5Attention._relative_position_bucket_and_then_some_more";
  f.legend.push_back({"after " + long_word, SeriesRgba(0)});
  f.legend.push_back(
      {"top keys: 1564 (0.00102), 1565 (0.00102), 1566 (0.00102), 1567 (0.00102), "
       "1568 (0.00102)",
       SeriesRgba(1)});
  for (double width : {500.0, 700.0, 960.0}) {
    const FigureSize size{width, 540, 1};
    const LegendLayout layout = FigureLegendLayout(f, size);
    ASSERT_TRUE(layout.complete);
    ASSERT_EQ(layout.items.size(), f.legend.size());
    for (size_t i = 0; i < f.legend.size(); ++i) {
      const LegendLayout::Item& it = layout.items[i];
      std::string joined;
      for (size_t k = 0; k < it.lines.size(); ++k) {
        joined += it.lines[k];
        EXPECT_LE(it.widths[k], layout.max_width + 1e-9) << it.lines[k];
        EXPECT_LE(it.x + it.widths[k], width - 10 + 1e-9) << it.lines[k];
      }
      EXPECT_EQ(WithoutSpaces(joined), WithoutSpaces(f.legend[i].label)) << "at width " << width;
    }
    // The long word needed breaking inside (it is wider than the room on its own line).
    EXPECT_GE(layout.items[0].lines.size(), 2u);
  }
  // Broken after punctuation where it can be: a line of the long word ends in '.' or '_'.
  const LegendLayout narrow = FigureLegendLayout(f, {500, 540, 1});
  bool at_punct = false;
  for (size_t k = 0; k + 1 < narrow.items[0].lines.size(); ++k) {
    const char last = narrow.items[0].lines[k].back();
    at_punct = at_punct || last == '.' || last == '_';
  }
  EXPECT_TRUE(at_punct);
}

// No text of any figure is cut, at 640 x 400 and at the least size a figure may have (200 x
// 200): every text's box lies on the page and inside the region it is drawn in (its panel), and
// every legend item and line of text is drawn whole. The check view of a table with a wrong
// cell has the longest legend (the worst cell, the nearest candidate and how far it is); the
// other views of two schemes too.
TEST_F(Figures, NoTextIsCutAtSmallSizes) {
  const std::string table = Path("T.npy");
  ASSERT_TRUE(pe::testing::WriteSinusoidNpyWithAWrongCell(table, 3200, 64, 3001, 40));
  int checked = 0;
  for (Scheme scheme : {Scheme::kSinusoidal, Scheme::kRope}) {
    ModelParams m;
    SetScheme(m, scheme);
    m.pe.d_model = 64;
    m.check_table = table;
    for (int v = 0; v < kViewKinds; ++v) {
      const ViewKind view = static_cast<ViewKind>(v);
      if (!ViewApplies(view, m.pe)) continue;
      if (view == ViewKind::kCheck && scheme != Scheme::kSinusoidal) continue;
      for (const FigureSize size : {FigureSize{640, 400, 1}, FigureSize{200, 200, 1}}) {
        const std::string what = std::string(ViewName(view)) + " at " +
                                 std::to_string(static_cast<int>(size.width)) + "x" +
                                 std::to_string(static_cast<int>(size.height));
        Result<Figure> built = BuildViewFigure(view, m, DefaultViews(m), size, FigureFormat::kPng);
        if (!built.ok()) continue;  // a view that needs more than these parameters give
        const Figure& f = built.value();
        const std::vector<FigureTextBox> boxes = FigureTextBoxes(f, size);
        ASSERT_FALSE(boxes.empty()) << what;
        std::string drawn;
        for (const FigureTextBox& b : boxes) {
          const double e = 0.5;
          EXPECT_TRUE(b.x0 >= -e && b.y0 >= -e && b.x1 <= size.width + e && b.y1 <= size.height + e)
              << what << ": \"" << b.text << "\" runs off the page: (" << b.x0 << ", " << b.y0
              << ") to (" << b.x1 << ", " << b.y1 << ")";
          EXPECT_TRUE(b.x0 >= b.clip_x0 - e && b.y0 >= b.clip_y0 - e && b.x1 <= b.clip_x1 + e &&
                      b.y1 <= b.clip_y1 + e)
              << what << ": \"" << b.text << "\" is cut by its panel: (" << b.x0 << ", " << b.y0
              << ") to (" << b.x1 << ", " << b.y1 << ") in (" << b.clip_x0 << ", " << b.clip_y0
              << ") to (" << b.clip_x1 << ", " << b.clip_y1 << ")";
          drawn += b.text;
        }
        drawn = WithoutSpaces(drawn);
        for (const FigureLegendItem& it : f.legend) {
          EXPECT_NE(drawn.find(WithoutSpaces(it.label)), std::string::npos)
              << what << ": the legend item \"" << it.label << "\" is not drawn whole";
        }
        for (const FigureText& t : f.text) {
          EXPECT_NE(drawn.find(WithoutSpaces(t.text)), std::string::npos)
              << what << ": the text \"" << t.text << "\" is not drawn whole";
        }
        if (f.panels.empty()) {
          EXPECT_TRUE(FigureLegendLayout(f, size).complete) << what;
        }
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 20);
  // The check view's legend at 640 x 400 names the wrong cell and stays readable.
  ModelParams m;
  m.pe.d_model = 64;
  m.check_table = table;
  const FigureSize size{640, 400, 1};
  Result<Figure> check =
      BuildViewFigure(ViewKind::kCheck, m, DefaultViews(m), size, FigureFormat::kPng);
  ASSERT_TRUE(check.ok()) << check.message();
  const LegendLayout legend = FigureLegendLayout(check.value(), size);
  EXPECT_TRUE(legend.complete);
  EXPECT_GE(legend.pt, 8.0);
}

TEST_F(Figures, DefaultTitlesNameTheTablesShape) {
  ModelParams m;
  m.pe.d_model = 48;
  m.pe.max_len = 300;
  m.pe.offset = 7;
  const FigureSize size;
  EXPECT_EQ(Build(ViewKind::kHeatmap, m, DefaultViews(m), size, FigureFormat::kPng).title,
            "Sinusoidal positional encoding (paper), d_model = 48, max_len = 300, from position 7");
  EXPECT_EQ(Build(ViewKind::kCurves, m, DefaultViews(m), size, FigureFormat::kPng).title,
            "PE(position, dimension) as waves (paper, d_model = 48, max_len = 300, from position "
            "7)");
  // A bias table is max_len x max_len: d_model says nothing about it.
  SetScheme(m, Scheme::kAlibi);
  m.pe.offset = 0;
  EXPECT_EQ(Build(ViewKind::kHeatmap, m, DefaultViews(m), size, FigureFormat::kPng).title,
            "ALiBi bias, head 0 of 8 (causal, slope 2^-1 = 0.5), max_len = 300");
}

// Every view names the query m and the key n (the score, attention and compare views do), so
// ALiBi's slope, m in its paper, is s here: "-m (m - n)" would read as nonsense.
TEST_F(Figures, BiasViewsNameTheQueryMTheKeyNAndTheSlopeS) {
  ModelParams m;
  SetScheme(m, Scheme::kAlibi);
  m.pe.max_len = 40;
  const FigureSize size;
  const Figure bias = Build(ViewKind::kBias, m, DefaultViews(m), size, FigureFormat::kPng);
  const Figure score = Build(ViewKind::kScore, m, DefaultViews(m), size, FigureFormat::kPng);
  EXPECT_EQ(bias.x.label, "key position n");
  EXPECT_EQ(bias.y.label, "query position m");
  EXPECT_EQ(bias.x.label, score.x.label);
  EXPECT_EQ(bias.y.label, score.y.label);
  ASSERT_TRUE(bias.colorbar.has_value());
  EXPECT_EQ(bias.colorbar->label, "bias(m, n)");
  const Figure slopes = Build(ViewKind::kSlopes, m, DefaultViews(m), size, FigureFormat::kPng);
  EXPECT_EQ(slopes.title, "ALiBi slope s per head (8 heads, max bias 8)");
  EXPECT_EQ(slopes.y.label, "slope s (bias = -s \xc2\xb7 distance)");
  ASSERT_GE(slopes.legend.size(), 2u);
  EXPECT_EQ(slopes.legend[1].label, "head 0: s = 2^-1 = 0.5");
}

TEST_F(Figures, SvgIsWellFormedWithOneImageAndVectorCurves) {
  ModelParams m;
  const FigureSize size;
  const std::string heat =
      Render(Build(ViewKind::kHeatmap, m, DefaultViews(m), size, FigureFormat::kSvg),
             FigureFormat::kSvg, size);
  const std::string curves =
      Render(Build(ViewKind::kCurves, m, DefaultViews(m), size, FigureFormat::kSvg),
             FigureFormat::kSvg, size);
  auto count = [](const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(heat, "<image "), 1u);  // the whole table is one embedded image
  EXPECT_NE(heat.find("image-rendering=\"optimizeSpeed\""), std::string::npos);
  EXPECT_LT(count(heat, "<path"), 2000u);  // glyphs and axes, never a path per cell (12,800 cells)
  EXPECT_EQ(count(curves, "<image "), 0u);
  EXPECT_GE(count(curves, "<path"), 4u);
  EXPECT_NE(
      heat.find(
          "<title>Sinusoidal positional encoding (paper), d_model = 128, max_len = 100</title>"),
      std::string::npos);
  EXPECT_NE(heat.find("<pe:param name=\"d_model\" value=\"128\"/>"), std::string::npos);
  EXPECT_NE(heat.find("<pe:param name=\"view\" value=\"heatmap\"/>"), std::string::npos);
  if (!Have("xmllint")) GTEST_SKIP() << "xmllint not installed (libxml2-utils)";
  for (const auto& [name, svg] : {std::pair{"heat.svg", heat}, std::pair{"curves.svg", curves}}) {
    Write(Path(name), svg);
    EXPECT_EQ(std::system(("xmllint --noout " + Path(name)).c_str()), 0) << name;
  }
}

// Renders the vector figure of `m`'s heatmap the way a reader's viewer would (rsvg-convert for
// SVG, pdftoppm for PDF, at one pixel per unit) and checks that cells are crisp: the centre of
// each checked cell has exactly the colormap's colour, and between two neighbouring cells of
// different colours at most one pixel has neither colour (the antialiased edge).
void ExpectCrispCells(const Figure& f, const ModelParams& m, const FigureSize& size,
                      const Decoded& img, const std::string& what) {
  ASSERT_EQ(img.w, static_cast<int>(size.width)) << what;
  ASSERT_EQ(img.h, static_cast<int>(size.height)) << what;
  const PlotBox box = FigurePlotBox(f, size);
  const ViewRange& v = f.view;
  const double cell_w = box.w / (v.x1 - v.x0), cell_h = box.h / (v.y1 - v.y0);
  auto colour = [&](int pos, int dim) {
    return MapValue(m.colormap, WaveValue(DescribeColumn(m.pe, dim), pos), -1, 1);
  };
  auto differs = [](const unsigned char* p, Rgba8 c) {
    return std::max({std::abs(p[0] - c.r), std::abs(p[1] - c.g), std::abs(p[2] - c.b)});
  };
  constexpr int kSameColour = 1;  // rounding in the renderer's compositing
  int edges = 0;
  for (int pos = 1; pos + 1 < m.pe.max_len; pos += 3) {
    for (int dim = 0; dim + 1 < m.pe.d_model; dim += 3) {
      const int cx = static_cast<int>(box.x + (dim + 0.5 - v.x0) * cell_w);
      const int cy = static_cast<int>(box.y + (pos + 0.5 - v.y0) * cell_h);
      const Rgba8 here = colour(pos, dim);
      EXPECT_LE(differs(img.at(cx, cy), here), kSameColour)
          << what << ": centre of cell (" << pos << ", " << dim << ")";
      // Across to the next dimension, and down to the next position.
      for (bool across : {true, false}) {
        const Rgba8 next = across ? colour(pos, dim + 1) : colour(pos + 1, dim);
        if (differs(reinterpret_cast<const unsigned char*>(&next), here) < 40) continue;
        const int steps = static_cast<int>(across ? cell_w : cell_h);
        int between = 0;
        for (int k = 1; k < steps; ++k) {
          const unsigned char* p = across ? img.at(cx + k, cy) : img.at(cx, cy + k);
          if (differs(p, here) > kSameColour && differs(p, next) > kSameColour) ++between;
        }
        EXPECT_LE(between, 1) << what << ": edge after cell (" << pos << ", " << dim << ") "
                              << (across ? "across" : "down");
        ++edges;
      }
    }
  }
  EXPECT_GT(edges, 10) << what << ": too few contrasting edges checked";
}

TEST_F(Figures, SvgAndPdfCellsStayCrispInRenderers) {
  if (!Have("rsvg-convert") || !Have("pdftoppm")) {
    GTEST_FAIL() << "rsvg-convert (librsvg2-bin) and pdftoppm (poppler-utils) are needed";
  }
  ModelParams big_cells;
  big_cells.pe.d_model = 16;
  big_cells.pe.max_len = 12;
  big_cells.colormap = ColormapId::kViridis;
  ModelParams small_cells;  // the default table: about 6 x 4 units per cell
  const FigureSize size{960, 540, 1};
  for (const ModelParams& m : {big_cells, small_cells}) {
    const std::string tag = "d" + std::to_string(m.pe.d_model);
    const Figure svg = Build(ViewKind::kHeatmap, m, DefaultViews(m), size, FigureFormat::kSvg);
    Write(Path(tag + ".svg"), Render(svg, FigureFormat::kSvg, size));
    ASSERT_EQ(std::system(
                  ("rsvg-convert -o " + Path(tag + "-svg.png") + " " + Path(tag + ".svg")).c_str()),
              0);
    ExpectCrispCells(svg, m, size, DecodePng(pe::testing::ReadFile(Path(tag + "-svg.png"))),
                     tag + " SVG in rsvg-convert");
    const Figure pdf = Build(ViewKind::kHeatmap, m, DefaultViews(m), size, FigureFormat::kPdf);
    Write(Path(tag + ".pdf"), Render(pdf, FigureFormat::kPdf, size));
    ASSERT_EQ(std::system(("pdftoppm -r 72 -png -singlefile " + Path(tag + ".pdf") + " " +
                           Path(tag + "-pdf"))
                              .c_str()),
              0);
    ExpectCrispCells(pdf, m, size, DecodePng(pe::testing::ReadFile(Path(tag + "-pdf.png"))),
                     tag + " PDF in pdftoppm");
  }
}

TEST_F(Figures, SvgBytesDoNotDependOnEarlierExports) {
  // The window exports many figures in one process; the CLI one. Same figure, same bytes.
  ModelParams m;
  const FigureSize size;
  const Figure heat = Build(ViewKind::kHeatmap, m, DefaultViews(m), size, FigureFormat::kSvg);
  const std::string first = Render(heat, FigureFormat::kSvg, size);
  Render(Build(ViewKind::kCurves, m, DefaultViews(m), size, FigureFormat::kSvg), FigureFormat::kSvg,
         size);
  EXPECT_TRUE(first == Render(heat, FigureFormat::kSvg, size));
  EXPECT_NE(first.find("<image "), std::string::npos);
  EXPECT_NE(first.find("id=\"image0\""), std::string::npos);
  EXPECT_NE(first.find("xlink:href=\"#image0\""), std::string::npos);
}

TEST_F(Figures, PdfHasThePageSizeTextAndInformation) {
  if (!Have("pdfinfo") || !Have("pdftotext")) GTEST_SKIP() << "poppler-utils not installed";
  ModelParams m;
  m.pe.d_model = 64;
  const FigureSize size{700, 420, 1};
  ::setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  const std::string pdf =
      Render(Build(ViewKind::kHeatmap, m, DefaultViews(m), size, FigureFormat::kPdf),
             FigureFormat::kPdf, size);
  Write(Path("h.pdf"), pdf);
  const std::string info = Capture("pdfinfo " + Path("h.pdf"));
  EXPECT_NE(info.find("700 x 420 pts"), std::string::npos) << info;
  EXPECT_NE(info.find("Sinusoidal positional encoding (paper), d_model = 64"), std::string::npos)
      << info;
  EXPECT_NE(info.find("d_model=64"), std::string::npos) << info;
  EXPECT_NE(info.find("PE Explorer " PE_VERSION), std::string::npos) << info;
  EXPECT_NE(info.find("2023"), std::string::npos) << "CreationDate follows SOURCE_DATE_EPOCH\n"
                                                  << info;
  const std::string text = Capture("pdftotext " + Path("h.pdf") + " -");
  for (const char* want :
       {"Sinusoidal positional encoding", "position p", "dimension j", "PE(p, j)"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  // Same figure, same date: the same bytes.
  EXPECT_EQ(pdf, Render(Build(ViewKind::kHeatmap, m, DefaultViews(m), size, FigureFormat::kPdf),
                        FigureFormat::kPdf, size));
  ::unsetenv("SOURCE_DATE_EPOCH");
}

TEST_F(Figures, PngMetadataRoundTrips) {
  ModelParams m;
  m.pe.d_model = 20;
  m.pe.sinusoidal().variant = PeVariant::kTfText;
  m.example.text = "I love NLP.";
  m.input.scale = false;
  const FigureSize size;
  const std::string png =
      Render(Build(ViewKind::kSums, m, DefaultViews(m), size, FigureFormat::kPng),
             FigureFormat::kPng, size);
  ASSERT_FALSE(DecodePng(png).rgba.empty()) << "the chunks we insert keep the PNG valid";
  auto text = PngText(png);
  EXPECT_EQ(text["pe:view"], "sum");
  EXPECT_EQ(text["pe:d_model"], "20");
  EXPECT_EQ(text["pe:variant"], "tf-text");
  EXPECT_EQ(text["pe:text"], "I love NLP.");
  EXPECT_EQ(text["pe:scaling"], "off");
  EXPECT_EQ(text["Software"], std::string("PE Explorer ") + PE_VERSION);
  EXPECT_EQ(text["Title"], "Input vector of \"I\" (id 0, position 0), d_model = 20");
}

TEST_F(Figures, FailedExportsLeaveNothingBehind) {
  ModelParams m;
  ExportRequestOptions opts;
  Status s = ExportView(ViewKind::kHeatmap, m, DefaultViews(m), "/nonexistent-dir/f.svg", opts);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent-dir/f.svg"), std::string::npos) << s.message();
  opts.size.width = 50;
  s = ExportView(ViewKind::kHeatmap, m, DefaultViews(m), Path("small.png"), opts);
  EXPECT_EQ(s.message(), "figure width must be in [120, 10000], got 50");
  opts.size = {};
  m.curve_dims = {500};
  s = ExportView(ViewKind::kCurves, m, DefaultViews(m), Path("c.pdf"), opts);
  EXPECT_EQ(s.message(), "dims: dimension 500 is outside [0, 127] for d_model 128");
  EXPECT_EQ(std::system(("test -z \"$(ls -A " + dir_ + ")\"").c_str()), 0)
      << "files left in " << dir_;
}

TEST_F(Figures, SuggestedNamesSayWhatTheFileShows) {
  ModelParams m;
  EXPECT_EQ(SuggestedFileName(ViewKind::kHeatmap, m, "svg"), "pe-heatmap_paper_d128_L100.svg");
  m.pe.offset = 7;
  m.pe.sinusoidal().variant = PeVariant::kT2t;
  EXPECT_EQ(SuggestedFileName(ViewKind::kCurves, m, "png"), "pe-curves_t2t_d128_L100_off7.png");
  // A learned table is named without drawing it (the dialog opens at once on a large one), with
  // the tag its encoding gives.
  m.pe.scheme = LearnedParams{};
  m.pe.offset = 0;
  m.pe.d_model = 8;
  m.pe.max_len = 16;
  EXPECT_EQ(SuggestedFileName(ViewKind::kHeatmap, m, "npy"), "pe-heatmap_learned_d8_L16.npy");
  EXPECT_EQ(MakeEncoding(m.pe).value()->FileTag(), "learned");
}

TEST_F(Figures, CliWritesEachFormatAtTheRequestedSize) {
  const std::string exe = PE_EXPLORER_EXE;
  ASSERT_EQ(std::system((exe + " export --view curves --dims 0-3 --width 1600 --height 900 -o " +
                         Path("c.png"))
                            .c_str()),
            0);
  Decoded c = DecodePng(pe::testing::ReadFile(Path("c.png")));
  EXPECT_EQ(c.w, 1600);
  EXPECT_EQ(c.h, 900);
  ASSERT_EQ(
      std::system((exe + " export --view heatmap --scale 2 --title 'My figure' -o " + Path("h.png"))
                      .c_str()),
      0);
  const std::string h = pe::testing::ReadFile(Path("h.png"));
  EXPECT_EQ(DecodePng(h).w, 1920);
  EXPECT_EQ(PngText(h)["Title"], "My figure");
  ASSERT_EQ(std::system((exe + " export --view sum --token all -o " + Path("s.svg")).c_str()), 0);
  EXPECT_NE(pe::testing::ReadFile(Path("s.svg")).find("value=\"all\""), std::string::npos);
  const std::string bad =
      Capture(exe + " export --view heatmap --positions 50:20 -o " + Path("x.png"));
  EXPECT_NE(bad.find("--positions must be A:B with 0 <= A < B <= 100, got \"50:20\""),
            std::string::npos)
      << bad;
  const std::string tiny = Capture(exe + " export --view heatmap --width 10 -o " + Path("x.pdf"));
  EXPECT_NE(tiny.find("--width must be an integer in [120, 10000], got \"10\""), std::string::npos)
      << tiny;
  const std::string big = Capture(exe + " export --view heatmap --scale 100 -o " + Path("x.png"));
  EXPECT_NE(big.find("--scale must be a number in [0.25, 8], got \"100\""), std::string::npos)
      << big;
  EXPECT_NE(std::system((exe + " export --view heatmap -o - --scale 100 >/dev/null 2>&1").c_str()),
            0);
  // A page too small for the text size: the file is written, and a note says what size the
  // text was drawn at and the largest --font-size the page takes as asked.
  const std::string small =
      Capture(exe + " export --view curves --width 252 --height 180 -o " + Path("small.svg"));
  EXPECT_NE(small.find("pe-explorer export: note: the text is drawn at 8.7 pt, not 12: a 252 x "
                       "180 page has no room for it (nothing is cut); --font-size 8.5 or a "
                       "larger page draws every size as asked"),
            std::string::npos)
      << small;
  const std::string as_asked = Capture(exe + " export --view curves --width 252 --height 180 " +
                                       "--font-size 8.5 -o " + Path("small85.svg"));
  EXPECT_EQ(as_asked, "") << "8.5 pt is drawn as asked: no note";
  EXPECT_EQ(Capture(exe + " export --view curves -o " + Path("default.svg")), "");
  struct stat st {};
  EXPECT_NE(::stat(Path("x.png").c_str(), &st), 0);
  EXPECT_NE(::stat(Path("x.pdf").c_str(), &st), 0);
}

}  // namespace
}  // namespace pe
