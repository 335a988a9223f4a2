// The projection view's PCA (analysis/pca.h) against closed forms and a naive power iteration,
// and the view's figure and tables against the PCA of the sentence's two point sets.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/pca.h"
#include "figure/label_placement.h"
#include "io/npy_reader.h"
#include "model/input_layer.h"
#include "model/param_fields.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

constexpr double kTol = 1e-9;       // double arithmetic on small, well-conditioned sets
constexpr double kFloatTol = 1e-5;  // points stored as float32

Matrix Points(int64_t n, int64_t d, const std::vector<double>& v) {
  Matrix m;
  m.rows = n;
  m.cols = d;
  for (double x : v) m.data.push_back(static_cast<float>(x));
  return m;
}

TEST(Pca, TwoDimensionsMatchTheClosedFormOfTheCovariance) {
  std::mt19937 gen(3);
  std::normal_distribution<double> z;
  std::vector<double> v;
  const int n = 50;
  for (int k = 0; k < n; ++k) {
    const double a = z(gen), b = z(gen);
    v.push_back(3 * a + 0.5 * b + 1.0);
    v.push_back(1 * a - 0.8 * b - 2.0);
  }
  const Matrix pts = Points(n, 2, v);
  // The 2x2 sample covariance [[a, b], [b, c]] of the float points, and its eigen pairs:
  // lambda = (a + c) / 2 +- sqrt(((a - c) / 2)^2 + b^2), first axis at angle
  // 0.5 atan2(2b, a - c).
  double mx = 0, my = 0;
  for (int k = 0; k < n; ++k) {
    mx += pts.at(k, 0) / n;
    my += pts.at(k, 1) / n;
  }
  double a = 0, b = 0, c = 0;
  for (int k = 0; k < n; ++k) {
    const double dx = pts.at(k, 0) - mx, dy = pts.at(k, 1) - my;
    a += dx * dx / (n - 1);
    b += dx * dy / (n - 1);
    c += dy * dy / (n - 1);
  }
  const double mid = (a + c) / 2, rad = std::sqrt((a - c) * (a - c) / 4 + b * b);
  const double angle = 0.5 * std::atan2(2 * b, a - c);
  const Pca2 pca = FitPca2(pts).value();
  EXPECT_NEAR(pca.variance[0], mid + rad, kTol);
  EXPECT_NEAR(pca.variance[1], mid - rad, kTol);
  EXPECT_NEAR(pca.total_variance, a + c, kTol);
  EXPECT_NEAR(pca.ratio[0] + pca.ratio[1], 1.0, kTol);  // d = 2: all the variance
  EXPECT_NEAR(std::abs(pca.axes[0][0] * std::cos(angle) + pca.axes[0][1] * std::sin(angle)), 1.0,
              kTol);
  EXPECT_NEAR(pca.axes[0][0] * pca.axes[1][0] + pca.axes[0][1] * pca.axes[1][1], 0.0, kTol);
}

// The top two eigenvectors of the covariance by power iteration with deflation.
std::vector<std::vector<double>> PowerIteration(const Matrix& pts, std::vector<double>* values) {
  const int64_t n = pts.rows, d = pts.cols;
  std::vector<double> mean(static_cast<size_t>(d));
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t j = 0; j < d; ++j)
      mean[static_cast<size_t>(j)] += pts.at(r, j) / static_cast<double>(n);
  }
  std::vector<std::vector<double>> cov(static_cast<size_t>(d),
                                       std::vector<double>(static_cast<size_t>(d)));
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t i = 0; i < d; ++i) {
      for (int64_t j = 0; j < d; ++j) {
        cov[static_cast<size_t>(i)][static_cast<size_t>(j)] +=
            (pts.at(r, i) - mean[static_cast<size_t>(i)]) *
            (pts.at(r, j) - mean[static_cast<size_t>(j)]) / static_cast<double>(n - 1);
      }
    }
  }
  std::vector<std::vector<double>> vecs;
  for (int k = 0; k < 2; ++k) {
    std::vector<double> x(static_cast<size_t>(d), 1.0);
    double lambda = 0;
    for (int it = 0; it < 5000; ++it) {
      std::vector<double> y(static_cast<size_t>(d));
      for (int64_t i = 0; i < d; ++i) {
        for (int64_t j = 0; j < d; ++j)
          y[static_cast<size_t>(i)] +=
              cov[static_cast<size_t>(i)][static_cast<size_t>(j)] * x[static_cast<size_t>(j)];
      }
      double norm = 0;
      for (double t : y) norm += t * t;
      norm = std::sqrt(norm);
      for (int64_t i = 0; i < d; ++i) x[static_cast<size_t>(i)] = y[static_cast<size_t>(i)] / norm;
      lambda = norm;
    }
    values->push_back(lambda);
    for (int64_t i = 0; i < d; ++i) {
      for (int64_t j = 0; j < d; ++j) {
        cov[static_cast<size_t>(i)][static_cast<size_t>(j)] -=
            lambda * x[static_cast<size_t>(i)] * x[static_cast<size_t>(j)];
      }
    }
    vecs.push_back(x);
  }
  return vecs;
}

