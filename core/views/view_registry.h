// One registry of the views. An entry knows its `--view` name, its title, which schemes it
// applies to, how to build its figure and how to write its numbers. The CLI's --view choices,
// the export dialog, figure metadata and the tests that go over every view iterate it: a new
// view is one file in core/views/, one panel in app/panels/ and one line here.
#pragma once

#include <ostream>
#include <span>
#include <string_view>
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
  // A view whose PDF has several pages (the walkthrough's handout); null: one page, `figure`.
  Result<std::vector<Figure>> (*pdf_pages)(const ViewContext& c) = nullptr;
};

// `m` with the parameters that only other views read reset to their defaults: the curves' dims,
// the rotation offset, the similarity measure, the decay view's compared schemes, the attention
// view's query, the compare view's B, the precision and check views' format and table, the
// walkthrough's preset. Two parameter sets with equal ParamsViewReads give the same figure of
// `view`, so a window need not make it again (ticking a curve leaves the score view alone).
ModelParams ParamsViewReads(const ModelParams& m, ViewKind view);

std::span<const ViewEntry> Views();
const ViewEntry& GetView(ViewKind kind);
// An error naming the view and the scheme when `kind` does not apply to `params`.
Status CheckViewApplies(ViewKind kind, const EncodingParams& params);
bool ViewApplies(ViewKind kind, const EncodingParams& params);

}  // namespace pe
