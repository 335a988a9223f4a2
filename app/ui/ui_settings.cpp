#include "ui/ui_settings.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "ui/fonts.h"

namespace pe {
namespace {

constexpr float kScaleLadder[] = {0.5f,  0.67f, 0.75f, 0.8f, 0.9f, 1.0f, 1.1f,
                                  1.25f, 1.5f,  1.75f, 2.0f, 2.5f, 3.0f};

// WCAG 2.x relative luminance of an sRGB colour.
double Luminance(ImU32 c) {
  auto channel = [](unsigned v) {
    const double s = v / 255.0;
    return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
  };
  const unsigned r = (c >> IM_COL32_R_SHIFT) & 0xff, g = (c >> IM_COL32_G_SHIFT) & 0xff,
                 b = (c >> IM_COL32_B_SHIFT) & 0xff;
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

// The code points of UTF-8 `text` (U+FFFD for what does not decode or lies beyond U+FFFF, as
// ImGui's 16-bit ImWchar has it), sorted and unique.
std::u16string CodePoints(std::string_view text) {
  std::u16string out;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    unsigned int c = 0;
    const int n = ImTextCharFromUtf8(&c, p, end);
    if (n <= 0) break;
    p += n;
    if (c >= 0x20) out.push_back(static_cast<char16_t>(c > 0xFFFF ? 0xFFFD : c));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::string_view UiThemeName(UiTheme theme) {
  return theme == UiTheme::kLight ? "light" : "dark";
}

std::optional<UiTheme> ParseUiTheme(std::string_view name) {
  if (name == "dark") return UiTheme::kDark;
  if (name == "light") return UiTheme::kLight;
  return std::nullopt;
}

std::span<const float> UiScaleSteps() {
  return kScaleLadder;
}

std::vector<UiScaleItem> UiScaleMenuItems(float current) {
  auto same = [current](float s) { return std::fabs(current - s) < 1e-3f; };
  std::vector<float> scales(std::begin(kScaleLadder), std::end(kScaleLadder));
  if (std::none_of(scales.begin(), scales.end(), same)) {
    scales.insert(std::upper_bound(scales.begin(), scales.end(), current), current);
  }
  std::vector<UiScaleItem> items;
  for (float s : scales) {
    char label[32];
    std::snprintf(label, sizeof label, "%gx", static_cast<double>(s));
    items.push_back({s, label, same(s)});
  }
  return items;
}

float StepUiScale(float scale, int direction) {
  if (direction > 0) {
    for (float s : kScaleLadder) {
      if (s > scale + 1e-3f) return s;
    }
    return kMaxUiScale;
  }
  for (auto it = std::rbegin(kScaleLadder); it != std::rend(kScaleLadder); ++it) {
    if (*it < scale - 1e-3f) return *it;
  }
  return kMinUiScale;
}

float EffectiveUiScale(const UiSettings& settings, float content_scale) {
  const float s = std::clamp(settings.scale, kMinUiScale, kMaxUiScale) *
                  std::max(1.0f, content_scale) *
                  (settings.presentation ? kPresentationScale : 1.0f);
  return std::clamp(s, kMinUiScale, kMaxUiScale * kPresentationScale);
}

ImGuiStyle MakeStyle(UiTheme theme, float scale) {
  ImGuiStyle style;  // a fresh copy: ScaleAllSizes multiplies what it is given
  if (theme == UiTheme::kLight) {
    ImGui::StyleColorsLight(&style);
    // ImGui's light theme draws child panels without a fill: give them a white one with a
    // visible border, so panels read as panels on a projector.
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.94f, 0.94f, 0.95f, 1.0f);
    style.Colors[ImGuiCol_ChildBg] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
    style.Colors[ImGuiCol_Border] = ImVec4(0.0f, 0.0f, 0.0f, 0.35f);
    style.Colors[ImGuiCol_TextDisabled] = ImVec4(0.36f, 0.36f, 0.38f, 1.0f);
    // Fields a shade darker than the white panels, so they read as fields.
    style.Colors[ImGuiCol_FrameBg] = ImVec4(0.87f, 0.88f, 0.90f, 1.0f);
  } else {
    ImGui::StyleColorsDark(&style);
  }
  style.ScaleAllSizes(scale);
  return style;
}

PlotColors ThemePlotColors(UiTheme theme) {
  if (theme == UiTheme::kLight) {
    return {IM_COL32(255, 255, 255, 255), IM_COL32(80, 80, 90, 255), IM_COL32(0, 0, 0, 30),
            IM_COL32(15, 15, 20, 255),    IM_COL32(60, 60, 68, 255), IM_COL32(0, 0, 0, 110),
            IM_COL32(0, 0, 0, 90),        IM_COL32(0, 0, 0, 170)};
  }
  return {IM_COL32(21, 22, 24, 255),    IM_COL32(110, 110, 120, 255), IM_COL32(255, 255, 255, 22),
          IM_COL32(220, 220, 225, 255), IM_COL32(160, 160, 170, 255), IM_COL32(255, 255, 255, 70),
          IM_COL32(255, 255, 255, 60),  IM_COL32(255, 255, 255, 160)};
}

PlotColors CurrentPlotColors() {
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  const bool light = 0.2126f * bg.x + 0.7152f * bg.y + 0.0722f * bg.z > 0.5f;
  return ThemePlotColors(light ? UiTheme::kLight : UiTheme::kDark);
}

double ContrastRatio(ImU32 a, ImU32 b) {
  const double la = Luminance(a), lb = Luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// The look `settings` ask for at `content_scale` with `shown_text` on screen.
AppliedLook LookFor(const UiSettings& settings, float content_scale, std::string_view shown_text) {
  AppliedLook look;
  look.scale = EffectiveUiScale(settings, content_scale);
  look.theme = settings.theme;
  look.glyphs = CodePoints(shown_text);
  look.text = std::string(shown_text);
  return look;
}

bool ApplyLook(const UiSettings& settings, float content_scale, std::string_view shown_text,
               std::optional<AppliedLook>& applied) {
  const float scale = EffectiveUiScale(settings, content_scale);
  if (applied && applied->scale == scale && applied->theme == settings.theme &&
      applied->text == shown_text) {
    return false;
  }
  AppliedLook want = LookFor(settings, content_scale, shown_text);
  if (applied && applied->scale == want.scale && applied->theme == want.theme &&
      applied->glyphs == want.glyphs) {
    applied->text = std::move(want.text);  // other text, same characters: nothing to rebuild
    return false;
  }
  const bool fonts = !applied || applied->scale != want.scale || applied->glyphs != want.glyphs;
  if (!applied || applied->scale != want.scale || applied->theme != want.theme) {
    ImGui::GetStyle() = MakeStyle(want.theme, want.scale);
  }
  if (fonts) {
    ImGui::GetIO().Fonts->Clear();
    LoadUiFonts(want.scale, want.glyphs);
  }
  applied = std::move(want);
  return fonts;
}

AppliedLook PrebuildFonts(const UiSettings& settings, float content_scale,
                          std::string_view shown_text, ImFontAtlas& atlas) {
  AppliedLook look = LookFor(settings, content_scale, shown_text);
  atlas.Clear();
  LoadUiFontsInto(atlas, look.scale, look.glyphs);
  // The renderer uploads the atlas as RGBA (16 MiB for a 4096-wide atlas); converting it here
  // keeps that work off the start's critical path too (the atlas keeps the converted copy).
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  atlas.GetTexDataAsRGBA32(&pixels, &width, &height);
  return look;
}

void AdoptLook(const AppliedLook& prebuilt, const UiSettings& settings, float content_scale,
               std::optional<AppliedLook>& applied) {
  if (EffectiveUiScale(settings, content_scale) != prebuilt.scale ||
      settings.theme != prebuilt.theme)
    return;
  ImGui::GetStyle() = MakeStyle(prebuilt.theme, prebuilt.scale);
  applied = prebuilt;
}

}  // namespace pe
