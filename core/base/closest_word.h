// "Did you mean ...?" for a mistyped flag, view or choice: the candidate a slip of the keyboard
// away from what was typed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pe {

// Edits between two words, ignoring case: insertions, deletions, substitutions and swaps of two
// neighbouring letters ("modle" -> "model" is one).
int EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, if it is near enough to be a typo (one edit in a word of up to
// four letters, two up to eight, three beyond) and no other candidate is as near. A candidate that
// starts with the whole word ("rot" for "rotation") counts as near too when it is the only one.
std::optional<std::string> ClosestWord(std::string_view word,
                                       const std::vector<std::string>& candidates);

// Every candidate at the nearest distance within the typo allowance above (or, with none, every
// candidate the word begins), in the candidates' order; none when the word is one of them.
std::vector<std::string> NearestWords(std::string_view word,
                                      const std::vector<std::string>& candidates);

// " (did you mean X?)", " (did you mean X or Y?)" for up to three equally near candidates, or ""
// when none is near (or too many are).
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

// The names in a message's list of choices: "one of paper, t2t or tf-text" -> paper, t2t, tf-text.
// Words are letters, digits, '-', '_' and '.'; the list's own "one", "of" and "or" are dropped,
// and so is everything from a "(" on (an explanation, not a choice).
std::vector<std::string> WordsOfList(std::string_view list);

}  // namespace pe
