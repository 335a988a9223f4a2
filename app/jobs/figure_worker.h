// Builds the figure panels' figures off the UI thread on one job (jobs/job.h), newest request per
// view wins, so a figure that takes long (the score view at max_len 1e9, the attention row of
// 2^20 keys) never stalls a frame. A request of new parameters cancels the running build of its
// view; a build of a tab left (a view not asked for while another was asked twice) is cancelled
// too, so the tab now on screen does not wait behind it. A request is given a few milliseconds
// to finish before the frame goes on, so quick figures still show in the frame that asked for
// them; in synchronous mode (tests, screenshots) every figure is built in place.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "figure/figure.h"
#include "jobs/job.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {

struct FigureRequest {
  ViewKind view = ViewKind::kScore;
  ModelParams params;
  EncodingPtr encoding;  // built from params.pe; never null
  ViewSelection sel;
  FigureSize size;
  // The encoding is made from params.pe, so equal params mean an equal encoding. Parameters
  // only other views read do not count (ParamsViewReads).
  bool operator==(const FigureRequest& o) const {
    return view == o.view && SameParams(o.params) && sel == o.sel && size == o.size;
  }
  // Equal parameters (every frame's case) compare in place; only unequal ones are reduced to
  // what the view reads, which copies them.
  bool SameParams(const ModelParams& other) const {
    return params == other || ParamsViewReads(params, view) == ParamsViewReads(other, view);
  }
};

struct FigureResult {
  FigureRequest request;
  std::optional<Figure> figure;
  std::string error;  // why there is no figure
};

// The view's figure for `request` (what the worker runs); never throws. Stopped by the cancel
// token of the job running it, it says "cancelled".
FigureResult BuildFigure(const FigureRequest& request);

class FigureWorker {
 public:
  // Time a request may take before the frame goes on without it.
  static constexpr std::chrono::milliseconds kInFrameWait{4};
  // `build` makes a figure (BuildFigure; tests give one they can hold up).
  using Builder = std::function<FigureResult(const FigureRequest&)>;
  explicit FigureWorker(bool synchronous, Builder build = BuildFigure);
  ~FigureWorker();
  FigureWorker(const FigureWorker&) = delete;
  FigureWorker& operator=(const FigureWorker&) = delete;

  // Asks for a figure; a request equal to the last one of its view is ignored. Waits at most
  // kInFrameWait for it (synchronous mode: builds it in place).
  void Request(const FigureRequest& request);
  // The newest finished figure of `view` not yet taken.
  std::optional<FigureResult> Take(ViewKind view);
  // True while a request of `view` is waiting or being built.
  bool Busy(ViewKind view);
  // True while any request is waiting (and not held) or being built.
  bool AnyBusy();
  // Blocks until every request so far is finished (requests held back count as finished).
  void WaitIdle();
  // While held, requests wait and nothing is built: tests see the panel between a request and
  // its figure without depending on timing. Not for synchronous workers.
  void Hold(bool held);
  // The views whose builds have started, in order (tests).
  std::vector<ViewKind> BuildOrder();

 private:
  const Builder build_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  std::map<ViewKind, FigureRequest> last_requested_;
  std::map<ViewKind, FigureResult> done_;
  std::vector<ViewKind> build_order_;
  // Request calls so far, and for each view the calls of its last two asks: a view asked twice
  // since the running build's view last asked is on screen and that one is not.
  int64_t calls_ = 0;
  std::map<ViewKind, std::pair<int64_t, int64_t>> asks_;
  std::optional<ViewKind> running_;
  Job job_;  // last: joined before the state its tasks write goes
};

}  // namespace pe
