#include "analysis/masked_texels.h"

#include <algorithm>

namespace pe {
namespace {

using LD = long double;

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// F(k) = sum_{p.lo <= j < k} f(j), for k in [p.lo, p.lo + n].
LD First(const OffsetPrefix& p, int64_t k) {
  return p.first[static_cast<size_t>(k - p.lo)];
}

// S(k) = sum_{p.lo <= j < k} F(j), for k in [p.lo, p.lo + n + 1].
LD Second(const OffsetPrefix& p, int64_t k) {
  return p.second[static_cast<size_t>(k - p.lo)];
}

// sum_{m in [ma, mb)} F(key - m) = S(key - ma + 1) - S(key - mb + 1).
LD RowsToKey(const OffsetPrefix& p, int64_t key, int64_t ma, int64_t mb) {
  if (mb <= ma) return 0;
  return Second(p, key - ma + 1) - Second(p, key - mb + 1);
}

// sum_{m in [ma, mb)} F(clamp(m + c, n0, n1) - m): rows where m + c <= n0 end at the key n0,
// rows where m + c >= n1 at n1, the rows between add F(c) each.
LD RowsToLinear(const OffsetPrefix& p, int64_t c, int64_t ma, int64_t mb, int64_t n0, int64_t n1) {
  if (mb <= ma) return 0;
  const int64_t a = std::clamp(n0 - c + 1, ma, mb), b = std::clamp(n1 - c, a, mb);
  LD total = RowsToKey(p, n0, ma, a) + RowsToKey(p, n1, b, mb);
  if (b > a) total += static_cast<LD>(b - a) * First(p, c);
  return total;
}

// sum_{m in [ma, mb)} F(clamp(C floor(m / C), n0, n1) - m): the chunks' starts. A part of a
// chunk at either end is one run; the whole chunks between whose start is at or before n0 end
// at n0 (one run of rows); each whole chunk whose start K lies inside (n0, n1) adds
// sum_{t < C} F(-t), the same for all; rows whose chunk starts at n1 or later see no key of the
// block, and the caller leaves them out.
LD RowsToChunkStart(const OffsetPrefix& p, int64_t chunk, int64_t ma, int64_t mb, int64_t n0,
                    int64_t n1) {
  if (mb <= ma) return 0;
  const int64_t j0 = FloorDiv(ma, chunk), j1 = FloorDiv(mb - 1, chunk);
  auto part = [&](int64_t j, int64_t a, int64_t b) {
    return RowsToKey(p, std::clamp(j * chunk, n0, n1), a, b);
  };
  if (j0 == j1) return part(j0, ma, mb);
  LD total = 0;
  // The whole chunks [ja, jb).
  int64_t ja = j0, jb = j1 + 1;
  if (ma != j0 * chunk) {
    total += part(j0, ma, (j0 + 1) * chunk);
    ja = j0 + 1;
  }
  if (mb != (j1 + 1) * chunk) {
    total += part(j1, j1 * chunk, mb);
    jb = j1;
  }
  if (jb <= ja) return total;
  // Chunks starting at or before n0: j <= floor(n0 / C).
  const int64_t g1 = std::clamp(FloorDiv(n0, chunk) + 1, ja, jb);
  total += RowsToKey(p, n0, ja * chunk, g1 * chunk);
  // Chunks starting inside (n0, n1): j < ceil(n1 / C).
  const int64_t g2 = std::clamp(-FloorDiv(-n1, chunk), g1, jb);
  if (g2 > g1) total += static_cast<LD>(g2 - g1) * RowsToKey(p, 0, 0, chunk);
  return total;
}

// sum over rows [ma, mb) of F(clamp(bound(m), n0, n1) - m); kNone: the bound is past the block
// on that side (`none_key`: n0 for lo, n1 for hi).
LD RowsToBound(const OffsetPrefix& p, const KeyBound& b, int64_t none_key, int64_t ma, int64_t mb,
               int64_t n0, int64_t n1) {
  switch (b.form) {
    case KeyBound::kLinear:
      return RowsToLinear(p, b.c, ma, mb, n0, n1);
    case KeyBound::kChunk:
      return RowsToChunkStart(p, b.c, ma, mb, n0, n1);
    case KeyBound::kNone:
      break;
  }
  return RowsToKey(p, none_key, ma, mb);
}

}  // namespace

OffsetPrefix OffsetPrefix::Make(int64_t lo, std::span<const double> values) {
  OffsetPrefix p;
  p.lo = lo;
  const size_t n = values.size();
  p.first.assign(n + 1, 0.0L);
  p.second.assign(n + 2, 0.0L);
  for (size_t i = 0; i < n; ++i) p.first[i + 1] = p.first[i] + static_cast<LD>(values[i]);
  for (size_t i = 0; i <= n; ++i) p.second[i + 1] = p.second[i] + p.first[i];
  return p;
}

std::pair<int64_t, int64_t> VisibleOffsetRange(const AttentionWindow& w, bool also_causal,
                                               int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  int64_t lo = n0 - (m1 - 1), hi = n1 - m0;  // the block's own offsets
  const KeyBound low = LowKeyBound(w), high = HighKeyBound(w, also_causal);
  if (low.form == KeyBound::kLinear) lo = std::max(lo, low.c);
  if (low.form == KeyBound::kChunk) lo = std::max(lo, 1 - low.c);  // n >= m - (C - 1)
  if (high.form == KeyBound::kLinear) hi = std::min(hi, high.c);
  return {lo, hi};
}

long double VisibleOffsetSum(const OffsetPrefix& p, const AttentionWindow& w, bool also_causal,
                             int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  if (m1 <= m0 || n1 <= n0) return 0;
  // Only the rows that see a key of the block: theirs are the only runs whose offsets lie in
  // VisibleOffsetRange.
  const auto [ma, mb] = RowsSeeing(w, also_causal, m0, m1, n0, n1);
  if (mb <= ma) return 0;
  return RowsToBound(p, HighKeyBound(w, also_causal), n1, ma, mb, n0, n1) -
         RowsToBound(p, LowKeyBound(w), n0, ma, mb, n0, n1);
}

long double VisibleOffsetSumNaive(const OffsetPrefix& p, const AttentionWindow& w, bool also_causal,
                                  int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  LD total = 0;
  for (int64_t m = m0; m < m1; ++m) {
    for (int64_t n = n0; n < n1; ++n) {
      if (!Sees(w, also_causal, m, n)) continue;
      total += First(p, n - m + 1) - First(p, n - m);
    }
  }
  return total;
}

}  // namespace pe
