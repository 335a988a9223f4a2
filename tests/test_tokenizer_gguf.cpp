// The tokenizer inside a GGUF file: small GGUF files written here hold the vocabulary of a
// committed tokenizer.json (tests/data) as llama.cpp's converter writes it (tokenizer.ggml.model,
// .tokens with every id from 0, .token_type, .merges or .scores, .pre, the special tokens), and
// the GGUF's tokenizer must give the same ids as the tokenizer.json on the strings the
// tokenizer.json's golden ids were made from, with and without the special tokens.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "arch/model_choice.h"
#include "gguf_test_writer.h"
#include "io/gguf_file.h"
#include "io/read_support.h"
#include "text/subword_tokenizer.h"

namespace pe {
namespace {

using Json = nlohmann::json;
using testing_gguf::GgufBuilder;
const std::string kData = std::string(PE_TEST_DATA);

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The dense vocabulary of a tokenizer.json (ids kept; a gap is an unused placeholder) and
// llama.cpp's token types (control for special added tokens, user-defined for the others, byte
// for <0xNN>).
struct Vocab {
  std::vector<std::string> tokens;
  std::vector<int32_t> types;
};

Vocab DenseVocab(const Json& j, bool unigram) {
  std::map<int64_t, std::string> by_id;
  if (unigram) {
    const Json& v = j["model"]["vocab"];
    for (size_t k = 0; k < v.size(); ++k) by_id[static_cast<int64_t>(k)] = v[k][0];
  } else {
    for (auto it = j["model"]["vocab"].begin(); it != j["model"]["vocab"].end(); ++it) {
      by_id[it.value().get<int64_t>()] = it.key();
    }
  }
  std::map<int64_t, bool> added;
  for (const Json& a : j["added_tokens"]) {
    by_id[a["id"].get<int64_t>()] = a["content"];
    added[a["id"].get<int64_t>()] = a["special"].get<bool>();
  }
  Vocab v;
  const int64_t n = by_id.rbegin()->first + 1;
  for (int64_t id = 0; id < n; ++id) {
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      v.tokens.push_back("<unused_" + std::to_string(id) + ">");
      v.types.push_back(5);
      continue;
    }
    v.tokens.push_back(it->second);
    const std::string& t = it->second;
    if (added.count(id)) {
      v.types.push_back(added[id] ? 3 : 4);
    } else if (t.size() == 6 && t.rfind("<0x", 0) == 0 && t.back() == '>') {
      v.types.push_back(6);
    } else {
      v.types.push_back(1);
    }
  }
  return v;
}

GgufBuilder& TokenTypes(GgufBuilder& b, const std::vector<int32_t>& types) {
  return b.I32Array("tokenizer.ggml.token_type", types);
}

// The GGUF's tokenizer, read from a file as --tokenizer-file reads it.
Result<std::shared_ptr<const SubwordTokenizer>> LoadGguf(const std::string& bytes) {
  char path[] = "/tmp/pe_tokenizer_gguf_XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  if (fd >= 0) ::close(fd);
  {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
  }
  Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(path, MemoryCap{});
  std::remove(path);
  return t;
}

// The same from memory (the fuzzer's path): ParseGguf on a span, then FromGguf.
Result<SubwordTokenizer> FromBytes(const std::string& bytes) {
  SpanSource src(std::as_bytes(std::span(bytes.data(), bytes.size())));
  Result<GgufFile> f = ParseGguf(src, "t.gguf", MemoryCap{});
  if (!f.ok()) return f.error();
  return SubwordTokenizer::FromGguf(src, f.value(), "t.gguf", MemoryCap{});
}

std::vector<int64_t> Ids(const SubwordTokenizer& t, const std::string& text, SpecialTokens s) {
  Result<std::vector<SubwordPiece>> r = t.Encode(text, s);
  EXPECT_TRUE(r.ok()) << r.message();
  std::vector<int64_t> ids;
  if (r.ok()) {
    for (const SubwordPiece& p : r.value()) ids.push_back(p.id);
  }
  return ids;
}

// The GGUF file's tokenizer gives the tokenizer.json's ids on every string of `golden`.
// `no_normalizer`: compared with the tokenizer.json without its normalizer, as llama.cpp runs
// byte-level BPE (it applies no NFC: Qwen's tokenizer.json does).
void ExpectSameIds(const std::string& json_rel, const std::string& gguf, const std::string& golden,
                   int* compared, bool no_normalizer = false) {
  Json ref_json = Json::parse(ReadAll(kData + "/" + json_rel));
  if (no_normalizer) ref_json["normalizer"] = nullptr;
  Result<SubwordTokenizer> ref = SubwordTokenizer::FromTokenizerJson(ref_json.dump(), json_rel);
  ASSERT_TRUE(ref.ok()) << ref.message();
  Result<std::shared_ptr<const SubwordTokenizer>> t = LoadGguf(gguf);
  ASSERT_TRUE(t.ok()) << t.message();
  Result<SubwordTokenizer> mem = FromBytes(gguf);
  ASSERT_TRUE(mem.ok()) << mem.message();
  const Json g = Json::parse(ReadAll(kData + "/" + golden));
  ASSERT_GT(g.size(), 3u);
  for (const Json& e : g) {
    const std::string text = e["text"];
    for (SpecialTokens s : {SpecialTokens::kNone, SpecialTokens::kAdd}) {
      const std::vector<int64_t> want = Ids(ref.value(), text, s);
      EXPECT_EQ(Ids(*t.value(), text, s), want) << json_rel << ": " << text;
      EXPECT_EQ(Ids(mem.value(), text, s), want) << json_rel << ": " << text;
      ++*compared;
    }
  }
}

std::string ByteLevelGguf(const std::string& json_rel, const std::string& pre, bool add_bos,
                          int64_t bos) {
  const Json j = Json::parse(ReadAll(kData + "/" + json_rel));
  const Vocab v = DenseVocab(j, false);
  std::vector<std::string> merges;
  for (const Json& m : j["model"]["merges"]) {
    merges.push_back(m.is_string() ? m.get<std::string>()
                                   : m[0].get<std::string>() + " " + m[1].get<std::string>());
  }
  GgufBuilder b;
  b.Str("general.architecture", "llama").Str("tokenizer.ggml.model", "gpt2");
  b.Str("tokenizer.ggml.pre", pre).StrArray("tokenizer.ggml.tokens", v.tokens);
  TokenTypes(b, v.types).StrArray("tokenizer.ggml.merges", merges);
  b.U32("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(bos));
  b.Bool("tokenizer.ggml.add_bos_token", add_bos);
  return b.Build();
}

TEST(TokenizerGguf, ByteLevelBpeMatchesTokenizerJson) {
  int compared = 0;
  // Llama 3 (llama-bpe: its split, ignore_merges, <|begin_of_text|> added as llama.cpp adds it;
  // the reduced tokenizer.json has no post-processor, so kAdd is compared with add_bos off).
  ExpectSameIds("llama3_small/tokenizer.json",
                ByteLevelGguf("llama3_small/tokenizer.json", "llama-bpe", false, 128000),
                "llama3_small/golden.json", &compared);
  // Qwen3 (qwen2), DeepSeek V3 (deepseek-v3: three splits), o200k (gpt-4o).
  ExpectSameIds("regex_bpe/qwen3/tokenizer.json",
                ByteLevelGguf("regex_bpe/qwen3/tokenizer.json", "qwen2", false, 151643),
                "regex_bpe/qwen3/golden.json", &compared, /*no_normalizer=*/true);
  ExpectSameIds("regex_bpe/deepseek_v3/tokenizer.json",
                ByteLevelGguf("regex_bpe/deepseek_v3/tokenizer.json", "deepseek-v3", false, 0),
                "regex_bpe/deepseek_v3/golden.json", &compared);
  ExpectSameIds("regex_bpe/o200k/tokenizer.json",
                ByteLevelGguf("regex_bpe/o200k/tokenizer.json", "gpt-4o", false, 199999),
                "regex_bpe/o200k/golden.json", &compared);
  EXPECT_GT(compared, 100);
}

// DeepSeek V3's first Split cuts digit runs into pieces of at most three (\p{N}{1,3}). The
// reduced vocabulary keeps the merges the full file applies without that split ("9 0", "1 5",
// "15 9": see regex_bpe/README.md), so a GGUF path that lost the split would give other ids:
// 1234567890 would be 123 456 78 90 and 3.14159 would be 3 . 14 159. Ids: the golden file
// (Hugging Face tokenizers on the real tokenizer.json), not the C++ tokenizer.json path.
TEST(TokenizerGguf, DeepseekV3SplitsDigitsIntoThrees) {
  Result<SubwordTokenizer> t =
      FromBytes(ByteLevelGguf("regex_bpe/deepseek_v3/tokenizer.json", "deepseek-v3", false, 0));
  ASSERT_TRUE(t.ok()) << t.message();
  // 123 456 789 0 (without the split: 123 456 78 90 = 6895 18009 2597 2225).
  EXPECT_EQ(Ids(t.value(), "1234567890", SpecialTokens::kNone),
            (std::vector<int64_t>{6895, 18009, 25744, 18}));
  // 3 . 141 59 (without the split: 3 . 14 159 = 21 16 929 10969).
  EXPECT_EQ(Ids(t.value(), "3.14159", SpecialTokens::kNone),
            (std::vector<int64_t>{21, 16, 9926, 3318}));
  const Json g = Json::parse(ReadAll(kData + "/regex_bpe/deepseek_v3/golden.json"));
  int with_digits = 0;
  for (const Json& e : g) {
    const std::string text = e["text"];
    if (text.find_first_of("0123456789") == std::string::npos) continue;
    EXPECT_EQ(Ids(t.value(), text, SpecialTokens::kNone), e["ids"].get<std::vector<int64_t>>())
        << text;
    ++with_digits;
  }
  EXPECT_GE(with_digits, 4);
}

TEST(TokenizerGguf, Llama3AddsBeginOfText) {
  // llama-bpe adds the BOS by default (llama.cpp: add_bos for the llama3 pre types).
  const std::string gguf = ByteLevelGguf("llama3_small/tokenizer.json", "llama-bpe", true, 128000);
  Result<SubwordTokenizer> t = FromBytes(gguf);
  ASSERT_TRUE(t.ok()) << t.message();
  const std::vector<int64_t> none = Ids(t.value(), "Hello world", SpecialTokens::kNone);
  std::vector<int64_t> add = {128000};
  add.insert(add.end(), none.begin(), none.end());
  EXPECT_EQ(Ids(t.value(), "Hello world", SpecialTokens::kAdd), add);
  EXPECT_TRUE(t.value().IsSpecial(128000));
}

// SentencePiece-style BPE (tokenizer.ggml.model "llama"): merges come from the scores. The
// scores written are what a SentencePiece BPE model has: a piece made by an earlier merge
// scores higher (here minus the rank of the tokenizer.json's first merge that makes it).
std::string SpmGguf(const std::string& json_rel, bool add_space_prefix, int64_t bos) {
  const Json j = Json::parse(ReadAll(kData + "/" + json_rel));
  const Vocab v = DenseVocab(j, false);
  std::vector<float> scores(v.tokens.size(), 0.0f);
  std::map<std::string, size_t> first_rank;
  size_t rank = 0;
  for (const Json& m : j["model"]["merges"]) {
    const std::string s = m.is_string() ? m.get<std::string>()
                                        : m[0].get<std::string>() + " " + m[1].get<std::string>();
    const size_t sp = s.find(' ');
    first_rank.emplace(s.substr(0, sp) + s.substr(sp + 1), rank++);
  }
  for (size_t id = 0; id < v.tokens.size(); ++id) {
    auto it = first_rank.find(v.tokens[id]);
    scores[id] = it == first_rank.end() ? -1e6f : -static_cast<float>(it->second);
  }
  GgufBuilder b;
  b.Str("tokenizer.ggml.model", "llama").StrArray("tokenizer.ggml.tokens", v.tokens);
  b.F32Array("tokenizer.ggml.scores", scores);
  TokenTypes(b, v.types).U32("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(bos));
  b.Bool("tokenizer.ggml.add_space_prefix", add_space_prefix);
  return b.Build();
}

TEST(TokenizerGguf, SentencePieceBpeMatchesTokenizerJson) {
  int compared = 0;
  // Mistral: Prepend(▁) + Replace, byte fallback, <s> added.
  ExpectSameIds("mistral_small/tokenizer.json", SpmGguf("mistral_small/tokenizer.json", true, 1),
                "mistral_small/golden.json", &compared);
  // Gemma 3: no space prefix, <bos> (id 2) added.
  ExpectSameIds("gemma3_small/tokenizer.json", SpmGguf("gemma3_small/tokenizer.json", false, 2),
                "gemma3_small/golden.json", &compared);
  EXPECT_GT(compared, 40);
}

TEST(TokenizerGguf, UnigramMatchesTokenizerJson) {
  const Json j = Json::parse(ReadAll(kData + "/unigram_small/tokenizer.json"));
  const Vocab v = DenseVocab(j, true);
  std::vector<float> scores;
  for (const Json& p : j["model"]["vocab"]) scores.push_back(p[1].get<float>());
  GgufBuilder b;
  b.Str("tokenizer.ggml.model", "t5").StrArray("tokenizer.ggml.tokens", v.tokens);
  b.F32Array("tokenizer.ggml.scores", scores);
  TokenTypes(b, v.types).U32("tokenizer.ggml.unknown_token_id", 2);
  int compared = 0;
  ExpectSameIds("unigram_small/tokenizer.json", b.Build(), "unigram_small/golden.json", &compared);
  EXPECT_GT(compared, 10);
}

TEST(TokenizerGguf, WordPieceMatchesTokenizerJson) {
  // llama.cpp's conversion writes a word's first piece with a leading U+2581 and a
  // continuation without its ##.
  const Json j = Json::parse(ReadAll(kData + "/bert_small/tokenizer.json"));
  Vocab v = DenseVocab(j, false);
  for (std::string& t : v.tokens) {
    if (t.front() == '[' && t.back() == ']') continue;
    t = t.rfind("##", 0) == 0 ? t.substr(2) : "\xE2\x96\x81" + t;
  }
  GgufBuilder b;
  b.Str("tokenizer.ggml.model", "bert").StrArray("tokenizer.ggml.tokens", v.tokens);
  TokenTypes(b, v.types).U32("tokenizer.ggml.bos_token_id", 2);
  b.U32("tokenizer.ggml.seperator_token_id", 3).U32("tokenizer.ggml.unknown_token_id", 1);
  int compared = 0;
  ExpectSameIds("bert_small/tokenizer.json", b.Build(), "bert_small/golden.json", &compared);
  EXPECT_GT(compared, 10);
}

// A GGUF opened as a model (--model-config) brings its tokenizer when no tokenizer file is given.
TEST(TokenizerGguf, ModelFileBringsItsTokenizer) {
  GgufBuilder b;
  b.Str("general.architecture", "llama")
      .U32("llama.block_count", 2)
      .U32("llama.context_length", 4096)
      .U32("llama.embedding_length", 256)
      .U32("llama.attention.head_count", 4)
      .F32("llama.rope.freq_base", 10000.0f);
  const std::string with = ByteLevelGguf("llama3_small/tokenizer.json", "llama-bpe", true, 128000);
  // The model keys followed by the tokenizer's: rebuild with both.
  const Json j = Json::parse(ReadAll(kData + "/llama3_small/tokenizer.json"));
  const Vocab v = DenseVocab(j, false);
  std::vector<std::string> merges;
  for (const Json& m : j["model"]["merges"]) {
    merges.push_back(m.is_string() ? m.get<std::string>()
                                   : m[0].get<std::string>() + " " + m[1].get<std::string>());
  }
  b.Str("tokenizer.ggml.model", "gpt2").Str("tokenizer.ggml.pre", "llama-bpe");
  b.StrArray("tokenizer.ggml.tokens", v.tokens).StrArray("tokenizer.ggml.merges", merges);
  TokenTypes(b, v.types).U32("tokenizer.ggml.bos_token_id", 128000);
  char path[] = "/tmp/pe_model_gguf_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  {
    std::ofstream out(path, std::ios::binary);
    out << b.Build();
  }
  ModelParams m;
  m.model_config = path;
  Status st = OpenModel(m);
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(m.example.tokenizer_file, path);
  ASSERT_TRUE(m.example.subword != nullptr);
  Result<SubwordTokenizer> direct = FromBytes(with);
  ASSERT_TRUE(direct.ok()) << direct.message();
  for (const char* text : {"Hello world", "The quick brown fox"}) {
    EXPECT_EQ(Ids(*m.example.subword, text, SpecialTokens::kAdd),
              Ids(direct.value(), text, SpecialTokens::kAdd));
  }
  // A tokenizer file given first is kept.
  ModelParams given;
  given.model_config = path;
  given.example.tokenizer_file = kData + "/llama3_small/tokenizer.json";
  EXPECT_TRUE(OpenModel(given).ok());
  EXPECT_EQ(given.example.tokenizer_file, kData + "/llama3_small/tokenizer.json");
  std::remove(path);
}

// Each refusal names the key and the value.
TEST(TokenizerGguf, RefusalsNameTheKey) {
  auto message = [](const GgufBuilder& b) {
    Result<SubwordTokenizer> t = FromBytes(b.Build());
    EXPECT_FALSE(t.ok());
    return t.ok() ? std::string() : t.message();
  };
  const std::vector<std::string> tokens = {"a", "b", "ab"};
  {
    GgufBuilder b;
    b.Str("general.architecture", "llama");
    EXPECT_NE(message(b).find("tokenizer.ggml.model"), std::string::npos);
  }
  {
    GgufBuilder b;
    b.Str("tokenizer.ggml.model", "rwkv").StrArray("tokenizer.ggml.tokens", tokens);
    const std::string m = message(b);
    EXPECT_NE(m.find("\"tokenizer.ggml.model\" is \"rwkv\""), std::string::npos) << m;
  }
  {
    GgufBuilder b;
    b.Str("tokenizer.ggml.model", "gpt2").Str("tokenizer.ggml.pre", "no-such-split");
    b.StrArray("tokenizer.ggml.tokens", tokens);
    const std::string m = message(b);
    EXPECT_NE(m.find("\"tokenizer.ggml.pre\" is \"no-such-split\""), std::string::npos) << m;
  }
  {
    GgufBuilder b;
    b.Str("tokenizer.ggml.model", "llama").StrArray("tokenizer.ggml.tokens", tokens);
    b.F32Array("tokenizer.ggml.scores", {0, 0});
    const std::string m = message(b);
    EXPECT_NE(m.find("\"tokenizer.ggml.scores\" has 2 values for 3 tokens"), std::string::npos)
        << m;
  }
  {
    GgufBuilder b;
    b.Str("tokenizer.ggml.model", "llama").StrArray("tokenizer.ggml.tokens", tokens);
    b.F32Array("tokenizer.ggml.scores", {0, 0, 0}).U32("tokenizer.ggml.bos_token_id", 7);
    const std::string m = message(b);
    EXPECT_NE(m.find("\"tokenizer.ggml.bos_token_id\" is 7"), std::string::npos) << m;
  }
  {
    GgufBuilder b;
    b.Str("tokenizer.ggml.model", "gpt2").StrArray("tokenizer.ggml.tokens", {"a", "b", "a"});
    const std::string m = message(b);
    EXPECT_NE(m.find("\"tokenizer.ggml.tokens\" has the token \"a\" twice"), std::string::npos)
        << m;
  }
  {
    GgufBuilder b;
    b.Str("tokenizer.ggml.model", "gpt2").U32("tokenizer.ggml.tokens", 3);
    const std::string m = message(b);
    EXPECT_NE(m.find("\"tokenizer.ggml.tokens\" must be an array of strings"), std::string::npos)
        << m;
  }
  {
    GgufBuilder b;
    b.Str("tokenizer.ggml.model", "gpt2").StrArray("tokenizer.ggml.tokens", tokens);
    b.I32Array("tokenizer.ggml.token_type", {1, 9, 1});
    const std::string m = message(b);
    EXPECT_NE(m.find("\"tokenizer.ggml.token_type\" has 9"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace pe
