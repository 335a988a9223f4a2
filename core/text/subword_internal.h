// What the subword tokenizer's files share and nothing else uses: a code point read with an ASCII
// fast path, the pre-tokenizers' next piece, and the encoder's state (subword_bpe.cpp holds the
// byte-level BPE merges and the word cache, subword_wordpiece.cpp WordPiece).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/pretokenizers.h"
#include "text/subword_tokenizer.h"
#include "text/unicode_props.h"

namespace pe {

// The code point at `at` of valid UTF-8.
inline Utf8Char Utf8At(std::string_view t, size_t at) {
  const auto c = static_cast<unsigned char>(t[at]);
  if (c < 0x80) return {c, 1, true};
  return DecodeUtf8(t, at);
}

// The end of the pre-token that starts at byte `i` (< t.size()) of valid UTF-8 `t`, by GPT-2's
// or Llama 3's split pattern (SplitPattern).
size_t NextGpt2PreToken(std::string_view t, size_t i);
size_t NextLlama3PreToken(std::string_view t, size_t i);

// One Encode call's state: the word cache and the merge workspace.
class SubwordTokenizer::Encoder {
 public:
  explicit Encoder(const SubwordTokenizer& t) : t_(t) {}

  // Appends the pieces of `text` (no added tokens in it), offsets shifted by `base`.
  void Segment(std::string_view text, int64_t base, std::vector<SubwordPiece>& out);
  // Why the pieces stopped (a regex over its limits), else ok.
  const Status& status() const { return status_; }

 private:
  // The word cache: open addressing with linear probing over a power-of-two table; the words'
  // bytes live in keys_, their pieces in pieces_. Cleared when full, so memory stays bounded.
  struct Slot {
    uint64_t hash = 0;
    uint32_t key = 0, key_len = 0;  // into keys_
    uint32_t first = 0, count = 0;  // into pieces_; count 0: empty
  };
  static constexpr size_t kMaxCachedWords = 1 << 17;
  static constexpr size_t kMaxCachedWordBytes = 256;

  static uint64_t HashBytes(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, then a final mix for the low bits
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
  }

  void Grow();
  Slot* Find(std::string_view word, uint64_t hash);
  void BpeWord(std::string_view word, int64_t begin, std::vector<SubwordPiece>& out);
  void Merge(std::string_view word);
  // The lowest-rank-first merge loop over the n symbols in id_/len_/prev_/next_.
  void MergeSymbols(size_t n);

 public:
  // One pre-token through the model when it is not byte-level BPE or WordPiece (kBpe, kUnigram,
  // kWordLevel; subword_models.cpp), cached as BpeWord is; pieces offset by `begin`.
  void ModelWord(std::string_view word, int64_t begin, std::vector<SubwordPiece>& out);

 private:
  // Each leaves the word's (id, bytes) pieces in result_.
  void CharBpeWord(std::string_view word);
  void UnigramWord(std::string_view word);
  void WordLevelWord(std::string_view word);

  static uint64_t Key(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b);
  }
  struct Pending {
    int32_t rank, left, right, merged;
  };
  // Max-heap order reversed: the lowest rank, then the leftmost, comes out first.
  static bool Later(const Pending& x, const Pending& y) {
    return x.rank != y.rank ? x.rank > y.rank : x.left > y.left;
  }

  void WordPieceSegment(std::string_view text, int64_t base, std::vector<SubwordPiece>& out);
  void WordPieceWord(std::string_view word, size_t at, const std::vector<int64_t>& from,
                     int64_t base, std::vector<SubwordPiece>& out);

  void GeneralSegment(std::string_view text, int64_t base, std::vector<SubwordPiece>& out);
  void SentencePieceSegment(std::string_view text, int64_t base, std::vector<SubwordPiece>& out);

  const SubwordTokenizer& t_;
  Status status_;
  PreTokenized pre_;         // the general path's pieces, kept for their memory
  std::vector<Slot> slots_;  // (2 * kMaxCachedWords)
  std::string keys_;
  size_t cached_ = 0;
  std::vector<std::pair<int32_t, int32_t>> pieces_;  // (id, bytes) of cached words
  std::vector<int32_t> id_, len_, prev_, next_;
  std::vector<Pending> heap_;
  std::vector<std::pair<int32_t, int32_t>> result_;  // ModelWord's (id, bytes)
  struct Best {
    double score = 0;
    int32_t from = -1;  // the byte the best path's last piece starts at; -1: not reached
    int32_t id = -1;
  };
  std::vector<Best> best_;  // Unigram's lattice, (word bytes + 1)
};

}  // namespace pe
