// The M-RoPE neighbours view: the score of one image patch (the query, --mrope-patch) against
// its neighbours, with the score view's content rotated by M-RoPE at each token's (t, h, w) ids
// (AttentionScorer: q = RotateQuery(x_q), k = RotateKey(x_k), score = q.k / sqrt(d), the softmax
// scale and temperature as the score view applies them; no mask).
//
// Pair i turns by id_axis(i) theta_i, so q.k is a sum over pairs of a term of that pair's axis
// offset alone: score = S_t(dt) + S_h(dh) + S_w(dw), a function of the per-axis offsets only.
//   figure:  three panels. The query's frame as an H x W heatmap (each patch's score; past 512
//            patches a side each texel shows the patch at its centre), the query outlined; the
//            scores along each axis against the offset (h: same t and w, w: same t and h, t:
//            same h and w when T > 1); the text tokens just before and after the image against
//            their id (t = h = w), the query's three ids marked.
//   numbers: (keys, 5) float64, columns token, dt, dh, dw, score: the frame's patches in
//            row-major order, then the other frames' patches at the query's (h, w), then up to
//            16 text tokens before and 16 after the image; CSV header token,dt,dh,dw,score.
#include <algorithm>
#include <cmath>

#include "analysis/attention_score.h"
#include "base/format_text.h"
#include "encoding/mrope.h"
#include "io/file_writers.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/pair_plot.h"
#include "views/value_image.h"
#include "views/view_registry.h"

namespace pe {

Result<Figure> MropeNeighboursFigure(const ViewContext& c);
Status CheckMropeNeighboursTable(const ViewContext& c);
Status WriteMropeNeighboursView(std::ostream& out, TableFormat format, const ViewContext& c,
                                const Progress& progress);
uint64_t MropeNeighboursEstimate(const EstimateContext& c);
std::string MropeNeighboursTitle(const ModelParams& m, const Encoding& e);

namespace {

constexpr int64_t kTextTokens = 16;     // text tokens shown on each side of the image
constexpr int64_t kMaxTexelSide = 512;  // heatmap texels a side
constexpr int64_t kMaxCurvePoints = 4001;
constexpr const char* kAxisNames[3] = {"t (time)", "h (row)", "w (column)"};

// The query patch, its ids and its rotated query vector; the keys scored one by one.
struct Neighbours {
  MropeQueryPatch q;
  MropeSequence seq;
  AttentionScorer scorer;
  MropeIds ids;                     // the query's
  std::vector<double> query;        // (d)
  mutable std::vector<double> key;  // (d), scratch
  int64_t offset = 0;

