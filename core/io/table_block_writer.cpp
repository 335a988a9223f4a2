#include "io/table_block_writer.h"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "io/file_writers.h"

namespace pe {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

// Memory for the blocks, asked for in 2 MiB pages (MADV_HUGEPAGE; Debian's transparent huge
// pages are "madvise"), so faulting it in costs about one zeroing of it instead of a fault per
// 4 KiB page (~4 us each on this kind of machine). Unmapped when it goes out of scope.
class BlockArena {
 public:
  explicit BlockArena(size_t bytes) : bytes_(bytes + kHugePage) {
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    base_ = p;
    // Huge pages need 2 MiB alignment; the extra 2 MiB mapped above leaves room to align.
    const auto addr = reinterpret_cast<uintptr_t>(p);
    auto* aligned = reinterpret_cast<char*>((addr + kHugePage - 1) & ~(kHugePage - 1));
    ::madvise(aligned, bytes, MADV_HUGEPAGE);  // a hint: without huge pages it works the same
    data_ = reinterpret_cast<float*>(aligned);
  }
  ~BlockArena() {
    if (base_ != nullptr) ::munmap(base_, bytes_);
  }
  BlockArena(const BlockArena&) = delete;
  BlockArena& operator=(const BlockArena&) = delete;
  float* data() const { return data_; }

 private:
  size_t bytes_;
  void* base_ = nullptr;
  float* data_ = nullptr;
};

Status Cancelled() {
  return RuntimeError("the export was cancelled");
}

Status StreamFailed() {
  return RuntimeError("writing the table failed");
}

// What the workers and the writing thread share; every field under `mutex`.
struct Pipeline {
  std::mutex mutex;
  std::condition_variable filled;    // a block became ready (or stop): the writing thread waits
  std::condition_variable freed;     // a slot was written (or stop): the workers wait
  int64_t next = 0;                  // the next block a worker claims (blocks are claimed in order)
  int64_t written = 0;               // blocks written so far; block b may use slot b % slots once
                                     // b < written + slots (block b - slots has left its slot)
  std::vector<int64_t> ready;        // per slot: the block it holds, filled; -1 while none
  bool stop = false;                 // cancelled, failed or finished: workers claim nothing more
  int64_t failed_block = INT64_MAX;  // the first block (in file order) whose fill threw
  std::exception_ptr error;          // and what it threw
};

}  // namespace

Status WriteTableBlocks(std::ostream& out, int64_t rows, int64_t cols, int64_t block_rows,
                        const TableBlockFill& fill,
                        const std::function<bool(double fraction)>& progress, int threads) {
  assert(rows >= 0 && cols >= 1 && block_rows >= 1 && "a table of rows x cols in row blocks");
  const int64_t blocks = (rows + block_rows - 1) / block_rows;
  auto rows_of = [&](int64_t b) { return std::min(block_rows, rows - b * block_rows); };
  auto report = [&](int64_t b) {
    return !progress ||
           progress(static_cast<double>(b * block_rows + rows_of(b)) / static_cast<double>(rows));
  };
  // Fills and writes block after block on this thread, into `buffer` (one block).
  auto serial = [&](float* buffer) -> Status {
    for (int64_t b = 0; b < blocks; ++b) {
      fill(b * block_rows, rows_of(b), buffer);
      WriteFloatsLE(out, buffer, rows_of(b) * cols);
      if (!out) return StreamFailed();
      if (!report(b)) return Cancelled();
    }
    return {};
  };
  const size_t block_floats = static_cast<size_t>(std::min(block_rows, rows) * cols);
  if (blocks <= 1) {
    std::vector<float> buffer(block_floats);
    return serial(buffer.data());
  }

  if (threads <= 0) threads = std::max(1, omp_get_max_threads());
  const int workers = static_cast<int>(std::min<int64_t>(threads, blocks));
  // A slot per worker filling, one being written and one filled ahead: the writing thread
  // never waits for a fill while the workers keep up.
  const auto slots = static_cast<int64_t>(workers) + 2;
  BlockArena arena(static_cast<size_t>(slots) * block_floats * sizeof(float));
  if (arena.data() == nullptr) {
    return RuntimeError("cannot allocate " +
                        std::to_string(static_cast<size_t>(slots) * block_floats * 4 >> 20) +
                        " MiB for the table's blocks");
  }
  auto slot = [&](int64_t b) {
    return arena.data() + static_cast<size_t>(b % slots) * block_floats;
  };

  Pipeline p;
  p.ready.assign(static_cast<size_t>(slots), -1);
  auto work = [&] {
    // One OpenMP thread per worker: the workers are the parallelism, and an OpenMP team would
    // spin on a core between blocks, taking it from the thread copying into the file.
    omp_set_num_threads(1);
    for (;;) {
      int64_t b = 0;
      {
        std::unique_lock lock(p.mutex);
        p.freed.wait(lock,
                     [&] { return p.stop || p.next >= blocks || p.next < p.written + slots; });
        if (p.stop || p.next >= blocks) return;
        b = p.next++;
      }
      try {
        fill(b * block_rows, rows_of(b), slot(b));
      } catch (...) {
        {
          const std::lock_guard lock(p.mutex);
          if (b < p.failed_block) {
            p.failed_block = b;
            p.error = std::current_exception();
          }
          p.stop = true;
        }
        p.filled.notify_all();
        p.freed.notify_all();
        return;
      }
      {
        const std::lock_guard lock(p.mutex);
        p.ready[static_cast<size_t>(b % slots)] = b;
      }
      p.filled.notify_all();
    }
  };
  // Stops and joins the workers on every way out, exceptions included.
  std::vector<std::thread> pool;
  struct Joiner {
    Pipeline& p;
    std::vector<std::thread>& pool;
    ~Joiner() {
      {
        const std::lock_guard lock(p.mutex);
        p.stop = true;
      }
      p.freed.notify_all();
      for (std::thread& t : pool) t.join();
    }
  } joiner{p, pool};
  try {
    for (int k = 0; k < workers; ++k) pool.emplace_back(work);
  } catch (const std::system_error&) {
    // No threads to be had: with none started, fill on this thread instead.
    if (pool.empty()) return serial(arena.data());
  }

  for (int64_t b = 0; b < blocks; ++b) {
    {
      std::unique_lock lock(p.mutex);
      // Blocks before a failed one were claimed, so they still come: errors are reported in
      // file order whatever the threads' timing (a full disk at block 1 before a fill that
      // threw at block 4).
      p.filled.wait(lock, [&] {
        return p.ready[static_cast<size_t>(b % slots)] == b || p.failed_block <= b;
      });
      if (p.failed_block <= b) break;
    }
    WriteFloatsLE(out, slot(b), rows_of(b) * cols);
    const bool ok = static_cast<bool>(out);
    const bool go = ok && report(b);
    {
      const std::lock_guard lock(p.mutex);
      p.ready[static_cast<size_t>(b % slots)] = -1;
      p.written = b + 1;
      if (!go) p.stop = true;
    }
    p.freed.notify_all();
    if (!ok) return StreamFailed();
    if (!go) return Cancelled();
  }
  std::exception_ptr error;
  {
    const std::lock_guard lock(p.mutex);
    error = p.error;
  }
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      return RuntimeError(std::string("filling the table failed: ") + e.what());
    } catch (...) {
      return RuntimeError("filling the table failed");
    }
  }
  return {};
}

}  // namespace pe
