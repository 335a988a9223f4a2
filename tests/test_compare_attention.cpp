// The compare view: A and B are the score view's (or the heatmap's) numbers of each
// configuration, A - B is their difference rounded once, --versus is parsed and refused as
// documented, the figure has its three panels, and versus / compare_of survive the metadata.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "analysis/attention_score.h"
#include "figure/figure_render.h"
#include "image_support.h"
#include "model/param_fields.h"
#include "test_support.h"
#include "views/compare_view.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

using testing::NpyArray;

ModelParams Small(Scheme scheme, int64_t d = 16, int64_t L = 24) {
  ModelParams m;
  SetScheme(m, scheme);
  m.pe.d_model = d;
  m.pe.max_len = L;
  return m;
}

// The table of `view` for `m`, as the CLI writes it (.npy or .csv).
std::string Table(ViewKind view, const ModelParams& m, TableFormat format,
                  Status* status = nullptr) {
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  EXPECT_TRUE(e.ok()) << e.message();
  const ViewSelection sel = DefaultViews(m, *e.value());
  const ViewContext c{m, e.value(), sel, FigureSize{}, FigureFormat::kPng};
  std::ostringstream out;
  Status s = GetView(view).check_table(c);
  if (s.ok()) s = GetView(view).write_table(out, format, c, {});
  if (status) {
    *status = s;
  } else {
    EXPECT_TRUE(s.ok()) << s.message();
  }
  return out.str();
}

NpyArray Npy(const std::string& bytes) {
  NpyArray a;
  std::string why;
  EXPECT_TRUE(testing::ParseNpy(bytes, a, why)) << why;
  return a;
}

bool SameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

// Pairs (A, B) written out by hand, so the check does not go through ApplyVersus.
struct Case {
  ModelParams a, b;
  std::string versus;
};

std::vector<Case> Cases() {
  std::vector<Case> out;
  {  // a learner's question: sinusoidal against RoPE
    Case c{Small(Scheme::kSinusoidal), Small(Scheme::kRope), "scheme=rope"};
    out.push_back(c);
  }
  {  // one scheme, two bases
    Case c{Small(Scheme::kRope), Small(Scheme::kRope), "rope_theta=500000"};
    c.b.pe.rope().theta = 500000;
    out.push_back(c);
  }
  {  // paper against t2t layout, with the causal mask on both
    Case c{Small(Scheme::kSinusoidal), Small(Scheme::kSinusoidal), "variant=t2t"};
    c.a.causal_mask = c.b.causal_mask = true;
    c.b.pe.sinusoidal().variant = PeVariant::kT2t;
    out.push_back(c);
  }
  {  // RoPE with and without YaRN
    Case c{Small(Scheme::kRope), Small(Scheme::kRope),
           "rope_scaling=yarn,scaling_factor=4,original_max_len=8"};
    c.b.pe.rope().scaling = RopeScaling::kYarn;
    c.b.pe.rope().factor = 4;
    c.b.pe.rope().original_max_len = 8;
    out.push_back(c);
  }
  {  // causal ALiBi (masked keys) against T5, two tokens of the sentence as content
    Case c{Small(Scheme::kAlibi), Small(Scheme::kT5), "scheme=t5"};
    c.a.content = c.b.content = {ScoreContent::Kind::kTokens, 1, 3};
    c.b.pe.t5().seed = c.a.example.seed;
    out.push_back(c);
  }
  for (Case& c : out) c.a.versus = c.versus;
  return out;
}