  int64_t Token(int64_t t, int64_t h, int64_t w) const {
    const MropeImage& im = q.image.image;
    return im.at + t * im.h * im.w + h * im.w + w;
  }
  double Score(int64_t token) const {
    scorer.Key(offset + token, key.data());
    return scorer.Dot(query.data(), key.data());
  }
  // The key's ids minus the query's.
  std::array<int64_t, 3> Offsets(int64_t token) const {
    const MropeIds k = seq.Ids(token);
    return {k.id[0] - ids.id[0], k.id[1] - ids.id[1], k.id[2] - ids.id[2]};
  }
  // The text tokens within kTextTokens of the image, before then after.
  std::vector<int64_t> TextTokens() const {
    std::vector<int64_t> out;
    const MropeImage& im = q.image.image;
    for (int64_t k = std::max<int64_t>(0, im.at - kTextTokens); k < im.at; ++k) {
      if (seq.ImageOf(k) < 0) out.push_back(k);
    }
    const int64_t end = im.at + q.image.tokens();
    for (int64_t k = end; k < std::min(seq.tokens(), end + kTextTokens); ++k) {
      if (seq.ImageOf(k) < 0) out.push_back(k);
    }
    return out;
  }
};

Result<Neighbours> MakeNeighbours(const ViewContext& c) {
  const EncodingParams& p = c.params.pe;
  if (Status s = CheckViewApplies(ViewKind::kMropeNeighbours, p); !s.ok()) return s.error();
  Result<MropeQueryPatch> q = ResolveMropePatch(p, c.params.mrope_patch);
  if (!q.ok()) return q.error();
  Result<AttentionScorer> scorer = AttentionScorer::Make(c.params, c.encoding);
  if (!scorer.ok()) return scorer.error();
  Neighbours n{q.value(), MropeSequence(p), std::move(scorer).value(), {}, {}, {}, p.offset};
  n.ids = n.seq.Ids(n.q.token);
  const auto d = static_cast<size_t>(p.d_model);
  n.query.resize(d);
  n.key.resize(d);
  n.scorer.Query(p.offset + n.q.token, n.query.data());
  return n;
}

// Indices 0 .. n-1, every k-th so that at most `most` remain, the last always kept.
std::vector<int64_t> Spread(int64_t n, int64_t most) {
  std::vector<int64_t> out;
  const int64_t step = std::max<int64_t>(1, (n + most - 2) / std::max<int64_t>(most - 1, 1));
  for (int64_t k = 0; k < n; k += step) out.push_back(k);
  if (out.empty() || out.back() != n - 1) out.push_back(n - 1);
  return out;
}

Figure Panel(const std::string& title, const FigureAxis& x, const FigureAxis& y) {
  Figure p;
  p.title = title;
  p.x = x;
  p.y = y;
  return p;
}

}  // namespace

std::string MropeNeighboursTitle(const ModelParams& m, const Encoding&) {
  const EncodingParams& p = m.pe;
  Result<MropeQueryPatch> q = ResolveMropePatch(p, m.mrope_patch);
  std::string who = "no image";
  if (q.ok()) {
    const MropeQueryPatch& v = q.value();
    who = Fmt("patch t=%lld h=%lld w=%lld of image %lld (%lldx%lldx%lld)",
              static_cast<long long>(v.patch.t), static_cast<long long>(v.patch.h),
              static_cast<long long>(v.patch.w), static_cast<long long>(v.patch.image),
              static_cast<long long>(v.image.image.t), static_cast<long long>(v.image.image.h),
              static_cast<long long>(v.image.image.w));
  }
  return std::string(GetView(ViewKind::kMropeNeighbours).title) + ": " + who + " (M-RoPE " +
         std::string(MropeLayoutName(p.mrope().layout)) + ", section " +
         MropeSectionText(MropeSection(p.mrope(), p.d_model / 2)) + ")";
}

Result<Figure> MropeNeighboursFigure(const ViewContext& c) {
  Result<Neighbours> made = MakeNeighbours(c);
  if (!made.ok()) return made.error();
  const Neighbours& n = made.value();
  const MropeImage& im = n.q.image.image;
  const MropePatch& qp = n.q.patch;

  Figure f;
  // The frame as an H x W heatmap, row h down, column w across.
  Figure heat = Panel(Fmt("frame t=%lld: q\xc2\xb7k of every patch", static_cast<long long>(qp.t)),
                      {"w (patch column)", true, false, true}, {"h (patch row)", true, true, true});
  heat.view = {0, static_cast<double>(im.w), 0, static_cast<double>(im.h)};
  const int64_t tw = std::min(im.w, kMaxTexelSide), th = std::min(im.h, kMaxTexelSide);
  std::vector<float> values(static_cast<size_t>(tw * th));
  for (int64_t y = 0; y < th; ++y) {
    const int64_t h = (2 * y + 1) * im.h / (2 * th);  // the patch at the texel's centre
    for (int64_t x = 0; x < tw; ++x) {
      const int64_t w = (2 * x + 1) * im.w / (2 * tw);
      values[static_cast<size_t>(y * tw + x)] = static_cast<float>(n.Score(n.Token(qp.t, h, w)));
    }
  }
  const double query_score = n.Score(n.q.token);
  // The colours span the frame's scores (the query's own is among them): with rope_theta 1e6
  // the slow h and w pairs move the score by a little, which a range centred on 0 would hide.
  double vlo = query_score, vhi = query_score;
  for (float v : values) {
    vlo = std::min(vlo, static_cast<double>(v));
    vhi = std::max(vhi, static_cast<double>(v));
  }
  if (!(vhi - vlo > 1e-9 * std::max(1.0, std::abs(vhi)))) {
    const double half = std::max(1e-6, 1e-6 * std::abs(vhi));
    vlo -= half;
    vhi += half;
  }
  heat.image = ValueImage(values, static_cast<int>(tw), static_cast<int>(th),
                          {c.params.colormap, vlo, vhi, FlatValues::kNaN, Rgba8{128, 128, 128, 255},
                           0, static_cast<double>(im.w), 0, static_cast<double>(im.h)});
  heat.colorbar = FigureColorBar{c.params.colormap, vlo, vhi, "score"};
  heat.overlays.push_back({static_cast<double>(qp.w), static_cast<double>(qp.h),
                           static_cast<double>(qp.w + 1), static_cast<double>(qp.h + 1),
                           Rgba8{20, 20, 20, 255}, false, 2.0});

  // The scores along each axis against the offset.
  Figure axes =
      Panel("along each axis", {"offset along the axis (key id - query id)", false, false, true},
            {"score", false, false});
  const int64_t size[3] = {im.t, im.h, im.w};
  const int64_t at[3] = {qp.t, qp.h, qp.w};
  double lo = query_score, hi = query_score;
  double xlo = 0, xhi = 0;
  for (int a = 2; a >= 0; --a) {
    if (size[a] <= 1) continue;
    FigureSeries s;
    s.label = kAxisNames[a];
    s.color = SeriesRgba(a);
    s.line_width = 1.6;
    const std::vector<int64_t> along = Spread(size[a], kMaxCurvePoints);
    for (int64_t v : along) {
      int64_t tt = qp.t, hh = qp.h, ww = qp.w;
      (a == 0 ? tt : a == 1 ? hh : ww) = v;
      const double score = n.Score(n.Token(tt, hh, ww));
      s.xs.push_back(static_cast<double>(v - at[a]));
      s.ys.push_back(score);
      lo = std::min(lo, score);
      hi = std::max(hi, score);
    }
    xlo = std::min(xlo, s.xs.front());
    xhi = std::max(xhi, s.xs.back());
    if (static_cast<int64_t>(along.size()) <= 96) {
      s.marker_xs = s.xs;
      s.marker_ys = s.ys;
      s.marker_radius = 2.4;
    }
    f.legend.push_back({std::string(kAxisNames[a]) + ": keys " +
                            (a == 0   ? "of the same h, w"
                             : a == 1 ? "of the same t, w"
                                      : "of the same t, h"),
                        s.color});
    axes.series.push_back(std::move(s));
  }
  const double pad = std::max(1e-9, 0.06 * (hi - lo));
  if (xhi <= xlo) xhi = xlo + 1;
  axes.view = {xlo - 0.5, xhi + 0.5, lo - pad, hi + pad};
  axes.series.push_back(VerticalLine(0, axes.view.y0, axes.view.y1, Rgba8{140, 140, 145, 255}));

  // The text around the image, against its id (t = h = w), the query's ids marked.
  Figure text =
      Panel("text before and after the image",
            {"the text token's id (t = h = w)", false, false, true}, {"score", false, false});
  FigureSeries before, after;
  before.color = after.color = SeriesRgba(3);
  before.line_width = after.line_width = 1.6;
  double tlo = query_score, thi = query_score;
  for (int64_t k : n.TextTokens()) {
    FigureSeries& s = k < im.at ? before : after;
    const double score = n.Score(k);
    s.xs.push_back(static_cast<double>(n.seq.Ids(k).id[0]));
    s.ys.push_back(score);
    tlo = std::min(tlo, score);
    thi = std::max(thi, score);
  }
  double ilo = static_cast<double>(std::min({n.ids.id[0], n.ids.id[1], n.ids.id[2]}));
  double ihi = static_cast<double>(std::max({n.ids.id[0], n.ids.id[1], n.ids.id[2]}));
  for (const FigureSeries* s : {&before, &after}) {
    if (s->xs.empty()) continue;
    ilo = std::min(ilo, s->xs.front());
    ihi = std::max(ihi, s->xs.back());
  }
  const double tpad = std::max(1e-9, 0.06 * (thi - tlo));
  text.view = {ilo - 1, ihi + 1, tlo - tpad, thi + tpad};
  for (int a = 0; a < 3; ++a) {
    text.series.push_back(VerticalLine(static_cast<double>(n.ids.id[static_cast<size_t>(a)]),
                                       text.view.y0, text.view.y1, SeriesRgba(a)));
  }
  for (FigureSeries* s : {&before, &after}) {
    s->marker_xs = s->xs;
    s->marker_ys = s->ys;
    s->marker_radius = 2.4;
    if (!s->xs.empty()) text.series.push_back(std::move(*s));
  }

  f.legend.push_back(
      {"text tokens (t = h = w = their id); vertical lines: the query's t, h, w "
       "ids",
       SeriesRgba(3)});
  f.legend.push_back(
      {Fmt("query: patch t=%lld h=%lld w=%lld (outlined), ids t=%lld h=%lld w=%lld, token %lld",
           static_cast<long long>(qp.t), static_cast<long long>(qp.h), static_cast<long long>(qp.w),
           static_cast<long long>(n.ids.id[0]), static_cast<long long>(n.ids.id[1]),
           static_cast<long long>(n.ids.id[2]), static_cast<long long>(n.q.token)),
       kNoColor});
  f.legend.push_back(
      {"score = S_t(dt) + S_h(dh) + S_w(dw): each pair turns by one axis's id, so "
       "the score depends only on the per-axis offsets, and the heatmap is the h "
       "curve plus the w curve (less the query's own score)",
       kNoColor});
  f.legend.push_back({ScoreDefinition(*c.encoding, c.params.content, c.params.softmax_scale,
                                      c.params.temperature) +
                          "; no mask",
                      kNoColor});
  if (tw < im.w || th < im.h) {
    f.legend.push_back({Fmt("%lld x %lld patches: each texel shows the patch at its centre",
                            static_cast<long long>(im.h), static_cast<long long>(im.w)),
                        kNoColor});
  }
  f.view = heat.view;  // the window pans and zooms the first panel from here
  f.panels.push_back(std::move(heat));
  f.panels.push_back(std::move(axes));
  f.panels.push_back(std::move(text));
  return f;
}

Status CheckMropeNeighboursTable(const ViewContext& c) {
  if (Status s = CheckViewApplies(ViewKind::kMropeNeighbours, c.params.pe); !s.ok()) return s;
  Result<MropeQueryPatch> q = ResolveMropePatch(c.params.pe, c.params.mrope_patch);
  if (!q.ok()) return q.error();
  return {};
}

Status WriteMropeNeighboursView(std::ostream& out, TableFormat format, const ViewContext& c,
                                const Progress& progress) {
  Result<Neighbours> made = MakeNeighbours(c);
  if (!made.ok()) return made.error();
  const Neighbours& n = made.value();
  const MropeImage& im = n.q.image.image;
  const MropePatch& qp = n.q.patch;
  const int64_t frame = im.h * im.w;
  const std::vector<int64_t> text = n.TextTokens();
  const int64_t keys = frame + (im.t - 1) + static_cast<int64_t>(text.size());
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {keys, 5};
    out << NpyHeader(shape, NpyDtype::kFloat64);
  } else {
    out << "token,dt,dh,dw,score\n";
  }
  // The key of row r.
  auto key_token = [&](int64_t r) {
    if (r < frame) return n.Token(qp.t, r / im.w, r % im.w);
    r -= frame;
    if (r < im.t - 1) return n.Token(r < qp.t ? r : r + 1, qp.h, qp.w);
    return text[static_cast<size_t>(r - (im.t - 1))];
  };
  constexpr int64_t kBlock = 1 << 14;
  std::vector<double> block;
  std::string csv;
  for (int64_t r0 = 0; r0 < keys && out; r0 += kBlock) {
    const int64_t rows = std::min(kBlock, keys - r0);
    block.resize(static_cast<size_t>(rows * 5));
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t token = key_token(r0 + r);
      const std::array<int64_t, 3> d = n.Offsets(token);
      double* row = block.data() + r * 5;
      row[0] = static_cast<double>(token);
      for (size_t a = 0; a < 3; ++a) row[a + 1] = static_cast<double>(d[a]);
      row[4] = n.Score(token);
    }
    if (format == TableFormat::kNpy) {
      WriteDoublesLE(out, block.data(), rows * 5);
    } else {
      csv.clear();
      for (int64_t r = 0; r < rows; ++r) {
        const double* row = block.data() + r * 5;
        for (int j = 0; j < 4; ++j) {
          csv += std::to_string(static_cast<int64_t>(row[j]));
          csv += ',';
        }
        csv += FormatDouble(row[4]);
        csv += '\n';
      }
      out.write(csv.data(), static_cast<std::streamsize>(csv.size()));
    }
    if (progress && !progress(static_cast<double>(r0 + rows) / static_cast<double>(keys))) {
      return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// As MropeNeighboursFigure: a heatmap of at most 512 x 512 texels, up to three curves of at
// most kMaxCurvePoints points with markers, 2 x 16 text points and a few lines, and the query
// and key vectors.
uint64_t MropeNeighboursEstimate(const EstimateContext& c) {
  const auto d = static_cast<uint64_t>(std::max<int64_t>(c.params.pe.d_model, 0));
  const uint64_t texels = static_cast<uint64_t>(kMaxTexelSide * kMaxTexelSide);
  return kFigureBytesPerTexel * texels +
         kFigureBytesPerCurveSample * (6 * static_cast<uint64_t>(kMaxCurvePoints) + 200) + 64 * d +
         4096;
}

}  // namespace pe
