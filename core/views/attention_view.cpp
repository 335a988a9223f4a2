// The attention view: where one query's attention goes. The softmax of query m's scores over
// every key of the table (analysis/attention_row.h: closed forms for ALiBi and T5 at any length,
// every key summed for the other schemes up to kMaxEnumeratedKeys), drawn against the key
// position with the query marked; the entropy and the top keys in the notes.
//   --query M: the query's absolute position; -1 (default): the table's last position, the
//              query that sees every key with a causal mask as without.
//   table: one row per key, CSV header key,score,weight (a masked key: empty score, weight 0);
//          NPY (L,) float32, the weights.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "analysis/attention_row.h"
#include "io/file_writers.h"
#include "views/figure_budget.h"
#include "views/view_builders.h"
#include "views/view_geometry.h"

namespace pe {
namespace {

constexpr Rgba8 kMaskedShade{150, 150, 150, 70};
constexpr int kTopKeys = 5;

std::string Num(double v, int digits = 4) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

struct Built {
  AttentionScorer scorer;
  AttentionRow row;
};

Result<Built> BuildRow(const ViewContext& c) {
  const int64_t m = ResolveAttentionQuery(*c.encoding, c.params.query);
  if (Status s = CheckAttentionRow(*c.encoding, m, EffectiveAttentionWindow(c.params)); !s.ok()) {
    return s.error();
  }
  Result<AttentionScorer> scorer = AttentionScorer::Make(c.params, c.encoding);
  if (!scorer.ok()) return scorer.error();
  Result<AttentionRow> row = AttentionRow::Make(scorer.value(), m);
  if (!row.ok()) return row.error();
  return Built{std::move(scorer).value(), std::move(row).value()};
}

std::string HowSummed(const Encoding& e) {
  switch (e.scheme()) {
    case Scheme::kAlibi:
      return "Z exact at any length: each side of the query a geometric series";
    case Scheme::kT5:
      return "Z exact at any length: a sum over the runs of one bucket";
    default:
      return "Z: every key's exp(score \xe2\x88\x92 max) summed in long double";
  }
}

}  // namespace

Result<Figure> AttentionFigure(const ViewContext& c) {
  Result<Built> built = BuildRow(c);
  if (!built.ok()) return built.error();
  const AttentionRow& row = built.value().row;
  const AttentionScorer& s = built.value().scorer;
  const Encoding& e = *c.encoding;
  const int64_t m = row.query(), first = row.first_key(), end = row.end_key();
  const int64_t L = end - first;
  Figure f;
  f.title = "Attention of query m = " + std::to_string(m) +
            ": softmax of its scores over every key (" + e.Summary() + ")";
  f.x = {"key position n", false, false, true};
  f.y = {"weight(m, n)", false, false};
  const double x0 = static_cast<double>(first) - 0.5, x1 = static_cast<double>(end) - 0.5;
  f.view = {x0, x1, 0, 1};
  const PixelSize px = PlotPixels(c, f);
  FigureSeries line;
  line.color = SeriesRgba(0);
  line.line_width = 1.5;
  const int columns = std::max(1, px.width);
  double top = 0.0;
  const bool every_key = L <= columns;
  if (every_key) {
    // Every key: a stem and a dot each when there is room, else the line through them.
    const bool stems = px.width >= 4 * L;
    for (int64_t n = first; n < end; ++n) {
      const double w = row.Weight(n);
      top = std::max(top, w);
      line.xs.push_back(static_cast<double>(n));
      line.ys.push_back(w);
      if (stems) {
        line.marker_xs.push_back(static_cast<double>(n));
        line.marker_ys.push_back(w);
      }
    }
    if (stems) {
      for (int64_t n = first; n < end; ++n) {
        const double w = row.Weight(n);
        if (w > 0) f.rects.push_back({n - 0.06, 0.0, n + 0.06, w, SeriesRgba(0), true, 1.0});
      }
      line.xs.clear();
      line.ys.clear();
    }
  } else {
    // Each pixel column's largest weight (its keys [a, b)), so a one-key peak is never lost
    // between samples.
    for (int col = 0; col < columns; ++col) {
      const auto a = first + static_cast<int64_t>(static_cast<double>(L) * col / columns);
      const auto b = first + static_cast<int64_t>(static_cast<double>(L) * (col + 1) / columns);
      if (b <= a) continue;
      const double w = row.MaxWeightIn(a, b);
      top = std::max(top, w);
      // The column's peak drawn at the key nearest the query inside it (the peak itself for
      // the distance-decaying schemes).
      line.xs.push_back(static_cast<double>(std::clamp(m, a, b - 1)));
      line.ys.push_back(w);
    }
  }
  f.view.y1 = top > 0 ? top * 1.08 : 1.0;
  if (!every_key) {
    // Room beyond the first and last keys, so a peak at either end (the last query's own key)
    // is not hidden under the frame.
    const double pad = 0.015 * static_cast<double>(L);
    f.view.x0 -= pad;
    f.view.x1 += pad;
  }
  f.hlines.push_back(0.0);
  f.series.push_back(std::move(line));
  // The query: a light band behind its own key when keys are a few pixels wide, else a line.
  const Rgba8 mark = SelectionHighlightColor(ColormapId::kViridis);
  Rgba8 band = mark;
  band.a = 90;
  // One key (max_len 1): the band would fill the whole plot; the stem and a note say it.
  const bool band_shown = every_key && px.width >= 4 * L && L > 1;
  if (band_shown) {
    f.rects.insert(f.rects.begin(), {m - 0.5, 0.0, m + 0.5, f.view.y1, band, true, 1.0});
  } else if (L > 1) {
    // Half transparent: the query's own peak stays visible through it.
    Rgba8 line_mark = mark;
    line_mark.a = 140;
    f.overlays.push_back(
        {static_cast<double>(m), 0.0, static_cast<double>(m), f.view.y1, line_mark, false, 1.0});
  }
  const bool shaded = !s.banded() && s.causal() && m + 1 < end;
  if (shaded) {
    f.rects.insert(f.rects.begin(),
                   {static_cast<double>(m) + 0.5, 0.0, x1, f.view.y1, kMaskedShade, true, 1.0});
  }
  // A sliding or chunked window: the keys before its run and after it shaded.
  const KeyRun run = s.VisibleKeys(m);
  const bool before = s.banded() && run.lo > first, after = s.banded() && run.hi < end;
  if (before) {
    f.rects.insert(f.rects.begin(), {f.view.x0, 0.0, static_cast<double>(run.lo) - 0.5, f.view.y1,
                                     kMaskedShade, true, 1.0});
  }
  if (after) {
    f.rects.insert(f.rects.begin(), {static_cast<double>(run.hi) - 0.5, 0.0, f.view.x1, f.view.y1,
                                     kMaskedShade, true, 1.0});
  }

  f.legend.push_back(
      {"weight(m, n) = exp(score(m, n)) / \xce\xa3_n exp(score(m, n))", SeriesRgba(0)});
  f.legend.push_back({"query m = " + std::to_string(m) +
                          (c.params.query == -1 ? " (the last position)" : std::string()),
                      band_shown ? band : mark});
  if (L == 1) {
    f.legend.push_back(
        {"one key: the table has one position, so the query attends to itself "
         "alone, weight 1",
         kNoColor});
  }
  f.legend.push_back(
      {ScoreDefinition(e, c.params.content, c.params.softmax_scale, c.params.temperature),
       kNoColor});
  if (c.params.softmax_scale > 0) {
    f.legend.push_back({SoftmaxScaleText(c.params, s.dim()), kNoColor});
  }
  if (before || after) {
    f.legend.push_back({"shaded: masked, " + AttentionWindowRule(s.window()) + ": keys " +
                            std::to_string(std::max(run.lo, first)) + " to " +
                            std::to_string(std::min(run.hi, end) - 1) +
                            " visible, the rest weight 0",
                        kMaskedShade});
  } else if (s.banded()) {
    f.legend.push_back(
        {AttentionWindowRule(s.window()) + ": every key of the table is visible", kNoColor});
  }
  if (shaded) {
    f.legend.push_back({c.params.causal_mask
                            ? "shaded: masked, causal (key after query, n > m), weight 0"
                            : "shaded: masked by causal ALiBi, weight 0",
                        kMaskedShade});
  }
  const std::vector<int64_t> tops = row.TopKeys(kTopKeys);
  std::string top_text = "top keys:";
  for (size_t i = 0; i < tops.size(); ++i) {
    top_text +=
        (i ? ", " : " ") + std::to_string(tops[i]) + " (" + Num(row.Weight(tops[i]), 3) + ")";
  }
  f.legend.push_back({top_text, kNoColor});
  f.legend.push_back({"entropy " + Num(row.entropy(), 4) + " nats, exp(entropy) " +
                          Num(std::exp(row.entropy()), 4) + " of " +
                          std::to_string(row.unmasked_keys()) + " keys",
                      kNoColor});
  f.legend.push_back({row.closed_form() || !s.banded()
                          ? HowSummed(e)
                          : "Z: the " + std::to_string(row.unmasked_keys()) +
                                " visible keys' exp(score \xe2\x88\x92 max) summed in long "
                                "double, only those scored",
                      kNoColor});
  if (!every_key) {
    f.legend.push_back({"each pixel column: the largest weight of its ~" +
                            Num(static_cast<double>(L) / columns, 3) + " keys",
                        kNoColor});
  }
  return f;
}

Status CheckAttentionTable(const ViewContext& c) {
  const int64_t m = ResolveAttentionQuery(*c.encoding, c.params.query);
  const AttentionWindow window = EffectiveAttentionWindow(c.params);
  if (Status s = CheckAttentionRow(*c.encoding, m, window); !s.ok()) return s;
  // The (L) weights, and the row's double scores of the keys the query sees for the schemes
  // without a closed form ((L) of them without a window).
  const bool closed = AttentionRowHasClosedForm(*c.encoding);
  const auto [lo, hi] = VisibleKeysInTable(*c.encoding, window, m);
  const bool all_seen = hi - lo == c.encoding->rows();
  if (Status s = CheckFloatCount(
          "the attention row",
          static_cast<uint64_t>(closed || all_seen ? c.encoding->rows()
                                                   : c.encoding->rows() + 2 * (hi - lo)),
          closed ? 1 : (all_seen ? 3 : 1), c.params.cap);
      !s.ok()) {
    return s;
  }
  return AttentionScorer::Make(c.params, c.encoding).status();
}

Status WriteAttentionView(std::ostream& out, TableFormat format, const ViewContext& c,
                          const Progress& progress) {
  if (Status s = CheckAttentionTable(c); !s.ok()) return s;
  Result<Built> built = BuildRow(c);
  if (!built.ok()) return built.error();
  const AttentionRow& row = built.value().row;
  const int64_t first = row.first_key(), L = row.end_key() - first;
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {L};
    out << NpyHeader(shape);
  } else {
    out << "key,score,weight\n";
  }
  const int64_t block = std::min<int64_t>(int64_t{1} << 16, std::max<int64_t>(L, 1));
  std::vector<float> weights(static_cast<size_t>(block));
  for (int64_t k0 = 0; k0 < L && out; k0 += block) {
    const int64_t count = std::min(block, L - k0);
    if (format == TableFormat::kNpy) {
      for (int64_t i = 0; i < count; ++i) {
        weights[static_cast<size_t>(i)] = static_cast<float>(row.Weight(first + k0 + i));
      }
      WriteFloatsLE(out, weights.data(), count);
    } else {
      std::string text;
      for (int64_t i = 0; i < count; ++i) {
        const int64_t n = first + k0 + i;
        const double score = row.Score(n);
        text += std::to_string(n);
        text += ',';
        if (!std::isnan(score)) text += FormatFloat(static_cast<float>(score));
        text += ',';
        text += FormatFloat(static_cast<float>(row.Weight(n)));
        text += '\n';
      }
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
    }
    if (progress && !progress(static_cast<double>(k0 + count) / static_cast<double>(L))) {
      return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// As AttentionFigure: one line point per plot pixel column (or per key, with a stem each when
// the keys are a few pixels apart); the rows without a closed form hold the score of every key
// the query sees, doubles, and the top-keys candidates, (score, key) pairs.
uint64_t AttentionEstimate(const EstimateContext& c) {
  const auto keys = static_cast<uint64_t>(c.params.pe.max_len);
  const bool closed = c.params.pe.kind() == Scheme::kAlibi || c.params.pe.kind() == Scheme::kT5;
  // The keys the query sees under the window (the schemes without a closed form imply no mask).
  const int64_t first = c.params.pe.offset, end = first + c.params.pe.max_len;
  const int64_t m = c.params.query == -1 ? end - 1 : c.params.query;
  const KeyRun run = VisibleKeys(EffectiveAttentionWindow(c.params), false, m);
  const int64_t seen = std::max<int64_t>(0, std::min(run.hi, end) - std::max(run.lo, first));
  return 3 * kFigureBytesPerCurveSample * std::min<uint64_t>(c.width_px, keys) + 4096 +
         (closed ? 0 : 24 * static_cast<uint64_t>(seen));
}

}  // namespace pe
