#include "ui/fonts.h"

#include <imgui.h>

#include <cstdio>
#include <string>

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

bool FileExists(const char* path) {
  if (FILE* f = std::fopen(path, "rb")) {
    std::fclose(f);
    return true;
  }
  return false;
}

// Adds DejaVu (and CJK when asked) to a cleared atlas; returns the font, or null when DejaVu
// cannot be read.
ImFont* AddFonts(ImFontAtlas& atlas, float size, bool cjk, const ImWchar* cjk_ranges) {
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
    // stb_truetype scales a font so that ascent - descent is `size`: DejaVu's span is 1.164 em
    // ((1901 + 483) / 2048, its hhea), Noto Sans CJK's 1.448 em ((1160 + 288) / 1000), so at
    // equal sizes ideographs would come out a fifth smaller than the Latin beside them. This
    // gives both the same em; the merged glyphs sit on DejaVu's baseline.
    constexpr float kCjkToDejaVuEm = (1160.0f + 288.0f) / 1000.0f / ((1901.0f + 483.0f) / 2048.0f);
    atlas.AddFontFromFileTTF(kNotoSansCjk, size * kCjkToDejaVuEm, &merge, cjk_ranges);
  }
  // Kept by ImFont::BuildLookupTable when the font has it (DejaVu does).
  font->FallbackChar = kWhiteSquare;
  return font;
}

}  // namespace

ImVector<ImWchar> GlyphRangesOf(std::u16string_view chars) {
  ImFontGlyphRangesBuilder builder;
  for (char16_t c : chars) {
    if (c >= 0x20) builder.AddChar(static_cast<ImWchar>(c));
  }
  ImVector<ImWchar> out;
  builder.BuildRanges(&out);
  return out;
}

UiFontInfo LoadUiFonts(float scale, std::u16string_view shown_chars) {
  return LoadUiFontsInto(*ImGui::GetIO().Fonts, scale, shown_chars);
}

UiFontInfo LoadUiFontsInto(ImFontAtlas& atlas, float scale, std::u16string_view shown_chars) {
  UiFontInfo info;
  info.size = 15.0f * scale;
  // Noto gives the shown text's characters only: a sentence's few ideographs cost a few hundred
  // texels, where ImGui's tables of common Chinese and Japanese (4,600 glyphs) cost 0.2-0.4 s
  // of start-up and most of the atlas. Only the blocks DejaVu has nothing of (Hangul Jamo, CJK
  // radicals up to the half-width forms) are asked of it, so Latin text never loads its 19 MB
  // file. ImGui reads the ranges when the atlas is built, below, while `cjk_ranges` lives.
  std::u16string cjk_chars;
  for (char16_t c : shown_chars) {
    if ((c >= 0x1100 && c <= 0x11FF) || (c >= 0x2E80 && c <= 0xFFEF)) cjk_chars.push_back(c);
  }
  const ImVector<ImWchar> cjk_ranges = GlyphRangesOf(cjk_chars);
  if (FileExists(kDejaVuSans)) {
    info.cjk = FileExists(kNotoSansCjk) && cjk_ranges.Size > 1;
    atlas.TexDesiredWidth = kMaxFontAtlasSide;
    ImFont* font = AddFonts(atlas, info.size, info.cjk, cjk_ranges.Data);
    if (font && info.cjk && (!atlas.Build() || atlas.TexHeight > kMaxFontAtlasSide)) {
      // Too many glyphs at this scale: drop CJK rather than fail on the GPU.
      atlas.Clear();
      info.cjk = false;
      font = AddFonts(atlas, info.size, false, nullptr);
    }
    atlas.TexDesiredWidth = 0;
    if (font && (atlas.IsBuilt() || atlas.Build())) {
      info.dejavu = true;
      info.atlas_width = atlas.TexWidth;
      info.atlas_height = atlas.TexHeight;
      return info;
    }
    atlas.Clear();
    info.cjk = false;
  }
  ImFontConfig config;
  config.SizePixels = 13.0f * scale;
  atlas.AddFontDefault(&config);
  atlas.Build();
  info.size = config.SizePixels;
  info.atlas_width = atlas.TexWidth;
  info.atlas_height = atlas.TexHeight;
  return info;
}

namespace {

// Calls `each(code point, its bytes)` over UTF-8 `text`, and tells whether the window's font
// draws the code point (below U+0020 counts as drawn: the callers show whitespace themselves).
template <typename Each>
void ForEachCodePoint(std::string_view text, Each each) {
  const ImFont* font = ImGui::GetFont();
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    // UTF-8 decoded here (not by ImGui, whose 16-bit ImWchar folds U+10000 and up into U+FFFD).
    char32_t c = *p;
    int n = 1;
    if (c >= 0xF0 && end - p >= 4) {
      c = ((c & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
      n = 4;
    } else if (c >= 0xE0 && end - p >= 3) {
      c = ((c & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
      n = 3;
    } else if (c >= 0xC0 && end - p >= 2) {
      c = ((c & 0x1Fu) << 6) | (p[1] & 0x3Fu);
      n = 2;
    }
    const std::string_view bytes(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    p += n;
    // ImGui's characters are 16-bit in Debian's build, so U+10000 and up cannot be drawn.
    const bool missing = font != nullptr && c >= 0x20 &&
                         (c > 0xFFFF || c == 0xFFFD ||
                          font->FindGlyphNoFallback(static_cast<ImWchar>(c)) == nullptr);
    each(c, bytes, missing);
  }
}

}  // namespace

std::u32string MissingCodePoints(std::string_view text) {
  std::u32string out;
  ForEachCodePoint(text, [&](char32_t c, std::string_view, bool missing) {
    if (missing && out.find(c) == std::u32string::npos) out.push_back(c);
  });
  return out;
}

std::string NameCodePointsBeyondU16(std::string_view text) {
  std::string out;
  ForEachCodePoint(text, [&](char32_t c, std::string_view bytes, bool) {
    if (c > 0xFFFF) {
      out += '[';
      out += CodePointName(c);
      out += ']';
    } else {
      out += bytes;
    }
  });
  return out;
}

std::string CodePointName(char32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
  return buf;
}

}  // namespace pe
