// The attention score of every family against its definition computed naively here, the
// screen-resolution raster against the cells it covers, the softmax row and RoFormer's bound.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <sstream>

#include "analysis/attention_row.h"
#include "analysis/attention_score.h"
#include "base/random.h"
#include "encoding/rope.h"
#include "model/embedding.h"
#include "model/param_fields.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

ModelParams Params(Scheme scheme, int64_t d, int64_t max_len, int64_t offset = 0) {
  ModelParams m;
  m.pe.d_model = d;
  m.pe.max_len = max_len;
  m.pe.offset = offset;
  switch (scheme) {
    case Scheme::kRope:
      m.pe.scheme = RopeParams{};
      break;
    case Scheme::kLearned:
      m.pe.scheme = LearnedParams{};
      break;
    case Scheme::kXpos:
      m.pe.scheme = XposParams{};
      break;
    default:
      m.pe.scheme = SinusoidalParams{};
      break;
  }
  return m;
}

AttentionScorer MakeScorer(const ModelParams& m) {
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  EXPECT_TRUE(e.ok()) << e.message();
  Result<AttentionScorer> s = AttentionScorer::Make(m, e.value());
  EXPECT_TRUE(s.ok()) << s.message();
  return std::move(s).value();
}

// The paper's table, from its formula: PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos.
double PaperPe(int64_t p, int64_t j, int64_t d) {
  const double w = std::pow(10000.0, -2.0 * static_cast<double>(j / 2) / static_cast<double>(d));
  return j % 2 == 0 ? std::sin(static_cast<double>(p) * w) : std::cos(static_cast<double>(p) * w);
}

std::vector<double> RandomContent(uint64_t seed, int64_t d) {
  std::vector<double> x(static_cast<size_t>(d));
  for (int64_t j = 0; j < d; ++j) {
    x[static_cast<size_t>(j)] = RandomNormal(ScoreContentStream(seed), static_cast<uint64_t>(j));
  }
  return x;
}

// A bias-family scheme built on the interface alone: -slope |m - n| (a symmetric ALiBi head).
class LinearBias final : public Encoding {
 public:
  explicit LinearBias(EncodingParams p, double slope) : Encoding(std::move(p)), slope_(slope) {}
  Family family() const override { return Family::kBias; }
  std::string TableName() const override { return "bias"; }
  ValueRange Range() const override { return {-1, 0}; }
  std::string Summary() const override { return "linear bias"; }
  std::string Title() const override { return "linear bias"; }
  std::string FileTag() const override { return "linear"; }
  double ValueAt(int64_t, double) const override { return 0.0; }
  void FillBlock(int64_t, int64_t rows, int64_t, int64_t cols, float* out) const override {
    std::fill(out, out + rows * cols, 0.0f);
  }
  std::string DescribeCell(int64_t, int64_t) const override { return ""; }
  double Bias(int64_t m, int64_t n) const override {
    return -slope_ * static_cast<double>(std::abs(m - n));
  }

 private:
  double slope_;
};

TEST(AttentionScore, RoformerBoundMatchesThePaperFigure) {
  EXPECT_NEAR(RoformerDecayBound(128, 10000.0, 0), 32.5, 1e-12);
  EXPECT_NEAR(RoformerDecayBound(128, 10000.0, 10), 17.954, 1e-3);
  EXPECT_NEAR(RoformerDecayBound(128, 10000.0, 50), 12.629, 1e-3);
  EXPECT_NEAR(RoformerDecayBound(128, 10000.0, 100), 10.227, 1e-3);
  EXPECT_NEAR(RoformerDecayBound(128, 10000.0, 250), 6.548, 1e-3);
}

// The bound over a list of frequencies is the paper's for theta^(-2k/d), and the view's table
// takes the model's scaled frequencies (YaRN's differ from the paper's).
TEST(AttentionScore, RoformerBoundTakesTheScaledFrequencies) {
  std::vector<double> paper;
  for (int k = 0; k < 64; ++k) paper.push_back(std::pow(10000.0, -2.0 * k / 128.0));
  for (double r : {0.0, 10.0, 250.0}) {
    EXPECT_NEAR(RoformerDecayBound(paper, r), RoformerDecayBound(128, 10000.0, r), 1e-12);
  }
  ModelParams m = Params(Scheme::kRope, 128, 400);
  RopeParams rope;
  rope.scaling = RopeScaling::kYarn;
  rope.factor = 8;
  rope.original_max_len = 64;
  m.pe.scheme = rope;
  std::vector<double> scaled;
  for (const RopePair& p : ComputeRopeFrequencies(m.pe).pairs) scaled.push_back(p.scaled);
  const EncodingPtr e = MakeEncoding(m.pe).value();
  std::ostringstream out;
  ASSERT_TRUE(
      GetView(ViewKind::kRoformerDecay)
          .write_table(out, TableFormat::kCsv, {m, e, DefaultViews(m), {}, FigureFormat::kPng}, {})
          .ok());
  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);  // header
  for (int r = 0; r <= 300 && std::getline(in, line); ++r) {
    const double got = std::stod(line.substr(line.find(',') + 1));
    ASSERT_NEAR(got, RoformerDecayBound(scaled, r), 1e-6 * (1 + got)) << "r " << r;
    if (r == 300) {
      EXPECT_GT(std::abs(got - RoformerDecayBound(paper, r)), 1e-3);
    }
  }
  // The figure names the scaling with what it depends on, in its title and legend.
  Result<Figure> f =
      GetView(ViewKind::kRoformerDecay).figure({m, e, DefaultViews(m), {}, FigureFormat::kPng});
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_NE(f.value().title.find("yarn x8 (original 64)"), std::string::npos) << f.value().title;
  bool legend_names_it = false;
  for (const FigureLegendItem& item : f.value().legend) {
    legend_names_it =
        legend_names_it || item.label.find("(yarn x8 (original 64))") != std::string::npos;
  }
  EXPECT_TRUE(legend_names_it);
}

TEST(AttentionScore, SinusoidalIsTheSumOfContentAndPositionDotted) {
  ModelParams m = Params(Scheme::kSinusoidal, 32, 200, -40);
  m.example.seed = 7;
  const AttentionScorer s = MakeScorer(m);
  const std::vector<double> x = RandomContent(7, 32);
  EXPECT_EQ(s.x_query(), x);
  EXPECT_EQ(s.x_key(), x);
  for (int64_t mq : {-40, -3, 0, 17, 159}) {
    for (int64_t nk : {-40, -39, 5, 100, 159}) {
      double naive = 0.0;
      for (int64_t j = 0; j < 32; ++j) {
        naive += (x[static_cast<size_t>(j)] + PaperPe(mq, j, 32)) *
                 (x[static_cast<size_t>(j)] + PaperPe(nk, j, 32));
      }
      naive /= std::sqrt(32.0);
      EXPECT_NEAR(s.Score(mq, nk), naive, 1e-12 * (1 + std::abs(naive))) << mq << " " << nk;
    }
  }
  // Not a function of m - n alone (only PE_m . PE_n is): x . PE_m and x . PE_n are not.
  EXPECT_GT(std::abs(s.Score(10, 0) - s.Score(110, 100)), 1e-3);
  EXPECT_EQ(ScoreDefinition(s.encoding(), m.content),
            "score(m, n) = (x + PE_m)\xc2\xb7(x + PE_n) / \xe2\x88\x9a"
            "d");
}

