// Subword tokenizers: byte-level BPE against golden ids from an independent implementation (the
// npm package gpt-3-encoder, a port of openai/gpt-2 encoder.py; tests/data/gpt2_small/README.md),
// against a naive replay of encoder.py's merge loop written here, the split patterns against
// splits worked out from the regexes by hand, and WordPiece against greedy longest-match-first
// written independently here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "model/embedding.h"
#include "model/input_layer.h"
#include "model/model_params.h"
#include "model/param_fields.h"
#include "test_support.h"
#include "text/subword_tokenizer.h"
#include "text/unicode_props.h"

namespace pe {
namespace {

using Json = nlohmann::json;
using TokenizerFiles = pe::testing::TempDirTest;
const std::string kData = std::string(PE_TEST_DATA) + "/gpt2_small";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<int64_t> Ids(const SubwordTokenizer& t, const std::string& text) {
  Result<std::vector<SubwordPiece>> r = t.Encode(text);
  EXPECT_TRUE(r.ok()) << r.message();
  std::vector<int64_t> ids;
  if (r.ok()) {
    for (const SubwordPiece& p : r.value()) ids.push_back(p.id);
  }
  return ids;
}

struct Golden {
  std::string text;
  std::vector<int64_t> ids;
};
std::vector<Golden> Goldens() {
  std::vector<Golden> out;
  for (const Json& g : Json::parse(ReadAll(kData + "/golden.json"))) {
    out.push_back({g["text"].get<std::string>(), g["ids"].get<std::vector<int64_t>>()});
  }
  return out;
}

std::shared_ptr<const SubwordTokenizer> SmallGpt2() {
  Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(kData, MemoryCap{});
  EXPECT_TRUE(t.ok()) << t.message();
  return t.ok() ? t.value() : nullptr;
}

// A tokenizer.json for the reduced GPT-2 files, merges as "a b" or as ["a", "b"].
std::string SmallGpt2Json(bool pair_merges) {
  Json j;
  j["version"] = "1.0";
  j["added_tokens"] =
      Json::array({{{"id", 50256}, {"content", "<|endoftext|>"}, {"special", true}}});
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "ByteLevel"},
                        {"add_prefix_space", false},
                        {"trim_offsets", true},
                        {"use_regex", true}};
  Json merges = Json::array();
  std::istringstream lines(ReadAll(kData + "/merges.txt"));
  std::string line;
  std::getline(lines, line);  // #version
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const size_t sp = line.find(' ');
    if (pair_merges) {
      merges.push_back(Json::array({line.substr(0, sp), line.substr(sp + 1)}));
    } else {
      merges.push_back(line);
    }
  }
  j["model"] = {{"type", "BPE"},
                {"dropout", nullptr},
                {"unk_token", nullptr},
                {"continuing_subword_prefix", ""},
                {"end_of_word_suffix", ""},
                {"fuse_unk", false},
                {"vocab", Json::parse(ReadAll(kData + "/vocab.json"))},
                {"merges", merges}};
  return j.dump();
}

TEST(BytePairEncoding, GoldenIdsOfTheReferenceEncoder) {
  auto t = SmallGpt2();
  ASSERT_TRUE(t);
  const std::vector<Golden> goldens = Goldens();
  ASSERT_GE(goldens.size(), 10u);
  EXPECT_EQ(goldens[0].text, "Hello world");
  EXPECT_EQ(Ids(*t, "Hello world"), (std::vector<int64_t>{15496, 995}));
  for (const Golden& g : goldens) EXPECT_EQ(Ids(*t, g.text), g.ids) << g.text;
  EXPECT_EQ(t->size(), 50257);
}

// Llama 3: the split pattern, ignore_merges and special tokens, against llama3-tokenizer-js.
TEST(BytePairEncoding, Llama3GoldenIds) {
  const std::string dir = std::string(PE_TEST_DATA) + "/llama3_small";
  Result<std::shared_ptr<const SubwordTokenizer>> t =
      LoadSubwordTokenizer(dir + "/tokenizer.json", MemoryCap{});
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t.value()->pattern(), SplitPattern::kLlama3);
  EXPECT_EQ(Ids(*t.value(), "Hello world"), (std::vector<int64_t>{9906, 1917}));
  const Json goldens = Json::parse(ReadAll(dir + "/golden.json"));
  ASSERT_GE(goldens.size(), 14u);
  for (const Json& g : goldens) {
    EXPECT_EQ(Ids(*t.value(), g["text"].get<std::string>()), g["ids"].get<std::vector<int64_t>>())
        << g["text"].get<std::string>();
  }
}

