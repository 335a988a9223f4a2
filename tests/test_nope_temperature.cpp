// NoPE (no positional encoding) and Llama 4's attention temperature: tau against values worked
// in numpy from the reference formula, the NoPE score against the content score, the tempered
// score views against q . k computed here, and the fields' refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/attention_score.h"
#include "encoding/encoding.h"
#include "model/choice_names.h"
#include "model/param_fields.h"

namespace pe {
namespace {

// tau(p) = 1 + 0.1 ln(floor((p + 1) / 8192) + 1): meta-llama/llama-models
// models/llama4/model.py Attention.forward (seq_positions = arange(start_pos, ...), 0-based),
// HF transformers models/llama4/modeling_llama4.py Llama4TextAttention.forward (cache_position).
// Golden values from numpy (float64):
//   1 + 0.1 * np.log(np.floor((np.float64(p) + 1) / 8192) + 1)
TEST(AttentionTemperature, Llama4MatchesTheReferenceFormula) {
  AttentionTemperature t;
  t.kind = TemperatureKind::kLlama4;
  struct Golden {
    int64_t p;
    double tau;
  };
  const Golden golden[] = {
      {0, 1.0},
      {8190, 1.0},
      {8191, 1.0693147180559945},
      {16382, 1.0693147180559945},
      {16383, 1.109861228866811},
      {131071, 1.2833213344056216},
      {1048575, 1.4859812404361672},
      {2147483647, 2.2476653064769003},
  };
  for (const Golden& g : golden) {
    EXPECT_NEAR(TemperatureAt(t, g.p), g.tau, 1e-15) << "p " << g.p;
  }
  // Every position below 8191 is 1 exactly.
  for (int64_t p = 0; p <= 8190; p += 13) EXPECT_EQ(TemperatureAt(t, p), 1.0) << p;
  // None: 1 everywhere.
  EXPECT_EQ(TemperatureAt(AttentionTemperature{}, 1048575), 1.0);
  // Other numbers: scale 0.5, floor 10: tau(29) = 1 + 0.5 ln(4).
  t.scale = 0.5;
  t.floor = 10;
  EXPECT_NEAR(TemperatureAt(t, 29), 1.6931471805599454, 1e-15);
  EXPECT_EQ(TemperatureAt(t, 8), 1.0);
}

std::vector<double> Content(int64_t d, double phase) {
  std::vector<double> x(static_cast<size_t>(d));
  for (int64_t j = 0; j < d; ++j) x[static_cast<size_t>(j)] = std::sin(0.7 * j + phase);
  return x;
}

double ContentScore(const std::vector<double>& q, const std::vector<double>& k) {
  double acc = 0;
  for (size_t j = 0; j < q.size(); ++j) acc += q[j] * k[j];
  return acc / std::sqrt(static_cast<double>(q.size()));
}

// NoPE adds nothing: every cell of the score is the content's q . k / sqrt(d), at every m, n.
TEST(Nope, ScoreEqualsTheContentScoreCellForCell) {
  EncodingParams p;
  p.scheme = NopeParams{};
  p.d_model = 16;
  p.max_len = 40;
  p.offset = 5;
  Result<EncodingPtr> e = MakeEncoding(p);
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_EQ(e.value()->family(), Family::kAdded);
  const std::vector<double> xq = Content(16, 0.1), xk = Content(16, 1.3);
  const double content = ContentScore(xq, xk);
  Result<AttentionScorer> s = AttentionScorer::Make(e.value(), xq, xk, false);
  ASSERT_TRUE(s.ok());
  std::vector<double> row(40);
  for (int64_t m = 5; m < 45; ++m) {
    ScoreRow(s.value(), m, 5, 40, row.data());
    for (int64_t i = 0; i < 40; ++i) {
      ASSERT_NEAR(row[static_cast<size_t>(i)], content, 1e-12) << m << " " << i;
      ASSERT_NEAR(s.value().Score(m, 5 + i), content, 1e-12);
    }
  }
  // The raster at texel resolution too (block means).
  ScoreRasterRequest req{5, 45, 5, 45, 7, 9, true};
  const ScoreRaster r = ComputeScoreRaster(s.value(), req);
  ASSERT_FALSE(r.empty());
  for (float v : r.values) EXPECT_NEAR(v, content, 1e-5);
  // The table is all zeros.
  Result<Matrix> table = ComputeTable(*e.value());
  ASSERT_TRUE(table.ok());
  for (float v : table.value().data) ASSERT_EQ(v, 0.0f);
  EXPECT_NE(ScoreDefinition(*e.value(), ScoreContent{}).find("no position"), std::string::npos);
}

// The tempered score: tau(m) q_m . k_n / sqrt(d), the bias untouched, on every path (cells,
// rows, rasters over runs of tau).
TEST(AttentionTemperature, ScoresScaleTheQueryByTau) {
  AttentionTemperature t;
  t.kind = TemperatureKind::kLlama4;
  t.floor = 4;  // steps every 4 positions: tau(2) = 1, tau(3) = 1 + 0.1 ln 2
  EncodingParams p;
  p.scheme = NopeParams{};
  p.d_model = 8;
  p.max_len = 64;
  Result<EncodingPtr> e = MakeEncoding(p);
  ASSERT_TRUE(e.ok());
  const std::vector<double> x = Content(8, 0.4);
  const double content = ContentScore(x, x);
  Result<AttentionScorer> s = AttentionScorer::Make(e.value(), x, x, false, t);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s.value().tempered());
  EXPECT_NEAR(s.value().Score(2, 0), content, 1e-12);
  EXPECT_NEAR(s.value().Score(3, 0), content * (1 + 0.1 * std::log(2.0)), 1e-12);
  EXPECT_NEAR(s.value().Score(63, 9), content * (1 + 0.1 * std::log(17.0)), 1e-12);
  // A texel row of queries [0, 64): the mean of tau over it times the content.
  double mean_tau = 0;
  for (int64_t m = 0; m < 64; ++m) mean_tau += TemperatureAt(t, m) / 64;
  const ScoreRaster r = ComputeScoreRaster(s.value(), {0, 64, 0, 64, 1, 1, true});
  ASSERT_EQ(r.values.size(), 1u);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.values[0], content * mean_tau, 1e-5);

