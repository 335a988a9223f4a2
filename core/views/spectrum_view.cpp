// The spectrum view: the frequency w_i and wavelength 2 pi / w_i of every pair of a scheme made
// of waves (sinusoidal in every layout, RoPE with or without a scaling, xPos), on one log10
// axis, with the table length L marked and the pairs that complete a full turn within L
// (wavelength <= L, i.e. w_i >= 2 pi / L) coloured apart from those that turn less.
//
// The frequencies are the encoding's own: the sinusoidal ones from its wave columns (so t2t's
// w_i = min_timescale * (base / min_timescale)^(-i / (h - 1)) and tf-text's paper ladder in
// [sin | cos] halves are what the table holds, not the paper's formula), RoPE's from rope.h
// before and after its scaling (Encoding::frequencies(), the numbers of the frequencies view),
// xPos's rotation frequencies theta^(-2i/d) from its waves.
//
// Table, one row per pair:
//   sinusoidal, xpos (pairs, 4): pair, frequency, wavelength, full_turn
//   rope (d_rot / 2, 7): pair, frequency, wavelength, scaled_frequency, scaled_wavelength,
//                        full_turn, scaled_full_turn (frequency is the unscaled theta^(-2i/d_rot))
// full_turn is 1 when the wavelength is at most L = max_len, else 0.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "encoding/positional_encoding.h"
#include "io/file_writers.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/pair_plot.h"
#include "views/rope_views.h"
#include "views/view_builders.h"

