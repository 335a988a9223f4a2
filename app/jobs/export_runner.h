// Runs one export at a time off the UI thread, so a long export (a big CSV) shows progress and
// never freezes the window. In synchronous mode (tests) it runs in place.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

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
};

class ExportRunner {
 public:
  explicit ExportRunner(bool synchronous);
  ~ExportRunner();  // cancels a running export and waits for it
  ExportRunner(const ExportRunner&) = delete;
  ExportRunner& operator=(const ExportRunner&) = delete;

  // Starts `job`; false when one is already running.
  bool Start(ExportJob job);
  bool busy() const { return busy_; }
  // 0..1: tables per block or token; figures 0.5 once built and 1 once drawn.
  double progress() const { return progress_; }
  void Cancel() { cancel_ = true; }
  // The outcome of the last finished export, once.
  std::optional<ExportOutcome> Take();

 private:
  void Run(ExportJob job);
  const bool synchronous_;
  std::atomic<bool> busy_{false}, cancel_{false};
  std::atomic<double> progress_{0};
  std::mutex mutex_;
  std::optional<ExportOutcome> outcome_;
  std::thread thread_;
};

// Whether zenity is on PATH; starts a shell (about 1.6 ms), so callers ask once.
bool ZenityOnPath();

// A native save dialog (zenity) where one is installed, run off the UI thread.
class SaveFilePicker {
 public:
  // `probe` says whether the native dialog exists; it runs once, here, not per frame.
  explicit SaveFilePicker(bool (*probe)() = ZenityOnPath) : available_(probe()) {}
  ~SaveFilePicker();
  SaveFilePicker(const SaveFilePicker&) = delete;
  SaveFilePicker& operator=(const SaveFilePicker&) = delete;
  bool available() const { return available_; }
  void Open(const std::string& suggested_path);
  bool running() const { return running_; }
  // The chosen path, once; nullopt while running or when cancelled.
  std::optional<std::string> Take();

 private:
  const bool available_;
  std::atomic<bool> running_{false};
  std::mutex mutex_;
  std::optional<std::string> chosen_;
  std::thread thread_;
};

}  // namespace pe
