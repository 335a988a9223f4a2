// Byte-level BPE and WordPiece. The algorithms follow their reference implementations, read and
// written anew here: openai/gpt-2 src/encoder.py (bytes_to_unicode, the split pattern, the
// lowest-rank-first merge loop); Hugging Face tokenizers: pre_tokenizers/byte_level.rs,
// models/bpe/word.rs (merges driven by a priority queue of pair ranks, one per word),
// models/wordpiece/mod.rs (greedy longest-match-first with the "##" prefix), normalizers/bert.rs
// and pre_tokenizers/bert.rs (BERT's cleaning, CJK padding, accent stripping, lowercasing and
// split on whitespace and punctuation).
//
// This file: the lookups, the display of a token, and Encode (added tokens first, then the
// model's segmenter). The pre-tokenizers are in subword_pretokenize.cpp, the readers in
// subword_readers.cpp (text) and subword_files.cpp (paths), the models in subword_bpe.cpp and
// subword_wordpiece.cpp.
#include "text/subword_tokenizer.h"

#include <algorithm>

#include "io/read_support.h"
#include "text/normalizers.h"
#include "text/pretokenizers.h"
#include "text/subword_internal.h"
#include "text/unicode_props.h"

namespace pe {

int64_t SubwordTokenizer::Id(std::string_view token) const {
  return ids_.Find(token);
}

// ---- display

std::string SubwordTokenizer::DisplayToken(int64_t id) const {
  if (id < 0 || id >= size()) return "<id " + std::to_string(id) + ">";
  const std::string& raw = tokens_[static_cast<size_t>(id)];
  if (const int b = ByteFallbackByte(id); b >= 0) {
    if (b == '\n') return "\xe2\x86\xb5";  // ↵
    char buf[16];
    std::snprintf(buf, sizeof buf, "<0x%02X>", static_cast<unsigned>(b & 0xFF));
    return buf;
  }
  std::string bytes;
  bool byte_level = model_ == Model::kByteLevelBpe;
  if (byte_level) {
    for (const AddedToken& a : added_) {
      if (a.id == id) byte_level = false;  // special tokens are shown as written
    }
  }
  if (byte_level) {
    for (size_t i = 0; i < raw.size();) {
      const Utf8Char u = DecodeUtf8(raw, i);
      i += static_cast<size_t>(u.length);
      bool found = false;
      // The inverse of ByteToUnicode: Latin-1 printable bytes are themselves, U+0100.. the rest.
      if (u.cp < 0x100 && ByteToUnicode(static_cast<unsigned char>(u.cp)) == u.cp) {
        bytes += static_cast<char>(u.cp);
        found = true;
      } else if (u.cp >= 0x100 && u.cp < 0x100 + 68) {
        for (int b = 0; b < 256; ++b) {
          if (ByteToUnicode(static_cast<unsigned char>(b)) == u.cp) {
            bytes += static_cast<char>(b);
            found = true;
            break;
          }
        }
      }
      if (!found) AppendUtf8(bytes, u.cp);
    }
  } else {
    bytes = raw;
  }
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    const Utf8Char u = DecodeUtf8(bytes, i);
    if (!u.valid) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "<0x%02X>", static_cast<unsigned char>(bytes[i]));
      out += buf;
    } else if (u.cp == ' ') {
      out += "\xe2\x90\xa3";  // ␣
    } else if (u.cp == '\n') {
      out += "\xe2\x86\xb5";  // ↵
    } else if (u.cp == '\t') {
      out += "\xe2\x87\xa5";  // ⇥
    } else if (u.cp < 0x20 || u.cp == 0x7F || (u.cp >= 0x80 && u.cp < 0xA0)) {
      char buf[12];
      std::snprintf(buf, sizeof buf, "<0x%02X>", static_cast<unsigned>(u.cp));
      out += buf;
    } else {
      out.append(bytes, i, static_cast<size_t>(u.length));
    }
    i += static_cast<size_t>(u.length);
  }
  return out;
}

