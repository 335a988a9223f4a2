// M-RoPE against HF transformers: the position ids of Qwen2-VL's get_rope_index worked by hand,
// the chunked (modeling_qwen2_vl.py, apply_multimodal_rotary_pos_emb) and interleaved
// (modeling_qwen3_vl.py, apply_interleaved_mrope) cos / sin tables against a numpy port of those
// functions (mrope_golden.inc). Then the properties: a text-only sequence is RoPE bit for bit,
// an image token's column is RoPE's at its axis's id, q . k depends only on the per-axis id
// differences, the column means agree with the fill, and bad input is refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/attention_score.h"
#include "base/matrix.h"
#include "encoding/encoding.h"
#include "encoding/mrope.h"
#include "model/param_fields.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

#include "mrope_golden.inc"

EncodingParams Params(int64_t d, int64_t max_len, std::vector<MropeImage> images,
                      std::array<int64_t, 3> section, MropeLayout layout = MropeLayout::kChunked,
                      RopePart part = RopePart::kCos) {
  EncodingParams p;
  p.d_model = d;
  p.max_len = max_len;
  MropeParams m;
  m.theta = 10000;
  m.section = section;
  m.layout = layout;
  m.images = std::move(images);
  m.part = part;
  p.scheme = m;
  return p;
}

EncodingPtr Make(const EncodingParams& p) {
  Result<EncodingPtr> e = MakeEncoding(p);
  EXPECT_TRUE(e.ok()) << e.message();
  return e.ok() ? e.value() : nullptr;
}

Matrix Table(const Encoding& e) {
  Result<Matrix> t = ComputeTable(e);
  EXPECT_TRUE(t.ok());
  return std::move(t).value();
}

// The golden sequence: text(3), image 1x2x2 at 3, text(2), image 2x2x3 at 9, text(3).
const std::vector<MropeImage> kGoldenImages = {{3, 1, 2, 2}, {9, 2, 2, 3}};

TEST(Mrope, PositionIdsOfTextImageTextWorkedByHand) {
  // get_rope_index: text 0, 1, 2; the image's t0 is the next id, 3, and its patches (0, b, c)
  // of the 2 x 2 grid take (3, 3 + b, 3 + c) in row-major order; the text after resumes at the
  // largest id + 1 = 3 + max(1, 2, 2) = 5.
  const MropeSequence seq(Params(16, 9, {{3, 1, 2, 2}}, {2, 3, 3}));
  const std::vector<MropeIds> want = {
      {{0, 0, 0}}, {{1, 1, 1}}, {{2, 2, 2}}, {{3, 3, 3}}, {{3, 3, 4}},
      {{3, 4, 3}}, {{3, 4, 4}}, {{5, 5, 5}}, {{6, 6, 6}},
  };
  for (int64_t k = 0; k < 9; ++k) {
    EXPECT_EQ(seq.Ids(k), want[static_cast<size_t>(k)]) << "token " << k;
    EXPECT_EQ(seq.ImageOf(k), k >= 3 && k < 7 ? 0 : -1) << "token " << k;
  }
}

TEST(Mrope, PositionIdsMatchGetRopeIndex) {
  // The id rows printed at the top of mrope_golden.inc (the numpy port of get_rope_index).
  const int64_t t[] = {0, 1, 2, 3, 3, 3, 3, 5, 6, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 10, 11, 12};
  const int64_t h[] = {0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 7, 7, 8, 8, 8, 7, 7, 7, 8, 8, 8, 10, 11, 12};
  const int64_t w[] = {0, 1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9, 10, 11, 12};
  // Given out of order: the sequence sorts them by their first token.
  const MropeSequence seq(Params(16, 24, {kGoldenImages[1], kGoldenImages[0]}, {2, 3, 3}));
  for (int64_t k = 0; k < 24; ++k) {
    EXPECT_EQ(seq.Ids(k), (MropeIds{{t[k], h[k], w[k]}})) << "token " << k;
  }
}

void ExpectTable(const Encoding& e, const float (&want)[24][16], const char* what) {
  const Matrix m = Table(e);
  ASSERT_EQ(m.rows, 24);
  ASSERT_EQ(m.cols, 16);
  for (int64_t r = 0; r < 24; ++r) {
    for (int64_t j = 0; j < 16; ++j) {
      EXPECT_EQ(m.at(r, j), want[r][j]) << what << " token " << r << " dim " << j;
    }
  }
}

TEST(Mrope, ChunkedTableMatchesQwen2Vl) {
  ExpectTable(*Make(Params(16, 24, kGoldenImages, {2, 3, 3})), kChunkedCos, "chunked cos");
  ExpectTable(
      *Make(Params(16, 24, kGoldenImages, {2, 3, 3}, MropeLayout::kChunked, RopePart::kSin)),
      kChunkedSin, "chunked sin");
}

TEST(Mrope, InterleavedTableMatchesQwen3Vl) {
  ExpectTable(*Make(Params(16, 24, kGoldenImages, {3, 3, 2}, MropeLayout::kInterleaved)),
              kInterleavedCos, "interleaved cos");
  ExpectTable(
      *Make(Params(16, 24, kGoldenImages, {3, 3, 2}, MropeLayout::kInterleaved, RopePart::kSin)),
      kInterleavedSin, "interleaved sin");
}

TEST(Mrope, AutoSectionsAreTheModelsProportions) {
  MropeParams m;
  EXPECT_EQ(MropeSection(m, 64), (std::array<int64_t, 3>{16, 24, 24}));  // Qwen2-VL
  EXPECT_EQ(MropeSection(m, 8), (std::array<int64_t, 3>{2, 3, 3}));
  EXPECT_EQ(MropeSection(m, 7), (std::array<int64_t, 3>{1, 3, 3}));
  m.layout = MropeLayout::kInterleaved;
  EXPECT_EQ(MropeSection(m, 64), (std::array<int64_t, 3>{24, 20, 20}));  // Qwen3-VL
  EXPECT_EQ(MropeSection(m, 8), (std::array<int64_t, 3>{4, 2, 2}));
  m.section = std::array<int64_t, 3>{1, 2, 3};
  EXPECT_EQ(MropeSection(m, 64), (std::array<int64_t, 3>{1, 2, 3}));  // given: kept
}

