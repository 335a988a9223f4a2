// Classroom settings, headless: every panel inside the window at several UI scales and window
// sizes, theme colours that read, the shortcut table against the key handling, cividis against
// matplotlib's table, the highlight against every colormap, glyph ranges built from the shown
// text, and the tab-separated text the copy menus put on the clipboard.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string>

#include "figure/colormap.h"
#include "figure/figure_render.h"
#include "headless_ui.h"
#include "io/tsv.h"
#include "panels/panels.h"
#include "ui/clipboard.h"
#include "ui/fonts.h"
#include "ui/session.h"
#include "ui/shortcuts.h"
#include "ui/ui.h"
#include "ui/ui_settings.h"
#include "views/walkthrough.h"

namespace pe {
namespace {

bool FileExists(const char* path) {
  FILE* f = std::fopen(path, "rb");
  if (f) std::fclose(f);
  return f != nullptr;
}

// ---- layout at UI scales and window sizes

class Classroom : public HeadlessUi {
 protected:
  // Fonts and style as the window builds them, at `scale`, for a `w` x `h` window.
  void Look(float scale, float w, float h) {
    state_.ui.scale = scale;
    ImGui::GetIO().DisplaySize = ImVec2(w, h);
    ASSERT_TRUE(ApplyLook(state_.ui, 1.0f, ShownText(state_), look_) || look_.has_value());
  }
  // Every window the frame drew (panels, tabs, menus, the overlay): its rectangle inside the
  // display, to the pixel.
  void ExpectEverythingInside(const char* what, int at_least = 5) {
    const ImVec2 size = ImGui::GetIO().DisplaySize;
    int checked = 0;
    for (ImGuiWindow* w : GImGui->Windows) {
      if (!w->WasActive || w->Hidden) continue;
      if (std::strncmp(w->Name, "##Tooltip", 9) == 0) continue;  // follows the pointer
      ++checked;
      EXPECT_GE(w->Pos.x, -0.5f) << what << ": " << w->Name;
      EXPECT_GE(w->Pos.y, -0.5f) << what << ": " << w->Name;
      EXPECT_LE(w->Pos.x + w->Size.x, size.x + 0.5f)
          << what << ": " << w->Name << " ends at x " << w->Pos.x + w->Size.x;
      EXPECT_LE(w->Pos.y + w->Size.y, size.y + 0.5f)
          << what << ": " << w->Name << " ends at y " << w->Pos.y + w->Size.y;
    }
    EXPECT_GE(checked, at_least) << what << ": the host, the controls and the view panels";
  }
  std::optional<AppliedLook> look_;
};

TEST_F(Classroom, EveryPanelStaysInsideTheWindowAtEachScaleAndSize) {
  struct Case {
    float scale, w, h;
  };
  for (const Case& c : {Case{0.75f, 1500, 950}, Case{1.0f, 1500, 950}, Case{2.0f, 1500, 950},
                        Case{0.75f, 1024, 640}, Case{1.0f, 1024, 640}, Case{2.0f, 1024, 640},
                        Case{3.0f, 1024, 640}}) {
    const std::string what = "scale " + std::to_string(c.scale) + " in " +
                             std::to_string(static_cast<int>(c.w)) + "x" +
                             std::to_string(static_cast<int>(c.h));
    Look(c.scale, c.w, c.h);
    Frames(4);
    // The font really is rebuilt at the scale's pixel size (15 px at 1x), not stretched.
    EXPECT_NEAR(ImGui::GetFontSize(), 15.0f * c.scale, 0.01f) << what;
    EXPECT_EQ(ImGui::GetIO().FontGlobalScale, 1.0f) << what;
    EXPECT_NEAR(ImGui::GetStyle().FramePadding.x, ImGuiStyle().FramePadding.x * c.scale, 0.01f)
        << what << ": the style is scaled once, from a fresh copy";
    ExpectEverythingInside(what.c_str());
  }
}

TEST_F(Classroom, SchemeWithTabsAndPresentationModeStayInside) {
  state_.params.pe.scheme = RopeParams{};
  for (float scale : {1.0f, 2.0f}) {
    Look(scale, 1024, 640);
    Frames(4);
    ExpectEverythingInside("rope");
    state_.ui.presentation = true;
    Look(scale, 1024, 640);
    Frames(3);
    // One view fills the window at 1.5 times the text size.
    EXPECT_NEAR(ImGui::GetFontSize(), 15.0f * scale * kPresentationScale, 0.01f);
    ImGuiWindow* controls = Child("controls");
    EXPECT_TRUE(controls == nullptr || !controls->WasActive)
        << "presentation mode hides the controls";
    ExpectEverythingInside("presentation", 2);
    state_.ui.presentation = false;
  }
}

// ---- theme colours

TEST(ClassroomTheme, PlotColoursReadOnTheirBackground) {
  for (UiTheme t : {UiTheme::kDark, UiTheme::kLight}) {
    const PlotColors c = ThemePlotColors(t);
    // WCAG 2.x: 4.5 for text, 3 for graphics (axes). Grid and crosshair are translucent on
    // purpose; their opaque colour must still be on the side of the text.
    EXPECT_GE(ContrastRatio(c.text, c.background), 7.0) << UiThemeName(t);
    EXPECT_GE(ContrastRatio(c.dim, c.background), 4.5) << UiThemeName(t);
    EXPECT_GE(ContrastRatio(c.frame, c.background), 3.0) << UiThemeName(t);
    EXPECT_GE(ContrastRatio(c.hover_line | IM_COL32_A_MASK, c.background), 4.5) << UiThemeName(t);
  }
  // The light theme is light: white panels, dark text (for projectors).
  const PlotColors light = ThemePlotColors(UiTheme::kLight);
  EXPECT_GE(ContrastRatio(light.background, IM_COL32(0, 0, 0, 255)), 19.0);
  EXPECT_LT(ContrastRatio(light.text, IM_COL32(0, 0, 0, 255)), 1.5);
  // WCAG's worked values: black on white 21, equal colours 1.
  EXPECT_NEAR(ContrastRatio(IM_COL32(0, 0, 0, 255), IM_COL32(255, 255, 255, 255)), 21.0, 1e-9);
  EXPECT_NEAR(ContrastRatio(IM_COL32(118, 118, 118, 255), IM_COL32(255, 255, 255, 255)), 4.54,
              0.01);
}

TEST_F(Classroom, LightThemeSetsTheStyleAndThePlotColours) {
  state_.ui.theme = UiTheme::kLight;
  Look(1.0f, 1280, 800);
  Frames(2);
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  EXPECT_GT(bg.x + bg.y + bg.z, 2.5f);
  const ImVec4 text = ImGui::GetStyle().Colors[ImGuiCol_Text];
  EXPECT_LT(text.x + text.y + text.z, 0.5f);
  EXPECT_EQ(CurrentPlotColors().text, ThemePlotColors(UiTheme::kLight).text);
  state_.ui.theme = UiTheme::kDark;
  Look(1.0f, 1280, 800);
  EXPECT_EQ(CurrentPlotColors().text, ThemePlotColors(UiTheme::kDark).text);
  EXPECT_EQ(UiThemeName(UiTheme::kLight), "light");
  EXPECT_EQ(ParseUiTheme("dark"), UiTheme::kDark);
  EXPECT_FALSE(ParseUiTheme("Light").has_value());
}

TEST(ClassroomScale, StepsClimbTheLadderAndStayInRange) {
  EXPECT_FLOAT_EQ(StepUiScale(1.0f, +1), 1.1f);
  EXPECT_FLOAT_EQ(StepUiScale(1.0f, -1), 0.9f);
  EXPECT_FLOAT_EQ(StepUiScale(1.3f, +1), 1.5f);  // off the ladder: the next step beyond
  EXPECT_FLOAT_EQ(StepUiScale(1.3f, -1), 1.25f);
  EXPECT_FLOAT_EQ(StepUiScale(kMaxUiScale, +1), kMaxUiScale);
  EXPECT_FLOAT_EQ(StepUiScale(kMinUiScale, -1), kMinUiScale);
  float s = kMinUiScale;
  int steps = 0;
  while (s < kMaxUiScale && steps < 100) {
    const float next = StepUiScale(s, +1);
    EXPECT_GT(next, s);
    s = next;
    ++steps;
  }
  EXPECT_EQ(steps, 12);
}

// ---- shortcuts: the table the overlay prints is the table the keys go through

// Presses `chord` for one frame, as the GLFW backend would report it.
class ClassroomKeys : public Classroom {
 protected:
  void SetUp() override {
    Classroom::SetUp();
    ImGuiIO& io = ImGui::GetIO();
    // Named keys through KeyMap, at codes clear of the native ones the table uses.
    io.KeyMap[ImGuiKey_LeftArrow] = 263;
    io.KeyMap[ImGuiKey_RightArrow] = 262;
    io.KeyMap[ImGuiKey_PageUp] = 266;
    io.KeyMap[ImGuiKey_PageDown] = 267;
    io.KeyMap[ImGuiKey_Escape] = 256;
  }
  void Press(const KeyChord& c) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = c.ctrl;
    io.KeyShift = c.shift == 1;
    int key = -1;
    if (c.character != 0) {
      io.AddInputCharacter(c.character);
    } else {
      key = c.named >= 0 ? io.KeyMap[c.named] : c.native;
      io.KeysDown[key] = true;
    }
    Frame();
    if (key >= 0) io.KeysDown[key] = false;
    io.KeyCtrl = false;
    io.KeyShift = false;
    Frames(2);  // the edit applies at the start of the next frame
  }
  // Whether a window (a dialog) titled `title` was drawn in the last frame.
  static bool Shown(const char* title) {
    for (ImGuiWindow* w : GImGui->Windows) {
      if (w->WasActive && std::strcmp(w->Name, title) == 0) return true;
    }
    return false;
  }
};

TEST_F(ClassroomKeys, EveryChordOfTheTableDoesWhatTheOverlaySays) {
  Frames(2);
  const size_t rows = Shortcuts().size();
  std::set<int> actions;
  for (const Shortcut& s : Shortcuts()) {
    actions.insert(static_cast<int>(s.action));
    for (const KeyChord& chord : s.chords) {
      if (chord == KeyChord{}) continue;
      SCOPED_TRACE(std::string(s.keys) + " (" + s.what + ")");
      // A known state before each key.
      state_.ui = UiSettings{};
      state_.ui.scale = 2.0f;
      state_.ui.presentation = s.presentation_only || s.action == ShortcutAction::kLeave;
      state_.ui.presentation_panel = 1;
      state_.export_dialog.open_requested = false;
      state_.session.path.clear();
      Frames(2);
      // Something to undo (and, for redo, undone).
      const int64_t d_before = state_.params.pe.d_model;
      if (s.action == ShortcutAction::kUndo || s.action == ShortcutAction::kRedo) {
        state_.params.pe.d_model = d_before + 2;
        Frames(2);
        if (s.action == ShortcutAction::kRedo) {
          Undo(state_);
          Frames(2);
          ASSERT_EQ(state_.params.pe.d_model, d_before);
        }
      }
      const UiSettings before = state_.ui;
      Press(chord);
      const UiSettings& now = state_.ui;
      switch (s.action) {
        case ShortcutAction::kScaleUp:
          EXPECT_FLOAT_EQ(now.scale, 2.5f);
          break;
        case ShortcutAction::kScaleDown:
          EXPECT_FLOAT_EQ(now.scale, 1.75f);
          break;
        case ShortcutAction::kScaleReset:
          EXPECT_FLOAT_EQ(now.scale, 1.0f);
          break;
        case ShortcutAction::kShortcuts:
          EXPECT_TRUE(now.shortcuts_open);
          EXPECT_EQ(caches_.drawn.shortcut_rows, static_cast<int>(rows))
              << "the overlay prints one row per entry of the table";
          break;
        case ShortcutAction::kPresentation:
          EXPECT_TRUE(now.presentation);
          break;
        case ShortcutAction::kNextPanel:
          EXPECT_EQ(now.presentation_panel, 2);
          break;
        case ShortcutAction::kPreviousPanel:
          EXPECT_EQ(now.presentation_panel, 0);
          break;
        case ShortcutAction::kLeave:
          EXPECT_FALSE(now.presentation);
          break;
        case ShortcutAction::kUndo:
          EXPECT_EQ(state_.params.pe.d_model, d_before) << "the change is undone";
          break;
        case ShortcutAction::kRedo:
          EXPECT_EQ(state_.params.pe.d_model, d_before + 2) << "the undone change is back";
          state_.params.pe.d_model = d_before;
          break;
        case ShortcutAction::kSaveSession:  // no file yet: it asks where
        case ShortcutAction::kSaveSessionAs:
          EXPECT_TRUE(Shown("Save the session as"));
          break;
        case ShortcutAction::kOpenSession:
          EXPECT_TRUE(Shown("Open a session or figure"));
          break;
        case ShortcutAction::kOpenTable:
          EXPECT_TRUE(state_.open_table.open_requested ||
                      ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId))
              << "Ctrl T opens the table dialog";
          state_.open_table.open_requested = false;
          break;
        case ShortcutAction::kExport:
          EXPECT_TRUE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId) ||
                      state_.export_dialog.open_requested)
              << "Ctrl+E opens the export dialog";
          ImGui::CloseCurrentPopup();
          state_.export_dialog.open_requested = false;
          break;
      }
      // Nothing else of the settings moved.
      UiSettings expect = now;
      expect.scale = before.scale;
      expect.shortcuts_open = before.shortcuts_open;
      expect.presentation = before.presentation;
      expect.presentation_panel = before.presentation_panel;
      EXPECT_EQ(expect, before);
      ImGui::ClosePopupsOverWindow(nullptr, false);
      Frames(2);
    }
  }
  // Every action has an entry, and the overlay prints every entry.
  EXPECT_EQ(actions.size(), rows);
  EXPECT_EQ(static_cast<int>(rows), static_cast<int>(ShortcutAction::kExport) + 1);
}

