// The projection view: the sentence's token vectors in two dimensions by PCA (analysis/pca.h),
// each token twice: its embedding alone (E x sqrt(d), or E without scaling) and the model input
// (that plus its positional vector), joined by an arrow, so one sees position pull repeated or
// similar tokens apart. The principal axes are fitted on the union of both sets (2T points), so
// the two are drawn in the same coordinates. Only for schemes that add a vector.
//   CSV: token,position,id,part,pc1,pc2 (part "embedding" or "input"; embedding rows first)
//   NPY: (2, T, 2) float32: [part, token, (pc1, pc2)], part 0 the embedding, 1 the input.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/pca.h"
#include "io/file_writers.h"
#include "text/tokenizer.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/view_builders.h"

namespace pe {
namespace {

// 2T points must fit the PCA.
constexpr int64_t kMaxProjectionTokens = kMaxPcaPoints / 2;
// Labels are drawn up to this many tokens; beyond, the hover names the points.
constexpr int64_t kMaxLabelledTokens = 40;

struct Projection {
  SentenceResult sentence;
  Pca2 pca;
  std::vector<std::array<double, 2>> embedding, input;  // (T) each
};

Result<Projection> ComputeProjection(const ViewContext& c) {
  const ModelParams& m = c.params;
  Result<SentenceResult> s =
      ComputeSentence(m.example, *c.encoding, m.input, m.cap, c.sel.batch_row);
  if (!s.ok()) return s.error();
  Projection p;
  p.sentence = std::move(s).value();
  const InputParts& parts = p.sentence.parts;
  const int64_t t_count = parts.tokens();
  if (t_count == 0) return InvalidArgument(NoTokensMessage(m.example.text));
  if (t_count > kMaxProjectionTokens) {
    return InvalidArgument("the projection view fits at most " +
                           std::to_string(kMaxProjectionTokens) + " tokens; the sentence has " +
                           std::to_string(t_count) + " (shorten the text or the ids)");
  }
  const int64_t d = parts.scaled.cols;
  if (d < 2) {
    return InvalidArgument(
        "nothing to project: at d_model 1 each token vector is a single number (the sums view "
        "shows it); the projection onto two axes needs d_model 2 or more");
  }
  Matrix both;  // (2T, d): the embeddings, then the inputs
  both.rows = 2 * t_count;
  both.cols = d;
  both.data.reserve(static_cast<size_t>(2 * t_count * d));
  both.data.insert(both.data.end(), parts.scaled.data.begin(), parts.scaled.data.end());
  both.data.insert(both.data.end(), parts.sum.data.begin(), parts.sum.data.end());
  Result<Pca2> pca = FitPca2(both);
  if (!pca.ok()) return pca.error();
  p.pca = std::move(pca).value();
  if (!(p.pca.total_variance > 0)) {
    return InvalidArgument(
        "nothing to project: every token vector, alone and with its position, is the same "
        "point (no variance to lay out on axes)");
  }
  for (int64_t t = 0; t < t_count; ++t) {
    p.embedding.push_back(ProjectPca2(p.pca, parts.scaled.row(t)));
    p.input.push_back(ProjectPca2(p.pca, parts.sum.row(t)));
  }
  return p;
}

std::string Percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * ratio);
  return buf;
}

std::string Coords(const std::array<double, 2>& v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "(%.3f, %.3f)", v[0], v[1]);
  return buf;
}

}  // namespace

