// The fast fill of wave columns (declared in wave.h): the angle-addition recurrence in double
// across positions, anchored exactly at multiples of kPeAnchorPositions, written straight into
// the caller's float32 buffer. Loops are plain so the compiler vectorises them across
// frequencies; arithmetic is the same for every layout and for column subsets, so a value does
// not depend on which columns or rows were asked for. Any scheme made of sin/cos of position
// times a frequency (sinusoidal, RoPE with every scaling) fills through here.
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <vector>

#include "base/simd_path.h"
#include "encoding/wave.h"

namespace pe {
namespace {

// AVX2 where the processor has it, chosen at load time; without contraction to FMA both give
// the same bits.
#define PE_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))

// Positions below zero (signed offsets) anchor at the multiple of kPeAnchorPositions below them.
int64_t FloorMod(int64_t a, int64_t m) {
  return ((a % m) + m) % m;
}

// The frequencies a request needs, and where each sin/cos goes in the output row.
struct Plan {
  std::vector<double> w, cw, sw;  // per wave pair: frequency, cos w, sin w
  // Full-row layouts take the fast writers; otherwise `cols` maps each output column.
  //   kInterleaved, kHalves: the sinusoid's sin/cos layouts (amplitude 1).
  //   kTwiceHalves, kTwiceInterleaved: one wave (cos or sin) of every pair, written twice with
  //     one amplitude: RoPE's half layout [w_0..w_{h-1}, w_0..w_{h-1}] and interleaved layout
  //     (each frequency twice in a row).
  //   kAngles: p * w_i of every pair, no recurrence (RoPE's angle table).
  //   kColumns: anything else, column by column.
  enum class Layout {
    kInterleaved,
    kHalves,
    kTwiceHalves,
    kTwiceInterleaved,
    kAngles,
    kColumns
  } layout = Layout::kColumns;
  bool twice_sin = false;        // kTwice*: the wave written is sin (else cos)
  double amplitude = 1.0;        // kTwice*
  std::vector<double> angle_w;   // kAngles: the frequency of each column (no recurrence)
  int64_t n_sin = 0, n_cos = 0;  // full rows: sin of pairs [0, n_sin), cos of pairs [0, n_cos)
  int64_t cos_base = 0;          // kHalves: column of the first cosine
  bool zero_last = false;        // kHalves: one zero column after the cosines (t2t, odd d)
  struct Col {
    int64_t pair = -1;  // index into w; -1: a zero or angle column
    Wave wave = Wave::kZero;
    double amplitude = 1.0;
    double frequency = 0.0;  // angle columns
  };
  std::vector<Col> cols;  // kColumns: (cols)
};

// sin of pairs 0..n-1 interleaved with their cos (and a last sine for odd widths), amplitude 1.
bool IsInterleaved(std::span<const WaveColumn> c) {
  const auto n = static_cast<int64_t>(c.size());
  if (n < 1) return false;
  for (int64_t j = 0; j < n; ++j) {
    const WaveColumn& col = c[static_cast<size_t>(j)];
    if (col.pair != j / 2 || col.amplitude != 1.0) return false;
    if (col.wave != (j % 2 == 0 ? Wave::kSin : Wave::kCos)) return false;
    if (j % 2 == 1 && col.frequency != c[static_cast<size_t>(j - 1)].frequency) return false;
  }
  return true;
}

// [sin of pairs 0..n_sin-1 | cos of pairs 0..n_cos-1 | optional zero], n_cos in {n_sin - 1,
// n_sin}, amplitude 1. Sets the plan's counts.
bool IsHalves(std::span<const WaveColumn> c, Plan& plan) {
  const auto n = static_cast<int64_t>(c.size());
  int64_t j = 0;
  while (j < n && c[static_cast<size_t>(j)].wave == Wave::kSin &&
         c[static_cast<size_t>(j)].pair == j && c[static_cast<size_t>(j)].amplitude == 1.0)
    ++j;
  const int64_t n_sin = j;
  while (j < n && c[static_cast<size_t>(j)].wave == Wave::kCos &&
         c[static_cast<size_t>(j)].pair == j - n_sin &&
         c[static_cast<size_t>(j)].amplitude == 1.0 &&
         c[static_cast<size_t>(j)].frequency == c[static_cast<size_t>(j - n_sin)].frequency)
    ++j;
  const int64_t n_cos = j - n_sin;
  bool zero_last = false;
  if (j == n - 1 && c[static_cast<size_t>(j)].wave == Wave::kZero) {
    zero_last = true;
    ++j;
  }
  if (j != n || n_sin < 1 || !(n_cos == n_sin || n_cos == n_sin - 1)) return false;
  if (zero_last && n_cos != n_sin) return false;
  plan.n_sin = n_sin;
  plan.n_cos = n_cos;
  plan.cos_base = n_sin;
  plan.zero_last = zero_last;
  return true;
}

// One wave (sin or cos) of pairs 0..h-1 with one amplitude, each twice: as two halves
// (`halves`) or in a row.
bool IsTwice(std::span<const WaveColumn> c, bool halves) {
  const auto n = static_cast<int64_t>(c.size());
  if (n < 2 || n % 2 != 0) return false;
  const Wave wave = c[0].wave;
  if (wave != Wave::kSin && wave != Wave::kCos) return false;
  const int64_t h = n / 2;
  for (int64_t j = 0; j < n; ++j) {
    const WaveColumn& col = c[static_cast<size_t>(j)];
    const int64_t pair = halves ? j % h : j / 2;
    const WaveColumn& first = c[static_cast<size_t>(halves ? pair : 2 * pair)];
    if (col.wave != wave || col.pair != pair || col.amplitude != c[0].amplitude ||
        col.frequency != first.frequency)
      return false;
  }
  return true;
}

bool IsAngles(std::span<const WaveColumn> c) {
  for (size_t j = 0; j < c.size(); ++j) {
    if (c[j].wave != Wave::kAngle) return false;
  }
  return !c.empty();
}

Plan MakePlan(std::span<const WaveColumn> columns) {
  Plan plan;
  auto add_pair = [&](double w) {
    plan.w.push_back(w);
    plan.cw.push_back(std::cos(w));
    plan.sw.push_back(std::sin(w));
  };
  const bool halves = IsTwice(columns, true), in_a_row = !halves && IsTwice(columns, false);
  if (halves || in_a_row) {
    plan.layout = halves ? Plan::Layout::kTwiceHalves : Plan::Layout::kTwiceInterleaved;
    plan.twice_sin = columns[0].wave == Wave::kSin;
    plan.amplitude = columns[0].amplitude;
    const size_t h = columns.size() / 2;
    for (size_t i = 0; i < h; ++i) add_pair(columns[halves ? i : 2 * i].frequency);
    return plan;
  }
  if (IsAngles(columns)) {
    plan.layout = Plan::Layout::kAngles;
    for (const WaveColumn& c : columns) plan.angle_w.push_back(c.frequency);
    return plan;
  }
  if (IsInterleaved(columns)) {
    plan.layout = Plan::Layout::kInterleaved;
    plan.n_sin = static_cast<int64_t>(columns.size()) - static_cast<int64_t>(columns.size()) / 2;
    plan.n_cos = static_cast<int64_t>(columns.size()) / 2;
  } else if (IsHalves(columns, plan)) {
    plan.layout = Plan::Layout::kHalves;
  }
  if (plan.layout != Plan::Layout::kColumns) {
    // Pair i's frequency is the one of its sine column.
    for (int64_t i = 0; i < plan.n_sin; ++i) {
      const int64_t col = plan.layout == Plan::Layout::kInterleaved ? 2 * i : i;
      add_pair(columns[static_cast<size_t>(col)].frequency);
    }
    return plan;
  }
  // Any other run of columns: one recurrence per distinct frequency index among them.
  std::vector<int64_t> slot_of_pair;
  for (const WaveColumn& c : columns) {
    Plan::Col col;
    col.wave = c.wave;
    col.amplitude = c.amplitude;
    col.frequency = c.frequency;
    if (c.wave == Wave::kSin || c.wave == Wave::kCos) {
      if (static_cast<int64_t>(slot_of_pair.size()) <= c.pair)
        slot_of_pair.resize(static_cast<size_t>(c.pair) + 1, -1);
      int64_t& slot = slot_of_pair[static_cast<size_t>(c.pair)];
      if (slot < 0) {
        slot = static_cast<int64_t>(plan.w.size());
        add_pair(c.frequency);
      }
      col.pair = slot;
    }
    plan.cols.push_back(col);
  }
  return plan;
}

// Pairs go a few registers' worth at a time through every step (each pair's steps are its own, so
// their order changes no bit) rather than every pair per step: at d 65536 the pairs' 1 MiB of
// state would stream through L2 once a step.
PE_VECTOR_CLONES void StepPairs(int64_t n, int64_t steps, const double* __restrict cw,
                                const double* __restrict sw, double* __restrict s,
                                double* __restrict c) {
  // Four vectors of four pairs in registers (GCC's vector types: ymm with AVX2, xmm pairs else).
  typedef double V4 __attribute__((vector_size(32)));
  constexpr int64_t kVectors = 4, kChunk = 4 * kVectors;
  int64_t i0 = 0;
  for (; i0 + kChunk <= n; i0 += kChunk) {
    V4 vs[kVectors], vc[kVectors], vcw[kVectors], vsw[kVectors];
    std::memcpy(vs, s + i0, sizeof vs);
    std::memcpy(vc, c + i0, sizeof vc);
    std::memcpy(vcw, cw + i0, sizeof vcw);
    std::memcpy(vsw, sw + i0, sizeof vsw);
    for (int64_t k = 0; k < steps; ++k) {
      for (int64_t v = 0; v < kVectors; ++v) {
        const V4 si = vs[v], ci = vc[v];
        vs[v] = si * vcw[v] + ci * vsw[v];
        vc[v] = ci * vcw[v] - si * vsw[v];
      }
    }
    std::memcpy(s + i0, vs, sizeof vs);
    std::memcpy(c + i0, vc, sizeof vc);
  }
  for (int64_t i = i0; i < n; ++i) {
    for (int64_t k = 0; k < steps; ++k) {
      const double si = s[i], ci = c[i];
      s[i] = si * cw[i] + ci * sw[i];
      c[i] = ci * cw[i] - si * sw[i];
    }
  }
}

// Sets (s, c) to the exact values at `anchor` and steps them to `position`.
void Anchor(const Plan& plan, int64_t anchor, int64_t position, double* s, double* c) {
  const auto n = static_cast<int64_t>(plan.w.size());
  const double a = static_cast<double>(anchor);
  for (int64_t i = 0; i < n; ++i) {
    const double angle = a * plan.w[static_cast<size_t>(i)];
    s[i] = std::sin(angle);
    c[i] = std::cos(angle);
  }
  if (position > anchor) {
    StepWavePairs(n, position - anchor, plan.cw.data(), plan.sw.data(), s, c);
  }
}

// Writes one row from (s, c), then advances both by one position.
PE_VECTOR_CLONES void RowInterleaved(int64_t n_sin, int64_t n_cos, const double* __restrict cw,
                                     const double* __restrict sw, double* __restrict s,
                                     double* __restrict c, float* __restrict out) {
  for (int64_t i = 0; i < n_cos; ++i) {
    const double si = s[i], ci = c[i];
    out[2 * i] = static_cast<float>(si);
    out[2 * i + 1] = static_cast<float>(ci);
    s[i] = si * cw[i] + ci * sw[i];
    c[i] = ci * cw[i] - si * sw[i];
  }
  for (int64_t i = n_cos; i < n_sin; ++i) {  // odd d: the last sine
    const double si = s[i], ci = c[i];
    out[2 * i] = static_cast<float>(si);
    s[i] = si * cw[i] + ci * sw[i];
    c[i] = ci * cw[i] - si * sw[i];
  }
}

PE_VECTOR_CLONES void RowHalves(int64_t n_sin, int64_t n_cos, int64_t cos_base,
                                const double* __restrict cw, const double* __restrict sw,
                                double* __restrict s, double* __restrict c, float* __restrict out) {
  float* __restrict out_cos = out + cos_base;
  for (int64_t i = 0; i < n_cos; ++i) {
    const double si = s[i], ci = c[i];
    out[i] = static_cast<float>(si);
    out_cos[i] = static_cast<float>(ci);
    s[i] = si * cw[i] + ci * sw[i];
    c[i] = ci * cw[i] - si * sw[i];
  }
  for (int64_t i = n_cos; i < n_sin; ++i) {
    const double si = s[i], ci = c[i];
    out[i] = static_cast<float>(si);
    s[i] = si * cw[i] + ci * sw[i];
    c[i] = ci * cw[i] - si * sw[i];
  }
}

void RowColumns(const Plan& plan, double position, const double* cw, const double* sw, double* s,
                double* c, float* out) {
  const size_t n = plan.cols.size();
  for (size_t j = 0; j < n; ++j) {
    const Plan::Col& col = plan.cols[j];
    switch (col.wave) {
      case Wave::kSin:
        out[j] = static_cast<float>(col.amplitude * s[col.pair]);
        break;
      case Wave::kCos:
        out[j] = static_cast<float>(col.amplitude * c[col.pair]);
        break;
      case Wave::kZero:
        out[j] = 0.0f;
        break;
      case Wave::kAngle:
        out[j] = static_cast<float>(position * col.frequency);
        break;
    }
  }
  const auto pairs = static_cast<int64_t>(plan.w.size());
  for (int64_t i = 0; i < pairs; ++i) {
    const double si = s[i], ci = c[i];
    s[i] = si * cw[i] + ci * sw[i];
    c[i] = ci * cw[i] - si * sw[i];
  }
}

// One wave of every pair, times the amplitude, written twice (as halves, or in a row), then both
// waves advanced by one position.
PE_VECTOR_CLONES void RowTwice(int64_t h, bool halves, bool sin, double amplitude,
                               const double* __restrict cw, const double* __restrict sw,
                               double* __restrict s, double* __restrict c, float* __restrict out) {
  for (int64_t i = 0; i < h; ++i) {
    const double si = s[i], ci = c[i];
    const auto v = static_cast<float>(amplitude * (sin ? si : ci));
    if (halves) {
      out[i] = v;
      out[h + i] = v;
    } else {
      out[2 * i] = v;
      out[2 * i + 1] = v;
    }
    s[i] = si * cw[i] + ci * sw[i];
    c[i] = ci * cw[i] - si * sw[i];
  }
}

// p * w_i of every pair.
PE_VECTOR_CLONES void RowAngles(int64_t n, double position, const double* __restrict w,
                                float* __restrict out) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(position * w[i]);
}

// Blocks at least this large outgrow the caches (two cores' L2): they are written with
// non-temporal stores, which skip the read that an ordinary store makes of every line it writes
// (so the traffic is memset's, not twice it).
constexpr int64_t kStreamBytes = int64_t{8} << 20;

#if defined(__x86_64__)
// The full-row layouts with AVX2, four rows at a time: each group of pairs is loaded once, then
// written and advanced four times in registers, and groups are placed so that each row's share
// of a group is whole 64-byte lines, so streaming stores never leave a line half-written (four
// rows of half-written lines measured 2-4x slower). The few pairs before the first whole line and
// after the last go one at a time with ordinary stores. The arithmetic is operation for operation
// the scalar rows' (mul, mul, add; no FMA; one round-to-nearest conversion after the amplitude),
// so the values are bit-identical whatever the path or the grouping. Rows are 16-byte aligned.
constexpr int kRowsPerGroup = 4;

template <bool kStream>
__attribute__((target("avx2"))) void Store4(float* p, __m128 v) {
  if constexpr (kStream) {
    _mm_stream_ps(p, v);
  } else {
    _mm_storeu_ps(p, v);
  }
}

// (s, c) <- (s cos w + c sin w, c cos w - s sin w) for four pairs.
__attribute__((target("avx2"), always_inline)) inline void Advance(__m256d& s, __m256d& c,
                                                                   __m256d cw, __m256d sw) {
  const __m256d next_s = _mm256_add_pd(_mm256_mul_pd(s, cw), _mm256_mul_pd(c, sw));
  c = _mm256_sub_pd(_mm256_mul_pd(c, cw), _mm256_mul_pd(s, sw));
  s = next_s;
}

// What one layout writes for pairs [j, j + 4) of row r of a group (Put) and for pair j alone
// (PutOne). sin/cos interleaved: s0 c0 s1 c1 ...
struct EmitInterleaved {
  float* out;
  int64_t width;
  template <bool kStream>
  __attribute__((target("avx2"), always_inline)) void Put(int r, int64_t j, __m256d s,
                                                          __m256d c) const {
    const __m128 sf = _mm256_cvtpd_ps(s), cf = _mm256_cvtpd_ps(c);
    float* row = out + r * width + 2 * j;
    Store4<kStream>(row, _mm_unpacklo_ps(sf, cf));
    Store4<kStream>(row + 4, _mm_unpackhi_ps(sf, cf));
  }
  void PutOne(int r, int64_t j, double s, double c) const {
    out[r * width + 2 * j] = static_cast<float>(s);
    out[r * width + 2 * j + 1] = static_cast<float>(c);
  }
};

// The halves layouts (sines then cosines, or RoPE's one wave twice), with ordinary stores: both
// halves of a row at once as streaming stores (two streams a half-row apart, in turn) measured
// 1.3-2x slower than ordinary stores here, whatever the grouping of rows.
template <bool kFirstSin, bool kSecondSin>
struct EmitHalves {
  float* out;
  int64_t width, n;
  double amplitude;
  template <bool kStream>
  __attribute__((target("avx2"), always_inline)) void Put(int r, int64_t j, __m256d s,
                                                          __m256d c) const {
    static_assert(!kStream, "halves are written with ordinary stores");
    const __m256d a = _mm256_set1_pd(amplitude);
    float* row = out + r * width;
    _mm_storeu_ps(row + j, _mm256_cvtpd_ps(_mm256_mul_pd(a, kFirstSin ? s : c)));
    _mm_storeu_ps(row + n + j, _mm256_cvtpd_ps(_mm256_mul_pd(a, kSecondSin ? s : c)));
  }
  void PutOne(int r, int64_t j, double s, double c) const {
    out[r * width + j] = static_cast<float>(amplitude * (kFirstSin ? s : c));
    out[r * width + n + j] = static_cast<float>(amplitude * (kSecondSin ? s : c));
  }
};

// One wave of each pair times the amplitude, each value twice in a row (RoPE's interleaved
// pairing).
template <bool kSin>
struct EmitTwiceInARow {
  float* out;
  int64_t width;
  double amplitude;
  template <bool kStream>
  __attribute__((target("avx2"), always_inline)) void Put(int r, int64_t j, __m256d s,
                                                          __m256d c) const {
    const __m128 v = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_set1_pd(amplitude), kSin ? s : c));
    float* row = out + r * width + 2 * j;
    Store4<kStream>(row, _mm_unpacklo_ps(v, v));
    Store4<kStream>(row + 4, _mm_unpackhi_ps(v, v));
  }
  void PutOne(int r, int64_t j, double s, double c) const {
    const auto v = static_cast<float>(amplitude * (kSin ? s : c));
    out[r * width + 2 * j] = v;
    out[r * width + 2 * j + 1] = v;
  }
};

