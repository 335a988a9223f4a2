#include "analysis/offset_texels.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "base/progress.h"
#include "base/simd_path.h"
#include "encoding/wave.h"

namespace pe {
namespace {

// Sixteen waves advance together on the plain and AVX2 paths: four 4-wide vectors of real and of
// imaginary parts, enough independent multiply chains to keep two vector units busy while each
// waits on the last step. AVX-512 takes thirty-two, four 8-wide vectors, for the same reason.
constexpr int kLanes = 16;
constexpr int kVectors = kLanes / 4;
constexpr int kLanes512 = 32;
// Terms are summed in fixed blocks of this many (each block's values in its own buffer, the
// blocks added in order), so the result is the same on any number of threads.
constexpr int64_t kTermBlock = 256;

typedef double V4 __attribute__((vector_size(32)));

// acc[t] += the lanes' real parts v, four lanes to a slot (summed by the caller), for t in
// [0, n), each lane advancing v <- v r after every value. Plain multiplies and adds: the same
// bits on every processor.
void AccumulateLanesPlain(int64_t n, const double* __restrict vr, const double* __restrict vi,
                          const double* __restrict rr, const double* __restrict ri,
                          double* __restrict acc) {
  // Copies into vector values (memcpy: no alignment assumed of the caller's arrays).
  V4 v[4 * kVectors];
  std::memcpy(v, vr, sizeof(V4) * kVectors);
  std::memcpy(v + kVectors, vi, sizeof(V4) * kVectors);
  std::memcpy(v + 2 * kVectors, rr, sizeof(V4) * kVectors);
  std::memcpy(v + 3 * kVectors, ri, sizeof(V4) * kVectors);
  V4 a0 = v[0], a1 = v[1], a2 = v[2], a3 = v[3];
  V4 b0 = v[4], b1 = v[5], b2 = v[6], b3 = v[7];
  const V4 c0 = v[8], c1 = v[9], c2 = v[10], c3 = v[11];
  const V4 s0 = v[12], s1 = v[13], s2 = v[14], s3 = v[15];
  for (int64_t t = 0; t < n; ++t) {
    const V4 sum = (a0 + a1) + (a2 + a3);
    for (int k = 0; k < 4; ++k) acc[4 * t + k] += sum[k];
    const V4 n0 = a0 * c0 - b0 * s0, n1 = a1 * c1 - b1 * s1;
    const V4 n2 = a2 * c2 - b2 * s2, n3 = a3 * c3 - b3 * s3;
    b0 = a0 * s0 + b0 * c0;
    b1 = a1 * s1 + b1 * c1;
    b2 = a2 * s2 + b2 * c2;
    b3 = a3 * s3 + b3 * c3;
    a0 = n0;
    a1 = n1;
    a2 = n2;
    a3 = n3;
  }
}

// The same with AVX2 and fused multiply-adds (one rounding per multiply-add: the last bits
// differ from the plain path's, far below float32's rounding).
__attribute__((target("avx2,fma"))) void AccumulateLanesAvx2(int64_t n, const double* __restrict vr,
                                                             const double* __restrict vi,
                                                             const double* __restrict rr,
                                                             const double* __restrict ri,
                                                             double* __restrict acc) {
  __m256d a[kVectors], b[kVectors], c[kVectors], s[kVectors];
  for (int k = 0; k < kVectors; ++k) {
    a[k] = _mm256_loadu_pd(vr + 4 * k);
    b[k] = _mm256_loadu_pd(vi + 4 * k);
    c[k] = _mm256_loadu_pd(rr + 4 * k);
    s[k] = _mm256_loadu_pd(ri + 4 * k);
  }
  double* out = acc;
  for (int64_t t = 0; t < n; ++t) {
    const __m256d sum = _mm256_add_pd(_mm256_add_pd(a[0], a[1]), _mm256_add_pd(a[2], a[3]));
    _mm256_storeu_pd(out + 4 * t, _mm256_add_pd(_mm256_loadu_pd(out + 4 * t), sum));
    for (int k = 0; k < kVectors; ++k) {
      const __m256d re = _mm256_fmsub_pd(a[k], c[k], _mm256_mul_pd(b[k], s[k]));
      b[k] = _mm256_fmadd_pd(a[k], s[k], _mm256_mul_pd(b[k], c[k]));
      a[k] = re;
    }
  }
}

// Thirty-two lanes in four 8-wide vectors, eight slots a value (the same operations as the AVX2
// kernel's, twice as wide: where the processor has two 512-bit multiply-add units, half the
// instructions for the same waves).
__attribute__((target("avx512f"))) void AccumulateLanesAvx512(
    int64_t n, const double* __restrict vr, const double* __restrict vi,
    const double* __restrict rr, const double* __restrict ri, double* __restrict acc) {
  __m512d a[4], b[4], c[4], s[4];
  for (int k = 0; k < 4; ++k) {
    a[k] = _mm512_loadu_pd(vr + 8 * k);
    b[k] = _mm512_loadu_pd(vi + 8 * k);
    c[k] = _mm512_loadu_pd(rr + 8 * k);
    s[k] = _mm512_loadu_pd(ri + 8 * k);
  }
  for (int64_t t = 0; t < n; ++t) {
    const __m512d sum = _mm512_add_pd(_mm512_add_pd(a[0], a[1]), _mm512_add_pd(a[2], a[3]));
    _mm512_storeu_pd(acc + 8 * t, _mm512_add_pd(_mm512_loadu_pd(acc + 8 * t), sum));
    for (int k = 0; k < 4; ++k) {
      const __m512d re = _mm512_fmsub_pd(a[k], c[k], _mm512_mul_pd(b[k], s[k]));
      b[k] = _mm512_fmadd_pd(a[k], s[k], _mm512_mul_pd(b[k], c[k]));
      a[k] = re;
    }
  }
}

// The path a sum runs on: kPlain is the portable loop with scalar angles everywhere.
SimdPath PathOf(WaveSumPath path) {
  return path == WaveSumPath::kPlain ? SimdPath::kScalar : ActiveSimdPath();
}

// One block of terms (at most kTermBlock) added into acc (n values).
void SumBlock(std::span<const WaveTerm> terms, int64_t start2, int64_t step, int64_t n, double* acc,
              SimdPath path) {
  const int lanes = path == SimdPath::kAvx512 ? kLanes512 : kLanes;
  const int slots = lanes / 4;
  const size_t count = terms.size();
  const size_t padded = (count + lanes - 1) / lanes * lanes;
  // Per term: w and w / 2, the step e^{i w step} (rr, ri), the anchor's value h e^{i w t}
  // (vr, vi). Padding lanes have w = 0 and h = 0: they add nothing.
  std::vector<double> buf(6 * padded, 0.0);
  double* w = buf.data();
  double* half = w + padded;
  double* rr = half + padded;
  double* ri = rr + padded;
  double* vr = ri + padded;
  double* vi = vr + padded;
  for (size_t l = 0; l < count; ++l) {
    w[l] = terms[l].w;
    half[l] = 0.5 * terms[l].w;
  }
  if (n > 1) {
    ExpOfMultiples(static_cast<double>(step), {w, padded}, rr, ri, path);
  } else {
    // One value never steps: a single texel row or column costs its anchor alone.
    std::fill(rr, rr + padded, 1.0);
  }
  std::vector<double> slot_acc(static_cast<size_t>(slots * n), 0.0);
  for (int64_t t0 = 0; t0 < n; t0 += kWaveSumAnchor) {
    // Exact anchors: h e^{i w (start2 / 2 + step t0)}.
    ExpOfMultiples(static_cast<double>(start2 + 2 * step * t0), {half, padded}, vr, vi, path);
    for (size_t l = 0; l < count; ++l) {
      const double zr = vr[l], zi = vi[l];
      vr[l] = terms[l].hr * zr - terms[l].hi * zi;
      vi[l] = terms[l].hr * zi + terms[l].hi * zr;
    }
    for (size_t l = count; l < padded; ++l) vr[l] = vi[l] = 0.0;
    const int64_t len = std::min(kWaveSumAnchor, n - t0);
    double* out = slot_acc.data() + slots * t0;
    for (size_t g = 0; g < padded; g += static_cast<size_t>(lanes)) {
      switch (path) {
        case SimdPath::kAvx512:
          AccumulateLanesAvx512(len, vr + g, vi + g, rr + g, ri + g, out);
          break;
        case SimdPath::kAvx2:
          AccumulateLanesAvx2(len, vr + g, vi + g, rr + g, ri + g, out);
          break;
        case SimdPath::kScalar:
          AccumulateLanesPlain(len, vr + g, vi + g, rr + g, ri + g, out);
          break;
      }
    }
  }
  for (int64_t t = 0; t < n; ++t) {
    const double* a = slot_acc.data() + slots * t;
    const double four = (a[0] + a[1]) + (a[2] + a[3]);
    acc[t] += slots == 8 ? four + ((a[4] + a[5]) + (a[6] + a[7])) : four;
  }
}

}  // namespace

void WaveSumAlong(std::span<const WaveTerm> terms, int64_t start2, int64_t step, int64_t n,
                  double* out, WaveSumPath path) {
  if (n <= 0) return;
  const SimdPath simd = PathOf(path);
  std::fill(out, out + n, 0.0);
  const auto blocks = static_cast<int64_t>((terms.size() + kTermBlock - 1) / kTermBlock);
  if (blocks <= 1) {
    SumBlock(terms, start2, step, n, out, simd);
    return;
  }
  std::vector<double> partial(static_cast<size_t>(blocks * n), 0.0);
  const bool parallel = static_cast<int64_t>(terms.size()) * n >= (int64_t{1} << 16);
  // The job's token, read here: the team's other threads have none of their own.
  const CancelToken* job_cancel = CurrentCancelToken();
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    if (IsCancelled(job_cancel)) continue;  // cancelled: the rest is skipped, then thrown
    const size_t first = static_cast<size_t>(blk * kTermBlock);
    const size_t count = std::min<size_t>(kTermBlock, terms.size() - first);
    SumBlock(terms.subspan(first, count), start2, step, n,
             partial.data() + static_cast<size_t>(blk * n), simd);
  }
  ThrowIfCancelled(job_cancel);
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const double* p = partial.data() + static_cast<size_t>(blk * n);
    for (int64_t t = 0; t < n; ++t) out[t] += p[t];
  }
}

