// Exports what a panel shows: as a figure (PNG, SVG, PDF) built from the same parameters, view
// window and selection as the panel, or as the numbers behind it (CSV, NPY). The CLI and the
// window both come here, so the same view gives the same file.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "figure/figure.h"
#include "figure/figure_render.h"
#include "model/model_params.h"
#include "views/view_kind.h"
#include "views/view_tables.h"

namespace pe {

// One T per view, by its ViewKind.
template <typename T>
struct ByView {
  std::array<T, kViewKinds> items{};
  T& operator[](ViewKind k) { return items[static_cast<size_t>(k)]; }
  const T& operator[](ViewKind k) const { return items[static_cast<size_t>(k)]; }
  bool operator==(const ByView&) const = default;
};

// The windows a selection starts with: empty for a window that is the whole table while empty
// (ViewWindowSpec::empty_is_whole), else the unit square.
ByView<ViewRange> InitialWindows();

// What a view shows beyond the model parameters.
struct ViewSelection {
  // The pan and zoom windows of the views that own one (ViewWindowSpec), by view: heatmap
  // (dims x positions), curves (positions x values), sum (dims x values, y fitted to the data),
  // score (keys x queries, absolute positions; empty: the whole table), ...
  ByView<ViewRange> windows = InitialWindows();
  int selected_token = 0;  // -1: all tokens
  int64_t batch_row = 0;   // the sum view's row of a batch of typed ids
  bool highlight = false;  // outline the selected token's row / position in heatmap and curves
  bool markers = true;     // dots at integer positions on the curves
  int64_t rotation_position = -1;  // rotation view: the position p of R_p; -1: first + 10
  // walkthrough view: the step a PNG or SVG shows (0 to 7); -1: none (the PDF has every step)
  int walkthrough_step = -1;
  bool operator==(const ViewSelection&) const = default;
};

// The views the window shows when it opens on `params`: the whole table, the curves over every
// position, every dimension of the sums.
ViewSelection DefaultViews(const ModelParams& params);
ViewSelection DefaultViews(const ModelParams& params, const Encoding& encoding);
// The x extent of the curves: first to last position, or the one position +- 0.5 when the
// table has one row (never a position past the last).
// The y extent is the encoding's value range plus 15% ([-1.15, 1.15] for the sinusoid).
ViewRange CurvesLimits(const Encoding& encoding);

// The sums panel's y range for the given series (each `d` values): data range plus 8% padding.
ViewRange SumsExtent(const std::vector<const float*>& series, int64_t d);

// The encoding of `params`: `built` when it was made from exactly these parameters (a learned
// table is then not drawn or read again), else a new one.
Result<EncodingPtr> ReuseOrMakeEncoding(const EncodingParams& params, const MemoryCap& cap,
                                        const EncodingPtr& built);

// The figure of `view`, with an image or samples as fine as the output needs. `built`: the
// encoding of params.pe when the caller has it (see ReuseOrMakeEncoding), or null.
Result<Figure> BuildViewFigure(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                               const FigureSize& size, FigureFormat format,
                               const std::string& title = "", const EncodingPtr& built = nullptr);

// The pages of `view`'s PDF: the walkthrough's handout (one per step), or BuildViewFigure's one
// figure. Every page carries the metadata.
Result<std::vector<Figure>> BuildViewPages(ViewKind view, const ModelParams& params,
                                           const ViewSelection& sel, const FigureSize& size,
                                           const std::string& title = "",
                                           const EncodingPtr& built = nullptr);

// The views that own a window (their entries' `window`), in registry order.
std::vector<ViewKind> WindowOwners();
// The windows of a ViewSelection a view's figure depends on, by the view owning each: its own,
// then its entry's `windows`.
std::vector<ViewKind> ViewWindowKeys(ViewKind view);
std::string_view WindowKeyName(ViewKind owner);  // "heatmap_window"
std::string WindowFlag(ViewKind owner);          // "--heatmap-window"
// "x0:x1:y0:y1", each number exact (%.17g), as the metadata and --*-window flags write it.
std::string WindowText(const ViewRange& r);

// The metadata a figure of `view` carries (PNG text, SVG <metadata>, PDF information): the
// view, every parameter that applies, what the view shows (`shown`: the figure's x and y
// range; null: left out), the selection the view reads, the size, a title given (empty: none)
// and app_version. `export --from` reads it back. `built`: the encoding of m.pe when the caller
// has it (the default windows come from it), or null.
std::vector<std::pair<std::string, std::string>> FigureMetadata(
    ViewKind view, const ModelParams& m, const ViewSelection& sel, const FigureSize& size,
    const std::string& title, const ViewRange* shown, const EncodingPtr& built = nullptr);

// "pe-heatmap_paper_d128_L100.svg": a name that says what the file shows.
std::string SuggestedFileName(ViewKind view, const ModelParams& params, const std::string& ext);

struct ExportRequestOptions {
  FigureSize size;
  std::string title;     // empty: a title that names the parameters
  Progress progress;     // large table exports report and may be cancelled
  EncodingPtr encoding;  // the encoding of the parameters when the caller has it, or null
  // When given: a figure whose page had no room for the text at size.font_pt (drawn smaller,
  // never cut) gets a sentence here saying the size drawn and what keeps the asked one.
  std::string* note = nullptr;
};

// The sentence ExportRequestOptions::note gets for a figure of `size` whose text was drawn at
// `drawn` pt: "" when drawn is size.font_pt. `largest` (FigureTextPt): the largest size the page
// draws as asked, 0 when none from 5 pt up.
std::string ShrunkTextNote(const FigureSize& size, double drawn, double largest);

// Writes `path` as the format its extension names (png, svg, pdf, csv, npy; "-" is CSV on
// standard output) through a temporary file. Errors name the path or the bad value.
Status ExportView(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                  const std::string& path, const ExportRequestOptions& options);

}  // namespace pe