// Pairs [a, b) of kRows rows, one pair at a time, in double like the scalar rows.
template <int kRows, typename Emit>
void PairsOneByOne(int64_t a, int64_t b, const double* cw, const double* sw, double* s, double* c,
                   const Emit& emit) {
  for (int64_t j = a; j < b; ++j) {
    double sj = s[j], cj = c[j];
    for (int r = 0; r < kRows; ++r) {
      emit.PutOne(r, j, sj, cj);
      const double next_s = sj * cw[j] + cj * sw[j];
      cj = cj * cw[j] - sj * sw[j];
      sj = next_s;
    }
    s[j] = sj;
    c[j] = cj;
  }
}

// kRows rows of n pairs from (s, c), which end kRows positions further. Pairs [head, ...) go in
// groups of 4 * kVectors, each whole lines of every row it writes; the pairs before `head` and
// after the last group go one at a time. Inside a group everything stays in registers.
template <int kRows, int kVectors, bool kStream, typename Emit>
__attribute__((target("avx2"))) void RowsAvx2(int64_t n, int64_t head, const double* cw,
                                              const double* sw, double* s, double* c,
                                              const Emit emit) {
  PairsOneByOne<kRows>(0, std::min(head, n), cw, sw, s, c, emit);
  int64_t i = head;
  for (; i + 4 * kVectors <= n; i += 4 * kVectors) {
    __m256d S[kVectors], C[kVectors], CW[kVectors], SW[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      S[v] = _mm256_loadu_pd(s + i + 4 * v);
      C[v] = _mm256_loadu_pd(c + i + 4 * v);
      CW[v] = _mm256_loadu_pd(cw + i + 4 * v);
      SW[v] = _mm256_loadu_pd(sw + i + 4 * v);
    }
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) {
        emit.template Put<kStream>(r, i + 4 * v, S[v], C[v]);
        Advance(S[v], C[v], CW[v], SW[v]);
      }
    }
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      _mm256_storeu_pd(s + i + 4 * v, S[v]);
      _mm256_storeu_pd(c + i + 4 * v, C[v]);
    }
  }
  PairsOneByOne<kRows>(std::max(i, head), n, cw, sw, s, c, emit);
}