TEST(AttentionScore, RopeDependsOnTheDistanceOnly) {
  ModelParams m = Params(Scheme::kRope, 64, 5000);
  const AttentionScorer s = MakeScorer(m);
  for (int64_t mq : {0, 3, 250, 1000}) {
    for (int64_t nk : {0, 1, 77, 999}) {
      for (int64_t k : {1, 13, 2000, 3999}) {
        const double a = s.Score(mq, nk), b = s.Score(mq + k, nk + k);
        EXPECT_NEAR(a, b, 1e-10 * (1 + std::abs(a))) << mq << " " << nk << " " << k;
      }
    }
  }
  // At distance 0 the rotation cancels: x . x / sqrt(d).
  const std::vector<double>& x = s.x_query();
  const double xx = std::inner_product(x.begin(), x.end(), x.begin(), 0.0) / 8.0;
  EXPECT_NEAR(s.Score(1234, 1234), xx, 1e-10 * xx);
  EXPECT_EQ(ScoreDefinition(s.encoding(), m.content),
            "score(m, n) = (R_m x)\xc2\xb7(R_n x) / \xe2\x88\x9a"
            "d");
}

// xPos's definition on screen names its decay, not only the rotation (torchscale's XPOS scales
// the query by zeta^(m / scale_base) and the key by zeta^(-n / scale_base)).
TEST(AttentionScore, XposDefinitionNamesTheDecay) {
  ModelParams m = Params(Scheme::kRope, 8, 16);
  SetScheme(m, Scheme::kXpos);
  const std::string def = ScoreDefinition(MakeScorer(m).encoding(), m.content);
  EXPECT_NE(def.find("\xce\xb6^(m/s) R_m x"), std::string::npos) << def;
  EXPECT_NE(def.find("\xce\xb6^(\xe2\x88\x92n/s) R_n x"), std::string::npos) << def;
  EXPECT_NE(def.find("s = scale_base"), std::string::npos) << def;
}

TEST(AttentionScore, OnesAndTokensContent) {
  ModelParams m = Params(Scheme::kSinusoidal, 16, 50);
  m.content.kind = ScoreContent::Kind::kOnes;
  AttentionScorer s = MakeScorer(m);
  EXPECT_EQ(s.x_query(), std::vector<double>(16, 1.0));
  double naive = 0.0;
  for (int64_t j = 0; j < 16; ++j) naive += (1 + PaperPe(3, j, 16)) * (1 + PaperPe(9, j, 16));
  EXPECT_NEAR(s.Score(3, 9), naive / 4.0, 1e-12 * std::abs(naive));

  // "The cat sits on the mat": ids The=0 cat=1 sits=2 on=3 the=4 mat=5; A = "cat", B = "mat".
  m.content = {ScoreContent::Kind::kTokens, 1, 5};
  m.example.seed = 3;
  for (bool scale : {true, false}) {
    m.input.scale = scale;
    s = MakeScorer(m);
    const float k = scale ? 4.0f : 1.0f;
    for (int64_t j = 0; j < 16; ++j) {
      EXPECT_EQ(s.x_query()[static_cast<size_t>(j)], EmbeddingValue(3, 16, 1, j) * k);
      EXPECT_EQ(s.x_key()[static_cast<size_t>(j)], EmbeddingValue(3, 16, 5, j) * k);
    }
  }
  // Rotary schemes take token content too.
  ModelParams r = Params(Scheme::kRope, 16, 50);
  r.content = {ScoreContent::Kind::kTokens, 0, 2};
  EXPECT_TRUE(AttentionScorer::Make(r, MakeEncoding(r.pe).value()).ok());
  r.content = {ScoreContent::Kind::kTokens, 0, 6};
  Result<AttentionScorer> bad = AttentionScorer::Make(r, MakeEncoding(r.pe).value());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("token 6 is outside the sentence, which has 6 tokens (0 to 5)"),
            std::string::npos)
      << bad.message();
}

TEST(AttentionScore, CausalMaskHidesLaterKeys) {
  ModelParams m = Params(Scheme::kRope, 8, 20);
  m.causal_mask = true;
  const AttentionScorer s = MakeScorer(m);
  EXPECT_TRUE(std::isnan(s.Score(2, 5)));
  EXPECT_FALSE(std::isnan(s.Score(5, 2)));
  EXPECT_FALSE(std::isnan(s.Score(5, 5)));
  const ScoreRaster r = ComputeScoreRaster(s, {0, 20, 0, 20, 20, 20});
  ASSERT_EQ(r.width, 20);
  for (int y = 0; y < 20; ++y) {
    for (int x = 0; x < 20; ++x) {
      EXPECT_EQ(std::isnan(r.values[static_cast<size_t>(y * 20 + x)]), x > y);
    }
  }
}

// The mean of score over the block of cells a texel covers, naively (masked cells left out).
double NaiveMean(const AttentionScorer& s, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  double acc = 0.0;
  int64_t cells = 0;
  for (int64_t mq = m0; mq < m1; ++mq) {
    for (int64_t nk = n0; nk < n1; ++nk) {
      const double v = s.Score(mq, nk);
      if (std::isnan(v)) continue;
      acc += v;
      ++cells;
    }
  }
  return cells ? acc / static_cast<double>(cells) : NAN;
}

void ExpectRasterIsBlockMeans(const AttentionScorer& s, const ScoreRaster& r, double tol) {
  for (int y = 0; y < r.height; ++y) {
    for (int x = 0; x < r.width; ++x) {
      const double want = NaiveMean(
          s, r.query_edges[static_cast<size_t>(y)], r.query_edges[static_cast<size_t>(y) + 1],
          r.key_edges[static_cast<size_t>(x)], r.key_edges[static_cast<size_t>(x) + 1]);
      const float got = r.values[static_cast<size_t>(y * r.width + x)];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << y << " " << x;
      } else {
        EXPECT_NEAR(got, want, tol * (1 + std::abs(want))) << y << " " << x;
      }
    }
  }
}

TEST(AttentionScore, RasterTexelsAreTheMeansOfTheirCells) {
  // One cell per texel, then 4 x 4 and 3 x 5 cells per texel: exact for every family (the added
  // schemes through the table's column means, the others sample every position of a texel).
  for (Scheme scheme : {Scheme::kSinusoidal, Scheme::kLearned, Scheme::kRope}) {
    for (bool causal : {false, true}) {
      ModelParams m = Params(scheme, 16, 64, scheme == Scheme::kSinusoidal ? 5 : 0);
      m.causal_mask = causal;
      const AttentionScorer s = MakeScorer(m);
      const double first = static_cast<double>(m.pe.offset);
      for (auto [w, h] : {std::pair{64, 64}, std::pair{16, 16}, std::pair{13, 21}}) {
        const ScoreRaster r = ComputeScoreRaster(s, {first, first + 64, first, first + 64, w, h});
        ASSERT_EQ(r.width, w);
        ASSERT_EQ(r.height, h);
        EXPECT_TRUE(r.exact);
        EXPECT_EQ(r.one_cell_per_texel, w == 64);
        ExpectRasterIsBlockMeans(s, r, 1e-5);
      }
    }
  }
}

