// Speed of the engine against the physical floor: the fastest way this machine writes the same
// bytes, a memset on one thread or non-temporal stores on every thread, whichever is faster in
// that iteration. This kind of machine is shared and its memory bandwidth drifts between runs,
// so the table benchmarks time both floors themselves, alternating with the work in every
// iteration, and report the median per-iteration ratio as the counter x_floor (and x_memset
// against the memset alone). Buffers are allocated once, outside the
// timed loop (fresh pages cost ~4 us per 4 KiB here and would measure the kernel, not the
// engine). Run: build/pe_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "analysis/attention_score.h"
#include "analysis/similarity.h"
#include "base/simd_path.h"
#include "encoding/encoding.h"
#include "encoding/positional_encoding.h"
#include "model/embedding.h"
#include "model/input_layer.h"
#include "views/heatmap_raster.h"

namespace pe {
namespace {

EncodingParams TableParams(const benchmark::State& state, PeVariant variant = PeVariant::kPaper) {
  EncodingParams p;
  p.max_len = state.range(0);
  p.d_model = state.range(1);
  p.sinusoidal().variant = variant;
  return p;
}

void SetBytes(benchmark::State& state, int64_t floats) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * floats * 4);
}

// The floor: writing the table's bytes. A non-zero byte, like a real table (memset of zero runs
// about twice as fast on this kind of machine and is not a fair floor).
void BM_Memset(benchmark::State& state) {
  const int64_t n = state.range(0) * state.range(1);
  std::vector<float> buf(static_cast<size_t>(n));
  for (auto _ : state) {
    std::memset(buf.data(), 0x3f, buf.size() * sizeof(float));
    benchmark::ClobberMemory();
  }
  SetBytes(state, n);
}

// The other way to write the bytes: every thread of the OpenMP pool (the one the tables fill
// with) writing its slice with non-temporal stores (_mm256_stream_si256), which skip the
// read-for-ownership a cached store costs, then a fence.
__attribute__((target("avx2"))) void StreamSlice(char* p, size_t n, char byte) {
  const __m256i v = _mm256_set1_epi8(byte);
  size_t k = 0;
  for (; k < n && (reinterpret_cast<uintptr_t>(p + k) & 31) != 0; ++k) p[k] = byte;
  for (; k + 32 <= n; k += 32) _mm256_stream_si256(reinterpret_cast<__m256i*>(p + k), v);
  for (; k < n; ++k) p[k] = byte;
  _mm_sfence();
}

void StreamFill(void* dst, size_t bytes, char byte) {
  char* p = static_cast<char*>(dst);
  if (!__builtin_cpu_supports("avx2")) {
    std::memset(p, byte, bytes);
    return;
  }
  const int parts = std::max(1, omp_get_max_threads());
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int t = 0; t < parts; ++t) {
    const size_t b = bytes * static_cast<size_t>(t) / static_cast<size_t>(parts);
    const size_t e = bytes * (static_cast<size_t>(t) + 1) / static_cast<size_t>(parts);
    StreamSlice(p + b, e - b, byte);
  }
}

// The copy floor, for tables that are copies (learned): every thread copying its slice with
// unaligned loads and non-temporal stores, then a fence. A copy reads as many bytes as it
// writes, so its floor is about twice a fill's.
__attribute__((target("avx2"))) void StreamCopySlice(char* p, const char* src, size_t n) {
  size_t k = 0;
  for (; k < n && (reinterpret_cast<uintptr_t>(p + k) & 31) != 0; ++k) p[k] = src[k];
  for (; k + 32 <= n; k += 32)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(p + k),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k)));
  for (; k < n; ++k) p[k] = src[k];
  _mm_sfence();
}

