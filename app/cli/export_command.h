// `pe-explorer export`: writes the numbers behind a view without opening a window.
#pragma once

#include <optional>
#include <string>

#include "cli/command_line.h"
#include "figure/figure_render.h"
#include "views/figure_export.h"

namespace pe {

// Returns the process exit code: 0 ok, 2 usage error, 1 runtime error (message on stderr).
int RunExport(const ModelParams& params, const ExportRequest& request);

// The views an export of `request` draws: the whole table, narrowed by --positions,
// --dim-range, --token, the exact windows, ... Errors name the flag. With `table_params`, a
// table export (.csv, .npy) with --positions gets the parameters of just those rows there.
// With `built`, the encoding of `params` made on the way is kept there for the export itself.
Result<ViewSelection> ExportSelection(const ModelParams& params, const ExportRequest& request,
                                      std::optional<ModelParams>* table_params,
                                      EncodingPtr* built = nullptr);

// What a figure this app exported shows, read from its metadata exactly as `export --from`
// reads it (the same command line and selection code), so exporting it again gives the same
// bytes: the view, the parameters, the windows and selection, the size and the title.
struct FigureSession {
  ViewKind view = ViewKind::kHeatmap;
  ModelParams params;
  ViewSelection views;
  FigureSize size;
  std::string title;
};
// Errors name the file and what is wrong (not a figure, no metadata, a newer version, ...).
// `cap` bounds what the parameters load (figures do not record it).
Result<FigureSession> SessionFromFigure(const std::string& path, const MemoryCap& cap = {});

}  // namespace pe