  // RoPE with a temperature: tau(m) times the untempered score.
  EncodingParams rp;
  rp.scheme = RopeParams{};
  rp.d_model = 8;
  rp.max_len = 64;
  Result<EncodingPtr> re = MakeEncoding(rp);
  ASSERT_TRUE(re.ok());
  Result<AttentionScorer> plain = AttentionScorer::Make(re.value(), x, x, false);
  Result<AttentionScorer> hot = AttentionScorer::Make(re.value(), x, x, false, t);
  ASSERT_TRUE(plain.ok() && hot.ok());
  std::vector<double> a(64), b(64);
  for (int64_t m : {0, 3, 17, 63}) {
    ScoreRow(plain.value(), m, 0, 64, a.data());
    ScoreRow(hot.value(), m, 0, 64, b.data());
    for (size_t i = 0; i < 64; ++i) ASSERT_NEAR(b[i], TemperatureAt(t, m) * a[i], 1e-12);
  }
  // ALiBi: the bias is not scaled.
  EncodingParams ap;
  ap.scheme = AlibiParams{};
  ap.d_model = 8;
  ap.max_len = 64;
  Result<EncodingPtr> ae = MakeEncoding(ap);
  ASSERT_TRUE(ae.ok());
  Result<AttentionScorer> as = AttentionScorer::Make(ae.value(), x, x, false, t);
  ASSERT_TRUE(as.ok());
  EXPECT_NEAR(as.value().Score(40, 10), TemperatureAt(t, 40) * content + ae.value()->Bias(40, 10),
              1e-12);
}

// The mean of score(m, n) over the texel's cells, cell by cell: Score computes each cell from
// its own query (tau(m) included) and key, the path the texel means do not take.
double NaiveTexelMean(const AttentionScorer& s, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  long double acc = 0;
  for (int64_t m = m0; m < m1; ++m) {
    for (int64_t n = n0; n < n1; ++n) acc += s.Score(m, n);
  }
  return static_cast<double>(acc / static_cast<long double>((m1 - m0) * (n1 - n0)));
}

