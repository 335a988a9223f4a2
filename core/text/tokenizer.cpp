#include "text/tokenizer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "io/read_support.h"

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
        {std::string(text.substr(static_cast<size_t>(b), static_cast<size_t>(e - b))), b, e, {}});
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
  // One hash lookup per entry and no rehashing: a file vocabulary may hold millions of words.
  v.words_.reserve(words.size() + 1);
  v.index_.reserve(words.size() + 1);
  for (size_t k = 0; k < words.size(); ++k) {
    if (words[k].empty()) {
      return InvalidArgument("vocabulary entry " + std::to_string(k + 1) + " is empty");
    }
    if (!v.index_.emplace(words[k], v.size()).second) {
      return InvalidArgument("vocabulary entry " + std::to_string(k + 1) + " \"" + words[k] +
                             "\" appears twice");
    }
    v.words_.push_back(words[k]);
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

namespace {

Result<std::vector<std::string>> ReadVocabularyFileImpl(const std::string& path,
                                                        const MemoryCap& cap) {
  const std::string quoted = "\"" + path + "\"";
  // O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return RuntimeError("cannot read " + quoted + ": " + std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return RuntimeError("cannot read " + quoted + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return InvalidArgument(quoted + " is " + kind +
                           "; expected a regular text file with one token per line");
  }
  auto over_cap = [&](uint64_t bytes, uint64_t entries) -> Status {
    const uint64_t need = SaturatingAdd(SaturatingMul(kVocabularyCopies, bytes),
                                        SaturatingMul(kVocabularyBytesPerEntry, entries));
    if (need <= cap.bytes) return {};
    return InvalidArgument(quoted + " (" + FormatBytes(bytes) + ", " + std::to_string(entries) +
                           " entries so far) needs about " + FormatBytes(need) +
                           " in memory, over the memory cap of " + FormatBytes(cap.bytes) +
                           "; use a smaller vocabulary or raise the cap (--memory-cap-mib)");
  };
  const auto size = static_cast<uint64_t>(st.st_size);
  if (Status s = over_cap(size, 0); !s.ok()) return s.error();
  std::vector<std::string> words;
  std::unordered_map<std::string, uint64_t> first_line;  // word -> its line (from 1)
  std::string line;
  uint64_t total = 0, line_no = 0;
  char buf[1 << 16];
  auto finish_line = [&]() -> Status {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) {
      const std::string at = quoted + " line " + std::to_string(line_no) + ": ";
      size_t bad = 0;
      if (const size_t nul = line.find('\0'); nul != std::string::npos) {
        return InvalidArgument(at + "byte " + std::to_string(nul) +
                               " of the line is a NUL byte: binary data, not a token list");
      }
      if (!IsValidUtf8(std::as_bytes(std::span(line)), &bad)) {
        return InvalidArgument(at + "byte " + std::to_string(bad) +
                               " of the line is not valid UTF-8; expected one UTF-8 token a line");
      }
      auto [it, inserted] = first_line.emplace(line, line_no);
      if (!inserted) {
        return InvalidArgument(at + "the token \"" + line + "\" appears again (first at line " +
                               std::to_string(it->second) + "); expected unique tokens");
      }
      words.push_back(std::move(line));
    }
    line.clear();
    return over_cap(total, words.size());
  };
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return RuntimeError("cannot read " + quoted + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    for (ssize_t k = 0; k < n; ++k) {
      if (buf[k] == '\n') {
        if (Status s = finish_line(); !s.ok()) return s.error();
      } else {
        line += buf[k];
      }
    }
    if (Status s = over_cap(total, words.size()); !s.ok()) return s.error();
  }
  if (!line.empty()) {
    if (Status s = finish_line(); !s.ok()) return s.error();
  }
  if (words.empty()) return InvalidArgument(quoted + " holds no tokens");
  return words;
}

}  // namespace

Result<std::vector<std::string>> ReadVocabularyFile(const std::string& path, const MemoryCap& cap) {
  return CatchReaderExceptions(path, [&] { return ReadVocabularyFileImpl(path, cap); });
}

}  // namespace pe
