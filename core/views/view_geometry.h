// Rules the window's panels and the exported figures share, so a view looks the same on screen
// and in a file: how finely curves are sampled, how many series are drawn, how the scaled
// embedding is written.
#pragma once

#include <algorithm>
#include <cstddef>

namespace pe {

// Samples of a smooth curve across a plot `width_px` pixels wide: two per pixel (a sine between
// samples is then a straight line to well under a pixel), 64 to 20001.
inline int CurveSamples(int width_px) { return std::clamp(2 * width_px + 1, 64, 20001); }

// At most this many curves are drawn (a longer list is cut, and says so).
inline constexpr size_t kMaxCurveSeries = 64;
// At most this many tokens get a series in the all-tokens sum (more make an unreadable legend).
inline constexpr int kMaxTokenSeries = 32;

// "E × √d": the scaled embedding, as every label writes it.
inline constexpr const char* kScaledEmbedding = "E \xc3\x97 \xe2\x88\x9a" "d";

}  // namespace pe
