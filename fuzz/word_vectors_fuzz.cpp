// libFuzzer target for the word-vector reader, in every format: what reads is a vocabulary of
// unique, non-empty UTF-8 words and a (V, d) table; what does not read has a message.
#include <set>
#include <string>

#include "fuzz_check.h"
#include "io/word_vectors_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pe;
  const MemoryCap cap{fuzz::kFuzzCapBytes};
  const auto bytes = fuzz::Bytes(data, size);
  for (WordVectorFormat format : {WordVectorFormat::kAuto, WordVectorFormat::kGloveText,
                                  WordVectorFormat::kVecText, WordVectorFormat::kWord2VecBinary}) {
    auto r = ReadWordVectors(bytes, format, cap);
    if (!r.ok()) {
      PE_FUZZ_CHECK(!r.message().empty());
      continue;
    }
    const WordVectors& w = r.value();
    PE_FUZZ_CHECK(w.format != WordVectorFormat::kAuto);
    PE_FUZZ_CHECK(format == WordVectorFormat::kAuto || w.format == format);
    PE_FUZZ_CHECK(w.table.rows == static_cast<int64_t>(w.words.size()));
    PE_FUZZ_CHECK(w.table.cols >= 1 || w.words.empty());
    PE_FUZZ_CHECK(w.table.data.size() == static_cast<size_t>(w.table.rows * w.table.cols));
    std::set<std::string> unique;
    for (const std::string& word : w.words) {
      size_t bad = 0;
      PE_FUZZ_CHECK(!word.empty());
      PE_FUZZ_CHECK(IsValidUtf8(std::as_bytes(std::span(word.data(), word.size())), &bad));
      PE_FUZZ_CHECK(unique.insert(word).second);
    }
  }
  return 0;
}
