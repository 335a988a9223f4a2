#include "figure/text_wrap.h"

namespace pe {
namespace {

using Width = std::function<double(const std::string&)>;

// `text` cut after each occurrence of `sep` (the separator stays with the piece before it).
std::vector<std::string> SplitAfter(const std::string& text, const std::string& sep) {
  std::vector<std::string> pieces;
  size_t at = 0;
  while (at < text.size()) {
    const size_t hit = text.find(sep, at);
    const size_t end = hit == std::string::npos ? text.size() : hit + sep.size();
    pieces.push_back(text.substr(at, end - at));
    at = end;
  }
  return pieces;
}

// `text` cut after each ", " outside parentheses ("score(m, n)" stays whole).
std::vector<std::string> SplitAtCommas(const std::string& text) {
  std::vector<std::string> pieces;
  size_t start = 0;
  int depth = 0;
  for (size_t k = 0; k < text.size(); ++k) {
    if (text[k] == '(') ++depth;
    if (text[k] == ')' && depth > 0) --depth;
    if (depth == 0 && text[k] == ',' && k + 1 < text.size() && text[k + 1] == ' ') {
      pieces.push_back(text.substr(start, k + 2 - start));
      start = k + 2;
    }
  }
  if (start < text.size()) pieces.push_back(text.substr(start));
  return pieces;
}

// Pieces joined greedily into lines; a line does not end or start with the space it broke at.
std::vector<std::string> Greedy(const std::vector<std::string>& pieces, double max_width,
                                const Width& width) {
  auto trim_end = [](std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  };
  std::vector<std::string> lines;
  std::string line;
  for (const std::string& piece : pieces) {
    if (!line.empty() && width(trim_end(line + piece)) > max_width) {
      lines.push_back(trim_end(line));
      line = piece.substr(piece.find_first_not_of(' ') == std::string::npos
                              ? piece.size()
                              : piece.find_first_not_of(' '));
    } else {
      line += piece;
    }
  }
  if (!trim_end(line).empty()) lines.push_back(trim_end(line));
  return lines;
}

size_t NextCodePoint(const std::string& s, size_t at) {
  ++at;
  while (at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) ++at;
  return at;
}

// One word wider than the line, cut into pieces that fit.
void BreakWord(const std::string& word, double max_width, const Width& width,
               std::vector<std::string>& out) {
  size_t start = 0;
  while (start < word.size()) {
    size_t end = NextCodePoint(word, start);  // at least one character a line
    while (end < word.size()) {
      const size_t next = NextCodePoint(word, end);
      if (width(word.substr(start, next - start)) > max_width) break;
      end = next;
    }
    if (end < word.size()) {
      // Prefer a break after punctuation in the second half of the line.
      for (size_t k = end; k > start + (end - start) / 2; --k) {
        const char c = word[k - 1];
        if (c == '.' || c == '_' || c == '/' || c == '-' || c == ':' || c == '(') {
          end = k;
          break;
        }
      }
    }
    out.push_back(word.substr(start, end - start));
    start = end;
  }
}

}  // namespace

std::vector<std::string> WrapText(const std::string& text, double max_width, const Width& width,
                                  bool prefer_commas) {
  std::vector<std::string> lines;
  const std::vector<std::string> first = prefer_commas
                                             ? Greedy(SplitAtCommas(text), max_width, width)
                                             : std::vector<std::string>{text};
  for (const std::string& part : first) {
    if (width(part) <= max_width) {
      lines.push_back(part);
      continue;
    }
    for (const std::string& line : Greedy(SplitAfter(part, " "), max_width, width)) {
      if (width(line) <= max_width) {
        lines.push_back(line);
      } else {
        BreakWord(line, max_width, width, lines);
      }
    }
  }
  return lines;
}

}  // namespace pe