TEST(BytePairEncoding, TokenizerJsonBothMergeFormsGiveTheSameIds) {
  for (bool pairs : {false, true}) {
    Result<SubwordTokenizer> t =
        SubwordTokenizer::FromTokenizerJson(SmallGpt2Json(pairs), "t.json");
    ASSERT_TRUE(t.ok()) << t.message();
    for (const Golden& g : Goldens()) EXPECT_EQ(Ids(t.value(), g.text), g.ids) << g.text;
  }
}

TEST_F(TokenizerFiles, Gpt2EncoderJsonAndVocabBpeNames) {
  std::ofstream(Path("encoder.json")) << ReadAll(kData + "/vocab.json");
  std::ofstream(Path("vocab.bpe")) << ReadAll(kData + "/merges.txt");
  Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(dir_, MemoryCap{});
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(Ids(*t.value(), "Hello world"), (std::vector<int64_t>{15496, 995}));
  // A tokenizer.json path works the same.
  std::ofstream(Path("tokenizer.json")) << SmallGpt2Json(false);
  t = LoadSubwordTokenizer(Path("tokenizer.json"), MemoryCap{});
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(Ids(*t.value(), "Hello world"), (std::vector<int64_t>{15496, 995}));
}

// File > Open recognises tokenizers by content, whatever their names.
TEST_F(TokenizerFiles, TokenizerFilesAreKnownByTheirContent) {
  EXPECT_EQ(SniffTokenizerFile(SmallGpt2Json(false)), TokenizerFileKind::kTokenizerJson);
  EXPECT_EQ(SniffTokenizerFile(ReadAll(std::string(PE_TEST_DATA) + "/llama3_small/tokenizer.json")),
            TokenizerFileKind::kTokenizerJson);
  EXPECT_EQ(SniffTokenizerFile(ReadAll(kData + "/vocab.json")), TokenizerFileKind::kGpt2Vocab);
  EXPECT_EQ(SniffTokenizerFile(" {\"version\": \"1.0\", \"model\": {}}"),
            TokenizerFileKind::kTokenizerJson);
  // Not tokenizers: GloVe text, a JSON object with "model" only nested, an array, a config.
  EXPECT_EQ(SniffTokenizerFile("the 0.418 0.24968 -0.41242\n, 0.013441 0.23682\n"),
            TokenizerFileKind::kNone);
  EXPECT_EQ(SniffTokenizerFile("{\"a\": {\"model\": 1}, \"b\": \"model\"}"),
            TokenizerFileKind::kNone);
  EXPECT_EQ(SniffTokenizerFile("[\"model\", 1]"), TokenizerFileKind::kNone);
  EXPECT_EQ(SniffTokenizerFile("{\"model_type\": \"gpt2\", \"n_embd\": 768}"),
            TokenizerFileKind::kNone);
  EXPECT_EQ(SniffTokenizerFile(""), TokenizerFileKind::kNone);
  // A copy under another name is still known; a folder or a missing path is not a file.
  std::ofstream(Path("saved.txt")) << ReadAll(kData + "/vocab.json");
  EXPECT_EQ(SniffTokenizerPath(Path("saved.txt")), TokenizerFileKind::kGpt2Vocab);
  EXPECT_EQ(SniffTokenizerPath(dir_), TokenizerFileKind::kNone);
  EXPECT_EQ(SniffTokenizerPath(Path("missing.json")), TokenizerFileKind::kNone);
}

// A GPT-2 folder's vocab.json, opened as a file, loads with the merges beside it.
TEST_F(TokenizerFiles, Gpt2VocabJsonAsAFileLoadsItsFolder) {
  Result<std::shared_ptr<const SubwordTokenizer>> t =
      LoadSubwordTokenizer(kData + "/vocab.json", MemoryCap{});
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(Ids(*t.value(), "Hello world"), (std::vector<int64_t>{15496, 995}));
  std::ofstream(Path("vocab.json")) << ReadAll(kData + "/vocab.json");
  t = LoadSubwordTokenizer(Path("vocab.json"), MemoryCap{});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find(Path("merges.txt")), std::string::npos) << t.message();
}

