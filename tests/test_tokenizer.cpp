#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "test_support.h"
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

// Newlines and tabs are tokens of the char tokenizer and spaces between words; figures and chips
// show them as marks.
TEST(Tokenizer, MultiLineText) {
  const std::string poem = "Roses are red,\n\tviolets blue\r\n";
  EXPECT_EQ(Texts(Tokenize(poem, TokenizerKind::kWord)),
            (std::vector<std::string>{"Roses", "are", "red", ",", "violets", "blue"}));
  const std::vector<Token> chars = Tokenize(poem, TokenizerKind::kChar);
  ASSERT_EQ(chars.size(), poem.size());
  EXPECT_EQ(chars[14].text, "\n");
  EXPECT_EQ(chars[15].text, "\t");
  EXPECT_EQ(VisibleWhitespace(poem), "Roses are red,\u21b5\u2192violets blue\u21b5");
  EXPECT_EQ(VisibleWhitespace("\n"), "\u21b5");
  EXPECT_EQ(VisibleWhitespace("a\rb"), "a\u21b5b");
  EXPECT_EQ(VisibleWhitespace("plain"), "plain");
}

TEST(Tokenizer, MultiLineTextIsCheckedForUtf8AndControlCharacters) {
  EXPECT_TRUE(CheckMultilineText("--text", "line one\nline two\r\n\tcode();").ok());
  EXPECT_TRUE(CheckMultilineText("--text", "").ok());
  Status s = CheckMultilineText("--text", "ab\ncd\x01");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "--text holds a control character at byte offset 5 (0x01); only tab and newline are "
            "allowed");
  s = CheckMultilineText("--text", "caf\xc3\nx");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "--text is not valid UTF-8 at byte offset 3 (0xC3)");
}

// A text of 1,000 spaces is described, not repeated; a long text is cut.
TEST(Tokenizer, NoTokensMessageIsShort) {
  EXPECT_EQ(NoTokensMessage(""), "the text is empty: it has no tokens");
  EXPECT_EQ(NoTokensMessage(std::string(1000, ' ')), "the text (1000 spaces) has no tokens");
  EXPECT_EQ(NoTokensMessage("  \n\n\t"), "the text (2 spaces, 1 tab, 2 newlines) has no tokens");
  const std::string long_text = std::string(500, '.') + "\n";
  const std::string m = NoTokensMessage(long_text);
  EXPECT_LT(m.size(), 100u) << m;
  EXPECT_NE(m.find("(501 bytes)"), std::string::npos) << m;
  EXPECT_EQ(NoTokensMessage("\xc2\xa0"), "the text \"\xc2\xa0\" has no tokens");
}

using TextFiles = pe::testing::TempDirTest;

TEST_F(TextFiles, ReadsUtf8TextWithNewlinesFromFilesAndPipes) {
  const std::string poem =
      "Tyger Tyger, burning bright,\nIn the forests of the night;\n\tcaf\xc3\xa9\n";
  std::ofstream(Path("poem.txt"), std::ios::binary) << poem;
  Result<std::string> t = ReadTextFile(Path("poem.txt"), MemoryCap{});
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t.value(), poem);
  // An empty file is an empty text.
  std::ofstream(Path("empty.txt"), std::ios::binary).flush();
  t = ReadTextFile(Path("empty.txt"), MemoryCap{});
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t.value(), "");
  // A pipe: read to its end.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], poem.data(), poem.size()), static_cast<ssize_t>(poem.size()));
  ::close(fds[1]);
  t = ReadTextFile("/dev/fd/" + std::to_string(fds[0]), MemoryCap{});
  ::close(fds[0]);
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t.value(), poem);
}

TEST_F(TextFiles, BadTextFilesAreRefusedNamingTheFileAndTheByte) {
  std::ofstream(Path("latin1.txt"), std::ios::binary) << "line one\ncaf\xe9\n";
  Result<std::string> t = ReadTextFile(Path("latin1.txt"), MemoryCap{});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.message(),
            "\"" + Path("latin1.txt") + "\" is not valid UTF-8 at byte offset 12 (0xE9)");
  std::ofstream(Path("nul.txt"), std::ios::binary) << std::string("a\0b", 3);
  t = ReadTextFile(Path("nul.txt"), MemoryCap{});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("control character at byte offset 1 (0x00)"), std::string::npos)
      << t.message();
  // Over the memory cap: 1/64 of 6,400 bytes is 100.
  std::ofstream(Path("long.txt"), std::ios::binary) << std::string(101, 'a');
  t = ReadTextFile(Path("long.txt"), MemoryCap{6400});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("memory cap"), std::string::npos) << t.message();
  EXPECT_TRUE(ReadTextFile(Path("long.txt"), MemoryCap{6464}).ok());
  // A stream past the limit is refused too, after reading no more than the limit.
  t = ReadTextFile("/dev/zero", MemoryCap{6400});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("memory cap"), std::string::npos) << t.message();
  // A folder is not a text.
  t = ReadTextFile(dir_, MemoryCap{});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("a directory"), std::string::npos) << t.message();
  t = ReadTextFile(Path("missing.txt"), MemoryCap{});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find(Path("missing.txt")), std::string::npos) << t.message();
}

}  // namespace
}  // namespace pe
