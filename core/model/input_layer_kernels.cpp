#include "model/input_layer_kernels.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>

#include "base/random.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace pe {

DropoutPlan MakeDropoutPlan(double p, uint64_t seed) {
  DropoutPlan plan;
  plan.seed = seed;
  if (!(p > 0.0)) return plan;
  plan.active = true;
  if (p >= 1.0) {
    plan.all = true;
    return plan;
  }
  plan.keep_scale = static_cast<float>(1.0 / (1.0 - p));
  plan.bound = static_cast<uint64_t>(std::floor(p * 0x1.0p53)) << 11;  // < 2^64: p < 1
  return plan;
}

namespace {

#define PE_INLINE inline __attribute__((always_inline))

// The portable loops, compiled for the baseline processor (the scalar path). The plan's fields
// are copied to locals so that stores through the float pointers cannot alias them.
PE_INLINE void DropoutLoop(float* __restrict values, int64_t n, const DropoutPlan& plan,
                           uint64_t first) {
  const float keep_scale = plan.keep_scale;
  const uint64_t bound = plan.bound, seed = plan.seed;
  for (int64_t k = 0; k < n; ++k) {
    const bool keep = RandomBits(seed, first + static_cast<uint64_t>(k)) >= bound;
    values[k] = keep ? values[k] * keep_scale : 0.0f;
  }
}

template <bool kDrop>
PE_INLINE void SumRowLoop(const float* __restrict wte, const float* __restrict wpe, float scale,
                          float* __restrict dst, int64_t d, float keep_scale, uint64_t bound,
                          uint64_t seed, uint64_t first) {
  for (int64_t j = 0; j < d; ++j) {
    const float sum = wte[j] * scale + wpe[j];
    if constexpr (kDrop) {
      const bool keep = RandomBits(seed, first + static_cast<uint64_t>(j)) >= bound;
      dst[j] = keep ? sum * keep_scale : 0.0f;
    } else {
      dst[j] = sum;
    }
  }
}

PE_INLINE void ForwardRowsLoop(const ForwardArgs& a, int64_t first, int64_t last) {
  const int64_t d = a.d;
  const DropoutPlan& dp = a.dropout;
  for (int64_t r = first; r < last; ++r) {
    const int64_t bt = OutputRow(a, r);
    const float* wte = a.table + a.ids[bt] * d;       // (d)
    const float* wpe = a.pe_rows + (bt % a.seq) * d;  // (d)
    float* dst = a.out + bt * d;                      // (d)
    if (dp.all) {
      std::memset(dst, 0, static_cast<size_t>(d) * sizeof(float));
    } else if (dp.active) {
      SumRowLoop<true>(wte, wpe, a.scale, dst, d, dp.keep_scale, dp.bound, dp.seed,
                       static_cast<uint64_t>(bt * d));
    } else {
      SumRowLoop<false>(wte, wpe, a.scale, dst, d, 1.0f, 0, 0, 0);
    }
  }
}

void DropoutScalar(float* values, int64_t n, const DropoutPlan& plan, uint64_t first) {
  DropoutLoop(values, n, plan, first);
}

void ForwardRowsScalar(const ForwardArgs& args, int64_t first, int64_t last) {
  ForwardRowsLoop(args, first, last);
}

#if defined(__x86_64__)

// AVX2 by hand: compilers do not vectorise the generator without a 64-bit lane multiply. Eight
// floats per step; their eight 64-bit draws sit in two vectors of four lanes, lanes
// {0, 1, 4, 5} in one and {2, 3, 6, 7} in the other, so that one vshufps of the two puts the
// eight values' dwords in float order. About 1.3 cycles a value on the 2-core AMD EPYC (Zen 3)
// this was measured on, where the four vector pipes are then all busy.
#define PE_AVX2 __attribute__((target("avx2")))
#define PE_AVX2_INLINE inline __attribute__((always_inline, target("avx2")))

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;  // base/random.h's counter increment
constexpr uint64_t kMix1 = 0xBF58476D1CE4E5B9ull;    // its two multipliers
constexpr uint64_t kMix2 = 0x94D049BB133111EBull;

struct Avx2Dropout {
  __m256i mix1, mix1_swapped, mix2, mix2_swapped;  // multipliers, and with their halves swapped
  __m256i high_dwords;                             // 0xFFFFFFFF00000000 in every lane
  __m256i sign;                                    // 2^63 in every lane
  __m256i bound_flipped;                           // plan.bound ^ 2^63: unsigned order as signed
  __m256i sign32, bound_hi, bound_hi_flipped;      // the same on the high halves, in 32-bit lanes
  __m256i lanes_a, lanes_b;                        // G * {0, 1, 4, 5} and G * {2, 3, 6, 7}
  __m256i step;                                    // G * 8: the next eight values' counters
  __m256 keep_scale;
};

PE_AVX2 Avx2Dropout MakeAvx2Dropout(const DropoutPlan& plan) {
  Avx2Dropout k;
  const auto q = [](uint64_t v) { return static_cast<long long>(v); };
  k.mix1 = _mm256_set1_epi64x(q(kMix1));
  k.mix1_swapped = _mm256_set1_epi64x(q((kMix1 >> 32) | (kMix1 << 32)));
  k.mix2 = _mm256_set1_epi64x(q(kMix2));
  k.mix2_swapped = _mm256_set1_epi64x(q((kMix2 >> 32) | (kMix2 << 32)));
  k.high_dwords = _mm256_set1_epi64x(q(0xFFFFFFFF00000000ull));
  k.sign = _mm256_set1_epi64x(q(uint64_t{1} << 63));
  k.bound_flipped = _mm256_set1_epi64x(q(plan.bound ^ (uint64_t{1} << 63)));
  const auto bound_hi = static_cast<uint32_t>(plan.bound >> 32);
  k.sign32 = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  k.bound_hi = _mm256_set1_epi32(static_cast<int>(bound_hi));
  k.bound_hi_flipped = _mm256_set1_epi32(static_cast<int>(bound_hi ^ 0x80000000u));
  k.lanes_a = _mm256_setr_epi64x(0, q(kGolden), q(4 * kGolden), q(5 * kGolden));
  k.lanes_b = _mm256_setr_epi64x(q(2 * kGolden), q(3 * kGolden), q(6 * kGolden), q(7 * kGolden));
  k.step = _mm256_set1_epi64x(q(8 * kGolden));
  k.keep_scale = _mm256_set1_ps(plan.keep_scale);
  return k;
}

// x * m mod 2^64 in each lane = lo(x) lo(m) + ((lo(x) hi(m) + hi(x) lo(m)) << 32): the first
// product whole from vpmuludq (32 x 32 -> 64 bits of the low dwords), the two cross products
// only mod 2^32, together from one vpmulld against m with its halves swapped (`m_swapped`).
PE_AVX2_INLINE __m256i MulLanes64(__m256i x, __m256i m, __m256i m_swapped, __m256i high_dwords) {
  const __m256i low = _mm256_mul_epu32(x, m);
  const __m256i t = _mm256_mullo_epi32(x, m_swapped);  // dwords lo(x) hi(m), hi(x) lo(m)
  const __m256i cross =
      _mm256_add_epi64(_mm256_slli_epi64(t, 32), _mm256_and_si256(t, high_dwords));
  return _mm256_add_epi64(low, cross);
}

// The first two thirds of the SplitMix64 finaliser of z (the seed plus the counter times G):
// xor-shift, multiply, xor-shift.
PE_AVX2_INLINE __m256i MixHalf(__m256i z, const Avx2Dropout& k) {
  __m256i x = _mm256_xor_si256(z, _mm256_srli_epi64(z, 30));
  x = MulLanes64(x, k.mix1, k.mix1_swapped, k.high_dwords);
  return _mm256_xor_si256(x, _mm256_srli_epi64(x, 27));
}

// All ones in the lanes whose value is dropped: RandomBits (the rest of the finaliser of y)
// below the plan's bound, in 64 bits.
PE_AVX2_INLINE __m256i DroppedLanes64(__m256i y, const Avx2Dropout& k) {
  __m256i x = MulLanes64(y, k.mix2, k.mix2_swapped, k.high_dwords);
  x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 31));
  return _mm256_cmpgt_epi64(k.bound_flipped, _mm256_xor_si256(x, k.sign));
}