TEST(BytePairEncoding, PiecesCoverTheTextAndDecodeToIt) {
  auto t = SmallGpt2();
  ASSERT_TRUE(t);
  for (const Golden& g : Goldens()) {
    Result<std::vector<SubwordPiece>> r = t->Encode(g.text);
    ASSERT_TRUE(r.ok());
    int64_t at = 0;
    for (const SubwordPiece& p : r.value()) {
      EXPECT_EQ(p.begin, at) << g.text;
      EXPECT_LT(p.begin, p.end);
      // The token's bytes (byte-level chars mapped back) are the text it covers.
      std::string bytes;
      const std::string& raw = t->token(p.id);
      for (size_t i = 0; i < raw.size();) {
        const Utf8Char u = DecodeUtf8(raw, i);
        for (int b = 0; b < 256; ++b) {
          if (ByteToUnicode(static_cast<unsigned char>(b)) == u.cp) bytes += static_cast<char>(b);
        }
        i += static_cast<size_t>(u.length);
      }
      EXPECT_EQ(bytes,
                g.text.substr(static_cast<size_t>(p.begin), static_cast<size_t>(p.end - p.begin)));
      at = p.end;
    }
    EXPECT_EQ(at, static_cast<int64_t>(g.text.size()));
  }
}

TEST(BytePairEncoding, ByteMapOfEncoderPy) {
  EXPECT_EQ(ByteToUnicode(' '), 0x120u);   // Ġ
  EXPECT_EQ(ByteToUnicode('\n'), 0x10Au);  // Ċ
  EXPECT_EQ(ByteToUnicode('A'), static_cast<char32_t>('A'));
  EXPECT_EQ(ByteToUnicode(0), 0x100u);
  EXPECT_EQ(ByteToUnicode(0xAD), 0x100u + 67);  // the last non-printable byte
  std::set<char32_t> seen;
  for (int b = 0; b < 256; ++b) seen.insert(ByteToUnicode(static_cast<unsigned char>(b)));
  EXPECT_EQ(seen.size(), 256u);
}

TEST(BytePairEncoding, ReadableTokensAndSpecialTokens) {
  auto t = SmallGpt2();
  ASSERT_TRUE(t);
  EXPECT_EQ(t->token(995), "\xc4\xa0world");             // Ġworld
  EXPECT_EQ(t->DisplayToken(995), "\xe2\x90\xa3world");  // ␣world
  EXPECT_EQ(t->DisplayToken(15496), "Hello");
  EXPECT_EQ(t->DisplayToken(198), "\xe2\x86\xb5");  // Ċ: a newline, ↵
  EXPECT_EQ(t->DisplayToken(50256), "<|endoftext|>");
  EXPECT_EQ(Ids(*t, "Hello world<|endoftext|>Hello"),
            (std::vector<int64_t>{15496, 995, 50256, 15496}));
  // A lone byte of a multi-byte character shows as its value.
  EXPECT_EQ(t->DisplayToken(t->Id("\xc3\xa6")), "<0xE6>");
}

// encoder.py's loop, over strings: merge every occurrence of the lowest-ranked pair, repeat.
std::vector<int64_t> NaiveBpe(const std::string& text, SplitPattern pattern,
                              const std::map<std::pair<std::string, std::string>, int>& ranks,
                              const SubwordTokenizer& t) {
  std::vector<int64_t> ids;
  for (auto [b, e] : SplitPreTokens(text, pattern)) {
    std::vector<std::string> word;
    for (size_t k = b; k < e; ++k) {
      std::string s;
      AppendUtf8(s, ByteToUnicode(static_cast<unsigned char>(text[k])));
      word.push_back(s);
    }
    for (;;) {
      int best = -1;
      std::pair<std::string, std::string> pair;
      for (size_t i = 0; i + 1 < word.size(); ++i) {
        auto it = ranks.find({word[i], word[i + 1]});
        if (it != ranks.end() && (best < 0 || it->second < best)) {
          best = it->second;
          pair = it->first;
        }
      }
      if (best < 0) break;
      std::vector<std::string> next;
      for (size_t i = 0; i < word.size();) {
        if (i + 1 < word.size() && word[i] == pair.first && word[i + 1] == pair.second) {
          next.push_back(pair.first + pair.second);
          i += 2;
        } else {
          next.push_back(word[i++]);
        }
      }
      word = next;
    }
    for (const std::string& s : word) ids.push_back(t.Id(s));
  }
  return ids;
}