TEST(Mrope, PairAxesFollowHfsRules) {
  MropeParams m;  // chunked, auto: 16, 24, 24 for 64 pairs
  std::vector<MropeAxis> a = MropePairAxes(m, 64);
  for (int64_t i = 0; i < 64; ++i) {
    const MropeAxis want = i < 16 ? MropeAxis::kT : i < 40 ? MropeAxis::kH : MropeAxis::kW;
    EXPECT_EQ(a[static_cast<size_t>(i)], want) << "chunked pair " << i;
  }
  m.layout = MropeLayout::kInterleaved;
  m.section = std::array<int64_t, 3>{24, 20, 20};
  a = MropePairAxes(m, 64);
  int count[3] = {0, 0, 0};
  for (int64_t i = 0; i < 64; ++i) {
    const MropeAxis want = i < 60 && i % 3 == 1   ? MropeAxis::kH
                           : i < 60 && i % 3 == 2 ? MropeAxis::kW
                                                  : MropeAxis::kT;
    EXPECT_EQ(a[static_cast<size_t>(i)], want) << "interleaved pair " << i;
    ++count[static_cast<int>(a[static_cast<size_t>(i)])];
  }
  EXPECT_EQ(count[0], 24);  // pairs 0, 3, ..., 57 and 60..63
  EXPECT_EQ(count[1], 20);
  EXPECT_EQ(count[2], 20);
}

TEST(Mrope, TextOnlyIsRopeBitForBit) {
  for (RopePart part : {RopePart::kCos, RopePart::kSin, RopePart::kAngle}) {
    for (RopePairing pairing : {RopePairing::kHalf, RopePairing::kInterleaved}) {
      for (MropeLayout layout : {MropeLayout::kChunked, MropeLayout::kInterleaved}) {
        EncodingParams p = Params(64, 3000, {}, {8, 12, 12}, layout, part);
        p.offset = 7;
        p.mrope().pairing = pairing;
        p.mrope().theta = 1000000;
        EncodingParams r = p;
        RopeParams rp;
        rp.theta = 1000000;
        rp.pairing = pairing;
        rp.part = part;
        r.scheme = rp;
        const Matrix a = Table(*Make(p)), b = Table(*Make(r));
        ASSERT_EQ(a.data.size(), b.data.size());
        EXPECT_EQ(std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)), 0)
            << RopePartName(part) << " " << RopePairingName(pairing) << " "
            << MropeLayoutName(layout);
      }
    }
  }
}

TEST(Mrope, ImageColumnIsRopesColumnAtItsAxisId) {
  for (MropeLayout layout : {MropeLayout::kChunked, MropeLayout::kInterleaved}) {
    EncodingParams p = Params(32, 400, {{5, 2, 6, 4}, {100, 1, 15, 9}}, {4, 6, 6}, layout);
    p.offset = 3;
    const Matrix m = Table(*Make(p));
    EncodingParams r = p;
    r.scheme = RopeParams{};  // theta 10000, half pairing, cos
    const Matrix rope = Table(*Make(r));
    const MropeSequence seq(p);
    const std::vector<MropeAxis> axes = MropePairAxes(p.mrope(), 16);
    for (int64_t k = 0; k < 400; ++k) {
      const MropeIds ids = seq.Ids(k);
      for (int64_t j = 0; j < 32; ++j) {
        const int64_t id = ids[axes[static_cast<size_t>(j % 16)]];  // half pairing
        ASSERT_EQ(m.at(k, j), rope.at(id - p.offset, j)) << "token " << k << " dim " << j;
      }
    }
  }
}

// q_m . k_n with both rotated as a model does.
double Score(const Encoding& e, int64_t m, int64_t n, std::vector<double> q,
             std::vector<double> k) {
  e.RotateQuery(m, q.data());
  e.RotateKey(n, k.data());
  double s = 0;
  for (size_t i = 0; i < q.size(); ++i) s += q[i] * k[i];
  return s;
}

TEST(Mrope, ScoreDependsOnlyOnTheOffsetPerAxis) {
  // An image of 2 x 4 x 5 patches at token 10 (first id 10) in 100 tokens.
  const EncodingParams p = Params(32, 100, {{10, 2, 4, 5}}, {4, 6, 6});
  const EncodingPtr e = Make(p);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> n01;
  std::vector<double> q(32), k(32);
  for (double& v : q) v = n01(rng);
  for (double& v : k) v = n01(rng);
  auto token = [](int64_t t, int64_t h, int64_t w) { return 10 + t * 20 + h * 5 + w; };
  // (0, 0, 0) against (1, 2, 3) and (0, 1, 1) against (1, 3, 4): the same (1, 2, 3) apart.
  const double a = Score(*e, token(0, 0, 0), token(1, 2, 3), q, k);
  const double b = Score(*e, token(0, 1, 1), token(1, 3, 4), q, k);
  EXPECT_NEAR(a, b, 1e-12);
  // Text against text the same distance apart (all three ids 20 apart) after the image (tokens
  // 10 to 49).
  EXPECT_NEAR(Score(*e, 55, 75, q, k), Score(*e, 60, 80, q, k), 1e-12);
  // Another offset per axis, (1, 3, 2), gives another score: the check can fail.
  EXPECT_GT(std::abs(a - Score(*e, token(0, 0, 0), token(1, 3, 2), q, k)), 1e-3);
}

