// The walkthrough handout's layout, measured on what the renderer places and draws: every page
// filled (the share of the page its content reaches), numbers and every other text at 10 pt or
// more, the document titled in the PDF's metadata, the tutorials cited by title and author,
// the dropout mask drawn cell by cell (kept and dropped cells counted against the input
// layer's train-mode result), the x sqrt(d) bars named and valued on the bars (no legend), the
// heatmaps' rows named by their tokens (every k-th when they are many, never overlapping), and
// a walkthrough of another length laid out as well.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "figure/figure_render.h"
#include "image_support.h"
#include "model/walkthrough_presets.h"
#include "views/figure_export.h"
#include "views/walkthrough.h"

namespace pe {
namespace {

Walkthrough Walk(const ModelParams& m, int focus = 0) {
  Result<EncodingPtr> e = MakeEncoding(m.pe);
  EXPECT_TRUE(e.ok());
  Result<Walkthrough> w = BuildWalkthrough(m, *e.value(), focus);
  EXPECT_TRUE(w.ok()) << (w.ok() ? "" : w.message());
  return w.ok() ? std::move(w).value() : Walkthrough{};
}

ModelParams Preset(const std::string& name) {
  ModelParams m;
  EXPECT_TRUE(ApplyWalkthroughPreset(name, m).ok()) << name;
  return m;
}

// The share of a grid of 16 x 9 cells over the page that some placed item touches: a page
// whose content stops a third of the way down scores about a third.
double Covered(const Figure& f, const FigureSize& size) {
  constexpr int kCols = 16, kRows = 9;
  int covered = 0;
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      const double x0 = size.width * c / kCols, x1 = size.width * (c + 1) / kCols;
      const double y0 = size.height * r / kRows, y1 = size.height * (r + 1) / kRows;
      const bool hit = std::any_of(f.placed.begin(), f.placed.end(), [&](const FigurePlaced& p) {
        return p.x1 > x0 && p.x0 < x1 && p.y1 > y0 && p.y0 < y1;
      });
      covered += hit ? 1 : 0;
    }
  }
  return static_cast<double>(covered) / (kCols * kRows);
}

std::vector<Figure> Pages(const Walkthrough& w, const FigureSize& size) {
  std::vector<Figure> pages;
  for (int k = 0; k < static_cast<int>(w.pages.size()); ++k) {
    pages.push_back(WalkPageFigure(w, k, ColormapId::kRdBu, size));
  }
  return pages;
}

std::string TextOf(const Figure& f, const std::string& role = "") {
  std::string all;
  for (const FigurePlaced& p : f.placed) {
    if (p.kind == FigurePlaced::Kind::kText && (role.empty() || p.role == role)) {
      all += p.text + " ";
    }
  }
  return all;
}

TEST(WalkthroughHandout, EveryPageIsFilledAndEveryTextIsOnThePageAtTenPointOrMore) {
  for (const FigureSize size : {FigureSize{}, FigureSize{842, 595, 1}, FigureSize{1920, 1080, 1}}) {
    for (const std::string preset :
         {"", "blog-position-2", "i-love-nlp", "jax-pitfall", "embedding-batch"}) {
      const Walkthrough w = Walk(preset.empty() ? ModelParams{} : Preset(preset));
      const std::vector<Figure> pages = Pages(w, size);
      ASSERT_EQ(pages.size(), w.pages.size());
      for (size_t k = 0; k < pages.size(); ++k) {
        const Figure& f = pages[k];
        SCOPED_TRACE(preset + " " + std::to_string(size.width) + " page " + std::to_string(k + 1));
        EXPECT_GE(Covered(f, size), 0.55);
        double lowest = 0;
        int numbers = 0;
        for (const FigurePlaced& p : f.placed) {
          lowest = std::max(lowest, p.y1);
          EXPECT_GE(p.x0, -0.5) << p.text;
          EXPECT_GE(p.y0, -0.5) << p.text;
          EXPECT_LE(p.x1, size.width + 0.5) << p.role << ": " << p.text;
          EXPECT_LE(p.y1, size.height + 0.5) << p.role << ": " << p.text;
          if (p.kind != FigurePlaced::Kind::kText) continue;
          EXPECT_GE(p.pt, kWalkNumbersPt) << p.role << ": " << p.text;
          numbers += p.role == "number" ? 1 : 0;
        }
        EXPECT_GE(lowest, size.height * 0.85) << "the content stops early";
        EXPECT_GT(numbers, 0);
        // The text the renderer draws is what was placed, every box on the page.
        for (const FigureTextBox& b : FigureTextBoxes(f, size)) {
          EXPECT_GE(b.x0, -0.5) << b.text;
          EXPECT_LE(b.x1, size.width + 0.5) << b.text;
          EXPECT_LE(b.y1, size.height + 0.5) << b.text;
        }
      }
    }
  }
}

