#include "jobs/raster_worker.h"

#include <omp.h>

#include <exception>

namespace pe {
namespace {

// The raster, or an empty one (the panel then shows no picture) when computing it threw: an
// exception leaving the raster thread would end the process.
Raster ComputeRasterOrEmpty(const RasterRequest& request) {
  try {
    return ComputeRaster(request);
  } catch (const std::exception&) {
    Raster r;
    r.request = request;
    return r;
  }
}

}  // namespace

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
    ++calls_;
    if (last_requested_ && *last_requested_ == request) return;
    const bool new_params = !last_requested_ || !last_requested_->encoding || !request.encoding ||
                            last_requested_->encoding->params() != request.encoding->params();
    last_requested_ = request;
    const int64_t limit = new_params ? kInPlaceWorkNewParams : kInPlaceWork;
    if (!synchronous_ && EstimateRasterWork(request) > limit) {
      pending_ = request;
      pending_call_ = calls_;
      wake_.notify_one();
      return;
    }
  }
  Raster r = ComputeRasterOrEmpty(request);
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.reset();  // an older background request would only overwrite this newer raster
  done_ = std::move(r);
  done_call_ = delivered_call_ = calls_;
}

std::optional<Raster> RasterWorker::Take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<Raster> r = std::move(done_);
  done_.reset();
  if (r) frames_until_picture_.push_back(calls_ - done_call_);
  return r;
}

std::vector<int64_t> RasterWorker::FramesUntilPicture() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return frames_until_picture_;
}

bool RasterWorker::Busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_.has_value() || busy_;
}

void RasterWorker::WaitIdle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return !pending_ && !busy_; });
}

void RasterWorker::Loop() {
  // Rasters here run on this thread alone. An OpenMP team of its own would spin on the other
  // core after every raster (libgomp's active wait), taking it from the UI thread and the GL
  // rasteriser: at d 8192 x L 1e9 while panning that was a quarter of the process's CPU for
  // about 2% of useful work. The picture trails the view by a frame either way.
  omp_set_num_threads(1);
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || pending_; });
    if (stop_) return;
    RasterRequest request = *pending_;
    const int64_t call = pending_call_;
    pending_.reset();
    busy_ = true;
    lock.unlock();
    Raster r = ComputeRasterOrEmpty(request);
    lock.lock();
    // Superseded while computing, it is still the exact picture of a recent view (drawn at its
    // own coordinates), better than none while the view keeps moving; but never over a newer
    // raster already there.
    if (call > delivered_call_) {
      done_ = std::move(r);
      done_call_ = delivered_call_ = call;
    }
    busy_ = false;
    if (!pending_) idle_.notify_all();
  }
}

}  // namespace pe