TEST(Mrope, ColumnMeansAgreeWithTheFill) {
  for (RopePart part : {RopePart::kCos, RopePart::kAngle}) {
    const EncodingParams p =
        Params(16, 300, {{3, 1, 2, 2}, {40, 3, 5, 7}}, {2, 3, 3}, MropeLayout::kInterleaved, part);
    const EncodingPtr e = Make(p);
    const Matrix m = Table(*e);
    std::vector<double> mean(static_cast<size_t>(m.cols));
    // From text before the images, and from inside the second image's grid row (token 45 is
    // its w = 5 of 7) to inside another (token 60: w = 6).
    for (const auto& [row0, rows] : {std::pair<int64_t, int64_t>{2, 250}, {45, 16}}) {
      e->MeanOverRows(row0, rows, 0, m.cols, mean.data());
      for (int64_t j = 0; j < m.cols; ++j) {
        double s = 0;
        for (int64_t r = row0; r < row0 + rows; ++r) s += m.at(r, j);
        const double want = s / static_cast<double>(rows);
        EXPECT_NEAR(mean[static_cast<size_t>(j)], want, 1e-6 * std::max(1.0, std::abs(want)))
            << RopePartName(part) << " column " << j << " rows from " << row0;
      }
    }
  }
}

TEST(Mrope, IdBoxesRunThroughTheIdsInTokenOrder) {
  // Three images of other grids; every range [a, a + n) cut anywhere, boxes expanded in token
  // order (text: the three ids step together; image: t slowest, w fastest) give Ids token by
  // token.
  const EncodingParams p =
      Params(16, 400, {{5, 2, 3, 4}, {40, 3, 5, 7}, {160, 1, 6, 2}}, {2, 3, 3});
  const MropeSequence seq(p);
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const auto a = static_cast<int64_t>(rng() % 400);
    const auto n = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(400 - a));
    int64_t token = a;
    for (const MropeSequence::IdBox& box : seq.IdBoxes(a, n)) {
      if (box.text) {
        EXPECT_EQ(box.count[0], box.count[1]);
        EXPECT_EQ(box.count[0], box.count[2]);
        for (int64_t k = 0; k < box.count[0]; ++k, ++token) {
          const int64_t id = box.first[0] + k;
          ASSERT_EQ(seq.Ids(token), (MropeIds{{id, id, id}})) << "token " << token;
        }
        continue;
      }
      for (int64_t t = 0; t < box.count[0]; ++t) {
        for (int64_t h = 0; h < box.count[1]; ++h) {
          for (int64_t w = 0; w < box.count[2]; ++w, ++token) {
            ASSERT_EQ(seq.Ids(token),
                      (MropeIds{{box.first[0] + t, box.first[1] + h, box.first[2] + w}}))
                << "token " << token << " in [" << a << ", " << a + n << ")";
          }
        }
      }
    }
    EXPECT_EQ(token, a + n);
  }
}

// The score raster of `e` over its whole table in `texels` x `texels` texels, and the naive
// mean of score(m, n) = s tau(m) (R_m x_q) . (R_n x_k) over each texel's cells, one cell at a
// time, the rotations from RotateQuery / RotateKey.
void ExpectExactTexels(const EncodingPtr& e, int texels, const AttentionTemperature& temperature,
                       const std::string& what) {
  const int64_t d = e->params().d_model, L = e->rows();
  std::mt19937_64 rng(3);
  std::normal_distribution<double> n01;
  std::vector<double> xq(static_cast<size_t>(d)), xk(static_cast<size_t>(d));
  for (double& v : xq) v = n01(rng);
  for (double& v : xk) v = n01(rng);
  Result<AttentionScorer> scorer =
      AttentionScorer::Make(e, xq, xk, AttentionWindow{}, 0, temperature);
  ASSERT_TRUE(scorer.ok()) << scorer.message();
  ScoreRasterRequest req;
  req.x0 = 0, req.x1 = static_cast<double>(L), req.y0 = 0, req.y1 = static_cast<double>(L);
  req.width_px = texels, req.height_px = texels;
  const ScoreRaster r = ComputeScoreRaster(scorer.value(), req);
  ASSERT_EQ(r.width, texels) << what;
  ASSERT_EQ(r.height, texels) << what;
  EXPECT_TRUE(r.exact) << what;
  // Every query and key rotated once.
  std::vector<std::vector<double>> q(static_cast<size_t>(L)), k(static_cast<size_t>(L));
  for (int64_t p = 0; p < L; ++p) {
    q[static_cast<size_t>(p)] = xq;
    e->RotateQuery(p, q[static_cast<size_t>(p)].data());
    const double tau = TemperatureAt(temperature, p);
    for (double& v : q[static_cast<size_t>(p)]) v *= tau;
    k[static_cast<size_t>(p)] = xk;
    e->RotateKey(p, k[static_cast<size_t>(p)].data());
  }
  double worst = 0;
  for (int y = 0; y < r.height; ++y) {
    for (int x = 0; x < r.width; ++x) {
      double sum = 0;
      int64_t cells = 0;
      for (int64_t m = r.query_edges[static_cast<size_t>(y)];
           m < r.query_edges[static_cast<size_t>(y) + 1]; ++m) {
        for (int64_t n = r.key_edges[static_cast<size_t>(x)];
             n < r.key_edges[static_cast<size_t>(x) + 1]; ++n, ++cells) {
          double dot = 0;
          for (int64_t j = 0; j < d; ++j) {
            dot += q[static_cast<size_t>(m)][static_cast<size_t>(j)] *
                   k[static_cast<size_t>(n)][static_cast<size_t>(j)];
          }
          sum += dot / std::sqrt(static_cast<double>(d));
        }
      }
      const double want = sum / static_cast<double>(cells);
      const double got =
          r.values[static_cast<size_t>(y) * static_cast<size_t>(r.width) + static_cast<size_t>(x)];
      worst = std::max(worst, std::abs(got - want) / std::max(1.0, std::abs(want)));
    }
  }
  // float32 rounding of each texel, and nothing more.
  EXPECT_LT(worst, 1e-6) << what << " at " << texels << " x " << texels << " texels";
}