TEST_F(ClassroomKeys, NoChordBelongsToTwoActionsAndKeysWaitWhileTyping) {
  std::set<std::tuple<int, int, int, bool, int>> seen;
  for (const Shortcut& s : Shortcuts()) {
    for (const KeyChord& c : s.chords) {
      if (c == KeyChord{}) continue;
      EXPECT_TRUE(seen.insert({c.named, c.native, c.character, c.ctrl, c.shift}).second) << s.keys;
      // A chord that takes either Shift must not share its key with one that asks for it.
      for (int shift : {-1, 0, 1}) {
        if (shift == c.shift) continue;
        if (c.shift != -1 && shift != -1) continue;
        EXPECT_EQ(seen.count({c.named, c.native, c.character, c.ctrl, shift}), 0u) << s.keys;
      }
    }
  }
  // Arrow keys step panels only in presentation mode (elsewhere they move between controls).
  Frames(2);
  Press(ShortcutFor(ShortcutAction::kNextPanel).chords[0]);
  EXPECT_EQ(state_.ui.presentation_panel, 0);
}

// ---- colormaps

// Relative luminance (WCAG / sRGB), to check that cividis brightens monotonically.
double Luma(Rgba8 c) {
  auto lin = [](uint8_t v) {
    const double s = v / 255.0;
    return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

TEST(ClassroomColormap, CividisMatchesMatplotlibsTable) {
  ASSERT_EQ(ParseColormap("cividis"), ColormapId::kCividis);
  EXPECT_EQ(ColormapName(ColormapId::kCividis), "cividis");
  const ColorLut& lut = GetColormap(ColormapId::kCividis);
  // Entries of matplotlib's _cividis_data (lib/matplotlib/_cm_listed.py; Nunez, Anderton and
  // Renslow 2018), times 255: entry 0 = (0, 0.135112, 0.304751), 64 = (0.263738, 0.307831,
  // 0.422789), 128 = (0.488697, 0.485318, 0.471008), 200 = (0.769353, 0.707035, 0.408516),
  // 255 = (0.995737, 0.909344, 0.217772).
  struct Known {
    int index;
    double r, g, b;
  };
  for (const Known& k :
       {Known{0, 0.0, 0.135112, 0.304751}, Known{64, 0.263738, 0.307831, 0.422789},
        Known{128, 0.488697, 0.485318, 0.471008}, Known{200, 0.769353, 0.707035, 0.408516},
        Known{255, 0.995737, 0.909344, 0.217772}}) {
    const Rgba8 c = lut[static_cast<size_t>(k.index)];
    EXPECT_NEAR(c.r, k.r * 255, 2.1) << "entry " << k.index;
    EXPECT_NEAR(c.g, k.g * 255, 2.1) << "entry " << k.index;
    EXPECT_NEAR(c.b, k.b * 255, 2.1) << "entry " << k.index;
  }
  EXPECT_EQ(lut[0], (Rgba8{0, 34, 78, 255}));
  EXPECT_EQ(lut[255], (Rgba8{254, 232, 56, 255}));
  // Designed to brighten steadily from dark blue to yellow.
  for (int k = 1; k < kLutSize; ++k) {
    EXPECT_GE(Luma(lut[static_cast<size_t>(k)]), Luma(lut[static_cast<size_t>(k - 1)]) - 1e-3)
        << "entry " << k;
  }
  EXPECT_NE(GetColormap(ColormapId::kViridis)[128], lut[128]);
}

TEST(ClassroomColormap, HighlightContrastsWithEverySampleOfEveryColormap) {
  for (int k = 0; k < kColormapCount; ++k) {
    const auto id = static_cast<ColormapId>(k);
    const Rgba8 h = SelectionHighlightColor(id);
    double nearest = 1e9;
    for (const Rgba8& c : GetColormap(id)) nearest = std::min(nearest, ColorDistanceLab(h, c));
    // CIE76 delta E 30: far beyond "clearly different" (about 10).
    EXPECT_GE(nearest, 30.0) << ColormapName(id);
  }
}

// ---- fonts: ranges from the shown text, and a box with its code point for the rest

TEST(ClassroomFonts, GlyphRangesHoldExactlyTheTextsCharacters) {
  const ImVector<ImWchar> r = GlyphRangesOf(u"\u65e5\u672c caf\u00e9 \u65e5");
  const std::vector<ImWchar> want = {0x20, 0x20, 'a',    'a',    'c',    'c',    'f', 'f',
                                     0xE9, 0xE9, 0x65E5, 0x65E5, 0x672C, 0x672C, 0};
  ASSERT_EQ(static_cast<size_t>(r.Size), want.size());
  for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(r[static_cast<int>(k)], want[k]) << k;
  // Neighbours merge into one range.
  const ImVector<ImWchar> ab = GlyphRangesOf(u"abc");
  ASSERT_EQ(ab.Size, 3);
  EXPECT_EQ(ab[0], 'a');
  EXPECT_EQ(ab[1], 'c');
}

class ClassroomAtlas : public ::testing::Test {
 protected:
  void SetUp() override { ctx_ = ImGui::CreateContext(); }
  void TearDown() override { ImGui::DestroyContext(ctx_); }
  ImGuiContext* ctx_ = nullptr;
};

TEST_F(ClassroomAtlas, CjkGlyphsComeFromTheShownTextOnly) {
  const bool noto = FileExists("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc");
  const UiFontInfo info = LoadUiFonts(1.0f, u"\u65e5\u672c caf\u00e9");
  ASSERT_TRUE(info.dejavu);
  EXPECT_EQ(info.cjk, noto);
  const ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
  ImGui::GetIO().FontDefault = nullptr;
  EXPECT_EQ(font->FindGlyphNoFallback(0x65E5) != nullptr, noto) << "\u65e5 from the text";
  EXPECT_EQ(font->FindGlyphNoFallback(0x672C) != nullptr, noto);
  EXPECT_EQ(font->FindGlyphNoFallback(0x4E2D), nullptr) << "\u4e2d is not in the text";
  EXPECT_NE(font->FindGlyphNoFallback(0xE9), nullptr) << "DejaVu's e acute";
  // A few ideographs keep the atlas far below ImGui's common-CJK tables (4096 x 2048 and more):
  // with Noto the atlas is laid out 4096 wide and stays within 1024 rows. Without Noto (a machine
  // without fonts-noto-cjk) DejaVu alone takes ImGui's own width: 1024 x 2048.
  const int64_t texels = int64_t{info.atlas_width} * info.atlas_height;
  EXPECT_LE(texels, noto ? int64_t{4096} * 1024 : int64_t{1024} * 2048)
      << info.atlas_width << " x " << info.atlas_height;
}

TEST_F(ClassroomAtlas, TheLargestScaleStillBuildsDejaVuWithinTheAtlasLimit) {
  UiSettings largest;
  largest.scale = kMaxUiScale;
  largest.presentation = true;
  const float scale = EffectiveUiScale(largest, 1.0f);
  EXPECT_FLOAT_EQ(scale, kMaxUiScale * kPresentationScale);
  const UiFontInfo info = LoadUiFonts(scale, u"\u65e5\u672c");
  EXPECT_TRUE(info.dejavu) << "not ImGui's fallback font";
  EXPECT_LE(info.atlas_width, kMaxFontAtlasSide);
  EXPECT_LE(info.atlas_height, kMaxFontAtlasSide);
}

TEST_F(ClassroomAtlas, TheAtlasIsRebuiltOnlyWhenScaleOrCharactersChange) {
  const bool noto = FileExists("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc");
  std::optional<AppliedLook> look;
  UiSettings ui;
  EXPECT_TRUE(ApplyLook(ui, 1.0f, "The cat", look)) << "the first look builds the atlas";
  EXPECT_FALSE(ApplyLook(ui, 1.0f, "The cat", look));
  EXPECT_FALSE(ApplyLook(ui, 1.0f, "cat The", look)) << "same characters: no rebuild";
  ui.theme = UiTheme::kLight;
  EXPECT_FALSE(ApplyLook(ui, 1.0f, "cat The", look)) << "a theme is colours only";
  EXPECT_GT(ImGui::GetStyle().Colors[ImGuiCol_WindowBg].x, 0.5f);
  EXPECT_TRUE(ApplyLook(ui, 1.0f, "The \xe7\x8c\xab", look)) << "a new character (cat, U+732B)";
  EXPECT_EQ(ImGui::GetIO().Fonts->Fonts[0]->FindGlyphNoFallback(0x732B) != nullptr, noto);
  ui.scale = 2.0f;
  EXPECT_TRUE(ApplyLook(ui, 1.0f, "The \xe7\x8c\xab", look));
  EXPECT_FLOAT_EQ(ImGui::GetIO().Fonts->Fonts[0]->FontSize, 30.0f);
}

TEST_F(Classroom, MissingCharactersAreNamedByTheirCodePoint) {
  Look(1.0f, 1280, 800);
  Frame();
  // Tibetan U+0F00 (no font here), an emoji U+1F600 (beyond ImGui's 16-bit characters), and
  // characters DejaVu has.
  const std::u32string missing =
      MissingCodePoints("a\xe0\xbc\x80 \xc3\xa9\xf0\x9f\x98\x80\xe0\xbc\x80");
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0], 0x0F00u);
  EXPECT_EQ(missing[1], 0x1F600u);
  EXPECT_EQ(CodePointName(0x0F00), "U+0F00");
  EXPECT_EQ(CodePointName(0x1F600), "U+1F600");
  EXPECT_TRUE(MissingCodePoints("The cat sits on the mat").empty());
}

