// The two RoPE views: the rotation table against R_p q worked out here from its formula, the
// frequencies table against rope.h (and Llama 3's known split of 29 / 29 / 6 pairs), figures for
// every scaling and pairing rendered to PNG and SVG, round circles, and the refusals for schemes
// without rotation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "base/random.h"
#include "encoding/rope.h"
#include "test_support.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/rope_views.h"
#include "views/view_registry.h"

namespace pe {
namespace {

using pe::testing::NpyArray;
using pe::testing::ParseCsv;
using pe::testing::ParseNpy;

ModelParams RopeModel(int64_t d, RopeScaling scaling = RopeScaling::kNone, double factor = 8.0,
                      RopePairing pairing = RopePairing::kHalf) {
  ModelParams m;
  m.pe.d_model = d;
  m.pe.max_len = 100;
  RopeParams r;
  r.scaling = scaling;
  r.factor = factor;
  r.pairing = pairing;
  m.pe.scheme = r;
  return m;
}

// The view's table as written to a file, through the registry entry.
std::string Table(ViewKind view, const ModelParams& m, const ViewSelection& sel,
                  TableFormat format) {
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  EXPECT_TRUE(e.ok()) << e.message();
  if (!e.ok()) return "";
  const ViewContext c{m, e.value(), sel, FigureSize{}, FigureFormat::kPng};
  std::ostringstream out;
  const Status s = GetView(view).write_table(out, format, c, {});
  EXPECT_TRUE(s.ok()) << s.message();
  return out.str();
}

NpyArray Npy(ViewKind view, const ModelParams& m, const ViewSelection& sel = {}) {
  NpyArray a;
  std::string why;
  EXPECT_TRUE(ParseNpy(Table(view, m, sel, TableFormat::kNpy), a, why)) << why;
  return a;
}

const RopeScaling kScalings[] = {RopeScaling::kNone, RopeScaling::kLinear, RopeScaling::kNtk,
                                 RopeScaling::kDynamicNtk, RopeScaling::kYarn,
                                 RopeScaling::kLlama3};

TEST(RotationView, TableIsTheQueryTurnedByPTimesTheta) {
  for (RopePairing pairing : {RopePairing::kHalf, RopePairing::kInterleaved}) {
    for (RopeScaling scaling : {RopeScaling::kNone, RopeScaling::kYarn}) {
      ModelParams m = RopeModel(128, scaling, 8.0, pairing);
      m.pe.rope().original_max_len = 64;
      m.example.seed = 7;
      ViewSelection sel;
      sel.rotation_position = 37;
      const NpyArray a = Npy(ViewKind::kRotation, m, sel);
      ASSERT_EQ(a.shape, (std::vector<int64_t>{64, 8}));
      const RopeFrequencies f = ComputeRopeFrequencies(m.pe);
      const double s = f.attention_factor;
      if (scaling == RopeScaling::kYarn) {
        EXPECT_GT(s, 1.2);
      }
      const uint64_t stream = RotationQueryStream(7);
      for (int64_t i = 0; i < 64; ++i) {
        const float* row = a.data.data() + i * 8;
        const int64_t da = pairing == RopePairing::kHalf ? i : 2 * i;
        const int64_t db = pairing == RopePairing::kHalf ? i + 64 : 2 * i + 1;
        EXPECT_EQ(row[0], static_cast<float>(i));
        EXPECT_EQ(row[1], static_cast<float>(da));
        EXPECT_EQ(row[2], static_cast<float>(db));
        EXPECT_EQ(row[3], static_cast<float>(f.pairs[static_cast<size_t>(i)].scaled));
        EXPECT_EQ(row[4], static_cast<float>(RandomNormal(stream, static_cast<uint64_t>(da))));
        EXPECT_EQ(row[5], static_cast<float>(RandomNormal(stream, static_cast<uint64_t>(db))));
        // R_p on the pair: [cos -sin; sin cos] of 37 theta_i, times the attention factor.
        const double angle = 37.0 * f.pairs[static_cast<size_t>(i)].scaled;
        const double qa = row[4], qb = row[5];
        EXPECT_NEAR(row[6], s * (qa * std::cos(angle) - qb * std::sin(angle)), 1e-6) << i;
        EXPECT_NEAR(row[7], s * (qa * std::sin(angle) + qb * std::cos(angle)), 1e-6) << i;
        const double q_len = std::hypot(qa, qb);
        EXPECT_NEAR(std::hypot(row[6], row[7]), q_len * s, 1e-6 * std::max(1.0, q_len)) << i;
      }
    }
  }
}

TEST(RotationView, CsvHasTheHeaderAndEveryPair) {
  ModelParams m = RopeModel(64);
  m.pe.rope().rotary_fraction = 0.5;  // d_rot 32: 16 pairs, dims 16.. not rotated
  const auto rows = ParseCsv(Table(ViewKind::kRotation, m, {}, TableFormat::kCsv));
  ASSERT_EQ(rows.size(), 17u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"pair", "dim_a", "dim_b", "theta", "q_a", "q_b",
                                               "r_a", "r_b"}));
  EXPECT_EQ(rows[16][0], "15");
  EXPECT_EQ(rows[16][1], "15");
  EXPECT_EQ(rows[16][2], "31");
}

