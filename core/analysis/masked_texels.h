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

}  // namespace pe