TEST(ClassroomFigureFonts, ExportedFiguresDrawCjkWithNotoAndTheRestWithDejaVu) {
  // cairo draws a string in one face; the figure renderer splits "日本 café" into runs, the CJK
  // run in Noto Sans CJK. The PDF names every font it embeds.
  Figure f;
  f.title = "\xe6\x97\xa5\xe6\x9c\xac caf\xc3\xa9";
  auto fonts_of = [&](const Figure& fig) {
    std::ostringstream out;
    EXPECT_TRUE(RenderFigure(fig, FigureFormat::kPdf, FigureSize{}, out).ok());
    return out.str();
  };
  const std::string pdf = fonts_of(f);
  EXPECT_NE(pdf.find("DejaVuSans"), std::string::npos);
  if (FileExists("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")) {
    EXPECT_NE(pdf.find("NotoSansCJK"), std::string::npos) << "the ideographs come from Noto";
  }
  f.title = "caf\xc3\xa9";
  EXPECT_EQ(fonts_of(f).find("NotoSansCJK"), std::string::npos) << "Latin text needs no CJK font";
}

// ---- copying as TSV

TEST(ClassroomTsv, NumbersReadBackExactlyAndTablesHaveTheirShape) {
  EXPECT_EQ(TsvNumber(0.1f), "0.1");
  EXPECT_EQ(TsvNumber(-2.5f), "-2.5");
  EXPECT_EQ(TsvNumber(1e-5f), "1e-05");
  EXPECT_EQ(TsvNumber(std::nanf("")), "nan");
  EXPECT_EQ(TsvNumber(-INFINITY), "-inf");
  for (float v : {0.84147096f, -0.41614684f, 3.4028235e38f, 1.17549435e-38f, 123456.79f}) {
    EXPECT_EQ(std::strtof(TsvNumber(v).c_str(), nullptr), v) << TsvNumber(v);
  }
  const float values[] = {1, 2, 3, 4.5f, 5, 6};
  const std::string cols[] = {"a", "b\tc", "d"};
  const std::string rows[] = {"r0", "r\n1"};
  Result<std::string> t = TsvTable(values, 2, 3, cols, rows, "corner");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.value(), "corner\ta\tb c\td\nr0\t1\t2\t3\nr 1\t4.5\t5\t6\n");
  Result<std::string> bare = TsvTable(values, 3, 2, {}, {});
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare.value(), "1\t2\n3\t4.5\n5\t6\n");
  EXPECT_EQ(TsvRow(std::span<const float>(values, 2), "x"), "x\t1\t2\n");
  // The cap: a million cells pass, one row more does not, and the message says how big.
  EXPECT_TRUE(CheckTsvSize(1024, 1024).ok());
  const Status over = CheckTsvSize(1025, 1024);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.message().find("1025 x 1024"), std::string::npos) << over.message();
  EXPECT_NE(over.message().find("1048576"), std::string::npos) << over.message();
  EXPECT_FALSE(CheckTsvSize(int64_t{1} << 40, int64_t{1} << 40).ok()) << "no overflow";
}

