// How position shapes the pre-softmax attention logit, for every scheme, through the Encoding
// interface only (so schemes added later work unchanged). A query at position m and a key at
// position n score
//   score(m, n) = q_m . k_n / sqrt(d) + Bias(m, n)
// with the scheme applied as models apply it, and no projections (W_q = W_k = I):
//   added (sinusoidal, learned): q_m = x_q + PE_m,              k_n = x_k + PE_n
//   rotary (RoPE, xPos):         q_m = RotateQuery(m, x_q),     k_n = RotateKey(n, x_k)
//   bias (ALiBi, T5):            q_m = x_q,                     k_n = x_k
// Bias is 0 for the schemes that do not override it, the rotations are the identity for those
// that do not rotate; so one formula serves all three families. d is d_model (the head dimension
// for the rotary schemes).
//
// The content x_q, x_k (ScoreContent), each (d):
//   random: one N(0, 1) vector, x_j = RandomNormal(ScoreContentStream(example.seed), j), used as
//           both x_q and x_k. Its stream is the example seed hashed with "score", so it is neither
//           a token embedding row nor the rotation view's query.
//   ones:   x_q = x_k = (1, ..., 1).
//   tokens: x_q = the embedding row of token A of the sentence, x_k that of token B, times
//           sqrt(d) when the input layer scales embeddings (InputLayerParams::scale): the same
//           scaled embedding the sum view adds the positional vector to, for every scheme.
// A causal mask hides keys after the query (n > m), and the other windows of
// model/attention_window.h (sliding, sliding-bidirectional, chunked) hide the keys outside their
// band or block: those cells have no score (NaN here, an empty CSV cell, grey in the figure).
// The softmax scale s (--softmax-scale) replaces 1/sqrt(d) when given: score = s q_m . k_n + Bias.
// With an attention temperature (Llama 4's NoPE layers) q_m is also multiplied by tau(m), the
// bias is not: score(m, n) = s tau(m) q_m . k_n + Bias(m, n).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "encoding/encoding.h"
#include "model/model_params.h"

namespace pe {

// The generator stream of the random content: the example seed hashed with the bytes "score".
uint64_t ScoreContentStream(uint64_t seed);

// "score(m, n) = (x + PE_m)·(x + PE_n) / √d": the definition the figures and the window show,
// for the encoding's family and the content kind (x for one vector, x_A and x_B for tokens).
std::string ScoreDefinition(const Encoding& encoding, const ScoreContent& content);
// The same with a softmax scale s > 0 given ("... · s" in place of "/ √d"; 0: as above) and a
// temperature (Llama 4: the query is q_m times tau(m), said after the formula).
std::string ScoreDefinition(const Encoding& encoding, const ScoreContent& content,
                            double softmax_scale, const AttentionTemperature& temperature = {});
// "softmax scale s = 0.1657 (in place of 1/√128 = 0.08839)", for a scale given (> 0).
std::string SoftmaxScaleText(double softmax_scale, int64_t d);
// The same for the parameters' scale; when it is the open model's layer's own, it is written as
// that model computes it, over the model's query head dim H: "softmax scale s = 1.874/√192 =
// 0.1352 (deepseek-v3's, q head dim 192)" (DeepSeek-V3's mscale^2/sqrt(192)), "1/√256" (Gemma's
// query_pre_attn_scalar), "1" (T5), since the default 1/√d of the layer's d = d_model (64
// rotated dims of DeepSeek's head) is not what the model divides by.
std::string SoftmaxScaleText(const ModelParams& m, int64_t d);
// The options that change the score views' numbers beyond the encoding, as their flags read:
// "causal mask" or "attention window sliding:4096", "softmax scale 0.2" and (with
// `temperature`) "temperature llama4 (scale 0.1, floor 8192)", joined by ", "; empty when none
// is set.
std::string ScoreOptionsText(const ModelParams& params, bool temperature = true);

// The scorer of one encoding and content. Immutable once made; cheap per call.
class AttentionScorer {
 public:
  // The content of `params` for `encoding` (whose d_model sizes it). Tokens content tokenizes the
  // example; an error names the token count when A or B lies outside the sentence.
  static Result<AttentionScorer> Make(const ModelParams& params, EncodingPtr encoding);
  // Explicit content (each (d_model)), for tests and callers with their own vectors.
  static Result<AttentionScorer> Make(EncodingPtr encoding, std::vector<double> x_query,
                                      std::vector<double> x_key, bool causal_mask,
                                      const AttentionTemperature& temperature = {});
  // With any window (causal included), a softmax scale (0: 1/sqrt(d)) and a temperature.
  static Result<AttentionScorer> Make(EncodingPtr encoding, std::vector<double> x_query,
                                      std::vector<double> x_key, AttentionWindow window,
                                      double softmax_scale = 0,
                                      const AttentionTemperature& temperature = {});