// One row of RoPE's angle table: p * w_i, no recurrence.
template <bool kStream>
__attribute__((target("avx2"))) void RowAnglesAvx2(int64_t n, double position, const double* w,
                                                   float* out) {
  const __m256d p = _mm256_set1_pd(position);
  for (int64_t j = 0; j < n; j += 4)
    Store4<kStream>(out + j, _mm256_cvtpd_ps(_mm256_mul_pd(p, _mm256_loadu_pd(w + j))));
}

// Whether the plan's rows take the AVX2 writers: a full-row layout whose pair count (column
// count for angles) is a multiple of 4, rows 16-byte aligned, on a processor with AVX2, unless
// the scalar path is forced (PE_SIMD=scalar; tests compare the two bit for bit).
bool CanUseAvx2(const Plan& plan, int64_t width, const float* out) {
  if (ActiveSimdPath() == SimdPath::kScalar || !__builtin_cpu_supports("avx2") ||
      reinterpret_cast<uintptr_t>(out) % 16 != 0)
    return false;
  switch (plan.layout) {
    case Plan::Layout::kInterleaved:
    case Plan::Layout::kHalves:
      return plan.n_sin == plan.n_cos && plan.n_sin % 4 == 0 && width == 2 * plan.n_sin;
    case Plan::Layout::kTwiceHalves:
    case Plan::Layout::kTwiceInterleaved:
      return static_cast<int64_t>(plan.w.size()) % 4 == 0 &&
             width == 2 * static_cast<int64_t>(plan.w.size());
    case Plan::Layout::kAngles:
      return width % 4 == 0;
    case Plan::Layout::kColumns:
      return false;
  }
  return false;
}

