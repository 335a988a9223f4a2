// The similarity views against PE @ PE.T computed naively here in float64 from the engine's own
// float32 tables (every sinusoidal layout and order, odd d, offsets, output scale; learned; RoPE
// from its cos and sin tables), the Toeplitz structure where the formula says so and its absence
// where it does not, the closed form against a long-double sum written here at positions near
// 1e9, the screen raster against the cells it covers, the offset statistics against a naive
// loop, exports read back, and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "analysis/similarity.h"
#include "encoding/rope.h"
#include "model/param_fields.h"
#include "test_support.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

using pe::testing::NpyArray;
using pe::testing::ParseCsv;
using pe::testing::ParseNpy;
using pe::testing::ReadFile;

// Float32 output of a value whose scale is `scale`: a few float32 ulps of it, plus the float32
// rounding of the table the naive product is computed from (d terms of relative error 2^-24).
double Tol(double scale, int64_t d) {
  return (4.0 + static_cast<double>(d)) * std::ldexp(1.0, -24) * std::max(scale, 1e-30);
}

ModelParams Sinusoid(int64_t d, int64_t L, PeVariant variant,
                     WaveOrder order = WaveOrder::kSinFirst, double scale = 1.0,
                     int64_t offset = 0) {
  ModelParams m;
  m.pe.d_model = d;
  m.pe.max_len = L;
  m.pe.offset = offset;
  SinusoidalParams s;
  s.variant = variant;
  s.order = order;
  s.output_scale = scale;
  m.pe.scheme = s;
  return m;
}

ModelParams Learned(int64_t d, int64_t L, LearnedInit init = LearnedInit::kNormal1) {
  ModelParams m;
  m.pe.d_model = d;
  m.pe.max_len = L;
  LearnedParams l;
  l.init = init;
  l.seed = 3;
  m.pe.scheme = l;
  return m;
}

ModelParams Rope(int64_t d, int64_t L, RopePairing pairing, RopeScaling scaling,
                 double fraction = 1.0) {
  ModelParams m;
  m.pe.d_model = d;
  m.pe.max_len = L;
  RopeParams r;
  r.pairing = pairing;
  r.scaling = scaling;
  r.factor = 4.0;
  r.original_max_len = 16;
  r.rotary_fraction = fraction;
  m.pe.scheme = r;
  return m;
}

Matrix Table(const EncodingParams& p) {
  Result<EncodingPtr> e = MakeEncoding(p);
  EXPECT_TRUE(e.ok()) << e.message();
  Result<Matrix> t = ComputeTable(*e.value());
  EXPECT_TRUE(t.ok()) << t.message();
  return t.value();
}

// The vectors PE(p) of every row, (L, dim), in double from the float32 tables: the table's rows,
// or for RoPE each pair's (cos, sin) entries from the cos and the sin table (R_p u).
std::vector<std::vector<double>> NaiveVectors(const ModelParams& m) {
  std::vector<std::vector<double>> v;
  if (m.pe.kind() != Scheme::kRope) {
    const Matrix t = Table(m.pe);
    for (int64_t r = 0; r < t.rows; ++r) v.emplace_back(t.row(r), t.row(r) + t.cols);
    return v;
  }
  EncodingParams pc = m.pe, ps = m.pe;
  pc.rope().part = RopePart::kCos;
  ps.rope().part = RopePart::kSin;
  const Matrix cos_t = Table(pc), sin_t = Table(ps);
  const int64_t d_rot = cos_t.cols, h = d_rot / 2;
  const bool half = m.pe.rope().pairing == RopePairing::kHalf;
  for (int64_t r = 0; r < cos_t.rows; ++r) {
    std::vector<double> row;
    for (int64_t i = 0; i < h; ++i) {
      // R_p (1, 0) = (cos, sin) at the pair's dims a and b.
      const int64_t a = half ? i : 2 * i, b = half ? i + h : 2 * i + 1;
      row.push_back(cos_t.at(r, a));
      row.push_back(sin_t.at(r, b));
    }
    v.push_back(row);
  }
  return v;
}

