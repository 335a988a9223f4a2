// Loads one table file (io/loaded_table.h) off the UI thread on a job (jobs/job.h), with progress
// and Cancel, into the
// shared table cache; the frame then sets the parameter field, which finds the table there.
// One load at a time. In synchronous mode (tests, screenshots) it runs in place.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "io/loaded_table.h"
#include "jobs/job.h"

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
  explicit TableLoadJob(bool synchronous) : job_(synchronous) {}
  ~TableLoadJob() = default;  // cancels a running load and waits for it
  TableLoadJob(const TableLoadJob&) = delete;
  TableLoadJob& operator=(const TableLoadJob&) = delete;

  // Starts loading; false when a load is already running.
  bool Start(TableLoadRequest request);
  bool busy() const { return job_.Busy(); }
  double progress() const { return job_.fraction(); }  // 0..1
  void Cancel() { job_.Cancel(); }
  // The outcome of the last finished load, once.
  std::optional<TableLoadOutcome> Take();

 private:
  std::mutex mutex_;
  std::optional<TableLoadOutcome> outcome_;
  Job job_;  // last: joined before the outcome it writes goes
};

}  // namespace pe
