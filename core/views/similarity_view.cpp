// The similarity views: how alike the positional vectors of two positions are
// (analysis/similarity.h has the definitions, the vector each scheme gives a position and the
// closed form), for the schemes with a vector per position (sinusoidal, learned, rope).
//   similarity:        sim(p, q) as a (position x position) heatmap, computed for the visible
//                      window at screen resolution (the score view's window,
//                      ViewSelection::score). Table: (L, L) float32 over the table's positions,
//                      rows p, columns q; CSV header p,q<first>,q<first+1>,...; a cosine that is
//                      undefined (a zero vector) is NaN in NPY and empty in CSV.
//   similarity-offset: sim(p, p + k) against the offset k = q - p: the mean over p (every p that
//                      keeps p and p + k in the table) with the min-max band across p around it.
//                      Table: k from -(L-1) to L-1 and the mean, CSV header k,value; NPY
//                      (2L - 1, 2).
// --measure dot|cosine picks the measure for both.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "analysis/similarity.h"
#include "io/file_writers.h"
#include "io/loaded_table.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/heatmap_raster.h"
#include "views/value_image.h"
#include "views/view_builders.h"
#include "views/view_geometry.h"

namespace pe {
namespace {

constexpr Rgba8 kUndefinedGrey{150, 150, 150, 255};

// The offset table of a scheme without a closed form for the mean (learned; the cosine of a
// sinusoid with an unpaired column) averages every pair of positions: about L^2 / 2 (x d)
// multiply-adds. Beyond this it is refused (about ten seconds on two cores).
constexpr double kMaxOffsetTableWork = 8.0 * (1 << 30);
// The offset figure evaluates at most about this many (p, k) pairs' worth of work in all; each
// offset's band is taken over at most the positions that fit.
constexpr double kOffsetFigureWork = 16.0 * (1 << 20);

std::string Num(double v, int digits = 4) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

const char* kDot = "\xc2\xb7";        // ·
const char* kMinus = "\xe2\x88\x92";  // −
const char* kSigma = "\xce\xa3";      // Σ
const char* kOmega = "\xcf\x89";      // ω
const char* kTheta = "\xce\xb8";      // θ

Result<PositionSimilarity> Similarity(const ViewContext& c) {
  return PositionSimilarity::Make(c.encoding, c.params.measure);
}

bool Cosine(const ViewContext& c) {
  return c.params.measure == SimilarityMeasure::kCosine;
}

// "sim(p, q) = PE(p)·PE(q)" or its cosine. Legend texts are pieces joined by ", ": the
// renderer breaks legend lines there only, so each piece is short.
std::string Definition(bool cosine, const std::string& q = "q") {
  const std::string dot = std::string("PE(p)") + kDot + "PE(" + q + ")";
  if (!cosine) return "sim(p, " + q + ") = " + dot;
  return "sim(p, " + q + ") = " + dot + ", divided by |PE(p)| |PE(" + q + ")|";
}

// "a² " for an amplitude other than 1.
std::string AmplitudeSquared(double a) {
  return a == 1.0 ? std::string() : Num(a * a, 4) + " ";
}

// What PE(p) is for the scheme, and whether sim depends on q - p alone: the notes under each
// figure.
std::vector<std::string> SchemeNotes(const PositionSimilarity& s) {
  const Encoding& e = s.encoding();
  const EncodingParams& p = e.params();
  std::vector<std::string> notes;
  const std::string k = std::string("q ") + kMinus + " p";
  switch (p.kind()) {
    case Scheme::kSinusoidal: {
      const std::string a2 = AmplitudeSquared(p.sinusoidal().output_scale);
      notes.push_back("PE(p): row p of the table; its paired sin and cos columns give " + a2 +
                      kSigma + "_i cos((" + k + ") " + kOmega + "_i)");
      const bool odd = p.d_model % 2 != 0;
      if (s.toeplitz()) {
        notes.push_back("a function of k = " + k +
                        " alone, constant along each diagonal (a Toeplitz matrix)");
        if (odd) notes.push_back("d odd: the t2t layout's last column, is zero and adds nothing");
      } else {
        notes.push_back("d odd: the last column sin(p " + std::string(kOmega) +
                        "_h), has no cos partner, and adds " + kMinus + Num(s.max_absolute(), 4) +
                        " cos((p + q) " + kOmega + "_h), h = " + std::to_string(p.d_model / 2) +
                        ", so not exactly Toeplitz (computed exactly)");
      }
      break;
    }
    case Scheme::kRope: {
      const std::span<const RotaryPair> pairs = e.rotary_pairs();
      notes.push_back("PE(p) = R_p u, u = (1, 0) in each of the " + std::to_string(pairs.size()) +
                      " pairs: the entries of the cos and sin tables");
      notes.push_back("R_p u" + std::string(kDot) + "R_q u = " +
                      AmplitudeSquared(pairs.front().amplitude) + kSigma + "_i cos((" + k + ") " +
                      kTheta + "_i), a function of k = " + k + " alone (a Toeplitz matrix)");
      break;
    }
    case Scheme::kLearned:
      if (const TableRef& t = p.learned().table; t.loaded()) {
        // A trained table was loaded: name it, never as noise.
        notes.push_back("PE(p): row p of the loaded table " + t.spec + " (" +
                        std::to_string(t.table->rows()) + " x " + std::to_string(t.table->cols()) +
                        ", hash " + HashText(t.hash) + ")");
      } else {
        notes.push_back("PE(p): row p of the learned table (untrained: seeded noise, " +
                        InitFormula(p.learned().init, p.d_model) + ")");
      }
      notes.push_back("no formula ties it to q " + std::string(kMinus) +
                      " p, the values along a diagonal differ (not a Toeplitz matrix)");
      break;
    default:
      break;
  }
  return notes;
}

// The heatmap's window: the selection's, or the whole table when it is empty.
ViewRange SimilarityWindow(const ViewContext& c) {
  const Encoding& e = *c.encoding;
  const ViewRange& w = c.sel.windows[ViewKind::kScore];
  if (w.x1 > w.x0 && w.y1 > w.y0) return w;
  const auto first = static_cast<double>(e.first_position());
  const double end = first + static_cast<double>(e.rows());
  return {first, end, first, end};
}

// A y range over the finite values with 6% room (at least +-0.05).
ViewRange FitY(const std::vector<double>& ys, double x0, double x1) {
  double lo = INFINITY, hi = -INFINITY;
  for (double y : ys) {
    if (!std::isfinite(y)) continue;
    lo = std::min(lo, y);
    hi = std::max(hi, y);
  }
  if (!std::isfinite(lo)) lo = -1, hi = 1;
  const double pad = std::max(0.05, (hi - lo) * 0.06);
  return {x0, x1, lo - pad, hi + pad};
}

bool Report(const Progress& progress, double fraction) {
  return !progress || progress(fraction);
}

}  // namespace

// ---- similarity: position by position ----------------------------------------------------------

Result<Figure> SimilarityFigure(const ViewContext& c) {
  Result<PositionSimilarity> made = Similarity(c);
  if (!made.ok()) return made.error();
  const PositionSimilarity& s = made.value();
  const Encoding& e = *c.encoding;
  const bool cosine = Cosine(c);
  Figure f;
  f.title = std::string(cosine ? "Cosine similarity" : "Similarity") + " PE(p)" + kDot + "PE(q) (" +
            e.Summary() + ")";
  f.x = {"position q", true, false, true};
  f.y = {"position p", true, true, true};
  f.view = SimilarityWindow(c);
  const PixelSize px = PlotPixels(c, f);
  const SimilarityRasterRequest req{f.view.x0,
                                    f.view.x1,
                                    f.view.y0,
                                    f.view.y1,
                                    std::min(px.width, 4096),
                                    std::min(px.height, 4096)};
  const SimilarityRaster r = ComputeSimilarityRaster(s, req);
  // Diverging, centred on 0: the cosine's natural [-1, 1]; the dot's largest |value| on screen.
  double hi = 1.0;
  if (!cosine) {
    hi = MaxAbsIgnoringNaN(r.values);
    if (!(hi > 0.0)) hi = 1.0;
  }
  f.colorbar = FigureColorBar{ColormapId::kRdBu, -hi, hi, cosine ? "cosine" : "dot"};
  bool any_undefined = false;
  if (!r.empty()) {
    f.image = ValueImage(r.values, r.width, r.height,
                         {ColormapId::kRdBu, -hi, hi, FlatValues::kNaN, kUndefinedGrey,
                          static_cast<double>(r.q_edges.front()), TexelImageEnd(r.q_edges),
                          static_cast<double>(r.p_edges.front()), TexelImageEnd(r.p_edges)},
                         &any_undefined);
  }
  f.legend.push_back({Definition(cosine), kNoColor});
  for (const std::string& note : SchemeNotes(s)) f.legend.push_back({note, kNoColor});
  if (any_undefined) {
    f.legend.push_back({"grey: cosine undefined, |PE| = 0", kUndefinedGrey});
  }
  if (r.one_cell_per_texel) {
    f.legend.push_back({"one cell per texel", kNoColor});
  } else if (r.exact) {
    f.legend.push_back({"texel = exact mean of its cells", kNoColor});
  } else {
    const std::string n = std::to_string(s.mean_samples());
    f.legend.push_back({"texel = mean of " + n + "\xc3\x97" + n +
                            " cells, spread evenly in it (the norm changes with p)",
                        kNoColor});
  }
  return f;
}

namespace {

// The (L, L) table: L * L float32, and for a table without a closed form its L vectors in double.
Status CheckSimilaritySize(const ViewContext& c, const PositionSimilarity& s) {
  const auto rows = static_cast<uint64_t>(c.encoding->rows());
  if (Status st =
          CheckFloatCount("the (position x position) similarity table", rows, rows, c.params.cap);
      !st.ok()) {
    return st;
  }
  if (s.closed_form()) return {};
  return CheckFloatCount("the similarity table's vectors", rows, 2 * static_cast<uint64_t>(s.dim()),
                         c.params.cap);
}

// Every position's vector in double, (L, dim), divided by its norm for the cosine (NaN for a
// zero vector).
std::vector<double> AllVectors(const PositionSimilarity& s, bool unit) {
  const Encoding& e = s.encoding();
  const int64_t L = e.rows(), d = s.dim(), first = e.first_position();
  std::vector<double> v(static_cast<size_t>(L * d));
#pragma omp parallel for schedule(static) if (L * d >= (int64_t{1} << 16))
  for (int64_t r = 0; r < L; ++r) {
    double* row = v.data() + r * d;
    s.Vector(first + r, row);
    if (!unit) continue;
    double n2 = 0.0;
    for (int64_t j = 0; j < d; ++j) n2 += row[j] * row[j];
    const double inv = n2 > 0.0 ? 1.0 / std::sqrt(n2) : std::numeric_limits<double>::quiet_NaN();
    for (int64_t j = 0; j < d; ++j) row[j] *= inv;
  }
  return v;
}

}  // namespace

Status CheckSimilarityTable(const ViewContext& c) {
  Result<PositionSimilarity> s = Similarity(c);
  if (!s.ok()) return s.error();
  return CheckSimilaritySize(c, s.value());
}

Status WriteSimilarityView(std::ostream& out, TableFormat format, const ViewContext& c,
                           const Progress& progress) {
  Result<PositionSimilarity> made = Similarity(c);
  if (!made.ok()) return made.error();
  const PositionSimilarity& s = made.value();
  if (Status st = CheckSimilaritySize(c, s); !st.ok()) return st;
  const Encoding& e = *c.encoding;
  const int64_t L = e.rows(), first = e.first_position(), last = e.last_position();
  const bool cosine = Cosine(c);
  // Closed form: the relative part at every k in [-(L-1), L-1], the absolute part at every
  // s = p + q in [2 first, 2 last] and the inverse norms; each cell is then O(1).
  std::vector<double> rel, abs_part, inv_norm, vectors;
  if (s.closed_form()) {
    rel.resize(static_cast<size_t>(2 * L - 1));
#pragma omp parallel for schedule(static) if (L >= 4096)
    for (int64_t k = -(L - 1); k <= L - 1; ++k) rel[static_cast<size_t>(k + L - 1)] = s.Relative(k);
    if (!s.toeplitz()) {
      abs_part.resize(static_cast<size_t>(2 * L - 1));
#pragma omp parallel for schedule(static) if (L >= 4096)
      for (int64_t t = 2 * first; t <= 2 * last; ++t) {
        abs_part[static_cast<size_t>(t - 2 * first)] = s.Absolute(t);
      }
    }
    if (cosine) {
      inv_norm.resize(static_cast<size_t>(L));
      for (int64_t r = 0; r < L; ++r) {
        const double n2 = rel[static_cast<size_t>(L - 1)] +
                          (abs_part.empty() ? 0.0 : abs_part[static_cast<size_t>(2 * r)]);
        inv_norm[static_cast<size_t>(r)] =
            n2 > 0.0 ? 1.0 / std::sqrt(n2) : std::numeric_limits<double>::quiet_NaN();
      }
    }
  } else {
    vectors = AllVectors(s, cosine);
  }
  const int64_t d = s.dim();
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {L, L};
    out << NpyHeader(shape);
  } else {
    std::string line = "p";
    for (int64_t q = 0; q < L; ++q) line += ",q" + std::to_string(first + q);
    line += '\n';
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
  const int64_t block_rows = std::min(TableBlockRows(L), L);
  std::vector<float> block(static_cast<size_t>(block_rows * L));
  for (int64_t r0 = 0; r0 < L && out; r0 += block_rows) {
    const int64_t rows = std::min(block_rows, L - r0);
#pragma omp parallel for schedule( \
    dynamic, 1) if (rows * L * (s.closed_form() ? 1 : d) >= (int64_t{1} << 18))
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t pr = r0 + i;  // row of p
      float* dst = block.data() + i * L;
      if (s.closed_form()) {
        for (int64_t qr = 0; qr < L; ++qr) {
          double v = rel[static_cast<size_t>(qr - pr + L - 1)];
          if (!abs_part.empty()) v += abs_part[static_cast<size_t>(qr + pr)];
          if (cosine) v *= inv_norm[static_cast<size_t>(pr)] * inv_norm[static_cast<size_t>(qr)];
          dst[qr] = static_cast<float>(v);
        }
      } else {
        const double* u = vectors.data() + pr * d;
        for (int64_t qr = 0; qr < L; ++qr) {
          dst[qr] = static_cast<float>(DotOf(u, vectors.data() + qr * d, d));
        }
      }
    }
    if (format == TableFormat::kNpy) {
      WriteFloatsLE(out, block.data(), rows * L);
    } else {
      for (int64_t i = 0; i < rows; ++i) {
        std::string line = std::to_string(first + r0 + i);
        const float* v = block.data() + i * L;
        for (int64_t q = 0; q < L; ++q) {
          line += ',';
          if (!std::isnan(v[q])) line += FormatFloat(v[q]);
        }
        line += '\n';
        out.write(line.data(), static_cast<std::streamsize>(line.size()));
      }
    }
    if (!Report(progress, static_cast<double>(r0 + rows) / static_cast<double>(L))) {
      return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// ---- similarity against the offset k = q - p ----------------------------------------------------

namespace {

// The offsets a curve over [-(L-1), L-1] is drawn through: every one when they fit in
// `samples`, else `samples` spread evenly (always both ends).
std::vector<int64_t> CurveOffsets(int64_t L, int samples) {
  std::vector<int64_t> out;
  const int64_t count = 2 * L - 1;
  if (count <= samples) {
    for (int64_t k = -(L - 1); k <= L - 1; ++k) out.push_back(k);
    return out;
  }
  for (int i = 0; i < samples; ++i) {
    const auto k = -(L - 1) + static_cast<int64_t>(std::llround(static_cast<double>(count - 1) * i /
                                                                static_cast<double>(samples - 1)));
    if (out.empty() || k != out.back()) out.push_back(k);
  }
  return out;
}

// Work units of one sim(p, p + k) when the mean needs every p: 1 with a closed form, ~d without.
double PairCost(const PositionSimilarity& s) {
  return s.closed_form() ? 1.0 : static_cast<double>(s.dim());
}

// The offset table's mean needs every pair of positions (no closed form for it).
bool OffsetNeedsEveryPair(const PositionSimilarity& s) {
  return !s.toeplitz() && !(s.closed_form() && s.measure() == SimilarityMeasure::kDot);
}

Status CheckOffsetWork(const ViewContext& c, const PositionSimilarity& s) {
  if (!OffsetNeedsEveryPair(s)) return {};
  const auto L = static_cast<double>(c.encoding->rows());
  const double cost = PairCost(s);
  const double work = L * L * cost;
  if (work <= kMaxOffsetTableWork) return {};
  const auto longest = static_cast<int64_t>(std::floor(std::sqrt(kMaxOffsetTableWork / cost)));
  const std::string what =
      s.closed_form()
          ? std::string("the cosine of a sinusoid with an unpaired column")
          : std::string(SchemeName(c.params.pe.kind())) + " at d = " + std::to_string(s.dim());
  return InvalidArgument(
      "the similarity-offset table averages sim(p, p + k) over every pair of "
      "positions for " +
      what + ": max_len " + std::to_string(c.encoding->rows()) + " needs about " + Num(work, 3) +
      " operations, over the limit of " + Num(kMaxOffsetTableWork, 3) +
      "; use --max-len (or --positions) of at most " + std::to_string(longest));
}

}  // namespace

Result<Figure> SimilarityOffsetFigure(const ViewContext& c) {
  Result<PositionSimilarity> made = Similarity(c);
  if (!made.ok()) return made.error();
  const PositionSimilarity& s = made.value();
  const Encoding& e = *c.encoding;
  const bool cosine = Cosine(c);
  const int64_t L = e.rows();
  Figure f;
  f.title = std::string(cosine ? "Cosine similarity" : "Similarity") +
            " against the offset k = q " + kMinus + " p (" + e.Summary() + ")";
  f.x = {std::string("offset k = q ") + kMinus + " p", false, false, true};
  f.y = {cosine ? std::string("cos(PE(p), PE(p + k))") : std::string("PE(p)") + kDot + "PE(p + k)",
         false, false};
  const double x0 = L > 1 ? -static_cast<double>(L - 1) : -0.5;
  const double x1 = L > 1 ? static_cast<double>(L - 1) : 0.5;
  f.view = {x0, x1, -1, 1};
  const PixelSize px = PlotPixels(c, f);
  const std::vector<int64_t> ks = CurveOffsets(L, CurveSamples(px.width));
  // Each offset's band over as many positions as the work budget allows.
  const auto per_k = static_cast<int64_t>(std::clamp(
      kOffsetFigureWork / (static_cast<double>(ks.size()) * PairCost(s) * (cosine ? 3.0 : 1.0)),
      16.0, 65536.0));
  std::vector<OffsetStats> st(ks.size());
#pragma omp parallel for schedule(dynamic, 8) if (ks.size() * static_cast <size_t>(per_k) >= 4096)
  for (size_t i = 0; i < ks.size(); ++i) st[i] = SimilarityAtOffset(s, ks[i], per_k);
  std::vector<double> all;
  bool band = false, band_exact = true, mean_exact = true, any_undefined = false;
  int64_t fewest = std::numeric_limits<int64_t>::max();
  for (const OffsetStats& o : st) {
    all.push_back(o.mean);
    all.push_back(o.min);
    all.push_back(o.max);
    if (o.max > o.min) band = true;
    band_exact = band_exact && o.exact;
    mean_exact = mean_exact && o.mean_exact;
    any_undefined = any_undefined || o.undefined > 0;
    if (!o.exact) fewest = std::min(fewest, o.sampled);
  }
  f.view = FitY(all, x0, x1);
  f.hlines.push_back(0.0);
  const Rgba8 line_color = SeriesRgba(0);
  const Rgba8 band_color{line_color.r, line_color.g, line_color.b, 110};
  if (band) {
    // The band: one filled slice per offset, from halfway to its neighbours.
    for (size_t i = 0; i < ks.size(); ++i) {
      if (!(std::isfinite(st[i].min) && std::isfinite(st[i].max))) continue;
      const double k = static_cast<double>(ks[i]);
      const double left = i == 0 ? k - 0.5 : (k + static_cast<double>(ks[i - 1])) / 2;
      const double right = i + 1 == ks.size() ? k + 0.5 : (k + static_cast<double>(ks[i + 1])) / 2;
      f.rects.push_back(
          {std::max(left, x0), st[i].min, std::min(right, x1), st[i].max, band_color, true, 1.0});
    }
  }
  // The mean line, broken where it is undefined (a cosine with only zero vectors).
  const bool markers = static_cast<int64_t>(ks.size()) == 2 * L - 1 && px.width >= 4 * (2 * L - 1);
  FigureSeries line;
  line.color = line_color;
  line.line_width = 1.5;
  for (size_t i = 0; i <= ks.size(); ++i) {
    if (i < ks.size() && std::isfinite(st[i].mean)) {
      line.xs.push_back(static_cast<double>(ks[i]));
      line.ys.push_back(st[i].mean);
      continue;
    }
    if (line.xs.empty()) continue;
    if (markers) {
      line.marker_xs = line.xs;
      line.marker_ys = line.ys;
    }
    f.series.push_back(line);
    line.xs.clear();
    line.ys.clear();
  }
  f.legend.push_back({"mean over p of sim(p, p + k), over the L " + std::string(kMinus) +
                          " |k| positions p, with p and p + k in the table" +
                          (mean_exact ? std::string() : std::string(" (over sampled p)")),
                      line_color});
  if (band) {
    f.legend.push_back({std::string("band: min to max over p") +
                            (band_exact ? std::string()
                                        : ", over at least " + std::to_string(fewest) +
                                              " p per k, spread evenly (may miss extremes)"),
                        band_color});
  }
  f.legend.push_back({Definition(cosine, "p + k"), kNoColor});
  if (s.toeplitz()) {
    f.legend.push_back(
        {"no band: the similarity is the same for every p (a function of k alone), so the band "
         "collapses to the line",
         kNoColor});
  } else if (s.closed_form()) {
    f.legend.push_back(
        {"a band from the unpaired column (odd d): it moves sim with p, by up to \xc2\xb1" +
             Num(s.max_absolute(), 4) + (cosine ? " in the dot" : ""),
         kNoColor});
  } else {
    f.legend.push_back({"a wide band: sim(p, p + k), depends on p, not on k alone", kNoColor});
  }
  for (const std::string& note : SchemeNotes(s)) {
    if (note.rfind("PE(p)", 0) == 0) f.legend.push_back({note, kNoColor});
  }
  if (any_undefined) {
    f.legend.push_back({"cosine undefined where |PE| = 0, those p are left out", kNoColor});
  }
  if (static_cast<int64_t>(ks.size()) < 2 * L - 1) {
    f.legend.push_back({"drawn through " + std::to_string(ks.size()) + " of " +
                            std::to_string(2 * L - 1) + " offsets, spread evenly",
                        kNoColor});
  }
  return f;
}

Status CheckSimilarityOffsetTable(const ViewContext& c) {
  Result<PositionSimilarity> s = Similarity(c);
  if (!s.ok()) return s.error();
  const auto L = static_cast<uint64_t>(c.encoding->rows());
  if (Status st = CheckFloatCount("the similarity-offset table", 2 * L - 1, 2, c.params.cap);
      !st.ok()) {
    return st;
  }
  if (OffsetNeedsEveryPair(s.value()) && !s.value().closed_form()) {
    if (Status st = CheckFloatCount("the similarity-offset table's vectors", L,
                                    2 * static_cast<uint64_t>(s.value().dim()), c.params.cap);
        !st.ok()) {
      return st;
    }
  }
  return CheckOffsetWork(c, s.value());
}

Status WriteSimilarityOffsetView(std::ostream& out, TableFormat format, const ViewContext& c,
                                 const Progress& progress) {
  if (Status st = CheckSimilarityOffsetTable(c); !st.ok()) return st;
  Result<PositionSimilarity> made = Similarity(c);
  if (!made.ok()) return made.error();
  const PositionSimilarity& s = made.value();
  const Encoding& e = *c.encoding;
  const int64_t L = e.rows(), first = e.first_position(), d = s.dim();
  const bool cosine = Cosine(c);
  const bool every_pair = OffsetNeedsEveryPair(s);
  // Without a closed form for the mean: every vector once (unit vectors for the cosine), or for
  // the cosine of waves the absolute part and inverse norms.
  std::vector<double> vectors, abs_part, inv_norm;
  if (every_pair && !s.closed_form()) vectors = AllVectors(s, cosine);
  if (every_pair && s.closed_form()) {
    abs_part.resize(static_cast<size_t>(2 * L - 1));
    for (int64_t t = 0; t < 2 * L - 1; ++t) {
      abs_part[static_cast<size_t>(t)] = s.Absolute(2 * first + t);
    }
    inv_norm.resize(static_cast<size_t>(L));
    const double rel0 = s.Relative(0);
    for (int64_t r = 0; r < L; ++r) {
      const double n2 = rel0 + abs_part[static_cast<size_t>(2 * r)];
      inv_norm[static_cast<size_t>(r)] =
          n2 > 0.0 ? 1.0 / std::sqrt(n2) : std::numeric_limits<double>::quiet_NaN();
    }
  }
  // The mean over p of sim(p, p + k), exactly.
  auto mean_at = [&](int64_t k) -> double {
    const int64_t ak = k < 0 ? -k : k, n = L - ak, r0 = k < 0 ? -k : 0;  // rows of p
    if (!every_pair) {
      if (s.toeplitz()) return s.Value(first + r0, first + r0 + k);
      return s.Relative(k) + s.MeanAbsolute(first + r0, n, k);
    }
    // Cells whose cosine is undefined (NaN: a zero vector) are left out.
    double sum = 0.0;
    int64_t defined = 0;
    const double rel = vectors.empty() ? s.Relative(k) : 0.0;
    for (int64_t r = r0; r < r0 + n; ++r) {
      const double v = !vectors.empty()
                           ? DotOf(vectors.data() + r * d, vectors.data() + (r + k) * d, d)
                           : (rel + abs_part[static_cast<size_t>(2 * r + k)]) *
                                 inv_norm[static_cast<size_t>(r)] *
                                 inv_norm[static_cast<size_t>(r + k)];
      if (std::isnan(v)) continue;
      sum += v;
      ++defined;
    }
    return defined > 0 ? sum / static_cast<double>(defined)
                       : std::numeric_limits<double>::quiet_NaN();
  };
  const int64_t count = 2 * L - 1;
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {count, 2};
    out << NpyHeader(shape);
  } else {
    out << "k,value\n";
  }
  const int64_t block = std::min<int64_t>(count, 65536);
  std::vector<double> means(static_cast<size_t>(block));
  for (int64_t i0 = 0; i0 < count && out; i0 += block) {
    const int64_t n = std::min(block, count - i0);
#pragma omp parallel for schedule(dynamic, 16) if (n >= 256)
    for (int64_t i = 0; i < n; ++i) means[static_cast<size_t>(i)] = mean_at(i0 + i - (L - 1));
    std::string text;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = i0 + i - (L - 1);
      const auto v = static_cast<float>(means[static_cast<size_t>(i)]);
      if (format == TableFormat::kNpy) {
        const float row[2] = {static_cast<float>(k), v};
        WriteFloatsLE(out, row, 2);
      } else {
        text += std::to_string(k);
        text += ',';
        if (!std::isnan(v)) text += FormatFloat(v);
        text += '\n';
      }
    }
    if (!text.empty()) out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!Report(progress, static_cast<double>(i0 + n) / static_cast<double>(count))) {
      return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// As SimilarityFigure: an image at screen resolution (at most 4096 texels a side) and the mean
// vector of each texel row and column, d doubles each.
uint64_t SimilarityEstimate(const EstimateContext& c) {
  const uint64_t w = EstimatedScreenTexels(c.width_px), h = EstimatedScreenTexels(c.height_px);
  const auto d = static_cast<uint64_t>(c.params.pe.d_model);
  return kFigureBytesPerTexel * w * h + 8 * d * (w + h);
}

// As SimilarityOffsetFigure: the mean line through clamp(2 * width + 1, 64, 20001) offsets with
// markers, and one band slice (a filled rectangle, about four points) per offset; the
// similarity's terms (as SimilarityFigure's): a few doubles per dimension.
uint64_t SimilarityOffsetEstimate(const EstimateContext& c) {
  const uint64_t samples = EstimatedCurveSamples(c.width_px);
  return kFigureBytesPerCurveSample * (samples + c.width_px + 4 * samples) +
         16 * sizeof(double) * static_cast<uint64_t>(c.params.pe.d_model);
}

}  // namespace pe
