#include "text/tokenizer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <span>
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

std::string VisibleWhitespace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (c == '\r' && k + 1 < text.size() && text[k + 1] == '\n') continue;
    if (c == '\n' || c == '\r') {
      out += "\xe2\x86\xb5";  // ↵
    } else if (c == '\t') {
      out += "\xe2\x86\x92";  // →
    } else {
      out += c;
    }
  }
  return out;
}

std::string AbbreviatedText(std::string_view text, size_t max_chars) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    // Whitespace alone: count it instead of repeating it.
    size_t spaces = 0, tabs = 0, newlines = 0;
    for (size_t k = 0; k < text.size(); ++k) {
      if (text[k] == ' ') ++spaces;
      if (text[k] == '\t') ++tabs;
      if (text[k] == '\n' || (text[k] == '\r' && (k + 1 == text.size() || text[k + 1] != '\n')))
        ++newlines;
    }
    std::string parts;
    auto add = [&](size_t n, const char* one, const char* many) {
      if (n == 0) return;
      if (!parts.empty()) parts += ", ";
      parts += std::to_string(n) + " " + (n == 1 ? one : many);
    };
    add(spaces, "space", "spaces");
    add(tabs, "tab", "tabs");
    add(newlines, "newline", "newlines");
    return parts;
  }
  // Cut after `max_chars` code points (never inside one).
  size_t chars = 0, cut = 0;
  while (cut < text.size() && chars < max_chars) {
    cut += static_cast<size_t>(Utf8Length(static_cast<unsigned char>(text[cut])));
    ++chars;
  }
  cut = std::min(cut, text.size());
  std::string out = "\"";
  out += VisibleWhitespace(text.substr(0, cut));
  if (cut < text.size()) {
    out += "\xe2\x80\xa6\" (" + std::to_string(text.size()) + " bytes)";  // …
  } else {
    out += "\"";
  }
  return out;
}

std::string NoTokensMessage(std::string_view text) {
  if (text.empty()) return "the text is empty: it has no tokens";
  const std::string a = AbbreviatedText(text);
  return a.front() == '"' ? "the text " + a + " has no tokens"
                          : "the text (" + a + ") has no tokens";
}

Status CheckMultilineText(const std::string& what, std::string_view text) {
  auto fail = [&](size_t at, const std::string& problem) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned char>(text[at]));
    return InvalidArgument(what + " " + problem + " at byte offset " + std::to_string(at) + " (" +
                           buf + ")");
  };
  size_t bad = 0;
  if (!IsValidUtf8(std::as_bytes(std::span<const char>(text.data(), text.size())), &bad)) {
    return fail(bad, "is not valid UTF-8");
  }
  for (size_t k = 0; k < text.size(); ++k) {
    const auto c = static_cast<unsigned char>(text[k]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
      Error e = fail(k, "holds a control character");
      e.message += "; only tab and newline are allowed";
      return e;
    }
  }
  return {};
}

Result<std::string> ReadTextFile(const std::string& path, const MemoryCap& cap) {
  const uint64_t limit = cap.bytes / kTextFileCopies;
  auto too_long = [&](const std::string& size) {
    return InvalidArgument(Quoted(path) + " (" + size + ") is longer than the " +
                           FormatBytes(limit) + " a text may take under the memory cap of " +
                           FormatBytes(cap.bytes) + " (1/" + std::to_string(kTextFileCopies) +
                           " of it); use a shorter text or raise the cap (--memory-cap-mib)");
  };
  Result<std::unique_ptr<FileSource>> src = FileSource::Open(path, limit);
  if (!src.ok()) return src.error();
  if (std::optional<uint64_t> size = src.value()->KnownSize(); size && *size > limit) {
    return too_long(FormatBytes(*size));
  }
  Result<std::span<const std::byte>> bytes = src.value()->Prefix(limit + 1);
  if (!bytes.ok()) {
    return bytes.error().kind == Error::Kind::kRuntime
               ? bytes.error()
               : too_long("a stream of more than " + FormatBytes(limit));
  }
  if (bytes.value().size() > limit) return too_long(FormatBytes(bytes.value().size()));
  std::string text(reinterpret_cast<const char*>(bytes.value().data()), bytes.value().size());
  if (Status s = CheckMultilineText(Quoted(path), text); !s.ok()) return s.error();
  return text;
}

}  // namespace pe