// PE @ PE.T (or its cosine) in float64, (L, L).
std::vector<std::vector<double>> NaiveGram(const ModelParams& m, bool cosine) {
  const auto v = NaiveVectors(m);
  const size_t L = v.size();
  std::vector<std::vector<double>> g(L, std::vector<double>(L));
  for (size_t p = 0; p < L; ++p) {
    for (size_t q = 0; q < L; ++q) {
      double dot = 0, np = 0, nq = 0;
      for (size_t j = 0; j < v[p].size(); ++j) {
        dot += v[p][j] * v[q][j];
        np += v[p][j] * v[p][j];
        nq += v[q][j] * v[q][j];
      }
      g[p][q] = cosine ? dot / std::sqrt(np * nq) : dot;
    }
  }
  return g;
}

double Scale(const std::vector<std::vector<double>>& g) {
  double s = 0;
  for (size_t p = 0; p < g.size(); ++p) s = std::max(s, std::abs(g[p][p]));
  return s;
}

std::string WriteTable(ViewKind view, const ModelParams& m, TableFormat format,
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

NpyArray Npy(ViewKind view, const ModelParams& m) {
  NpyArray a;
  std::string why;
  EXPECT_TRUE(ParseNpy(WriteTable(view, m, TableFormat::kNpy), a, why)) << why;
  return a;
}

PositionSimilarity Sim(const ModelParams& m) {
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  EXPECT_TRUE(e.ok()) << e.message();
  Result<PositionSimilarity> s = PositionSimilarity::Make(e.value(), m.measure);
  EXPECT_TRUE(s.ok()) << s.message();
  return std::move(s).value();
}

// Every configuration the table tests go over.
std::vector<ModelParams> Configurations() {
  std::vector<ModelParams> out;
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
    for (int64_t d : {1, 2, 3, 7, 8, 17}) {
      out.push_back(Sinusoid(d, 13, v));
    }
    out.push_back(Sinusoid(9, 11, v, WaveOrder::kCosFirst, 0.125, -6));
    out.push_back(Sinusoid(16, 11, v, WaveOrder::kCosFirst, 3.0, 1000));
  }
  ModelParams fairseq = Sinusoid(16, 12, PeVariant::kT2t);
  fairseq.pe.sinusoidal().min_timescale = 0.5;
  out.push_back(fairseq);
  out.push_back(Learned(8, 12));
  out.push_back(Learned(5, 9, LearnedInit::kNormal002));
  out.push_back(Rope(16, 12, RopePairing::kHalf, RopeScaling::kNone));
  out.push_back(Rope(16, 12, RopePairing::kInterleaved, RopeScaling::kYarn));
  out.push_back(Rope(12, 12, RopePairing::kHalf, RopeScaling::kLlama3, 0.5));
  return out;
}

std::string Describe(const ModelParams& m) {
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  return e.ok() ? e.value()->Summary() + ", " + std::string(SimilarityMeasureName(m.measure))
                : e.message();
}

TEST(Similarity, TableEqualsNaivePeTimesPeTransposeInFloat64) {
  for (ModelParams m : Configurations()) {
    for (SimilarityMeasure measure : {SimilarityMeasure::kDot, SimilarityMeasure::kCosine}) {
      m.measure = measure;
      const bool cosine = measure == SimilarityMeasure::kCosine;
      const auto g = NaiveGram(m, cosine);
      const auto L = static_cast<int64_t>(g.size());
      const NpyArray a = Npy(ViewKind::kSimilarity, m);
      ASSERT_EQ(a.shape, (std::vector<int64_t>{L, L})) << Describe(m);
      const PositionSimilarity s = Sim(m);
      const double tol = Tol(cosine ? 1.0 : Scale(g), s.dim());
      for (int64_t p = 0; p < L; ++p) {
        for (int64_t q = 0; q < L; ++q) {
          const double want = g[static_cast<size_t>(p)][static_cast<size_t>(q)];
          const float got = a.data[static_cast<size_t>(p * L + q)];
          if (std::isnan(want)) {
            // A zero vector (paper d = 1 at p = 0, t2t d = 1): the cosine is undefined.
            EXPECT_TRUE(std::isnan(got)) << Describe(m) << " p " << p << " q " << q;
            continue;
          }
          ASSERT_NEAR(got, want, tol) << Describe(m) << " p " << p << " q " << q;
          const int64_t first = m.pe.offset;
          ASSERT_NEAR(s.Value(first + p, first + q), want, tol) << Describe(m);
        }
      }
    }
  }
}

