// The models besides byte-level BPE and WordPiece (BPE over characters with byte fallback,
// Unigram, WordLevel), added tokens' flags and the post-processors, against golden ids from
// Hugging Face tokenizers itself (its Node binding, npm `tokenizers`; tests/data/*/README.md and
// tests/data/tokenizer_tools/reference.js): each golden entry holds the ids with the special
// tokens added (Python's `tokenizer(text)`) and without (`add_special_tokens=False`).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "text/byte_groups.h"
#include "text/subword_tokenizer.h"

namespace pe {
namespace {

using Json = nlohmann::json;
const std::string kData = std::string(PE_TEST_DATA);

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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

SubwordTokenizer FromJson(const Json& j) {
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(j.dump(), "t.json");
  EXPECT_TRUE(t.ok()) << t.message();
  return t.ok() ? std::move(t).value() : SubwordTokenizer{};
}

// Every golden entry of `golden` (relative to tests/data), both settings; `map` turns the text
// into what the tokenizer is given.
void ExpectGoldens(const SubwordTokenizer& t, const std::string& golden,
                   std::string (*map)(const std::string&) = nullptr) {
  const Json g = Json::parse(ReadAll(kData + "/" + golden));
  ASSERT_GT(g.size(), 3u);
  for (const Json& e : g) {
    const std::string text = map ? map(e["text"].get<std::string>()) : e["text"].get<std::string>();
    EXPECT_EQ(Ids(t, text, SpecialTokens::kNone), e["none"].get<std::vector<int64_t>>())
        << golden << ": " << text;
    EXPECT_EQ(Ids(t, text, SpecialTokens::kAdd), e["add"].get<std::vector<int64_t>>())
        << golden << ": " << text;
  }
}

Json Load(const std::string& rel) {
  return Json::parse(ReadAll(kData + "/" + rel));
}

// ---- BPE over characters, with byte fallback: the model alone on text written as the
// normalizer leaves it (Mistral's: ▁ before the text, ▁ for each space), the texts without
// added tokens in them.

std::string Metaspaced(const std::string& s, bool prepend) {
  std::string out = prepend && !s.empty() ? "\xe2\x96\x81" : "";
  for (char c : s) {
    if (c == ' ') {
      out += "\xe2\x96\x81";
    } else {
      out += c;
    }
  }
  return out;
}

void ExpectModelGoldens(const std::string& dir, bool prepend) {
  Json j = Load(dir + "/tokenizer.json");
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = nullptr;
  const SubwordTokenizer t = FromJson(j);
  ASSERT_EQ(t.model(), SubwordTokenizer::Model::kBpe);
  int checked = 0;
  for (const Json& e : Load(dir + "/golden.json")) {
    const std::string text = e["text"].get<std::string>();
    if (text.find('<') != std::string::npos) continue;  // added tokens split the normalizing
    const std::string normalized = Metaspaced(text, prepend);
    EXPECT_EQ(Ids(t, normalized, SpecialTokens::kNone), e["none"].get<std::vector<int64_t>>())
        << dir << ": " << text;
    EXPECT_EQ(Ids(t, normalized, SpecialTokens::kAdd), e["add"].get<std::vector<int64_t>>())
        << dir << ": " << text;
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(CharBpe, MistralModelMatchesTheReference) {
  ExpectModelGoldens("mistral_small", true);
}
TEST(CharBpe, GemmaModelMatchesTheReference) {
  ExpectModelGoldens("gemma3_small", false);
}

// The whole files: the normalizer and pre-tokenizer (text/normalizers.h, pretokenizers.h), the
// added tokens in the text, the model and the post-processor.
TEST(CharBpe, MistralFileMatchesTheReference) {
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(
      ReadAll(kData + "/mistral_small/tokenizer.json"), "mistral.json");
  ASSERT_TRUE(t.ok()) << t.message();
  ExpectGoldens(t.value(), "mistral_small/golden.json");
}

TEST(CharBpe, GemmaFileMatchesTheReference) {
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(
      ReadAll(kData + "/gemma3_small/tokenizer.json"), "gemma.json");
  ASSERT_TRUE(t.ok()) << t.message();
  ExpectGoldens(t.value(), "gemma3_small/golden.json");
}

// decode(encode(text)) == text with byte fallback: the strings hold emoji, CJK and symbols the
// vocabularies lack. (The normalizers here change nothing but spaces, which decode back.)
TEST(CharBpe, RoundTripWithByteFallback) {
  for (const char* dir : {"mistral_small", "gemma3_small"}) {
    Result<SubwordTokenizer> t =
        SubwordTokenizer::FromTokenizerJson(ReadAll(kData + "/" + dir + "/tokenizer.json"), dir);
    ASSERT_TRUE(t.ok()) << t.message();
    for (const Json& e : Load(std::string(dir) + "/golden.json")) {
      const std::string text = e["text"].get<std::string>();
      if (text.find('<') != std::string::npos) continue;  // typed special tokens are dropped
      std::vector<int32_t> ids;
      for (int64_t id : Ids(t.value(), text, SpecialTokens::kAdd)) {
        ids.push_back(static_cast<int32_t>(id));
      }
      EXPECT_EQ(t.value().Decode(ids), text) << dir;
    }
  }
}

// The token strip groups the byte pieces of one character: a 4-byte emoji and a 3-byte symbol
// the vocabulary lacks, written as Mistral writes them (<0xNN> is id 3 + NN), around a word,
// a lone continuation byte and an ASCII byte piece, which belong to no group.
TEST(CharBpe, ByteFallbackPiecesGroupIntoTheirCharacters) {
  Json j = Load("mistral_small/tokenizer.json");
  j["normalizer"] = nullptr;
  const SubwordTokenizer t = FromJson(j);
  // U+1F999 (F0 9F A6 99, a llama) and U+2A55 (E2 A9 95) through the encoder itself.
  Result<std::vector<SubwordPiece>> r = t.Encode("\xf0\x9f\xa6\x99\xe2\xa9\x95");
  ASSERT_TRUE(r.ok());
  std::vector<int64_t> ids;
  for (const SubwordPiece& p : r.value()) ids.push_back(p.id);
  ASSERT_EQ(ids.size(), 7u);
  std::vector<ByteFallbackGroup> g = ByteFallbackGroups(t, ids);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].first, 0u);
  EXPECT_EQ(g[0].count, 4u);
  EXPECT_EQ(g[0].code_point, U'\U0001F999');
  EXPECT_EQ(g[0].character, "\xf0\x9f\xa6\x99");
  EXPECT_EQ(g[1].first, 4u);
  EXPECT_EQ(g[1].count, 3u);
  EXPECT_EQ(g[1].code_point, U'\u2A55');
  // A word, a stray continuation byte, an ASCII byte piece, a lead byte cut short, an overlong
  // form (C0 80) and a surrogate (ED A0 80): no group but the whole character at the end.
  const int64_t hello = t.Id("\xe2\x96\x81Hello");
  ASSERT_GE(hello, 0);
  const std::vector<int64_t> mixed = {hello,    3 + 0x98, 3 + 0x0A, 3 + 0xE2, 3 + 0xA9, 3 + 0xC0,
                                      3 + 0x80, 3 + 0xED, 3 + 0xA0, 3 + 0x80, 3 + 0xC3, 3 + 0xB6};
  g = ByteFallbackGroups(t, mixed);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].first, 10u);
  EXPECT_EQ(g[0].count, 2u);
  EXPECT_EQ(g[0].code_point, U'\u00F6');
  EXPECT_EQ(g[0].character, "\xc3\xb6");
}

