// The frequencies view: each pair's frequency and wavelength, original vs scaled.
//
// x is the pair index i, y is log10 of the wavelength 2 pi / theta_i in positions (how many
// positions one full turn of the pair takes). The original frequencies (rope.h, no scaling) are
// a grey line, the scaled ones a coloured line with a dot per pair in the colour of its treatment
// (kept, interpolated, blended). Horizontal lines mark the original context L and the extended
// one s * L (the table length without a scaling); Llama 3 adds its high-frequency bound L / high
// (below it pairs are kept; above L / low, which is L with the default low factor 1, they are
// interpolated); YaRN adds its correction range as vertical lines at the pairs low and high.
// LongRoPE draws both lists (the one the table uses as the scaled line, the other beside it)
// with the switch at L and the extended context M.
// Proportional RoPE's still pairs (frequency 0, an infinite wavelength) have no place on the
// log axis: they are a row of marks along the top edge, named in the legend.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "io/file_writers.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/pair_plot.h"
#include "views/rope_views.h"
#include "views/view_builders.h"

namespace pe {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// The treatment colours (SeriesRgba), shared by the dots and the legend.
Rgba8 TreatmentColor(PairTreatment t) {
  switch (t) {
    case PairTreatment::kKept:
      return SeriesRgba(2);  // green
    case PairTreatment::kInterpolated:
      return SeriesRgba(1);  // orange
    case PairTreatment::kBlended:
      return SeriesRgba(3);  // reddish purple
  }
  return SeriesRgba(0);
}

double LogWavelength(double theta) {
  return std::log10(kTwoPi / theta);
}

}  // namespace

