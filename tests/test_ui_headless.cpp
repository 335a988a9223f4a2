// Panels driven for several frames without a GPU or window: ImGui with a built font atlas and
// nothing rendered. Input goes through io.MousePos / MouseDown / MouseWheel / KeysDown and
// AddInputCharactersUTF8 (ImGui 1.86), the way a user's clicks and keys arrive.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

#include "encoding/learned.h"
#include "figure/colormap.h"
#include "headless_ui.h"
#include "io/loaded_table.h"
#include "jobs/export_runner.h"
#include "jobs/table_load_job.h"
#include "model/param_fields.h"
#include "model/walkthrough_presets.h"
#include "panels/panels.h"
#include "test_support.h"
#include "text/subword_tokenizer.h"
#include "ui/app_state.h"
#include "ui/derived.h"
#include "ui/session.h"
#include "ui/shortcuts.h"
#include "ui/ui.h"

namespace pe {
namespace {

void OpenExportDialogForTest(AppState& state, const std::string& folder, const std::string& name) {
  state.export_dialog.open_requested = true;
  state.export_dialog.folder = folder;
  state.export_dialog.name = name;
  state.export_dialog.format = 2;
}

// The status bar's norm names a position the table has: position 1, or at max_len 1 the only
// one, 0 (|PE(0)| = sqrt(d/2): each cos 0 is 1), never "|PE(1)| = 0" for a row it lacks.
TEST(StatusNorm, NamesAPositionTheTableHas) {
  EncodingParams p;
  p.d_model = 8;
  p.max_len = 1;
  TableSummary s = SummarizeTable(*MakeEncoding(p).value(), 1 << 20);
  EXPECT_EQ(s.norm_position, 0);
  EXPECT_NEAR(s.norm_pe1, 2.0, 1e-12);
  p.max_len = 5;
  s = SummarizeTable(*MakeEncoding(p).value(), 1 << 20);
  EXPECT_EQ(s.norm_position, 1);
  EXPECT_NEAR(s.norm_pe1, 2.0, 1e-12);
}

TEST_F(HeadlessUi, DefaultStateDerivesTheExampleAndUploadsTheTable) {
  Frames(3);
  const Derived& d = caches_.derived.get();
  ASSERT_TRUE(d.pe_status.ok());
  EXPECT_EQ(d.columns.size(), 128u);
  EXPECT_NEAR(d.summary.norm_pe1, 8.0, 1e-12);  // sqrt(64 pairs)
  ASSERT_TRUE(d.sentence.ok());
  EXPECT_EQ(d.sentence.value().tokens.size(), 6u);
  // The default table fits the panel: one texel per cell, coloured by the RdBu LUT.
  const MemoryTextureStore::Image& img = textures_.image(0);
  ASSERT_EQ(img.w, 128);
  ASSERT_EQ(img.h, 100);
  const EncodingParams p;
  for (auto [pos, dim] :
       {std::pair{12, 8}, std::pair{0, 1}, std::pair{99, 127}, std::pair{50, 3}}) {
    const Rgba8 want = MapValue(ColormapId::kRdBu, WaveValue(DescribeColumn(p, dim), pos), -1, 1);
    const unsigned char* px = &img.rgba[(static_cast<size_t>(pos) * 128 + dim) * 4];
    EXPECT_EQ(Rgba8(px[0], px[1], px[2], px[3]), want) << pos << "," << dim;
  }
}

// The explanation's counts, made once per encoding: the paper layout has ceil(d/2)
// frequencies (w_i = base^(-2i/d)) and floor(d/2) cosines; every layout against a naive count
// over its columns (a linear search per column, as the panel once did every frame).
TEST(DerivedCounts, WaveColumnsAreCountedOncePerEncoding) {
  for (PeVariant variant : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
    for (int64_t d : {1, 7, 8, 8192}) {
      AppState state;
      state.params.pe.d_model = d;
      state.params.pe.sinusoidal().variant = variant;
      DerivedCache cache;
      const Derived& got = cache.Update(state);
      ASSERT_TRUE(got.pe_status.ok());
      std::vector<double> freqs;
      int64_t cos = 0, zeros = 0;
      for (const WaveColumn& c : got.columns) {
        if (c.wave == Wave::kZero) {
          ++zeros;
          continue;
        }
        if (c.wave == Wave::kCos) ++cos;
        if (std::find(freqs.begin(), freqs.end(), c.frequency) == freqs.end())
          freqs.push_back(c.frequency);
      }
      SCOPED_TRACE(std::to_string(d) + " " + std::string(VariantName(variant)));
      EXPECT_EQ(got.wave_frequencies, static_cast<int64_t>(freqs.size()));
      EXPECT_EQ(got.cos_columns, cos);
      EXPECT_EQ(got.zero_columns, zeros);
      if (variant == PeVariant::kPaper) {
        EXPECT_EQ(got.wave_frequencies, (d + 1) / 2);
        EXPECT_EQ(got.cos_columns, d / 2);
        EXPECT_EQ(got.zero_columns, 0);
      }
    }
  }
}

TEST_F(HeadlessUi, TypingDModelRebuildsTheTable) {
  Frames(2);
  ImGuiWindow* controls = nullptr;
  ImVec2 at;
  ASSERT_TRUE(FindControlsField("d_model", &controls, &at));
  Click(at);
  SelectAllAndType("64");
  EXPECT_EQ(state_.params.pe.d_model, 64);
  EXPECT_EQ(caches_.derived.get().columns.size(), 64u);
  EXPECT_EQ(textures_.image(0).w, 64);
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view.x1,
            64.0);  // the view was refitted to the new table
  // An invalid value is refused in place with the core's message; the table stays as it was.
  Click(at);
  SelectAllAndType("0");
  EXPECT_EQ(state_.params.pe.d_model, 64);
  EXPECT_TRUE(caches_.derived.get().pe_status.ok());
  EXPECT_EQ(state_.fields[Id(controls, "d_model")].error,
            "d_model must be an integer in [1, 65536], got \"0\"");
  EXPECT_EQ(textures_.image(0).w, 64);
  // The refused text stays in the field, as typed, with its reason, frames later.
  Frames(3);
  EXPECT_EQ(state_.fields[Id(controls, "d_model")].text, "0");
  EXPECT_EQ(state_.fields[Id(controls, "d_model")].error,
            "d_model must be an integer in [1, 65536], got \"0\"");
  EXPECT_EQ(state_.params.pe.d_model, 64);
  // Clicked into and left without an edit: the state's value is back, the reason gone.
  Click(at);
  Click(ImVec2(controls->Pos.x + controls->Size.x * 0.5f, controls->Pos.y + controls->Size.y - 4));
  Frames(2);
  EXPECT_EQ(state_.fields[Id(controls, "d_model")].text, "64");
  EXPECT_TRUE(state_.fields[Id(controls, "d_model")].error.empty());
  // Refused again, then Escape while typing: the state's value is back too.
  Click(at);
  SelectAllAndType("0");
  EXPECT_EQ(state_.fields[Id(controls, "d_model")].text, "0");
  Click(at);
  ImGui::GetIO().KeysDown[27] = true;
  Frame();
  ImGui::GetIO().KeysDown[27] = false;
  Frames(2);
  EXPECT_EQ(state_.fields[Id(controls, "d_model")].text, "64");
  EXPECT_TRUE(state_.fields[Id(controls, "d_model")].error.empty());
  // Typing there again clears the message; text that is not a decimal number is refused too,
  // with the range, as an out-of-range number is.
  Click(at);
  SelectAllAndType("6.5");
  EXPECT_EQ(state_.params.pe.d_model, 64);
  EXPECT_EQ(state_.fields[Id(controls, "d_model")].error,
            "d_model must be an integer in [1, 65536], got \"6.5\"");
  // Every typed character stays: "1e3" is refused as typed (a character filter once made it 13,
  // applied without a word), saying how it is written in digits, and so are letters.
  Click(at);
  SelectAllAndType("1e3");
  EXPECT_EQ(state_.params.pe.d_model, 64);
  EXPECT_EQ(state_.fields[Id(controls, "d_model")].error,
            "d_model must be an integer in [1, 65536], got \"1e3\"; in digits that is 1000");
  Click(at);
  SelectAllAndType("abc");
  EXPECT_EQ(state_.params.pe.d_model, 64);
  EXPECT_EQ(state_.fields[Id(controls, "d_model")].error,
            "d_model must be an integer in [1, 65536], got \"abc\"");
  // Leading zeros are decimal, never octal.
  Click(at);
  SelectAllAndType("064");
  EXPECT_EQ(state_.params.pe.d_model, 64);
  Click(at);
  SelectAllAndType("010");
  EXPECT_EQ(state_.params.pe.d_model, 10);
  Frames(3);
}

// A learned table over the memory cap is refused at the field that was typed, like any value
// the core refuses: the reason under max_len, every view on the last table that fit.
TEST_F(HeadlessUi, ALearnedTableOverTheMemoryCapIsRefusedAtItsField) {
  state_.params.pe.scheme = LearnedParams{};
  state_.params.pe.d_model = 48;
  state_.params.pe.max_len = 60;
  Frames(2);
  ImGuiWindow* controls = nullptr;
  ImVec2 at;
  ASSERT_TRUE(FindControlsField("max_len", &controls, &at));
  Click(at);
  SelectAllAndType("2000000000");  // 2e9 x 48 floats: 384 GB, over the 2 GiB cap
  EXPECT_EQ(state_.params.pe.max_len, 60);
  const std::string& error = state_.fields[Id(controls, "max_len")].error;
  EXPECT_NE(error.find("learned position table"), std::string::npos) << error;
  EXPECT_TRUE(caches_.derived.get().pe_status.ok());
  EXPECT_EQ(caches_.derived.get().encoding->rows(), 60);
  // One that fits is taken.
  Click(at);
  SelectAllAndType("1000");
  EXPECT_EQ(state_.params.pe.max_len, 1000);
}

// In the window's background mode a large learned table is drawn off the frame: until it is
// done the encoding is null and the status says what is being built (never the last table as
// the new one); then it is installed with the values LearnedValue gives. Parameters changed
// while a build runs win: a small table is installed at once and the build's result is dropped;
// another large one is built after it.
TEST(DerivedBackground, LargeLearnedTablesAreBuiltOffTheFrameAndTheNewestParametersWin) {
  DerivedCache cache(/*background=*/true);
  AppState state;
  // Until a build is taken: a stopped or dropped one is followed by the newest parameters'.
  auto settle = [&]() -> const Derived& {
    const Derived* got = &cache.Update(state);
    for (int i = 0; i < 3 && got->building; ++i) {
      cache.WaitForBuild();
      got = &cache.Update(state);
    }
    return *got;
  };
  state.params.pe.scheme = LearnedParams{};
  state.params.pe.d_model = 1024;
  state.params.pe.max_len = 1024;  // 2^20 values: the smallest built in the background
  state.params.pe.learned().seed = 5;
  const Derived* d = &cache.Update(state);
  EXPECT_TRUE(d->building);
  EXPECT_TRUE(cache.busy());
  EXPECT_EQ(d->encoding, nullptr);
  EXPECT_EQ(d->pe_status.message(), "building the 1024 x 1024 learned position table (4.0 MiB)");
  EXPECT_FALSE(d->sentence.ok());
  const int generation = d->generation;
  cache.WaitForBuild();
  d = &cache.Update(state);
  ASSERT_FALSE(d->building);
  EXPECT_FALSE(cache.busy());
  ASSERT_TRUE(d->pe_status.ok()) << d->pe_status.message();
  ASSERT_NE(d->encoding, nullptr);
  EXPECT_GT(d->generation, generation);
  EXPECT_TRUE(d->sentence.ok());
  for (auto [p, c] : {std::pair<int64_t, int64_t>{0, 0}, {1023, 1023}, {517, 3}}) {
    EXPECT_EQ(d->encoding->ValueAt(c, static_cast<double>(p)), LearnedValue(state.params.pe, p, c));
  }

  // One table less than 2^20 values is built in the frame.
  state.params.pe.max_len = 1023;
  d = &cache.Update(state);
  EXPECT_FALSE(d->building);
  ASSERT_NE(d->encoding, nullptr);
  EXPECT_EQ(d->encoding->rows(), 1023);

  // A large build, overtaken by a small table: the small one stays.
  state.params.pe.max_len = 2048;
  EXPECT_TRUE(cache.Update(state).building);
  state.params.pe.max_len = 10;
  d = &cache.Update(state);
  EXPECT_FALSE(d->building);
  EXPECT_EQ(d->encoding->rows(), 10);
  cache.WaitForBuild();
  d = &cache.Update(state);
  EXPECT_FALSE(cache.busy());
  ASSERT_NE(d->encoding, nullptr);
  EXPECT_EQ(d->encoding->rows(), 10);

  // A large build overtaken by another large one: the second is built when the first is done.
  state.params.pe.max_len = 2048;
  cache.Update(state);
  state.params.pe.max_len = 1536;
  state.params.pe.learned().seed = 6;
  d = &cache.Update(state);
  EXPECT_TRUE(d->building);
  d = &settle();
  ASSERT_FALSE(d->building);
  ASSERT_NE(d->encoding, nullptr);
  EXPECT_EQ(d->encoding->rows(), 1536);
  EXPECT_EQ(d->encoding->ValueAt(7, 1535.0), LearnedValue(state.params.pe, 1535, 7));

  // A build stopped because the parameters changed, which then come back to its own before it
  // is taken: its (stopped) result is not installed, the table is built again.
  state.params.pe.learned().seed = 7;
  EXPECT_TRUE(cache.Update(state).building);
  state.params.pe.max_len = 10;
  EXPECT_FALSE(cache.Update(state).building);
  state.params.pe.max_len = 1536;
  d = &cache.Update(state);
  EXPECT_TRUE(d->building);
  d = &settle();
  ASSERT_FALSE(d->building);
  ASSERT_TRUE(d->pe_status.ok()) << d->pe_status.message();
  EXPECT_EQ(d->encoding->ValueAt(9, 1000.0), LearnedValue(state.params.pe, 1000, 9));

  // Parameters the core refuses are refused in the frame, with the core's message.
  state.params.pe.d_model = 0;
  d = &cache.Update(state);
  EXPECT_FALSE(d->building);
  EXPECT_EQ(d->pe_status.message(), "d_model must be in [1, 65536], got 0");
}

// Every panel draws while a table is being built, and the heatmap shows the table once done.
TEST_F(HeadlessUi, PanelsDrawWhileATableIsBuiltAndShowItWhenDone) {
  caches_.derived.set_background(true);
  state_.params.pe.scheme = LearnedParams{};
  state_.params.pe.d_model = 512;
  state_.params.pe.max_len = 4096;
  for (int v = 0; v < kViewKinds; ++v) {
    state_.select_tab = static_cast<ViewKind>(v);
    Frames(2);
    ASSERT_TRUE(caches_.derived.get().building || !caches_.derived.busy());
  }
  caches_.derived.WaitForBuild();
  Frames(3);
  ASSERT_TRUE(caches_.derived.get().pe_status.ok());
  EXPECT_EQ(caches_.derived.get().encoding->rows(), 4096);
  // The view was fitted to the new table, and its picture (fewer texels than the panel has
  // pixels across: one per column or fewer) uploaded.
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view.x1, 512.0);
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view.y1, 4096.0);
  EXPECT_GT(textures_.image(0).w, 0);
  EXPECT_LE(textures_.image(0).w, 512);
}

