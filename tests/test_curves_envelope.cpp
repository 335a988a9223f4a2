// The curves view where a wave turns faster than its samples: the exact range of a*sin(w p) and
// a*cos(w p) over an interval (WaveRangeOver) against a dense evaluation of the same formula
// written here, and the curves figure: a band that spans [-1, 1] in every pixel for RoPE's fast
// columns at max_len 1e9 (no slow wave made up by point sampling), the line and dots unchanged
// at a small max_len.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "base/random.h"
#include "encoding/wave.h"
#include "views/figure_export.h"
#include "views/view_geometry.h"
#include "views/view_registry.h"

namespace pe {
namespace {

constexpr double kPi = std::numbers::pi;

// The column's value written from its definition (wave.h): a sin(p w) or a cos(p w).
double Formula(bool sine, double a, double w, double p) {
  return sine ? a * std::sin(p * w) : a * std::cos(p * w);
}

// min and max over a dense grid of the interval plus its two ends: a lower bound on the true
// range, within a*(w*h)^2/8 of it for grid spacing h.
WaveSpan Dense(bool sine, double a, double w, double p0, double p1, int n) {
  WaveSpan s{Formula(sine, a, w, p0), Formula(sine, a, w, p0)};
  for (int k = 1; k <= n; ++k) {
    const double v = Formula(sine, a, w, p0 + (p1 - p0) * k / n);
    s.lo = std::min(s.lo, v);
    s.hi = std::max(s.hi, v);
  }
  return s;
}

TEST(CurvesEnvelope, RangeMatchesDenseEvaluation) {
  uint64_t counter = 0;
  const auto uniform = [&counter] { return RandomUniform(20261122, counter++); };
  int full = 0, one_crest = 0, none = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    WaveColumn c;
    const bool sine = trial % 2 == 0;
    c.wave = sine ? Wave::kSin : Wave::kCos;
    c.frequency = std::pow(10.0, -4.0 + 4.0 * uniform());  // 1e-4 .. 1 rad a position
    c.amplitude = trial % 7 == 0 ? -0.6 : 0.5 + uniform();
    const double p0 = -50.0 + 1e5 * uniform();
    // Intervals from a small part of a period to a few periods.
    const double turn = 2 * kPi * std::pow(10.0, -2.0 + 2.6 * uniform());
    const double p1 = p0 + turn / c.frequency;
    const WaveSpan got = WaveRangeOver(c, p0, p1);
    const int n = 20000;
    const WaveSpan want = Dense(sine, c.amplitude, c.frequency, p0, p1, n);
    const double h = (p1 - p0) / n;
    const double slack = std::fabs(c.amplitude) * std::pow(c.frequency * h, 2) + 1e-9;
    ASSERT_LE(got.lo, want.lo + 1e-9) << trial;  // the range holds every dense value
    ASSERT_GE(got.hi, want.hi - 1e-9) << trial;
    ASSERT_NEAR(got.lo, want.lo, slack) << trial;  // and is no wider
    ASSERT_NEAR(got.hi, want.hi, slack) << trial;
    const double a = std::fabs(c.amplitude);
    if (got.hi == a && got.lo == -a) {
      ++full;
    } else if (got.hi == a || got.lo == -a) {
      ++one_crest;
    } else {
      ++none;
    }
  }
  // Every kind of interval was met: both extremes, exactly one, none inside.
  EXPECT_GT(full, 100);
  EXPECT_GT(one_crest, 100);
  EXPECT_GT(none, 100);
}

TEST(CurvesEnvelope, ExactlyOneCrestInside) {
  // sin(w p) with w = 0.1: crest at p = 5 pi, trough at p = 15 pi.
  WaveColumn c;
  c.wave = Wave::kSin;
  c.frequency = 0.1;
  const double crest = 5 * kPi;
  WaveSpan s = WaveRangeOver(c, crest - 3.0, crest + 2.0);
  EXPECT_EQ(s.hi, 1.0);
  EXPECT_DOUBLE_EQ(s.lo, std::min(std::sin(0.1 * (crest - 3.0)), std::sin(0.1 * (crest + 2.0))));
  // Just before the crest: no crest inside, the top is the right end.
  s = WaveRangeOver(c, crest - 3.0, crest - 0.5);
  EXPECT_DOUBLE_EQ(s.hi, std::sin(0.1 * (crest - 0.5)));
  EXPECT_LT(s.hi, 1.0);
  // cos(w p) with w = 0.1: trough at p = 10 pi, crests at 0 and 20 pi.
  c.wave = Wave::kCos;
  s = WaveRangeOver(c, 10 * kPi - 1.0, 10 * kPi + 4.0);
  EXPECT_EQ(s.lo, -1.0);
  EXPECT_DOUBLE_EQ(s.hi,
                   std::max(std::cos(0.1 * (10 * kPi - 1.0)), std::cos(0.1 * (10 * kPi + 4.0))));
  // A full period or more: the whole [-a, a], whatever the phase.
  c.amplitude = 1.7;
  s = WaveRangeOver(c, 3.3, 3.3 + 2 * kPi / 0.1);
  EXPECT_EQ(s.lo, -1.7);
  EXPECT_EQ(s.hi, 1.7);
}

ModelParams Rope(int64_t max_len) {
  ModelParams m;
  m.pe.d_model = 64;
  m.pe.max_len = max_len;
  m.pe.scheme = RopeParams{};
  m.curve_dims = {4, 5, 6, 7};
  return m;
}

TEST(CurvesEnvelope, RopeAtOneBillionPositionsSpansTheWholeRange) {
  const ModelParams m = Rope(1000000000);
  const Result<Figure> f =
      BuildViewFigure(ViewKind::kCurves, m, DefaultViews(m), {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  ASSERT_EQ(f.value().series.size(), 4u);
  for (const FigureSeries& s : f.value().series) {
    // d4..d7 have wavelengths of 11 to 17 positions: each pixel covers ~1e6 positions.
    ASSERT_TRUE(s.xs.empty()) << s.label << ": point samples would alias";
    ASSERT_GT(s.band_lo.size(), 100u) << s.label;
    ASSERT_EQ(s.band_edges.size(), s.band_lo.size() + 1);
    EXPECT_EQ(s.band_edges.front(), f.value().view.x0);
    EXPECT_EQ(s.band_edges.back(), f.value().view.x1);
    for (size_t k = 0; k < s.band_lo.size(); ++k) {
      ASSERT_EQ(s.band_lo[k], -1.0) << s.label << " pixel " << k;
      ASSERT_EQ(s.band_hi[k], 1.0) << s.label << " pixel " << k;
    }
    EXPECT_NE(s.label.find("each pixel shows the wave's range over its"), std::string::npos)
        << s.label;
  }
}

TEST(CurvesEnvelope, SmallMaxLenKeepsTheLineAndDots) {
  const ModelParams m = Rope(64);
  const Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  ASSERT_TRUE(e.ok()) << e.message();
  const Result<Figure> f =
      BuildViewFigure(ViewKind::kCurves, m, DefaultViews(m), {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  const Figure& fig = f.value();
  ASSERT_EQ(fig.series.size(), 4u);
  for (size_t k = 0; k < 4; ++k) {
    const FigureSeries& s = fig.series[k];
    EXPECT_TRUE(s.band_lo.empty()) << s.label;
    EXPECT_EQ(s.label.find("each pixel"), std::string::npos) << s.label;
    // The line: evenly spaced samples across the view, each the encoding's value.
    ASSERT_GE(s.xs.size(), 64u);
    EXPECT_EQ(s.xs.front(), fig.view.x0);
    EXPECT_DOUBLE_EQ(s.xs.back(), fig.view.x1);
    for (size_t i = 0; i < s.xs.size(); ++i) {
      ASSERT_EQ(s.ys[i], e.value()->ValueAt(m.curve_dims[k], s.xs[i]));
    }
    // And the turn between samples is within the line's bound (pi / 4).
    const double w = e.value()->waves()[static_cast<size_t>(m.curve_dims[k])].frequency;
    EXPECT_LE(w * (s.xs[1] - s.xs[0]), kPi / 4);
    // Dots at the integer positions in view.
    ASSERT_FALSE(s.marker_xs.empty()) << s.label;
    for (size_t i = 0; i < s.marker_xs.size(); ++i) {
      EXPECT_EQ(s.marker_xs[i], std::round(s.marker_xs[i]));
      EXPECT_FLOAT_EQ(s.marker_ys[i], e.value()->ValueAt(m.curve_dims[k], s.marker_xs[i]));
    }
  }
}

// Tables without waves (learned, ALiBi): with more rows in view than pixels, each pixel's band is
// the exact range of the polyline through the rows, against a naive scan of the whole column
// written here: every row inside the pixel and the straight line between rows at its two edges.
TEST(CurvesEnvelope, TableBandsHoldEveryRowsMinAndMax) {
  ModelParams learned;
  SetScheme(learned, Scheme::kLearned);
  learned.pe.d_model = 8;
  learned.pe.max_len = 20000;
  learned.pe.offset = 3;
  learned.curve_dims = {0, 5};
  ModelParams alibi;
  SetScheme(alibi, Scheme::kAlibi);
  alibi.pe.max_len = 100000;
  alibi.pe.alibi().mode = AlibiMode::kSymmetric;
  alibi.curve_dims = {50000};
  for (const ModelParams& m : {learned, alibi}) {
    const Result<EncodingPtr> made = MakeEncoding(m.pe, m.cap);
    ASSERT_TRUE(made.ok()) << made.message();
    const Encoding& e = *made.value();
    const Result<Figure> f =
        BuildViewFigure(ViewKind::kCurves, m, DefaultViews(m), {}, FigureFormat::kPng);
    ASSERT_TRUE(f.ok()) << f.message();
    const int64_t first = e.first_position();
    for (size_t k = 0; k < m.curve_dims.size(); ++k) {
      const FigureSeries& s = f.value().series[k];
      const int64_t col = m.curve_dims[k];
      ASSERT_FALSE(s.band_lo.empty()) << SchemeName(m.pe.kind()) << " " << s.label;
      EXPECT_NE(s.label.find("each pixel shows the range of its"), std::string::npos) << s.label;
      std::vector<float> column(static_cast<size_t>(e.rows()));
      e.FillBlock(0, e.rows(), col, 1, column.data());
      // The polyline between rows, from the column's float32 rows.
      auto line = [&](double x) {
        const double r =
            std::clamp(x - static_cast<double>(first), 0.0, static_cast<double>(e.rows() - 1));
        const auto r0 = static_cast<int64_t>(std::floor(r));
        const int64_t r1 = std::min(r0 + 1, e.rows() - 1);
        const double a = column[static_cast<size_t>(r0)], b = column[static_cast<size_t>(r1)];
        return a + (b - a) * (r - static_cast<double>(r0));
      };
      ASSERT_EQ(s.band_edges.size(), s.band_lo.size() + 1);
      EXPECT_GE(s.band_edges.front(), static_cast<double>(first));
      EXPECT_LE(s.band_edges.back(), static_cast<double>(e.last_position()));
      int64_t rows_seen = 0;
      for (size_t px = 0; px < s.band_lo.size(); ++px) {
        const double a = s.band_edges[px], b = s.band_edges[px + 1];
        double lo = std::min(line(a), line(b)), hi = std::max(line(a), line(b));
        for (auto p = static_cast<int64_t>(std::ceil(a)); p <= static_cast<int64_t>(std::floor(b));
             ++p) {
          const double v = column[static_cast<size_t>(p - first)];
          lo = std::min(lo, v), hi = std::max(hi, v);
          ++rows_seen;
        }
        ASSERT_NEAR(s.band_lo[px], lo, 1e-6 * (1 + std::abs(lo))) << px;
        ASSERT_NEAR(s.band_hi[px], hi, 1e-6 * (1 + std::abs(hi))) << px;
      }
      EXPECT_GE(rows_seen, e.rows());  // every row is in a pixel (edge rows in two)
      // The band's extremes are the column's.
      EXPECT_NEAR(*std::min_element(s.band_lo.begin(), s.band_lo.end()),
                  *std::min_element(column.begin(), column.end()), 1e-6);
      EXPECT_NEAR(*std::max_element(s.band_hi.begin(), s.band_hi.end()),
                  *std::max_element(column.begin(), column.end()), 1e-6);
    }
  }
  // Zoomed in to fewer rows than pixels: the line through every row in view, no band.
  ModelParams m = learned;
  ViewSelection sel = DefaultViews(m);
  sel.windows[ViewKind::kCurves].x0 = 1000, sel.windows[ViewKind::kCurves].x1 = 1100;
  const Result<Figure> near = BuildViewFigure(ViewKind::kCurves, m, sel, {}, FigureFormat::kPng);
  ASSERT_TRUE(near.ok());
  EXPECT_TRUE(near.value().series[0].band_lo.empty());
  EXPECT_EQ(near.value().series[0].xs.size(), 103u);  // rows 999 to 1101
  // Past kMaxExactBandRows rows in view the line goes through every k-th row, and says so.
  ModelParams huge = alibi;
  huge.pe.max_len = 2 * kMaxExactBandRows;
  huge.curve_dims = {7};
  const Result<Figure> far =
      BuildViewFigure(ViewKind::kCurves, huge, DefaultViews(huge), {}, FigureFormat::kPng);
  ASSERT_TRUE(far.ok()) << far.message();
  EXPECT_TRUE(far.value().series[0].band_lo.empty());
  bool note = false;
  for (const FigureLegendItem& it : far.value().legend) {
    note = note || it.label.find("every k-th row") != std::string::npos;
  }
  EXPECT_TRUE(note);
}

}  // namespace
}  // namespace pe
