#include "figure/figure_render.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <sstream>

#include "base/ticks.h"
#include "figure/label_placement.h"
#include "figure/text_wrap.h"
#include "io/figure_metadata_reader.h"
#include "text/tokenizer.h"

namespace pe {

Rgba8 SeriesRgba(int index) {
  static const Rgba8 colors[] = {{86, 180, 233, 255},  {230, 159, 0, 255},  {0, 158, 115, 255},
                                 {204, 121, 167, 255}, {213, 94, 0, 255},   {0, 114, 178, 255},
                                 {240, 228, 66, 255},  {150, 150, 150, 255}};
  return colors[static_cast<unsigned>(index) % 8];
}

std::optional<FigureFormat> FigureFormatFromExtension(const std::string& ext) {
  if (ext == "png") return FigureFormat::kPng;
  if (ext == "svg") return FigureFormat::kSvg;
  if (ext == "pdf") return FigureFormat::kPdf;
  return std::nullopt;
}

Status ValidateFigureSize(const FigureSize& s, const FigureSizeNames& names) {
  auto fmt = [](double v) {
    std::ostringstream o;
    o << v;
    return o.str();
  };
  if (!(s.width >= 200 && s.width <= 10000)) {
    return InvalidArgument(std::string(names.width) + " must be in [200, 10000], got " +
                           fmt(s.width));
  }
  if (!(s.height >= 200 && s.height <= 10000)) {
    return InvalidArgument(std::string(names.height) + " must be in [200, 10000], got " +
                           fmt(s.height));
  }
  if (!(s.scale >= 0.25 && s.scale <= 8)) {
    return InvalidArgument(std::string(names.scale) + " must be in [0.25, 8], got " + fmt(s.scale));
  }
  if (s.width * s.scale * s.height * s.scale > 100e6) {
    return InvalidArgument("a " + fmt(s.width * s.scale) + " x " + fmt(s.height * s.scale) +
                           " pixel image is over the 100 megapixel limit; lower the size or scale");
  }
  return {};
}

namespace {

constexpr double kTitlePt = 16, kLabelPt = 13, kTickPt = 11, kLegendPt = 12;
constexpr double kTickLen = 5;

struct Box {
  double x = 0, y = 0, w = 1, h = 1;
};

void SetColor(cairo_t* cr, Rgba8 c) {
  cairo_set_source_rgba(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0, c.a / 255.0);
}

// The same text rendering on every surface and in every process, whatever cairo cached before:
// grey antialiasing, no hinting (hinting would also move glyphs between PNG and vector files).
void FixFontOptions(cairo_t* cr) {
  cairo_font_options_t* o = cairo_font_options_create();
  cairo_font_options_set_antialias(o, CAIRO_ANTIALIAS_GRAY);
  cairo_font_options_set_hint_style(o, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF);
  cairo_set_font_options(cr, o);
  cairo_font_options_destroy(o);
}

void Font(cairo_t* cr, double size, bool bold = false) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

// Chinese, Japanese and Korean: Hangul Jamo and the blocks from CJK Radicals to the half-width
// forms, which DejaVu Sans has none of (the window's font atlas uses the same split).
bool IsCjk(char32_t c) {
  return (c >= 0x1100 && c <= 0x11FF) || (c >= 0x2E80 && c <= 0xFFEF);
}

// Calls draw(run, cjk) for each run of `s` that is all CJK or all other characters, with the
// font switched to Noto Sans CJK (fonts-noto-cjk, through fontconfig) for CJK runs: cairo's toy
// text API draws each string in one face, so a token such as "日本" would otherwise come out as
// DejaVu's empty boxes. The current face (family, weight) is restored afterwards. Newlines and
// tabs (a multi-line text, a token of one) are drawn as the marks ↵ and → (VisibleWhitespace).
template <typename Draw>
void ForEachFontRun(cairo_t* cr, const std::string& text, const Draw& draw) {
  std::string visible;
  const std::string& s = text.find_first_of("\n\r\t") == std::string::npos
                             ? text
                             : (visible = VisibleWhitespace(text));
  size_t start = 0;
  bool run_cjk = false;
  auto flush = [&](size_t end) {
    if (end <= start) return;
    const std::string run = s.substr(start, end - start);
    if (!run_cjk) {
      draw(run);
      return;
    }
    cairo_font_face_t* face = cairo_font_face_reference(cairo_get_font_face(cr));
    cairo_select_font_face(cr, "Noto Sans CJK JP", CAIRO_FONT_SLANT_NORMAL,
                           cairo_toy_font_face_get_weight(face));
    draw(run);
    cairo_set_font_face(cr, face);
    cairo_font_face_destroy(face);
  };
  size_t k = 0;
  while (k < s.size()) {
    const auto b = static_cast<unsigned char>(s[k]);
    const size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    char32_t c = b;
    if (n == 3 && k + 2 < s.size()) {
      c = ((b & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[k + 1]) & 0x3Fu) << 6) |
          (static_cast<unsigned char>(s[k + 2]) & 0x3Fu);
    }
    const bool cjk = n == 3 && IsCjk(c);
    if (cjk != run_cjk) {
      flush(k);
      start = k;
      run_cjk = cjk;
    }
    k += n;
  }
  flush(s.size());
}

double TextWidth(cairo_t* cr, const std::string& s) {
  double width = 0;
  ForEachFontRun(cr, s, [&](const std::string& run) {
    cairo_text_extents_t e;
    cairo_text_extents(cr, run.c_str(), &e);
    width += e.x_advance;
  });
  return width;
}

// Shows `s` at the current point, run by run (ForEachFontRun).
void ShowText(cairo_t* cr, const std::string& s) {
  ForEachFontRun(cr, s, [&](const std::string& run) { cairo_show_text(cr, run.c_str()); });
}

// Set while FigureTextBoxes measures a figure: every Text adds its box and clip here.
thread_local std::vector<FigureTextBox>* g_text_boxes = nullptr;

// The device-space bounding box of the user-space rectangle (x0, y0) to (x1, y1).
void DeviceBox(cairo_t* cr, double x0, double y0, double x1, double y1, double out[4]) {
  out[0] = out[1] = 1e300;
  out[2] = out[3] = -1e300;
  for (double x : {x0, x1}) {
    for (double y : {y0, y1}) {
      double dx = x, dy = y;
      cairo_user_to_device(cr, &dx, &dy);
      out[0] = std::min(out[0], dx);
      out[1] = std::min(out[1], dy);
      out[2] = std::max(out[2], dx);
      out[3] = std::max(out[3], dy);
    }
  }
}

// Text with its anchor at (x, y): ax 0 left .. 1 right; ay 0 top .. 1 bottom (of the font box).
void Text(cairo_t* cr, const std::string& s, double x, double y, double ax, double ay,
          double angle = 0) {
  cairo_font_extents_t fe;
  cairo_font_extents(cr, &fe);
  const double w = TextWidth(cr, s);
  const double h = fe.ascent + fe.descent;
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, angle);
  cairo_move_to(cr, -ax * w, -ay * h + fe.ascent);
  ShowText(cr, s);
  if (g_text_boxes != nullptr) {
    FigureTextBox box;
    box.text = s;
    double d[4];
    DeviceBox(cr, -ax * w, -ay * h, -ax * w + w, -ay * h + h, d);
    box.x0 = d[0], box.y0 = d[1], box.x1 = d[2], box.y1 = d[3];
    double c[4];
    cairo_clip_extents(cr, &c[0], &c[1], &c[2], &c[3]);
    DeviceBox(cr, c[0], c[1], c[2], c[3], d);
    box.clip_x0 = d[0], box.clip_y0 = d[1], box.clip_x1 = d[2], box.clip_y1 = d[3];
    g_text_boxes->push_back(std::move(box));
  }
  cairo_restore(cr);
}

