// Tokenizers and vocabularies for the teaching examples: word level (the default) and
// character level. Not a subword tokenizer; ids mean nothing outside this app.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"

namespace pe {

enum class TokenizerKind { kWord, kChar };

std::string_view TokenizerName(TokenizerKind kind);  // "word", "char"
std::optional<TokenizerKind> ParseTokenizer(std::string_view name);

struct Token {
  std::string text;
  int64_t begin = 0;  // byte offsets into the source text
  int64_t end = 0;
  // A subword tokenizer's own string for the token ("Ġworld", shown as "␣world"), when
  // `text` is a readable form of it; empty for the word and character tokenizers.
  std::string raw;
  bool operator==(const Token&) const = default;
};

// kWord: case-sensitive runs of letters, digits, '_' and non-ASCII UTF-8 bytes; every other
//        non-space character is a token of its own ("I love NLP." -> I, love, NLP, .).
// kChar: every UTF-8 code point, spaces included.
std::vector<Token> Tokenize(std::string_view text, TokenizerKind kind);

inline constexpr std::string_view kUnknownToken = "<unk>";

class Vocabulary {
 public:
  // Ids in order of first appearance: "The cat sits on the mat" -> The=0 cat=1 sits=2 on=3
  // the=4 mat=5. Has no <unk>: every token of the text is in it.
  static Vocabulary FromTokens(const std::vector<Token>& tokens);
  // A fixed vocabulary, ids in list order; "<unk>" is appended when the list lacks it, and
  // unknown words map to it. Duplicates and empty entries are errors naming them.
  static Result<Vocabulary> FromList(const std::vector<std::string>& words);

  int64_t size() const { return static_cast<int64_t>(words_.size()); }
  const std::string& word(int64_t id) const { return words_[static_cast<size_t>(id)]; }
  // The id of `word`, <unk>'s id for an unknown word, or -1 when there is no <unk>.
  int64_t Id(std::string_view word) const;
  std::vector<int64_t> Ids(const std::vector<Token>& tokens) const;
  int64_t unknown_id() const { return unknown_id_; }

 private:
  int64_t Add(const std::string& word);
  std::vector<std::string> words_;
  std::unordered_map<std::string, int64_t> index_;
  int64_t unknown_id_ = -1;
};

// Reads a vocabulary file: one token per line, "\r\n" line ends allowed, empty lines skipped.
// Each token must be valid UTF-8 and appear once: the refusal names the file and the line.
// Only regular files are read (a directory, FIFO or device such as /dev/zero is refused with a
// message naming the path and what it is). The list is kept several times over (the request,
// the app's caches, the Vocabulary's index), so the read is bounded by `cap` against an
// estimate of kVocabularyCopies * bytes + kVocabularyBytesPerEntry * entries, checked from the
// file size before reading and again while reading (bytes are counted, so a file that grows or
// lies about its size cannot overrun). Errors name the path; unreadable files are runtime
// errors, the rest invalid arguments.
// Measured: a 100 MiB file of 11.6 million short words peaks at 1.55 GB in a sum export; the
// estimate says 1.9 GB.
inline constexpr uint64_t kVocabularyCopies = 4;
inline constexpr uint64_t kVocabularyBytesPerEntry = 128;
Result<std::vector<std::string>> ReadVocabularyFile(const std::string& path, const MemoryCap& cap);

// A token or a text as a figure or a chip shows it: a newline as U+21B5 (↵), a tab as U+2192
// (→), a carriage return before a newline dropped (one ↵ for "\r\n") and a lone one as ↵ too;
// everything else as it is.
std::string VisibleWhitespace(std::string_view text);

// The text quoted for a message, at most about `max_chars` code points (longer: its start and
// "…", with the length in bytes), whitespace shown by VisibleWhitespace; a text of whitespace
// alone is described ("1000 spaces", "2 newlines and 3 spaces") rather than repeated.
std::string AbbreviatedText(std::string_view text, size_t max_chars = 40);
// "the text \"...\" has no tokens" / "the text is empty: it has no tokens", abbreviated.
std::string NoTokensMessage(std::string_view text);

// The text of a file for --text-file: UTF-8 (a message names the file and the byte offset of the
// first bad byte), holding no control characters but tab, newline and carriage return. Regular
// files, pipes and character devices are read (FileSource); the text is kept several times
// over (tokens, figures, the session), so it may take at most cap / kTextFileCopies bytes,
// checked from a regular file's size before reading and while a stream is read.
// Ok when `text` is valid UTF-8 holding no control characters but tab, newline and carriage
// return; else "WHAT is not valid UTF-8 at byte offset N (0xFF)" or "WHAT holds a control
// character at byte offset N (0x01); only tab and newline are allowed".
Status CheckMultilineText(const std::string& what, std::string_view text);

inline constexpr uint64_t kTextFileCopies = 64;
Result<std::string> ReadTextFile(const std::string& path, const MemoryCap& cap);

}  // namespace pe