std::string_view SubwordTokenizer::ModelName() const {
  switch (model_) {
    case Model::kWordPiece:
      return "WordPiece";
    case Model::kUnigram:
      return "Unigram";
    case Model::kWordLevel:
      return "WordLevel";
    case Model::kSentencePiece:
      return "SentencePiece";
    default:
      return "BPE";
  }
}

std::string SubwordTokenizer::Describe() const {
  const std::string post = post_name_.empty() ? "" : ", " + post_name_;
  if (model_ == Model::kWordPiece) {
    return "WordPiece, " + std::to_string(size()) + " tokens" + (lowercase_ ? ", lowercased" : "") +
           post;
  }
  if (model_ == Model::kBpe) {
    return std::string("BPE") + (byte_fallback_ ? " with byte fallback" : "") + ", " +
           std::to_string(size()) + " tokens, " + std::to_string(merge_count_) + " merges" + post;
  }
  if (model_ == Model::kUnigram) {
    return std::string("Unigram") + (byte_fallback_ ? " with byte fallback" : "") + ", " +
           std::to_string(size()) + " pieces" + post;
  }
  if (model_ == Model::kWordLevel) return "WordLevel, " + std::to_string(size()) + " tokens" + post;
  if (model_ == Model::kSentencePiece) {
    return std::string("SentencePiece model") + (byte_fallback_ ? " with byte fallback" : "") +
           ", " + std::to_string(size()) + " pieces";
  }
  if (pre_tokenizer_) {
    std::string d = "byte-level BPE, ";
    if (!normalizer_->empty()) d += "normalizer " + normalizer_->Describe() + ", ";
    return d + "pre-tokenizer " + pre_tokenizer_->Describe() + ", " + std::to_string(size()) +
           " tokens, " + std::to_string(merge_count_) + " merges" + post;
  }
  return "byte-level BPE, " + std::string(SplitPatternName(pattern_)) + " split, " +
         std::to_string(size()) + " tokens, " + std::to_string(merge_count_) + " merges";
}

// ---- encoding

void SubwordTokenizer::Encoder::Segment(std::string_view text, int64_t base,
                                        std::vector<SubwordPiece>& out) {
  if (t_.sentencepiece_) {
    SentencePieceSegment(text, base, out);
    return;
  }
  if (t_.pre_tokenizer_) {
    GeneralSegment(text, base, out);
    return;
  }
  if (t_.model_ == Model::kWordPiece) {
    WordPieceSegment(text, base, out);
    return;
  }
  if (t_.model_ != Model::kByteLevelBpe) {
    ModelWord(text, base, out);
    return;
  }
  const bool gpt2 = t_.pattern_ == SplitPattern::kGpt2;
  for (size_t b = 0; b < text.size();) {
    const size_t e = gpt2 ? NextGpt2PreToken(text, b) : NextLlama3PreToken(text, b);
    BpeWord(text.substr(b, e - b), base + static_cast<int64_t>(b), out);
    b = e;
  }
}

// The normalizer, then the pre-tokenizer, then the model on each piece; the pieces' offsets
// map back to the source through the aligned text.
void SubwordTokenizer::Encoder::GeneralSegment(std::string_view text, int64_t base,
                                               std::vector<SubwordPiece>& out) {
  if (!status_.ok()) return;
  AlignedText a = AlignedText::Of(text, base);
  t_.normalizer_->Apply(a);
  if (Status s = t_.pre_tokenizer_->Apply(std::move(a), pre_); !s.ok()) {
    status_ = s;
    return;
  }
  const std::vector<int64_t>& from = pre_.text.from;
  for (const auto& [b, e] : pre_.pieces) {
    const std::string_view word = std::string_view(pre_.text.text).substr(b, e - b);
    if (t_.model_ == Model::kWordPiece) {
      WordPieceWord(word, b, from, 0, out);
      continue;
    }
    const size_t first = out.size();
    if (t_.model_ == Model::kByteLevelBpe) {
      BpeWord(word, 0, out);
    } else {
      ModelWord(word, 0, out);
    }
    for (size_t k = first; k < out.size(); ++k) {
      out[k].begin = from[b + static_cast<size_t>(out[k].begin)];
      out[k].end = from[b + static_cast<size_t>(out[k].end)];
    }
  }
}

