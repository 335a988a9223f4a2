// Speed of the byte-level BPE tokenizer on English text, in bytes per second of text (the
// counter bytes_per_second). The tokenizer is GPT-2's full one when PE_GPT2_DIR names a folder
// holding encoder.json + vocab.bpe (or vocab.json + merges.txt), else the reduced test
// vocabulary in tests/data/gpt2_small (fewer merges apply, so it runs faster than the real one).
// The text: the English licence texts Debian ships and this repository's README, repeated to
// 8 MiB. One Encode call keeps its word cache for the whole text, as a long document would.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "text/subword_tokenizer.h"

namespace pe {
namespace {

std::string EnglishText(size_t bytes) {
  std::string base;
  for (const char* path :
       {"/usr/share/common-licenses/GPL-3", "/usr/share/common-licenses/Apache-2.0",
        "/usr/share/common-licenses/MPL-2.0", PE_REPO_README}) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    base += ss.str();
  }
  if (base.empty()) base = "The quick brown fox jumps over the lazy dog. ";
  std::string text;
  while (text.size() < bytes) text += base;
  text.resize(bytes);
  // Cut at a character boundary: the text must stay valid UTF-8.
  while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80) text.pop_back();
  if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) text.pop_back();
  return text;
}

void BM_BpeEncodeEnglish(benchmark::State& state) {
  const char* dir = std::getenv("PE_GPT2_DIR");
  Result<std::shared_ptr<const SubwordTokenizer>> t =
      LoadSubwordTokenizer(dir ? dir : PE_GPT2_SMALL, MemoryCap{});
  if (!t.ok()) {
    state.SkipWithError(t.message().c_str());
    return;
  }
  state.SetLabel(dir ? "GPT-2 full vocabulary" : "reduced test vocabulary");
  const std::string text = EnglishText(8 << 20);
  size_t tokens = 0;
  for (auto _ : state) {
    Result<std::vector<SubwordPiece>> r = t.value()->Encode(text);
    tokens = r.ok() ? r.value().size() : 0;
    benchmark::DoNotOptimize(tokens);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["tokens"] = static_cast<double>(tokens);
}

}  // namespace

BENCHMARK(BM_BpeEncodeEnglish)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace pe