TEST(CompareScore, AAndBAreTheScoreViewsNumbersAndTheDifferenceIsExact) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.versus);
    Result<ModelParams> applied = ApplyVersus(c.a, c.versus);
    ASSERT_TRUE(applied.ok()) << applied.message();
    ModelParams b_expected = c.b;
    b_expected.versus = c.versus;
    ASSERT_EQ(applied.value().pe, b_expected.pe);
    const NpyArray cmp = Npy(Table(ViewKind::kCompare, c.a, TableFormat::kNpy));
    const NpyArray sa = Npy(Table(ViewKind::kScore, c.a, TableFormat::kNpy));
    const NpyArray sb = Npy(Table(ViewKind::kScore, c.b, TableFormat::kNpy));
    const int64_t L = c.a.pe.max_len;
    ASSERT_EQ(cmp.shape, (std::vector<int64_t>{3, L, L}));
    ASSERT_EQ(cmp.descr, "<f4");
    EXPECT_FALSE(cmp.fortran_order);
    const auto n = static_cast<size_t>(L * L);
    // Independent of the writers: each configuration's scores in double, one at a time.
    Result<EncodingPtr> ea = MakeEncoding(c.a.pe), eb = MakeEncoding(c.b.pe);
    ASSERT_TRUE(ea.ok() && eb.ok());
    Result<AttentionScorer> score_a = AttentionScorer::Make(c.a, ea.value());
    Result<AttentionScorer> score_b = AttentionScorer::Make(c.b, eb.value());
    ASSERT_TRUE(score_a.ok() && score_b.ok());
    int masked = 0;
    for (int64_t m = 0; m < L; ++m) {
      for (int64_t k = 0; k < L; ++k) {
        const size_t i = static_cast<size_t>(m * L + k);
        ASSERT_TRUE(SameFloat(cmp.data[i], sa.data[i])) << "A at " << m << "," << k;
        ASSERT_TRUE(SameFloat(cmp.data[n + i], sb.data[i])) << "B at " << m << "," << k;
        const double a = score_a.value().Score(m, k), b = score_b.value().Score(m, k);
        const float diff = cmp.data[2 * n + i];
        if (std::isnan(a) || std::isnan(b)) {
          ASSERT_TRUE(std::isnan(diff));
          ++masked;
          continue;
        }
        // A - B from the two doubles, rounded once: not the difference of the rounded A and B.
        ASSERT_EQ(diff, static_cast<float>(a - b)) << m << "," << k;
        const float rounded = cmp.data[i] - cmp.data[n + i];
        ASSERT_NEAR(diff, rounded, 2e-6 * (std::abs(a) + std::abs(b) + 1)) << m << "," << k;
      }
    }
    if (c.a.causal_mask || c.a.pe.kind() == Scheme::kAlibi) {
      EXPECT_GT(masked, 0);
    }
  }
}

TEST(CompareScore, CsvHoldsThePartsInOrderWithTheScoreViewsValues) {
  const Case c = Cases()[1];
  const auto rows = testing::ParseCsv(Table(ViewKind::kCompare, c.a, TableFormat::kCsv));
  const auto score = testing::ParseCsv(Table(ViewKind::kScore, c.a, TableFormat::kCsv));
  const int64_t L = c.a.pe.max_len;
  ASSERT_EQ(static_cast<int64_t>(rows.size()), 1 + 3 * L);
  ASSERT_EQ(rows[0][0], "part");
  ASSERT_EQ(rows[0][1], "q");
  ASSERT_EQ(rows[0][2], "k0");
  ASSERT_EQ(static_cast<int64_t>(rows[0].size()), 2 + L);
  const char* parts[] = {"A", "B", "A-B"};
  for (int64_t r = 0; r < 3 * L; ++r) {
    ASSERT_EQ(rows[static_cast<size_t>(1 + r)][0], parts[r / L]);
    ASSERT_EQ(rows[static_cast<size_t>(1 + r)][1], std::to_string(r % L));
  }
  // Part A's lines are the score view's lines after the part name.
  for (int64_t m = 0; m < L; ++m) {
    const auto& line = rows[static_cast<size_t>(1 + m)];
    ASSERT_EQ(std::vector<std::string>(line.begin() + 1, line.end()),
              score[static_cast<size_t>(1 + m)]);
  }
}

TEST(CompareTable, TheEncodingsTablesAndTheirDifference) {
  ModelParams a = Small(Scheme::kSinusoidal, 12, 20);
  a.compare_of = CompareOf::kTable;
  a.versus = "base=100";
  ModelParams b = a;
  b.pe.sinusoidal().base = 100;
  const NpyArray cmp = Npy(Table(ViewKind::kCompare, a, TableFormat::kNpy));
  const NpyArray ta = Npy(Table(ViewKind::kHeatmap, a, TableFormat::kNpy));
  const NpyArray tb = Npy(Table(ViewKind::kHeatmap, b, TableFormat::kNpy));
  ASSERT_EQ(cmp.shape, (std::vector<int64_t>{3, 20, 12}));
  const size_t n = ta.data.size();
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(cmp.data[i], ta.data[i]);
    ASSERT_EQ(cmp.data[n + i], tb.data[i]);
    ASSERT_EQ(cmp.data[2 * n + i], ta.data[i] - tb.data[i]);  // float - float, rounded once
  }
  // Row 0 of the sinusoid is sin 0 = 0, cos 0 = 1 whatever the base: no difference there.
  for (size_t j = 0; j < 12; ++j) EXPECT_EQ(cmp.data[2 * n + j], 0.0f);
  // The paper's column 2 at position 5: sin(5 / 10000^(2/12)) - sin(5 / 100^(2/12)).
  const double want =
      std::sin(5 / std::pow(10000.0, 2.0 / 12)) - std::sin(5 / std::pow(100.0, 2.0 / 12));
  EXPECT_NEAR(cmp.data[2 * n + 5 * 12 + 2], want, 1e-6);
  const auto csv = testing::ParseCsv(Table(ViewKind::kCompare, a, TableFormat::kCsv));
  ASSERT_EQ(csv[0][0], "part");
  ASSERT_EQ(csv[0][1], "pos");
  ASSERT_EQ(csv[0][2], "d0");
  ASSERT_EQ(csv.size(), 1u + 3 * 20);
  EXPECT_EQ(csv[1 + 2 * 20][0], "A-B");
}

