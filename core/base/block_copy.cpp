// CopyRows (block_copy.h): chunks of rows claimed by the calling thread and helpers, each row
// copied with AVX2 loads and streaming stores when the block is large, with memcpy otherwise.
#include "base/block_copy.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <vector>

#include "base/parallel_chunks.h"

namespace pe {
namespace {

#if defined(__x86_64__)
// One row: cached stores up to the first 16-byte boundary of `out`, then 16 floats per step
// with unaligned loads and non-temporal stores, then the tail cached.
__attribute__((target("avx2"))) void StreamRow(const float* src, int64_t n, float* out) {
  int64_t k = 0;
  while (k < n && reinterpret_cast<uintptr_t>(out + k) % 16 != 0) {
    out[k] = src[k];
    ++k;
  }
  for (; k + 16 <= n; k += 16) {
    const __m128 a = _mm_loadu_ps(src + k), b = _mm_loadu_ps(src + k + 4),
                 c = _mm_loadu_ps(src + k + 8), d = _mm_loadu_ps(src + k + 12);
    _mm_stream_ps(out + k, a);
    _mm_stream_ps(out + k + 4, b);
    _mm_stream_ps(out + k + 8, c);
    _mm_stream_ps(out + k + 12, d);
  }
  for (; k + 4 <= n; k += 4) _mm_stream_ps(out + k, _mm_loadu_ps(src + k));
  for (; k < n; ++k) out[k] = src[k];
}
#endif

void CopyChunk(const float* src, int64_t src_stride, int64_t rows, int64_t cols, float* out,
               bool stream) {
#if defined(__x86_64__)
  if (stream) {
    for (int64_t r = 0; r < rows; ++r) StreamRow(src + r * src_stride, cols, out + r * cols);
    _mm_sfence();  // streamed stores are visible before the caller reads them
    return;
  }
#else
  (void)stream;
#endif
  if (src_stride == cols) {
    std::memcpy(out, src, static_cast<size_t>(rows * cols) * sizeof(float));
    return;
  }
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(out + r * cols, src + r * src_stride, static_cast<size_t>(cols) * sizeof(float));
}

}  // namespace

void CopyRows(const float* src, int64_t src_stride, int64_t rows, int64_t cols, float* out,
              const CopyPath& path) {
  if (rows <= 0 || cols <= 0) return;
  const int64_t bytes = rows * cols * static_cast<int64_t>(sizeof(float));
  bool stream = path.stream < 0 ? bytes >= kStreamCopyBytes : path.stream > 0;
#if defined(__x86_64__)
  stream = stream && __builtin_cpu_supports("avx2");
#else
  stream = false;
#endif
  // Chunks of at least 1 Mi floats (4 MiB), taken as threads finish, so a core busy with
  // another program delays one chunk rather than half the block.
  // (Forced thread counts split any block, so small tests reach the threaded path.)
  const int64_t per_chunk = path.threads > 0
                                ? std::max<int64_t>(1, rows / (2 * int64_t{path.threads}))
                                : std::max<int64_t>(1, (int64_t{1} << 20) / cols);
  const int64_t chunks = (rows + per_chunk - 1) / per_chunk;
  const int64_t threads =
      std::min<int64_t>(path.threads > 0 ? path.threads : FillThreads(), chunks);
  if (threads < 2 || (path.threads == 0 && bytes < (int64_t{1} << 20))) {
    CopyChunk(src, src_stride, rows, cols, out, stream);
    return;
  }
  ForEachChunk(chunks, static_cast<int>(threads), [&](int64_t k) {
    const int64_t r0 = k * per_chunk, n = std::min(per_chunk, rows - r0);
    CopyChunk(src + r0 * src_stride, src_stride, n, cols, out + r0 * cols, stream);
  });
}

}  // namespace pe
