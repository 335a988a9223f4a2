// Text on a cairo figure: the fonts (DejaVu Sans, Noto Sans CJK for CJK runs), anchored and
// measured text, and the layout of the text block under the title.
#include <algorithm>
#include <cmath>

#include "figure/figure_render_internal.h"
#include "figure/markup.h"
#include "figure/text_wrap.h"
#include "text/tokenizer.h"

namespace pe::figure_internal {

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

void Font(cairo_t* cr, double size, bool bold) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

namespace {

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

}  // namespace

namespace {

double FontSize(cairo_t* cr) {
  cairo_matrix_t m;
  cairo_get_font_matrix(cr, &m);
  return std::hypot(m.xx, m.yx);
}

double PlainWidth(cairo_t* cr, const std::string& s) {
  double width = 0;
  ForEachFontRun(cr, s, [&](const std::string& run) {
    cairo_text_extents_t e;
    cairo_text_extents(cr, run.c_str(), &e);
    width += e.x_advance;
  });
  return width;
}

// Calls draw(run, x, rise) for each markup run of `s` (or `s` itself when !markup) with the
// run's font size set, x its start from the text's start; the size is restored afterwards.
template <typename Draw>
double ForEachMarkupRun(cairo_t* cr, const std::string& s, bool markup, const Draw& draw) {
  if (!markup || (s.find('_') == std::string::npos && s.find('^') == std::string::npos)) {
    draw(s, 0.0, 0.0);
    return PlainWidth(cr, s);
  }
  const double size = FontSize(cr);
  double x = 0;
  for (const MarkupRun& r : MarkupRuns(s)) {
    cairo_set_font_size(cr, size * std::pow(0.7, r.depth));
    draw(r.text, x, size * r.rise);
    x += PlainWidth(cr, r.text);
  }
  cairo_set_font_size(cr, size);
  return x;
}

}  // namespace

double TextWidth(cairo_t* cr, const std::string& s, bool markup) {
  return ForEachMarkupRun(cr, s, markup, [](const std::string&, double, double) {});
}

// Set while FigureTextBoxes measures a figure: every Text adds its box and clip here.
thread_local std::vector<FigureTextBox>* g_text_boxes = nullptr;
// Set while an SVG is drawn with real text: every Text adds its element here instead of glyphs.
thread_local std::vector<SvgText>* g_svg_text = nullptr;

namespace {

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

// The text at the current point as an SVG <text> element's spans (g_svg_text), in the
// current colour, family, weight and size, placed by the current transformation.
void RecordSvgText(cairo_t* cr, const std::string& s, bool markup) {
  SvgText t;
  double x = 0, y = 0;
  cairo_get_current_point(cr, &x, &y);
  cairo_matrix_t m;
  cairo_get_matrix(cr, &m);
  cairo_matrix_t at;
  cairo_matrix_init_translate(&at, x, y);
  cairo_matrix_multiply(&at, &at, &m);
  t.matrix[0] = at.xx, t.matrix[1] = at.yx, t.matrix[2] = at.xy, t.matrix[3] = at.yy;
  t.matrix[4] = at.x0, t.matrix[5] = at.y0;
  double r = 0, g = 0, b = 0, a = 1;
  cairo_pattern_get_rgba(cairo_get_source(cr), &r, &g, &b, &a);
  t.r = r, t.g = g, t.b = b, t.a = a;
  ForEachMarkupRun(cr, s, markup, [&](const std::string& run, double x0, double rise) {
    double dx = 0;
    ForEachFontRun(cr, run, [&](const std::string& piece) {
      cairo_font_face_t* face = cairo_get_font_face(cr);
      SvgText::Span span;
      span.text = piece;
      span.family = cairo_toy_font_face_get_family(face);
      span.bold = cairo_toy_font_face_get_weight(face) == CAIRO_FONT_WEIGHT_BOLD;
      span.size = FontSize(cr);
      span.x = x0 + dx, span.rise = rise;
      cairo_text_extents_t e;
      cairo_text_extents(cr, piece.c_str(), &e);
      dx += e.x_advance;
      t.spans.push_back(std::move(span));
    });
  });
  g_svg_text->push_back(std::move(t));
}

}  // namespace

// Shows `s` at the current point, run by run (markup runs, then ForEachFontRun).
void ShowText(cairo_t* cr, const std::string& s, bool markup) {
  if (g_svg_text != nullptr) {
    RecordSvgText(cr, s, markup);
    return;
  }
  double x = 0, y = 0;
  cairo_get_current_point(cr, &x, &y);
  ForEachMarkupRun(cr, s, markup, [&](const std::string& run, double x0, double rise) {
    cairo_move_to(cr, x + x0, y - rise);
    ForEachFontRun(cr, run, [&](const std::string& piece) { cairo_show_text(cr, piece.c_str()); });
  });
}

// Text with its anchor at (x, y): ax 0 left .. 1 right; ay 0 top .. 1 bottom (of the font box).
void Text(cairo_t* cr, const std::string& s, double x, double y, double ax, double ay, double angle,
          bool markup) {
  cairo_font_extents_t fe;
  cairo_font_extents(cr, &fe);
  const double w = TextWidth(cr, s, markup);
  const double h = fe.ascent + fe.descent;
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, angle);
  cairo_move_to(cr, -ax * w, -ay * h + fe.ascent);
  ShowText(cr, s, markup);
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
    cairo_matrix_t m;
    cairo_get_matrix(cr, &m);
    box.pt = FontSize(cr) * std::sqrt(std::fabs(m.xx * m.yy - m.xy * m.yx));
    g_text_boxes->push_back(std::move(box));
  }
  cairo_restore(cr);
}

// `text` in lines no wider than `max_width` in the current font (text_wrap.h: after ", " first).
std::vector<std::string> WrapAtCommas(cairo_t* cr, const std::string& text, double max_width) {
  return WrapText(
      text, max_width, [cr](const std::string& t) { return TextWidth(cr, t); }, true);
}

// `scale`: the text's sizes times this (below 1 when the text would not fit the page).
void TextFont(cairo_t* cr, FigureText::Style style, double scale) {
  scale *= g_font_scale;  // the body size (--font-size)
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
    const bool markup = TextMarkup(t.style);
    auto flush = [&] {
      *widest = std::max(*widest, TextWidth(cr, line, markup));
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
      if (line.size() > indent.size() && TextWidth(cr, candidate, markup) > width) {
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

}  // namespace pe::figure_internal

namespace pe {

namespace {

// A scratch surface to measure placed text on, with the renderers' font options.
template <typename Measure>
double WithPlacedFont(double pt, bool bold, bool mono, const Measure& measure) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t* cr = cairo_create(s);
  figure_internal::FixFontOptions(cr);
  if (mono) {
    cairo_select_font_face(cr, "DejaVu Sans Mono", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, pt);
  } else {
    figure_internal::Font(cr, pt, bold);
  }
  const double v = measure(cr);
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  return v;
}

}  // namespace

double PlacedTextWidth(const std::string& text, double pt, bool bold, bool mono) {
  return WithPlacedFont(pt, bold, mono,
                        [&](cairo_t* cr) { return figure_internal::TextWidth(cr, text); });
}

double PlacedTextHeight(double pt, bool mono) {
  return WithPlacedFont(pt, false, mono, [](cairo_t* cr) {
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    return fe.ascent + fe.descent;
  });
}

}  // namespace pe
