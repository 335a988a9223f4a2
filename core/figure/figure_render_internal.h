// What the cairo renderer's files share and nothing outside core/figure uses: the page's sizes,
// text (figure_text_layout.cpp), the page layout (figure_layout.cpp), images
// (figure_raster.cpp), the drawing (figure_render.cpp) and the metadata the writers embed
// (figure_metadata_embed.cpp, used by figure_writers.cpp).
#pragma once

#include <cairo.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/ticks.h"
#include "figure/figure.h"
#include "figure/figure_render.h"

namespace pe::figure_internal {

constexpr double kTitlePt = 16, kLabelPt = 13, kTickPt = 11, kLegendPt = 12;
constexpr double kTickLen = 5;
// A panel's title (Figure::panels) is smaller than the page's.
constexpr double kPanelTitlePt = 13.5;

struct Box {
  double x = 0, y = 0, w = 1, h = 1;
};

// ---- text (figure_text_layout.cpp)

void SetColor(cairo_t* cr, Rgba8 c);
// The same text rendering on every surface and in every process, whatever cairo cached before:
// grey antialiasing, no hinting (hinting would also move glyphs between PNG and vector files).
void FixFontOptions(cairo_t* cr);
void Font(cairo_t* cr, double size, bool bold = false);
double TextWidth(cairo_t* cr, const std::string& s);
// Text with its anchor at (x, y): ax 0 left .. 1 right; ay 0 top .. 1 bottom (of the font box).
void Text(cairo_t* cr, const std::string& s, double x, double y, double ax, double ay,
          double angle = 0);
// Set while FigureTextBoxes measures a figure: every Text adds its box and clip here.
extern thread_local std::vector<FigureTextBox>* g_text_boxes;

// The font size (from `pt` down, 10% a step) at which `fits` holds, for text that must not run
// off the page: at least `floor` (tiny, but on the page rather than cut). The last call of
// `fits` is for the size returned, so what it lays out is that size's layout.
template <typename Fits>
double FittingSize(double pt, const Fits& fits, double floor = 1.0) {
  while (!fits(pt) && pt > floor) pt = std::max(floor, pt * 0.9);
  return pt;
}

// `text` in lines no wider than `max_width` in the current font (text_wrap.h: after ", " first).
std::vector<std::string> WrapAtCommas(cairo_t* cr, const std::string& text, double max_width);

// The text under the title: each line's style, wrapped at spaces to `width` (a word wider than
// the width keeps its own line, so numbers are never split).
struct TextLine {
  std::string text;
  FigureText::Style style;
  double y = 0;  // top, relative to the block
};
constexpr double kTextLeft = 16;

// `scale`: the text's sizes times this (below 1 when the text would not fit the page).
void TextFont(cairo_t* cr, FigureText::Style style, double scale = 1.0);
// `*widest`: the widest line (a word wider than `width` keeps its own line).
std::vector<TextLine> LayoutText(cairo_t* cr, const Figure& f, double width, double scale,
                                 double* height, double* widest);

// ---- the page's layout (figure_layout.cpp)

// The share of the plot's height the colour bar takes: all of it, or half when a legend goes
// under it (a heatmap with notes), so the legend has room.
double ColorBarShare(const Figure& f);

struct Layout {
  Box plot;
  std::vector<Tick> xticks, yticks, cticks;
  std::vector<TextLine> text;
  double text_top = 0;
  double text_scale = 1;         // the text under the title, shrunk when it would not fit
  double legend_pt = kLegendPt;  // the legend's size, smaller when it would not fit
};

std::vector<Tick> AxisTicks(double lo, double hi, const FigureAxis& axis, double length,
                            double label_len);
// The title's lines: one for a page (it shrinks to fit instead), up to three broken after ", "
// for a panel, whose columns are narrow ("B: rope, rope_scaling=yarn, scaling_factor=8, ...").
std::vector<std::string> TitleLines(cairo_t* cr, const Figure& f, const FigureSize& size,
                                    double title_pt);
// `title_lines`: at least this many title lines are reserved (side-by-side panels keep their
// plots level when one title takes more lines).
Layout ComputeLayout(cairo_t* cr, const Figure& f, const FigureSize& size,
                     double title_pt = kTitlePt, size_t title_lines = 1);
// Where the legend's lines go: right of the plot (under the colour bar when there is one),
// each item wrapped to the room left on the page. Lines past the page's bottom are left out
// and `complete` says so.
LegendLayout LayOutLegend(cairo_t* cr, const Figure& f, const FigureSize& size, const Box& b,
                          double pt);

// Data coordinates (the figure's view) to page coordinates in the plot box `b`.
struct Mapper {
  const Figure& f;
  Box b;
  double X(double x) const { return b.x + (x - f.view.x0) / (f.view.x1 - f.view.x0) * b.w; }
  double Y(double y) const {
    const double t = (y - f.view.y0) / (f.view.y1 - f.view.y0);
    return f.y.reversed ? b.y + t * b.h : b.y + b.h - t * b.h;
  }
};

// ---- images (figure_raster.cpp)

// An ARGB32 cairo surface of an RGBA8 image (opaque or not; premultiplied as cairo wants), each
// pixel repeated as a `repeat` x `repeat` block.
cairo_surface_t* ImageSurface(int w, int h, const uint8_t* rgba, int repeat);
// How many times to repeat each image pixel in a vector file (see figure_raster.cpp).
int VectorImageRepeat(int w, int h, double width_units, double height_units);
// Output pixels per layout unit: PNG's scale; in SVG and PDF one texel per unit.
double TexelsPerUnit(const FigureSize& size, FigureFormat format);
// The grid line at or after `v` (in grid cells): the first cell whose centre is at or past v.
double GridEdge(double v);
// Paints `img` (w x h pixels) onto the device rectangle from (dx0, dy0) to (dx1, dy1), which
// may be flipped, with nearest-neighbour sampling.
void PaintImage(cairo_t* cr, cairo_surface_t* img, int w, int h, double dx0, double dy0, double dx1,
                double dy1);

// ---- drawing (figure_render.cpp)

void Draw(cairo_t* cr, const Figure& f, const FigureSize& size, FigureFormat format,
          double title_pt = kTitlePt, size_t title_lines = 1);
void DrawPanels(cairo_t* cr, const Figure& f, const FigureSize& size, FigureFormat format);

// ---- metadata (figure_metadata_embed.cpp)

// A cairo write function appending to the std::string `closure`.
cairo_status_t AppendToString(void* closure, const unsigned char* data, unsigned int length);
std::string Describe(const Figure& f);
// PNG tEXt chunks (Latin-1 keyword, NUL, text) go right after IHDR.
std::string WithPngText(const std::string& png,
                        const std::vector<std::pair<std::string, std::string>>& entries);
// Stable ids, nearest-neighbour hints on images, then <title> and <metadata> right after the
// <svg> tag.
std::string WithSvgMetadata(std::string svg, const Figure& f);
std::string MetadataValue(const Figure& f, const std::string& key);

}  // namespace pe::figure_internal
