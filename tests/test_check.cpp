// Identification of a user's table (analysis/check.h). The tables are written here from the
// reference implementations' formulas, in double and rounded once to float32, independently of
// the engine: tensor2tensor's get_timing_signal_1d (common_attention.py), fairseq's
// SinusoidalPositionalEmbedding.get_embedding, the Annotated Transformer / DistilBERT
// interleaved table, Marian's [sin | cos] halves and HF's rotary cos/sin
// (LlamaRotaryEmbedding: inv_freq = 1 / theta^(2i/d), emb = cat(freqs, freqs)). RoPE's YaRN and
// Llama 3 tables come from the engine (their frequencies are checked against HF in
// test_rope.cpp) and test that the scaling is read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "analysis/check.h"
#include "encoding/encoding.h"
#include "encoding/rope.h"
#include "io/file_writers.h"
#include "test_support.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

Matrix Empty(int64_t rows, int64_t cols) {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.data.assign(static_cast<size_t>(rows * cols), 0.0f);
  return m;
}

// tensor2tensor get_timing_signal_1d (and fairseq with first = padding_idx + 1): num_timescales
// = d // 2, increment = ln(max / min) / max(num - 1, 1), inv_timescales = min * exp(-i inc),
// concat [sin, cos], a zero column for odd d. cos_first: MusicGen / diffusers' flip.
Matrix T2tTable(int64_t rows, int64_t d, double base, double min_ts, int64_t first, double scale,
                bool cos_first = false) {
  Matrix m = Empty(rows, d);
  const int64_t n = d / 2;
  const double inc = std::log(base / min_ts) / static_cast<double>(std::max<int64_t>(n - 1, 1));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < n; ++i) {
      const double angle = static_cast<double>(first + r) * min_ts * std::exp(-double(i) * inc);
      const double s = scale * std::sin(angle), c = scale * std::cos(angle);
      m.at(r, i) = static_cast<float>(cos_first ? c : s);
      m.at(r, n + i) = static_cast<float>(cos_first ? s : c);
    }
  }
  return m;
}

// DistilBERT create_sinusoidal_embeddings: column j holds the angle p / base^(2 (j // 2) / d),
// sin in even columns, cos in odd ones (odd d: the last column is a sin).
Matrix PaperTable(int64_t rows, int64_t d, double base, int64_t first, double scale) {
  Matrix m = Empty(rows, d);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < d; ++j) {
      const double angle =
          static_cast<double>(first + r) / std::pow(base, 2.0 * double(j / 2) / double(d));
      m.at(r, j) = static_cast<float>(scale * (j % 2 == 0 ? std::sin(angle) : std::cos(angle)));
    }
  }
  return m;
}

// Marian's _init_weight: the DistilBERT angles, sines of the even columns in the first
// ceil(d/2) columns, cosines of the odd ones after them.
Matrix MarianTable(int64_t rows, int64_t d, double base, int64_t first) {
  Matrix m = Empty(rows, d);
  const int64_t sines = (d + 1) / 2;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < d; ++j) {
      const int64_t i = j < sines ? j : j - sines;
      const double angle =
          static_cast<double>(first + r) / std::pow(base, 2.0 * double(i) / double(d));
      m.at(r, j) = static_cast<float>(j < sines ? std::sin(angle) : std::cos(angle));
    }
  }
  return m;
}

// HF rotary: inv_freq = 1 / theta^(arange(0, d, 2) / d) / factor (linear scaling), emb =
// cat(freqs, freqs) (half) or each frequency twice in a row (interleaved), cos or sin.
Matrix RopeTable(int64_t rows, int64_t d, double theta, bool interleaved, bool sin_part,
                 double factor = 1.0) {
  Matrix m = Empty(rows, d);
  const int64_t h = d / 2;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < h; ++i) {
      const double inv = 1.0 / std::pow(theta, 2.0 * double(i) / double(d)) / factor;
      const double a = static_cast<double>(r) * inv;
      const auto v = static_cast<float>(sin_part ? std::sin(a) : std::cos(a));
      if (interleaved) {
        m.at(r, 2 * i) = v, m.at(r, 2 * i + 1) = v;
      } else {
        m.at(r, i) = v, m.at(r, i + h) = v;
      }
    }
  }
  return m;
}