void StreamCopy(void* dst, const void* src, size_t bytes) {
  char* p = static_cast<char*>(dst);
  const char* q = static_cast<const char*>(src);
  if (!__builtin_cpu_supports("avx2")) {
    std::memcpy(p, q, bytes);
    return;
  }
  const int parts = std::max(1, omp_get_max_threads());
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int t = 0; t < parts; ++t) {
    const size_t b = bytes * static_cast<size_t>(t) / static_cast<size_t>(parts);
    const size_t e = bytes * (static_cast<size_t>(t) + 1) / static_cast<size_t>(parts);
    StreamCopySlice(p + b, q + b, e - b);
  }
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Each iteration: the floor both ways (one memset, then all threads streaming), then `work`
// (which writes `buf`); the iteration's time is the work's alone (use with UseManualTime).
// Counters: x_floor, the median of work / (the faster of the two floors in that iteration);
// memset_ms and stream_ms, the medians of the two floors; x_memset, work / memset alone.
// With `copy_src` (as many floats as `buf`), also the copy floor: memcpy from it on one thread
// and all threads streaming a copy of it, and x_copy, the work over the faster of those two.
template <typename Work>
void TimeAgainstMemset(benchmark::State& state, std::vector<float>& buf, Work work,
                       const float* copy_src = nullptr) {
  using Clock = std::chrono::steady_clock;
  using Ms = std::chrono::duration<double, std::milli>;
  std::vector<double> ratios, memset_ratios, memset_ms, stream_ms, copy_ratios;
  for (auto _ : state) {
    double by_copy = 0.0;
    if (copy_src != nullptr) {
      const Clock::time_point c0 = Clock::now();
      std::memcpy(buf.data(), copy_src, buf.size() * sizeof(float));
      benchmark::ClobberMemory();
      const Clock::time_point c1 = Clock::now();
      StreamCopy(buf.data(), copy_src, buf.size() * sizeof(float));
      benchmark::ClobberMemory();
      by_copy = std::min(Ms(c1 - c0).count(), Ms(Clock::now() - c1).count());
    }
    const Clock::time_point t0 = Clock::now();
    std::memset(buf.data(), 0x3f, buf.size() * sizeof(float));
    benchmark::ClobberMemory();
    const Clock::time_point t1 = Clock::now();
    StreamFill(buf.data(), buf.size() * sizeof(float), 0x3f);
    benchmark::ClobberMemory();
    const Clock::time_point t2 = Clock::now();
    work();
    benchmark::ClobberMemory();
    const Clock::time_point t3 = Clock::now();
    const double by_memset = Ms(t1 - t0).count(), by_stream = Ms(t2 - t1).count(),
                 took = Ms(t3 - t2).count();
    state.SetIterationTime(took / 1000.0);
    memset_ms.push_back(by_memset);
    stream_ms.push_back(by_stream);
    ratios.push_back(took / std::min(by_memset, by_stream));
    memset_ratios.push_back(took / by_memset);
    if (copy_src != nullptr) copy_ratios.push_back(took / by_copy);
  }
  if (ratios.empty()) return;
  if (copy_src != nullptr) state.counters["x_copy"] = Median(copy_ratios);
  state.counters["x_floor"] = Median(ratios);
  state.counters["x_memset"] = Median(memset_ratios);
  state.counters["memset_ms"] = Median(memset_ms);
  state.counters["stream_ms"] = Median(stream_ms);
  SetBytes(state, static_cast<int64_t>(buf.size()));
}

// The floor alone: memset and all-thread streaming stores of the same bytes, side by side.
void BM_Floor(benchmark::State& state) {
  const int64_t n = state.range(0) * state.range(1);
  std::vector<float> buf(static_cast<size_t>(n));
  TimeAgainstMemset(state, buf, [&] { StreamFill(buf.data(), buf.size() * sizeof(float), 0x3f); });
}

template <PeVariant kVariant>
void BM_SinusoidalPE(benchmark::State& state) {
  const EncodingParams p = TableParams(state, kVariant);
  std::vector<float> buf(static_cast<size_t>(p.max_len * p.d_model));
  TimeAgainstMemset(state, buf, [&] { FillPeBlock(p, 0, p.max_len, 0, p.d_model, buf.data()); });
}

// Every scheme's natural table through the Encoding interface (what exports and the window
// use): learned (a copy of its table), RoPE cos / sin / angle in both pairings and with YaRN's
// attention factor, LongRoPE's per-pair long factors (a ramp from 1 to 64, past the original
// length), YaRN untruncated with DeepSeek's mscales, and proportional RoPE (a quarter of the
// pairs turn, the rest have frequency 0). Args: rows, cols (the head dimension for RoPE).
enum class Table {
  kLearned,
  kRopeCosHalf,
  kRopeSinInterleaved,
  kRopeAngle,
  kRopeYarnCos,
  kRopeLongropeCos,
  kRopeYarnMscaleCos,
  kRopeProportionalCos
};

