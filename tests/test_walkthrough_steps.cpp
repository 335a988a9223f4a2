// The walkthrough's step model and its presets against the tutorials' own numbers, computed here
// independently: the blog's sin 2 / cos 2 and its "I love NLP" sums, the PyTorch notes' ids,
// the JAX notebook's zero table beside the intended sinusoid. And the handout: one PDF page per
// step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "base/random.h"
#include "figure/figure_render.h"
#include "io/loaded_table.h"
#include "model/embedding.h"
#include "model/param_fields.h"
#include "model/walkthrough_presets.h"
#include "test_support.h"
#include "views/figure_command.h"
#include "views/figure_export.h"
#include "views/walkthrough.h"

namespace pe {
namespace {

constexpr double kFloatTol = 1e-6;  // float32 rounding of values of size ~1

ModelParams Preset(const std::string& name) {
  ModelParams m;
  Status s = ApplyWalkthroughPreset(name, m);
  EXPECT_TRUE(s.ok()) << name << ": " << (s.ok() ? "" : s.message());
  return m;
}

Walkthrough Walk(const ModelParams& m, int focus) {
  Result<EncodingPtr> e = MakeEncoding(m.pe);
  EXPECT_TRUE(e.ok());
  Result<Walkthrough> w = BuildWalkthrough(m, *e.value(), focus);
  EXPECT_TRUE(w.ok()) << (w.ok() ? "" : w.message());
  return w.ok() ? std::move(w).value() : Walkthrough{};
}

const WalkPage& PageOf(const Walkthrough& w, WalkStep step) {
  return w.pages[static_cast<size_t>(step)];
}

// Vaswani et al. 2017, section 3.5, written out here in double: PE[p, 2i] = sin(p / 10000^(2i/d)),
// PE[p, 2i+1] = cos(the same).
double PaperPe(int64_t p, int64_t j, int64_t d) {
  const double angle =
      static_cast<double>(p) / std::pow(10000.0, static_cast<double>(j - j % 2) / d);
  return j % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

TEST(WalkthroughSteps, EightStepsInOrderWithTitleSentenceFormulaAndCode) {
  const Walkthrough w = Walk(ModelParams{}, 0);
  ASSERT_EQ(w.pages.size(), static_cast<size_t>(kWalkStepCount));
  for (int k = 0; k < kWalkStepCount; ++k) {
    const WalkPage& p = w.pages[static_cast<size_t>(k)];
    EXPECT_EQ(p.step, kWalkSteps[static_cast<size_t>(k)]);
    EXPECT_EQ(p.title.rfind(std::to_string(k + 1) + ". " + std::string(WalkStepName(p.step)), 0),
              0u)
        << p.title;
    EXPECT_FALSE(p.explanation.empty());
    EXPECT_FALSE(p.formula.empty());
    // Names the tutorial its line of code comes from.
    EXPECT_TRUE(p.code.find("PyTorch notes") != std::string::npos ||
                p.code.find("The blog") != std::string::npos ||
                p.code.find("JAX/Haiku notebook") != std::string::npos ||
                p.code.find("Annotated-Transformer-style tutorial") != std::string::npos)
        << p.title << ": " << p.code;
    EXPECT_FALSE(p.numbers.empty()) << p.title;
  }
  // The default example: "The cat sits on the mat", ids in order of first appearance.
  EXPECT_EQ(PageOf(w, WalkStep::kIds).values, (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST(WalkthroughSteps, BlogPresetGivesSinAndCosOfTwoAtPositionTwo) {
  const ModelParams m = Preset("blog-position-2");
  EXPECT_EQ(m.pe.d_model, 6);
  EXPECT_EQ(m.pe.max_len, 4);
  const ViewSelection sel = DefaultViews(m);
  EXPECT_EQ(sel.selected_token, 2);  // the preset follows position 2
  const Walkthrough w = Walk(m, sel.selected_token);
  EXPECT_EQ(w.positions[static_cast<size_t>(w.focus)], 2);
  const std::vector<double>& pe = PageOf(w, WalkStep::kPosition).values;
  ASSERT_EQ(pe.size(), 6u);
  // The blog's rounded numbers, and sin 2, cos 2 to float32.
  EXPECT_NEAR(pe[0], 0.909297, 1e-6);
  EXPECT_NEAR(pe[1], -0.416147, 1e-6);
  EXPECT_NEAR(pe[0], 0.909, 5e-4);
  EXPECT_NEAR(pe[1], -0.416, 5e-4);
  for (int64_t j = 0; j < 6; ++j)
    EXPECT_NEAR(pe[static_cast<size_t>(j)], PaperPe(2, j, 6), kFloatTol) << j;
  // The page says so in its numbers.
  bool shown = false;
  for (const std::string& line : PageOf(w, WalkStep::kPosition).numbers) {
    shown |= line.find("0.909297, -0.416147") != std::string::npos;
  }
  EXPECT_TRUE(shown);
}

TEST(WalkthroughSteps, ILoveNlpTypedSumReproducesTheBlogExactly) {
  const ModelParams m = Preset("i-love-nlp");
  const Walkthrough w = Walk(m, 0);
  ASSERT_TRUE(w.typed);
  EXPECT_EQ(w.token_labels, (std::vector<std::string>{"I", "love", "NLP"}));
  // Ids count from 0 here as in the sums view (the blog's "I" -> 1 is its E[1], typed as E[0]).
  EXPECT_EQ(w.ids, (std::vector<int64_t>{0, 1, 2}));
  const float e[3][3] = {{0.1f, 0.3f, 0.4f}, {0.2f, 0.6f, 0.5f}, {0.7f, 0.9f, 0.8f}};
  const float p[3][3] = {{0.01f, 0.02f, 0.03f}, {0.04f, 0.05f, 0.06f}, {0.07f, 0.08f, 0.09f}};
  const double blog[3][3] = {{0.11, 0.32, 0.43}, {0.24, 0.65, 0.56}, {0.77, 0.98, 0.89}};
  ASSERT_EQ(w.parts.sum.rows, 3);
  for (int t = 0; t < 3; ++t) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(w.parts.scaled.at(t, j), e[t][j]) << "scaling is off in the blog";
      EXPECT_EQ(w.parts.sum.at(t, j), e[t][j] + p[t][j]) << t << "," << j;  // one float32 add
      EXPECT_NEAR(w.parts.sum.at(t, j), blog[t][j], 1e-7) << t << "," << j;
    }
  }
  // Each step's highlighted values follow the chosen token.
  for (int t = 0; t < 3; ++t) {
    const Walkthrough wt = Walk(m, t);
    const std::vector<double>& x = PageOf(wt, WalkStep::kInput).values;
    ASSERT_EQ(x.size(), 3u);
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(x[static_cast<size_t>(j)], blog[t][j], 1e-7);
  }
  // The typed tables fix d = 3: another width is refused with the flag to fix.
  ModelParams wide = m;
  wide.pe.d_model = 8;
  Result<EncodingPtr> enc = MakeEncoding(wide.pe);
  ASSERT_TRUE(enc.ok());
  Result<Walkthrough> bad = BuildWalkthrough(wide, *enc.value(), 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("--embedding-rows: the rows have 3 values but d_model is 8"),
            std::string::npos)
      << bad.message();
}

// Every preset says one thing everywhere: the sums export (CSV, as `export --view sum` and the
// window's Export... write it) holds the walkthrough's ids and its four parts, number for
// number; for the blog's typed sum those are the blog's own rows.
TEST(WalkthroughSteps, EveryPresetsSumsExportHoldsTheWalkthroughsNumbers) {
  char tmpl[] = "/tmp/pe-presets-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  for (const WalkthroughPreset& preset : WalkthroughPresets()) {
    // The attention walkthrough's presets have no model input of their own to check here
    // (test_attention_walkthrough.cpp holds their numbers).
    if (PresetWalkthrough(preset) != WalkthroughKind::kInput) continue;
    const std::string name(preset.name);
    const ModelParams m = Preset(name);
    const Walkthrough w = Walk(m, 0);
    ViewSelection sel = DefaultViews(m);
    sel.selected_token = -1;
    const std::string path = dir + "/" + name + ".csv";
    Status st = ExportView(ViewKind::kSums, m, sel, path, ExportRequestOptions{});
    ASSERT_TRUE(st.ok()) << name << ": " << st.message();
    std::istringstream in(pe::testing::ReadFile(path));
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = pe::testing::SplitCsvLine(line);
    const auto col = [&](const std::string& c) {
      return static_cast<size_t>(std::find(header.begin(), header.end(), c) - header.begin());
    };
    const size_t id_col = col("id"), part_col = col("part"), v0 = col("v0");
    ASSERT_LT(v0, header.size()) << name;
    int64_t rows = 0;
    while (std::getline(in, line)) {
      const std::vector<std::string> cells = pe::testing::SplitCsvLine(line);
      const int64_t t = rows / 4;
      const Part part = kAllParts[rows % 4];
      ++rows;
      ASSERT_LT(t, w.parts.tokens()) << name;
      EXPECT_EQ(cells[part_col], PartName(part)) << name;
      EXPECT_EQ(std::stoll(cells[id_col]), w.ids[static_cast<size_t>(t)]) << name << " token " << t;
      for (int64_t j = 0; j < w.d; ++j) {
        EXPECT_EQ(std::stof(cells[v0 + static_cast<size_t>(j)]), w.parts.part(part).at(t, j))
            << name << " token " << t << " " << PartName(part) << " dim " << j;
      }
    }
    EXPECT_EQ(rows, 4 * w.parts.tokens()) << name;
  }
  // The blog's own numbers in the export: PE [0.01, 0.02, 0.03] and the sum [0.11, 0.32, 0.43]
  // for "I", id 0 as in the walkthrough.
  const std::string blog = pe::testing::ReadFile(dir + "/i-love-nlp.csv");
  EXPECT_NE(blog.find("\"I\",0,0,positional,0.01,0.02,0.03"), std::string::npos) << blog;
  // (0.3f + 0.02f rounds to the float32 written 0.32000002; the blog's 0.32 to 1e-7.)
  EXPECT_NE(blog.find("\"I\",0,0,sum,0.11,0.32000002,0.43"), std::string::npos) << blog;
  std::system(("rm -rf " + dir).c_str());
}

// The copied command of a preset's sums carries what makes its numbers: the blog's typed rows,
// and the JAX pitfall's preset (its zero table is no flag of its own).
TEST(WalkthroughSteps, ThePresetsSumsCommandCarriesTheirRowsAndPitfall) {
  const ModelParams blog = Preset("i-love-nlp");
  const std::string line =
      ExportCommandLine(ViewKind::kSums, blog, DefaultViews(blog), FigureSize{}, "", "s.csv");
  EXPECT_NE(line.find("--embedding-rows '0.1,0.3,0.4;0.2,0.6,0.5;0.7,0.9,0.8'"), std::string::npos)
      << line;
  EXPECT_NE(line.find("--positional-rows '0.01,0.02,0.03;0.04,0.05,0.06;0.07,0.08,0.09'"),
            std::string::npos)
      << line;
  const ModelParams jax = Preset("jax-pitfall");
  const std::string jax_line =
      ExportCommandLine(ViewKind::kSums, jax, DefaultViews(jax), FigureSize{}, "", "s.csv");
  EXPECT_NE(jax_line.find("--walkthrough-preset jax-pitfall"), std::string::npos) << jax_line;
}

TEST(WalkthroughSteps, TheCatSitsIsZeroOneTwoWithTheSeedsSixWords) {
  const ModelParams m = Preset("the-cat-sits");
  const Walkthrough w = Walk(m, 1);
  EXPECT_EQ(PageOf(w, WalkStep::kIds).values, (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(w.token_labels, (std::vector<std::string>{"The", "cat", "sits"}));
  const std::string& vocab = PageOf(w, WalkStep::kIds).numbers.front();
  EXPECT_NE(vocab.find("The=0 cat=1 sits=2 on=3 the=4 mat=5"), std::string::npos) << vocab;
  // A fixed vocabulary has <unk> for the words it lacks; the page says which id it has.
  EXPECT_NE(PageOf(w, WalkStep::kIds).numbers[1].find("<unk> (id 6)"), std::string::npos);
  // Row E[1] is the seeded N(0, 1) row of id 1, times sqrt(512) after scaling.
  const std::vector<double>& e = PageOf(w, WalkStep::kLookup).values;
  const std::vector<double>& s = PageOf(w, WalkStep::kScale).values;
  ASSERT_EQ(e.size(), 512u);
  for (int64_t j = 0; j < 512; ++j) {
    EXPECT_EQ(e[static_cast<size_t>(j)], EmbeddingValue(0, 512, 1, j));
    EXPECT_EQ(s[static_cast<size_t>(j)], static_cast<float>(EmbeddingValue(0, 512, 1, j) *
                                                            static_cast<float>(std::sqrt(512.0))));
  }
  // Why the scaling: the N(0, 1) row times sqrt(d) against |PE| = sqrt(d / 2) (each sin/cos
  // pair has norm 1), and the same draw with std d^-1/2, brought to about PE's size.
  const std::vector<WalkBar>& bars = w.bars[static_cast<size_t>(WalkStep::kScale)];
  ASSERT_EQ(bars.size(), 5u);
  double e_norm = 0;
  for (double v : e) e_norm += v * v;
  e_norm = std::sqrt(e_norm);
  EXPECT_NEAR(bars[0].value, e_norm, 1e-9 * e_norm);
  EXPECT_NEAR(bars[1].value, e_norm * std::sqrt(512.0), 1e-9 * e_norm * 23);
  EXPECT_NEAR(bars[2].value, e_norm / std::sqrt(512.0), 1e-9 * e_norm);
  EXPECT_NEAR(bars[3].value, e_norm, 1e-9 * e_norm);
  EXPECT_NEAR(bars[4].value, std::sqrt(512.0 / 2), 1e-5);
  EXPECT_GT(bars[1].value, 20 * bars[4].value) << "N(0, 1) rows times sqrt(d) dwarf PE";
  EXPECT_LT(bars[3].value, 2 * bars[4].value) << "std d^-1/2 rows times sqrt(d) are PE's size";
  // E's image has every row of the vocabulary and outlines the three looked up.
  const WalkMatrix& table = w.matrices[static_cast<size_t>(WalkStep::kLookup)].front();
  EXPECT_EQ(table.values.rows, 7);
  EXPECT_EQ(table.outlined, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(table.focus_row, 1);
}

TEST(WalkthroughSteps, JaxPitfallAddsAZeroTableAndShowsTheIntendedSinusoid) {
  const ModelParams m = Preset("jax-pitfall");
  EXPECT_EQ(m.pe.d_model, 64);
  const Walkthrough w = Walk(m, DefaultViews(m).selected_token);
  ASSERT_TRUE(w.pe_discarded);
  const int64_t pos = w.positions[static_cast<size_t>(w.focus)];
  const WalkPage& pe = PageOf(w, WalkStep::kPosition);
  ASSERT_EQ(pe.values.size(), 64u);
  ASSERT_EQ(pe.alt_values.size(), 64u);
  for (int64_t j = 0; j < 64; ++j) {
    EXPECT_EQ(pe.values[static_cast<size_t>(j)], 0.0) << "as written, the table stays zero";
    EXPECT_NEAR(pe.alt_values[static_cast<size_t>(j)], PaperPe(pos, j, 64), kFloatTol) << j;
  }
  // So the model input (eval mode) is the scaled embedding, exactly.
  EXPECT_FALSE(m.input.train);
  EXPECT_EQ(PageOf(w, WalkStep::kInput).values, PageOf(w, WalkStep::kScale).values);
  // Without the pitfall the same example adds the sinusoid.
  ModelParams fixed = m;
  ASSERT_TRUE(ApplyWalkthroughPreset("none", fixed).ok());
  const Walkthrough ok = Walk(fixed, w.focus);
  EXPECT_EQ(PageOf(ok, WalkStep::kPosition).values, pe.alt_values);
  EXPECT_NE(PageOf(ok, WalkStep::kInput).values, PageOf(ok, WalkStep::kScale).values);
}

TEST(WalkthroughSteps, DropoutShowsTheMaskAndTheInverseScale) {
  ModelParams m;
  m.pe.d_model = 16;
  m.input.dropout = 0.25;
  m.input.dropout_seed = 7;
  for (bool train : {false, true}) {
    m.input.train = train;
    const Walkthrough w = Walk(m, 3);
    const WalkPage& p = PageOf(w, WalkStep::kDropout);
    ASSERT_EQ(p.values.size(), 16u);
    int dropped = 0;
    for (int64_t j = 0; j < 16; ++j) {
      const auto k = static_cast<size_t>(j);
      // before = x sqrt(d) + PE, in float32 as the layer adds
      const float before = w.parts.scaled.at(3, j) + w.parts.positional.at(3, j);
      EXPECT_EQ(p.alt_values[k], before);
      // Value k of the (T, d) sum is dropped when its uniform number is <= p.
      const bool drop = RandomUniform(7, static_cast<uint64_t>(3 * 16 + j)) <= 0.25;
      dropped += drop;
      EXPECT_EQ(p.values[k], drop ? 0.0f : before * static_cast<float>(1.0 / 0.75)) << j;
    }
    EXPECT_GT(dropped, 0);
    EXPECT_LT(dropped, 16);
    // The model input is the dropped-out sum in train mode, the sum itself in eval mode.
    EXPECT_EQ(PageOf(w, WalkStep::kInput).values, train ? p.values : p.alt_values);
  }
}

// The two presets of typed ids: they hold the tutorials' ids; their numbers need an input layer
// that takes `TextExample::ids`.
TEST(WalkthroughSteps, EmbeddingIdsPresetLooksUpTwoFiveZeroNine) {
  const ModelParams m = Preset("embedding-ids");
  EXPECT_EQ(m.example.ids, (std::vector<std::vector<int64_t>>{{2, 5, 0, 9}}));
  EXPECT_EQ(m.example.vocab_size, 10);
  EXPECT_EQ(m.pe.d_model, 128);
  const Walkthrough w = Walk(m, 0);
  ASSERT_FALSE(w.ids_pending);
  EXPECT_EQ(w.ids, (std::vector<int64_t>{2, 5, 0, 9}));
  EXPECT_EQ(w.vocab_size, 10);
  for (int t = 0; t < 4; ++t) {
    for (int64_t j = 0; j < 128; ++j) {
      EXPECT_EQ(w.parts.embedding.at(t, j),
                EmbeddingValue(0, 128, w.ids[static_cast<size_t>(t)], j));
    }
  }
}

TEST(WalkthroughSteps, EmbeddingBatchPresetIsTwoByFiveByFour) {
  const ModelParams m = Preset("embedding-batch");
  const std::vector<std::vector<int64_t>> x = {{23, 37, 3, 45, 82}, {97, 61, 19, 73, 53}};
  EXPECT_EQ(m.example.ids, x);
  EXPECT_EQ(m.example.vocab_size, 100);
  EXPECT_EQ(m.pe.d_model, 4);
  const Walkthrough w = Walk(m, 0);
  ASSERT_FALSE(w.ids_pending);
  ASSERT_EQ(w.parts.embedding.rows, 10);
  for (int i = 0; i < 2; ++i) {
    for (int jj = 0; jj < 5; ++jj) {
      // out[i, j] = W[x[i, j]], at position j
      EXPECT_EQ(w.positions[static_cast<size_t>(i * 5 + jj)], jj);
      for (int64_t c = 0; c < 4; ++c) {
        EXPECT_EQ(w.parts.embedding.at(i * 5 + jj, c), EmbeddingValue(0, 4, x[i][jj], c));
      }
    }
  }
  bool shape = false;
  for (const std::string& line : PageOf(w, WalkStep::kInput).numbers) {
    shape |= line.find("(2, 5, 4)") != std::string::npos;
  }
  EXPECT_TRUE(shape);
}

TEST(WalkthroughSteps, PresetFlagNamesTheChoicesAndNoneLeavesThePreset) {
  const ParamField* f = FindParamField("--walkthrough-preset");
  ASSERT_NE(f, nullptr);
  ModelParams m;
  Status bad = f->set(m, "cat");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("--walkthrough-preset must be one of the-cat-sits"),
            std::string::npos);
  EXPECT_NE(bad.message().find("got \"cat\""), std::string::npos);
  ASSERT_TRUE(f->set(m, "blog-position-2").ok());
  EXPECT_EQ(f->get(m), "blog-position-2");
  EXPECT_EQ(m.example.text, "I love NLP.");
  ASSERT_TRUE(f->set(m, "none").ok());
  EXPECT_EQ(f->get(m), "none");
  EXPECT_EQ(m.pe.d_model, 6) << "none keeps the parameters";
}

// Page objects in a PDF: "/Type /Page" not followed by "s" (the /Pages tree).
int CountPdfPages(const std::string& pdf) {
  int n = 0;
  for (size_t at = pdf.find("/Type /Page"); at != std::string::npos;
       at = pdf.find("/Type /Page", at + 1)) {
    if (at + 11 >= pdf.size() || pdf[at + 11] != 's') ++n;
  }
  return n;
}

TEST(WalkthroughSteps, HandoutIsOnePdfPagePerStepAndOnePageForPngOrSvg) {
  const ModelParams m = Preset("blog-position-2");
  ViewSelection sel = DefaultViews(m);
  Result<std::vector<Figure>> pages =
      BuildViewPages(ViewKind::kWalkthrough, m, sel, FigureSize{}, "");
  ASSERT_TRUE(pages.ok()) << pages.message();
  ASSERT_EQ(pages.value().size(), static_cast<size_t>(kWalkStepCount));
  std::ostringstream pdf;
  ASSERT_TRUE(RenderFigurePages(pages.value(), FigureFormat::kPdf, FigureSize{}, pdf).ok());
  EXPECT_EQ(CountPdfPages(pdf.str()), kWalkStepCount);
  std::ostringstream png;
  Status two = RenderFigurePages(pages.value(), FigureFormat::kPng, FigureSize{}, png);
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.message().find("use a .pdf"), std::string::npos);
  // Without a current step a PNG is refused with a word on PDF; with one it is that step.
  Result<Figure> none =
      BuildViewFigure(ViewKind::kWalkthrough, m, sel, FigureSize{}, FigureFormat::kPng);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find(".pdf"), std::string::npos);
  sel.walkthrough_step = 5;
  Result<Figure> one =
      BuildViewFigure(ViewKind::kWalkthrough, m, sel, FigureSize{}, FigureFormat::kPng);
  ASSERT_TRUE(one.ok()) << one.message();
  // The handout is titled as a document; one step alone by its step.
  EXPECT_EQ(pages.value()[5].title, "PE Explorer walkthrough: from text to model input");
  EXPECT_EQ(one.value().title.rfind("6. + PE", 0), 0u) << one.value().title;
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

// Where E comes from is said as it is: a loaded word-vector file is named with its size and its
// words are the vocabulary (no "N(0, 1) from seed"), and a seeded table names its initialiser,
// with the other convention's rows computed from the same draw.
class WalkthroughEmbeddings : public pe::testing::TempDirTest {};

TEST_F(WalkthroughEmbeddings, ALoadedWordVectorFileIsNamedAndItsWordsAreTheVocabulary) {
  const std::string path = Path("wv.txt");
  std::ofstream(path) << "the 0.1 0.2 0.3 0.4\ncat 1 2 3 4\nmat 0.5 0.5 0.5 0.5\n";
  Result<LoadedTablePtr> t = LoadTable({path, ""}, TableUse::kEmbeddings);
  ASSERT_TRUE(t.ok()) << t.message();
  ModelParams m;
  m.pe.d_model = 4;
  m.example.text = "the cat sat";
  m.example.embeddings = {path, t.value()->hash(), t.value(), std::nullopt};
  const Walkthrough w = Walk(m, 1);
  ASSERT_FALSE(w.pages.empty());
  auto joined = [](const WalkPage& p) {
    std::string all;
    for (const std::string& n : p.numbers) all += n + "\n";
    return all;
  };
  const std::string ids = joined(PageOf(w, WalkStep::kIds));
  EXPECT_NE(ids.find("the word-vector file's words"), std::string::npos) << ids;
  EXPECT_NE(ids.find("gets id 3, a row of zeros"), std::string::npos) << ids;  // "sat"
  const std::string lookup = joined(PageOf(w, WalkStep::kLookup));
  EXPECT_NE(lookup.find("E: the loaded table"), std::string::npos) << lookup;
  EXPECT_NE(lookup.find("3 \xc3\x97 4"), std::string::npos) << lookup;
  EXPECT_EQ(lookup.find("N(0, 1)"), std::string::npos) << lookup;
  const std::string scale = joined(PageOf(w, WalkStep::kScale));
  EXPECT_NE(scale.find("the loaded rows: |E[id]| = 5.47723"), std::string::npos) << scale;
  EXPECT_EQ(scale.find("the same draw"), std::string::npos) << scale;
  // "cat" is the focus: |(1, 2, 3, 4)| = sqrt(30).
  EXPECT_NEAR(PageOf(w, WalkStep::kLookup).values[3], 4.0, 1e-6);
}

TEST_F(WalkthroughEmbeddings, ASeededTableNamesItsInitialiserAndTheOtherConvention) {
  ModelParams m;
  m.pe.d_model = 16;
  m.example.text = "the cat";
  m.example.init = EmbeddingInit::kNormal002;
  const Walkthrough w = Walk(m, 0);
  ASSERT_FALSE(w.pages.empty());
  const WalkPage& lookup = PageOf(w, WalkStep::kLookup);
  EXPECT_NE(lookup.numbers[0].find("E: N(0, 0.02\xc2\xb2) from seed 0"), std::string::npos)
      << lookup.numbers[0];
  // The same draw with std d^-1/2 is the row / 0.02 / 4; its norm is printed beside.
  double norm = 0;
  for (double v : lookup.values) norm += v * v;
  norm = std::sqrt(norm);
  const std::string want = "the same draw with std d^-1/2 (fairseq, tensor2tensor): |E[id]| = ";
  const WalkPage& scale = PageOf(w, WalkStep::kScale);
  bool found = false;
  for (const std::string& n : scale.numbers) {
    if (n.rfind(want, 0) != 0) continue;
    found = true;
    EXPECT_NEAR(std::stod(n.substr(want.size())), norm / 0.02 / 4.0, 1e-5 * norm / 0.02);
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace pe