Result<Figure> ProjectionFigure(const ViewContext& c) {
  Result<Projection> r = ComputeProjection(c);
  if (!r.ok()) {
    const Result<SentenceResult> s = ComputeSentence(c.params.example, *c.encoding, c.params.input,
                                                     c.params.cap, c.sel.batch_row);
    if (s.ok() && s.value().tokens.empty()) {
      return NoTokensFigure(c.params, "Token vectors projected: no tokens", {-1, 1, -1, 1});
    }
    return r.error();
  }
  const Projection& p = r.value();
  const ModelParams& m = c.params;
  const SentenceResult& s = p.sentence;
  const auto t_count = static_cast<int64_t>(p.embedding.size());
  const bool learned = c.encoding->scheme() == Scheme::kLearned;
  const char* pos = learned ? "W_pos" : "PE";
  const std::string emb_name = m.input.scale ? "E \xc3\x97 \xe2\x88\x9a"
                                               "d"
                                             : "E";
  Figure f;
  f.title = "PCA of the tokens: " + emb_name + " alone and " + emb_name + " + " + pos +
            " (the input), d_model = " + std::to_string(m.pe.d_model);
  f.x = {"PC1 (" + Percent(p.pca.ratio[0]) + " of the variance)", false, false};
  f.y = {"PC2 (" + Percent(p.pca.ratio[1]) + " of the variance)", false, false};
  f.equal_aspect = true;
  const Rgba8 emb_color = SeriesRgba(1), input_color = SeriesRgba(3);
  const Rgba8 arrow_color{120, 120, 130, 200};
  // The view: every point, padded so labels and markers stay inside.
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (const auto* set : {&p.embedding, &p.input}) {
    for (const auto& v : *set) {
      x0 = std::min(x0, v[0]);
      x1 = std::max(x1, v[0]);
      y0 = std::min(y0, v[1]);
      y1 = std::max(y1, v[1]);
    }
  }
  const double span = std::max({x1 - x0, y1 - y0, 1e-9});
  f.view = {x0 - 0.12 * span, x1 + 0.12 * span, y0 - 0.12 * span, y1 + 0.12 * span};
  f.hlines.push_back(0.0);
  // Arrows from each token's embedding to its input, heads 3% of the span long.
  const double head = 0.03 * span;
  for (int64_t t = 0; t < t_count; ++t) {
    const auto& a = p.embedding[static_cast<size_t>(t)];
    const auto& b = p.input[static_cast<size_t>(t)];
    FigureSeries line;
    line.color = arrow_color;
    line.line_width = 1.0;
    line.xs = {a[0], b[0]};
    line.ys = {a[1], b[1]};
    f.series.push_back(line);
    const double dx = b[0] - a[0], dy = b[1] - a[1];
    const double len = std::hypot(dx, dy);
    if (len > 2 * head) {
      const double ux = dx / len, uy = dy / len;
      for (double side : {-1.0, 1.0}) {
        // 25 degrees either side of the shaft.
        const double c25 = 0.9063, s25 = 0.4226 * side;
        FigureSeries barb;
        barb.color = arrow_color;
        barb.line_width = 1.0;
        barb.xs = {b[0], b[0] - head * (ux * c25 - uy * s25)};
        barb.ys = {b[1], b[1] - head * (uy * c25 + ux * s25)};
        f.series.push_back(barb);
      }
    }
  }
  FigureSeries emb, input;
  emb.color = emb_color;
  input.color = input_color;
  emb.marker_radius = input.marker_radius = 3.2;
  for (int64_t t = 0; t < t_count; ++t) {
    emb.marker_xs.push_back(p.embedding[static_cast<size_t>(t)][0]);
    emb.marker_ys.push_back(p.embedding[static_cast<size_t>(t)][1]);
    input.marker_xs.push_back(p.input[static_cast<size_t>(t)][0]);
    input.marker_ys.push_back(p.input[static_cast<size_t>(t)][1]);
  }
  f.series.push_back(emb);
  f.series.push_back(input);
  // Labels: the inputs as "word p", the embeddings once per id (repeated words coincide there).
  std::vector<int64_t> labelled_ids;
  for (int64_t t = 0; t < t_count; ++t) {
    const std::string word = VisibleWhitespace(s.tokens[static_cast<size_t>(t)].text);
    const int64_t position = m.pe.offset + t;
    const int64_t id = s.ids[static_cast<size_t>(t)];
    const std::string who = "\"" + word + "\" (id " + std::to_string(id) + ", position " +
                            std::to_string(position) + ")";
    const bool label = t < kMaxLabelledTokens;
    f.labels.push_back(
        {p.input[static_cast<size_t>(t)][0], p.input[static_cast<size_t>(t)][1],
         label ? word + " " + std::to_string(position) : std::string(), input_color,
         who + ": " + emb_name + " + " + pos + " at " + Coords(p.input[static_cast<size_t>(t)])});
    const bool first_of_id =
        std::find(labelled_ids.begin(), labelled_ids.end(), id) == labelled_ids.end();
    if (first_of_id) labelled_ids.push_back(id);
    f.labels.push_back(
        {p.embedding[static_cast<size_t>(t)][0], p.embedding[static_cast<size_t>(t)][1],
         label && first_of_id ? word : std::string(), emb_color,
         who + ": " + emb_name + " alone at " + Coords(p.embedding[static_cast<size_t>(t)])});
  }
  const Rgba8 none{255, 255, 255, 0};
  f.legend.push_back({emb_name + ": the token alone", emb_color});
  f.legend.push_back({emb_name + " + " + pos + ": the model input", input_color});
  f.legend.push_back({"arrow: what position adds", arrow_color});
  f.legend.push_back({"Axes fitted on both sets together (" + std::to_string(2 * t_count) +
                          " points), so both share one frame",
                      none});
  f.legend.push_back(
      {"PC1 + PC2 explain " + Percent(p.pca.ratio[0] + p.pca.ratio[1]) + " of the variance", none});
  f.legend.push_back({"Signs: each axis's largest loading is positive", none});
  if (m.example.init == EmbeddingInit::kTorch) {
    f.legend.push_back({"E: torch.manual_seed(" + std::to_string(m.example.torch_seed) +
                            "); nn.Embedding(" + std::to_string(s.vocab_size) + ", " +
                            std::to_string(m.pe.d_model) + ")",
                        none});
  } else {
    f.legend.push_back({"E: random, untrained: " + InitFormula(m.example.init, m.pe.d_model) +
                            ", seed " + std::to_string(m.example.seed),
                        none});
  }
  if (t_count > kMaxLabelledTokens) {
    f.legend.push_back({"labels on the first " + std::to_string(kMaxLabelledTokens) + " of " +
                            std::to_string(t_count) + " tokens",
                        none});
  }
  return f;
}