// The font size (from `pt` down, 10% a step) at which `fits` holds, for text that must not run
// off the page: at least `floor` (tiny, but on the page rather than cut). The last call of
// `fits` is for the size returned, so what it lays out is that size's layout.
template <typename Fits>
double FittingSize(double pt, const Fits& fits, double floor = 1.0) {
  while (!fits(pt) && pt > floor) pt = std::max(floor, pt * 0.9);
  return pt;
}

// `text` in lines no wider than `max_width` in the current font (text_wrap.h: after ", " first).
std::vector<std::string> WrapAtCommas(cairo_t* cr, const std::string& text, double max_width) {
  return WrapText(
      text, max_width, [cr](const std::string& t) { return TextWidth(cr, t); }, true);
}

// The text under the title: each line's style, wrapped at spaces to `width` (a word wider than
// the width keeps its own line, so numbers are never split).
struct TextLine {
  std::string text;
  FigureText::Style style;
  double y = 0;  // top, relative to the block
};
constexpr double kTextLeft = 16;

// `scale`: the text's sizes times this (below 1 when the text would not fit the page).
void TextFont(cairo_t* cr, FigureText::Style style, double scale = 1.0) {
  switch (style) {
    case FigureText::Style::kBody:
      Font(cr, 12.5 * scale);
      return;
    case FigureText::Style::kFormula:
      Font(cr, 13 * scale, true);
      return;
    case FigureText::Style::kNote:
      Font(cr, 11 * scale);
      return;
    case FigureText::Style::kCode:
    case FigureText::Style::kNumbers:
      cairo_select_font_face(cr, "DejaVu Sans Mono", CAIRO_FONT_SLANT_NORMAL,
                             CAIRO_FONT_WEIGHT_NORMAL);
      cairo_set_font_size(cr, 10.5 * scale);
      return;
  }
}

// `*widest`: the widest line (a word wider than `width` keeps its own line).
std::vector<TextLine> LayoutText(cairo_t* cr, const Figure& f, double width, double scale,
                                 double* height, double* widest) {
  std::vector<TextLine> lines;
  double y = 0;
  *widest = 0;
  for (const FigureText& t : f.text) {
    TextFont(cr, t.style, scale);
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    const double step = (fe.ascent + fe.descent) * 1.18;
    if (t.style == FigureText::Style::kFormula || t.style == FigureText::Style::kCode)
      y += 3 * scale;
    std::string line;
    size_t at = 0;
    auto flush = [&] {
      *widest = std::max(*widest, TextWidth(cr, line));
      lines.push_back({line, t.style, y});
      y += step;
      line.clear();
    };
    // Keep leading spaces of a line (indented numbers).
    const size_t lead = t.text.find_first_not_of(' ');
    std::string indent = lead == std::string::npos ? "" : t.text.substr(0, lead);
    at = lead == std::string::npos ? t.text.size() : lead;
    line = indent;
    while (at < t.text.size()) {
      size_t space = t.text.find(' ', at);
      if (space == std::string::npos) space = t.text.size();
      const std::string word = t.text.substr(at, space - at);
      const std::string candidate = line.size() > indent.size() ? line + " " + word : line + word;
      if (line.size() > indent.size() && TextWidth(cr, candidate) > width) {
        flush();
        line = indent + "    " + word;
      } else {
        line = candidate;
      }
      at = space + 1;
    }
    flush();
    if (t.style == FigureText::Style::kFormula || t.style == FigureText::Style::kCode)
      y += 3 * scale;
  }
  *height = y;
  return lines;
}

// The share of the plot's height the colour bar takes: all of it, or half when a legend goes
// under it (a heatmap with notes), so the legend has room.
double ColorBarShare(const Figure& f) {
  return f.legend.empty() ? 1.0 : 0.5;
}

struct Layout {
  Box plot;
  std::vector<Tick> xticks, yticks, cticks;
  std::vector<TextLine> text;
  double text_top = 0;
  double text_scale = 1;         // the text under the title, shrunk when it would not fit
  double legend_pt = kLegendPt;  // the legend's size, smaller when it would not fit
};

LegendLayout LayOutLegend(cairo_t* cr, const Figure& f, const FigureSize& size, const Box& b,
                          double pt);

std::vector<Tick> AxisTicks(double lo, double hi, const FigureAxis& axis, double length,
                            double label_len) {
  if (!axis.ticks.empty()) {
    std::vector<Tick> out;
    for (const Tick& t : axis.ticks) {
      if (t.value >= std::min(lo, hi) && t.value <= std::max(lo, hi)) out.push_back(t);
    }
    std::sort(out.begin(), out.end(),
              [](const Tick& a, const Tick& b) { return a.value < b.value; });
    return out;
  }
  const double c = axis.cells ? 0.5 : 0.0;
  const int target = std::max(2, static_cast<int>(length / label_len));
  std::vector<Tick> ticks = NiceTicks(lo - c, hi - c, target, axis.cells || axis.integer);
  for (Tick& t : ticks) t.value += c;
  return ticks;
}

// A panel's title (Figure::panels) is smaller than the page's.
constexpr double kPanelTitlePt = 13.5;

// The title's lines: one for a page (it shrinks to fit instead), up to three broken after ", "
// for a panel, whose columns are narrow ("B: rope, rope_scaling=yarn, scaling_factor=8, ...").
std::vector<std::string> TitleLines(cairo_t* cr, const Figure& f, const FigureSize& size,
                                    double title_pt) {
  if (f.title.empty() || title_pt != kPanelTitlePt) return {f.title};
  Font(cr, title_pt, true);
  std::vector<std::string> lines = WrapAtCommas(cr, f.title, size.width - 8);
  if (lines.size() > 3) {
    for (size_t k = 3; k < lines.size(); ++k) lines[2] += " " + lines[k];
    lines.resize(3);
  }
  return lines.empty() ? std::vector<std::string>{f.title} : lines;
}