// Texels whose rows span many steps of tau (a step every 3 or 2.5 positions, some 50 to 200 in
// a row) are the exact mean of their cells, for an added scheme, RoPE, a bias and xPos: each
// texel against the cell-by-cell mean.
TEST(AttentionTemperature, TexelsAreTheExactMeanOfTheirCellsOverManySteps) {
  struct Case {
    const char* name;
    EncodingParams params;
    int64_t d;
    int width, height;  // texels
  };
  std::vector<Case> cases;
  auto shape = [](EncodingParams p, int64_t d) {
    p.d_model = d;
    p.max_len = 600;
    p.offset = 7;
    return p;
  };
  EncodingParams sin;
  sin.scheme = SinusoidalParams{};
  cases.push_back({"sinusoidal", shape(sin, 8), 8, 5, 3});
  EncodingParams rope;
  rope.scheme = RopeParams{};
  cases.push_back({"rope", shape(rope, 8), 8, 4, 3});
  RopeParams yarn;
  yarn.scaling = RopeScaling::kYarn;
  yarn.factor = 4;
  yarn.original_max_len = 64;
  yarn.rotary_fraction = 0.5;  // dims past d_rot pass through
  rope.scheme = yarn;
  cases.push_back({"rope yarn partial", shape(rope, 12), 12, 3, 4});
  EncodingParams alibi;
  AlibiParams ap;
  ap.mode = AlibiMode::kSymmetric;
  alibi.scheme = ap;
  cases.push_back({"alibi symmetric", shape(alibi, 8), 8, 6, 3});
  EncodingParams xpos;
  xpos.scheme = XposParams{};
  // xPos: its waves along every key and offset (more than 2^16 texel values for that path).
  cases.push_back({"xpos", shape(xpos, 32), 32, 48, 44});
  for (double floor : {3.0, 2.5}) {
    AttentionTemperature t;
    t.kind = TemperatureKind::kLlama4;
    t.scale = 0.3;
    t.floor = floor;
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + " floor " + std::to_string(floor));
      Result<EncodingPtr> e = MakeEncoding(c.params);
      ASSERT_TRUE(e.ok()) << e.message();
      Result<AttentionScorer> s =
          AttentionScorer::Make(e.value(), Content(c.d, 0.2), Content(c.d, 1.1), false, t);
      ASSERT_TRUE(s.ok());
      ASSERT_TRUE(s.value().tempered());
      const ScoreRasterRequest req{7, 607, 7, 607, c.width, c.height, true};
      ASSERT_TRUE(CheckScoreRaster(s.value(), req).ok());
      const ScoreRaster r = ComputeScoreRaster(s.value(), req);
      ASSERT_EQ(r.width, c.width);
      ASSERT_EQ(r.height, c.height);
      EXPECT_TRUE(r.exact);
      // Each texel row spans 600 / height queries: more than 64 steps of tau for some.
      EXPECT_GT(TemperatureAt(t, r.query_edges[1] - 1) - TemperatureAt(t, r.query_edges[0]), 0.0);
      double largest = 0;
      for (float v : r.values) largest = std::max(largest, std::abs(static_cast<double>(v)));
      for (int y = 0; y < r.height; ++y) {
        for (int x = 0; x < r.width; ++x) {
          const double naive = NaiveTexelMean(s.value(), r.query_edges[static_cast<size_t>(y)],
                                              r.query_edges[static_cast<size_t>(y) + 1],
                                              r.key_edges[static_cast<size_t>(x)],
                                              r.key_edges[static_cast<size_t>(x) + 1]);
          // float32 rounding of the texel, relative to the raster's largest value.
          ASSERT_NEAR(r.values[static_cast<size_t>(y) * r.width + x], naive, 2e-6 * largest)
              << "texel " << x << ", " << y;
        }
      }
    }
  }
}

