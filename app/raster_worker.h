// Computes heatmap rasters off the UI thread, newest request wins, so panning and zooming stay
// fluid whatever the table size. Small rasters (a few ms) are computed in place so a change
// shows in the very next frame; in synchronous mode (tests, screenshots) all are.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "heatmap_raster.h"

namespace pe {

class RasterWorker {
 public:
  // Work (EstimateRasterWork) up to which a raster is computed in place.
  static constexpr int64_t kInPlaceWork = 50'000;
  explicit RasterWorker(bool synchronous);
  ~RasterWorker();
  RasterWorker(const RasterWorker&) = delete;
  RasterWorker& operator=(const RasterWorker&) = delete;

  // Asks for a raster; a request equal to the last one is ignored. Never blocks on the work.
  void Request(const RasterRequest& request);
  // The newest finished raster not yet taken.
  std::optional<Raster> Take();
  // Blocks until every request so far is finished.
  void WaitIdle();

 private:
  void Loop();
  const bool synchronous_;
  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::optional<RasterRequest> last_requested_, pending_;
  std::optional<Raster> done_;
  bool busy_ = false, stop_ = false;
  std::thread thread_;
};

}  // namespace pe