TEST(Mrope, ScoreTexelsAreExactMeansOfTheirCells) {
  // 240 tokens: images of grids 2x3x4 at 5, 3x5x7 at 41 (105 tokens) and 1x6x2 at 170, so
  // texel edges (every 6, 16, 48, 120 tokens) cut them mid-row, mid-step and between steps.
  const std::vector<MropeImage> images = {{5, 2, 3, 4}, {41, 3, 5, 7}, {170, 1, 6, 2}};
  for (MropeLayout layout : {MropeLayout::kChunked, MropeLayout::kInterleaved}) {
    for (RopePairing pairing : {RopePairing::kHalf, RopePairing::kInterleaved}) {
      EncodingParams p = Params(24, 240, images, {4, 4, 4}, layout);
      p.mrope().pairing = pairing;
      const EncodingPtr e = Make(p);
      const std::string what = std::string(MropeLayoutName(layout)) + " layout, " +
                               std::string(RopePairingName(pairing)) + " pairing";
      for (int texels : {2, 5, 13, 40}) ExpectExactTexels(e, texels, {}, what);
    }
  }
  // With Llama 4's temperature (a step every 16 tokens): each run of one tau its exact mean.
  AttentionTemperature t;
  t.kind = TemperatureKind::kLlama4;
  t.floor = 16;
  const EncodingPtr e = Make(Params(24, 240, images, {4, 4, 4}, MropeLayout::kInterleaved));
  for (int texels : {3, 17}) ExpectExactTexels(e, texels, t, "tempered");
}

TEST(Mrope, TextOnlyScoreTexelsAreRopes) {
  // No image: every pair turns by the text position, so the texels are RoPE's (whose raster is
  // its own closed form, the score's waves along the offset).
  const EncodingParams mp = Params(32, 3000, {}, {4, 6, 6});
  EncodingParams rp;
  rp.d_model = 32;
  rp.max_len = 3000;
  RopeParams r;
  r.theta = 10000;
  rp.scheme = r;
  std::vector<double> xq(32), xk(32);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n01;
  for (double& v : xq) v = n01(rng);
  for (double& v : xk) v = n01(rng);
  const auto raster = [&](const EncodingParams& p) {
    Result<AttentionScorer> s = AttentionScorer::Make(Make(p), xq, xk, AttentionWindow{});
    EXPECT_TRUE(s.ok());
    ScoreRasterRequest req;
    req.x1 = req.y1 = 3000;
    req.width_px = 70, req.height_px = 45;
    return ComputeScoreRaster(s.value(), req);
  };
  const ScoreRaster a = raster(mp), b = raster(rp);
  ASSERT_EQ(a.values.size(), b.values.size());
  EXPECT_TRUE(a.exact);
  EXPECT_EQ(a.key_edges, b.key_edges);
  EXPECT_EQ(a.query_edges, b.query_edges);
  for (size_t i = 0; i < a.values.size(); ++i) {
    ASSERT_NEAR(a.values[i], b.values[i], 1e-6 * std::max(1.0f, std::abs(b.values[i])))
        << "texel " << i;
  }
}

TEST(Mrope, BillionTokenScoreTexelsAreExactAndFast) {
  // 1e9 tokens with a 3 x 2048 x 1024 image at token 400 000 000, in 800 x 500 texels: each
  // texel row is a few id boxes, so the raster takes well under a second.
  EncodingParams p = Params(128, 1000000000, {{400000000, 3, 2048, 1024}}, {16, 24, 24});
  const EncodingPtr e = Make(p);
  std::vector<double> xq(128), xk(128);
  std::mt19937_64 rng(9);
  std::normal_distribution<double> n01;
  for (double& v : xq) v = n01(rng);
  for (double& v : xk) v = n01(rng);
  Result<AttentionScorer> s = AttentionScorer::Make(e, xq, xk, AttentionWindow{});
  ASSERT_TRUE(s.ok());
  ScoreRasterRequest req;
  req.x1 = req.y1 = 1e9;
  req.width_px = 800, req.height_px = 500;
  const auto t0 = std::chrono::steady_clock::now();
  const ScoreRaster r = ComputeScoreRaster(s.value(), req);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.exact);
  EXPECT_LT(seconds, 2.0);
  // The mean query over stretches that start in text and end partway through the image's
  // second grid row, and that run from the end of its first time step into the second, against
  // the naive loop (Query turns by std::cos and std::sin of one rounded angle, off by up to
  // ~4e-8 rad at ids near 4e8: hence 1e-6).
  const int64_t at = 400000000, step = 2048 * 1024;
  for (const auto& [a, n] : {std::pair<int64_t, int64_t>{at - 700, 700 + 1024 + 333},
                             {at + step - 1500, 1500 + 3 * 1024 + 7}}) {
    std::vector<double> mean(128), naive(128, 0.0), v(128);
    ASSERT_TRUE(s.value().MeanQuery(a, n, kScoreTexelSamples, mean.data()));
    for (int64_t m = a; m < a + n; ++m) {
      s.value().Query(m, v.data());
      for (size_t j = 0; j < 128; ++j) naive[j] += v[j];
    }
    for (size_t j = 0; j < 128; ++j) {
      EXPECT_NEAR(mean[j], naive[j] / static_cast<double>(n), 1e-6)
          << "dim " << j << " from token " << a;
    }
  }
}

std::string Refusal(const EncodingParams& p) {
  const Status s = ValidateEncodingParams(p);
  EXPECT_FALSE(s.ok());
  return s.message();
}

