// Figures for slides and papers: every text of the heatmap, the curves (four legend items), the
// compare view and the spectrum laid out whole at 120 x 90, 252 x 180, 300 x 200 and
// 1920 x 1080 (on the page, inside its panel, no two overlapping, every legend item); the body
// size --font-size asks for; SVG text as <text> elements with the words of the PDF's text;
// sub- and superscripts drawn, never their markup; and the CLI's sizes, flags and metadata.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "figure/figure_render.h"
#include "figure/markup.h"
#include "test_support.h"
#include "views/figure_export.h"

namespace pe {
namespace {

using pe::testing::Capture;

bool Have(const std::string& tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

std::string WithoutSpaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

std::string Render(const Figure& f, FigureFormat format, const FigureSize& size) {
  std::ostringstream out;
  Status s = RenderFigure(f, format, size, out);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.message());
  return out.str();
}

struct Case {
  std::string name;
  ViewKind view;
  ModelParams m;
};

// The four views of the tests: a heatmap (colour bar), the curves of four dimensions (four
// legend items), the compare view (three panels, a legend strip) and the spectrum (long legend
// items with subscripts).
std::vector<Case> Cases() {
  std::vector<Case> out;
  ModelParams sin;
  SetScheme(sin, Scheme::kSinusoidal);
  sin.pe.d_model = 64;
  out.push_back({"heatmap", ViewKind::kHeatmap, sin});
  out.push_back({"curves", ViewKind::kCurves, sin});
  ModelParams cmp = sin;
  cmp.versus = "base=500";
  out.push_back({"compare", ViewKind::kCompare, cmp});
  ModelParams rope;
  SetScheme(rope, Scheme::kRope);
  rope.pe.d_model = 64;
  out.push_back({"spectrum", ViewKind::kSpectrum, rope});
  return out;
}

const FigureSize kSizes[] = {{120, 90, 1}, {252, 180, 1}, {300, 200, 1}, {1920, 1080, 1}};

std::string SizeName(const FigureSize& s) {
  std::ostringstream o;
  o << s.width << "x" << s.height;
  if (s.font_pt != kDefaultFontPt) o << " at " << s.font_pt << " pt";
  return o.str();
}

Figure Build(const Case& c, const FigureSize& size) {
  Result<Figure> f = BuildViewFigure(c.view, c.m, DefaultViews(c.m), size, FigureFormat::kPng);
  EXPECT_TRUE(f.ok()) << c.name << ": " << (f.ok() ? "" : f.message());
  return f.ok() ? f.value() : Figure();
}

// Every text on the page and in its panel, no two texts overlapping (by more than a hair:
// boxes are the font's whole ascent to descent), every legend item drawn whole.
void ExpectLaidOut(const Case& c, const FigureSize& size) {
  const std::string what = c.name + " at " + SizeName(size);
  const Figure f = Build(c, size);
  const std::vector<FigureTextBox> boxes = FigureTextBoxes(f, size);
  ASSERT_FALSE(boxes.empty()) << what;
  const double e = 0.5;
  std::string drawn;
  for (const FigureTextBox& b : boxes) {
    EXPECT_TRUE(b.x0 >= -e && b.y0 >= -e && b.x1 <= size.width + e && b.y1 <= size.height + e)
        << what << ": \"" << b.text << "\" runs off the page: (" << b.x0 << ", " << b.y0 << ") to ("
        << b.x1 << ", " << b.y1 << ")";
    EXPECT_TRUE(b.x0 >= b.clip_x0 - e && b.y0 >= b.clip_y0 - e && b.x1 <= b.clip_x1 + e &&
                b.y1 <= b.clip_y1 + e)
        << what << ": \"" << b.text << "\" is cut by its panel";
    drawn += b.text;
  }
  // Overlap: the boxes' intersection, less a tolerance of 1 unit each way (ascent and descent
  // of adjacent lines touch).
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      const FigureTextBox &a = boxes[i], &b = boxes[j];
      const double ox = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
      const double oy = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
      EXPECT_FALSE(ox > 1.0 && oy > 1.0)
          << what << ": \"" << a.text << "\" (" << a.x0 << ", " << a.y0 << ", " << a.x1 << ", "
          << a.y1 << ") overlaps \"" << b.text << "\" (" << b.x0 << ", " << b.y0 << ", " << b.x1
          << ", " << b.y1 << ")";
    }
  }
  drawn = WithoutSpaces(drawn);
  for (const FigureLegendItem& it : f.legend) {
    EXPECT_NE(drawn.find(WithoutSpaces(it.label)), std::string::npos)
        << what << ": the legend item \"" << it.label << "\" is not drawn whole";
  }
  if (f.panels.empty()) {
    const LegendLayout legend = FigureLegendLayout(f, size);
    EXPECT_TRUE(legend.complete) << what;
    EXPECT_EQ(legend.items.size(), f.legend.size()) << what;
  }
}

