// The few Unicode properties the subword tokenizers need, over code points: the general
// categories behind \p{L} and \p{N} of the GPT-2 and Llama 3 split patterns, White_Space (\s),
// BERT's punctuation, whitespace and control classes, and one code point's lowercase and
// accent-stripped forms. Tables come from core/text/make_unicode_tables.py (Unicode 14.0).
// Not a general Unicode library: no normalisation of strings, no case folding, no segmentation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pe {

// One code point decoded from UTF-8: `cp` and the bytes it took (1 to 4). Invalid input
// (a stray continuation byte, an overlong form, a surrogate, a truncated sequence, above
// U+10FFFF) gives valid = false and length 1, so a caller can name the byte and go on.
struct Utf8Char {
  char32_t cp = 0;
  int length = 1;
  bool valid = true;
};
Utf8Char DecodeUtf8(std::string_view text, size_t at);
// The offset of the first byte of `text` that is not valid UTF-8, or npos when all is.
size_t FindInvalidUtf8(std::string_view text);
void AppendUtf8(std::string& out, char32_t cp);

bool IsLetter(char32_t cp);          // general category L*
bool IsNumber(char32_t cp);          // general category N*
bool IsWhiteSpace(char32_t cp);      // the White_Space property (\s of Unicode regexes)
bool IsPunctuation(char32_t cp);     // P*, or ASCII 33-47, 58-64, 91-96, 123-126 (as BERT)
bool IsBertWhitespace(char32_t cp);  // ' ', \t, \n, \r or Zs (BERT's _is_whitespace)
bool IsBertControl(char32_t cp);     // Cc or Cf but \t, \n, \r (BERT's _is_control)
bool IsCjk(char32_t cp);             // the CJK blocks BERT pads with spaces (_is_chinese_char)

// Appends the lowercase of `cp` (one or more code points, as str.lower / char::to_lowercase).
void AppendLowercase(std::string& out, char32_t cp);
// Appends `cp` with its nonspacing marks removed after canonical decomposition (NFD): "é" -> "e";
// a mark alone -> nothing; a Hangul syllable -> its jamo.
void AppendStripAccents(std::string& out, char32_t cp);

}  // namespace pe