Result<Figure> FrequenciesFigure(const ViewContext& c) {
  const EncodingParams& params = c.params.pe;
  const RopeParams& rope = params.rope();
  const RopeFrequencies& freqs = *c.encoding->frequencies();  // the view applies to rope alone
  const auto half = static_cast<int64_t>(freqs.pairs.size());
  const bool scaled = rope.scaling != RopeScaling::kNone;
  const bool longrope = rope.scaling == RopeScaling::kLongrope;
  const Rgba8 grey{150, 150, 155, 255}, line_color = SeriesRgba(5), context{70, 70, 75, 255},
                                        extended = SeriesRgba(4), yarn_color = SeriesRgba(0);

  Figure f;
  f.title = "Wavelength 2\xcf\x80/\xce\xb8 of each rotated pair (RoPE, theta " + Num(rope.theta) +
            (longrope ? std::string(", longrope, ") +
                            (freqs.longrope_uses_long ? "long" : "short") + " factors"
             : scaled ? ", " + std::string(RopeScalingName(rope.scaling)) + " x" + Num(rope.factor)
                      : std::string()) +
            ", d_rot " + std::to_string(freqs.d_rot) +
            (freqs.rotating_pairs < half ? ", proportion " + Num(rope.proportion) + ": " +
                                               std::to_string(freqs.rotating_pairs) + " of " +
                                               std::to_string(half) + " pairs turn"
                                         : std::string()) +
            ")";
  f.x = {"pair i", false, false, true};
  f.y = {"log10 wavelength (positions)", false, false};
  const double x0 = -0.5, x1 = static_cast<double>(half) - 0.5;

  // The reference lines, as (log10 length, label, colour).
  struct Ref {
    double length;
    std::string label;
    Rgba8 color;
  };
  std::vector<Ref> refs;
  // Linear and NTK scalings have no original length of their own (HF's rope_scaling for them
  // holds only the factor): mark the table's length instead.
  const bool has_original = rope.scaling == RopeScaling::kDynamicNtk ||
                            rope.scaling == RopeScaling::kYarn ||
                            rope.scaling == RopeScaling::kLlama3;
  if (longrope) {
    // LongRoPE: the switch at the original length and the extended one, M.
    const auto original = static_cast<double>(rope.original_max_len);
    refs.push_back({original,
                    "original context L = " + Num(original) + " (longer sequences: long factors)",
                    context});
    refs.push_back({static_cast<double>(rope.max_position_embeddings),
                    "max_position_embeddings M = " + std::to_string(rope.max_position_embeddings),
                    extended});
  } else if (scaled && has_original) {
    const auto original = static_cast<double>(rope.original_max_len);
    refs.push_back({original, "original context L = " + Num(original), context});
    refs.push_back({original * rope.factor,
                    "extended context s\xc2\xb7L = " + Num(original * rope.factor), extended});
    if (rope.scaling == RopeScaling::kLlama3) {
      refs.push_back(
          {original / rope.high_freq_factor,
           "Llama 3 bound L/high = " + Num(original / rope.high_freq_factor) + " (shorter: kept)",
           Rgba8{0, 90, 90, 255}});
      if (rope.low_freq_factor != 1.0) {
        refs.push_back({original / rope.low_freq_factor,
                        "Llama 3 bound L/low = " + Num(original / rope.low_freq_factor) +
                            " (longer: interpolated)",
                        Rgba8{140, 90, 30, 255}});
      }
    }
  } else {
    refs.push_back({static_cast<double>(params.max_len),
                    "table length L = " + std::to_string(params.max_len), context});
  }

  // The legend: lines first, then the treatments with their counts, then the references.
  int64_t counts[3] = {0, 0, 0};
  for (const RopePair& p : freqs.pairs) {
    if (p.scaled > 0.0) ++counts[static_cast<int>(p.treatment)];  // still pairs counted apart
  }
  // LongRoPE: the list the table does not use, as a second line beside the scaled one.
  const Rgba8 other_color = SeriesRgba(0);
  const char* const used_list = freqs.longrope_uses_long ? "long" : "short";
  const char* const other_list = freqs.longrope_uses_long ? "short" : "long";
  if (longrope) {
    f.legend.push_back({"original \xce\xb8_i = theta^(-2i/d_rot)", grey});
    f.legend.push_back({std::string("\xce\xb8_i / ") + used_list +
                            "_factor_i: the table's (length " + std::to_string(freqs.sequence_len) +
                            (freqs.longrope_uses_long ? " > L)" : " <= L)"),
                        line_color});
    f.legend.push_back(
        {std::string("\xce\xb8_i / ") + other_list + "_factor_i: the other list", other_color});
  } else if (scaled) {
    f.legend.push_back({"original \xce\xb8_i = theta^(-2i/d_rot)", grey});
    f.legend.push_back(
        {"scaled \xce\xb8'_i (" + std::string(RopeScalingName(rope.scaling)) + ")", line_color});
  }
  if (scaled) {
    for (PairTreatment t :
         {PairTreatment::kKept, PairTreatment::kInterpolated, PairTreatment::kBlended}) {
      const int64_t n = counts[static_cast<int>(t)];
      // LongRoPE's pairs are not kept or blended by a ramp (Llama 3's and YaRN's words): each
      // is divided by its number of the list in use, 1, the factor s, or another.
      std::string what(PairTreatmentName(t));
      if (longrope) {
        const std::string list = std::string(used_list) + "_factor_i";
        what = t == PairTreatment::kKept ? list + " = 1"
               : t == PairTreatment::kInterpolated
                   ? list + " = M / L = " +
                         Num(static_cast<double>(rope.max_position_embeddings) /
                             static_cast<double>(rope.original_max_len))
                   : list + " another number";
      }
      f.legend.push_back(
          {what + ": " + std::to_string(n) + (n == 1 ? " pair" : " pairs"), TreatmentColor(t)});
    }
  } else {
    f.legend.push_back({"\xce\xb8_i = theta^(-2i/d_rot)", line_color});
  }
  for (const Ref& r : refs) f.legend.push_back({r.label, r.color});
  if (rope.scaling == RopeScaling::kYarn) {
    f.legend.push_back(
        {"YaRN correction range: pairs " + Num(freqs.yarn_low) + " to " + Num(freqs.yarn_high),
         yarn_color});
  }

  // y: every finite wavelength and reference line, with 6% room.
  double lo = INFINITY, hi = -INFINITY;
  for (const RopePair& p : freqs.pairs) {
    for (double theta : {p.original, p.scaled}) {
      if (!(theta > 0.0)) continue;  // a still pair
      lo = std::min(lo, LogWavelength(theta));
      hi = std::max(hi, LogWavelength(theta));
    }
  }
  const std::vector<double>& other_freqs =
      freqs.longrope_uses_long ? freqs.longrope_short : freqs.longrope_long;
  for (double theta : other_freqs) {
    lo = std::min(lo, LogWavelength(theta));
    hi = std::max(hi, LogWavelength(theta));
  }
  const Rgba8 still_color{110, 110, 115, 255};
  if (freqs.rotating_pairs < half) {
    const int64_t n = half - freqs.rotating_pairs;
    f.legend.push_back({"frequency 0 (never turns, wavelength infinite): pairs " +
                            std::to_string(freqs.rotating_pairs) + " to " +
                            std::to_string(half - 1) + " (" + std::to_string(n) +
                            (n == 1 ? " pair), along the top" : " pairs), along the top"),
                        still_color});
  }
  for (const Ref& r : refs) {
    lo = std::min(lo, std::log10(r.length));
    hi = std::max(hi, std::log10(r.length));
  }
  const double pad = std::max(0.05, (hi - lo) * 0.06);
  f.view = {x0, x1, lo - pad, hi + pad};

  for (const Ref& r : refs) {
    f.series.push_back(HorizontalLine(std::log10(r.length), x0, x1, r.color));
  }
  if (rope.scaling == RopeScaling::kYarn) {
    for (double x : {freqs.yarn_low, freqs.yarn_high}) {
      f.series.push_back(VerticalLine(x, f.view.y0, f.view.y1, yarn_color));
    }
  }

  // Dots as large as the pairs' spacing allows (a 32768-pair head gets a plain line).
  const double dot = PairDotRadius(f, c.size, x0, x1);
  const bool dots = dot > 0;
  FigureSeries original, line;
  original.color = grey;
  original.line_width = 1.4;
  line.color = line_color;
  line.line_width = 1.6;
  FigureSeries by_treatment[3];
  for (int t = 0; t < 3; ++t) {
    by_treatment[t].color = TreatmentColor(static_cast<PairTreatment>(t));
    by_treatment[t].marker_radius = dot;
  }
  FigureSeries still;  // the pairs of frequency 0, along the top edge
  still.color = still_color;
  still.line_width = 3.0;
  still.marker_radius = dot;
  const double top = f.view.y1 - pad * 0.5;
  for (const RopePair& p : freqs.pairs) {
    const auto x = static_cast<double>(p.index);
    if (!(p.scaled > 0.0)) {
      still.xs.push_back(x);
      still.ys.push_back(top);
      if (dots) {
        still.marker_xs.push_back(x);
        still.marker_ys.push_back(top);
      }
      continue;
    }
    original.xs.push_back(x);
    original.ys.push_back(LogWavelength(p.original));
    line.xs.push_back(x);
    line.ys.push_back(LogWavelength(p.scaled));
    if (dots) {
      FigureSeries& d = scaled ? by_treatment[static_cast<int>(p.treatment)] : line;
      d.marker_xs.push_back(x);
      d.marker_ys.push_back(LogWavelength(p.scaled));
      if (scaled) {
        original.marker_xs.push_back(x);
        original.marker_ys.push_back(LogWavelength(p.original));
      }
    }
  }
  original.marker_radius = dot * 0.8;
  line.marker_radius = dot;
  if (scaled) f.series.push_back(std::move(original));
  if (!other_freqs.empty()) {
    FigureSeries other;
    other.color = other_color;
    other.line_width = 1.4;
    for (size_t k = 0; k < other_freqs.size(); ++k) {
      other.xs.push_back(static_cast<double>(k));
      other.ys.push_back(LogWavelength(other_freqs[k]));
    }
    if (dots) {
      other.marker_xs = other.xs;
      other.marker_ys = other.ys;
      other.marker_radius = dot * 0.8;
    }
    f.series.push_back(std::move(other));
  }
  // Pairs too close for dots: the treatment colours the scaled line itself, one thicker run per
  // stretch of pairs with the same treatment (joined to the next pair, so the runs meet), over
  // the line.
  f.series.push_back(line);
  if (scaled && !dots) {
    std::vector<int> treatments;
    for (const RopePair& p : freqs.pairs) treatments.push_back(static_cast<int>(p.treatment));
    const Rgba8 colors[3] = {TreatmentColor(PairTreatment::kKept),
                             TreatmentColor(PairTreatment::kInterpolated),
                             TreatmentColor(PairTreatment::kBlended)};
    for (FigureSeries& run : CategoryRuns(line.xs, line.ys, treatments, colors, 3.0)) {
      f.series.push_back(std::move(run));
    }
  }
  if (scaled) {
    for (FigureSeries& s : by_treatment) {
      if (!s.marker_xs.empty()) f.series.push_back(std::move(s));
    }
  }
  if (!still.xs.empty()) f.series.push_back(std::move(still));
  return f;
}