// `title_lines`: at least this many title lines are reserved (side-by-side panels keep their
// plots level when one title takes more lines).
Layout ComputeLayout(cairo_t* cr, const Figure& f, const FigureSize& size,
                     double title_pt = kTitlePt, size_t title_lines = 1) {
  FixFontOptions(cr);
  Layout l;
  title_lines = std::max(title_lines, TitleLines(cr, f, size, title_pt).size());
  double text_h = 0;
  l.text_top = 12 + (f.title.empty() ? 0 : title_pt * 1.6) +
               title_pt * 1.25 * static_cast<double>(title_lines - 1) + (f.text.empty() ? 0 : 4);
  const double bottom = 8 + kTickLen + kTickPt * 1.5 + (f.x.label.empty() ? 0 : kLabelPt * 1.6);
  // The text under the title shrinks until it fits the page's width and leaves the plot (when
  // there is one) its least height: no line runs off the page.
  const double text_room = size.height - l.text_top - (f.plot ? 10 + bottom + 40 : 4);
  l.text_scale = FittingSize(
      1.0,
      [&](double scale) {
        double widest = 0;
        l.text = LayoutText(cr, f, size.width - 2 * kTextLeft, scale, &text_h, &widest);
        return text_h <= text_room && widest <= size.width - kTextLeft - 4;
      },
      0.05);
  const double top = l.text_top + text_h + (f.text.empty() ? 0 : 10);
  Font(cr, kTickPt);
  const double est_h = size.height - top - bottom;
  l.yticks = AxisTicks(f.view.y0, f.view.y1, f.y, est_h, kTickPt * 3.2);
  double ytick_w = 0;
  for (const Tick& t : l.yticks) ytick_w = std::max(ytick_w, TextWidth(cr, t.label));
  const double left = 10 + (f.y.label.empty() ? 0 : kLabelPt * 1.5) + ytick_w + kTickLen + 4;
  double right = 18;
  if (f.colorbar) {
    l.cticks = NiceTicks(f.colorbar->vmin, f.colorbar->vmax,
                         std::max(2, static_cast<int>(est_h * ColorBarShare(f) / (kTickPt * 3.5))));
    double cw = 0;
    for (const Tick& t : l.cticks) cw = std::max(cw, TextWidth(cr, t.label));
    Font(cr, kLabelPt);
    right = std::max(right, 20 + 14 + kTickLen + 4 + cw + 10);
    right = std::max(right, 20 + TextWidth(cr, f.colorbar->label) + 10);
  }
  l.plot = {left, top, std::max(40.0, size.width - left - right),
            std::max(40.0, size.height - top - bottom)};
  if (!f.legend.empty()) {
    // The legend's column right of the plot: as wide as its longest item up to 30% of the page;
    // when its lines would run past the page's bottom, wider (to 46%) and smaller (to 8 pt),
    // then smaller still until every line is on the page.
    const double least_plot = std::min(l.plot.w, std::max(40.0, size.width * 0.3));
    auto fits = [&](double share, double pt) {
      Font(cr, pt);
      double lw = 0;
      for (const FigureLegendItem& it : f.legend) lw = std::max(lw, TextWidth(cr, it.label));
      const double column = 20 + pt * 2.5 + std::min(lw, size.width * share) + 12;
      l.plot.w = std::max(least_plot, size.width - left - std::max(right, column));
      l.legend_pt = pt;
      return LayOutLegend(cr, f, size, l.plot, pt).complete;
    };
    bool done = false;
    for (double share : {0.3, 0.38, 0.46}) {
      for (double pt = kLegendPt; pt >= 8 && !done; pt -= 1) done = fits(share, pt);
      if (done) break;
    }
    if (!done) FittingSize(8.0, [&](double pt) { return fits(0.46, pt); });
  }
  Font(cr, kTickPt);
  double xlabel_w = 0;
  for (const Tick& t : AxisTicks(f.view.x0, f.view.x1, f.x, l.plot.w, 60)) {
    xlabel_w = std::max(xlabel_w, TextWidth(cr, t.label));
  }
  l.xticks = AxisTicks(f.view.x0, f.view.x1, f.x, l.plot.w, xlabel_w * 2.2 + 12);
  return l;
}

struct Mapper {
  const Figure& f;
  Box b;
  double X(double x) const { return b.x + (x - f.view.x0) / (f.view.x1 - f.view.x0) * b.w; }
  double Y(double y) const {
    const double t = (y - f.view.y0) / (f.view.y1 - f.view.y0);
    return f.y.reversed ? b.y + t * b.h : b.y + b.h - t * b.h;
  }
};

// An ARGB32 cairo surface of an RGBA8 image (opaque or not; premultiplied as cairo wants), each
// pixel repeated as a `repeat` x `repeat` block.
cairo_surface_t* ImageSurface(int w, int h, const uint8_t* rgba, int repeat) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w * repeat, h * repeat);
  cairo_surface_flush(s);
  unsigned char* data = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < h * repeat; ++y) {
    auto* row = reinterpret_cast<uint32_t*>(data + static_cast<ptrdiff_t>(y) * stride);
    for (int x = 0; x < w * repeat; ++x) {
      const uint8_t* p = rgba + (static_cast<size_t>(y / repeat) * w + x / repeat) * 4;
      const uint32_t a = p[3];
      auto pm = [a](uint32_t c) { return (c * a + 127) / 255; };
      row[x] = (a << 24) | (pm(p[0]) << 16) | (pm(p[1]) << 8) | pm(p[2]);
    }
  }
  cairo_surface_mark_dirty(s);
  return s;
}

// How many times to repeat each image pixel in a vector file. SVG renderers (librsvg, Inkscape,
// browsers) ignore nearest-neighbour hints and smooth an enlarged image across each of its pixels;
// some PDF viewers ignore /Interpolate false the same way. With every cell kCellBlur times as
// many image pixels as it covers page units, that smoothing stays inside one unit at each cell
// edge, even viewed at 2x. The image stays within kMaxImageSide pixels per side and
// kMaxImagePixels in all (a few hundred KiB of PNG inside the file: the blocks compress well).
int VectorImageRepeat(int w, int h, double width_units, double height_units) {
  constexpr double kCellBlur = 2.0;
  constexpr int kMaxImageSide = 4096;
  constexpr double kMaxImagePixels = 8e6;
  const double units_per_pixel = std::max(width_units / w, height_units / h);
  int repeat = static_cast<int>(std::ceil(units_per_pixel * kCellBlur));
  repeat = std::min({repeat, kMaxImageSide / w, kMaxImageSide / h,
                     static_cast<int>(std::sqrt(kMaxImagePixels / (static_cast<double>(w) * h)))});
  return std::max(1, repeat);
}

// Output pixels per layout unit: PNG's scale; in SVG and PDF one texel per unit, so a viewer at
// 1x (72 dpi for PDF) shows every texel as one pixel and at 2x as a block of four.
double TexelsPerUnit(const FigureSize& size, FigureFormat format) {
  return format == FigureFormat::kPng ? size.scale : kVectorTexelsPerUnit;
}

// The grid line at or after `v` (in grid cells): the first cell whose centre is at or past v.
double GridEdge(double v) {
  return std::ceil(v - 0.5);
}