// The compare view's B, a large learned table of its own (--versus seed=...), is built beside
// the frames like A; the panel says so until it is there, then draws with that very encoding.
TEST_F(HeadlessUi, ALargeLearnedBIsBuiltBesideTheFrames) {
  caches_.compare.versus.set_background(true);
  state_.params.pe.scheme = LearnedParams{};
  state_.params.pe.d_model = 1024;
  state_.params.pe.max_len = 1023;  // A, below 2^20 values: built in the frame
  state_.params.versus = "max_len=1024,seed=9";
  state_.select_tab = ViewKind::kCompare;
  Frames(2);
  EXPECT_TRUE(caches_.compare.versus.building());
  EXPECT_FALSE(caches_.compare.pair.has_value());
  EXPECT_FALSE(caches_.compare.figure.has_value() && caches_.compare.pair.has_value());
  caches_.compare.versus.WaitForBuild();
  Frames(2);
  ASSERT_FALSE(caches_.compare.versus.building());
  ASSERT_TRUE(caches_.compare.pair.has_value()) << caches_.compare.pair_error;
  const EncodingPtr& b = caches_.compare.versus.parts().encoding;
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(caches_.compare.pair->b_encoding, b) << "B was made again instead of reused";
  EXPECT_EQ(b->rows(), 1024);
  EXPECT_EQ(b->ValueAt(5, 1000.0), LearnedValue(caches_.compare.pair->b.pe, 1000, 5));
  ASSERT_TRUE(caches_.compare.figure.has_value()) << caches_.compare.error;
  // A change of A alone keeps B's table.
  state_.params.compare_of = CompareOf::kTable;
  Frames(2);
  EXPECT_FALSE(caches_.compare.versus.building());
  ASSERT_TRUE(caches_.compare.pair.has_value());
  EXPECT_EQ(caches_.compare.pair->b_encoding, b);
}

// A session restored on a large learned table keeps its saved views: the table is built beside
// the frames (not while restoring), and when it arrives the views are not refitted over the
// saved ones. A change of parameters before it arrives refits as usual.
TEST_F(HeadlessUi, ARestoredSessionKeepsItsViewsWhileItsTableIsBuilt) {
  caches_.derived.set_background(true);
  Frames(2);
  ModelParams params = state_.params;
  SetScheme(params, Scheme::kLearned);
  params.pe.d_model = 1024;
  params.pe.max_len = 2048;
  ViewSelection views = ViewsOf(state_);
  views.windows[ViewKind::kHeatmap] = {100, 300, 500, 900};
  std::vector<std::string> warnings;
  RestoreSession(state_, {params, views, {}}, warnings);
  Frames(2);
  EXPECT_TRUE(caches_.derived.get().building);
  caches_.derived.WaitForBuild();
  Frames(2);
  ASSERT_NE(caches_.derived.get().encoding, nullptr);
  EXPECT_EQ(caches_.derived.get().encoding->rows(), 2048);
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view, (ViewRange{100, 300, 500, 900}));
  // Restored again, then max_len changed before the table arrives: the new table is fitted.
  RestoreSession(state_, {params, views, {}}, warnings);
  state_.params.pe.max_len = 1536;
  Frames(2);
  caches_.derived.WaitForBuild();
  for (int i = 0; i < 3 && caches_.derived.get().building; ++i) {
    Frames(1);
    caches_.derived.WaitForBuild();
  }
  Frames(2);
  ASSERT_NE(caches_.derived.get().encoding, nullptr);
  EXPECT_EQ(caches_.derived.get().encoding->rows(), 1536);
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view, (ViewRange{0, 1024, 0, 1536}));
}

// A combo choice the core refuses (the learned table at d_model 8192 x max_len 1e9: 32 TB) is
// not taken, and the reason shows on the status line, in one line, until another choice clears
// it: every control stays where it was (lines of text under the scheme combo once moved them
// all, so the next click landed on another field).
TEST_F(HeadlessUi, ARefusedComboChoiceSaysWhyOnTheStatusLineAndMovesNoControl) {
  state_.params.pe.d_model = 8192;
  state_.params.pe.max_len = 1000000000;
  Frames(2);
  ImGuiWindow* controls = nullptr;
  ImVec2 at, max_len_before, max_len_after;
  ASSERT_TRUE(FindControlsField("max_len", &controls, &max_len_before));
  ASSERT_TRUE(FindControlsField("scheme", &controls, &at));
  const ImGuiID scheme = Id(controls, "scheme");
  // ImGui's Combo pushes each item's index as an ID before its Selectable.
  auto choose = [&](int index, const char* item) {
    Click(at);
    Frames(2);
    ImGuiWindow* popup = nullptr;
    for (ImGuiWindow* w : GImGui->Windows) {
      if (std::strncmp(w->Name, "##Combo_", 8) == 0 && w->Active) popup = w;
    }
    ASSERT_NE(popup, nullptr) << item;
    ImVec2 where;
    ASSERT_TRUE(Find(popup, IdUnderInt(popup, index, item), ImVec2(popup->Pos.x + 10, popup->Pos.y),
                     false, &where))
        << item;
    Click(where);
    Frames(3);
  };
  choose(1, "learned table (added)");
  EXPECT_EQ(state_.params.pe.kind(), Scheme::kSinusoidal);
  const std::string& error = state_.fields[scheme].error;
  EXPECT_NE(error.find("learned position table"), std::string::npos) << error;
  EXPECT_NE(error.find("1000000000"), std::string::npos) << error;
  EXPECT_TRUE(caches_.derived.get().pe_status.ok());
  EXPECT_EQ(state_.refusal_line, "scheme: " + error);
  ASSERT_TRUE(FindControlsField("max_len", &controls, &max_len_after));
  EXPECT_EQ(max_len_after.y, max_len_before.y);
  EXPECT_EQ(state_.refusal_line, "scheme: " + error);  // still there frames later
  // Another choice is taken and clears the reason.
  choose(2, "RoPE (rotates q, k)");
  EXPECT_EQ(state_.params.pe.kind(), Scheme::kRope);
  EXPECT_TRUE(state_.fields[scheme].error.empty());
  EXPECT_TRUE(state_.refusal_line.empty());
}