TEST(Mrope, RefusesBadInputByName) {
  // The section names both sums.
  std::string m = Refusal(Params(128, 100, {}, {16, 24, 20}));
  EXPECT_NE(m.find("--mrope-section 16,24,20 sums to 60"), std::string::npos) << m;
  EXPECT_NE(m.find("d_rot/2 = 64"), std::string::npos) << m;
  // An odd head dim.
  m = Refusal(Params(15, 100, {}, {2, 3, 2}));
  EXPECT_NE(m.find("even"), std::string::npos) << m;
  // Past the sequence: 16 tokens from 95 in 100.
  m = Refusal(Params(16, 100, {{95, 1, 4, 4}}, {2, 3, 3}));
  EXPECT_NE(m.find("--mrope-image \"at=95,grid=1x4x4\" runs past"), std::string::npos) << m;
  EXPECT_NE(m.find("at + T*H*W <= max_len"), std::string::npos) << m;
  // A grid whose product overflows is refused, not wrapped.
  m = Refusal(Params(16, 100, {{0, 2147483647, 2147483647, 2147483647}}, {2, 3, 3}));
  EXPECT_NE(m.find("runs past"), std::string::npos) << m;
  // Overlapping images, in either order.
  m = Refusal(Params(16, 100, {{5, 1, 1, 1}, {3, 1, 4, 4}}, {2, 3, 3}));
  EXPECT_NE(m.find("\"at=5,grid=1x1x1\" overlaps \"at=3,grid=1x4x4\""), std::string::npos) << m;
  // Touching images are fine.
  EXPECT_TRUE(
      ValidateEncodingParams(Params(16, 100, {{3, 1, 2, 2}, {7, 1, 1, 1}}, {2, 3, 3})).ok());

  // The text forms.
  for (const char* bad : {"at=3", "at=3,grid=1x4", "at=-1,grid=1x1x1", "at=3,grid=0x2x2",
                          "grid=1x2x2,at=3", "at=3,grid=1x2x2x2", "at=3,grid=1x2xz"}) {
    Result<std::vector<MropeImage>> r = ParseMropeImages("--mrope-image", bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.message().find(std::string("--mrope-image \"") + bad + "\""), std::string::npos)
        << r.message();
  }
  for (const char* bad : {"16,24", "16,24,24,1", "a,b,c", "-1,33,32", "", "Auto"}) {
    Result<std::optional<std::array<int64_t, 3>>> r = ParseMropeSection("--mrope-section", bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.message().find("--mrope-section must be T,H,W"), std::string::npos);
  }
}

TEST(Mrope, ImagesFieldReadsARepeatedFlagAndWritesOneList) {
  const ParamField* f = FindParamField("--mrope-image");
  ASSERT_NE(f, nullptr);
  ModelParams m;
  SetScheme(m, Scheme::kMrope);
  // A repeated flag reaches the field joined by new lines.
  ASSERT_TRUE(f->set(m, "at=3,grid=1x2x2\nat=20,grid=1x4x4").ok());
  ASSERT_EQ(m.pe.mrope().images.size(), 2u);
  EXPECT_EQ(m.pe.mrope().images[1], (MropeImage{20, 1, 4, 4}));
  EXPECT_EQ(f->get(m), "at=3,grid=1x2x2;at=20,grid=1x4x4");
  ModelParams back;
  SetScheme(back, Scheme::kMrope);
  ASSERT_TRUE(f->set(back, f->get(m)).ok());
  EXPECT_EQ(back.pe.mrope().images, m.pe.mrope().images);
  ASSERT_TRUE(f->set(back, "").ok());
  EXPECT_TRUE(back.pe.mrope().images.empty());
}

// The position-ids figure draws the ids worked by hand above (HF get_rope_index): a step per
// token in three lines t, h, w, and the image's tokens 3..6 shaded and named.
TEST(Mrope, PositionIdsFigureDrawsTheHandWorkedIdsAndShadesTheImage) {
  ModelParams m;
  SetScheme(m, Scheme::kMrope);
  m.pe = Params(16, 9, {{3, 1, 2, 2}}, {2, 3, 3});
  const int64_t want[3][9] = {
      {0, 1, 2, 3, 3, 3, 3, 5, 6}, {0, 1, 2, 3, 3, 4, 4, 5, 6}, {0, 1, 2, 3, 4, 3, 4, 5, 6}};
  Result<Figure> f = BuildViewFigure(ViewKind::kPositionIds, m, DefaultViews(m),
                                     FigureSize{640, 400, 1}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  ASSERT_EQ(f.value().series.size(), 3u);
  for (size_t a = 0; a < 3; ++a) {
    const FigureSeries& s = f.value().series[a];
    ASSERT_EQ(s.xs.size(), 18u) << a;
    ASSERT_EQ(s.marker_ys.size(), 9u) << a;
    for (size_t k = 0; k < 9; ++k) {
      EXPECT_EQ(s.xs[2 * k], static_cast<double>(k) - 0.5);
      EXPECT_EQ(s.xs[2 * k + 1], static_cast<double>(k) + 0.5);
      EXPECT_EQ(s.ys[2 * k], static_cast<double>(want[a][k])) << "axis " << a << " token " << k;
      EXPECT_EQ(s.ys[2 * k + 1], static_cast<double>(want[a][k]));
      EXPECT_EQ(s.marker_ys[k], static_cast<double>(want[a][k]));
    }
  }
  ASSERT_EQ(f.value().rects.size(), 1u);
  EXPECT_EQ(f.value().rects[0].x0, 2.5);
  EXPECT_EQ(f.value().rects[0].x1, 6.5);
  ASSERT_EQ(f.value().labels.size(), 1u);
  EXPECT_EQ(f.value().labels[0].text, "image 1x2x2 at token 3");
  EXPECT_EQ(f.value().title,
            "Position ids: each token's t, h and w (M-RoPE, chunked layout, section 2,3,3, "
            "max_len = 9)");

  SetScheme(m, Scheme::kRope);
  EXPECT_FALSE(ViewApplies(ViewKind::kPositionIds, m.pe));
  f = BuildViewFigure(ViewKind::kPositionIds, m, DefaultViews(m), FigureSize{640, 400, 1},
                      FigureFormat::kPng);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("the position-ids view needs three position ids per token"),
            std::string::npos)
      << f.message();
}

