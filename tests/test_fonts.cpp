// The UI font atlas, built headless: every script a token may be typed in has glyphs, and a
// character no font has draws as a visible white square, never as '?'.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cstdio>

#include "ui/fonts.h"

namespace pe {
namespace {

class UiFonts : public ::testing::Test {
 protected:
  void SetUp() override { ctx_ = ImGui::CreateContext(); }
  void TearDown() override { ImGui::DestroyContext(ctx_); }
  // The glyph the font draws for the first character of UTF-8 `text`.
  static const ImFontGlyph* GlyphFor(const ImFont* font, const char* text) {
    unsigned int c = 0;
    ImTextCharFromUtf8(&c, text, nullptr);
    return font->FindGlyph(static_cast<ImWchar>(c));
  }
  ImGuiContext* ctx_ = nullptr;
};

bool FileExists(const char* path) {
  FILE* f = std::fopen(path, "rb");
  if (f) std::fclose(f);
  return f != nullptr;
}

TEST_F(UiFonts, DejaVuCoversPolishCyrillicGreekAndSymbols) {
  ASSERT_TRUE(FileExists("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"))
      << "fonts-dejavu-core is needed (.ci/deps)";
  const UiFontInfo info = LoadUiFonts(1.0f);
  ASSERT_TRUE(info.dejavu);
  ImFontAtlas& atlas = *ImGui::GetIO().Fonts;
  ASSERT_TRUE(atlas.IsBuilt());
  const ImFont* font = atlas.Fonts[0];
  // ł (Polish), Ж (Cyrillic), λ (Greek), ɛ (IPA), → (arrows), √ (maths), ┼ (box drawing).
  for (const char* c : {"\xc5\x82", "\xd0\x96", "\xce\xbb", "\xc9\x9b", "\xe2\x86\x92",
                        "\xe2\x88\x9a", "\xe2\x94\xbc"}) {
    unsigned int code = 0;
    ImTextCharFromUtf8(&code, c, nullptr);
    EXPECT_NE(font->FindGlyphNoFallback(static_cast<ImWchar>(code)), nullptr)
        << "no glyph for U+" << std::hex << code;
  }
  EXPECT_EQ(font->FallbackChar, 0x25A1) << "a missing character must draw as a white square";
  EXPECT_NE(font->FallbackChar, '?');
  ASSERT_NE(font->FallbackGlyph, nullptr);
  EXPECT_GT(font->FallbackGlyph->X1 - font->FallbackGlyph->X0, 3.0f) << "the square is visible";
  // Tibetan (no font here has it) and an emoji (beyond U+FFFF: U+FFFD in this ImGui build) draw
  // as the square.
  EXPECT_EQ(GlyphFor(font, "\xe0\xbc\x80"), font->FallbackGlyph);
  EXPECT_EQ(GlyphFor(font, "\xf0\x9f\x98\x80"), font->FallbackGlyph);
  EXPECT_LE(info.atlas_width, kMaxFontAtlasSide);
  EXPECT_LE(info.atlas_height, kMaxFontAtlasSide);
  EXPECT_EQ(info.atlas_width, atlas.TexWidth);
  EXPECT_EQ(info.atlas_height, atlas.TexHeight);
}

TEST_F(UiFonts, CjkIsMergedWhenNotoSansCjkIsInstalled) {
  const bool have_noto = FileExists("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc");
  // The shown text's characters: Noto gives the ones DejaVu lacks.
  const UiFontInfo info = LoadUiFonts(1.0f, u"\u4e2d\u3042\u65e5 a");
  EXPECT_EQ(info.cjk, have_noto) << "CJK is merged exactly when fonts-noto-cjk is installed";
  const ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
  // 中 (Chinese), あ (hiragana), 日 (kanji): glyphs with CJK, the white square without.
  for (const char* c : {"\xe4\xb8\xad", "\xe3\x81\x82", "\xe6\x97\xa5"}) {
    if (have_noto) {
      EXPECT_NE(GlyphFor(font, c), font->FallbackGlyph) << c;
    } else {
      EXPECT_EQ(GlyphFor(font, c), font->FallbackGlyph) << c;
    }
  }
  // DejaVu's own glyphs win where both fonts have one: 'a' keeps DejaVu's advance, 1255 of its
  // 2048-unit em, at 15 px from ascent to descent (1901 + 483 units): 7.90 px (Noto's is 5.5).
  EXPECT_NEAR(GlyphFor(font, "a")->AdvanceX, 1255.0f / (1901 + 483) * 15, 0.05f);
}

TEST_F(UiFonts, LargeScalesStayWithinTheAtlasLimit) {
  const UiFontInfo info = LoadUiFonts(3.0f);
  EXPECT_TRUE(info.dejavu);
  EXPECT_LE(info.atlas_width, kMaxFontAtlasSide);
  EXPECT_LE(info.atlas_height, kMaxFontAtlasSide);
}

}  // namespace
}  // namespace pe