TEST(WalkthroughHandout, ThePdfIsTitledAsTheDocumentNotAsItsFirstStep) {
  const ModelParams m;
  Result<std::vector<Figure>> pages =
      BuildViewPages(ViewKind::kWalkthrough, m, DefaultViews(m), FigureSize{}, "");
  ASSERT_TRUE(pages.ok()) << pages.message();
  std::ostringstream pdf;
  ASSERT_TRUE(RenderFigurePages(pages.value(), FigureFormat::kPdf, FigureSize{}, pdf).ok());
  EXPECT_NE(pdf.str().find("/Title (PE Explorer walkthrough: from text to model input"),
            std::string::npos);
  EXPECT_EQ(pdf.str().find("/Title (1. Text"), std::string::npos);
  // The step's own title is on its page.
  EXPECT_NE(TextOf(pages.value()[0], "title").find("1. Text"), std::string::npos);
}

TEST(WalkthroughHandout, TheTutorialsAreCitedByTitleAndAuthorOnEveryPageThatNamesThem) {
  const Walkthrough w = Walk(ModelParams{});
  const std::vector<Figure> pages = Pages(w, FigureSize{});
  const std::vector<std::pair<std::string, std::vector<std::string>>> cited = {
      {"PyTorch notes",
       {"Token Embeddings and Sinusoidal Positional Encoding in Transformer Architectures",
        "Fading Coder"}},
      {"blog", {"Understanding Token and Positional Embeddings in Transformers", "Rahul Lokurte"}},
      {"JAX/Haiku notebook", {"Turning Tokens into Vectors: Embeddings and Positional Encoding"}},
      {"Annotated-Transformer-style tutorial", {"Embeddings & Softmax", "DeKUT-DSAIL"}}};
  std::vector<int> pages_citing(cited.size(), 0);
  for (size_t k = 0; k < pages.size(); ++k) {
    const std::string sources = TextOf(pages[k], "source");
    const std::string code = w.pages[k].code;
    for (size_t s = 0; s < cited.size(); ++s) {
      std::string lower_code = code;
      std::transform(lower_code.begin(), lower_code.end(), lower_code.begin(), ::tolower);
      std::string key = cited[s].first;
      std::transform(key.begin(), key.end(), key.begin(), ::tolower);
      if (lower_code.find(key) == std::string::npos) continue;
      ++pages_citing[s];
      for (const std::string& words : cited[s].second) {
        // Wrapped lines are joined with a space: compare without the spaces.
        auto squeeze = [](std::string t) {
          t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
          return t;
        };
        EXPECT_NE(squeeze(sources).find(squeeze(words)), std::string::npos)
            << "page " << k + 1 << " names " << cited[s].first << ": " << sources;
      }
    }
  }
  for (size_t s = 0; s < cited.size(); ++s) EXPECT_GT(pages_citing[s], 0) << cited[s].first;
}