// The high dword of y * mix2 mod 2^64 in each lane's high dword (the low dword is garbage):
// hi(lo(y) lo(m)) + lo(y) hi(m) + hi(y) lo(m), mod 2^32.
PE_AVX2_INLINE __m256i HighOfMix2(__m256i y, const Avx2Dropout& k) {
  const __m256i t = _mm256_mullo_epi32(y, k.mix2_swapped);
  return _mm256_add_epi32(_mm256_add_epi32(_mm256_mul_epu32(y, k.mix2), t),
                          _mm256_slli_epi64(t, 32));
}

// The drop flags of eight consecutive values whose first has z = z0 (every lane of z0 equal).
// The comparison with the bound is decided by the high 32 bits of RandomBits, which need only
// the high half of the last product (and the last xor-shift on 32-bit lanes, eight at a time):
// RandomBits < bound exactly when hi < hi(bound), or hi == hi(bound) and the low halves compare
// so. That tie (about one vector in 2^29) is settled with the full 64-bit draw.
PE_AVX2_INLINE __m256 DroppedFloats(__m256i z0, const Avx2Dropout& k) {
  const __m256i ya = MixHalf(_mm256_add_epi64(z0, k.lanes_a), k);
  const __m256i yb = MixHalf(_mm256_add_epi64(z0, k.lanes_b), k);
  __m256i hi = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(HighOfMix2(ya, k)),
                                                     _mm256_castsi256_ps(HighOfMix2(yb, k)),
                                                     _MM_SHUFFLE(3, 1, 3, 1)));
  hi = _mm256_xor_si256(hi, _mm256_srli_epi32(hi, 31));  // the high half of x ^ (x >> 31)
  const __m256i tie = _mm256_cmpeq_epi32(hi, k.bound_hi);
  if (!_mm256_testz_si256(tie, tie)) [[unlikely]] {
    return _mm256_shuffle_ps(_mm256_castsi256_ps(DroppedLanes64(ya, k)),
                             _mm256_castsi256_ps(DroppedLanes64(yb, k)), _MM_SHUFFLE(2, 0, 2, 0));
  }
  return _mm256_castsi256_ps(
      _mm256_cmpgt_epi32(k.bound_hi_flipped, _mm256_xor_si256(hi, k.sign32)));
}

