// Pieces shared by the plots that draw one point per frequency pair against the pair index
// (the frequencies and spectrum views): reference lines, the dot size the pairs' spacing
// allows, and a line coloured run by run by a per-pair category. Not a plot layer: each view
// still decides its own series.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "figure/figure.h"
#include "figure/figure_render.h"

namespace pe {

// A horizontal reference line from x0 to x1 at y, as a two-point series.
FigureSeries HorizontalLine(double y, double x0, double x1, Rgba8 color);
// A vertical reference line from y0 to y1 at x, as a two-point series.
FigureSeries VerticalLine(double x, double y0, double y1, Rgba8 color);

// The radius (layout units) of one dot per pair when pairs x0 + 0.5 .. x1 - 0.5 fill the plot
// area of `f` at `size`: 0.35 of a pair's spacing, at most 2.8; 0 when that is under 0.9
// (the pairs are too dense for dots: a 32768-pair head gets plain lines).
double PairDotRadius(const Figure& f, const FigureSize& size, double x0, double x1);

// The line (xs, ys), one point per pair, cut into runs of pairs of the same category, each run
// `width` wide in colors[category] and joined to the next run's first point so the runs meet;
// a lone last pair is a dot. categories[k] indexes `colors`. (xs.size() == ys.size() ==
// categories.size())
std::vector<FigureSeries> CategoryRuns(std::span<const double> xs, std::span<const double> ys,
                                       std::span<const int> categories,
                                       std::span<const Rgba8> colors, double width);

}  // namespace pe
