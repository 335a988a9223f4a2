// The window's loading job (jobs/job.h): whatever reads a file for the parameters runs here, off
// the UI thread, with progress and Cancel, one load at a time: a table file picked in File >
// Open (into io/loaded_table.h's shared cache), and a session or an exported figure being
// opened, whose parameters are set from the file and then loaded (LoadParamFiles reads their
// tables and tokenizer; a session's file hashes are checked here too). The frame takes the
// outcome and puts it into the state. In synchronous mode (tests, screenshots) it runs in place.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "arch/open_model.h"
#include "io/loaded_table.h"
#include "jobs/job.h"
#include "session/figure_session.h"
#include "session/session.h"
#include "text/subword_tokenizer.h"

namespace pe {

// What a loaded table is used for in the window: the field it sets.
enum class TableTarget { kEmbeddings, kPositions, kT5Bias };

struct TableLoadRequest {
  std::string spec;  // FILE[:TENSOR]
  TableTarget target = TableTarget::kEmbeddings;
  MemoryCap cap;
};

// A session (.pexs) or an exported figure (.png, .svg, .pdf) to open over `base`.
struct SessionOpenRequest {
  std::string path;
  ModelParams base;  // the defaults with the memory cap in force
};

struct TableLoadOutcome {
  TableLoadRequest request;
  Result<LoadedTablePtr> table = LoadedTablePtr();
  // Set when the load was a session or figure (then `request` is empty): what it opened.
  std::optional<SessionOpenRequest> session_request;
  std::optional<Result<LoadedSession>> session;
  std::optional<Result<FigureSession>> figure;
  // Set when the load was a tokenizer (StartTokenizer; `request.spec` is its path).
  std::optional<Result<std::shared_ptr<const SubwordTokenizer>>> tokenizer;
  // Set when the load was a model's config.json or GGUF file (StartModel; `request.spec` is its
  // path): the schedule read, or why not. A dropped file that is no model's configuration
  // (LooksLikeModelConfig) reads nothing and sets `not_a_model` instead.
  std::optional<Result<ModelSchedule>> model;
  bool dropped = false;
  bool not_a_model = false;
};

class TableLoadJob {
 public:
  explicit TableLoadJob(bool synchronous) : job_(synchronous) {}
  ~TableLoadJob() = default;  // cancels a running load and waits for it
  TableLoadJob(const TableLoadJob&) = delete;
  TableLoadJob& operator=(const TableLoadJob&) = delete;

  // Starts loading; false when a load is already running.
  bool Start(TableLoadRequest request);
  // Starts reading a tokenizer file (--tokenizer-file) under `cap`; false when a load is running.
  bool StartTokenizer(std::string path, MemoryCap cap);
  // Starts opening a session or figure (by the path's extension); false when a load is running.
  bool StartSession(SessionOpenRequest request);
  // Starts reading a model's config.json or GGUF file under `cap` (OpenModelConfig); a
  // `dropped` file is first told apart by its content, and what is not a model's configuration
  // is handed back unread. False when a load is running.
  bool StartModel(std::string path, MemoryCap cap, bool dropped);
  // The outcome of the last finished StartModel, once.
  std::optional<TableLoadOutcome> TakeModel();
  bool busy() const { return job_.Busy(); }
  double progress() const { return job_.fraction(); }  // 0..1
  void Cancel() { job_.Cancel(); }
  // While held, a load asked for waits (tests see the frames between a request and its end).
  void Hold(bool held) { job_.Hold(held); }
  // The outcome of the last finished table load (Start), once.
  std::optional<TableLoadOutcome> Take();
  // The outcome of the last finished session or figure (StartSession), once.
  std::optional<TableLoadOutcome> TakeSession();

 private:
  std::mutex mutex_;
  std::optional<TableLoadOutcome> outcome_, session_outcome_, model_outcome_;
  Job job_;  // last: joined before the outcome it writes goes
};

}  // namespace pe