// Paints `img` (w x h pixels) onto the device rectangle from (dx0, dy0) to (dx1, dy1), which
// may be flipped, with nearest-neighbour sampling.
void PaintImage(cairo_t* cr, cairo_surface_t* img, int w, int h, double dx0, double dy0, double dx1,
                double dy1) {
  cairo_save(cr);
  cairo_translate(cr, dx0, dy0);
  cairo_scale(cr, (dx1 - dx0) / w, (dy1 - dy0) / h);
  cairo_set_source_surface(cr, img, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
  // No extend mode and a plain paint: cairo's SVG then places the image with one <use>, whose
  // image-rendering hint renderers honour, instead of filling with a <pattern>, whose hint they
  // ignore.
  cairo_rectangle(cr, 0, 0, w, h);
  cairo_clip(cr);
  cairo_paint(cr);
  cairo_restore(cr);
}

// Where the legend's lines go: right of the plot (under the colour bar when there is one),
// each item wrapped to the room left on the page (WrapText: at ", ", then spaces, then inside a
// word too long for a line). Lines past the page's bottom are left out and `complete` says so.
LegendLayout LayOutLegend(cairo_t* cr, const Figure& f, const FigureSize& size, const Box& b,
                          double pt) {
  LegendLayout out;
  out.pt = pt;
  if (f.legend.empty()) return out;
  Font(cr, pt);
  const double right_x = b.x + b.w + 20;
  double y = f.colorbar ? b.y + b.h * ColorBarShare(f) + 10 : b.y + 4;
  // The sample line takes 2.5 em before the text; 10 units stay free at the page's edge.
  out.max_width = std::max(1.0, size.width - right_x - pt * 2.5 - 10);
  const auto width = [cr](const std::string& t) { return TextWidth(cr, t); };
  for (const FigureLegendItem& item : f.legend) {
    LegendLayout::Item it;
    it.x = right_x + pt * 2.5;
    for (const std::string& line : WrapText(item.label, out.max_width, width, true)) {
      const double w = TextWidth(cr, line);
      if (y + pt * 1.2 > size.height - 2 || it.x + w > size.width - 2) {
        out.complete = false;
        break;
      }
      it.lines.push_back(line);
      it.widths.push_back(w);
      it.ys.push_back(y);
      y += pt * 1.25;
    }
    y += pt * 0.3;
    out.items.push_back(std::move(it));
  }
  return out;
}

void DrawPanels(cairo_t* cr, const Figure& f, const FigureSize& size, FigureFormat format);

// The figure's point labels beside their points (label_placement.h), in the tick font.
template <typename Mapper>
void DrawPointLabels(cairo_t* cr, const Figure& f, const Mapper& m, const Box& b) {
  if (f.labels.empty()) return;
  Font(cr, kTickPt);
  cairo_font_extents_t fe;
  cairo_font_extents(cr, &fe);
  std::vector<LabelRequest> points, labels;
  double radius = 0;
  for (const FigureSeries& s : f.series) {
    radius = std::max(radius, s.marker_radius);
    for (size_t k = 0; k < s.marker_xs.size(); ++k) {
      points.push_back({m.X(s.marker_xs[k]), m.Y(s.marker_ys[k]), 0, 0});
    }
  }
  for (const FigureLabel& l : f.labels) {
    labels.push_back({m.X(l.x), m.Y(l.y), TextWidth(cr, l.text), fe.ascent + fe.descent});
  }
  const std::vector<PlacedLabel> placed =
      PlaceLabels(labels, points, radius, 2.0, {b.x, b.y, b.x + b.w, b.y + b.h});
  for (size_t k = 0; k < placed.size(); ++k) {
    if (!placed[k].shown || f.labels[k].text.empty()) continue;
    // A light backing, so arrows or lines passing under a label do not cross its letters.
    SetColor(cr, {255, 255, 255, 215});
    cairo_rectangle(cr, placed[k].x - 1, placed[k].y, labels[k].w + 2, labels[k].h);
    cairo_fill(cr);
    SetColor(cr, f.labels[k].color);
    Text(cr, f.labels[k].text, placed[k].x, placed[k].y, 0, 0);
  }
}

void Draw(cairo_t* cr, const Figure& f, const FigureSize& size, FigureFormat format,
          double title_pt = kTitlePt, size_t title_lines = 1) {
  if (!f.panels.empty()) {
    DrawPanels(cr, f, size, format);
    return;
  }
  const Layout l = ComputeLayout(cr, f, size, title_pt, title_lines);
  const Mapper m{f, l.plot};
  const Box& b = l.plot;
  const Rgba8 ink{30, 30, 35, 255}, grey{110, 110, 115, 255}, grid{0, 0, 0, 22};

  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);

  for (const TextLine& t : l.text) {
    TextFont(cr, t.style, l.text_scale);
    SetColor(cr, t.style == FigureText::Style::kCode   ? Rgba8{40, 80, 150, 255}
                 : t.style == FigureText::Style::kNote ? grey
                                                       : ink);
    Text(cr, t.text, kTextLeft, l.text_top + t.y, 0, 0);
  }
  if (!f.plot) {
    SetColor(cr, ink);
    if (!f.title.empty()) {
      Font(cr, kTitlePt, true);
      const double avail = size.width - 8;
      const double w = TextWidth(cr, f.title);
      if (w > avail) Font(cr, kTitlePt * avail / w, true);
      Text(cr, f.title, kTextLeft, 10, 0, 0);
    }
    return;
  }

  // Grid under the data.
  cairo_set_line_width(cr, 0.6);
  SetColor(cr, grid);
  for (const Tick& t : l.xticks) {
    cairo_move_to(cr, m.X(t.value), b.y);
    cairo_line_to(cr, m.X(t.value), b.y + b.h);
  }
  for (const Tick& t : l.yticks) {
    cairo_move_to(cr, b.x, m.Y(t.value));
    cairo_line_to(cr, b.x + b.w, m.Y(t.value));
  }
  cairo_stroke(cr);

  // The data, clipped to the plot area.
  cairo_save(cr);
  cairo_rectangle(cr, b.x, b.y, b.w, b.h);
  cairo_clip(cr);
  if (f.image && f.image->width > 0 && f.image->height > 0) {
    const FigureImage& im = *f.image;
    const double x0 = m.X(im.x0), y0 = m.Y(im.y0), x1 = m.X(im.x1), y1 = m.Y(im.y1);
    const int repeat =
        format == FigureFormat::kPng
            ? 1
            : VectorImageRepeat(im.width, im.height, std::fabs(x1 - x0), std::fabs(y1 - y0));
    cairo_surface_t* s = ImageSurface(im.width, im.height, im.rgba.data(), repeat);
    // The image's edges on the output's grid (PlotAreaPixels counts the same cells): an image
    // of as many texels as the grid has cells there lands one texel on each, never resampled.
    double gx0 = x0, gy0 = y0, gx1 = x1, gy1 = y1;
    cairo_user_to_device(cr, &gx0, &gy0);
    cairo_user_to_device(cr, &gx1, &gy1);
    const double k = format == FigureFormat::kPng ? 1.0 : kVectorTexelsPerUnit;
    cairo_save(cr);
    cairo_identity_matrix(cr);
    PaintImage(cr, s, im.width * repeat, im.height * repeat, GridEdge(gx0 * k) / k,
               GridEdge(gy0 * k) / k, GridEdge(gx1 * k) / k, GridEdge(gy1 * k) / k);
    cairo_restore(cr);
    cairo_surface_destroy(s);
  }
  for (const FigureRect& r : f.rects) {
    SetColor(cr, r.color);
    cairo_rectangle(cr, std::min(m.X(r.x0), m.X(r.x1)), std::min(m.Y(r.y0), m.Y(r.y1)),
                    std::fabs(m.X(r.x1) - m.X(r.x0)), std::fabs(m.Y(r.y1) - m.Y(r.y0)));
    cairo_fill(cr);
  }
  cairo_set_line_width(cr, 0.8);
  SetColor(cr, {0, 0, 0, 110});
  for (double y : f.hlines) {
    cairo_move_to(cr, b.x, m.Y(y));
    cairo_line_to(cr, b.x + b.w, m.Y(y));
  }
  cairo_stroke(cr);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  for (const FigureSeries& s : f.series) {
    // The band: one polygon, the top edge left to right and the bottom back, as steps.
    const size_t steps = std::min(s.band_lo.size(), s.band_hi.size());
    if (steps > 0 && s.band_edges.size() == steps + 1) {
      cairo_new_path(cr);
      cairo_move_to(cr, m.X(s.band_edges[0]), m.Y(s.band_hi[0]));
      for (size_t k = 0; k < steps; ++k) {
        cairo_line_to(cr, m.X(s.band_edges[k]), m.Y(s.band_hi[k]));
        cairo_line_to(cr, m.X(s.band_edges[k + 1]), m.Y(s.band_hi[k]));
      }
      for (size_t k = steps; k-- > 0;) {
        cairo_line_to(cr, m.X(s.band_edges[k + 1]), m.Y(s.band_lo[k]));
        cairo_line_to(cr, m.X(s.band_edges[k]), m.Y(s.band_lo[k]));
      }
      cairo_close_path(cr);
      // Translucent, so bands that cover each other stay visible; the outline keeps a thin
      // stretch (near a crest) from vanishing.
      SetColor(cr, {s.color.r, s.color.g, s.color.b, 110});
      cairo_fill_preserve(cr);
      SetColor(cr, s.color);
      cairo_set_line_width(cr, 1.0);
      cairo_stroke(cr);
    }
    SetColor(cr, s.color);
    if (s.xs.size() >= 2) {
      cairo_set_line_width(cr, s.line_width);
      cairo_move_to(cr, m.X(s.xs[0]), m.Y(s.ys[0]));
      for (size_t k = 1; k < s.xs.size(); ++k) cairo_line_to(cr, m.X(s.xs[k]), m.Y(s.ys[k]));
      cairo_stroke(cr);
    }
    for (size_t k = 0; k < s.marker_xs.size(); ++k) {
      cairo_new_sub_path(cr);
      cairo_arc(cr, m.X(s.marker_xs[k]), m.Y(s.marker_ys[k]), s.marker_radius, 0, 2 * M_PI);
    }
    cairo_fill(cr);
  }
  for (const FigureRect& r : f.overlays) {
    SetColor(cr, r.color);
    cairo_set_line_width(cr, r.line_width);
    cairo_rectangle(cr, std::min(m.X(r.x0), m.X(r.x1)), std::min(m.Y(r.y0), m.Y(r.y1)),
                    std::fabs(m.X(r.x1) - m.X(r.x0)), std::fabs(m.Y(r.y1) - m.Y(r.y0)));
    cairo_stroke(cr);
  }
  DrawPointLabels(cr, f, m, b);
  cairo_restore(cr);

  // Frame, ticks and tick labels; labels that would overlap their neighbour are skipped.
  SetColor(cr, grey);
  cairo_set_line_width(cr, 1.0);
  cairo_rectangle(cr, b.x, b.y, b.w, b.h);
  cairo_stroke(cr);
  Font(cr, kTickPt);
  double last_right = -1e9;
  for (const Tick& t : l.xticks) {
    const double x = m.X(t.value);
    if (x < b.x - 0.5 || x > b.x + b.w + 0.5) continue;
    SetColor(cr, grey);
    cairo_move_to(cr, x, b.y + b.h);
    cairo_line_to(cr, x, b.y + b.h + kTickLen);
    cairo_stroke(cr);
    const double w = TextWidth(cr, t.label);
    const double lx = std::clamp(x - w / 2, 2.0, size.width - w - 2);
    if (lx < last_right + 6) continue;
    SetColor(cr, ink);
    Text(cr, t.label, lx, b.y + b.h + kTickLen + 2, 0, 0);
    last_right = lx + w;
  }
  double last_top = 1e9;
  std::vector<Tick> yt = l.yticks;
  if (!f.y.reversed) std::reverse(yt.begin(), yt.end());
  for (auto it = yt.rbegin(); it != yt.rend(); ++it) {  // bottom to top on screen
    const double y = m.Y(it->value);
    if (y < b.y - 0.5 || y > b.y + b.h + 0.5) continue;
    SetColor(cr, grey);
    cairo_move_to(cr, b.x - kTickLen, y);
    cairo_line_to(cr, b.x, y);
    cairo_stroke(cr);
    const double ly = std::clamp(y, b.y + kTickPt * 0.6, b.y + b.h);
    if (ly + kTickPt * 0.6 > last_top - 2) continue;
    SetColor(cr, ink);
    Text(cr, it->label, b.x - kTickLen - 3, ly, 1, 0.5);
    last_top = ly - kTickPt * 0.6;
  }

  // Title and axis titles.
  SetColor(cr, ink);
  if (!f.title.empty()) {
    // A title wider than the page shrinks to fit rather than losing characters at both ends;
    // centred over the plot while that keeps it on the page.
    const std::vector<std::string> lines = TitleLines(cr, f, size, title_pt);
    for (size_t k = 0; k < lines.size(); ++k) {
      Font(cr, title_pt, true);
      const double avail = size.width - 8;
      const double w = TextWidth(cr, lines[k]);
      if (w > avail) Font(cr, title_pt * avail / w, true);
      const double tw = std::min(w, avail);
      // A page with text under its title reads from the left margin, as the text does.
      const double tx =
          f.text.empty() ? std::clamp(b.x + b.w / 2 - tw / 2, 4.0, size.width - 4 - tw) : kTextLeft;
      Text(cr, lines[k], tx, 10 + title_pt * 1.25 * static_cast<double>(k), 0, 0);
    }
  }
  // Axis titles: smaller when longer than the page's side, centred on the plot while that keeps
  // them on the page.
  if (!f.x.label.empty()) {
    const double pt = FittingSize(kLabelPt, [&](double p) {
      Font(cr, p);
      return TextWidth(cr, f.x.label) <= size.width - 8;
    });
    Font(cr, pt);
    const double w = TextWidth(cr, f.x.label);
    Text(cr, f.x.label,
         std::clamp(b.x + b.w / 2, 4 + w / 2, std::max(4 + w / 2, size.width - 4 - w / 2)),
         size.height - 6, 0.5, 1);
  }
  if (!f.y.label.empty()) {
    const double pt = FittingSize(kLabelPt, [&](double p) {
      Font(cr, p);
      return TextWidth(cr, f.y.label) <= size.height - 8;
    });
    Font(cr, pt);
    const double w = TextWidth(cr, f.y.label);
    Text(cr, f.y.label, 8,
         std::clamp(b.y + b.h / 2, 4 + w / 2, std::max(4 + w / 2, size.height - 4 - w / 2)), 0.5, 0,
         -M_PI / 2);
  }

  // Colour bar from the same LUT as the heatmap, with its range.
  double right_x = b.x + b.w + 20;
  if (f.colorbar) {
    const FigureColorBar& c = *f.colorbar;
    // A vector gradient through the LUT's own key colours: the same colours as the heatmap's
    // pixels (the LUT interpolates these keys linearly) and no second image in the file.
    const std::vector<Rgba8>& keys = ColormapKeys(c.colormap);
    const double bar = b.h * ColorBarShare(f);
    const double top = b.y + kLabelPt * 1.6, h = bar - kLabelPt * 1.6;
    cairo_pattern_t* grad = cairo_pattern_create_linear(0, top + h, 0, top);  // vmin at the bottom
    for (size_t k = 0; k < keys.size(); ++k) {
      cairo_pattern_add_color_stop_rgb(
          grad, static_cast<double>(k) / static_cast<double>(keys.size() - 1), keys[k].r / 255.0,
          keys[k].g / 255.0, keys[k].b / 255.0);
    }
    cairo_set_source(cr, grad);
    cairo_rectangle(cr, right_x, top, 14, h);
    cairo_fill(cr);
    cairo_pattern_destroy(grad);
    SetColor(cr, grey);
    cairo_rectangle(cr, right_x, top, 14, h);
    cairo_stroke(cr);
    Font(cr, kTickPt);
    for (const Tick& t : l.cticks) {
      const double y = top + h - (t.value - c.vmin) / (c.vmax - c.vmin) * h;
      SetColor(cr, grey);
      cairo_move_to(cr, right_x + 14, y);
      cairo_line_to(cr, right_x + 14 + kTickLen, y);
      cairo_stroke(cr);
      SetColor(cr, ink);
      Text(cr, t.label, right_x + 14 + kTickLen + 3, y, 0, 0.5);
    }
    Font(cr, FittingSize(kLabelPt, [&](double p) {
           Font(cr, p);
           return right_x + TextWidth(cr, c.label) <= size.width - 2;
         }));
    Text(cr, c.label, right_x, b.y, 0, 0);
  }
  // Legend beside the plot: never over the data.
  const LegendLayout legend = LayOutLegend(cr, f, size, b, l.legend_pt);
  const double lpt = legend.pt;
  for (size_t i = 0; i < legend.items.size(); ++i) {
    const LegendLayout::Item& it = legend.items[i];
    if (it.lines.empty()) break;
    SetColor(cr, f.legend[i].color);
    cairo_set_line_width(cr, std::min(3.0, lpt / 4));
    cairo_move_to(cr, it.x - lpt * 2.5, it.ys[0] + lpt * 0.6);
    cairo_line_to(cr, it.x - lpt * 0.5, it.ys[0] + lpt * 0.6);
    cairo_stroke(cr);
    SetColor(cr, ink);
    for (size_t k = 0; k < it.lines.size(); ++k) Text(cr, it.lines[k], it.x, it.ys[k], 0, 0);
  }
}

