#include "base/closest_word.h"

#include <algorithm>
#include <cctype>

namespace pe {
namespace {

char Lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  if (prefix.size() > text.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (Lower(text[i]) != Lower(prefix[i])) return false;
  }
  return true;
}

int Allowed(size_t length) {
  return length <= 4 ? 1 : length <= 8 ? 2 : 3;
}

}  // namespace

int EditDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment: three rows of the dynamic programme (the swap looks two back).
  const size_t n = b.size();
  std::vector<int> two(n + 1), one(n + 1), row(n + 1);
  for (size_t j = 0; j <= n; ++j) one[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= n; ++j) {
      const int cost = Lower(a[i - 1]) == Lower(b[j - 1]) ? 0 : 1;
      row[j] = std::min({one[j] + 1, row[j - 1] + 1, one[j - 1] + cost});
      if (i > 1 && j > 1 && Lower(a[i - 1]) == Lower(b[j - 2]) &&
          Lower(a[i - 2]) == Lower(b[j - 1])) {
        row[j] = std::min(row[j], two[j - 2] + 1);
      }
    }
    std::swap(two, one);
    std::swap(one, row);
  }
  return one[n];
}

std::vector<std::string> NearestWords(std::string_view word,
                                      const std::vector<std::string>& candidates) {
  std::vector<std::string> nearest;
  if (word.empty()) return nearest;
  const int allowed = Allowed(word.size());
  int best = allowed + 1;
  for (const std::string& c : candidates) {
    if (c == word) return {};  // typed right: nothing to suggest
    const int d = EditDistance(word, c);
    if (d > allowed) continue;
    if (d < best) {
      best = d;
      nearest.assign(1, c);
    } else if (d == best && std::find(nearest.begin(), nearest.end(), c) == nearest.end()) {
      nearest.push_back(c);
    }
  }
  if (!nearest.empty() || word.size() < 2) return nearest;
  // No typo near enough: the candidates that the word begins ("rot" -> "rotation").
  for (const std::string& c : candidates) {
    if (StartsWith(c, word) && std::find(nearest.begin(), nearest.end(), c) == nearest.end()) {
      nearest.push_back(c);
    }
  }
  return nearest;
}

std::optional<std::string> ClosestWord(std::string_view word,
                                       const std::vector<std::string>& candidates) {
  std::vector<std::string> nearest = NearestWords(word, candidates);
  if (nearest.size() != 1) return std::nullopt;
  return nearest.front();
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::vector<std::string> nearest = NearestWords(word, candidates);
  if (nearest.empty() || nearest.size() > 3) return "";
  std::string text = " (did you mean " + nearest[0];
  for (size_t k = 1; k < nearest.size(); ++k) {
    text += (k + 1 == nearest.size() ? " or " : ", ") + nearest[k];
  }
  return text + "?)";
}

std::vector<std::string> WordsOfList(std::string_view list) {
  std::vector<std::string> words;
  auto is_word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
  };
  list = list.substr(0, list.find('('));  // what follows "(" explains, it lists nothing
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && !is_word_char(list[i])) ++i;
    size_t j = i;
    while (j < list.size() && is_word_char(list[j])) ++j;
    std::string w(list.substr(i, j - i));
    while (!w.empty() && w.back() == '.') w.pop_back();  // a sentence's full stop
    if (!w.empty() && w != "one" && w != "of" && w != "or") words.push_back(std::move(w));
    i = j;
  }
  return words;
}

}  // namespace pe