// Where groups start so that each is whole lines of every row: the pairs (of `floats_per_pair`
// floats each) before the first line boundary at or after column `base` of the first row. Any
// value is correct; this one keeps streaming stores to whole lines.
int64_t HeadPairs(const float* out, int64_t base, int floats_per_pair) {
  const int64_t floats_to_line = (64 - reinterpret_cast<uintptr_t>(out + base) % 64) % 64 / 4;
  return floats_to_line / floats_per_pair;
}

// kRows (<= kRowsPerGroup) rows of a full-row layout with AVX2; `grouped`: the rows share
// their line boundaries (HeadPairs), else rows come one at a time (kRows == 1).
template <int kRows, bool kStream>
void GroupAvx2(const Plan& plan, int64_t width, bool grouped, double* s, double* c, float* out) {
  const double* cw = plan.cw.data();
  const double* sw = plan.sw.data();
  const auto h = static_cast<int64_t>(plan.w.size());
  const double a = plan.amplitude;
  auto head = [&](int64_t base, int floats_per_pair) {
    return grouped ? HeadPairs(out, base, floats_per_pair) : 0;
  };
  switch (plan.layout) {
    case Plan::Layout::kInterleaved:
      RowsAvx2<kRows, 2, kStream>(h, head(0, 2), cw, sw, s, c, EmitInterleaved{out, width});
      break;
    case Plan::Layout::kHalves:  // never streamed (EmitHalves)
      RowsAvx2<kRows, 2, false>(h, 0, cw, sw, s, c, EmitHalves<true, false>{out, width, h, 1.0});
      break;
    case Plan::Layout::kTwiceHalves:
      if (plan.twice_sin) {
        RowsAvx2<kRows, 2, false>(h, 0, cw, sw, s, c, EmitHalves<true, true>{out, width, h, a});
      } else {
        RowsAvx2<kRows, 2, false>(h, 0, cw, sw, s, c, EmitHalves<false, false>{out, width, h, a});
      }
      break;
    case Plan::Layout::kTwiceInterleaved:
      if (plan.twice_sin) {
        RowsAvx2<kRows, 2, kStream>(h, head(0, 2), cw, sw, s, c,
                                    EmitTwiceInARow<true>{out, width, a});
      } else {
        RowsAvx2<kRows, 2, kStream>(h, head(0, 2), cw, sw, s, c,
                                    EmitTwiceInARow<false>{out, width, a});
      }
      break;
    case Plan::Layout::kAngles:
    case Plan::Layout::kColumns:
      break;  // not here
  }
}
#endif