// Wide vectors over a window of one to two cells per texel, where no lattice fits: the texels
// come cell by cell from the score's waves (not a d-long dot product per texel), against the
// mean of q_m . k_n / sqrt(d) over each texel's cells from Query and Key.
TEST(AttentionScore, WideVectorsInAFewCellsPerTexel) {
  // xPos twice: its decay positions absolute and centred (the shift cancels in the score).
  for (int variant = 0; variant < 4; ++variant) {
    const Scheme scheme = variant == 0   ? Scheme::kSinusoidal
                          : variant == 1 ? Scheme::kRope
                                         : Scheme::kXpos;
    for (int64_t d : {1024, 1023}) {
      if (scheme != Scheme::kSinusoidal && d % 2 != 0) continue;
      ModelParams m = Params(scheme, d, 300);
      if (variant == 3) std::get<XposParams>(m.pe.scheme).positions = XposPositions::kCentred;
      const AttentionScorer s = MakeScorer(m);
      std::vector<double> q(static_cast<size_t>(300 * d)), k(q.size());
      for (int64_t p = 0; p < 300; ++p) {
        s.Query(p, q.data() + p * d);
        s.Key(p, k.data() + p * d);
      }
      for (const ScoreRasterRequest req : {ScoreRasterRequest{0, 300, 0, 300, 200, 150},
                                           ScoreRasterRequest{0, 300, 50, 250, 300, 200}}) {
        const ScoreRaster r = ComputeScoreRaster(s, req);
        ASSERT_FALSE(r.empty());
        EXPECT_TRUE(r.exact);
        for (int y = 0; y < r.height; ++y) {
          for (int x = 0; x < r.width; ++x) {
            double sum = 0;
            int cells = 0;
            for (int64_t mq = r.query_edges[y]; mq < r.query_edges[y + 1]; ++mq) {
              for (int64_t n = r.key_edges[x]; n < r.key_edges[x + 1]; ++n, ++cells) {
                sum += s.Dot(q.data() + mq * d, k.data() + n * d);
              }
            }
            const double want = sum / cells;
            ASSERT_NEAR(r.values[static_cast<size_t>(y) * r.width + x], want,
                        1e-5 * (1 + std::abs(want)))
                << "variant " << variant << " d " << d << " texel " << x << "," << y;
          }
        }
      }
    }
  }
}

// Zoomed out on a large raster the texels sit on a lattice and come from the score's waves
// (analysis/offset_texels.h). Against the mean over every cell, from Score itself: RoPE's score
// depends on n - m alone (tested above), so each offset's score is computed once, naively.
TEST(AttentionScore, LatticeRasterIsTheMeanOfEveryCell) {
  struct Case {
    RopePairing pairing;
    RopeScaling scaling;
    double fraction;
  };
  for (const Case& c : {Case{RopePairing::kHalf, RopeScaling::kNone, 1.0},
                        Case{RopePairing::kInterleaved, RopeScaling::kYarn, 1.0},
                        Case{RopePairing::kHalf, RopeScaling::kLinear, 0.5}}) {
    EncodingParams p;
    p.d_model = 64;
    p.max_len = 2048;
    RopeParams rope;
    rope.pairing = c.pairing;
    rope.scaling = c.scaling;
    rope.factor = 4;
    rope.original_max_len = 512;
    rope.rotary_fraction = c.fraction;
    p.scheme = rope;
    const EncodingPtr e = MakeEncoding(p).value();
    const AttentionScorer s =
        AttentionScorer::Make(e, RandomContent(1, 64), RandomContent(2, 64), false).value();
    // 1000 keys x 900 queries in 500 x 450 pixels: two cells a side per texel.
    const int64_t k0 = 1000, k1 = 2000, q0 = 100, q1 = 1000;
    const ScoreRaster r = ComputeScoreRaster(s, {1000, 2000, 100, 1000, 500, 450});
    ASSERT_EQ(r.width, 500);
    ASSERT_EQ(r.height, 450);
    EXPECT_TRUE(r.exact);
    std::vector<double> g(static_cast<size_t>(k1 - q0));  // score at n - m in (k0 - q1, k1 - q0)
    const int64_t off0 = k0 - (q1 - 1);
    for (int64_t k = off0; k < k1 - q0; ++k) g[static_cast<size_t>(k - off0)] = s.Score(q1, q1 + k);
    for (int y = 0; y < r.height; ++y) {
      for (int x = 0; x < r.width; ++x) {
        double sum = 0;
        int cells = 0;
        for (int64_t m = r.query_edges[y]; m < r.query_edges[y + 1]; ++m) {
          for (int64_t n = r.key_edges[x]; n < r.key_edges[x + 1]; ++n) {
            sum += g[static_cast<size_t>(n - m - off0)];
            ++cells;
          }
        }
        ASSERT_NEAR(r.values[static_cast<size_t>(y) * r.width + x], sum / cells,
                    1e-5 * (1 + std::abs(sum / cells)))
            << "pairing " << static_cast<int>(c.pairing) << " texel " << x << "," << y;
      }
    }
  }
}

// The added schemes at a billion positions: each texel against the exact column means of its
// queries and keys (closed forms, a separate path), dotted.
TEST(AttentionScore, LatticeRasterAtABillionMatchesTheMeanVectors) {
  for (PeVariant variant : {PeVariant::kPaper, PeVariant::kT2t}) {
    for (int64_t d : {64, 63}) {  // odd d: the paper's unpaired column, a wave of n + m
      EncodingParams p;
      p.d_model = d;
      p.max_len = 1'000'000'000;
      SinusoidalParams sp;
      sp.variant = variant;
      p.scheme = sp;
      const EncodingPtr e = MakeEncoding(p).value();
      const AttentionScorer s =
          AttentionScorer::Make(e, RandomContent(3, d), RandomContent(4, d), false).value();
      // The whole table; a million positions, where the unpaired column's wave of n + m is
      // large; a window near the end.
      for (const ScoreRasterRequest& req :
           {ScoreRasterRequest{0, 1e9, 0, 1e9, 800, 500},
            ScoreRasterRequest{0, 1e6, 0, 1e6, 800, 500},
            ScoreRasterRequest{999e6, 1e9, 998e6, 999.5e6, 640, 480}}) {
        const ScoreRaster r = ComputeScoreRaster(s, req);
        ASSERT_GE(r.width, 0.9 * req.width_px);
        ASSERT_GE(r.height, 0.9 * req.height_px);
        EXPECT_TRUE(r.exact);
        std::vector<double> mq(static_cast<size_t>(d)), mk(static_cast<size_t>(d));
        for (int y : {0, 1, r.height / 3, r.height - 1}) {
          for (int x : {0, 2, r.width / 2, r.width - 1}) {
            ASSERT_TRUE(s.MeanQuery(r.query_edges[y], r.query_edges[y + 1] - r.query_edges[y], 8,
                                    mq.data()));
            ASSERT_TRUE(
                s.MeanKey(r.key_edges[x], r.key_edges[x + 1] - r.key_edges[x], 8, mk.data()));
            const double want = s.Dot(mq.data(), mk.data());
            EXPECT_NEAR(r.values[static_cast<size_t>(y) * r.width + x], want,
                        1e-6 * (1 + std::abs(want)))
                << "d " << d << " texel " << x << "," << y;
          }
        }
      }
    }
  }
}