TEST(Similarity, CsvIsTheSameMatrixWithPositionHeaders) {
  ModelParams m = Sinusoid(6, 4, PeVariant::kPaper, WaveOrder::kSinFirst, 1.0, 5);
  const auto rows = ParseCsv(WriteTable(ViewKind::kSimilarity, m, TableFormat::kCsv));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"p", "q5", "q6", "q7", "q8"}));
  const auto g = NaiveGram(m, false);
  for (size_t p = 0; p < 4; ++p) {
    EXPECT_EQ(rows[p + 1][0], std::to_string(5 + p));
    for (size_t q = 0; q < 4; ++q) EXPECT_NEAR(std::stod(rows[p + 1][q + 1]), g[p][q], Tol(3, 6));
  }
  // The undefined cosine of a zero vector is an empty cell.
  m = Sinusoid(1, 3, PeVariant::kPaper);
  m.measure = SimilarityMeasure::kCosine;
  const auto c = ParseCsv(WriteTable(ViewKind::kSimilarity, m, TableFormat::kCsv));
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[1][1], "");  // p = q = 0: sin(0) = 0
  EXPECT_EQ(c[2][2], "1");
}

// Largest |G[p][q] - G[p+1][q+1]| over the table: 0 (to rounding) for a Toeplitz matrix.
double DiagonalSpread(const NpyArray& a) {
  const int64_t L = a.shape[0];
  double spread = 0;
  for (int64_t p = 0; p + 1 < L; ++p) {
    for (int64_t q = 0; q + 1 < L; ++q) {
      spread =
          std::max(spread, std::abs(static_cast<double>(a.data[static_cast<size_t>(p * L + q)]) -
                                    a.data[static_cast<size_t>((p + 1) * L + q + 1)]));
    }
  }
  return spread;
}

TEST(Similarity, SinusoidWithEvenDIsToeplitzAndLearnedIsNot) {
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
    for (WaveOrder o : {WaveOrder::kSinFirst, WaveOrder::kCosFirst}) {
      for (SimilarityMeasure measure : {SimilarityMeasure::kDot, SimilarityMeasure::kCosine}) {
        ModelParams m = Sinusoid(32, 50, v, o, 0.5, 123456);
        m.measure = measure;
        EXPECT_TRUE(Sim(m).toeplitz());
        // sum_i a^2 cos(k w_i) <= 16 * 0.25 = 4: a few float32 ulps of 4.
        EXPECT_LT(DiagonalSpread(Npy(ViewKind::kSimilarity, m)), 2e-6) << Describe(m);
      }
    }
  }
  // t2t's odd d adds a zero column: still Toeplitz.
  EXPECT_TRUE(Sim(Sinusoid(9, 8, PeVariant::kT2t)).toeplitz());
  EXPECT_TRUE(Sim(Rope(16, 8, RopePairing::kInterleaved, RopeScaling::kYarn)).toeplitz());
  // The paper's and tf-text's odd d: the unpaired sin(p w_h) column adds -1/2 cos((p + q) w_h),
  // w_h = 10000^(-6/7) at d = 7, so the diagonals move by about (1/2)(1 - cos(2 * 49 w_h)).
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kTfText}) {
    const ModelParams m = Sinusoid(7, 50, v);
    const PositionSimilarity s = Sim(m);
    EXPECT_FALSE(s.toeplitz());
    EXPECT_DOUBLE_EQ(s.max_absolute(), 0.5);
    const double wh = std::pow(10000.0, -6.0 / 7.0);
    const double spread = DiagonalSpread(Npy(ViewKind::kSimilarity, m));
    EXPECT_GT(spread, 0.5 * 0.5 * (1 - std::cos(2 * wh)));
    EXPECT_LT(spread, 0.5 * (1 - std::cos(4 * 49 * wh)));
  }
  // A learned table: N(0, 1) noise at d = 64 gives diagonals ~ 64 and off-diagonals ~ +-8.
  const NpyArray a = Npy(ViewKind::kSimilarity, Learned(64, 30));
  EXPECT_FALSE(Sim(Learned(64, 30)).toeplitz());
  EXPECT_GT(DiagonalSpread(a), 5.0);
}

