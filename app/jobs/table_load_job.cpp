#include "jobs/table_load_job.h"

namespace pe {

TableLoadJob::~TableLoadJob() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();
}

bool TableLoadJob::Start(TableLoadRequest request) {
  if (busy_) return false;
  if (thread_.joinable()) thread_.join();
  busy_ = true;
  cancel_ = false;
  progress_ = 0;
  if (synchronous_) {
    Run(std::move(request));
  } else {
    thread_ = std::thread([this, r = std::move(request)]() mutable { Run(std::move(r)); });
  }
  return true;
}

void TableLoadJob::Run(TableLoadRequest request) {
  TableLoadOutcome out;
  out.request = request;
  Result<TensorSpec> spec = ParseTensorSpec(request.spec);
  if (!spec.ok()) {
    out.table = spec.error();
  } else {
    const TableUse use =
        request.target == TableTarget::kEmbeddings ? TableUse::kEmbeddings : TableUse::kPositions;
    try {
      out.table = SharedTableCache().Get(spec.value(), use, request.cap, [this](double f) {
        progress_ = f;
        return !cancel_.load();
      });
    } catch (const std::exception& e) {
      // Leaving this thread, it would end the process.
      out.table = RuntimeError(std::string("loading the table failed: ") + e.what());
    }
  }
  {
    std::lock_guard lock(mutex_);
    outcome_ = std::move(out);
  }
  busy_ = false;
}

std::optional<TableLoadOutcome> TableLoadJob::Take() {
  if (busy_) return std::nullopt;
  std::lock_guard lock(mutex_);
  std::optional<TableLoadOutcome> out = std::move(outcome_);
  outcome_.reset();
  return out;
}

}  // namespace pe
