#include "jobs/export_runner.h"

#include <cstdio>
#include <cstdlib>

namespace pe {

ExportRunner::ExportRunner(bool synchronous) : job_(synchronous) {}

ExportRunner::~ExportRunner() = default;

bool ExportRunner::Start(ExportJob job) {
  if (job_.Busy()) return false;
  job_.Submit(0, [this, job = std::move(job)](JobContext& context) mutable {
    ExportRequestOptions options;
    options.size = job.size;
    options.title = job.title;
    options.encoding = std::move(job.encoding);
    options.progress = context.progress();
    std::string note;
    options.note = &note;
    Status s;
    try {
      s = ExportView(job.view, job.params, job.selection, job.path, options);
    } catch (const CancelledError&) {
      s = Cancelled("the export was cancelled");
    } catch (const std::exception& e) {
      s = RuntimeError(std::string("export failed: ") + e.what());
    }
    // A cancelled export's outcome is given too: the dialog waits for it and says why.
    std::lock_guard<std::mutex> lock(mutex_);
    outcome_ = ExportOutcome{job.path, s, s.ok() ? note : std::string()};
  });
  return true;
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

void SaveFilePicker::Open(const std::string& suggested_path) {
  if (job_.Busy()) return;
  job_.Submit(0, [this, suggested_path](JobContext&) {
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
    std::lock_guard<std::mutex> lock(mutex_);
    if (!out.empty()) chosen_ = out;
  });
}

std::optional<std::string> SaveFilePicker::Take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<std::string> c = std::move(chosen_);
  chosen_.reset();
  return c;
}

}  // namespace pe
