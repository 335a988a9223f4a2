#include "jobs/raster_worker.h"

namespace pe {

RasterWorker::RasterWorker(bool synchronous) : synchronous_(synchronous) {
  if (!synchronous_) thread_ = std::thread([this] { Loop(); });
}

RasterWorker::~RasterWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RasterWorker::Request(const RasterRequest& request) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (last_requested_ && *last_requested_ == request) return;
    const bool new_params = !last_requested_ || !last_requested_->encoding || !request.encoding ||
                            last_requested_->encoding->params() != request.encoding->params();
    last_requested_ = request;
    const int64_t limit = new_params ? kInPlaceWorkNewParams : kInPlaceWork;
    if (!synchronous_ && EstimateRasterWork(request) > limit) {
      pending_ = request;
      wake_.notify_one();
      return;
    }
  }
  Raster r = ComputeRaster(request);
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.reset();  // an older background request would only overwrite this newer raster
  done_ = std::move(r);
}

std::optional<Raster> RasterWorker::Take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<Raster> r = std::move(done_);
  done_.reset();
  return r;
}

void RasterWorker::WaitIdle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return !pending_ && !busy_; });
}

void RasterWorker::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || pending_; });
    if (stop_) return;
    RasterRequest request = *pending_;
    pending_.reset();
    busy_ = true;
    lock.unlock();
    Raster r = ComputeRaster(request);
    lock.lock();
    if (last_requested_ == request) done_ = std::move(r);  // else superseded while computing
    busy_ = false;
    if (!pending_) idle_.notify_all();
  }
}

}  // namespace pe