void WaveSumAlongNaive(std::span<const WaveTerm> terms, int64_t start2, int64_t step, int64_t n,
                       double* out) {
  for (int64_t t = 0; t < n; ++t) {
    double acc = 0.0;
    for (const WaveTerm& term : terms) {
      const UnitComplex z = ExpOfMultiple(static_cast<double>(start2 + 2 * step * t), 0.5 * term.w);
      acc += term.hr * z.re - term.hi * z.im;
    }
    out[t] = acc;
  }
}

double DirichletMean(int64_t n, double w) {
  if (n == 1 || w == 0.0) return 1.0;
  return ExpOfMultiple(static_cast<double>(n), 0.5 * w).im /
         (static_cast<double>(n) * std::sin(0.5 * w));
}

int64_t OffsetLattice::values() const {
  if (x_edges.size() < 2 || y_edges.size() < 2) return 0;
  const int64_t nxf = (x_edges.back() - x_edges.front()) / sx;
  const int64_t nyf = (y_edges.back() - y_edges.front()) / sy;
  if (nxf == 0 || nyf == 0) return 0;
  return b * (nxf - 1) + a * (nyf - 1) + 1;
}

namespace {

std::vector<int64_t> LatticeEdges(int64_t lo, int64_t hi, int64_t span) {
  std::vector<int64_t> edges;
  for (int64_t e = lo; e < hi; e += span) edges.push_back(e);
  edges.push_back(hi);
  return edges;
}

int64_t CeilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

std::optional<OffsetLattice> ChooseOffsetLattice(int64_t x_lo, int64_t x_hi, int x_px, int64_t y_lo,
                                                 int64_t y_hi, int y_px) {
  const int64_t wx = x_hi - x_lo, wy = y_hi - y_lo;
  if (wx <= 0 || wy <= 0 || x_px < 1 || y_px < 1) return std::nullopt;
  // The texels one per pixel (or per cell, when the cells are fewer) would give.
  const int64_t tx = std::min<int64_t>(x_px, wx), ty = std::min<int64_t>(y_px, wy);
  const int64_t budget = kLatticeValuesPerSide * (tx + ty);
  struct Candidate {
    int a, b;
    int64_t u, values, texels;
  };
  std::vector<Candidate> candidates;
  int64_t most_texels = 0;
  for (int a = 1; a <= kLatticeRatioMax; ++a) {
    for (int b = 1; b <= kLatticeRatioMax; ++b) {
      if (std::gcd(a, b) != 1) continue;
      // The smallest u with b u >= wx / tx and a u >= wy / ty: no more texels than pixels.
      const int64_t u = std::max({CeilDiv(wx, tx * b), CeilDiv(wy, ty * a), int64_t{1}});
      const int64_t nx = CeilDiv(wx, b * u), ny = CeilDiv(wy, a * u);
      if (static_cast<double>(nx) < kLatticeResolution * static_cast<double>(tx) ||
          static_cast<double>(ny) < kLatticeResolution * static_cast<double>(ty)) {
        continue;
      }
      const int64_t values = b * nx + a * ny;
      const int64_t texels = nx * ny;
      if (values >= texels || values > budget) continue;
      candidates.push_back({a, b, u, values, texels});
      most_texels = std::max(most_texels, texels);
    }
  }
  // The fewest offsets among the lattices within kLatticeTexelSlack of the most texels (at 1e9
  // in 800 x 500: 750 x 500 texels from 3000 offsets rather than 800 x 480 from 4800).
  std::optional<OffsetLattice> best;
  int64_t best_values = 0, best_texels = 0;
  for (const Candidate& c : candidates) {
    if (static_cast<double>(c.texels) < kLatticeTexelSlack * static_cast<double>(most_texels)) {
      continue;
    }
    if (!best || c.values < best_values || (c.values == best_values && c.texels > best_texels)) {
      OffsetLattice l;
      l.u = c.u;
      l.a = c.a;
      l.b = c.b;
      l.sx = c.b * c.u;
      l.sy = c.a * c.u;
      best = std::move(l);
      best_values = c.values;
      best_texels = c.texels;
    }
  }
  if (best) {
    best->x_edges = LatticeEdges(x_lo, x_hi, best->sx);
    best->y_edges = LatticeEdges(y_lo, y_hi, best->sy);
  }
  return best;
}

namespace {

// D(n, w) of every term, (terms): sin(n w / 2) / (n sin(w / 2)) from vector angles.
std::vector<double> DirichletMeans(std::span<const WaveTerm> terms, int64_t n) {
  const size_t count = terms.size();
  std::vector<double> d(count, 1.0);
  if (n == 1) return d;
  std::vector<double> half(count), re(count), im(count), sin_half(count);
  for (size_t l = 0; l < count; ++l) half[l] = 0.5 * terms[l].w;
  ExpOfMultiples(1.0, half, re.data(), sin_half.data());
  ExpOfMultiples(static_cast<double>(n), half, re.data(), im.data());
  for (size_t l = 0; l < count; ++l) {
    if (terms[l].w != 0.0) d[l] = im[l] / (static_cast<double>(n) * sin_half[l]);
  }
  return d;
}

// The terms times D(nx, w) D(ny, w): the mean over an nx x ny block about its centres.
std::vector<WaveTerm> BlockTerms(std::span<const WaveTerm> terms, int64_t nx, int64_t ny) {
  std::vector<WaveTerm> out(terms.begin(), terms.end());
  const std::vector<double> dx = DirichletMeans(terms, nx), dy = DirichletMeans(terms, ny);
  for (size_t i = 0; i < out.size(); ++i) {
    const double f = dx[i] * dy[i];
    out[i].hr *= f;
    out[i].hi *= f;
  }
  return out;
}

// Twice the centre of the span [lo, lo + n): an integer.
int64_t Centre2(int64_t lo, int64_t n) {
  return 2 * lo + n - 1;
}

}  // namespace

void OffsetTexelMeans(std::span<const WaveTerm> terms, const OffsetLattice& lat, double* out) {
  const int nx = lat.nx(), ny = lat.ny();
  if (nx < 1 || ny < 1) return;
  const int64_t x0 = lat.x_edges.front(), y0 = lat.y_edges.front();
  const int64_t x_last = lat.x_edges[static_cast<size_t>(nx) - 1];
  const int64_t y_last = lat.y_edges[static_cast<size_t>(ny) - 1];
  const int64_t lx = lat.x_edges.back() - x_last, ly = lat.y_edges.back() - y_last;
  const int nxf = lx == lat.sx ? nx : nx - 1;  // whole columns
  const int nyf = ly == lat.sy ? ny : ny - 1;  // whole rows
  if (nxf > 0 && nyf > 0) {
    // Whole texels: x - y centre offsets (x0 - y0) + (sx - sy) / 2 + u j, j = b x - a y.
    const std::vector<WaveTerm> block = BlockTerms(terms, lat.sx, lat.sy);
    const int64_t j_min = -static_cast<int64_t>(lat.a) * (nyf - 1);
    const int64_t count = lat.values();
    const int64_t start2 = Centre2(x0, lat.sx) - Centre2(y0, lat.sy) + 2 * lat.u * j_min;
    std::vector<double> g(static_cast<size_t>(count));
    WaveSumAlong(block, start2, lat.u, count, g.data());
#pragma omp parallel for schedule(static) if (static_cast <int64_t>(nxf) * nyf >= (1 << 16))
    for (int y = 0; y < nyf; ++y) {
      double* row = out + static_cast<size_t>(y) * nx;
      const int64_t base = -static_cast<int64_t>(lat.a) * y - j_min;
      for (int x = 0; x < nxf; ++x) row[x] = g[static_cast<size_t>(base + lat.b * x)];
    }
  }
  if (nxf < nx && nyf > 0) {
    // The last column, cut short, down the whole rows.
    const std::vector<WaveTerm> block = BlockTerms(terms, lx, lat.sy);
    std::vector<double> g(static_cast<size_t>(nyf));
    WaveSumAlong(block, Centre2(x_last, lx) - Centre2(y0, lat.sy), -lat.sy, nyf, g.data());
    for (int y = 0; y < nyf; ++y) out[static_cast<size_t>(y) * nx + nx - 1] = g[y];
  }
  if (nyf < ny && nxf > 0) {
    // The last row, cut short, across the whole columns.
    const std::vector<WaveTerm> block = BlockTerms(terms, lat.sx, ly);
    WaveSumAlong(block, Centre2(x0, lat.sx) - Centre2(y_last, ly), lat.sx, nxf,
                 out + static_cast<size_t>(ny - 1) * nx);
  }
  if (nxf < nx && nyf < ny) {
    const std::vector<WaveTerm> block = BlockTerms(terms, lx, ly);
    WaveSumAlong(block, Centre2(x_last, lx) - Centre2(y_last, ly), 0, 1,
                 out + static_cast<size_t>(ny - 1) * nx + nx - 1);
  }
}

void SpanMeansOfWaves(std::span<const WaveTerm> terms, std::span<const int64_t> edges,
                      double* out) {
  const auto n = static_cast<int64_t>(edges.size()) - 1;
  // Runs of spans of one length: each run is one progression of centres.
  for (int64_t i = 0; i < n;) {
    const int64_t s = edges[static_cast<size_t>(i) + 1] - edges[static_cast<size_t>(i)];
    int64_t j = i + 1;
    while (j < n && edges[static_cast<size_t>(j) + 1] - edges[static_cast<size_t>(j)] == s) ++j;
    const std::vector<WaveTerm> block = BlockTerms(terms, s, 1);
    WaveSumAlong(block, Centre2(edges[static_cast<size_t>(i)], s), s, j - i, out + i);
    i = j;
  }
}

void MeansOverCells(std::span<const int64_t> x_edges, std::span<const int64_t> y_edges,
                    const std::function<void(int64_t p, double* values)>& row, float* out) {
  if (x_edges.size() < 2 || y_edges.size() < 2) return;
  const auto nx = static_cast<int64_t>(x_edges.size()) - 1;
  const auto ny = static_cast<int64_t>(y_edges.size()) - 1;
  const int64_t x0 = x_edges.front(), width = x_edges.back() - x0;
  const int64_t cells = width * (y_edges.back() - y_edges.front());
#pragma omp parallel if (cells >= (int64_t{1} << 16))
  {
    std::vector<double> values(static_cast<size_t>(width)), acc(static_cast<size_t>(nx));
#pragma omp for schedule(dynamic, 4)
    for (int64_t y = 0; y < ny; ++y) {
      const int64_t p0 = y_edges[static_cast<size_t>(y)], p1 = y_edges[static_cast<size_t>(y) + 1];
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t p = p0; p < p1; ++p) {
        row(p, values.data());
        for (int64_t x = 0; x < nx; ++x) {
          double sum = 0.0;
          for (int64_t q = x_edges[static_cast<size_t>(x)]; q < x_edges[static_cast<size_t>(x) + 1];
               ++q) {
            sum += values[static_cast<size_t>(q - x0)];
          }
          acc[static_cast<size_t>(x)] += sum;
        }
      }
      for (int64_t x = 0; x < nx; ++x) {
        const auto n = static_cast<double>(x_edges[static_cast<size_t>(x) + 1] -
                                           x_edges[static_cast<size_t>(x)]);
        out[static_cast<size_t>(y * nx + x)] =
            static_cast<float>(acc[static_cast<size_t>(x)] / (n * static_cast<double>(p1 - p0)));
      }
    }
  }
}