TEST(Pca, AgreesWithNaivePowerIteration) {
  std::mt19937 gen(11);
  std::normal_distribution<double> z;
  const int n = 40, d = 7;
  std::vector<double> v;
  for (int k = 0; k < n; ++k) {
    for (int j = 0; j < d; ++j) v.push_back(z(gen) * (j == 2 ? 4.0 : j == 5 ? 2.5 : 1.0));
  }
  const Matrix pts = Points(n, d, v);
  std::vector<double> values;
  const auto vecs = PowerIteration(pts, &values);
  const Pca2 pca = FitPca2(pts).value();
  for (int k = 0; k < 2; ++k) {
    EXPECT_NEAR(pca.variance[static_cast<size_t>(k)], values[static_cast<size_t>(k)], 1e-8);
    double dot = 0;
    for (int j = 0; j < d; ++j)
      dot += pca.axes[static_cast<size_t>(k)][static_cast<size_t>(j)] *
             vecs[static_cast<size_t>(k)][static_cast<size_t>(j)];
    EXPECT_NEAR(std::abs(dot), 1.0, 1e-8) << "axis " << k;
  }
  EXPECT_LT(pca.ratio[0] + pca.ratio[1], 1.0);
  EXPECT_GT(pca.ratio[0], pca.ratio[1]);
}

TEST(Pca, PointsOnALineProjectToTheirDistanceAlongIt) {
  // x_k = p0 + t_k u in 3-D, u = (2, -1, 2) / 3: all the variance on PC1, coordinates t_k - mean.
  const double ts[] = {-2.0, -0.5, 0.0, 1.0, 4.0};
  std::vector<double> v;
  for (double t : ts) {
    v.push_back(1 + t * 2 / 3.0);
    v.push_back(-2 - t / 3.0);
    v.push_back(0.5 + t * 2 / 3.0);
  }
  const Matrix pts = Points(5, 3, v);
  const Pca2 pca = FitPca2(pts).value();
  EXPECT_NEAR(pca.ratio[0], 1.0, 1e-6);
  EXPECT_NEAR(pca.ratio[1], 0.0, 1e-6);
  // Sign convention: the largest loading (|2/3|, first of dims 0 and 2) is positive.
  EXPECT_NEAR(pca.axes[0][0], 2 / 3.0, 1e-6);
  EXPECT_NEAR(pca.axes[0][1], -1 / 3.0, 1e-6);
  const double mean_t = (-2.0 - 0.5 + 0 + 1 + 4) / 5;
  for (int k = 0; k < 5; ++k) {
    EXPECT_NEAR(ProjectPca2(pca, pts.row(k))[0], ts[k] - mean_t, kFloatTol);
  }
}

TEST(Pca, SignConventionMakesTheAxesIndependentOfTheInputsSign) {
  std::mt19937 gen(5);
  std::normal_distribution<double> z;
  std::vector<double> v, neg;
  for (int k = 0; k < 30 * 6; ++k) {
    v.push_back(z(gen) * (1 + k % 6));
    neg.push_back(-v.back());
  }
  const Pca2 a = FitPca2(Points(30, 6, v)).value();
  const Pca2 b = FitPca2(Points(30, 6, neg)).value();
  for (size_t k = 0; k < 2; ++k) {
    size_t largest = 0;
    for (size_t j = 0; j < 6; ++j) {
      EXPECT_NEAR(a.axes[k][j], b.axes[k][j], 1e-9);
      if (std::abs(a.axes[k][j]) > std::abs(a.axes[k][largest])) largest = j;
    }
    EXPECT_GT(a.axes[k][largest], 0.0);
  }
  // So the projections of -X are minus those of X.
  const Matrix px = Points(30, 6, v), pn = Points(30, 6, neg);
  EXPECT_NEAR(ProjectPca2(a, px.row(3))[0], -ProjectPca2(b, pn.row(3))[0], 1e-9);
}

