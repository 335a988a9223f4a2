// The one background-job type of the window: a thread that runs the tasks given to it one at a
// time, newest first, each with a cancel token, progress (a fraction and a line of text) and a
// thread budget for its OpenMP loops. The figure, raster, export, table-load and encoding-build
// jobs are this type with their own request and result. In synchronous mode (tests,
// screenshots) a task runs in place, in the call that submits it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/progress.h"

namespace pe {

// How many OpenMP threads a job's loops may use: every core but one, so on two cores the UI
// thread keeps one; at least 1.
int JobThreadBudget();

// What a running task sees of its job.
class JobContext {
 public:
  const CancelToken& token() const { return token_; }
  bool cancelled() const { return token_.cancelled(); }
  // Publishes the task's progress (0..1, and what it is doing), read by Job::fraction and text.
  void Report(double fraction, std::string text = {});
  // A Progress for core work: reports the fraction and says stop once the task is cancelled.
  Progress progress();
  // Runs `publish` (which stores the task's result) unless the task was cancelled; a task
  // cancelled or superseded never publishes. Runs under the job's lock, so Cancel either comes
  // before (nothing published) or after (the result is there): `publish` must not call the job.
  bool Publish(const std::function<void()>& publish);

 private:
  friend class Job;
  JobContext(class Job& job, const CancelToken& token) : job_(job), token_(token) {}
  class Job& job_;
  const CancelToken& token_;
};

class Job {
 public:
  using Task = std::function<void(JobContext&)>;
  // `threads`: the OpenMP threads the task's loops may use (omp_set_num_threads on the job's
  // thread; a synchronous job runs with the caller's).
  explicit Job(bool synchronous, int threads = JobThreadBudget());
  // Cancels the running task, drops waiting ones and joins the thread: a task that checks its
  // token ends at its next step, so closing the window never waits for a stale build.
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
  bool synchronous() const { return synchronous_; }

  // Queues `task` under `key` in place of the one waiting there (which never runs). With
  // `cancel_running` a running task of the same key is cancelled: the newest request wins.
  // Waiting tasks start newest first. A synchronous job runs the task before returning.
  void Submit(int64_t key, Task task, bool cancel_running = true);
  // Cancels the running and the waiting task of `key` (every key when key < 0): a waiting one
  // still runs, with its token cancelled, so it can say it was cancelled.
  void Cancel(int64_t key = -1);
  // True while a task of `key` waits (and is not held) or runs; any key when key < 0.
  bool Busy(int64_t key = -1) const;
  // Progress the running task reported last (0 when none ran yet).
  double fraction() const;
  std::string text() const;
  // Blocks until no task runs and none waits (held tasks count as done).
  void WaitIdle();
  // While held, waiting tasks do not start (tests see the state between a request and its
  // result without depending on timing).
  void Hold(bool held);

 private:
  friend class JobContext;
  struct Waiting {
    Task task;
    int64_t order = 0;  // when it was submitted: the newest starts first
    std::shared_ptr<CancelToken> token;
  };
  void Loop();
  void Run(Task& task, const CancelToken& token);
  std::map<int64_t, Waiting>::iterator Newest();

  const bool synchronous_;
  const int threads_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::map<int64_t, Waiting> waiting_;
  int64_t submitted_ = 0;
  bool running_ = false;
  int64_t running_key_ = 0;
  CancelToken* running_token_ = nullptr;  // the running task's token, while running_
  double fraction_ = 0;
  std::string text_;
  bool held_ = false, stop_ = false;
  std::thread thread_;  // started by the first Submit of an asynchronous job
};

}  // namespace pe