EncodingParams SchemeParams(const benchmark::State& state, Table table) {
  EncodingParams p;
  p.max_len = state.range(0);
  p.d_model = state.range(1);
  if (table == Table::kLearned) {
    p.scheme = LearnedParams{};
    return p;
  }
  RopeParams r;
  r.part = table == Table::kRopeSinInterleaved ? RopePart::kSin
           : table == Table::kRopeAngle        ? RopePart::kAngle
                                               : RopePart::kCos;
  r.pairing = table == Table::kRopeSinInterleaved ? RopePairing::kInterleaved : RopePairing::kHalf;
  if (table == Table::kRopeYarnCos) {
    r.scaling = RopeScaling::kYarn;
    r.factor = 8;
    r.original_max_len = 2048;
  }
  if (table == Table::kRopeLongropeCos) {
    r.scaling = RopeScaling::kLongrope;
    r.original_max_len = 4096;
    const int64_t h = p.d_model / 2;
    for (int64_t i = 0; i < h; ++i) {
      r.short_factor.push_back(1.0 + static_cast<double>(i) / static_cast<double>(h));
      r.long_factor.push_back(1.0 + 63.0 * static_cast<double>(i) / static_cast<double>(h));
    }
  }
  if (table == Table::kRopeYarnMscaleCos) {
    r.scaling = RopeScaling::kYarn;
    r.factor = 32;
    r.original_max_len = 4096;
    r.yarn_truncate = false;
    r.mscale = 1.0;
    r.mscale_all_dim = 0.707;
  }
  if (table == Table::kRopeProportionalCos) r.proportion = 0.25;
  p.scheme = r;
  return p;
}

template <Table kTable>
void BM_EncodingTable(benchmark::State& state) {
  const EncodingParams p = SchemeParams(state, kTable);
  MemoryCap cap;
  cap.bytes = uint64_t{1} << 34;
  const EncodingPtr e = MakeEncoding(p, cap).value();
  std::vector<float> buf(static_cast<size_t>(e->rows() * e->cols()));
  // A learned table is a copy of its matrix: its floor is a copy of the same bytes (x_copy).
  std::vector<float> copy_src(kTable == Table::kLearned ? buf.size() : 0, 0.5f);
  TimeAgainstMemset(
      state, buf, [&] { e->FillBlock(0, e->rows(), 0, e->cols(), buf.data()); },
      copy_src.empty() ? nullptr : copy_src.data());
}

void BM_SinusoidalPENaive(benchmark::State& state) {
  const EncodingParams p = TableParams(state);
  std::vector<float> buf(static_cast<size_t>(p.max_len * p.d_model));
  for (auto _ : state) {
    FillPeBlockNaive(p, 0, p.max_len, 0, p.d_model, buf.data());
    benchmark::ClobberMemory();
  }
  SetBytes(state, p.max_len * p.d_model);
}

// The allocating API, fresh pages included, for contrast with the buffer-reusing numbers.
void BM_ComputePeTableFresh(benchmark::State& state) {
  const EncodingParams p = TableParams(state);
  MemoryCap cap;
  cap.bytes = uint64_t{1} << 34;
  for (auto _ : state) benchmark::DoNotOptimize(ComputePeTable(p, cap));
  SetBytes(state, p.max_len * p.d_model);
}

// The input layer at batch x seq x d: lookup, scale, add (PE rows precomputed, like a model's
// registered buffer); the floor is writing its output.
template <bool kTrain>
void BM_InputLayer(benchmark::State& state) {
  const int64_t batch = state.range(0), seq = state.range(1), d = state.range(2);
  const Matrix table = InitEmbeddingNormal(1000, d, 0).value();
  std::vector<int64_t> ids(static_cast<size_t>(batch * seq));
  for (size_t k = 0; k < ids.size(); ++k) ids[k] = static_cast<int64_t>((k * 7919) % 1000);
  EncodingParams p;
  p.d_model = d;
  p.max_len = seq;
  std::vector<float> pe_rows(static_cast<size_t>(seq * d)),
      out(static_cast<size_t>(batch * seq * d));
  FillPeBlock(p, 0, seq, 0, d, pe_rows.data());
  InputLayerParams params;
  params.train = kTrain;
  params.dropout = 0.1;
  TimeAgainstMemset(state, out, [&] {
    InputLayerForwardInto(table, ids, batch, seq, pe_rows.data(), params, out.data());
  });
}