// HF modeling_rope_utils.py _compute_llama3_parameters: wavelengths 2 pi / inv_freq above
// original / low_freq_factor are divided by the factor, those below original / high_freq_factor
// kept, the ones between blended by smooth = (original / wavelen - low) / (high - low); then
// LlamaRotaryEmbedding's cos(cat(freqs, freqs)).
Matrix Llama3CosTable(int64_t rows, int64_t d, double theta, double factor, double original) {
  const double low = 1.0, high = 4.0;
  Matrix m = Empty(rows, d);
  const int64_t h = d / 2;
  for (int64_t i = 0; i < h; ++i) {
    const double inv = 1.0 / std::pow(theta, 2.0 * double(i) / double(d));
    const double wavelen = 2 * 3.14159265358979323846 / inv;
    double w = wavelen > original / low ? inv / factor : inv;
    if (!(wavelen < original / high) && !(wavelen > original / low)) {
      const double smooth = (original / wavelen - low) / (high - low);
      w = (1 - smooth) * w / factor + smooth * w;
    }
    for (int64_t r = 0; r < rows; ++r) {
      const auto v = static_cast<float>(std::cos(static_cast<double>(r) * w));
      m.at(r, i) = v, m.at(r, i + h) = v;
    }
  }
  return m;
}

CheckReport Check(const Matrix& t, const CheckConstraints& c = {}) {
  Result<CheckReport> r = CheckTable(t, c);
  EXPECT_TRUE(r.ok()) << r.message();
  return r.ok() ? r.value() : CheckReport{};
}

std::string Notes(const CheckReport& r) {
  std::string s;
  for (const std::string& n : r.notes) s += n + "\n";
  for (const CheckCandidate& c : r.ranked) {
    s += "  candidate: " + c.description + " score " + std::to_string(c.score) + "\n";
  }
  return s;
}

TEST(CheckUlps, HandValues) {
  EXPECT_EQ(UlpDistance(1.0f, 1.0f), 0);
  EXPECT_EQ(UlpDistance(1.0f, std::nextafter(1.0f, 2.0f)), 1);
  EXPECT_EQ(UlpDistance(std::nextafter(1.0f, 0.0f), 1.0f), 1);
  EXPECT_EQ(UlpDistance(1.0f, 2.0f), int64_t{1} << 23);  // 2^23 floats in [1, 2)
  EXPECT_EQ(UlpDistance(-0.0f, 0.0f), 0);
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(UlpDistance(-tiny, tiny), 2);  // -tiny, 0, tiny
  EXPECT_EQ(UlpDistance(-1.0f, 1.0f), 2 * int64_t{0x3f800000});
  EXPECT_EQ(UlpDistance(std::nanf(""), 1.0f), -1);
  EXPECT_EQ(UlpBucket(0), 0);
  EXPECT_EQ(UlpBucket(1), 1);
  EXPECT_EQ(UlpBucket(2), 2);
  EXPECT_EQ(UlpBucket(3), 2);
  EXPECT_EQ(UlpBucket(4), 3);
  EXPECT_EQ(UlpBucket(int64_t{1} << 40), kUlpBuckets - 1);
  EXPECT_EQ(UlpBucketLabel(3), "4-7");
}

TEST(CheckStats, WorstCellMeanAndHistogram) {
  Matrix ref = Empty(4, 3), t = Empty(4, 3);
  for (size_t k = 0; k < ref.data.size(); ++k) ref.data[k] = t.data[k] = 0.5f + 0.01f * float(k);
  t.at(2, 1) = std::nextafter(std::nextafter(ref.at(2, 1), 1.0f), 1.0f);  // 2 ulps up
  t.at(3, 2) = ref.at(3, 2) - 0.25f;
  Tolerance tol;
  const ErrorStats s = CompareTables(t, ref, tol);
  EXPECT_EQ(s.worst_row, 3);
  EXPECT_EQ(s.worst_col, 2);
  EXPECT_DOUBLE_EQ(s.max_abs, 0.25);
  EXPECT_EQ(s.ulp_histogram[0], 10);
  EXPECT_EQ(s.ulp_histogram[2], 1);
  EXPECT_EQ(s.over_tolerance, 2);  // 2 ulps of 0.71 (2^-24 each) and the 0.25
  EXPECT_NEAR(s.mean_abs, (0.25 + 2 * std::ldexp(1.0, -24)) / 12, 1e-12);
}

