#include "figure/figure_render.h"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "figure/figure_render_internal.h"
#include "figure/label_placement.h"

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
  if (!(s.width >= kLeastFigureWidth && s.width <= 10000)) {
    return InvalidArgument(std::string(names.width) + " must be in [120, 10000], got " +
                           fmt(s.width));
  }
  if (!(s.height >= kLeastFigureHeight && s.height <= 10000)) {
    return InvalidArgument(std::string(names.height) + " must be in [90, 10000], got " +
                           fmt(s.height));
  }
  if (!(s.font_pt >= kLeastFontPt && s.font_pt <= kMostFontPt)) {
    return InvalidArgument("font size must be in [5, 36], got " + fmt(s.font_pt));
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

namespace figure_internal {

// The figure's point labels beside their points (label_placement.h), in the tick font.
template <typename Mapper>
void DrawPointLabels(cairo_t* cr, const Figure& f, const Mapper& m, const Box& b) {
  if (f.labels.empty()) return;
  Font(cr, TickPt());
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
    // (A token's name is shown as it is: "x_1" or "^" are its characters, not markup.)
    labels.push_back({m.X(l.x), m.Y(l.y), TextWidth(cr, l.text, false), fe.ascent + fe.descent});
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
    Text(cr, f.labels[k].text, placed[k].x, placed[k].y, 0, 0, 0, false);
  }
}

// Text, frame and tick colours, and the grid's.
constexpr Rgba8 kInk{30, 30, 35, 255}, kGrey{110, 110, 115, 255}, kGrid{0, 0, 0, 22};

// The figure's image on the output's grid, nearest-neighbour, repeated in vector files.
void DrawImage(cairo_t* cr, const FigureImage& im, FigureFormat format, const Mapper& m) {
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

// A series: its band (as steps), its line and its markers.
void DrawSeries(cairo_t* cr, const FigureSeries& s, const Mapper& m) {
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

// The data, clipped to the plot area: image, rectangles, horizontal lines, series, overlays
// and point labels.
void DrawData(cairo_t* cr, const Figure& f, FigureFormat format, const Mapper& m, const Box& b) {
  cairo_save(cr);
  cairo_rectangle(cr, b.x, b.y, b.w, b.h);
  cairo_clip(cr);
  if (f.image && f.image->width > 0 && f.image->height > 0) DrawImage(cr, *f.image, format, m);
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
  for (const FigureSeries& s : f.series) DrawSeries(cr, s, m);
  for (const FigureRect& r : f.overlays) {
    SetColor(cr, r.color);
    cairo_set_line_width(cr, r.line_width);
    cairo_rectangle(cr, std::min(m.X(r.x0), m.X(r.x1)), std::min(m.Y(r.y0), m.Y(r.y1)),
                    std::fabs(m.X(r.x1) - m.X(r.x0)), std::fabs(m.Y(r.y1) - m.Y(r.y0)));
    cairo_stroke(cr);
  }
  DrawPointLabels(cr, f, m, b);
  cairo_restore(cr);
}

void DrawTextBlock(cairo_t* cr, const Layout& l) {
  for (const TextLine& t : l.text) {
    TextFont(cr, t.style, l.text_scale);
    SetColor(cr, t.style == FigureText::Style::kCode   ? Rgba8{40, 80, 150, 255}
                 : t.style == FigureText::Style::kNote ? kGrey
                                                       : kInk);
    Text(cr, t.text, kTextLeft, l.text_top + t.y, 0, 0, 0, TextMarkup(t.style));
  }
}

// The grid under the data, at the ticks.
void DrawGrid(cairo_t* cr, const Layout& l, const Mapper& m, const Box& b) {
  cairo_set_line_width(cr, 0.6);
  SetColor(cr, kGrid);
  for (const Tick& t : l.xticks) {
    cairo_move_to(cr, m.X(t.value), b.y);
    cairo_line_to(cr, m.X(t.value), b.y + b.h);
  }
  for (const Tick& t : l.yticks) {
    cairo_move_to(cr, b.x, m.Y(t.value));
    cairo_line_to(cr, b.x + b.w, m.Y(t.value));
  }
  cairo_stroke(cr);
}

// Frame, ticks and tick labels; labels that would overlap their neighbour are skipped.
void DrawFrameAndTicks(cairo_t* cr, const Figure& f, const FigureSize& size, const Layout& l,
                       const Mapper& m, const Box& b) {
  SetColor(cr, kGrey);
  cairo_set_line_width(cr, 1.0);
  cairo_rectangle(cr, b.x, b.y, b.w, b.h);
  cairo_stroke(cr);
  Font(cr, TickPt());
  double last_right = -1e9;
  for (const Tick& t : l.xticks) {
    const double x = m.X(t.value);
    if (x < b.x - 0.5 || x > b.x + b.w + 0.5) continue;
    SetColor(cr, kGrey);
    cairo_move_to(cr, x, b.y + b.h);
    cairo_line_to(cr, x, b.y + b.h + kTickLen);
    cairo_stroke(cr);
    const double w = TextWidth(cr, t.label);
    const double lx = std::clamp(x - w / 2, 2.0, size.width - w - 2);
    if (lx < last_right + 6) continue;
    SetColor(cr, kInk);
    Text(cr, t.label, lx, b.y + b.h + kTickLen + 2, 0, 0);
    last_right = lx + w;
  }
  double last_top = 1e9;
  std::vector<Tick> yt = l.yticks;
  if (!f.y.reversed) std::reverse(yt.begin(), yt.end());
  for (auto it = yt.rbegin(); it != yt.rend(); ++it) {  // bottom to top on screen
    const double y = m.Y(it->value);
    if (y < b.y - 0.5 || y > b.y + b.h + 0.5) continue;
    SetColor(cr, kGrey);
    cairo_move_to(cr, b.x - kTickLen, y);
    cairo_line_to(cr, b.x, y);
    cairo_stroke(cr);
    const double ly = std::clamp(y, b.y + TickPt() * 0.6, b.y + b.h);
    if (ly + TickPt() * 0.6 > last_top - 2) continue;
    SetColor(cr, kInk);
    Text(cr, it->label, b.x - kTickLen - 3, ly, 1, 0.5);
    last_top = ly - TickPt() * 0.6;
  }
}

// The title and the axis titles.
void DrawTitles(cairo_t* cr, const Figure& f, const FigureSize& size, const Layout& l, const Box& b,
                bool panel) {
  SetColor(cr, kInk);
  const double title_pt = panel ? PanelTitlePt() : TitlePt();
  if (!f.title.empty()) {
    // A title wider than the page is smaller down to the body size, then takes more lines
    // (TitleLines), each centred over the plot while that keeps it on the page; only a line
    // still wider than the page (a panel's third) shrinks further.
    double line_pt = title_pt;
    const std::vector<std::string> lines = TitleLines(cr, f, size, title_pt, panel, &line_pt);
    for (size_t k = 0; k < lines.size(); ++k) {
      Font(cr, line_pt, true);
      const double avail = size.width - 8;
      const double w = TextWidth(cr, lines[k]);
      if (w > avail) Font(cr, line_pt * avail / w, true);
      const double tw = std::min(w, avail);
      // A page with text under its title reads from the left margin, as the text does.
      const double tx =
          f.text.empty() ? std::clamp(b.x + b.w / 2 - tw / 2, 4.0, size.width - 4 - tw) : kTextLeft;
      Text(cr, lines[k], tx, 10 + line_pt * 1.25 * static_cast<double>(k), 0, 0);
    }
  }
  // Axis titles: in lines (Layout::xlabel, ylabel), centred on the plot while that keeps them
  // on the page; the x axis's over the legend when the legend is under the plot.
  const double n_x = static_cast<double>(l.xlabel.size());
  for (size_t k = 0; k < l.xlabel.size(); ++k) {
    Font(cr, l.xlabel_pt);
    const double w = TextWidth(cr, l.xlabel[k]);
    Text(cr, l.xlabel[k],
         std::clamp(b.x + b.w / 2, 4 + w / 2, std::max(4 + w / 2, size.width - 4 - w / 2)),
         size.height - 6 - l.legend_below_h -
             l.xlabel_pt * 1.25 * (n_x - 1 - static_cast<double>(k)),
         0.5, 1);
  }
  for (size_t k = 0; k < l.ylabel.size(); ++k) {
    Font(cr, l.ylabel_pt);
    const double w = TextWidth(cr, l.ylabel[k]);
    Text(cr, l.ylabel[k], 8 + l.ylabel_pt * 1.25 * static_cast<double>(k),
         std::clamp(b.y + b.h / 2, 4 + w / 2, std::max(4 + w / 2, size.height - 4 - w / 2)), 0.5, 0,
         -M_PI / 2);
  }
}

// The colour bar right of the plot, from the same LUT as the heatmap, with its range.
void DrawColorBar(cairo_t* cr, const FigureColorBar& c, const Figure& f, const FigureSize& size,
                  const Layout& l, const Box& b) {
  const double right_x = b.x + b.w + 20;
  // A vector gradient through the LUT's own key colours: the same colours as the heatmap's
  // pixels (the LUT interpolates these keys linearly) and no second image in the file.
  const std::vector<Rgba8>& keys = ColormapKeys(c.colormap);
  const double bar = b.h * ColorBarShare(f, l.legend_below);
  const double top = b.y + LabelPt() * 1.6, h = bar - LabelPt() * 1.6;
  cairo_pattern_t* grad = cairo_pattern_create_linear(0, top + h, 0, top);  // vmin at the bottom
  for (size_t k = 0; k < keys.size(); ++k) {
    cairo_pattern_add_color_stop_rgb(grad,
                                     static_cast<double>(k) / static_cast<double>(keys.size() - 1),
                                     keys[k].r / 255.0, keys[k].g / 255.0, keys[k].b / 255.0);
  }
  cairo_set_source(cr, grad);
  cairo_rectangle(cr, right_x, top, 14, h);
  cairo_fill(cr);
  cairo_pattern_destroy(grad);
  SetColor(cr, kGrey);
  cairo_rectangle(cr, right_x, top, 14, h);
  cairo_stroke(cr);
  Font(cr, TickPt());
  for (const Tick& t : l.cticks) {
    const double y = top + h - (t.value - c.vmin) / (c.vmax - c.vmin) * h;
    SetColor(cr, kGrey);
    cairo_move_to(cr, right_x + 14, y);
    cairo_line_to(cr, right_x + 14 + kTickLen, y);
    cairo_stroke(cr);
    SetColor(cr, kInk);
    Text(cr, t.label, right_x + 14 + kTickLen + 3, y, 0, 0.5);
  }
  Font(cr, FittingSize(LabelPt(), [&](double p) {
         Font(cr, p);
         return right_x + TextWidth(cr, c.label) <= size.width - 2;
       }));
  Text(cr, c.label, right_x, b.y, 0, 0);
}

// The legend beside or under the plot: never over the data.
LegendLayout PageLegend(cairo_t* cr, const Figure& f, const FigureSize& size, const Layout& l) {
  return LayOutLegend(cr, f, size, l.plot, l.legend_pt, l.legend_below,
                      size.height - l.legend_below_h + 2);
}

void DrawLegend(cairo_t* cr, const Figure& f, const FigureSize& size, const Layout& l) {
  const LegendLayout legend = PageLegend(cr, f, size, l);
  const double lpt = legend.pt;
  for (size_t i = 0; i < legend.items.size(); ++i) {
    const LegendLayout::Item& it = legend.items[i];
    if (it.lines.empty()) break;
    SetColor(cr, f.legend[i].color);
    cairo_set_line_width(cr, std::min(3.0, lpt / 4));
    cairo_move_to(cr, it.x - lpt * 2.5, it.ys[0] + lpt * 0.6);
    cairo_line_to(cr, it.x - lpt * 0.5, it.ys[0] + lpt * 0.6);
    cairo_stroke(cr);
    SetColor(cr, kInk);
    Font(cr, lpt);
    for (size_t k = 0; k < it.lines.size(); ++k) Text(cr, it.lines[k], it.x, it.ys[k], 0, 0);
  }
}

// A page its view laid out (Figure::placed): its items in order on white.
void DrawPlaced(cairo_t* cr, const Figure& f, FigureFormat format) {
  FixFontOptions(cr);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  for (const FigurePlaced& p : f.placed) {
    switch (p.kind) {
      case FigurePlaced::Kind::kText:
        if (p.mono) {
          cairo_select_font_face(cr, "DejaVu Sans Mono", CAIRO_FONT_SLANT_NORMAL,
                                 p.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
          cairo_set_font_size(cr, p.pt);
        } else {
          Font(cr, p.pt, p.bold);
        }
        SetColor(cr, p.color);
        Text(cr, p.text, p.x0, p.y0, 0, 0);
        break;
      case FigurePlaced::Kind::kRect:
        SetColor(cr, p.color);
        if (p.filled) {
          cairo_rectangle(cr, p.x0, p.y0, p.x1 - p.x0, p.y1 - p.y0);
          cairo_fill(cr);
        } else {
          cairo_set_line_width(cr, p.line_width);
          cairo_rectangle(cr, p.x0, p.y0, p.x1 - p.x0, p.y1 - p.y0);
          cairo_stroke(cr);
        }
        break;
      case FigurePlaced::Kind::kImage: {
        if (!f.image || f.image->width <= 0 || f.image->height <= 0) break;
        const FigureImage& im = *f.image;
        const int repeat = format == FigureFormat::kPng
                               ? 1
                               : VectorImageRepeat(im.width, im.height, p.x1 - p.x0, p.y1 - p.y0);
        cairo_surface_t* s = ImageSurface(im.width, im.height, im.rgba.data(), repeat);
        PaintImage(cr, s, im.width * repeat, im.height * repeat, p.x0, p.y0, p.x1, p.y1);
        cairo_surface_destroy(s);
        break;
      }
    }
  }
}

void Draw(cairo_t* cr, const Figure& f, const FigureSize& size, FigureFormat format, bool panel,
          size_t title_lines) {
  if (!f.placed.empty()) {
    DrawPlaced(cr, f, format);
    return;
  }
  // A page (not a panel, which its page's scope sizes) at the body size that fits it.
  std::optional<FontScope> scope;
  if (!panel) scope.emplace(FittedFontPt(cr, f, size));
  if (!f.panels.empty()) {
    DrawPanels(cr, f, size, format);
    return;
  }
  const Layout l = ComputeLayout(cr, f, size, panel, title_lines);
  const Mapper m{f, l.plot};
  const Box& b = l.plot;

  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  DrawTextBlock(cr, l);
  if (!f.plot) {
    SetColor(cr, kInk);
    if (!f.title.empty()) {
      Font(cr, TitlePt(), true);
      const double avail = size.width - 8;
      const double w = TextWidth(cr, f.title);
      if (w > avail) Font(cr, TitlePt() * avail / w, true);
      Text(cr, f.title, kTextLeft, 10, 0, 0);
    }
    return;
  }

  DrawGrid(cr, l, m, b);
  DrawData(cr, f, format, m, b);
  DrawFrameAndTicks(cr, f, size, l, m, b);
  DrawTitles(cr, f, size, l, b, panel);
  if (f.colorbar) DrawColorBar(cr, *f.colorbar, f, size, l, b);
  DrawLegend(cr, f, size, l);
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
  double legend_pt = LegendPt();   // smaller when the strip would not hold every line
  std::vector<std::string> title;  // the page's title's lines
  double title_pt = TitlePt();     // and their size
  std::vector<std::vector<std::string>> legend_lines;  // per legend item
  size_t title_lines = 1;                              // the most lines a panel's title takes
  // The panels keep 30% of the page and the strip's text the body size: false tells
  // FittedFontPt to try a smaller body size.
  bool fits = true;
};

PanelsLayout ComputePanelsLayout(cairo_t* cr, const Figure& f, const FigureSize& size) {
  FixFontOptions(cr);
  PanelsLayout l;
  l.title = TitleLines(cr, f, size, TitlePt(), false, &l.title_pt);
  const double line_pt = l.title.size() == 1 ? TitlePt() : l.title_pt;
  const double top = 4 + (f.title.empty() ? 0 : line_pt * 1.6) +
                     line_pt * 1.25 * static_cast<double>(l.title.size() - 1);
  double legend_h = 0;
  // The strip takes at most 40% of the page: its text shrinks until every line is in it.
  l.legend_pt = FittingSize(LegendPt(), [&](double pt) {
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
  // (At least 10 units: on a 90-unit page the title and the strip leave about 25.)
  const double panels_h = std::max(10.0, size.height - top - legend_h);
  const double w = size.width / static_cast<double>(f.panels.size());
  for (size_t i = 0; i < f.panels.size(); ++i) {
    l.frames.push_back({w * static_cast<double>(i), top, w, panels_h});
  }
  l.legend_top = top + panels_h + 4;
  l.fits = size.height - top - legend_h >= size.height * 0.3 && l.legend_pt >= LegendPt() * 0.999;
  for (size_t i = 0; i < f.panels.size(); ++i) {
    const FigureSize panel = PanelPage(l.frames[i], size.scale);
    l.title_lines =
        std::max(l.title_lines, TitleLines(cr, f.panels[i], panel, PanelTitlePt(), true).size());
  }
  return l;
}

bool PanelsFit(cairo_t* cr, const Figure& f, const FigureSize& size) {
  return ComputePanelsLayout(cr, f, size).fits;
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
    Draw(cr, f.panels[i], PanelPage(b, size.scale), format, true, l.title_lines);
    cairo_restore(cr);
  }
  SetColor(cr, ink);
  for (size_t k = 0; k < l.title.size() && !f.title.empty(); ++k) {
    Font(cr, l.title_pt, true);
    const double avail = size.width - 8;
    const double w = TextWidth(cr, l.title[k]);
    if (w > avail) Font(cr, l.title_pt * avail / w, true);
    Text(cr, l.title[k], std::max(4.0, size.width / 2 - std::min(w, avail) / 2),
         8 + l.title_pt * 1.25 * static_cast<double>(k), 0, 0);
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

}  // namespace figure_internal

using namespace figure_internal;

PlotBox FigurePlotBox(const Figure& figure, const FigureSize& size) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t* cr = cairo_create(s);
  FontScope scope(FittedFontPt(cr, figure, size));
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

double FigureTextPt(const Figure& figure, const FigureSize& size, double* largest_whole) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t* cr = cairo_create(s);
  std::optional<Figure> copy;
  const Figure& f = Titled(figure, copy);
  const double pt = FittedFontPt(cr, f, size);
  if (largest_whole) {
    *largest_whole = 0;
    if (pt >= size.font_pt) {
      *largest_whole = size.font_pt;
    } else {
      FigureSize asked = size;
      for (double k = std::floor(pt * 2) / 2; k >= kLeastFontPt; k -= 0.5) {
        asked.font_pt = k;
        if (FittedFontPt(cr, f, asked) >= k) {
          *largest_whole = k;
          break;
        }
      }
    }
  }
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  return pt;
}

std::vector<PlotBox> FigurePanelPlotBoxes(const Figure& figure, const FigureSize& size) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t* cr = cairo_create(s);
  FontScope scope(FittedFontPt(cr, figure, size));
  const PanelsLayout panels = ComputePanelsLayout(cr, figure, size);
  std::vector<PlotBox> out;
  for (size_t i = 0; i < figure.panels.size(); ++i) {
    const Box& b = panels.frames[i];
    // A small panel is laid out larger and drawn scaled down (PanelScale).
    const double k = PanelScale(b);
    const Layout l =
        ComputeLayout(cr, figure.panels[i], PanelPage(b, size.scale), true, panels.title_lines);
    out.push_back({b.x + k * l.plot.x, b.y + k * l.plot.y, k * l.plot.w, k * l.plot.h});
  }
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  return out;
}

LegendLayout FigureLegendLayout(const Figure& figure, const FigureSize& size) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t* cr = cairo_create(s);
  FontScope scope(FittedFontPt(cr, figure, size));
  const Layout l = ComputeLayout(cr, figure, size);
  LegendLayout out = PageLegend(cr, figure, size, l);
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
  FontScope scope(size.font_pt);
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

}  // namespace pe
