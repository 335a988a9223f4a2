// The rotation view: pairs as 2-D arrows on circles, turned by a rotation. For RoPE a query's
// pairs turned by R_p for the chosen position; for the sinusoidal scheme PE(p)'s sin/cos pairs
// turned by R(K) to PE(p + K) (rope_views.h has the matrix for each wave order).
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
#include "views/figure_budget.h"
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
    out.push_back(
        static_cast<int64_t>(std::llround(static_cast<double>(k) * static_cast<double>(half - 1) /
                                          static_cast<double>(max_shown - 1))));
  }
  return out;
}

std::vector<SinusoidRotationRow> SinusoidRotationRows(const Encoding& encoding, int64_t p,
                                                      int64_t k) {
  // The sine and cosine column of each pair, from the encoding's waves (any layout and order).
  struct Columns {
    const WaveColumn* sin = nullptr;
    const WaveColumn* cos = nullptr;
  };
  const std::span<const WaveColumn> waves = encoding.waves();
  std::vector<Columns> by_pair;
  for (const WaveColumn& w : waves) {
    if (w.wave != Wave::kSin && w.wave != Wave::kCos) continue;
    const auto i = static_cast<size_t>(w.pair);
    if (by_pair.size() <= i) by_pair.resize(i + 1);
    (w.wave == Wave::kSin ? by_pair[i].sin : by_pair[i].cos) = &w;
  }
  std::vector<SinusoidRotationRow> rows;
  for (const Columns& pc : by_pair) {
    if (pc.sin == nullptr || pc.cos == nullptr) continue;
    const bool sin_first = pc.sin->dim < pc.cos->dim;
    const WaveColumn& a = sin_first ? *pc.sin : *pc.cos;
    const WaveColumn& b = sin_first ? *pc.cos : *pc.sin;
    SinusoidRotationRow r;
    r.pair = a.pair;
    r.dims = {a.dim, b.dim};
    r.sin_first = sin_first;
    r.frequency = a.frequency;
    r.angle = static_cast<double>(k) * a.frequency;
    r.c = std::cos(r.angle);
    r.s = std::sin(r.angle);
    r.pe_a = WaveValue(a, p);
    r.pe_b = WaveValue(b, p);
    // [[c, s], [-s, c]] on (sin, cos); [[c, -s], [s, c]] on (cos, sin).
    const double s = sin_first ? r.s : -r.s;
    r.r_a = r.c * r.pe_a + s * r.pe_b;
    r.r_b = -s * r.pe_a + r.c * r.pe_b;
    r.pe_k_a = WaveValue(a, p + k);
    r.pe_k_b = WaveValue(b, p + k);
    rows.push_back(r);
  }
  return rows;
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
FigureSeries Arc(double cx, double cy, double r, double a0, double a1, Rgba8 color, double width) {
  FigureSeries s;
  s.color = color;
  s.line_width = width;
  const int n =
      std::clamp(static_cast<int>(std::ceil(std::abs(a1 - a0) / kTwoPi * 180.0)), 1, 180) + 1;
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

// Lays `n` panels of `cell` units out in `f`'s plot area at `size`, the grid that gives the
// largest panels, and sets `f.view` so one unit of x and one of y take the same length. The
// plot area depends a little on the view (the width of the y tick labels), so the fit is done
// a few times. Panel k's centre is ((k % cols) cell, -(k / cols) cell).
Grid FitGrid(Figure& f, const FigureSize& size, int n, double cell) {
  f.equal_aspect = true;
  f.view = {-cell / 2, cell / 2, -cell / 2, cell / 2};
  Grid grid;
  // Each panel's -1, 0, 1 on both axes, in the data's units rather than the layout's (they take
  // part in the fit: their labels' width moves the plot area).
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
    const PlotBox box = FigurePlotBox(f, size);
    grid = BestGrid(n, cell, box);
    set_ticks(grid);
    const double unit = std::min(box.w / (grid.cols * cell), box.h / (grid.rows * cell));
    const double cx = (grid.cols - 1) * cell / 2, cy = -(grid.rows - 1) * cell / 2;
    const double half_w = box.w / unit / 2, half_h = box.h / unit / 2;
    f.view = {cx - half_w, cx + half_w, cy - half_h, cy + half_h};
  }
  return grid;
}

Result<Figure> RopeRotationFigure(const ViewContext& c) {
  const EncodingParams& params = c.params.pe;
  Result<int64_t> position = RotationPosition(c.sel, params);
  if (!position.ok()) return position.error();
  const int64_t p = position.value();
  const RopeParams& rope = params.rope();
  const RopeFrequencies& freqs = *c.encoding->frequencies();  // the view applies to rope alone
  const std::vector<RotationRow> rows = RotationRows(params, freqs, c.params.example.seed, p);
  const std::vector<int64_t> shown = ShownRotationPairs(static_cast<int64_t>(rows.size()));
  const double s = freqs.attention_factor;
  const int64_t first = params.offset;
  const bool scaled = rope.scaling != RopeScaling::kNone;

  Figure f;
  f.title =
      "A query q turned to position p = " + std::to_string(p) + " by RoPE (" +
      std::string(RopePairingName(rope.pairing)) + " pairs, theta " + Fmt("%.10g", rope.theta) +
      (rope.scaling == RopeScaling::kLongrope ? c.encoding->ScalingText()
       : scaled
           ? ", " + std::string(RopeScalingName(rope.scaling)) + " x" + Fmt("%.10g", rope.factor)
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
                        ", turned p\xce\xb8 = " + Fmt("%.4g", turned) + " rad (" + Turns(turned) +
                        ")";
    if (rope.scaling == RopeScaling::kLongrope) {
      // LongRoPE divides each pair by its own number of one list: which list, and the number.
      const std::vector<double>& list =
          freqs.longrope_uses_long ? rope.long_factor : rope.short_factor;
      const auto i = static_cast<size_t>(r.pair);
      if (i < list.size()) {
        label += std::string(", / ") + (freqs.longrope_uses_long ? "long" : "short") + "_factor " +
                 Fmt("%.6g", list[i]);
      }
    } else if (scaled) {
      label += ", " +
               std::string(PairTreatmentName(freqs.pairs[static_cast<size_t>(shown[k])].treatment));
    }
    f.legend.push_back({label, PairColor(k)});
  }

  // The layout: cells of 2R + 1 units, R the longer arrow; the grid and the view fitted to the
  // plot area with equal units on x and y.
  const double radius = std::max(1.0, s);
  const double cell = 2.0 * radius + 1.0;
  const int n = static_cast<int>(shown.size());
  const Grid grid = FitGrid(f, c.size, n, cell);

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
    f.series.push_back(Arrow(cx, cy, cx + r.q_a / norm, cy + r.q_b / norm, head, grey, 1.6));
    f.series.push_back(
        Arrow(cx, cy, cx + s * std::cos(to), cy + s * std::sin(to), head, color, 2.2));
  }
  return f;
}

