// Fonts for the UI: DejaVu Sans (fonts-dejavu-core) with every character it has, Noto Sans CJK
// (fonts-noto-cjk, optional) merged in for the characters of the shown text that DejaVu lacks
// (Chinese, Japanese, Korean), and a white square for any character no font has. ImGui's
// built-in font when DejaVu is missing.
#pragma once

#include <imgui.h>

#include <string>
#include <string_view>

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

// The glyph ranges (ImGui's zero-terminated pairs) of exactly the code points in `chars`, as
// ImFontGlyphRangesBuilder makes them; code points below U+0020 are left out.
ImVector<ImWchar> GlyphRangesOf(std::u16string_view chars);

// Adds the UI font to the current ImGui context's cleared atlas and builds the atlas (at most
// kMaxFontAtlasSide per side: without CJK when CJK would not fit). Noto Sans CJK contributes
// only the characters of `shown_chars` (the code points of the text on screen; DejaVu's own
// glyphs win), so the atlas stays small; call again when the text changes. Characters missing
// from every font draw as U+25A1 WHITE SQUARE. Characters beyond U+FFFF (emoji) arrive as
// U+FFFD in this ImGui build (16-bit ImWchar), which is left out so they draw as the square too.
UiFontInfo LoadUiFonts(float scale, std::u16string_view shown_chars = {});
// The same into `atlas` (cleared), with no ImGui context needed: start-up builds it on a thread
// while the window and GL context are made, before the context that will share it exists.
UiFontInfo LoadUiFontsInto(ImFontAtlas& atlas, float scale, std::u16string_view shown_chars = {});

// As LoadUiFonts; returns the pixel size used.
inline float LoadUiFont(float scale) {
  return LoadUiFonts(scale).size;
}

// The code points of UTF-8 `text` that the current font draws as the fallback square (no font
// has them), in order of first appearance, read from the UTF-8 itself so a character beyond
// U+FFFF keeps its own number. For "U+XXXX" hints on hover.
std::u32string MissingCodePoints(std::string_view text);
// `text` with each code point beyond U+FFFF, which the window can never draw (ImGui's characters
// are 16-bit in Debian's build), written as its name in brackets, "[U+1F999]": a token chip
// then shows which character it holds rather than a square.
std::string NameCodePointsBeyondU16(std::string_view text);
// "U+4E2D" (at least four hex digits).
std::string CodePointName(char32_t c);

}  // namespace pe