TEST_F(Classroom, HeatmapCopiesTheSinusoidsValues) {
  Frames(2);
  const Derived& d = caches_.derived.get();
  ASSERT_TRUE(d.encoding);
  const CopySource s = HeatmapCopySource(*d.encoding);
  EXPECT_EQ(s.rows, 100);
  EXPECT_EQ(s.cols, 128);
  // The paper's table, d = 128: PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(same).
  auto pe = [](int p, int j) {
    const double w = std::pow(10000.0, -2.0 * (j / 2) / 128.0);
    return static_cast<float>(j % 2 == 0 ? std::sin(p * w) : std::cos(p * w));
  };
  EXPECT_EQ(CopyValueText(s, 2, 0), TsvNumber(pe(2, 0)));
  EXPECT_EQ(std::strtof(CopyValueText(s, 7, 5).c_str(), nullptr), pe(7, 5));
  Result<std::string> row = CopyRowText(s, 3);
  ASSERT_TRUE(row.ok());
  std::string want = "position \\ dim";
  for (int j = 0; j < 128; ++j) {
    want += '\t';
    want += std::to_string(j);
  }
  want += "\n3";
  for (int j = 0; j < 128; ++j) {
    want += '\t';
    want += TsvNumber(pe(3, j));
  }
  want += "\n";
  EXPECT_EQ(row.value(), want);
  Result<std::string> table = CopyTableText(s);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(std::count(table.value().begin(), table.value().end(), '\n'), 101);
  EXPECT_EQ(std::count(table.value().begin(), table.value().end(), '\t'), 101 * 128);
  // A table past the cap is refused with its size, not cut.
  state_.params.pe.max_len = 100000;
  Frames(2);
  Result<std::string> big = CopyTableText(HeatmapCopySource(*caches_.derived.get().encoding));
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.message().find("100000 x 128"), std::string::npos) << big.message();
}

