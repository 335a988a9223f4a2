// Exact sums over the visible cells of a block an attention window cuts partly, for a score
// that depends on the offset k = n - m alone (RoPE's rotations, ALiBi's and T5's biases, NoPE's
// content).
//
// Every window leaves query m one run of keys [lo(m), hi(m)) (model/attention_window.h), so the
// visible cells of rows [m0, m1) x keys [n0, n1) sum, row by row, to
//   sum_m F(b(m) - m) - F(a(m) - m),   a = clamp(lo, n0, n1), b = clamp(hi, n0, n1),
// with F(k) = sum_{j < k} f(j) the prefix sum of f along the offsets. Each of a(m) - m and
// b(m) - m is, over runs of rows, either a constant (a bound m + c inside the block: every row
// of the run adds F(c)) or K - m for a fixed key K (a block edge n0 or n1, a chunk's start): then
// the run adds sum_m F(K - m), a difference of the second prefix sum S(k) = sum_{j < k} F(j).
// Chunked windows' whole chunks whose start lies inside the block add the same triangle each.
// So a block costs a few lookups in F and S, whatever its size, once f is known along the
// offsets its visible cells take: for sliding:W those are the W offsets 1 - W .. 0, for
// chunked:C the C offsets 1 - C .. 0, at any table length.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "analysis/offset_texels.h"
#include "model/attention_window.h"

namespace pe {

// f over the offsets [lo, lo + n) as its first and second prefix sums, in long double:
// first[i] = sum_{j < i} f(lo + j) (i in [0, n]), second[i] = sum_{j < i} first[j] (i in
// [0, n + 1]).
struct OffsetPrefix {
  int64_t lo = 0;
  std::vector<long double> first, second;
  // The values f(lo), ..., f(lo + n - 1).
  static OffsetPrefix Make(int64_t lo, std::span<const double> values);
  int64_t count() const { return static_cast<int64_t>(first.size()) - 1; }
};

// The offsets n - m the visible cells of [m0, m1) x [n0, n1) can take under the window (and the
// scheme's causal mask when `also_causal`): [first, second), empty when first >= second. A
// bound, not the exact set: the block's own corners and the window's reach.
std::pair<int64_t, int64_t> VisibleOffsetRange(const AttentionWindow& w, bool also_causal,
                                               int64_t m0, int64_t m1, int64_t n0, int64_t n1);

// The sum of f(n - m) over the visible cells (m, n) of rows [m0, m1) x keys [n0, n1), for f
// given by `p` over (at least) VisibleOffsetRange of the block. Rows that see no key of the
// block add nothing. A few lookups per row run (rows of one chunk are one run; whole chunks
// inside the block are counted, not visited).
long double VisibleOffsetSum(const OffsetPrefix& p, const AttentionWindow& w, bool also_causal,
                             int64_t m0, int64_t m1, int64_t n0, int64_t n1);

// The same sum cell by cell (every visible cell's f from `p`'s first prefix sums): the reference
// for tests.
long double VisibleOffsetSumNaive(const OffsetPrefix& p, const AttentionWindow& w, bool also_causal,
                                  int64_t m0, int64_t m1, int64_t n0, int64_t n1);

// ---- waves of the offset, in closed form ----------------------------------------------------
//
// Under a window whose key bounds are m + c or open (full, causal, sliding, sliding-
// bidirectional: every one but chunked), the visible cells of a block at offset k number
//   c(k) = min(m1, n1 - k) - max(m0, n0 - k)   for k in [max(n0 - m1 + 1, lo_c), min(n1 - m0,
//   hi_c)),
// linear in k between the breaks k = n0 - m0 and k = n1 - m1: at most three pieces. On a piece
// of N offsets about its centre k0 (a half-integer when N is even), k = k0 + j, the weight is
// g + b j, and for f(k) = constant + sum_w Re(h e^{i w k}):
//   sum_j (g + b j) e^{i w (k0 + j)} = e^{i w k0} (g D(w) + i b D1(w)),
//   D(w)  = sum_j e^{i w j} = sin(N w / 2) / sin(w / 2) = N s(N w / 2) / s(w / 2),
//   D1(w) = sum_j j sin(w j) = -D'(w)
//         = (N / 2) (s(N w / 2) s'(w / 2) - N s'(N w / 2) s(w / 2)) / s(w / 2)^2,
// s(x) = sin(x) / x, s'(x) = (x cos x - sin x) / x^2, both from their series below |x| = 1/2
// (the closed form of s' cancels there): no difference of large numbers at small w N, where the
// Dirichlet kernel's own derivative loses (w N)^-2 of its digits. So a block costs three sums
// over the waves, whatever its size and wherever it lies (angles e^{i w k0} and e^{i w N / 2}
// are exact products, ExpOfMultiple).

// Whether VisibleWaveSum applies: both key bounds linear or open (not chunked).
bool HasLinearKeyBounds(const AttentionWindow& w, bool also_causal);

// f along the offsets as waves, with what every block's sum needs per wave made once.
struct OffsetWaves {
  std::vector<WaveTerm> terms;
  double constant = 0.0;
  std::vector<double> half;         // w / 2
  std::vector<double> sinc, dsinc;  // s(w / 2), s'(w / 2)
  static OffsetWaves Make(std::span<const WaveTerm> terms, double constant);
};

// s(x) = sin(x) / x and its derivative, given sin x and cos x: series below |x| = 1/2.
double SincOf(double x, double sin_x);
double SincSlopeOf(double x, double sin_x, double cos_x);

// The sum of f(n - m) over the visible cells of rows [m0, m1) x keys [n0, n1), for f given by
// `f`, under a window with HasLinearKeyBounds. Three sums over the waves at most.
long double VisibleWaveSum(const OffsetWaves& f, const AttentionWindow& w, bool also_causal,
                           int64_t m0, int64_t m1, int64_t n0, int64_t n1);

// The pieces of c(k) above: c(k) = alpha + beta k on [a, b). Returns how many (0 to 3).
struct OffsetPiece {
  int64_t a = 0, b = 0;
  int64_t alpha = 0, beta = 0;
};
int VisibleOffsetPieces(const AttentionWindow& w, bool also_causal, int64_t m0, int64_t m1,
                        int64_t n0, int64_t n1, OffsetPiece out[3]);

// A function of the offset as pieces u + v k on [a, b): ALiBi's two sides (-slope |k|), T5's
// bucket runs (v = 0).
struct OffsetSegment {
  int64_t a = 0, b = 0;
  double u = 0.0, v = 0.0;
};

// The sum over the visible cells of rows [m0, m1) x keys [n0, n1) of the segments' function
// (offsets outside every segment add 0), under a window with HasLinearKeyBounds: per piece of
// c(k) and segment, sum_j (g + b j)(U + v j) = N g U + b v N (N^2 - 1) / 12 about their common
// centre, in long double.
long double VisibleSegmentSum(std::span<const OffsetSegment> segments, const AttentionWindow& w,
                              bool also_causal, int64_t m0, int64_t m1, int64_t n0, int64_t n1);

}  // namespace pe
