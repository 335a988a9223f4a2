// Sub- and superscripts written in a label's text the way the views write formulas:
// "Σ_{j=1}^{d/2} |S_j|", "e^{i r θ_k}", "2^-1.5", "d^-1/2", "base^(-2i/d)", "ω_i". The figure
// writers draw them as runs (smaller, raised or lowered); the window, which draws plain text,
// shows MarkupToUnicode's text (Unicode sub- and superscript characters where they exist).
// Only what reads as mathematics is markup: "_" joins a single letter (Latin or Greek, not part
// of a word) to a single letter or digit ("S_j", not "rope_scaling" or "d_model"); "^" takes a
// braced group, a parenthesised group, or a signed number or fraction ("2^-24", "d^-1/2").
#pragma once

#include <string>
#include <vector>

namespace pe {

struct MarkupRun {
  std::string text;
  int level = 0;    // 0 the line; +1 superscript, -1 subscript (the innermost, when nested)
  int depth = 0;    // how deeply nested: the size is 70% a level
  double rise = 0;  // the baseline's shift in units of the line's size (up positive)
};

// `text` as runs in order; the runs' texts joined are `text` without the markup. A group left
// open at the end of the text (a line broken inside it) runs to the end; a stray '}' is kept.
std::vector<MarkupRun> MarkupRuns(const std::string& text);

// True when `text` holds markup that MarkupRuns turns into sub- or superscripts.
bool HasMarkup(const std::string& text);

// The runs' text with sub- and superscripts as Unicode characters ("Σⱼ₌₁", "2⁻¹·⁵"); a run with
// a character that has none keeps its text in parentheses after "^" or "_" ("^(d/2)").
std::string MarkupToUnicode(const std::string& text);

}  // namespace pe