TEST(WalkthroughHandout, TheDropoutPageDrawsTheMaskCellByCell) {
  ModelParams m;
  m.input.dropout = 0.5;
  m.input.dropout_seed = 3;
  m.input.train = true;
  const Walkthrough w = Walk(m, 1);
  const auto k = static_cast<size_t>(WalkStep::kDropout);
  const Figure f = WalkPageFigure(w, static_cast<int>(k), ColormapId::kRdBu, FigureSize{});
  int kept = 0, dropped = 0;
  for (const FigurePlaced& p : f.placed) {
    kept += p.kind == FigurePlaced::Kind::kRect && p.role == "mask kept" ? 1 : 0;
    dropped += p.kind == FigurePlaced::Kind::kRect && p.role == "mask dropped" ? 1 : 0;
  }
  // The input layer's own train-mode sum: a dropped value is exactly 0, a kept one is the
  // sum before dropout times 1/(1 - p) = 2.
  int zeros = 0;
  for (int64_t j = 0; j < 16; ++j) {
    const float after = w.parts.sum.at(1, j);
    const float before = w.parts.scaled.at(1, j) + w.parts.positional.at(1, j);
    if (after == 0.0f) {
      ++zeros;
    } else {
      EXPECT_NEAR(after, before * 2.0f, 1e-5 * std::fabs(before * 2.0f)) << j;
    }
  }
  EXPECT_EQ(kept + dropped, 16);
  EXPECT_EQ(dropped, zeros);
  EXPECT_GT(dropped, 0);
  EXPECT_GT(kept, 0);
  const std::string text = TextOf(f);
  EXPECT_NE(text.find("1/(1 - p) = 2"), std::string::npos) << text;
}

TEST(WalkthroughHandout, TheScaleBarsAreNamedAndValuedOnTheBarsWithoutALegend) {
  const Walkthrough w = Walk(ModelParams{});
  const auto k = static_cast<size_t>(WalkStep::kScale);
  const std::vector<WalkBar>& bars = w.bars[k];
  ASSERT_GE(bars.size(), 3u);
  const Figure f = WalkPageFigure(w, static_cast<int>(k), ColormapId::kRdBu, FigureSize{});
  EXPECT_TRUE(f.legend.empty());
  std::vector<const FigurePlaced*> drawn, labels;
  for (const FigurePlaced& p : f.placed) {
    if (p.role == "bar") drawn.push_back(&p);
    if (p.role == "bar label") labels.push_back(&p);
  }
  ASSERT_EQ(drawn.size(), bars.size());
  ASSERT_EQ(labels.size(), bars.size());
  for (size_t b = 0; b < bars.size(); ++b) {
    char value[40];
    std::snprintf(value, sizeof value, "%.6g", bars[b].value);
    EXPECT_EQ(labels[b]->text, bars[b].label + " = " + value);
    // On its bar: the label's middle at the bar's height.
    const double mid = (labels[b]->y0 + labels[b]->y1) / 2;
    EXPECT_GT(mid, drawn[b]->y0);
    EXPECT_LT(mid, drawn[b]->y1);
    // Lengths in proportion to the values.
    EXPECT_NEAR((drawn[b]->x1 - drawn[b]->x0) / (drawn[0]->x1 - drawn[0]->x0),
                bars[b].value / bars[0].value, 0.02);
  }
}

