// Runs one export at a time off the UI thread on a job (jobs/job.h), so a long export (a big CSV)
// shows progress and never freezes the window; Cancel stops it at its next step and its outcome
// says so. In synchronous mode (tests) it runs in place.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "jobs/job.h"
#include "views/figure_export.h"

namespace pe {

struct ExportJob {
  ViewKind view = ViewKind::kHeatmap;
  ModelParams params;
  ViewSelection selection;
  std::string path;
  FigureSize size;
  std::string title;
  EncodingPtr encoding;  // the window's encoding of params.pe (not built again), or null
};

struct ExportOutcome {
  std::string path;
  Status status;
  std::string note;  // a figure whose text was drawn smaller than asked says so (ShrunkTextNote)
};

class ExportRunner {
 public:
  explicit ExportRunner(bool synchronous);
  ~ExportRunner();  // cancels a running export and waits for it
  ExportRunner(const ExportRunner&) = delete;
  ExportRunner& operator=(const ExportRunner&) = delete;

  // Starts `job`; false when one is already running.
  bool Start(ExportJob job);
  bool busy() const { return job_.Busy(); }
  // 0..1: tables per block or token; figures 0.5 once built and 1 once drawn.
  double progress() const { return job_.fraction(); }
  void Cancel() { job_.Cancel(); }
  // The outcome of the last finished export, once.
  std::optional<ExportOutcome> Take();

 private:
  std::mutex mutex_;
  std::optional<ExportOutcome> outcome_;
  Job job_;  // last: joined before the outcome it writes goes
};

// Whether zenity is on PATH; starts a shell (about 1.6 ms), so callers ask once.
bool ZenityOnPath();

// A native save dialog (zenity) where one is installed, run off the UI thread.
class SaveFilePicker {
 public:
  // `probe` says whether the native dialog exists; it runs once, here, not per frame.
  explicit SaveFilePicker(bool (*probe)() = ZenityOnPath)
      : available_(probe()), job_(/*synchronous=*/false) {}
  SaveFilePicker(const SaveFilePicker&) = delete;
  SaveFilePicker& operator=(const SaveFilePicker&) = delete;
  bool available() const { return available_; }
  void Open(const std::string& suggested_path);
  bool running() const { return job_.Busy(); }
  // The chosen path, once; nullopt while running or when cancelled.
  std::optional<std::string> Take();

 private:
  const bool available_;
  std::mutex mutex_;
  std::optional<std::string> chosen_;
  Job job_;  // last: joined (once zenity has returned) before chosen_ goes
};

}  // namespace pe