TEST(CompareTable, NoDifferenceWhenTheCellsDifferNamingBoth) {
  ModelParams a = Small(Scheme::kSinusoidal, 16, 24);
  a.versus = "max_len=30";
  Status s;
  const std::string bytes = Table(ViewKind::kCompare, a, TableFormat::kNpy, &s);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(bytes.empty()) << "nothing half-written";
  EXPECT_NE(s.message().find("L = 24"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("L = 30"), std::string::npos) << s.message();
  a.compare_of = CompareOf::kTable;
  a.versus = "d_model=64";
  Table(ViewKind::kCompare, a, TableFormat::kNpy, &s);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("16 columns"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("64 columns"), std::string::npos) << s.message();
  // The figure shows both and says why there is no difference.
  Result<Figure> f =
      BuildViewFigure(ViewKind::kCompare, a, DefaultViews(a), FigureSize{}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  ASSERT_EQ(f.value().panels.size(), 2u);
  bool said = false;
  for (const FigureLegendItem& it : f.value().legend) said |= it.label.find("no A") == 0;
  EXPECT_TRUE(said);
}

TEST(CompareVersus, OverridesApplyInTheTablesOrderSchemeFirst) {
  ModelParams a = Small(Scheme::kSinusoidal, 32, 50);
  a.example.seed = 7;
  for (const char* text : {"scheme=rope,rope_theta=500000", "rope_theta=500000,scheme=rope",
                           " scheme=rope, rope_theta=500000"}) {
    Result<ModelParams> b = ApplyVersus(a, text);
    ASSERT_TRUE(b.ok()) << text << ": " << b.message();
    ASSERT_EQ(b.value().pe.kind(), Scheme::kRope) << text;
    EXPECT_EQ(b.value().pe.rope().theta, 500000) << text;
    EXPECT_EQ(b.value().pe.d_model, 32);  // the shape is kept
    EXPECT_EQ(b.value().pe.max_len, 50);
    EXPECT_EQ(b.value().example.seed, 7u);
  }
  Result<ModelParams> b =
      ApplyVersus(a, "d_model=512,variant=t2t,ids=1,2,3,content=tokens:0,2,causal_mask=true");
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b.value().pe.d_model, 512);
  EXPECT_EQ(b.value().pe.sinusoidal().variant, PeVariant::kT2t);
  EXPECT_EQ(b.value().example.ids, (std::vector<std::vector<int64_t>>{{1, 2, 3}}));
  EXPECT_EQ(b.value().content, (ScoreContent{ScoreContent::Kind::kTokens, 0, 2}));
  EXPECT_TRUE(b.value().causal_mask);
  // A switch reads back as metadata records it, and false is its default.
  ModelParams causal = a;
  causal.causal_mask = true;
  EXPECT_FALSE(ApplyVersus(causal, "causal_mask=false").value().causal_mask);
  EXPECT_FALSE(ApplyVersus(a, "scaling=off").value().input.scale);
  // An empty text is A itself.
  EXPECT_EQ(ApplyVersus(a, "").value(), a);
  // SetScheme keeps the parameters of the scheme already chosen.
  ModelParams rope = Small(Scheme::kRope);
  rope.pe.rope().theta = 1234;
  EXPECT_EQ(ApplyVersus(rope, "scheme=rope").value().pe.rope().theta, 1234);
}

TEST(CompareVersus, BadTextsAreRefusedNamingKeyValueAndWhatIsAllowed) {
  const ModelParams a = Small(Scheme::kSinusoidal);
  struct Bad {
    const char* text;
    std::vector<const char*> says;
  };
  const Bad bad[] = {
      {"foo=1", {"\"foo\"", "not a parameter key", "d_model", "rope_theta"}},
      {"d-model=8", {"did you mean d_model"}},
      {"rope_theta=500000", {"rope_theta=500000", "does not apply", "rope or xpos", "sinusoidal"}},
      {"scheme=rope,base=5", {"base=5", "does not apply", "not to rope"}},
      {"scheme=rope,rope_theta=abc",
       {"rope_theta=abc", "--rope-theta", "greater than 1", "\"abc\""}},
      {"d_model=0", {"d_model=0", "[1, 65536]"}},
      {"scheme=nope", {"scheme=nope", "sinusoidal, learned, rope"}},
      {"variant=x", {"variant=x", "paper, t2t, tf-text"}},
      {"causal_mask=maybe", {"causal_mask", "true, false", "\"maybe\""}},
      {"base", {"\"base\" is not key=value"}},
      {"=5", {"\"\" is not a parameter key"}},
      {"base=50,base=60", {"base is given twice"}},
      {"versus=base=5", {"\"versus\" is not a parameter key"}},
      {"scheme=rope,scaling_factor=2", {"scaling_factor=2", "does not apply", "other than none"}},
      // What only another view reads cannot make B differ: refused rather than ignored.
      {"colormap=viridis", {"colormap does not change B", "one colormap", "--colormap"}},
      {"dims=0,1", {"dims does not change B", "curves"}},
      {"query=3", {"query does not change B"}},
  };
  for (const Bad& t : bad) {
    Result<ModelParams> b = ApplyVersus(a, t.text);
    ASSERT_FALSE(b.ok()) << t.text;
    EXPECT_EQ(b.message().rfind("--versus", 0), 0u) << b.message();
    for (const char* s : t.says) {
      EXPECT_NE(b.message().find(s), std::string::npos) << t.text << " -> " << b.message();
    }
    // The flag refuses it too, and leaves the parameters as they were.
    ModelParams m = a;
    EXPECT_FALSE(FindParamField("--versus")->set(m, t.text).ok()) << t.text;
    EXPECT_EQ(m, a);
  }
  ModelParams m = a;
  EXPECT_FALSE(FindParamField("--compare-of")->set(m, "both").ok());
  // Values the field accepts but the encoding refuses show when B is made.
  ModelParams yarn = Small(Scheme::kRope);
  yarn.versus = "rope_scaling=yarn,beta_fast=0.5";
  Result<EncodingPtr> e = MakeEncoding(yarn.pe);
  ASSERT_TRUE(e.ok());
  Result<ComparePair> pair = MakeComparePair(yarn, *e.value());
  ASSERT_FALSE(pair.ok());
  EXPECT_NE(pair.message().find("B (--versus \"rope_scaling=yarn,beta_fast=0.5\")"),
            std::string::npos)
      << pair.message();
}

TEST(CompareMetadata, VersusAndCompareOfAreRecordedAndReadBack) {
  ModelParams a = Small(Scheme::kRope);
  a.versus = "scheme=sinusoidal,variant=t2t,content=tokens:0,1";
  a.compare_of = CompareOf::kTable;
  Result<Figure> f =
      BuildViewFigure(ViewKind::kCompare, a, DefaultViews(a), FigureSize{}, FigureFormat::kSvg);
  ASSERT_TRUE(f.ok()) << f.message();
  // Applied to fresh parameters in the table's order, as a session loader reads a figure.
  ModelParams back;
  int seen = 0;
  for (const ParamField& field : ParamFields()) {
    for (const auto& [key, value] : f.value().metadata) {
      if (field.key.empty() || key != field.key) continue;
      seen += key == "versus" || key == "compare_of";
      Status s = field.set(back, value);
      ASSERT_TRUE(s.ok()) << key << "=" << value << ": " << s.message();
    }
  }
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(back.versus, a.versus);
  EXPECT_EQ(back.compare_of, CompareOf::kTable);
  EXPECT_EQ(back.pe, a.pe);
  // And in the file itself.
  std::ostringstream svg;
  ASSERT_TRUE(RenderFigure(f.value(), FigureFormat::kSvg, FigureSize{}, svg).ok());
  EXPECT_NE(
      svg.str().find(
          "<pe:param name=\"versus\" value=\"scheme=sinusoidal,variant=t2t,content=tokens:0,1\"/>"),
      std::string::npos);
  EXPECT_NE(svg.str().find("<pe:param name=\"compare_of\" value=\"table\"/>"), std::string::npos);
}

TEST(CompareFigure, ThreePanelsTitledWithWhatDiffersSharedAndDivergingRanges) {
  ModelParams a = Small(Scheme::kRope, 16, 40);
  a.versus = "rope_theta=500000";
  const FigureSize size{960, 540, 1};
  Result<Figure> built =
      BuildViewFigure(ViewKind::kCompare, a, DefaultViews(a), size, FigureFormat::kPng);
  ASSERT_TRUE(built.ok()) << built.message();
  const Figure& f = built.value();
  ASSERT_EQ(f.panels.size(), 3u);
  EXPECT_EQ(f.panels[0].title, "A: rope, rope_theta=10000");
  EXPECT_EQ(f.panels[1].title, "B: rope, rope_theta=500000");
  EXPECT_EQ(f.panels[2].title, "A \xe2\x88\x92 B");
  for (const Figure& p : f.panels) {
    ASSERT_TRUE(p.image && p.colorbar);
    // 40 positions at this size: one cell per texel.
    EXPECT_EQ(p.image->width, 40);
    EXPECT_EQ(p.image->height, 40);
  }
  EXPECT_EQ(f.panels[0].colorbar->vmin, f.panels[1].colorbar->vmin);
  EXPECT_EQ(f.panels[0].colorbar->vmax, f.panels[1].colorbar->vmax);
  EXPECT_EQ(f.panels[2].colorbar->vmin, -f.panels[2].colorbar->vmax);
  EXPECT_EQ(f.panels[2].colorbar->colormap, ColormapId::kRdBu);
  // The shared range holds every score of both; the difference's, every difference.
  Result<EncodingPtr> ea = MakeEncoding(a.pe);
  ModelParams b = a;
  b.pe.rope().theta = 500000;
  Result<EncodingPtr> eb = MakeEncoding(b.pe);
  const AttentionScorer sa = AttentionScorer::Make(a, ea.value()).value();
  const AttentionScorer sb = AttentionScorer::Make(b, eb.value()).value();
  double hi = 0, dhi = 0;
  for (int64_t m = 0; m < 40; ++m) {
    for (int64_t n = 0; n < 40; ++n) {
      hi = std::max({hi, std::abs(sa.Score(m, n)), std::abs(sb.Score(m, n))});
      dhi = std::max(dhi, std::abs(sa.Score(m, n) - sb.Score(m, n)));
    }
  }
  EXPECT_NEAR(f.panels[0].colorbar->vmax, hi, 1e-5 * hi);
  EXPECT_NEAR(f.panels[2].colorbar->vmax, dhi, 1e-5 * hi);

  // Pixels: the rendered page shows each panel's image inside that panel's plot box.
  std::ostringstream png;
  ASSERT_TRUE(RenderFigure(f, FigureFormat::kPng, size, png).ok());
  const testing::RgbaImage img = testing::DecodePng(png.str());
  ASSERT_EQ(img.w, 960);
  const std::vector<PlotBox> boxes = FigurePanelPlotBoxes(f, size);
  ASSERT_EQ(boxes.size(), 3u);
  for (size_t k = 1; k < 3; ++k) EXPECT_GT(boxes[k].x, boxes[k - 1].x + boxes[k - 1].w);
  for (size_t k = 0; k < 3; ++k) {
    const FigureImage& im = *f.panels[k].image;
    for (const auto& [tx, ty] : {std::pair{3, 5}, std::pair{20, 20}, std::pair{37, 30}}) {
      const int x = static_cast<int>(boxes[k].x + (tx + 0.5) * boxes[k].w / im.width);
      const int y = static_cast<int>(boxes[k].y + (ty + 0.5) * boxes[k].h / im.height);
      const unsigned char* want = &im.rgba[(static_cast<size_t>(ty) * im.width + tx) * 4];
      const unsigned char* got = img.at(x, y);
      for (int ch = 0; ch < 3; ++ch) {
        EXPECT_NEAR(got[ch], want[ch], 2) << "panel " << k << " texel " << tx << "," << ty;
      }
    }
  }
  // The difference panel's texels are A's minus B's (one cell each: the scores themselves).
  const FigureImage& d = *f.panels[2].image;
  const float dm = static_cast<float>(f.panels[2].colorbar->vmax);
  const Rgba8 c =
      MapValue(ColormapId::kRdBu,
               static_cast<float>(sa.Score(30, 7)) - static_cast<float>(sb.Score(30, 7)), -dm, dm);
  const unsigned char* px = &d.rgba[(30 * 40 + 7) * 4];
  EXPECT_EQ((Rgba8{px[0], px[1], px[2], px[3]}), c);
}

// Every option that changes a side's scores is named on its legend line: the rotating
// proportion and YaRN's truncate and mscale (in the encoding's summary, which the status line
// shows too), the window and the softmax scale (ScoreOptionsText); the temperature is in the
// side's score definition; the grey cells name each side's mask rule.
TEST(CompareFigure, LegendNamesEveryOptionThatChangesEachSide) {
  ModelParams a = Small(Scheme::kRope, 16, 40);
  a.pe.rope().proportion = 0.25;
  a.versus = "attention_window=sliding:8,softmax_scale=0.2,attention_temperature=llama4";
  const FigureSize size{960, 540, 1};
  Result<Figure> built =
      BuildViewFigure(ViewKind::kCompare, a, DefaultViews(a), size, FigureFormat::kPng);
  ASSERT_TRUE(built.ok()) << built.message();
  std::vector<std::string> lines;
  for (const FigureLegendItem& item : built.value().legend) lines.push_back(item.label);
  auto has = [&lines](const std::string& text) {
    return std::find(lines.begin(), lines.end(), text) != lines.end();
  };
  // d 16: 8 pairs, floor(0.25 * 8) = 2 turn.
  const std::string summary =
      "rope half cos, head dim 16 (d_rot 16), theta 10000, proportion 0.25 (2 of 8 pairs turn), "
      "L=40";
  EXPECT_TRUE(has("A: " + summary)) << ::testing::PrintToString(lines);
  EXPECT_TRUE(has("B: " + summary + ", attention window sliding:8, softmax scale 0.2"))
      << ::testing::PrintToString(lines);
  EXPECT_TRUE(
      has("grey: masked, A: none; B: " + AttentionWindowRule({AttentionWindowKind::kSliding, 8})))
      << ::testing::PrintToString(lines);
  bool tempered = false;
  for (const std::string& line : lines) {
    tempered |= line.rfind("B: score(m, n)", 0) == 0 && line.find("Llama 4") != std::string::npos;
  }
  EXPECT_TRUE(tempered) << ::testing::PrintToString(lines);

  // The status line's text: every score option, the temperature with its numbers.
  ModelParams m = a;
  m.attention_window = {AttentionWindowKind::kChunked, 32};
  m.softmax_scale = 0.125;
  m.temperature.kind = TemperatureKind::kLlama4;
  m.temperature.floor = 3;
  EXPECT_EQ(ScoreOptionsText(m),
            "attention window chunked:32, softmax scale 0.125, temperature llama4 (scale 0.1, "
            "floor 3)");
  EXPECT_EQ(ScoreOptionsText(m, false), "attention window chunked:32, softmax scale 0.125");
  m = ModelParams{};
  EXPECT_EQ(ScoreOptionsText(m), "");
  m.causal_mask = true;
  EXPECT_EQ(ScoreOptionsText(m), "causal mask");

  // YaRN: truncate off, and an attention factor from mscale / mscale_all_dim said even at 1.
  EncodingParams yarn;
  RopeParams r;
  r.scaling = RopeScaling::kYarn;
  r.factor = 4;
  r.original_max_len = 64;
  r.yarn_truncate = false;
  r.mscale = 1;
  r.mscale_all_dim = 1;
  yarn.scheme = r;
  yarn.d_model = 16;
  yarn.max_len = 40;
  Result<EncodingPtr> e = MakeEncoding(yarn);
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_NE(e.value()->Summary().find(
                "yarn x4 (original 64), truncate off, attention factor 1 (mscale 1 / "
                "mscale_all_dim 1)"),
            std::string::npos)
      << e.value()->Summary();
  // The defaults say neither.
  r.yarn_truncate = true;
  r.mscale = r.mscale_all_dim = 0;
  yarn.scheme = r;
  e = MakeEncoding(yarn);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value()->Summary().find("truncate"), std::string::npos) << e.value()->Summary();
  EXPECT_EQ(e.value()->Summary().find("mscale"), std::string::npos) << e.value()->Summary();
}