TEST(CheckIdentify, FairseqOffsetTwo) {
  const Matrix t = T2tTable(60, 32, 10000, 1, 2, 1);
  const CheckReport r = Check(t);
  ASSERT_FALSE(r.ranked.empty());
  const CheckCandidate& best = r.ranked[0];
  EXPECT_EQ(r.verdict, CheckVerdict::kMatch) << best.description;
  EXPECT_EQ(best.params.offset, 2);
  EXPECT_EQ(best.params.sinusoidal().variant, PeVariant::kT2t);
  EXPECT_EQ(best.preset, "fairseq");
  EXPECT_LE(best.stats.max_ulps, 1);
  ASSERT_GE(r.ranked.size(), 2u);
  // The runner-up is another layout: tf-text's [sin | cos] halves with base 10000^(16/15) are
  // the same numbers (exponent i/16 instead of i/15), an unround base no code uses.
  EXPECT_EQ(r.ranked[1].params.sinusoidal().variant, PeVariant::kTfText) << Notes(r);
  EXPECT_GT(r.ranked[1].unsnapped, 0);
}

// Every layout and order at random bases, offsets, scales and widths (odd and even).
TEST(CheckIdentify, SinusoidalAtRandomParameters) {
  std::mt19937_64 rng(12345);
  const double scales[] = {1.0, 0.5, 2.5};
  for (int trial = 0; trial < 24; ++trial) {
    const int64_t d = 6 + static_cast<int64_t>(rng() % 60);
    const int64_t first = static_cast<int64_t>(rng() % 40);
    // A base of two significant digits between 200 and 99000.
    const double base =
        std::round(std::exp(std::log(200.0) + (rng() % 1000) / 1000.0 * std::log(99000.0 / 200.0)));
    const double b2 = std::round(base / std::pow(10.0, std::floor(std::log10(base)) - 1)) *
                      std::pow(10.0, std::floor(std::log10(base)) - 1);
    const double scale = trial % 5 == 4 ? 1.0 / std::sqrt(double(d)) : scales[trial % 3];
    const int layout = trial % 4;
    Matrix t;
    PeVariant want = PeVariant::kT2t;
    WaveOrder order = WaveOrder::kSinFirst;
    if (layout == 0) {
      t = PaperTable(80, d, b2, first, scale);
      want = PeVariant::kPaper;
    } else if (layout == 1) {
      t = T2tTable(80, d, b2, 1, first, scale);
    } else if (layout == 2) {
      t = T2tTable(80, d | 1, b2, 1, first, scale, true);  // odd: zero last column
      order = WaveOrder::kCosFirst;
    } else {
      t = MarianTable(80, d, b2, first);
      want = PeVariant::kTfText;
    }
    SCOPED_TRACE("trial " + std::to_string(trial) + " d=" + std::to_string(t.cols) +
                 " base=" + std::to_string(b2) + " first=" + std::to_string(first));
    const CheckReport r = Check(t);
    ASSERT_FALSE(r.ranked.empty());
    const CheckCandidate& best = r.ranked[0];
    EXPECT_EQ(r.verdict, CheckVerdict::kMatch) << best.description << " " << best.score;
    ASSERT_EQ(best.params.kind(), Scheme::kSinusoidal) << best.description;
    const SinusoidalParams& s = best.params.sinusoidal();
    if (t.cols > 2) {
      EXPECT_EQ(s.variant, want) << best.description;
      EXPECT_EQ(s.order, order) << best.description;
    }
    EXPECT_EQ(s.base, b2) << best.description;
    EXPECT_EQ(best.params.offset, first) << best.description;
    if (layout != 3) {
      EXPECT_NEAR(s.output_scale, scale, 1e-6 * scale) << best.description;
    }
  }
}

TEST(CheckIdentify, Tensor2tensorMinTimescale) {
  const Matrix t = T2tTable(100, 40, 1.0e4, 2.0, 0, 1);
  const CheckReport r = Check(t);
  ASSERT_FALSE(r.ranked.empty());
  EXPECT_EQ(r.verdict, CheckVerdict::kMatch) << r.ranked[0].description;
  EXPECT_EQ(r.ranked[0].params.sinusoidal().min_timescale, 2.0);
  EXPECT_EQ(r.ranked[0].params.sinusoidal().base, 1.0e4);
}