// At a billion tokens the lines pass through sampled tokens, at most a curve's samples each,
// and still end on the last token's ids (offset + max_len - 1 - the image's saved ids).
TEST(Mrope, PositionIdsFigureSamplesABillionTokens) {
  ModelParams m;
  SetScheme(m, Scheme::kMrope);
  m.pe = Params(16, 1000000000, {{3, 1, 2, 2}}, {2, 3, 3});
  Result<Figure> f = BuildViewFigure(ViewKind::kPositionIds, m, DefaultViews(m),
                                     FigureSize{640, 400, 1}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  for (const FigureSeries& s : f.value().series) {
    EXPECT_LE(s.xs.size(), 20001u);
    EXPECT_TRUE(s.marker_xs.empty());
    EXPECT_EQ(s.xs.back(), 999999999.0);
    EXPECT_EQ(s.ys.back(), 999999999.0 - 2);  // 4 image tokens use ids 3..4: two fewer
  }
}

// ---- the mrope-axes and mrope-neighbours views

// Golden numbers of a numpy port (float64) of HF transformers' get_rope_index for one image,
// the rotary inv_freq = 1 / theta^(arange(0, d, 2) / d) (modeling_rope_utils.py
// _compute_default_rope_parameters), apply_multimodal_rotary_pos_emb (modeling_qwen2_vl.py,
// section 2,3,3) and apply_interleaved_mrope (modeling_qwen3_vl.py, section 3,3,2), each
// rotation built by hand from the pair -> axis rule, then q.k / sqrt(16) with ones content.
// Sequence: text(2), image at 2 grid 2x3x4, text(4): 30 tokens; head dim 16, theta 10000; query
// patch t=1 h=1 w=2 (token 2 + 12 + 4 + 2 = 20). Keys in the table's order: frame t=1 row by row
// (tokens 14..25), the other frame at (h, w) = (1, 2) (token 8), the text before (0, 1) and after
// (26..29).
constexpr double kChunkedNeighbours[19] = {3.997216003713655,
                                           3.9972243286820897,
                                           3.9972271036799851,
                                           3.9972243286820897,
                                           3.9999889000336699,
                                           3.9999972250021054,
                                           4,
                                           3.999997225002105,
                                           3.9972160037136542,
                                           3.9972243286820897,
                                           3.9972271036799847,
                                           3.9972243286820892,
                                           3.7453587930616616,
                                           2.7715311060207353,
                                           3.1841244373822231,
                                           2.7715644055156887,
                                           2.7798578268530187,
                                           3.0685449549478774,
                                           3.2224125854701482};
constexpr double kInterleavedNeighbours[19] = {3.9652059042898782,
                                               3.9726821979770208,
                                               3.9751826153359242,
                                               3.9726821979770204,
                                               3.990023288953954,
                                               3.9974995826410966,
                                               4,
                                               3.9974995826410962,
                                               3.9652059042898777,
                                               3.9726821979770204,
                                               3.9751826153359238,
                                               3.9726821979770204,
                                               3.76990092376673,
                                               2.7543952834556924,
                                               3.1717607680230371,
                                               2.7839280748748734,
                                               2.7969936494180616,
                                               3.0902816960118979,
                                               3.2485330339746139};
constexpr double kInvFreq16[8] = {1,
                                  0.31622776601683794,
                                  0.10000000000000001,
                                  0.031622776601683791,
                                  0.01,
                                  0.0031622776601683798,
                                  0.001,
                                  0.00031622776601683794};
constexpr int64_t kNeighbourKeys[19] = {14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
                                        24, 25, 8,  0,  1,  26, 27, 28, 29};

ModelParams NeighboursModel(MropeLayout layout, std::array<int64_t, 3> section) {
  ModelParams m;
  SetScheme(m, Scheme::kMrope);
  m.pe = Params(16, 30, {{2, 2, 3, 4}}, section, layout);
  m.content.kind = ScoreContent::Kind::kOnes;
  return m;
}

// The view's table as text (CSV) or bytes (NPY), through its registry entry.
Result<std::string> ViewTable(ViewKind view, const ModelParams& m, TableFormat format) {
  Result<EncodingPtr> e = MakeEncoding(m.pe);
  if (!e.ok()) return e.error();
  const ViewSelection sel = DefaultViews(m);
  const ViewContext c{m, e.value(), sel, FigureSize{640, 400, 1}};
  if (Status s = GetView(view).check_table(c); !s.ok()) return s.error();
  std::ostringstream out;
  if (Status s = GetView(view).write_table(out, format, c, {}); !s.ok()) return s.error();
  return out.str();
}

std::vector<std::vector<double>> CsvRows(const std::string& text, std::string* header) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, *header);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}

// The axes table: each pair's axis by HF's rule, theta_i = 10000^(-2i/16) and 2 pi / theta_i.
TEST(MropeViews, AxesTableGivesEachPairsAxisAndFrequency) {
  const int want_axis[2][8] = {{0, 0, 1, 1, 1, 2, 2, 2},   // chunked 2,3,3
                               {0, 1, 2, 0, 1, 2, 0, 1}};  // interleaved 3,3,2: h 1,4,7; w 2,5
  const std::array<int64_t, 3> sections[2] = {{2, 3, 3}, {3, 3, 2}};
  for (int k = 0; k < 2; ++k) {
    const MropeLayout layout = k == 0 ? MropeLayout::kChunked : MropeLayout::kInterleaved;
    const ModelParams m = NeighboursModel(layout, sections[k]);
    Result<std::string> csv = ViewTable(ViewKind::kMropeAxes, m, TableFormat::kCsv);
    ASSERT_TRUE(csv.ok()) << csv.message();
    std::string header;
    const std::vector<std::vector<double>> rows = CsvRows(csv.value(), &header);
    EXPECT_EQ(header, "pair,axis,inv_freq,wavelength");
    ASSERT_EQ(rows.size(), 8u);
    for (size_t i = 0; i < 8; ++i) {
      EXPECT_EQ(rows[i][0], static_cast<double>(i));
      EXPECT_EQ(rows[i][1], want_axis[k][i]) << MropeLayoutName(layout) << " pair " << i;
      EXPECT_NEAR(rows[i][2], kInvFreq16[i], 1e-15 * kInvFreq16[i]) << "pair " << i;
      EXPECT_NEAR(rows[i][3], 2 * M_PI / kInvFreq16[i], 1e-13 / kInvFreq16[i]) << "pair " << i;
    }
    Result<std::string> npy = ViewTable(ViewKind::kMropeAxes, m, TableFormat::kNpy);
    ASSERT_TRUE(npy.ok()) << npy.message();
    const std::string& b = npy.value();
    EXPECT_NE(b.find("'descr': '<f8'"), std::string::npos);
    EXPECT_NE(b.find("'shape': (8, 3)"), std::string::npos);
    ASSERT_EQ(b.size() % 64, (8 * 3 * 8) % 64);
    const size_t data = b.size() - 8 * 3 * 8;
    for (size_t i = 0; i < 8; ++i) {
      double v[3];
      std::memcpy(v, b.data() + data + i * 24, 24);
      EXPECT_EQ(v[0], want_axis[k][i]);
      EXPECT_EQ(v[1], rows[i][2]);
      EXPECT_EQ(v[2], rows[i][3]);
    }
  }
}