// The sum over the columns of a^2 wave(p w) wave(q w), written here from the paper's formula
// (section 3.5) in long double: the odd d's last column is sin(p w_h). w_i = base^(-2i/d) is
// worked out in long double and rounded to double, the frequency the table is defined with
// (positional_encoding.h); at k = 2^31 a last-bit difference in w moves k w by 1e-7.
long double LongDoubleDot(int64_t d, long double base, int64_t p, int64_t q) {
  long double acc = 0;
  for (int64_t j = 0; j < d; ++j) {
    const int64_t i = j / 2;
    const long double w = static_cast<double>(
        std::pow(base, -2.0L * static_cast<long double>(i) / static_cast<long double>(d)));
    const long double a = j % 2 == 0 ? std::sin(static_cast<long double>(p) * w)
                                     : std::cos(static_cast<long double>(p) * w);
    const long double b = j % 2 == 0 ? std::sin(static_cast<long double>(q) * w)
                                     : std::cos(static_cast<long double>(q) * w);
    acc += a * b;
  }
  return acc;
}

TEST(Similarity, ClosedFormMatchesALongDoubleSumNearPosition1e9) {
  for (int64_t d : {8, 9, 128, 129}) {
    const int64_t first = 1'000'000'000;
    ModelParams m = Sinusoid(d, 1000, PeVariant::kPaper, WaveOrder::kSinFirst, 1.0, first);
    const PositionSimilarity s = Sim(m);
    for (int64_t p : {first, first + 17, first + 999}) {
      for (int64_t q : {first, first + 1, first + 500, first + 999}) {
        const long double want = LongDoubleDot(d, 10000.0L, p, q);
        // The closed form reduces exact integer angles in long double: 1e-9 here, where a
        // double angle p * w would be off by about 1e-7 per column.
        EXPECT_NEAR(s.Dot(p, q), static_cast<double>(want), 1e-9)
            << "d " << d << " p " << p << " q " << q;
      }
    }
    // And the largest table there is: 2^31 positions, the last ones.
    m = Sinusoid(d, int64_t{1} << 31, PeVariant::kPaper, WaveOrder::kSinFirst, 1.0, 0);
    const PositionSimilarity big = Sim(m);
    const int64_t last = (int64_t{1} << 31) - 1;
    // Offsets near 2^31 too: cos(k w_0) at k = 2^31 - 1, whose double angle k * w would be off
    // by up to 1.2e-7.
    for (const auto& [p, q] :
         {std::pair<int64_t, int64_t>{last - 3, last}, {0, last}, {5, last - 1}, {last, 1}}) {
      EXPECT_NEAR(big.Dot(p, q), static_cast<double>(LongDoubleDot(d, 10000.0L, p, q)), 1e-9)
          << "d " << d << " p " << p << " q " << q;
    }
  }
}

TEST(Similarity, CosineIsOneOnTheDiagonal) {
  for (ModelParams m : Configurations()) {
    m.measure = SimilarityMeasure::kCosine;
    const PositionSimilarity s = Sim(m);
    for (int64_t p = m.pe.offset; p < m.pe.offset + m.pe.max_len; ++p) {
      const double v = s.Value(p, p);
      if (std::isnan(v)) continue;  // a zero vector (d = 1)
      EXPECT_NEAR(v, 1.0, 1e-12) << Describe(m) << " p " << p;
    }
    const NpyArray a = Npy(ViewKind::kSimilarity, m);
    const int64_t L = a.shape[0];
    for (int64_t p = 0; p < L; ++p) {
      const float v = a.data[static_cast<size_t>(p * L + p)];
      if (!std::isnan(v)) {
        EXPECT_NEAR(v, 1.0f, 1e-6f) << Describe(m);
      }
    }
  }
}

