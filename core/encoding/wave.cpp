#include "encoding/wave.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "encoding/exp_of_multiples_kernels.h"

namespace pe {

double WaveColumn::wavelength() const {
  if (wave == Wave::kZero || frequency == 0.0) return std::numeric_limits<double>::infinity();
  return 2.0 * std::numbers::pi / frequency;
}

double WaveValueAt(const WaveColumn& column, double position) {
  const double angle = position * column.frequency;
  switch (column.wave) {
    case Wave::kSin:
      return column.amplitude * std::sin(angle);
    case Wave::kCos:
      return column.amplitude * std::cos(angle);
    case Wave::kZero:
      return 0.0;
    case Wave::kAngle:
      return angle;
  }
  return 0.0;
}

float WaveValue(const WaveColumn& column, int64_t position) {
  return static_cast<float>(WaveValueAt(column, static_cast<double>(position)));
}

WaveSpan WaveRangeOver(const WaveColumn& c, double p0, double p1) {
  const double v0 = WaveValueAt(c, p0), v1 = WaveValueAt(c, p1);
  WaveSpan span{std::min(v0, v1), std::max(v0, v1)};
  if (c.wave != Wave::kSin && c.wave != Wave::kCos) return span;  // a line or zero: its ends
  const double a = std::fabs(c.amplitude);
  const double w = std::fabs(c.frequency);
  const double t0 = std::min(p0 * c.frequency, p1 * c.frequency);
  const double t1 = std::max(p0 * c.frequency, p1 * c.frequency);
  constexpr double kTwoPi = 2.0 * std::numbers::pi;
  if (w * (p1 - p0) >= kTwoPi) return {-a, a};
  // Is an angle crest + 2 pi k inside [t0, t1]? The extremes of sin are at pi/2 (+1) and
  // -pi/2 (-1), those of cos at 0 (+1) and pi (-1), each every 2 pi.
  const auto inside = [&](double crest) {
    const double k = std::ceil((t0 - crest) / kTwoPi);
    return crest + kTwoPi * k <= t1;
  };
  const double up = c.wave == Wave::kSin ? 0.5 * std::numbers::pi : 0.0;
  const double down = c.wave == Wave::kSin ? -0.5 * std::numbers::pi : std::numbers::pi;
  // a * (+1) is the top for a >= 0, the bottom for a < 0 (and the other way for -1).
  const bool at_up = inside(up), at_down = inside(down);
  if (c.amplitude >= 0) {
    if (at_up) span.hi = a;
    if (at_down) span.lo = -a;
  } else {
    if (at_up) span.lo = -a;
    if (at_down) span.hi = a;
  }
  return span;
}

double MeanOverPositions(const WaveColumn& c, int64_t first, int64_t n) {
  if (c.wave == Wave::kZero) return 0.0;
  if (n == 1 || c.frequency == 0.0) return WaveValueAt(c, static_cast<double>(first));
  const double w = c.frequency;
  // The angle is linear in p: its mean is the angle at the middle position.
  if (c.wave == Wave::kAngle) return (static_cast<double>(first) + 0.5 * double(n - 1)) * w;
  // sum_{k<n} e^{i(first+k)w} = e^{i(2 first + n - 1) w / 2} sin(n w / 2) / sin(w / 2); the
  // angles as exact products (ExpOfMultiple), as one rounding is off by 6e-8 rad at 1e9.
  const UnitComplex mid = ExpOfMultiple(static_cast<double>(2 * first + n - 1), w * 0.5);
  const double factor = ExpOfMultiple(static_cast<double>(n), w * 0.5).im /
                        (static_cast<double>(n) * std::sin(w * 0.5));
  return c.amplitude * (c.wave == Wave::kSin ? mid.im : mid.re) * factor;
}

UnitComplex ExpOfMultiple(double m, double w) {
  // m w = hi + lo exactly (FMA), then hi - k 2 pi in the Cody-Waite way with 2 pi split into
  // P1 + P2 + P3: P1 and P2 have 22 significant bits, so k P1 and k P2 are exact for
  // |k| < 2^31, and the differences are exact by Sterbenz's lemma. What is left is a few
  // radians, where sin and cos are fast and right to an ulp (libm's own reduction of 1e9 takes
  // its slow multi-precision path).
  const double hi = m * w;
  const double lo = std::fma(m, w, -hi);
  constexpr double kP1 = 0x1.921fb0p+2, kP2 = 0x1.5110b0p-20, kP3 = 0x1.18469898cc517p-42;
  constexpr double kInvTwoPi = 0.5 / std::numbers::pi;
  double r = hi;
  if (std::fabs(hi) > 4.0) {
    const double k = std::nearbyint(hi * kInvTwoPi);
    if (std::fabs(k) < 0x1p31) {
      r = hi - k * kP1;
      r -= k * kP2;
      r = std::fma(-k, kP3, r);
    }
  }
  double s = 0, c = 0;
  ::sincos(r, &s, &c);
  // sin(r + lo) with |lo| <= 2^-53 |hi|: cos lo = 1 - lo^2 / 2, sin lo = lo to double precision.
  const double cl = 1.0 - 0.5 * lo * lo;
  return {c * cl - s * lo, s * cl + c * lo};
}

void ExpOfMultiples(double m, std::span<const double> w, double* re, double* im, SimdPath path) {
  assert(CpuHasSimdPath(path) && "pass ActiveSimdPath() or a path ResolveSimdPath gave");
  const auto n = static_cast<int64_t>(w.size());
#if defined(__x86_64__)
  switch (path) {
    case SimdPath::kAvx512:
      simd_kernels::ExpOfMultiplesAvx512(m, w.data(), n, re, im);
      return;
    case SimdPath::kAvx2:
      simd_kernels::ExpOfMultiplesAvx2(m, w.data(), n, re, im);
      return;
    case SimdPath::kScalar:
      break;
  }
#endif
  for (int64_t l = 0; l < n; ++l) {
    const UnitComplex z = ExpOfMultiple(m, w[static_cast<size_t>(l)]);
    re[l] = z.re;
    im[l] = z.im;
  }
}

void ExpOfMultiples(double m, std::span<const double> w, double* re, double* im) {
  ExpOfMultiples(m, w, re, im, ActiveSimdPath());
}

namespace {

#define PE_TEXEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

// One texel row's column means for columns [0, n) of a tile, from z = e^{i a w} of the span's
// first position: out = Re(z D) (D folds in the amplitude, the Dirichlet factor and -i for sin
// columns), and z moves on to the next span's start, z <- z R.
PE_TEXEL_CLONES void SpanMeansAndStep(int n, const double* __restrict dr,
                                      const double* __restrict di, const double* __restrict rr,
                                      const double* __restrict ri, double* __restrict zr,
                                      double* __restrict zi, double* __restrict out) {
  for (int j = 0; j < n; ++j) {
    const double a = zr[j], b = zi[j];
    out[j] = a * dr[j] - b * di[j];
    zr[j] = a * rr[j] - b * ri[j];
    zi[j] = a * ri[j] + b * rr[j];
  }
}

constexpr int64_t kTile = 256;       // columns of a tile
constexpr int kTexelRowsAtOnce = 4;  // texel rows whose sums advance together

// Adds a tile's column values (kRows rows of kTile, row r at v + r kTile, tile columns [t0, t1)
// of the table's [c0, ...)) into their texels of each row: row_acc[r * width + x] += the sum of
// the row's values in texel x, from x_first (the texel holding column t0) on.
template <int kRows>
void AddTileToTexels(const double* v, int64_t t0, int64_t t1, int64_t x_first, int64_t c0,
                     std::span<const int64_t> col_edges, int64_t width, double* row_acc) {
  int64_t j = t0;
  for (int64_t x = x_first; j < t1; ++x) {
    const int64_t e = std::min(col_edges[static_cast<size_t>(x) + 1] - c0, t1);
    double sum[kRows] = {};
    for (; j < e; ++j) {
      for (int r = 0; r < kRows; ++r) sum[r] += v[r * kTile + (j - t0)];
    }
    for (int r = 0; r < kRows; ++r) row_acc[r * width + x] += sum[r];
  }
}

}  // namespace

bool MeanOverTexels(std::span<const WaveColumn> columns, std::span<const int64_t> row_edges,
                    std::span<const int64_t> col_edges, float* out) {
  if (row_edges.size() < 2 || col_edges.size() < 2) return true;
  const auto height = static_cast<int64_t>(row_edges.size()) - 1;
  const auto width = static_cast<int64_t>(col_edges.size()) - 1;
  // The span lengths, and which one each texel row has.
  int64_t lengths[kTexelSpanLengths] = {};
  int n_lengths = 0;
  std::vector<uint8_t> length_of(static_cast<size_t>(height));
  for (int64_t y = 0; y < height; ++y) {
    const int64_t n = row_edges[static_cast<size_t>(y) + 1] - row_edges[static_cast<size_t>(y)];
    assert(n > 0 && "row edges must increase");
    int k = 0;
    while (k < n_lengths && lengths[k] != n) ++k;
    if (k == n_lengths) {
      if (n_lengths == kTexelSpanLengths) return false;
      lengths[n_lengths++] = n;
    }
    length_of[static_cast<size_t>(y)] = static_cast<uint8_t>(k);
  }
  const int64_t c0 = col_edges.front();
  const int64_t n_cols = col_edges.back() - c0;
  const auto ncs = static_cast<size_t>(n_cols);
  // Per column and span length: D (the mean of a span from its first position's e^{i a w}) and
  // R = e^{i n w} (the step to the next span), (n_lengths, n_cols) each; angle columns are
  // linear in p and take their midpoints instead.
  std::vector<double> dr(ncs * n_lengths), di(dr.size()), rr(dr.size()), ri(dr.size());
  std::vector<double> w(ncs), angle_w(ncs, 0.0), half_w(ncs);
  bool any_angle = false;
  const bool parallel = height * n_cols >= (int64_t{1} << 16);
  for (size_t j = 0; j < ncs; ++j) {
    const WaveColumn& c = columns[static_cast<size_t>(c0) + j];
    w[j] = c.wave == Wave::kSin || c.wave == Wave::kCos ? c.frequency : 0.0;
    if (c.wave == Wave::kAngle) angle_w[j] = c.frequency;
    half_w[j] = 0.5 * c.frequency;
  }
  // e^{i w / 2} and, per span length, e^{i n w / 2} of every column, many angles at a time.
  std::vector<double> half_re(ncs), half_im(ncs), e_re(ncs), e_im(ncs);
  ExpOfMultiples(1.0, half_w, half_re.data(), half_im.data());
  for (int k = 0; k < n_lengths; ++k) {
    const auto n = static_cast<double>(lengths[k]);
    ExpOfMultiples(n, half_w, e_re.data(), e_im.data());
    for (size_t j = 0; j < ncs; ++j) {
      const WaveColumn& c = columns[static_cast<size_t>(c0) + j];
      const size_t at = static_cast<size_t>(k) * ncs + j;
      const UnitComplex half{half_re[j], half_im[j]}, e{e_re[j], e_im[j]};
      rr[at] = e.re * e.re - e.im * e.im;  // e^{i n w}
      ri[at] = 2.0 * e.re * e.im;
      // e^{i (n - 1) w / 2} sin(n w / 2) / (n sin(w / 2)); 1 for n = 1 and for w = 0.
      const double factor = lengths[k] == 1 || half.im == 0.0 ? 1.0 : e.im / (n * half.im);
      double re = factor * (e.re * half.re + e.im * half.im);
      double im = factor * (e.im * half.re - e.re * half.im);
      if (lengths[k] == 1) re = 1.0, im = 0.0;
      const double a = c.wave == Wave::kSin || c.wave == Wave::kCos ? c.amplitude : 0.0;
      dr[at] = c.wave == Wave::kSin ? a * im : a * re;  // sin: Re(z (-i) D) = Im(z D)
      di[at] = c.wave == Wave::kSin ? -a * re : a * im;
    }
  }
  for (double aw : angle_w) any_angle = any_angle || aw != 0.0;

  // Texel rows in blocks of kTexelAnchorRows, each anchored exactly at its first row; columns
  // in tiles that stay in the first-level cache.
  const int64_t blocks = (height + kTexelAnchorRows - 1) / kTexelAnchorRows;
#pragma omp parallel if (parallel)
  {
    std::vector<double> zr(kTile), zi(kTile), v(kTexelRowsAtOnce * kTile),
        acc(static_cast<size_t>(kTexelAnchorRows * width));
#pragma omp for schedule(static)
    for (int64_t block = 0; block < blocks; ++block) {
      const int64_t y0 = block * kTexelAnchorRows;
      const int64_t y1 = std::min(height, y0 + kTexelAnchorRows);
      std::fill(acc.begin(), acc.end(), 0.0);
      int64_t x_first = 0;  // the texel holding the tile's first column
      for (int64_t t0 = 0; t0 < n_cols; t0 += kTile) {
        const int64_t t1 = std::min(n_cols, t0 + kTile);
        const int tn = static_cast<int>(t1 - t0);
        const auto a0 = static_cast<double>(row_edges[static_cast<size_t>(y0)]);
        ExpOfMultiples(a0, std::span(w).subspan(static_cast<size_t>(t0), static_cast<size_t>(tn)),
                       zr.data(), zi.data());
        while (col_edges[static_cast<size_t>(x_first) + 1] - c0 <= t0) ++x_first;
        for (int64_t y = y0; y < y1; y += kTexelRowsAtOnce) {
          const int rows = static_cast<int>(std::min<int64_t>(kTexelRowsAtOnce, y1 - y));
          for (int r = 0; r < rows; ++r) {
            const auto yr = static_cast<size_t>(y + r);
            const size_t at = length_of[yr] * ncs + static_cast<size_t>(t0);
            double* vr = v.data() + static_cast<size_t>(r) * kTile;
            SpanMeansAndStep(tn, &dr[at], &di[at], &rr[at], &ri[at], zr.data(), zi.data(), vr);
            if (any_angle) {
              const double a = static_cast<double>(row_edges[yr]);
              const double n = static_cast<double>(row_edges[yr + 1]) - a;
              const double mid = a + 0.5 * (n - 1.0);
              for (int j = 0; j < tn; ++j)
                vr[static_cast<size_t>(j)] += mid * angle_w[static_cast<size_t>(t0 + j)];
            }
          }
          // The tile's columns into their texels (the first and last may go on in the
          // neighbouring tiles), several rows at once: each row's sum is one chain of adds,
          // in column order, and the rows' chains run side by side.
          double* row_acc = &acc[static_cast<size_t>((y - y0) * width)];
          if (rows == kTexelRowsAtOnce) {
            AddTileToTexels<kTexelRowsAtOnce>(v.data(), t0, t1, x_first, c0, col_edges, width,
                                              row_acc);
          } else {
            for (int r = 0; r < rows; ++r) {
              AddTileToTexels<1>(v.data() + static_cast<size_t>(r) * kTile, t0, t1, x_first, c0,
                                 col_edges, width, row_acc + static_cast<size_t>(r) * width);
            }
          }
        }
      }
      for (int64_t y = y0; y < y1; ++y) {
        for (int64_t x = 0; x < width; ++x) {
          const auto m = static_cast<double>(col_edges[static_cast<size_t>(x) + 1] -
                                             col_edges[static_cast<size_t>(x)]);
          out[static_cast<size_t>(y * width + x)] =
              static_cast<float>(acc[static_cast<size_t>((y - y0) * width + x)] / m);
        }
      }
    }
  }
  return true;
}

void MeanOverTexelsNaive(std::span<const WaveColumn> columns, std::span<const int64_t> row_edges,
                         std::span<const int64_t> col_edges, float* out) {
  if (row_edges.size() < 2 || col_edges.size() < 2) return;
  const size_t width = col_edges.size() - 1;
  for (size_t y = 0; y + 1 < row_edges.size(); ++y) {
    for (size_t x = 0; x < width; ++x) {
      double sum = 0.0;
      for (int64_t j = col_edges[x]; j < col_edges[x + 1]; ++j) {
        sum += MeanOverPositions(columns[static_cast<size_t>(j)], row_edges[y],
                                 row_edges[y + 1] - row_edges[y]);
      }
      out[y * width + x] =
          static_cast<float>(sum / static_cast<double>(col_edges[x + 1] - col_edges[x]));
    }
  }
}

void FillWaveBlockNaive(std::span<const WaveColumn> columns, int64_t first_position, int64_t row0,
                        int64_t rows, float* out) {
  const auto cols = static_cast<int64_t>(columns.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double position = static_cast<double>(first_position + row0 + r);
    float* dst = out + r * cols;
    for (int64_t j = 0; j < cols; ++j) {
      dst[j] = static_cast<float>(WaveValueAt(columns[static_cast<size_t>(j)], position));
    }
  }
}

}  // namespace pe
