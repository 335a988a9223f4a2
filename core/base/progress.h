// How long work reports how far it is and is stopped. A Progress is told the fraction done (0..1)
// between steps; returning false stops the work with an error. A CancelToken is the flag the
// owner of a job sets to stop it: work that has no Progress to ask (a figure builder, a parallel
// loop, ForEachChunk's helpers) reads the token of the job running on its thread
// (CurrentCancelToken) and stops with CancelledError, which the job turns into a Cancelled status.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <string>
#include <utility>

#include "base/status.h"

namespace pe {

using Progress = std::function<bool(double fraction)>;

// Set once, from any thread, by whoever owns the work; read by the work between steps.
class CancelToken {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> cancelled_{false};
};

// Thrown by work that saw its token cancelled; never leaves a job (the job reports Cancelled).
struct CancelledError : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};

// The status of work stopped because its job was cancelled or superseded.
inline Error Cancelled(std::string what = "cancelled") {
  return {Error::Kind::kCancelled, std::move(what)};
}

namespace detail {
// The token of the job running on this thread (a job thread sets it for each request); thread
// local, so OpenMP team members and ForEachChunk helpers get it from the caller, not from here.
inline thread_local const CancelToken* current_cancel_token = nullptr;
}  // namespace detail

// The token of the job running on this thread, or null outside a job.
inline const CancelToken* CurrentCancelToken() {
  return detail::current_cancel_token;
}

// Makes `token` the current token of this thread for the scope's lifetime.
class CancelScope {
 public:
  explicit CancelScope(const CancelToken* token) : previous_(detail::current_cancel_token) {
    detail::current_cancel_token = token;
  }
  ~CancelScope() { detail::current_cancel_token = previous_; }
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  const CancelToken* previous_;
};

inline bool IsCancelled(const CancelToken* token) {
  return token != nullptr && token->cancelled();
}

// Throws CancelledError when `token` (by default this thread's job's) is cancelled.
inline void ThrowIfCancelled(const CancelToken* token = CurrentCancelToken()) {
  if (IsCancelled(token)) throw CancelledError();
}

// A Progress that hands each fraction to `report` (when given) and says stop once `token` is
// cancelled.
inline Progress CancellableProgress(const CancelToken& token,
                                    std::function<void(double)> report = {}) {
  return [&token, report = std::move(report)](double fraction) {
    if (report) report(fraction);
    return !token.cancelled();
  };
}

}  // namespace pe
