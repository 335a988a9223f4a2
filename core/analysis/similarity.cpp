#include "analysis/similarity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "base/progress.h"
#include "base/raster_edges.h"

namespace pe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr long double kTwoPiL = 6.283185307179586476925286766559005768L;

// cos(n w) for an exact integer n: the angle is formed and reduced modulo 2 pi in long double
// (64-bit mantissa: about 1e-10 radians of error at |n| = 2^32, w = 1), then one double cos.
double CosOfMultiple(int64_t n, double w) {
  const long double angle = std::remainder(static_cast<long double>(n) * w, kTwoPiL);
  return std::cos(static_cast<double>(angle));
}
double SinOfMultiple(int64_t n, double w) {
  const long double angle = std::remainder(static_cast<long double>(n) * w, kTwoPiL);
  return std::sin(static_cast<double>(angle));
}

// `count` positions spread evenly over [p0, p0 + count) (the first and the last among them), or
// every one when they fit.
std::vector<int64_t> SpreadPositions(int64_t p0, int64_t count, int64_t samples) {
  std::vector<int64_t> out;
  if (count <= 0) return out;
  if (count <= samples || samples < 2) {
    const int64_t n = count <= samples ? count : 1;
    for (int64_t k = 0; k < n; ++k) out.push_back(p0 + k);
    return out;
  }
  for (int64_t s = 0; s < samples; ++s) {
    const auto at =
        static_cast<int64_t>(std::llround(static_cast<double>(count - 1) * static_cast<double>(s) /
                                          static_cast<double>(samples - 1)));
    if (out.empty() || p0 + at != out.back()) out.push_back(p0 + at);
  }
  return out;
}

// A rotary vector's columns: pair i's cos and sin at its two dims, times its amplitude.
std::vector<WaveColumn> RotaryVectorColumns(const Encoding& e) {
  const std::span<const RotaryPair> pairs = e.rotary_pairs();
  std::vector<WaveColumn> cols(2 * pairs.size());
  for (const RotaryPair& pair : pairs) {
    for (int part = 0; part < 2; ++part) {
      const int64_t dim = part == 0 ? pair.dim_a : pair.dim_b;
      WaveColumn& c = cols[static_cast<size_t>(dim)];
      c.dim = dim;
      c.pair = pair.index;
      c.wave = part == 0 ? Wave::kCos : Wave::kSin;
      c.frequency = pair.frequency;
      c.amplitude = pair.amplitude;
    }
  }
  return cols;
}

}  // namespace

double DotOf(const double* u, const double* v, int64_t n) {
  // Four partial sums: independent chains the compiler can keep in flight (a single running
  // sum waits on each add), summed in a fixed order so the result does not depend on threads.
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    a0 += u[j] * v[j];
    a1 += u[j + 1] * v[j + 1];
    a2 += u[j + 2] * v[j + 2];
    a3 += u[j + 3] * v[j + 3];
  }
  for (; j < n; ++j) a0 += u[j] * v[j];
  return (a0 + a1) + (a2 + a3);
}

std::vector<SimilarityWave> SimilarityWaves(std::span<const WaveColumn> columns) {
  // A_w and B_w per distinct frequency (a sin and a cos of one pair share theirs exactly: both
  // come from the pair's exponent).
  std::map<double, SimilarityWave> terms;
  for (const WaveColumn& c : columns) {
    if (c.wave == Wave::kZero) continue;
    SimilarityWave& t = terms[c.frequency];
    t.w = c.frequency;
    const double a2 = c.amplitude * c.amplitude;
    t.a += 0.5 * a2;
    t.b += c.wave == Wave::kCos ? 0.5 * a2 : -0.5 * a2;
  }
  std::vector<SimilarityWave> out;
  for (const auto& [w, t] : terms) out.push_back(t);
  return out;
}

Status CheckSimilarityScheme(const EncodingParams& params) {
  const SchemeDescriptor& d = DescriptorOf(params.kind());
  if (d.vector_per_position) return {};
  if (d.family == Family::kRotary) {
    return InvalidArgument(
        "the similarity views need a vector per position (sinusoidal, learned "
        "or rope); " +
        std::string(d.name) +
        "'s vectors carry a decay that only cancels in q.k: see the score and "
        "decay views");
  }
  return InvalidArgument(
      "the similarity views need a vector per position (sinusoidal, learned or "
      "rope); " +
      std::string(d.name) + " " + std::string(d.acts_on) + " instead");
}

