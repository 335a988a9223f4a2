// The M-RoPE axes view: which rotary pair turns by which position id (t, h or w), for the
// section in force, under both layouts (encoding/mrope.h, MropePairAxes: chunked as Qwen2-VL's
// apply_multimodal_rotary_pos_emb, interleaved as Qwen3-VL's apply_interleaved_mrope), and each
// pair's wavelength 2 pi / theta_i.
//   figure:  x is the pair index i. Two strips along the top, chunked above interleaved, a cell
//            per pair in its axis's colour (the position-ids view's t, h, w colours), the current
//            layout's strip outlined; under them log10 of the wavelength per pair, a grey line
//            with a dot per pair in the colour of its axis under the current layout. In the
//            window each cell and dot names its pair, axis, theta_i and wavelength on hover.
//   numbers: (pairs, 3) float64, columns axis (0 = t, 1 = h, 2 = w, the current layout),
//            inv_freq theta_i (radians per id) and wavelength 2 pi / theta_i (ids); CSV header
//            pair,axis,inv_freq,wavelength, one row per pair.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "base/format_text.h"
#include "encoding/mrope.h"
#include "io/file_writers.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/pair_plot.h"
#include "views/view_registry.h"

namespace pe {

Result<Figure> MropeAxesFigure(const ViewContext& c);
Status CheckMropeAxesTable(const ViewContext& c);
Status WriteMropeAxesView(std::ostream& out, TableFormat format, const ViewContext& c,
                          const Progress& progress);
uint64_t MropeAxesEstimate(const EstimateContext& c);
std::string MropeAxesTitle(const ModelParams& m, const Encoding& e);

namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;
constexpr const char* kAxisNames[3] = {"t (time)", "h (row)", "w (column)"};

// The axes of every pair under `layout`, with the section in force for the current layout
// given explicitly (an auto section is the current layout's model's, kept for the other).
std::vector<MropeAxis> AxesUnder(const EncodingParams& p, MropeLayout layout) {
  const int64_t pairs = p.d_model / 2;
  MropeParams m = p.mrope();
  m.section = MropeSection(p.mrope(), pairs);
  m.layout = layout;
  return MropePairAxes(m, pairs);
}

// "dims 5 and 69" (half pairing) or "dims 10 and 11" (interleaved pairing).
std::string PairDims(const EncodingParams& p, int64_t i) {
  const bool half = p.mrope().pairing == RopePairing::kHalf;
  const int64_t a = half ? i : 2 * i, b = half ? i + p.d_model / 2 : 2 * i + 1;
  return Fmt("dims %lld and %lld", static_cast<long long>(a), static_cast<long long>(b));
}

std::string DecadeLabel(int k) {
  if (k >= 0 && k <= 3) return Fmt("%.0f", std::pow(10.0, k));
  return Fmt("1e%d", k);
}

}  // namespace

std::string MropeAxesTitle(const ModelParams& m, const Encoding&) {
  const EncodingParams& p = m.pe;
  return std::string(GetView(ViewKind::kMropeAxes).title) + " (section " +
         MropeSectionText(MropeSection(p.mrope(), p.d_model / 2)) + ", head dim " +
         std::to_string(p.d_model) + ", theta " + Fmt("%g", p.mrope().theta) +
         "; current: " + std::string(MropeLayoutName(p.mrope().layout)) + ")";
}

