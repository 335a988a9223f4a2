// The RoPE Encoding's tables against properties that hold for any correct rotary table, each
// checked cell by cell: the two pairings are one column permutation apart, rotating q and k
// with the table gives scores that depend on m - n only, cos^2 + sin^2 is the attention factor
// squared, the block fill and the column means agree with the per-cell formula, a cell's text
// carries its formula and value, and the angle table is p times the scaled frequency.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "base/matrix.h"
#include "base/random.h"
#include "encoding/encoding.h"
#include "encoding/rope.h"
#include "encoding/rope_encoding.h"

namespace pe {
namespace {

// One configuration of each scaling, with non-default knobs where a scaling has them.
struct ScalingCase {
  const char* name;
  RopeParams rope;
};

std::vector<ScalingCase> ScalingCases() {
  std::vector<ScalingCase> cases;
  RopeParams none;
  cases.push_back({"none", none});
  RopeParams linear;
  linear.scaling = RopeScaling::kLinear;
  linear.factor = 4.0;
  cases.push_back({"linear", linear});
  RopeParams ntk;
  ntk.scaling = RopeScaling::kNtk;
  ntk.factor = 8.0;
  cases.push_back({"ntk", ntk});
  RopeParams dyn;
  dyn.scaling = RopeScaling::kDynamicNtk;
  dyn.factor = 4.0;
  dyn.original_max_len = 1024;
  dyn.sequence_len = 6000;
  cases.push_back({"dynamic-ntk", dyn});
  RopeParams yarn;
  yarn.scaling = RopeScaling::kYarn;
  yarn.factor = 16.0;
  yarn.original_max_len = 2048;
  cases.push_back({"yarn (default attention factor)", yarn});
  RopeParams yarn_given = yarn;
  yarn_given.theta = 500000.0;
  yarn_given.attention_factor = 1.7;
  yarn_given.beta_fast = 16.0;
  yarn_given.beta_slow = 2.0;
  cases.push_back({"yarn (given attention factor)", yarn_given});
  RopeParams llama3;
  llama3.theta = 500000.0;
  llama3.scaling = RopeScaling::kLlama3;
  llama3.factor = 8.0;
  llama3.original_max_len = 8192;
  cases.push_back({"llama3", llama3});
  RopeParams partial = yarn;
  partial.rotary_fraction = 0.5;
  cases.push_back({"yarn, half the dims rotated", partial});
  return cases;
}

EncodingParams Params(const RopeParams& rope, RopePairing pairing, RopePart part, int64_t d = 64,
                      int64_t max_len = 4096, int64_t offset = 0) {
  EncodingParams p;
  p.d_model = d;
  p.max_len = max_len;
  p.offset = offset;
  RopeParams r = rope;
  r.pairing = pairing;
  r.part = part;
  p.scheme = r;
  return p;
}

EncodingPtr Make(const EncodingParams& p) {
  Result<EncodingPtr> e = MakeEncoding(p);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? e.value() : nullptr;
}

Matrix Table(const EncodingParams& p) {
  EncodingPtr e = Make(p);
  if (!e) return {};
  Result<Matrix> m = ComputeTable(*e);
  EXPECT_TRUE(m.ok());
  return m.ok() ? std::move(m.value()) : Matrix{};
}

std::vector<double> RandomVector(uint64_t seed, int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) v[static_cast<size_t>(j)] = RandomNormal(seed, uint64_t(j));
  return v;
}

// x rotated to position row of the cos / sin tables, in the half layout: HF
// modeling_llama.py apply_rotary_pos_emb, x * cos + rotate_half(x) * sin, where
// rotate_half(x) = cat(-x[h:], x[:h]).
std::vector<double> RotateHalf(const std::vector<double>& x, const Matrix& cos, const Matrix& sin,
                               int64_t row) {
  const auto d = static_cast<int64_t>(x.size());
  const int64_t h = d / 2;
  std::vector<double> out(x.size());
  for (int64_t j = 0; j < d; ++j) {
    const double rotated = j < h ? -x[static_cast<size_t>(j + h)] : x[static_cast<size_t>(j - h)];
    out[static_cast<size_t>(j)] =
        x[static_cast<size_t>(j)] * cos.at(row, j) + rotated * sin.at(row, j);
  }
  return out;
}

// The same in the interleaved layout: each pair (2i, 2i + 1) turned as the complex number
// x_2i + i x_2i+1 times e^{i p w} (Meta's llama/model.py apply_rotary_emb, GPT-J's
// rotate_every_two: (x_2i, x_2i+1) -> (x_2i cos - x_2i+1 sin, x_2i+1 cos + x_2i sin)).
std::vector<double> RotateInterleaved(const std::vector<double>& x, const Matrix& cos,
                                      const Matrix& sin, int64_t row) {
  const auto d = static_cast<int64_t>(x.size());
  std::vector<double> out(x.size());
  for (int64_t i = 0; i < d / 2; ++i) {
    const double a = x[static_cast<size_t>(2 * i)], b = x[static_cast<size_t>(2 * i + 1)];
    out[static_cast<size_t>(2 * i)] = a * cos.at(row, 2 * i) - b * sin.at(row, 2 * i);
    out[static_cast<size_t>(2 * i + 1)] = b * cos.at(row, 2 * i + 1) + a * sin.at(row, 2 * i + 1);
  }
  return out;
}

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t j = 0; j < a.size(); ++j) s += a[j] * b[j];
  return s;
}

