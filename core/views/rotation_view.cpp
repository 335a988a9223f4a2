// The rotation view: a query's pairs as 2-D arrows, turned by R_p for the chosen position.
//
// RoPE (Su et al. 2021, section 3.4) turns pair i of a query, the dims (a, b) of the pairing, by
// the angle p * theta_i, and HF's cos and sin tables carry YaRN's attention factor s:
//   r_a = s (q_a cos(p theta_i) - q_b sin(p theta_i))
//   r_b = s (q_a sin(p theta_i) + q_b cos(p theta_i))
// which is HF's apply_rotary_pos_emb, q * cos + rotate_half(q) * sin, for the half pairing, and
// the same 2-D rotation on dims (2i, 2i + 1) for the interleaved one.
//
// The figure draws up to 8 pairs, one panel each, in a grid: a unit circle, the pair of q scaled
// to length 1 (grey arrow), the rotated pair at length s (coloured arrow) and the arc its tip
// sweeps over positions first..p (the whole circle once it has turned a full turn). Panels are
// laid out so the circles are as large as the plot area allows, and the view is set so one unit
// of x and one of y take the same length on the page: circles are round at any figure size.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "base/random.h"
#include "io/file_writers.h"
#include "views/figure_export.h"
#include "views/rope_views.h"
#include "views/view_builders.h"

namespace pe {

Result<int64_t> RotationPosition(const ViewSelection& sel, const EncodingParams& params) {
  const int64_t first = params.offset;
  const int64_t last = params.offset + params.max_len - 1;
  if (sel.rotation_position == -1) return std::min(first + 10, last);
  if (sel.rotation_position < first || sel.rotation_position > last) {
    return InvalidArgument("the rotation position must be in [" + std::to_string(first) + ", " +
                           std::to_string(last) + "] (the table's positions), got " +
                           std::to_string(sel.rotation_position));
  }
  return sel.rotation_position;
}

uint64_t RotationQueryStream(uint64_t seed) {
  return RandomBits(seed ^ 0x7175657279ull /* "query" */, 0);
}

PairDims RopePairDims(RopePairing pairing, int64_t d_rot, int64_t pair) {
  if (pairing == RopePairing::kInterleaved) return {2 * pair, 2 * pair + 1};
  return {pair, pair + d_rot / 2};
}

std::vector<RotationRow> RotationRows(const EncodingParams& params, const RopeFrequencies& f,
                                      uint64_t seed, int64_t p) {
  const uint64_t stream = RotationQueryStream(seed);
  const double s = f.attention_factor;
  std::vector<RotationRow> rows;
  rows.reserve(f.pairs.size());
  for (const RopePair& pair : f.pairs) {
    RotationRow r;
    r.pair = pair.index;
    r.dims = RopePairDims(params.rope().pairing, f.d_rot, pair.index);
    r.theta = pair.scaled;
    r.q_a = RandomNormal(stream, static_cast<uint64_t>(r.dims.a));
    r.q_b = RandomNormal(stream, static_cast<uint64_t>(r.dims.b));
    const double angle = static_cast<double>(p) * pair.scaled;
    const double c = std::cos(angle), sn = std::sin(angle);
    r.r_a = s * (r.q_a * c - r.q_b * sn);
    r.r_b = s * (r.q_a * sn + r.q_b * c);
    rows.push_back(r);
  }
  return rows;
}

std::vector<int64_t> ShownRotationPairs(int64_t half, int64_t max_shown) {
  std::vector<int64_t> out;
  if (half <= max_shown) {
    for (int64_t i = 0; i < half; ++i) out.push_back(i);
    return out;
  }
  // Pair k of the shown ones is round(k (half - 1) / (max_shown - 1)): 0 and half - 1 included,
  // distinct because the step is more than 1.
  for (int64_t k = 0; k < max_shown; ++k) {
    out.push_back(static_cast<int64_t>(
        std::llround(static_cast<double>(k) * static_cast<double>(half - 1) /
                     static_cast<double>(max_shown - 1))));
  }
  return out;
}

namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// The pair colours: the six series colours that read on white, then a purple and a near-black
// (SeriesRgba's yellow and grey would vanish on white or read as q's grey arrow).
Rgba8 PairColor(size_t k) {
  if (k < 6) return SeriesRgba(static_cast<int>(k));
  return k == 6 ? Rgba8{120, 70, 170, 255} : Rgba8{40, 40, 45, 255};
}

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// "0.90 turns", or "1.6e-05 turns" for turns too small for two decimals.
std::string Turns(double radians) {
  const double t = radians / kTwoPi;
  return (std::abs(t) >= 0.01 || t == 0 ? Fmt("%.2f", t) : Fmt("%.2g", t)) + " turns";
}

// An arrow from (x0, y0) to (x1, y1) as one polyline: shaft, then a head of two short strokes
// `head` long at +-150 degrees from the shaft's direction, drawn from the tip and back.
FigureSeries Arrow(double x0, double y0, double x1, double y1, double head, Rgba8 color,
                   double width) {
  FigureSeries s;
  s.color = color;
  s.line_width = width;
  const double dir = std::atan2(y1 - y0, x1 - x0);
  const double spread = 150.0 * std::numbers::pi / 180.0;
  s.xs = {x0, x1, x1 + head * std::cos(dir + spread), x1, x1 + head * std::cos(dir - spread)};
  s.ys = {y0, y1, y1 + head * std::sin(dir + spread), y1, y1 + head * std::sin(dir - spread)};
  return s;
}

// A circular arc of radius r about (cx, cy) from angle a0 to a1 (radians, either direction),
// about one vertex per 2 degrees.
FigureSeries Arc(double cx, double cy, double r, double a0, double a1, Rgba8 color,
                 double width) {
  FigureSeries s;
  s.color = color;
  s.line_width = width;
  const int n = std::clamp(static_cast<int>(std::ceil(std::abs(a1 - a0) / kTwoPi * 180.0)), 1,
                           180) + 1;
  for (int k = 0; k < n; ++k) {
    const double a = a0 + (a1 - a0) * k / (n - 1);
    s.xs.push_back(cx + r * std::cos(a));
    s.ys.push_back(cy + r * std::sin(a));
  }
  return s;
}

struct Grid {
  int cols = 1, rows = 1;
};

// The columns and rows of `n` panels, each `cell` units square, that give the largest panels
// in a plot area of `box` (more columns on a tie, so the panels read left to right).
Grid BestGrid(int n, double cell, const PlotBox& box) {
  Grid best;
  double best_unit = -1;
  for (int cols = n; cols >= 1; --cols) {
    const int rows = (n + cols - 1) / cols;
    const double unit = std::min(box.w / (cols * cell), box.h / (rows * cell));
    if (unit > best_unit * 1.0001) {
      best_unit = unit;
      best = {cols, rows};
    }
  }
  return best;
}

}  // namespace