Result<Figure> MropeAxesFigure(const ViewContext& c) {
  const EncodingParams& p = c.params.pe;
  if (Status s = CheckViewApplies(ViewKind::kMropeAxes, p); !s.ok()) return s.error();
  const int64_t pairs = p.d_model / 2;
  const std::vector<double> freq = MropePairFrequencies(p);  // (pairs)
  const MropeLayout current = p.mrope().layout;
  const MropeLayout layouts[2] = {MropeLayout::kChunked, MropeLayout::kInterleaved};
  const std::vector<MropeAxis> axes[2] = {AxesUnder(p, layouts[0]), AxesUnder(p, layouts[1])};
  const std::vector<MropeAxis>& now = axes[current == MropeLayout::kChunked ? 0 : 1];

  Figure f;
  f.x = {p.mrope().pairing == RopePairing::kHalf ? "pair i (dims i and i + d/2)"
                                                 : "pair i (dims 2i and 2i + 1)",
         false, false, true};
  f.y = {"wavelength 2\xcf\x80/\xce\xb8_i (ids, log scale)", false, false};
  const double x0 = -0.5, x1 = static_cast<double>(pairs) - 0.5;
  // log10 wavelengths, low to high (theta_i falls with i).
  std::vector<double> logw(static_cast<size_t>(pairs));
  for (size_t i = 0; i < logw.size(); ++i) logw[i] = std::log10(kTwoPi / freq[i]);
  const double lo = *std::min_element(logw.begin(), logw.end());
  const double hi = *std::max_element(logw.begin(), logw.end());
  const double span = std::max(hi - lo, 1.0);
  const double strip = 0.16 * span, gap = 0.06 * span;
  // Strip k (0 chunked, 1 interleaved) covers [base[k], base[k] + strip]: chunked on top.
  const double base[2] = {hi + 3 * gap + strip, hi + 2 * gap};
  const double top = base[0] + strip;
  f.view = {x0, x1, lo - gap, top + gap};

  // The ticks: the decades of the wavelength and a name per strip.
  for (int k = static_cast<int>(std::ceil(lo)); k <= static_cast<int>(std::floor(hi)); ++k) {
    f.y.ticks.push_back({static_cast<double>(k), DecadeLabel(k)});
  }
  for (int k = 1; k >= 0; --k) {
    f.y.ticks.push_back({base[k] + strip / 2, std::string(MropeLayoutName(layouts[k])) +
                                                  (layouts[k] == current ? " (current)" : "")});
  }

  // The strips: one rectangle per run of pairs of one axis.
  for (int k = 0; k < 2; ++k) {
    const std::vector<MropeAxis>& a = axes[k];
    for (int64_t i = 0; i < pairs;) {
      int64_t j = i;
      while (j < pairs && a[static_cast<size_t>(j)] == a[static_cast<size_t>(i)]) ++j;
      f.rects.push_back({static_cast<double>(i) - 0.5, base[k], static_cast<double>(j) - 0.5,
                         base[k] + strip, SeriesRgba(static_cast<int>(a[static_cast<size_t>(i)])),
                         true, 1.0});
      i = j;
    }
  }
  const int cur = current == MropeLayout::kChunked ? 0 : 1;
  f.overlays.push_back(
      {x0, base[cur], x1, base[cur] + strip, Rgba8{128, 128, 128, 255}, false, 2.0});

  // The wavelength line, a dot per pair in its current axis's colour when the pairs leave room.
  FigureSeries line;
  line.color = Rgba8{150, 150, 155, 255};
  line.line_width = 1.4;
  for (int64_t i = 0; i < pairs; ++i) {
    line.xs.push_back(static_cast<double>(i));
    line.ys.push_back(logw[static_cast<size_t>(i)]);
  }
  f.series.push_back(std::move(line));
  const double dot = PairDotRadius(f, c.size, x0, x1);
  FigureSeries dots[3];
  int64_t counts[2][3] = {{0, 0, 0}, {0, 0, 0}};
  for (int k = 0; k < 2; ++k) {
    for (MropeAxis a : axes[k]) ++counts[k][static_cast<int>(a)];
  }
  for (int a = 0; a < 3; ++a) {
    dots[a].color = SeriesRgba(a);
    dots[a].line_width = 0;
    dots[a].marker_radius = dot;
  }
  if (dot > 0) {
    for (int64_t i = 0; i < pairs; ++i) {
      FigureSeries& s = dots[static_cast<int>(now[static_cast<size_t>(i)])];
      s.marker_xs.push_back(static_cast<double>(i));
      s.marker_ys.push_back(logw[static_cast<size_t>(i)]);
    }
    for (FigureSeries& s : dots) {
      if (!s.marker_xs.empty()) f.series.push_back(std::move(s));
    }
    // What the window says on hover: a point per strip cell and per dot, with no text drawn.
    for (int64_t i = 0; i < pairs; ++i) {
      const auto n = static_cast<size_t>(i);
      const std::string numbers =
          Fmt("\n\xce\xb8_%lld = %g^(-%lld/%lld) = %.6g rad per id\nwavelength 2\xcf\x80/\xce\xb8 "
              "= %.6g ids\n",
              static_cast<long long>(i), p.mrope().theta, static_cast<long long>(2 * i),
              static_cast<long long>(p.d_model), freq[n], kTwoPi / freq[n]) +
          PairDims(p, i);
      for (int k = 0; k < 2; ++k) {
        f.labels.push_back({static_cast<double>(i), base[k] + strip / 2, "", kNoColor,
                            Fmt("pair %lld: %s under %s", static_cast<long long>(i),
                                kAxisNames[static_cast<int>(axes[k][n])],
                                std::string(MropeLayoutName(layouts[k])).c_str()) +
                                numbers});
      }
      f.labels.push_back({static_cast<double>(i), logw[n], "", kNoColor,
                          Fmt("pair %lld: %s (%s)", static_cast<long long>(i),
                              kAxisNames[static_cast<int>(now[n])],
                              std::string(MropeLayoutName(current)).c_str()) +
                              numbers});
    }
  }

  for (int a = 0; a < 3; ++a) {
    f.legend.push_back(
        {Fmt("%s: %lld pairs chunked, %lld interleaved", kAxisNames[a],
             static_cast<long long>(counts[0][a]), static_cast<long long>(counts[1][a])),
         SeriesRgba(a)});
  }
  f.legend.push_back({Fmt("outlined: the current layout, %s; dots: its axis per pair",
                          std::string(MropeLayoutName(current)).c_str()),
                      kNoColor});
  f.legend.push_back(
      {"chunked (Qwen2-VL, Qwen2.5-VL): the first T pairs t, the next H h, the "
       "last W w",
       kNoColor});
  f.legend.push_back(
      {"interleaved (Qwen3-VL): h at pairs 1, 4, 7, ... below 3H, w at 2, 5, 8, ... below 3W, "
       "t elsewhere",
       kNoColor});
  return f;
}