std::map<std::pair<std::string, std::string>, int> ReadRanks(const std::string& merges) {
  std::map<std::pair<std::string, std::string>, int> ranks;
  std::istringstream lines(merges);
  std::string line;
  int rank = 0;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const size_t sp = line.find(' ');
    ranks.emplace(std::pair{line.substr(0, sp), line.substr(sp + 1)}, rank++);
  }
  return ranks;
}

TEST(BytePairEncoding, HeapMergesAgreeWithTheNaiveLoopOnRandomText) {
  auto t = SmallGpt2();
  ASSERT_TRUE(t);
  const auto ranks = ReadRanks(ReadAll(kData + "/merges.txt"));
  // Random texts drawn from the characters of the golden strings: new words, same merges.
  std::vector<std::string> chars;
  for (const Golden& g : Goldens()) {
    for (size_t i = 0; i < g.text.size();) {
      const Utf8Char u = DecodeUtf8(g.text, i);
      chars.push_back(g.text.substr(i, static_cast<size_t>(u.length)));
      i += static_cast<size_t>(u.length);
    }
  }
  std::mt19937 rng(7);
  for (int k = 0; k < 300; ++k) {
    std::string text;
    const int n = static_cast<int>(rng() % 40);
    for (int c = 0; c < n; ++c) text += chars[rng() % chars.size()];
    EXPECT_EQ(Ids(*t, text), NaiveBpe(text, SplitPattern::kGpt2, ranks, *t)) << text;
  }
}

std::vector<std::string> Split(const std::string& text, SplitPattern p) {
  std::vector<std::string> out;
  for (auto [b, e] : SplitPreTokens(text, p)) out.push_back(text.substr(b, e - b));
  return out;
}

using Strings = std::vector<std::string>;

TEST(SplitPattern, Gpt2ByTheRegex) {
  const auto g = SplitPattern::kGpt2;
  EXPECT_EQ(Split("Hello world", g), (Strings{"Hello", " world"}));
  EXPECT_EQ(Split("I can't", g), (Strings{"I", " can", "'t"}));
  EXPECT_EQ(Split("HE'LL", g), (Strings{"HE", "'", "LL"}));  // contractions are case-sensitive
  EXPECT_EQ(Split("a   b", g), (Strings{"a", "  ", " b"}));
  EXPECT_EQ(Split("a\n\nb", g), (Strings{"a", "\n", "\n", "b"}));
  EXPECT_EQ(Split("end  ", g), (Strings{"end", "  "}));
  EXPECT_EQ(Split("x 1234 !!? y", g), (Strings{"x", " 1234", " !!?", " y"}));
  EXPECT_EQ(Split("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", g),
            (Strings{"caf\xc3\xa9", " \xe6\x97\xa5\xe6\x9c\xac"}));
  EXPECT_EQ(Split("3.14", g), (Strings{"3", ".", "14"}));
  EXPECT_EQ(Split("!'s", g), (Strings{"!'", "s"}));
  EXPECT_TRUE(Split("", g).empty());
}

TEST(SplitPattern, Llama3ByTheRegex) {
  const auto l = SplitPattern::kLlama3;
  EXPECT_EQ(Split("Hello world", l), (Strings{"Hello", " world"}));
  EXPECT_EQ(Split("HE'LL", l), (Strings{"HE", "'LL"}));  // (?i:...)
  EXPECT_EQ(Split("1234567", l), (Strings{"123", "456", "7"}));
  EXPECT_EQ(Split("(hello", l), (Strings{"(hello"}));
  EXPECT_EQ(Split(" ?!\n\nx", l), (Strings{" ?!\n\n", "x"}));
  EXPECT_EQ(Split("a \n  b", l), (Strings{"a", " \n", " ", " b"}));
  EXPECT_EQ(Split("a   b", l), (Strings{"a", "  ", " b"}));
  EXPECT_EQ(Split("x 12", l), (Strings{"x", " ", "12"}));
  EXPECT_EQ(Split("\tword", l), (Strings{"\tword"}));
}