Result<PositionSimilarity> PositionSimilarity::Make(EncodingPtr encoding,
                                                    SimilarityMeasure measure) {
  if (!encoding) return InvalidArgument("no encoding to compare positions of");
  if (Status s = CheckSimilarityScheme(encoding->params()); !s.ok()) return s.error();
  PositionSimilarity sim;
  sim.measure_ = measure;
  // The vector at each position: a rotary scheme's R_p u (u = (1, 0) in each pair), an added
  // scheme's table row, as waves where the table has them (a learned table has none).
  if (!encoding->rotary_pairs().empty()) {
    sim.columns_ = RotaryVectorColumns(*encoding);
  } else {
    const std::span<const WaveColumn> w = encoding->waves();
    sim.columns_.assign(w.begin(), w.end());
  }
  sim.encoding_ = std::move(encoding);
  sim.dim_ =
      sim.columns_.empty() ? sim.encoding_->cols() : static_cast<int64_t>(sim.columns_.size());
  sim.terms_ = SimilarityWaves(sim.columns_);
  for (const Term& t : sim.terms_) {
    if (t.b != 0.0) {
      sim.has_absolute_ = true;
      sim.max_absolute_ = std::max(sim.max_absolute_, std::abs(t.b));
    }
  }
  return sim;
}

void PositionSimilarity::Vector(int64_t p, double* out) const {
  if (!columns_.empty()) {
    for (size_t j = 0; j < columns_.size(); ++j) {
      out[j] = WaveValueAt(columns_[j], static_cast<double>(p));
    }
    return;
  }
  const Encoding& e = *encoding_;
  std::vector<float> row(static_cast<size_t>(dim_));
  e.FillBlock(p - e.first_position(), 1, 0, dim_, row.data());
  for (int64_t j = 0; j < dim_; ++j) out[j] = row[static_cast<size_t>(j)];
}

double PositionSimilarity::Relative(int64_t k) const {
  double acc = 0.0;
  for (const Term& t : terms_) acc += t.a * CosOfMultiple(k, t.w);
  return acc;
}

double PositionSimilarity::Absolute(int64_t s) const {
  double acc = 0.0;
  for (const Term& t : terms_) {
    if (t.b != 0.0) acc += t.b * CosOfMultiple(s, t.w);
  }
  return acc;
}

std::vector<WaveTerm> PositionSimilarity::RelativeWaves() const {
  std::vector<WaveTerm> out;
  for (const Term& t : terms_) out.push_back({t.w, t.a, 0.0});
  return out;
}

std::vector<WaveTerm> PositionSimilarity::AbsoluteWaves() const {
  std::vector<WaveTerm> out;
  for (const Term& t : terms_) {
    if (t.b != 0.0) out.push_back({t.w, t.b, 0.0});
  }
  return out;
}

double PositionSimilarity::Dot(int64_t p, int64_t q) const {
  if (closed_form()) return Relative(q - p) + (has_absolute_ ? Absolute(q + p) : 0.0);
  std::vector<double> u(static_cast<size_t>(dim_)), v(static_cast<size_t>(dim_));
  Vector(p, u.data());
  Vector(q, v.data());
  double acc = 0.0;
  for (int64_t j = 0; j < dim_; ++j) acc += u[static_cast<size_t>(j)] * v[static_cast<size_t>(j)];
  return acc;
}

double PositionSimilarity::Value(int64_t p, int64_t q) const {
  const double dot = Dot(p, q);
  if (measure_ == SimilarityMeasure::kDot) return dot;
  const double n2 = Norm2(p) * Norm2(q);
  return n2 > 0.0 ? dot / std::sqrt(n2) : kNaN;
}

