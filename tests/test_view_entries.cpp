// Every view's registry entry holds every piece a view needs: its title, its memory estimate,
// the windows its figure reads and the options only it reads. A view whose figure changes with a
// window its entry does not list would export a file whose metadata cannot draw it again.
#include <gtest/gtest.h>

#include <string>

#include "model/param_fields.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

// Parameters of the first scheme `view` applies to, small enough to build every figure quickly.
ModelParams ParamsFor(ViewKind view) {
  ModelParams m;
  for (Scheme s : kAllSchemeKinds) {
    SetScheme(m, s);
    if (ViewApplies(view, m.pe)) break;
  }
  m.pe.d_model = 16;
  m.pe.max_len = 64;
  return m;
}

// What a window can change in a figure: what it shows, and its image.
bool SamePicture(const Figure& a, const Figure& b) {
  if (!(a.view == b.view) || a.image.has_value() != b.image.has_value() ||
      a.panels.size() != b.panels.size()) {
    return false;
  }
  if (a.image && (a.image->width != b.image->width || a.image->height != b.image->height ||
                  a.image->rgba != b.image->rgba)) {
    return false;
  }
  for (size_t k = 0; k < a.panels.size(); ++k) {
    if (!SamePicture(a.panels[k], b.panels[k])) return false;
  }
  return true;
}

TEST(ViewEntries, EveryViewKindHasAnEntryWithItsPieces) {
  for (int k = 0; k < kViewKinds; ++k) {
    const auto kind = static_cast<ViewKind>(k);
    const ViewEntry& v = GetView(kind);
    ASSERT_EQ(v.kind, kind) << "ViewKind " << k << " has no entry in the registry";
    SCOPED_TRACE(std::string(v.name));
    EXPECT_FALSE(v.title.empty());
    EXPECT_EQ(ParseView(v.name), kind);
    ASSERT_NE(v.figure, nullptr);
    ASSERT_NE(v.check_table, nullptr);
    ASSERT_NE(v.write_table, nullptr);
    ASSERT_NE(v.estimate, nullptr);
    const ModelParams m = ParamsFor(kind);
    EXPECT_GT(v.estimate({m, DefaultViews(m), 960, 540}), 0u);
  }
}

// A window whose change changes the figure is one of the entry's windows, and each of the
// entry's windows is recorded in the figure's metadata when it is not the default.
TEST(ViewEntries, WindowsAFigureReadsAreTheEntrysWindows) {
  const ViewWindowKey keys[] = {ViewWindowKey::kHeatmap, ViewWindowKey::kCurves,
                                ViewWindowKey::kSums, ViewWindowKey::kScore};
  for (const ViewEntry& v : Views()) {
    SCOPED_TRACE(std::string(v.name));
    const ModelParams m = ParamsFor(v.kind);
    ViewSelection defaults = DefaultViews(m);
    defaults.walkthrough_step = 0;  // a PNG or SVG of the walkthrough shows one step
    FigureSize size;
    size.width = 320;
    size.height = 200;
    Result<Figure> base = BuildViewFigure(v.kind, m, defaults, size, FigureFormat::kSvg);
    ASSERT_TRUE(base.ok()) << base.message();
    const std::vector<ViewWindowKey> listed = ViewWindowKeys(v.kind);
    for (ViewWindowKey k : keys) {
      SCOPED_TRACE(std::string(WindowKeyName(k)));
      ViewSelection sel = defaults;
      ViewRange& w = WindowOf(sel, k);
      if (!(w.x1 > w.x0) || !(w.y1 > w.y0)) {
        w = {0, static_cast<double>(m.pe.max_len), 0, static_cast<double>(m.pe.max_len)};
      }
      // Its second quarter on each axis.
      w = {w.x0 + (w.x1 - w.x0) / 4, w.x0 + (w.x1 - w.x0) / 2, w.y0 + (w.y1 - w.y0) / 4,
           w.y0 + (w.y1 - w.y0) / 2};
      Result<Figure> moved = BuildViewFigure(v.kind, m, sel, size, FigureFormat::kSvg);
      ASSERT_TRUE(moved.ok()) << moved.message();
      const bool is_listed = std::find(listed.begin(), listed.end(), k) != listed.end();
      if (!SamePicture(base.value(), moved.value())) {
        EXPECT_TRUE(is_listed) << "the figure reads this window but its entry does not list it";
      }
      bool recorded = false;
      for (const auto& [key, value] : moved.value().metadata) {
        recorded = recorded || key == WindowKeyName(k);
      }
      EXPECT_EQ(recorded, is_listed);
    }
  }
}

// Keys only some views read: the entries' lists, and nothing else.
TEST(ViewEntries, KeysOnlySomeViewsReadNameThoseViews) {
  EXPECT_TRUE(OnlyOtherViewsRead("versus", "heatmap"));
  EXPECT_FALSE(OnlyOtherViewsRead("versus", "compare"));
  EXPECT_TRUE(OnlyOtherViewsRead("dims", "heatmap"));
  EXPECT_FALSE(OnlyOtherViewsRead("dims", "curves"));
  EXPECT_TRUE(OnlyOtherViewsRead("measure", "score"));
  EXPECT_FALSE(OnlyOtherViewsRead("measure", "similarity-offset"));
  EXPECT_FALSE(OnlyOtherViewsRead("dtype", "check"));
  EXPECT_TRUE(OnlyOtherViewsRead("compare", "heatmap"));
  EXPECT_FALSE(OnlyOtherViewsRead("d_model", "heatmap"));
  EXPECT_FALSE(OnlyOtherViewsRead("colormap", "curves"));
  EXPECT_FALSE(OnlyOtherViewsRead("walkthrough_preset", "heatmap"));
  EXPECT_EQ(ViewsReading("dtype"), (std::vector<std::string_view>{"precision", "check"}));
}

// ParamsViewReads resets what only other views read and keeps the view's own options.
TEST(ViewEntries, ParamsViewReadsKeepsOnlyTheViewsOwnOptions) {
  ModelParams m;
  m.query = 7;
  m.measure = SimilarityMeasure::kCosine;
  m.walkthrough_preset = "jax-pitfall";
  const ModelParams defaults;
  EXPECT_EQ(ParamsViewReads(m, ViewKind::kAttention).query, 7);
  EXPECT_EQ(ParamsViewReads(m, ViewKind::kHeatmap).query, defaults.query);
  EXPECT_EQ(ParamsViewReads(m, ViewKind::kSimilarityOffset).measure, SimilarityMeasure::kCosine);
  EXPECT_EQ(ParamsViewReads(m, ViewKind::kScore).measure, defaults.measure);
  EXPECT_EQ(ParamsViewReads(m, ViewKind::kWalkthrough).walkthrough_preset, "jax-pitfall");
  EXPECT_EQ(ParamsViewReads(m, ViewKind::kCurves).walkthrough_preset, "");
}

}  // namespace
}  // namespace pe
