#include <gtest/gtest.h>

#include "text/tokenizer.h"

namespace pe {
namespace {

std::vector<std::string> Texts(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  for (const Token& t : tokens) out.push_back(t.text);
  return out;
}

TEST(Tokenizer, WordLevelSplitsPunctuation) {
  EXPECT_EQ(Texts(Tokenize("I love NLP.", TokenizerKind::kWord)),
            (std::vector<std::string>{"I", "love", "NLP", "."}));
  EXPECT_EQ(Texts(Tokenize("  don't,  stop!\n", TokenizerKind::kWord)),
            (std::vector<std::string>{"don", "'", "t", ",", "stop", "!"}));
  EXPECT_TRUE(Tokenize("   ", TokenizerKind::kWord).empty());
  EXPECT_EQ(Texts(Tokenize("café naïve", TokenizerKind::kWord)),
            (std::vector<std::string>{"café", "naïve"}));
}

TEST(Tokenizer, OffsetsPointIntoTheText) {
  const std::string text = "ab, c";
  for (const Token& t : Tokenize(text, TokenizerKind::kWord)) {
    EXPECT_EQ(text.substr(t.begin, t.end - t.begin), t.text);
  }
}

TEST(Tokenizer, CharacterLevelKeepsCodePointsAndSpaces) {
  EXPECT_EQ(Texts(Tokenize("hé y", TokenizerKind::kChar)),
            (std::vector<std::string>{"h", "é", " ", "y"}));
}

TEST(Vocabulary, IdsInOrderOfFirstAppearanceCaseSensitive) {
  auto tokens = Tokenize("The cat sits on the mat", TokenizerKind::kWord);
  Vocabulary v = Vocabulary::FromTokens(tokens);
  EXPECT_EQ(v.Ids(tokens), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(v.size(), 6);
  EXPECT_EQ(v.unknown_id(), -1);
  auto repeat = Tokenize("the cat the", TokenizerKind::kWord);
  EXPECT_EQ(Vocabulary::FromTokens(repeat).Ids(repeat), (std::vector<int64_t>{0, 1, 0}));
}

TEST(Vocabulary, FixedVocabularyMapsUnknownWordsToUnk) {
  Vocabulary v = Vocabulary::FromList({"I", "love", "NLP"}).value();
  EXPECT_EQ(v.size(), 4);
  EXPECT_EQ(v.word(3), "<unk>");
  EXPECT_EQ(v.Ids(Tokenize("I love C++", TokenizerKind::kWord)),
            (std::vector<int64_t>{0, 1, 3, 3, 3}));
  Vocabulary with_unk = Vocabulary::FromList({"<unk>", "a"}).value();
  EXPECT_EQ(with_unk.Id("zzz"), 0);
  EXPECT_EQ(Vocabulary::FromList({"a", "b", "a"}).message(),
            "vocabulary entry 3 \"a\" appears twice");
}

}  // namespace
}  // namespace pe
