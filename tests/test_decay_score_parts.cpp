// The decay view's normalisations (--decay-norm, --log-y) against closed forms, and the score
// view's position part (--score-part position) against (x + PE_m).(x + PE_n) - x.x computed
// naively here.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <sstream>

#include "analysis/attention_score.h"
#include "arch/model_choice.h"
#include "base/random.h"
#include "model/param_fields.h"
#include "test_support.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

using pe::testing::ParseCsv;

// The table a view writes as CSV, parsed to numbers: (rows, columns) after the header.
std::vector<std::vector<double>> Table(ViewKind view, const ModelParams& m) {
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  EXPECT_TRUE(e.ok()) << e.message();
  const ViewSelection sel = DefaultViews(m);
  const ViewContext c{m, e.value(), sel, {}, FigureFormat::kPng};
  std::ostringstream out;
  const Status s = GetView(view).write_table(out, TableFormat::kCsv, c, {});
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<std::vector<double>> rows;
  const auto cells = ParseCsv(out.str());
  for (size_t r = 1; r < cells.size(); ++r) {
    std::vector<double> row;
    for (const std::string& cell : cells[r]) row.push_back(cell.empty() ? NAN : std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}

ModelParams Alibi(int64_t d, int64_t L) {
  ModelParams m;
  SetScheme(m, Scheme::kAlibi);
  m.pe.d_model = d;
  m.pe.max_len = L;
  m.content.kind = ScoreContent::Kind::kOnes;
  return m;
}

// Float32 rounding of the written table, with room for the sum's own rounding.
constexpr double kTableTol = 2e-7;

// ALiBi's head 0 of 8 (MPT's alibi_bias_max 8): slope a = 2^-1; with x = ones the score of the
// query k after the key is d/sqrt(d) - a k (Press et al. 2022, section 3).
TEST(DecayNorm, AlibiAgainstItsClosedForm) {
  const int64_t d = 16, L = 40;
  const double a = 0.5, content = std::sqrt(static_cast<double>(d));
  ModelParams m = Alibi(d, L);
  const auto raw = Table(ViewKind::kDecay, m);
  ASSERT_EQ(raw.size(), static_cast<size_t>(L));
  m.decay_norm = DecayNorm::kMinusZero;
  const auto minus = Table(ViewKind::kDecay, m);
  m.decay_norm = DecayNorm::kSoftmax;
  const auto soft = Table(ViewKind::kDecay, m);
  // sum_{j<L} e^{-a j} = (1 - e^{-a L}) / (1 - e^{-a})
  const double z = (1 - std::exp(-a * L)) / (1 - std::exp(-a));
  double sum = 0;
  for (int64_t k = 0; k < L; ++k) {
    const auto r = static_cast<size_t>(k);
    EXPECT_EQ(raw[r][0], static_cast<double>(k));
    EXPECT_NEAR(raw[r][1], content - a * static_cast<double>(k), kTableTol * (1 + a * k)) << k;
    EXPECT_NEAR(minus[r][1], -a * static_cast<double>(k), kTableTol * (1 + a * k)) << k;
    EXPECT_NEAR(soft[r][1], std::exp(-a * static_cast<double>(k)) / z, kTableTol) << k;
    sum += soft[r][1];
  }
  EXPECT_NEAR(sum, 1.0, 1e-6);
  EXPECT_EQ(minus[0][1], 0.0);
}

// Every scheme: minus-zero is 0 at k = 0 and raw - raw(0) elsewhere; the softmax weights are
// positive, sum to 1 over the row and keep the raw curve's ratios exp(s(k) - s(0)).
TEST(DecayNorm, MinusZeroAndSoftmaxForEveryScheme) {
  for (Scheme scheme : {Scheme::kSinusoidal, Scheme::kLearned, Scheme::kRope, Scheme::kAlibi,
                        Scheme::kT5, Scheme::kXpos}) {
    SCOPED_TRACE(std::string(SchemeName(scheme)));
    ModelParams m;
    SetScheme(m, scheme);
    m.pe.d_model = 32;
    m.pe.max_len = 64;
    const auto raw = Table(ViewKind::kDecay, m);
    m.decay_norm = DecayNorm::kMinusZero;
    const auto minus = Table(ViewKind::kDecay, m);
    m.decay_norm = DecayNorm::kSoftmax;
    const auto soft = Table(ViewKind::kDecay, m);
    ASSERT_EQ(raw.size(), 64u);
    EXPECT_EQ(minus[0][1], 0.0);
    double sum = 0;
    for (size_t k = 0; k < raw.size(); ++k) {
      EXPECT_NEAR(minus[k][1], raw[k][1] - raw[0][1], 1e-5 * (1 + std::abs(raw[k][1])));
      EXPECT_GT(soft[k][1], 0.0);
      EXPECT_NEAR(soft[k][1] / soft[0][1], std::exp(raw[k][1] - raw[0][1]),
                  1e-5 * std::exp(raw[k][1] - raw[0][1]));
      sum += soft[k][1];
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
}

// ALiBi's head 0 falls to -a (L - 1) and would flatten a sinusoid drawn beside it; as softmax
// weights both curves fill the axis, and the log axis is decades of the weight.
TEST(DecayNorm, FigureAxisFollowsTheNormalisation) {
  ModelParams m = Alibi(64, 491);
  m.compare = "sinusoidal";
  const ViewSelection sel = DefaultViews(m);
  Result<Figure> raw = BuildViewFigure(ViewKind::kDecay, m, sel, {}, FigureFormat::kPng);
  ASSERT_TRUE(raw.ok()) << raw.message();
  EXPECT_LT(raw.value().view.y0, -245.0 + 8.0);  // sqrt(64) - 245
  m.decay_norm = DecayNorm::kSoftmax;
  Result<Figure> soft = BuildViewFigure(ViewKind::kDecay, m, sel, {}, FigureFormat::kPng);
  ASSERT_TRUE(soft.ok()) << soft.message();
  EXPECT_GT(soft.value().view.y0, -0.1);
  EXPECT_LT(soft.value().view.y1, 1.1);
  EXPECT_NE(soft.value().y.label.find("softmax weight"), std::string::npos);
  // ALiBi's first weight: 1 / z with z = sum_j 2^{-j/2}, j < 491.
  const double z = (1 - std::exp(-0.5 * 491)) / (1 - std::exp(-0.5));
  EXPECT_NEAR(soft.value().series[0].ys[0], 1 / z, 1e-12);
  m.decay_log_y = true;
  Result<Figure> log = BuildViewFigure(ViewKind::kDecay, m, sel, {}, FigureFormat::kPng);
  ASSERT_TRUE(log.ok()) << log.message();
  EXPECT_NEAR(log.value().series[0].ys[0], std::log10(1 / z), 1e-12);
  EXPECT_NEAR(log.value().series[0].ys[2] - log.value().series[0].ys[0], -1.0 / std::numbers::ln10,
              1e-12);  // two steps of -a = -1/2, in decades
  ASSERT_FALSE(log.value().y.ticks.empty());
  for (const Tick& t : log.value().y.ticks) {
    const double mantissa = std::pow(10.0, t.value - std::floor(t.value + 1e-9));
    EXPECT_TRUE(std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
                std::abs(mantissa - 5) < 1e-9)
        << t.label;
  }
  // A log axis of scores that go below 0 is refused, naming both flags.
  m.decay_norm = DecayNorm::kMinusZero;
  Result<Figure> refused = BuildViewFigure(ViewKind::kDecay, m, sel, {}, FigureFormat::kPng);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("--log-y"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("--decay-norm softmax"), std::string::npos);
}

Status SetParam(ModelParams& m, const char* flag, const std::string& text) {
  const ParamField* f = FindParamField(flag);
  EXPECT_NE(f, nullptr) << flag;
  return f == nullptr ? InvalidArgument("no field") : f->set(m, text);
}

TEST(DecayNorm, FlagsParseAndRefuseByName) {
  ModelParams m;
  ASSERT_TRUE(SetParam(m, "--decay-norm", "minus-zero").ok());
  EXPECT_EQ(m.decay_norm, DecayNorm::kMinusZero);
  const Status bad = SetParam(m, "--decay-norm", "log");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("--decay-norm"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("softmax"), std::string::npos) << bad.message();
  ASSERT_TRUE(SetParam(m, "--score-part", "position").ok());
  EXPECT_EQ(m.score_part, ScorePart::kPosition);
  EXPECT_FALSE(SetParam(m, "--score-part", "content").ok());
}

// T5's seeded biases are named as noise in the legend; a loaded table is not.
TEST(DecayNorm, SeededT5CurveSaysSo) {
  ModelParams m;
  SetScheme(m, Scheme::kT5);
  m.pe.d_model = 16;
  m.pe.max_len = 40;
  Result<Figure> f = BuildViewFigure(ViewKind::kDecay, m, DefaultViews(m), {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_NE(f.value().legend[0].label.find("seeded at random"), std::string::npos)
      << f.value().legend[0].label;
}

// Layers of an opened model overlay as --compare layer:N. Gemma 3's layer 0 is local RoPE,
// theta 1e4, no scaling; with x = ones each pair (1, 1) turned by k theta_i gives 2 cos(k
// theta_i), so score(k) = (2 / sqrt(256)) sum_{i < 128} cos(k 10000^(-2i/256)).
TEST(DecayNorm, ModelLayersOverlayWithTheirOwnTreatment) {
  ModelParams m;
  m.model_name = "gemma-3-4b";
  m.model_layer = 5;  // global: theta 1e6, linear x8
  ASSERT_TRUE(OpenModel(m).ok());
  m.pe.max_len = 200;
  m.content.kind = ScoreContent::Kind::kOnes;
  ModelParams bad = m;
  bad.compare = "layer:999";
  const ViewSelection sel = DefaultViews(bad);
  Result<Figure> refused = BuildViewFigure(ViewKind::kDecay, bad, sel, {}, FigureFormat::kPng);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("layer:999"), std::string::npos) << refused.message();
  m.compare = "layer:0";
  const auto table = Table(ViewKind::kDecay, m);
  ASSERT_EQ(table.size(), 200u);
  ASSERT_EQ(table[0].size(), 3u) << "this layer and layer 0";
  for (size_t k = 0; k < table.size(); ++k) {
    double want = 0, global = 0;
    for (int i = 0; i < 128; ++i) {
      want += std::cos(static_cast<double>(k) * std::pow(10000.0, -2.0 * i / 256));
      global += std::cos(static_cast<double>(k) * std::pow(1e6, -2.0 * i / 256) / 8);
    }
    want *= 2.0 / 16, global *= 2.0 / 16;
    ASSERT_NEAR(table[k][2], want, 2e-6 * (1 + std::abs(want))) << k;
    ASSERT_NEAR(table[k][1], global, 2e-6 * (1 + std::abs(global))) << k;
  }
  Result<Figure> f = BuildViewFigure(ViewKind::kDecay, m, DefaultViews(m), {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f.value().legend[0].label.rfind("layer 5: ", 0), 0u) << f.value().legend[0].label;
  EXPECT_EQ(f.value().legend[1].label.rfind("layer 0: ", 0), 0u) << f.value().legend[1].label;
}

// ---- the score view's position part

// PE of the sinusoid (Vaswani et al. 2017, section 3.5): PE(p, 2i) = sin(p / 10000^(2i/d)),
// PE(p, 2i + 1) = cos(same).
double SinusoidPe(int64_t p, int64_t j, int64_t d) {
  const double w = std::pow(10000.0, -static_cast<double>(2 * (j / 2)) / static_cast<double>(d));
  return j % 2 == 0 ? std::sin(static_cast<double>(p) * w) : std::cos(static_cast<double>(p) * w);
}

void ExpectPositionPart(Scheme scheme) {
  SCOPED_TRACE(std::string(SchemeName(scheme)));
  ModelParams m;
  SetScheme(m, scheme);
  const int64_t d = 24, L = 20;
  m.pe.d_model = d;
  m.pe.max_len = L;
  m.score_part = ScorePart::kPosition;
  EncodingPtr e = MakeEncoding(m.pe).value();
  // x: the score's random content (attention_score.h), N(0, 1) from the seed's stream.
  std::vector<double> x(static_cast<size_t>(d));
  for (int64_t j = 0; j < d; ++j) {
    x[static_cast<size_t>(j)] = RandomNormal(ScoreContentStream(m.example.seed), j);
  }
  auto pe = [&](int64_t p, int64_t j) {
    return scheme == Scheme::kSinusoidal ? SinusoidPe(p, j, d)
                                         : e->ValueAt(j, static_cast<double>(p));
  };
  const double s = 1 / std::sqrt(static_cast<double>(d));
  auto naive = [&](int64_t q, int64_t k) {
    double full = 0, content = 0;
    for (int64_t j = 0; j < d; ++j) {
      const double xj = x[static_cast<size_t>(j)];
      full += (xj + pe(q, j)) * (xj + pe(k, j));
      content += xj * xj;
    }
    return (full - content) * s;
  };
  const auto table = Table(ViewKind::kScore, m);
  ASSERT_EQ(table.size(), static_cast<size_t>(L));
  for (int64_t q = 0; q < L; ++q) {
    for (int64_t k = 0; k < L; ++k) {
      const double want = naive(q, k);
      ASSERT_NEAR(table[static_cast<size_t>(q)][static_cast<size_t>(1 + k)], want,
                  1e-6 * (1 + std::abs(want)))
          << "q " << q << " k " << k;
    }
  }
  // The figure: one cell per texel at this size, the same numbers, and the legend says which.
  Result<Figure> f = BuildViewFigure(ViewKind::kScore, m, DefaultViews(m), {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f.value().title.rfind("Position part of ", 0), 0u) << f.value().title;
  bool named = false;
  for (const FigureLegendItem& item : f.value().legend) {
    named |= item.label.find("the three terms with") != std::string::npos;
  }
  EXPECT_TRUE(named);
  // Its colour range is the position part's, not x.x/sqrt(d)'s (about sqrt(24) ~ 4.9).
  double hi = 0;
  for (int64_t q = 0; q < L; ++q) {
    for (int64_t k = 0; k < L; ++k) hi = std::max(hi, std::abs(naive(q, k)));
  }
  ASSERT_TRUE(f.value().colorbar.has_value());
  // The figure subtracts two float32 rasters of about x.x s ~ 4.9: a few ulps of that.
  EXPECT_NEAR(f.value().colorbar->vmax, hi, 4 * 4.9 * 0x1p-24);
}

TEST(ScorePart, SinusoidalPositionPartIsTheThreeTermsWithPe) {
  ExpectPositionPart(Scheme::kSinusoidal);
}

TEST(ScorePart, LearnedPositionPartIsTheThreeTermsWithPe) {
  ExpectPositionPart(Scheme::kLearned);
}

// Rotary: the score minus the same q.k unrotated, which is 0 where m = n (R_m^T R_m = I).
TEST(ScorePart, RopePositionPartVanishesOnTheDiagonal) {
  ModelParams m;
  SetScheme(m, Scheme::kRope);
  m.pe.d_model = 16;
  m.pe.max_len = 12;
  m.score_part = ScorePart::kPosition;
  const auto table = Table(ViewKind::kScore, m);
  for (size_t q = 0; q < table.size(); ++q) EXPECT_NEAR(table[q][1 + q], 0.0, 1e-6) << q;
  EXPECT_GT(std::abs(table[5][1]), 1e-3);
}

}  // namespace
}  // namespace pe
