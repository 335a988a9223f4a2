#include "jobs/job.h"

#include <omp.h>

#include <algorithm>
#include <utility>

namespace pe {

int JobThreadBudget() {
  return std::max(1, omp_get_num_procs() - 1);
}

void JobContext::Report(double fraction, std::string text) {
  std::lock_guard<std::mutex> lock(job_.mutex_);
  job_.fraction_ = fraction;
  if (!text.empty()) job_.text_ = std::move(text);
}

Progress JobContext::progress() {
  return [this](double fraction) {
    Report(fraction);
    return !cancelled();
  };
}

bool JobContext::Publish(const std::function<void()>& publish) {
  std::lock_guard<std::mutex> lock(job_.mutex_);
  if (token_.cancelled()) return false;
  publish();
  return true;
}

Job::Job(bool synchronous, int threads)
    : synchronous_(synchronous), threads_(std::max(1, threads)) {}

Job::~Job() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    waiting_.clear();
    if (running_token_) running_token_->Cancel();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Job::Submit(int64_t key, Task task, bool cancel_running) {
  if (synchronous_) {
    CancelToken token;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fraction_ = 0;
      text_.clear();
    }
    Run(task, token);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiting_.insert_or_assign(
        key, Waiting{std::move(task), ++submitted_, std::make_shared<CancelToken>()});
    if (cancel_running && running_ && running_key_ == key) running_token_->Cancel();
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  }
  wake_.notify_one();
}

void Job::Cancel(int64_t key) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [k, waiting] : waiting_) {
    if (key < 0 || k == key) waiting.token->Cancel();
  }
  if (running_ && (key < 0 || running_key_ == key)) running_token_->Cancel();
}

bool Job::Busy(int64_t key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_ && (key < 0 || running_key_ == key)) return true;
  if (key < 0) return !waiting_.empty() && !held_;
  return waiting_.count(key) > 0;
}

double Job::fraction() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fraction_;
}

std::string Job::text() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return text_;
}

void Job::WaitIdle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return !running_ && (waiting_.empty() || held_); });
}

void Job::Hold(bool held) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    held_ = held;
  }
  wake_.notify_all();
  idle_.notify_all();
}

std::map<int64_t, Job::Waiting>::iterator Job::Newest() {
  return std::max_element(waiting_.begin(), waiting_.end(), [](const auto& a, const auto& b) {
    return a.second.order < b.second.order;
  });
}

void Job::Run(Task& task, const CancelToken& token) {
  const CancelScope scope(&token);
  JobContext context(*this, token);
  // A task reports its own errors; an exception left over (CancelledError from a loop that saw
  // the token, or one a task let through) ends the task here rather than the process.
  try {
    task(context);
  } catch (...) {
  }
}

void Job::Loop() {
  // The budget applies to the parallel regions this thread starts (and ForEachChunk, which asks
  // omp_get_max_threads), not to the UI thread's.
  omp_set_num_threads(threads_);
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || (!held_ && !waiting_.empty()); });
    if (stop_) return;
    auto next = Newest();
    Task task = std::move(next->second.task);
    const std::shared_ptr<CancelToken> token = std::move(next->second.token);
    running_ = true;
    running_key_ = next->first;
    running_token_ = token.get();
    fraction_ = 0;
    text_.clear();
    waiting_.erase(next);
    lock.unlock();
    Run(task, *token);
    task = nullptr;  // what the task holds goes before the job reports idle
    lock.lock();
    running_ = false;
    running_token_ = nullptr;
    idle_.notify_all();
  }
}

}  // namespace pe