void AddSumPositionMeans(std::span<const WaveTerm> terms, std::span<const int64_t> x_edges,
                         std::span<const int64_t> y_edges, double* out) {
  if (x_edges.size() < 2 || y_edges.size() < 2) return;
  const size_t nx = x_edges.size() - 1, ny = y_edges.size() - 1;
  // The mean of e^{i w p} over each span: D(n, w) e^{i w centre}.
  auto means = [](std::span<const int64_t> edges, double w) {
    std::vector<UnitComplex> m(edges.size() - 1);
    for (size_t i = 0; i + 1 < edges.size(); ++i) {
      const int64_t n = edges[i + 1] - edges[i];
      const UnitComplex z = ExpOfMultiple(static_cast<double>(Centre2(edges[i], n)), 0.5 * w);
      const double f = DirichletMean(n, w);
      m[i] = {z.re * f, z.im * f};
    }
    return m;
  };
  for (const WaveTerm& t : terms) {
    const std::vector<UnitComplex> mx = means(x_edges, t.w), my = means(y_edges, t.w);
    for (size_t y = 0; y < ny; ++y) {
      // h my, then Re(h my mx) per column.
      const double hr = t.hr * my[y].re - t.hi * my[y].im;
      const double hi = t.hr * my[y].im + t.hi * my[y].re;
      double* row = out + y * nx;
      for (size_t x = 0; x < nx; ++x) row[x] += hr * mx[x].re - hi * mx[x].im;
    }
  }
}

}  // namespace pe
