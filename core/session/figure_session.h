// A figure this app exported (PNG, SVG, PDF) read back from its metadata: the flags of `export`
// that drew it, and what they give: the view, the parameters, the selection, size and title.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "figure/figure_render.h"
#include "model/model_params.h"
#include "views/figure_command.h"
#include "views/figure_export.h"

namespace pe {

// The flags of a figure's metadata, table files resolved beside it, each with its key as the
// file names it ("pe:d_model" in a PNG, "d_model" in an SVG or PDF).
struct FigureFlags {
  std::vector<CommandFlag> flags;
  std::vector<std::string> shown_keys;  // (flags.size())
};
// Errors: the file's own ("\"fig.png\" cannot be read: ...") or "\"fig.png\" " followed by what
// is wrong with its metadata ("has no view in its metadata").
Result<FigureFlags> ReadFigureFlags(const std::string& path);

// What a figure this app exported shows, read as `export --from` reads it (the same flags,
// checks and selection), so exporting it again gives the same bytes.
struct FigureSession {
  ViewKind view = ViewKind::kHeatmap;
  ModelParams params;
  ViewSelection views;
  FigureSize size;
  std::string title;
};
// Errors name the file and what is wrong (not a figure, no metadata, a newer version, ...), or
// the metadata key whose value is refused. `cap` bounds what the parameters load (figures do
// not record it).
// `progress` follows the reading of the tables the parameters name (LoadParamFiles).
Result<FigureSession> ReadFigureSession(const std::string& path, const MemoryCap& cap = {},
                                        const Progress& progress = {});
// The same from flags already read: `path` names them in messages, `ext` is the format they
// are drawn in (png, svg or pdf).
Result<FigureSession> FigureSessionFromFlags(const FigureFlags& figure, const std::string& path,
                                             const std::string& ext, const MemoryCap& cap = {},
                                             const Progress& progress = {});

}  // namespace pe
