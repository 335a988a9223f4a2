// libFuzzer target for the tokenizer.json reader: what reads encodes a few texts into ids below
// the tokenizer's size, whose pieces lie in the text in order; what does not read has a message.
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "text/subword_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pe;
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  auto r = SubwordTokenizer::FromTokenizerJson(json, "fuzz.json");
  if (!r.ok()) {
    PE_FUZZ_CHECK(!r.message().empty());
    return 0;
  }
  const SubwordTokenizer& t = r.value();
  PE_FUZZ_CHECK(t.size() >= 1);
  for (std::string_view text :
       {std::string_view("Hello world, it's 2024!\n\n  na\xc3\xafve"),
        std::string_view("\xe6\x97\xa5\xe6\x9c\xac <|endoftext|> [CLS]"), json.substr(0, 256)}) {
    auto pieces = t.Encode(text, SpecialTokens::kAdd);
    if (!pieces.ok()) continue;  // the JSON's own bytes need not be UTF-8 text
    int64_t at = 0;
    std::vector<int32_t> ids;
    for (const SubwordPiece& p : pieces.value()) {
      PE_FUZZ_CHECK(p.id >= 0 && p.id < t.size());
      PE_FUZZ_CHECK(p.begin >= at && p.end >= p.begin &&
                    p.end <= static_cast<int64_t>(text.size()));
      at = p.begin;
      (void)t.DisplayToken(p.id);
      ids.push_back(p.id);
    }
    (void)t.Decode(ids);
  }
  return 0;
}