// z of value `counter`, in every lane.
PE_AVX2_INLINE __m256i ZOf(uint64_t seed, uint64_t counter) {
  return _mm256_set1_epi64x(static_cast<long long>(RandomState(seed, counter)));
}

// The lanes [lo, hi) of eight, for masked loads and stores.
PE_AVX2_INLINE __m256i LaneMask(int64_t lo, int64_t hi) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i ge_lo =
      _mm256_cmpgt_epi32(lane, _mm256_set1_epi32(static_cast<int>(lo) - 1));  // lane >= lo
  const __m256i lt_hi = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(hi)), lane);
  return _mm256_and_si256(ge_lo, lt_hi);
}

// The result of eight values: the sum (or the values themselves), dropped out or not.
template <bool kSum, bool kDrop>
PE_AVX2_INLINE __m256 Eight(__m256 a, __m256 b, __m256 scale, __m256i z0, const Avx2Dropout& k) {
  __m256 v = a;
  if constexpr (kSum) v = _mm256_add_ps(_mm256_mul_ps(a, scale), b);
  if constexpr (kDrop) v = _mm256_andnot_ps(DroppedFloats(z0, k), _mm256_mul_ps(v, k.keep_scale));
  return v;
}

// Values [j0, j1) of a span: dst[j] = f(a[j], b[j]) for value counter0 + j, full vectors then one
// masked vector for the rest (masked loads and stores touch nothing outside [j0, j1)). `a` may
// be `dst` (in place) when kSum is false; b is read only when kSum. kStream: dst + j0 is 32-byte
// aligned and the full vectors are written with non-temporal stores (the caller fences).
template <bool kSum, bool kDrop, bool kStream>
PE_AVX2_INLINE void SegmentAvx2(const float* a, const float* b, __m256 scale, float* dst,
                                int64_t j0, int64_t j1, uint64_t counter0, uint64_t seed,
                                const Avx2Dropout& k) {
  __m256i z = kDrop ? ZOf(seed, counter0 + static_cast<uint64_t>(j0)) : _mm256_setzero_si256();
  int64_t j = j0;
  for (; j + 8 <= j1; j += 8) {
    const __m256 va = _mm256_loadu_ps(a + j);
    const __m256 vb = kSum ? _mm256_loadu_ps(b + j) : va;
    const __m256 r = Eight<kSum, kDrop>(va, vb, scale, z, k);
    if constexpr (kStream) {
      _mm256_stream_ps(dst + j, r);
    } else {
      _mm256_storeu_ps(dst + j, r);
    }
    if constexpr (kDrop) z = _mm256_add_epi64(z, k.step);
  }
  if (j < j1) {
    const __m256i m = LaneMask(0, j1 - j);
    const __m256 va = _mm256_maskload_ps(a + j, m);
    const __m256 vb = kSum ? _mm256_maskload_ps(b + j, m) : va;
    _mm256_maskstore_ps(dst + j, m, Eight<kSum, kDrop>(va, vb, scale, z, k));
  }
}

