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

// The text sizes at the default body size (kDefaultFontPt, 12): a page drawn at another body
// size (--font-size, or smaller on a page too small for it) has every size in proportion, set
// for the drawing by a FontScope.
constexpr double kBaseTitlePt = 16, kBaseLabelPt = 13, kBaseTickPt = 11, kBaseLegendPt = 12;
constexpr double kTickLen = 5;
// A panel's title (Figure::panels) is smaller than the page's.
constexpr double kBasePanelTitlePt = 13.5;
extern thread_local double g_font_scale;
inline double TitlePt() {
  return kBaseTitlePt * g_font_scale;
}
inline double LabelPt() {
  return kBaseLabelPt * g_font_scale;
}
inline double TickPt() {
  return kBaseTickPt * g_font_scale;
}
inline double LegendPt() {
  return kBaseLegendPt * g_font_scale;
}
inline double PanelTitlePt() {
  return kBasePanelTitlePt * g_font_scale;
}
// The text sizes for a body size of `pt` while it lives (the previous ones restored after).
class FontScope {
 public:
  explicit FontScope(double pt) : saved_(g_font_scale) { g_font_scale = pt / kDefaultFontPt; }
  ~FontScope() { g_font_scale = saved_; }
  FontScope(const FontScope&) = delete;
  FontScope& operator=(const FontScope&) = delete;

 private:
  double saved_;
};

struct Box {
  double x = 0, y = 0, w = 1, h = 1;
};

// ---- text (figure_text_layout.cpp)

void SetColor(cairo_t* cr, Rgba8 c);
// The same text rendering on every surface and in every process, whatever cairo cached before:
// grey antialiasing, no hinting (hinting would also move glyphs between PNG and vector files).
void FixFontOptions(cairo_t* cr);
void Font(cairo_t* cr, double size, bool bold = false);
// `markup`: sub- and superscripts written as markup.h describes are drawn as such (not in code).
double TextWidth(cairo_t* cr, const std::string& s, bool markup = true);
// Text with its anchor at (x, y): ax 0 left .. 1 right; ay 0 top .. 1 bottom (of the font box).
void Text(cairo_t* cr, const std::string& s, double x, double y, double ax, double ay,
          double angle = 0, bool markup = true);
// Set while FigureTextBoxes measures a figure: every Text adds its box and clip here.
extern thread_local std::vector<FigureTextBox>* g_text_boxes;

// A text drawn into an SVG as a <text> element (figure_svg_text.cpp): its transformation
// (cairo's xx, yx, xy, yy, x0, y0: the baseline's start on the page), colour and spans, each
// placed from the text's start (x) and raised (rise) in the element's units.
struct SvgText {
  struct Span {
    std::string text, family;
    bool bold = false;
    double size = 12, x = 0, rise = 0;
  };
  double matrix[6] = {1, 0, 0, 1, 0, 0};
  double r = 0, g = 0, b = 0, a = 1;
  std::vector<Span> spans;
};
// Set while an SVG is drawn with real text: every Text adds its element here instead of glyphs.
extern thread_local std::vector<SvgText>* g_svg_text;
// The elements as SVG, inserted before the document's closing tag.
std::string WithSvgText(std::string svg, const std::vector<SvgText>& texts);

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

// Whether a text line of `style` has sub- and superscripts (markup.h): not code and numbers,
// which show what is typed.
inline bool TextMarkup(FigureText::Style style) {
  return style != FigureText::Style::kCode && style != FigureText::Style::kNumbers;
}

// `scale`: the text's sizes times this (below 1 when the text would not fit the page).
void TextFont(cairo_t* cr, FigureText::Style style, double scale = 1.0);
// `*widest`: the widest line (a word wider than `width` keeps its own line).
std::vector<TextLine> LayoutText(cairo_t* cr, const Figure& f, double width, double scale,
                                 double* height, double* widest);

// ---- the page's layout (figure_layout.cpp)

// The share of the plot's height the colour bar takes: all of it, or half when a legend goes
// under it (a heatmap with notes), so the legend has room.
double ColorBarShare(const Figure& f, bool legend_below = false);

struct Layout {
  Box plot;
  std::vector<Tick> xticks, yticks, cticks;
  std::vector<TextLine> text;
  double text_top = 0;
  double text_scale = 1;          // the text under the title, shrunk when it would not fit
  double legend_pt = LegendPt();  // the legend's size
  bool legend_below = false;      // under the plot (no room beside it)
  double legend_below_h = 0;      // the height it takes there
  std::vector<std::string> xlabel, ylabel;  // the axis titles' lines
  double xlabel_pt = LabelPt(), ylabel_pt = LabelPt();
  // Every part is on the page with the plot area at least its least size, the legend
  // complete: false tells FittedFontPt to try a smaller body size.
  bool fits = true;
};

std::vector<Tick> AxisTicks(double lo, double hi, const FigureAxis& axis, double length,
                            double label_len);
// The title's lines: one for a page (smaller when wider than the page), broken after ", " at the
// body size when it would be smaller than that; up to three for a panel, whose columns are
// narrow ("B: rope, rope_scaling=yarn, scaling_factor=8, ...").
// `*used_pt`: the size the lines are drawn at.
std::vector<std::string> TitleLines(cairo_t* cr, const Figure& f, const FigureSize& size,
                                    double title_pt, bool panel = false, double* used_pt = nullptr);
// `title_lines`: at least this many title lines are reserved (side-by-side panels keep their
// plots level when one title takes more lines).
Layout ComputeLayout(cairo_t* cr, const Figure& f, const FigureSize& size, bool panel = false,
                     size_t title_lines = 1);
// The body size a page is drawn at: size.font_pt, or where the page is too small for every
// part at that size (after the plot area took its least size), smaller, 10% a step.
double FittedFontPt(cairo_t* cr, const Figure& f, const FigureSize& size);
// Where the legend's lines go: right of the plot (under the colour bar when there is one),
// each item wrapped to the room left on the page. Lines past the page's bottom are left out
// and `complete` says so.
// `below`: in a block under the plot and the x axis's title, from `below_top`, lines wrapped to
// the page's width.
LegendLayout LayOutLegend(cairo_t* cr, const Figure& f, const FigureSize& size, const Box& b,
                          double pt, bool below = false, double below_top = 0);

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

// `panel`: one of the side-by-side panels (its title smaller, up to three lines).
void Draw(cairo_t* cr, const Figure& f, const FigureSize& size, FigureFormat format,
          bool panel = false, size_t title_lines = 1);
void DrawPanels(cairo_t* cr, const Figure& f, const FigureSize& size, FigureFormat format);
// Whether side-by-side panels, their title and legend strip fit the page at the current sizes.
bool PanelsFit(cairo_t* cr, const Figure& f, const FigureSize& size);

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
