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
    {ViewKind::kWalkthrough, "walkthrough", "Walkthrough: from text to model input, step by step",
     true,
     [](AppState& s, const Derived& d, UiCaches& c, UiServices& sv) {
       DrawWalkthroughPanel(s, d, c.walkthrough, sv, c.drawn);
     }},
#define PE_FIGURE_PANEL(kind, id, title)                                                    \
  {                                                                                         \
    kind, id, title, true, [](AppState& s, const Derived& d, UiCaches& c, UiServices& sv) { \
      DrawFigurePanel(s, d, kind, c.figure_panels[kind], sv, c.drawn);                      \
    }                                                                                       \
  }
    PE_FIGURE_PANEL(ViewKind::kRotation, "rotation", "Rotation: pairs turned by R_p or R(K)"),
    PE_FIGURE_PANEL(ViewKind::kFrequencies, "frequencies",
                    "Frequencies per pair: original vs scaled"),
    PE_FIGURE_PANEL(ViewKind::kBias, "bias", "Attention bias: query by key"),
    PE_FIGURE_PANEL(ViewKind::kBuckets, "buckets", "T5 buckets"),
    PE_FIGURE_PANEL(ViewKind::kSlopes, "slopes", "ALiBi slopes per head"),
    PE_FIGURE_PANEL(ViewKind::kScore, "score", "Attention score q\xc2\xb7k: query by key"),
    PE_FIGURE_PANEL(ViewKind::kDecay, "decay", "Score against distance"),
    PE_FIGURE_PANEL(ViewKind::kRoformerDecay, "roformer-decay", "RoFormer's long-term decay"),
    PE_FIGURE_PANEL(ViewKind::kAttention, "attention", "Attention: softmax of one query's scores"),
    {ViewKind::kCompare, "compare", "Compare two configurations", true,
     [](AppState& s, const Derived& d, UiCaches& c, UiServices& sv) {
       DrawComparePanel(s, d, c.compare, sv, c.drawn);
     }},
    PE_FIGURE_PANEL(ViewKind::kSimilarity, "similarity", "Similarity PE(p)\xc2\xb7PE(q)"),
    PE_FIGURE_PANEL(ViewKind::kSimilarityOffset, "similarity-offset",
                    "Similarity against k = q - p"),
    PE_FIGURE_PANEL(ViewKind::kSpectrum, "spectrum", "Spectrum: frequency and wavelength per pair"),
    PE_FIGURE_PANEL(ViewKind::kPrecision, "precision", "Precision in bfloat16 / float16"),
    PE_FIGURE_PANEL(ViewKind::kCheck, "check", "Check a loaded table"),
    PE_FIGURE_PANEL(ViewKind::kProjection, "projection", "Projection (PCA) of the tokens"),
#undef PE_FIGURE_PANEL
};

}  // namespace

std::span<const PanelEntry> ViewPanels() {
  return kPanels;
}

}  // namespace pe