TEST(CharBpe, ByteFallbackPiecesAndDisplay) {
  Json j = Load("mistral_small/tokenizer.json");
  j["normalizer"] = nullptr;
  const SubwordTokenizer t = FromJson(j);
  // U+2A55 is not in the vocabulary: its three UTF-8 bytes E2 A9 95 become <0xE2> <0xA9> <0x95>
  // (ids 3 + byte: Mistral's byte tokens follow <unk> <s> </s>).
  Result<std::vector<SubwordPiece>> r = t.Encode("\xe2\xa9\x95");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.value().size(), 3u);
  EXPECT_EQ(r.value()[0], (SubwordPiece{3 + 0xE2, 0, 1}));
  EXPECT_EQ(r.value()[1], (SubwordPiece{3 + 0xA9, 1, 2}));
  EXPECT_EQ(r.value()[2], (SubwordPiece{3 + 0x95, 2, 3}));
  EXPECT_EQ(t.DisplayToken(3 + 0xE2), "<0xE2>");
  EXPECT_EQ(t.ByteFallbackByte(3 + 0xE2), 0xE2);
  EXPECT_EQ(t.ByteFallbackByte(1), -1);
  EXPECT_EQ(t.DisplayToken(13), "\xe2\x86\xb5");  // <0x0A>: a newline, ↵
  // ▁ is the token's own character and stays.
  EXPECT_EQ(t.DisplayToken(t.Id("\xe2\x96\x81Hello")), "\xe2\x96\x81Hello");
  EXPECT_TRUE(t.IsSpecial(1));
  EXPECT_FALSE(t.IsSpecial(t.Id("\xe2\x96\x81Hello")));
  // Decoding: byte pieces join into the character again, ▁ is a space, <s> is left out.
  EXPECT_EQ(
      t.Decode({1, static_cast<int32_t>(t.Id("\xe2\x96\x81Hello")), 3 + 0xE2, 3 + 0xA9, 3 + 0x95}),
      "Hello\xe2\xa9\x95");  // the decoder's Strip drops the leading space
}