// The whole 64-byte lines of n floats at dst, as float indices [head, tail); none when dst is not
// float-aligned or n is short (then nothing is streamed).
struct WholeLines {
  int64_t head = 0, tail = 0;
};
inline std::optional<WholeLines> WholeLinesOf(const float* dst, int64_t n) {
  const auto addr = reinterpret_cast<uintptr_t>(dst);
  if (addr % sizeof(float) != 0 || n < 32) return std::nullopt;
  return WholeLines{
      static_cast<int64_t>((64 - addr % 64) % 64 / sizeof(float)),
      n - static_cast<int64_t>((addr + static_cast<uintptr_t>(n) * 4) % 64 / sizeof(float))};
}

// The forward rows of one vector path: zeros when every value drops, else `rows` called with
// std::bool_constant kDrop and kStream.
template <typename Rows>
void ForwardRowsOnPath(const ForwardArgs& a, int64_t first, int64_t last, Rows rows) {
  if (a.dropout.all) {
    ForwardRowsScalar(a, first, last);  // zeros: nothing to compute
  } else if (a.dropout.active) {
    a.stream ? rows(std::true_type{}, std::true_type{}) : rows(std::true_type{}, std::false_type{});
  } else {
    a.stream ? rows(std::false_type{}, std::true_type{})
             : rows(std::false_type{}, std::false_type{});
  }
}

// n values of a span. kStream: the whole 64-byte lines inside dst are written with non-temporal
// stores, the partial lines at either end (shared with the neighbouring rows) with ordinary
// ones: a line written both ways would be flushed from the cache mid-write.
template <bool kSum, bool kDrop, bool kStream>
PE_AVX2_INLINE void SpanAvx2(const float* a, const float* b, __m256 scale, float* dst, int64_t n,
                             uint64_t counter0, uint64_t seed, const Avx2Dropout& k) {
  if constexpr (kStream) {
    if (const std::optional<WholeLines> lines = WholeLinesOf(dst, n)) {
      SegmentAvx2<kSum, kDrop, false>(a, b, scale, dst, 0, lines->head, counter0, seed, k);
      SegmentAvx2<kSum, kDrop, true>(a, b, scale, dst, lines->head, lines->tail, counter0, seed, k);
      SegmentAvx2<kSum, kDrop, false>(a, b, scale, dst, lines->tail, n, counter0, seed, k);
      return;
    }
  }
  SegmentAvx2<kSum, kDrop, false>(a, b, scale, dst, 0, n, counter0, seed, k);
}

