// Writes a large float32 table to a stream block by block, filling the next blocks on worker
// threads while the calling thread hands the finished ones to the stream (for a file, the
// kernel's copy into the page cache, which costs more than the fill). Used by the NPY export of
// whole tables; the header is the caller's.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>

#include "base/status.h"

namespace pe {

// Fills rows [row0, row0 + rows) of the table into `block`, (rows, cols) row-major. Called on
// several threads at once for different blocks, so it must only read shared state.
using TableBlockFill = std::function<void(int64_t row0, int64_t rows, float* block)>;

// Writes the (rows, cols) table to `out` as little-endian float32 in C order, in blocks of
// `block_rows` rows (the last may be shorter). Blocks are filled on up to `threads` worker
// threads (0: omp_get_max_threads(), i.e. the cores or OMP_NUM_THREADS), each running its fill
// with one OpenMP thread, into buffers allocated once and reused (threads + 2 blocks of memory);
// the calling thread writes them in order. `progress(fraction)` is called on the calling thread
// after each block is written; returning false stops with "the export was cancelled". A table of
// one block is filled on the calling thread (its fill may use the OpenMP pool) and written.
// Errors: the stream failing ("writing the table failed"; the stream's own sink says why), a
// fill that throws, or the buffers not being allocated. Every worker has finished when this
// returns, whatever the outcome.
Status WriteTableBlocks(std::ostream& out, int64_t rows, int64_t cols, int64_t block_rows,
                        const TableBlockFill& fill,
                        const std::function<bool(double fraction)>& progress = {}, int threads = 0);

}  // namespace pe