Result<Figure> RotationFigure(const ViewContext& c) {
  const EncodingParams& params = c.params.pe;
  Result<int64_t> position = RotationPosition(c.sel, params);
  if (!position.ok()) return position.error();
  const int64_t p = position.value();
  const RopeParams& rope = params.rope();
  const RopeFrequencies freqs = ComputeRopeFrequencies(params);
  const std::vector<RotationRow> rows = RotationRows(params, freqs, c.params.example.seed, p);
  const std::vector<int64_t> shown = ShownRotationPairs(static_cast<int64_t>(rows.size()));
  const double s = freqs.attention_factor;
  const int64_t first = params.offset;
  const bool scaled = rope.scaling != RopeScaling::kNone;

  Figure f;
  f.title = "A query q turned to position p = " + std::to_string(p) + " by RoPE (" +
            std::string(RopePairingName(rope.pairing)) + " pairs, theta " +
            Fmt("%.10g", rope.theta) +
            (scaled ? ", " + std::string(RopeScalingName(rope.scaling)) + " x" +
                          Fmt("%.10g", rope.factor)
                    : std::string()) +
            ", head dim " + std::to_string(params.d_model) + ")";
  // Each panel is centred on its own point of the layout: the ticks are placed per panel and
  // labelled with the pair's own coordinates (-1, 0, 1: the unit circle), not the layout's.
  f.x = {"each panel: one pair, dim_a across, dim_b up (unit circle)", false, false, false};
  f.y = {"", false, false, false};
  const Rgba8 grey{150, 150, 155, 255}, note{255, 255, 255, 0};
  f.legend.push_back({"grey: q's pair, scaled to length 1", grey});
  // (Legend lines break after ", ": each piece stays narrower than the legend.)
  f.legend.push_back({"coloured: R_p q at p = " + std::to_string(p) +
                          ", thin arc: its tip's path from the dot, over positions " +
                          std::to_string(first) + ".." + std::to_string(p),
                      note});
  if (s != 1.0) {
    f.legend.push_back({"coloured length / grey length = " + Fmt("%.4g", s) + ", " +
                            (rope.scaling == RopeScaling::kYarn ? "YaRN's " : "the ") +
                            "attention factor",
                        note});
  }
  for (size_t k = 0; k < shown.size(); ++k) {
    const RotationRow& r = rows[static_cast<size_t>(shown[k])];
    const double turned = static_cast<double>(p) * r.theta;
    std::string label = "pair " + std::to_string(r.pair) + " dims (" + std::to_string(r.dims.a) +
                        ", " + std::to_string(r.dims.b) + "): \xce\xb8=" + Fmt("%.4g", r.theta) +
                        ", turned p\xce\xb8 = " + Fmt("%.4g", turned) + " rad (" +
                        Turns(turned) + ")";
    if (scaled) {
      label += ", " + std::string(PairTreatmentName(
                          freqs.pairs[static_cast<size_t>(shown[k])].treatment));
    }
    f.legend.push_back({label, PairColor(k)});
  }

  // The layout: cells of 2R + 1 units, R the longer arrow; the grid and the view fitted to the
  // plot area with equal units on x and y. The plot area depends a little on the view (the
  // width of the y tick labels), so the fit is done twice.
  const double radius = std::max(1.0, s);
  const double cell = 2.0 * radius + 1.0;
  const int n = static_cast<int>(shown.size());
  f.equal_aspect = true;
  f.view = {-cell / 2, cell / 2, -cell / 2, cell / 2};
  Grid grid;
  // Each panel's -1, 0, 1 on both axes (they take part in the fit: their labels' width moves
  // the plot area).
  auto set_ticks = [&](const Grid& g) {
    f.x.ticks.clear();
    f.y.ticks.clear();
    for (int col = 0; col < std::min(n, g.cols); ++col) {
      for (int v : {-1, 0, 1}) f.x.ticks.push_back({col * cell + v, std::to_string(v)});
    }
    for (int row = 0; row < g.rows; ++row) {
      for (int v : {-1, 0, 1}) f.y.ticks.push_back({-row * cell + v, std::to_string(v)});
    }
  };
  for (int pass = 0; pass < 3; ++pass) {
    const PlotBox box = FigurePlotBox(f, c.size);
    grid = BestGrid(n, cell, box);
    set_ticks(grid);
    const double unit = std::min(box.w / (grid.cols * cell), box.h / (grid.rows * cell));
    const double cx = (grid.cols - 1) * cell / 2, cy = -(grid.rows - 1) * cell / 2;
    const double half_w = box.w / unit / 2, half_h = box.h / unit / 2;
    f.view = {cx - half_w, cx + half_w, cy - half_h, cy + half_h};
  }

  const double head = 0.14 * radius;
  for (int k = 0; k < n; ++k) {
    const RotationRow& r = rows[static_cast<size_t>(shown[static_cast<size_t>(k)])];
    const double cx = (k % grid.cols) * cell, cy = -(k / grid.cols) * cell;
    const Rgba8 color = PairColor(static_cast<size_t>(k));
    f.series.push_back(Arc(cx, cy, 1.0, 0.0, kTwoPi, {205, 205, 210, 255}, 0.8));
    const double norm = std::hypot(r.q_a, r.q_b);
    if (norm == 0) continue;  // a zero pair has no direction to turn
    const double a0 = std::atan2(r.q_b, r.q_a);
    // The tip's arc over positions first..p at radius s; a full circle past one turn.
    const double from = a0 + static_cast<double>(first) * r.theta;
    const double to = a0 + static_cast<double>(p) * r.theta;
    Rgba8 faint = color;
    faint.a = 170;
    if (std::abs(to - from) >= kTwoPi) {
      f.series.push_back(Arc(cx, cy, s, 0.0, kTwoPi, faint, 1.0));
    } else if (to != from) {
      f.series.push_back(Arc(cx, cy, s, from, to, faint, 1.0));
    }
    FigureSeries start;
    start.color = faint;
    start.marker_xs = {cx + s * std::cos(from)};
    start.marker_ys = {cy + s * std::sin(from)};
    start.marker_radius = 2.0;
    f.series.push_back(std::move(start));
    f.series.push_back(
        Arrow(cx, cy, cx + r.q_a / norm, cy + r.q_b / norm, head, grey, 1.6));
    f.series.push_back(Arrow(cx, cy, cx + s * std::cos(to), cy + s * std::sin(to), head, color,
                             2.2));
  }
  return f;
}