TEST(FigureText, EveryTextWholeAtFourSizes) {
  for (const Case& c : Cases()) {
    for (const FigureSize& size : kSizes) ExpectLaidOut(c, size);
  }
}

TEST(FigureText, CurvesKeepFourLegendItemsAtSmallSizes) {
  const Case c = Cases()[1];
  for (const FigureSize& size : kSizes) {
    const Figure f = Build(c, size);
    ASSERT_EQ(f.legend.size(), 4u);
    const LegendLayout legend = FigureLegendLayout(f, size);
    ASSERT_EQ(legend.items.size(), 4u) << SizeName(size);
    for (const LegendLayout::Item& it : legend.items) EXPECT_FALSE(it.lines.empty());
  }
}

// The title is never smaller than the body size asked for: it takes more lines instead.
TEST(FigureText, FontSizeHonoured) {
  for (const Case& c : Cases()) {
    if (c.view == ViewKind::kCompare) continue;  // its panels are drawn scaled to their columns
    for (FigureSize size : {FigureSize{252, 180, 1, 7}, FigureSize{300, 200, 1, 8},
                            FigureSize{640, 400, 1, 12}, FigureSize{1920, 1080, 1, 24}}) {
      // The spectrum's five long legend items take two lines each: at 8 pt they need a page
      // of 400 x 300 (on a smaller one every text is smaller, tested above).
      if (c.view == ViewKind::kSpectrum && size.width < 400) size = {400, 300, 1, 8};
      const std::string what = c.name + " at " + SizeName(size);
      const Figure f = Build(c, size);
      const std::vector<FigureTextBox> boxes = FigureTextBoxes(f, size);
      const std::vector<std::string> words = [&] {
        std::vector<std::string> w;
        std::istringstream in(f.title);
        for (std::string s; in >> s;) w.push_back(s);
        return w;
      }();
      int title_lines = 0;
      double least = 1e9, most = 0;
      for (const FigureTextBox& b : boxes) {
        least = std::min(least, b.pt);
        most = std::max(most, b.pt);
        if (!words.empty() && b.text.rfind(words.front(), 0) == 0 && b.pt >= size.font_pt * 0.999) {
          ++title_lines;
        }
      }
      EXPECT_GE(title_lines, 1) << what << ": no title line at a size >= " << size.font_pt;
      // Ticks (11/12 of the body size) are the smallest text.
      EXPECT_GE(least, size.font_pt * 11 / 12 * 0.999) << what;
      EXPECT_GE(most, size.font_pt * 13 / 12 * 0.999) << what;  // the axis titles
    }
  }
}

std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  std::sort(out.begin(), out.end());
  return out;
}

// The text of an SVG's <text> elements, one line each (their spans joined).
std::vector<std::string> SvgTexts(const std::string& svg) {
  std::vector<std::string> out;
  const std::regex element("<text[^>]*>(.*?)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), element);
       it != std::sregex_iterator(); ++it) {
    out.push_back(std::regex_replace((*it)[1].str(), std::regex("<[^>]*>"), ""));
  }
  return out;
}

