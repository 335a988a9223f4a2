// Carrying an exception out of a parallel loop. An exception that leaves the body of an OpenMP
// loop (or a thread) ends the process with std::terminate, so bodies that can throw (an
// allocation over what the machine has) run through Run, and the loop's caller calls Rethrow
// after the loop: the first exception then reaches the job that asked for the work, which
// reports it, and the other iterations are skipped.
#pragma once

#include <atomic>
#include <exception>
#include <mutex>

namespace pe {

class LoopExceptions {
 public:
  // Calls body() unless an earlier call threw; keeps the first exception thrown.
  template <class Body>
  void Run(Body&& body) noexcept {
    if (failed_.load(std::memory_order_relaxed)) return;
    try {
      body();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!first_) first_ = std::current_exception();
      failed_.store(true, std::memory_order_relaxed);
    }
  }
  // Throws the first exception a body threw, if any.
  void Rethrow() {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::exception_ptr first_;
};

}  // namespace pe
