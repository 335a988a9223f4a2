#include "text/unicode_props.h"

#include <algorithm>
#include <iterator>

namespace pe {
namespace {

struct CodeRange {
  char32_t first, last;
};
struct CodeMapping {
  char32_t cp;
  const char* utf8;
};

#include "text/unicode_tables.inc"

template <size_t N>
bool InRanges(const CodeRange (&ranges)[N], char32_t cp) {
  const CodeRange* it =
      std::upper_bound(std::begin(ranges), std::end(ranges), cp,
                       [](char32_t c, const CodeRange& r) { return c < r.first; });
  return it != std::begin(ranges) && cp <= (it - 1)->last;
}

template <size_t N>
const char* Lookup(const CodeMapping (&map)[N], char32_t cp) {
  const CodeMapping* it =
      std::lower_bound(std::begin(map), std::end(map), cp,
                       [](const CodeMapping& m, char32_t c) { return m.cp < c; });
  return it != std::end(map) && it->cp == cp ? it->utf8 : nullptr;
}

}  // namespace

Utf8Char DecodeUtf8(std::string_view text, size_t at) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(at);
  if (c < 0x80) return {c, 1, true};
  int length = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2, cp = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3, cp = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return {c, 1, false};
  }
  if (at + static_cast<size_t>(length) > text.size()) return {c, 1, false};
  for (int k = 1; k < length; ++k) {
    const unsigned char b = byte(at + static_cast<size_t>(k));
    if ((b & 0xC0) != 0x80) return {c, 1, false};
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {c, 1, false};
  return {cp, length, true};
}

size_t FindInvalidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const Utf8Char u = DecodeUtf8(text, i);
    if (!u.valid) return i;
    i += static_cast<size_t>(u.length);
  }
  return std::string_view::npos;
}

void AppendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool IsLetter(char32_t cp) {
  if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
  return InRanges(kLetterRanges, cp);
}

bool IsNumber(char32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  return InRanges(kNumberRanges, cp);
}

bool IsWhiteSpace(char32_t cp) {
  if (cp < 0x80) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool IsPunctuation(char32_t cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
      (cp >= 123 && cp <= 126)) {
    return true;
  }
  return cp >= 0x80 && InRanges(kPunctuationRanges, cp);
}

bool IsBertWhitespace(char32_t cp) {
  return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || InRanges(kSpaceSeparatorRanges, cp);
}

bool IsBertControl(char32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  return InRanges(kControlRanges, cp);
}

bool IsCjk(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

void AppendLowercase(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
    return;
  }
  if (const char* s = Lookup(kLowercase, cp)) {
    out += s;
  } else {
    AppendUtf8(out, cp);
  }
}

void AppendStripAccents(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
    return;
  }
  // Hangul syllables: S = 0xAC00 + (L * 21 + V) * 28 + T (The Unicode Standard, section 3.12).
  if (cp >= 0xAC00 && cp <= 0xD7A3) {
    const char32_t s = cp - 0xAC00;
    AppendUtf8(out, 0x1100 + s / (21 * 28));
    AppendUtf8(out, 0x1161 + (s % (21 * 28)) / 28);
    if (s % 28 != 0) AppendUtf8(out, 0x11A7 + s % 28);
    return;
  }
  if (const char* s = Lookup(kStripAccents, cp)) {
    out += s;
  } else {
    AppendUtf8(out, cp);
  }
}

}  // namespace pe