// For each model and measure, each request's raster: exact, every texel the mean of its cells
// in the naive Gram matrix.
void ExpectTexelsAreCellMeans(std::vector<ModelParams> models,
                              const std::vector<SimilarityRasterRequest>& requests) {
  for (ModelParams& m : models) {
    for (SimilarityMeasure measure : {SimilarityMeasure::kDot, SimilarityMeasure::kCosine}) {
      m.measure = measure;
      const auto g = NaiveGram(m, measure == SimilarityMeasure::kCosine);
      const PositionSimilarity s = Sim(m);
      for (const SimilarityRasterRequest& req : requests) {
        const SimilarityRaster r = ComputeSimilarityRaster(s, req);
        ASSERT_FALSE(r.empty());
        EXPECT_TRUE(r.exact);
        for (int y = 0; y < r.height; ++y) {
          for (int x = 0; x < r.width; ++x) {
            double sum = 0;
            int64_t n = 0;
            for (int64_t p = r.p_edges[y]; p < r.p_edges[y + 1]; ++p) {
              for (int64_t q = r.q_edges[x]; q < r.q_edges[x + 1]; ++q) {
                sum += g[static_cast<size_t>(p)][static_cast<size_t>(q)];
                ++n;
              }
            }
            ASSERT_NEAR(r.values[static_cast<size_t>(y * r.width + x)], sum / n,
                        Tol(measure == SimilarityMeasure::kCosine ? 1 : Scale(g), 8))
                << Describe(m) << " texel " << x << "," << y;
          }
        }
      }
    }
  }
}

TEST(Similarity, RasterTexelsAreTheMeansOfTheirCells) {
  // 8 x 8 texels of 8 x 8 cells, then one cell per texel over a corner.
  ExpectTexelsAreCellMeans({Sinusoid(8, 64, PeVariant::kPaper), Sinusoid(7, 64, PeVariant::kTfText),
                            Learned(6, 64), Rope(8, 64, RopePairing::kHalf, RopeScaling::kYarn)},
                           {{0, 64, 0, 64, 8, 8}, {40, 50, 3, 9, 100, 100}});
}

// Wide vectors over a window of one to two cells per texel, where no lattice fits: the texels
// come cell by cell from the closed form's waves (not a d-long dot product per texel) and are
// still the means of their cells.
TEST(Similarity, WideVectorsInAFewCellsPerTexel) {
  ExpectTexelsAreCellMeans(
      {Sinusoid(1023, 300, PeVariant::kPaper), Sinusoid(1024, 300, PeVariant::kT2t),
       Rope(1024, 300, RopePairing::kHalf, RopeScaling::kYarn)},
      {{0, 300, 0, 300, 200, 150}, {0, 300, 50, 250, 300, 200}});
}

TEST(Similarity, RasterAtTwoToThe31PositionsNeedsNoTable) {
  ModelParams m = Sinusoid(129, int64_t{1} << 31, PeVariant::kPaper);
  for (SimilarityMeasure measure : {SimilarityMeasure::kDot, SimilarityMeasure::kCosine}) {
    m.measure = measure;
    const PositionSimilarity s = Sim(m);
    const auto end = static_cast<double>(int64_t{1} << 31);
    const SimilarityRaster whole = ComputeSimilarityRaster(s, {0, end, 0, end, 300, 200});
    ASSERT_EQ(whole.width, 300);
    ASSERT_EQ(whole.height, 200);
    for (float v : whole.values) ASSERT_TRUE(std::isfinite(v));
    // Zoomed in on the last cells: each cell exactly, from the closed form.
    const SimilarityRaster corner =
        ComputeSimilarityRaster(s, {end - 20, end, end - 10, end, 400, 400});
    ASSERT_TRUE(corner.one_cell_per_texel);
    for (int y = 0; y < corner.height; ++y) {
      for (int x = 0; x < corner.width; ++x) {
        const int64_t p = corner.p_edges[y], q = corner.q_edges[x];
        long double want = LongDoubleDot(129, 10000.0L, p, q);
        if (measure == SimilarityMeasure::kCosine) {
          want /=
              std::sqrt(LongDoubleDot(129, 10000.0L, p, p) * LongDoubleDot(129, 10000.0L, q, q));
        }
        EXPECT_NEAR(corner.values[static_cast<size_t>(y * corner.width + x)],
                    static_cast<double>(want),
                    Tol(measure == SimilarityMeasure::kCosine ? 1 : 65, 1));
      }
    }
  }
}

