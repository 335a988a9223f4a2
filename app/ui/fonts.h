// Fonts for the UI: DejaVu Sans (fonts-dejavu-core) with every character it has, Noto Sans CJK
// (fonts-noto-cjk) merged in for Chinese, Japanese and Korean when it is installed, and a white
// square for any character no font has. ImGui's built-in font when DejaVu is missing.
#pragma once

namespace pe {

// The largest atlas side we build: GL 3.3 guarantees only 1024, but every GL 3.3 driver we know
// of takes 8192 or more; 4096 keeps the atlas at 64 MiB of RGBA at most.
inline constexpr int kMaxFontAtlasSide = 4096;

// What LoadUiFont built, for tests and start-up diagnostics.
struct UiFontInfo {
  float size = 0;                         // pixel size of the UI font
  bool dejavu = false;                    // DejaVu Sans was found (else ImGui's built-in font)
  bool cjk = false;                       // Noto Sans CJK was merged in
  int atlas_width = 0, atlas_height = 0;  // of the built atlas, in texels
};

// Adds the UI font to the current ImGui context's atlas and builds the atlas (at most
// kMaxFontAtlasSide per side: without CJK when CJK would not fit). Characters missing from every
// font draw as U+25A1 WHITE SQUARE. Characters beyond U+FFFF (emoji) arrive as U+FFFD in this
// ImGui build (16-bit ImWchar), which is left out so they draw as the square too.
UiFontInfo LoadUiFonts(float scale);

// As LoadUiFonts; returns the pixel size used.
inline float LoadUiFont(float scale) {
  return LoadUiFonts(scale).size;
}

}  // namespace pe