// A figure of side-by-side panels: the title on top, the panels in equal columns, the legend
// in a strip under them (its lines wrapped to the page, at most 40% of the height).
// A panel smaller than this (in page units) is laid out at this size and drawn scaled down to
// its frame: its text gets smaller but stays inside it (a 200-unit page of three panels).
constexpr double kLeastPanelWidth = 200, kLeastPanelHeight = 180;

// The scale a panel of frame `b` is drawn at (1, or below for a small frame) and the page it
// is laid out on.
double PanelScale(const Box& b) {
  return std::min({1.0, b.w / kLeastPanelWidth, b.h / kLeastPanelHeight});
}
FigureSize PanelPage(const Box& b, double scale) {
  const double k = PanelScale(b);
  return {b.w / k, b.h / k, scale};
}

struct PanelsLayout {
  std::vector<Box> frames;  // each panel's page rectangle
  double legend_top = 0;
  double legend_pt = kLegendPt;  // smaller when the strip would not hold every line
  std::vector<std::vector<std::string>> legend_lines;  // per legend item
  size_t title_lines = 1;                              // the most lines a panel's title takes
};

PanelsLayout ComputePanelsLayout(cairo_t* cr, const Figure& f, const FigureSize& size) {
  FixFontOptions(cr);
  PanelsLayout l;
  const double top = 4 + (f.title.empty() ? 0 : kTitlePt * 1.6);
  double legend_h = 0;
  // The strip takes at most 40% of the page: its text shrinks until every line is in it.
  l.legend_pt = FittingSize(kLegendPt, [&](double pt) {
    Font(cr, pt);
    l.legend_lines.clear();
    legend_h = 0;
    for (const FigureLegendItem& it : f.legend) {
      l.legend_lines.push_back(WrapAtCommas(cr, it.label, size.width - 12 - pt * 2.5 - 6));
      legend_h += pt * 1.25 * static_cast<double>(l.legend_lines.back().size()) + pt * 0.3;
    }
    return legend_h + (f.legend.empty() ? 0 : 8) <= size.height * 0.4;
  });
  legend_h = std::min(legend_h + (f.legend.empty() ? 0 : 8), size.height * 0.4);
  const double panels_h = std::max(40.0, size.height - top - legend_h);
  const double w = size.width / static_cast<double>(f.panels.size());
  for (size_t i = 0; i < f.panels.size(); ++i) {
    l.frames.push_back({w * static_cast<double>(i), top, w, panels_h});
  }
  l.legend_top = top + panels_h + 4;
  for (size_t i = 0; i < f.panels.size(); ++i) {
    const FigureSize panel = PanelPage(l.frames[i], size.scale);
    l.title_lines =
        std::max(l.title_lines, TitleLines(cr, f.panels[i], panel, kPanelTitlePt).size());
  }
  return l;
}