// mean, min and max over p of G[p][p + k], naively.
struct NaiveOffset {
  double mean, min, max;
};
NaiveOffset NaiveAt(const std::vector<std::vector<double>>& g, int64_t k) {
  const auto L = static_cast<int64_t>(g.size());
  NaiveOffset o{0, INFINITY, -INFINITY};
  int64_t n = 0;
  for (int64_t p = 0; p < L; ++p) {
    if (p + k < 0 || p + k >= L) continue;
    const double v = g[static_cast<size_t>(p)][static_cast<size_t>(p + k)];
    if (std::isnan(v)) continue;  // an undefined cosine is left out
    o.mean += v;
    o.min = std::min(o.min, v);
    o.max = std::max(o.max, v);
    ++n;
  }
  if (n == 0) return {NAN, NAN, NAN};  // every cell undefined
  o.mean /= static_cast<double>(n);
  return o;
}

TEST(SimilarityOffset, MeanAndBandOverPositionsMatchANaiveLoop) {
  for (ModelParams m : {Sinusoid(16, 40, PeVariant::kT2t), Sinusoid(7, 40, PeVariant::kPaper),
                        Sinusoid(1, 40, PeVariant::kPaper),
                        Sinusoid(9, 40, PeVariant::kTfText, WaveOrder::kCosFirst, 2.0, -20),
                        Learned(16, 40), Rope(16, 40, RopePairing::kHalf, RopeScaling::kLlama3)}) {
    for (SimilarityMeasure measure : {SimilarityMeasure::kDot, SimilarityMeasure::kCosine}) {
      m.measure = measure;
      const bool cosine = measure == SimilarityMeasure::kCosine;
      const auto g = NaiveGram(m, cosine);
      const PositionSimilarity s = Sim(m);
      const double tol = Tol(cosine ? 1 : Scale(g), 16);
      for (int64_t k = -39; k <= 39; ++k) {
        const NaiveOffset want = NaiveAt(g, k);
        const OffsetStats all = SimilarityAtOffset(s, k, 1000);
        EXPECT_TRUE(all.exact);
        EXPECT_EQ(all.positions, 40 - std::abs(k));
        if (std::isnan(want.mean)) {
          // d = 1: sin(0) = 0, and at |k| = 39 the one pair holds position 0.
          EXPECT_TRUE(std::isnan(all.mean) && std::isnan(all.min) && std::isnan(all.max));
          continue;
        }
        EXPECT_NEAR(all.mean, want.mean, tol) << Describe(m) << " k " << k;
        EXPECT_NEAR(all.min, want.min, tol) << Describe(m) << " k " << k;
        EXPECT_NEAR(all.max, want.max, tol) << Describe(m) << " k " << k;
        if (s.toeplitz()) {
          EXPECT_EQ(all.min, all.max);
        }
        // A band over a few sampled p; the dot of waves keeps the exact mean.
        const OffsetStats few = SimilarityAtOffset(s, k, 4);
        EXPECT_GE(few.min, want.min - tol);
        EXPECT_LE(few.max, want.max + tol);
        if (s.closed_form() && !cosine) {
          EXPECT_NEAR(few.mean, want.mean, tol) << Describe(m);
        }
      }
    }
  }
  // The learned band is wide: at k = 1 the dot of N(0, 1) rows of d = 16 spreads over several
  // units.
  const OffsetStats learned = SimilarityAtOffset(Sim(Learned(16, 40)), 1, 1000);
  EXPECT_GT(learned.max - learned.min, 5.0);
}

