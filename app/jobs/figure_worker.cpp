#include "jobs/figure_worker.h"

#include <algorithm>
#include <exception>

#include "views/figure_budget.h"

namespace pe {

FigureResult BuildFigure(const FigureRequest& request) {
  FigureResult r;
  r.request = request;
  try {
    // The estimate first, as exports do: a figure over the memory cap is refused with the
    // estimate's message instead of being built.
    if (Status s = CheckFigureMemory(request.view, request.params, request.sel, request.size,
                                     FigureFormat::kPng);
        !s.ok()) {
      r.error = s.message();
      return r;
    }
    const ViewContext context{request.params, request.encoding, request.sel, request.size,
                              FigureFormat::kPng};
    Result<Figure> f = GetView(request.view).figure(context);
    if (f.ok()) {
      r.figure = std::move(f).value();
    } else {
      r.error = f.message();
    }
  } catch (const std::exception& e) {
    r.error = std::string("building the figure failed: ") + e.what();
  }
  return r;
}

FigureWorker::FigureWorker(bool synchronous, Builder build)
    : synchronous_(synchronous), build_(std::move(build)) {
  if (!synchronous_) {
    for (int k = 0; k < kThreads; ++k) threads_.emplace_back([this] { Loop(); });
  }
}

FigureWorker::~FigureWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void FigureWorker::Request(const FigureRequest& request) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto last = last_requested_.find(request.view);
  if (last != last_requested_.end() && last->second == request) return;
  last_requested_.insert_or_assign(request.view, request);
  if (synchronous_) {
    lock.unlock();
    FigureResult r = build_(request);
    lock.lock();
    done_.insert_or_assign(request.view, std::move(r));
    return;
  }
  pending_.insert_or_assign(request.view, request);
  pending_order_.insert_or_assign(request.view, ++requests_);
  wake_.notify_one();
  done_cv_.wait_for(lock, kInFrameWait, [&] {
    auto d = done_.find(request.view);
    return d != done_.end() && d->second.request == request;
  });
}

std::optional<FigureResult> FigureWorker::Take(ViewKind view) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto d = done_.find(view);
  if (d == done_.end()) return std::nullopt;
  std::optional<FigureResult> r = std::move(d->second);
  done_.erase(d);
  return r;
}

bool FigureWorker::Busy(ViewKind view) {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_.count(view) > 0 || Building(view);
}

bool FigureWorker::AnyBusy() {
  std::lock_guard<std::mutex> lock(mutex_);
  return (!pending_.empty() && !held_) || !building_.empty();
}

void FigureWorker::WaitIdle() {
  std::unique_lock<std::mutex> lock(mutex_);
  done_cv_.wait(lock, [this] { return (pending_.empty() || held_) && building_.empty(); });
}

void FigureWorker::Hold(bool held) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    held_ = held;
  }
  wake_.notify_all();
}

std::vector<ViewKind> FigureWorker::BuildOrder() {
  std::lock_guard<std::mutex> lock(mutex_);
  return build_order_;
}

bool FigureWorker::Building(ViewKind view) const {
  return std::find(building_.begin(), building_.end(), view) != building_.end();
}

std::map<ViewKind, FigureRequest>::iterator FigureWorker::NextToBuild() {
  auto next = pending_.end();
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (Building(it->first)) continue;  // its newer request waits for that build to end
    if (next == pending_.end() || pending_order_[it->first] > pending_order_[next->first]) {
      next = it;
    }
  }
  return next;
}

void FigureWorker::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || (!held_ && NextToBuild() != pending_.end()); });
    if (stop_) return;
    auto next = NextToBuild();
    FigureRequest request = std::move(next->second);
    pending_order_.erase(next->first);
    pending_.erase(next);
    building_.push_back(request.view);
    build_order_.push_back(request.view);
    lock.unlock();
    FigureResult r = build_(request);
    lock.lock();
    building_.erase(std::find(building_.begin(), building_.end(), request.view));
    // Kept while it is the newest request of its view, or of the newest parameters (a window
    // panned since: still a newer picture than the one on screen).
    const FigureRequest& newest = last_requested_.at(request.view);
    if (newest == request || newest.SameParams(request.params)) {
      done_.insert_or_assign(request.view, std::move(r));
    }
    done_cv_.notify_all();
    wake_.notify_all();  // a newer request of this view may wait for this build
  }
}

}  // namespace pe