// A refusal worded by the parameter table for the command line names the window's control
// ("max_len", "versus"), not the flag ("--max-len", "--versus").
TEST_F(HeadlessUi, RefusalsNameTheWindowsControlsNotTheCommandLinesFlags) {
  Frames(2);
  ImGuiWindow* controls = nullptr;
  ImVec2 at;
  ASSERT_TRUE(FindControlsField("max_len", &controls, &at));
  Click(at);
  SelectAllAndType("1e3");
  EXPECT_EQ(state_.fields[Id(controls, "max_len")].error,
            "max_len must be an integer in [1, 2147483648], got \"1e3\"; in digits that is 1000");
  // The compare view's B with a key RoPE does not have.
  Edit(state_, [](AppState& s) { SetScheme(s.params, Scheme::kRope); });
  Frames(2);
  state_.select_tab = ViewKind::kCompare;
  Frames(3);
  ImGuiWindow* compare = Child("compare");
  ASSERT_NE(compare, nullptr);
  ASSERT_TRUE(Find(compare, Id(compare, "versus"), ImVec2(compare->Pos.x + 25, compare->Pos.y),
                   false, &at));
  Click(at);
  SelectAllAndType("base=500");
  EXPECT_EQ(state_.params.versus, "");
  const std::string& versus = state_.fields[Id(compare, "versus")].error;
  EXPECT_EQ(versus.rfind("versus: base=500 does not apply", 0), 0u) << versus;
  EXPECT_EQ(versus.find("--"), std::string::npos) << versus;
  // Flags become their controls' labels; the field typed into takes its own label; words that
  // are not flags of the table stay.
  EXPECT_EQ(InWindowTerms("--head must be in [0, 3], got 4 (--heads is 4)", "head"),
            "head must be in [0, 3], got 4 (heads is 4)");
  EXPECT_EQ(InWindowTerms("--d-model must be even", "head dim##rope", "--d-model"),
            "head dim must be even");
  EXPECT_EQ(InWindowTerms("--t5-buckets must be in [2, 1048576]; --width 10", "x"),
            "buckets must be in [2, 1048576]; --width 10");
}

// View > UI scale lists the steps Ctrl + and Ctrl - take and marks the one in use (Ctrl + once
// went to 1.1, which the menu did not list, and nothing was marked).
TEST_F(HeadlessUi, CtrlPlusAndMinusStepThroughTheUiScaleMenuWhichMarksTheCurrentScale) {
  Frames(2);
  auto chord = [&](int key) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = true;
    io.KeysDown[key] = true;
    Frame();
    io.KeysDown[key] = false;
    io.KeyCtrl = false;
    Frames(2);
  };
  auto check = [&](const char* when) {
    const std::vector<UiScaleItem> items = UiScaleMenuItems(state_.ui.scale);
    EXPECT_EQ(items.size(), UiScaleSteps().size()) << when << " " << state_.ui.scale;
    int marked = 0;
    for (const UiScaleItem& item : items) {
      if (!item.current) continue;
      ++marked;
      EXPECT_EQ(item.scale, state_.ui.scale) << when;
    }
    EXPECT_EQ(marked, 1) << when << " " << state_.ui.scale;
  };
  check("at the start");
  std::vector<float> up;
  for (int k = 0; k < 16; ++k) {
    chord(native_key::kEqual);
    check("after Ctrl +");
    if (up.empty() || up.back() != state_.ui.scale) up.push_back(state_.ui.scale);
  }
  EXPECT_EQ(state_.ui.scale, 3.0f);
  for (int k = 0; k < 16; ++k) {
    chord(native_key::kMinus);
    check("after Ctrl -");
  }
  EXPECT_EQ(state_.ui.scale, 0.5f);
  // Every step above 1 is in the menu, in order.
  std::vector<float> listed;
  for (float s : UiScaleSteps()) {
    if (s > 1.0f) listed.push_back(s);
  }
  EXPECT_EQ(up, listed);
  // A scale none of the steps is (--ui-scale 1.3) is listed in its place and marked.
  const std::vector<UiScaleItem> odd = UiScaleMenuItems(1.3f);
  ASSERT_EQ(odd.size(), UiScaleSteps().size() + 1);
  const auto it =
      std::find_if(odd.begin(), odd.end(), [](const UiScaleItem& i) { return i.current; });
  ASSERT_NE(it, odd.end());
  EXPECT_EQ(it->label, "1.3x");
  EXPECT_EQ((it - 1)->label, "1.25x");
  EXPECT_EQ((it + 1)->label, "1.5x");
}

// Token ids typed in the controls replace the text; a bad list is refused in place with the
// core's message (naming the id, its row and column, and V) and nothing of it is applied; an
// empty field goes back to the text.
TEST_F(HeadlessUi, TypingTokenIdsReplacesTheTextAndBadIdsAreRefusedInPlace) {
  Frames(2);
  ImGuiWindow* controls = Child("controls");
  ASSERT_NE(controls, nullptr);
  ImVec2 at;
  ASSERT_TRUE(Find(controls, Id(controls, "ids"), ImVec2(controls->Pos.x + 25, controls->Pos.y),
                   false, &at));
  Click(at);
  SelectAllAndType("23,37,3;97,61,19");
  EXPECT_EQ(state_.params.example.ids,
            (std::vector<std::vector<int64_t>>{{23, 37, 3}, {97, 61, 19}}));
  ASSERT_TRUE(caches_.derived.get().sentence.ok());
  EXPECT_EQ(caches_.derived.get().sentence.value().tokens[0].text, "id 23");
  EXPECT_EQ(caches_.derived.get().sentence.value().vocab_size, 98);
  // The second row of the batch, as the sums panel's row picker sets it.
  state_.selection.batch_row = 1;
  Frames(2);
  EXPECT_EQ(caches_.derived.get().sentence.value().ids, (std::vector<int64_t>{97, 61, 19}));
  state_.selection.batch_row = 5;  // kept inside the batch
  Frames(2);
  EXPECT_EQ(state_.selection.batch_row, 1);
  // Refused: rows of different lengths, then an id outside the vocabulary size typed below.
  Click(at);
  SelectAllAndType("1,2;3");
  EXPECT_EQ(state_.fields[Id(controls, "ids")].error,
            "ids: row 1 has 1 ids but row 0 has 2; every row of a batch must have the same "
            "length");
  EXPECT_EQ(state_.params.example.ids.size(), 2u);
  state_.params.example.vocab_size = 100;
  Click(at);
  SelectAllAndType("5,100");
  EXPECT_EQ(state_.fields[Id(controls, "ids")].error,
            "ids: id 100 at position 1 is outside [0, 100): the vocabulary size is 100");
  EXPECT_EQ(state_.params.example.ids[1], (std::vector<int64_t>{97, 61, 19}));
  // Empty: the text again.
  Click(at);
  ImGuiIO& io = ImGui::GetIO();
  io.KeyCtrl = true;
  io.KeysDown['A'] = true;
  Frame();
  io.KeysDown['A'] = false;
  io.KeyCtrl = false;
  io.KeysDown[8] = true;  // Backspace deletes the selection
  Frame();
  io.KeysDown[8] = false;
  io.KeysDown[13] = true;
  Frame();
  io.KeysDown[13] = false;
  Frames(2);
  EXPECT_TRUE(state_.params.example.ids.empty());
  EXPECT_EQ(caches_.derived.get().sentence.value().tokens[0].text, "The");
  Frames(3);
  // After a preset of typed ids, an emptied field goes back to the sentence's tokens too.
  for (const char* preset : {"embedding-ids", "embedding-batch"}) {
    ASSERT_TRUE(ApplyWalkthroughPreset(preset, state_.params).ok());
    Frames(2);
    ASSERT_FALSE(state_.params.example.ids.empty());
    Click(at);
    io.KeyCtrl = true;
    io.KeysDown['A'] = true;
    Frame();
    io.KeysDown['A'] = false;
    io.KeyCtrl = false;
    io.KeysDown[8] = true;
    Frame();
    io.KeysDown[8] = false;
    io.KeysDown[13] = true;
    Frame();
    io.KeysDown[13] = false;
    Frames(2);
    EXPECT_TRUE(state_.params.example.ids.empty()) << preset;
    ASSERT_TRUE(caches_.derived.get().sentence.ok()) << preset;
    ASSERT_FALSE(caches_.derived.get().sentence.value().tokens.empty()) << preset;
    EXPECT_EQ(caches_.derived.get().sentence.value().tokens[0].text, "The") << preset;
  }
}