double Norm(const std::vector<double>& a) {
  return std::sqrt(Dot(a, a));
}

std::vector<double> Permuted(const std::vector<double>& x, const std::vector<int64_t>& perm) {
  std::vector<double> out(x.size());
  for (size_t j = 0; j < x.size(); ++j) out[j] = x[static_cast<size_t>(perm[j])];
  return out;
}

TEST(RopeEncoding, HalfAndInterleavedAreOneColumnPermutationApart) {
  for (const ScalingCase& sc : ScalingCases()) {
    for (RopePart part : {RopePart::kCos, RopePart::kSin}) {
      const Matrix half = Table(Params(sc.rope, RopePairing::kHalf, part, 64, 1500, 3));
      const Matrix inter = Table(Params(sc.rope, RopePairing::kInterleaved, part, 64, 1500, 3));
      ASSERT_EQ(half.rows, inter.rows);
      ASSERT_EQ(half.cols, inter.cols);
      const std::vector<int64_t> perm = InterleavedToHalfPermutation(half.cols);
      ASSERT_EQ(static_cast<int64_t>(perm.size()), half.cols);
      // perm is a permutation
      std::vector<int64_t> sorted = perm;
      std::sort(sorted.begin(), sorted.end());
      for (int64_t j = 0; j < half.cols; ++j) ASSERT_EQ(sorted[static_cast<size_t>(j)], j);
      int64_t mismatches = 0;
      for (int64_t r = 0; r < half.rows; ++r) {
        for (int64_t j = 0; j < half.cols; ++j) {
          if (half.at(r, j) != inter.at(r, perm[static_cast<size_t>(j)])) ++mismatches;
        }
      }
      EXPECT_EQ(mismatches, 0) << sc.name << ", " << RopePartName(part);
      // ... and not the identity: the layouts do differ
      int64_t moved = 0;
      for (int64_t j = 0; j < half.cols; ++j) moved += half.at(7, j) != inter.at(7, j);
      EXPECT_GT(moved, 0) << sc.name;
    }
  }
}

// Every scaling here keeps RoPE a rotation by p * w_i per pair: they change the frequencies
// only, and YaRN's attention factor multiplies cos and sin alike, so R_m becomes A * (a
// rotation) on both q and k and the score picks up A^2 whatever m and n are. So
// <R_m q, R_n k> = A^2 sum_i Re[(q_i)(conj k_i) e^{i (m - n) w_i}] depends on m - n alone.
TEST(RopeEncoding, ScoresDependOnlyOnTheRelativePosition) {
  const int64_t d = 64;
  for (const ScalingCase& sc : ScalingCases()) {
    SCOPED_TRACE(sc.name);
    const EncodingParams pc = Params(sc.rope, RopePairing::kHalf, RopePart::kCos, d);
    const double a = ComputeRopeFrequencies(pc).attention_factor;
    const Matrix hc = Table(pc);
    const Matrix hs = Table(Params(sc.rope, RopePairing::kHalf, RopePart::kSin, d));
    const Matrix ic = Table(Params(sc.rope, RopePairing::kInterleaved, RopePart::kCos, d));
    const Matrix is = Table(Params(sc.rope, RopePairing::kInterleaved, RopePart::kSin, d));
    const int64_t d_rot = hc.cols;
    const std::vector<int64_t> perm = InterleavedToHalfPermutation(d_rot);
    std::mt19937_64 rng(20240611);
    for (int trial = 0; trial < 4; ++trial) {
      // q and k in the interleaved model's dimension order; the half model sees them permuted
      // (as HF permutes W_q and W_k when converting Meta's Llama weights).
      const std::vector<double> q = RandomVector(1000 + static_cast<uint64_t>(trial), d_rot);
      const std::vector<double> k = RandomVector(2000 + static_cast<uint64_t>(trial), d_rot);
      const std::vector<double> qh = Permuted(q, perm), kh = Permuted(k, perm);
      // float32 table values carry ~6e-8 relative error each; the score's error stays well
      // under 1e-5 of |q| |k| A^2, while a wrong pairing or angle moves it by O(1) of that.
      const double scale = Norm(q) * Norm(k) * a * a;
      for (int64_t diff : {0, 1, -1, 3, 17, -250, 1000, -3000, 4000}) {
        double first = 0;
        bool have_first = false;
        for (int64_t n = std::max<int64_t>(0, -diff); n + diff < hc.rows && n < hc.rows;
             n += 1 + static_cast<int64_t>(rng() % 397)) {
          const int64_t m = n + diff;
          const double half = Dot(RotateHalf(qh, hc, hs, m), RotateHalf(kh, hc, hs, n));
          const double inter =
              Dot(RotateInterleaved(q, ic, is, m), RotateInterleaved(k, ic, is, n));
          EXPECT_LE(std::abs(inter - half), 1e-12 * scale)
              << "interleaved vs permuted half, m " << m << " n " << n;
          if (!have_first) {
            first = half;
            have_first = true;
            // m = n: the rotation cancels, the score is A^2 <q, k>
            if (diff == 0) {
              EXPECT_LE(std::abs(half - a * a * Dot(q, k)), 1e-5 * scale);
            }
            continue;
          }
          EXPECT_LE(std::abs(half - first), 1e-5 * scale) << "m " << m << " n " << n;
        }
        EXPECT_TRUE(have_first) << diff;
      }
    }
  }
}