TEST(Pca, LargestLoadingIsPositiveOnManyRandomSets) {
  // Whatever signs the solver returns, the convention holds on every set (sizes and
  // correlations vary, so both signs come out of the decomposition).
  std::mt19937 gen(21);
  std::normal_distribution<double> z;
  for (int set = 0; set < 60; ++set) {
    const int n = 3 + set % 9, d = 2 + set % 5;
    std::vector<double> v;
    for (int k = 0; k < n; ++k) {
      const double shared = z(gen);
      for (int j = 0; j < d; ++j) v.push_back(z(gen) + (j % 2 ? -2.0 : 1.5) * shared);
    }
    const Pca2 pca = FitPca2(Points(n, d, v)).value();
    for (size_t k = 0; k < 2; ++k) {
      size_t largest = 0;
      for (size_t j = 1; j < static_cast<size_t>(d); ++j) {
        if (std::abs(pca.axes[k][j]) > std::abs(pca.axes[k][largest])) largest = j;
      }
      if (pca.ratio[k] > 0) {
        EXPECT_GT(pca.axes[k][largest], 0.0) << "set " << set << " axis " << k;
      }
    }
  }
}

TEST(Pca, DegenerateSetsAndLimits) {
  const Pca2 one = FitPca2(Points(1, 3, {1, 2, 3})).value();
  EXPECT_EQ(one.ratio[0], 0.0);
  EXPECT_EQ(ProjectPca2(one, Points(1, 3, {1, 2, 3}).row(0))[0], 0.0);
  EXPECT_FALSE(FitPca2(Matrix{}).ok());
  Matrix big;
  big.rows = kMaxPcaPoints + 1;
  big.cols = 1;
  big.data.assign(static_cast<size_t>(big.rows), 0.0f);
  EXPECT_NE(FitPca2(big).message().find("2048"), std::string::npos);
}

TEST(LabelPlacement, LabelsAvoidEachOtherThePointsAndTheEdges) {
  const LabelRequest pts[] = {{50, 50, 0, 0}, {60, 50, 0, 0}, {195, 10, 0, 0}};
  const LabelRequest labels[] = {{50, 50, 30, 10}, {60, 50, 30, 10}, {195, 10, 30, 10}};
  const auto placed = PlaceLabels(labels, pts, 3, 2, {0, 0, 200, 100});
  for (size_t k = 0; k < 3; ++k) {
    ASSERT_TRUE(placed[k].shown) << k;
    EXPECT_GE(placed[k].x, 0);
    EXPECT_LE(placed[k].x + 30, 200);
    EXPECT_GE(placed[k].y, 0);
    for (const LabelRequest& p : pts) {  // no point under a label
      EXPECT_FALSE(p.x + 3 > placed[k].x && p.x - 3 < placed[k].x + 30 && p.y + 3 > placed[k].y &&
                   p.y - 3 < placed[k].y + 10);
    }
    for (size_t j = 0; j < k; ++j) {
      EXPECT_FALSE(placed[j].x < placed[k].x + 30 && placed[k].x < placed[j].x + 30 &&
                   placed[j].y < placed[k].y + 10 && placed[k].y < placed[j].y + 10);
    }
  }
}

ModelParams Sentence() {
  ModelParams m;
  m.pe.d_model = 16;
  m.example.text = "the cat sat on the mat";
  return m;
}