TEST(WalkthroughHandout, TheModelInputRowsAreNamedByTheirTokensEveryKthWhenMany) {
  ModelParams m;
  const Walkthrough w = Walk(m);
  const auto k = static_cast<size_t>(WalkStep::kInput);
  const Figure f = WalkPageFigure(w, static_cast<int>(k), ColormapId::kRdBu, FigureSize{});
  std::vector<std::string> names;
  for (const FigurePlaced& p : f.placed) {
    if (p.role == "row label") names.push_back(p.text);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"The", "cat", "sits", "on", "the", "mat"}));
  // Drawn: the PNG has dark text pixels in each name's box, left of the matrix.
  std::ostringstream png;
  ASSERT_TRUE(RenderFigure(f, FigureFormat::kPng, FigureSize{}, png).ok());
  const testing::RgbaImage im = testing::DecodePng(png.str());
  ASSERT_EQ(im.w, 960);
  auto ink = [&](double x0, double y0, double x1, double y1) {
    int n = 0;
    for (int y = static_cast<int>(y0); y < static_cast<int>(std::ceil(y1)) && y < im.h; ++y) {
      for (int x = static_cast<int>(x0); x < static_cast<int>(std::ceil(x1)) && x < im.w; ++x) {
        n += im.at(x, y)[0] < 120 && im.at(x, y)[1] < 120 && im.at(x, y)[2] < 120 ? 1 : 0;
      }
    }
    return n;
  };
  for (const FigurePlaced& p : f.placed) {
    if (p.role == "row label") {
      EXPECT_GT(ink(p.x0, p.y0, p.x1, p.y1), 8) << p.text;
    }
  }
  // Sixty tokens: every k-th row, no two names overlapping, the first row named.
  m.example.text.clear();
  for (int t = 0; t < 60; ++t) m.example.text.append("w").append(std::to_string(t)).append(" ");
  const Walkthrough many = Walk(m);
  const Figure g = WalkPageFigure(many, static_cast<int>(k), ColormapId::kRdBu, FigureSize{});
  std::vector<const FigurePlaced*> rows;
  for (const FigurePlaced& p : g.placed) {
    if (p.role == "row label") rows.push_back(&p);
  }
  ASSERT_GE(rows.size(), 5u);
  EXPECT_LT(rows.size(), 60u);
  EXPECT_EQ(rows.front()->text, "w0");
  for (size_t r = 1; r < rows.size(); ++r) {
    EXPECT_GE(rows[r]->y0, rows[r - 1]->y1 - 0.01) << rows[r]->text;
  }
  // The window's ticks: the tokens at row centres, every k-th as the room asks.
  const WalkMatrix& input = many.matrices[k].front();
  const std::vector<Tick> all = WalkRowTicks(many, input, 60, 600, 10);
  ASSERT_EQ(all.size(), 60u);
  EXPECT_EQ(all[7].label, "w7");
  EXPECT_DOUBLE_EQ(all[7].value, 7.5);
  const std::vector<Tick> thin = WalkRowTicks(many, input, 60, 150, 10);  // 2.5 per row: k = 4
  ASSERT_EQ(thin.size(), 15u);
  EXPECT_EQ(thin[1].label, "w4");
  EXPECT_TRUE(
      WalkRowTicks(many, many.matrices[static_cast<size_t>(WalkStep::kLookup)].front(), 10, 100, 10)
          .empty())
      << "the rows of E are ids, not tokens";
}

TEST(WalkthroughHandout, AWalkthroughOfAnotherLengthAndOtherPartsIsLaidOutToo) {
  Walkthrough w = Walk(ModelParams{});
  // Three pages: text only, chips only, a long list of numbers.
  Walkthrough other;
  other.title = "Another walkthrough";
  other.token_labels = w.token_labels;
  other.pages.resize(3);
  other.pages[0].title = "1. Only words";
  other.pages[0].explanation = "A sentence.";
  other.pages[0].numbers = {"one number: 1"};
  other.pages[1].title = "2. Boxes";
  for (int t = 0; t < 20; ++t)
    other.pages[1].chips.push_back({std::string("tok").append(std::to_string(t)), "", false});
  other.pages[2].title = "3. Many numbers";
  for (int t = 0; t < 30; ++t) {
    other.pages[2].numbers.push_back(std::string("value ").append(std::to_string(t)));
  }
  for (int k = 0; k < 3; ++k) {
    const Figure f = WalkPageFigure(other, k, ColormapId::kRdBu, FigureSize{});
    EXPECT_EQ(f.title, "Another walkthrough");
    if (k == 1) {
      EXPECT_GE(Covered(f, FigureSize{}), 0.45);
    }
    int lines = 0;
    for (const FigurePlaced& p : f.placed) lines += p.role == "number" ? 1 : 0;
    EXPECT_EQ(lines, k == 0 ? 1 : k == 1 ? 0 : 30) << "every line placed, none cut";
    for (const FigurePlaced& p : f.placed) {
      EXPECT_LE(p.y1, 540.5) << p.text;
      if (p.kind == FigurePlaced::Kind::kText) {
        EXPECT_GE(p.pt, kWalkNumbersPt);
      }
    }
  }
}

}  // namespace
}  // namespace pe
