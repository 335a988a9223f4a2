#include "jobs/table_load_job.h"

#include "io/file_writers.h"

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

bool TableLoadJob::StartTokenizer(std::string path, MemoryCap cap) {
  if (job_.Busy()) return false;
  job_.Submit(0, [this, path = std::move(path), cap](JobContext&) {
    TableLoadOutcome out;
    out.request.spec = path;
    out.request.cap = cap;
    try {
      out.tokenizer = LoadSubwordTokenizer(path, cap);
    } catch (const std::exception& e) {
      out.tokenizer = RuntimeError("reading the tokenizer failed: " + std::string(e.what()));
    }
    std::lock_guard lock(mutex_);
    outcome_ = std::move(out);
  });
  return true;
}

bool TableLoadJob::StartSession(SessionOpenRequest request) {
  if (job_.Busy()) return false;
  job_.Submit(0, [this, request = std::move(request)](JobContext& context) {
    TableLoadOutcome out;
    out.table = LoadedTablePtr();
    out.session_request = request;
    const std::string ext = FileExtension(request.path);
    const bool figure = ext == "png" || ext == "svg" || ext == "pdf";
    auto failed = [&](Error e) {
      if (figure) {
        out.figure = std::move(e);
      } else {
        out.session = std::move(e);
      }
    };
    try {
      if (context.cancelled()) {
        failed(Cancelled("opening " + Quoted(request.path) + " was cancelled"));
      } else if (figure) {
        out.figure = ReadFigureSession(request.path, request.base.cap, context.progress());
      } else {
        out.session = LoadSessionFile(request.path, request.base, context.progress());
      }
    } catch (const CancelledError&) {
      failed(Cancelled("opening " + Quoted(request.path) + " was cancelled"));
    } catch (const std::exception& e) {
      failed(RuntimeError("opening " + Quoted(request.path) + " failed: " + e.what()));
    }
    std::lock_guard lock(mutex_);
    session_outcome_ = std::move(out);
  });
  return true;
}

bool TableLoadJob::StartModel(std::string path, MemoryCap cap, bool dropped) {
  if (job_.Busy()) return false;
  job_.Submit(0, [this, path = std::move(path), cap, dropped](JobContext&) {
    TableLoadOutcome out;
    out.request.spec = path;
    out.request.cap = cap;
    out.dropped = dropped;
    try {
      if (dropped && !LooksLikeModelConfig(path)) {
        out.not_a_model = true;
      } else {
        out.model = OpenModelConfig(path, cap);
      }
    } catch (const std::exception& e) {
      out.model = RuntimeError("reading the model file failed: " + std::string(e.what()));
    }
    std::lock_guard lock(mutex_);
    model_outcome_ = std::move(out);
  });
  return true;
}

std::optional<TableLoadOutcome> TableLoadJob::TakeModel() {
  if (job_.Busy()) return std::nullopt;
  std::lock_guard lock(mutex_);
  std::optional<TableLoadOutcome> out = std::move(model_outcome_);
  model_outcome_.reset();
  return out;
}

std::optional<TableLoadOutcome> TableLoadJob::TakeSession() {
  if (job_.Busy()) return std::nullopt;
  std::lock_guard lock(mutex_);
  std::optional<TableLoadOutcome> out = std::move(session_outcome_);
  session_outcome_.reset();
  return out;
}

std::optional<TableLoadOutcome> TableLoadJob::Take() {
  if (job_.Busy()) return std::nullopt;
  std::lock_guard lock(mutex_);
  std::optional<TableLoadOutcome> out = std::move(outcome_);
  outcome_.reset();
  return out;
}

}  // namespace pe
