// Copying a block of rows out of a larger row-major float32 table as fast as this machine
// copies: all cores, and non-temporal stores for large blocks. A copy reads the source and
// writes the destination, so it moves twice the bytes of a fill of the same size.
#pragma once

#include <cstdint>

namespace pe {

// How CopyRows writes; the default chooses by size, tests force each path.
//   stream: -1 by size (blocks of at least kStreamCopyBytes), 0 cached stores, 1 non-temporal
//     stores (16-byte aligned parts of each row; the rest cached).
//   threads: 0 = all cores for large blocks; n = at most n threads.
struct CopyPath {
  int stream = -1;
  int threads = 0;
};

// out (rows, cols) <- rows [0, rows) of src, a table whose rows are `src_stride` floats apart,
// from column 0 of `src` on. `out` and `src` do not overlap.
void CopyRows(const float* src, int64_t src_stride, int64_t rows, int64_t cols, float* out,
              const CopyPath& path = {});

// The size from which a copy streams by default (half the 32 MiB L3 of the machines this is
// tuned on; see kStreamFillBytes).
inline constexpr int64_t kStreamCopyBytes = int64_t{16} << 20;

}  // namespace pe