Status CheckFrequenciesTable(const ViewContext&) {
  return {};
}

Status WriteFrequenciesView(std::ostream& out, TableFormat format, const ViewContext& c,
                            const Progress&) {
  const RopeFrequencies& freqs = *c.encoding->frequencies();
  // LongRoPE: both lists' frequencies and wavelengths after the seven columns, and which list
  // the sequence length picks (the long one past the original length), as the figure shows them.
  const bool longrope = !freqs.longrope_short.empty() && !freqs.longrope_long.empty();
  const int64_t cols = longrope ? 12 : 7;
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {static_cast<int64_t>(freqs.pairs.size()), cols};
    out << NpyHeader(shape);
  } else {
    out << "pair,original,scaled,original_wavelength,scaled_wavelength,treatment,ramp";
    out << (longrope ? ",short,long,short_wavelength,long_wavelength,list\n" : "\n");
  }
  for (const RopePair& p : freqs.pairs) {
    const auto i = static_cast<size_t>(p.index);
    const double short_w = longrope ? freqs.longrope_short[i] : 0.0;
    const double long_w = longrope ? freqs.longrope_long[i] : 0.0;
    const float v[12] = {static_cast<float>(p.index),
                         static_cast<float>(p.original),
                         static_cast<float>(p.scaled),
                         static_cast<float>(kTwoPi / p.original),
                         static_cast<float>(kTwoPi / p.scaled),
                         static_cast<float>(static_cast<int>(p.treatment)),
                         static_cast<float>(p.ramp),
                         static_cast<float>(short_w),
                         static_cast<float>(long_w),
                         static_cast<float>(kTwoPi / short_w),
                         static_cast<float>(kTwoPi / long_w),
                         freqs.longrope_uses_long ? 1.0f : 0.0f};
    if (format == TableFormat::kNpy) {
      WriteFloatsLE(out, v, cols);
    } else {
      out << p.index;
      for (int j = 1; j < 5; ++j) out << ',' << FormatFloat(v[j]);
      out << ',' << PairTreatmentName(p.treatment) << ',' << FormatFloat(v[6]);
      if (longrope) {
        for (int j = 7; j < 11; ++j) out << ',' << FormatFloat(v[j]);
        out << ',' << (freqs.longrope_uses_long ? "long" : "short");
      }
      out << '\n';
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// As FrequenciesFigure: two lines over the d_rot / 2 <= d / 2 pairs, then up to two dots per
// pair or (pairs too dense for dots) the treatment runs over the scaled line, a few two-point
// reference lines, and the pairs' frequencies (48 bytes each).
uint64_t FrequenciesEstimate(const EstimateContext& c) {
  const uint64_t pairs = (static_cast<uint64_t>(c.params.pe.d_model) + 1) / 2;
  // LongRoPE adds the other list's line and dots, and keeps both lists' frequencies.
  const bool longrope =
      c.params.pe.kind() == Scheme::kRope && c.params.pe.rope().scaling == RopeScaling::kLongrope;
  if (longrope) return kFigureBytesPerCurveSample * (7 * pairs + 16) + 64 * pairs;
  return kFigureBytesPerCurveSample * (5 * pairs + 16) + 48 * pairs;
}

std::string FrequenciesTitle(const ModelParams&, const Encoding& e) {
  return "Rotation frequency per pair (" + e.Title() + ")";
}

}  // namespace pe