// ALiBi and T5 in the score view: texels from the bias's closed-form block means, exact over
// the unmasked cells (causal ALiBi's own mask, and a causal mask asked for on top of it).
TEST(AttentionScore, BiasTexelsAreExactMeansOfTheUnmaskedCells) {
  for (int k = 0; k < 4; ++k) {
    EncodingParams p;
    p.d_model = 16;
    p.max_len = 200;
    p.offset = 3;
    if (k < 3) {
      AlibiParams a;
      a.mode = k == 0 ? AlibiMode::kCausal : AlibiMode::kSymmetric;
      a.head = 2;
      p.scheme = a;
    } else {
      T5Params t;
      t.head = 1;
      p.scheme = t;
    }
    const EncodingPtr e = MakeEncoding(p).value();
    const AttentionScorer s =
        AttentionScorer::Make(e, RandomContent(5, 16), RandomContent(6, 16), k == 2).value();
    for (auto [w, h] : {std::pair{40, 40}, std::pair{13, 21}, std::pair{7, 50}}) {
      const ScoreRaster r = ComputeScoreRaster(s, {3, 203, 3, 203, w, h});
      ASSERT_EQ(r.width, w);
      ASSERT_EQ(r.height, h);
      // A causal mask asked for over a symmetric ALiBi is not the scheme's own: sampled, and
      // the 8 x 8 grid covers blocks of at most 8 cells a side exactly.
      EXPECT_TRUE(r.exact || (k == 2 && (w < 25 || h < 25))) << k;
      if (r.exact) ExpectRasterIsBlockMeans(s, r, 1e-6);
    }
    // At a billion positions every texel is still exact.
    p.max_len = 1'000'000'000;
    const AttentionScorer big = AttentionScorer::Make(MakeEncoding(p).value(), RandomContent(5, 16),
                                                      RandomContent(6, 16), false)
                                    .value();
    EXPECT_TRUE(ComputeScoreRaster(big, {0, 1e9, 0, 1e9, 800, 500}).exact);
  }
}

TEST(AttentionScore, BiasSchemesThroughTheInterface) {
  EncodingParams p;
  p.d_model = 8;
  p.max_len = 40;
  auto e = std::make_shared<const LinearBias>(p, 0.25);
  const std::vector<double> x = RandomContent(0, 8);
  Result<AttentionScorer> made = AttentionScorer::Make(e, x, x, false);
  ASSERT_TRUE(made.ok()) << made.message();
  const AttentionScorer& s = made.value();
  const double xx = std::inner_product(x.begin(), x.end(), x.begin(), 0.0) / std::sqrt(8.0);
  EXPECT_NEAR(s.Score(10, 4), xx - 1.5, 1e-12);
  EXPECT_EQ(ScoreDefinition(*e, ScoreContent{}),
            "score(m, n) = x\xc2\xb7x / \xe2\x88\x9a"
            "d + bias(m, n)");
  // 5 x 5 cells per texel: the grid covers them all, so the bias mean is exact.
  const ScoreRaster r = ComputeScoreRaster(s, {0, 40, 0, 40, 8, 8});
  EXPECT_TRUE(r.exact);
  ExpectRasterIsBlockMeans(s, r, 1e-6);
  // Rows of a bias that depends on m - n only differ by a constant where the keys do: the softmax
  // of row m + k over keys shifted by k is the softmax of row m.
  std::vector<double> a(10), b(10);
  ScoreRow(s, 20, 5, 10, a.data());
  ScoreRow(s, 27, 12, 10, b.data());
  const std::vector<double> wa = SoftmaxRow(a), wb = SoftmaxRow(b);
  for (size_t i = 0; i < wa.size(); ++i) EXPECT_NEAR(wa[i], wb[i], 1e-12);
}

TEST(AttentionScore, LargeTablesCostTheirTexels) {
  ModelParams m = Params(Scheme::kRope, 64, 1'000'000'000);
  m.causal_mask = true;
  const AttentionScorer s = MakeScorer(m);
  const ScoreRaster r = ComputeScoreRaster(s, {0, 1e9, 0, 1e9, 300, 200});
  ASSERT_EQ(r.width, 300);
  ASSERT_EQ(r.height, 200);
  // The diagonal's texels span millions of offsets: exact from closed forms per texel shape
  // (analysis/masked_texels.h, VisibleWaveSum).
  EXPECT_TRUE(r.exact);
  EXPECT_TRUE(std::isnan(r.values[299]));  // top right: every key after every query
  EXPECT_FALSE(std::isnan(r.values[199 * 300]));
  // Panned far in: one cell per texel, the exact scores.
  const ScoreRaster z = ComputeScoreRaster(s, {999'999'900, 1e9, 999'999'900, 1e9, 100, 100});
  ASSERT_TRUE(z.one_cell_per_texel);
  EXPECT_NEAR(z.values[99 * 100 + 3], s.Score(999'999'999, 999'999'903), 1e-4);
}

TEST(AttentionScore, SoftmaxRowsSumToOneAndIgnoreShifts) {
  const std::vector<double> row = {0.5, -2.0, 3.25, NAN, 1.0, 700.0};
  const std::vector<double> w = SoftmaxRow(row);
  EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 1.0, 1e-12);
  EXPECT_EQ(w[3], 0.0);
  for (double c : {-1000.0, -3.5, 0.0, 42.0}) {
    std::vector<double> shifted = row;
    for (double& v : shifted) v += c;
    const std::vector<double> ws = SoftmaxRow(shifted);
    for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(ws[i], w[i], 1e-12) << c;
  }
  const std::vector<double> small = SoftmaxRow(std::vector<double>{0.0, std::log(3.0)});
  EXPECT_NEAR(small[0], 0.25, 1e-15);
  EXPECT_NEAR(small[1], 0.75, 1e-15);
  const std::vector<double> none = SoftmaxRow(std::vector<double>{NAN, NAN});
  EXPECT_EQ(none, (std::vector<double>{0.0, 0.0}));
  // A real score row (RoPE, causal) sums to 1 over the unmasked keys.
  ModelParams m = Params(Scheme::kRope, 32, 100);
  m.causal_mask = true;
  const AttentionScorer s = MakeScorer(m);
  std::vector<double> r(100);
  ScoreRow(s, 60, 0, 100, r.data());
  const std::vector<double> wr = SoftmaxRow(r);
  EXPECT_NEAR(std::accumulate(wr.begin(), wr.end(), 0.0), 1.0, 1e-12);
  EXPECT_EQ(wr[61], 0.0);
}

