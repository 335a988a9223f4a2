// The rotation and frequencies views: the RoPE rotation table against R_p q worked out here from
// its formula, the frequencies table against rope.h (and Llama 3's known split of 29 / 29 / 6
// pairs), figures for every scaling and pairing rendered to PNG and SVG, round circles, the
// refusals for schemes without rotation; and the sinusoidal rotation PE(p + K) = R(K) PE(p)
// against the table itself and the closed form, with the matrix written out here for each wave
// order, up to position 1e7, and the numbers its legend shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>

#include "base/random.h"
#include "encoding/rope.h"
#include "model/param_fields.h"
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

const RopeScaling kScalings[] = {RopeScaling::kNone, RopeScaling::kLinear,
                                 RopeScaling::kNtk,  RopeScaling::kDynamicNtk,
                                 RopeScaling::kYarn, RopeScaling::kLlama3};

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
          EXPECT_LT(EstimateFigureBytes(view, m, DefaultViews(m), {}, format), 64u << 20) << what;
        }
      }
    }
  }
}

// Proportional RoPE's still pairs (frequency 0, wavelength infinite) have no logarithm: the
// frequencies and spectrum views keep every coordinate finite, mark each still pair along the
// edge and name them in the legend; the frequencies table writes their wavelength as inf.
TEST(RopeViews, ProportionalStillPairsAreMarkedNotPlottedAtInfinity) {
  ModelParams m = RopeModel(256);
  m.pe.rope().theta = 1e6;
  m.pe.rope().proportion = 0.25;  // 32 of 128 pairs turn
  for (ViewKind view : {ViewKind::kFrequencies, ViewKind::kSpectrum, ViewKind::kRotation}) {
    const std::string what(ViewName(view));
    const Result<Figure> f = BuildViewFigure(view, m, DefaultViews(m), {}, FigureFormat::kPng);
    ASSERT_TRUE(f.ok()) << what << ": " << f.message();
    const Figure& fig = f.value();
    EXPECT_TRUE(std::isfinite(fig.view.y0) && std::isfinite(fig.view.y1)) << what;
    size_t marks_at_pairs_32_on = 0;  // dots, or the points of a stroke along the edge
    for (const FigureSeries& s : fig.series) {
      for (size_t k = 0; k < s.ys.size(); ++k) {
        EXPECT_TRUE(std::isfinite(s.ys[k])) << what;
        if (s.xs[k] >= 31.5 && s.color == Rgba8{110, 110, 115, 255}) ++marks_at_pairs_32_on;
      }
      for (size_t k = 0; k < s.marker_ys.size(); ++k) {
        EXPECT_TRUE(std::isfinite(s.marker_ys[k])) << what;
        if (s.marker_xs[k] >= 31.5 && s.color == Rgba8{110, 110, 115, 255}) {
          ++marks_at_pairs_32_on;
        }
      }
    }
    if (view == ViewKind::kRotation) continue;
    // The still pairs' colour, from pair 32 on (one mark each, or a stroke along the edge).
    EXPECT_GE(marks_at_pairs_32_on, 2u) << what;
    std::string legend;
    for (const FigureLegendItem& it : fig.legend) legend += it.label + "\n";
    EXPECT_NE(legend.find("frequency 0 (never turns"), std::string::npos) << legend;
    EXPECT_NE(legend.find("96"), std::string::npos) << legend;
  }
  const std::string csv = Table(ViewKind::kFrequencies, m, {}, TableFormat::kCsv);
  EXPECT_NE(csv.find("\n31,0.035226945,0.035226945,178.36304,178.36304,"), std::string::npos)
      << csv.substr(0, 400);
  EXPECT_NE(csv.find("\n32,0,0,inf,inf,"), std::string::npos);
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
      // The sinusoidal pairs rotate too (their own rotation view, below).
      if (view == ViewKind::kRotation && m == &sinusoidal) continue;
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

// ---- sinusoidal: PE(p + K) = R(K) PE(p) ---------------------------------------------------

ModelParams SinusoidModel(int64_t d, PeVariant variant, WaveOrder order, double base) {
  ModelParams m;
  m.pe.d_model = d;
  m.pe.max_len = 100;
  SinusoidalParams s;
  s.variant = variant;
  s.order = order;
  s.base = base;
  m.pe.scheme = s;
  return m;
}

// The frequency of pair i, written from the papers: base^(-2i/d) (paper, tf-text) or
// base^(-i/(h-1)) (tensor2tensor's get_timing_signal_1d with min_timescale 1).
double SinusoidFrequency(const ModelParams& m, int64_t i) {
  const SinusoidalParams& s = m.pe.sinusoidal();
  const auto d = static_cast<double>(m.pe.d_model);
  if (s.variant == PeVariant::kT2t) {
    const int64_t h = m.pe.d_model / 2;
    const auto steps = static_cast<double>(std::max<int64_t>(h - 1, 1));
    return std::pow(s.base, -static_cast<double>(i) / steps);
  }
  return std::pow(s.base, -2.0 * static_cast<double>(i) / d);
}

// The dims of pair i: interleaved (2i, 2i + 1) for the paper, halves (i, i + ceil(d/2)) for
// tf-text (its ceil(d/2) sines first), (i, i + d/2) for t2t.
std::pair<int64_t, int64_t> SinusoidDims(const ModelParams& m, int64_t i) {
  const int64_t d = m.pe.d_model;
  switch (m.pe.sinusoidal().variant) {
    case PeVariant::kPaper:
      return {2 * i, 2 * i + 1};
    case PeVariant::kTfText:
      return {i, i + (d + 1) / 2};
    case PeVariant::kT2t:
      return {i, i + d / 2};
  }
  return {0, 0};
}

// PE rows p and p + k of the table itself (FillBlock), for pair dims.
std::vector<float> PeRow(const Encoding& e, int64_t position) {
  std::vector<float> row(static_cast<size_t>(e.cols()));
  e.FillBlock(position - e.first_position(), 1, 0, e.cols(), row.data());
  return row;
}

TEST(SinusoidRotation, RTimesPeAtPIsPeAtPPlusKForEveryPair) {
  // (amp sin, amp cos) at p, turned by [[c, s], [-s, c]] (sin first) or its transpose on
  // (cos, sin) (cos first), is the pair at p + K: the angle-addition formulas.
  // Tolerance: PE(p) is rounded to float32 (6e-8 per value), R mixes two of them, PE(p + K) is
  // rounded again and the view's table stores float32: a few 1e-7.
  constexpr double kTol = 3e-7;
  constexpr double kUlp = 6e-8;  // one float32 step below 1
  int checked = 0;
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
    for (WaveOrder order : {WaveOrder::kSinFirst, WaveOrder::kCosFirst}) {
      for (int64_t d : {128, 64, 33}) {
        for (double base : {10000.0, 500.0}) {
          for (int64_t first : {int64_t{0}, int64_t{10000000} - 50}) {
            for (int64_t k : {int64_t{1}, int64_t{7}, int64_t{-3}, int64_t{1000}}) {
              ModelParams m = SinusoidModel(d, v, order, base);
              m.pe.offset = first;
              m.rotation_offset = k;
              const int64_t p = first == 0 ? 12 : 10000000;
              ViewSelection sel;
              sel.rotation_position = p;
              // The table of the encoding covers p + K: a second encoding shifted to it.
              ModelParams shifted = m;
              shifted.pe.offset = p + k;
              shifted.pe.max_len = 1;
              const EncodingPtr e = MakeEncoding(m.pe).value();
              const EncodingPtr e_k = MakeEncoding(shifted.pe).value();
              const std::vector<float> at_p = PeRow(*e, p), at_pk = PeRow(*e_k, p + k);
              const NpyArray a = Npy(ViewKind::kRotation, m, sel);
              const int64_t pairs = d / 2;
              ASSERT_EQ(a.shape, (std::vector<int64_t>{pairs, 11}));
              const bool sin_first = order == WaveOrder::kSinFirst;
              for (int64_t i = 0; i < pairs; ++i) {
                const std::string what = std::string(VariantName(v)) + " " +
                                         std::string(WaveOrderName(order)) +
                                         " d=" + std::to_string(d) + " p=" + std::to_string(p) +
                                         " K=" + std::to_string(k) + " pair " + std::to_string(i);
                const auto [da, db] = SinusoidDims(m, i);
                const double w = SinusoidFrequency(m, i);
                const double c = std::cos(static_cast<double>(k) * w);
                const double s = std::sin(static_cast<double>(k) * w);
                const double xa = at_p[static_cast<size_t>(da)], xb = at_p[static_cast<size_t>(db)];
                const double ra = sin_first ? c * xa + s * xb : c * xa - s * xb;
                const double rb = sin_first ? -s * xa + c * xb : s * xa + c * xb;
                // The property on the table itself.
                EXPECT_NEAR(ra, at_pk[static_cast<size_t>(da)], kTol) << what;
                EXPECT_NEAR(rb, at_pk[static_cast<size_t>(db)], kTol) << what;
                // And the closed form at p + K.
                const double angle = static_cast<double>(p + k) * w;
                EXPECT_NEAR(ra, sin_first ? std::sin(angle) : std::cos(angle), kTol) << what;
                EXPECT_NEAR(rb, sin_first ? std::cos(angle) : std::sin(angle), kTol) << what;
                // The view's row says the same.
                const float* row = a.data.data() + i * 11;
                EXPECT_EQ(row[0], static_cast<float>(i)) << what;
                EXPECT_EQ(row[1], static_cast<float>(da)) << what;
                EXPECT_EQ(row[2], static_cast<float>(db)) << what;
                EXPECT_FLOAT_EQ(row[3], static_cast<float>(w)) << what;
                EXPECT_FLOAT_EQ(row[4], static_cast<float>(static_cast<double>(k) * w)) << what;
                // The view rounds the exact double value once (WaveValue); the table's fast fill
                // may land one float32 step away at large positions (encoding.h).
                EXPECT_NEAR(row[5], xa, kUlp) << what;
                EXPECT_NEAR(row[6], xb, kUlp) << what;
                EXPECT_NEAR(row[7], ra, kTol) << what;
                EXPECT_NEAR(row[8], rb, kTol) << what;
                EXPECT_NEAR(row[9], at_pk[static_cast<size_t>(da)], kUlp) << what;
                EXPECT_NEAR(row[10], at_pk[static_cast<size_t>(db)], kUlp) << what;
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

TEST(SinusoidRotation, OutputScaleKeepsTheRotation) {
  // x-transformers' d^-0.5 scale: the pair is on a circle of that radius; R(K) is the same.
  ModelParams m = SinusoidModel(16, PeVariant::kPaper, WaveOrder::kSinFirst, 10000.0);
  m.pe.sinusoidal().output_scale = -0.25;
  m.rotation_offset = 5;
  const NpyArray a = Npy(ViewKind::kRotation, m);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{8, 11}));
  for (int64_t i = 0; i < 8; ++i) {
    const float* row = a.data.data() + i * 11;
    EXPECT_NEAR(std::hypot(row[5], row[6]), 0.25, 1e-7);
    EXPECT_NEAR(row[7], row[9], 1e-7) << i;
    EXPECT_NEAR(row[8], row[10], 1e-7) << i;
    const double angle = 15.0 * std::pow(10000.0, -2.0 * static_cast<double>(i) / 16.0);
    EXPECT_NEAR(row[9], -0.25 * std::sin(angle), 1e-7) << i;
  }
}

TEST(SinusoidRotation, CsvHeaderAndPairsWithoutPartner) {
  // Odd d: the paper's and tf-text's last sine and t2t's zero column have no partner.
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
    const ModelParams m = SinusoidModel(9, v, WaveOrder::kSinFirst, 10000.0);
    const auto rows = ParseCsv(Table(ViewKind::kRotation, m, {}, TableFormat::kCsv));
    ASSERT_EQ(rows.size(), 5u) << VariantName(v);
    EXPECT_EQ(rows[0],
              (std::vector<std::string>{"pair", "dim_a", "dim_b", "frequency", "angle", "pe_a",
                                        "pe_b", "r_a", "r_b", "pe_k_a", "pe_k_b"}));
    EXPECT_EQ(rows[4][0], "3");
  }
}

TEST(SinusoidRotation, LegendShowsTheMatrixAndTheNumbers) {
  for (WaveOrder order : {WaveOrder::kSinFirst, WaveOrder::kCosFirst}) {
    ModelParams m = SinusoidModel(128, PeVariant::kT2t, order, 10000.0);
    m.rotation_offset = 7;
    ViewSelection sel = DefaultViews(m);
    sel.rotation_position = 40;
    const Result<Figure> f = BuildViewFigure(ViewKind::kRotation, m, sel, {}, FigureFormat::kPng);
    ASSERT_TRUE(f.ok()) << f.message();
    std::string legend;
    for (const FigureLegendItem& it : f.value().legend) legend += it.label + "\n";
    const bool sin_first = order == WaveOrder::kSinFirst;
    EXPECT_NE(legend.find(sin_first ? "R(K) = [cos K\xcf\x89  sin K\xcf\x89; \xe2\x88\x92sin "
                                      "K\xcf\x89  cos K\xcf\x89], turning clockwise"
                                    : "R(K) = [cos K\xcf\x89  \xe2\x88\x92sin K\xcf\x89; sin "
                                      "K\xcf\x89  cos K\xcf\x89], turning counter-clockwise"),
              std::string::npos)
        << legend;
    // The shown pairs (0 and 63 among them): R's entries and PE(p), PE(p + K) as %.4g of the
    // values worked out here.
    const EncodingPtr e = MakeEncoding(m.pe).value();
    for (int64_t i : {int64_t{0}, int64_t{13}, int64_t{63}}) {
      const double w = SinusoidFrequency(m, i);
      const double c = std::cos(7 * w), s = std::sin(7 * w);
      auto g = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.4g", v);
        return std::string(buf);
      };
      const double s01 = sin_first ? s : -s;
      const std::string matrix = "R = [" + g(c) + " " + g(s01) + "; " + g(-s01) + " " + g(c) + "]";
      const double a0 = static_cast<double>(40) * w, a1 = static_cast<double>(47) * w;
      const float pa = static_cast<float>(sin_first ? std::sin(a0) : std::cos(a0));
      const float pb = static_cast<float>(sin_first ? std::cos(a0) : std::sin(a0));
      const float qa = static_cast<float>(sin_first ? std::sin(a1) : std::cos(a1));
      const float qb = static_cast<float>(sin_first ? std::cos(a1) : std::sin(a1));
      const std::string numbers =
          "(" + g(pa) + " " + g(pb) + ") \xe2\x86\x92 (" + g(qa) + " " + g(qb) + ")";
      const std::string head = "pair " + std::to_string(i) + " dims (" + std::to_string(i) + ", " +
                               std::to_string(i + 64) + "): \xcf\x89=" + g(w) +
                               ", K\xcf\x89=" + g(7 * w) + " rad";
      EXPECT_NE(legend.find(head + " = "), std::string::npos) << head << "\n" << legend;
      EXPECT_NE(legend.find(matrix), std::string::npos) << matrix << "\n" << legend;
      EXPECT_NE(legend.find(numbers), std::string::npos) << numbers << "\n" << legend;
    }
  }
}

TEST(SinusoidRotation, ArrowsEndAtPeOfPAndPPlusK) {
  // Each panel's grey arrow ends at PE(p) / |amp| and its coloured arrow at PE(p + K) / |amp|
  // (the second point of each five-point arrow), about the panel's centre.
  ModelParams m = SinusoidModel(8, PeVariant::kPaper, WaveOrder::kSinFirst, 10000.0);
  m.rotation_offset = 3;
  ViewSelection sel = DefaultViews(m);
  sel.rotation_position = 5;
  const Result<Figure> f = BuildViewFigure(ViewKind::kRotation, m, sel, {}, FigureFormat::kSvg);
  ASSERT_TRUE(f.ok()) << f.message();
  std::vector<const FigureSeries*> arrows;
  for (const FigureSeries& s : f.value().series) {
    if (s.xs.size() == 5) arrows.push_back(&s);
  }
  ASSERT_EQ(arrows.size(), 8u);  // 4 pairs, two arrows each
  for (int64_t i = 0; i < 4; ++i) {
    const double w = std::pow(10000.0, -2.0 * static_cast<double>(i) / 8.0);
    const FigureSeries& grey = *arrows[static_cast<size_t>(2 * i)];
    const FigureSeries& turned = *arrows[static_cast<size_t>(2 * i + 1)];
    EXPECT_NEAR(grey.xs[1] - grey.xs[0], std::sin(5 * w), 1e-7) << i;
    EXPECT_NEAR(grey.ys[1] - grey.ys[0], std::cos(5 * w), 1e-7) << i;
    EXPECT_NEAR(turned.xs[1] - turned.xs[0], std::sin(8 * w), 1e-7) << i;
    EXPECT_NEAR(turned.ys[1] - turned.ys[0], std::cos(8 * w), 1e-7) << i;
  }
}

TEST(SinusoidRotation, OffsetFieldRecordedAndChecked) {
  ModelParams m;
  const ParamField* field = FindParamField("--rotation-offset");
  ASSERT_NE(field, nullptr);
  EXPECT_EQ(field->key, "rotation_offset");
  ASSERT_TRUE(field->set(m, "-25").ok());
  EXPECT_EQ(m.rotation_offset, -25);
  const Status bad = field->set(m, "2147483648");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("[-2147483647, 2147483647]"), std::string::npos) << bad.message();
  // Before --dims in the table, recorded in a sinusoidal figure's metadata.
  const auto fields = ParamFields();
  size_t at_offset = 0, at_dims = 0;
  for (size_t k = 0; k < fields.size(); ++k) {
    if (fields[k].key == "rotation_offset") at_offset = k;
    if (fields[k].key == "dims") at_dims = k;
  }
  EXPECT_EQ(at_offset + 1, at_dims);
  const Result<Figure> f =
      BuildViewFigure(ViewKind::kRotation, m, DefaultViews(m), {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  bool recorded = false;
  for (const auto& [key, value] : f.value().metadata) {
    recorded |= key == "rotation_offset" && value == "-25";
  }
  EXPECT_TRUE(recorded);
}

TEST(SinusoidRotation, FiguresRenderForEveryLayout) {
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
    for (WaveOrder order : {WaveOrder::kSinFirst, WaveOrder::kCosFirst}) {
      const ModelParams m = SinusoidModel(64, v, order, 10000.0);
      for (FigureFormat format : {FigureFormat::kPng, FigureFormat::kSvg, FigureFormat::kPdf}) {
        const Result<Figure> f =
            BuildViewFigure(ViewKind::kRotation, m, DefaultViews(m), {}, format);
        ASSERT_TRUE(f.ok()) << f.message();
        std::ostringstream out;
        EXPECT_TRUE(RenderFigure(f.value(), format, {}, out).ok());
        EXPECT_GT(out.str().size(), 1000u);
        EXPECT_LT(EstimateFigureBytes(ViewKind::kRotation, m, DefaultViews(m), {}, format),
                  64u << 20);
      }
    }
  }
  // d = 1 has no pair: a message, not a crash.
  ModelParams one = SinusoidModel(1, PeVariant::kPaper, WaveOrder::kSinFirst, 10000.0);
  const Result<Figure> f =
      BuildViewFigure(ViewKind::kRotation, one, DefaultViews(one), {}, FigureFormat::kPng);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("d_model 1"), std::string::npos) << f.message();
}

}  // namespace
}  // namespace pe
