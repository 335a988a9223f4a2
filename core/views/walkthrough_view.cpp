// The walkthrough view: the steps of views/walkthrough.h as figures. A PDF is the handout, one
// page per step; a PNG or SVG holds one step (the window's current one), so `export --view
// walkthrough` to .png or .svg, which has no current step, is refused with a word on .pdf. Its
// table is the input layer's parts as the steps compute them (the sum table's shape).
//
// Each page lays itself out (Figure::placed) to fill the page, from its parts whatever the
// step: the title, the sentence and the formula across the page; under them the numbers, the
// code line and the window's note in a column, at the largest size (at least kWalkNumbersPt)
// that fits beside or above the page's picture; the picture takes the rest: the step's table
// as a heatmap (rows named, every k-th when they are many), its bars (each named and valued on
// the bar), its dropout mask cell by cell, or its tokens as boxes; at the foot, the tutorials
// the page names, by title and author.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "figure/colormap.h"
#include "figure/text_wrap.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/view_builders.h"
#include "views/walkthrough.h"

namespace pe {
namespace {

// The walkthrough --walkthrough names (input or attention).
Result<Walkthrough> Build(const ViewContext& c) {
  return BuildWalkthrough(c.params, c.encoding, c.sel.selected_token);
}

}  // namespace

namespace {

constexpr Rgba8 kInk{30, 30, 35, 255}, kGrey{95, 95, 100, 255}, kCodeBlue{40, 80, 150, 255},
    kPanel{240, 241, 246, 255}, kKept{214, 236, 214, 255}, kDropped{205, 205, 208, 255},
    kBarInk{255, 255, 255, 255};

std::string Short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
std::string Full(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string Lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Lines of one paragraph of text as placed: its size, face and colour.
struct Para {
  std::string text;
  double pt = 12;
  bool bold = false, mono = false;
  Rgba8 color = kInk;
  std::string role;
};

double LineHeight(double pt, bool mono) {
  return PlacedTextHeight(pt, mono) * 1.08;
}

std::vector<std::string> Wrap(const Para& p, double width) {
  return WrapText(
      p.text, width, [&](const std::string& t) { return PlacedTextWidth(t, p.pt, p.bold, p.mono); },
      false);
}

// The height `paras` take wrapped to `width`, with `gap` times the size between paragraphs.
double ParasHeight(const std::vector<Para>& paras, double width, double gap) {
  double h = 0;
  for (size_t k = 0; k < paras.size(); ++k) {
    if (paras[k].text.empty()) continue;
    if (h > 0) h += gap * paras[k].pt;
    h += static_cast<double>(Wrap(paras[k], width).size()) * LineHeight(paras[k].pt, paras[k].mono);
  }
  return h;
}

struct Placer {
  Figure& f;
  void Rect(double x0, double y0, double x1, double y1, Rgba8 color, bool filled,
            const std::string& role, double line_width = 1.0) {
    FigurePlaced r;
    r.kind = FigurePlaced::Kind::kRect;
    r.x0 = x0, r.y0 = y0, r.x1 = x1, r.y1 = y1;
    r.color = color;
    r.filled = filled;
    r.line_width = line_width;
    r.role = role;
    f.placed.push_back(std::move(r));
  }
  // One line with its top-left at (x, y); returns its width.
  double Line(const std::string& text, double x, double y, double pt, bool bold, bool mono,
              Rgba8 color, const std::string& role) {
    FigurePlaced t;
    t.kind = FigurePlaced::Kind::kText;
    t.text = text;
    t.pt = pt;
    t.bold = bold;
    t.mono = mono;
    t.color = color;
    t.role = role;
    const double w = PlacedTextWidth(text, pt, bold, mono);
    t.x0 = x, t.y0 = y, t.x1 = x + w, t.y1 = y + PlacedTextHeight(pt, mono);
    f.placed.push_back(std::move(t));
    return w;
  }
  // Paragraphs wrapped to `width` from (x, y); returns the y under the last line.
  double Paras(const std::vector<Para>& paras, double x, double y, double width, double gap) {
    bool first = true;
    for (const Para& p : paras) {
      if (p.text.empty()) continue;
      if (!first) y += gap * p.pt;
      first = false;
      for (const std::string& line : Wrap(p, width)) {
        Line(line, x, y, p.pt, p.bold, p.mono, p.color, p.role);
        y += LineHeight(p.pt, p.mono);
      }
    }
    return y;
  }
};

// Paragraphs flowed line by line down `ncols` columns of `col_w` from `top` to `bottom`, the
// next column `col_gap` to the right. Returns the lowest line's bottom, or +infinity when the
// lines do not fit; places them when `out` is given.
double Flow(Placer* out, const std::vector<Para>& paras, double x, double top, double col_w,
            int ncols, double col_gap, double bottom, double gap) {
  double y = top, lowest = top;
  int col = 0;
  bool first = true;
  for (const Para& p : paras) {
    if (p.text.empty()) continue;
    if (!first && y > top) y += gap * p.pt;
    first = false;
    const double lh = LineHeight(p.pt, p.mono);
    for (const std::string& line : Wrap(p, col_w)) {
      if (y + lh > bottom && y > top) {
        if (++col >= ncols) return std::numeric_limits<double>::infinity();
        y = top;
      }
      if (out != nullptr) {
        out->Line(line, x + col * (col_w + col_gap), y, p.pt, p.bold, p.mono, p.color, p.role);
      }
      y += lh;
      lowest = std::max(lowest, y);
    }
  }
  return lowest;
}

// The largest size in [lo, hi] (half-point steps) at which `fits(pt)` holds, else lo.
template <typename Fits>
double LargestFitting(double lo, double hi, const Fits& fits) {
  for (double pt = hi; pt > lo; pt -= 0.5) {
    if (fits(pt)) return pt;
  }
  return lo;
}

enum class Picture { kNone, kMatrix, kBars, kMask, kChips };

// A table as a heatmap in the box: its caption on top, its rows named on the left (every k-th
// when a name a row would overlap), the colour scale's ends and middle on the right.
void PlaceMatrix(Placer& out, const Walkthrough& w, const WalkMatrix& m, ColormapId colormap,
                 double x, double y, double bw, double bh, double pt) {
  Figure& f = out.f;
  float hi = 1.0f;
  f.image = WalkMatrixImage(m, colormap, &hi);
  const double top = y;
  y = out.Paras({{m.caption, pt, false, false, kGrey, "caption"}}, x, y, bw, 0) + 0.4 * pt;
  const double lh = PlacedTextHeight(pt, false);
  // Row names: tokens, or ids.
  std::vector<std::string> names;
  for (size_t r = 0; r < static_cast<size_t>(m.values.rows); ++r) {
    const int64_t id = r < m.row_ids.size() ? m.row_ids[r] : static_cast<int64_t>(r);
    if (m.row_axis == "token" && id >= 0 && static_cast<size_t>(id) < w.token_labels.size()) {
      names.push_back(w.token_labels[static_cast<size_t>(id)]);
    } else {
      names.push_back("id " + std::to_string(id));
    }
  }
  double name_w = 0;
  for (const std::string& n : names)
    name_w = std::max(name_w, PlacedTextWidth(n, pt, false, false));
  name_w = std::min(name_w, bw * 0.3);
  const double bar_w = std::max(10.0, pt * 1.2);
  double tick_w = 0;
  for (double v : {-static_cast<double>(hi), 0.0, static_cast<double>(hi)}) {
    tick_w = std::max(tick_w, PlacedTextWidth(Short(v), pt, false, false));
  }
  const double ix0 = x + name_w + 6;
  const double ix1 = std::max(ix0 + 20, x + bw - bar_w - tick_w - 14);
  const double iy0 = y;
  const double box_bottom = std::max(iy0 + 20, top + bh - lh * 1.4);
  FigurePlaced im;
  im.kind = FigurePlaced::Kind::kImage;
  im.x0 = ix0, im.y0 = iy0, im.x1 = ix1, im.y1 = box_bottom;
  im.role = "matrix";
  f.placed.push_back(im);
  const double rows = static_cast<double>(std::max<int64_t>(1, m.values.rows));
  const double row_h = (box_bottom - iy0) / rows;
  const Rgba8 outline = SelectionHighlightColor(colormap);
  for (int64_t r : m.outlined) {
    out.Rect(ix0, iy0 + row_h * static_cast<double>(r), ix1,
             iy0 + row_h * static_cast<double>(r + 1), outline, false, "outline",
             r == m.focus_row ? 2.5 : 1.2);
  }
  // Every k-th row named, k the least that keeps names apart.
  const int64_t every = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(lh * 1.05 / row_h)));
  for (int64_t r = 0; r < m.values.rows; r += every) {
    std::string n = names[static_cast<size_t>(r)];
    while (n.size() > 1 && PlacedTextWidth(n, pt, false, false) > name_w) n.pop_back();
    const double cy = iy0 + row_h * (static_cast<double>(r) + 0.5);
    out.Line(n, ix0 - 4 - PlacedTextWidth(n, pt, false, false), cy - lh / 2, pt, false, false, kInk,
             "row label");
  }
  // The colour scale: a column of the colormap's colours with its ends and middle.
  const double cx0 = ix1 + 8, cx1 = cx0 + bar_w;
  constexpr int kSteps = 48;
  for (int k = 0; k < kSteps; ++k) {
    const float v = hi - 2 * hi * (static_cast<float>(k) + 0.5f) / kSteps;
    uint8_t rgba[4];
    MapToRgba(colormap, &v, 1, -hi, hi, rgba);
    const double y0 = iy0 + (box_bottom - iy0) * k / kSteps;
    out.Rect(cx0, y0, cx1, y0 + (box_bottom - iy0) / kSteps + 0.3, {rgba[0], rgba[1], rgba[2], 255},
             true, "colour scale");
  }
  out.Line(Short(hi), cx1 + 4, iy0, pt, false, false, kInk, "number");
  out.Line("0", cx1 + 4, (iy0 + box_bottom) / 2 - lh / 2, pt, false, false, kInk, "number");
  out.Line(Short(-hi), cx1 + 4, box_bottom - lh, pt, false, false, kInk, "number");
  const std::string axis = m.full_cols > m.values.cols
                               ? "dimension 0 to " + std::to_string(m.values.cols - 1) + " (of " +
                                     std::to_string(m.full_cols) + ")"
                               : "dimension 0 to " + std::to_string(m.values.cols - 1);
  out.Line(axis, ix0, box_bottom + 3, pt, false, false, kGrey, "axis");
}

// Bars across the box, each with its name and value on it (inside when it is long enough,
// else just past its end). Negative values run left of a zero line.
void PlaceBars(Placer& out, const std::vector<WalkBar>& bars, double x, double y, double bw,
               double bh, double pt) {
  double hi = 0, lo = 0;
  std::vector<std::string> labels;
  for (const WalkBar& b : bars) {
    hi = std::max(hi, b.value);
    lo = std::min(lo, b.value);
    labels.push_back(b.label + " = " + Full(b.value));
  }
  if (!(hi - lo > 0)) hi = 1;
  const double span = (bw - 2) / (hi - lo);
  const double zero = x + span * -lo;
  const double n = static_cast<double>(bars.size());
  const double slot = bh / n;
  const double bar_h = std::min(slot * 0.72, pt * 4.0);
  const double lh = PlacedTextHeight(pt, false);
  for (size_t k = 0; k < bars.size(); ++k) {
    const double v = bars[k].value;
    const double y0 = y + slot * static_cast<double>(k) + (slot - bar_h) / 2;
    const double len = std::max(1.0, span * std::abs(v));
    const double x0 = v < 0 ? zero - len : zero;
    out.Rect(x0, y0, x0 + len, y0 + bar_h, SeriesRgba(static_cast<int>(k)), true, "bar");
    const double tw = PlacedTextWidth(labels[k], pt, false, false);
    const bool inside = tw + 12 <= len;
    double tx = 0;
    if (inside) {
      tx = x0 + 6;
    } else if (v < 0) {
      // Past the bar's left end when there is room, else right of the zero line.
      tx = x0 - 6 - tw >= x ? x0 - 6 - tw : std::min(zero + 6, x + bw - tw);
    } else {
      tx = std::min(x0 + len + 6, x + bw - tw);
    }
    out.Line(labels[k], std::max(x, tx), y0 + (bar_h - lh) / 2, pt, false, false,
             inside ? kBarInk : kInk, "bar label");
  }
  out.Rect(zero, y, zero + 1, y + bh, kGrey, true, "axis");
}

// The mask cell by cell: values before, the mask (kept or dropped), values after.
void PlaceMask(Placer& out, const WalkMask& m, double x, double y, double bw, double bh,
               double pt) {
  const std::vector<std::string> heads = {"before", "mask", "after"};
  double head_w = 0;
  for (const std::string& h : heads) head_w = std::max(head_w, PlacedTextWidth(h, pt, true, false));
  const auto n = static_cast<double>(m.kept.size());
  const double cell_w = (bw - head_w - 10) / n;
  const double lh = PlacedTextHeight(pt, false);
  const double note_h = 3 * LineHeight(pt, false);
  const double cell_h = std::min((bh - note_h) / 3.4, cell_w * 1.2);
  // The mask's cells say "kept" and "drop" when the words fit, else 1 and 0.
  const bool words = PlacedTextWidth("drop", pt, true, false) < cell_w - 4 &&
                     PlacedTextWidth("kept", pt, false, false) < cell_w - 4;
  // The cells' text: as large as fits the narrowest cell, at least pt.
  double cell_pt = pt;
  for (double c = pt * 1.6; c >= pt; c -= 0.5) {
    bool fits = PlacedTextHeight(c, false) < cell_h * 0.8;
    for (size_t j = 0; j < m.kept.size() && fits; ++j) {
      fits = PlacedTextWidth(Short(m.before[j]), c, false, false) < cell_w - 4 &&
             PlacedTextWidth(Short(m.after[j]), c, false, false) < cell_w - 4 &&
             (!words || PlacedTextWidth("drop", c, true, false) < cell_w - 4);
    }
    if (fits) {
      cell_pt = c;
      break;
    }
  }
  const double clh = PlacedTextHeight(cell_pt, false);
  const double x0 = x + head_w + 10;
  for (int row = 0; row < 3; ++row) {
    const double y0 = y + static_cast<double>(row) * cell_h * 1.2;
    out.Line(heads[static_cast<size_t>(row)], x, y0 + (cell_h - lh) / 2, pt, true, false, kInk,
             "mask head");
    for (size_t j = 0; j < m.kept.size(); ++j) {
      const double cx = x0 + cell_w * static_cast<double>(j);
      const bool kept = m.kept[j] != 0;
      std::string text;
      std::string role = "number";
      if (row == 0) {
        text = Short(m.before[j]);
      } else if (row == 1) {
        text = words ? (kept ? "kept" : "drop") : (kept ? "1" : "0");
        role = kept ? "mask kept" : "mask dropped";
      } else {
        text = Short(m.after[j]);
      }
      const Rgba8 fill = row == 0 ? kPanel : kept ? kKept : kDropped;
      out.Rect(cx + 1, y0, cx + cell_w - 1, y0 + cell_h, fill, true,
               role == "number" ? "cell" : role);
      const double tw = PlacedTextWidth(text, cell_pt, row == 1 && !kept, false);
      out.Line(text, cx + (cell_w - tw) / 2, y0 + (cell_h - clh) / 2, cell_pt, row == 1 && !kept,
               false, row == 1 && !kept ? kGrey : kInk, row == 1 ? "mask label" : "number");
    }
  }
  const double ny = y + 3 * cell_h * 1.2 + 0.3 * pt;
  std::string note = m.caption + ": each kept value is multiplied by 1/(1 - p) = " + Full(m.scale) +
                     ", each dropped value becomes 0, so the expected sum is unchanged";
  if (m.full > static_cast<int64_t>(m.kept.size())) {
    note += "; the first " + std::to_string(m.kept.size()) + " of " + std::to_string(m.full) +
            " values";
  }
  note += ". In evaluation the mask is all kept and nothing is scaled.";
  out.Paras({{note, pt, false, false, kInk, "number"}}, x, ny, bw, 0);
}

// The tokens as boxes in rows, each with its note (the id) under it; the followed one bolder.
// Returns the height taken at `cpt`, placing only when `place`.
double PlaceChips(Placer* out, const std::vector<WalkChip>& chips, double x, double y, double bw,
                  double cpt) {
  const double pad = cpt * 0.45, gap = cpt * 0.5;
  const double npt = std::max(kWalkNumbersPt, cpt * 0.7);
  const double th = PlacedTextHeight(cpt, false), nh = PlacedTextHeight(npt, false);
  bool notes = false;
  for (const WalkChip& c : chips) notes = notes || !c.note.empty();
  const double row_h = th + 2 * pad + (notes ? nh + pad : 0) + gap;
  double cx = x, cy = y;
  for (const WalkChip& c : chips) {
    const double tw = PlacedTextWidth(c.text, cpt, false, false);
    const double nw = c.note.empty() ? 0 : PlacedTextWidth(c.note, npt, false, false);
    const double w = std::max(tw, nw) + 2 * pad;
    if (cx > x && cx + w > x + bw) {
      cx = x;
      cy += row_h;
    }
    if (out != nullptr) {
      out->Rect(cx, cy, cx + w, cy + th + 2 * pad, kPanel, true, "chip");
      out->Rect(cx, cy, cx + w, cy + th + 2 * pad, c.focus ? kCodeBlue : kGrey, false, "chip",
                c.focus ? 2.5 : 1.0);
      out->Line(c.text, cx + (w - tw) / 2, cy + pad, cpt, c.focus, false, kInk, "token");
      if (!c.note.empty()) {
        out->Line(c.note, cx + (w - nw) / 2, cy + th + 2 * pad + pad * 0.5, npt, false, false, kInk,
                  "number");
      }
    }
    cx += w + gap;
  }
  return cy + row_h - gap - y;
}

}  // namespace