// xPos zoomed out: every texel the mean of all its cells (its unmasked ones under a causal
// mask), from the waves along the window's offsets. The naive mean takes each offset's score
// from Score once (xPos's score depends on n - m alone: checked on cells spread over the table).
TEST(AttentionScore, XposRasterIsTheMeanOfEveryCell) {
  for (bool causal : {false, true}) {
    ModelParams m = Params(Scheme::kXpos, 64, 3000);
    std::get<XposParams>(m.pe.scheme).positions = XposPositions::kCentred;
    m.causal_mask = causal;
    const AttentionScorer s = MakeScorer(m);
    const int64_t L = 3000;
    std::vector<double> g(static_cast<size_t>(2 * L - 1));  // g[k + L - 1] at offset k = n - m
    ModelParams open = m;
    open.causal_mask = false;
    const AttentionScorer unmasked = MakeScorer(open);
    for (int64_t k = -(L - 1); k < L; ++k) {
      const int64_t q = std::max<int64_t>(0, -k);
      g[static_cast<size_t>(k + L - 1)] = unmasked.Score(q, q + k);
    }
    for (int64_t q : {7, 1500, 2999}) {
      for (int64_t n : {0, 11, 2000, 2999}) {
        const double want = g[static_cast<size_t>(n - q + L - 1)];
        EXPECT_NEAR(unmasked.Score(q, n), want, 1e-9 * (1 + std::abs(want)));
      }
    }
    const ScoreRaster r = ComputeScoreRaster(s, {0, 3000, 0, 3000, 100, 80});
    ASSERT_EQ(r.width, 100);
    ASSERT_EQ(r.height, 80);
    EXPECT_TRUE(r.exact);
    for (int y = 0; y < r.height; ++y) {
      for (int x = 0; x < r.width; ++x) {
        double sum = 0;
        int64_t cells = 0;
        for (int64_t q = r.query_edges[y]; q < r.query_edges[y + 1]; ++q) {
          for (int64_t n = r.key_edges[x]; n < r.key_edges[x + 1]; ++n) {
            if (causal && n > q) continue;
            sum += g[static_cast<size_t>(n - q + L - 1)];
            ++cells;
          }
        }
        const float got = r.values[static_cast<size_t>(y) * r.width + x];
        if (cells == 0) {
          EXPECT_TRUE(std::isnan(got)) << x << "," << y;
          continue;
        }
        const double want = sum / static_cast<double>(cells);
        ASSERT_NEAR(got, want, 1e-6 * (1 + std::abs(want)))
            << "causal " << causal << " texel " << x << "," << y;
      }
    }
  }
}

// A long row of wide vectors (the attention view at d 1024 over 5000 keys) comes from the
// score's waves; each key's score against Score's own dot product of the rotated vectors.
TEST(AttentionScore, LongRowsOfWideVectorsAreEachCellsScore) {
  for (Scheme scheme : {Scheme::kSinusoidal, Scheme::kRope, Scheme::kXpos}) {
    for (bool causal : {false, true}) {
      ModelParams m = Params(scheme, 1024, 5000);
      m.causal_mask = causal;
      const AttentionScorer s = MakeScorer(m);
      std::vector<double> r(5000);
      ScoreRow(s, 1234, 0, 5000, r.data());
      for (int64_t n = 0; n < 5000; n += 7) {
        const double want = s.Score(1234, n);
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(r[static_cast<size_t>(n)])) << "key " << n;
          continue;
        }
        ASSERT_NEAR(r[static_cast<size_t>(n)], want, 1e-9 * (1 + std::abs(want)))
            << static_cast<int>(scheme) << " causal " << causal << " key " << n;
      }
      EXPECT_EQ(std::isnan(r[1235]), causal);
    }
  }
}

TEST(AttentionScore, DecayFixesTheKeyAtTheFirstPosition) {
  ModelParams m = Params(Scheme::kSinusoidal, 16, 30, 4);
  const AttentionScorer s = MakeScorer(m);
  const std::vector<int64_t> dist = {0, 1, 29, 30};
  const std::vector<double> v = DecayCurve(s, dist);
  EXPECT_DOUBLE_EQ(v[0], s.Score(4, 4));
  EXPECT_DOUBLE_EQ(v[1], s.Score(5, 4));
  EXPECT_DOUBLE_EQ(v[2], s.Score(33, 4));
  EXPECT_TRUE(std::isnan(v[3]));  // past the table
}

// The score view's softmax note and the attention view's top keys name the same key when the
// largest weight is shared: T5's buckets give many keys one bias, and the tie goes to the key
// nearest the query (then the lower key) in both.
TEST(AttentionScore, ScoreAndAttentionViewsBreakTopKeyTiesAlike) {
  ModelParams m = Params(Scheme::kSinusoidal, 128, 100);  // the window's default shape
  SetScheme(m, Scheme::kT5);
  const ViewSelection sel = DefaultViews(m);
  auto legend_number = [](const Figure& f, const std::string& before) -> int64_t {
    for (const FigureLegendItem& item : f.legend) {
      const size_t at = item.label.find(before);
      if (at != std::string::npos) return std::stoll(item.label.substr(at + before.size()));
    }
    return -1;
  };
  Result<Figure> score = BuildViewFigure(ViewKind::kScore, m, sel, {}, FigureFormat::kPng);
  Result<Figure> attention = BuildViewFigure(ViewKind::kAttention, m, sel, {}, FigureFormat::kPng);
  ASSERT_TRUE(score.ok()) << score.message();
  ASSERT_TRUE(attention.ok()) << attention.message();
  const int64_t from_score = legend_number(score.value(), ": top key ");
  const int64_t from_attention = legend_number(attention.value(), "top keys: ");
  EXPECT_GE(from_score, 0);
  EXPECT_EQ(from_score, from_attention);
  // The weight is shared: the note says by how many keys.
  bool tied = false;
  for (const FigureLegendItem& item : score.value().legend) {
    if (item.label.find("(tied with ") != std::string::npos) tied = true;
  }
  EXPECT_TRUE(tied);
}

