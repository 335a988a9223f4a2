// ForEachChunk (parallel_chunks.h): chunks are claimed from an atomic counter; helpers are
// detached threads sharing the job's state, so a helper that starts after the caller has
// finished finds no chunk left and leaves without touching the caller's data. Helpers read the
// caller's cancel token: once it is cancelled no chunk starts, and the caller throws
// CancelledError.
#include "base/parallel_chunks.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "base/loop_exceptions.h"
#include "base/progress.h"

namespace pe {
namespace {

struct ChunkJob {
  std::function<void(int64_t)> body;  // only called for a claimed chunk, while the caller waits
  int64_t chunks = 0;
  std::atomic<int64_t> next{0};  // the next chunk to claim
  std::atomic<int64_t> done{0};  // chunks finished
  std::mutex mutex;
  std::condition_variable all_done;
  LoopExceptions errors;  // the first exception a chunk threw, rethrown on the caller's thread
  const CancelToken* cancel = nullptr;  // the caller's job's; chunks not started once it is set
};

void Work(ChunkJob& job) {
  for (;;) {
    const int64_t k = job.next.fetch_add(1);
    if (k >= job.chunks) return;
    if (!IsCancelled(job.cancel)) job.errors.Run([&] { job.body(k); });
    if (job.done.fetch_add(1) + 1 == job.chunks) {
      const std::lock_guard<std::mutex> lock(job.mutex);
      job.all_done.notify_all();
    }
  }
}

}  // namespace

void ForEachChunk(int64_t chunks, int threads, const std::function<void(int64_t)>& body) {
  if (chunks <= 0) return;
  const CancelToken* cancel = CurrentCancelToken();
  const int64_t helpers = std::min<int64_t>(std::max(threads, 1), chunks) - 1;
  if (helpers == 0) {
    for (int64_t k = 0; k < chunks; ++k) {
      ThrowIfCancelled(cancel);
      body(k);
    }
    return;
  }
  auto job = std::make_shared<ChunkJob>();
  job->body = body;
  job->chunks = chunks;
  job->cancel = cancel;
  for (int64_t t = 0; t < helpers; ++t) {
    try {
      std::thread([job] { Work(*job); }).detach();
    } catch (const std::system_error&) {
      break;  // no more threads: the caller does the rest
    }
  }
  Work(*job);
  std::unique_lock<std::mutex> lock(job->mutex);
  job->all_done.wait(lock, [&] { return job->done.load() == job->chunks; });
  job->errors.Rethrow();
  ThrowIfCancelled(cancel);
}

int FillThreads() {
  return std::max(1, omp_get_max_threads());
}

}  // namespace pe