TEST_F(HeadlessUi, TypingASentenceAndClickingATokenLinksTheViews) {
  Frames(2);
  ImGuiWindow* sums = Child("sums");
  ASSERT_NE(sums, nullptr);
  ImVec2 box, at;
  ASSERT_TRUE(Find(sums, Id(sums, "type the vectors yourself"),
                   ImVec2(sums->Pos.x + 12, sums->Pos.y), false, &box));
  ASSERT_TRUE(Find(sums, Id(sums, "##text"), ImVec2(box.x + 40, box.y), true, &at));
  Click(at);
  // The box takes several lines: Enter starts a new one, so the text is typed without it.
  ImGuiIO& io = ImGui::GetIO();
  io.KeyCtrl = true;
  io.KeysDown['A'] = true;
  Frame();
  io.KeysDown['A'] = false;
  io.KeyCtrl = false;
  Frame();
  io.AddInputCharactersUTF8("I love NLP.");
  Frames(3);
  ASSERT_EQ(state_.params.example.text, "I love NLP.");
  const SentenceResult& s = caches_.derived.get().sentence.value();
  ASSERT_EQ(s.tokens.size(), 4u);
  EXPECT_EQ(s.tokens[3].text, ".");
  EXPECT_EQ(s.ids, (std::vector<int64_t>{0, 1, 2, 3}));

  ImVec2 all;
  ASSERT_TRUE(
      Find(sums, IdUnderInt(sums, -1, "all tokens"), ImVec2(sums->Pos.x + 20, box.y), false, &all));
  ASSERT_TRUE(Find(sums, IdUnderInt(sums, 2, "NLP  id 2  pos 2"), ImVec2(all.x, all.y), true, &at));
  Click(at);
  Frame();  // the click is applied at the start of the next frame
  EXPECT_EQ(state_.selection.selected_token, 2);
  // Hovering the chip highlights its position in the other views next frame.
  ImGui::GetIO().MousePos = at;
  Frames(2);
  EXPECT_EQ(state_.selection.hover_position, 2);
  Click(all);
  Frame();
  EXPECT_EQ(state_.selection.selected_token, -1);
}

// A poem typed line by line (Enter between the lines) is one text: the char tokenizer makes the
// newline a token, its chip shows it as a mark.
TEST_F(HeadlessUi, TheTextBoxTakesSeveralLines) {
  Frames(2);
  ImGuiWindow* sums = Child("sums");
  ASSERT_NE(sums, nullptr);
  ImVec2 box, at;
  ASSERT_TRUE(Find(sums, Id(sums, "type the vectors yourself"),
                   ImVec2(sums->Pos.x + 12, sums->Pos.y), false, &box));
  ASSERT_TRUE(Find(sums, Id(sums, "##text"), ImVec2(box.x + 40, box.y), true, &at));
  Click(at);
  ImGuiIO& io = ImGui::GetIO();
  io.KeyCtrl = true;
  io.KeysDown['A'] = true;
  Frame();
  io.KeysDown['A'] = false;
  io.KeyCtrl = false;
  Frame();
  io.AddInputCharactersUTF8("ab");
  Frame();
  io.KeysDown[13] = true;
  Frame();
  io.KeysDown[13] = false;
  Frame();
  io.AddInputCharactersUTF8("cd");
  Frames(3);
  ASSERT_EQ(state_.params.example.text, "ab\ncd");
  state_.params.example.tokenizer = TokenizerKind::kChar;
  Frames(3);
  const SentenceResult& s = caches_.derived.get().sentence.value();
  ASSERT_EQ(s.tokens.size(), 5u);
  EXPECT_EQ(s.tokens[2].text, "\n");
  ImVec2 all;
  ASSERT_TRUE(
      Find(sums, IdUnderInt(sums, -1, "all tokens"), ImVec2(sums->Pos.x + 20, at.y), false, &all));
  EXPECT_TRUE(Find(sums, IdUnderInt(sums, 2, "\u21b5  id 2  pos 2"), all, true, &at));
}

// File > Open of a tokenizer.json (whatever its name) offers it as the text's tokenizer and
// nothing else; a GloVe file is said to be word vectors, without an NPY error first.
TEST_F(HeadlessUi, OpenKnowsATokenizerByItsContent) {
  const std::string dir = std::string(PE_TEST_DATA);
  state_.dropped_files.push_back(dir + "/llama3_small/tokenizer.json");
  Frames(3);
  EXPECT_TRUE(state_.open_table.tokenizer);
  EXPECT_NE(state_.open_table.note.find("tokenizer.json"), std::string::npos)
      << state_.open_table.note;
  ImGuiWindow* dialog = ImGui::FindWindowByName("Open a table");
  ASSERT_NE(dialog, nullptr);
  ImVec2 at;
  ASSERT_TRUE(Find(dialog, Id(dialog, "Use as tokenizer"),
                   ImVec2(dialog->Pos.x + 20, dialog->Pos.y), false, &at));
  EXPECT_FALSE(Find(dialog, Id(dialog, "token embeddings (--embeddings)"),
                    ImVec2(dialog->Pos.x + 20, dialog->Pos.y), false, &at));
  ASSERT_TRUE(Find(dialog, Id(dialog, "Use as tokenizer"),
                   ImVec2(dialog->Pos.x + 20, dialog->Pos.y), false, &at));
  Click(at);
  Frames(2);
  ASSERT_NE(state_.params.example.subword, nullptr) << state_.open_table.error;
  EXPECT_EQ(state_.params.example.tokenizer_file, dir + "/llama3_small/tokenizer.json");

  // GPT-2's vocab.json, opened as a file, loads its folder's pair.
  state_.dropped_files.push_back(dir + "/gpt2_small/vocab.json");
  Frames(3);
  EXPECT_TRUE(state_.open_table.tokenizer);
  dialog = ImGui::FindWindowByName("Open a table");
  ASSERT_TRUE(Find(dialog, Id(dialog, "Use as tokenizer"),
                   ImVec2(dialog->Pos.x + 20, dialog->Pos.y), false, &at));
  Click(at);
  Frames(2);
  EXPECT_EQ(state_.params.example.tokenizer_file, dir + "/gpt2_small/vocab.json")
      << state_.open_table.error;
  ASSERT_NE(state_.params.example.subword, nullptr);
  Result<std::vector<SubwordPiece>> hello = state_.params.example.subword->Encode("Hello world");
  ASSERT_TRUE(hello.ok());
  ASSERT_EQ(hello.value().size(), 2u);
  EXPECT_EQ(hello.value()[0].id, 15496);
  EXPECT_EQ(hello.value()[1].id, 995);

  const std::string glove = std::string(PE_TEST_TMP) + "/open_glove.txt";
  ASSERT_EQ(std::system(("mkdir -p " + std::string(PE_TEST_TMP)).c_str()), 0);
  {
    std::ofstream out(glove);
    out << "the 0.1 0.2 0.3\ncat 0.4 0.5 0.6\n";
  }
  state_.dropped_files.push_back(glove);
  Frames(3);
  EXPECT_FALSE(state_.open_table.tokenizer);
  EXPECT_EQ(state_.open_table.note.find("NPY"), std::string::npos) << state_.open_table.note;
  EXPECT_NE(state_.open_table.note.find("word vectors"), std::string::npos)
      << state_.open_table.note;
  std::remove(glove.c_str());
}

// The session's Save-as dialog says which folder a bare name goes to.
TEST(SessionSaveAs, TheFolderIsShown) {
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
  EXPECT_EQ(SessionFolder("session.pexs"), std::string(cwd));
  EXPECT_EQ(SessionFolder("/tmp/a.pexs"), "/tmp");
  EXPECT_EQ(SessionFolder("/no/such/folder/a.pexs"), "/no/such/folder (no such folder)");
}

TEST_F(HeadlessUi, TypedVectorSizesAreClampedAndTheSumFollowsTheirShape) {
  state_.sums.manual = true;
  Frames(2);
  ImGuiWindow* sums = Child("sums");
  ASSERT_NE(sums, nullptr);
  ImVec2 at;
  ASSERT_TRUE(Find(sums, Id(sums, "tokens"), ImVec2(sums->Pos.x + 20, sums->Pos.y), false, &at));
  // Ctrl+click turns the slider into a text field: a negative size is clamped, not a crash.
  ImGuiIO& io = ImGui::GetIO();
  io.KeyCtrl = true;
  Click(at);
  io.KeyCtrl = false;
  SelectAllAndType("-3");
  Frames(2);
  EXPECT_EQ(state_.manual.tokens, 1);
  EXPECT_EQ(state_.manual.embedding.size(), 3u);
  // One step up in both sizes: the sum on screen has the new shape, from the new values.
  state_.manual.tokens = 1;
  Edit(state_, [](AppState& s) {
    ManualVectors m = s.manual;
    m.tokens = 4;
    m.dims = 4;
    m.embedding.assign(16, 0.5f);
    m.positional.assign(16, 0.25f);
    m.labels.assign(4, "t");
    s.manual = m;
  });
  Frames(2);
  const DrawnRecord& drawn = caches_.drawn;
  ASSERT_NE(drawn.manual_sum, nullptr);
  EXPECT_EQ(drawn.manual_sum->rows, 4);
  EXPECT_EQ(drawn.manual_sum->cols, 4);
  EXPECT_EQ(drawn.manual_sum->at(3, 3), 0.75f);  // scaling is off for typed vectors
  // The blog example with its own switch off gives the blog's numbers, whatever the sentence
  // view's sqrt(d) setting is.
  state_.params.input.scale = true;
  state_.manual = ManualVectors();
  Frames(2);
  ASSERT_NE(drawn.manual_sum, nullptr);
  EXPECT_NEAR(drawn.manual_sum->at(0, 0), 0.11f, 1e-6f);
  EXPECT_NEAR(drawn.manual_sum->at(2, 1), 0.98f, 1e-6f);
  EXPECT_EQ(state_.manual.labels, (std::vector<std::string>{"I", "love", "NLP"}));
}

TEST_F(HeadlessUi, ASentenceLongerThanMaxLenShowsItsFirstMaxLenTokens) {
  state_.params.example.truncate = true;
  state_.params.pe.max_len = 3;
  state_.params.example.text = "a b c d e";
  Frames(3);
  ASSERT_TRUE(caches_.derived.get().sentence.ok());
  EXPECT_EQ(caches_.derived.get().sentence.value().tokens.size(), 3u);
  EXPECT_EQ(caches_.derived.get().sentence.value().dropped_tokens, 2);
  EXPECT_EQ(caches_.drawn.sum_rows.size(), 3u);
}

