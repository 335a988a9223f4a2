#include "ui/fonts.h"

#include <imgui.h>

#include <cstdio>

namespace pe {
namespace {

constexpr const char* kDejaVuSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
// fonts-noto-cjk: a collection whose face 0 (Noto Sans CJK JP Regular) draws Chinese, Japanese
// and Korean; the OpenType/CFF outlines load in ImGui 1.86's stb_truetype.
constexpr const char* kNotoSansCjk = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc";
constexpr ImWchar kWhiteSquare = 0x25A1;

// The whole Basic Multilingual Plane but U+FFFD: the atlas takes only the characters a font
// has (Latin Extended, IPA, Greek, Cyrillic, Armenian, Hebrew, Arabic, punctuation, arrows,
// maths, box drawing, shapes... for DejaVu Sans, about 5,000 glyphs). U+FFFD is left out so a
// character beyond U+FFFF (emoji) shows the white square rather than DejaVu's diamond with a '?'.
constexpr ImWchar kAllOfTheBmp[] = {0x0020, 0xFFFC, 0};

// The CJK characters merged from Noto Sans CJK: ImGui's tables of the 2,500 most common
// simplified Chinese characters and of the 2,999 kanji of Japanese (about 4,600 together), with
// CJK punctuation, kana, Hangul compatibility jamo and full-width forms. Measured here (2 cores):
// these add about 0.2-0.4 s to start-up; every ideograph and Hangul syllable (39,000 glyphs, a
// 4096 x 2048 atlas) would add a second and 90 MiB, the 11,172 Hangul syllables alone 0.3 s.
// Rarer ideographs and Hangul syllables show as the white square. Characters DejaVu has keep
// DejaVu's glyph. ImGui reads the ranges when the atlas is built: they live as long as the
// program (built once, never changed).
const ImWchar* CjkRanges() {
  static const ImVector<ImWchar> ranges = [] {
    ImFontAtlas atlas;  // only for ImGui's range tables
    ImFontGlyphRangesBuilder builder;
    builder.AddRanges(atlas.GetGlyphRangesChineseSimplifiedCommon());
    builder.AddRanges(atlas.GetGlyphRangesJapanese());
    static constexpr ImWchar kMore[] = {0x3000, 0x303F, 0x3131, 0x318F, 0xFF00, 0xFFEF, 0};
    builder.AddRanges(kMore);
    ImVector<ImWchar> out;
    builder.BuildRanges(&out);
    return out;
  }();
  return ranges.Data;
}

bool FileExists(const char* path) {
  if (FILE* f = std::fopen(path, "rb")) {
    std::fclose(f);
    return true;
  }
  return false;
}

// Adds DejaVu (and CJK when asked) to a cleared atlas; returns the font, or null when DejaVu
// cannot be read.
ImFont* AddFonts(ImFontAtlas& atlas, float size, bool cjk) {
  ImFontConfig base;
  base.OversampleH = 2;  // not ImGui's 3: a third less atlas for DejaVu's 5,000 glyphs
  ImFont* font = atlas.AddFontFromFileTTF(kDejaVuSans, size, &base, kAllOfTheBmp);
  if (!font) return nullptr;
  if (cjk) {
    ImFontConfig merge;
    merge.MergeMode = true;
    merge.OversampleH = 1;  // thousands of ideographs: one sample each keeps the atlas in bounds
    merge.OversampleV = 1;
    merge.FontNo = 0;
    atlas.AddFontFromFileTTF(kNotoSansCjk, size, &merge, CjkRanges());
  }
  // Kept by ImFont::BuildLookupTable when the font has it (DejaVu does).
  font->FallbackChar = kWhiteSquare;
  return font;
}

}  // namespace

UiFontInfo LoadUiFonts(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  UiFontInfo info;
  info.size = 15.0f * scale;
  if (FileExists(kDejaVuSans)) {
    info.cjk = FileExists(kNotoSansCjk);
    io.Fonts->TexDesiredWidth = kMaxFontAtlasSide;
    ImFont* font = AddFonts(*io.Fonts, info.size, info.cjk);
    if (font && info.cjk && (!io.Fonts->Build() || io.Fonts->TexHeight > kMaxFontAtlasSide)) {
      // Too many glyphs at this scale: drop CJK rather than fail on the GPU.
      io.Fonts->Clear();
      info.cjk = false;
      font = AddFonts(*io.Fonts, info.size, false);
    }
    io.Fonts->TexDesiredWidth = 0;
    if (font && (io.Fonts->IsBuilt() || io.Fonts->Build())) {
      info.dejavu = true;
      info.atlas_width = io.Fonts->TexWidth;
      info.atlas_height = io.Fonts->TexHeight;
      return info;
    }
    io.Fonts->Clear();
    info.cjk = false;
  }
  ImFontConfig config;
  config.SizePixels = 13.0f * scale;
  io.Fonts->AddFontDefault(&config);
  io.Fonts->Build();
  info.size = config.SizePixels;
  info.atlas_width = io.Fonts->TexWidth;
  info.atlas_height = io.Fonts->TexHeight;
  return info;
}

}  // namespace pe