PE_AVX2 void DropoutAvx2(float* values, int64_t n, const DropoutPlan& plan, uint64_t first) {
  const Avx2Dropout k = MakeAvx2Dropout(plan);
  SpanAvx2<false, true, false>(values, nullptr, _mm256_set1_ps(1.0f), values, n, first, plan.seed,
                               k);
}

// The next token's embedding row starts at an unrelated address, where the hardware prefetcher
// (which follows one page) has nothing to go on: the row kernels ask for it while the current
// row is written. The PE rows follow one another, so the prefetcher finds those itself (asking
// for them too measured no better). One thread: 2.4-2.8 ms against 2.7-3.1 ms without in one
// run, no difference in the next; two threads: no difference.
inline void PrefetchRow(const float* row, int64_t d) {
  const char* bytes = reinterpret_cast<const char*>(row);
  for (int64_t off = 0; off < d * static_cast<int64_t>(sizeof(float)); off += 64) {
    _mm_prefetch(bytes + off, _MM_HINT_T0);
  }
}

template <bool kDrop, bool kStream>
PE_AVX2 void ForwardRowsAvx2(const ForwardArgs& a, int64_t first, int64_t last) {
  const Avx2Dropout k = MakeAvx2Dropout(a.dropout);
  const __m256 scale = _mm256_set1_ps(a.scale);
  const int64_t d = a.d;
  for (int64_t r = first; r < last; ++r) {
    const int64_t bt = OutputRow(a, r);
    const float* wte = a.table + a.ids[bt] * d;       // (d)
    const float* wpe = a.pe_rows + (bt % a.seq) * d;  // (d)
    if (r + 1 < last) PrefetchRow(a.table + a.ids[OutputRow(a, r + 1)] * d, d);
    SpanAvx2<true, kDrop, kStream>(wte, wpe, scale, a.out + bt * d, d,
                                   static_cast<uint64_t>(bt * d), a.dropout.seed, k);
  }
  if constexpr (kStream) _mm_sfence();  // the streamed rows are visible before the caller reads
}

void ForwardRowsAvx2Any(const ForwardArgs& a, int64_t first, int64_t last) {
  ForwardRowsOnPath(a, first, last, [&](auto drop, auto stream) {
    ForwardRowsAvx2<decltype(drop)::value, decltype(stream)::value>(a, first, last);
  });
}

// AVX-512 by hand (F, DQ, VL): sixteen floats per step. Each half's eight 64-bit draws sit in
// one vector, in float order, and the generator's multiplies are single vpmullq instructions;
// the comparison with the bound is one unsigned 64-bit compare into a mask register, which then
// zeroes the dropped values of the scaled product. The ends of a row go through masked loads and
// stores. Measured on a 2-core AMD EPYC (Zen 4), 8 x 512 x 1024: dropout in the forward pass
// 0.72-0.84 ms against 1.5-1.65 ms on the AVX2 path, where emulating the 64-bit multiply is the
// bound; without dropout both write at the speed of memory.
#define PE_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl")))
#define PE_AVX512_INLINE inline __attribute__((always_inline, target("avx512f,avx512dq,avx512vl")))

struct Avx512Dropout {
  __m512i mix1, mix2;          // the finaliser's two multipliers
  __m512i bound;               // plan.bound: RandomBits below it drops the value
  __m512i lanes_lo, lanes_hi;  // G * {0..7} and G * {8..15}
  __m512i step;                // G * 16: the next sixteen values' counters
  __m512 keep_scale;
};