Figure WalkPageFigure(const Walkthrough& w, int step, ColormapId colormap, const FigureSize& size) {
  Figure f;
  f.title = w.title;
  f.plot = false;
  const WalkPage& p = w.pages[static_cast<size_t>(step)];
  const auto k = static_cast<size_t>(step);
  const std::vector<WalkMatrix> no_matrices;
  const std::vector<WalkBar> no_bars;
  const std::vector<WalkMatrix>& ms = k < w.matrices.size() ? w.matrices[k] : no_matrices;
  const std::vector<WalkBar>& bars = k < w.bars.size() ? w.bars[k] : no_bars;
  Picture picture = Picture::kNone;
  if (!bars.empty()) {
    picture = Picture::kBars;
  } else if (!p.mask.kept.empty()) {
    picture = Picture::kMask;
  } else if (!ms.empty() && ms.front().values.rows > 0 && ms.front().values.cols > 0) {
    picture = Picture::kMatrix;
  } else if (!p.chips.empty()) {
    picture = Picture::kChips;
  }
  Placer out{f};
  const double W = size.width, H = size.height;
  const double u = std::clamp(std::min(W / 960.0, H / 540.0), 0.5, 4.0);
  const double margin = 24 * u;
  const double width = W - 2 * margin;
  const double lo = kWalkNumbersPt;
  // The sources the page names, at its foot.
  std::vector<Para> foot;
  {
    std::string all = Lower(p.code + " " + p.explanation + " " + p.formula);
    for (const std::string& line : p.numbers) all += " " + Lower(line);
    std::string cited;
    for (const WalkSource& s : w.sources) {
      if (all.find(Lower(s.key)) == std::string::npos) continue;
      cited += (cited.empty() ? "Sources: " : "; ") + s.citation;
    }
    if (!cited.empty())
      foot.push_back({cited + ".", std::max(lo, 10 * u), false, false, kGrey, "source"});
  }
  const double foot_h = foot.empty() ? 0 : ParasHeight(foot, width, 0);
  // The head: the page's title, its sentence and formula across the page.
  const double title_pt = LargestFitting(lo, 22 * u, [&](double pt) {
    return ParasHeight({{p.title, pt, true, false, kInk, "title"}}, width, 0) <= 2.3 * pt * 1.2;
  });
  double y = margin * 0.8;
  y = out.Paras({{p.title, title_pt, true, false, kInk, "title"}}, margin, y, width, 0);
  y += 0.35 * title_pt;
  const double bottom = H - margin * 0.7 - (foot.empty() ? 0 : foot_h + 0.5 * foot.front().pt);
  const double room = bottom - y;
  // The column: the numbers, the code line and the window's note.
  auto column = [&](double pt) {
    std::vector<Para> c;
    for (const std::string& line : p.numbers) c.push_back({line, pt, false, false, kInk, "number"});
    c.push_back({p.code, pt, false, false, kCodeBlue, "code"});
    c.push_back({"In the window: " + p.highlight_text, pt, false, false, kGrey, "note"});
    return c;
  };
  auto head = [&](double pt) {
    return std::vector<Para>{{p.explanation, pt * 1.1, false, false, kInk, "body"},
                             {p.formula, pt * 1.1, false, false, kInk, "formula"}};
  };
  // Side pictures take the right part; the others go under the text.
  const bool side = picture == Picture::kMatrix || picture == Picture::kBars;
  const double side_share = picture == Picture::kBars ? 0.5 : 0.46;
  const double col_w = side ? width * (1 - side_share) - 12 * u : width;
  double min_pic = 0;
  if (picture == Picture::kMask) min_pic = room * 0.42;
  if (picture == Picture::kChips) min_pic = room * 0.25;
  // The text size: the largest at which the head and the column fit over the least picture;
  // under a picture or alone, the column flows into two when one does not hold it at the
  // least size.
  const double col_gap = 20 * u;
  const double col_limit = bottom - min_pic;
  int ncols = 1;
  double flow_w = col_w;
  auto fits = [&](double s) {
    const double hh = ParasHeight(head(s), width, 0.35) + 0.8 * s;
    return Flow(nullptr, column(s), margin, y + hh, flow_w, ncols, col_gap, col_limit, 0.45) <=
           col_limit;
  };
  const double hi = (picture == Picture::kNone ? 24 : 17) * u;
  double pt = LargestFitting(lo, hi, fits);
  if (!side && !fits(pt)) {
    ncols = 2;
    flow_w = (width - col_gap) / 2;
    pt = LargestFitting(lo, hi, fits);
  }
  const bool fitted = fits(pt);
  y = out.Paras(head(pt), margin, y, width, 0.35);
  y += 0.8 * pt;
  const double col_top = y;
  // At the least size a column that still does not fit runs on (never cut) rather than
  // getting smaller.
  double limit = fitted ? col_limit : bottom;
  if (!std::isfinite(Flow(nullptr, column(pt), margin, y, flow_w, ncols, col_gap, limit, 0.45))) {
    limit = std::numeric_limits<double>::infinity();
  }
  double col_bottom = Flow(&out, column(pt), margin, y, flow_w, ncols, col_gap, limit, 0.45);
  if (!std::isfinite(col_bottom)) col_bottom = bottom - min_pic;
  const double pic_pt = std::max(lo, pt * 0.9);
  switch (picture) {
    case Picture::kMatrix:
      PlaceMatrix(out, w, ms.front(), colormap, margin + col_w + 12 * u, col_top,
                  width - col_w - 12 * u, bottom - col_top, pic_pt);
      break;
    case Picture::kBars:
      PlaceBars(out, bars, margin + col_w + 16 * u, col_top, width - col_w - 16 * u,
                bottom - col_top, pic_pt);
      break;
    case Picture::kMask:
      PlaceMask(out, p.mask, margin, col_bottom + 0.8 * pt, width, bottom - col_bottom - 0.8 * pt,
                pic_pt);
      break;
    case Picture::kChips: {
      const double top = col_bottom + 1.0 * pt, avail = bottom - top;
      const double cpt = LargestFitting(lo, 56 * u, [&](double c) {
        return PlaceChips(nullptr, p.chips, margin, top, width, c) <= avail;
      });
      const double h = PlaceChips(nullptr, p.chips, margin, top, width, cpt);
      PlaceChips(&out, p.chips, margin, top + std::max(0.0, (avail - h) / 2), width, cpt);
      break;
    }
    case Picture::kNone:
      break;
  }
  if (!foot.empty()) out.Paras(foot, margin, H - margin * 0.7 - foot_h, width, 0);
  return f;
}

