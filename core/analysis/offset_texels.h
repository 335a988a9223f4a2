// Exact texel means of functions of the offset between two positions, at any zoom, in a frame.
//
// The similarity of two sinusoidal or RoPE vectors, and the attention score with RoPE, are sums
// of waves of the offset k = x - y between the two positions (RoFormer section 3.4.2; for the
// sinusoidal table, the product-to-sum identities in analysis/similarity.h):
//   f(k) = sum_w Re(h_w e^{i w k}) = sum_w (Re h_w) cos(w k) - (Im h_w) sin(w k).
// A texel covering columns X and rows Y shows the mean of f(x - y) over its cells. For spans of
// n_x and n_y positions centred on c_x and c_y that mean is again a sum of waves:
//   mean = sum_w Re(h_w D(n_x, w) D(n_y, w) e^{i w (c_x - c_y)}),
//   D(n, w) = sin(n w / 2) / (n sin(w / 2))   (the Dirichlet kernel over n, a real number),
// so a texel costs one evaluation of a sum of waves at c_x - c_y. When every texel column spans
// s_x = b u positions and every row s_y = a u (a, b small integers), c_x - c_y = c_0 + u (b x -
// a y) takes only about b n_x + a n_y values over the whole raster instead of n_x n_y: the
// raster is the sum evaluated along one arithmetic progression, which the angle-addition
// recurrence does at a few multiply-adds per wave and value (WaveSumAlong). At max_len 1e9 in
// 800 x 500 texels that is ~3000 values instead of 400 000.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace pe {

// One wave of a sum: Re(h e^{i w t}) = hr cos(w t) - hi sin(w t).
struct WaveTerm {
  double w = 0.0;
  double hr = 0.0, hi = 0.0;
};

// out[t] = sum_terms Re(h e^{i w (start2 / 2 + step t)}) for t in [0, n). The start is given
// doubled (an integer) so centres of even spans, half-integers, are exact; |start2| and |step| n
// below 2^52. Angles are exact products (ExpOfMultiple) at anchors every kWaveSumAnchor values
// and advance by the recurrence z <- z e^{i w step} between them (errors near 1e-13 relative to
// sum |h|). Terms are summed in fixed blocks, in a fixed order: the result does not depend on
// the number of threads. Large sums run on all cores.
// kBest runs on the active SIMD path (ActiveSimdPath: AVX-512, or AVX2 with fused multiply-adds,
// angles from vector sine and cosine); kPlain forces the portable loop with libm's angles (the
// same bits everywhere), for tests.
enum class WaveSumPath { kBest, kPlain };
void WaveSumAlong(std::span<const WaveTerm> terms, int64_t start2, int64_t step, int64_t n,
                  double* out, WaveSumPath path = WaveSumPath::kBest);
inline constexpr int64_t kWaveSumAnchor = 2048;
// The reference: every value from its own exact angle (one ExpOfMultiple per term and value).
void WaveSumAlongNaive(std::span<const WaveTerm> terms, int64_t start2, int64_t step, int64_t n,
                       double* out);

// D(n, w) = sin(n w / 2) / (n sin(w / 2)): the mean of e^{i w (k - (n - 1) / 2)} over k in
// [0, n). 1 for n = 1 or w = 0; the angle n w / 2 is an exact product.
double DirichletMean(int64_t n, double w);

// Texel edges on a common lattice: columns of s_x = b u positions from x_lo, rows of s_y = a u
// from y_lo, the last column (row) cut at x_hi (y_hi) when the window is not a whole number of
// spans. Texel column i covers [x_edges[i], x_edges[i + 1]).
struct OffsetLattice {
  int64_t u = 1;
  int a = 1, b = 1;
  int64_t sx = 1, sy = 1;
  std::vector<int64_t> x_edges, y_edges;
  int nx() const { return static_cast<int>(x_edges.size()) - 1; }
  int ny() const { return static_cast<int>(y_edges.size()) - 1; }
  // Distinct offsets of whole texels: the length of the progression WaveSumAlong evaluates.
  int64_t values() const;
};

// The lattice for a window of [x_lo, x_hi) x [y_lo, y_hi) positions shown in at most x_px x y_px
// texels: coprime a, b <= kLatticeRatioMax with at least kLatticeResolution of the texels one
// per pixel (or cell) would give on each axis (so a texel spans at most 4/3 pixel) and at most
// kLatticeValuesPerSide x (texel columns + rows) distinct offsets; among those within
// kLatticeTexelSlack of the most texels, the fewest offsets. nullopt when there is none (windows
// whose sides' spans per pixel differ by more than the largest ratio, and those of one to a few
// cells per pixel where no small ratio fits whole spans): the caller falls back to mean vectors
// then.
std::optional<OffsetLattice> ChooseOffsetLattice(int64_t x_lo, int64_t x_hi, int x_px, int64_t y_lo,
                                                 int64_t y_hi, int y_px);
inline constexpr int kLatticeRatioMax = 8;
inline constexpr double kLatticeResolution = 0.75;
// Rasters whose texels x dim stay below this are cheap as mean vectors and their dot products
// (one texel per pixel at every zoom); the lattice serves the larger ones.
inline constexpr int64_t kOffsetRasterMinWork = int64_t{1} << 22;
inline constexpr int64_t kLatticeValuesPerSide = 4;
inline constexpr double kLatticeTexelSlack = 0.95;

// out[y * nx + x] = the mean over texel (x, y)'s cells of f(column position - row position), for
// f = sum of `terms`; the lattice's last column and row, cut short, get their own spans' means.
void OffsetTexelMeans(std::span<const WaveTerm> terms, const OffsetLattice& lattice, double* out);

// out[i] = the mean of f(p) = sum of `terms` at p over [edges[i], edges[i + 1]), for edges that
// advance by one span but for the last (a lattice's x_edges or y_edges).
void SpanMeansOfWaves(std::span<const WaveTerm> terms, std::span<const int64_t> edges, double* out);

// Windows of at most this many cells may be averaged cell by cell (MeansOverCells): for
// windows of one to a few cells per pixel, where no lattice fits, the cells' values come from a
// few sums of waves along the window's offsets and positions, and each costs a lookup.
inline constexpr int64_t kCellMeansMaxCells = int64_t{1} << 22;

// out[y * nx + x] = the mean over texel (x, y)'s cells, for texel edges of any spans (x_edges
// columns, y_edges rows), summed in double and rounded once to float32. row(p, values) writes the
// cells of row position p for every column position q of the window, values[q - x_edges.front()];
// it is called once per row position, from several threads at once for windows of many cells.
void MeansOverCells(std::span<const int64_t> x_edges, std::span<const int64_t> y_edges,
                    const std::function<void(int64_t p, double* values)>& row, float* out);

// out[y * nx + x] += the mean over texel (x, y)'s cells of f(column position + row position),
// f = sum of `terms`: per term and texel one complex product of the column's and the row's mean
// of e^{i w p} (meant for a few terms: the unpaired columns of an odd d).
void AddSumPositionMeans(std::span<const WaveTerm> terms, std::span<const int64_t> x_edges,
                         std::span<const int64_t> y_edges, double* out);

}  // namespace pe