// Rows [row0, row0 + rows) on one thread; `stream`: write with non-temporal stores (the whole
// block is large and `out` is 16-byte aligned).
void FillRows(int64_t first_position, const Plan& plan, int64_t row0, int64_t rows, int64_t width,
              bool stream, float* out) {
#if defined(__x86_64__)
  const bool avx2 = CanUseAvx2(plan, width, out);
  stream = stream && avx2 && plan.layout != Plan::Layout::kHalves &&
           plan.layout != Plan::Layout::kTwiceHalves;
  // Rows go in groups when every row has the first row's line boundaries: a width of whole
  // lines.
  const bool grouped = avx2 && (width * 4) % 64 == 0;
  if (avx2 && plan.layout == Plan::Layout::kAngles) {
    for (int64_t r = 0; r < rows; ++r) {
      const auto position = static_cast<double>(first_position + row0 + r);
      if (stream) {
        RowAnglesAvx2<true>(width, position, plan.angle_w.data(), out + r * width);
      } else {
        RowAnglesAvx2<false>(width, position, plan.angle_w.data(), out + r * width);
      }
    }
    if (stream) _mm_sfence();
    return;
  }
#endif
  const auto pairs = static_cast<int64_t>(plan.w.size());
  std::vector<double> s(static_cast<size_t>(pairs)), c(static_cast<size_t>(pairs));
  const double* cw = plan.cw.data();
  const double* sw = plan.sw.data();
  int64_t r = 0;
  while (r < rows) {
    const int64_t position = first_position + row0 + r;
    const int64_t anchor = position - FloorMod(position, kPeAnchorPositions);
    Anchor(plan, anchor, position, s.data(), c.data());
    const int64_t block_end = std::min(rows, r + (anchor + kPeAnchorPositions - position));
#if defined(__x86_64__)
    if (avx2) {
      // Four rows at a time where the rows share their line boundaries, else one.
      for (; grouped && r + kRowsPerGroup <= block_end; r += kRowsPerGroup) {
        if (stream) {
          GroupAvx2<kRowsPerGroup, true>(plan, width, true, s.data(), c.data(), out + r * width);
        } else {
          GroupAvx2<kRowsPerGroup, false>(plan, width, true, s.data(), c.data(), out + r * width);
        }
      }
      for (; r < block_end; ++r) {
        if (stream) {
          GroupAvx2<1, true>(plan, width, false, s.data(), c.data(), out + r * width);
        } else {
          GroupAvx2<1, false>(plan, width, false, s.data(), c.data(), out + r * width);
        }
      }
      continue;
    }
#endif
    for (; r < block_end; ++r) {
      float* row = out + r * width;
      switch (plan.layout) {
        case Plan::Layout::kInterleaved:
          RowInterleaved(plan.n_sin, plan.n_cos, cw, sw, s.data(), c.data(), row);
          break;
        case Plan::Layout::kHalves:
          RowHalves(plan.n_sin, plan.n_cos, plan.cos_base, cw, sw, s.data(), c.data(), row);
          if (plan.zero_last) row[width - 1] = 0.0f;  // t2t's odd zero column
          break;
        case Plan::Layout::kTwiceHalves:
        case Plan::Layout::kTwiceInterleaved:
          RowTwice(static_cast<int64_t>(plan.w.size()), plan.layout == Plan::Layout::kTwiceHalves,
                   plan.twice_sin, plan.amplitude, cw, sw, s.data(), c.data(), row);
          break;
        case Plan::Layout::kAngles:
          RowAngles(width, static_cast<double>(first_position + row0 + r), plan.angle_w.data(),
                    row);
          break;
        case Plan::Layout::kColumns:
          RowColumns(plan, static_cast<double>(first_position + row0 + r), cw, sw, s.data(),
                     c.data(), row);
          break;
      }
    }
  }
#if defined(__x86_64__)
  if (stream) _mm_sfence();  // streamed stores are visible before the caller reads them
#endif
}

}  // namespace

