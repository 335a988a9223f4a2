// SentencePiece .model files: models trained here with SentencePiece's own trainer (unigram and
// BPE, byte_fallback on, a small multilingual text) load through --tokenizer-file's loader and
// give the ids SentencePiece's own EncodeAsIds gives, on varied strings with characters the
// models lack (byte fallback); every piece covers the bytes of the text it stands for.
#include <gtest/gtest.h>
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/read_support.h"
#include "text/subword_tokenizer.h"

namespace pe {
namespace {

const char* const kCorpus[] = {
    "The quick brown fox jumps over the lazy dog.",
    "Positional encodings tell a transformer where each token sits.",
    "Rotary embeddings rotate queries and keys by an angle that grows with position.",
    "Le renard brun rapide saute par-dessus le chien paresseux, à l'évidence.",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "El zorro marrón rápido salta sobre el perro perezoso.",
    "Быстрая коричневая лиса прыгает через ленивую собаку.",
    "日本語の文章です。中文也可以。",
    "numbers 0 1 2 3 4 5 6 7 8 9 10 100 1000 and symbols ( ) [ ] { } < > = + - * /",
};

const char* const kStrings[] = {
    "Hello world",
    " Hello  world ",
    "The quick brown fox jumps over the lazy dog.",
    "rotary positional encodings",
    "emoji \xF0\x9F\x98\x80\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD and \xF0\x9F\xA6\x84",
    "rare \xE2\xA9\x95 \xE1\x9A\xA0\xE1\x9A\xA2 \xF0\x90\x8C\xB0 symbols",
    "日本語と中文と한국어",
    "line one\nline two\ttab",
    "naïve café, Ångström, Ελληνικά",
    "",
    "    ",
    "x",
};

// Trains a model of `type` into `dir` (once per test run) and returns its path.
std::string Train(const std::string& type) {
  const std::string dir =
      std::filesystem::temp_directory_path().string() + "/pe_sp_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string corpus = dir + "/corpus.txt";
  {
    std::ofstream out(corpus);
    for (int r = 0; r < 20; ++r) {
      for (const char* line : kCorpus) out << line << "\n";
    }
  }
  const std::string prefix = dir + "/" + type;
  const auto st = sentencepiece::SentencePieceTrainer::Train(
      "--input=" + corpus + " --model_prefix=" + prefix + " --model_type=" + type +
      " --vocab_size=420 --byte_fallback=true --character_coverage=0.98 "
      "--hard_vocab_limit=false --minloglevel=2");
  EXPECT_TRUE(st.ok()) << st.ToString();
  return prefix + ".model";
}

void ExpectSameAsSentencePiece(const std::string& model) {
  Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(model, MemoryCap{});
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t.value()->model(), SubwordTokenizer::Model::kSentencePiece);
  sentencepiece::SentencePieceProcessor sp;
  ASSERT_TRUE(sp.Load(model).ok());
  EXPECT_EQ(t.value()->size(), sp.GetPieceSize());
  int fallbacks = 0;
  for (const char* text : kStrings) {
    const std::string s = text;
    std::vector<int> want;
    ASSERT_TRUE(sp.Encode(s, &want).ok());
    Result<std::vector<SubwordPiece>> got = t.value()->Encode(s, SpecialTokens::kNone);
    ASSERT_TRUE(got.ok()) << got.message();
    std::vector<int> ids;
    int64_t at = 0;
    for (const SubwordPiece& p : got.value()) {
      ids.push_back(p.id);
      EXPECT_GE(p.begin, at) << s;
      EXPECT_LE(p.begin, p.end) << s;
      EXPECT_LE(p.end, static_cast<int64_t>(s.size())) << s;
      at = p.begin;
      if (t.value()->ByteFallbackByte(p.id) >= 0) ++fallbacks;
    }
    EXPECT_EQ(ids, want) << s;
    // With the special tokens: the model's BOS (<s>, id 1) first.
    Result<std::vector<SubwordPiece>> added = t.value()->Encode(s, SpecialTokens::kAdd);
    ASSERT_TRUE(added.ok());
    ASSERT_EQ(added.value().size(), want.size() + 1);
    EXPECT_EQ(added.value()[0].id, sp.bos_id());
    EXPECT_TRUE(t.value()->IsSpecial(sp.bos_id()));
  }
  EXPECT_GT(fallbacks, 10);  // the emoji, rare symbols and Hangul fall back to bytes
  // Byte-fallback pieces read as their bytes.
  const int64_t e2 = t.value()->Id("<0xE2>");
  ASSERT_GE(e2, 0);
  EXPECT_EQ(t.value()->ByteFallbackByte(e2), 0xE2);
  EXPECT_EQ(t.value()->DisplayToken(e2), "<0xE2>");
  std::filesystem::remove_all(std::filesystem::path(model).parent_path());
}

TEST(TokenizerSentencePiece, UnigramMatchesSentencePiece) {
  ExpectSameAsSentencePiece(Train("unigram"));
}

TEST(TokenizerSentencePiece, BpeMatchesSentencePiece) {
  ExpectSameAsSentencePiece(Train("bpe"));
}

TEST(TokenizerSentencePiece, NotAModelIsRefusedNamingTheFile) {
  const std::string path = std::filesystem::temp_directory_path().string() + "/pe_sp_bad_" +
                           std::to_string(::getpid()) + ".model";
  {
    std::ofstream out(path, std::ios::binary);
    out << "this is not a protobuf";
  }
  Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(path, MemoryCap{});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find(path), std::string::npos) << t.message();
  EXPECT_NE(t.message().find("not a SentencePiece model"), std::string::npos) << t.message();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace pe