void DrawPanels(cairo_t* cr, const Figure& f, const FigureSize& size, FigureFormat format) {
  const PanelsLayout l = ComputePanelsLayout(cr, f, size);
  const Rgba8 ink{30, 30, 35, 255};
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  for (size_t i = 0; i < f.panels.size(); ++i) {
    const Box& b = l.frames[i];
    cairo_save(cr);
    cairo_translate(cr, b.x, b.y);
    cairo_rectangle(cr, 0, 0, b.w, b.h);
    cairo_clip(cr);
    const double k = PanelScale(b);
    cairo_scale(cr, k, k);
    Draw(cr, f.panels[i], PanelPage(b, size.scale), format, kPanelTitlePt, l.title_lines);
    cairo_restore(cr);
  }
  SetColor(cr, ink);
  if (!f.title.empty()) {
    Font(cr, kTitlePt, true);
    const double avail = size.width - 8;
    const double w = TextWidth(cr, f.title);
    if (w > avail) Font(cr, kTitlePt * avail / w, true);
    Text(cr, f.title, std::max(4.0, size.width / 2 - std::min(w, avail) / 2), 8, 0, 0);
  }
  const double pt = l.legend_pt;
  Font(cr, pt);
  double y = l.legend_top;
  for (size_t i = 0; i < f.legend.size(); ++i) {
    const FigureLegendItem& it = f.legend[i];
    if (y + pt > size.height - 2) break;
    SetColor(cr, it.color);
    cairo_set_line_width(cr, std::min(3.0, pt / 4));
    cairo_move_to(cr, 12, y + pt * 0.6);
    cairo_line_to(cr, 12 + pt * 2, y + pt * 0.6);
    cairo_stroke(cr);
    SetColor(cr, ink);
    for (const std::string& line : l.legend_lines[i]) {
      if (y + pt > size.height - 2) break;
      Text(cr, line, 12 + pt * 2.5, y, 0, 0);
      y += pt * 1.25;
    }
    y += pt * 0.3;
  }
}