bool PositionSimilarity::MeanVector(int64_t p0, int64_t count, double* out) const {
  const Encoding& e = *encoding_;
  const bool cosine = measure_ == SimilarityMeasure::kCosine;
  // Closed forms: column means of the table (Dirichlet-kernel sums for waves, the rows' sum for a
  // learned table), divided by the norm when it is the same at every position.
  if (!cosine || toeplitz()) {
    if (!columns_.empty()) {
      for (size_t j = 0; j < columns_.size(); ++j)
        out[j] = MeanOverPositions(columns_[j], p0, count);
    } else {
      e.MeanOverRows(p0 - e.first_position(), count, 0, dim_, out);
    }
    if (cosine) {
      const double norm = std::sqrt(Relative(0));
      for (int64_t j = 0; j < dim_; ++j) out[j] = norm > 0.0 ? out[j] / norm : kNaN;
    }
    return true;
  }
  // The cosine with a norm that changes with the position: every unit vector when they fit,
  // else mean_samples() of them spread evenly.
  const std::vector<int64_t> ps = SpreadPositions(p0, count, mean_samples());
  std::vector<double> v(static_cast<size_t>(dim_));
  std::fill(out, out + dim_, 0.0);
  for (int64_t p : ps) {
    Vector(p, v.data());
    double n2 = 0.0;
    for (double x : v) n2 += x * x;
    const double inv = n2 > 0.0 ? 1.0 / std::sqrt(n2) : kNaN;
    for (int64_t j = 0; j < dim_; ++j) out[j] += v[static_cast<size_t>(j)] * inv;
  }
  for (int64_t j = 0; j < dim_; ++j) out[j] /= static_cast<double>(ps.size());
  return static_cast<int64_t>(ps.size()) == count;
}

double PositionSimilarity::MeanAbsolute(int64_t p0, int64_t count, int64_t k) const {
  double acc = 0.0;
  for (const Term& t : terms_) {
    if (t.b == 0.0) continue;
    WaveColumn c;
    c.frequency = 2.0 * t.w;
    c.wave = Wave::kCos;
    const double mc = MeanOverPositions(c, p0, count);
    c.wave = Wave::kSin;
    const double ms = MeanOverPositions(c, p0, count);
    acc += t.b * (mc * CosOfMultiple(k, t.w) - ms * SinOfMultiple(k, t.w));
  }
  return acc;
}

// ---- raster
// ---------------------------------------------------------------------------------------