TEST(AttentionScore, ViewsBuildAndWrite) {
  ModelParams m = Params(Scheme::kRope, 32, 48);
  m.compare = "sinusoidal,learned";
  const ViewSelection sel = DefaultViews(m);
  for (ViewKind v : {ViewKind::kScore, ViewKind::kDecay, ViewKind::kRoformerDecay}) {
    Result<Figure> f = BuildViewFigure(v, m, sel, {}, FigureFormat::kPng);
    ASSERT_TRUE(f.ok()) << ViewName(v) << ": " << f.message();
  }
  Result<Figure> score = BuildViewFigure(ViewKind::kScore, m, sel, {}, FigureFormat::kPng);
  ASSERT_TRUE(score.value().image.has_value());
  Result<Figure> decay = BuildViewFigure(ViewKind::kDecay, m, sel, {}, FigureFormat::kPng);
  EXPECT_EQ(decay.value().series.size(), 3u);
  // The score table over the memory cap is refused before anything is written.
  m.pe.max_len = 100000;
  m.cap.bytes = 64 << 20;
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  const ViewContext c{m, e.value(), sel, {}, FigureFormat::kPng};
  const Status s = GetView(ViewKind::kScore).check_table(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("score table"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

// Causal ALiBi hides the keys after the query by itself (a model adds -inf there): the score
// says so without --causal, and the keys before the query carry the bias -m (m - n).
TEST(AttentionScore, CausalAlibiMasksLaterKeysWithoutBeingAsked) {
  ModelParams m;
  SetScheme(m, Scheme::kAlibi);
  m.pe.d_model = 16;
  m.pe.max_len = 20;
  m.content.kind = ScoreContent::Kind::kOnes;
  EncodingPtr e = MakeEncoding(m.pe).value();
  Result<AttentionScorer> s = AttentionScorer::Make(m, e);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(std::isnan(s.value().Score(5, 6)));
  // ones . ones / sqrt(16) = 4, and head 0 of 8 has slope 2^-1.
  EXPECT_DOUBLE_EQ(s.value().Score(7, 3), 4.0 - 0.5 * 4);
  m.pe.alibi().mode = AlibiMode::kSymmetric;
  e = MakeEncoding(m.pe).value();
  s = AttentionScorer::Make(m, e);
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(s.value().Score(5, 6), 4.0 - 0.5 * 1);
}

}  // namespace
}  // namespace pe

// ---- the attention view: one query's softmax over every key -------------------------------------

namespace pe {
namespace {

// A scheme with its defaults at this shape (ALiBi's mode and T5's direction chosen).
ModelParams RowParams(Scheme scheme, int64_t d, int64_t max_len, int64_t offset, int variant) {
  ModelParams m;
  SetScheme(m, scheme);
  m.pe.d_model = d;
  m.pe.max_len = max_len;
  m.pe.offset = offset;
  if (scheme == Scheme::kAlibi) {
    m.pe.alibi().mode = variant == 0 ? AlibiMode::kCausal : AlibiMode::kSymmetric;
  }
  if (scheme == Scheme::kT5) {
    m.pe.t5().direction = variant == 0 ? T5Direction::kBidirectional : T5Direction::kCausal;
  }
  return m;
}

// The softmax of row m written out naively over every key: score(m, n) one by one, the maximum
// subtracted, exponentials summed in long double (masked keys, NaN scores, weigh 0).
struct NaiveRow {
  std::vector<long double> w;  // (L)
  long double entropy = 0;
};
NaiveRow NaiveSoftmax(const AttentionScorer& s, int64_t m) {
  const Encoding& e = s.encoding();
  const int64_t L = e.rows(), first = e.first_position();
  std::vector<double> score(static_cast<size_t>(L));
  long double hi = -INFINITY;
  for (int64_t i = 0; i < L; ++i) {
    score[static_cast<size_t>(i)] = s.Score(m, first + i);
    if (!std::isnan(score[static_cast<size_t>(i)]))
      hi = std::max<long double>(hi, score[static_cast<size_t>(i)]);
  }
  NaiveRow r;
  r.w.assign(static_cast<size_t>(L), 0.0L);
  long double z = 0;
  for (int64_t i = 0; i < L; ++i) {
    if (std::isnan(score[static_cast<size_t>(i)])) continue;
    r.w[static_cast<size_t>(i)] =
        std::exp(static_cast<long double>(score[static_cast<size_t>(i)]) - hi);
    z += r.w[static_cast<size_t>(i)];
  }
  for (long double& v : r.w) {
    v /= z;
    if (v > 0) r.entropy -= v * std::log(v);
  }
  return r;
}

TEST(AttentionRow, EverySchemeMatchesANaiveLongDoubleSoftmaxAndSumsToOne) {
  // T5 at L = 300 with max distance 128 has runs of one bucket up to 299 keys long, ALiBi's
  // sides are whole geometric series: the closed forms are checked where they sum many keys.
  // ALiBi's heads: slope 1/2 (the tails weigh nothing), 2^-8 (s L about 1: the truncated
  // series matters) and 2^-40 (a nearly flat row: the small-s expansion of the mean).
  struct Head {
    int64_t heads, head;
    double max_bias;
  };
  for (Scheme scheme : kAllSchemeKinds) {
    for (int variant : {0, 1}) {
      for (Head h : {Head{8, 0, 8.0}, Head{8, 7, 8.0}, Head{1, 0, 40.0}}) {
        if (scheme != Scheme::kAlibi && h.head != 0) continue;
        if (scheme != Scheme::kAlibi && h.heads == 1) continue;
        for (bool causal : {false, true}) {
          ModelParams m = RowParams(scheme, 16, 300, 5, variant);
          m.causal_mask = causal;
          if (scheme == Scheme::kAlibi) {
            m.pe.alibi().heads = h.heads;
            m.pe.alibi().head = h.head;
            m.pe.alibi().max_bias = h.max_bias;
          }
          const AttentionScorer s = MakeScorer(m);
          for (int64_t q : {int64_t{5}, int64_t{150}, int64_t{304}}) {
            SCOPED_TRACE(std::string(SchemeName(scheme)) + " variant " + std::to_string(variant) +
                         " head " + std::to_string(h.head) + "/" + std::to_string(h.heads) +
                         (causal ? " causal" : "") + " query " + std::to_string(q));
            Result<AttentionRow> row = AttentionRow::Make(s, q);
            ASSERT_TRUE(row.ok()) << row.message();
            EXPECT_EQ(row.value().closed_form(), scheme == Scheme::kAlibi || scheme == Scheme::kT5);
            const NaiveRow naive = NaiveSoftmax(s, q);
            long double sum = 0;
            for (int64_t i = 0; i < 300; ++i) {
              const double w = row.value().Weight(5 + i);
              sum += w;
              EXPECT_NEAR(w, static_cast<double>(naive.w[static_cast<size_t>(i)]),
                          1e-12 + 1e-10 * w)
                  << "key " << 5 + i;
            }
            EXPECT_NEAR(static_cast<double>(sum), 1.0, 1e-12);
            EXPECT_NEAR(row.value().entropy(), static_cast<double>(naive.entropy), 1e-9);
            // The top keys are the naive row's largest weights.
            const std::vector<int64_t> top = row.value().TopKeys(5);
            ASSERT_EQ(top.size(),
                      std::min<size_t>(5, static_cast<size_t>(row.value().unmasked_keys())));
            std::vector<long double> sorted = naive.w;
            std::sort(sorted.begin(), sorted.end(), std::greater<>());
            for (size_t k = 0; k < top.size(); ++k) {
              EXPECT_NEAR(static_cast<double>(naive.w[static_cast<size_t>(top[k] - 5)]),
                          static_cast<double>(sorted[k]), 1e-12)
                  << "top key " << k;
            }
            // The causal mask asked for (or causal ALiBi) leaves every later key at 0.
            if (s.causal()) {
              for (int64_t n = q + 1; n < 305; ++n) EXPECT_EQ(row.value().Weight(n), 0.0) << n;
              EXPECT_EQ(row.value().unmasked_keys(), q - 5 + 1);
            }
          }
        }
      }
    }
  }
}

// A window leaves each query one run of keys; the rows without a closed form score only that
// run. Every weight, the entropy, the top keys and the count of keys seen against the naive
// softmax over every key of the table (Score: NaN where the window hides the key).
TEST(AttentionRow, WindowedRowsMatchTheNaiveSoftmaxOverEveryKey) {
  for (Scheme scheme : {Scheme::kSinusoidal, Scheme::kRope, Scheme::kXpos, Scheme::kLearned}) {
    for (const char* text : {"sliding:7", "sliding-bidirectional:9", "chunked:16", "causal"}) {
      Result<AttentionWindow> window = ParseAttentionWindow(text);
      ASSERT_TRUE(window.ok());
      ModelParams m = RowParams(scheme, 16, 120, 5, 0);
      if (window.value().kind == AttentionWindowKind::kCausal) {
        m.causal_mask = true;
      } else {
        m.attention_window = window.value();
      }
      const AttentionScorer s = MakeScorer(m);
      for (int64_t q : {int64_t{5}, int64_t{6}, int64_t{40}, int64_t{124}}) {
        SCOPED_TRACE(std::string(SchemeName(scheme)) + " " + text + " query " + std::to_string(q));
        Result<AttentionRow> row = AttentionRow::Make(s, q);
        ASSERT_TRUE(row.ok()) << row.message();
        ASSERT_FALSE(row.value().closed_form());
        const NaiveRow naive = NaiveSoftmax(s, q);
        int64_t seen = 0;
        for (int64_t i = 0; i < 120; ++i) {
          const double w = row.value().Weight(5 + i);
          seen += std::isnan(s.Score(q, 5 + i)) ? 0 : 1;
          EXPECT_EQ(std::isnan(row.value().Score(5 + i)), std::isnan(s.Score(q, 5 + i)));
          ASSERT_NEAR(w, static_cast<double>(naive.w[static_cast<size_t>(i)]), 1e-12 + 1e-10 * w)
              << "key " << 5 + i;
        }
        EXPECT_EQ(row.value().unmasked_keys(), seen);
        EXPECT_NEAR(row.value().entropy(), static_cast<double>(naive.entropy), 1e-9);
        std::vector<long double> sorted = naive.w;
        std::sort(sorted.begin(), sorted.end(), std::greater<>());
        const std::vector<int64_t> top = row.value().TopKeys(3);
        ASSERT_EQ(top.size(), std::min<size_t>(3, static_cast<size_t>(seen)));
        for (size_t k = 0; k < top.size(); ++k) {
          EXPECT_NEAR(static_cast<double>(naive.w[static_cast<size_t>(top[k] - 5)]),
                      static_cast<double>(sorted[k]), 1e-12);
        }
        // The largest weight over ranges that straddle the run's ends.
        for (int64_t a : {int64_t{0}, int64_t{30}, int64_t{38}, int64_t{100}}) {
          long double best = 0;
          for (int64_t n = std::max<int64_t>(a, 5); n < std::min<int64_t>(a + 10, 125); ++n) {
            best = std::max(best, naive.w[static_cast<size_t>(n - 5)]);
          }
          EXPECT_NEAR(row.value().MaxWeightIn(a, a + 10), static_cast<double>(best), 1e-12);
        }
      }
    }
  }
}

// A sliding window of 64 keys at max_len 1e9 (no closed form for RoPE): the row holds the
// query's 64 keys, weighs them against a naive softmax over those keys, and gives every other
// key 0. A window wider than kMaxEnumeratedKeys keys is refused naming it and the count.
TEST(AttentionRow, SlidingWindowRowsWorkAtABillionKeys) {
  ModelParams m = RowParams(Scheme::kRope, 16, 1'000'000'000, 0, 0);
  m.attention_window = {AttentionWindowKind::kSliding, 64};
  const AttentionScorer s = MakeScorer(m);
  for (int64_t q : {int64_t{999'999'999}, int64_t{500'000'000}, int64_t{10}}) {
    SCOPED_TRACE(q);
    ASSERT_TRUE(CheckAttentionRow(s.encoding(), q, m.attention_window).ok());
    Result<AttentionRow> row = AttentionRow::Make(s, q);
    ASSERT_TRUE(row.ok()) << row.message();
    const int64_t lo = std::max<int64_t>(0, q - 63);
    EXPECT_EQ(row.value().unmasked_keys(), q - lo + 1);
    std::vector<long double> w;
    long double hi = -INFINITY, z = 0, entropy = 0;
    for (int64_t n = lo; n <= q; ++n) hi = std::max<long double>(hi, s.Score(q, n));
    for (int64_t n = lo; n <= q; ++n) {
      w.push_back(std::exp(static_cast<long double>(s.Score(q, n)) - hi));
      z += w.back();
    }
    for (size_t i = 0; i < w.size(); ++i) {
      const long double v = w[i] / z;
      entropy -= v * std::log(v);
      EXPECT_NEAR(row.value().Weight(lo + static_cast<int64_t>(i)), static_cast<double>(v), 1e-12);
    }
    EXPECT_NEAR(row.value().entropy(), static_cast<double>(entropy), 1e-9);
    EXPECT_EQ(row.value().Weight(lo - 1), 0.0);
    EXPECT_EQ(row.value().Weight(q + 1), 0.0);
    EXPECT_EQ(
        row.value().Weight(0) + row.value().Weight(999'999'999),
        (lo == 0 ? row.value().Weight(0) : 0.0) + (q == 999'999'999 ? row.value().Weight(q) : 0.0));
  }
  // 2^20 + 1 keys seen: refused, naming the window, the keys and the cap.
  const AttentionWindow wide{AttentionWindowKind::kSliding, kMaxEnumeratedKeys + 1};
  const Status st = CheckAttentionRow(s.encoding(), 999'999'999, wide);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("--attention-window sliding:1048577"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("1048577 keys"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("at most 1048576"), std::string::npos) << st.message();
  // The same window near the start sees fewer keys: allowed.
  EXPECT_TRUE(CheckAttentionRow(s.encoding(), 1000, wide).ok());
  // No window: the whole table, refused as before (naming --max-len).
  const Status full = CheckAttentionRow(s.encoding(), 10, AttentionWindow{});
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.message().find("--max-len"), std::string::npos) << full.message();
}

TEST(AttentionRow, AlibiWeightsDependOnlyOnTheDistance) {
  // After softmax an ALiBi row is a function of n - m alone: query M of a table and query
  // M + k of the same table moved by k give the same weights key for key (same relative keys),
  // and deep inside a long table, where the edges weigh nothing, so do M and M + k of one table.
  for (int variant : {0, 1}) {
    ModelParams a = RowParams(Scheme::kAlibi, 8, 200, 0, variant);
    ModelParams b = RowParams(Scheme::kAlibi, 8, 200, 37, variant);
    a.pe.alibi().head = b.pe.alibi().head = 5;  // slope 2^-5: hundreds of keys carry weight
    Result<AttentionRow> ra = AttentionRow::Make(MakeScorer(a), 120);
    Result<AttentionRow> rb = AttentionRow::Make(MakeScorer(b), 157);
    ASSERT_TRUE(ra.ok() && rb.ok());
    for (int64_t r = -120; r < 80; ++r) {
      EXPECT_NEAR(ra.value().Weight(120 + r), rb.value().Weight(157 + r),
                  1e-15 + 1e-12 * ra.value().Weight(120 + r))
          << "distance " << r;
    }
    ModelParams big = RowParams(Scheme::kAlibi, 8, 1'000'000'000, 0, variant);
    const AttentionScorer s = MakeScorer(big);
    Result<AttentionRow> r1 = AttentionRow::Make(s, 500'000'000);
    Result<AttentionRow> r2 = AttentionRow::Make(s, 500'012'345);
    ASSERT_TRUE(r1.ok() && r2.ok());
    for (int64_t r = -60; r <= 60; ++r) {
      EXPECT_NEAR(r1.value().Weight(500'000'000 + r), r2.value().Weight(500'012'345 + r),
                  1e-15 + 1e-12 * r1.value().Weight(500'000'000 + r));
    }
    EXPECT_NEAR(r1.value().entropy(), r2.value().entropy(), 1e-12);
  }
}

TEST(AttentionRow, ClosedFormsHoldAtABillionKeys) {
  // Symmetric ALiBi, slope s = 1/2, query in the middle of 1e9 keys: the two sides are geometric
  // series whose tails weigh nothing, so Z = 1 + 2 r / (1 - r) = coth(s / 2) (r = e^-s) and the
  // query's own weight is tanh(s / 2); the weight at distance k is tanh(s / 2) e^{-s k}.
  ModelParams m = RowParams(Scheme::kAlibi, 8, 1'000'000'000, 0, 1);
  const AttentionScorer s = MakeScorer(m);
  Result<AttentionRow> row = AttentionRow::Make(s, 500'000'000);
  ASSERT_TRUE(row.ok()) << row.message();
  const double w0 = std::tanh(0.25);
  EXPECT_NEAR(row.value().Weight(500'000'000), w0, 1e-15);
  EXPECT_NEAR(row.value().Weight(500'000'007), w0 * std::exp(-3.5), 1e-15);
  EXPECT_NEAR(row.value().Weight(499'999'990), w0 * std::exp(-5.0), 1e-15);
  // Entropy of the two-sided geometric law: log Z + s E|k|, E|k| = 2 r / ((1 - r)(1 + r)) =
  // 1 / sinh(s).
  EXPECT_NEAR(row.value().entropy(), std::log(1 / w0) + 0.5 / std::sinh(0.5), 1e-12);
  EXPECT_EQ(row.value().TopKeys(3), (std::vector<int64_t>{500'000'000, 499'999'999, 500'000'001}));
  // A nearly flat head (slope 2^-40: s L = 9e-4) spreads over all 1e9 keys: the entropy is
  // log L less the variance term s^2 Var(|k|) / 2 (about 3e-8 here).
  ModelParams flat = m;
  flat.pe.alibi().heads = 1;
  flat.pe.alibi().max_bias = 40;
  Result<AttentionRow> spread = AttentionRow::Make(MakeScorer(flat), 500'000'000);
  ASSERT_TRUE(spread.ok());
  EXPECT_NEAR(spread.value().entropy(), std::log(1e9), 1e-6);
  EXPECT_NEAR(spread.value().Weight(0) * 1e9, 1.0, 1e-3);
  EXPECT_GT(spread.value().Weight(500'000'000), spread.value().Weight(0));
}

TEST(AttentionRow, QueryDefaultsAndRefusals) {
  ModelParams m = RowParams(Scheme::kRope, 16, 100, 10, 0);
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(ResolveAttentionQuery(*e.value(), -1), 109);
  EXPECT_EQ(ResolveAttentionQuery(*e.value(), 42), 42);
  Status bad = CheckAttentionRow(*e.value(), 110);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("--query"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("10 to 109"), std::string::npos) << bad.message();
  // Without a closed form, a row longer than the cap is refused with the cap named.
  m.pe.max_len = kMaxEnumeratedKeys + 1;
  Result<EncodingPtr> big = MakeEncoding(m.pe, m.cap);
  ASSERT_TRUE(big.ok());
  Status long_row = CheckAttentionRow(*big.value(), 10);
  ASSERT_FALSE(long_row.ok());
  EXPECT_NE(long_row.message().find("--max-len"), std::string::npos) << long_row.message();
  EXPECT_NE(long_row.message().find(std::to_string(kMaxEnumeratedKeys)), std::string::npos);
  // The flag: -1 and positions, nothing below -1.
  const ParamField* field = FindParamField("--query");
  ASSERT_NE(field, nullptr);
  EXPECT_EQ(field->key, std::string("query"));
  ModelParams p;
  EXPECT_TRUE(field->set(p, "-1").ok());
  EXPECT_TRUE(field->set(p, "7").ok());
  EXPECT_EQ(p.query, 7);
  EXPECT_FALSE(field->set(p, "-2").ok());
}

TEST(AttentionRow, ViewWritesKeyScoreWeight) {
  ModelParams m = RowParams(Scheme::kAlibi, 8, 12, 3, 0);
  m.query = 9;
  const ViewSelection sel = DefaultViews(m);
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  const ViewContext c{m, e.value(), sel, {}, FigureFormat::kPng};
  std::ostringstream csv;
  ASSERT_TRUE(GetView(ViewKind::kAttention).write_table(csv, TableFormat::kCsv, c, {}).ok());
  std::istringstream in(csv.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "key,score,weight");
  const AttentionScorer s = MakeScorer(m);
  const NaiveRow naive = NaiveSoftmax(s, 9);
  int rows = 0;
  while (std::getline(in, line)) {
    const int64_t n = std::stoll(line.substr(0, line.find(',')));
    EXPECT_EQ(n, 3 + rows);
    const std::string rest = line.substr(line.find(',') + 1);
    const std::string score = rest.substr(0, rest.find(','));
    const double weight = std::stod(rest.substr(rest.find(',') + 1));
    EXPECT_NEAR(weight, static_cast<double>(naive.w[static_cast<size_t>(rows)]), 1e-7);
    EXPECT_EQ(score.empty(), n > 9) << line;  // causal ALiBi: later keys have no score
    ++rows;
  }
  EXPECT_EQ(rows, 12);
  std::ostringstream npy;
  ASSERT_TRUE(GetView(ViewKind::kAttention).write_table(npy, TableFormat::kNpy, c, {}).ok());
  EXPECT_NE(npy.str().find("'shape': (12,)"), std::string::npos);
  EXPECT_EQ(npy.str().size() % 16, 12 * 4 % 16);  // 64-byte-aligned header, then 12 floats
  Result<Figure> f = BuildViewFigure(ViewKind::kAttention, m, sel, {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  bool named_query = false;
  for (const FigureLegendItem& it : f.value().legend) {
    named_query = named_query || it.label.find("query m = 9") != std::string::npos;
  }
  EXPECT_TRUE(named_query);
}

}  // namespace
}  // namespace pe