cairo_status_t AppendToString(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

std::string XmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      // Character references, so an attribute keeps them (a parser turns a raw newline or tab
      // in an attribute value into a space).
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      case '\t':
        out += "&#9;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Describe(const Figure& f) {
  std::string s;
  for (const auto& [k, v] : f.metadata) {
    if (!s.empty()) s += "; ";
    s += k;
    s += '=';
    s += v;
  }
  return s;
}

// PNG tEXt chunks (Latin-1 keyword, NUL, text) go right after IHDR.
std::string WithPngText(const std::string& png,
                        const std::vector<std::pair<std::string, std::string>>& entries) {
  constexpr size_t kAfterIhdr = 8 + 4 + 4 + 13 + 4;
  if (png.size() < kAfterIhdr) return png;
  std::string chunks;
  for (const auto& [key, text] : entries) {
    std::string data = key.substr(0, 79) + '\0' + text;
    std::string chunk;
    auto be32 = [&](uint32_t v) {
      for (int sh = 24; sh >= 0; sh -= 8) chunk += static_cast<char>((v >> sh) & 0xff);
    };
    be32(static_cast<uint32_t>(data.size()));
    const std::string body = "tEXt" + data;
    chunk += body;
    be32(static_cast<uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
    chunks += chunk;
  }
  return png.substr(0, kAfterIhdr) + chunks + png.substr(kAfterIhdr);
}

// cairo numbers SVG ids (surface5, image6, glyph0-1, clip2) with counters that live as long as
// the process, so a second export from the window differed from the CLI's file. Renames every
// id, and the references to it (id="x", "#x", url(#x)), to its prefix and its order of first
// appearance: the same figure gives the same bytes in any process.
std::string WithStableSvgIds(const std::string& svg) {
  auto is_id_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; };
  std::map<std::string, std::string> renamed;
  std::map<std::string, int> count;  // per prefix
  for (size_t at = svg.find(" id=\""); at != std::string::npos; at = svg.find(" id=\"", at + 1)) {
    const size_t begin = at + 5;
    size_t end = begin;
    while (end < svg.size() && is_id_char(svg[end])) ++end;
    const std::string id = svg.substr(begin, end - begin);
    size_t letters = 0;
    while (letters < id.size() && std::isalpha(static_cast<unsigned char>(id[letters]))) ++letters;
    const std::string prefix = id.substr(0, letters);
    if (!renamed.count(id)) renamed[id] = prefix + std::to_string(count[prefix]++);
  }
  std::string out;
  out.reserve(svg.size());
  size_t at = 0;
  while (at < svg.size()) {
    const bool at_id = svg.compare(at, 5, " id=\"") == 0;
    const bool at_ref = svg[at] == '#';
    if (!at_id && !at_ref) {
      out += svg[at++];
      continue;
    }
    const size_t begin = at + (at_id ? 5 : 1);
    size_t end = begin;
    while (end < svg.size() && is_id_char(svg[end])) ++end;
    const auto it = renamed.find(svg.substr(begin, end - begin));
    out.append(svg, at, begin - at);
    out += it == renamed.end() ? svg.substr(begin, end - begin) : it->second;
    at = end;
  }
  return out;
}

// Stable ids, nearest-neighbour hints on images, then <title> and <metadata> right after the
// <svg> tag.
std::string WithSvgMetadata(std::string svg, const Figure& f) {
  svg = WithStableSvgIds(svg);
  for (size_t at = svg.find("<image "); at != std::string::npos; at = svg.find("<image ", at + 1)) {
    svg.insert(at + 7, "image-rendering=\"optimizeSpeed\" style=\"image-rendering:pixelated\" ");
  }
  const size_t open = svg.find("<svg");
  const size_t end = open == std::string::npos ? open : svg.find('>', open);
  if (end == std::string::npos) return svg;
  std::string meta =
      "\n<title>" + XmlEscape(f.title.empty() ? "PE Explorer figure" : f.title) + "</title>\n";
  meta += "<desc>" + XmlEscape(Describe(f)) +
          "</desc>\n<metadata>\n<pe:figure xmlns:pe=\"urn:pe-explorer:figure\">\n";
  for (const auto& [k, v] : f.metadata) {
    meta += "  <pe:param name=\"" + XmlEscape(k) + "\" value=\"" + XmlEscape(v) + "\"/>\n";
  }
  meta += "</pe:figure>\n</metadata>";
  svg.insert(end + 1, meta);
  return svg;
}

std::string MetadataValue(const Figure& f, const std::string& key) {
  for (const auto& [k, v] : f.metadata) {
    if (k == key) return v;
  }
  return "";
}

}  // namespace

PlotBox FigurePlotBox(const Figure& figure, const FigureSize& size) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t* cr = cairo_create(s);
  const Layout l = ComputeLayout(cr, figure, size);
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  return {l.plot.x, l.plot.y, l.plot.w, l.plot.h};
}

namespace {

// The cells of a grid of `k` per unit whose centres lie in [lo, hi) (page units).
int GridCells(double lo, double hi, double k) {
  return std::max(1, static_cast<int>(GridEdge(hi * k) - GridEdge(lo * k)));
}

// Every exported figure has a title (BuildViewFigure gives one to a figure without): a builder
// asks for pixels before that, so an untitled figure is measured with one.
const Figure& Titled(const Figure& figure, std::optional<Figure>& copy) {
  if (!figure.title.empty()) return figure;
  copy = figure;
  copy->title = "title";
  return *copy;
}

}  // namespace