TEST(CharBpe, UnknownsFuseAndPrefixesJoin) {
  Json j;
  j["model"] = {{"type", "BPE"},
                {"unk_token", "<unk>"},
                {"fuse_unk", true},
                {"continuing_subword_prefix", "##"},
                {"end_of_word_suffix", "</w>"},
                {"vocab",
                 {{"<unk>", 0},
                  {"a", 1},
                  {"##b", 2},
                  {"##b</w>", 3},
                  {"a##b", 9},
                  {"ab", 4},
                  {"##c</w>", 5},
                  {"abc</w>", 6},
                  {"ab##c</w>", 7}}},
                {"merges", Json::array({"a ##b", "ab ##c</w>"})}};
  // "a" + "##b" makes "ab" (the prefix of the right side is dropped), then "ab" + "##c</w>"
  // makes "abc</w>".
  SubwordTokenizer t = FromJson(j);
  EXPECT_EQ(Ids(t, "abc", SpecialTokens::kNone), (std::vector<int64_t>{6}));
  // x and y are unknown and fuse into one <unk>; the final b carries the suffix.
  EXPECT_EQ(Ids(t, "axyb", SpecialTokens::kNone), (std::vector<int64_t>{1, 0, 3}));
  j["model"]["fuse_unk"] = false;
  t = FromJson(j);
  EXPECT_EQ(Ids(t, "axyb", SpecialTokens::kNone), (std::vector<int64_t>{1, 0, 0, 3}));
}