Result<Figure> SinusoidRotationFigure(const ViewContext& c) {
  const EncodingParams& params = c.params.pe;
  Result<int64_t> position = RotationPosition(c.sel, params);
  if (!position.ok()) return position.error();
  const int64_t p = position.value();
  const int64_t k = c.params.rotation_offset;
  const SinusoidalParams& sp = params.sinusoidal();
  const std::vector<SinusoidRotationRow> rows = SinusoidRotationRows(*c.encoding, p, k);
  if (rows.empty()) {
    return InvalidArgument(
        "the rotation view needs a sine and a cosine of one frequency; d_model " +
        std::to_string(params.d_model) + " has none (use d_model >= 2)");
  }
  const std::vector<int64_t> shown = ShownRotationPairs(static_cast<int64_t>(rows.size()), 6);
  const bool sin_first = rows.front().sin_first;
  const std::string ks = std::to_string(k), ps = std::to_string(p);

  Figure f;
  f.title = "PE(p + K) = R(K) PE(p) per sin/cos pair, p = " + ps + ", K = " + ks + " (" +
            std::string(VariantName(sp.variant)) + (sin_first ? "" : " cos-first") + ", d_model " +
            std::to_string(params.d_model) + ", base " + Fmt("%.10g", sp.base) + ")";
  f.x = {"each panel: one pair, dim_a across, dim_b up (circle of radius |amplitude|)", false,
         false, true};
  f.y = {"", false, false, true};
  const Rgba8 grey{150, 150, 155, 255}, note{255, 255, 255, 0};
  // The matrix for this wave order (rope_views.h), as the numbers below use it. (Legend lines
  // break after ", ": each piece stays narrower than the legend.)
  f.legend.push_back(
      {sin_first ? "(dim_a, dim_b) = (sin p\xcf\x89, cos p\xcf\x89), R(K) = [cos K\xcf\x89  "
                   "sin K\xcf\x89; \xe2\x88\x92sin K\xcf\x89  cos K\xcf\x89], turning clockwise"
                 : "(dim_a, dim_b) = (cos p\xcf\x89, sin p\xcf\x89), R(K) = [cos K\xcf\x89  "
                   "\xe2\x88\x92sin K\xcf\x89; sin K\xcf\x89  cos K\xcf\x89], turning "
                   "counter-clockwise",
       note});
  f.legend.push_back({"grey: PE(p), p = " + ps + ", coloured: PE(p + K), p + K = " +
                          std::to_string(p + k) + ", arc: the turn K\xcf\x89",
                      grey});
  for (size_t j = 0; j < shown.size(); ++j) {
    const SinusoidRotationRow& r = rows[static_cast<size_t>(shown[j])];
    // R(K) row-major: [c s; -s c] or [c -s; s c].
    const double s01 = r.sin_first ? r.s : -r.s;
    const std::string label =
        "pair " + std::to_string(r.pair) + " dims (" + std::to_string(r.dims.a) + ", " +
        std::to_string(r.dims.b) + "): \xcf\x89=" + Fmt("%.4g", r.frequency) +
        ", K\xcf\x89=" + Fmt("%.4g", r.angle) + " rad = " + Turns(r.angle) + ", R = [" +
        Fmt("%.4g", r.c) + " " + Fmt("%.4g", s01) + "; " + Fmt("%.4g", -s01) + " " +
        Fmt("%.4g", r.c) + "], (" + Fmt("%.4g", r.pe_a) + " " + Fmt("%.4g", r.pe_b) +
        ") \xe2\x86\x92 (" + Fmt("%.4g", r.pe_k_a) + " " + Fmt("%.4g", r.pe_k_b) + ")";
    f.legend.push_back({label, PairColor(j)});
  }

  // Panels of 2 + 1 units: the circle has radius 1 in units of |amplitude|.
  const double cell = 3.0;
  const int n = static_cast<int>(shown.size());
  const Grid grid = FitGrid(f, c.size, n, cell);
  const double amp = std::abs(sp.output_scale);
  const double head = 0.14;
  for (int j = 0; j < n; ++j) {
    const SinusoidRotationRow& r = rows[static_cast<size_t>(shown[static_cast<size_t>(j)])];
    const double cx = (j % grid.cols) * cell, cy = -(j / grid.cols) * cell;
    const Rgba8 color = PairColor(static_cast<size_t>(j));
    f.series.push_back(Arc(cx, cy, 1.0, 0.0, kTwoPi, {205, 205, 210, 255}, 0.8));
    // The point's angle in the panel turns by -K w (sin first) or +K w (cos first).
    const double a0 = std::atan2(r.pe_b, r.pe_a);
    const double turn = r.sin_first ? -r.angle : r.angle;
    Rgba8 faint = color;
    faint.a = 170;
    if (std::abs(turn) >= kTwoPi) {
      f.series.push_back(Arc(cx, cy, 1.0, 0.0, kTwoPi, faint, 1.0));
    } else if (turn != 0) {
      f.series.push_back(Arc(cx, cy, 1.0, a0, a0 + turn, faint, 1.0));
    }
    f.series.push_back(Arrow(cx, cy, cx + r.pe_a / amp, cy + r.pe_b / amp, head, grey, 1.6));
    f.series.push_back(Arrow(cx, cy, cx + r.pe_k_a / amp, cy + r.pe_k_b / amp, head, color, 2.2));
  }
  return f;
}

}  // namespace