// The figure's two strips colour each pair by its axis under each layout (the same section),
// the current one outlined, and each pair names its axis and wavelength on hover.
TEST(MropeViews, AxesFigureShowsBothLayoutsForTheSection) {
  ModelParams m = NeighboursModel(MropeLayout::kInterleaved, {2, 3, 3});
  Result<Figure> f = BuildViewFigure(ViewKind::kMropeAxes, m, DefaultViews(m),
                                     FigureSize{800, 500, 1}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  // Chunked 2,3,3: t t h h h w w w. Interleaved 2,3,3: h at 1, 4, 7 (below 9), w at 2, 5 (below
  // 9: 8 would be too, but there are 8 pairs), t at 0, 3, 6.
  const int want[2][8] = {{0, 0, 1, 1, 1, 2, 2, 2}, {0, 1, 2, 0, 1, 2, 0, 1}};
  // The strips, top (chunked) then the one below (interleaved), by their rectangles' heights.
  std::vector<double> bases;
  for (const FigureRect& r : f.value().rects) {
    if (std::find(bases.begin(), bases.end(), r.y0) == bases.end()) bases.push_back(r.y0);
  }
  ASSERT_EQ(bases.size(), 2u);
  std::sort(bases.rbegin(), bases.rend());
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < 8; ++i) {
      int found = 0;
      for (const FigureRect& r : f.value().rects) {
        if (r.y0 != bases[static_cast<size_t>(k)] || !(r.x0 < i && i < r.x1)) continue;
        ++found;
        EXPECT_EQ(r.color, SeriesRgba(want[k][i])) << "strip " << k << " pair " << i;
      }
      EXPECT_EQ(found, 1) << "strip " << k << " pair " << i;
    }
  }
  ASSERT_EQ(f.value().overlays.size(), 1u);
  EXPECT_EQ(f.value().overlays[0].y0, bases[1]);  // interleaved is the current layout
  bool hover = false;
  for (const FigureLabel& l : f.value().labels) {
    hover = hover || l.hover.find(
                         "pair 5: w (column) under interleaved\n\xce\xb8_5 = "
                         "10000^(-10/16) = 0.00316228 rad per id\nwavelength 2\xcf\x80/\xce\xb8 = "
                         "1986.92 ids\ndims 5 and 13") == 0;
  }
  EXPECT_TRUE(hover);
  EXPECT_NE(f.value().title.find("section 2,3,3"), std::string::npos) << f.value().title;
  EXPECT_NE(f.value().title.find("current: interleaved"), std::string::npos);
}

// The neighbours table against the numpy port of HF's functions above, for both layouts.
TEST(MropeViews, NeighbourScoresMatchHfsRotationsInNumpy) {
  const double* golden[2] = {kChunkedNeighbours, kInterleavedNeighbours};
  const std::array<int64_t, 3> sections[2] = {{2, 3, 3}, {3, 3, 2}};
  for (int k = 0; k < 2; ++k) {
    const MropeLayout layout = k == 0 ? MropeLayout::kChunked : MropeLayout::kInterleaved;
    ModelParams m = NeighboursModel(layout, sections[k]);
    ASSERT_TRUE(FindParamField("--mrope-patch")->set(m, "image=0,t=1,h=1,w=2").ok());
    Result<std::string> csv = ViewTable(ViewKind::kMropeNeighbours, m, TableFormat::kCsv);
    ASSERT_TRUE(csv.ok()) << csv.message();
    std::string header;
    const std::vector<std::vector<double>> rows = CsvRows(csv.value(), &header);
    EXPECT_EQ(header, "token,dt,dh,dw,score");
    ASSERT_EQ(rows.size(), 19u);
    const MropeSequence seq(m.pe);
    const MropeIds q = seq.Ids(20);
    for (size_t r = 0; r < 19; ++r) {
      EXPECT_EQ(rows[r][0], static_cast<double>(kNeighbourKeys[r])) << "row " << r;
      const MropeIds key = seq.Ids(kNeighbourKeys[r]);
      for (size_t a = 0; a < 3; ++a) {
        EXPECT_EQ(rows[r][a + 1], static_cast<double>(key.id[a] - q.id[a])) << "row " << r;
      }
      EXPECT_NEAR(rows[r][4], golden[k][r], 1e-13)
          << MropeLayoutName(layout) << " key token " << kNeighbourKeys[r];
    }
  }
}

// With ones content and a pure rotation the score of a query patch and a key patch depends
// only on (dt, dh, dw): every query patch of a 3 x 5 x 6 image, every key of its table, keyed by
// the offsets, agree; and within a frame the score is the h curve plus the w curve less the
// query's own (one pair, one axis).
TEST(MropeViews, NeighbourScoreDependsOnlyOnThePerAxisOffsets) {
  for (MropeLayout layout : {MropeLayout::kChunked, MropeLayout::kInterleaved}) {
    ModelParams m;
    SetScheme(m, Scheme::kMrope);
    m.pe = Params(32, 120, {{4, 3, 5, 6}}, {4, 6, 6}, layout);
    m.content.kind = ScoreContent::Kind::kOnes;
    std::map<std::array<int64_t, 3>, double> by_offset;
    int compared = 0, differ = 0;
    for (int64_t t = 0; t < 3; ++t) {
      for (int64_t h = 0; h < 5; ++h) {
        for (int64_t w = 0; w < 6; ++w) {
          m.mrope_patch = {0, t, h, w};
          Result<std::string> csv = ViewTable(ViewKind::kMropeNeighbours, m, TableFormat::kCsv);
          ASSERT_TRUE(csv.ok()) << csv.message();
          std::string header;
          const std::vector<std::vector<double>> rows = CsvRows(csv.value(), &header);
          std::map<std::pair<int64_t, int64_t>, double> frame;
          for (const std::vector<double>& row : rows) {
            const std::array<int64_t, 3> d = {static_cast<int64_t>(row[1]),
                                              static_cast<int64_t>(row[2]),
                                              static_cast<int64_t>(row[3])};
            auto [it, fresh] = by_offset.emplace(d, row[4]);
            if (!fresh) {
              ASSERT_NEAR(row[4], it->second, 1e-12)
                  << MropeLayoutName(layout) << " offsets " << d[0] << "," << d[1] << "," << d[2];
              ++compared;
            }
            if (d[0] == 0 && static_cast<int64_t>(row[0]) >= 4 &&
                static_cast<int64_t>(row[0]) < 94) {
              frame[{d[1], d[2]}] = row[4];
            }
          }
          const double self = frame.at({0, 0});
          for (const auto& [dhw, score] : frame) {
            EXPECT_NEAR(score, frame.at({dhw.first, 0}) + frame.at({0, dhw.second}) - self, 1e-12);
            differ += std::abs(score - self) > 1e-6;
          }
        }
      }
    }
    EXPECT_GT(compared, 1000);
    EXPECT_GT(differ, 100);  // the scores do move with the offsets: the check can fail
  }
}