TEST(CharBpe, DropoutIsRefusedByName) {
  Json j = Load("mistral_small/tokenizer.json");
  j["model"]["dropout"] = 0.1;
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(j.dump(), "m.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("m.json: model.dropout is 0.1"), std::string::npos) << t.message();
  j["model"]["dropout"] = 0;
  j["normalizer"] = nullptr;
  EXPECT_TRUE(SubwordTokenizer::FromTokenizerJson(j.dump(), "m.json").ok());
}

// ---- Unigram: a T5-like model with made-up pieces and scores (no T5 tokenizer.json is
// packaged where the tests can reach it; tests/data/unigram_small/README.md).

TEST(Unigram, ViterbiMatchesTheReference) {
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(
      ReadAll(kData + "/unigram_small/plain.json"), "plain.json");
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t.value().model(), SubwordTokenizer::Model::kUnigram);
  ExpectGoldens(t.value(), "unigram_small/golden_plain.json");
}

TEST(Unigram, T5PreTokenizerMatchesTheReference) {
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(
      ReadAll(kData + "/unigram_small/tokenizer.json"), "t5.json");
  ASSERT_TRUE(t.ok()) << t.message();
  ExpectGoldens(t.value(), "unigram_small/golden.json");
}

TEST(Unigram, ByteFallbackMatchesTheReference) {
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(
      ReadAll(kData + "/unigram_small/byte_fallback.json"), "bytes.json");
  ASSERT_TRUE(t.ok()) << t.message();
  ExpectGoldens(t.value(), "unigram_small/golden_byte_fallback.json");
  // Round trip: the byte pieces of an unknown emoji give its bytes back.
  const std::string text =
      "\xe2\x96\x81"
      "emoji\xe2\x96\x81\xf0\x9f\x98\x80";
  std::vector<int32_t> ids;
  for (int64_t id : Ids(t.value(), text, SpecialTokens::kAdd))
    ids.push_back(static_cast<int32_t>(id));
  EXPECT_EQ(t.value().Decode(ids), "emoji \xf0\x9f\x98\x80");
}

TEST(Unigram, BadFilesNameTheKey) {
  Json j = Load("unigram_small/plain.json");
  j["model"]["unk_id"] = nullptr;
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(j.dump(), "u.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("u.json: model.unk_id is null"), std::string::npos) << t.message();
  j = Load("unigram_small/plain.json");
  j["model"]["vocab"][5] = {"x", "high"};
  t = SubwordTokenizer::FromTokenizerJson(j.dump(), "u.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("model.vocab[5] is not [piece, score]"), std::string::npos);
}

// ---- added tokens and post-processors

TEST(AddedTokens, RobertaMaskTakesTheSpaceBeforeIt) {
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(
      ReadAll(kData + "/roberta_small/tokenizer.json"), "roberta.json");
  ASSERT_TRUE(t.ok()) << t.message();
  ExpectGoldens(t.value(), "roberta_small/golden.json");
  // "Hello <mask>": <mask> covers " <mask>" (lstrip), so no space token is left before it.
  Result<std::vector<SubwordPiece>> r = t.value().Encode("Hello <mask>");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_EQ(r.value()[1], (SubwordPiece{50259, 5, 12}));
}

TEST(AddedTokens, SingleWordAndRstrip) {
  Json j = Load("roberta_small/tokenizer.json");
  j["added_tokens"][2]["lstrip"] = false;
  j["added_tokens"][2]["rstrip"] = true;
  j["added_tokens"][2]["single_word"] = true;
  const SubwordTokenizer t = FromJson(j);
  // Alone between spaces it is the token and takes the spaces after it; touching a word
  // character it is not, and its characters are encoded as text.
  Result<std::vector<SubwordPiece>> r = t.Encode("a <mask>  b");
  ASSERT_TRUE(r.ok());
  bool found = false;
  for (const SubwordPiece& p : r.value()) {
    if (p.id == 50259) {
      found = true;
      EXPECT_EQ(p.begin, 2);
      EXPECT_EQ(p.end, 10);
    }
  }
  EXPECT_TRUE(found);
  for (int64_t id : Ids(t, "x<mask>", SpecialTokens::kNone)) EXPECT_NE(id, 50259);
}

TEST(PostProcessors, BertTemplateAndBertProcessingAgree) {
  for (const char* file : {"bert_small/tokenizer.json", "bert_small/bert_processing.json"}) {
    Result<SubwordTokenizer> t =
        SubwordTokenizer::FromTokenizerJson(ReadAll(kData + "/" + file), file);
    ASSERT_TRUE(t.ok()) << t.message();
    ExpectGoldens(t.value(), "bert_small/golden.json");
    EXPECT_TRUE(t.value().IsSpecial(2));   // [CLS]
    EXPECT_FALSE(t.value().IsSpecial(5));  // hello
  }
  // The added tokens sit at the ends, covering no bytes.
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(
      ReadAll(kData + "/bert_small/tokenizer.json"), "bert.json");
  Result<std::vector<SubwordPiece>> r = t.value().Encode("hello", SpecialTokens::kAdd);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), (std::vector<SubwordPiece>{{2, 0, 0}, {5, 0, 5}, {3, 5, 5}}));
}