TEST(RotationView, PositionDefaultsToFirstPlusTenWithinTheTable) {
  ModelParams m = RopeModel(16);
  m.pe.offset = 5;
  EXPECT_EQ(RotationPosition({}, m.pe).value(), 15);
  m.pe.max_len = 4;
  EXPECT_EQ(RotationPosition({}, m.pe).value(), 8);
  ViewSelection sel;
  sel.rotation_position = 9;
  const Result<int64_t> bad = RotationPosition(sel, m.pe);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("[5, 8]"), std::string::npos) << bad.message();
  const Result<Figure> f = BuildViewFigure(ViewKind::kRotation, m, sel, {}, FigureFormat::kPng);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("[5, 8]"), std::string::npos) << f.message();
}

TEST(RotationView, ShownPairsIncludeTheFirstAndTheLast) {
  EXPECT_EQ(ShownRotationPairs(3), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(ShownRotationPairs(64), (std::vector<int64_t>{0, 9, 18, 27, 36, 45, 54, 63}));
  EXPECT_EQ(ShownRotationPairs(9).back(), 8);
}

TEST(RotationView, CirclesAreRound) {
  for (RopeScaling scaling : {RopeScaling::kNone, RopeScaling::kYarn}) {
    const ModelParams m = RopeModel(128, scaling);
    for (FigureSize size : {FigureSize{}, FigureSize{600, 900, 1}, FigureSize{1600, 400, 1}}) {
      const Result<Figure> f =
          BuildViewFigure(ViewKind::kRotation, m, DefaultViews(m), size, FigureFormat::kPng);
      ASSERT_TRUE(f.ok()) << f.message();
      const PlotBox box = FigurePlotBox(f.value(), size);
      const ViewRange& v = f.value().view;
      const double ux = box.w / (v.x1 - v.x0), uy = box.h / (v.y1 - v.y0);
      EXPECT_NEAR(ux / uy, 1.0, 0.01) << size.width << "x" << size.height;
    }
  }
}

TEST(RotationView, TicksReadThePairsOwnCoordinates) {
  // Each panel is placed at its own point of the layout; its ticks must read the pair's values
  // (the unit circle crosses -1 and 1), not the layout's coordinates (0, 3, 6, ...).
  const ModelParams m = RopeModel(128, RopeScaling::kNone);
  const Result<Figure> f =
      BuildViewFigure(ViewKind::kRotation, m, DefaultViews(m), {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  // The unit circles (grey, radius 1): their centres and extents.
  std::vector<double> cxs, cys;
  for (const FigureSeries& s : f.value().series) {
    if (!(s.color == Rgba8{205, 205, 210, 255}) || s.xs.empty()) continue;
    const auto [x0, x1] = std::minmax_element(s.xs.begin(), s.xs.end());
    const auto [y0, y1] = std::minmax_element(s.ys.begin(), s.ys.end());
    ASSERT_NEAR(*x1 - *x0, 2.0, 1e-6);
    cxs.push_back((*x0 + *x1) / 2);
    cys.push_back((*y0 + *y1) / 2);
  }
  ASSERT_EQ(cxs.size(), 8u);
  auto check = [](const std::vector<Tick>& ticks, const std::vector<double>& centres) {
    ASSERT_FALSE(ticks.empty());
    for (const Tick& t : ticks) {
      const double v = std::stod(t.label);
      EXPECT_TRUE(v == -1 || v == 0 || v == 1) << t.label;
      bool on_panel = false;
      for (double c : centres) on_panel = on_panel || std::abs(t.value - (c + v)) < 1e-9;
      EXPECT_TRUE(on_panel) << "tick \"" << t.label << "\" at " << t.value;
    }
  };
  check(f.value().x.ticks, cxs);
  check(f.value().y.ticks, cys);
}

TEST(FrequenciesView, Llama3SplitsThePairs29_29_6) {
  ModelParams m = RopeModel(128, RopeScaling::kLlama3, 8.0);
  m.pe.rope().theta = 500000.0;
  m.pe.rope().low_freq_factor = 1.0;
  m.pe.rope().high_freq_factor = 4.0;
  m.pe.rope().original_max_len = 8192;
  const NpyArray a = Npy(ViewKind::kFrequencies, m);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{64, 7}));
  int counts[3] = {0, 0, 0};
  for (int64_t i = 0; i < 64; ++i) {
    const float t = a.data[static_cast<size_t>(i * 7 + 5)];
    ASSERT_TRUE(t == 0 || t == 1 || t == 2) << t;
    ++counts[static_cast<int>(t)];
  }
  EXPECT_EQ(counts[0], 29);
  EXPECT_EQ(counts[1], 29);
  EXPECT_EQ(counts[2], 6);
  const auto csv = ParseCsv(Table(ViewKind::kFrequencies, m, {}, TableFormat::kCsv));
  ASSERT_EQ(csv.size(), 65u);
  EXPECT_EQ(csv[0], (std::vector<std::string>{"pair", "original", "scaled", "original_wavelength",
                                              "scaled_wavelength", "treatment", "ramp"}));
  EXPECT_EQ(csv[1][5], "kept");
  EXPECT_EQ(csv[64][5], "interpolated");
  // The figure's legend says the same counts.
  const Result<Figure> f =
      BuildViewFigure(ViewKind::kFrequencies, m, DefaultViews(m), {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  std::string legend;
  for (const FigureLegendItem& it : f.value().legend) legend += it.label + "\n";
  for (const char* s : {"kept: 29 pairs", "interpolated: 29 pairs", "blended: 6 pairs",
                        "original context L = 8192", "extended context s\xc2\xb7L = 65536"}) {
    EXPECT_NE(legend.find(s), std::string::npos) << s << " not in\n" << legend;
  }
}

TEST(FrequenciesView, YarnTableIsRopeFrequencies) {
  ModelParams m = RopeModel(128, RopeScaling::kYarn, 8.0);
  m.pe.rope().original_max_len = 2048;
  const RopeFrequencies f = ComputeRopeFrequencies(m.pe);
  const NpyArray a = Npy(ViewKind::kFrequencies, m);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{64, 7}));
  int blended = 0;
  for (size_t i = 0; i < 64; ++i) {
    const RopePair& p = f.pairs[i];
    const float* row = a.data.data() + i * 7;
    EXPECT_EQ(row[0], static_cast<float>(i));
    EXPECT_EQ(row[1], static_cast<float>(p.original));
    EXPECT_EQ(row[2], static_cast<float>(p.scaled));
    EXPECT_EQ(row[3], static_cast<float>(2 * std::numbers::pi / p.original));
    EXPECT_EQ(row[4], static_cast<float>(2 * std::numbers::pi / p.scaled));
    EXPECT_EQ(row[5], static_cast<float>(static_cast<int>(p.treatment)));
    EXPECT_EQ(row[6], static_cast<float>(p.ramp));
    blended += p.treatment == PairTreatment::kBlended;
  }
  EXPECT_GT(blended, 0);
  // The correction range is drawn: two vertical lines at yarn_low and yarn_high.
  const Result<Figure> fig =
      BuildViewFigure(ViewKind::kFrequencies, m, DefaultViews(m), {}, FigureFormat::kPng);
  ASSERT_TRUE(fig.ok()) << fig.message();
  int verticals = 0;
  for (const FigureSeries& s : fig.value().series) {
    if (s.xs.size() == 2 && s.xs[0] == s.xs[1]) {
      EXPECT_TRUE(s.xs[0] == f.yarn_low || s.xs[0] == f.yarn_high) << s.xs[0];
      ++verticals;
    }
  }
  EXPECT_EQ(verticals, 2);
}

TEST(RopeViews, FiguresBuildAndRenderForEveryScalingAndPairing) {
  for (RopeScaling scaling : kScalings) {
    for (RopePairing pairing : {RopePairing::kHalf, RopePairing::kInterleaved}) {
      ModelParams m = RopeModel(64, scaling, 4.0, pairing);
      m.pe.rope().original_max_len = 32;
      for (ViewKind view : {ViewKind::kRotation, ViewKind::kFrequencies}) {
        for (FigureFormat format : {FigureFormat::kPng, FigureFormat::kSvg}) {
          const std::string what = std::string(ViewName(view)) + " " +
                                   std::string(RopeScalingName(scaling)) + " " +
                                   std::string(RopePairingName(pairing));
          const Result<Figure> f = BuildViewFigure(view, m, DefaultViews(m), {}, format);
          ASSERT_TRUE(f.ok()) << what << ": " << f.message();
          EXPECT_FALSE(f.value().series.empty()) << what;
          std::ostringstream out;
          const Status s = RenderFigure(f.value(), format, {}, out);
          EXPECT_TRUE(s.ok()) << what << ": " << s.message();
          EXPECT_GT(out.str().size(), 1000u) << what;
          EXPECT_LT(EstimateFigureBytes(view, m, DefaultViews(m), {}, format), 64u << 20)
              << what;
        }
      }
    }
  }
}

TEST(RopeViews, RotationLegendNamesThePairsDims) {
  const ModelParams half = RopeModel(128);
  const Result<Figure> f =
      BuildViewFigure(ViewKind::kRotation, half, DefaultViews(half), {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  std::string legend;
  for (const FigureLegendItem& it : f.value().legend) legend += it.label + "\n";
  EXPECT_NE(legend.find("pair 0 dims (0, 64)"), std::string::npos) << legend;
  EXPECT_NE(legend.find("pair 63 dims (63, 127)"), std::string::npos) << legend;
  const ModelParams inter = RopeModel(128, RopeScaling::kNone, 8.0, RopePairing::kInterleaved);
  const Result<Figure> g =
      BuildViewFigure(ViewKind::kRotation, inter, DefaultViews(inter), {}, FigureFormat::kPng);
  ASSERT_TRUE(g.ok()) << g.message();
  legend.clear();
  for (const FigureLegendItem& it : g.value().legend) legend += it.label + "\n";
  EXPECT_NE(legend.find("pair 63 dims (126, 127)"), std::string::npos) << legend;
}

TEST(RopeViews, RefusedForSchemesWithoutRotation) {
  ModelParams sinusoidal;
  ModelParams learned;
  learned.pe.scheme = LearnedParams{};
  for (const ModelParams* m : {&sinusoidal, &learned}) {
    const std::string scheme(SchemeName(m->pe.kind()));
    for (ViewKind view : {ViewKind::kRotation, ViewKind::kFrequencies}) {
      const std::string name(ViewName(view));
      const Result<Figure> f = BuildViewFigure(view, *m, DefaultViews(*m), {}, FigureFormat::kPng);
      ASSERT_FALSE(f.ok());
      EXPECT_NE(f.message().find("the " + name + " view"), std::string::npos) << f.message();
      EXPECT_NE(f.message().find("the " + scheme + " scheme"), std::string::npos) << f.message();
      const Status s = ExportView(view, *m, DefaultViews(*m), "unused.csv", {});
      ASSERT_FALSE(s.ok());
      EXPECT_NE(s.message().find("the " + name + " view"), std::string::npos) << s.message();
    }
  }
}

}  // namespace
}  // namespace pe
