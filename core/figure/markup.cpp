#include "figure/markup.h"

#include <cmath>
#include <cstddef>
#include <map>

namespace pe {
namespace {

size_t Utf8Length(unsigned char b) {
  return b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
}

bool AsciiLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool AsciiAlnum(char c) {
  return AsciiLetter(c) || (c >= '0' && c <= '9');
}
bool Digit(char c) {
  return c >= '0' && c <= '9';
}

// A Greek letter (U+0391..U+03C9, two bytes CE xx or CF xx) at s[k].
bool GreekAt(const std::string& s, size_t k) {
  if (k + 1 >= s.size()) return false;
  const auto a = static_cast<unsigned char>(s[k]);
  return a == 0xCE || a == 0xCF;
}

// The start of the character that ends at s[end - 1].
size_t CharStart(const std::string& s, size_t end) {
  size_t k = end - 1;
  while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
  return k;
}

// True when the '_' at s[k] joins a single letter before it to one letter or digit after it.
bool SubscriptAt(const std::string& s, size_t k) {
  if (k == 0 || k + 1 >= s.size()) return false;
  if (!AsciiAlnum(s[k + 1])) return false;
  if (k + 2 < s.size() && (AsciiAlnum(s[k + 2]) || s[k + 2] == '_')) return false;
  const size_t start = CharStart(s, k);
  const bool letter = (start == k - 1 && AsciiLetter(s[start])) || GreekAt(s, start);
  auto alone = [&](size_t from) {  // nothing of a word before s[from]
    if (from == 0) return true;
    const char before = s[from - 1];
    return !(AsciiAlnum(before) || before == '_' || static_cast<unsigned char>(before) >= 0x80);
  };
  if (letter && alone(start)) return true;
  // Or a short name in capitals: "PE_m", "PE_n".
  size_t b = k;
  while (b > 0 && k - b < 3 && s[b - 1] >= 'A' && s[b - 1] <= 'Z') --b;
  return k - b >= 2 && alone(b);
}

// The length of a signed number or fraction at s[k] ("-1", "-24", "-1.5", "-1/2", "53"); 0: none.
size_t NumberAt(const std::string& s, size_t k) {
  size_t e = k;
  if (e < s.size() && (s[e] == '-' || s[e] == '+')) ++e;
  const size_t digits = e;
  while (e < s.size() && Digit(s[e])) ++e;
  if (e == digits) return 0;
  if (e + 1 < s.size() && (s[e] == '.' || s[e] == '/') && Digit(s[e + 1])) {
    ++e;
    while (e < s.size() && Digit(s[e])) ++e;
  }
  return e - k;
}

// The index of the bracket closing the one at s[open], or npos.
size_t Closing(const std::string& s, size_t open, char o, char c) {
  int depth = 0;
  for (size_t k = open; k < s.size(); ++k) {
    if (s[k] == o) ++depth;
    if (s[k] == c && --depth == 0) return k;
  }
  return std::string::npos;
}

// A script inside a run of `depth` and `rise`: 70% of its size, raised 0.38 or lowered 0.2 of
// the outer size.
struct Script {
  int level = 0, depth = 0;
  double rise = 0;
  Script Inner(int dir) const {
    const double outer = std::pow(0.7, depth);
    return {dir, depth + 1, rise + (dir > 0 ? 0.38 : -0.2) * outer};
  }
};

void Parse(const std::string& s, const Script& at, std::vector<MarkupRun>& out) {
  auto add = [&](const std::string& t, const Script& sc) {
    if (t.empty()) return;
    if (!out.empty() && out.back().depth == sc.depth && out.back().rise == sc.rise) {
      out.back().text += t;
    } else {
      out.push_back({t, sc.level, sc.depth, sc.rise});
    }
  };
  size_t k = 0;
  while (k < s.size()) {
    const char c = s[k];
    if ((c == '_' || c == '^') && k + 1 < s.size() && s[k + 1] == '{') {
      const Script inner = at.Inner(c == '^' ? 1 : -1);
      const size_t close = Closing(s, k + 1, '{', '}');
      const size_t end = close == std::string::npos ? s.size() : close;
      Parse(s.substr(k + 2, end - k - 2), inner, out);
      k = close == std::string::npos ? s.size() : close + 1;
      continue;
    }
    if (c == '^' && k > 0 && k + 1 < s.size()) {
      if (s[k + 1] == '(') {
        const size_t close = Closing(s, k + 1, '(', ')');
        if (close != std::string::npos) {
          Parse(s.substr(k + 2, close - k - 2), at.Inner(1), out);
          k = close + 1;
          continue;
        }
      }
      if (const size_t n = NumberAt(s, k + 1); n > 0) {
        add(s.substr(k + 1, n), at.Inner(1));
        k += 1 + n;
        continue;
      }
    }
    if (c == '_' && SubscriptAt(s, k)) {
      add(s.substr(k + 1, 1), at.Inner(-1));
      k += 2;
      continue;
    }
    const size_t n = Utf8Length(static_cast<unsigned char>(c));
    add(s.substr(k, n), at);
    k += n;
  }
}

// Unicode superscript and subscript forms (those in DejaVu Sans).
const std::map<std::string, std::string>& Supers() {
  static const std::map<std::string, std::string> m = {{"0", "\xe2\x81\xb0"},
                                                       {"1", "\xc2\xb9"},
                                                       {"2", "\xc2\xb2"},
                                                       {"3", "\xc2\xb3"},
                                                       {"4", "\xe2\x81\xb4"},
                                                       {"5", "\xe2\x81\xb5"},
                                                       {"6", "\xe2\x81\xb6"},
                                                       {"7", "\xe2\x81\xb7"},
                                                       {"8", "\xe2\x81\xb8"},
                                                       {"9", "\xe2\x81\xb9"},
                                                       {"+", "\xe2\x81\xba"},
                                                       {"-", "\xe2\x81\xbb"},
                                                       {"=", "\xe2\x81\xbc"},
                                                       {"(", "\xe2\x81\xbd"},
                                                       {")", "\xe2\x81\xbe"},
                                                       {"n", "\xe2\x81\xbf"},
                                                       {"i", "\xe2\x81\xb1"},
                                                       {".", "\xc2\xb7"},
                                                       {" ", " "}};
  return m;
}
const std::map<std::string, std::string>& Subs() {
  static const std::map<std::string, std::string> m = {
      {"0", "\xe2\x82\x80"}, {"1", "\xe2\x82\x81"}, {"2", "\xe2\x82\x82"},
      {"3", "\xe2\x82\x83"}, {"4", "\xe2\x82\x84"}, {"5", "\xe2\x82\x85"},
      {"6", "\xe2\x82\x86"}, {"7", "\xe2\x82\x87"}, {"8", "\xe2\x82\x88"},
      {"9", "\xe2\x82\x89"}, {"+", "\xe2\x82\x8a"}, {"-", "\xe2\x82\x8b"},
      {"=", "\xe2\x82\x8c"}, {"(", "\xe2\x82\x8d"}, {")", "\xe2\x82\x8e"},
      {"a", "\xe2\x82\x90"}, {"e", "\xe2\x82\x91"}, {"o", "\xe2\x82\x92"},
      {"x", "\xe2\x82\x93"}, {"h", "\xe2\x82\x95"}, {"k", "\xe2\x82\x96"},
      {"l", "\xe2\x82\x97"}, {"m", "\xe2\x82\x98"}, {"n", "\xe2\x82\x99"},
      {"p", "\xe2\x82\x9a"}, {"s", "\xe2\x82\x9b"}, {"t", "\xe2\x82\x9c"},
      {"i", "\xe1\xb5\xa2"}, {"r", "\xe1\xb5\xa3"}, {"u", "\xe1\xb5\xa4"},
      {"v", "\xe1\xb5\xa5"}, {"j", "\xe2\xb1\xbc"}, {" ", " "}};
  return m;
}

}  // namespace

std::vector<MarkupRun> MarkupRuns(const std::string& text) {
  std::vector<MarkupRun> out;
  Parse(text, Script{}, out);
  if (out.empty()) out.push_back({"", 0, 0, 0});
  return out;
}

bool HasMarkup(const std::string& text) {
  for (const MarkupRun& r : MarkupRuns(text)) {
    if (r.level != 0) return true;
  }
  return false;
}

std::string MarkupToUnicode(const std::string& text) {
  std::string out;
  for (const MarkupRun& r : MarkupRuns(text)) {
    if (r.level == 0) {
      out += r.text;
      continue;
    }
    const auto& table = r.level > 0 ? Supers() : Subs();
    std::string mapped;
    bool all = true;
    for (size_t k = 0; k < r.text.size() && all;) {
      const size_t n = Utf8Length(static_cast<unsigned char>(r.text[k]));
      auto it = table.find(r.text.substr(k, n));
      if (it == table.end()) {
        all = false;
      } else {
        mapped += it->second;
      }
      k += n;
    }
    if (all) {
      out += mapped;
    } else {
      out.append(r.level > 0 ? "^(" : "_(").append(r.text).append(")");
    }
  }
  return out;
}

}  // namespace pe