TEST(MropeViews, NeighboursPickTheCentreAndRefuseByName) {
  ModelParams m = NeighboursModel(MropeLayout::kChunked, {2, 3, 3});
  // Default: the first image's centre, (2 / 2, 3 / 2, 4 / 2) = (1, 1, 2), token 20.
  Result<MropeQueryPatch> q = ResolveMropePatch(m.pe, m.mrope_patch);
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_EQ(q.value().patch, (MropePatch{0, 1, 1, 2}));
  EXPECT_EQ(q.value().token, 20);
  Result<std::string> csv = ViewTable(ViewKind::kMropeNeighbours, m, TableFormat::kCsv);
  ASSERT_TRUE(csv.ok());
  EXPECT_NE(csv.value().find("\n20,0,0,0,4\n"), std::string::npos);

  const ParamField* f = FindParamField("--mrope-patch");
  ASSERT_NE(f, nullptr);
  auto refusal = [&](const char* patch) {
    ModelParams p = m;
    EXPECT_TRUE(f->set(p, patch).ok()) << patch;
    Result<std::string> r = ViewTable(ViewKind::kMropeNeighbours, p, TableFormat::kCsv);
    EXPECT_FALSE(r.ok()) << patch;
    Result<Figure> fig = BuildViewFigure(ViewKind::kMropeNeighbours, p, DefaultViews(p),
                                         FigureSize{640, 400, 1}, FigureFormat::kPng);
    EXPECT_FALSE(fig.ok()) << patch;
    return r.ok() ? std::string() : r.message();
  };
  EXPECT_NE(refusal("image=0,t=2,h=0,w=0")
                .find("--mrope-patch t=2 is out of range: image 0 (at=2,grid=2x3x4) has t in "
                      "[0, 1]"),
            std::string::npos);
  EXPECT_NE(refusal("image=0,t=0,h=0,w=4").find("w=4 is out of range"), std::string::npos);
  EXPECT_NE(refusal("image=1,t=0,h=0,w=0")
                .find("image=1 is out of range: the sequence has 1 image, so image must be 0"),
            std::string::npos);
  Result<MropePatch> bad = ParseMropePatch("--mrope-patch", "image=0,t=0,h=-1,w=0");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("h must be a whole number"), std::string::npos) << bad.message();
  EXPECT_FALSE(ParseMropePatch("--mrope-patch", "image=0,h=0,t=0,w=0").ok());
  EXPECT_EQ(MropePatchText(ParseMropePatch("--mrope-patch", "image=0,t=1,h=2,w=3").value()),
            "image=0,t=1,h=2,w=3");

  m.pe.mrope().images.clear();
  Result<std::string> none = ViewTable(ViewKind::kMropeNeighbours, m, TableFormat::kCsv);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("add one with --mrope-image"), std::string::npos);
  SetScheme(m, Scheme::kRope);
  for (ViewKind v : {ViewKind::kMropeAxes, ViewKind::kMropeNeighbours}) {
    Result<Figure> fig =
        BuildViewFigure(v, m, DefaultViews(m), FigureSize{640, 400, 1}, FigureFormat::kPng);
    ASSERT_FALSE(fig.ok());
    EXPECT_NE(fig.message().find("needs three position ids per token"), std::string::npos);
  }
}

// The figure: the frame's heatmap holds the golden scores of the frame (row h, column w), and
// the curves pass through the query's own score at offset 0.
TEST(MropeViews, NeighboursFigureDrawsTheFrameAndTheAxes) {
  ModelParams m = NeighboursModel(MropeLayout::kInterleaved, {3, 3, 2});
  Result<Figure> f = BuildViewFigure(ViewKind::kMropeNeighbours, m, DefaultViews(m),
                                     FigureSize{960, 540, 1}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  ASSERT_EQ(f.value().panels.size(), 3u);
  const Figure& heat = f.value().panels[0];
  ASSERT_TRUE(heat.image.has_value());
  EXPECT_EQ(heat.image->width, 4);
  EXPECT_EQ(heat.image->height, 3);
  ASSERT_TRUE(heat.colorbar.has_value());
  EXPECT_NEAR(heat.colorbar->vmax, 4.0, 1e-12);
  EXPECT_NEAR(heat.colorbar->vmin, kInterleavedNeighbours[0], 1e-6);
  const Figure& axes = f.value().panels[1];
  int curves = 0;
  for (const FigureSeries& s : axes.series) {
    if (s.label.empty()) continue;
    ++curves;
    const auto at0 = std::find(s.xs.begin(), s.xs.end(), 0.0);
    ASSERT_NE(at0, s.xs.end()) << s.label;
    EXPECT_NEAR(s.ys[static_cast<size_t>(at0 - s.xs.begin())], 4.0, 1e-12) << s.label;
  }
  EXPECT_EQ(curves, 3);  // t (T = 2), h and w
}

}  // namespace
}  // namespace pe
