// libFuzzer target for the SentencePiece .model reader (the SentencePiece library behind
// text/subword_sentencepiece.cpp): what loads encodes a few texts into ids below the
// tokenizer's size, whose pieces lie in the text in order; what does not load has a message
// naming the file.
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "text/subword_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pe;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto r = SubwordTokenizer::FromSentencePiece(bytes, "fuzz.model");
  if (!r.ok()) {
    PE_FUZZ_CHECK(r.message().rfind("fuzz.model", 0) == 0);
    return 0;
  }
  const SubwordTokenizer& t = r.value();
  PE_FUZZ_CHECK(t.size() >= 1);
  for (std::string_view text :
       {std::string_view("Hello world, it's 2024!\n\n  na\xc3\xafve"),
        std::string_view("\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 <s>")}) {
    auto pieces = t.Encode(text, SpecialTokens::kAdd);
    if (!pieces.ok()) continue;
    int64_t at = 0;
    for (const SubwordPiece& p : pieces.value()) {
      PE_FUZZ_CHECK(p.id >= 0 && p.id < t.size());
      PE_FUZZ_CHECK(p.begin >= at && p.end >= p.begin &&
                    p.end <= static_cast<int64_t>(text.size()));
      at = p.begin;
    }
  }
  return 0;
}