PE_AVX512 Avx512Dropout MakeAvx512Dropout(const DropoutPlan& plan) {
  const auto q = [](uint64_t v) { return static_cast<long long>(v); };
  Avx512Dropout k;
  k.mix1 = _mm512_set1_epi64(q(kMix1));
  k.mix2 = _mm512_set1_epi64(q(kMix2));
  k.bound = _mm512_set1_epi64(q(plan.bound));
  k.lanes_lo = _mm512_setr_epi64(0, q(kGolden), q(2 * kGolden), q(3 * kGolden), q(4 * kGolden),
                                 q(5 * kGolden), q(6 * kGolden), q(7 * kGolden));
  k.lanes_hi = _mm512_add_epi64(k.lanes_lo, _mm512_set1_epi64(q(8 * kGolden)));
  k.step = _mm512_set1_epi64(q(16 * kGolden));
  k.keep_scale = _mm512_set1_ps(plan.keep_scale);
  return k;
}

// x >> n in each 64-bit lane, as a vector-extension shift: GCC 12's _mm512_srli_epi64 trips its
// own maybe-uninitialized warning.
PE_AVX512_INLINE __m512i ShiftRight64(__m512i x, int n) {
  return reinterpret_cast<__m512i>(reinterpret_cast<__v8du>(x) >> n);
}

// Bit i set when value i of eight (z = z0 + lanes) is kept: RandomBits >= bound.
PE_AVX512_INLINE __mmask8 Kept8(__m512i z, const Avx512Dropout& k) {
  __m512i x = _mm512_mullo_epi64(_mm512_xor_si512(z, ShiftRight64(z, 30)), k.mix1);
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, ShiftRight64(x, 27)), k.mix2);
  return _mm512_cmpge_epu64_mask(_mm512_xor_si512(x, ShiftRight64(x, 31)), k.bound);
}

// The kept values of sixteen whose first has z = z0 (every lane of z0 equal).
PE_AVX512_INLINE __mmask16 Kept16(__m512i z0, const Avx512Dropout& k) {
  return _mm512_kunpackb(Kept8(_mm512_add_epi64(z0, k.lanes_hi), k),
                         Kept8(_mm512_add_epi64(z0, k.lanes_lo), k));
}

template <bool kSum, bool kDrop>
PE_AVX512_INLINE __m512 Sixteen(__m512 a, __m512 b, __m512 scale, __m512i z0,
                                const Avx512Dropout& k) {
  __m512 v = a;
  if constexpr (kSum) v = _mm512_add_ps(_mm512_mul_ps(a, scale), b);
  if constexpr (kDrop) v = _mm512_maskz_mul_ps(Kept16(z0, k), v, k.keep_scale);
  return v;
}

// Values [j0, j1) of a span, as SegmentAvx2 does it; kStream: dst + j0 is 64-byte aligned.
template <bool kSum, bool kDrop, bool kStream>
PE_AVX512_INLINE void SegmentAvx512(const float* a, const float* b, __m512 scale, float* dst,
                                    int64_t j0, int64_t j1, uint64_t counter0, uint64_t seed,
                                    const Avx512Dropout& k) {
  __m512i z = kDrop ? _mm512_set1_epi64(static_cast<long long>(
                          RandomState(seed, counter0 + static_cast<uint64_t>(j0))))
                    : _mm512_setzero_si512();
  int64_t j = j0;
  for (; j + 16 <= j1; j += 16) {
    const __m512 va = _mm512_loadu_ps(a + j);
    const __m512 vb = kSum ? _mm512_loadu_ps(b + j) : va;
    const __m512 r = Sixteen<kSum, kDrop>(va, vb, scale, z, k);
    if constexpr (kStream) {
      _mm512_stream_ps(dst + j, r);
    } else {
      _mm512_storeu_ps(dst + j, r);
    }
    if constexpr (kDrop) z = _mm512_add_epi64(z, k.step);
  }
  if (j < j1) {
    const auto m = static_cast<__mmask16>((1u << (j1 - j)) - 1);
    const __m512 va = _mm512_maskz_loadu_ps(m, a + j);
    const __m512 vb = kSum ? _mm512_maskz_loadu_ps(m, b + j) : va;
    _mm512_mask_storeu_ps(dst + j, m, Sixteen<kSum, kDrop>(va, vb, scale, z, k));
  }
}