TEST_F(HeadlessUi, HoveringAHeatmapCellReportsItAndWheelZoomsAroundThePointer) {
  Frames(2);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = CellPixel(12, 8);
  Frame();
  EXPECT_EQ(state_.selection.next_hover_position, 12);
  EXPECT_EQ(state_.selection.next_hover_dim, 8);
  Frame();
  EXPECT_EQ(state_.selection.hover_position, 12);

  const PlotRange before = state_.windows[ViewKind::kHeatmap].view;
  io.MousePos = CellPixel(50, 64);
  io.MouseWheel = 1.0f;
  Frame();
  const PlotRange& after = state_.windows[ViewKind::kHeatmap].view;
  EXPECT_NEAR(after.x1 - after.x0, (before.x1 - before.x0) / 1.2, 1e-9);
  EXPECT_NEAR(after.y1 - after.y0, (before.y1 - before.y0) / 1.2, 1e-9);
  // The point under the pointer stays put.
  EXPECT_NEAR((64.5 - after.x0) / (after.x1 - after.x0),
              (64.5 - before.x0) / (before.x1 - before.x0), 1e-3);
  // Zoom in far: cells become a few pixels and then values; the raster is exact cells.
  for (int k = 0; k < 20; ++k) {
    io.MouseWheel = 1.0f;
    Frame();
  }
  EXPECT_LT(state_.windows[ViewKind::kHeatmap].view.x1 - state_.windows[ViewKind::kHeatmap].view.x0,
            10.0);
  EXPECT_TRUE(caches_.heatmap.raster->one_cell_per_texel());
  // Double-click fits the whole table again.
  io.MousePos = CellPixel(state_.windows[ViewKind::kHeatmap].view.y0 + 1,
                          state_.windows[ViewKind::kHeatmap].view.x0 + 1);
  Frame();
  for (int k = 0; k < 2; ++k) {
    io.MouseDown[0] = true;
    Frame();
    io.MouseDown[0] = false;
    Frame();
  }
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view, (PlotRange{0, 128, 0, 100}));
}

TEST_F(HeadlessUi, DraggingPansTheCurvesWithinTheTable) {
  Frames(2);
  state_.params.pe.max_len = 1000;
  Frames(2);
  ASSERT_EQ(state_.windows[ViewKind::kCurves].view.x1,
            999.0);  // the curves fit every position of the new table
  state_.windows[ViewKind::kCurves].view = {0, 100, -1.15, 1.15};  // as after zooming in
  Frame();
  const PlotRange before = state_.windows[ViewKind::kCurves].view;
  ASSERT_EQ(before.x0, 0.0);
  ASSERT_EQ(before.x1, 100.0);
  const CurvesCache& c = caches_.curves;
  ImGuiIO& io = ImGui::GetIO();
  // ImGui 1.86 floors the mouse position to whole pixels: drag by a whole number of them.
  const ImVec2 mid(std::floor((c.plot_min.x + c.plot_max.x) / 2),
                   std::floor((c.plot_min.y + c.plot_max.y) / 2));
  io.MousePos = mid;
  Frame();
  io.MouseDown[0] = true;
  Frame();
  const double width = c.plot_max.x - c.plot_min.x;
  const float drag = std::floor(static_cast<float>(width) / 2);
  io.MousePos = ImVec2(mid.x - drag, mid.y);  // drag left by about half the plot: ~+50 positions
  Frame();
  io.MouseDown[0] = false;
  Frame();
  const double shift = drag * 100.0 / width;
  EXPECT_GT(shift, 49.0);
  EXPECT_NEAR(state_.windows[ViewKind::kCurves].view.x0, shift, 1e-9);
  EXPECT_NEAR(state_.windows[ViewKind::kCurves].view.x1, 100.0 + shift, 1e-9);
  EXPECT_EQ(state_.windows[ViewKind::kCurves].view.y0, -1.15);  // y is locked
  // Samples follow the view: fractional positions across it, values from the formula.
  ASSERT_FALSE(c.traces.empty());
  const CurveTrace& t = c.traces[0];
  ASSERT_FALSE(t.xs.empty());
  EXPECT_NEAR(t.xs.front(), shift, 1e-9);
  const WaveColumn col = DescribeColumn(state_.params.pe, state_.params.curve_dims[0]);
  EXPECT_DOUBLE_EQ(t.ys[7], std::sin(t.xs[7] * col.frequency));
}

TEST_F(HeadlessUi, EveryPanelRunsOverManyStates) {
  auto run = [&](auto&& change) {
    change(state_);
    Frames(3);
  };
  run([](AppState& s) { s.params.pe.d_model = 7; });
  EXPECT_EQ(caches_.derived.get().columns.size(), 7u);
  run([](AppState& s) { s.params.pe.sinusoidal().variant = PeVariant::kT2t; });
  run([](AppState& s) { s.params.colormap = ColormapId::kViridis; });
  EXPECT_EQ(textures_.image(0).rgba[0],
            MapValue(ColormapId::kViridis, caches_.heatmap.raster->values[0], -1, 1).r);
  run([](AppState& s) { s.params.pe.sinusoidal().base = NAN; });
  EXPECT_FALSE(caches_.derived.get().pe_status.ok());
  run([](AppState& s) {
    s.params.pe.sinusoidal().base = 10000;
    s.params.example.text = "";
  });
  EXPECT_TRUE(caches_.derived.get().sentence.value().tokens.empty());
  run([](AppState& s) {
    s.params.example.text = "a b c d e f g h i j k l m n o p q r s t u v w x y z";
    s.params.pe.max_len = 5;
  });
  EXPECT_FALSE(caches_.derived.get().sentence.ok());
  run([](AppState& s) {
    s.params.pe.max_len = 100;
    s.selection.selected_token = -1;
  });
  run([](AppState& s) {
    s.params.input.train = true;
    s.params.input.dropout = 0.5;
  });
  run([](AppState& s) { s.params.example.tokenizer = TokenizerKind::kChar; });
  EXPECT_EQ(caches_.derived.get().sentence.value().tokens.size(), 51u);
  run([](AppState& s) {
    s.sums.manual = true;
    s.params.input.scale = false;
    s.params.input.train = false;
  });
  ASSERT_TRUE(caches_.derived.get().manual.ok());
  EXPECT_NEAR(caches_.derived.get().manual.value().sum.at(2, 1), 0.98f, 1e-6f);
  run([](AppState& s) {
    s.sums.manual = false;
    s.params.curve_dims.clear();
  });
  // Typed ids: a batch, each initialiser, an id outside V (the panels show the message), the
  // learned scheme with its own initialiser.
  run([](AppState& s) {
    s.params.example.ids = {{23, 37, 3, 45, 82}, {97, 61, 19, 73, 53}};
    s.selection.batch_row = 1;
    s.selection.selected_token = 2;
  });
  EXPECT_EQ(caches_.derived.get().sentence.value().ids[2], 19);
  for (EmbeddingInit init : kAllEmbeddingInits) {
    run([init](AppState& s) { s.params.example.init = init; });
    EXPECT_TRUE(caches_.derived.get().sentence.ok()) << EmbeddingInitName(init);
  }
  run([](AppState& s) { s.params.example.vocab_size = 50; });
  EXPECT_FALSE(caches_.derived.get().sentence.ok());
  run([](AppState& s) {
    SetScheme(s.params, Scheme::kLearned);
    s.params.pe.learned().init = EmbeddingInit::kTruncatedNormal;
    s.params.example.vocab_size = 0;
  });
  EXPECT_TRUE(caches_.derived.get().sentence.ok());
  run([](AppState& s) {
    SetScheme(s.params, Scheme::kSinusoidal);
    s.params.example.ids.clear();
    s.params.example.init = EmbeddingInit::kNormal1;
    s.selection.selected_token = -1;
  });
  run([](AppState& s) {
    s.params.pe.d_model = 8192;
    s.params.pe.max_len = 1'000'000'000;
    s.params.pe.offset = 5;
  });
  ASSERT_TRUE(caches_.heatmap.raster.has_value());
  EXPECT_FALSE(caches_.heatmap.raster->one_cell_per_texel());
  EXPECT_LE(caches_.heatmap.raster->height, 800);
  run([](AppState& s) {
    s.show.curves = false;
    s.show.controls = false;
  });
  run([](AppState& s) { s = AppState(); });
  EXPECT_EQ(caches_.derived.get().columns.size(), 128u);
}

TEST_F(HeadlessUi, BiasSchemesDrawAndFewerHeadsMoveTheShownHead) {
  AlibiParams a;
  a.heads = 12;
  a.head = 9;
  state_.params.pe.scheme = a;
  Frames(3);
  ASSERT_TRUE(caches_.derived.get().pe_status.ok());
  EXPECT_EQ(caches_.derived.get().encoding->family(), Family::kBias);
  ImGuiWindow* controls = Child("controls");
  ASSERT_NE(controls, nullptr);
  ImVec2 at;
  ASSERT_TRUE(Find(controls, Id(controls, "heads"), ImVec2(controls->Pos.x + 25, controls->Pos.y),
                   false, &at));
  // Fewer heads than the shown head + 1: the head moves to the last one in the same edit.
  Click(at);
  SelectAllAndType("4");
  EXPECT_EQ(state_.params.pe.alibi().heads, 4);
  EXPECT_EQ(state_.params.pe.alibi().head, 3);
  Click(at);
  SelectAllAndType("0");
  EXPECT_EQ(state_.params.pe.alibi().heads, 4);
  EXPECT_EQ(
      state_.fields[Id(controls, "heads")].error.rfind("heads must be an integer in [1, 4096]", 0),
      0u)
      << state_.fields[Id(controls, "heads")].error;
  // T5: a bucket count the formula cannot use is refused with the core's message.
  T5Params t;
  state_.params.pe.scheme = t;
  Frames(3);
  ASSERT_TRUE(caches_.derived.get().pe_status.ok());
  controls = Child("controls");
  ASSERT_TRUE(Find(controls, Id(controls, "buckets"), ImVec2(controls->Pos.x + 25, controls->Pos.y),
                   false, &at));
  Click(at);
  SelectAllAndType("31");
  EXPECT_EQ(state_.params.pe.t5().buckets, 32);
  EXPECT_NE(state_.fields[Id(controls, "buckets")].error.find("must be even"), std::string::npos)
      << state_.fields[Id(controls, "buckets")].error;
  Click(at);
  SelectAllAndType("64");
  EXPECT_EQ(state_.params.pe.t5().buckets, 64);
  // A million positions: the heatmap raster stays at screen resolution.
  state_.params.pe.max_len = 1'000'000;
  Frames(3);
  ASSERT_TRUE(caches_.heatmap.raster.has_value());
  EXPECT_LE(caches_.heatmap.raster->height, 800);
}

ImGuiWindow* WindowNamed(const char* name) {
  for (ImGuiWindow* w : GImGui->Windows) {
    if (std::strcmp(w->Name, name) == 0 && w->Active) return w;
  }
  return nullptr;
}