// An empty --versus compares with the scheme's counterpart, never B = A: B is exactly the
// parameters the default overrides name, and the two differ somewhere in both tables.
// A --versus whose keys parse can still fail to make B: a head past B's heads, a table past the
// memory cap. CheckCompareB finds that without building B, so the window refuses the text where
// it is typed instead of accepting it and showing only an error below.
TEST(CompareVersus, CheckCompareBFindsABThatCannotBeMade) {
  ModelParams a = Small(Scheme::kAlibi);
  a.pe.alibi().heads = 12;
  a.versus = "head=11";
  EXPECT_TRUE(CheckCompareB(a).ok());
  a.versus = "head=99";
  const Status s = CheckCompareB(a);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("B (--versus \"head=99\")"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("[0, 11]"), std::string::npos) << s.message();
  // A key that does not parse fails as ApplyVersus says.
  a.versus = "head=abc";
  EXPECT_FALSE(CheckCompareB(a).ok());
  // Too large for the memory cap: refused by size, not by building it.
  ModelParams big = Small(Scheme::kLearned);
  big.versus = "max_len=2000000000";
  const Status fits = CheckCompareB(big);
  ASSERT_FALSE(fits.ok());
  EXPECT_NE(fits.message().find("B (--versus"), std::string::npos) << fits.message();
  // The empty default B of every scheme can be made.
  for (Scheme scheme : {Scheme::kSinusoidal, Scheme::kLearned, Scheme::kRope, Scheme::kAlibi,
                        Scheme::kT5, Scheme::kXpos}) {
    EXPECT_TRUE(CheckCompareB(Small(scheme)).ok()) << static_cast<int>(scheme);
  }
}

