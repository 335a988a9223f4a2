// Reads pretrained word vectors into a vocabulary and a (V, d) float32 table, in the three
// formats they are shipped in:
//   - GloVe text: one row per line, "word v1 ... vd", no header (Stanford's glove.*.txt);
//   - word2vec / fastText text (.vec): a first line "V d", then V such rows (fastText writes
//     a space before each newline);
//   - word2vec binary (.bin): a first line "V d\n", then per row the word, a space and d
//     little-endian float32 values, optionally followed by '\n' (word2vec.c's output, read
//     as gensim's KeyedVectors.load_word2vec_format(binary=True) reads it).
// Numbers are parsed with std::from_chars (correctly rounded to float32). Words must be
// non-empty, valid UTF-8 and unique; every row must have exactly d values; a header's V must
// match the rows. Messages name the line (text) or the row and byte offset (binary) and what
// was expected. The memory cap is checked before the table is allocated (from the header
// when there is one) and as rows arrive. Nothing throws.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"
#include "io/read_support.h"

namespace pe {

enum class WordVectorFormat {
  kAuto,  // a first line of two integers is a header; then text rows -> kVecText,
          // anything else -> kWord2VecBinary; no header -> kGloveText. A GloVe file
          // of d = 1 whose first word is an integer reads as a header: name the format.
  kGloveText,
  kVecText,
  kWord2VecBinary,
};

// "glove", "vec", "word2vec-binary" ("auto" for kAuto).
const char* WordVectorFormatName(WordVectorFormat format);

struct WordVectors {
  WordVectorFormat format = WordVectorFormat::kAuto;  // the format read (never kAuto)
  std::vector<std::string> words;                     // (V,) in file order
  Matrix table;                                       // (V, d)
  int64_t nan_count = 0;  // NaN and Inf values are loaded as they are, and counted
  int64_t inf_count = 0;
  bool has_non_finite() const { return nan_count != 0 || inf_count != 0; }
};

Result<WordVectors> ReadWordVectors(ByteSource& source,
                                    WordVectorFormat format = WordVectorFormat::kAuto,
                                    const MemoryCap& cap = {});
Result<WordVectors> ReadWordVectors(std::span<const std::byte> bytes,
                                    WordVectorFormat format = WordVectorFormat::kAuto,
                                    const MemoryCap& cap = {});
// The same from a file (memory-mapped; a pipe or device is read as far as the rows go, under
// the cap). Every message starts with the quoted path.
Result<WordVectors> ReadWordVectorsFile(const std::string& path,
                                        WordVectorFormat format = WordVectorFormat::kAuto,
                                        const MemoryCap& cap = {});

}  // namespace pe