TEST_F(HeadlessUi, ExportFromTheWindowWritesWhatTheCliWrites) {
  char tmpl[] = "/tmp/pe-ui-export-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  Frames(2);
  ImGuiIO& io = ImGui::GetIO();
  for (const char* ext : {"svg", "png"}) {
    // Focus the heatmap with a click, then Ctrl+E opens the dialog for it.
    Click(CellPixel(50, 64));
    io.KeyCtrl = true;
    io.KeysDown['E'] = true;
    Frame();
    io.KeysDown['E'] = false;
    io.KeyCtrl = false;
    Frames(2);
    ImGuiWindow* dialog = WindowNamed("Export##dialog");
    ASSERT_NE(dialog, nullptr) << "Ctrl+E did not open the export dialog";
    EXPECT_EQ(state_.export_dialog.view, ViewKind::kHeatmap);
    EXPECT_EQ(state_.export_dialog.name, "pe-heatmap_paper_d128_L100.svg")
        << "a name that says what the file shows, in the last chosen format (SVG at first)";
    state_.export_dialog.folder = dir;
    state_.export_dialog.name = std::string("window.") + ext;
    state_.export_dialog.format = std::string(ext) == "svg" ? 1 : 0;
    Frame();
    ImVec2 save;
    ASSERT_TRUE(
        Find(dialog, Id(dialog, "Save"), ImVec2(dialog->Pos.x + 20, dialog->Pos.y), false, &save));
    Click(save);
    Frame();
    EXPECT_EQ(WindowNamed("Export##dialog"), nullptr) << "the dialog closes on Save";
    EXPECT_FALSE(state_.toast.error) << state_.toast.text;
    EXPECT_EQ(state_.toast.text, "Saved " + dir + "/window." + ext);
    // The CLI, for the same view (no token chosen in the window: no outline), writes the same
    // bytes.
    const std::string cli = dir + "/cli." + ext;
    ASSERT_EQ(
        std::system((std::string(PE_EXPLORER_EXE) + " export --view heatmap -o " + cli).c_str()),
        0);
    const std::string from_window = pe::testing::ReadFile(dir + "/window." + ext);
    ASSERT_FALSE(from_window.empty());
    EXPECT_TRUE(from_window == pe::testing::ReadFile(cli)) << ext << " files differ";
    if (std::getenv("PE_KEEP_EXPORTS"))
      std::system(("cp " + dir + "/window." + ext + " " + cli + " /tmp/").c_str());
  }
  // A failing export says why in the dialog, which stays open, and leaves no file.
  OpenExportDialogForTest(state_, dir + "/missing-folder", "x.pdf");
  Frames(2);
  ImGuiWindow* dialog = WindowNamed("Export##dialog");
  ASSERT_NE(dialog, nullptr);
  ImVec2 save;
  ASSERT_TRUE(
      Find(dialog, Id(dialog, "Save"), ImVec2(dialog->Pos.x + 20, dialog->Pos.y), false, &save));
  Click(save);
  Frame();
  EXPECT_NE(WindowNamed("Export##dialog"), nullptr);
  EXPECT_NE(state_.export_dialog.error.find("cannot write " + dir + "/missing-folder/x.pdf"),
            std::string::npos)
      << state_.export_dialog.error;
  std::system(("rm -rf " + dir).c_str());
}

TEST_F(HeadlessUi, AParameterChangeReachesTheScreenInTheNextFrame) {
  // The window's asynchronous worker, not the tests' synchronous one.
  RasterWorker background(/*synchronous=*/false);
  services_.rasters = &background;
  state_.params.pe.d_model = 1024;
  state_.params.pe.max_len = 8192;
  Frames(2);
  state_.params.pe.sinusoidal().base = 777.0;
  Frame();
  ASSERT_TRUE(caches_.heatmap.raster.has_value());
  EXPECT_EQ(caches_.heatmap.raster->request.encoding->params(), state_.params.pe);
  EXPECT_EQ(caches_.heatmap.raster->values, ComputeRaster(caches_.heatmap.raster->request).values);
  services_.rasters = &rasters_;
}

// A learned table's new seed changes its value range but not its shape: a zoomed heatmap stays
// where it is (as for a sinusoid's new base); the curves, whose axis is the values, refit.
TEST_F(HeadlessUi, ANewSeedKeepsTheHeatmapsZoom) {
  state_.params.pe.scheme = LearnedParams{};
  Frames(2);
  const PlotRange zoomed{10, 40, 20, 60};
  state_.windows[ViewKind::kHeatmap].view = zoomed;
  Frames(1);
  state_.params.pe.learned().seed = 7;
  Frames(2);
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view, zoomed);
  state_.params.pe.d_model = 64;  // a new shape refits
  Frames(2);
  EXPECT_NE(state_.windows[ViewKind::kHeatmap].view, zoomed);
}

TEST_F(HeadlessUi, DerivedDataIsRebuiltOnlyWhenItsInputsChange) {
  Frames(3);
  const int gen = caches_.derived.get().generation;
  const int uploads = textures_.uploads();
  Frames(10);
  EXPECT_EQ(caches_.derived.get().generation, gen);
  EXPECT_EQ(textures_.uploads(), uploads);  // same view, same colormap: no new texture
  state_.params.pe.sinusoidal().base = 500.0;
  Frames(1);
  EXPECT_EQ(caches_.derived.get().generation, gen + 1);
  EXPECT_EQ(textures_.uploads(), uploads + 1);
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

class ScorePanel : public HeadlessUi {
 protected:
  // Chooses the tab of `name` in the row of scheme views (as a click on it does).
  bool ChooseTab(const char* name) {
    ImGuiWindow* w = Child("scheme_views");
    if (!w) return false;
    ImGuiTabBar* bar = GImGui->TabBars.GetByKey(Id(w, "scheme_view_tabs"));
    if (!bar) return false;
    for (ImGuiTabItem& tab : bar->Tabs) {
      if (tab.NameOffset >= 0 && std::strcmp(bar->TabsNames.Buf.Data + tab.NameOffset, name) == 0) {
        bar->NextSelectedTabId = tab.ID;
        Frames(2);
        return true;
      }
    }
    return false;
  }
};

TEST_F(ScorePanel, TheScoreFigureFollowsThePannedWindowOfAHugeTable) {
  state_.params.pe.scheme = RopeParams{};
  state_.params.pe.max_len = 1'000'000'000;
  Frames(2);
  ASSERT_TRUE(ChooseTab("score"));
  FigurePanelCache& c = caches_.figure_panels[ViewKind::kScore];
  ASSERT_TRUE(c.figure.has_value()) << c.error;
  EXPECT_EQ(c.figure->view, (ViewRange{0, 1e9, 0, 1e9}));
  ASSERT_TRUE(c.figure->image.has_value());
  // Panned and zoomed far in: the next frame computes that window, one cell per texel.
  state_.windows[ViewKind::kScore].view = {999'999'950, 1e9, 999'999'950, 1e9};
  Frames(2);
  ASSERT_TRUE(c.figure.has_value()) << c.error;
  EXPECT_EQ(c.figure->view, (ViewRange{999'999'950, 1e9, 999'999'950, 1e9}));
  ASSERT_TRUE(c.figure->image.has_value());
  EXPECT_EQ(c.figure->image->width, 50);
  EXPECT_EQ(c.figure->image->x0, 999'999'950);
  // A new table shows the whole of it again.
  state_.params.pe.max_len = 500;
  Frames(2);
  EXPECT_EQ(c.figure->view, (ViewRange{0, 500, 0, 500}));
}

// The precision panel shows the heatmap's window: panning it moves the heatmap, and the
// heatmap's window is what it computes, a few rows of a table of 10^9 positions.
TEST_F(ScorePanel, ThePrecisionFigureSharesTheHeatmapWindow) {
  state_.params.pe.max_len = 1'000'000'000;
  Frames(2);
  ASSERT_TRUE(ChooseTab("precision"));
  FigurePanelCache& c = caches_.figure_panels[ViewKind::kPrecision];
  ASSERT_TRUE(c.figure.has_value()) << c.error;
  EXPECT_EQ(c.figure->view, (ViewRange{0, 128, 0, 1e9}));
  // Panned in the precision panel: the heatmap follows, and the figure is that window.
  c.view = {10, 20, 999'999'950, 1e9};
  Frames(2);
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view, (ViewRange{10, 20, 999'999'950, 1e9}));
  ASSERT_TRUE(c.figure.has_value()) << c.error;
  EXPECT_EQ(c.figure->view, (ViewRange{10, 20, 999'999'950, 1e9}));
  ASSERT_TRUE(c.figure->image.has_value());
  EXPECT_EQ(c.figure->image->width, 10);
  EXPECT_EQ(c.figure->image->height, 50);
  // The heatmap's window, around the first position bfloat16 cannot hold: marked.
  state_.windows[ViewKind::kHeatmap].view = {0, 8, 250, 270};
  Frames(2);
  EXPECT_EQ(c.figure->view, (ViewRange{0, 8, 250, 270}));
  ASSERT_EQ(c.figure->overlays.size(), 1u);
  EXPECT_EQ(c.figure->overlays[0].y0, 257.0);
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view, (ViewRange{0, 8, 250, 270}));
}

