#include "jobs/figure_worker.h"

#include <algorithm>
#include <exception>

#include "views/figure_budget.h"

namespace pe {
namespace {

int64_t KeyOf(ViewKind view) {
  return static_cast<int64_t>(view);
}

}  // namespace

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
    ThrowIfCancelled();
    const ViewContext context{request.params, request.encoding, request.sel, request.size,
                              FigureFormat::kPng};
    Result<Figure> f = GetView(request.view).figure(context);
    ThrowIfCancelled();  // a builder that stopped early returns what it had
    if (f.ok()) {
      r.figure = std::move(f).value();
    } else {
      r.error = f.message();
    }
  } catch (const CancelledError&) {
    r.figure.reset();
    r.error = "cancelled";
  } catch (const std::exception& e) {
    r.error = std::string("building the figure failed: ") + e.what();
  }
  return r;
}

FigureWorker::FigureWorker(bool synchronous, Builder build)
    : build_(std::move(build)), job_(synchronous) {}

FigureWorker::~FigureWorker() = default;

void FigureWorker::Request(const FigureRequest& request) {
  const ViewKind view = request.view;
  std::optional<ViewKind> stale;  // a tab left whose build runs
  bool submit = false, cancel_running = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& [previous_ask, last_ask] = asks_[view];
    previous_ask = last_ask;
    last_ask = ++calls_;
    if (running_ && *running_ != view && previous_ask > asks_[*running_].second) {
      stale = running_;
      last_requested_.erase(*running_);  // asked for again, it is built again
    }
    auto last = last_requested_.find(view);
    if (last == last_requested_.end() || !(last->second == request)) {
      // New parameters make the running build of this view useless; a pan (same parameters)
      // lets it finish, still a newer picture than the one on screen.
      cancel_running = last == last_requested_.end() || !last->second.SameParams(request.params);
      last_requested_.insert_or_assign(view, request);
      submit = true;
    }
  }
  if (stale) job_.Cancel(KeyOf(*stale));
  if (!submit) return;
  job_.Submit(
      KeyOf(view),
      [this, request](JobContext& context) {
        {
          std::lock_guard<std::mutex> lock(mutex_);
          build_order_.push_back(request.view);
          running_ = request.view;
        }
        FigureResult r = build_(request);
        context.Publish([&] {
          std::lock_guard<std::mutex> lock(mutex_);
          // Kept while it is the newest request of its view, or of the newest parameters (a
          // window panned since: still a newer picture than the one on screen).
          auto newest = last_requested_.find(request.view);
          if (newest != last_requested_.end() &&
              (newest->second == request || newest->second.SameParams(request.params))) {
            done_.insert_or_assign(request.view, std::move(r));
          }
        });
        {
          std::lock_guard<std::mutex> lock(mutex_);
          running_.reset();
        }
        done_cv_.notify_all();
      },
      cancel_running);
  if (job_.synchronous()) return;
  std::unique_lock<std::mutex> lock(mutex_);
  done_cv_.wait_for(lock, kInFrameWait, [&] {
    auto d = done_.find(view);
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
  return job_.Busy(KeyOf(view));
}

bool FigureWorker::AnyBusy() {
  return job_.Busy();
}

void FigureWorker::WaitIdle() {
  job_.WaitIdle();
}

void FigureWorker::Hold(bool held) {
  job_.Hold(held);
}

std::vector<ViewKind> FigureWorker::BuildOrder() {
  std::lock_guard<std::mutex> lock(mutex_);
  return build_order_;
}

}  // namespace pe
