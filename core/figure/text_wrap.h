// Text broken into lines no wider than a width, for legends and notes on screen and in files.
// Breaks where a reader expects them: after ", " outside parentheses first (when asked; a
// legend's "j=127: i=63 cos, ω=0.0001155, λ=5.441e+04" keeps each part whole, "score(m, n)"
// stays whole), then at spaces (numbers stay whole), and only a word wider than the line on its
// own ("T5Attention._relative_position_bucket") is broken inside, after a '.', '_', '/', '-', ':'
// or '(' when one lies in the line's second half, else at a character boundary (UTF-8). Nothing
// is dropped: the lines joined (with the spaces that were broken at) give the text back.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pe {

// `width(s)`: the drawn width of `s`, in the unit of `max_width`. At least one character a line,
// however narrow `max_width`.
std::vector<std::string> WrapText(const std::string& text, double max_width,
                                  const std::function<double(const std::string&)>& width,
                                  bool prefer_commas);

}  // namespace pe
