// A figure described without any drawing backend: axes, a raster image, bars, lines with
// markers, outlines, a colour bar, a legend and metadata. figure_render.h draws it with cairo to
// PNG, SVG or PDF; the view builders (app/figure_export.h) make one from what a panel shows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/ticks.h"
#include "figure/colormap.h"

namespace pe {

// A window onto plot coordinates (shared with the window's plot layer).
struct ViewRange {
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  bool operator==(const ViewRange&) const = default;
};

// Qualitative colours for series (Okabe-Ito, reordered so the first four read on white and on a
// dark background alike): the four parts of the input layer, curves, tokens.
Rgba8 SeriesRgba(int index);

struct FigureAxis {
  std::string label;
  bool cells = false;     // integer categories: tick k at the centre of [k, k+1)
  bool reversed = false;  // grows downward (y) as in a matrix
  bool integer = false;   // only whole-number ticks (an index axis)
  // Ticks placed by the view (position in plot coordinates, label in the data's terms), e.g. the
  // -1, 0, 1 of each small multiple of a grid; empty: nice ticks over the view.
  std::vector<Tick> ticks = {};
};

struct FigureImage {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;              // (height, width, 4), row 0 at y0
  double x0 = 0, y0 = 0, x1 = 1, y1 = 1;  // the plot rectangle it covers
};

struct FigureRect {
  double x0 = 0, y0 = 0, x1 = 1, y1 = 1;
  Rgba8 color;
  bool filled = true;
  double line_width = 1.0;  // for outlines
};

struct FigureSeries {
  std::string label;
  Rgba8 color;
  double line_width = 1.5;
  std::vector<double> xs, ys;                // the line (ascending xs); empty: no line
  std::vector<double> marker_xs, marker_ys;  // dots; empty: none
  double marker_radius = 2.2;
  // A filled band, drawn in `color` under the line: step k spans x in
  // [band_edges[k], band_edges[k + 1]] and y in [band_lo[k], band_hi[k]]. Empty: none.
  std::vector<double> band_edges, band_lo, band_hi;
};

// A text beside a point (a token's name in a scatter plot). The renderers place it next to the
// point where it covers no other label and no point (label_placement.h), or leave it out when
// there is no room; the window shows `hover` (or `text`) when the pointer is on the point.
struct FigureLabel {
  double x = 0, y = 0;
  std::string text;
  Rgba8 color;
  std::string hover;
};

struct FigureColorBar {
  ColormapId colormap = ColormapId::kRdBu;
  double vmin = -1, vmax = 1;
  std::string label;
};

struct FigureLegendItem {
  std::string label;
  Rgba8 color;
};
// The colour of a legend line that is a note, not a key: no swatch is drawn (alpha 0).
inline constexpr Rgba8 kNoColor{255, 255, 255, 0};

// A line of text under the title (a handout page's explanation, formula and numbers); wrapped
// at spaces to the page width.
struct FigureText {
  enum class Style { kBody, kFormula, kCode, kNumbers, kNote };
  std::string text;
  Style style = Style::kBody;
};

// A text, box or the figure's image placed by its view at page coordinates (the walkthrough
// handout's pages, which lay themselves out to fill the page): see Figure::placed.
struct FigurePlaced {
  enum class Kind { kText, kRect, kImage };
  Kind kind = Kind::kText;
  // Page units, top-left origin. A text's box: (x0, y0) its top-left corner, (x1, y1) where its
  // advance and its font's descent end.
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  std::string text;
  double pt = 12;
  bool bold = false;
  bool mono = false;  // DejaVu Sans Mono (code), else DejaVu Sans
  Rgba8 color{30, 30, 35, 255};
  bool filled = true;       // a rect: filled with `color`, else outlined
  double line_width = 1.0;  // an outline's
  std::string role;         // what it shows ("number", "mask kept", ...), for tests and readers
};

struct Figure {
  std::string title;
  std::vector<FigureText> text;  // under the title, above the plot
  bool plot = true;              // false: a page of text only (no axes)
  FigureAxis x, y;
  ViewRange view;  // what the plot area shows
  // Where the window may pan and zoom, when that is not the current table (the check view's
  // file has its own shape); unset: the panel's own limits.
  std::optional<ViewRange> extent;
  std::optional<FigureImage> image;  // drawn first, nearest-neighbour
  std::vector<FigureRect> rects;     // bars, under the lines
  std::vector<double> hlines;        // thin reference lines (y = 0)
  std::vector<FigureSeries> series;
  std::vector<FigureRect> overlays;        // outlines on top (a selected row)
  std::vector<FigureLabel> labels;         // texts beside points, on top of everything
  std::optional<FigureColorBar> colorbar;  // right of the plot
  std::vector<FigureLegendItem> legend;    // right of the plot, never over the data
  // One unit of x takes the same length as one unit of y (circles are round). The builder fits
  // `view` to its plot area; a panel whose plot area has another shape widens it to keep that.
  bool equal_aspect = false;
  std::vector<std::pair<std::string, std::string>> metadata;  // written into the file
  // Plots side by side (the compare view's A | B | A - B): when not empty, the page holds the
  // title, these panels in equal columns, each drawn as a figure of its own (its title, axes,
  // image, colour bar), and the legend in a strip under them; this figure's own axes, image and
  // series are not drawn. Panels have no panels of their own.
  std::vector<Figure> panels;
  // A page its view lays out itself: when not empty, the page is white and holds these, in
  // order, and nothing else of this figure is drawn (its title is the file's, `image` is what a
  // kImage item shows). Panels are not drawn either.
  std::vector<FigurePlaced> placed;
};

}  // namespace pe
