// A tokenizer.json's pre-tokenizer: the components Hugging Face tokenizers applies to the
// normalized text to cut it into the pieces the model encodes one by one (pre_tokenizers/*.rs),
// each parsed from its JSON object and composed by Sequence.
//
// Components: Split (a string, or any regex the file gives, run by PCRE2 with its JIT in UTF
// and Unicode-property mode; behaviours Isolated, Removed, MergedWithPrevious, MergedWithNext,
// Contiguous; invert), ByteLevel (add_prefix_space, use_regex: GPT-2's split), Metaspace
// (replacement, prepend_scheme first / always / never, split), Digits (individual_digits),
// Punctuation, Whitespace, WhitespaceSplit, CharDelimiterSplit, BertPreTokenizer, Sequence. The
// GPT-2 and Llama 3 patterns are recognised and cut by the hand-written splitters of
// subword_pretokenize.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "text/normalizers.h"
#include "text/subword_tokenizer.h"

namespace pe {

// A compiled regex (PCRE2, UTF + UCP, JIT when the system's PCRE2 has it) or a literal string.
// Oniguruma's \s, \S, \w and \W (White_Space; letters, marks, decimal digits, connectors) are
// rewritten to the same Unicode classes in PCRE2 before compiling. Each match is bounded (a match
// limit and a depth limit), so a pattern that backtracks without end fails with an error instead
// of hanging. Safe to use from several threads at once.
class SplitRegex {
 public:
  ~SplitRegex();
  SplitRegex(const SplitRegex&) = delete;
  SplitRegex& operator=(const SplitRegex&) = delete;

  // `where` starts the message of a pattern PCRE2 refuses, which gives PCRE2's reason and the
  // offset in the pattern.
  static Result<std::shared_ptr<const SplitRegex>> Compile(std::string_view pattern,
                                                           const std::string& where);
  static std::shared_ptr<const SplitRegex> Literal(std::string s);

  // Appends the [begin, end) of each leftmost match in `subject` (valid UTF-8), left to right;
  // after an empty match the search goes on one code point further. An error when a match
  // exceeds the limits.
  Status FindAll(std::string_view subject, std::vector<std::pair<size_t, size_t>>& matches) const;

  const std::string& source() const { return source_; }

 private:
  SplitRegex() = default;
  std::string source_;
  std::string literal_;   // when code_ is null
  void* code_ = nullptr;  // pcre2_code*
};

// Pieces of one aligned text: [begin, end) byte ranges of `text.text`, in order, none empty,
// not overlapping (a Removed delimiter leaves a gap).
struct PreTokenized {
  AlignedText text;
  std::vector<std::pair<size_t, size_t>> pieces;
};

class PreTokenizer {
 public:
  // The pre-tokenizer of a tokenizer.json (`j` the value of "pre_tokenizer"); `where` starts
  // every message. An unknown component is refused with its type and place.
  static Result<PreTokenizer> FromJson(const nlohmann::json& j, const std::string& where);

  // How a Split keeps its matches (HF's SplitDelimiterBehavior).
  enum class Behavior { kIsolated, kRemoved, kMergedWithPrevious, kMergedWithNext, kContiguous };

  bool empty() const { return steps_.empty(); }
  std::string Describe() const;
  // Today's fast paths: ByteLevel with use_regex alone (GPT-2's split), or Split with the GPT-2 or
  // Llama 3 pattern (Isolated, not inverted) then ByteLevel without use_regex; neither adding a
  // prefix space after a Split. Sets *pattern and *prefix_space when so.
  bool IsByteLevelFastPath(SplitPattern* pattern, bool* prefix_space) const;
  bool HasByteLevel() const;
  bool IsBertOnly() const;

  // Cuts `in` (normalized, valid UTF-8) into `out`. An error only when a regex exceeds its
  // match limits.
  Status Apply(AlignedText in, PreTokenized& out) const;

 private:
  struct Step {
    enum class Kind {
      kSplit,
      kByteLevel,
      kMetaspace,
      kDigits,
      kPunctuation,
      kWhitespace,
      kWhitespaceSplit,
      kBert,
    };
    Kind kind = Kind::kSplit;
    std::shared_ptr<const SplitRegex> regex;  // Split, Whitespace
    int hand_written = -1;                    // Split: a SplitPattern cut by hand, or -1
    Behavior behavior = Behavior::kIsolated;
    bool invert = false;
    bool add_prefix_space = false, use_regex = true;  // ByteLevel
    std::string replacement;                          // Metaspace
    enum class Prepend { kAlways, kFirst, kNever } prepend = Prepend::kAlways;
    bool split = true;               // Metaspace
    bool individual_digits = false;  // Digits
  };
  Status Add(const nlohmann::json& j, const std::string& where, int depth);
  static Result<Behavior> ParseBehavior(const nlohmann::json& j, const std::string& where);
  static Status ApplyStep(const Step& s, PreTokenized& p,
                          std::vector<std::pair<size_t, size_t>>& next);

  std::vector<Step> steps_;
};

}  // namespace pe
