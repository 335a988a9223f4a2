// A tokenizer.json's normalizer: the components Hugging Face tokenizers applies to the text before
// the pre-tokenizer (normalizers/*.rs), each parsed from its JSON object and composed by Sequence.
// Every step keeps, for each byte of the text it makes, the byte of the source text it came from,
// so the pieces the model makes still cover the text the user typed.
//
// Components: NFC, NFD, NFKC, NFKD (through ICU's Normalizer2: the Unicode data the system has,
// not a table of our own), Lowercase, Strip, StripAccents, Replace (a string or a regex), Prepend,
// BertNormalizer, Precompiled (SentencePiece's compiled character map, applied grapheme by
// grapheme as the reference does) and Sequence (an empty one does nothing).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace pe {

class SplitRegex;

// Text with the source byte of each of its bytes: from.size() == text.size() + 1, and
// from[text.size()] is the end of the source. A byte a component inserted maps to the source
// byte it stands before.
struct AlignedText {
  std::string text;
  std::vector<int64_t> from;

  // `source` itself, its bytes numbered from `base`.
  static AlignedText Of(std::string_view source, int64_t base);
};

class Normalizer {
 public:
  // The normalizer of a tokenizer.json (`j` the value of "normalizer"); null gives none.
  // `where` ("t.json: normalizer") starts every message; an unknown component is refused with
  // its type and its place ("normalizer step 2 (Precompiled)").
  static Result<Normalizer> FromJson(const nlohmann::json& j, const std::string& where);

  bool empty() const { return steps_.empty(); }
  // The component types, in order ("NFC", "Replace"), for messages and descriptions.
  std::string Describe() const;
  // Whether the only component is BertNormalizer (the WordPiece path applies it itself), and
  // its settings.
  struct Bert {
    bool clean_text = true, handle_chinese_chars = true, strip_accents = false, lowercase = true;
  };
  bool IsBertOnly(Bert* settings) const;

  // Normalizes `t` in place (valid UTF-8 in, valid UTF-8 out).
  void Apply(AlignedText& t) const;

 private:
  struct CharsMap;
  struct Step {
    enum class Kind {
      kNfc,
      kNfd,
      kNfkc,
      kNfkd,
      kLowercase,
      kStrip,
      kStripAccents,
      kReplace,
      kPrepend,
      kBert,
      kPrecompiled,
    };
    Kind kind = Kind::kNfc;
    std::string pattern, content;              // Replace: the string (or none), the content
    std::shared_ptr<const SplitRegex> regex;   // Replace with a Regex pattern
    bool left = false, right = false;          // Strip
    Bert bert;                                 // BertNormalizer
    std::shared_ptr<const CharsMap> charsmap;  // Precompiled
  };
  Status Add(const nlohmann::json& j, const std::string& where, int depth);
  static void ApplyStep(const Step& s, AlignedText& t);
  static void ApplyCharsMap(const CharsMap& map, AlignedText& t);

  std::vector<Step> steps_;
};

}  // namespace pe
