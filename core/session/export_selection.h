// What `export` draws of a view: the request its flags make (also read from a figure's
// metadata) and the selection of the views it gives.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/model_params.h"
#include "views/figure_export.h"

namespace pe {

struct ExportRequest {
  std::string view = "heatmap";                 // a --view name of the registry
  std::string output;                           // path or "-"
  double width = 960, height = 540, scale = 1;  // figure size (layout units) and PNG scale
  double font_size = kDefaultFontPt;            // the body text's size (--font-size)
  bool svg_outlines = false;                    // --svg-text outlines
  std::string title;                            // empty: a title naming the parameters
  std::string positions;          // "A:B": the positions shown (heatmap rows, curves x)
  std::string dim_range;          // "A:B": the dimensions shown (heatmap, sums)
  std::string token;              // "N" or "all": the token (sums) and highlight (heatmap, curves)
  std::string rotation_position;  // "P": the rotation view's position (empty: first + 10)
  std::string batch_row;          // "B": the sum figure's row of a batch of --ids (empty: 0)
  bool no_markers = false;
  // "X0:X1:Y0:Y1": the exact window of each view that owns one (its --X-window flag: heatmap,
  // dims x positions; curves, positions x values; sums, dims x values; score, keys x queries);
  // empty: the whole table
  ByView<std::string> windows;
  bool highlight = false, no_highlight = false;  // outline the token (default: with --token)
  std::string walkthrough_step;                  // "S": the walkthrough step a PNG or SVG shows
  std::string from;           // the figure whose metadata gave the defaults (--from)
  bool list_presets = false;  // print the sinusoidal presets and exit
  // The flags --from took from the figure (none given on the command line), each with the
  // metadata key it came from as the file names it ("pe:d_model" in a PNG): an error about one
  // names the file and the key, not a flag nobody typed.
  std::vector<std::pair<std::string, std::string>> from_keys;
  // The selection flags given, also those given an empty value (which is refused, not taken as
  // "not given").
  std::vector<std::string> given;
  bool Given(const std::string& flag) const;
};

// `message` (an error about a flag) said of the figure and its metadata key when --from took that
// flag from the figure: "fig.png: metadata pe:d_model: must be an integer in [1, 65536], got
// "0""; otherwise `message` unchanged.
std::string FromFigureMessage(const ExportRequest& request, const std::string& message);

// The selection flags of `export` (ExportSelection reads them), the views' --X-window flags
// among them; one given an empty value is refused there like any other bad value, not taken for
// absent.
std::vector<std::string> ExportSelectionFlags();

// --font-size's value: a number of layout units in [5, 36] (kLeastFontPt, kMostFontPt).
Result<double> ParseFontSize(const std::string& text);
// --svg-text's value: "text" (false) or "outlines" (true).
Result<bool> ParseSvgText(const std::string& text);

// The views an export of `request` draws: the whole table, narrowed by --positions,
// --dim-range, --token, the exact windows, ... Errors name the flag. With `table_params`, a
// table export (.csv, .npy) with --positions gets the parameters of just those rows there.
// With `built`, the encoding of `params` made on the way is kept there for the export itself.
Result<ViewSelection> ExportSelection(const ModelParams& params, const ExportRequest& request,
                                      std::optional<ModelParams>* table_params,
                                      EncodingPtr* built = nullptr);

}  // namespace pe
