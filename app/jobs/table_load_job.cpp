#include "jobs/table_load_job.h"

namespace pe {

bool TableLoadJob::Start(TableLoadRequest request) {
  if (job_.Busy()) return false;
  job_.Submit(0, [this, request = std::move(request)](JobContext& context) {
    TableLoadOutcome out;
    out.request = request;
    Result<TensorSpec> spec = ParseTensorSpec(request.spec);
    if (!spec.ok()) {
      out.table = spec.error();
    } else {
      const TableUse use =
          request.target == TableTarget::kEmbeddings ? TableUse::kEmbeddings : TableUse::kPositions;
      try {
        out.table = SharedTableCache().Get(spec.value(), use, request.cap, context.progress());
      } catch (const CancelledError&) {
        out.table = Cancelled("loading the table was cancelled");
      } catch (const std::exception& e) {
        // Leaving the job's thread, it would end the process.
        out.table = RuntimeError(std::string("loading the table failed: ") + e.what());
      }
    }
    // A cancelled load's outcome is given too: the dialog says why nothing was loaded.
    std::lock_guard lock(mutex_);
    outcome_ = std::move(out);
  });
  return true;
}

std::optional<TableLoadOutcome> TableLoadJob::Take() {
  if (job_.Busy()) return std::nullopt;
  std::lock_guard lock(mutex_);
  std::optional<TableLoadOutcome> out = std::move(outcome_);
  outcome_.reset();
  return out;
}

}  // namespace pe