void BM_InputLayerOutputMemset(benchmark::State& state) {
  const int64_t n = state.range(0) * state.range(1) * state.range(2);
  std::vector<float> out(static_cast<size_t>(n));
  for (auto _ : state) {
    std::memset(out.data(), 0x3f, out.size() * sizeof(float));
    benchmark::ClobberMemory();
  }
  SetBytes(state, n);
}

// One heatmap frame's worth of raster at max_len 1e9, d 8192, for an 800 x 500 pixel panel.
void BM_HeatmapRaster(benchmark::State& state) {
  EncodingParams p;
  p.d_model = state.range(1);
  p.max_len = state.range(0);
  RasterRequest req{MakeEncoding(p).value(),
                    0,
                    static_cast<double>(p.d_model),
                    0,
                    static_cast<double>(p.max_len),
                    800,
                    500};
  for (auto _ : state) benchmark::DoNotOptimize(ComputeRaster(req));
}

BENCHMARK(BM_Memset)->Args({8192, 1024})->Args({32768, 4096})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Floor)
    ->Args({8192, 1024})
    ->Args({32768, 4096})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_SinusoidalPE<PeVariant::kPaper>)
    ->Name("BM_SinusoidalPE")
    ->Args({8192, 1024})
    ->Args({32768, 4096})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_SinusoidalPE<PeVariant::kT2t>)
    ->Name("BM_SinusoidalPE_t2t")
    ->Args({8192, 1024})
    ->Args({32768, 4096})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_SinusoidalPE<PeVariant::kTfText>)
    ->Name("BM_SinusoidalPE_tftext")
    ->Args({8192, 1024})
    ->Args({32768, 4096})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
#define PE_TABLE_BENCHMARK(kind, name) \
  BENCHMARK(BM_EncodingTable<kind>)    \
      ->Name(name)                     \
      ->Args({8192, 1024})             \
      ->Args({32768, 4096})            \
      ->Unit(benchmark::kMillisecond)  \
      ->UseManualTime()
PE_TABLE_BENCHMARK(Table::kLearned, "BM_Table_learned");
PE_TABLE_BENCHMARK(Table::kRopeCosHalf, "BM_Table_rope_cos_half");
PE_TABLE_BENCHMARK(Table::kRopeSinInterleaved, "BM_Table_rope_sin_interleaved");
PE_TABLE_BENCHMARK(Table::kRopeAngle, "BM_Table_rope_angle");
PE_TABLE_BENCHMARK(Table::kRopeYarnCos, "BM_Table_rope_yarn_cos");
PE_TABLE_BENCHMARK(Table::kRopeLongropeCos, "BM_Table_rope_longrope_cos");
PE_TABLE_BENCHMARK(Table::kRopeYarnMscaleCos, "BM_Table_rope_yarn_mscale_cos");
PE_TABLE_BENCHMARK(Table::kRopeProportionalCos, "BM_Table_rope_proportional_cos");
#undef PE_TABLE_BENCHMARK
BENCHMARK(BM_SinusoidalPENaive)->Args({8192, 1024})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ComputePeTableFresh)->Args({8192, 1024})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_InputLayerOutputMemset)->Args({8, 512, 1024})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InputLayer<false>)
    ->Name("BM_InputLayer")
    ->Args({8, 512, 1024})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_InputLayer<true>)
    ->Name("BM_InputLayerDropout")
    ->Args({8, 512, 1024})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
// The same frame for other schemes: RoPE's cos table (YaRN) at 1e9 positions takes the closed
// form like the sinusoid; a learned table (as large as the default memory cap allows at d 1024)
// sums its cells.
void BM_HeatmapRasterRope(benchmark::State& state) {
  EncodingParams p;
  p.d_model = state.range(1);
  p.max_len = state.range(0);
  RopeParams r;
  r.scaling = RopeScaling::kYarn;
  r.factor = 8;
  r.original_max_len = 4096;
  p.scheme = r;
  RasterRequest req{MakeEncoding(p).value(),
                    0,
                    static_cast<double>(p.d_model),
                    0,
                    static_cast<double>(p.max_len),
                    800,
                    500};
  for (auto _ : state) benchmark::DoNotOptimize(ComputeRaster(req));
}

void BM_HeatmapRasterLearned(benchmark::State& state) {
  EncodingParams p;
  p.d_model = state.range(1);
  p.max_len = state.range(0);
  p.scheme = LearnedParams{};
  MemoryCap cap;
  cap.bytes = uint64_t{1} << 32;
  RasterRequest req{MakeEncoding(p, cap).value(),
                    0,
                    static_cast<double>(p.d_model),
                    0,
                    static_cast<double>(p.max_len),
                    800,
                    500};
  for (auto _ : state) benchmark::DoNotOptimize(ComputeRaster(req));
}

