#include "jobs/export_runner.h"

#include <cstdio>
#include <cstdlib>

namespace pe {

ExportRunner::ExportRunner(bool synchronous) : synchronous_(synchronous) {}

ExportRunner::~ExportRunner() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();
}

bool ExportRunner::Start(ExportJob job) {
  if (busy_) return false;
  if (thread_.joinable()) thread_.join();
  busy_ = true;
  cancel_ = false;
  progress_ = 0;
  if (synchronous_) {
    Run(std::move(job));
  } else {
    thread_ = std::thread([this, j = std::move(job)]() mutable { Run(std::move(j)); });
  }
  return true;
}

void ExportRunner::Run(ExportJob job) {
  ExportRequestOptions options;
  options.size = job.size;
  options.title = job.title;
  options.encoding = std::move(job.encoding);
  options.progress = [this](double f) {
    progress_ = f;
    return !cancel_;
  };
  Status s;
  try {
    s = ExportView(job.view, job.params, job.selection, job.path, options);
  } catch (const std::exception& e) {
    s = RuntimeError(std::string("export failed: ") + e.what());
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    outcome_ = ExportOutcome{job.path, s};
  }
  busy_ = false;
}

std::optional<ExportOutcome> ExportRunner::Take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<ExportOutcome> o = std::move(outcome_);
  outcome_.reset();
  return o;
}

bool ZenityOnPath() {
  return std::system("command -v zenity >/dev/null 2>&1") == 0;
}

SaveFilePicker::~SaveFilePicker() {
  if (thread_.joinable()) thread_.join();
}

void SaveFilePicker::Open(const std::string& suggested_path) {
  if (running_) return;
  if (thread_.joinable()) thread_.join();
  running_ = true;
  thread_ = std::thread([this, suggested_path] {
    // The path goes to zenity as one single-quoted shell word.
    std::string quoted = "'";
    for (char c : suggested_path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
    const std::string cmd =
        "zenity --file-selection --save --confirm-overwrite --title='Export' "
        "--filename=" +
        quoted + " 2>/dev/null";
    std::string out;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      char buf[4096];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
      ::pclose(p);
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!out.empty()) chosen_ = out;
    }
    running_ = false;
  });
}

std::optional<std::string> SaveFilePicker::Take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<std::string> c = std::move(chosen_);
  chosen_.reset();
  return c;
}

}  // namespace pe