TEST(ProjectionView, FigureAndTablesAreThePcaOfBothParts) {
  const ModelParams m = Sentence();
  const ViewSelection sel = DefaultViews(m);
  Result<SentenceResult> s = ComputeSentence(m.example, m.pe, m.input);
  ASSERT_TRUE(s.ok());
  const InputParts& parts = s.value().parts;
  const int64_t t_count = parts.tokens();
  Matrix both = parts.scaled;
  both.rows = 2 * t_count;
  both.data.insert(both.data.end(), parts.sum.data.begin(), parts.sum.data.end());
  const Pca2 pca = FitPca2(both).value();

  Result<Figure> f = BuildViewFigure(ViewKind::kProjection, m, sel, {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  const FigureSeries& emb = f.value().series[f.value().series.size() - 2];
  const FigureSeries& in = f.value().series.back();
  ASSERT_EQ(emb.marker_xs.size(), static_cast<size_t>(t_count));
  for (int64_t t = 0; t < t_count; ++t) {
    EXPECT_NEAR(emb.marker_xs[static_cast<size_t>(t)], ProjectPca2(pca, parts.scaled.row(t))[0],
                kTol);
    EXPECT_NEAR(in.marker_ys[static_cast<size_t>(t)], ProjectPca2(pca, parts.sum.row(t))[1], kTol);
  }
  // Repeated "the": one embedding point, two inputs apart (position differs).
  EXPECT_EQ(emb.marker_xs[0], emb.marker_xs[4]);
  EXPECT_NE(in.marker_xs[0], in.marker_xs[4]);
  char pc1[64];
  std::snprintf(pc1, sizeof pc1, "PC1 (%.1f%% of the variance)", 100 * pca.ratio[0]);
  EXPECT_EQ(f.value().x.label, pc1);
  EXPECT_EQ(f.value().labels.size(), static_cast<size_t>(2 * t_count));

  Result<EncodingPtr> enc = MakeEncoding(m.pe, m.cap);
  const ViewContext c{m, enc.value(), sel, {}, FigureFormat::kPng};
  std::ostringstream csv;
  ASSERT_TRUE(GetView(ViewKind::kProjection).write_table(csv, TableFormat::kCsv, c, {}).ok());
  std::istringstream lines(csv.str());
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "token,position,id,part,pc1,pc2");
  std::getline(lines, line);
  EXPECT_EQ(line.substr(0, 20), "\"the\",0,0,embedding,");
  int rows = 1;
  std::string last;
  while (std::getline(lines, line)) {
    ++rows;
    last = line;
  }
  EXPECT_EQ(rows, 2 * t_count);
  EXPECT_EQ(last.substr(0, 16), "\"mat\",5,4,input,");

  std::ostringstream npy;
  ASSERT_TRUE(GetView(ViewKind::kProjection).write_table(npy, TableFormat::kNpy, c, {}).ok());
  const std::string bytes = npy.str();
  Result<NpyFloatArray> arr = ReadNpy(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
  ASSERT_TRUE(arr.ok()) << arr.message();
  EXPECT_EQ(arr.value().header.shape, (std::vector<int64_t>{2, t_count, 2}));
  const std::vector<float>& v = arr.value().tensor.data;
  for (int64_t t = 0; t < t_count; ++t) {
    EXPECT_NEAR(v[static_cast<size_t>(2 * t)], ProjectPca2(pca, parts.scaled.row(t))[0], kFloatTol);
    EXPECT_NEAR(v[static_cast<size_t>(2 * (t_count + t) + 1)],
                ProjectPca2(pca, parts.sum.row(t))[1], kFloatTol);
  }
}

TEST(ProjectionView, AppliesToAddedSchemesOnly) {
  ModelParams m = Sentence();
  EXPECT_TRUE(ViewApplies(ViewKind::kProjection, m.pe));
  SetScheme(m, Scheme::kRope);
  EXPECT_FALSE(ViewApplies(ViewKind::kProjection, m.pe));
}

// At d_model 1 there is nothing to lay out on two axes: the view says so instead of drawing
// axes in units of 1e-10 with "0.0% of the variance".
TEST(ProjectionView, DModelOneHasNothingToProject) {
  ModelParams m;
  m.pe.d_model = 1;
  Result<Figure> f =
      BuildViewFigure(ViewKind::kProjection, m, DefaultViews(m), FigureSize{}, FigureFormat::kPng);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("nothing to project"), std::string::npos) << f.message();
  EXPECT_NE(f.message().find("d_model 1"), std::string::npos) << f.message();
}

}  // namespace
}  // namespace pe
