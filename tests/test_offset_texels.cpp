// The offset-texel machinery against independent values: every cell summed by brute force in
// long double, exact angles in long double at positions near 1e9, and the lattice's promises.
#include <gtest/gtest.h>
#include <quadmath.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "analysis/offset_texels.h"
#include "analysis/similarity.h"
#include "base/simd_path.h"
#include "encoding/encoding.h"
#include "encoding/wave.h"
#include "views/heatmap_raster.h"

namespace pe {
namespace {

// Waves like a d = 2h sinusoidal table's (w = 10000^(-i/h)) with random complex weights.
std::vector<WaveTerm> RandomTerms(int h, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<WaveTerm> t;
  for (int i = 0; i < h; ++i) {
    t.push_back({std::pow(10000.0, -static_cast<double>(i) / h), u(gen), u(gen)});
  }
  return t;
}

// f(t) in long double from the angle w t reduced in long double (t a multiple of 1/2).
long double F(const std::vector<WaveTerm>& terms, long double t) {
  long double acc = 0;
  for (const WaveTerm& term : terms) {
    const long double angle =
        std::remainder(static_cast<long double>(term.w) * t, 2 * std::numbers::pi_v<long double>);
    acc += term.hr * std::cos(angle) - term.hi * std::sin(angle);
  }
  return acc;
}

double SumAbs(const std::vector<WaveTerm>& terms) {
  double s = 0;
  for (const WaveTerm& t : terms) s += std::hypot(t.hr, t.hi);
  return s;
}

// Every path: kBest forced onto each SIMD path this processor has (skipped, naming the missing
// feature, where it lacks one), and kPlain.
struct WaveSumCase {
  WaveSumPath sum;
  SimdPath simd;
};
class WaveSumPaths : public testing::TestWithParam<WaveSumCase> {
 protected:
  void SetUp() override {
    const std::string missing = MissingSimdFeatures(GetParam().simd);
    if (!missing.empty()) GTEST_SKIP() << "this processor lacks " << missing;
    ASSERT_EQ(ForceSimdPath(GetParam().simd).path, GetParam().simd);
  }
  void TearDown() override { ClearForcedSimdPath(); }
};
INSTANTIATE_TEST_SUITE_P(Paths, WaveSumPaths,
                         testing::Values(WaveSumCase{WaveSumPath::kBest, SimdPath::kAvx512},
                                         WaveSumCase{WaveSumPath::kBest, SimdPath::kAvx2},
                                         WaveSumCase{WaveSumPath::kBest, SimdPath::kScalar},
                                         WaveSumCase{WaveSumPath::kPlain, SimdPath::kAvx2}),
                         [](const testing::TestParamInfo<WaveSumCase>& param) {
                           return std::string(param.param.sum == WaveSumPath::kPlain ? "plain_"
                                                                                     : "best_") +
                                  std::string(SimdPathName(param.param.simd));
                         });

TEST_P(WaveSumPaths, MatchesEveryValueFromItsOwnExactAngle) {
  // 600 terms: three blocks, a ragged last lane group; 5000 values: three anchors.
  const std::vector<WaveTerm> terms = RandomTerms(600, 1);
  for (const auto& [start2, step] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 1}, {1'999'999'999, 1'333'334}, {2'000'000'001, -2'000'000}, {-7, 3}}) {
    const int64_t n = 5000;
    std::vector<double> fast(n), naive(n);
    WaveSumAlong(terms, start2, step, n, fast.data(), GetParam().sum);
    WaveSumAlongNaive(terms, start2, step, n, naive.data());
    for (int64_t t = 0; t < n; t += 1) {
      ASSERT_NEAR(fast[t], naive[t], 1e-12 * SumAbs(terms)) << "start2 " << start2 << " t " << t;
    }
    // And against long double at a few values.
    for (int64_t t : {int64_t{0}, int64_t{2047}, int64_t{2048}, int64_t{4999}}) {
      const long double at =
          static_cast<long double>(start2) / 2 + static_cast<long double>(step) * t;
      EXPECT_NEAR(fast[t], static_cast<double>(F(terms, at)), 1e-11 * SumAbs(terms));
    }
  }
}

