// The attention-score views: score(m, n), its decay with distance, RoFormer's bound.
//   score:          (query x key) heatmap of the pre-softmax logit (analysis/attention_score.h
//                   has the definition), computed for the visible window at screen resolution;
//                   the table is (L, L) over the table's positions, queries by keys, masked
//                   cells NaN in NPY and empty in CSV; CSV header q,k<first>,k<first+1>,...
//   decay:          score(first + k, first) against the distance k = 0..L-1 (the key fixed at the
//                   table's first position, the query moved), one column per scheme: this one,
//                   then each of --compare with its defaults and this shape; CSV header
//                   distance,<file tag>,...; NPY (L, 1 + schemes)
//   roformer-decay: RoFormer's relative upper bound against the distance 0..L-1 for the RoPE
//                   head dimension and theta; CSV header distance,bound; NPY (L, 2)
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <sstream>

#include "analysis/attention_score.h"
#include "base/ticks.h"
#include "encoding/encoding.h"
#include "encoding/rope.h"
#include "encoding/rope_encoding.h"
#include "io/file_writers.h"
#include "model/choice_names.h"
#include "model/model_schedule.h"
#include "model/param_fields.h"
#include "text/tokenizer.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/heatmap_raster.h"
#include "views/value_image.h"
#include "views/view_builders.h"
#include "views/view_geometry.h"

namespace pe {
namespace {

// Cells the causal mask hides, in the figure and the legend.
constexpr Rgba8 kMaskedGrey{150, 150, 150, 255};
// The softmax note covers at most this many keys.
constexpr int64_t kMaxSoftmaxKeys = int64_t{1} << 16;

std::string Num(double v, int digits = 4) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

Result<AttentionScorer> Scorer(const ViewContext& c) {
  return AttentionScorer::Make(c.params, c.encoding);
}

// The score view's window: the selection's, or the whole table when it is empty.
ViewRange ScoreWindow(const ViewContext& c) {
  const Encoding& e = *c.encoding;
  const ViewRange& w = c.sel.windows[ViewKind::kScore];
  if (w.x1 > w.x0 && w.y1 > w.y0) return w;
  const auto first = static_cast<double>(e.first_position());
  const double end = first + static_cast<double>(e.rows());
  return {first, end, first, end};
}

// "softmax of query m = 99 over keys 0..99: most weight on key 99 (0.31), exp(entropy) = 12.4
// keys": where the attention of one query goes.
std::string SoftmaxNote(const AttentionScorer& s, int64_t m, int64_t n0, int64_t n1) {
  if (n1 - n0 > kMaxSoftmaxKeys) {
    return "softmax of one query: zoom in, to at most " + std::to_string(kMaxSoftmaxKeys) + " keys";
  }
  std::vector<double> row(static_cast<size_t>(n1 - n0));
  ScoreRow(s, m, n0, n1 - n0, row.data());
  const std::vector<double> w = SoftmaxRow(row);
  // Ties go to the key nearest the query, then the lower key, as the attention view's top keys
  // (AttentionRow::TopKeys) break them.
  auto distance = [&](size_t i) {
    const int64_t n = n0 + static_cast<int64_t>(i);
    return n > m ? n - m : m - n;
  };
  size_t top = 0;
  double entropy = 0.0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] > w[top] || (w[i] == w[top] && distance(i) < distance(top))) top = i;
    if (w[i] > 0) entropy -= w[i] * std::log(w[i]);
  }
  const auto ties = w.empty() ? 0 : std::count(w.begin(), w.end(), w[top]) - 1;
  if (w.empty() || w[top] == 0.0) {
    return "softmax of query m = " + std::to_string(m) + ": every visible key is masked";
  }
  return "softmax of query " + std::to_string(m) + " (outlined), over keys " + std::to_string(n0) +
         " to " + std::to_string(n1 - 1) + ": top key " +
         std::to_string(n0 + static_cast<int64_t>(top)) + ", weight " + Num(w[top], 3) +
         (ties > 0 ? " (tied with " + std::to_string(ties) + " more)" : std::string()) +
         ", exp(entropy) " + Num(std::exp(entropy), 4) + " keys";
}

// The score with no positional scheme (NoPE of this shape, content, scale, temperature and
// mask kept): the content term the score view's position part subtracts.
Result<AttentionScorer> ContentScorer(const ViewContext& c) {
  ModelParams m = c.params;
  m.pe.scheme = NopeParams{};
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  if (!e.ok()) return InvalidArgument("--score-part position: " + e.message());
  return AttentionScorer::Make(m, e.value());
}

// What the position part is, in the scheme's family's terms.
std::string PositionPartText(const Encoding& e, const ScoreContent& content) {
  const bool two = content.kind == ScoreContent::Kind::kTokens;
  const std::string xq = two ? "x_A" : "x", xk = two ? "x_B" : "x";
  const std::string dot = "\xc2\xb7";
  const std::string content_term = xq + dot + xk + " s";
  switch (e.family()) {
    case Family::kAdded: {
      const std::string pe(e.descriptor().vector_symbol);
      if (pe.empty()) {
        return "position part: score \xe2\x88\x92 " + content_term + " = 0 (no position)";
      }
      return "position part: score \xe2\x88\x92 " + content_term + " = (" + xq + dot + pe +
             "_n + " + pe + "_m" + dot + xk + " + " + pe + "_m" + dot + pe +
             "_n) s, the three terms with " + pe + " (s: the softmax scale)";
    }
    case Family::kRotary:
      return "position part: score \xe2\x88\x92 the same q" + dot + "k unrotated (" + content_term +
             ", s: the softmax scale): what turning q and k changes";
    case Family::kBias:
      break;
  }
  return "position part: score \xe2\x88\x92 " + content_term +
         " = the bias alone (s: the softmax scale)";
}

}  // namespace