TEST(CheckIdentify, RopePairingsAndParts) {
  for (bool interleaved : {false, true}) {
    for (bool sin_part : {false, true}) {
      for (double theta : {10000.0, 500000.0}) {
        const Matrix t = RopeTable(128, 64, theta, interleaved, sin_part);
        const CheckReport r = Check(t);
        ASSERT_FALSE(r.ranked.empty());
        const CheckCandidate& best = r.ranked[0];
        SCOPED_TRACE(best.description);
        EXPECT_EQ(r.verdict, CheckVerdict::kMatch);
        ASSERT_EQ(best.params.kind(), Scheme::kRope);
        EXPECT_EQ(best.params.rope().pairing,
                  interleaved ? RopePairing::kInterleaved : RopePairing::kHalf);
        EXPECT_EQ(best.params.rope().part, sin_part ? RopePart::kSin : RopePart::kCos);
        EXPECT_EQ(best.params.rope().theta, theta);
        EXPECT_EQ(best.params.rope().scaling, RopeScaling::kNone);
      }
    }
  }
}

TEST(CheckIdentify, RopeLinearScaling) {
  const Matrix t = RopeTable(256, 64, 10000, false, false, 4.0);
  const CheckReport r = Check(t);
  ASSERT_FALSE(r.ranked.empty());
  const CheckCandidate& best = r.ranked[0];
  EXPECT_EQ(r.verdict, CheckVerdict::kMatch) << best.description;
  ASSERT_EQ(best.params.kind(), Scheme::kRope);
  EXPECT_EQ(best.params.rope().scaling, RopeScaling::kLinear) << best.description;
  EXPECT_EQ(best.params.rope().factor, 4.0);
}

Matrix EngineTable(const EncodingParams& p) {
  Result<EncodingPtr> e = MakeEncoding(p);
  EXPECT_TRUE(e.ok()) << e.message();
  Result<Matrix> m = ComputeTable(*e.value());
  EXPECT_TRUE(m.ok());
  return m.value();
}

TEST(CheckIdentify, RopeScalingsReadBack) {
  struct Case {
    RopeScaling scaling;
    double theta, factor;
    int64_t original;
    RopePairing pairing;
  };
  const Case cases[] = {
      {RopeScaling::kNtk, 10000, 4, 8192, RopePairing::kHalf},
      {RopeScaling::kYarn, 10000, 8, 4096, RopePairing::kHalf},
      {RopeScaling::kYarn, 500000, 4, 8192, RopePairing::kInterleaved},
      {RopeScaling::kLlama3, 500000, 8, 8192, RopePairing::kHalf},
      {RopeScaling::kLlama3, 10000, 16, 2048, RopePairing::kInterleaved},
  };
  for (const Case& k : cases) {
    EncodingParams p;
    p.d_model = 64;
    p.max_len = 2048;
    RopeParams rp;
    rp.theta = k.theta;
    rp.scaling = k.scaling;
    rp.factor = k.factor;
    rp.original_max_len = k.original;
    rp.pairing = k.pairing;
    p.scheme = rp;
    const Matrix t = EngineTable(p);
    const CheckReport r = Check(t);
    ASSERT_FALSE(r.ranked.empty());
    const CheckCandidate& best = r.ranked[0];
    SCOPED_TRACE(std::string(RopeScalingName(k.scaling)) + " -> " + Notes(r));
    EXPECT_EQ(r.verdict, CheckVerdict::kMatch);
    ASSERT_EQ(best.params.kind(), Scheme::kRope);
    EXPECT_EQ(best.params.rope().scaling, k.scaling);
    EXPECT_EQ(best.params.rope().factor, k.factor);
    EXPECT_EQ(best.params.rope().theta, k.theta);
    EXPECT_EQ(best.params.rope().pairing, k.pairing);
  }
}

