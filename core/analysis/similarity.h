// How alike the positional vectors of two positions are, for the similarity views:
//   dot:    sim(p, q) = PE(p) . PE(q)
//   cosine: sim(p, q) = PE(p) . PE(q) / (|PE(p)| |PE(q)|)   (NaN where a norm is 0)
// p and q are absolute positions of the table (first_position() .. last_position()).
//
// PE(p), the vector a scheme gives position p:
//   sinusoidal: the table's row, in every layout, order, min timescale, output scale and offset.
//   learned:    the table's row (the float32 values a model holds).
//   rope:       R_p u, the rotation by position p of u = (1, 0) in every rotated pair (dims i and
//               i + d_rot/2 for the half pairing, 2i and 2i + 1 for interleaved), which is the
//               pair's entries of the cos and sin tables: (a cos p theta_i, a sin p theta_i), a
//               the attention factor; d_rot entries. Then PE(p) . PE(q) = u . R_{q-p} u =
//               a^2 sum_i cos((q - p) theta_i): RoPE's relative property (R_p^T R_q = R_{q-p},
//               RoFormer section 3.4.2). Chosen over a row of the cos (or sin) table alone,
//               whose dot products cos(p t) cos(q t) = (cos (q-p)t + cos (q+p)t) / 2 mix in the
//               absolute position, which no RoPE model computes.
//   xpos:       not offered. Its vectors carry the decay zeta^(+-n / scale_base), so one side's
//               vectors grow or shrink with the position and their dot products mix in p + q;
//               the relative part appears only in q_m . k_n, where the two decays cancel to
//               zeta^((m - n) / scale_base): the score and decay views show that.
//   alibi, t5:  no vector per position (a bias on the logits).
//
// The closed form for waves (sinusoidal, rope). With column c of PE(p) = a_c wave_c(p w_c):
//   sin(p w) sin(q w) = (cos((q - p) w) - cos((q + p) w)) / 2
//   cos(p w) cos(q w) = (cos((q - p) w) + cos((q + p) w)) / 2
// so, summed over the columns and grouped by frequency,
//   PE(p) . PE(q) = sum_w A_w cos(k w) + B_w cos(s w),   k = q - p, s = q + p,
//   A_w = (1/2) sum_{c at w} a_c^2,   B_w = (1/2) (sum_{cos c at w} a_c^2 - sum_{sin c at w}
//   a_c^2).
// A sin and a cos of the same frequency and amplitude cancel in B_w, so with every column
// paired (even d; odd d in the t2t layout, whose extra column is zero; RoPE) the similarity is a
// function of k alone: a Toeplitz matrix. The paper's and tf-text's odd d leave the last column
// sin(p w_h) unpaired: B = -a^2/2 at w_h, a term of the absolute position p + q (small when
// w_h is: base^(-(d-1)/d), about 1e-4 for base 10000). Angles are reduced in long double from
// the exact integers k and s, so values stay exact to double rounding at positions near 2^31.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/offset_texels.h"
#include "base/status.h"
#include "encoding/encoding.h"
#include "model/choice_names.h"
#include "model/model_params.h"

namespace pe {

// The --measure names: model/choice_names.h.

// The closed form's terms for wave columns: one per distinct frequency w, with A_w and B_w of
// PE(p) . PE(q) = sum_w A_w cos((q - p) w) + B_w cos((q + p) w) (see the top of this file).
struct SimilarityWave {
  double w = 0;  // radians per position
  double a = 0;  // A_w
  double b = 0;  // B_w
};
std::vector<SimilarityWave> SimilarityWaves(std::span<const WaveColumn> columns);

// Schemes with a vector per position (sinusoidal, learned, rope); an error naming the scheme
// otherwise.
Status CheckSimilarityScheme(const EncodingParams& params);

class PositionSimilarity {
 public:
  static Result<PositionSimilarity> Make(EncodingPtr encoding, SimilarityMeasure measure);

  const Encoding& encoding() const { return *encoding_; }
  SimilarityMeasure measure() const { return measure_; }
  int64_t dim() const { return dim_; }
  // The similarity has the closed form above (waves).
  bool closed_form() const { return !terms_.empty() || !columns_.empty(); }
  // sim(p, q) depends on q - p alone, for every p and q: waves whose columns all pair up (the
  // cosine too, then: the norm is the same at every position).
  bool toeplitz() const { return closed_form() && !has_absolute_; }
  // The largest |B_w| (0 when toeplitz()): how far sim(p, p + k) can move with p.
  double max_absolute() const { return max_absolute_; }

  // PE(p), (dim()), in double (learned: the table's float32 values).
  void Vector(int64_t p, double* out) const;
  // PE(p) . PE(q) (closed form for waves) and |PE(p)|^2.
  double Dot(int64_t p, int64_t q) const;
  double Norm2(int64_t p) const { return Dot(p, p); }
  // sim(p, q) in the measure.
  double Value(int64_t p, int64_t q) const;