// Past the frame's work the tempered raster is refused, naming --temperature-floor, the rule
// and the floor it would take; a coarser floor or fewer queries pass.
TEST(AttentionTemperature, RasterRefusedPastTheFramesRuns) {
  EncodingParams p;
  p.scheme = RopeParams{};
  p.d_model = 64;
  p.max_len = 10000000;
  Result<EncodingPtr> e = MakeEncoding(p);
  ASSERT_TRUE(e.ok());
  AttentionTemperature t;
  t.kind = TemperatureKind::kLlama4;
  t.floor = 3;
  Result<AttentionScorer> s =
      AttentionScorer::Make(e.value(), Content(64, 0.2), Content(64, 1.1), false, t);
  ASSERT_TRUE(s.ok());
  const ScoreRasterRequest whole{0, 1e7, 0, 1e7, 800, 500, true};
  const Status st = CheckScoreRaster(s.value(), whole);
  ASSERT_FALSE(st.ok());
  // 10^7 / 3 steps less the 500 rows' first: 3333334 - 500 = 3332834 more runs than rows
  // (floor((m + 1) / 3) over each row); 2^23 / 64 = 131072 fit; 10^7 / 131072 = 76.3 -> 77.
  EXPECT_NE(st.message().find("--temperature-floor 3:"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("at most 131072"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("at least 77 "), std::string::npos) << st.message();
  // The floor it names passes; so does a window of fewer queries at floor 3.
  t.floor = 77;
  Result<AttentionScorer> coarse =
      AttentionScorer::Make(e.value(), Content(64, 0.2), Content(64, 1.1), false, t);
  ASSERT_TRUE(coarse.ok());
  EXPECT_TRUE(CheckScoreRaster(coarse.value(), whole).ok());
  EXPECT_TRUE(CheckScoreRaster(s.value(), {0, 1e7, 0, 3e5, 800, 500, true}).ok());
  // Untempered, or a scheme whose texels are sampled (no closed form): nothing to refuse.
  Result<AttentionScorer> plain =
      AttentionScorer::Make(e.value(), Content(64, 0.2), Content(64, 1.1), false);
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(CheckScoreRaster(plain.value(), whole).ok());
}

TEST(AttentionTemperature, FieldsRefuseBadValues) {
  ModelParams m;
  const ParamField* kind = FindParamField("--attention-temperature");
  const ParamField* scale = FindParamField("--temperature-scale");
  const ParamField* floor = FindParamField("--temperature-floor");
  ASSERT_TRUE(kind && scale && floor);
  ASSERT_TRUE(kind->set(m, "llama4").ok());
  EXPECT_EQ(m.temperature.kind, TemperatureKind::kLlama4);
  Status st = kind->set(m, "llama3");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("--attention-temperature"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("llama4"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("llama3"), std::string::npos) << st.message();
  for (const char* bad : {"nan", "inf", "-inf", "x"}) {
    st = scale->set(m, bad);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("--temperature-scale"), std::string::npos) << st.message();
  }
  ASSERT_TRUE(scale->set(m, "-0.5").ok());
  for (const char* bad : {"0.5", "0", "-3", "nan", "inf"}) {
    st = floor->set(m, bad);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find(">= 1"), std::string::npos) << st.message();
  }
  ASSERT_TRUE(floor->set(m, "1").ok());
  EXPECT_EQ(m.temperature.floor, 1.0);
  // Recorded only when a temperature is chosen: default figures keep their metadata.
  ModelParams d;
  for (const auto& [k, v] : ParamValues(d)) {
    EXPECT_EQ(k.find("temperature"), std::string::npos) << k;
  }
  bool recorded = false;
  for (const auto& [k, v] : ParamValues(m)) recorded |= k == "temperature_floor" && v == "1";
  EXPECT_TRUE(recorded);
}

TEST(Nope, SchemeNameParsesAndSetsNoParameters) {
  ModelParams m;
  ASSERT_TRUE(FindParamField("--scheme")->set(m, "none").ok());
  EXPECT_EQ(m.pe.kind(), Scheme::kNope);
  EXPECT_EQ(SchemeName(Scheme::kNope), "none");
  Status st = FindParamField("--scheme")->set(m, "nope");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("none"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace pe