SimilarityRaster ComputeSimilarityRaster(const PositionSimilarity& sim,
                                         const SimilarityRasterRequest& req) {
  SimilarityRaster r;
  const Encoding& e = sim.encoding();
  if (!(req.x1 > req.x0) || !(req.y1 > req.y0) || req.width_px < 1 || req.height_px < 1) return r;
  const auto first = static_cast<double>(e.first_position());
  const double end = first + static_cast<double>(e.rows());
  const auto q_lo = static_cast<int64_t>(std::clamp(std::floor(req.x0), first, end));
  const auto q_hi = static_cast<int64_t>(std::clamp(std::ceil(req.x1), first, end));
  const auto p_lo = static_cast<int64_t>(std::clamp(std::floor(req.y0), first, end));
  const auto p_hi = static_cast<int64_t>(std::clamp(std::ceil(req.y1), first, end));
  if (q_hi <= q_lo || p_hi <= p_lo) return r;
  // Texels over the visible part of the window only, as many as its share of the pixels.
  const int px_w = std::max(
      1, static_cast<int>(std::ceil(req.width_px * double(q_hi - q_lo) / (req.x1 - req.x0))));
  const int px_h = std::max(
      1, static_cast<int>(std::ceil(req.height_px * double(p_hi - p_lo) / (req.y1 - req.y0))));
  r.q_edges = RasterEdges(q_lo, q_hi, std::min(px_w, req.width_px));
  r.p_edges = RasterEdges(p_lo, p_hi, std::min(px_h, req.height_px));
  r.width = static_cast<int>(r.q_edges.size()) - 1;
  r.height = static_cast<int>(r.p_edges.size()) - 1;
  r.one_cell_per_texel = q_hi - q_lo == r.width && p_hi - p_lo == r.height;
  r.values.assign(static_cast<size_t>(r.width) * r.height, 0.0f);

  const int64_t cells = (q_hi - q_lo) * (p_hi - p_lo);
  const bool large = static_cast<int64_t>(r.width) * r.height * sim.dim() > kOffsetRasterMinWork;
  // Cell by cell from the closed form: one cell per texel, or a few where no lattice fits (below)
  // and a dot product of mean vectors per texel would cost d each.
  auto cell_means = [&] {
    // Each cell from its k = q - p and s = q + p, each evaluated once for the window as sums of
    // waves along them.
    const int64_t k0 = q_lo - (p_hi - 1), spread = (q_hi - q_lo) + (p_hi - p_lo) - 1;
    std::vector<double> rel(static_cast<size_t>(spread));
    WaveSumAlong(sim.RelativeWaves(), 2 * k0, 1, spread, rel.data());
    const bool absolute = !sim.toeplitz();
    const int64_t s0 = q_lo + p_lo;
    std::vector<double> abs_part(absolute ? static_cast<size_t>(spread) : 0);
    if (absolute) WaveSumAlong(sim.AbsoluteWaves(), 2 * s0, 1, spread, abs_part.data());
    const bool cosine = sim.measure() == SimilarityMeasure::kCosine;
    // |PE(p)|^2 = Relative(0) + Absolute(2p): the inverse norms of the rows and columns.
    std::vector<double> inv_p, inv_q;
    if (cosine) {
      const double rel0 = sim.Relative(0);
      auto inv = [&](int64_t p) {
        const double n2 = rel0 + (absolute ? sim.Absolute(2 * p) : 0.0);
        return n2 > 0.0 ? 1.0 / std::sqrt(n2) : kNaN;
      };
      for (int64_t p = p_lo; p < p_hi; ++p) inv_p.push_back(inv(p));
      for (int64_t q = q_lo; q < q_hi; ++q) inv_q.push_back(inv(q));
    }
    const int64_t nq = q_hi - q_lo;
    MeansOverCells(
        r.q_edges, r.p_edges,
        [&](int64_t p, double* values) {
          const double* rel_row = rel.data() + (q_lo - p - k0);  // at q - p
          const double* abs_row = absolute ? abs_part.data() + (q_lo + p - s0) : nullptr;
          for (int64_t i = 0; i < nq; ++i) {
            double v = rel_row[i];
            if (absolute) v += abs_row[i];
            if (cosine) v *= inv_p[static_cast<size_t>(p - p_lo)] * inv_q[static_cast<size_t>(i)];
            values[i] = v;
          }
        },
        r.values.data());
    return r;
  };
  if (sim.closed_form() && r.one_cell_per_texel) return cell_means();

  if (sim.closed_form() && (sim.measure() == SimilarityMeasure::kDot || sim.toeplitz()) && large) {
    if (std::optional<OffsetLattice> lat = ChooseOffsetLattice(
            q_lo, q_hi, std::min(px_w, req.width_px), p_lo, p_hi, std::min(px_h, req.height_px))) {
      // Columns are q (x), rows p (y): the relative part is a function of q - p, the absolute
      // part of q + p; the cosine divides by the constant norm^2, Relative(0).
      r.q_edges = lat->x_edges;
      r.p_edges = lat->y_edges;
      r.width = lat->nx();
      r.height = lat->ny();
      std::vector<double> v(static_cast<size_t>(r.width) * r.height);
      OffsetTexelMeans(sim.RelativeWaves(), *lat, v.data());
      AddSumPositionMeans(sim.AbsoluteWaves(), r.q_edges, r.p_edges, v.data());
      const double scale =
          sim.measure() == SimilarityMeasure::kCosine ? 1.0 / sim.Relative(0) : 1.0;
      r.values.resize(v.size());
      const auto count = static_cast<int64_t>(v.size());
#pragma omp parallel for schedule(static) if (count >= (1 << 16))
      for (int64_t i = 0; i < count; ++i) {
        r.values[static_cast<size_t>(i)] = static_cast<float>(v[static_cast<size_t>(i)] * scale);
      }
      return r;
    }
  }

  if (sim.closed_form() && large && cells <= kCellMeansMaxCells) return cell_means();

  // Mean vectors of the texel rows and columns; each texel their dot product.
  const int64_t d = sim.dim();
  std::vector<double> ps(static_cast<size_t>(r.height * d)), qs(static_cast<size_t>(r.width * d));
  bool exact = true;
  const bool parallel = (static_cast<int64_t>(r.width) + r.height) * d >= (int64_t{1} << 14);
#pragma omp parallel for schedule(dynamic, 16) reduction(&& : exact) if (parallel)
  for (int y = 0; y < r.height; ++y) {
    const int64_t a = r.p_edges[static_cast<size_t>(y)];
    exact = sim.MeanVector(a, r.p_edges[static_cast<size_t>(y) + 1] - a,
                           ps.data() + static_cast<size_t>(y * d)) &&
            exact;
  }
#pragma omp parallel for schedule(dynamic, 16) reduction(&& : exact) if (parallel)
  for (int x = 0; x < r.width; ++x) {
    const int64_t a = r.q_edges[static_cast<size_t>(x)];
    exact = sim.MeanVector(a, r.q_edges[static_cast<size_t>(x) + 1] - a,
                           qs.data() + static_cast<size_t>(x * d)) &&
            exact;
  }
  const bool parallel_texels = static_cast<int64_t>(r.width) * r.height * d >= (int64_t{1} << 16);
  // The job's token, read here: the team's other threads have none of their own.
  const CancelToken* job_cancel = CurrentCancelToken();
#pragma omp parallel for schedule(dynamic, 4) if (parallel_texels)
  for (int y = 0; y < r.height; ++y) {
    if (IsCancelled(job_cancel)) continue;  // cancelled: the rest is skipped, then thrown
    const double* u = ps.data() + static_cast<size_t>(y * d);
    float* out = r.values.data() + static_cast<size_t>(y) * r.width;
    for (int x = 0; x < r.width; ++x) {
      out[x] = static_cast<float>(DotOf(u, qs.data() + static_cast<size_t>(x * d), d));
    }
  }
  ThrowIfCancelled(job_cancel);
  r.exact = exact;
  return r;
}

