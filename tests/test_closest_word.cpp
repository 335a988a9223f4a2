// Suggestions for mistyped names: edit distances worked by hand, and the limits of what counts as
// a typo.
#include <gtest/gtest.h>

#include "base/closest_word.h"

namespace pe {
namespace {

TEST(ClosestWord, EditDistanceCountsEachKindOfEditOnce) {
  EXPECT_EQ(EditDistance("", ""), 0);
  EXPECT_EQ(EditDistance("", "abc"), 3);
  EXPECT_EQ(EditDistance("model", "model"), 0);
  EXPECT_EQ(EditDistance("modle", "model"), 1);       // neighbours swapped
  EXPECT_EQ(EditDistance("heatmp", "heatmap"), 1);    // one left out
  EXPECT_EQ(EditDistance("viridiss", "viridis"), 1);  // one too many
  EXPECT_EQ(EditDistance("sead", "seed"), 1);         // one changed
  EXPECT_EQ(EditDistance("ROPE", "rope"), 0);         // case is no edit
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);    // the textbook pair
  EXPECT_EQ(EditDistance("ca", "abc"), 3);  // a swap is not combined with later edits (OSA)
  EXPECT_EQ(EditDistance("abc", "ca"), 3);
}

TEST(ClosestWord, SuggestsOnlyANearUniqueCandidate) {
  const std::vector<std::string> views = {
      "heatmap", "curves", "sum", "score", "similarity", "similarity-offset", "rotation"};
  EXPECT_EQ(ClosestWord("heatmp", views), "heatmap");
  EXPECT_EQ(ClosestWord("Curves", views), "curves");       // right but for case
  EXPECT_EQ(ClosestWord("heatmap", views), std::nullopt);  // nothing to correct
  EXPECT_EQ(ClosestWord("spiral", views), std::nullopt);   // too far from all
  EXPECT_EQ(ClosestWord("sxm", views), "sum");
  EXPECT_EQ(ClosestWord("scre", views), "score");
  EXPECT_EQ(ClosestWord("rot", views), "rotation");      // the only one it begins
  EXPECT_EQ(ClosestWord("simil", views), std::nullopt);  // begins two
  EXPECT_EQ(ClosestWord("x", views), std::nullopt);
  EXPECT_EQ(ClosestWord("", views), std::nullopt);
  // Two candidates one edit away: no guess.
  EXPECT_EQ(ClosestWord("cat", {"bat", "hat"}), std::nullopt);
  EXPECT_EQ(ClosestWord("cat", {"bat", "bat"}), "bat");
  // Short words allow one edit, longer ones more.
  EXPECT_EQ(ClosestWord("t6", {"t5"}), "t5");
  EXPECT_EQ(ClosestWord("xy", {"t5"}), std::nullopt);
  EXPECT_EQ(ClosestWord("--d-modl", {"--d-model", "--max-len"}), "--d-model");
  EXPECT_EQ(ClosestWord("--dmodle", {"--d-model", "--max-len"}), "--d-model");
  EXPECT_EQ(DidYouMean("sead", {"seed", "scheme"}), " (did you mean seed?)");
  EXPECT_EQ(DidYouMean("zzzz", {"seed", "scheme"}), "");
  EXPECT_EQ(DidYouMean("sead", {"scheme", "head", "seed"}), " (did you mean head or seed?)");
  EXPECT_EQ(DidYouMean("simil", {"similarity", "similarity-offset", "sum"}),
            " (did you mean similarity or similarity-offset?)");
  EXPECT_EQ(DidYouMean("ab", {"aa", "bb", "ac", "cb"}), "");  // four guesses are no help
}

TEST(ClosestWord, WordsOfListReadsAMessagesChoices) {
  using V = std::vector<std::string>;
  EXPECT_EQ(WordsOfList("one of paper, t2t, tf-text"), (V{"paper", "t2t", "tf-text"}));
  EXPECT_EQ(WordsOfList("sin-first or cos-first"), (V{"sin-first", "cos-first"}));
  EXPECT_EQ(WordsOfList("rdbu, viridis or cividis."), (V{"rdbu", "viridis", "cividis"}));
  EXPECT_EQ(WordsOfList("normal-0.02 or torch:SEED (SEED an integer in [0, 9])"),
            (V{"normal-0.02", "torch", "SEED"}));
  EXPECT_EQ(WordsOfList(""), V{});
}

}  // namespace
}  // namespace pe