std::string Unescape(std::string s) {
  for (const auto& [from, to] : std::map<std::string, std::string>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
    for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) {
      s.replace(at, from.size(), to);
    }
  }
  return s;
}

class FigureTextFiles : public pe::testing::TempDirTest {};

// SVG text is <text> elements naming the font (glyph outlines only when asked), and their
// words are the PDF's text's words, as pdftotext reads them.
TEST_F(FigureTextFiles, SvgTextElementsHoldThePdfWords) {
  for (const Case& c : Cases()) {
    for (const FigureSize& size : {kSizes[2], kSizes[3]}) {
      const std::string what = c.name + " at " + SizeName(size);
      const Figure f = Build(c, size);
      const std::string svg = Render(f, FigureFormat::kSvg, size);
      const std::vector<std::string> texts = SvgTexts(svg);
      EXPECT_GE(texts.size(), 5u) << what;
      EXPECT_NE(svg.find("font-family=\"DejaVu Sans\""), std::string::npos) << what;
      std::string svg_text;
      for (const std::string& t : texts) svg_text += Unescape(t) + "\n";
      // Drawn, not written: no markup in any text.
      for (const char* markup : {"_{", "^{", "^-", "^("}) {
        EXPECT_EQ(svg_text.find(markup), std::string::npos) << what << ": " << markup;
      }
      // The same words as the PDF (pdftotext joins a line's sub- and superscripts).
      if (!Have("pdftotext")) continue;
      const std::string pdf_path = Path(c.name + ".pdf");
      {
        std::ofstream out(pdf_path, std::ios::binary);
        out << Render(f, FigureFormat::kPdf, size);
      }
      const std::string pdf_text = Capture("pdftotext -raw '" + pdf_path + "' -");
      EXPECT_EQ(WithoutSpaces(std::regex_replace(svg_text, std::regex("\\s"), "")).size(),
                WithoutSpaces(std::regex_replace(pdf_text, std::regex("\\s"), "")).size())
          << what;
      std::string a = std::regex_replace(svg_text, std::regex("\\s"), "");
      std::string b = std::regex_replace(pdf_text, std::regex("\\s"), "");
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      EXPECT_EQ(a, b) << what << "\nSVG:\n" << svg_text << "\nPDF:\n" << pdf_text;
      if (c.view != ViewKind::kSpectrum) {
        EXPECT_EQ(Words(svg_text), Words(pdf_text)) << what;
      }
    }
  }
  // Outlines: no <text>.
  const Case c = Cases()[0];
  FigureSize outlines = kSizes[2];
  outlines.svg_outlines = true;
  const std::string svg = Render(Build(c, outlines), FigureFormat::kSvg, outlines);
  EXPECT_EQ(svg.find("<text"), std::string::npos);
  EXPECT_NE(svg.find("<path"), std::string::npos);
}

