#include "jobs/raster_worker.h"

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

// Rasters run on the job's thread alone. An OpenMP team of its own would spin on the other core
// after every raster (libgomp's active wait), taking it from the UI thread and the GL
// rasteriser: at d 8192 x L 1e9 while panning that was a quarter of the process's CPU for about
// 2% of useful work. The picture trails the view by a frame either way.
RasterWorker::RasterWorker(bool synchronous) : job_(synchronous, /*threads=*/1) {}

RasterWorker::~RasterWorker() = default;

void RasterWorker::Request(const RasterRequest& request) {
  int64_t call = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    call = ++calls_;
    if (last_requested_ && *last_requested_ == request) return;
    const bool new_params = !last_requested_ || !last_requested_->encoding || !request.encoding ||
                            last_requested_->encoding->params() != request.encoding->params();
    last_requested_ = request;
    const int64_t limit = new_params ? kInPlaceWorkNewParams : kInPlaceWork;
    if (!job_.synchronous() && EstimateRasterWork(request) > limit) call = -call;
  }
  if (call < 0) {
    // Superseded while computing, a raster is still the exact picture of a recent view (drawn at
    // its own coordinates), better than none while the view keeps moving: the running one
    // finishes, and is shown unless a newer raster is there already.
    job_.Submit(
        0,
        [this, request, call = -call](JobContext& context) {
          Raster r = ComputeRasterOrEmpty(request);
          context.Publish([&] {
            std::lock_guard<std::mutex> lock(mutex_);
            if (call > delivered_call_) {
              done_ = std::move(r);
              done_call_ = delivered_call_ = call;
            }
          });
        },
        /*cancel_running=*/false);
    return;
  }
  job_.Cancel();  // an older background request would only be dropped for this newer raster
  Raster r = ComputeRasterOrEmpty(request);
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = std::move(r);
  done_call_ = delivered_call_ = call;
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
  return job_.Busy();
}

void RasterWorker::WaitIdle() {
  job_.WaitIdle();
}

}  // namespace pe