std::string ScoreContentText(const ModelParams& m) {
  switch (m.content.kind) {
    case ScoreContent::Kind::kRandom:
      return "x: one N(0, 1) vector (seed " + std::to_string(m.example.seed) +
             "), as query and key";
    case ScoreContent::Kind::kOnes:
      return "x = (1, 1, ..., 1), as query and key";
    case ScoreContent::Kind::kTokens:
      break;
  }
  const std::vector<Token> tokens = ExampleTokens(m.example);
  auto name = [&](int64_t t) {
    return t >= 0 && t < static_cast<int64_t>(tokens.size())
               ? "\"" + VisibleWhitespace(tokens[static_cast<size_t>(t)].text) + "\""
               : std::string("?");
  };
  return "x_A: token " + std::to_string(m.content.token_a) + " " + name(m.content.token_a) +
         " (query), x_B: token " + std::to_string(m.content.token_b) + " " +
         name(m.content.token_b) + " (key), " +
         (m.input.scale ? std::string(kScaledEmbedding) : std::string("E")) + " rows";
}

// ---- score ------------------------------------------------------------------------------------

Result<Figure> ScoreFigure(const ViewContext& c) {
  Result<AttentionScorer> scorer = Scorer(c);
  if (!scorer.ok()) return scorer.error();
  const AttentionScorer& s = scorer.value();
  const Encoding& e = *c.encoding;
  const ModelParams& m = c.params;
  const std::string definition = ScoreDefinition(e, m.content, m.softmax_scale, m.temperature);
  Figure f;
  f.title = definition + " (" + e.Summary() + ")";
  f.x = {"key position n", true, false, true};
  f.y = {"query position m", true, true, true};
  f.view = ScoreWindow(c);
  const PixelSize px = PlotPixels(c, f);
  const ScoreRasterRequest req{f.view.x0,
                               f.view.x1,
                               f.view.y0,
                               f.view.y1,
                               std::min(px.width, 4096),
                               std::min(px.height, 4096)};
  if (Status st = CheckScoreRaster(s, req); !st.ok()) return st.error();
  ScoreRaster r = ComputeScoreRaster(s, req);
  if (Status st = RefuseSampledRaster(s, r); !st.ok()) return st.error();
  const bool position_part = m.score_part == ScorePart::kPosition;
  if (position_part) {
    // Texel by texel, the same texels of the content-only score subtracted (the content term
    // does not depend on the key, so which keys a texel samples does not change its mean).
    Result<AttentionScorer> content = ContentScorer(c);
    if (!content.ok()) return content.error();
    if (Status st = CheckScoreRaster(content.value(), req); !st.ok()) return st.error();
    const ScoreRaster r0 = ComputeScoreRaster(content.value(), req);
    assert(r0.values.size() == r.values.size() && "one request, one texel grid");
    for (size_t i = 0; i < r.values.size(); ++i) r.values[i] -= r0.values[i];
    f.title = "Position part of " + f.title;
  }
  // A diverging map centred on 0 with a symmetric range, whatever --colormap says (the table
  // heatmap's maps include a sequential one).
  double hi = MaxAbsIgnoringNaN(r.values);
  if (!(hi > 0.0)) hi = 1.0;
  f.colorbar = FigureColorBar{ColormapId::kRdBu, -hi, hi,
                              position_part ? "score(m, n) \xe2\x88\x92 content" : "score(m, n)"};
  bool any_masked = false;
  if (!r.empty()) {
    f.image = ValueImage(r.values, r.width, r.height,
                         {ColormapId::kRdBu, -hi, hi, FlatValues::kNaN, kMaskedGrey,
                          static_cast<double>(r.key_edges.front()), TexelImageEnd(r.key_edges),
                          static_cast<double>(r.query_edges.front()), TexelImageEnd(r.query_edges)},
                         &any_masked);
  }
  f.legend.push_back({definition, kNoColor});
  if (position_part) f.legend.push_back({PositionPartText(e, m.content), kNoColor});
  f.legend.push_back({ScoreContentText(m), kNoColor});
  if (m.softmax_scale > 0) f.legend.push_back({SoftmaxScaleText(m, s.dim()), kNoColor});
  if (m.attention_window.banded()) {
    f.legend.push_back(
        {"grey: masked, " + AttentionWindowRule(m.attention_window) +
             (e.Masked(0, 1) && !m.attention_window.hides_later() ? ", and causal ALiBi" : ""),
         kMaskedGrey});
  } else if (m.causal_mask) {
    f.legend.push_back({"grey: masked, causal (key after query, n > m)", kMaskedGrey});
  } else if (any_masked && e.descriptor().decays) {
    f.legend.push_back(
        {"grey: no number: the query's and key's scales \xce\xb6^(\xc2\xb1n/s) "
         "overflow float64 this far from position 0 (centred positions or a "
         "causal mask keep them in range)",
         kMaskedGrey});
  } else if (any_masked) {
    f.legend.push_back({"grey: masked, causal ALiBi, key after query", kMaskedGrey});
  }
  if (r.one_cell_per_texel) {
    f.legend.push_back({"one cell per texel", kNoColor});
  } else if (r.exact) {
    f.legend.push_back({"texel = exact mean of its cells", kNoColor});
  } else if (m.attention_window.banded()) {
    f.legend.push_back(
        {"texel = exact mean where wholly visible; partly masked: the mean of its visible cells, " +
             std::to_string(kScoreTexelSamples) + " rows \xc3\x97 " +
             std::to_string(kScoreTexelSamples) + " keys sampled evenly among them",
         kNoColor});
  } else {
    f.legend.push_back({"texel = mean of " + std::to_string(kScoreTexelSamples) + "\xc3\x97" +
                            std::to_string(kScoreTexelSamples) +
                            " cells sampled evenly in it, masked ones left out",
                        kNoColor});
  }
  if (!r.empty()) {
    // Where one query's attention goes: the last visible query, over the visible keys.
    const int64_t q = r.query_edges.back() - 1;
    const int64_t n0 = r.key_edges.front(), n1 = r.key_edges.back();
    if (n1 - n0 > kMaxSoftmaxKeys) {
      f.legend.push_back({SoftmaxNote(s, q, n0, n1), kNoColor});
    } else {
      f.legend.push_back({SoftmaxNote(s, q, n0, n1), SelectionHighlightColor(ColormapId::kRdBu)});
      const double row_height = FigurePlotBox(f, c.size).h / (f.view.y1 - f.view.y0);
      f.overlays.push_back({static_cast<double>(n0), static_cast<double>(q),
                            static_cast<double>(n1), static_cast<double>(q + 1),
                            SelectionHighlightColor(ColormapId::kRdBu), false,
                            SelectionLineWidth(row_height)});
    }
  }
  return f;
}

