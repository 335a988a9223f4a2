// M-RoPE against HF transformers: the position ids of Qwen2-VL's get_rope_index worked by hand,
// the chunked (modeling_qwen2_vl.py, apply_multimodal_rotary_pos_emb) and interleaved
// (modeling_qwen3_vl.py, apply_interleaved_mrope) cos / sin tables against a numpy port of those
// functions (mrope_golden.inc). Then the properties: a text-only sequence is RoPE bit for bit,
// an image token's column is RoPE's at its axis's id, q . k depends only on the per-axis id
// differences, the column means agree with the fill, and bad input is refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

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
    e->MeanOverRows(2, 250, 0, m.cols, mean.data());
    for (int64_t j = 0; j < m.cols; ++j) {
      double s = 0;
      for (int64_t r = 2; r < 252; ++r) s += m.at(r, j);
      EXPECT_NEAR(mean[static_cast<size_t>(j)], s / 250, 1e-6 * std::max(1.0, std::abs(s / 250)))
          << RopePartName(part) << " column " << j;
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

}  // namespace
}  // namespace pe