TEST(CompareVersus, AnEmptyVersusComparesWithTheSchemesCounterpart) {
  struct Expect {
    Scheme scheme;
    const char* versus;
  };
  const Expect expected[] = {
      {Scheme::kSinusoidal, "base=100"},    {Scheme::kLearned, "scheme=sinusoidal"},
      {Scheme::kRope, "rope_theta=500000"}, {Scheme::kAlibi, "head=7"},
      {Scheme::kT5, "t5_direction=causal"}, {Scheme::kXpos, "scheme=rope"}};
  for (const Expect& e : expected) {
    ModelParams a = Small(e.scheme);
    ASSERT_TRUE(a.versus.empty());
    EXPECT_EQ(DefaultVersus(a), e.versus) << SchemeName(e.scheme);
    Result<EncodingPtr> ea = MakeEncoding(a.pe, a.cap);
    ASSERT_TRUE(ea.ok()) << ea.message();
    Result<ComparePair> pair = MakeComparePair(a, *ea.value());
    ASSERT_TRUE(pair.ok()) << SchemeName(e.scheme) << ": " << pair.message();
    EXPECT_EQ(pair.value().versus, e.versus);
    Result<ModelParams> applied = ApplyVersus(a, e.versus);
    ASSERT_TRUE(applied.ok());
    EXPECT_TRUE(pair.value().b == applied.value()) << SchemeName(e.scheme);
    EXPECT_FALSE(pair.value().b.pe == a.pe) << SchemeName(e.scheme);
    EXPECT_EQ(pair.value().b_label.find("(the same as A)"), std::string::npos)
        << pair.value().b_label;
    for (CompareOf of : {CompareOf::kScore, CompareOf::kTable}) {
      a.compare_of = of;
      const NpyArray cmp = Npy(Table(ViewKind::kCompare, a, TableFormat::kNpy));
      ASSERT_EQ(cmp.shape.size(), 3u);
      const size_t part = cmp.data.size() / 3;
      double most = 0;
      for (size_t i = 2 * part; i < cmp.data.size(); ++i) {
        if (!std::isnan(cmp.data[i])) most = std::max(most, std::abs(double(cmp.data[i])));
      }
      EXPECT_GT(most, 1e-3) << SchemeName(e.scheme) << " " << CompareOfName(of);
    }
  }
  // Already at the counterpart's value, the default goes the other way.
  ModelParams rope = Small(Scheme::kRope);
  rope.pe.rope().theta = 500000;
  EXPECT_EQ(DefaultVersus(rope), "rope_theta=10000");
  ModelParams sin = Small(Scheme::kSinusoidal);
  sin.pe.sinusoidal().base = 100;
  EXPECT_EQ(DefaultVersus(sin), "base=10000");
}

