// libFuzzer target for the GGUF parser (io/gguf_file): a file that parses keeps its promises
// (one entry per key, the counts it declared, an aligned data section, numbers kept only for
// arrays it says it kept), and every small float tensor it lists reads exactly when its bytes
// are in the file. A file with tokenizer.ggml.* keys goes on to the tokenizer built from them
// (text/subword_gguf.cpp): it loads or refuses naming the file, and a loaded one encodes a
// short text into ids of its vocabulary.
#include "fuzz_check.h"
#include "io/gguf_file.h"
#include "text/subword_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pe;
  const MemoryCap cap{fuzz::kFuzzCapBytes};
  SpanSource source(fuzz::Bytes(data, size));
  auto parsed = ParseGguf(source, "fuzz.gguf", cap);
  if (!parsed.ok()) {
    PE_FUZZ_CHECK(parsed.message().rfind("\"fuzz.gguf\"", 0) == 0);
    return 0;
  }
  const GgufFile& f = parsed.value();
  PE_FUZZ_CHECK(f.version == 2 || f.version == 3);
  PE_FUZZ_CHECK(f.keys.size() == f.metadata.size());
  PE_FUZZ_CHECK(f.tensors.size() == f.tensor_count);
  PE_FUZZ_CHECK(f.alignment != 0 && f.data_offset % f.alignment == 0);
  PE_FUZZ_CHECK(f.data_offset <= size + f.alignment);
  for (const std::string& key : f.keys) {
    const GgufValue* v = f.Find(key);
    PE_FUZZ_CHECK(v != nullptr);
    if (v->type == GgufType::kString) {
      PE_FUZZ_CHECK(v->s.size() == (v->string_length <= kGgufMaxKeptString ? v->string_length : 0));
    }
    if (v->type == GgufType::kArray) {
      PE_FUZZ_CHECK(!v->numbers_kept || v->numbers.size() == v->count);
      PE_FUZZ_CHECK(v->numbers_kept ==
                    (v->element != GgufType::kString && v->count <= kGgufMaxKeptArray));
    }
  }
  int reads = 0;
  for (const GgufTensorInfo& t : f.tensors) {
    PE_FUZZ_CHECK(t.dims.size() <= kGgufMaxDims && t.offset % f.alignment == 0);
    if (t.type > 1 || ++reads > 8) continue;
    uint64_t count = 1;
    for (uint64_t d : t.dims) count = SaturatingMul(count, d);
    auto values = ReadGgufFloatTensor(source, f, t, "fuzz.gguf", 4096);
    const uint64_t end = SaturatingAdd(SaturatingAdd(f.data_offset, t.offset),
                                       SaturatingMul(count, t.type == 0 ? 4 : 2));
    PE_FUZZ_CHECK(values.ok() == (count <= 4096 && end <= size));
    if (values.ok()) PE_FUZZ_CHECK(values.value().size() == count);
  }
  if (f.Find("tokenizer.ggml.model") != nullptr) {
    auto t = SubwordTokenizer::FromGguf(source, f, "fuzz.gguf", cap);
    if (!t.ok()) {
      PE_FUZZ_CHECK(t.message().find("fuzz.gguf") != std::string::npos);
    } else {
      auto pieces =
          t.value().Encode("Hello  world 123 caf\xC3\xA9 \xE6\x97\xA5", SpecialTokens::kAdd);
      if (pieces.ok()) {
        for (const SubwordPiece& p : pieces.value()) {
          PE_FUZZ_CHECK(p.id >= 0 && p.id < t.value().size());
        }
      }
    }
  }
  return 0;
}