  const Encoding& encoding() const { return *encoding_; }
  int64_t dim() const { return static_cast<int64_t>(x_query_.size()); }
  bool causal_mask() const { return causal_; }
  // Keys after the query are hidden: asked for, or implied by the scheme (causal ALiBi).
  bool causal() const { return causal_ || encoding_->Masked(0, 1); }
  // The window asked for (causal included); full when none.
  const AttentionWindow& window() const { return window_; }
  // A sliding, bidirectional sliding or chunked window (not the causal mask alone).
  bool banded() const { return window_.banded(); }
  // Any key hidden for some query: a window, or the scheme's own causal mask.
  bool masked_any() const { return banded() || causal(); }
  // The keys query m sees, [lo, hi) (kFarPosition wide on an open side).
  KeyRun VisibleKeys(int64_t m) const { return pe::VisibleKeys(window_, scheme_causal_, m); }
  // The unmasked cells of [m0, m1) x [n0, n1), in closed form.
  int64_t VisibleCells(int64_t m0, int64_t m1, int64_t n0, int64_t n1) const {
    return pe::VisibleCells(window_, scheme_causal_, m0, m1, n0, n1);
  }
  // The factor of q . k: the softmax scale given, else 1/sqrt(d).
  double scale() const;
  // The softmax scale as given; 0: the default 1/sqrt(d).
  double softmax_scale() const { return scale_; }
  const std::vector<double>& x_query() const { return x_query_; }
  const std::vector<double>& x_key() const { return x_key_; }

  // q_m and k_n, (d): the content with the scheme applied at that position.
  void Query(int64_t m, double* out) const;
  void Key(int64_t n, double* out) const;
  // The mean of q over the positions [m0, m0 + count) (and likewise k), (d). Added schemes use
  // the table's exact column means (closed forms for waves, any count costs the same), RoPE
  // each pair's Dirichlet mean, M-RoPE its exact mean rotation (Encoding::MeanRotated); the
  // others (xPos) average at most `samples` positions
  // spread evenly over the range (all of them when count <= samples). Returns true when the mean is
  // exact.
  bool MeanQuery(int64_t m0, int64_t count, int samples, double* out) const;
  bool MeanKey(int64_t n0, int64_t count, int samples, double* out) const;

  // q . k / sqrt(d) for vectors from Query and Key (no bias, no mask).
  double Dot(const double* q, const double* k) const;
  // score(m, n): NaN when a mask hides the key (see Masked).
  double Score(int64_t m, int64_t n) const;
  // Hidden by the causal mask asked for, or by one the scheme implies (causal ALiBi).
  bool Masked(int64_t m, int64_t n) const {
    return (causal_ && n > m) || (banded() && !Sees(window_, false, m, n)) ||
           encoding_->Masked(m, n);
  }
  bool has_bias() const { return encoding_->family() == Family::kBias; }
  // The query temperature: q_m is the scheme's query times tau(m) (model_params.h).
  const AttentionTemperature& temperature() const { return temperature_; }
  // Whether tau differs from 1 at some position of the table: the closed forms (waves, block
  // means) assume it does not, so they step aside and the views average q_m . k_n directly.
  bool tempered() const;