TEST_F(Classroom, RightClickOnTheHeatmapCopiesTheTable) {
  Frames(3);
  // Right-click cell (position 4, dim 6), then "Copy table as TSV".
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = CellPixel(4, 6);
  Frame();
  io.MouseDown[1] = true;
  Frame();
  io.MouseDown[1] = false;
  Frames(2);
  EXPECT_EQ(caches_.heatmap.menu_position, 4);
  EXPECT_EQ(caches_.heatmap.menu_column, 6);
  ASSERT_TRUE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) << "the copy menu is open";
  // Find "Copy value" in the menu window and click it.
  ImGuiWindow* menu = nullptr;
  for (ImGuiWindow* w : GImGui->Windows) {
    if ((w->Flags & ImGuiWindowFlags_Popup) && w->WasActive) menu = w;
  }
  ASSERT_NE(menu, nullptr);
  ImVec2 at;
  ASSERT_TRUE(
      Find(menu, Id(menu, "Copy value"), ImVec2(menu->Pos.x + 10, menu->Pos.y + 2), false, &at));
  Click(at);
  const Derived& d = caches_.derived.get();
  EXPECT_EQ(std::string(ImGui::GetClipboardText()),
            TsvNumber(static_cast<float>(d.encoding->ValueAt(6, 4.0))));
}