// The PyTorch tutorial's table (beginner_source/transformer_tutorial.py): position and
// div_term = exp(arange(0, d, 2) * (-ln(10000) / d)) in float32, sin/cos of their float32
// product.
TEST(CheckIdentify, Float32TableIsRecognised) {
  const int64_t rows = 2000, d = 64;
  Matrix t = Empty(rows, d);
  const float k = static_cast<float>(-std::log(10000.0) / double(d));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < d / 2; ++i) {
      const float div = std::exp(static_cast<float>(2 * i) * k);
      const float angle = static_cast<float>(r) * div;
      t.at(r, 2 * i) = std::sin(angle);
      t.at(r, 2 * i + 1) = std::cos(angle);
    }
  }
  const CheckReport r = Check(t);
  ASSERT_FALSE(r.ranked.empty());
  const CheckCandidate& best = r.ranked[0];
  EXPECT_EQ(r.verdict, CheckVerdict::kFloat32) << best.description << " " << best.score;
  EXPECT_EQ(best.params.sinusoidal().variant, PeVariant::kPaper);
  EXPECT_EQ(best.params.sinusoidal().base, 10000.0);
  EXPECT_GT(best.stats.mean_abs_tail, 3 * best.stats.mean_abs_head);
  EXPECT_NE(Notes(r).find("float32"), std::string::npos);
}

TEST(CheckIdentify, NoiseAndShuffledRowsFail) {
  Matrix t = T2tTable(100, 32, 10000, 1, 0, 1);
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 1e-3f);
  Matrix noisy = t;
  for (float& v : noisy.data) v += noise(rng);
  CheckReport r = Check(noisy);
  EXPECT_EQ(r.verdict, CheckVerdict::kNoMatch);
  EXPECT_NE(Notes(r).find("noise"), std::string::npos) << Notes(r);

  Matrix shuffled = t;
  std::vector<int64_t> order(100);
  for (int64_t k = 0; k < 100; ++k) order[static_cast<size_t>(k)] = k;
  std::shuffle(order.begin(), order.end(), rng);
  for (int64_t k = 0; k < 100; ++k) {
    std::copy(t.row(order[static_cast<size_t>(k)]), t.row(order[static_cast<size_t>(k)]) + 32,
              shuffled.row(k));
  }
  r = Check(shuffled);
  EXPECT_EQ(r.verdict, CheckVerdict::kNoMatch);
  ASSERT_FALSE(r.notes.empty());
}

TEST(CheckIdentify, ShapeMistakesAreNamed) {
  const Matrix t = PaperTable(50, 16, 10000, 0, 1);
  Matrix transposed = Empty(16, 50);
  for (int64_t r = 0; r < 50; ++r) {
    for (int64_t j = 0; j < 16; ++j) transposed.at(j, r) = t.at(r, j);
  }
  CheckReport r = Check(transposed);
  EXPECT_EQ(r.verdict, CheckVerdict::kNoMatch);
  EXPECT_NE(Notes(r).find("transposed"), std::string::npos) << Notes(r);

  Matrix extra = Empty(50, 17);
  for (int64_t row = 0; row < 50; ++row) {
    std::copy(t.row(row), t.row(row) + 16, extra.row(row));
    extra.at(row, 16) = 0.3f;
  }
  r = Check(extra);
  EXPECT_EQ(r.verdict, CheckVerdict::kNoMatch);
  EXPECT_NE(Notes(r).find("too many"), std::string::npos) << Notes(r);

  const Matrix full = T2tTable(50, 16, 10000, 1, 0, 1);
  Matrix missing = Empty(50, 15);  // the last cos column dropped
  for (int64_t row = 0; row < 50; ++row)
    std::copy(full.row(row), full.row(row) + 15, missing.row(row));
  r = Check(missing);
  EXPECT_EQ(r.verdict, CheckVerdict::kNoMatch);
  EXPECT_NE(Notes(r).find("missing"), std::string::npos) << Notes(r);

  Matrix shifted = t;
  for (float& v : shifted.data) v += 0.5f;
  r = Check(shifted);
  EXPECT_EQ(r.verdict, CheckVerdict::kNoMatch);
  EXPECT_NE(Notes(r).find("off by 0.5"), std::string::npos) << Notes(r);
}

TEST(CheckIdentify, FixedParametersRestrictTheSearch) {
  const Matrix t = T2tTable(60, 32, 10000, 1, 2, 1);
  CheckConstraints c;
  c.keys = {"scheme", "offset"};
  c.fixed.offset = 0;  // the wrong first position
  const CheckReport r = Check(t, c);
  ASSERT_FALSE(r.ranked.empty());
  EXPECT_EQ(r.verdict, CheckVerdict::kNoMatch);
  for (const CheckCandidate& cand : r.ranked) EXPECT_EQ(cand.params.offset, 0);

  CheckConstraints rope;
  rope.fixed.scheme = RopeParams{};
  rope.keys = {"scheme"};
  const CheckReport r2 = Check(t, rope);
  for (const CheckCandidate& cand : r2.ranked) EXPECT_EQ(cand.params.kind(), Scheme::kRope);
  EXPECT_EQ(r2.verdict, CheckVerdict::kNoMatch);
}

