// Every view's registry entry holds every piece a view needs: its title, its memory estimate,
// the windows its figure reads and the options only it reads. A view whose figure changes with a
// window its entry does not list would export a file whose metadata cannot draw it again.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "model/model_schedule.h"
#include "model/param_fields.h"
#include "session/export_selection.h"
#include "session/session.h"
#include "views/figure_budget.h"
#include "views/figure_command.h"
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
  // An image, so the views of a patch (mrope-neighbours) have one to show.
  if (m.pe.kind() == Scheme::kMrope) m.pe.mrope().images = {{4, 1, 4, 4}};
  if (view == ViewKind::kLayers) {
    // The layers view draws a model's schedule: two layers of these parameters.
    auto s = std::make_shared<ModelSchedule>();
    s->name = "two-layers";
    s->layers.resize(2);
    s->layers[0].pe = m.pe;
    s->layers[1].pe = m.pe;
    s->layers[1].window = {AttentionWindowKind::kSliding, 8};
    m.model = std::move(s);
    m.model_layer = 1;
  }
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
  const std::vector<ViewKind> keys = WindowOwners();
  EXPECT_EQ(keys, (std::vector<ViewKind>{ViewKind::kHeatmap, ViewKind::kCurves, ViewKind::kSums,
                                         ViewKind::kScore}));
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
    const std::vector<ViewKind> listed = ViewWindowKeys(v.kind);
    for (ViewKind k : keys) {
      SCOPED_TRACE(std::string(WindowKeyName(k)));
      ViewSelection sel = defaults;
      ViewRange& w = sel.windows[k];
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

// A view entry that declares a window of its own gets, from that declaration alone: a window in
// every ViewSelection, its default over the whole table, a key in session files (saved and read
// back), its --X-window flag (parsed into the selection, one of export's selection flags), and
// its metadata key read back as that flag.
TEST(ViewEntries, AWindowDeclaredInItsEntryIsSavedRestoredAndParsedFromItsFlag) {
  const ModelParams m = ParamsFor(ViewKind::kHeatmap);
  const ViewSelection defaults = DefaultViews(m);
  const std::vector<std::string> selection_flags = ExportSelectionFlags();
  for (ViewKind k : WindowOwners()) {
    const ViewEntry& v = GetView(k);
    SCOPED_TRACE(std::string(v.name));
    ASSERT_NE(v.window.whole, nullptr) << "a window needs the window over the whole table";
    // Its flag is its key with dashes: what scripts and figures already use.
    std::string flag = "--" + std::string(v.window.key);
    std::replace(flag.begin(), flag.end(), '_', '-');
    EXPECT_EQ(WindowFlag(k), flag);
    EXPECT_NE(std::find(selection_flags.begin(), selection_flags.end(), flag),
              selection_flags.end());
    // The window it opens on, and the one each of the other windows is left at.
    Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(defaults.windows[k], v.window.whole(m, *e.value()));

    // Saved under its key and read back, the other windows untouched.
    ViewSelection sel = defaults;
    const ViewRange moved = {1.25, 7.5, -3.0, 11.0};
    sel.windows[k] = moved;
    const KeyValues text = ViewSelectionText(sel);
    bool saved = false;
    for (const auto& [key, value] : text) {
      saved = saved || (key == v.window.key && value == WindowText(moved));
    }
    EXPECT_TRUE(saved);
    ViewSelection restored = defaults;
    ASSERT_TRUE(
        ApplyViewSelectionText({{std::string(v.window.key), WindowText(moved)}}, restored).ok());
    EXPECT_EQ(restored.windows[k], moved);
    for (ViewKind other : WindowOwners()) {
      if (other != k) {
        EXPECT_EQ(restored.windows[other], defaults.windows[other]);
      }
    }
    Status bad = ApplyViewSelectionText({{std::string(v.window.key), "1:2:3"}}, restored);
    EXPECT_NE(bad.message().find("views." + std::string(v.window.key) + " must be x0:x1:y0:y1"),
              std::string::npos)
        << bad.message();

    // Its flag, given to export, sets it.
    ModelParams pm = ParamsFor(k);
    ExportRequest request;
    request.view = std::string(v.name);
    request.output = "out.png";
    request.windows[k] = "1.25:7.5:-3:11";
    Result<ViewSelection> parsed = ExportSelection(pm, request, nullptr);
    ASSERT_TRUE(parsed.ok()) << parsed.message();
    EXPECT_EQ(parsed.value().windows[k], moved);
    request.windows[k] = "7.5:1.25:-3:11";
    parsed = ExportSelection(pm, request, nullptr);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.message().rfind(flag + " must be X0:X1:Y0:Y1", 0), 0u) << parsed.message();

    // Recorded in its figure's metadata and read back as its flag.
    FigureSize size;
    size.width = 320;
    size.height = 200;
    ViewSelection shown = DefaultViews(pm);
    shown.walkthrough_step = 0;
    shown.windows[k] = moved;
    const auto metadata = FigureMetadata(k, pm, shown, size, "", nullptr);
    Result<std::vector<CommandFlag>> flags = FlagsFromMetadata(metadata, PE_VERSION);
    ASSERT_TRUE(flags.ok()) << flags.message();
    bool read_back = false;
    for (const CommandFlag& f : flags.value()) {
      read_back = read_back || (f.flag == flag && f.value == WindowText(moved));
    }
    EXPECT_TRUE(read_back);
  }
}

