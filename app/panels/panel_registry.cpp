#include <imgui.h>

#include "panels/panels.h"

namespace pe {
namespace {

const PanelEntry kPanels[] = {
    {ViewKind::kHeatmap, "heatmap", "Table[position, column] as a heatmap", false,
     [](AppState& s, const Derived& d, UiCaches& c, UiServices& sv) {
       DrawHeatmapPanel(s, d, c.heatmap, sv, c.drawn);
     }},
    {ViewKind::kCurves, "curves", "Curves: table columns as waves", false,
     [](AppState& s, const Derived& d, UiCaches& c, UiServices&) {
       DrawCurvesPanel(s, d, c.curves, c.drawn);
     }},
    {ViewKind::kSums, "sums",
     "Token sums: embedding \xc3\x97 \xe2\x88\x9a"
     "d + positional vector = model input",
     true,
     [](AppState& s, const Derived& d, UiCaches& c, UiServices&) { DrawSumsPanel(s, d, c.drawn); }},
    {ViewKind::kRotation, "rotation", "Rotation: a query turned by R_p, pair by pair", true,
     [](AppState& s, const Derived& d, UiCaches& c, UiServices&) {
       DrawFigurePanel(s, d, ViewKind::kRotation, c.figure_panels[ViewKind::kRotation], c.drawn);
     }},
    {ViewKind::kFrequencies, "frequencies", "Frequencies per pair: original vs scaled", true,
     [](AppState& s, const Derived& d, UiCaches& c, UiServices&) {
       DrawFigurePanel(s, d, ViewKind::kFrequencies, c.figure_panels[ViewKind::kFrequencies],
                       c.drawn);
     }},
};

}  // namespace

std::span<const PanelEntry> ViewPanels() { return kPanels; }

}  // namespace pe