// The similarity view's frame at max_len 1e9, d 8192 (dot), 800 x 500 texels zoomed out.
void BM_SimilarityRaster(benchmark::State& state) {
  EncodingParams p;
  p.d_model = state.range(1);
  p.max_len = state.range(0);
  const PositionSimilarity sim =
      PositionSimilarity::Make(MakeEncoding(p).value(), SimilarityMeasure::kDot).value();
  const double end = static_cast<double>(p.max_len);
  for (auto _ : state)
    benchmark::DoNotOptimize(ComputeSimilarityRaster(sim, {0, end, 0, end, 800, 500}));
}

// The attention-score view's frame (sinusoidal added to a content vector) at the same size.
void BM_ScoreRaster(benchmark::State& state) {
  EncodingParams p;
  p.d_model = state.range(1);
  p.max_len = state.range(0);
  const EncodingPtr e = MakeEncoding(p).value();
  const AttentionScorer scorer =
      AttentionScorer::Make(e, std::vector<double>(static_cast<size_t>(p.d_model), 0.01),
                            std::vector<double>(static_cast<size_t>(p.d_model), 0.02), false)
          .value();
  const double end = static_cast<double>(p.max_len);
  for (auto _ : state)
    benchmark::DoNotOptimize(ComputeScoreRaster(scorer, {0, end, 0, end, 800, 500}));
}

// The score view's frame with RoPE (query and key rotated, N(0,1) content), the same size.
void BM_ScoreRasterRope(benchmark::State& state) {
  EncodingParams p;
  p.d_model = state.range(1);
  p.max_len = state.range(0);
  p.scheme = RopeParams{};
  const EncodingPtr e = MakeEncoding(p).value();
  std::vector<double> x(static_cast<size_t>(p.d_model));
  for (size_t j = 0; j < x.size(); ++j) x[j] = std::sin(0.7 * static_cast<double>(j) + 0.3);
  const AttentionScorer scorer = AttentionScorer::Make(e, x, x, false).value();
  const double end = static_cast<double>(p.max_len);
  for (auto _ : state)
    benchmark::DoNotOptimize(ComputeScoreRaster(scorer, {0, end, 0, end, 800, 500}));
}

// The score view's frame with RoPE under an attention window at 1e9 x 8192 (800 x 500 texels):
// every texel the band or the chunks cut is the exact mean of its visible cells, from the score
// along the window's offsets (the third argument: 0 sliding:4096, 1 chunked:8192, 2 causal,
// 3 sliding:100000000, 4 causal in 797 x 499 texels). The causal diagonal's and the wide band's
// texels span millions of offsets: closed forms per texel (VisibleWaveSum), texels of one shape
// about the band computed once (800 x 500 at 1e9: spans of 1.25e6 and 2e6, a dozen shapes;
// 797 x 499: spans that differ by one, each of the ~1300 cut texels its own).
void BM_ScoreRasterRopeWindow(benchmark::State& state) {
  EncodingParams p;
  p.d_model = state.range(1);
  p.max_len = state.range(0);
  p.scheme = RopeParams{};
  const EncodingPtr e = MakeEncoding(p).value();
  std::vector<double> x(static_cast<size_t>(p.d_model));
  for (size_t j = 0; j < x.size(); ++j) x[j] = std::sin(0.7 * static_cast<double>(j) + 0.3);
  const AttentionWindow window =
      state.range(2) == 0   ? AttentionWindow{AttentionWindowKind::kSliding, 4096}
      : state.range(2) == 1 ? AttentionWindow{AttentionWindowKind::kChunked, 8192}
      : state.range(2) == 3 ? AttentionWindow{AttentionWindowKind::kSliding, 100'000'000}
                            : AttentionWindow{AttentionWindowKind::kCausal, 0};
  const AttentionScorer scorer = AttentionScorer::Make(e, x, x, window).value();
  const double end = static_cast<double>(p.max_len);
  const int width = state.range(2) == 4 ? 797 : 800, height = state.range(2) == 4 ? 499 : 500;
  bool exact = true;
  for (auto _ : state) {
    const ScoreRaster r = ComputeScoreRaster(scorer, {0, end, 0, end, width, height});
    exact = r.exact;
    benchmark::DoNotOptimize(r.values.data());
  }
  state.SetLabel(AttentionWindowText(window) + (exact ? " exact" : " sampled"));
}