Status CheckMropeAxesTable(const ViewContext& c) {
  return CheckViewApplies(ViewKind::kMropeAxes, c.params.pe);
}

Status WriteMropeAxesView(std::ostream& out, TableFormat format, const ViewContext& c,
                          const Progress&) {
  if (Status s = CheckMropeAxesTable(c); !s.ok()) return s;
  const EncodingParams& p = c.params.pe;
  const int64_t pairs = p.d_model / 2;
  const std::vector<double> freq = MropePairFrequencies(p);
  const std::vector<MropeAxis> axes = MropePairAxes(p.mrope(), pairs);
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {pairs, 3};
    out << NpyHeader(shape, NpyDtype::kFloat64);
  } else {
    out << "pair,axis,inv_freq,wavelength\n";
  }
  for (int64_t i = 0; i < pairs; ++i) {
    const auto n = static_cast<size_t>(i);
    const double row[3] = {static_cast<double>(static_cast<int>(axes[n])), freq[n],
                           kTwoPi / freq[n]};
    if (format == TableFormat::kNpy) {
      WriteDoublesLE(out, row, 3);
    } else {
      out << i << ',' << static_cast<int>(axes[n]) << ',' << FormatDouble(row[1]) << ','
          << FormatDouble(row[2]) << '\n';
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// As MropeAxesFigure: per pair a line point, a dot, up to two strip rectangles, three hover
// points with their text (about 1 KiB), and the frequencies and axes.
uint64_t MropeAxesEstimate(const EstimateContext& c) {
  const uint64_t pairs = (static_cast<uint64_t>(std::max<int64_t>(c.params.pe.d_model, 0)) + 1) / 2;
  return kFigureBytesPerCurveSample * (7 * pairs + 16) + 1024 * pairs;
}

}  // namespace pe