TEST(CompareFigure, AppliesToEverySchemeAndFitsTheBudget) {
  for (Scheme s : kAllSchemeKinds) {
    ModelParams a = Small(s);
    EXPECT_TRUE(ViewApplies(ViewKind::kCompare, a.pe)) << SchemeName(s);
    a.versus = "max_len=24";
    for (CompareOf of : {CompareOf::kScore, CompareOf::kTable}) {
      a.compare_of = of;
      const FigureSize size{960, 540, 2};
      EXPECT_TRUE(
          CheckFigureMemory(ViewKind::kCompare, a, DefaultViews(a), size, FigureFormat::kPng).ok());
      Result<Figure> f =
          BuildViewFigure(ViewKind::kCompare, a, DefaultViews(a), size, FigureFormat::kPng);
      ASSERT_TRUE(f.ok()) << SchemeName(s) << ": " << f.message();
      ASSERT_EQ(f.value().panels.size(), 3u);
      EXPECT_NE(f.value().panels[1].title.find("(the same as A)"), std::string::npos)
          << f.value().panels[1].title;
      // Equal configurations differ by nothing.
      bool zero = false;
      for (const FigureLegendItem& it : f.value().legend)
        zero |= it.label.find("is 0 everywhere") != std::string::npos;
      EXPECT_TRUE(zero) << SchemeName(s);
    }
  }
  // A tiny cap refuses the figure before it is drawn.
  ModelParams a = Small(Scheme::kRope);
  a.cap.bytes = 1 << 20;
  EXPECT_FALSE(CheckFigureMemory(ViewKind::kCompare, a, DefaultViews(a), FigureSize{960, 540, 1},
                                 FigureFormat::kPng)
                   .ok());
}