// The bias view's frame (query x key, each texel the exact block mean of the bias) at 1e9
// positions in 800 x 500: ALiBi (causal, its masked half) and T5 (bidirectional, 32 buckets).
template <Scheme kScheme>
void BM_BiasRaster(benchmark::State& state) {
  EncodingParams p;
  p.max_len = state.range(0);
  p.d_model = 64;
  if (kScheme == Scheme::kAlibi) {
    p.scheme = AlibiParams{};
  } else {
    p.scheme = T5Params{};
  }
  const double end = static_cast<double>(p.max_len);
  const RasterRequest req{MakeEncoding(p).value(), 0, end, 0, end, 800, 500};
  for (auto _ : state) benchmark::DoNotOptimize(ComputeRaster(req));
}

// The same texels as BM_HeatmapRaster/1e9 two ways side by side: the per-texel closed forms
// (MeanOverTexelsNaive, one thread) and the texel-row recurrence (MeanOverTexels).
template <bool kFast>
void BM_HeatmapTexels(benchmark::State& state) {
  EncodingParams p;
  p.d_model = state.range(1);
  p.max_len = state.range(0);
  const EncodingPtr e = MakeEncoding(p).value();
  const std::vector<int64_t> rows = RasterEdges(0, p.max_len, 500),
                             cols = RasterEdges(0, p.d_model, 800);
  std::vector<float> out(500 * 800);
  for (auto _ : state) {
    if (kFast) {
      MeanOverTexels(e->waves(), rows, cols, out.data());
    } else {
      MeanOverTexelsNaive(e->waves(), rows, cols, out.data());
    }
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_HeatmapTexels<false>)
    ->Name("BM_HeatmapTexelsNaive")
    ->Args({1'000'000'000, 8192})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_HeatmapTexels<true>)
    ->Name("BM_HeatmapTexelsFast")
    ->Args({1'000'000'000, 8192})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_SimilarityRaster)
    ->Args({1'000'000'000, 8192})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ScoreRaster)
    ->Args({1'000'000'000, 8192})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_BiasRaster<Scheme::kAlibi>)
    ->Name("BM_BiasRasterAlibi")
    ->Args({1'000'000'000})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_BiasRaster<Scheme::kT5>)
    ->Name("BM_BiasRasterT5")
    ->Args({1'000'000'000})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ScoreRasterRope)
    ->Args({1'000'000'000, 8192})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ScoreRasterRopeWindow)
    ->Args({1'000'000'000, 8192, 0})
    ->Args({1'000'000'000, 8192, 1})
    ->Args({1'000'000'000, 8192, 2})
    ->Args({1'000'000'000, 8192, 3})
    ->Args({1'000'000'000, 8192, 4})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_HeatmapRasterRope)
    ->Args({1'000'000'000, 8192})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_HeatmapRasterLearned)
    ->Args({262'144, 1024})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_HeatmapRaster)
    ->Args({1'000'000'000, 8192})
    ->Args({1'000'000, 512})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The input layer on one forced SIMD path (the fourth argument: 0 scalar, 1 avx2, 2 avx512),
// side by side in one run; PE_SIMD=scalar|avx2|avx512 forces the path of every benchmark
// instead. A path this processor lacks is reported as an error naming the missing feature.
template <bool kTrain>
void BM_InputLayerOnPath(benchmark::State& state) {
  const auto path = static_cast<SimdPath>(state.range(3));
  if (!CpuHasSimdPath(path)) {
    state.SkipWithError(("this processor lacks " + MissingSimdFeatures(path)).c_str());
    return;
  }
  ForceSimdPath(path);
  BM_InputLayer<kTrain>(state);
  ClearForcedSimdPath();
}
BENCHMARK(BM_InputLayerOnPath<false>)
    ->Name("BM_InputLayerOnPath")
    ->ArgNames({"batch", "seq", "d", "path"})
    ->ArgsProduct({{8}, {512}, {1024}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_InputLayerOnPath<true>)
    ->Name("BM_InputLayerDropoutOnPath")
    ->ArgNames({"batch", "seq", "d", "path"})
    ->ArgsProduct({{8}, {512}, {1024}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

}  // namespace
}  // namespace pe

BENCHMARK_MAIN();