TEST(PostProcessors, SequenceNestsAndUnknownOnesAreNamed) {
  Json j = Load("bert_small/tokenizer.json");
  Json template_processing = j["post_processor"];
  j["post_processor"] = {
      {"type", "Sequence"},
      {"processors",
       Json::array({{{"type", "ByteLevel"}, {"trim_offsets", true}}, template_processing})}};
  SubwordTokenizer t = FromJson(j);
  EXPECT_EQ(Ids(t, "hello", SpecialTokens::kAdd), (std::vector<int64_t>{2, 5, 3}));
  j["post_processor"] = {{"type", "Mystery"}};
  Result<SubwordTokenizer> bad = SubwordTokenizer::FromTokenizerJson(j.dump(), "b.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(
      bad.message().find("b.json: post_processor: post-processor \"Mystery\" is not supported"),
      std::string::npos)
      << bad.message();
  j["post_processor"] = template_processing;
  j["post_processor"]["special_tokens"]["[SEP]"]["ids"] = {999};
  bad = SubwordTokenizer::FromTokenizerJson(j.dump(), "b.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("special_tokens[\"[SEP]\"].ids holds an id outside"),
            std::string::npos)
      << bad.message();
}

TEST(WordLevel, OneIdPerWordAndTheUnknown) {
  Json j;
  j["model"] = {{"type", "WordLevel"},
                {"unk_token", "[UNK]"},
                {"vocab", {{"[UNK]", 0}, {"hello", 1}, {"world", 2}}}};
  const SubwordTokenizer t = FromJson(j);
  EXPECT_EQ(Ids(t, "hello", SpecialTokens::kNone), (std::vector<int64_t>{1}));
  EXPECT_EQ(Ids(t, "nope", SpecialTokens::kNone), (std::vector<int64_t>{0}));
  j["model"]["unk_token"] = "<missing>";
  EXPECT_FALSE(SubwordTokenizer::FromTokenizerJson(j.dump(), "w.json").ok());
}