TEST(SimilarityOffset, TableHasEveryOffsetAndTheMean) {
  for (ModelParams m :
       {Sinusoid(8, 25, PeVariant::kPaper), Sinusoid(1, 25, PeVariant::kPaper),
        Sinusoid(7, 25, PeVariant::kPaper, WaveOrder::kSinFirst, 1.0, 3), Learned(8, 25),
        Rope(8, 25, RopePairing::kInterleaved, RopeScaling::kNone)}) {
    for (SimilarityMeasure measure : {SimilarityMeasure::kDot, SimilarityMeasure::kCosine}) {
      m.measure = measure;
      const bool cosine = measure == SimilarityMeasure::kCosine;
      const auto g = NaiveGram(m, cosine);
      const auto rows = ParseCsv(WriteTable(ViewKind::kSimilarityOffset, m, TableFormat::kCsv));
      ASSERT_EQ(rows.size(), 50u) << Describe(m);
      EXPECT_EQ(rows[0], (std::vector<std::string>{"k", "value"}));
      const NpyArray a = Npy(ViewKind::kSimilarityOffset, m);
      ASSERT_EQ(a.shape, (std::vector<int64_t>{49, 2}));
      for (int64_t i = 0; i < 49; ++i) {
        const int64_t k = i - 24;
        const double want = NaiveAt(g, k).mean;
        const double tol = Tol(cosine ? 1 : Scale(g), 8);
        EXPECT_EQ(rows[static_cast<size_t>(i + 1)][0], std::to_string(k));
        EXPECT_EQ(a.data[static_cast<size_t>(2 * i)], static_cast<float>(k));
        if (std::isnan(want)) {
          EXPECT_EQ(rows[static_cast<size_t>(i + 1)][1], "") << Describe(m) << " k " << k;
          EXPECT_TRUE(std::isnan(a.data[static_cast<size_t>(2 * i + 1)]));
          continue;
        }
        EXPECT_NEAR(std::stod(rows[static_cast<size_t>(i + 1)][1]), want, tol)
            << Describe(m) << " k " << k;
        EXPECT_NEAR(a.data[static_cast<size_t>(2 * i + 1)], want, tol);
      }
    }
  }
}

using SimilarityFiles = pe::testing::TempDirTest;

TEST_F(SimilarityFiles, ExportsRoundTripAndFiguresRender) {
  const std::string& dir = dir_;
  ModelParams m = Sinusoid(12, 30, PeVariant::kTfText, WaveOrder::kSinFirst, 1.0, 4);
  m.measure = SimilarityMeasure::kCosine;
  const auto g = NaiveGram(m, true);
  const ViewSelection sel = DefaultViews(m);
  ASSERT_TRUE(ExportView(ViewKind::kSimilarity, m, sel, dir + "/s.npy", {}).ok());
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(dir + "/s.npy"), a, why)) << why;
  ASSERT_EQ(a.shape, (std::vector<int64_t>{30, 30}));
  for (size_t p = 0; p < 30; ++p) {
    for (size_t q = 0; q < 30; ++q) EXPECT_NEAR(a.data[p * 30 + q], g[p][q], Tol(1, 12));
  }
  ASSERT_TRUE(ExportView(ViewKind::kSimilarityOffset, m, sel, dir + "/o.csv", {}).ok());
  const auto rows = ParseCsv(ReadFile(dir + "/o.csv"));
  ASSERT_EQ(rows.size(), 60u);
  EXPECT_EQ(rows[1][0], "-29");
  EXPECT_EQ(rows[59][0], "29");
  for (ViewKind view : {ViewKind::kSimilarity, ViewKind::kSimilarityOffset}) {
    for (const char* ext : {"png", "svg", "pdf"}) {
      const std::string path = dir + "/f." + ext;
      const Status s = ExportView(view, m, sel, path, {});
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_GT(ReadFile(path).size(), 1000u) << path;
    }
  }
}