namespace {

// Added tokens' edges (added_vocabulary.rs: \w and \s of the regex crate).
bool IsWordChar(char32_t cp) {
  return cp == '_' || IsLetter(cp) || IsNumber(cp);
}

// The code point that ends at `end` of valid UTF-8 `t` (end > 0).
char32_t CodePointBefore(std::string_view t, size_t end) {
  size_t k = end - 1;
  while (k > 0 && (static_cast<unsigned char>(t[k]) & 0xC0) == 0x80) --k;
  return Utf8At(t, k).cp;
}

}  // namespace

Result<std::vector<SubwordPiece>> SubwordTokenizer::Encode(std::string_view text,
                                                           SpecialTokens special) const {
  if (size_t bad = FindInvalidUtf8(text); bad != std::string_view::npos) {
    return InvalidArgument("the text is not valid UTF-8 at byte " + std::to_string(bad));
  }
  std::vector<SubwordPiece> out;
  out.reserve(text.size() / 4 + 1);
  Encoder encoder(*this);
  // Added tokens first: the text between them is split and merged.
  bool first_byte[256] = {};
  for (const AddedToken& a : added_) first_byte[static_cast<unsigned char>(a.content[0])] = true;
  size_t segment = 0;
  auto flush = [&](size_t end) {
    if (end <= segment) return;
    std::string_view part = text.substr(segment, end - segment);
    if (add_prefix_space_ && model_ == Model::kByteLevelBpe && part[0] != ' ') {
      // The prefix space is encoded with the first word; its piece starts at the word.
      std::string spaced = " ";
      spaced.append(part);
      const size_t before = out.size();
      encoder.Segment(spaced, static_cast<int64_t>(segment) - 1, out);
      for (size_t k = before; k < out.size(); ++k) {
        out[k].begin = std::max<int64_t>(out[k].begin, static_cast<int64_t>(segment));
        out[k].end = std::max<int64_t>(out[k].end, static_cast<int64_t>(segment));
      }
    } else {
      encoder.Segment(part, static_cast<int64_t>(segment), out);
    }
  };
  if (special == SpecialTokens::kAdd) {
    for (int32_t id : post_prefix_) out.push_back({id, 0, 0});
  }
  // Added tokens as added_vocabulary.rs find_matches does: leftmost-longest, without overlap; a
  // single_word token touching a word character is passed over; lstrip and rstrip take the
  // whitespace before and after (not what an earlier token took).
  if (!added_.empty()) {
    for (size_t i = 0; i < text.size();) {
      const AddedToken* hit = nullptr;
      if (first_byte[static_cast<unsigned char>(text[i])]) {
        for (const AddedToken& a : added_) {
          if (text.compare(i, a.content.size(), a.content) == 0) {
            hit = &a;
            break;
          }
        }
      }
      if (!hit) {
        ++i;
        continue;
      }
      size_t start = i, stop = i + hit->content.size();
      i = stop;
      if (hit->single_word) {
        const bool word_before = start > 0 && IsWordChar(CodePointBefore(text, start));
        const bool word_after = stop < text.size() && IsWordChar(Utf8At(text, stop).cp);
        if (word_before || word_after) continue;
      }
      if (hit->lstrip) {
        while (start > segment && IsWhiteSpace(CodePointBefore(text, start))) {
          const char32_t cp = CodePointBefore(text, start);
          start -= cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        }
      }
      if (hit->rstrip) {
        while (stop < text.size() && IsWhiteSpace(Utf8At(text, stop).cp)) {
          stop += static_cast<size_t>(Utf8At(text, stop).length);
        }
      }
      flush(start);
      out.push_back({hit->id, static_cast<int64_t>(start), static_cast<int64_t>(stop)});
      i = stop;
      segment = stop;
    }
  }
  flush(text.size());
  if (!encoder.status().ok()) return encoder.status().error();
  if (special == SpecialTokens::kAdd) {
    const auto n = static_cast<int64_t>(text.size());
    for (int32_t id : post_suffix_) out.push_back({id, n, n});
  }
  return out;
}

}  // namespace pe