void StepWavePairs(int64_t n, int64_t steps, const double* cw, const double* sw, double* s,
                   double* c) {
  StepPairs(n, steps, cw, sw, s, c);
}

void FillWaveBlock(std::span<const WaveColumn> columns, int64_t first_position, int64_t row0,
                   int64_t rows, float* out) {
  assert(rows >= 0 && "rows out of range");
  const auto cols = static_cast<int64_t>(columns.size());
  if (rows == 0 || cols == 0) return;
  const Plan plan = MakePlan(columns);
  // Threads for large blocks (OpenMP keeps its pool between calls), split at anchor positions so
  // no thread repeats another's steps.
  const int hw = std::max(1, omp_get_max_threads());  // cores, or OMP_NUM_THREADS
  const int64_t threads = std::min<int64_t>(hw, rows * cols / (int64_t{1} << 18));
  const bool stream = rows * cols * 4 >= kStreamBytes && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  if (threads < 2 || rows < 2 * kPeAnchorPositions) {
    FillRows(first_position, plan, row0, rows, cols, stream, out);
    return;
  }
  std::vector<int64_t> bounds{0};  // thread t fills rows [bounds[t], bounds[t + 1])
  for (int64_t t = 1; t <= threads; ++t) {
    int64_t end = rows * t / threads;
    if (t < threads) {  // round to the next anchor position
      const int64_t pos = first_position + row0 + end;
      end = std::min(rows, end + FloorMod(kPeAnchorPositions - FloorMod(pos, kPeAnchorPositions),
                                          kPeAnchorPositions));
    }
    if (end > bounds.back()) bounds.push_back(end);
  }
  const auto parts = static_cast<int64_t>(bounds.size()) - 1;
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int64_t t = 0; t < parts; ++t) {
    const int64_t start = bounds[static_cast<size_t>(t)], end = bounds[static_cast<size_t>(t) + 1];
    FillRows(first_position, plan, row0 + start, end - start, cols, stream, out + start * cols);
  }
}

}  // namespace pe