TEST_P(WaveSumPaths, OneValueAndRaggedLaneGroups) {
  // Term counts around every lane group and block size, one value (no step) and a few.
  for (int count : {1, 7, 16, 17, 31, 32, 33, 255, 257}) {
    const std::vector<WaveTerm> terms = RandomTerms(count, 40 + count);
    for (int64_t n : {1, 2, 9}) {
      std::vector<double> fast(n), naive(n);
      WaveSumAlong(terms, 999'999'999, -4321, n, fast.data(), GetParam().sum);
      WaveSumAlongNaive(terms, 999'999'999, -4321, n, naive.data());
      for (int64_t t = 0; t < n; ++t) {
        ASSERT_NEAR(fast[t], naive[t], 1e-13 * SumAbs(terms)) << count << " terms, t " << t;
      }
    }
  }
}

// e^{i m w} many at a time on each path against quadruple precision (113 significant bits: the
// product of an integer below 2^53 and a double is exact in it, and so is its reduction by 2 pi
// to ~1e-34 relative), for multiples up to 4e9 and frequencies from 1e-12 to 3 (angles up to
// 1.2e10 rad, just below the 2^31 turns the reduction serves), and the scalar path bit for bit
// against ExpOfMultiple.
TEST_P(WaveSumPaths, ExpOfMultiplesIsEachAngleToTheLastBits) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> logw(-12.0, 0.5);
  std::vector<double> w(1003);
  for (double& x : w) x = std::pow(10.0, logw(gen));
  w[0] = 0.0;
  w[1] = 1.0;
  // (M_PIq's literal suffix needs GNU extensions, which the build leaves off.)
  const __float128 two_pi = strtoflt128("6.28318530717958647692528676655900576839", nullptr);
  for (double m : {0.0, 1.0, -3.0, 4097.0, 1e9 + 7, -4e9 - 3, 4e9 + 1}) {
    std::vector<double> re(w.size()), im(w.size());
    ExpOfMultiples(m, w, re.data(), im.data());
    for (size_t l = 0; l < w.size(); ++l) {
      const __float128 angle = remainderq(static_cast<__float128>(m) * w[l], two_pi);
      // Sine and cosine of the reduced angle to an ulp or two.
      constexpr double kTol = 4e-16;
      ASSERT_NEAR(re[l], static_cast<double>(cosq(angle)), kTol) << "m " << m << " w " << w[l];
      ASSERT_NEAR(im[l], static_cast<double>(sinq(angle)), kTol) << "m " << m << " w " << w[l];
      if (ActiveSimdPath() == SimdPath::kScalar) {
        const UnitComplex z = ExpOfMultiple(m, w[l]);
        ASSERT_EQ(re[l], z.re);
        ASSERT_EQ(im[l], z.im);
      }
    }
  }
}

TEST(WaveSumAlong, IndependentOfTheThreadSplit) {
  // The same values whether the terms come in one call or are summed by the caller in blocks:
  // bit-identical across runs (fixed block order).
  const std::vector<WaveTerm> terms = RandomTerms(1000, 2);
  std::vector<double> a(3000), b(3000);
  WaveSumAlong(terms, 12345, 777, 3000, a.data());
  WaveSumAlong(terms, 12345, 777, 3000, b.data());
  EXPECT_EQ(a, b);
}

TEST(DirichletMean, IsTheMeanOfTheCentredWaves) {
  for (int64_t n : {1, 2, 3, 10, 101, 4096}) {
    for (double w : {1.0, 0.5, 1e-3, 1e-4, 3.0}) {
      long double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        sum += std::cos(static_cast<long double>(w) * (k - (n - 1) / 2.0L));
      }
      EXPECT_NEAR(DirichletMean(n, w), static_cast<double>(sum / n), 1e-13) << n << " " << w;
    }
  }
}