TEST(Similarity, FiguresSayWhatTheyShow) {
  auto legend = [](const ModelParams& m, ViewKind view) {
    Result<Figure> f = BuildViewFigure(view, m, DefaultViews(m), FigureSize{}, FigureFormat::kPng);
    EXPECT_TRUE(f.ok()) << f.message();
    std::string all;
    for (const FigureLegendItem& it : f.value().legend) all += it.label + "\n";
    return std::make_pair(f.value(), all);
  };
  {
    const auto [f, text] = legend(Sinusoid(16, 40, PeVariant::kPaper), ViewKind::kSimilarityOffset);
    EXPECT_TRUE(f.rects.empty());  // no band: it collapses to the line
    EXPECT_NE(text.find("band collapses"), std::string::npos) << text;
  }
  {
    const auto [f, text] = legend(Learned(16, 40), ViewKind::kSimilarityOffset);
    EXPECT_EQ(f.rects.size(), 79u);  // one slice per offset
    EXPECT_NE(text.find("wide band"), std::string::npos) << text;
  }
  {
    const auto [f, text] = legend(Sinusoid(7, 40, PeVariant::kPaper), ViewKind::kSimilarity);
    EXPECT_NE(text.find("not exactly Toeplitz"), std::string::npos) << text;
    ASSERT_TRUE(f.image);
    EXPECT_EQ(f.image->width, 40);
  }
  {
    const auto [f, text] =
        legend(Rope(16, 40, RopePairing::kHalf, RopeScaling::kNone), ViewKind::kSimilarity);
    EXPECT_NE(text.find("R_p u"), std::string::npos) << text;
  }
}

TEST(Similarity, RefusalsNameTheValueAndTheLimit) {
  // --measure takes the two measures only.
  ModelParams m;
  const ParamField* f = FindParamField("--measure");
  ASSERT_NE(f, nullptr);
  Status s = f->set(m, "foo");
  EXPECT_EQ(s.message(), "--measure must be dot or cosine, got \"foo\"");
  ASSERT_TRUE(f->set(m, "cosine").ok());
  EXPECT_EQ(m.measure, SimilarityMeasure::kCosine);
  EXPECT_EQ(f->get(m), "cosine");
  m.pe.scheme = AlibiParams{};
  EXPECT_NE(f->WhyNotApplicable(m), "");
  // The views need a vector per position.
  for (Scheme scheme : {Scheme::kAlibi, Scheme::kT5, Scheme::kXpos}) {
    ModelParams b;
    SetScheme(b, scheme);
    for (ViewKind v : {ViewKind::kSimilarity, ViewKind::kSimilarityOffset}) {
      const Status st = CheckViewApplies(v, b.pe);
      EXPECT_NE(st.message().find("needs a vector per position"), std::string::npos)
          << st.message();
    }
  }
  for (Scheme scheme : {Scheme::kSinusoidal, Scheme::kLearned, Scheme::kRope}) {
    ModelParams b;
    SetScheme(b, scheme);
    EXPECT_TRUE(ViewApplies(ViewKind::kSimilarity, b.pe));
    EXPECT_TRUE(ViewApplies(ViewKind::kSimilarityOffset, b.pe));
  }
  // The whole (L, L) table against the memory cap, before anything is written.
  Status st;
  const std::string out = WriteTable(
      ViewKind::kSimilarity, Sinusoid(128, 100000, PeVariant::kPaper), TableFormat::kNpy, &st);
  EXPECT_TRUE(out.empty());
  EXPECT_NE(st.message().find("100000 x 100000"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("over the memory cap of 2.0 GiB"), std::string::npos) << st.message();
  // The offset table of a learned table averages every pair: refused past the work limit with
  // the longest max_len that fits.
  ModelParams l = Learned(128, 20000, LearnedInit::kNormal002);
  WriteTable(ViewKind::kSimilarityOffset, l, TableFormat::kCsv, &st);
  EXPECT_NE(st.message().find("max_len 20000"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("at most 8192"), std::string::npos) << st.message();
  // The sinusoid's offset table needs no pairs: a long table is fine (only its size is checked).
  ModelParams big = Sinusoid(64, int64_t{1} << 31, PeVariant::kPaper);
  WriteTable(ViewKind::kSimilarityOffset, big, TableFormat::kCsv, &st);
  EXPECT_NE(st.message().find("4294967295 x 2"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace pe