TEST_F(ScorePanel, FiguresComeFromTheWorkerAndAreNeverShownForOlderParameters) {
  // The score figure of a 1e9-position table is built off the frame. While a figure of new
  // parameters is on its way the panel says it is computing and shows no figure of the old ones
  // (a pan, same parameters, keeps the newest picture); once built, the figure on screen is the
  // one of the current parameters, the same as one built afresh from its request.
  FigureWorker figures(/*synchronous=*/false);
  services_.figures = &figures;
  state_.params.pe.scheme = RopeParams{};
  state_.params.pe.max_len = 1'000'000'000;
  Frames(2);
  ASSERT_TRUE(ChooseTab("score"));
  figures.WaitIdle();
  Frames(2);
  auto shown = [&]() -> const ModelParams* {
    for (const auto& [v, p] : caches_.drawn.figure_params) {
      if (v == ViewKind::kScore) return &p;
    }
    return nullptr;
  };
  auto computing = [&] {
    const auto& c = caches_.drawn.figures_computing;
    return std::find(c.begin(), c.end(), ViewKind::kScore) != c.end();
  };
  ASSERT_NE(shown(), nullptr);
  EXPECT_EQ(*shown(), state_.params);

  figures.Hold(true);
  // A pan: the same parameters, so the newest picture stays up while the window's is built.
  state_.windows[ViewKind::kScore].view = {250'000'000, 750'000'000, 250'000'000, 750'000'000};
  Frames(3);
  ASSERT_NE(shown(), nullptr);
  EXPECT_EQ(*shown(), state_.params);
  EXPECT_FALSE(computing());
  // New parameters: "computing", and never the figure of the old ones.
  state_.params.causal_mask = true;
  for (int k = 0; k < 3; ++k) {
    Frame();
    EXPECT_TRUE(computing());
    EXPECT_EQ(shown(), nullptr) << "a figure of older parameters is shown as current";
  }
  figures.Hold(false);
  figures.WaitIdle();
  Frames(2);
  EXPECT_FALSE(computing());
  ASSERT_NE(shown(), nullptr);
  EXPECT_EQ(*shown(), state_.params);
  const FigurePanelCache& c = caches_.figure_panels[ViewKind::kScore];
  ASSERT_TRUE(c.built && c.figure);
  EXPECT_EQ(c.built->sel.windows[ViewKind::kScore], state_.windows[ViewKind::kScore].view);
  const FigureResult fresh = BuildFigure(*c.built);
  ASSERT_TRUE(fresh.figure.has_value()) << fresh.error;
  ASSERT_EQ(fresh.figure->legend.size(), c.figure->legend.size());
  for (size_t i = 0; i < fresh.figure->legend.size(); ++i) {
    EXPECT_EQ(fresh.figure->legend[i].label, c.figure->legend[i].label);
  }
  ASSERT_TRUE(fresh.figure->image && c.figure->image);
  EXPECT_EQ(fresh.figure->image->rgba, c.figure->image->rgba);
  bool causal_note = false;
  for (const FigureLegendItem& it : c.figure->legend) {
    causal_note = causal_note || it.label.find("masked, causal") != std::string::npos;
  }
  EXPECT_TRUE(causal_note);
}

// A parameter only another view reads (the curves' dims) leaves the score view's figure as it
// is: no "computing", no new build; one the score view reads makes it again.
TEST_F(ScorePanel, ParametersOfOtherViewsDoNotRemakeTheFigure) {
  FigureWorker figures(/*synchronous=*/false);
  services_.figures = &figures;
  state_.params.pe.scheme = RopeParams{};
  Frames(2);
  ASSERT_TRUE(ChooseTab("score"));
  figures.WaitIdle();
  Frames(2);
  const FigurePanelCache& c = caches_.figure_panels[ViewKind::kScore];
  ASSERT_TRUE(c.built && c.figure);
  const Figure* before = &*c.figure;
  figures.Hold(true);
  state_.params.curve_dims = {0, 1, 2};
  state_.params.measure = SimilarityMeasure::kCosine;
  Frames(3);
  EXPECT_TRUE(caches_.drawn.figures_computing.empty());
  EXPECT_FALSE(figures.Busy(ViewKind::kScore));
  EXPECT_EQ(&*c.figure, before);
  state_.params.causal_mask = true;
  Frames(2);
  EXPECT_TRUE(figures.Busy(ViewKind::kScore));
  figures.Hold(false);
  figures.WaitIdle();
}

// A new d refits the sums view's dims while its tab is hidden, so a session saved meanwhile
// does not keep the old d's window.
TEST_F(ScorePanel, AHiddenSumsViewFollowsANewWidth) {
  Frames(2);
  ASSERT_TRUE(ChooseTab("score"));
  state_.params.pe.d_model = 4096;
  Frames(3);
  EXPECT_EQ(state_.windows[ViewKind::kSums].view.x0, -0.5);
  EXPECT_EQ(state_.windows[ViewKind::kSums].view.x1, 4095.5);
  EXPECT_EQ(ViewsOf(state_).windows[ViewKind::kSums].x1, 4095.5);
}

// A narrower table keeps the curves' columns that fit it; a wider one again brings back the rest
// of that choice, unless columns were chosen anew in between.
TEST_F(HeadlessUi, ANarrowerTableForAMomentKeepsTheCurvesColumns) {
  Frames(2);
  ASSERT_EQ(state_.params.curve_dims, (std::vector<int64_t>{4, 5, 6, 7}));
  state_.params.pe.d_model = 5;
  Frames(2);
  EXPECT_EQ(state_.params.curve_dims, (std::vector<int64_t>{4}));
  state_.params.pe.d_model = 6;
  Frames(2);
  EXPECT_EQ(state_.params.curve_dims, (std::vector<int64_t>{4, 5}));
  state_.params.pe.d_model = 128;
  Frames(2);
  EXPECT_EQ(state_.params.curve_dims, (std::vector<int64_t>{4, 5, 6, 7}));
  state_.params.pe.d_model = 5;
  Frames(2);
  state_.params.curve_dims = {0, 1};  // chosen anew at d 5
  Frames(2);
  state_.params.pe.d_model = 128;
  Frames(2);
  EXPECT_EQ(state_.params.curve_dims, (std::vector<int64_t>{0, 1}));
}

// A loaded table taller and narrower than the current one: the check view pans and zooms over
// the whole file in a window of its own, and the heatmap keeps the current table's window.
TEST_F(ScorePanel, TheCheckViewHasTheWholeFileAndLeavesTheHeatmapAlone) {
  const std::string path = ::testing::TempDir() + "check_panel_tall.npy";
  // Row 1500: past the current table's 100 rows.
  ASSERT_TRUE(pe::testing::WriteSinusoidNpyWithAWrongCell(path, 2000, 64, 1500, 10));
  Frames(2);
  const ViewRange heatmap = state_.windows[ViewKind::kHeatmap].view;  // d_model 128, max_len 100
  ASSERT_EQ(heatmap.x1 - heatmap.x0, 128);
  state_.params.check_table = path;
  ASSERT_TRUE(ChooseTab("check"));
  Frames(4);
  const FigurePanelCache& c = caches_.figure_panels[ViewKind::kCheck];
  ASSERT_TRUE(c.figure) << c.error;
  EXPECT_EQ(c.figure->view, (ViewRange{0, 64, 0, 2000}));
  EXPECT_EQ(state_.check_view.view, (ViewRange{0, 64, 0, 2000}));
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view, heatmap);
  // Zoomed onto the wrong cell: the figure and an export draw that window; the heatmap stays.
  state_.check_view.view = {0, 32, 1400, 1600};
  Frames(3);
  EXPECT_EQ(c.figure->view, (ViewRange{0, 32, 1400, 1600}));
  EXPECT_EQ(ViewsOf(state_, ViewKind::kCheck).windows[ViewKind::kHeatmap],
            (ViewRange{0, 32, 1400, 1600}));
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view, heatmap);
  std::remove(path.c_str());
}

// While the precision picture of a new window is made, the old one stays on screen and its plot
// says a new one is coming; when it is there, the note goes.
TEST_F(ScorePanel, APictureOfAnotherWindowSaysTheNewOneIsComing) {
  FigureWorker figures(/*synchronous=*/false);
  services_.figures = &figures;
  Frames(2);
  ASSERT_TRUE(ChooseTab("precision"));
  figures.WaitIdle();
  Frames(2);
  const FigurePanelCache& c = caches_.figure_panels[ViewKind::kPrecision];
  ASSERT_TRUE(c.figure);
  EXPECT_TRUE(caches_.drawn.figures_for_other_window.empty());
  figures.Hold(true);
  state_.windows[ViewKind::kHeatmap].view = {0, 64, 0, 50};
  Frames(2);
  EXPECT_TRUE(c.figure);
  EXPECT_EQ(caches_.drawn.figures_for_other_window, std::vector<ViewKind>{ViewKind::kPrecision});
  EXPECT_TRUE(caches_.drawn.figures_computing.empty());  // the parameters are the same
  figures.Hold(false);
  figures.WaitIdle();
  Frames(2);
  EXPECT_TRUE(caches_.drawn.figures_for_other_window.empty());
  EXPECT_EQ(c.figure->view.x1, 64);
}

// A long build of one view (a tab just left) does not hold up another's: once the other view has
// asked twice (two frames) while the first has not, the first is cancelled, publishes nothing,
// and is built again when it is asked for again.
TEST(FigureWorkerOrder, ALongBuildOfATabLeftIsCancelledForTheTabOnScreen) {
  std::atomic<int> score_cancelled{0};
  std::atomic<bool> score_started{false};
  FigureWorker figures(/*synchronous=*/false, [&](const FigureRequest& r) {
    if (r.view == ViewKind::kScore && score_cancelled == 0) {
      score_started = true;
      // Held until its job cancels it (no timing: the test ends only through the cancel).
      while (!IsCancelled(CurrentCancelToken())) std::this_thread::yield();
      ++score_cancelled;
      FigureResult out;
      out.request = r;
      out.error = "cancelled";
      return out;
    }
    return BuildFigure(r);
  });
  ModelParams p;
  p.pe.scheme = RopeParams{};
  const EncodingPtr e = MakeEncoding(p.pe).value();
  const FigureRequest score{ViewKind::kScore, p, e, ViewSelection{}, FigureSize{}};
  const FigureRequest decay{ViewKind::kDecay, p, e, ViewSelection{}, FigureSize{}};
  figures.Request(score);
  while (!score_started) std::this_thread::yield();
  std::optional<FigureResult> got;
  while (!got) {
    figures.Request(decay);  // the tab on screen asks every frame
    got = figures.Take(ViewKind::kDecay);
    if (!got) std::this_thread::yield();
  }
  EXPECT_TRUE(got->figure.has_value()) << got->error;
  figures.WaitIdle();
  EXPECT_EQ(score_cancelled.load(), 1);
  EXPECT_FALSE(figures.Busy(ViewKind::kScore));
  EXPECT_FALSE(figures.Take(ViewKind::kScore).has_value()) << "a cancelled build was published";
  // Back on its tab, the score view is built again.
  figures.Request(score);
  figures.WaitIdle();
  const std::optional<FigureResult> again = figures.Take(ViewKind::kScore);
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(again->figure.has_value()) << again->error;
}