Result<Figure> RotationFigure(const ViewContext& c) {
  if (c.params.pe.kind() == Scheme::kSinusoidal) return SinusoidRotationFigure(c);
  return RopeRotationFigure(c);
}

Status CheckRotationTable(const ViewContext& c) {
  return RotationPosition(c.sel, c.params.pe).status();
}

Status WriteRotationView(std::ostream& out, TableFormat format, const ViewContext& c,
                         const Progress&) {
  const EncodingParams& params = c.params.pe;
  Result<int64_t> p = RotationPosition(c.sel, params);
  if (!p.ok()) return p.error();
  if (params.kind() == Scheme::kSinusoidal) {
    const std::vector<SinusoidRotationRow> rows =
        SinusoidRotationRows(*c.encoding, p.value(), c.params.rotation_offset);
    if (format == TableFormat::kNpy) {
      const int64_t shape[] = {static_cast<int64_t>(rows.size()), 11};
      out << NpyHeader(shape);
    } else {
      out << "pair,dim_a,dim_b,frequency,angle,pe_a,pe_b,r_a,r_b,pe_k_a,pe_k_b\n";
    }
    for (const SinusoidRotationRow& r : rows) {
      const float v[11] = {static_cast<float>(r.pair),   static_cast<float>(r.dims.a),
                           static_cast<float>(r.dims.b), static_cast<float>(r.frequency),
                           static_cast<float>(r.angle),  static_cast<float>(r.pe_a),
                           static_cast<float>(r.pe_b),   static_cast<float>(r.r_a),
                           static_cast<float>(r.r_b),    static_cast<float>(r.pe_k_a),
                           static_cast<float>(r.pe_k_b)};
      if (format == TableFormat::kNpy) {
        WriteFloatsLE(out, v, 11);
      } else {
        out << r.pair << ',' << r.dims.a << ',' << r.dims.b;
        for (int j = 3; j < 11; ++j) out << ',' << FormatFloat(v[j]);
        out << '\n';
      }
    }
    if (!out) return RuntimeError("writing the table failed");
    return {};
  }
  const RopeFrequencies& freqs = *c.encoding->frequencies();  // the view applies to rope alone
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

// As RotationFigure: at most 8 panels (RoPE; 6 for the sinusoidal pairs) of a circle and an arc
// (181 vertices each at most), two arrows (5 each) and a dot, about 380 line points a panel;
// the table of every pair (d / 2 rows of at most 13 doubles, RoPE's 8 or the sinusoidal 13) is
// built alongside.
uint64_t RotationEstimate(const EstimateContext& c) {
  const auto d = static_cast<uint64_t>(c.params.pe.d_model);
  return kFigureBytesPerCurveSample * 8 * 380 + 104 * d;
}

std::string RotationTitle(const ModelParams&, const Encoding& e) {
  return (e.scheme() == Scheme::kSinusoidal ? "PE(p + K) = R(K) PE(p), pair by pair ("
                                            : "A query rotated by position (") +
         e.Title() + ")";
}

void RotationMetadata(const ModelParams& m, const ViewSelection& sel, MetadataList& out) {
  AddPresetMetadata(m, out);
  Result<int64_t> p = RotationPosition(sel, m.pe);
  if (p.ok()) out.push_back({"rotation_position", std::to_string(p.value())});
}

}  // namespace pe
