#include "tokenizer.h"

namespace pe {

std::string_view TokenizerName(TokenizerKind kind) {
  return kind == TokenizerKind::kWord ? "word" : "char";
}

std::optional<TokenizerKind> ParseTokenizer(std::string_view name) {
  if (name == "word") return TokenizerKind::kWord;
  if (name == "char") return TokenizerKind::kChar;
  return std::nullopt;
}

namespace {

bool IsSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool IsWordByte(unsigned char c) {
  return c >= 0x80 || c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}
// Length of the UTF-8 sequence that starts with `c` (1 for a stray continuation byte).
int Utf8Length(unsigned char c) {
  if (c >= 0xF0 && c < 0xF8) return 4;
  if (c >= 0xE0) return 3;
  if (c >= 0xC0) return 2;
  return 1;
}

}  // namespace

std::vector<Token> Tokenize(std::string_view text, TokenizerKind kind) {
  std::vector<Token> tokens;
  const auto n = static_cast<int64_t>(text.size());
  auto at = [&](int64_t i) { return static_cast<unsigned char>(text[static_cast<size_t>(i)]); };
  auto emit = [&](int64_t b, int64_t e) {
    tokens.push_back(
        {std::string(text.substr(static_cast<size_t>(b), static_cast<size_t>(e - b))), b, e});
  };
  int64_t i = 0;
  while (i < n) {
    if (kind == TokenizerKind::kChar) {
      int64_t e = std::min(n, i + Utf8Length(at(i)));
      emit(i, e);
      i = e;
    } else if (IsSpace(at(i))) {
      ++i;
    } else if (IsWordByte(at(i))) {
      int64_t e = i;
      while (e < n && IsWordByte(at(e))) ++e;
      emit(i, e);
      i = e;
    } else {
      emit(i, i + 1);
      ++i;
    }
  }
  return tokens;
}

int64_t Vocabulary::Add(const std::string& word) {
  auto [it, inserted] = index_.emplace(word, size());
  if (inserted) words_.push_back(word);
  return it->second;
}

Vocabulary Vocabulary::FromTokens(const std::vector<Token>& tokens) {
  Vocabulary v;
  for (const Token& t : tokens) v.Add(t.text);
  return v;
}

Result<Vocabulary> Vocabulary::FromList(const std::vector<std::string>& words) {
  Vocabulary v;
  for (size_t k = 0; k < words.size(); ++k) {
    if (words[k].empty()) {
      return InvalidArgument("vocabulary entry " + std::to_string(k + 1) + " is empty");
    }
    if (v.index_.count(words[k])) {
      return InvalidArgument("vocabulary entry " + std::to_string(k + 1) + " \"" + words[k] +
                             "\" appears twice");
    }
    v.Add(words[k]);
  }
  v.unknown_id_ = v.Add(std::string(kUnknownToken));
  return v;
}

int64_t Vocabulary::Id(std::string_view word) const {
  auto it = index_.find(std::string(word));
  return it == index_.end() ? unknown_id_ : it->second;
}

std::vector<int64_t> Vocabulary::Ids(const std::vector<Token>& tokens) const {
  std::vector<int64_t> ids;
  ids.reserve(tokens.size());
  for (const Token& t : tokens) ids.push_back(Id(t.text));
  return ids;
}

}  // namespace pe