TEST(ChooseOffsetLattice, ABillionPositionsInAFrameTakeFewOffsets) {
  const int64_t L = 1'000'000'000;
  const std::optional<OffsetLattice> lat = ChooseOffsetLattice(0, L, 800, 0, L, 500);
  ASSERT_TRUE(lat);
  // Near the texels one per pixel gives, never more; spans on the lattice; edges cover the
  // window exactly; about 3000 distinct offsets for 400 000 texels.
  EXPECT_LE(lat->nx(), 800);
  EXPECT_LE(lat->ny(), 500);
  EXPECT_GE(lat->nx(), 0.9 * 800);
  EXPECT_GE(lat->ny(), 0.9 * 500);
  EXPECT_GE(lat->nx() * lat->ny(), 0.9 * 800 * 500);
  EXPECT_EQ(lat->sx, lat->b * lat->u);
  EXPECT_EQ(lat->sy, lat->a * lat->u);
  EXPECT_EQ(lat->x_edges.front(), 0);
  EXPECT_EQ(lat->x_edges.back(), L);
  EXPECT_EQ(lat->y_edges.back(), L);
  for (size_t i = 0; i + 2 < lat->x_edges.size(); ++i) {
    ASSERT_EQ(lat->x_edges[i + 1] - lat->x_edges[i], lat->sx);
  }
  EXPECT_LE(lat->values(), 4 * (800 + 500));
  // A window whose sides differ a million-fold per pixel has no such lattice.
  EXPECT_FALSE(ChooseOffsetLattice(0, 800, 800, 0, L, 500));
}

// Every texel of OffsetTexelMeans against the brute-force mean over its cells, in long double,
// for windows at 0 and near 1e9 with and without cut-short last spans.
TEST(OffsetTexelMeans, EachTexelIsTheMeanOfItsCells) {
  const std::vector<WaveTerm> terms = RandomTerms(12, 3);
  struct Window {
    int64_t x_lo, x_hi;
    int x_px;
    int64_t y_lo, y_hi;
    int y_px;
  };
  for (const Window& win :
       {Window{0, 640, 40, 0, 640, 25}, Window{13, 13 + 617, 37, 5, 5 + 401, 19},
        Window{999'999'000, 999'999'000 + 500, 30, 999'000'000, 999'000'000 + 333, 20},
        Window{0, 64, 8, 0, 64, 8}}) {
    const std::optional<OffsetLattice> lat =
        ChooseOffsetLattice(win.x_lo, win.x_hi, win.x_px, win.y_lo, win.y_hi, win.y_px);
    ASSERT_TRUE(lat) << win.x_lo;
    std::vector<double> out(static_cast<size_t>(lat->nx()) * lat->ny());
    OffsetTexelMeans(terms, *lat, out.data());
    // f at each offset once, then each texel's mean.
    const int64_t k0 = win.x_lo - (win.y_hi - 1), k1 = win.x_hi - 1 - win.y_lo;
    std::vector<long double> f(static_cast<size_t>(k1 - k0 + 1));
    for (int64_t k = k0; k <= k1; ++k) f[static_cast<size_t>(k - k0)] = F(terms, k);
    for (int y = 0; y < lat->ny(); ++y) {
      for (int x = 0; x < lat->nx(); ++x) {
        long double sum = 0;
        int64_t cells = 0;
        for (int64_t p = lat->y_edges[y]; p < lat->y_edges[y + 1]; ++p) {
          for (int64_t q = lat->x_edges[x]; q < lat->x_edges[x + 1]; ++q) {
            sum += f[static_cast<size_t>(q - p - k0)];
            ++cells;
          }
        }
        ASSERT_NEAR(out[static_cast<size_t>(y) * lat->nx() + x], static_cast<double>(sum / cells),
                    1e-12 * SumAbs(terms))
            << "window at " << win.x_lo << " texel " << x << "," << y;
      }
    }
  }
}