  // Closed form only: the relative part sum_w A_w cos(k w) and the absolute part
  // sum_w B_w cos(s w).
  double Relative(int64_t k) const;
  double Absolute(int64_t s) const;
  // The exact mean of Absolute(2p + k) over p in [p0, p0 + count) (Dirichlet-kernel sums of
  // cos(2pw) and sin(2pw)): with Relative(k), the mean over p of PE(p) . PE(p + k).
  double MeanAbsolute(int64_t p0, int64_t count, int64_t k) const;
  // The same parts as sums of waves of k and of s (empty without a closed form).
  std::vector<WaveTerm> RelativeWaves() const;
  std::vector<WaveTerm> AbsoluteWaves() const;

  // The mean over positions [p0, p0 + count) of PE(p) (dot) or PE(p) / |PE(p)| (cosine), (dim()),
  // so that the mean of sim over a block of cells is MeanVector(rows) . MeanVector(columns).
  // Exact (returns true) by closed forms for waves with the dot and for constant norms, and for
  // every measure when count <= mean_samples(); else the mean over mean_samples() positions
  // spread evenly (returns false). NaN entries when a norm in it is 0 (cosine).
  bool MeanVector(int64_t p0, int64_t count, double* out) const;
  // Positions MeanVector averages at most when it has no closed form: 256 for a table (a row
  // costs a copy), 16 for waves (a row costs dim sines at positions up to 2^31).
  int64_t mean_samples() const { return columns_.empty() ? 256 : 16; }

 private:
  using Term = SimilarityWave;
  EncodingPtr encoding_;
  SimilarityMeasure measure_ = SimilarityMeasure::kDot;
  int64_t dim_ = 0;
  std::vector<WaveColumn> columns_;  // waves: PE(p)'s entries; empty for learned
  std::vector<Term> terms_;          // waves: one per distinct frequency
  bool has_absolute_ = false;
  double max_absolute_ = 0;
};

// u . v over n entries (in double, in a fixed order).
double DotOf(const double* u, const double* v, int64_t n);

// ---- the (position x position) similarity at screen resolution ------------------------------

// The visible window: x positions q, y positions p, absolute; cell (p, q) covers
// [q, q + 1) x [p, p + 1).
struct SimilarityRasterRequest {
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  int width_px = 1, height_px = 1;
};

struct SimilarityRaster {
  int width = 0, height = 0;  // texels
  // (height, width): each texel's mean of sim over its cells (bilinearity: the mean of
  // u(p) . u(q) over a block is mean u(p) . mean u(q)). NaN where a cosine is undefined.
  std::vector<float> values;
  // Texel column x covers q in [q_edges[x], q_edges[x+1]); rows cover p likewise.
  std::vector<int64_t> q_edges, p_edges;
  bool exact = true;  // every texel the exact mean of its cells (see MeanVector)
  bool one_cell_per_texel = false;
  bool empty() const { return width == 0 || height == 0; }
};

// The raster of the window, clamped to the table. One cell per texel with a closed form: each
// distinct k = q - p and s = q + p of the window is evaluated once, so a window at positions
// near 2^31 costs what one near 0 does. Zoomed out, a closed form with the dot (or a cosine
// whose norm is constant) puts the texels on a lattice (ChooseOffsetLattice) and evaluates the
// exact means along one progression of offsets (OffsetTexelMeans), plus the few absolute terms
// texel by texel: the whole 1e9 x 1e9 table in a frame. Otherwise the mean vectors of the texel
// rows and columns are made once (about (rows + columns) x dim work) and each texel is their
// dot product.
SimilarityRaster ComputeSimilarityRaster(const PositionSimilarity& sim,
                                         const SimilarityRasterRequest& request);

// ---- against the offset k = q - p ---------------------------------------------------------------

// sim(p, p + k) over the positions p that keep both p and p + k in the table (L - |k| of them).
struct OffsetStats {
  double mean = 0, min = 0, max = 0;
  int64_t positions = 0;   // L - |k|
  int64_t sampled = 0;     // positions p evaluated for min and max (all of them when exact)
  bool exact = true;       // min and max over every p
  bool mean_exact = true;  // the mean over every p (by a closed form, or every p evaluated)
  // Evaluated p whose cosine is undefined (a zero vector at p or p + k): left out of the mean,
  // min and max, which are NaN when nothing is left.
  int64_t undefined = 0;
};

// At most `max_positions` positions p are evaluated for min and max (spread evenly, always the
// first and the last). The mean is exact whenever a closed form gives it (Toeplitz waves; the dot
// of waves with an unpaired column, by the Dirichlet-kernel sum of cos((2p + k) w) over p).
OffsetStats SimilarityAtOffset(const PositionSimilarity& sim, int64_t k, int64_t max_positions);

}  // namespace pe