Status CheckProjectionTable(const ViewContext& c) {
  Result<Projection> r = ComputeProjection(c);
  return r.ok() ? Status{} : Status(r.error());
}

Status WriteProjectionView(std::ostream& out, TableFormat format, const ViewContext& c,
                           const Progress& progress) {
  Result<Projection> r = ComputeProjection(c);
  if (!r.ok()) return r.error();
  const Projection& p = r.value();
  const SentenceResult& s = p.sentence;
  const auto t_count = static_cast<int64_t>(p.embedding.size());
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {2, t_count, 2};
    out << NpyHeader(shape);
  } else {
    out << "token,position,id,part,pc1,pc2\n";
  }
  for (int part = 0; part < 2 && out; ++part) {
    const auto& set = part == 0 ? p.embedding : p.input;
    for (int64_t t = 0; t < t_count; ++t) {
      const float v[2] = {static_cast<float>(set[static_cast<size_t>(t)][0]),
                          static_cast<float>(set[static_cast<size_t>(t)][1])};
      if (format == TableFormat::kNpy) {
        WriteFloatsLE(out, v, 2);
        continue;
      }
      // The token text quoted as CSV requires (RFC 4180).
      std::string quoted = "\"";
      for (char ch : s.tokens[static_cast<size_t>(t)].text) {
        if (ch == '"') quoted += '"';
        quoted += ch;
      }
      quoted += '"';
      out << quoted << ',' << c.params.pe.offset + t << ',' << s.ids[static_cast<size_t>(t)] << ','
          << (part == 0 ? "embedding" : "input") << ',' << FormatFloat(v[0]) << ','
          << FormatFloat(v[1]) << '\n';
    }
    if (progress && !progress(0.5 * (part + 1))) return RuntimeError("the export was cancelled");
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// Until its own estimate: an image at screen resolution and a few curves.
uint64_t ProjectionEstimate(const EstimateContext& c) {
  const uint64_t w = EstimatedScreenTexels(c.width_px), h = EstimatedScreenTexels(c.height_px);
  return 3 * kFigureBytesPerTexel * w * h +
         kFigureBytesPerCurveSample * EstimatedCurveSamples(c.width_px) * 8;
}

}  // namespace pe
