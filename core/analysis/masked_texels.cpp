#include "analysis/masked_texels.h"

#include <algorithm>
#include <cmath>

#include "encoding/wave.h"

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

bool HasLinearKeyBounds(const AttentionWindow& w, bool also_causal) {
  return LowKeyBound(w).form != KeyBound::kChunk &&
         HighKeyBound(w, also_causal).form != KeyBound::kChunk;
}

double SincOf(double x, double sin_x) {
  if (std::abs(x) >= 0.5) return sin_x / x;
  // 1 - x^2/3! + x^4/5! - ...: the term x^14 / 15! is below 1e-16 here.
  const double x2 = x * x;
  double sum = 0.0, term = 1.0;
  for (int p = 0; p < 7; ++p) {
    sum += term;
    term *= -x2 / ((2.0 * p + 2.0) * (2.0 * p + 3.0));
  }
  return sum;
}

double SincSlopeOf(double x, double sin_x, double cos_x) {
  if (std::abs(x) >= 0.5) return (x * cos_x - sin_x) / (x * x);
  // sum_{p >= 1} (-1)^p 2p x^(2p - 1) / (2p + 1)!.
  const double x2 = x * x;
  double sum = 0.0, power = -x / 6.0;  // (-1)^p x^(2p - 1) / (2p + 1)!
  for (int p = 1; p < 9; ++p) {
    sum += 2.0 * p * power;
    power *= -x2 / ((2.0 * p + 2.0) * (2.0 * p + 3.0));
  }
  return sum;
}

OffsetWaves OffsetWaves::Make(std::span<const WaveTerm> terms, double constant) {
  OffsetWaves f;
  f.terms.assign(terms.begin(), terms.end());
  f.constant = constant;
  const size_t n = terms.size();
  f.half.resize(n);
  f.sinc.resize(n);
  f.dsinc.resize(n);
  for (size_t l = 0; l < n; ++l) {
    const double h = 0.5 * terms[l].w;
    f.half[l] = h;
    f.sinc[l] = SincOf(h, std::sin(h));
    f.dsinc[l] = SincSlopeOf(h, std::sin(h), std::cos(h));
  }
  return f;
}

int VisibleOffsetPieces(const AttentionWindow& w, bool also_causal, int64_t m0, int64_t m1,
                        int64_t n0, int64_t n1, OffsetPiece out[3]) {
  if (m1 <= m0 || n1 <= n0) return 0;
  int64_t lo = n0 - m1 + 1, hi = n1 - m0;  // the block's own offsets
  const KeyBound low = LowKeyBound(w), high = HighKeyBound(w, also_causal);
  if (low.form == KeyBound::kLinear) lo = std::max(lo, low.c);    // n >= m + c
  if (high.form == KeyBound::kLinear) hi = std::min(hi, high.c);  // n < m + c
  if (hi <= lo) return 0;
  // c(k) = A(k) - B(k): A = m1 for k <= n1 - m1, else n1 - k; B = n0 - k for k <= n0 - m0,
  // else m0.
  const int64_t breaks[2] = {std::min(n0 - m0, n1 - m1) + 1, std::max(n0 - m0, n1 - m1) + 1};
  int count = 0;
  int64_t a = lo;
  for (int i = 0; i <= 2 && a < hi; ++i) {
    const int64_t b = i < 2 ? std::clamp(breaks[i], a, hi) : hi;
    if (b <= a) continue;
    const int64_t k = a;  // any offset of the piece picks the same forms
    const int64_t a_alpha = k <= n1 - m1 ? m1 : n1, a_beta = k <= n1 - m1 ? 0 : -1;
    const int64_t b_alpha = k <= n0 - m0 ? n0 : m0, b_beta = k <= n0 - m0 ? -1 : 0;
    out[count++] = {a, b, a_alpha - b_alpha, a_beta - b_beta};
    a = b;
  }
  return count;
}

long double VisibleWaveSum(const OffsetWaves& f, const AttentionWindow& w, bool also_causal,
                           int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  OffsetPiece pieces[3];
  const int count = VisibleOffsetPieces(w, also_causal, m0, m1, n0, n1, pieces);
  const size_t waves = f.terms.size();
  std::vector<double> er(waves), ei(waves), xr(waves), xi(waves);
  LD total = 0;
  for (int p = 0; p < count; ++p) {
    const OffsetPiece& piece = pieces[p];
    const int64_t n = piece.b - piece.a;
    const int64_t centre2 = piece.a + piece.b - 1;  // 2 k0
    // The weight at the centre, g = alpha + beta k0 (a whole or half number), and its slope.
    const double g = static_cast<double>(piece.alpha) +
                     0.5 * static_cast<double>(piece.beta) * static_cast<double>(centre2);
    const auto beta = static_cast<double>(piece.beta);
    const auto nd = static_cast<double>(n);
    total += static_cast<LD>(f.constant) * static_cast<LD>(g) * static_cast<LD>(n);
    if (waves == 0) continue;
    ExpOfMultiples(static_cast<double>(centre2), f.half, er.data(), ei.data());  // e^{i w k0}
    ExpOfMultiples(nd, f.half, xr.data(), xi.data());                            // e^{i w N / 2}
    double acc = 0.0;
    for (size_t l = 0; l < waves; ++l) {
      const double x = nd * f.half[l];
      const double s = SincOf(x, xi[l]), ds = SincSlopeOf(x, xi[l], xr[l]);
      const double sh = f.sinc[l];
      const double d0 = nd * s / sh;
      const double d1 = 0.5 * nd * (s * f.dsinc[l] - nd * ds * sh) / (sh * sh);
      const WaveTerm& t = f.terms[l];
      const double zr = t.hr * er[l] - t.hi * ei[l], zi = t.hr * ei[l] + t.hi * er[l];
      acc += zr * g * d0 - zi * beta * d1;
    }
    total += static_cast<LD>(acc);
  }
  return total;
}

long double VisibleSegmentSum(std::span<const OffsetSegment> segments, const AttentionWindow& w,
                              bool also_causal, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  OffsetPiece pieces[3];
  const int count = VisibleOffsetPieces(w, also_causal, m0, m1, n0, n1, pieces);
  LD total = 0;
  for (int p = 0; p < count; ++p) {
    for (const OffsetSegment& seg : segments) {
      const int64_t a = std::max(pieces[p].a, seg.a), b = std::min(pieces[p].b, seg.b);
      if (b <= a) continue;
      const auto n = static_cast<LD>(b - a);
      const LD k0 = 0.5L * static_cast<LD>(a + b - 1);
      const auto beta = static_cast<LD>(pieces[p].beta);
      const LD g = static_cast<LD>(pieces[p].alpha) + beta * k0;
      const LD u = static_cast<LD>(seg.u) + static_cast<LD>(seg.v) * k0;
      total += n * g * u + beta * static_cast<LD>(seg.v) * n * (n * n - 1) / 12;
    }
  }
  return total;
}

}  // namespace pe