// ---- presentation mode, the walkthrough and the tabs

// F11 presents the tab on show; in presentation the arrow keys and Page Up / Down (what
// clickers send) step the walkthrough first, then move on to the next or previous view.
TEST_F(ClassroomKeys, PresentationStepsTheWalkthroughThenTheViews) {
  state_.select_tab = ViewKind::kWalkthrough;
  Frames(3);
  ASSERT_EQ(state_.session.shown_tab, ViewKind::kWalkthrough);
  ASSERT_EQ(state_.walkthrough.step, 0);
  Press(ShortcutFor(ShortcutAction::kPresentation).chords[0]);
  ASSERT_TRUE(state_.ui.presentation);
  ASSERT_EQ(caches_.drawn.presented, ViewKind::kWalkthrough) << "F11 presents the tab on show";
  const int panel = state_.ui.presentation_panel;
  const KeyChord right = ShortcutFor(ShortcutAction::kNextPanel).chords[0];
  const KeyChord left = ShortcutFor(ShortcutAction::kPreviousPanel).chords[0];
  const KeyChord page_down = ShortcutFor(ShortcutAction::kNextPanel).chords[1];
  const KeyChord page_up = ShortcutFor(ShortcutAction::kPreviousPanel).chords[1];
  for (int step = 1; step < kWalkStepCount; ++step) {
    Press(step % 2 ? right : page_down);
    ASSERT_EQ(state_.walkthrough.step, step);
    ASSERT_EQ(caches_.drawn.walkthrough_step, step) << "the step drawn";
    ASSERT_EQ(state_.ui.presentation_panel, panel) << "still the walkthrough";
  }
  // Past the last step: the next view.
  Press(right);
  EXPECT_EQ(state_.ui.presentation_panel, panel + 1);
  EXPECT_EQ(state_.walkthrough.step, kWalkStepCount - 1);
  EXPECT_NE(caches_.drawn.presented, ViewKind::kWalkthrough);
  // Back to the walkthrough at its last step, then back through its steps.
  Press(left);
  EXPECT_EQ(caches_.drawn.presented, ViewKind::kWalkthrough);
  Press(page_up);
  EXPECT_EQ(state_.walkthrough.step, kWalkStepCount - 2);
  EXPECT_EQ(state_.ui.presentation_panel, panel);
  // Steps back to the first, then the view before the walkthrough.
  for (int step = kWalkStepCount - 3; step >= 0; --step) Press(left);
  EXPECT_EQ(state_.walkthrough.step, 0);
  Press(left);
  EXPECT_EQ(state_.ui.presentation_panel, panel - 1);
}