// n values of a span; kStream as in SpanAvx2 (whole lines streamed, partial ones not).
template <bool kSum, bool kDrop, bool kStream>
PE_AVX512_INLINE void SpanAvx512(const float* a, const float* b, __m512 scale, float* dst,
                                 int64_t n, uint64_t counter0, uint64_t seed,
                                 const Avx512Dropout& k) {
  if constexpr (kStream) {
    if (const std::optional<WholeLines> lines = WholeLinesOf(dst, n)) {
      SegmentAvx512<kSum, kDrop, false>(a, b, scale, dst, 0, lines->head, counter0, seed, k);
      SegmentAvx512<kSum, kDrop, true>(a, b, scale, dst, lines->head, lines->tail, counter0, seed,
                                       k);
      SegmentAvx512<kSum, kDrop, false>(a, b, scale, dst, lines->tail, n, counter0, seed, k);
      return;
    }
  }
  SegmentAvx512<kSum, kDrop, false>(a, b, scale, dst, 0, n, counter0, seed, k);
}

PE_AVX512 void DropoutAvx512(float* values, int64_t n, const DropoutPlan& plan, uint64_t first) {
  const Avx512Dropout k = MakeAvx512Dropout(plan);
  SpanAvx512<false, true, false>(values, nullptr, _mm512_set1_ps(1.0f), values, n, first, plan.seed,
                                 k);
}

template <bool kDrop, bool kStream>
PE_AVX512 void ForwardRowsAvx512(const ForwardArgs& a, int64_t first, int64_t last) {
  const Avx512Dropout k = MakeAvx512Dropout(a.dropout);
  const __m512 scale = _mm512_set1_ps(a.scale);
  const int64_t d = a.d;
  for (int64_t r = first; r < last; ++r) {
    const int64_t bt = OutputRow(a, r);
    if (r + 1 < last) PrefetchRow(a.table + a.ids[OutputRow(a, r + 1)] * d, d);  // as in Avx2
    SpanAvx512<true, kDrop, kStream>(a.table + a.ids[bt] * d, a.pe_rows + (bt % a.seq) * d, scale,
                                     a.out + bt * d, d, static_cast<uint64_t>(bt * d),
                                     a.dropout.seed, k);
  }
  if constexpr (kStream) _mm_sfence();
}

void ForwardRowsAvx512Any(const ForwardArgs& a, int64_t first, int64_t last) {
  ForwardRowsOnPath(a, first, last, [&](auto drop, auto stream) {
    ForwardRowsAvx512<decltype(drop)::value, decltype(stream)::value>(a, first, last);
  });
}

#endif  // __x86_64__

}  // namespace

void DropoutKernel(SimdPath path, float* values, int64_t n, const DropoutPlan& plan,
                   uint64_t first) {
  if (!plan.active) return;
  if (plan.all) {
    std::memset(values, 0, static_cast<size_t>(n) * sizeof(float));
    return;
  }
#if defined(__x86_64__)
  switch (path) {
    case SimdPath::kAvx512:
      DropoutAvx512(values, n, plan, first);
      return;
    case SimdPath::kAvx2:
      DropoutAvx2(values, n, plan, first);
      return;
    case SimdPath::kScalar:
      break;
  }
#else
  (void)path;
#endif
  DropoutScalar(values, n, plan, first);
}

void ForwardRowsKernel(SimdPath path, const ForwardArgs& args, int64_t first, int64_t last) {
#if defined(__x86_64__)
  switch (path) {
    case SimdPath::kAvx512:
      ForwardRowsAvx512Any(args, first, last);
      return;
    case SimdPath::kAvx2:
      ForwardRowsAvx2Any(args, first, last);
      return;
    case SimdPath::kScalar:
      break;
  }
#else
  (void)path;
#endif
  ForwardRowsScalar(args, first, last);
}

}  // namespace pe
