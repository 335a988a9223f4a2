// One registry of the views. An entry knows its `--view` name, its title, which schemes it
// applies to, how to build its figure and how to write its numbers. The CLI's --view choices,
// the export dialog, figure metadata and the tests that go over every view iterate it: a new
// view is one file in core/views/, one panel in app/panels/ and one line here.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "encoding/encoding.h"
#include "figure/figure.h"
#include "figure/figure_render.h"
#include "model/model_params.h"
#include "views/view_kind.h"
#include "views/view_tables.h"

namespace pe {

struct ViewSelection;

// What a builder gets: the parameters, the encoding built from them, what the view shows.
struct ViewContext {
  const ModelParams& params;
  const EncodingPtr& encoding;  // never null
  const ViewSelection& sel;
  FigureSize size;
  FigureFormat format = FigureFormat::kPng;
  // The compare view's B encoding when the caller has made it (reused if made from exactly B's
  // parameters), or null: B is then made from the parameters.
  EncodingPtr versus = nullptr;
  // The plot areas' output pixels (one per panel, or one) measured on the finished figure, for
  // a build after one whose layout moved once its legend and title were in; empty: measure.
  std::vector<PixelSize> plot_pixels = {};
  // What PlotPixels / PanelPixels last answered.
  mutable std::vector<PixelSize> pixels_used = {};
};

// How many texels an image over `f`'s plot area (or each panel's) holds: plot_pixels when
// given, else PlotAreaPixels / PanelAreaPixels of `f` as built so far. Builders of rasters ask
// here, so BuildViewFigure can build again on the finished figure's grid.
PixelSize PlotPixels(const ViewContext& c, const Figure& f);
std::vector<PixelSize> PanelPixels(const ViewContext& c, const Figure& f);

// What a memory estimate gets: the figure's size in output pixels (its plot area is at most
// that), the parameters and what the view shows.
struct EstimateContext {
  const ModelParams& params;
  const ViewSelection& sel;
  uint64_t width_px = 1;
  uint64_t height_px = 1;
};

// An option of ModelParams that only some views read (the curves' dims, the similarity
// measure, ...): its field key, and how it goes back to its default for a view that does not
// read it (ParamsViewReads).
struct ViewOption {
  std::string_view key;
  void (*reset)(ModelParams& m, const ModelParams& defaults);
  // Still written into other views' metadata and copied commands: the walkthrough preset's
  // name, which also sets a zero table no flag can.
  bool other_views_record = false;
};
// The ViewOption of the member `Field` of ModelParams, under `key`.
template <auto Field>
constexpr ViewOption OptionOf(std::string_view key, bool other_views_record = false) {
  return {key, [](ModelParams& m, const ModelParams& d) { m.*Field = d.*Field; },
          other_views_record};
}

using MetadataList = std::vector<std::pair<std::string, std::string>>;

// What an axis of a view's window shows: what --positions and --dim-range narrow, and what a
// new table refits.
enum class WindowAxis {
  kPositions,  // positions, a cell per position: --positions A:B shows [A, B]
  kDimCells,   // dimensions, a cell per dimension: --dim-range A:B shows [A, B]
  kDimBars,    // dimensions, a bar centred on each: --dim-range A:B shows [A - 0.5, B - 0.5]
  kValues,     // the table's values: refitted when their range changes (a new seed)
  kFitted,     // fitted to the data by the view itself each frame; a new table leaves it
};

// The pan and zoom window a view owns (an empty `key`: none). ViewSelection holds it under the
// view's kind; its session and metadata key, its --X-window flag, what the window opens on and
// how --positions and --dim-range narrow it all come from here. Other views may read it (their
// entries' `windows`).
struct ViewWindowSpec {
  std::string_view key;   // "heatmap_window": the session and metadata key; the flag is
                          // "--heatmap-window" (WindowFlag)
  std::string_view help;  // for --help: "heatmap and precision (dims x positions)"
  WindowAxis x = WindowAxis::kPositions, y = WindowAxis::kPositions;
  // The window over the whole table, as the window opens on it and an export draws by default.
  ViewRange (*whole)(const ModelParams& m, const Encoding& e) = nullptr;
  // Empty (x1 <= x0) until the view fits it: the whole table (the score window, which a table
  // of 2^31 positions cannot be fitted to before it is built).
  bool empty_is_whole = false;
};

struct ViewEntry {
  ViewKind kind;
  std::string_view name;   // the --view key
  std::string_view title;  // the panel's title
  unsigned schemes;        // SchemeBit()s of the schemes it applies to
  std::string_view needs;  // what it needs, for the message when it does not apply
  Result<Figure> (*figure)(const ViewContext& c);
  // Checks that the table can be written (before any file is opened), then writes it.
  Status (*check_table)(const ViewContext& c);
  Status (*write_table)(std::ostream& out, TableFormat format, const ViewContext& c,
                        const Progress& progress);
  // The bytes its figure needs beyond the PNG surface, an upper bound from the figure's size and
  // content counts (views/figure_budget.h), written beside the builder whose geometry it counts.
  uint64_t (*estimate)(const EstimateContext& c);
  // Its own pan and zoom window, if it has one (its figure reads it, its metadata records it).
  ViewWindowSpec window = {};
  // The windows of other views its figure reads, by the view that owns each (their metadata
  // keys and --*-window flags); empty: none.
  std::span<const ViewKind> windows = {};
  // The options of ModelParams only it (and the views that list them too) reads.
  std::span<const ViewOption> options = {};
  // A view whose PDF has several pages (the walkthrough's handout); null: one page, `figure`.
  Result<std::vector<Figure>> (*pdf_pages)(const ViewContext& c) = nullptr;
  // The title a figure gets when none is given; null: `title` and the encoding's title.
  std::string (*default_title)(const ModelParams& m, const Encoding& e) = nullptr;
  // What else of the selection its metadata records, after the windows; null: nothing but the
  // walkthrough preset of a table that discards the positions (AddPresetMetadata), which a view
  // with its own entries adds where it belongs among them.
  void (*metadata)(const ModelParams& m, const ViewSelection& sel, MetadataList& out) = nullptr;
  // Whether write_table writes NPY; false: CSV only (the layers view's columns are names). The
  // export dialog offers only the formats the view writes.
  bool npy = true;
};

// The walkthrough preset when the parameters discard the positional table (its zero table is
// no flag): every view's metadata records it, so the copied command and `export --from` add
// the same zero table.
void AddPresetMetadata(const ModelParams& m, MetadataList& out);

// `m` with the parameters that only other views read reset to their defaults: the curves' dims,
// the rotation offset, the similarity measure, the decay view's compared schemes, the attention
// view's query, the compare view's B, the precision and check views' format and table, the
// walkthrough's preset. Two parameter sets with equal ParamsViewReads give the same figure of
// `view`, so a window need not make it again (ticking a curve leaves the score view alone).
ModelParams ParamsViewReads(const ModelParams& m, ViewKind view);
// The --view names of the views whose entries list the option `key` (a field key), in registry
// order; empty: every view reads it.
std::vector<std::string_view> ViewsReading(std::string_view key);
// True when `key` is an option some views read but not `view`. Such values can go stale as the
// other parameters change (a --versus typed for another scheme, a query past a shorter table)
// and do not change the figure, so other views' figures leave them out and do not read them
// back, and `export` refuses them for another view. A `view_name` that names no view reads no
// such option.
bool OnlyOtherViewsRead(std::string_view key, ViewKind view);
bool OnlyOtherViewsRead(std::string_view key, std::string_view view_name);

// True when every entry's window is complete: a window's key names it and its flag
// ("heatmap_window", --heatmap-window): unique, made of lower-case words joined by '_' and ending
// in "_window"; its help says who reads it; an entry without a window sets none of it. A window
// an entry reads (`windows`) is another view's own. view_registry.cpp holds the registry to it
// with a static_assert; its `whole` is checked by ViewEntries.* (a function's address compared
// with null is not a constant expression in the sanitizer build).
constexpr bool IsWindowKey(std::string_view key) {
  constexpr std::string_view kSuffix = "_window";
  if (key.size() <= kSuffix.size() || key.substr(key.size() - kSuffix.size()) != kSuffix) {
    return false;
  }
  for (char ch : key) {
    if (!((ch >= 'a' && ch <= 'z') || ch == '_')) return false;
  }
  return true;
}
constexpr bool EveryWindowComplete(std::span<const ViewEntry> views) {
  for (const ViewEntry& v : views) {
    if (v.window.key.empty()) {
      if (!v.window.help.empty() || v.window.empty_is_whole) return false;
      continue;
    }
    if (!IsWindowKey(v.window.key) || v.window.help.empty()) return false;
    for (const ViewEntry& other : views) {
      if (&other != &v && other.window.key == v.window.key) return false;
    }
  }
  for (const ViewEntry& v : views) {
    for (ViewKind owner : v.windows) {
      bool owned = false;
      for (const ViewEntry& o : views) owned = owned || (o.kind == owner && !o.window.key.empty());
      if (!owned || owner == v.kind) return false;
    }
  }
  return true;
}
std::span<const ViewEntry> Views();
const ViewEntry& GetView(ViewKind kind);
// An error naming the view and the scheme when `kind` does not apply to `params`.
Status CheckViewApplies(ViewKind kind, const EncodingParams& params);
bool ViewApplies(ViewKind kind, const EncodingParams& params);
// The same for the whole parameters: the attention walkthrough (--walkthrough attention)
// applies to every scheme, the input walkthrough to the schemes that add a vector.
Status CheckViewApplies(ViewKind kind, const ModelParams& params);
bool ViewApplies(ViewKind kind, const ModelParams& params);

}  // namespace pe