TEST(BytePairEncoding, IgnoreMergesTakesAWholeWordToken) {
  // Bytes a, b, c and the token "abc" but no merge to reach it: Llama 3's ignore_merges finds it.
  Json vocab = Json::object();
  for (int b = 0; b < 256; ++b) {
    std::string s;
    AppendUtf8(s, ByteToUnicode(static_cast<unsigned char>(b)));
    vocab[s] = b;
  }
  vocab["abc"] = 256;
  vocab["ab"] = 257;
  for (bool ignore : {false, true}) {
    Json j;
    j["model"] = {{"type", "BPE"},
                  {"vocab", vocab},
                  {"merges", Json::array({"a b"})},
                  {"ignore_merges", ignore}};
    j["pre_tokenizer"] = {
        {"type", "Sequence"},
        {"pretokenizers",
         Json::array(
             {{{"type", "Split"},
               {"pattern", {{"Regex", std::string(SplitPatternRegex(SplitPattern::kLlama3))}}},
               {"behavior", "Isolated"}},
              {{"type", "ByteLevel"}, {"use_regex", false}}})}};
    Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(j.dump(), "l3.json");
    ASSERT_TRUE(t.ok()) << t.message();
    EXPECT_EQ(t.value().pattern(), SplitPattern::kLlama3);
    EXPECT_EQ(Ids(t.value(), "abc"),
              ignore ? (std::vector<int64_t>{256}) : (std::vector<int64_t>{257, 'c'}));
  }
}

// ---- errors

std::string LoadError(const std::string& json) {
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(json, "bad.json");
  return t.ok() ? "" : t.message();
}

TEST(SubwordTokenizerErrors, NameTheFileAndThePlace) {
  EXPECT_NE(LoadError("{\"model\": [1, 2,}").find("bad.json: not valid JSON"), std::string::npos);
  EXPECT_NE(LoadError("{\n\"model\": [1, 2,}").find("line 2"), std::string::npos);
  EXPECT_NE(LoadError(R"({"model": {"type": "Mystery", "vocab": {"a": 0}}})")
                .find("model type \"Mystery\" is not supported"),
            std::string::npos);
  EXPECT_NE(LoadError(R"({"model": {"type": "Unigram", "vocab": {"a": 0}}})")
                .find("bad.json: model.vocab is not a non-empty list of [piece, score]"),
            std::string::npos);
  std::string json = SmallGpt2Json(false);
  // A merge naming a token the vocabulary lacks.
  std::string bad = json;
  bad.replace(bad.find("\"merges\":[") + 10, 0, "\"zz qq\",");
  EXPECT_NE(LoadError(bad).find("model.merges[0]: the merge \"zz qq\" names \"zz\""),
            std::string::npos)
      << LoadError(bad);
  // Two tokens with one id.
  bad = json;
  bad.replace(bad.find("\"vocab\":{") + 9, 0, "\"dupe\":15496,");
  EXPECT_NE(LoadError(bad).find("both have id 15496"), std::string::npos) << LoadError(bad);
  // A key twice in the vocabulary.
  bad = json;
  bad.replace(bad.find("\"vocab\":{") + 9, 0, "\"Hello\":1,");
  EXPECT_NE(LoadError(bad).find("\"Hello\" appears twice"), std::string::npos) << LoadError(bad);
  EXPECT_NE(LoadError("{\"model\": \"\xff\"}").find("not valid UTF-8 at byte 11"),
            std::string::npos);
  EXPECT_NE(LoadError(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                          "pre_tokenizer": {"type": "ByteLevel"}})")
                .find("the byte 0x00"),
            std::string::npos);
  // Nesting deep enough to break a recursive parser is an error or a result, never a crash.
  (void)LoadError(std::string(100000, '[') + std::string(100000, ']'));
}

