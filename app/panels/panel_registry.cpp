#include <imgui.h>

#include "panels/check_panel.h"
#include "panels/panels.h"
#include "views/view_registry.h"

namespace pe {
namespace {

// The heatmap and curves of a bias table (ALiBi, T5: query by key) say so; a stored table
// (learned, or one read from a file) has columns, not waves.
const char* HeatmapTitle(const Derived& derived) {
  const bool bias = derived.encoding && derived.encoding->family() == Family::kBias;
  return bias ? "Bias[query m, key n] as a heatmap" : nullptr;
}
const char* CurvesTitle(const Derived& derived) {
  const bool bias = derived.encoding && derived.encoding->family() == Family::kBias;
  if (bias) return "Curves: bias of one key n against the query m";
  if (derived.encoding && derived.encoding->waves().empty()) {
    return "Curves: table columns by position";
  }
  return nullptr;
}

void DrawFigure(const PanelEntry& p, AppState& s, const Derived& d, UiCaches& c, UiServices& sv) {
  DrawFigurePanel(p, s, d, c.figure_panels[p.view], sv, c.drawn);
}

// A figure panel's texture slot: after the heatmap's (slot 0), one per view.
constexpr int FigureSlot(ViewKind view) {
  return 1 + static_cast<int>(view);
}

const PanelEntry kPanels[] = {
    {.view = ViewKind::kHeatmap,
     .id = "heatmap",
     .bottom_row = false,
     .shown = &PanelVisibility::heatmap,
     .texture_slot = 0,
     .draw = [](const PanelEntry&, AppState& s, const Derived& d, UiCaches& c,
                UiServices& sv) { DrawHeatmapPanel(s, d, c.heatmap, sv, c.drawn); },
     .title_for = &HeatmapTitle},
    {.view = ViewKind::kCurves,
     .id = "curves",
     .bottom_row = false,
     .shown = &PanelVisibility::curves,
     .texture_slot = -1,
     .draw = [](const PanelEntry&, AppState& s, const Derived& d, UiCaches& c,
                UiServices&) { DrawCurvesPanel(s, d, c.curves, c.drawn); },
     .title_for = &CurvesTitle},
    {.view = ViewKind::kSums,
     .id = "sums",
     .bottom_row = true,
     .shown = &PanelVisibility::sums,
     .texture_slot = -1,
     .draw = [](const PanelEntry&, AppState& s, const Derived& d, UiCaches& c,
                UiServices&) { DrawSumsPanel(s, d, c.drawn); },
     .scrollbar = true},
    {.view = ViewKind::kWalkthrough,
     .id = "walkthrough",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kWalkthrough),
     .draw = [](const PanelEntry&, AppState& s, const Derived& d, UiCaches& c,
                UiServices& sv) { DrawWalkthroughPanel(s, d, c.walkthrough, sv, c.drawn); }},
    {.view = ViewKind::kRotation,
     .id = "rotation",
     .bottom_row = true,
     .shown = &PanelVisibility::rotation,
     .texture_slot = FigureSlot(ViewKind::kRotation),
     .draw = &DrawFigure,
     .controls = &RotationControls},
    {.view = ViewKind::kFrequencies,
     .id = "frequencies",
     .bottom_row = true,
     .shown = &PanelVisibility::frequencies,
     .texture_slot = FigureSlot(ViewKind::kFrequencies),
     .draw = &DrawFigure},
    {.view = ViewKind::kBias,
     .id = "bias",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kBias),
     .draw = &DrawFigure},
    {.view = ViewKind::kBuckets,
     .id = "buckets",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kBuckets),
     .draw = &DrawFigure},
    {.view = ViewKind::kSlopes,
     .id = "slopes",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kSlopes),
     .draw = &DrawFigure},
    {.view = ViewKind::kScore,
     .id = "score",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kScore),
     .draw = &DrawFigure,
     .window = FigureWindow::kScore,
     .controls = &ScoreControls},
    {.view = ViewKind::kDecay,
     .id = "decay",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kDecay),
     .draw = &DrawFigure,
     .controls = &ScoreControls},
    {.view = ViewKind::kRoformerDecay,
     .id = "roformer-decay",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kRoformerDecay),
     .draw = &DrawFigure},
    {.view = ViewKind::kBaseBound,
     .id = "base-bound",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kBaseBound),
     .draw = &DrawFigure},
    {.view = ViewKind::kPiFit,
     .id = "pi-fit",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kPiFit),
     .draw = &DrawFigure},
    {.view = ViewKind::kAttention,
     .id = "attention",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kAttention),
     .draw = &DrawFigure,
     .controls = &AttentionControls},
    {.view = ViewKind::kCompare,
     .id = "compare",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = 64,  // A, B and A - B: three slots from here
     .draw = [](const PanelEntry&, AppState& s, const Derived& d, UiCaches& c,
                UiServices& sv) { DrawComparePanel(s, d, c.compare, sv, c.drawn); }},
    {.view = ViewKind::kSimilarity,
     .id = "similarity",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kSimilarity),
     .draw = &DrawFigure,
     .window = FigureWindow::kScore,
     .controls = &SimilarityControls},
    {.view = ViewKind::kSimilarityOffset,
     .id = "similarity-offset",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kSimilarityOffset),
     .draw = &DrawFigure,
     .controls = &SimilarityControls},
    {.view = ViewKind::kSpectrum,
     .id = "spectrum",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kSpectrum),
     .draw = &DrawFigure},
    {.view = ViewKind::kPrecision,
     .id = "precision",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kPrecision),
     .draw = &DrawFigure,
     .window = FigureWindow::kHeatmap,
     .controls = &PrecisionControls},
    {.view = ViewKind::kCheck,
     .id = "check",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kCheck),
     .draw = &DrawCheckPanel,
     .window = FigureWindow::kOwnTable},
    {.view = ViewKind::kProjection,
     .id = "projection",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kProjection),
     .draw = &DrawFigure},
    {.view = ViewKind::kPositionIds,
     .id = "position-ids",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kPositionIds),
     .draw = &DrawFigure},
    {.view = ViewKind::kMropeAxes,
     .id = "mrope-axes",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kMropeAxes),
     .draw = &DrawFigure},
    {.view = ViewKind::kMropeNeighbours,
     .id = "mrope-neighbours",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kMropeNeighbours),
     .draw = &DrawFigure,
     .controls = &MropeNeighboursControls},
    {.view = ViewKind::kLayers,
     .id = "layers",
     .bottom_row = true,
     .shown = &PanelVisibility::scheme_views,
     .texture_slot = FigureSlot(ViewKind::kLayers),
     .draw = &DrawFigure,
     .needs_model = true},
};
static_assert(std::size(kPanels) == kViewKinds, "every view needs a panel entry");

}  // namespace

std::span<const PanelEntry> ViewPanels() {
  return kPanels;
}

const char* PanelTitle(const PanelEntry& p, const Derived& derived, const ModelParams& params) {
  // The walkthrough panel names the walkthrough on show (the view's title, which export
  // titles start with, is the input walkthrough's).
  if (p.view == ViewKind::kWalkthrough && params.walkthrough == WalkthroughKind::kAttention) {
    return "Walkthrough: position in attention";
  }
  if (p.title_for != nullptr) {
    if (const char* t = p.title_for(derived)) return t;
  }
  if (p.title != nullptr) return p.title;
  // The view's title, which an export's default title starts with (a literal: NUL-terminated).
  return GetView(p.view).title.data();
}

}  // namespace pe
