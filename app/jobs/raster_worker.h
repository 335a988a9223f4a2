// Computes heatmap rasters off the UI thread on a job (jobs/job.h), newest request wins, so panning
// and zooming stay fluid whatever the table size. Small rasters (a few ms) are computed in place so
// a change shows in the very next frame; in synchronous mode (tests, screenshots) all are.
#pragma once

#include <mutex>
#include <optional>
#include <vector>

#include "jobs/job.h"
#include "views/heatmap_raster.h"

namespace pe {

class RasterWorker {
 public:
  // Work (EstimateRasterWork) up to which a raster is computed in place: small for pan and
  // zoom (frames stay under 8 ms), larger when the parameters changed, so the new table is on
  // screen in the very next frame rather than a few frames later.
  static constexpr int64_t kInPlaceWork = 50'000;
  static constexpr int64_t kInPlaceWorkNewParams = 1'000'000;
  explicit RasterWorker(bool synchronous);
  ~RasterWorker();
  RasterWorker(const RasterWorker&) = delete;
  RasterWorker& operator=(const RasterWorker&) = delete;

  // Asks for a raster; a request equal to the last one is ignored. Blocks only for work under
  // the in-place limits above.
  void Request(const RasterRequest& request);
  // The newest finished raster not yet taken.
  std::optional<Raster> Take();
  // Blocks until every request so far is finished.
  void WaitIdle();
  // True while a raster is waiting or being computed (the window keeps drawing frames then).
  bool Busy() const;
  // For --frame-stats: for each raster taken, how many Request calls (frames, as the heatmap
  // asks once a frame) passed between its request and its Take; 0 when computed in place.
  std::vector<int64_t> FramesUntilPicture() const;

 private:
  mutable std::mutex mutex_;
  std::optional<RasterRequest> last_requested_;
  std::optional<Raster> done_;
  // Request calls so far; the call that asked for done_; the newest request whose raster
  // reached done_ (an older one finishing late must not replace it).
  int64_t calls_ = 0, done_call_ = 0, delivered_call_ = -1;
  std::vector<int64_t> frames_until_picture_;
  Job job_;  // last: joined before the state its tasks write goes
};

}  // namespace pe