TEST(AddSumPositionMeans, EachTexelIsTheMeanOfItsCells) {
  const std::vector<WaveTerm> terms = RandomTerms(3, 4);
  const std::vector<int64_t> xs = {999'999'990, 999'999'997, 1'000'000'004, 1'000'000'006};
  const std::vector<int64_t> ys = {5, 9, 20};
  std::vector<double> out(6, 0.5);
  AddSumPositionMeans(terms, xs, ys, out.data());
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) {
      long double sum = 0;
      int64_t cells = 0;
      for (int64_t p = ys[y]; p < ys[y + 1]; ++p) {
        for (int64_t q = xs[x]; q < xs[x + 1]; ++q) {
          sum += F(terms, static_cast<long double>(q + p));
          ++cells;
        }
      }
      // The long double reference's own angle error at 1e9 is ~5e-11 rad.
      EXPECT_NEAR(out[static_cast<size_t>(y * 3 + x)], 0.5 + static_cast<double>(sum / cells),
                  1e-9);
    }
  }
}

TEST(SpanMeansOfWaves, EachSpanIsTheMeanOfItsPositions) {
  const std::vector<WaveTerm> terms = RandomTerms(20, 5);
  const std::vector<int64_t> edges = {1'000'000, 1'000'037, 1'000'074,
                                      1'000'111, 1'000'120, 1'000'121};
  std::vector<double> out(edges.size() - 1);
  SpanMeansOfWaves(terms, edges, out.data());
  for (size_t i = 0; i + 1 < edges.size(); ++i) {
    long double sum = 0;
    for (int64_t p = edges[i]; p < edges[i + 1]; ++p) sum += F(terms, p);
    EXPECT_NEAR(out[i], static_cast<double>(sum / (edges[i + 1] - edges[i])),
                1e-12 * SumAbs(terms));
  }
}

// The similarity raster of a whole 1e9-position table against the texel means computed one by one
// from the similarity's own exact mean vectors (bilinearity), at a few texels.
TEST(SimilarityRaster, ABillionPositionsIsExactPerTexel) {
  // Odd d: the paper's unpaired column adds a wave of q + p (large over a million positions).
  for (int64_t d : {64, 63}) {
    for (double end : {1e9, 1e6}) {
      EncodingParams p;
      p.d_model = d;
      p.max_len = 1'000'000'000;
      const PositionSimilarity sim =
          PositionSimilarity::Make(MakeEncoding(p).value(), SimilarityMeasure::kDot).value();
      const SimilarityRaster r = ComputeSimilarityRaster(sim, {0, end, 0, end, 800, 500});
      ASSERT_TRUE(r.exact);
      ASSERT_GE(r.width, 720);
      ASSERT_GE(r.height, 450);
      std::vector<double> u(static_cast<size_t>(d)), v(static_cast<size_t>(d));
      double scale = 0;
      for (float x : r.values) scale = std::max(scale, static_cast<double>(std::abs(x)));
      ASSERT_GT(scale, 0);
      for (int y : {0, 1, 7, r.height / 2, r.height - 1}) {
        for (int x : {0, 1, 3, r.width / 2, r.width - 1}) {
          sim.MeanVector(r.p_edges[y], r.p_edges[y + 1] - r.p_edges[y], u.data());
          sim.MeanVector(r.q_edges[x], r.q_edges[x + 1] - r.q_edges[x], v.data());
          EXPECT_NEAR(r.values[static_cast<size_t>(y) * r.width + x], DotOf(u.data(), v.data(), d),
                      1e-6 * scale)
              << "d " << d << " end " << end << " texel " << x << "," << y;
        }
      }
    }
  }
}

}  // namespace
}  // namespace pe