TEST(RopeEncoding, CosSquaredPlusSinSquaredIsTheAttentionFactorSquared) {
  for (const ScalingCase& sc : ScalingCases()) {
    for (RopePairing pairing : {RopePairing::kHalf, RopePairing::kInterleaved}) {
      const EncodingParams pc = Params(sc.rope, pairing, RopePart::kCos, 128, 3000, 11);
      const double a = ComputeRopeFrequencies(pc).attention_factor;
      if (sc.rope.scaling != RopeScaling::kYarn) {
        EXPECT_EQ(a, 1.0) << sc.name;
      } else if (sc.rope.attention_factor) {
        EXPECT_EQ(a, *sc.rope.attention_factor) << sc.name;
      } else {
        EXPECT_GT(a, 1.0) << sc.name;  // 0.1 ln 16 + 1
      }
      const Matrix c = Table(pc);
      const Matrix s = Table(Params(sc.rope, pairing, RopePart::kSin, 128, 3000, 11));
      double worst = 0;
      for (size_t k = 0; k < c.data.size(); ++k) {
        const double cc = c.data[k], ss = s.data[k];
        worst = std::max(worst, std::abs(cc * cc + ss * ss - a * a));
      }
      EXPECT_LE(worst, 1e-6) << sc.name << ", attention factor " << a;
    }
  }
}

// FillBlock goes through the angle-addition recurrence (wave.h), which is within ~1e-13 of
// the directly computed value before the float32 rounding: a cell equals the rounded
// WaveValueAt, or, when that double lies within 1e-12 of a rounding midpoint, its neighbour.
TEST(RopeEncoding, FillBlockIsTheRoundedPerCellValueAndMeansAgree) {
  std::mt19937_64 rng(77);
  int64_t cells = 0, equal = 0;
  for (const ScalingCase& sc : ScalingCases()) {
    for (RopePairing pairing : {RopePairing::kHalf, RopePairing::kInterleaved}) {
      for (RopePart part : {RopePart::kCos, RopePart::kSin, RopePart::kAngle}) {
        const EncodingParams p = Params(sc.rope, pairing, part, 128, 5000, 123);
        EncodingPtr e = Make(p);
        ASSERT_TRUE(e);
        const std::span<const WaveColumn> waves = e->waves();
        ASSERT_EQ(static_cast<int64_t>(waves.size()), e->cols());
        for (int trial = 0; trial < 6; ++trial) {
          const int64_t rows = 1 + static_cast<int64_t>(rng() % 1500);
          const int64_t row0 =
              static_cast<int64_t>(rng() % static_cast<uint64_t>(e->rows() - rows + 1));
          const int64_t cols = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(e->cols()));
          const int64_t col0 =
              static_cast<int64_t>(rng() % static_cast<uint64_t>(e->cols() - cols + 1));
          std::vector<float> block(static_cast<size_t>(rows * cols));
          e->FillBlock(row0, rows, col0, cols, block.data());
          std::vector<double> sum(static_cast<size_t>(cols), 0.0);
          for (int64_t r = 0; r < rows; ++r) {
            const int64_t position = p.offset + row0 + r;
            for (int64_t j = 0; j < cols; ++j) {
              const WaveColumn& w = waves[static_cast<size_t>(col0 + j)];
              const double exact = WaveValueAt(w, static_cast<double>(position));
              const float got = block[static_cast<size_t>(r * cols + j)];
              const float naive = static_cast<float>(exact);
              ++cells;
              sum[static_cast<size_t>(j)] += got;
              if (got == naive) {
                ++equal;
                continue;
              }
              const float other = exact > static_cast<double>(naive)
                                      ? std::nextafter(naive, INFINITY)
                                      : std::nextafter(naive, -INFINITY);
              const double midpoint = 0.5 * (static_cast<double>(naive) + other);
              ASSERT_TRUE(got == other && std::abs(exact - midpoint) <= 1e-12)
                  << sc.name << " " << RopePartName(part) << " position " << position << " col "
                  << col0 + j << ": got " << got << ", WaveValueAt " << exact;
            }
          }
          std::vector<double> mean(static_cast<size_t>(cols));
          e->MeanOverRows(row0, rows, col0, cols, mean.data());
          for (int64_t j = 0; j < cols; ++j) {
            const double cell_mean = sum[static_cast<size_t>(j)] / static_cast<double>(rows);
            // angles reach ~5000 rad: their float32 cells carry 1e-6 of that
            const double tol = 1e-6 * std::max(1.0, std::abs(cell_mean));
            EXPECT_NEAR(mean[static_cast<size_t>(j)], cell_mean, tol)
                << sc.name << " " << RopePartName(part) << " rows [" << row0 << ", " << row0 + rows
                << ") col " << col0 + j;
          }
        }
      }
    }
  }
  EXPECT_GT(cells, 1'000'000);
  // the neighbour case is rare: nearly every cell is bit-identical
  EXPECT_GE(static_cast<double>(equal), 0.9999 * static_cast<double>(cells));
}

