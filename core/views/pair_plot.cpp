#include "views/pair_plot.h"

#include <algorithm>
#include <cassert>

namespace pe {

FigureSeries HorizontalLine(double y, double x0, double x1, Rgba8 color) {
  FigureSeries s;
  s.color = color;
  s.line_width = 1.2;
  s.xs = {x0, x1};
  s.ys = {y, y};
  return s;
}

FigureSeries VerticalLine(double x, double y0, double y1, Rgba8 color) {
  FigureSeries s;
  s.color = color;
  s.line_width = 1.2;
  s.xs = {x, x};
  s.ys = {y0, y1};
  return s;
}

double PairDotRadius(const Figure& f, const FigureSize& size, double x0, double x1) {
  // (Marker radii are in layout units, as the plot box.)
  const double units_per_pair = FigurePlotBox(f, size).w / (x1 - x0);
  const double dot = std::min(2.8, units_per_pair * 0.35);
  return dot >= 0.9 ? dot : 0.0;
}

std::vector<FigureSeries> CategoryRuns(std::span<const double> xs, std::span<const double> ys,
                                       std::span<const int> categories,
                                       std::span<const Rgba8> colors, double width) {
  assert(xs.size() == ys.size() && xs.size() == categories.size() &&
         "one category per point of the line");
  std::vector<FigureSeries> runs;
  const size_t n = xs.size();
  size_t start = 0;
  while (start < n) {
    size_t end = start;
    while (end + 1 < n && categories[end + 1] == categories[start]) ++end;
    FigureSeries run;
    run.color = colors[static_cast<size_t>(categories[start])];
    run.line_width = width;
    const size_t stop = std::min(end + 1, n - 1);
    run.xs.assign(xs.begin() + static_cast<ptrdiff_t>(start),
                  xs.begin() + static_cast<ptrdiff_t>(stop) + 1);
    run.ys.assign(ys.begin() + static_cast<ptrdiff_t>(start),
                  ys.begin() + static_cast<ptrdiff_t>(stop) + 1);
    if (run.xs.size() == 1) {  // a lone last pair: a dot
      run.marker_xs = run.xs;
      run.marker_ys = run.ys;
      run.marker_radius = 2.0;
      run.xs.clear();
      run.ys.clear();
    }
    runs.push_back(std::move(run));
    start = end + 1;
  }
  return runs;
}

}  // namespace pe
