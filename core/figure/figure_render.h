// Draws a Figure with cairo to PNG, SVG or PDF from one drawing path. Text is DejaVu Sans
// (fonts-dejavu-core). The heatmap image is embedded once, scaled nearest-neighbour (crisp
// cells, never a rectangle per cell); in SVG and PDF each cell is a block of several image pixels,
// so viewers that smooth images anyway keep cells crisp. Lines and text stay vectors.
// Every file carries the figure's metadata: PNG tEXt chunks, SVG <title> and <metadata>, PDF
// document information. PDF dates follow SOURCE_DATE_EPOCH when it is set (reproducible files).
#pragma once

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "figure/figure.h"

namespace pe {

enum class FigureFormat { kPng, kSvg, kPdf };
std::optional<FigureFormat> FigureFormatFromExtension(const std::string& ext);  // "png", ...

// The body text's size (legends, ticks) in layout units: the default and the range
// --font-size takes. Titles and axis titles are larger in proportion (16 and 13 at 12).
inline constexpr double kDefaultFontPt = 12, kLeastFontPt = 5, kMostFontPt = 36;
// The least page --width and --height take (and the window's export fields).
inline constexpr double kLeastFigureWidth = 120, kLeastFigureHeight = 90;

struct FigureSize {
  double width = 960;  // layout units: SVG px, PDF points, PNG pixels at scale 1
  double height = 540;
  double scale = 1.0;  // PNG only: pixels per unit
  // The body text's size; a page too small for it gets a plot area as small as it takes, then
  // (only then) smaller text, never text cut or off the page.
  double font_pt = kDefaultFontPt;
  bool svg_outlines = false;  // SVG: glyph outlines instead of <text> elements
  bool operator==(const FigureSize&) const = default;
};

// Allowed sizes, checked by ValidateFigureSize: width in [120, 10000] and height in [90, 10000]
// units, scale in [0.25, 8], font size in [5, 36], and at most 100 megapixels of PNG.
// What the messages call the three numbers: the window's fields by default, the command line
// its flags.
struct FigureSizeNames {
  const char* width = "figure width";
  const char* height = "figure height";
  const char* scale = "scale";
};
Status ValidateFigureSize(const FigureSize& size, const FigureSizeNames& names = {});

// Where the plot area lies on the page, in layout units (top-left origin).
struct PlotBox {
  double x = 0, y = 0, w = 1, h = 1;
};
PlotBox FigurePlotBox(const Figure& figure, const FigureSize& size);

// The plot area's size in output pixels: how many texels an image over the whole plot holds so
// that each lands on one pixel. PNG: the pixels at the figure's scale whose centres lie in the
// plot area; SVG and PDF: kVectorTexelsPerUnit per layout unit, counted the same way (a viewer
// at 1x shows each texel as one pixel, at 2x as 2 x 2). RenderFigure puts an image's edges on
// that grid, so such an image is copied texel for texel, never shrunk. A figure without a title
// is measured as titled (every export gets one).
inline constexpr double kVectorTexelsPerUnit = 1.0;
struct PixelSize {
  int width = 1, height = 1;
  bool operator==(const PixelSize&) const = default;
};
PixelSize PlotAreaPixels(const Figure& figure, const FigureSize& size, FigureFormat format);
// The same for each of a figure's side-by-side panels (Figure::panels), in page units and in
// output pixels; one entry per panel.
std::vector<PlotBox> FigurePanelPlotBoxes(const Figure& figure, const FigureSize& size);
std::vector<PixelSize> PanelAreaPixels(const Figure& figure, const FigureSize& size,
                                       FigureFormat format);

// The legend as RenderFigure lays it out: each item's lines, wrapped to the room right of the
// plot (long words broken, never cut), their widths and tops in layout units. `complete` is false
// when the page ended before the last line.
struct LegendLayout {
  struct Item {
    double x = 0;  // the text's left edge
    std::vector<std::string> lines;
    std::vector<double> widths, ys;
  };
  double max_width = 0;     // the room for one line
  double pt = 12;           // the text's size: smaller when the legend would not fit at 12
  std::vector<Item> items;  // (legend items), in order
  bool complete = true;
};
LegendLayout FigureLegendLayout(const Figure& figure, const FigureSize& size);

// Every text RenderFigure draws: its box (the font's ascent to descent, its advance; turned
// with the text) and the region it shows in (the page, or its panel), in page units. What tests
// hold against the page, so that no text is cut at any size.
struct FigureTextBox {
  std::string text;
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  double clip_x0 = 0, clip_y0 = 0, clip_x1 = 0, clip_y1 = 0;
  double pt = 0;  // the font's size on the page (the text's markup runs are smaller)
};
std::vector<FigureTextBox> FigureTextBoxes(const Figure& figure, const FigureSize& size);

// The advance of `text` as the renderers draw it in DejaVu Sans (Mono when `mono`) at `pt`, in
// page units: what a view that places its own text (Figure::placed) measures with.
double PlacedTextWidth(const std::string& text, double pt, bool bold, bool mono);
// The font's ascent plus descent at `pt`: a placed text's box height.
double PlacedTextHeight(double pt, bool mono);

// The body text size `figure` is drawn at on a page of `size`: size.font_pt, or smaller where
// the page has no room for it (text is shrunk together, never cut). `*largest_whole`, when given,
// gets the largest size in half points from kLeastFontPt up to size.font_pt that the page draws
// as asked (0 when even kLeastFontPt is shrunk).
double FigureTextPt(const Figure& figure, const FigureSize& size, double* largest_whole = nullptr);

// Renders `figure` into `out`. Errors (cairo failures, invalid size) leave `out` partly written:
// write files through WriteFileAtomically.
Status RenderFigure(const Figure& figure, FigureFormat format, const FigureSize& size,
                    std::ostream& out);
// Several figures as the pages of one PDF, in order, with the first page's title and metadata
// as the document's. PNG and SVG hold one page: more than one is an error saying to use PDF.
Status RenderFigurePages(std::span<const Figure> pages, FigureFormat format, const FigureSize& size,
                         std::ostream& out);

}  // namespace pe