TEST_F(TokenizerFiles, AFolderWithoutTheFilesIsNamed) {
  Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(dir_, MemoryCap{});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("vocab.json + merges.txt"), std::string::npos);
  std::ofstream(Path("vocab.json")) << ReadAll(kData + "/vocab.json");
  std::ofstream(Path("merges.txt")) << "#version: 0.2\n\xc4\xa0 t\nnot-a-pair\n";
  t = LoadSubwordTokenizer(dir_, MemoryCap{});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("merges.txt: line 3: \"not-a-pair\""), std::string::npos)
      << t.message();
  EXPECT_FALSE(LoadSubwordTokenizer(Path("missing.json"), MemoryCap{}).ok());
  EXPECT_FALSE(SmallGpt2()->Encode("bad \xc3 byte").ok());
}

// ---- WordPiece

// Greedy longest-match-first, as BERT's WordpieceTokenizer defines it, over one lowercased word.
std::vector<int64_t> GreedyWordPiece(const std::string& word,
                                     const std::map<std::string, int64_t>& v, int64_t unk) {
  std::vector<int64_t> out;
  size_t start = 0;
  while (start < word.size()) {
    size_t end = word.size();
    int64_t id = -1;
    while (end > start) {
      const std::string sub = (start > 0 ? "##" : "") + word.substr(start, end - start);
      if (v.count(sub)) {
        id = v.at(sub);
        break;
      }
      --end;
    }
    if (id < 0) return {unk};
    out.push_back(id);
    start = end;
  }
  return out;
}