Result<Figure> WalkthroughFigure(const ViewContext& c) {
  const int step = c.sel.walkthrough_step;
  const auto steps = static_cast<int>(WalkStepsOf(c.params.walkthrough).size());
  if (step < 0 || step >= steps) {
    return InvalidArgument(
        "the walkthrough is a handout of " + std::to_string(steps) +
        " pages, one per step: write it as .pdf (a .png or .svg holds one step, which the "
        "window's walkthrough panel exports)");
  }
  Result<Walkthrough> w = Build(c);
  if (!w.ok()) return w.error();
  // One step alone is titled by its step; the handout's pages by the document.
  Figure f = WalkPageFigure(w.value(), step, c.params.colormap, c.size);
  f.title = w.value().pages[static_cast<size_t>(step)].title;
  return f;
}

Result<std::vector<Figure>> WalkthroughPages(const ViewContext& c) {
  Result<Walkthrough> w = Build(c);
  if (!w.ok()) return w.error();
  std::vector<Figure> pages;
  for (int k = 0; k < static_cast<int>(w.value().pages.size()); ++k) {
    pages.push_back(WalkPageFigure(w.value(), k, c.params.colormap, c.size));
  }
  return pages;
}

Status CheckWalkthroughTable(const ViewContext& c) {
  return Build(c).status();
}

