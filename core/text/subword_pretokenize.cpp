// The split before byte-level BPE, GPT-2's and Llama 3's patterns written by hand over code points
// (no regex engine), and GPT-2's byte -> code point map. Follows openai/gpt-2 src/encoder.py and
// Hugging Face tokenizers' pre_tokenizers/byte_level.rs, read and written anew here.
#include <string_view>
#include <utility>
#include <vector>

#include "text/subword_internal.h"
#include "text/subword_tokenizer.h"
#include "text/unicode_props.h"

namespace pe {

namespace {

constexpr std::string_view kGpt2Regex =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

bool IsOther(char32_t cp) {
  return !IsWhiteSpace(cp) && !IsLetter(cp) && !IsNumber(cp);
}

// Length of a contraction 's 't 're 've 'm 'll 'd at `i` (text[i] == '\''), or 0.
size_t Contraction(std::string_view t, size_t i, bool any_case) {
  auto ch = [&](size_t k) -> char {
    if (k >= t.size()) return 0;
    char c = t[k];
    if (any_case && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return c;
  };
  const char a = ch(i + 1), b = ch(i + 2);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if ((a == 'r' || a == 'v') && b == 'e') return 3;
  if (a == 'l' && b == 'l') return 3;
  return 0;
}

// End of the run of code points from `i` that satisfy `pred`.
template <typename Pred>
size_t RunEnd(std::string_view t, size_t i, Pred pred) {
  while (i < t.size()) {
    const Utf8Char u = Utf8At(t, i);
    if (!pred(u.cp)) break;
    i += static_cast<size_t>(u.length);
  }
  return i;
}

// The whitespace run [i, j): the regex alternatives \s+(?!\S) | \s+. The first backs off one
// code point when a non-space follows, unless that leaves nothing, where \s+ takes the run.
size_t WhitespaceRunMatch(std::string_view t, size_t i, size_t j) {
  if (j == t.size()) return j;
  size_t last = i;  // start of the run's last code point
  for (size_t k = i; k < j; k += static_cast<size_t>(Utf8At(t, k).length)) last = k;
  return last > i ? last : j;
}

}  // namespace

size_t NextGpt2PreToken(std::string_view t, size_t i) {
  const Utf8Char u = Utf8At(t, i);
  const size_t n1 = i + static_cast<size_t>(u.length);
  if (u.cp == '\'') {
    if (size_t c = Contraction(t, i, false)) return i + c;
  }
  // " ?" before \p{L}+, \p{N}+ or [^\s\p{L}\p{N}]+: the class of the code point after it.
  size_t s = i;
  Utf8Char v = u;
  if (u.cp == ' ' && n1 < t.size()) {
    const Utf8Char w = Utf8At(t, n1);
    if (!IsWhiteSpace(w.cp)) {
      s = n1;
      v = w;
    }
  }
  if (IsLetter(v.cp)) return RunEnd(t, s, IsLetter);
  if (IsNumber(v.cp)) return RunEnd(t, s, IsNumber);
  if (!IsWhiteSpace(v.cp)) return RunEnd(t, s, IsOther);
  return WhitespaceRunMatch(t, i, RunEnd(t, i, IsWhiteSpace));
}

size_t NextLlama3PreToken(std::string_view t, size_t i) {
  const Utf8Char u = Utf8At(t, i);
  const size_t n1 = i + static_cast<size_t>(u.length);
  if (u.cp == '\'') {
    if (size_t c = Contraction(t, i, true)) return i + c;
  }
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (IsLetter(u.cp)) return RunEnd(t, i, IsLetter);
  if (u.cp != '\r' && u.cp != '\n' && !IsNumber(u.cp) && n1 < t.size() &&
      IsLetter(Utf8At(t, n1).cp)) {
    return RunEnd(t, n1, IsLetter);
  }
  // \p{N}{1,3}
  if (IsNumber(u.cp)) {
    size_t e = i;
    for (int k = 0; k < 3 && e < t.size() && IsNumber(Utf8At(t, e).cp); ++k) {
      e += static_cast<size_t>(Utf8At(t, e).length);
    }
    return e;
  }
  //  ?[^\s\p{L}\p{N}]+[\r\n]*
  size_t s = i;
  if (u.cp == ' ' && n1 < t.size() && IsOther(Utf8At(t, n1).cp)) s = n1;
  if (IsOther(Utf8At(t, s).cp)) {
    size_t e = RunEnd(t, s, IsOther);
    while (e < t.size() && (t[e] == '\r' || t[e] == '\n')) ++e;
    return e;
  }
  // \s*[\r\n]+ : up to the run's last line break.
  const size_t j = RunEnd(t, i, IsWhiteSpace);
  size_t last_break = std::string_view::npos;
  for (size_t k = i; k < j; k += static_cast<size_t>(Utf8At(t, k).length)) {
    if (t[k] == '\r' || t[k] == '\n') last_break = k;
  }
  if (last_break != std::string_view::npos) return last_break + 1;
  return WhitespaceRunMatch(t, i, j);
}

std::string_view SplitPatternName(SplitPattern p) {
  return p == SplitPattern::kGpt2 ? "GPT-2" : "Llama 3";
}

std::string_view SplitPatternRegex(SplitPattern p) {
  return p == SplitPattern::kGpt2 ? kGpt2Regex : kLlama3Regex;
}

std::vector<std::pair<size_t, size_t>> SplitPreTokens(std::string_view text, SplitPattern p) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < text.size();) {
    const size_t e =
        p == SplitPattern::kGpt2 ? NextGpt2PreToken(text, i) : NextLlama3PreToken(text, i);
    out.emplace_back(i, e);
    i = e;
  }
  return out;
}

char32_t ByteToUnicode(unsigned char b) {
  // Printable: '!'..'~', U+00A1..U+00AC, U+00AE..U+00FF keep their code; the rest get
  // U+0100 + (their rank among the non-printable bytes).
  auto printable = [](unsigned c) {
    return (c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF);
  };
  if (printable(b)) return b;
  char32_t n = 0;
  for (unsigned c = 0; c < b; ++c) n += printable(c) ? 0 : 1;
  return 0x100 + n;
}

}  // namespace pe