TEST(WordPiece, GreedyLongestMatchFirstWithBertNormalizer) {
  const std::vector<std::string> words = {
      "[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "un",    "##aff",        "##able",
      "##a",   "##ff",  "aff",   ",",     "!",     "cafe",  "naive", "\xe6\x97\xa5", "\xe6\x9c\xac",
      "h",     "##e",   "##l",   "##o",   "play",  "##ing", "##s"};
  std::map<std::string, int64_t> v;
  Json vocab = Json::object();
  for (size_t k = 0; k < words.size(); ++k) {
    v[words[k]] = static_cast<int64_t>(k);
    vocab[words[k]] = k;
  }
  Json j;
  j["model"] = {{"type", "WordPiece"},
                {"unk_token", "[UNK]"},
                {"continuing_subword_prefix", "##"},
                {"max_input_chars_per_word", 12},
                {"vocab", vocab}};
  j["normalizer"] = {{"type", "BertNormalizer"},
                     {"clean_text", true},
                     {"handle_chinese_chars", true},
                     {"strip_accents", nullptr},
                     {"lowercase", true}};
  j["pre_tokenizer"] = {{"type", "BertPreTokenizer"}};
  j["added_tokens"] = Json::array({{{"id", 2}, {"content", "[CLS]"}}});
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(j.dump(), "bert.json");
  ASSERT_TRUE(t.ok()) << t.message();
  const int64_t unk = 1;
  auto expect = [&](std::initializer_list<std::string> normalized_words) {
    std::vector<int64_t> ids;
    for (const std::string& w : normalized_words) {
      for (int64_t id : GreedyWordPiece(w, v, unk)) ids.push_back(id);
    }
    return ids;
  };
  EXPECT_EQ(Ids(t.value(), "Hello, World!"), expect({"hello", ",", "world", "!"}));
  EXPECT_EQ(Ids(t.value(), "unaffable playings"), expect({"unaffable", "playings"}));
  EXPECT_EQ(Ids(t.value(), "unaffable"), (std::vector<int64_t>{6, 7, 8}));
  EXPECT_EQ(Ids(t.value(),
                "Caf\xc3\xa9 NA\xc3\x8f"
                "VE"),
            expect({"cafe", "naive"}));
  EXPECT_EQ(Ids(t.value(), "\xe6\x97\xa5\xe6\x9c\xac"), expect({"\xe6\x97\xa5", "\xe6\x9c\xac"}));
  EXPECT_EQ(Ids(t.value(), "hellox"), (std::vector<int64_t>{unk}));           // no piece for "x"
  EXPECT_EQ(Ids(t.value(), "hellohellohello"), (std::vector<int64_t>{unk}));  // 15 chars > 12
  EXPECT_EQ(Ids(t.value(), "[CLS] hello"), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(t.value().DisplayToken(7), "##aff");
  // Offsets point into the source text, accents and case included.
  Result<std::vector<SubwordPiece>> r = t.value().Encode("Caf\xc3\xa9!");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_EQ(r.value()[0].begin, 0);
  EXPECT_EQ(r.value()[0].end, 5);
  EXPECT_EQ(r.value()[1].begin, 5);
  EXPECT_EQ(r.value()[1].end, 6);
}

TEST(WordPiece, CasedModelsKeepAccentsAndCase) {
  Json j;
  j["model"] = {{"type", "WordPiece"},
                {"vocab", {{"[UNK]", 0}, {"Caf", 1}, {"##\xc3\xa9", 2}, {"cafe", 3}}}};
  j["normalizer"] = {{"type", "BertNormalizer"}, {"lowercase", false}, {"strip_accents", nullptr}};
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(j.dump(), "cased.json");
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(Ids(t.value(), "Caf\xc3\xa9"), (std::vector<int64_t>{1, 2}));
}

// ---- the full GPT-2 vocabulary, when PE_GPT2_DIR names a folder with encoder.json + vocab.bpe
// (or vocab.json + merges.txt): every golden string, and the naive loop on a longer text.
TEST(BytePairEncoding, FullGpt2VocabularyWhenGiven) {
  const char* dir = std::getenv("PE_GPT2_DIR");
  if (!dir) GTEST_SKIP() << "set PE_GPT2_DIR to a folder with GPT-2's encoder.json + vocab.bpe";
  Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(dir, MemoryCap{});
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t.value()->merge_count(), 50000);
  for (const Golden& g : Goldens()) EXPECT_EQ(Ids(*t.value(), g.text), g.ids) << g.text;
  std::string merges = ReadAll(std::string(dir) + "/vocab.bpe");
  if (merges.empty()) merges = ReadAll(std::string(dir) + "/merges.txt");
  const auto ranks = ReadRanks(merges);
  std::string text = ReadAll(std::string(PE_TEST_DATA) + "/../../README.md").substr(0, 20000);
  EXPECT_EQ(Ids(*t.value(), text), NaiveBpe(text, SplitPattern::kGpt2, ranks, *t.value()));
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

// The model input with a tokenizer file: the field's load step reads it, the sentence gets its
// ids and V.
TEST(SubwordSentence, TheTokenizerFileSetsIdsAndVocabularySize) {
  ModelParams m;
  const ParamField* f = FindParamField("--tokenizer-file");
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->set(m, kData).ok());
  EXPECT_EQ(f->get(m), kData);
  EXPECT_FALSE(m.example.subword);  // setting the path reads nothing
  ASSERT_TRUE(LoadParamFiles(m).ok());
  m.example.text = "Hello world";
  Result<SentenceResult> s = ComputeSentence(m.example, m.pe, m.input, m.cap);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s.value().ids, (std::vector<int64_t>{15496, 995}));
  EXPECT_EQ(s.value().vocab_size, 50257);
  ASSERT_EQ(s.value().tokens.size(), 2u);
  EXPECT_EQ(s.value().tokens[1].text, "\xe2\x90\xa3world");
  EXPECT_EQ(s.value().tokens[1].raw, "\xc4\xa0world");
  EXPECT_EQ(s.value().tokens[1].begin, 5);
  EXPECT_EQ(ExampleTokenCount(m.example), 2);
  // The embedding row is the one of id 995, whatever else the text holds.
  EXPECT_EQ(s.value().parts.embedding.at(1, 3),
            EmbeddingValue(m.example.init, m.example.seed, m.pe.d_model, 995, 3));
  // --vocab-size below an id is refused, naming it; a fixed word list cannot be combined.
  TextExample small = m.example;
  small.vocab_size = 1000;
  EXPECT_NE(ComputeSentence(small, m.pe, m.input).message().find("--vocab-size 1000"),
            std::string::npos);
  TextExample both = m.example;
  both.vocabulary = {"Hello"};
  EXPECT_NE(ExampleIds(both).message().find("--vocab and --tokenizer-file"), std::string::npos);
  ASSERT_TRUE(f->set(m, "/nonexistent/tokenizer.json").ok());
  const Status bad = LoadParamFiles(m);
  EXPECT_NE(bad.message().find("--tokenizer-file: cannot read"), std::string::npos);
  ASSERT_TRUE(f->set(m, "").ok());
  EXPECT_FALSE(m.example.subword);
}

}  // namespace
}  // namespace pe