// The registry's check refuses a window with a piece missing or wrong (the static_assert in
// view_registry.cpp fails the build on such an entry).
constexpr ViewKind kReadsHeatmap[] = {ViewKind::kHeatmap};
constexpr ViewKind kReadsCurves[] = {ViewKind::kCurves};
constexpr ViewEntry Entry(ViewKind kind, ViewWindowSpec window,
                          std::span<const ViewKind> reads = {}) {
  return {.kind = kind,
          .name = "v",
          .title = "t",
          .schemes = kAllSchemes,
          .needs = "",
          .figure = nullptr,
          .check_table = nullptr,
          .write_table = nullptr,
          .estimate = nullptr,
          .window = window,
          .windows = reads};
}
constexpr ViewWindowSpec kGood = {.key = "heatmap_window", .help = "heatmap (dims x positions)"};
constexpr ViewEntry kComplete[] = {Entry(ViewKind::kHeatmap, kGood),
                                   Entry(ViewKind::kPrecision, {}, kReadsHeatmap)};
static_assert(EveryWindowComplete(kComplete));
constexpr ViewEntry kNoHelp[] = {Entry(ViewKind::kHeatmap, {.key = "heatmap_window", .help = ""})};
static_assert(!EveryWindowComplete(kNoHelp), "a window needs its --help text");
constexpr ViewEntry kBadKey[] = {Entry(ViewKind::kHeatmap, {.key = "heatmap", .help = "h"})};
static_assert(!EveryWindowComplete(kBadKey), "a window's key ends in _window");
constexpr ViewEntry kTwice[] = {Entry(ViewKind::kHeatmap, kGood), Entry(ViewKind::kCurves, kGood)};
static_assert(!EveryWindowComplete(kTwice), "two windows under one key");
constexpr ViewEntry kHelpOnly[] = {Entry(ViewKind::kHeatmap, {.key = "", .help = "h"})};
static_assert(!EveryWindowComplete(kHelpOnly), "help for a window without a key");
constexpr ViewEntry kReadsNone[] = {Entry(ViewKind::kHeatmap, kGood),
                                    Entry(ViewKind::kPrecision, {}, kReadsCurves)};
static_assert(!EveryWindowComplete(kReadsNone), "reading a window no view owns");
constexpr ViewEntry kReadsOwn[] = {Entry(ViewKind::kHeatmap, kGood, kReadsHeatmap)};
static_assert(!EveryWindowComplete(kReadsOwn), "listing its own window among others'");

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