TEST(CheckIdentify, ToleranceLoosensTheMatch) {
  Matrix t = T2tTable(60, 32, 10000, 1, 0, 1);
  t.at(10, 3) += 1e-4f;
  CheckReport r = Check(t);
  EXPECT_EQ(r.verdict, CheckVerdict::kNoMatch);
  CheckConstraints c;
  c.tolerance = 2e-4;
  r = Check(t, c);
  EXPECT_EQ(r.verdict, CheckVerdict::kMatch);
  EXPECT_EQ(r.ranked[0].stats.worst_row, 10);
  EXPECT_EQ(r.ranked[0].stats.worst_col, 3);
}

TEST(CheckTensor, SqueezesUnitAxes) {
  Result<Matrix> m = TableFromTensor({5, 1, 4}, std::vector<float>(20, 0.0f));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value().rows, 5);
  EXPECT_EQ(m.value().cols, 4);
  EXPECT_FALSE(TableFromTensor({20}, std::vector<float>(20, 0.0f)).ok());
  EXPECT_FALSE(TableFromTensor({2, 2, 5}, std::vector<float>(20, 0.0f)).ok());
  EXPECT_EQ(DtypeSignificandBits("BF16"), 8);
  EXPECT_EQ(DtypeSignificandBits("<f2"), 11);
  EXPECT_EQ(DtypeSignificandBits("<f4"), 24);
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

