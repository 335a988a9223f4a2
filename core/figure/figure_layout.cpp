// Where a figure's parts go on the page: the plot box left by the title, the text block, the axes'
// tick labels and the colour bar, the ticks themselves, and the legend's wrapped lines.
#include <algorithm>
#include <cmath>

#include "base/ticks.h"
#include "figure/figure_render_internal.h"
#include "figure/text_wrap.h"

namespace pe::figure_internal {

// The share of the plot's height the colour bar takes: all of it, or half when a legend goes
// under it (a heatmap with notes), so the legend has room.
double ColorBarShare(const Figure& f) {
  return f.legend.empty() ? 1.0 : 0.5;
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
Layout ComputeLayout(cairo_t* cr, const Figure& f, const FigureSize& size, double title_pt,
                     size_t title_lines) {
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

}  // namespace pe::figure_internal