TEST(FigureText, MarkupRuns) {
  // [level depth text]
  auto runs = [](const std::string& s) {
    std::string out;
    for (const MarkupRun& r : MarkupRuns(s)) {
      out += "[" + std::to_string(r.level) + " " + std::to_string(r.depth) + " " + r.text + "]";
    }
    return out;
  };
  EXPECT_EQ(runs("\xce\xa3_{j=1}^{d/2} |S_j|"),
            "[0 0 \xce\xa3][-1 1 j=1][1 1 d/2][0 0  |S][-1 1 j][0 0 |]");
  EXPECT_EQ(runs("2^-1"), "[0 0 2][1 1 -1]");
  EXPECT_EQ(runs("(x + PE_m)"), "[0 0 (x + PE][-1 1 m][0 0 )]");
  EXPECT_EQ(runs("slope 2^-1.5, d^-1/2"), "[0 0 slope 2][1 1 -1.5][0 0 , d][1 1 -1/2]");
  EXPECT_EQ(runs("\xcf\x89_i = base^(-2i/d)"), "[0 0 \xcf\x89][-1 1 i][0 0  = base][1 1 -2i/d]");
  // A subscript inside a superscript is smaller again and lower than the superscript.
  const std::vector<MarkupRun> nested = MarkupRuns("e^{i r \xce\xb8_k}");
  ASSERT_EQ(nested.size(), 3u);
  EXPECT_EQ(nested[1].text, "i r \xce\xb8");
  EXPECT_EQ(nested[2].text, "k");
  EXPECT_EQ(nested[2].depth, 2);
  EXPECT_NEAR(nested[1].rise, 0.38, 1e-12);
  EXPECT_NEAR(nested[2].rise, 0.38 - 0.2 * 0.7, 1e-12);
  // Words with underscores and carets that are no formula are not markup.
  for (const char* plain : {"rope_scaling=yarn", "d_model", "T5Attention._relative_position_bucket",
                            "x_12", "a ^ b", "MAX_LEN", "HF_x1"}) {
    EXPECT_EQ(runs(plain), "[0 0 " + std::string(plain) + "]") << plain;
  }
  EXPECT_EQ(MarkupToUnicode("2^-1"), "2\xe2\x81\xbb\xc2\xb9");
  EXPECT_EQ(MarkupToUnicode("\xce\xa3_{j=1}^{d/2} |S_j|"),
            "\xce\xa3\xe2\xb1\xbc\xe2\x82\x8c\xe2\x82\x81^(d/2) |S\xe2\xb1\xbc|");
  EXPECT_EQ(MarkupToUnicode("rope_scaling"), "rope_scaling");
}

// The CLI: sizes down to 120 x 90 (the message names the range), --font-size and --svg-text
// checked and recorded, so that --from makes the same file again.
TEST_F(FigureTextFiles, CliSizesAndFlags) {
  const std::string exe = PE_EXPLORER_EXE;
  auto run = [&](const std::string& args) {
    return std::system((exe + " " + args + " > '" + Path("out.txt") + "' 2>&1").c_str());
  };
  auto said = [&] { return Capture("cat '" + Path("out.txt") + "'"); };
  EXPECT_EQ(run("export --view curves --width 120 --height 90 -o " + Path("a.svg")), 0) << said();
  EXPECT_NE(run("export --view curves --width 119 --height 90 -o " + Path("b.svg")), 0);
  EXPECT_NE(said().find("--width"), std::string::npos) << said();
  EXPECT_NE(said().find("[120, 10000]"), std::string::npos) << said();
  EXPECT_NE(run("export --view curves --width 200 --height 89 -o " + Path("b.svg")), 0);
  EXPECT_NE(said().find("[90, 10000]"), std::string::npos) << said();
  EXPECT_NE(run("export --view curves --font-size 4 -o " + Path("b.svg")), 0);
  EXPECT_NE(said().find("--font-size"), std::string::npos) << said();
  EXPECT_NE(said().find("[5, 36]"), std::string::npos) << said();
  EXPECT_NE(run("export --view curves --svg-text glyphs -o " + Path("b.svg")), 0);
  EXPECT_NE(said().find("--svg-text must be text or outlines, got \"glyphs\""), std::string::npos)
      << said();
  EXPECT_NE(run("export --view curves --font-size 9 -o " + Path("b.csv")), 0);
  ASSERT_EQ(run("export --view spectrum --scheme rope --width 252 --height 180 --font-size 8 "
                "--svg-text outlines -o " +
                Path("c.svg")),
            0)
      << said();
  const std::string c = Capture("cat '" + Path("c.svg") + "'");
  EXPECT_NE(c.find("font_size"), std::string::npos);
  EXPECT_EQ(c.find("<text"), std::string::npos);
  ASSERT_EQ(run("export --from " + Path("c.svg") + " -o " + Path("d.svg")), 0) << said();
  EXPECT_EQ(Capture("cat '" + Path("d.svg") + "'"), c);
}

}  // namespace
}  // namespace pe