TEST(CompareFigure, HugeTablesAreComputedForTheWindowOnly) {
  ModelParams a = Small(Scheme::kRope, 64, int64_t{1} << 30);
  a.versus = "rope_theta=500000";
  ViewSelection sel = DefaultViews(a);
  Result<Figure> f =
      BuildViewFigure(ViewKind::kCompare, a, sel, FigureSize{960, 540, 1}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  ASSERT_EQ(f.value().panels.size(), 3u);
  EXPECT_LE(f.value().panels[0].image->width, 400);
  // Zoomed to a 10 x 10 corner far out: one cell per texel, the exact scores.
  const double m0 = 1e9;
  sel.windows[ViewKind::kScore] = {m0, m0 + 10, m0, m0 + 10};
  f = BuildViewFigure(ViewKind::kCompare, a, sel, FigureSize{960, 540, 1}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.value().panels[2].image->width, 10);
  Result<EncodingPtr> ea = MakeEncoding(a.pe);
  Result<ComparePair> pair = MakeComparePair(a, *ea.value());
  ASSERT_TRUE(pair.ok());
  // B made already is reused when made from B's parameters, and only then.
  EXPECT_EQ(MakeComparePair(a, *ea.value(), pair.value().b_encoding).value().b_encoding,
            pair.value().b_encoding);
  EXPECT_NE(MakeComparePair(a, *ea.value(), ea.value()).value().b_encoding, ea.value());
  const CompareCell cell = CompareCellValues(a, ea.value(), pair.value(), 1000000003, 1000000001);
  const AttentionScorer sa = AttentionScorer::Make(a, ea.value()).value();
  const AttentionScorer sb = AttentionScorer::Make(pair.value().b, pair.value().b_encoding).value();
  EXPECT_EQ(cell.a, sa.Score(1000000003, 1000000001));
  EXPECT_EQ(cell.b, sb.Score(1000000003, 1000000001));
  EXPECT_EQ(cell.diff, cell.a - cell.b);
  EXPECT_TRUE(std::isnan(CompareCellValues(a, ea.value(), pair.value(), -1, 0).a));
}

// A table of one position: the attention view draws the one key's weight 1 and says why, with
// no band over the whole plot (the query's own key spans it).
TEST(AttentionView, OnePositionShowsOneKeyNotAFilledPlot) {
  ModelParams m;
  m.pe.max_len = 1;
  Result<Figure> f =
      BuildViewFigure(ViewKind::kAttention, m, DefaultViews(m), FigureSize{}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  const Figure& fig = f.value();
  for (const FigureRect& r : fig.rects) {
    EXPECT_FALSE(r.x0 <= fig.view.x0 && r.x1 >= fig.view.x1 && r.y0 <= fig.view.y0 &&
                 r.y1 >= fig.view.y1)
        << "a rect fills the plot";
  }
  for (const FigureRect& r : fig.overlays) {
    EXPECT_FALSE(r.x0 <= fig.view.x0 && r.x1 >= fig.view.x1) << "an overlay fills the plot";
  }
  bool said = false;
  for (const FigureLegendItem& l : fig.legend) said |= l.label.find("one key") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace pe
