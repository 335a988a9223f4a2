// xPos against torchscale's XPOS (torchscale/component/xpos_relative_position.py), rebuilt here
// in double step by step: the `scale` buffer, fixed_pos_embedding's frequencies, the centred
// min_pos, the slice to the last `length` rows, downscale for keys and duplicate_interleave.
// Then the properties any correct xPos has: q_m . k_n depends on m - n only, each pair of a
// rotated query or key is scaled by exactly its decay, the block fill and the column means agree
// with the per-cell values, and parameters out of range are refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "base/matrix.h"
#include "encoding/encoding.h"
#include "encoding/xpos.h"

namespace pe {
namespace {

EncodingParams Params(int64_t d, int64_t max_len, int64_t offset, RopePart part, XposSide side,
                      XposPositions positions = XposPositions::kAbsolute) {
  EncodingParams p;
  p.d_model = d;
  p.max_len = max_len;
  p.offset = offset;
  XposParams x;
  x.part = part;
  x.side = side;
  x.positions = positions;
  p.scheme = x;
  return p;
}

EncodingPtr Make(const EncodingParams& p) {
  Result<EncodingPtr> e = MakeEncoding(p);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? e.value() : nullptr;
}

// Python's a // b for b > 0.
int64_t FloorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// torchscale's XPOS(head_dim=d, scale_base).forward(x, offset, downscale) for x of `length`
// rows, reduced to the table it multiplies x by: (length, d) cos * scale or sin * scale
// (duplicate_interleave: each pair's value twice in a row), or (length, d/2) angles. `centred`
// false replaces torchscale's decay positions min_pos + k by the absolute positions k.
std::vector<double> TorchscaleTable(int64_t d, double scale_base, int64_t length, int64_t offset,
                                    bool downscale, RopePart part, bool centred) {
  const int64_t h = d / 2;
  // self.scale = (arange(0, head_dim, 2) + 0.4 * head_dim) / (1.4 * head_dim)
  std::vector<double> zeta(static_cast<size_t>(h));
  for (int64_t i = 0; i < h; ++i) {
    zeta[static_cast<size_t>(i)] = (2.0 * double(i) + 0.4 * double(d)) / (1.4 * double(d));
  }
  // min_pos = -(length + offset) // 2; max_pos = length + offset + min_pos
  const int64_t total = length + offset;
  const int64_t min_pos = centred ? FloorDiv(-total, 2) : 0;
  // scale = self.scale ** arange(min_pos, max_pos).div(scale_base)[:, None]: (total, h)
  // fixed_pos_embedding(scale): dim = h, inv_freq = 1 / 10000 ** (arange(0, dim) / dim),
  // angles arange(0, total) x inv_freq
  // the last `length` rows when total > length
  const int64_t cols = part == RopePart::kAngle ? h : d;
  std::vector<double> out(static_cast<size_t>(length * cols));
  for (int64_t r = 0; r < length; ++r) {
    const int64_t k = total - length + r;  // row index into the (total, h) tensors
    for (int64_t i = 0; i < h; ++i) {
      const double inv_freq = 1.0 / std::pow(10000.0, double(i) / double(h));
      const double angle = double(k) * inv_freq;
      double scale = std::pow(zeta[static_cast<size_t>(i)], double(min_pos + k) / scale_base);
      if (downscale) scale = 1.0 / scale;
      if (part == RopePart::kAngle) {
        out[static_cast<size_t>(r * cols + i)] = angle;
        continue;
      }
      const double v = (part == RopePart::kCos ? std::cos(angle) : std::sin(angle)) * scale;
      out[static_cast<size_t>(r * cols + 2 * i)] = v;
      out[static_cast<size_t>(r * cols + 2 * i + 1)] = v;
    }
  }
  return out;
}

TEST(Xpos, ZetaGoldens) {
  // torchscale's scale buffer at head_dim 128: (0 + 51.2) / 179.2 and (126 + 51.2) / 179.2
  EXPECT_NEAR(XposZeta(128, 0), 0.2857143, 5e-8);
  EXPECT_NEAR(XposZeta(128, 63), 0.9888393, 5e-8);
  EXPECT_DOUBLE_EQ(XposZeta(128, 0), 2.0 / 7.0);
  EXPECT_DOUBLE_EQ(XposZeta(2, 0), 2.0 / 7.0);  // pair 0 is 2/7 for every d
  for (int64_t i = 0; i < 64; ++i) EXPECT_LT(XposZeta(128, i), 1.0);
}

TEST(Xpos, FrequenciesAreFixedPosEmbeddings) {
  // 1 / 10000^(i / (d/2)) over dim = d/2 columns is RoPE's 10000^(-2i/d)
  for (int64_t d : {2, 8, 64, 128, 256}) {
    for (int64_t i = 0; i < d / 2; ++i) {
      const double torchscale = 1.0 / std::pow(10000.0, double(i) / double(d / 2));
      EXPECT_NEAR(XposFrequency(10000.0, d, i), torchscale, 1e-15 * torchscale) << d << " " << i;
    }
  }
}

TEST(Xpos, TableIsTorchscalesConstruction) {
  int64_t cells = 0;
  for (int64_t d : {2, 16, 128}) {
    for (int64_t length : {1, 7, 100, 513}) {
      for (int64_t offset : {0, 3, 1000}) {
        for (XposPositions positions : {XposPositions::kCentred, XposPositions::kAbsolute}) {
          for (XposSide side : {XposSide::kQuery, XposSide::kKey}) {
            for (RopePart part : {RopePart::kCos, RopePart::kSin, RopePart::kAngle}) {
              const EncodingParams p = Params(d, length, offset, part, side, positions);
              EncodingPtr e = Make(p);
              ASSERT_TRUE(e);
              Result<Matrix> table = ComputeTable(*e);
              ASSERT_TRUE(table.ok());
              const std::vector<double> ref =
                  TorchscaleTable(d, 512.0, length, offset, side == XposSide::kKey, part,
                                  positions == XposPositions::kCentred);
              ASSERT_EQ(table.value().rows, length);
              ASSERT_EQ(static_cast<size_t>(table.value().rows * table.value().cols), ref.size());
              // the worst cell against float32 rounding (6e-8 relative) and the last bits of
              // angles up to ~1500 rad
              double worst = 0;
              size_t worst_at = 0;
              for (size_t j = 0; j < ref.size(); ++j) {
                const double got = table.value().data[j];
                const double excess =
                    std::abs(got - ref[j]) / (2e-7 * std::max(1.0, std::abs(ref[j])));
                if (!(excess <= worst)) worst = excess, worst_at = j;
                ++cells;
              }
              EXPECT_LE(worst, 1.0)
                  << "d " << d << " length " << length << " offset " << offset << " "
                  << XposPositionsName(positions) << " " << XposSideName(side) << " "
                  << RopePartName(part) << ": cell " << worst_at << " is "
                  << table.value().data[worst_at] << ", torchscale " << ref[worst_at];
            }
          }
        }
      }
    }
  }
  EXPECT_GT(cells, 100'000);
}

TEST(Xpos, CentreShiftIsPythonsFloorDivision) {
  // -(length + offset) // 2: -3 for 5, -2 for 4, -1 for 1
  EXPECT_EQ(
      XposCentreShift(Params(8, 5, 0, RopePart::kCos, XposSide::kQuery, XposPositions::kCentred)),
      -3);
  EXPECT_EQ(
      XposCentreShift(Params(8, 1, 3, RopePart::kCos, XposSide::kQuery, XposPositions::kCentred)),
      -2);
  EXPECT_EQ(
      XposCentreShift(Params(8, 1, 0, RopePart::kCos, XposSide::kQuery, XposPositions::kCentred)),
      -1);
  EXPECT_EQ(XposCentreShift(Params(8, 5, 0, RopePart::kCos, XposSide::kQuery)), 0);
}

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

TEST(Xpos, ScoresDependOnlyOnTheRelativePosition) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  for (XposPositions positions : {XposPositions::kAbsolute, XposPositions::kCentred}) {
    const int64_t d = 64;
    EncodingPtr e = Make(Params(d, 4000, 0, RopePart::kCos, XposSide::kQuery, positions));
    ASSERT_TRUE(e);
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> q(d), k(d);
      for (auto& v : q) v = normal(rng);
      for (auto& v : k) v = normal(rng);
      const int64_t delta = static_cast<int64_t>(rng() % 600) - 300;
      double first = NAN;
      for (int64_t m : {300, 517, 1200, 3000}) {
        std::vector<double> qm = q, kn = k;
        e->RotateQuery(m, qm.data());
        e->RotateKey(m - delta, kn.data());
        const double s = Dot(qm, kn);
        if (std::isnan(first)) {
          first = s;
        } else {
          EXPECT_NEAR(s, first, 1e-10 * std::max(1.0, std::abs(first)))
              << XposPositionsName(positions) << " m " << m << " m - n " << delta;
        }
      }
      // the score at distance delta is sum_i zeta_i^(delta/512) (rotation by delta w_i)
      double expect = 0;
      for (int64_t i = 0; i < d / 2; ++i) {
        const double a = double(delta) * XposFrequency(10000.0, d, i);
        const double z = std::pow(XposZeta(d, i), double(delta) / 512.0);
        const double x0 = q[2 * i], y0 = q[2 * i + 1];
        expect += z * ((x0 * std::cos(a) - y0 * std::sin(a)) * k[2 * i] +
                       (y0 * std::cos(a) + x0 * std::sin(a)) * k[2 * i + 1]);
      }
      EXPECT_NEAR(first, expect, 1e-10 * std::max(1.0, std::abs(expect)));
    }
  }
}

TEST(Xpos, RotationsScaleEachPairByItsDecay) {
  std::mt19937_64 rng(9);
  std::normal_distribution<double> normal;
  const int64_t d = 128;
  for (XposPositions positions : {XposPositions::kAbsolute, XposPositions::kCentred}) {
    const EncodingParams p = Params(d, 3000, 0, RopePart::kCos, XposSide::kQuery, positions);
    EncodingPtr e = Make(p);
    ASSERT_TRUE(e);
    const int64_t shift = XposCentreShift(p);
    for (int64_t n : {0, 1, 37, 512, 2999}) {
      std::vector<double> v(d);
      for (auto& x : v) x = normal(rng);
      std::vector<double> q = v, k = v;
      e->RotateQuery(n, q.data());
      e->RotateKey(n, k.data());
      for (int64_t i = 0; i < d / 2; ++i) {
        const double len = std::hypot(v[2 * i], v[2 * i + 1]);
        const double z = std::pow(XposZeta(d, i), double(n + shift) / 512.0);
        EXPECT_NEAR(std::hypot(q[2 * i], q[2 * i + 1]), len * z, 1e-12 * len * z) << n << " " << i;
        EXPECT_NEAR(std::hypot(k[2 * i], k[2 * i + 1]), len / z, 1e-12 * len / z) << n << " " << i;
      }
    }
  }
}

TEST(Xpos, FillBlockIsTheRoundedPerCellValueAndMeansAgree) {
  std::mt19937_64 rng(77);
  int64_t cells = 0, equal = 0;
  for (XposSide side : {XposSide::kQuery, XposSide::kKey}) {
    for (XposPositions positions : {XposPositions::kAbsolute, XposPositions::kCentred}) {
      for (RopePart part : {RopePart::kCos, RopePart::kSin, RopePart::kAngle}) {
        const EncodingParams p = Params(128, 5000, 123, part, side, positions);
        EncodingPtr e = Make(p);
        ASSERT_TRUE(e);
        Result<Matrix> whole = ComputeTable(*e);
        ASSERT_TRUE(whole.ok());
        const ValueRange range = e->Range();
        for (float v : whole.value().data) {
          ASSERT_TRUE(std::isfinite(v));
          ASSERT_GE(v, range.lo);
          ASSERT_LE(v, range.hi);
        }
        for (int trial = 0; trial < 6; ++trial) {
          const int64_t rows = 1 + static_cast<int64_t>(rng() % 2500);
          const int64_t row0 =
              static_cast<int64_t>(rng() % static_cast<uint64_t>(e->rows() - rows + 1));
          const int64_t cols = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(e->cols()));
          const int64_t col0 =
              static_cast<int64_t>(rng() % static_cast<uint64_t>(e->cols() - cols + 1));
          std::vector<float> block(static_cast<size_t>(rows * cols));
          e->FillBlock(row0, rows, col0, cols, block.data());
          std::vector<double> sum(static_cast<size_t>(cols), 0.0);
          double biggest = 0;
          for (int64_t r = 0; r < rows; ++r) {
            for (int64_t j = 0; j < cols; ++j) {
              const float got = block[static_cast<size_t>(r * cols + j)];
              // a block is the same bits as the whole table
              ASSERT_EQ(got,
                        whole.value().data[static_cast<size_t>((row0 + r) * e->cols() + col0 + j)]);
              const double exact = e->ValueAt(col0 + j, double(p.offset + row0 + r));
              const float naive = static_cast<float>(exact);
              ++cells;
              sum[static_cast<size_t>(j)] += got;
              biggest = std::max(biggest, std::abs(exact));
              if (got == naive) {
                ++equal;
                continue;
              }
              const float other = exact > double(naive) ? std::nextafter(naive, INFINITY)
                                                        : std::nextafter(naive, -INFINITY);
              const double midpoint = 0.5 * (double(naive) + double(other));
              ASSERT_TRUE(got == other && std::abs(exact - midpoint) <= 1e-12 * std::abs(exact))
                  << "position " << p.offset + row0 + r << " col " << col0 + j << ": got " << got
                  << ", ValueAt " << exact;
            }
          }
          std::vector<double> mean(static_cast<size_t>(cols));
          e->MeanOverRows(row0, rows, col0, cols, mean.data());
          for (int64_t j = 0; j < cols; ++j) {
            const double cell_mean = sum[static_cast<size_t>(j)] / static_cast<double>(rows);
            EXPECT_NEAR(mean[static_cast<size_t>(j)], cell_mean, 1e-6 * std::max(1.0, biggest))
                << XposSideName(side) << " " << RopePartName(part) << " rows [" << row0 << ", "
                << row0 + rows << ") col " << col0 + j;
          }
        }
      }
    }
  }
  EXPECT_GT(cells, 500'000);
  EXPECT_GE(static_cast<double>(equal), 0.9999 * static_cast<double>(cells));
}

TEST(Xpos, HugeQueryTableUnderflowsToZeroAndItsMeansStayFast) {
  // absolute positions, query side: the decay only shrinks, so any length is a valid table;
  // float32 rounds the far rows to 0 as torchscale's float32 does
  const EncodingParams p = Params(128, 1'000'000'000, 0, RopePart::kCos, XposSide::kQuery);
  EncodingPtr e = Make(p);
  ASSERT_TRUE(e);
  std::vector<float> row(128);
  e->FillBlock(999'999'999, 1, 0, 128, row.data());
  for (float v : row) EXPECT_EQ(v, 0.0f);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<double> mean(128);
  for (int y = 0; y < 1000; ++y) {
    e->MeanOverRows(int64_t{1'000'000} * y, 1'000'000, 0, 128, mean.data());
    for (double m : mean) ASSERT_TRUE(std::isfinite(m));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 1.0);
  // the first million rows: mostly the slowest pair's slow decay
  e->MeanOverRows(0, 1'000'000, 126, 1, mean.data());
  // sum_n zeta^(n/512) cos(n w) over all n, for w ~ 1.15e-4 and ln zeta ~ -0.0112: the closed
  // form Re(1 / (1 - z)) / 1e6, z = e^(ln(zeta)/512 + i w)
  const double c = std::log(XposZeta(128, 63)) / 512.0, w = XposFrequency(10000.0, 128, 63);
  const double re = 1.0 - std::exp(c) * std::cos(w), im = -std::exp(c) * std::sin(w);
  EXPECT_NEAR(mean[0], re / (re * re + im * im) / 1e6, 1e-9);
}

TEST(Xpos, DescribeCellCarriesItsFormula) {
  EncodingPtr e = Make(Params(128, 100, 0, RopePart::kCos, XposSide::kQuery));
  ASSERT_TRUE(e);
  const std::string s = e->DescribeCell(37, 24);
  EXPECT_NE(s.find("cos(37 * 10000^(-24/128)) * 0.4196429^(37/512) = "), std::string::npos) << s;
  EncodingPtr k =
      Make(Params(128, 100, 0, RopePart::kSin, XposSide::kKey, XposPositions::kCentred));
  ASSERT_TRUE(k);
  const std::string t = k->DescribeCell(37, 25);
  EXPECT_NE(t.find("sin(37 * 10000^(-24/128)) * 0.4196429^(-(37 - 50)/512) = "), std::string::npos)
      << t;
  const double v = std::sin(37 * XposFrequency(10000, 128, 12)) *
                   std::pow(XposZeta(128, 12), -(37.0 - 50.0) / 512.0);
  EXPECT_NEAR(k->ValueAt(25, 37.0), v, 1e-12);
}

std::string Refusal(const EncodingParams& p) {
  Status s = ValidateEncodingParams(p);
  EXPECT_FALSE(s.ok());
  return s.ok() ? std::string() : s.message();
}

TEST(Xpos, BadValuesAreRefusedByName) {
  EncodingParams p = Params(127, 100, 0, RopePart::kCos, XposSide::kQuery);
  EXPECT_NE(Refusal(p).find("d_model) must be even and >= 2"), std::string::npos);
  EXPECT_NE(Refusal(p).find("got 127"), std::string::npos);
  p.d_model = 1;
  EXPECT_NE(Refusal(p).find("got 1"), std::string::npos);
  p.d_model = 128;
  for (double theta : {1.0, 0.5, -3.0, double(NAN), double(INFINITY)}) {
    p.xpos().theta = theta;
    EXPECT_NE(Refusal(p).find("theta (--rope-theta) must be a finite number greater than 1"),
              std::string::npos);
  }
  p.xpos().theta = 10000;
  for (double sb : {0.0, -512.0, double(NAN), double(INFINITY)}) {
    p.xpos().scale_base = sb;
    EXPECT_NE(Refusal(p).find("scale_base must be a finite number greater than 0"),
              std::string::npos);
  }
  p.xpos().scale_base = 512;
  EXPECT_TRUE(ValidateEncodingParams(p).ok());
}

TEST(Xpos, TablesThatWouldPassFloatMaxAreRefusedAtTheirLimit) {
  // key side, absolute: 0.2857^(-n/512) <= FLT_MAX up to n = 512 ln(FLT_MAX) / ln(3.5)
  const double limit_n = 512.0 * std::log(3.4028234663852886e38) / -std::log(2.0 / 7.0);
  for (XposPositions positions : {XposPositions::kAbsolute, XposPositions::kCentred}) {
    for (XposSide side : {XposSide::kKey, XposSide::kQuery}) {
      if (positions == XposPositions::kAbsolute && side == XposSide::kQuery) continue;
      EncodingParams p = Params(128, 1'000'000, 0, RopePart::kCos, side, positions);
      const std::string why = Refusal(p);
      EXPECT_NE(why.find("max_len must be in [1, "), std::string::npos) << why;
      EXPECT_NE(why.find("got 1000000"), std::string::npos) << why;
      const size_t at = why.find("[1, ") + 4;
      const int64_t limit = std::stoll(why.substr(at));
      // absolute: the last position is max_len - 1; centred: about half of it either way
      const double expect = positions == XposPositions::kAbsolute ? limit_n + 1 : 2 * limit_n;
      EXPECT_NEAR(double(limit), expect, 3.0) << why;
      p.max_len = limit;
      EXPECT_TRUE(ValidateEncodingParams(p).ok());
      EncodingPtr e = Make(p);
      ASSERT_TRUE(e);
      EXPECT_TRUE(std::isfinite(e->Range().hi));
      std::vector<float> rows(static_cast<size_t>(128 * 2));
      e->FillBlock(0, 1, 0, 128, rows.data());
      e->FillBlock(limit - 1, 1, 0, 128, rows.data() + 128);
      for (float v : rows) EXPECT_TRUE(std::isfinite(v));
      p.max_len = limit + 1;
      EXPECT_FALSE(ValidateEncodingParams(p).ok());
    }
  }
  // the angle has no decay: any length
  EXPECT_TRUE(
      ValidateEncodingParams(Params(128, 1'000'000'000, 0, RopePart::kAngle, XposSide::kKey)).ok());
  // a far offset: even one key row is too far
  const std::string why = Refusal(Params(128, 1, 100'000, RopePart::kCos, XposSide::kKey));
  EXPECT_NE(why.find("offset must be smaller, got offset 100000"), std::string::npos) << why;
}

}  // namespace
}  // namespace pe