TEST_F(ClassroomKeys, F11PresentsTheTabOnShowNotTheFocusedPanel) {
  state_.params.pe.scheme = RopeParams{};
  Frames(3);
  const std::vector<DrawnRecord::Tab> tabs = caches_.drawn.tabs;
  ASSERT_GE(tabs.size(), 3u) << "the rope views are tabs";
  for (const DrawnRecord::Tab& tab : tabs) {
    SCOPED_TRACE(std::string(ViewName(tab.view)));
    state_.select_tab = tab.view;
    state_.focused_view = ViewKind::kHeatmap;
    state_.ui.presentation_panel = 0;  // the heatmap, presented last
    Frames(3);
    ASSERT_EQ(state_.session.shown_tab, tab.view);
    Press(ShortcutFor(ShortcutAction::kPresentation).chords[0]);
    ASSERT_TRUE(state_.ui.presentation);
    EXPECT_EQ(caches_.drawn.presented, tab.view);
    Press(ShortcutFor(ShortcutAction::kLeave).chords[0]);
    ASSERT_FALSE(state_.ui.presentation);
  }
}

// A preset starts its example at step 1, wherever the walkthrough stood.
TEST_F(Classroom, PresetResetsTheWalkthroughToStepOne) {
  state_.select_tab = ViewKind::kWalkthrough;
  state_.walkthrough.step = 4;
  Frames(3);
  ASSERT_EQ(caches_.drawn.walkthrough_step, 4);
  ImGuiWindow* w = Child("walkthrough");
  ASSERT_NE(w, nullptr);
  const ImGuiID id =
      ImHashStr("Blog: \"I love NLP\" typed sum", 0, ImHashStr("i-love-nlp", 0, w->ID));
  const float em = ImGui::GetFontSize();
  ImVec2 at;
  bool found = false;
  for (float r = 1.5f; r <= 4.5f && !found; r += 0.5f) {
    found = Find(w, id, ImVec2(w->Pos.x + 2, w->Pos.y + em * r), true, &at);
  }
  ASSERT_TRUE(found) << "the preset's button";
  Click(at);
  Frames(2);
  EXPECT_EQ(state_.params.walkthrough_preset, "i-love-nlp");
  EXPECT_EQ(state_.walkthrough.step, 0);
  EXPECT_EQ(caches_.drawn.walkthrough_step, 0);
}