PixelSize PlotAreaPixels(const Figure& figure, const FigureSize& size, FigureFormat format) {
  std::optional<Figure> copy;
  const PlotBox box = FigurePlotBox(Titled(figure, copy), size);
  const double k = TexelsPerUnit(size, format);
  return {GridCells(box.x, box.x + box.w, k), GridCells(box.y, box.y + box.h, k)};
}

std::vector<PlotBox> FigurePanelPlotBoxes(const Figure& figure, const FigureSize& size) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t* cr = cairo_create(s);
  const PanelsLayout panels = ComputePanelsLayout(cr, figure, size);
  std::vector<PlotBox> out;
  for (size_t i = 0; i < figure.panels.size(); ++i) {
    const Box& b = panels.frames[i];
    // A small panel is laid out larger and drawn scaled down (PanelScale).
    const double k = PanelScale(b);
    const Layout l = ComputeLayout(cr, figure.panels[i], PanelPage(b, size.scale), kPanelTitlePt,
                                   panels.title_lines);
    out.push_back({b.x + k * l.plot.x, b.y + k * l.plot.y, k * l.plot.w, k * l.plot.h});
  }
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  return out;
}

LegendLayout FigureLegendLayout(const Figure& figure, const FigureSize& size) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t* cr = cairo_create(s);
  const Layout l = ComputeLayout(cr, figure, size);
  LegendLayout out = LayOutLegend(cr, figure, size, l.plot, l.legend_pt);
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  return out;
}

std::vector<FigureTextBox> FigureTextBoxes(const Figure& figure, const FigureSize& size) {
  std::vector<FigureTextBox> boxes;
  const cairo_rectangle_t page{0, 0, size.width, size.height};
  cairo_surface_t* s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &page);
  cairo_t* cr = cairo_create(s);
  g_text_boxes = &boxes;
  Draw(cr, figure, size, FigureFormat::kPng);
  g_text_boxes = nullptr;
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  return boxes;
}

std::vector<PixelSize> PanelAreaPixels(const Figure& figure, const FigureSize& size,
                                       FigureFormat format) {
  std::optional<Figure> copy;
  const double k = TexelsPerUnit(size, format);
  std::vector<PixelSize> out;
  for (const PlotBox& box : FigurePanelPlotBoxes(Titled(figure, copy), size)) {
    out.push_back({GridCells(box.x, box.x + box.w, k), GridCells(box.y, box.y + box.h, k)});
  }
  return out;
}

Status RenderFigure(const Figure& figure, FigureFormat format, const FigureSize& size,
                    std::ostream& out) {
  return RenderFigurePages(std::span<const Figure>(&figure, 1), format, size, out);
}

Status RenderFigurePages(std::span<const Figure> pages, FigureFormat format, const FigureSize& size,
                         std::ostream& out) {
  if (Status s = ValidateFigureSize(size); !s.ok()) return s;
  if (pages.empty()) return InvalidArgument("a figure needs at least one page");
  if (pages.size() > 1 && format != FigureFormat::kPdf) {
    return InvalidArgument("a figure of " + std::to_string(pages.size()) +
                           " pages can only be written as PDF: use a .pdf file name");
  }
  const Figure& figure = pages.front();
  std::string bytes;
  cairo_surface_t* surface = nullptr;
  switch (format) {
    case FigureFormat::kPng:
      surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32,
                                           static_cast<int>(std::lround(size.width * size.scale)),
                                           static_cast<int>(std::lround(size.height * size.scale)));
      break;
    case FigureFormat::kSvg:
      surface =
          cairo_svg_surface_create_for_stream(AppendToString, &bytes, size.width, size.height);
      cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX);
      break;
    case FigureFormat::kPdf: {
      surface =
          cairo_pdf_surface_create_for_stream(AppendToString, &bytes, size.width, size.height);
      cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, figure.title.c_str());
      cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_SUBJECT, Describe(figure).c_str());
      // The keywords end with the metadata again, machine-readable: "pe-figure:" and
      // percent-encoded KEY=VALUE items separated by spaces (read back by ReadFigureMetadata).
      std::string keywords =
          "positional encoding; " + MetadataValue(figure, "view") + "; pe-figure:";
      for (size_t k = 0; k < figure.metadata.size(); ++k) {
        if (k > 0) keywords += ' ';
        keywords += PercentEncode(figure.metadata[k].first) + "=" +
                    PercentEncode(figure.metadata[k].second);
      }
      cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_KEYWORDS, keywords.c_str());
      cairo_pdf_surface_set_metadata(
          surface, CAIRO_PDF_METADATA_CREATOR,
          ("PE Explorer " + MetadataValue(figure, "app_version")).c_str());
      {
        // The same figure gives the same bytes: the dates are SOURCE_DATE_EPOCH's, else the
        // epoch itself, never the clock (cairo would write the time of the export).
        const char* epoch = std::getenv("SOURCE_DATE_EPOCH");
        const std::time_t t =
            epoch != nullptr ? static_cast<std::time_t>(std::strtoll(epoch, nullptr, 10)) : 0;
        std::tm tm{};
        gmtime_r(&t, &tm);
        char iso[32];
        std::strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, iso);
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_MOD_DATE, iso);
      }
      break;
    }
  }
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> owner(surface,
                                                                           cairo_surface_destroy);
  if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
    return RuntimeError(std::string("cannot create the figure: ") +
                        cairo_status_to_string(cairo_surface_status(surface)));
  }
  cairo_t* cr = cairo_create(surface);
  if (format == FigureFormat::kPng) cairo_scale(cr, size.scale, size.scale);
  for (size_t k = 0; k < pages.size(); ++k) {
    if (k > 0) cairo_show_page(cr);  // PDF: the next page, same size
    cairo_save(cr);
    Draw(cr, pages[k], size, format);
    cairo_restore(cr);
  }
  const cairo_status_t draw_status = cairo_status(cr);
  cairo_destroy(cr);
  if (draw_status != CAIRO_STATUS_SUCCESS) {
    return RuntimeError(std::string("drawing the figure failed: ") +
                        cairo_status_to_string(draw_status));
  }
  if (format == FigureFormat::kPng) {
    if (cairo_surface_write_to_png_stream(surface, AppendToString, &bytes) !=
        CAIRO_STATUS_SUCCESS) {
      return RuntimeError("PNG encoding failed");
    }
    std::vector<std::pair<std::string, std::string>> text = {
        {"Title", figure.title},
        {"Software", "PE Explorer " + MetadataValue(figure, "app_version")},
        {"Description", Describe(figure)}};
    for (const auto& [k, v] : figure.metadata) text.emplace_back("pe:" + k, v);
    bytes = WithPngText(bytes, text);
  } else {
    cairo_surface_finish(surface);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
      return RuntimeError(std::string("writing the figure failed: ") +
                          cairo_status_to_string(cairo_surface_status(surface)));
    }
    if (format == FigureFormat::kSvg) bytes = WithSvgMetadata(std::move(bytes), figure);
  }
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out ? Status() : RuntimeError("writing the figure failed");
}

}  // namespace pe
