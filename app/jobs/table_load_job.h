// Loads one table file (io/loaded_table.h) off the UI thread, with progress and Cancel, into the
// shared table cache; the frame then sets the parameter field, which finds the table there.
// One load at a time. In synchronous mode (tests, screenshots) it runs in place.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "io/loaded_table.h"

namespace pe {

// What a loaded table is used for in the window: the field it sets.
enum class TableTarget { kEmbeddings, kPositions, kT5Bias };

struct TableLoadRequest {
  std::string spec;  // FILE[:TENSOR]
  TableTarget target = TableTarget::kEmbeddings;
  MemoryCap cap;
};

struct TableLoadOutcome {
  TableLoadRequest request;
  Result<LoadedTablePtr> table = LoadedTablePtr();
};

class TableLoadJob {
 public:
  explicit TableLoadJob(bool synchronous) : synchronous_(synchronous) {}
  ~TableLoadJob();  // cancels a running load and waits for it
  TableLoadJob(const TableLoadJob&) = delete;
  TableLoadJob& operator=(const TableLoadJob&) = delete;

  // Starts loading; false when a load is already running.
  bool Start(TableLoadRequest request);
  bool busy() const { return busy_; }
  double progress() const { return progress_; }  // 0..1
  void Cancel() { cancel_ = true; }
  // The outcome of the last finished load, once.
  std::optional<TableLoadOutcome> Take();

 private:
  void Run(TableLoadRequest request);
  const bool synchronous_;
  std::atomic<bool> busy_{false}, cancel_{false};
  std::atomic<double> progress_{0};
  std::mutex mutex_;
  std::optional<TableLoadOutcome> outcome_;
  std::thread thread_;
};

}  // namespace pe
