// Where a figure's parts go on the page: the plot box left by the title, the text block, the axes'
// tick labels and the colour bar, the ticks themselves, and the legend's wrapped lines.
#include <algorithm>
#include <cmath>

#include "base/ticks.h"
#include "figure/figure_render_internal.h"
#include "figure/text_wrap.h"

namespace pe::figure_internal {

thread_local double g_font_scale = 1.0;

// The share of the plot's height the colour bar takes: all of it, or half when a legend goes
// under it (a heatmap with notes), so the legend has room.
double ColorBarShare(const Figure& f, bool legend_below) {
  return f.legend.empty() || legend_below ? 1.0 : 0.5;
}

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

// The title's lines: a page's title on one line, smaller (down to the body size) when it is
// wider than the page, else broken after ", " (then at spaces) at the body size, never smaller;
// up to three at its size for a panel, whose columns are narrow ("B: rope, rope_scaling=yarn,
// scaling_factor=8, ..."), the rest on the third.
std::vector<std::string> TitleLines(cairo_t* cr, const Figure& f, const FigureSize& size,
                                    double title_pt, bool panel, double* used_pt) {
  if (used_pt != nullptr) *used_pt = title_pt;
  if (f.title.empty()) return {f.title};
  Font(cr, title_pt, true);
  if (!panel) {
    const double w = TextWidth(cr, f.title), avail = size.width - 8;
    if (w <= avail) return {f.title};
    if (title_pt * avail / w >= LegendPt()) {
      if (used_pt != nullptr) *used_pt = title_pt * avail / w;
      return {f.title};
    }
    Font(cr, LegendPt(), true);
    if (used_pt != nullptr) *used_pt = LegendPt();
  }
  std::vector<std::string> lines = WrapAtCommas(cr, f.title, size.width - 8);
  if (panel && lines.size() > 3) {
    for (size_t k = 3; k < lines.size(); ++k) lines[2] += " " + lines[k];
    lines.resize(3);
  }
  return lines.empty() ? std::vector<std::string>{f.title} : lines;
}

namespace {

// An axis title's lines in the current font: whole when it fits `room`, else broken after ", "
// and at spaces into at most three lines; `*pt` smaller only when three lines do not fit.
std::vector<std::string> AxisTitleLines(cairo_t* cr, const std::string& label, double room,
                                        double* pt) {
  if (label.empty()) return {};
  std::vector<std::string> lines;
  *pt = FittingSize(*pt, [&](double p) {
    Font(cr, p);
    lines = WrapAtCommas(cr, label, room);
    if (lines.size() > 3) return false;
    for (const std::string& l : lines) {
      if (TextWidth(cr, l) > room) return false;
    }
    return true;
  });
  if (lines.size() > 3) lines = {label};
  return lines;
}

}  // namespace

// `title_lines`: at least this many title lines are reserved (side-by-side panels keep their
// plots level when one title takes more lines).
Layout ComputeLayout(cairo_t* cr, const Figure& f, const FigureSize& size, bool panel,
                     size_t title_lines) {
  FixFontOptions(cr);
  Layout l;
  const double title_pt = panel ? PanelTitlePt() : TitlePt();
  const double tick_pt = TickPt(), label_pt = LabelPt();
  double line_pt = title_pt;  // a page's title broken into lines: the body size
  title_lines = std::max(title_lines, TitleLines(cr, f, size, title_pt, panel, &line_pt).size());
  if (title_lines == 1 || panel) line_pt = title_pt;
  double text_h = 0;
  l.text_top = 12 + (f.title.empty() ? 0 : line_pt * 1.6) +
               line_pt * 1.25 * static_cast<double>(title_lines - 1) + (f.text.empty() ? 0 : 4);
  l.xlabel_pt = l.ylabel_pt = label_pt;
  l.xlabel = AxisTitleLines(cr, f.x.label, size.width - 8, &l.xlabel_pt);
  // (The x axis's title's lines after the first go under it: the one-line layout is unchanged.)
  const double xlabel_h =
      l.xlabel.empty()
          ? 0
          : label_pt * 1.6 + l.xlabel_pt * 1.25 * static_cast<double>(l.xlabel.size() - 1);
  const double bottom = 8 + kTickLen + tick_pt * 1.5 + xlabel_h;
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
  // The plot area's least size: below it the text gets smaller instead (FittedFontPt).
  const double least_w = std::max(20.0, size.width * 0.25),
               least_h = std::max(20.0, size.height * 0.2);
  l.fits = text_h <= text_room || !f.plot;
  l.ylabel =
      AxisTitleLines(cr, f.y.label, std::max(20.0, size.height - top - bottom), &l.ylabel_pt);
  const double ylabel_w =
      l.ylabel.empty()
          ? 0
          : label_pt * 1.5 + l.ylabel_pt * 1.25 * static_cast<double>(l.ylabel.size() - 1);
  Font(cr, tick_pt);
  const double est_h = size.height - top - bottom;
  l.yticks = AxisTicks(f.view.y0, f.view.y1, f.y, est_h, tick_pt * 3.2);
  double ytick_w = 0;
  for (const Tick& t : l.yticks) ytick_w = std::max(ytick_w, TextWidth(cr, t.label));
  const double left = 10 + ylabel_w + ytick_w + kTickLen + 4;
  double right = 18;
  auto colorbar_right = [&](bool below) {
    double r = 18;
    if (!f.colorbar) return r;
    Font(cr, tick_pt);
    l.cticks =
        NiceTicks(f.colorbar->vmin, f.colorbar->vmax,
                  std::max(2, static_cast<int>(est_h * ColorBarShare(f, below) / (tick_pt * 3.5))));
    double cw = 0;
    for (const Tick& t : l.cticks) cw = std::max(cw, TextWidth(cr, t.label));
    Font(cr, label_pt);
    r = std::max(r, 20 + 14 + kTickLen + 4 + cw + 10);
    r = std::max(r, 20 + TextWidth(cr, f.colorbar->label) + 10);
    return r;
  };
  right = colorbar_right(false);
  l.plot = {left, top, std::max(least_w, size.width - left - right),
            std::max(least_h, size.height - top - bottom)};
  l.fits = l.fits && left + least_w + right <= size.width + 1e-9 &&
           top + least_h + bottom <= size.height + 1e-9;
  if (!f.legend.empty()) {
    // The legend's column right of the plot at the body size: as wide as its longest item up
    // to 30% of the page, wider (to 46%) when its lines would run past the page's bottom, while
    // the plot keeps 40% of the page's width; else under the plot, across the page.
    const double pt = LegendPt();
    const double least_plot = std::max(least_w, size.width * 0.4);
    l.legend_pt = pt;
    bool beside = false;
    Font(cr, pt);
    double lw = 0;
    for (const FigureLegendItem& it : f.legend) lw = std::max(lw, TextWidth(cr, it.label));
    for (double share : {0.3, 0.38, 0.46}) {
      const double column = 20 + pt * 2.5 + std::min(lw, size.width * share) + 12;
      const double w = size.width - left - std::max(right, column);
      if (w < least_plot) break;
      l.plot.w = w;
      if (LayOutLegend(cr, f, size, l.plot, pt).complete) {
        beside = true;
        break;
      }
    }
    if (!beside) {
      l.legend_below = true;
      right = colorbar_right(true);
      l.plot.w = std::max(least_w, size.width - left - right);
      const LegendLayout below = LayOutLegend(cr, f, size, l.plot, pt, true, 0);
      double h = 6;
      for (const LegendLayout::Item& it : below.items) {
        h += pt * 1.25 * static_cast<double>(it.lines.size()) + pt * 0.3;
      }
      l.legend_below_h = h;
      l.plot.h = std::max(least_h, size.height - top - bottom - h);
      l.fits = l.fits && top + least_h + bottom + h <= size.height + 1e-9 &&
               left + least_w + right <= size.width + 1e-9;
    }
  }
  if (!l.ylabel.empty() && l.legend_below) {
    // The y axis's title fits the plot's height as it is now (the legend took some).
    double ypt = label_pt;
    std::vector<std::string> lines = AxisTitleLines(cr, f.y.label, l.plot.h, &ypt);
    const double w = label_pt * 1.5 + ypt * 1.25 * static_cast<double>(lines.size() - 1);
    const double delta = w - ylabel_w;
    l.plot.x += delta;
    l.plot.w = std::max(least_w, l.plot.w - delta);
    l.fits = l.fits && l.plot.x + least_w + right <= size.width + 1e-9;
    l.ylabel = std::move(lines);
    l.ylabel_pt = ypt;
  }
  Font(cr, tick_pt);
  double xlabel_w = 0;
  for (const Tick& t : AxisTicks(f.view.x0, f.view.x1, f.x, l.plot.w, 60)) {
    xlabel_w = std::max(xlabel_w, TextWidth(cr, t.label));
  }
  l.xticks = AxisTicks(f.view.x0, f.view.x1, f.x, l.plot.w, xlabel_w * 2.2 + 12);
  return l;
}

double FittedFontPt(cairo_t* cr, const Figure& f, const FigureSize& size) {
  return FittingSize(
      size.font_pt,
      [&](double pt) {
        FontScope scope(pt);
        return f.panels.empty() ? ComputeLayout(cr, f, size).fits : PanelsFit(cr, f, size);
      },
      2.0);
}

// Where the legend's lines go: right of the plot (under the colour bar when there is one) or
// under it, each item wrapped to the room left on the page (WrapText: at ", ", then spaces,
// then inside a word too long for a line). Lines past the page's bottom are left out and
// `complete` says so.
LegendLayout LayOutLegend(cairo_t* cr, const Figure& f, const FigureSize& size, const Box& b,
                          double pt, bool below, double below_top) {
  LegendLayout out;
  out.pt = pt;
  if (f.legend.empty()) return out;
  Font(cr, pt);
  const double right_x = below ? 10 : b.x + b.w + 20;
  double y = below ? below_top : f.colorbar ? b.y + b.h * ColorBarShare(f) + 10 : b.y + 4;
  // The sample line takes 2.5 em before the text; 10 units stay free at the page's edge.
  out.max_width = std::max(1.0, size.width - right_x - pt * 2.5 - 10);
  const auto width = [cr](const std::string& t) { return TextWidth(cr, t); };
  for (const FigureLegendItem& item : f.legend) {
    LegendLayout::Item it;
    it.x = right_x + pt * 2.5;
    for (const std::string& line : WrapText(item.label, out.max_width, width, true)) {
      const double w = TextWidth(cr, line);
      if ((!below && y + pt * 1.2 > size.height - 2) || it.x + w > size.width - 2) {
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

}  // namespace pe::figure_internal