// The check view of a file whose shape is not the current parameters': from the default
// window (the whole current table) it shows the whole file, the wrong cell included, and may
// pan over all of it; a window zoomed inside the file is kept.
TEST(CheckView, ShowsTheWholeFileFromTheDefaultWindow) {
  const std::string path = ::testing::TempDir() + "check_view_whole.npy";
  // Row 250, column 50: past (100, 128).
  ASSERT_TRUE(pe::testing::WriteSinusoidNpyWithAWrongCell(path, 300, 64, 250, 50));
  ModelParams m;  // d_model 128, max_len 100
  m.check_table = path;
  const EncodingPtr current = MakeEncoding(m.pe).value();
  ViewSelection sel = DefaultViews(m, *current);
  Result<Figure> f = GetView(ViewKind::kCheck).figure({m, current, sel, {}, FigureFormat::kPng});
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f.value().view, (ViewRange{0, 64, 0, 300}));
  ASSERT_TRUE(f.value().extent.has_value());
  EXPECT_EQ(*f.value().extent, (ViewRange{0, 64, 0, 300}));
  // The worst cell is in the window shown (no line saying the window's largest is smaller).
  auto window_note = [](const Figure& fig) {
    for (const FigureLegendItem& it : fig.legend) {
      if (it.label.find("largest |error| in the window shown") != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_FALSE(window_note(f.value()));
  // A window inside the file (not the whole current table) is what the view shows; this one
  // leaves the wrong cell out, and says so.
  sel.windows[ViewKind::kHeatmap] = {0, 40, 0, 200};
  f = GetView(ViewKind::kCheck).figure({m, current, sel, {}, FigureFormat::kPng});
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f.value().view, (ViewRange{0, 40, 0, 200}));
  EXPECT_TRUE(window_note(f.value()));
  std::remove(path.c_str());
}

// ---- the diagnosis: without an intent and against one ----------------------------------------

std::vector<std::string> Kinds(const CheckReport& r) {
  std::vector<std::string> out;
  for (const CheckDiagnosis& d : r.diagnosis) out.push_back(d.kind);
  return out;
}

CheckConstraints Intent(std::vector<std::string> keys, EncodingParams fixed) {
  CheckConstraints c;
  c.intent = true;
  c.keys = std::move(keys);
  c.fixed = std::move(fixed);
  return c;
}

EncodingParams RopeIntent(double theta, RopeScaling scaling = RopeScaling::kNone, double factor = 8,
                          RopePairing pairing = RopePairing::kHalf) {
  EncodingParams p;
  RopeParams r;
  r.theta = theta;
  r.scaling = scaling;
  r.factor = factor;
  r.original_max_len = 8192;
  r.pairing = pairing;
  p.scheme = r;
  return p;
}

TEST(CheckDiagnosis, OneWrongCellKeepsTheScalingAndIsNamed) {
  const Matrix clean = Llama3CosTable(2048, 128, 500000, 8, 8192);
  Matrix t = clean;
  t.at(1000, 60) += 0.01f;
  const std::vector<std::string> keys = {"scheme", "rope_theta", "rope_scaling", "scaling_factor",
                                         "original_max_len"};
  for (const CheckConstraints& c :
       {CheckConstraints{}, Intent(keys, RopeIntent(500000, RopeScaling::kLlama3))}) {
    const CheckReport r = Check(t, c);
    EXPECT_FALSE(r.matches);
    ASSERT_TRUE(r.identified.has_value()) << Notes(r);
    EXPECT_EQ(r.identified->params.kind(), Scheme::kRope);
    if (r.identified->params.kind() == Scheme::kRope) {
      EXPECT_EQ(r.identified->params.rope().scaling, RopeScaling::kLlama3);
      EXPECT_EQ(r.identified->params.rope().factor, 8.0);
      EXPECT_EQ(r.identified->params.rope().original_max_len, 8192);
    }
    EXPECT_EQ(Kinds(r), std::vector<std::string>{"cells"}) << Notes(r);
    ASSERT_FALSE(r.worst_cells.empty());
    EXPECT_EQ(r.worst_cells[0].position, 1000);
    EXPECT_EQ(r.worst_cells[0].col, 60);
    EXPECT_EQ(r.worst_cells[0].table, t.at(1000, 60));
    EXPECT_NEAR(r.worst_cells[0].reference, clean.at(1000, 60), 1.2e-7);
    EXPECT_EQ(r.has_intent, c.intent);
  }
  // The clean table is what the flags say.
  const CheckReport ok = Check(clean, Intent(keys, RopeIntent(500000, RopeScaling::kLlama3)));
  EXPECT_TRUE(ok.matches) << Notes(ok);
  EXPECT_TRUE(ok.diagnosis.empty());
}

// Under a cos intent whose base is wrong (no --part given: the intent's part is cos) the
// nearest candidate named is a cos table, never a sin one that happens to score closer.
TEST(CheckDiagnosis, NearestUnderTheIntentIsOfTheIntentsKind) {
  const Matrix t = RopeTable(256, 64, 10000, false, false);
  int sin_before = 0;
  for (double theta : {10.0, 100.0, 500.0, 1000.0, 50000.0, 500000.0, 1e7}) {
    const CheckReport r = Check(t, Intent({"scheme", "rope_theta"}, RopeIntent(theta)));
    EXPECT_FALSE(r.matches) << theta;
    ASSERT_FALSE(r.ranked.empty()) << theta;
    ASSERT_TRUE(r.intended.has_value()) << theta;
    for (const CheckCandidate* k : {&r.ranked.front(), &*r.intended}) {
      ASSERT_EQ(k->params.kind(), Scheme::kRope) << theta << Notes(r);
      EXPECT_EQ(k->params.rope().part, RopePart::kCos) << theta << Notes(r);
    }
    for (const CheckCandidate& k : r.ranked) {
      if (k.params.kind() == Scheme::kRope && k.params.rope().part == RopePart::kSin) ++sin_before;
    }
  }
  // Sin tables were among the candidates compared: the order above is the point of the test.
  EXPECT_GT(sin_before, 0);
}

TEST(CheckDiagnosis, PositionsFromOneCheckedAtZeroNameTheShift) {
  const Matrix t = T2tTable(120, 64, 10000, 1, 1, 1);  // OpenNMT-tf numbers tokens from 1
  EXPECT_TRUE(Check(t).matches);
  EncodingParams p;
  p.offset = 0;
  p.scheme = SinusoidalParams{.variant = PeVariant::kT2t};
  const CheckReport r = Check(t, Intent({"variant", "offset"}, p));
  EXPECT_FALSE(r.matches);
  ASSERT_EQ(Kinds(r), std::vector<std::string>{"offset"}) << Notes(r);
  EXPECT_EQ(r.diagnosis[0].value, 1.0);
  ASSERT_TRUE(r.intended && r.identified);
  EXPECT_EQ(r.intended->params.offset, 0);
  EXPECT_EQ(r.identified->params.offset, 1);
}

TEST(CheckDiagnosis, SwappedWavesAreOrderAndCosFirstIsWarned) {
  const Matrix t = T2tTable(120, 64, 10000, 1, 0, 1, /*cos_first=*/true);  // MusicGen
  const CheckReport id = Check(t);
  EXPECT_TRUE(id.matches);
  ASSERT_EQ(id.warnings.size(), 1u);
  EXPECT_NE(id.warnings[0].find("MusicGen"), std::string::npos);
  EncodingParams p;
  p.scheme = SinusoidalParams{.variant = PeVariant::kT2t, .order = WaveOrder::kSinFirst};
  const CheckReport r = Check(t, Intent({"variant", "order"}, p));
  EXPECT_FALSE(r.matches);
  EXPECT_EQ(Kinds(r), std::vector<std::string>{"order"}) << Notes(r);
}

TEST(CheckDiagnosis, InterleavedPairsWhereHalfWasMeant) {
  const Matrix t = RopeTable(256, 64, 10000, /*interleaved=*/true, /*sin_part=*/false);
  EXPECT_TRUE(Check(t).matches);
  const CheckReport r = Check(t, Intent({"scheme", "rope_pairing"}, RopeIntent(10000)));
  EXPECT_FALSE(r.matches);
  ASSERT_EQ(Kinds(r), std::vector<std::string>{"pairing"}) << Notes(r);
  EXPECT_NE(r.diagnosis[0].text.find("columns 2i and 2i + 1 of the table are columns i and i + 32"),
            std::string::npos)
      << r.diagnosis[0].text;
}

TEST(CheckDiagnosis, ExponentIOverDReadsAsBaseOneHundred) {
  // 10000^(i/d) with i the pair index = 100^(2i/d).
  const Matrix t = PaperTable(200, 64, 100, 0, 1);
  const CheckReport id = Check(t);
  EXPECT_TRUE(id.matches);
  ASSERT_EQ(id.warnings.size(), 1u);
  EncodingParams p;
  p.scheme = SinusoidalParams{.variant = PeVariant::kPaper, .base = 10000};
  const CheckReport r = Check(t, Intent({"variant", "base"}, p));
  EXPECT_FALSE(r.matches);
  ASSERT_EQ(Kinds(r), std::vector<std::string>{"exponent"}) << Notes(r);
  EXPECT_EQ(r.diagnosis[0].value, 100.0);
  // Another base altogether is `base`.
  const CheckReport b = Check(PaperTable(200, 64, 20000, 0, 1), Intent({"variant", "base"}, p));
  ASSERT_EQ(Kinds(b), std::vector<std::string>{"base"}) << Notes(b);
  EXPECT_EQ(b.diagnosis[0].value, 20000.0);
}

TEST(CheckDiagnosis, MissingScalingNamesTheConfigKey) {
  const Matrix t = RopeTable(2048, 128, 500000, false, false);
  CheckConstraints c = Intent({"scheme", "rope_theta", "rope_scaling", "scaling_factor"},
                              RopeIntent(500000, RopeScaling::kLlama3));
  c.fixed.d_model = 128;
  const CheckReport r = Check(t, c);
  EXPECT_FALSE(r.matches);
  ASSERT_EQ(Kinds(r), std::vector<std::string>{"scaling"}) << Notes(r);
  EXPECT_EQ(r.diagnosis[0].value, 1.0);
  c.model = "llama-3.1-8b, layer 0";
  c.model_format = "config.json (v4)";
  const CheckReport m = Check(t, c);
  ASSERT_EQ(Kinds(m), std::vector<std::string>{"scaling"}) << Notes(m);
  EXPECT_EQ(m.diagnosis[0].text.rfind("rope_scaling.factor is 8", 0), 0u) << m.diagnosis[0].text;
  // A linear factor 4 where 8 was meant: `scaling`, naming 4.
  const CheckReport f = Check(RopeTable(2048, 64, 10000, false, false, 4.0),
                              Intent({"scheme", "rope_scaling", "scaling_factor"},
                                     RopeIntent(10000, RopeScaling::kLinear, 8)));
  ASSERT_EQ(Kinds(f), std::vector<std::string>{"scaling"}) << Notes(f);
  EXPECT_EQ(f.diagnosis[0].value, 4.0);
}

}  // namespace
}  // namespace pe
