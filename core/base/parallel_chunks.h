// Running independent chunks of work on the calling thread and a few helper threads, for the
// large table fills. Unlike an OpenMP parallel loop, the caller never waits for a helper that
// has not started: on a shared machine a helper whose core is busy with another program may
// start milliseconds late, and by then the caller has taken its chunks. The caller waits only
// for chunks a helper has already taken.
#pragma once

#include <cstdint>
#include <functional>

namespace pe {

// Calls body(k) once for every k in [0, chunks), each on the calling thread or on one of up to
// `threads` - 1 helper threads started for this call; returns when every call has returned.
// Calls may run in any order and at the same time: they must write disjoint memory. When the
// calling thread's job is cancelled (CurrentCancelToken) no further call starts and, once the
// started ones have returned, CancelledError is thrown.
void ForEachChunk(int64_t chunks, int threads, const std::function<void(int64_t)>& body);

// The thread count for large blocks: the cores OpenMP would use (OMP_NUM_THREADS or all).
int FillThreads();

}  // namespace pe