// ---- offset -------------------------------------------------------------------------------------

OffsetStats SimilarityAtOffset(const PositionSimilarity& sim, int64_t k, int64_t max_positions) {
  OffsetStats o;
  const Encoding& e = sim.encoding();
  const int64_t L = e.rows(), first = e.first_position();
  const int64_t ak = k < 0 ? -k : k;
  if (ak >= L) {
    o.mean = o.min = o.max = kNaN;
    return o;
  }
  o.positions = L - ak;
  const int64_t p0 = first + (k < 0 ? -k : 0);  // p in [p0, p0 + positions), q = p + k
  if (sim.toeplitz()) {
    o.mean = o.min = o.max = sim.Value(p0, p0 + k);
    o.sampled = o.positions;
    return o;
  }
  const std::vector<int64_t> ps =
      SpreadPositions(p0, o.positions, std::max<int64_t>(2, max_positions));
  o.sampled = static_cast<int64_t>(ps.size());
  o.exact = o.mean_exact = o.sampled == o.positions;
  double sum = 0.0, lo = INFINITY, hi = -INFINITY;
  if (sim.closed_form()) {
    const double rel = sim.Relative(k), rel0 = sim.Relative(0);
    const bool cosine = sim.measure() == SimilarityMeasure::kCosine;
    for (int64_t p : ps) {
      double v = rel + sim.Absolute(2 * p + k);
      if (cosine) {
        const double n2 = (rel0 + sim.Absolute(2 * p)) * (rel0 + sim.Absolute(2 * (p + k)));
        if (!(n2 > 0.0)) {
          ++o.undefined;
          continue;
        }
        v /= std::sqrt(n2);
      }
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  } else {
    const int64_t d = sim.dim();
    std::vector<double> u(static_cast<size_t>(d)), w(static_cast<size_t>(d));
    const bool cosine = sim.measure() == SimilarityMeasure::kCosine;
    for (int64_t p : ps) {
      sim.Vector(p, u.data());
      sim.Vector(p + k, w.data());
      double dot = 0.0, nu = 0.0, nw = 0.0;
      for (int64_t j = 0; j < d; ++j) {
        dot += u[static_cast<size_t>(j)] * w[static_cast<size_t>(j)];
        nu += u[static_cast<size_t>(j)] * u[static_cast<size_t>(j)];
        nw += w[static_cast<size_t>(j)] * w[static_cast<size_t>(j)];
      }
      double v = dot;
      if (cosine) {
        if (!(nu * nw > 0.0)) {
          ++o.undefined;
          continue;
        }
        v = dot / std::sqrt(nu * nw);
      }
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  const auto defined = static_cast<int64_t>(ps.size()) - o.undefined;
  if (defined == 0) {
    o.mean = o.min = o.max = kNaN;
    return o;
  }
  o.mean = sum / static_cast<double>(defined);
  o.min = lo;
  o.max = hi;
  if (sim.closed_form() && sim.measure() == SimilarityMeasure::kDot && !o.exact) {
    // The exact mean over every p: Relative(k) + sum_w B_w mean_p cos((2p + k) w), where
    // mean_p cos(2pw + kw) = C cos(kw) - S sin(kw) with C, S the means of cos(2pw), sin(2pw)
    // over p (Dirichlet-kernel sums).
    o.mean = sim.Relative(k) + sim.MeanAbsolute(p0, o.positions, k);
    o.mean_exact = true;
  }
  return o;
}

}  // namespace pe
