#include "cli/export_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "arch/model_choice.h"
#include "io/file_writers.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {

int RunDescribe(const ModelParams& params, const DescribeRequest& request, std::ostream& out) {
  const ModelSchedule& s = *params.model;
  if (request.json) {
    out << DescribeModelJson(s, request.layer);
    return 0;
  }
  out << DescribeModelText(s);
  if (request.layer >= 0 && request.layer < static_cast<int64_t>(s.layers.size())) {
    out << "chosen layer " << request.layer << ": "
        << LayerTreatmentText(s.layers[static_cast<size_t>(request.layer)]) << "\n";
  }
  return 0;
}

int RunExport(const ModelParams& params, const ExportRequest& request) {
  auto fail = [&request](const Error& e) {
    std::cerr << "pe-explorer export: " << FromFigureMessage(request, e.message) << "\n";
    return e.kind == Error::Kind::kInvalidArgument ? 2 : 1;
  };
  // A table export with --positions holds only those rows (a copy: params may carry a large
  // vocabulary, so only when needed).
  std::optional<ModelParams> table_params;
  EncodingPtr built;  // reused by the export unless --positions narrowed the table
  Result<ViewSelection> selection = ExportSelection(params, request, &table_params, &built);
  if (!selection.ok()) return fail(selection.error());
  const std::optional<ViewKind> view = ParseView(request.view);
  const ViewSelection& sel = selection.value();
  ExportRequestOptions options;
  options.size = {request.width, request.height, request.scale, request.font_size,
                  request.svg_outlines};
  if (Status s = ValidateFigureSize(options.size, {"--width", "--height", "--scale"}); !s.ok()) {
    return fail(s.error());
  }
  options.title = request.title;
  options.encoding = std::move(built);
  // A person watching a terminal sees how far a long export is; scripts and logs do not get
  // the carriage-return lines.
  int shown_percent = -1;
  if (::isatty(STDERR_FILENO) == 1) {
    options.progress = [&shown_percent](double fraction) {
      const int percent = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100.0);
      if (percent != shown_percent) {
        std::fprintf(stderr, "\rpe-explorer export: %3d%%", percent);
        std::fflush(stderr);
        shown_percent = percent;
      }
      return true;
    };
  }
  std::string note;
  options.note = &note;
  Status s = ExportView(*view, table_params ? *table_params : params, sel, request.output, options);
  if (shown_percent >= 0) std::fputc('\n', stderr);
  if (s.ok() && !note.empty()) std::cerr << "pe-explorer export: note: " << note << "\n";
  if (!s.ok()) {
    // The numbers of a long table over the cap: a script usually wants some of its rows, and
    // --positions says which (a zoomed figure's window is not a table of its own).
    Error e = s.error();
    const std::string ext = request.output == "-" ? "csv" : FileExtension(request.output);
    if ((ext == "csv" || ext == "npy") && request.positions.empty() && *view != ViewKind::kSums &&
        e.message.find("over the memory cap") != std::string::npos) {
      e.message += "; or write only positions A to B-1 with --positions A:B";
    }
    return fail(e);
  }
  return 0;
}

}  // namespace pe