// A tokenizer.json is read in one simdjson pass, its vocabulary and merges straight into the
// tables; a file that pass declines (here for a 30-digit integer in a key of its own, which the
// document reader takes as a float and simdjson refuses) is read through the document as before.
// Both must give the same tokenizer: the same pieces, ids and byte ranges on every golden text,
// with and without special tokens, and the reference's ids.
TEST(TokenizerJson, OnePassAndDocumentReadersGiveTheSameTokenizer) {
  int files = 0;
  for (const char* dir :
       {"bert_small", "gemma3_small", "llama3_small", "mistral_small", "roberta_small",
        "unigram_small", "regex_bpe/o200k", "regex_bpe/qwen3", "regex_bpe/deepseek_v3"}) {
    SCOPED_TRACE(dir);
    const std::string fast_text = ReadAll(kData + "/" + dir + "/tokenizer.json");
    ASSERT_FALSE(fast_text.empty());
    std::string slow_text = fast_text;
    slow_text.insert(slow_text.find('{') + 1, "\"big\": 123456789012345678901234567890, ");
    ASSERT_TRUE(SubwordTokenizer::ReadsInOnePass(fast_text));
    ASSERT_FALSE(SubwordTokenizer::ReadsInOnePass(slow_text));
    Result<SubwordTokenizer> fast = SubwordTokenizer::FromTokenizerJson(fast_text, "f.json");
    Result<SubwordTokenizer> slow = SubwordTokenizer::FromTokenizerJson(slow_text, "s.json");
    ASSERT_TRUE(fast.ok()) << fast.message();
    ASSERT_TRUE(slow.ok()) << slow.message();
    EXPECT_EQ(fast.value().size(), slow.value().size());
    const Json golden = Load(std::string(dir) + "/golden.json");
    ASSERT_GT(golden.size(), 3u);
    for (const Json& e : golden) {
      const std::string text = e["text"].get<std::string>();
      for (SpecialTokens s : {SpecialTokens::kNone, SpecialTokens::kAdd}) {
        Result<std::vector<SubwordPiece>> a = fast.value().Encode(text, s);
        Result<std::vector<SubwordPiece>> b = slow.value().Encode(text, s);
        ASSERT_TRUE(a.ok() && b.ok()) << text;
        EXPECT_EQ(a.value(), b.value()) << text;
      }
      const char* key = e.contains("none") ? "none" : "ids";
      EXPECT_EQ(Ids(fast.value(), text, SpecialTokens::kNone), e[key].get<std::vector<int64_t>>())
          << text;
    }
    ++files;
  }
  EXPECT_EQ(files, 9);
}

// What the one pass declines goes to the document reader, whose messages name the problem.
TEST(TokenizerJson, ProblemsTheOnePassDeclinesAreNamedByTheDocumentReader) {
  const std::string good = ReadAll(kData + "/regex_bpe/qwen3/tokenizer.json");
  auto error = [](const std::string& text) {
    EXPECT_FALSE(SubwordTokenizer::ReadsInOnePass(text));
    Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(text, "q.json");
    return t.ok() ? std::string("(loaded)") : t.message();
  };
  auto with = [&](const std::string& at, const std::string& insert) {
    std::string t = good;
    const size_t p = t.find(at);
    EXPECT_NE(p, std::string::npos) << at;
    return t.insert(p + at.size(), insert);
  };
  const std::string vocab = "\"vocab\":{";
  const std::string merges = "\"merges\":[";
  EXPECT_NE(
      error(with(vocab, "\"zz\": 1.5, ")).find("model.vocab: the id of \"zz\" is not an integer"),
      std::string::npos);
  EXPECT_NE(error(with(merges, "7, ")).find("model.merges[0]: a merge is"), std::string::npos);
  EXPECT_NE(error(with(merges, "[\"a\", \"b\", \"c\"], ")).find("model.merges[0]: a merge is"),
            std::string::npos);
  EXPECT_NE(error(with("{", "\"model\": {}, ")).find("the key \"model\" appears twice"),
            std::string::npos);
  EXPECT_NE(error(good + " x").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error(with(vocab, "\"\x01\": 5, ")).find("not valid JSON"), std::string::npos);
  EXPECT_NE(error(with(vocab, "\"\xC3\": 5, ")).find("not valid UTF-8 at byte"), std::string::npos);
  // What the one pass reads, the shared checks refuse with the same words.
  const std::string twice = with(vocab, "\"a\\u0001\": 5, ");
  EXPECT_TRUE(SubwordTokenizer::ReadsInOnePass(twice));
  Result<SubwordTokenizer> t = SubwordTokenizer::FromTokenizerJson(twice, "q.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("q.json: model.vocab: tokens"), std::string::npos) << t.message();
  EXPECT_NE(t.message().find("both have id 5"), std::string::npos) << t.message();
}

}  // namespace
}  // namespace pe