 private:
  EncodingPtr encoding_;
  std::vector<double> x_query_, x_key_;
  bool causal_ = false;
  bool scheme_causal_ = false;  // the scheme masks the keys after the query (causal ALiBi)
  AttentionWindow window_;
  double scale_ = 0;
  AttentionTemperature temperature_;
};

// ---- the (query x key) score at screen resolution ----------------------------------------------

// The visible window in plot coordinates: x keys, y queries, both absolute positions; cell (m, n)
// covers [n, n + 1) x [m, m + 1).
struct ScoreRasterRequest {
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  int width_px = 1, height_px = 1;
  // Zoomed out, texels may sit on a lattice (analysis/offset_texels.h) for exact means in a
  // frame; false keeps RasterEdges's texels (one per pixel), for rasters compared cell by cell.
  bool lattice = true;
};

inline constexpr int kScoreTexelSamples = 8;  // positions averaged per texel side when not exact
// Texels a mask cuts partly are exact means of their visible cells when the score depends on the
// offset n - m alone (RoPE, ALiBi, T5, NoPE): from the score along the offsets those cells take
// (analysis/masked_texels.h), at most kMaskedTexelMaxWork offset-values x waves a frame (sliding:W
// needs W offsets, chunked:C C, causal the texels' own span); past it they are sampled.
inline constexpr int kMaskedTexelMaxWorkLog2 = 27;
inline constexpr int64_t kMaskedTexelMaxWork = int64_t{1} << kMaskedTexelMaxWorkLog2;

struct ScoreRaster {
  int width = 0, height = 0;  // texels
  // (height, width): each texel's mean score over its cells; NaN when every cell is masked.
  std::vector<float> values;
  // Texel column x covers keys [key_edges[x], key_edges[x+1]); rows cover queries likewise.
  std::vector<int64_t> key_edges, query_edges;
  // Every texel the exact mean of all its cells (else: the mean over a grid of at most
  // kScoreTexelSamples x kScoreTexelSamples cells spread evenly inside it, masked cells left out).
  bool exact = true;
  bool one_cell_per_texel = false;
  bool empty() const { return width == 0 || height == 0; }
};

// With a temperature, the exact texel means sum each texel row over its runs of one tau (one run
// per --temperature-floor positions, model_params.h): at most kTemperedRasterMaxWork run-values
// (runs past each row's first, times d) in a frame, about a second on two cores.
inline constexpr int kTemperedRasterMaxWorkLog2 = 23;
inline constexpr int64_t kTemperedRasterMaxWork = int64_t{1} << kTemperedRasterMaxWorkLog2;
// An error naming --temperature-floor, the rule and the values when a tempered raster of this
// request would take more than that (added schemes, RoPE, M-RoPE and the biases, whose texels
// are exact sums over the runs); OK otherwise. The score and compare views ask before they draw.
Status CheckScoreRaster(const AttentionScorer& scorer, const ScoreRasterRequest& request);

// Under a mask the views draw exact texels or none: an error for a masked raster `r` of `scorer`
// that is not exact (its texels hold more than kScoreTexelSamples positions a side, and no closed
// form serves the scheme under its mask: M-RoPE cut by a mask, a learned table past its prefix
// sums' size, an added table under a sliding window), naming the scheme, the mask, the window's
// size and the largest exact one; OK otherwise (unmasked rasters may be sampled, and their legend
// says so).
Status RefuseSampledRaster(const AttentionScorer& scorer, const ScoreRaster& r);

// The raster of the window, clamped to the table's positions. Only the texels' rows and columns
// are evaluated (per-position vectors are made once per texel row and column), so a table of
// 2^31 positions costs what a small one does. Work is about (texel rows + columns) x samples x d
// plus texels x d.
ScoreRaster ComputeScoreRaster(const AttentionScorer& scorer, const ScoreRasterRequest& request);

// ---- rows, distance and softmax
// ------------------------------------------------------------------

// score(m, n) for keys n in [n0, n0 + count), into `out` (count); masked keys are NaN.
void ScoreRow(const AttentionScorer& scorer, int64_t m, int64_t n0, int64_t count, double* out);

// The keys k_n of positions [n0, n0 + count), (count, d): made once for ScoreBlock over many
// queries (a table of scores costs a dot product per cell then, not a key).
std::vector<double> ScoreKeys(const AttentionScorer& scorer, int64_t n0, int64_t count);
// score(m, n) for queries m in [m0, m0 + rows) and the keys of ScoreKeys(scorer, n0, cols), into
// `out` (rows, cols) row-major; masked cells NaN. The same numbers as Score(m, n) and ScoreRow.
void ScoreBlock(const AttentionScorer& scorer, const double* keys, int64_t n0, int64_t cols,
                int64_t m0, int64_t rows, double* out);

// The decay curve: score(first + k, first) for each distance k in `distances` (the key fixed at
// the table's first position, the query moved k positions after it; a causal mask never hides
// these, a sliding or chunked window does past its reach: NaN). Distances past the table's last
// position are NaN.
std::vector<double> DecayCurve(const AttentionScorer& scorer, std::span<const int64_t> distances);

// softmax over a row of logits; NaN logits (masked keys) get weight 0. All-masked rows give all
// zeros. Computed stably (the maximum subtracted first).
std::vector<double> SoftmaxRow(std::span<const double> logits);

// RoFormer's long-term decay bound (Su et al. 2021, section 3.4.3, Figure 2): the relative upper
// bound of the RoPE score at relative distance r,
//   (1 / (d/2)) sum_{j=1}^{d/2} |S_j|,   S_j = sum_{k=0}^{j-1} e^{i r theta_k},
//   theta_k = theta^(-2k/d).
// (d/2 + 1) / 2 at r = 0 (32.5 for d = 128). `d` even and >= 2.
double RoformerDecayBound(int64_t d, double theta, double distance);
// The same bound over any frequencies, in their order (the sum's S_j are the partial sums of
// e^{i r theta_k} in this order): RoPE's frequencies after its scaling (RopeFrequencies), since
// the bound |sum h_k e^{i r theta_k}| <= max |h_{k+1} - h_k| sum_j |S_j| holds for any.
double RoformerDecayBound(std::span<const double> frequencies, double distance);

}  // namespace pe
