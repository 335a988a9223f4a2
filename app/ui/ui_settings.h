// The look of the window for a classroom: UI scale, dark or light theme, presentation mode and
// the shortcut overlay (a plain struct in AppState), with the ImGui style and plot colours they
// give. Fonts are rebuilt at the scale's pixel size (ApplyLook), never stretched. No GL here.
#pragma once

#include <imgui.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "options/ui_scale_range.h"

namespace pe {

enum class UiTheme { kDark, kLight };

std::string_view UiThemeName(UiTheme theme);  // "dark", "light"
std::optional<UiTheme> ParseUiTheme(std::string_view name);

// Presentation mode draws at this multiple of the UI scale (capped at kMaxUiScale).
inline constexpr float kPresentationScale = 1.5f;

struct UiSettings {
  float scale = 1.0f;  // kMinUiScale to kMaxUiScale; 1 = 15 px DejaVu Sans
  UiTheme theme = UiTheme::kDark;
  bool presentation = false;    // one panel fills the window, larger text
  int presentation_panel = 0;   // index into the panels shown (ui.cpp), wraps around
  bool shortcuts_open = false;  // the F1 overlay
  bool operator==(const UiSettings&) const = default;
};

// The scales View > UI scale lists and Ctrl + / Ctrl - step through: 0.5, 0.67, 0.75, 0.8, 0.9,
// 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3.
std::span<const float> UiScaleSteps();

// The next scale up (+1) or down (-1) in UiScaleSteps() (the nearest step beyond `scale`), held
// inside the range.
float StepUiScale(float scale, int direction);

// The items of View > UI scale: every step, "1.25x", and the current scale marked (listed in
// its place when it is none of them, as a --ui-scale or a settings file may give).
struct UiScaleItem {
  float scale;
  std::string label;
  bool current;
};
std::vector<UiScaleItem> UiScaleMenuItems(float current);

// The scale the fonts and style are built at: the setting times the monitor's content scale,
// times kPresentationScale in presentation mode, clamped to [kMinUiScale, kMaxUiScale * 1.5].
float EffectiveUiScale(const UiSettings& settings, float content_scale);

// A fresh style for `theme` with every size scaled by `scale` (ImGuiStyle::ScaleAllSizes on a
// new copy, so scaling twice never compounds).
ImGuiStyle MakeStyle(UiTheme theme, float scale);

// Colours of the plot layer (axes, grid, text, crosshair, lines over the data), chosen so they
// read on the theme's background: light text on the dark theme, dark on white for projectors.
struct PlotColors {
  ImU32 background;  // the panel behind the plot (the theme's WindowBg/ChildBg)
  ImU32 frame;       // the data area's border and tick marks
  ImU32 grid;
  ImU32 text;  // titles
  ImU32 dim;   // tick labels and axis labels
  ImU32 crosshair;
  ImU32 zero_line;   // y = 0 and other reference lines over the data
  ImU32 hover_line;  // the linked position from another view
};
PlotColors ThemePlotColors(UiTheme theme);
// The colours of the theme the current ImGui style is (light when its window background is).
PlotColors CurrentPlotColors();
// WCAG 2.x contrast ratio between two opaque colours (1 to 21); alpha is ignored.
double ContrastRatio(ImU32 a, ImU32 b);

// What the font atlas and style were last built for; ApplyLook compares against it.
struct AppliedLook {
  float scale = 0;
  UiTheme theme = UiTheme::kDark;
  std::u16string glyphs;  // the code points of the shown text the atlas was built for
  std::string text;       // that text, so an unchanged text is not decoded every frame
  bool operator==(const AppliedLook&) const = default;
};

// Between frames (never inside NewFrame/Render): rebuilds the font atlas at the effective scale
// when the scale or the shown text's characters changed, and the style when the scale or theme
// did. Returns true when the atlas was rebuilt: the renderer must upload its texture again.
// `shown_text` is the UTF-8 text the panels show (the sentence, typed labels), whose characters
// outside DejaVu are merged from Noto Sans CJK when installed.
bool ApplyLook(const UiSettings& settings, float content_scale, std::string_view shown_text,
               std::optional<AppliedLook>& applied);

// Start-up's head start: builds the fonts ApplyLook would build into a cleared `atlas` without
// any ImGui context (safe on another thread while no context exists), and returns the look they
// are for. AdoptLook then takes them as the applied look (and sets the style) when the window's
// real content scale gives the same UI scale; otherwise the next ApplyLook rebuilds as usual.
AppliedLook PrebuildFonts(const UiSettings& settings, float content_scale,
                          std::string_view shown_text, ImFontAtlas& atlas);
void AdoptLook(const AppliedLook& prebuilt, const UiSettings& settings, float content_scale,
               std::optional<AppliedLook>& applied);

}  // namespace pe