Status WriteWalkthroughView(std::ostream& out, TableFormat format, const ViewContext& c,
                            const Progress& progress) {
  if (c.params.walkthrough == WalkthroughKind::kAttention) {
    return InvalidArgument(
        "the attention walkthrough has no table of its own: its numbers are the score view's "
        "(--view score, --view attention) and its pages a PDF (-o FILE.pdf)");
  }
  Result<Walkthrough> w = Build(c);
  if (!w.ok()) return w.error();
  SentenceResult s;
  for (const std::string& label : w.value().token_labels) s.tokens.push_back({label, 0, 0, {}});
  s.ids = w.value().ids;
  s.parts = w.value().parts;
  return WriteSumTable(out, format, s, c.params.pe, progress);
}

// Until its own estimate: an image at screen resolution and a few curves.
uint64_t WalkthroughEstimate(const EstimateContext& c) {
  const uint64_t w = EstimatedScreenTexels(c.width_px), h = EstimatedScreenTexels(c.height_px);
  return 3 * kFigureBytesPerTexel * w * h +
         kFigureBytesPerCurveSample * EstimatedCurveSamples(c.width_px) * 8;
}

// The preset (every walkthrough figure records it) and the step a PNG or SVG shows.
void WalkthroughMetadata(const ModelParams& m, const ViewSelection& sel, MetadataList& out) {
  if (!m.walkthrough_preset.empty()) out.push_back({"walkthrough_preset", m.walkthrough_preset});

  if (sel.walkthrough_step >= 0) {
    out.push_back({"walkthrough_step", std::to_string(sel.walkthrough_step)});
  }
}

}  // namespace pe