TEST(RopeEncoding, DescribeCellOfALinearlyInterpolatedPair) {
  RopeParams r;
  r.theta = 500000.0;
  r.scaling = RopeScaling::kLinear;
  r.factor = 8.0;
  for (RopePairing pairing : {RopePairing::kHalf, RopePairing::kInterleaved}) {
    for (RopePart part : {RopePart::kCos, RopePart::kSin}) {
      const EncodingParams p = Params(r, pairing, part, 128, 64);
      EncodingPtr e = Make(p);
      ASSERT_TRUE(e);
      const Matrix table = Table(p);
      // the columns of pair 12 in this layout
      const std::vector<int64_t> cols = pairing == RopePairing::kHalf
                                            ? std::vector<int64_t>{12, 12 + 64}
                                            : std::vector<int64_t>{24, 25};
      for (int64_t col : cols) {
        const std::string text = e->DescribeCell(37, col);
        const std::string head =
            std::string(part == RopePart::kCos ? "cos" : "sin") + "(37 * 500000^(-24/128) / 8) = ";
        ASSERT_EQ(text.rfind(head, 0), 0u) << text;
        const std::string number = text.substr(head.size());
        // four decimals, nothing after
        const size_t dot = number.find('.');
        ASSERT_NE(dot, std::string::npos) << text;
        EXPECT_EQ(number.size() - dot - 1, 4u) << text;
        const double shown = std::strtod(number.c_str(), nullptr);
        const double want = table.at(37, col);
        // %.4f of the double value; the float32 cell may sit on the other side of a rounding
        // boundary, hence half a unit of the last decimal plus the cell's rounding
        EXPECT_LE(std::abs(shown - want), 0.5e-4 + 1e-7) << text << " vs " << want;
        // and the angle it names: 37 * 500000^(-24/128) / 8
        const double angle = 37.0 * std::pow(500000.0, -24.0 / 128.0) / 8.0;
        EXPECT_NEAR(want, part == RopePart::kCos ? std::cos(angle) : std::sin(angle), 1e-7);
      }
    }
  }
}

TEST(RopeEncoding, AngleIsThePositionTimesTheScaledFrequency) {
  for (const ScalingCase& sc : ScalingCases()) {
    for (RopePairing pairing : {RopePairing::kHalf, RopePairing::kInterleaved}) {
      const EncodingParams p = Params(sc.rope, pairing, RopePart::kAngle, 128, 3000, 1000);
      const RopeFrequencies f = ComputeRopeFrequencies(p);
      const Matrix angle = Table(p);
      ASSERT_EQ(angle.cols, f.d_rot / 2) << sc.name;
      ASSERT_EQ(angle.rows, 3000);
      int64_t mismatches = 0;
      for (int64_t r = 0; r < angle.rows; ++r) {
        const double position = static_cast<double>(p.offset + r);
        for (int64_t i = 0; i < angle.cols; ++i) {
          const float want = static_cast<float>(position * f.pairs[static_cast<size_t>(i)].scaled);
          if (angle.at(r, i) != want) ++mismatches;
        }
      }
      EXPECT_EQ(mismatches, 0) << sc.name << ", " << RopePairingName(pairing);
    }
  }
}

}  // namespace
}  // namespace pe