Status CheckRotationTable(const ViewContext& c) {
  return RotationPosition(c.sel, c.params.pe).status();
}

Status WriteRotationView(std::ostream& out, TableFormat format, const ViewContext& c,
                         const Progress&) {
  const EncodingParams& params = c.params.pe;
  Result<int64_t> p = RotationPosition(c.sel, params);
  if (!p.ok()) return p.error();
  const RopeFrequencies freqs = ComputeRopeFrequencies(params);
  const std::vector<RotationRow> rows =
      RotationRows(params, freqs, c.params.example.seed, p.value());
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {static_cast<int64_t>(rows.size()), 8};
    out << NpyHeader(shape);
  } else {
    out << "pair,dim_a,dim_b,theta,q_a,q_b,r_a,r_b\n";
  }
  for (const RotationRow& r : rows) {
    const float v[8] = {static_cast<float>(r.pair),   static_cast<float>(r.dims.a),
                        static_cast<float>(r.dims.b), static_cast<float>(r.theta),
                        static_cast<float>(r.q_a),    static_cast<float>(r.q_b),
                        static_cast<float>(r.r_a),    static_cast<float>(r.r_b)};
    if (format == TableFormat::kNpy) {
      WriteFloatsLE(out, v, 8);
    } else {
      out << r.pair << ',' << r.dims.a << ',' << r.dims.b;
      for (int j = 3; j < 8; ++j) out << ',' << FormatFloat(v[j]);
      out << '\n';
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

}  // namespace pe