namespace pe {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// "%.4g" for the legend's numbers, "%.10g" for parameters (a base of 10000, not 1e+04).
std::string Num(double v, const char* format = "%.4g") {
  char buf[40];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

struct SpectrumPair {
  int64_t pair = 0;
  double frequency = 0;  // radians per position; RoPE: before its scaling
  double scaled = 0;     // RoPE: after its scaling; others: = frequency
};

struct Spectrum {
  bool rope = false;
  bool scaled = false;  // RoPE with a scaling: the figure shows before and after
  std::vector<SpectrumPair> pairs;
  std::string what;     // "sinusoidal paper, d 128, base 10000" for the title
  std::string formula;  // "base^(-2i/d)" for the legend
};

Spectrum ComputeSpectrum(const ViewContext& c) {
  const EncodingParams& params = c.params.pe;
  Spectrum s;
  if (const RopeFrequencies* scaled = c.encoding->frequencies()) {
    // A scheme with a scaling (RoPE): its frequencies before and after it.
    const RopeParams& r = params.rope();
    const RopeFrequencies& f = *scaled;
    s.rope = true;
    s.scaled = r.scaling != RopeScaling::kNone;
    for (const RopePair& p : f.pairs) s.pairs.push_back({p.index, p.original, p.scaled});
    s.what = "rope, d_rot " + std::to_string(f.d_rot) + ", theta " + Num(r.theta, "%.10g");
    if (r.scaling == RopeScaling::kLongrope) {
      s.what += c.encoding->ScalingText();  // the list in use, not a factor
    } else if (s.scaled) {
      s.what += ", " + std::string(RopeScalingName(r.scaling)) + " x" + Num(r.factor, "%.10g");
    }
    s.formula = "theta^(-2i/d_rot)";
    return s;
  }
  // Sinusoidal and xPos: one frequency per pair index of the wave columns (t2t's zero column of
  // odd d has none; the paper's and tf-text's odd last sine is a pair of its own).
  for (const WaveColumn& w : c.encoding->waves()) {
    if (w.wave == Wave::kZero) continue;
    const auto i = static_cast<size_t>(w.pair);
    if (s.pairs.size() <= i) s.pairs.resize(i + 1);
    s.pairs[i] = {w.pair, w.frequency, w.frequency};
  }
  if (const auto* xpos = std::get_if<XposParams>(&params.scheme)) {
    s.what =
        "xpos, head dim " + std::to_string(params.d_model) + ", theta " + Num(xpos->theta, "%.10g");
    s.formula = "theta^(-2i/d)";
  } else {
    const SinusoidalParams& p = params.sinusoidal();
    s.what = "sinusoidal " + std::string(VariantName(p.variant)) + ", d " +
             std::to_string(params.d_model) + ", base " + Num(p.base, "%.10g");
    const bool min = p.min_timescale != 1.0;
    if (min) s.what += ", min timescale " + Num(p.min_timescale, "%.10g");
    const std::string exponent = p.variant == PeVariant::kT2t ? "-i/(h-1)" : "-2i/d";
    s.formula = min ? "min\xc2\xb7(base/min)^(" + exponent + ")" : "base^(" + exponent + ")";
  }
  return s;
}

// The sequence length L of the view: the table's rows.
double Length(const ViewContext& c) {
  return static_cast<double>(c.params.pe.max_len);
}

bool FullTurn(double frequency, double length) {
  return kTwoPi / frequency <= length;
}

}  // namespace

Result<Figure> SpectrumFigure(const ViewContext& c) {
  const Spectrum s = ComputeSpectrum(c);
  const double length = Length(c);
  const auto n = static_cast<int64_t>(s.pairs.size());
  const Rgba8 grey{150, 150, 155, 255}, wave_color = SeriesRgba(5), freq_color = SeriesRgba(3),
                                        ref_color{70, 70, 75, 255},
                                        boundary_color{170, 170, 175, 255};
  const Rgba8 category_colors[2] = {SeriesRgba(1) /* less than a turn */,
                                    SeriesRgba(2) /* a full turn */};

  Figure f;
  f.title = "Spectrum: \xcf\x89_i and \xce\xbb_i = 2\xcf\x80/\xcf\x89_i per pair (" + s.what +
            ", L " + std::to_string(c.params.pe.max_len) + ")";
  f.x = {"pair i", false, false, true};
  f.y = {"log10: wavelength (positions) above, frequency (rad/position) below", false, false};
  const double x0 = -0.5, x1 = static_cast<double>(n) - 0.5;

  // Which pairs turn fully within L, after the scaling for RoPE (the frequencies the model
  // uses), and before it.
  std::vector<int> full(s.pairs.size());
  int64_t full_count = 0, full_before = 0;
  for (size_t k = 0; k < s.pairs.size(); ++k) {
    full[k] = FullTurn(s.pairs[k].scaled, length) ? 1 : 0;
    full_count += full[k];
    full_before += FullTurn(s.pairs[k].frequency, length) ? 1 : 0;
  }
  // A single boundary when the full-turn pairs are a prefix (true of every ladder here).
  const bool prefix = std::is_sorted(full.begin(), full.end(), std::greater<int>());

  const std::string after = s.scaled ? " (scaled)" : "";
  // (Legend lines break after ", ": each piece stays short.) Each names its colour as drawn: the
  // lines are blue and pink, the dots on them green and orange by category.
  f.legend.push_back(
      {"wavelength \xce\xbb_i = 2\xcf\x80/\xcf\x89_i" + after + ", in positions, upper line (blue)",
       wave_color});
  f.legend.push_back({"frequency \xcf\x89_i" + after +
                          ", in radians per position, lower line (pink), " +
                          (s.scaled ? std::string(RopeScalingName(c.params.pe.rope().scaling)) +
                                          " scaling of " + s.formula
                                    : "\xcf\x89_i = " + s.formula),
                      freq_color});
  if (s.scaled) {
    f.legend.push_back({"grey: before the scaling, \xcf\x89_i = " + s.formula + ", " +
                            std::to_string(full_before) + " of " + std::to_string(n) +
                            " pairs turn fully within L",
                        grey});
  }
  const std::string of = " of " + std::to_string(n) + (n == 1 ? " pair" : " pairs");
  f.legend.push_back({"green dots: a full turn within L (\xce\xbb_i \xe2\x89\xa4 L): " +
                          std::to_string(full_count) + of,
                      category_colors[1]});
  f.legend.push_back(
      {"orange dots: less than one turn within L: " + std::to_string(n - full_count) + of,
       category_colors[0]});
  const double log_l = std::log10(length), log_w = std::log10(kTwoPi / length);
  f.legend.push_back({"L = " + std::to_string(c.params.pe.max_len) +
                          " positions (--max-len), on the wavelength scale, "
                          "\xcf\x89 = 2\xcf\x80/L = " +
                          Num(kTwoPi / length) + " on the frequency scale",
                      ref_color});

  // Proportional RoPE's still pairs (frequency 0: no finite logarithm) are marked along the top
  // (wavelength infinite) and bottom (frequency 0) edges instead of on the lines.
  int64_t still_first = n, still_count = 0;
  for (const SpectrumPair& p : s.pairs) {
    if (p.scaled > 0.0) continue;
    still_first = std::min(still_first, p.pair);
    ++still_count;
  }
  const Rgba8 still_color{110, 110, 115, 255};
  if (still_count > 0) {
    f.legend.push_back(
        {"frequency 0 (never turns, wavelength infinite): " + std::to_string(still_count) + of +
             " from pair " + std::to_string(still_first) + ", along the top and bottom edges",
         still_color});
  }

  // y: every finite value and both reference lines, with 6% room.
  double lo = std::min(log_l, log_w), hi = std::max(log_l, log_w);
  for (const SpectrumPair& p : s.pairs) {
    for (double w : {p.frequency, p.scaled}) {
      if (!(w > 0.0)) continue;
      lo = std::min({lo, std::log10(w), std::log10(kTwoPi / w)});
      hi = std::max({hi, std::log10(w), std::log10(kTwoPi / w)});
    }
  }
  const double pad = std::max(0.05, (hi - lo) * 0.06);
  f.view = {x0, x1, lo - pad, hi + pad};

  f.series.push_back(HorizontalLine(log_l, x0, x1, ref_color));
  f.series.push_back(HorizontalLine(log_w, x0, x1, ref_color));
  if (prefix && full_count > 0 && full_count < n) {
    f.series.push_back(
        VerticalLine(static_cast<double>(full_count) - 0.5, f.view.y0, f.view.y1, boundary_color));
  }

  const double dot = PairDotRadius(f, c.size, x0, x1);
  // The lines: wavelength above, frequency below; before the scaling in grey under them.
  FigureSeries wave_line, freq_line, wave_before, freq_before;
  wave_line.color = wave_color;
  freq_line.color = freq_color;
  wave_line.line_width = freq_line.line_width = 1.6;
  wave_before.color = freq_before.color = grey;
  wave_before.line_width = freq_before.line_width = 1.4;
  FigureSeries still;
  still.color = still_color;
  still.line_width = 3.0;
  std::vector<int> full_on_line;  // `full` of the pairs on the lines
  for (size_t k = 0; k < s.pairs.size(); ++k) {
    const SpectrumPair& p = s.pairs[k];
    const auto x = static_cast<double>(p.pair);
    if (!(p.scaled > 0.0)) {
      for (double y : {f.view.y1 - pad * 0.5, f.view.y0 + pad * 0.5}) {
        still.marker_xs.push_back(x);
        still.marker_ys.push_back(y);
      }
      continue;
    }
    full_on_line.push_back(full[k]);
    wave_line.xs.push_back(x);
    wave_line.ys.push_back(std::log10(kTwoPi / p.scaled));
    freq_line.xs.push_back(x);
    freq_line.ys.push_back(std::log10(p.scaled));
    wave_before.xs.push_back(x);
    wave_before.ys.push_back(std::log10(kTwoPi / p.frequency));
    freq_before.xs.push_back(x);
    freq_before.ys.push_back(std::log10(p.frequency));
  }
  if (s.scaled) {
    for (FigureSeries* before : {&wave_before, &freq_before}) {
      if (dot > 0) {
        before->marker_xs = before->xs;
        before->marker_ys = before->ys;
        before->marker_radius = dot * 0.6;
      }
      f.series.push_back(*before);
    }
  }
  f.series.push_back(wave_line);
  f.series.push_back(freq_line);
  if (dot > 0) {
    // A dot per pair in its category's colour, on both lines.
    FigureSeries dots[2];
    for (int k = 0; k < 2; ++k) {
      dots[k].color = category_colors[k];
      dots[k].marker_radius = dot * 0.75;  // the line shows between the dots
    }
    for (size_t k = 0; k < full_on_line.size(); ++k) {
      for (const FigureSeries* line : {&wave_line, &freq_line}) {
        dots[full_on_line[k]].marker_xs.push_back(line->xs[k]);
        dots[full_on_line[k]].marker_ys.push_back(line->ys[k]);
      }
    }
    for (FigureSeries& d : dots) {
      if (!d.marker_xs.empty()) f.series.push_back(std::move(d));
    }
  } else {
    // Pairs too dense for dots: the category colours the lines themselves.
    for (const FigureSeries* line : {&wave_line, &freq_line}) {
      for (FigureSeries& run :
           CategoryRuns(line->xs, line->ys, full_on_line, category_colors, 3.0)) {
        f.series.push_back(std::move(run));
      }
    }
  }
  if (!still.marker_xs.empty()) {
    // A dot per still pair where they fit, else a thick stroke along each edge.
    if (dot > 0) {
      still.marker_radius = dot * 0.75;
    } else {
      for (double y : {f.view.y1 - pad * 0.5, f.view.y0 + pad * 0.5}) {
        f.series.push_back(
            HorizontalLine(y, static_cast<double>(still_first) - 0.5, x1, still_color));
        f.series.back().line_width = 3.0;
      }
      still.marker_xs.clear();
      still.marker_ys.clear();
    }
    if (!still.marker_xs.empty()) f.series.push_back(std::move(still));
  }
  return f;
}

Status CheckSpectrumTable(const ViewContext&) {
  return {};
}

Status WriteSpectrumView(std::ostream& out, TableFormat format, const ViewContext& c,
                         const Progress&) {
  const Spectrum s = ComputeSpectrum(c);
  const double length = Length(c);
  const int64_t cols = s.rope ? 7 : 4;
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {static_cast<int64_t>(s.pairs.size()), cols};
    out << NpyHeader(shape);
  } else if (s.rope) {
    out << "pair,frequency,wavelength,scaled_frequency,scaled_wavelength,full_turn,"
           "scaled_full_turn\n";
  } else {
    out << "pair,frequency,wavelength,full_turn\n";
  }
  for (const SpectrumPair& p : s.pairs) {
    const float full = FullTurn(p.frequency, length) ? 1.0f : 0.0f;
    const float scaled_full = FullTurn(p.scaled, length) ? 1.0f : 0.0f;
    float v[7] = {static_cast<float>(p.pair), static_cast<float>(p.frequency),
                  static_cast<float>(kTwoPi / p.frequency), full};
    if (s.rope) {
      v[3] = static_cast<float>(p.scaled);
      v[4] = static_cast<float>(kTwoPi / p.scaled);
      v[5] = full;
      v[6] = scaled_full;
    }
    if (format == TableFormat::kNpy) {
      WriteFloatsLE(out, v, static_cast<size_t>(cols));
    } else {
      out << p.pair;
      for (int64_t j = 1; j < cols; ++j) {
        const bool flag = s.rope ? j >= 5 : j == 3;
        out << ',';
        if (flag) {
          out << static_cast<int>(v[j]);
        } else {
          out << FormatFloat(v[j]);
        }
      }
      out << '\n';
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// As SpectrumFigure: four lines over the at most d / 2 + 1 pairs (the wavelength and the
// frequency, before and after RoPE's scaling), then a dot per pair on each or (pairs too dense
// for dots) the category runs over the two lines, a few two-point reference lines, and the
// pairs' frequencies (24 bytes each).
uint64_t SpectrumEstimate(const EstimateContext& c) {
  const uint64_t pairs = static_cast<uint64_t>(c.params.pe.d_model) / 2 + 1;
  return kFigureBytesPerCurveSample * (8 * pairs + 16) + 24 * pairs;
}

}  // namespace pe