// At 1280 x 800 and UI scale 1.25 to 1.5 every tab is as wide as its whole name: the row
// scrolls instead of cutting "walkthrough" to "wal...".
TEST_F(Classroom, TabNamesAreNeverCut) {
  for (Scheme scheme : {Scheme::kSinusoidal, Scheme::kRope, Scheme::kAlibi, Scheme::kXpos}) {
    SetScheme(state_.params, scheme);
    for (float scale : {1.25f, 1.5f}) {
      const std::string what = std::string(SchemeName(scheme)) + " at " + std::to_string(scale);
      Look(scale, 1280, 800);
      Frames(3);
      ASSERT_GE(caches_.drawn.tabs.size(), 3u) << what;
      float row = 0;
      for (const DrawnRecord::Tab& tab : caches_.drawn.tabs) {
        EXPECT_GE(tab.tab_width, tab.label_width - 0.5f)
            << what << ": tab " << ViewName(tab.view) << " is cut";
        row += tab.tab_width;
      }
      if (scheme == Scheme::kRope && scale == 1.5f) {
        // The case that cut the names: they do not all fit beside each other here.
        ImGuiWindow* views = Child("scheme_views");
        ASSERT_NE(views, nullptr);
        EXPECT_GT(row, views->Size.x) << what;
      }
      ExpectEverythingInside(what.c_str());
    }
  }
}

// Presentation hides the controls, so "What you are looking at" stands beside the view, from
// its top (no scrolling to reach it), inside the window at 1280 x 800.
TEST_F(Classroom, PresentationKeepsWhatYouAreLookingAtInSight) {
  for (Scheme scheme : {Scheme::kSinusoidal, Scheme::kRope}) {
    SetScheme(state_.params, scheme);
    for (float scale : {1.25f, 1.5f}) {
      const std::string what = std::string(SchemeName(scheme)) + " at " + std::to_string(scale);
      state_.ui.presentation = true;
      state_.ui.presentation_panel = 0;
      Look(scale, 1280, 800);
      Frames(3);
      ImGuiWindow* x = Child("explanation");
      ASSERT_TRUE(x != nullptr && x->WasActive) << what;
      EXPECT_EQ(x->Scroll.y, 0.0f) << what;
      EXPECT_GT(x->Size.x, ImGui::GetFontSize() * 8) << what << ": room for a few words a line";
      EXPECT_GT(x->ContentSize.y, ImGui::GetFontSize() * 2) << what << ": it has text";
      ExpectEverythingInside(what.c_str(), 2);
    }
  }
  state_.ui.presentation = false;
}

}  // namespace
}  // namespace pe