// Requests waiting together are built newest first: the tab a person has just opened does not
// wait behind one they left.
TEST(FigureWorkerOrder, TheNewestRequestIsBuiltFirst) {
  FigureWorker figures(/*synchronous=*/false);
  figures.Hold(true);
  ModelParams m;
  m.pe.scheme = RopeParams{};
  const EncodingPtr e = MakeEncoding(m.pe).value();
  for (ViewKind v : {ViewKind::kScore, ViewKind::kSimilarity, ViewKind::kDecay}) {
    figures.Request({v, m, e, ViewSelection{}, FigureSize{}});
  }
  figures.Hold(false);
  figures.WaitIdle();
  EXPECT_EQ(figures.BuildOrder(),
            (std::vector<ViewKind>{ViewKind::kDecay, ViewKind::kSimilarity, ViewKind::kScore}));
}

// The compare panel's zoomed window is what its export draws (as the score view's is), and its
// notes start folded so the three plots get the panel.
TEST_F(ScorePanel, TheCompareExportDrawsThePanelsZoomedWindow) {
  state_.params.pe.scheme = RopeParams{};
  Frames(2);
  ASSERT_TRUE(ChooseTab("compare"));
  Frames(2);
  ASSERT_TRUE(caches_.compare.figure.has_value()) << caches_.compare.error;
  EXPECT_TRUE(state_.compare.fitted);
  EXPECT_EQ(state_.compare.view, (ViewRange{0, 100, 0, 100}));
  EXPECT_FALSE(state_.compare.notes_open);
  // The default B differs from A: the title names the base it compares with.
  EXPECT_NE(caches_.compare.figure->panels[1].title.find("rope_theta=500000"), std::string::npos)
      << caches_.compare.figure->panels[1].title;
  const PlotRange zoomed{20, 40, 60, 80};
  state_.compare.view = zoomed;
  Frames(2);
  EXPECT_EQ(caches_.compare.figure->view, zoomed);
  const ViewSelection sel = ViewsOf(state_, ViewKind::kCompare);
  EXPECT_EQ(sel.windows[ViewKind::kScore], zoomed);
  Result<Figure> exported = BuildViewFigure(ViewKind::kCompare, state_.params, sel,
                                            FigureSize{960, 540, 1}, FigureFormat::kPng);
  ASSERT_TRUE(exported.ok()) << exported.message();
  EXPECT_EQ(exported.value().view, zoomed);
  // Other views keep their own windows.
  EXPECT_EQ(ViewsOf(state_, ViewKind::kScore).windows[ViewKind::kScore],
            ViewsOf(state_).windows[ViewKind::kScore]);
  // Tables: the compare window replaces the heatmap's in the export.
  state_.params.compare_of = CompareOf::kTable;
  Frames(2);
  state_.compare.view = {8, 24, 10, 30};
  Frames(2);
  EXPECT_EQ(ViewsOf(state_, ViewKind::kCompare).windows[ViewKind::kHeatmap],
            (ViewRange{8, 24, 10, 30}));
  EXPECT_EQ(caches_.compare.figure->view, (ViewRange{8, 24, 10, 30}));
}

// Combos are as wide as their longest entry (within the panel), and a long tooltip wraps within
// the display instead of running off it.
TEST_F(HeadlessUi, CombosFitTheirEntriesAndTooltipsWrapOnScreen) {
  Frames(2);
  ImGuiWindow* controls = nullptr;
  ImVec2 at;
  ASSERT_TRUE(FindControlsField("scheme", &controls, &at));
  const ImGuiID scheme = Id(controls, "scheme");
  // The hovered extent of the combo's frame, from its left edge to its right.
  float left = at.x, right = at.x;
  ImGuiIO& io = ImGui::GetIO();
  for (float x = at.x; x > controls->Pos.x; x -= 1.0f) {
    io.MousePos = ImVec2(x, at.y);
    Frame();
    if (GImGui->HoveredId != scheme) break;
    left = x;
  }
  for (float x = at.x; x < controls->Pos.x + controls->Size.x; x += 1.0f) {
    io.MousePos = ImVec2(x, at.y);
    Frame();
    if (GImGui->HoveredId != scheme) break;
    right = x;
  }
  const ImGuiStyle& style = ImGui::GetStyle();
  float longest = 0;
  for (const char* item : {"sinusoidal (added)", "learned table (added)", "RoPE (rotates q, k)",
                           "xPos (rotates + decays)"}) {
    longest = std::max(longest, ImGui::CalcTextSize(item).x);
  }
  const float fit = longest + style.FramePadding.x * 2 + ImGui::GetFrameHeight();
  const float room =
      controls->WorkRect.GetWidth() - ImGui::CalcTextSize("scheme").x - style.ItemInnerSpacing.x;
  EXPECT_GE(right - left + 2.0f, std::min(fit, room)) << "fit " << fit << ", room " << room;
  EXPECT_LE(right - left, room + 1.0f);
  // Hovered, its long tooltip is wrapped: narrower than the display and than 30 em + padding.
  io.MousePos = at;
  Frames(2);
  ImGuiWindow* tip = nullptr;
  for (ImGuiWindow* w : GImGui->Windows) {
    if (std::strncmp(w->Name, "##Tooltip", 9) == 0 && w->Active) tip = w;
  }
  ASSERT_NE(tip, nullptr);
  EXPECT_LE(tip->Size.x, ImGui::GetFontSize() * 30 + style.WindowPadding.x * 2 + 2);
  EXPECT_GE(tip->Pos.x, 0.0f);
  EXPECT_LE(tip->Pos.x + tip->Size.x, io.DisplaySize.x);
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

// The worker counts, for each raster taken, the frames (Request calls) since it was asked for,
// and a background raster finishing after a newer one was computed in place does not replace it.
TEST(RasterWorkerFrames, CountsFramesUntilThePictureAndKeepsTheNewest) {
  EncodingParams big;
  big.d_model = 8192;
  big.max_len = 1'000'000'000;
  const EncodingPtr e = MakeEncoding(big).value();
  const RasterRequest slow{e, 0, 8192, 0, 1e9, 800, 500};  // work far above kInPlaceWork
  ASSERT_GT(EstimateRasterWork(slow), RasterWorker::kInPlaceWork);
  {
    RasterWorker worker(/*synchronous=*/false);
    worker.Request(slow);  // first request: new parameters, still too big: background
    worker.Request(slow);  // the same view again: a frame passes, nothing new asked
    worker.WaitIdle();
    worker.Request(slow);
    const std::optional<Raster> r = worker.Take();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->request, slow);
    EXPECT_EQ(worker.FramesUntilPicture(), std::vector<int64_t>({2}));
    // A small view is computed in place and shown in the frame that asks for it.
    const RasterRequest small{e, 0, 8, 0, 1e9, 8, 4};
    ASSERT_LE(EstimateRasterWork(small), RasterWorker::kInPlaceWork);
    worker.Request(small);
    ASSERT_TRUE(worker.Take().has_value());
    EXPECT_EQ(worker.FramesUntilPicture(), std::vector<int64_t>({2, 0}));
  }
  {
    // A slow view, then a small one in place while it computes: the small one is what is shown.
    RasterWorker worker(/*synchronous=*/false);
    worker.Request(slow);
    const RasterRequest small{e, 0, 8, 0, 1e9, 8, 4};
    worker.Request(small);
    worker.WaitIdle();
    const std::optional<Raster> r = worker.Take();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->request, small);
  }
}

}  // namespace
// A loaded table whose file is rewritten on disk (np.save truncates and writes it again) is
// not read again by itself: the views keep the table as it was read, and a note offers Reload
// and Keep.
TEST_F(HeadlessUi, ALoadedTableRewrittenOnDiskIsOfferedForReloading) {
  char tmpl[] = "/tmp/pe-ui-watch-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  const std::string path = dir + "/emb.npy";
  const int64_t d = state_.params.pe.d_model;
  ASSERT_TRUE(testing::WriteSinusoidNpyWithAWrongCell(path, 100, d, 3, 4));
  ASSERT_TRUE(FindParamField("--embeddings")->set(state_.params, path).ok());
  ASSERT_TRUE(LoadParamFiles(state_.params).ok());
  Frames(2);
  EXPECT_FALSE(state_.open_table.watched[0].changed);
  EXPECT_EQ(ImGui::FindWindowByName("Table changed on disk"), nullptr);
  // Rewritten with fewer rows: noticed at the next look (once a second).
  ASSERT_TRUE(testing::WriteSinusoidNpyWithAWrongCell(path, 50, d, 3, 4));
  state_.open_table.next_watch = 0;
  Frames(2);
  EXPECT_TRUE(state_.open_table.watched[0].changed);
  ImGuiWindow* note = ImGui::FindWindowByName("Table changed on disk");
  ASSERT_NE(note, nullptr);
  EXPECT_TRUE(note->Active);
  EXPECT_EQ(state_.params.example.embeddings.table->rows(), 100);  // the copy read, shown still
  ImVec2 at;
  // The buttons' row: the last line of the note.
  const float row_y =
      note->Pos.y + note->Size.y - ImGui::GetStyle().WindowPadding.y - ImGui::GetFrameHeight() / 2;
  ASSERT_TRUE(Find(note, Id(note, "Keep"), ImVec2(note->Pos.x + 2, row_y), true, &at));
  Click(at);
  EXPECT_FALSE(state_.open_table.watched[0].changed);
  state_.open_table.next_watch = 0;
  Frames(2);
  EXPECT_FALSE(state_.open_table.watched[0].changed);  // kept: quiet until it changes again
  // Changed again, and reloaded through the load job (off the UI thread): the new rows show.
  ASSERT_TRUE(testing::WriteSinusoidNpyWithAWrongCell(path, 70, d, 3, 4));
  TableLoadJob job(/*synchronous=*/false);
  services_.tables = &job;
  state_.open_table.next_watch = 0;
  Frames(2);
  ASSERT_TRUE(state_.open_table.watched[0].changed);
  note = ImGui::FindWindowByName("Table changed on disk");
  ASSERT_TRUE(Find(note, Id(note, "Reload"), ImVec2(note->Pos.x + 2, row_y), true, &at));
  Click(at);
  for (int k = 0; k < 500 && state_.params.example.embeddings.table->rows() != 70; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    Frame();
  }
  EXPECT_EQ(state_.params.example.embeddings.table->rows(), 70);
  EXPECT_FALSE(state_.open_table.watched[0].changed);
  services_.tables = nullptr;
  std::remove(path.c_str());
  state_.open_table.next_watch = 0;
  Frames(2);
  EXPECT_TRUE(state_.open_table.watched[0].changed);  // gone: said so, Reload disabled
  ::rmdir(dir.c_str());
}

}  // namespace pe
