// The walkthrough view: the steps of views/walkthrough.h as figures. A PDF is the handout, one
// page per step; a PNG or SVG holds one step (the window's current one), so `export --view
// walkthrough` to .png or .svg, which has no current step, is refused with a word on .pdf. Its
// table is the input layer's parts as the steps compute them (the sum table's shape).
#include <string>

#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/view_builders.h"
#include "views/walkthrough.h"

namespace pe {
namespace {

// The walkthrough --walkthrough names (input or attention).
Result<Walkthrough> Build(const ViewContext& c) {
  return BuildWalkthrough(c.params, c.encoding, c.sel.selected_token);
}

}  // namespace

Result<Figure> WalkthroughFigure(const ViewContext& c) {
  const int step = c.sel.walkthrough_step;
  const auto steps = static_cast<int>(WalkStepsOf(c.params.walkthrough).size());
  if (step < 0 || step >= steps) {
    return InvalidArgument(
        "the walkthrough is a handout of " + std::to_string(steps) +
        " pages, one per step: write it as .pdf (a .png or .svg holds one step, which the "
        "window's walkthrough panel exports)");
  }
  Result<Walkthrough> w = Build(c);
  if (!w.ok()) return w.error();
  return WalkPageFigure(w.value(), step, c.params.colormap);
}

Result<std::vector<Figure>> WalkthroughPages(const ViewContext& c) {
  Result<Walkthrough> w = Build(c);
  if (!w.ok()) return w.error();
  std::vector<Figure> pages;
  for (int k = 0; k < static_cast<int>(w.value().pages.size()); ++k) {
    pages.push_back(WalkPageFigure(w.value(), k, c.params.colormap));
  }
  return pages;
}

Status CheckWalkthroughTable(const ViewContext& c) {
  return Build(c).status();
}

Status WriteWalkthroughView(std::ostream& out, TableFormat format, const ViewContext& c,
                            const Progress& progress) {
  if (c.params.walkthrough == WalkthroughKind::kAttention) {
    return InvalidArgument(
        "the attention walkthrough has no table of its own: its numbers are the score view's "
        "(--view score, --view attention) and its pages a PDF (-o FILE.pdf)");
  }
  Result<Walkthrough> w = Build(c);
  if (!w.ok()) return w.error();
  SentenceResult s;
  for (const std::string& label : w.value().token_labels) s.tokens.push_back({label, 0, 0, {}});
  s.ids = w.value().ids;
  s.parts = w.value().parts;
  return WriteSumTable(out, format, s, c.params.pe, progress);
}

// Until its own estimate: an image at screen resolution and a few curves.
uint64_t WalkthroughEstimate(const EstimateContext& c) {
  const uint64_t w = EstimatedScreenTexels(c.width_px), h = EstimatedScreenTexels(c.height_px);
  return 3 * kFigureBytesPerTexel * w * h +
         kFigureBytesPerCurveSample * EstimatedCurveSamples(c.width_px) * 8;
}

// The preset (every walkthrough figure records it) and the step a PNG or SVG shows.
void WalkthroughMetadata(const ModelParams& m, const ViewSelection& sel, MetadataList& out) {
  if (!m.walkthrough_preset.empty()) out.push_back({"walkthrough_preset", m.walkthrough_preset});

  if (sel.walkthrough_step >= 0) {
    out.push_back({"walkthrough_step", std::to_string(sel.walkthrough_step)});
  }
}

}  // namespace pe