namespace {

// The (L, L) table needs L * L floats and the keys of every position (L, d) in double.
Status CheckScoreSize(const ViewContext& c) {
  const auto rows = static_cast<uint64_t>(c.encoding->rows());
  if (Status s = CheckFloatCount("the (query x key) score table", rows, rows, c.params.cap);
      !s.ok()) {
    return s;
  }
  // The position part keeps the content-only keys too.
  const uint64_t copies = c.params.score_part == ScorePart::kPosition ? 4 : 2;
  return CheckFloatCount("the score table's keys", rows,
                         copies * static_cast<uint64_t>(c.params.pe.d_model), c.params.cap);
}

}  // namespace

ViewRange ScoreWhole(const ModelParams&, const Encoding& e) {
  const auto first = static_cast<double>(e.first_position());
  return {first, first + static_cast<double>(e.rows()), first,
          first + static_cast<double>(e.rows())};
}

Status CheckScoreTable(const ViewContext& c) {
  if (Status s = CheckScoreSize(c); !s.ok()) return s;
  if (c.params.score_part == ScorePart::kPosition) {
    if (Status s = ContentScorer(c).status(); !s.ok()) return s;
  }
  return Scorer(c).status();
}

Status WriteScoreView(std::ostream& out, TableFormat format, const ViewContext& c,
                      const Progress& progress) {
  if (Status s = CheckScoreSize(c); !s.ok()) return s;
  Result<AttentionScorer> scorer = Scorer(c);
  if (!scorer.ok()) return scorer.error();
  const AttentionScorer& s = scorer.value();
  const Encoding& e = *c.encoding;
  const int64_t L = e.rows(), first = e.first_position();
  const std::vector<double> keys = ScoreKeys(s, first, L);  // (L, d)
  // The position part: the content-only scores (no positional scheme) subtracted cell by cell.
  std::optional<AttentionScorer> content;
  std::vector<double> content_keys, content_scores;
  if (c.params.score_part == ScorePart::kPosition) {
    Result<AttentionScorer> made = ContentScorer(c);
    if (!made.ok()) return made.error();
    content.emplace(std::move(made).value());
    content_keys = ScoreKeys(*content, first, L);
  }
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {L, L};
    out << NpyHeader(shape);
  } else {
    out << 'q';
    for (int64_t n = 0; n < L; ++n) out << ",k" << first + n;
    out << '\n';
  }
  const int64_t block_rows = std::min(TableBlockRows(L), L);
  std::vector<double> scores(static_cast<size_t>(block_rows * L));
  std::vector<float> block(static_cast<size_t>(block_rows * L));
  for (int64_t r0 = 0; r0 < L && out; r0 += block_rows) {
    const int64_t rows = std::min(block_rows, L - r0);
    ScoreBlock(s, keys.data(), first, L, first + r0, rows, scores.data());
    if (content) {
      content_scores.resize(scores.size());
      ScoreBlock(*content, content_keys.data(), first, L, first + r0, rows, content_scores.data());
      for (size_t i = 0; i < static_cast<size_t>(rows * L); ++i) scores[i] -= content_scores[i];
    }
    std::transform(scores.begin(), scores.begin() + rows * L, block.begin(),
                   [](double v) { return static_cast<float>(v); });
    if (format == TableFormat::kNpy) {
      WriteFloatsLE(out, block.data(), rows * L);
    } else {
      for (int64_t i = 0; i < rows; ++i) {
        std::string line = std::to_string(first + r0 + i);
        const float* v = block.data() + i * L;
        for (int64_t n = 0; n < L; ++n) {
          line += ',';
          if (!std::isnan(v[n])) line += FormatFloat(v[n]);
        }
        line += '\n';
        out.write(line.data(), static_cast<std::streamsize>(line.size()));
      }
    }
    if (progress && !progress(static_cast<double>(r0 + rows) / static_cast<double>(L))) {
      return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// ---- decay ------------------------------------------------------------------------------------

namespace {

struct DecayScheme {
  std::string tag;    // the column name: the encoding's file tag, made unique
  std::string label;  // the legend: the encoding's summary
  AttentionScorer scorer;
};

// This scheme, then each --compare scheme with its defaults and this shape (d_model, max_len,
// offset). A compared scheme equal to this one is left out.
Result<std::vector<DecayScheme>> DecaySchemes(const ViewContext& c) {
  std::vector<DecayScheme> out;
  auto add = [&](const ModelParams& m, const EncodingPtr& e,
                 const std::string& label_prefix = {}) -> Status {
    for (const DecayScheme& d : out) {
      if (d.scorer.encoding().params() == e->params()) return {};
    }
    Result<AttentionScorer> s = AttentionScorer::Make(m, e);
    if (!s.ok()) return s.status();
    std::string tag = e->FileTag();
    int copies = 1;
    for (const DecayScheme& d : out) copies += d.tag.rfind(tag, 0) == 0 ? 1 : 0;
    if (copies > 1) tag += "-" + std::to_string(copies);
    std::string label = label_prefix + e->Summary();
    if (e->params().kind() == Scheme::kT5 && !e->params().t5().bias.loaded()) {
      // Seeded N(0, 1) biases: a curve of noise, said so (a trained table: --positions-table).
      label += " \xe2\x80\x94 biases seeded at random (seed " +
               std::to_string(e->params().t5().seed) +
               "): meaningless until a trained table is loaded";
    }
    out.push_back({tag, label, std::move(s).value()});
    return {};
  };
  // Layers compared: each curve names its layer, this one's too.
  const bool layers = c.params.model && c.params.compare.find("layer:") != std::string::npos;
  const std::string own_prefix =
      layers ? "layer " + std::to_string(c.params.model_layer) + ": " : std::string();
  if (Status s = add(c.params, c.encoding, own_prefix); !s.ok()) return s.error();
  const std::string& list = c.params.compare;
  size_t start = 0;
  while (!list.empty() && start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string name = list.substr(start, comma - start);
    start = comma + 1;
    if (name.rfind("layer:", 0) == 0) {
      // A layer of the opened model, with this one's rows and offset.
      if (!c.params.model) {
        return InvalidArgument("--compare " + name + ": no model is open (--model or " +
                               "--model-config gives its layers)");
      }
      const int64_t layer = std::strtoll(name.c_str() + 6, nullptr, 10);
      ModelParams m = c.params;
      if (Status s = ApplyLayer(*c.params.model, layer, m); !s.ok()) {
        return InvalidArgument("--compare " + name + ": " + s.message());
      }
      Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
      if (!e.ok()) return InvalidArgument("--compare " + name + ": " + e.message());
      if (Status s = add(m, e.value(), "layer " + std::to_string(layer) + ": "); !s.ok()) {
        return InvalidArgument("--compare " + name + ": " + s.message());
      }
      continue;
    }
    const std::optional<Scheme> scheme = ParseScheme(name);
    if (!scheme) return InvalidArgument("--compare: \"" + name + "\" is not a scheme");
    // Reset first: SetScheme keeps the parameters when the scheme is already chosen.
    ModelParams m = c.params;
    m.pe.scheme = SinusoidalParams{};
    SetScheme(m, *scheme);
    Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
    if (!e.ok()) return InvalidArgument("--compare " + name + ": " + e.message());
    if (Status s = add(m, e.value()); !s.ok()) {
      return InvalidArgument("--compare " + name + ": " + s.message());
    }
  }
  return out;
}

std::vector<int64_t> AllDistances(int64_t n0, int64_t count) {
  std::vector<int64_t> out(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) out[static_cast<size_t>(k)] = n0 + k;
  return out;
}

// The integer distances a curve over [0, L) is drawn through: every one when they fit in
// `samples`, else `samples` spread evenly (always 0 and L - 1).
std::vector<int64_t> CurveDistances(int64_t L, int samples) {
  if (L <= samples) return AllDistances(0, L);
  std::vector<int64_t> out;
  for (int k = 0; k < samples; ++k) {
    const auto dist = static_cast<int64_t>(
        std::llround(static_cast<double>(L - 1) * k / static_cast<double>(samples - 1)));
    if (out.empty() || dist != out.back()) out.push_back(dist);
  }
  return out;
}

// The softmax normalisation sums over every distance: at most this many.
constexpr int64_t kMaxSoftmaxDistances = int64_t{1} << 22;

// What --decay-norm needs of one curve: its score at distance 0, and for the softmax
// log sum_j exp(s(j)) over every distance j = 0..L-1 (masked ones left out), summed from the
// largest score down so nothing overflows.
struct DecayNormalizer {
  DecayNorm norm = DecayNorm::kRaw;
  double zero = 0.0;
  double log_sum = 0.0;
  double Apply(double score) const {
    switch (norm) {
      case DecayNorm::kMinusZero:
        return score - zero;
      case DecayNorm::kSoftmax:
        return std::exp(score - log_sum);
      case DecayNorm::kRaw:
        break;
    }
    return score;
  }
  void Apply(std::vector<double>& curve) const {
    for (double& v : curve) {
      if (!std::isnan(v)) v = Apply(v);
    }
  }
};

Status CheckDecayNorm(const ModelParams& m, int64_t L) {
  if (m.decay_norm == DecayNorm::kSoftmax && L > kMaxSoftmaxDistances) {
    return InvalidArgument("--decay-norm softmax sums over every distance, at most " +
                           std::to_string(kMaxSoftmaxDistances) + ", and max_len is " +
                           std::to_string(L) + ": use raw or minus-zero, or a shorter max_len");
  }
  return {};
}

DecayNormalizer MakeDecayNormalizer(const AttentionScorer& s, DecayNorm norm) {
  DecayNormalizer out;
  out.norm = norm;
  if (norm == DecayNorm::kRaw) return out;
  const int64_t zero[] = {0};
  out.zero = DecayCurve(s, zero).front();
  if (norm != DecayNorm::kSoftmax) return out;
  const int64_t L = s.encoding().rows();
  // Online: the sum is kept relative to the largest score so far, rescaled when it grows.
  double hi = -INFINITY, sum = 0.0;
  constexpr int64_t kChunk = int64_t{1} << 14;
  std::vector<int64_t> dist;
  for (int64_t k0 = 0; k0 < L; k0 += kChunk) {
    dist.resize(static_cast<size_t>(std::min(kChunk, L - k0)));
    for (size_t i = 0; i < dist.size(); ++i) dist[i] = k0 + static_cast<int64_t>(i);
    for (double v : DecayCurve(s, dist)) {
      if (std::isnan(v)) continue;
      if (v > hi) {
        sum = sum * std::exp(hi - v) + 1.0;
        hi = v;
      } else {
        sum += std::exp(v - hi);
      }
    }
  }
  out.log_sum = hi + std::log(sum);
  return out;
}

// "softmax weight exp(s(k)) / sum_j exp(s(j)), j = 0..L-1": the y axis's name for each norm.
std::string DecayAxisLabel(DecayNorm norm, int64_t first, bool log_y) {
  const std::string score = "score(n + k, n), n = " + std::to_string(first);
  switch (norm) {
    case DecayNorm::kMinusZero:
      return score + ", minus its value at k = 0";
    case DecayNorm::kSoftmax:
      return std::string(log_y ? "softmax weight (log axis)" : "softmax weight") +
             " exp s(k) / \xce\xa3_j exp s(j)";
    case DecayNorm::kRaw:
      break;
  }
  return score;
}

// The log axis's bottom: 1e-16.
constexpr double kLogFloor = -16.0;

// A y range over the finite values with 6% room (at least +-0.05).
ViewRange FitY(const std::vector<std::vector<double>>& ys, double x0, double x1) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& v : ys) {
    for (double y : v) {
      if (!std::isfinite(y)) continue;
      lo = std::min(lo, y);
      hi = std::max(hi, y);
    }
  }
  if (!std::isfinite(lo)) lo = -1, hi = 1;
  const double pad = std::max(0.05, (hi - lo) * 0.06);
  return {x0, x1, lo - pad, hi + pad};
}

// Writes a table of distances (L rows) and `columns` values per distance from `fill`, which
// fills the values of a block of distances.
template <typename Fill>
Status WriteDistanceTable(std::ostream& out, TableFormat format, int64_t L,
                          const std::vector<std::string>& columns, const Progress& progress,
                          Fill fill) {
  const auto cols = static_cast<int64_t>(columns.size());
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {L, 1 + cols};
    out << NpyHeader(shape);
  } else {
    out << "distance";
    for (const std::string& name : columns) out << ',' << name;
    out << '\n';
  }
  const int64_t block_rows = std::min(TableBlockRows(1 + cols), L);
  std::vector<double> values(static_cast<size_t>(block_rows * cols));
  std::vector<float> row(static_cast<size_t>(1 + cols));
  for (int64_t r0 = 0; r0 < L && out; r0 += block_rows) {
    const int64_t rows = std::min(block_rows, L - r0);
    fill(r0, rows, values.data());  // (cols, rows) column-major
    for (int64_t i = 0; i < rows; ++i) {
      row[0] = static_cast<float>(r0 + i);
      for (int64_t j = 0; j < cols; ++j) {
        row[static_cast<size_t>(1 + j)] =
            static_cast<float>(values[static_cast<size_t>(j * rows + i)]);
      }
      if (format == TableFormat::kNpy) {
        WriteFloatsLE(out, row.data(), 1 + cols);
      } else {
        std::string line = std::to_string(r0 + i);
        for (int64_t j = 0; j < cols; ++j) {
          // A masked distance (a window hides the key from the query): an empty cell, as the
          // score table's masked cells.
          const float v = row[static_cast<size_t>(1 + j)];
          line += ',';
          if (!std::isnan(v)) line += FormatFloat(v);
        }
        line += '\n';
        out.write(line.data(), static_cast<std::streamsize>(line.size()));
      }
    }
    if (progress && !progress(static_cast<double>(r0 + rows) / static_cast<double>(L))) {
      return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

}  // namespace

// Decades (and 2 and 5 within them when fewer than three decades show) on a log10 axis.
std::vector<Tick> LogTicks(double y0, double y1) {
  std::vector<Tick> out;
  const bool fine = y1 - y0 < 3.0;
  const double step = std::max(1.0, std::ceil((y1 - y0) / 8.0));  // at most about 8 decades
  for (double e = step * std::floor(y0 / step); e <= std::ceil(y1); e += step) {
    for (double mantissa : {1.0, 2.0, 5.0}) {
      if (mantissa != 1.0 && !fine) continue;
      const double at = e + std::log10(mantissa);
      if (at < y0 || at > y1) continue;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%ge%d", mantissa, static_cast<int>(e));
      out.push_back({at, buf});
    }
  }
  return out;
}

Result<Figure> DecayFigure(const ViewContext& c) {
  Result<std::vector<DecayScheme>> schemes = DecaySchemes(c);
  if (!schemes.ok()) return schemes.error();
  const Encoding& e = *c.encoding;
  const int64_t L = e.rows(), first = e.first_position();
  Figure f;
  f.title = "Attention score against distance: the key at position " + std::to_string(first) +
            ", the query k positions after it";
  const DecayNorm norm = c.params.decay_norm;
  const bool log_y = c.params.decay_log_y;
  if (log_y && norm != DecayNorm::kSoftmax) {
    return InvalidArgument(
        "--log-y: a log axis needs positive values, and the " + std::string(DecayNormName(norm)) +
        " curves go below 0: use it with --decay-norm softmax (the weights are positive)");
  }
  if (Status st = CheckDecayNorm(c.params, L); !st.ok()) return st.error();
  f.x = {"distance k = m \xe2\x88\x92 n", false, false, true};
  f.y = {DecayAxisLabel(norm, first, log_y), false, false};
  const double x0 = L > 1 ? 0.0 : -0.5, x1 = L > 1 ? static_cast<double>(L - 1) : 0.5;
  f.view = {x0, x1, -1, 1};
  const PixelSize px = PlotPixels(c, f);
  const std::vector<int64_t> dist = CurveDistances(L, CurveSamples(px.width));
  std::vector<std::vector<double>> ys;
  for (const DecayScheme& d : schemes.value()) {
    ys.push_back(DecayCurve(d.scorer, dist));
    MakeDecayNormalizer(d.scorer, norm).Apply(ys.back());
    if (log_y) {
      // log10 of the weight; a weight that underflows to 0 has no point on the axis.
      for (double& v : ys.back()) v = v > 0 ? std::log10(v) : (std::isnan(v) ? v : -INFINITY);
    }
  }
  f.view = FitY(ys, x0, x1);
  bool clipped = false;
  if (log_y) {
    // Weights are at most 1; below 1e-16 a weight is lost beside 1 in float64, and a steep
    // curve (ALiBi's head 0 reaches 1e-107 at L = 491) would squeeze every other into a line.
    const double span = f.view.y1 - f.view.y0;
    f.view.y1 = std::min(f.view.y1, 0.03 * span);
    if (f.view.y0 < kLogFloor) {
      f.view.y0 = kLogFloor;
      clipped = true;
    }
    f.y.ticks = LogTicks(f.view.y0, f.view.y1);
  } else {
    f.hlines.push_back(0.0);
  }
  // A window that hides the query past some distance from the key: those distances shaded, as
  // the score view's masked cells (the first hidden one, since the visible keys of a query are a
  // run that moves right with it).
  const AttentionScorer& own = schemes.value().front().scorer;
  int64_t hidden_from = L;
  if (own.banded()) {
    int64_t lo = 1, hi = L;  // the first k in [1, L) whose query does not see the key
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (own.Masked(first + mid, first)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    hidden_from = lo;
    if (hidden_from < L) {
      f.rects.push_back({static_cast<double>(hidden_from) - 0.5, f.view.y0, x1 + 0.5, f.view.y1,
                         Rgba8{150, 150, 150, 70}, true, 1.0});
    }
  }
  const bool markers = static_cast<int64_t>(dist.size()) == L && px.width >= 4 * L;
  for (size_t i = 0; i < ys.size(); ++i) {
    FigureSeries line;
    line.color = SeriesRgba(static_cast<int>(i));
    line.line_width = 1.5;
    for (size_t k = 0; k < dist.size(); ++k) {
      // The distances a window hides end the line (they are the last ones).
      if (own.banded() && std::isnan(ys[i][k])) break;
      if (std::isinf(ys[i][k])) continue;  // a weight of 0 on the log axis
      line.xs.push_back(static_cast<double>(dist[k]));
      line.ys.push_back(ys[i][k]);
    }
    if (markers) {
      line.marker_xs = line.xs;
      line.marker_ys = line.ys;
    }
    f.series.push_back(std::move(line));
    const DecayScheme& d = schemes.value()[i];
    f.legend.push_back({d.label, SeriesRgba(static_cast<int>(i))});
  }
  // Each family's definition once (the schemes may add, rotate or bias).
  std::vector<std::string> definitions;
  for (const DecayScheme& d : schemes.value()) {
    const std::string def = ScoreDefinition(d.scorer.encoding(), c.params.content,
                                            c.params.softmax_scale, c.params.temperature);
    if (std::find(definitions.begin(), definitions.end(), def) == definitions.end()) {
      definitions.push_back(def);
      f.legend.push_back({def, kNoColor});
    }
  }
  f.legend.push_back({ScoreContentText(c.params), kNoColor});
  if (c.params.softmax_scale > 0) {
    f.legend.push_back({SoftmaxScaleText(c.params, e.params().d_model), kNoColor});
  }
  if (clipped) {
    f.legend.push_back({"weights below 1e-16 run off the bottom of the axis", kNoColor});
  }
  if (norm == DecayNorm::kMinusZero) {
    f.legend.push_back(
        {"each curve minus its own score at k = 0: what distance takes away", kNoColor});
  } else if (norm == DecayNorm::kSoftmax) {
    f.legend.push_back({"each curve as softmax weights over its " + std::to_string(L) +
                            " distances (they sum to 1): for a relative scheme, where the "
                            "last query's causal attention goes",
                        kNoColor});
  }
  if (own.banded()) {
    f.legend.push_back(
        {hidden_from < L
             ? "shaded: masked, " + AttentionWindowRule(own.window()) +
                   ": the query no longer sees the key from k = " + std::to_string(hidden_from)
             : AttentionWindowRule(own.window()) + ": every distance drawn is visible",
         Rgba8{150, 150, 150, 70}});
  }
  if (static_cast<int64_t>(dist.size()) < L) {
    f.legend.push_back({"drawn through " + std::to_string(dist.size()) + " of " +
                            std::to_string(L) + " distances, spread evenly",
                        kNoColor});
  }
  return f;
}

Status CheckDecayTable(const ViewContext& c) {
  if (Status s = CheckDecayNorm(c.params, c.encoding->rows()); !s.ok()) return s;
  Result<std::vector<DecayScheme>> schemes = DecaySchemes(c);
  if (!schemes.ok()) return schemes.error();
  return CheckFloatCount("the decay table", static_cast<uint64_t>(c.encoding->rows()),
                         1 + schemes.value().size(), c.params.cap);
}

Status WriteDecayView(std::ostream& out, TableFormat format, const ViewContext& c,
                      const Progress& progress) {
  if (Status s = CheckDecayTable(c); !s.ok()) return s;
  Result<std::vector<DecayScheme>> schemes = DecaySchemes(c);
  if (!schemes.ok()) return schemes.error();
  std::vector<std::string> names;
  std::vector<DecayNormalizer> norms;
  for (const DecayScheme& d : schemes.value()) {
    names.push_back(d.tag);
    norms.push_back(MakeDecayNormalizer(d.scorer, c.params.decay_norm));
  }
  return WriteDistanceTable(out, format, c.encoding->rows(), names, progress,
                            [&](int64_t r0, int64_t rows, double* values) {
                              const std::vector<int64_t> dist = AllDistances(r0, rows);
                              for (size_t j = 0; j < schemes.value().size(); ++j) {
                                std::vector<double> v = DecayCurve(schemes.value()[j].scorer, dist);
                                norms[j].Apply(v);
                                std::copy(v.begin(), v.end(),
                                          values + static_cast<int64_t>(j) * rows);
                              }
                            });
}

// ---- RoFormer's bound -------------------------------------------------------------------------

namespace {

Status CheckRoformerShape(const EncodingParams& p) {
  if (p.d_model < 2 || p.d_model % 2 != 0) {
    return InvalidArgument(
        "the roformer-decay view needs an even head dimension d_model >= 2, got " +
        std::to_string(p.d_model));
  }
  return {};
}

// The model's rotation frequencies in pair order, after its scaling (the paper's theta^(-2k/d)
// without one).
std::vector<double> RoformerFrequencies(const Encoding& e) {
  std::vector<double> out;
  for (const RotaryPair& pair : e.rotary_pairs()) out.push_back(pair.frequency);
  return out;
}

}  // namespace

Result<Figure> RoformerDecayFigure(const ViewContext& c) {
  const EncodingParams& p = c.params.pe;
  if (Status s = CheckRoformerShape(p); !s.ok()) return s.error();
  const double theta = p.rope().theta;
  const int64_t L = p.max_len;
  const std::vector<double> freqs = RoformerFrequencies(*c.encoding);
  const bool scaled = p.rope().scaling != RopeScaling::kNone || p.rope().rotary_fraction != 1.0;
  Figure f;
  f.title = "Long-term decay of RoPE (RoFormer, Figure 2): d = " + std::to_string(p.d_model) +
            ", \xce\xb8 = " + Num(theta, 6);
  if (scaled) {
    // The scaling with what it depends on (factor, original length, ...): enough to regenerate.
    const RopeParams& r = p.rope();
    f.title += c.encoding->ScalingText();
    if (r.rotary_fraction != 1.0) f.title += ", rotary fraction " + Num(r.rotary_fraction, 6);
  }
  f.x = {"relative distance", false, false, true};
  f.y = {"relative upper bound", false, false};
  const double x0 = L > 1 ? 0.0 : -0.5, x1 = L > 1 ? static_cast<double>(L - 1) : 0.5;
  f.view = {x0, x1, 0, 1};
  const PixelSize px = PlotPixels(c, f);
  const std::vector<int64_t> dist = CurveDistances(L, CurveSamples(px.width));
  FigureSeries line;
  line.color = SeriesRgba(0);
  line.line_width = 1.5;
  std::vector<double> ys(dist.size());
#pragma omp parallel for schedule(static) if (dist.size() * static_cast <size_t>(p.d_model) >= \
                                              (size_t{1} << 16))
  for (size_t k = 0; k < dist.size(); ++k) {
    ys[k] = RoformerDecayBound(freqs, static_cast<double>(dist[k]));
  }
  for (size_t k = 0; k < dist.size(); ++k) {
    line.xs.push_back(static_cast<double>(dist[k]));
    line.ys.push_back(ys[k]);
  }
  const ViewRange fitted = FitY({ys}, x0, x1);
  f.view = {x0, x1, std::min(0.0, fitted.y0), fitted.y1};
  f.series.push_back(std::move(line));
  const std::string bound =
      "(1/(d/2)) \xce\xa3_{j=1}^{d/2} |S_j|,  S_j = \xce\xa3_{k=0}^{j-1} e^{i r \xce\xb8_k}";
  f.legend.push_back({bound + (scaled ? std::string(",  \xce\xb8_k: the model's frequencies")
                                      : std::string(",  \xce\xb8_k = \xce\xb8^(\xe2\x88\x92"
                                                    "2k/d)")),
                      SeriesRgba(0)});
  f.legend.push_back({"r: relative distance m \xe2\x88\x92 n", kNoColor});
  if (scaled) {
    // Which frequencies: the scaling with what it depends on (factor, original length, ...).
    std::string scaling = RopeScalingText(p, 1.0);  // ", yarn x8 (original 8192)"
    if (p.rope().rotary_fraction != 1.0) {
      scaling += ", rotary fraction " + Num(p.rope().rotary_fraction, 6);
    }
    f.legend.push_back({"\xce\xb8_k: the model's " + std::to_string(freqs.size()) +
                            " rotation frequencies after its scaling (" + scaling.substr(2) +
                            "); the paper's \xce\xb8^(\xe2\x88\x92" + "2k/d) without one",
                        kNoColor});
  }
  if (static_cast<int64_t>(dist.size()) < L) {
    f.legend.push_back({"drawn through " + std::to_string(dist.size()) + " of " +
                            std::to_string(L) + " distances, spread evenly",
                        kNoColor});
  }
  return f;
}

Status CheckRoformerDecayTable(const ViewContext& c) {
  if (Status s = CheckRoformerShape(c.params.pe); !s.ok()) return s;
  return CheckFloatCount("the roformer-decay table", static_cast<uint64_t>(c.params.pe.max_len), 2,
                         c.params.cap);
}

Status WriteRoformerDecayView(std::ostream& out, TableFormat format, const ViewContext& c,
                              const Progress& progress) {
  if (Status s = CheckRoformerDecayTable(c); !s.ok()) return s;
  const EncodingParams& p = c.params.pe;
  const std::vector<double> freqs = RoformerFrequencies(*c.encoding);
  return WriteDistanceTable(out, format, p.max_len, {"bound"}, progress,
                            [&](int64_t r0, int64_t rows, double* values) {
#pragma omp parallel for schedule(static) if (rows * p.d_model >= (int64_t{1} << 16))
                              for (int64_t i = 0; i < rows; ++i) {
                                values[i] = RoformerDecayBound(freqs, static_cast<double>(r0 + i));
                              }
                            });
}

// As the bias figure (bias_views.cpp: a (query x key) image at screen resolution, at most 4096
// texels a side, plus a curve); scores without a closed form over their texels (a learned
// table, xPos over a wide window) also average the queries of each texel row and the keys of
// each texel column: (texel rows + columns) x d doubles.
uint64_t ScoreEstimate(const EstimateContext& c) {
  const uint64_t w = EstimatedScreenTexels(c.width_px), h = EstimatedScreenTexels(c.height_px);
  return BiasEstimate(c) + 8 * (w + h) * static_cast<uint64_t>(c.params.pe.d_model);
}

// A few lines (the schemes compared) sampled twice per pixel, with markers: the decay and
// RoFormer decay figures.
uint64_t DecayEstimate(const EstimateContext& c) {
  const uint64_t samples = EstimatedCurveSamples(c.width_px) + c.width_px;
  return kFigureBytesPerCurveSample * samples * 8;
}

}  // namespace pe
