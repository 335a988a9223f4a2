#include "analysis/attention_score.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <optional>
#include <span>

#include "analysis/masked_texels.h"
#include "analysis/offset_texels.h"
#include "analysis/similarity.h"
#include "base/progress.h"
#include "base/random.h"
#include "base/raster_edges.h"
#include "encoding/t5_buckets.h"
#include "encoding/wave.h"
#include "io/loaded_table.h"
#include "model/embedding.h"
#include "model/model_schedule.h"
#include "text/tokenizer.h"

namespace pe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The largest (keys + queries) x wave terms PrefixScoreRaster takes on (about a second on two
// cores; past it texels are sampled).
constexpr int64_t kPrefixRasterMaxWork = int64_t{1} << 32;
// The most query rows x texel columns PrefixScoreRaster visits for an added table under a mask
// (a tenth of a second); past it the texels the mask cuts are sampled.
constexpr int64_t kMaskedPrefixMaxRowTexels = int64_t{1} << 27;

// `samples` positions spread evenly over [p0, p0 + count): the centres of equal slices, or every
// position when they fit.
std::vector<int64_t> SamplePositions(int64_t p0, int64_t count, int samples) {
  std::vector<int64_t> out;
  if (count <= 0) return out;
  if (count <= samples) {
    for (int64_t k = 0; k < count; ++k) out.push_back(p0 + k);
    return out;
  }
  for (int s = 0; s < samples; ++s) {
    const double centre = (static_cast<double>(s) + 0.5) * static_cast<double>(count) / samples;
    out.push_back(p0 + std::min(count - 1, static_cast<int64_t>(centre)));
  }
  return out;
}

}  // namespace

uint64_t ScoreContentStream(uint64_t seed) {
  return RandomBits(seed ^ 0x73636f7265ull /* "score" */, 0);
}

std::string SoftmaxScaleText(double softmax_scale, int64_t d) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "softmax scale s = %.4g (in place of 1/\xe2\x88\x9a%lld = %.4g)",
                softmax_scale, static_cast<long long>(d), 1.0 / std::sqrt(static_cast<double>(d)));
  return buf;
}

std::string SoftmaxScaleText(const ModelParams& m, int64_t d) {
  const double s = m.softmax_scale;
  const ModelSchedule* model = m.model.get();
  if (!(s > 0) || model == nullptr || m.model_layer < 0 ||
      m.model_layer >= static_cast<int64_t>(model->layers.size()) ||
      model->layers[static_cast<size_t>(m.model_layer)].softmax_scale != s) {
    return SoftmaxScaleText(s, d);
  }
  const int64_t h = model->shape.head_dim;
  char buf[200];
  if (s == 1) {
    std::snprintf(buf, sizeof buf,
                  "softmax scale s = 1 (%s's: q.k is not divided by \xe2\x88\x9a"
                  "d)",
                  model->name.c_str());
    return buf;
  }
  // s = k / sqrt(n): k = 1 with n = 1/s^2 when that is a whole number (Gemma's
  // query_pre_attn_scalar), else n = H and k = s sqrt(H) (DeepSeek-V3's mscale^2).
  const double n = 1 / (s * s);
  if (std::fabs(n - std::round(n)) < 1e-9 * n) {
    std::snprintf(buf, sizeof buf, "softmax scale s = 1/\xe2\x88\x9a%.0f = %.4g (%s's)", n, s,
                  model->name.c_str());
  } else if (h > 0) {
    std::snprintf(buf, sizeof buf,
                  "softmax scale s = %.4g/\xe2\x88\x9a%lld = %.4g (%s's, q head dim %lld)",
                  s * std::sqrt(static_cast<double>(h)), static_cast<long long>(h), s,
                  model->name.c_str(), static_cast<long long>(h));
  } else {
    std::snprintf(buf, sizeof buf, "softmax scale s = %.4g (%s's)", s, model->name.c_str());
  }
  return buf;
}

std::string ScoreOptionsText(const ModelParams& m, bool temperature) {
  std::string text;
  auto add = [&text](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  const AttentionWindow window = EffectiveAttentionWindow(m);
  if (window.kind == AttentionWindowKind::kCausal) {
    add("causal mask");
  } else if (window.kind != AttentionWindowKind::kFull) {
    add("attention window " + AttentionWindowText(window));
  }
  char buf[160];
  if (m.softmax_scale > 0) {
    std::snprintf(buf, sizeof buf, "softmax scale %.9g", m.softmax_scale);
    add(buf);
  }
  if (temperature && m.temperature.kind != TemperatureKind::kNone) {
    std::snprintf(buf, sizeof buf, "temperature llama4 (scale %.9g, floor %.9g)",
                  m.temperature.scale, m.temperature.floor);
    add(buf);
  }
  return text;
}

std::string ScoreDefinition(const Encoding& e, const ScoreContent& content, double softmax_scale,
                            const AttentionTemperature& t) {
  std::string text = ScoreDefinition(e, content);
  if (softmax_scale > 0) {
    // "/ √d" becomes "· s".
    const std::string root =
        " / \xe2\x88\x9a"
        "d";
    if (const size_t at = text.find(root); at != std::string::npos) {
      text.replace(at, root.size(), " \xc2\xb7 s");
    }
  }
  if (t.kind != TemperatureKind::kNone) {
    // "q_m × τ(m), τ(m) = 1 + 0.1 ln(⌊(m + 1)/8192⌋ + 1) (Llama 4)"
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  ", q_m \xc3\x97 \xcf\x84(m), \xcf\x84(m) = 1 + %.9g ln(\xe2\x8c\x8a(m + 1)/%.9g"
                  "\xe2\x8c\x8b + 1) (Llama 4 temperature)",
                  t.scale, t.floor);
    text += buf;
  }
  return text;
}

std::string ScoreDefinition(const Encoding& e, const ScoreContent& content) {
  const bool two = content.kind == ScoreContent::Kind::kTokens;
  const std::string xq = two ? "x_A" : "x", xk = two ? "x_B" : "x";
  const std::string root =
      "\xe2\x88\x9a"
      "d";                             // √d
  const std::string dot = "\xc2\xb7";  // ·
  switch (e.family()) {
    case Family::kAdded: {
      const std::string pe(e.descriptor().vector_symbol);
      // NoPE adds nothing: the content alone, whatever m and n are.
      if (pe.empty()) return "score(m, n) = " + xq + dot + xk + " / " + root + " (no position)";
      return "score(m, n) = (" + xq + " + " + pe + "_m)" + dot + "(" + xk + " + " + pe + "_n) / " +
             root;
    }
    case Family::kRotary:
      if (e.descriptor().decays) {
        // torchscale's XPOS: the query's pair i scaled by zeta_i^(m / scale_base), the key's by
        // zeta_i^(-n / scale_base), on top of the rotation.
        const std::string zeta = "\xce\xb6";  // ζ
        return "score(m, n) = (" + zeta + "^(m/s) R_m " + xq + ")" + dot + "(" + zeta +
               "^(\xe2\x88\x92n/s) R_n " + xk + ") / " + root + ", " + zeta +
               "_i per pair, s = scale_base";
      }
      return "score(m, n) = (R_m " + xq + ")" + dot + "(R_n " + xk + ") / " + root;
    case Family::kBias:
      return "score(m, n) = " + xq + dot + xk + " / " + root + " + bias(m, n)";
  }
  return "score(m, n)";
}

Result<AttentionScorer> AttentionScorer::Make(EncodingPtr encoding, std::vector<double> x_query,
                                              std::vector<double> x_key, bool causal_mask,
                                              const AttentionTemperature& temperature) {
  return Make(std::move(encoding), std::move(x_query), std::move(x_key),
              causal_mask ? AttentionWindow{AttentionWindowKind::kCausal, 0} : AttentionWindow{}, 0,
              temperature);
}

Result<AttentionScorer> AttentionScorer::Make(EncodingPtr encoding, std::vector<double> x_query,
                                              std::vector<double> x_key, AttentionWindow window,
                                              double softmax_scale,
                                              const AttentionTemperature& temperature) {
  if (!(softmax_scale >= 0) || !std::isfinite(softmax_scale)) {
    return InvalidArgument("--softmax-scale must be a finite number greater than 0, got " +
                           std::to_string(softmax_scale));
  }
  if (!encoding) return InvalidArgument("no encoding to score");
  const auto d = static_cast<size_t>(encoding->params().d_model);
  if (x_query.size() != d || x_key.size() != d) {
    return InvalidArgument("the query and key content must have d_model = " + std::to_string(d) +
                           " values, got " + std::to_string(x_query.size()) + " and " +
                           std::to_string(x_key.size()));
  }
  AttentionScorer s;
  s.encoding_ = std::move(encoding);
  s.x_query_ = std::move(x_query);
  s.x_key_ = std::move(x_key);
  s.causal_ = window.kind == AttentionWindowKind::kCausal;
  s.window_ = window;
  s.scheme_causal_ = s.encoding_->Masked(0, 1);
  s.scale_ = softmax_scale;
  s.temperature_ = temperature;
  return s;
}

double AttentionScorer::scale() const {
  return scale_ > 0 ? scale_ : 1.0 / std::sqrt(static_cast<double>(x_query_.size()));
}

bool AttentionScorer::tempered() const {
  const AttentionTemperature& t = temperature_;
  // tau(p) = 1 exactly while floor((p + 1) / floor) = 0, or with a scale of 0; it is
  // monotonic in p, so the table's last position tells.
  return t.kind != TemperatureKind::kNone && t.scale != 0.0 &&
         TemperatureAt(t, encoding_->last_position()) != 1.0;
}

Result<AttentionScorer> AttentionScorer::Make(const ModelParams& params, EncodingPtr encoding) {
  if (!encoding) return InvalidArgument("no encoding to score");
  const int64_t d = encoding->params().d_model;
  std::vector<double> xq(static_cast<size_t>(d)), xk;
  switch (params.content.kind) {
    case ScoreContent::Kind::kRandom: {
      const uint64_t stream = ScoreContentStream(params.example.seed);
      for (int64_t j = 0; j < d; ++j) {
        xq[static_cast<size_t>(j)] = RandomNormal(stream, static_cast<uint64_t>(j));
      }
      xk = xq;
      break;
    }
    case ScoreContent::Kind::kOnes:
      std::fill(xq.begin(), xq.end(), 1.0);
      xk = xq;
      break;
    case ScoreContent::Kind::kTokens: {
      // The sentence's ids as ComputeSentence makes them, without the positional rows (so every
      // family can use them).
      // With typed ids, the first row of the batch.
      const TextExample& ex = params.example;
      const LoadedTable* loaded = ex.embeddings.table.get();
      int64_t vocab_size = 0;
      Result<std::vector<int64_t>> example_ids = std::vector<int64_t>();
      if (loaded != nullptr && loaded->has_words() && ex.ids.empty()) {
        // A word-vector table: each word's row; a word it lacks has none (-1: a zero row, or
        // the file's <unk> row), as ComputeSentence.
        const int64_t unk = loaded->FindWord(kUnknownToken);
        for (const Token& t : Tokenize(ex.text, ex.tokenizer)) {
          const int64_t id = loaded->FindWord(t.text);
          example_ids.value().push_back(id >= 0 ? id : unk);
        }
      } else {
        example_ids = ExampleIds(ex, 0, &vocab_size);
      }
      if (!example_ids.ok()) return example_ids.error();
      const std::vector<int64_t>& ids = example_ids.value();
      const auto count = static_cast<int64_t>(ids.size());
      for (int64_t t : {params.content.token_a, params.content.token_b}) {
        if (t < 0 || t >= count) {
          return InvalidArgument(
              "--content tokens: token " + std::to_string(t) +
              " is outside the sentence, which has " + std::to_string(count) +
              (count == 1 ? " token" : " tokens") +
              (count > 0 ? " (0 to " + std::to_string(count - 1) + ")" : std::string()));
        }
      }
      const double scale = params.input.scale ? std::sqrt(static_cast<double>(d)) : 1.0;
      xk.resize(static_cast<size_t>(d));
      const int64_t pair[2] = {ids[static_cast<size_t>(params.content.token_a)],
                               ids[static_cast<size_t>(params.content.token_b)]};
      Result<Matrix> rows = ExampleEmbeddingRows(ex, vocab_size, d, pair);  // (2, d)
      if (!rows.ok()) return rows.error();
      for (int64_t j = 0; j < d; ++j) {
        // As the sum view's scaled part: float32 E[id] times sqrt(d) rounded to float32.
        const auto s32 = static_cast<float>(scale);
        xq[static_cast<size_t>(j)] = rows.value().at(0, j) * s32;
        xk[static_cast<size_t>(j)] = rows.value().at(1, j) * s32;
      }
      break;
    }
  }
  return Make(std::move(encoding), std::move(xq), std::move(xk), EffectiveAttentionWindow(params),
              params.softmax_scale, params.temperature);
}

void AttentionScorer::Query(int64_t m, double* out) const {
  const Encoding& e = *encoding_;
  const auto d = static_cast<int64_t>(x_query_.size());
  if (e.family() == Family::kAdded) {
    for (int64_t j = 0; j < d; ++j) {
      out[j] = x_query_[static_cast<size_t>(j)] + e.ValueAt(j, static_cast<double>(m));
    }
  } else {
    std::copy(x_query_.begin(), x_query_.end(), out);
    e.RotateQuery(m, out);
  }
  // Llama 4 multiplies the query after the rotation (and its QK norm) by tau(m).
  if (const double tau = TemperatureAt(temperature_, m); tau != 1.0) {
    for (int64_t j = 0; j < d; ++j) out[j] *= tau;
  }
}

void AttentionScorer::Key(int64_t n, double* out) const {
  const Encoding& e = *encoding_;
  const auto d = static_cast<int64_t>(x_key_.size());
  if (e.family() == Family::kAdded) {
    for (int64_t j = 0; j < d; ++j) {
      out[j] = x_key_[static_cast<size_t>(j)] + e.ValueAt(j, static_cast<double>(n));
    }
    return;
  }
  std::copy(x_key_.begin(), x_key_.end(), out);
  e.RotateKey(n, out);
}

namespace {

// The mean of `one(p)` over [p0, p0 + count): exact column means for added schemes (x + mean PE),
// else the mean over sampled positions.
template <typename One>
bool MeanOf(const Encoding& e, const std::vector<double>& x, int64_t p0, int64_t count, int samples,
            double* out, One one) {
  const auto d = static_cast<int64_t>(x.size());
  if (count == 1) {
    one(p0, out);
    return true;
  }
  if (e.family() == Family::kAdded) {
    e.MeanOverRows(p0 - e.first_position(), count, 0, d, out);
    for (int64_t j = 0; j < d; ++j) out[j] += x[static_cast<size_t>(j)];
    return true;
  }
  const std::vector<int64_t> ps = SamplePositions(p0, count, samples);
  std::vector<double> v(static_cast<size_t>(d));
  std::fill(out, out + d, 0.0);
  for (int64_t p : ps) {
    one(p, v.data());
    for (int64_t j = 0; j < d; ++j) out[j] += v[static_cast<size_t>(j)];
  }
  for (int64_t j = 0; j < d; ++j) out[j] /= static_cast<double>(ps.size());
  return static_cast<int64_t>(ps.size()) == count;
}

}  // namespace

namespace {

// The runs of positions of equal tau in [p0, p0 + count), as (first, length): tau's step
// floor((p + 1) / floor) changes where p + 1 reaches a multiple of floor.
std::vector<std::pair<int64_t, int64_t>> TemperatureRuns(const AttentionTemperature& t, int64_t p0,
                                                         int64_t count) {
  // The step as TemperatureAt computes it, so runs and tau agree at every position.
  const auto step = [&t](int64_t q) {
    return std::floor((static_cast<double>(q) + 1.0) / t.floor);
  };
  std::vector<std::pair<int64_t, int64_t>> runs;
  const int64_t end = p0 + count;
  for (int64_t p = p0; p < end;) {
    const double k = step(p) + 1.0;  // the next step
    const double guess = std::ceil(k * t.floor) - 1.0;
    int64_t next = end;
    if (guess < static_cast<double>(end)) {
      next = std::max(p + 1, static_cast<int64_t>(guess));
      while (next - 1 > p && step(next - 1) >= k) --next;
      while (next < end && step(next) < k) ++next;
    }
    runs.emplace_back(p, next - p);
    p = next;
  }
  return runs;
}

// The pairs of a rotation whose mean over positions has a closed form: RoPE's (no decay), which
// describe RotateQuery and RotateKey exactly (encoding.h RotaryPair); empty for the others.
std::span<const RotaryPair> PlainRotaryPairs(const Encoding& e) {
  const std::span<const RotaryPair> pairs = e.rotary_pairs();
  for (const RotaryPair& pair : pairs) {
    if (pair.decay != 0.0) return {};
  }
  return pairs;
}

// Whether the encoding's rotation has a mean over positions of its own (Encoding::MeanRotated:
// M-RoPE), asked at its first position.
bool HasMeanRotated(const Encoding& e) {
  const std::vector<double> v(static_cast<size_t>(e.params().d_model), 0.0);
  std::vector<double> out(v.size());
  return e.MeanRotated(e.first_position(), 1, v.data(), out.data());
}

// Whether ExactMean has a closed form for the encoding: the added schemes (the table's exact
// column means), RoPE, M-RoPE (MeanRotated), and the biases (whose q and k are the content
// itself).
bool HasExactMeans(const Encoding& e) {
  return e.family() == Family::kAdded || e.family() == Family::kBias ||
         (e.family() == Family::kRotary && (!PlainRotaryPairs(e).empty() || HasMeanRotated(e)));
}

// The mean over [p0, p0 + count) of x + PE_p (added) or R_p x (RoPE), (d), untempered, exact at
// any count. RoPE: pair i turns by p w_i times its amplitude, and the mean of e^{i p w} over the
// run is D(count, w) e^{i c w}, c = p0 + (count - 1) / 2 its centre (DirichletMean; the angle
// an exact product, ExpOfMultiple of 2c and w / 2); dims no pair holds pass through. A bias:
// x. HasExactMeans(e) must hold.
void ExactMean(const Encoding& e, const std::vector<double>& x, int64_t p0, int64_t count,
               double* out) {
  const auto d = static_cast<int64_t>(x.size());
  if (e.family() == Family::kAdded) {
    e.MeanOverRows(p0 - e.first_position(), count, 0, d, out);
    for (int64_t j = 0; j < d; ++j) out[j] += x[static_cast<size_t>(j)];
    return;
  }
  if (e.family() == Family::kRotary && e.MeanRotated(p0, count, x.data(), out)) return;
  std::copy(x.begin(), x.end(), out);
  if (e.family() == Family::kBias) return;
  for (const RotaryPair& pair : PlainRotaryPairs(e)) {
    const double mean = pair.amplitude * DirichletMean(count, pair.frequency);
    const UnitComplex z = ExpOfMultiple(static_cast<double>(2 * p0 + count - 1),
                                        0.5 * pair.frequency);  // e^{i c w}
    const double c = z.re * mean, s = z.im * mean;
    const double xa = x[static_cast<size_t>(pair.dim_a)], xb = x[static_cast<size_t>(pair.dim_b)];
    out[pair.dim_a] = xa * c - xb * s;
    out[pair.dim_b] = xb * c + xa * s;
  }
}

}  // namespace

bool AttentionScorer::MeanQuery(int64_t m0, int64_t count, int samples, double* out) const {
  if (count == 1 || !HasExactMeans(*encoding_)) {
    return MeanOf(*encoding_, x_query_, m0, count, samples, out,
                  [this](int64_t p, double* v) { Query(p, v); });
  }
  if (!tempered()) {
    ExactMean(*encoding_, x_query_, m0, count, out);
    return true;
  }
  // tau is constant on runs of positions: the exact mean is the runs' exact untempered means,
  // each times its tau and its share of the positions (CheckScoreRaster bounds the runs).
  // Without a closed form (xPos) MeanOf above samples Query, tau included.
  const auto d = static_cast<size_t>(dim());
  std::vector<double> part(d);
  std::fill(out, out + d, 0.0);
  for (const auto& [p, n] : TemperatureRuns(temperature_, m0, count)) {
    ExactMean(*encoding_, x_query_, p, n, part.data());
    const double w =
        TemperatureAt(temperature_, p) * static_cast<double>(n) / static_cast<double>(count);
    for (size_t j = 0; j < d; ++j) out[j] += w * part[j];
  }
  return true;
}

bool AttentionScorer::MeanKey(int64_t n0, int64_t count, int samples, double* out) const {
  if (count > 1 && HasExactMeans(*encoding_)) {
    // Closed forms: the table's column means (added), each pair's Dirichlet mean (RoPE),
    // MeanRotated (M-RoPE), the content (biases).
    ExactMean(*encoding_, x_key_, n0, count, out);
    return true;
  }
  return MeanOf(*encoding_, x_key_, n0, count, samples, out,
                [this](int64_t p, double* v) { Key(p, v); });
}

double AttentionScorer::Dot(const double* q, const double* k) const {
  const auto d = static_cast<int64_t>(x_query_.size());
  double acc = 0.0;
  for (int64_t j = 0; j < d; ++j) acc += q[j] * k[j];
  if (scale_ > 0) return acc * scale_;
  return acc / std::sqrt(static_cast<double>(d));
}

double AttentionScorer::Score(int64_t m, int64_t n) const {
  if (Masked(m, n)) return kNaN;
  std::vector<double> q(x_query_.size()), k(x_key_.size());
  Query(m, q.data());
  Key(n, k.data());
  return Dot(q.data(), k.data()) + encoding_->Bias(m, n);
}

namespace {

// The score as sums of waves, for the exact zoomed-out raster (no mask, no bias). Keys are the
// columns (x = n), queries the rows (y = m); score = (constant + query(m) + key(n) + offset(n - m)
// + sum(n + m)) / sqrt(d), each part a sum of waves of its variable.
// A wave of the offset k = n - m that grows or decays along it: e^{lambda k} Re(H e^{i k w}),
// H = hr + i hi (xPos's pairs).
struct DecayingWave {
  double w = 0, lambda = 0, hr = 0, hi = 0;
};

struct ScoreWaves {
  double constant = 0;
  std::vector<WaveTerm> query, key, offset, sum;
  std::vector<DecayingWave> offset_decaying;
};

// out[j] += sum of the terms at offsets k = k0 + j, j < n. Each block of kDecayBlock offsets
// starts from e^{(lambda + i w) k} made afresh (exp and sincos) and steps by z = e^{lambda + i w}
// within it, so rounding never accumulates over more than a block; blocks run in parallel.
void AddDecayingWavesAlong(std::span<const DecayingWave> terms, int64_t k0, int64_t n,
                           double* out) {
  constexpr int64_t kDecayBlock = 256;
  const int64_t blocks = (n + kDecayBlock - 1) / kDecayBlock;
  const auto nt = static_cast<int64_t>(terms.size());
  // The job's token, read here: the team's other threads have none of their own.
  const CancelToken* job_cancel = CurrentCancelToken();
#pragma omp parallel for schedule(dynamic, 1) if (nt * n >= (int64_t{1} << 18))
  for (int64_t b = 0; b < blocks; ++b) {
    if (IsCancelled(job_cancel)) continue;  // cancelled: the rest is skipped, then thrown
    const int64_t j0 = b * kDecayBlock, len = std::min(kDecayBlock, n - j0);
    const auto k = static_cast<double>(k0 + j0);
    double acc[kDecayBlock] = {};
    for (const DecayingWave& t : terms) {
      const double mag = std::exp(t.lambda * k);
      double cr = mag * std::cos(t.w * k), ci = mag * std::sin(t.w * k);
      const double e = std::exp(t.lambda);
      const double zr = e * std::cos(t.w), zi = e * std::sin(t.w);
      for (int64_t j = 0; j < len; ++j) {
        acc[j] += t.hr * cr - t.hi * ci;  // Re(H c)
        const double r = cr * zr - ci * zi;
        ci = cr * zi + ci * zr;
        cr = r;
      }
    }
    for (int64_t j = 0; j < len; ++j) out[j0 + j] += acc[j];
  }
  ThrowIfCancelled(job_cancel);
}

// The score's waves; a causal mask (which the waves do not hold) only when `masked_ok`, a
// temperature (which they do not hold either: the caller scales each query's row) only when
// `tempered_ok`.
std::optional<ScoreWaves> MakeScoreWaves(const AttentionScorer& s, bool masked_ok = false,
                                         bool tempered_ok = false) {
  const Encoding& e = s.encoding();
  if ((s.masked_any() && !masked_ok) || s.has_bias() || (s.tempered() && !tempered_ok)) {
    return std::nullopt;
  }
  const std::vector<double>& xq = s.x_query();
  const std::vector<double>& xk = s.x_key();
  const auto d = static_cast<size_t>(s.dim());
  ScoreWaves out;
  if (e.family() == Family::kAdded) {
    // (x_q + PE_m) . (x_k + PE_n) = x_q . x_k + PE_m . x_k + x_q . PE_n + PE_m . PE_n: the
    // first a constant, the middle two waves of m and of n, the last the similarity's waves of
    // n - m and n + m (analysis/similarity.h).
    const std::span<const WaveColumn> cols = e.waves();
    if (cols.size() != d) return std::nullopt;  // a table (learned): no waves
    // A pair's sin and cos share their frequency: one complex term for both, by pair index (a
    // column whose frequency differs from its pair's keeps a term of its own).
    int64_t pairs = 0;
    for (const WaveColumn& c : cols) pairs = std::max(pairs, c.pair + 1);
    std::vector<WaveTerm> query(static_cast<size_t>(pairs)), key(static_cast<size_t>(pairs));
    std::vector<bool> used(static_cast<size_t>(pairs), false);
    for (size_t j = 0; j < d; ++j) {
      const WaveColumn& c = cols[j];
      out.constant += xq[j] * xk[j];
      if (c.wave == Wave::kZero) continue;
      if (c.wave != Wave::kSin && c.wave != Wave::kCos) return std::nullopt;
      // a cos(p w) = Re(a e^{i p w}); a sin(p w) = Re(-i a e^{i p w}).
      const bool cos = c.wave == Wave::kCos;
      const double sign = cos ? 1.0 : -1.0;
      const auto i = static_cast<size_t>(c.pair);
      if (c.pair < 0 || (used[i] && query[i].w != c.frequency)) {
        out.query.push_back(
            {c.frequency, cos ? c.amplitude * xk[j] : 0.0, cos ? 0.0 : -c.amplitude * xk[j]});
        out.key.push_back(
            {c.frequency, cos ? c.amplitude * xq[j] : 0.0, cos ? 0.0 : -c.amplitude * xq[j]});
        continue;
      }
      used[i] = true;
      query[i].w = key[i].w = c.frequency;
      (cos ? query[i].hr : query[i].hi) += sign * c.amplitude * xk[j];
      (cos ? key[i].hr : key[i].hi) += sign * c.amplitude * xq[j];
    }
    for (size_t i = 0; i < used.size(); ++i) {
      if (!used[i]) continue;
      out.query.push_back(query[i]);
      out.key.push_back(key[i]);
    }
    for (const SimilarityWave& w : SimilarityWaves(cols)) {
      out.offset.push_back({w.w, w.a, 0.0});
      if (w.b != 0.0) out.sum.push_back({w.w, w.b, 0.0});
    }
    return out;
  }
  // The rotary schemes turn pair i of the query by m w_i and of the key by n w_i, both times
  // an amplitude a (YaRN's attention factor): with Q = q1 + i q2 and K = k1 + i k2, their dot
  // is a^2 Re(Q conj(K) e^{i (m - n) w}) = Re(a^2 conj(Q) K e^{i (n - m) w}), a wave of the
  // offset n - m (RoFormer section 3.4.2). xPos (Sun et al. 2022; torchscale's XPOS) also
  // scales the query's pair by zeta_i^(m'/s) and the key's by zeta_i^(-n'/s) (m', n' the
  // decay positions, shifted alike when centred; s = scale_base), so the wave decays or grows
  // along the offset as e^{-decay (n - m)}. Dims past the pairs add x_q . x_k.
  const std::span<const RotaryPair> pairs = e.rotary_pairs();
  if (pairs.empty()) return std::nullopt;
  for (const RotaryPair& pair : pairs) {
    const auto ia = static_cast<size_t>(pair.dim_a), ib = static_cast<size_t>(pair.dim_b);
    const double q1 = xq[ia], q2 = xq[ib], k1 = xk[ia], k2 = xk[ib];
    const double a2 = pair.amplitude * pair.amplitude;
    // conj(Q) K = (q1 k1 + q2 k2) + i (q1 k2 - q2 k1).
    if (pair.decay != 0.0) {
      out.offset_decaying.push_back(
          {pair.frequency, pair.decay, a2 * (q1 * k1 + q2 * k2), a2 * (q1 * k2 - q2 * k1)});
    } else {
      out.offset.push_back({pair.frequency, a2 * (q1 * k1 + q2 * k2), a2 * (q1 * k2 - q2 * k1)});
    }
  }
  for (size_t j = 2 * pairs.size(); j < d; ++j) out.constant += xq[j] * xk[j];
  return out;
}

// Whether q.k decays or grows along the offset (xPos): the score has no closed texel means on a
// lattice then, but its waves still give every key and offset of a window.
bool DecaysAlongOffset(const Encoding& e) {
  return e.descriptor().decays;
}

// The raster from the waves on a lattice (ChooseOffsetLattice), or nullopt when there is none.
std::optional<ScoreRaster> OffsetScoreRaster(const ScoreWaves& w, double scale, int64_t k_lo,
                                             int64_t k_hi, int k_px, int64_t q_lo, int64_t q_hi,
                                             int q_px) {
  if (!w.offset_decaying.empty()) return std::nullopt;  // no closed texel means for these
  const std::optional<OffsetLattice> lat = ChooseOffsetLattice(k_lo, k_hi, k_px, q_lo, q_hi, q_px);
  if (!lat) return std::nullopt;
  ScoreRaster r;
  r.key_edges = lat->x_edges;
  r.query_edges = lat->y_edges;
  r.width = lat->nx();
  r.height = lat->ny();
  std::vector<double> v(static_cast<size_t>(r.width) * r.height);
  OffsetTexelMeans(w.offset, *lat, v.data());
  AddSumPositionMeans(w.sum, r.key_edges, r.query_edges, v.data());
  std::vector<double> rows(static_cast<size_t>(r.height), 0.0),
      cols(static_cast<size_t>(r.width), 0.0);
  if (!w.query.empty()) SpanMeansOfWaves(w.query, r.query_edges, rows.data());
  if (!w.key.empty()) SpanMeansOfWaves(w.key, r.key_edges, cols.data());
  const double inv = scale;
  r.values.resize(v.size());
#pragma omp parallel for schedule(static) if (v.size() >= (1 << 16))
  for (int y = 0; y < r.height; ++y) {
    const double row = w.constant + rows[static_cast<size_t>(y)];
    for (int x = 0; x < r.width; ++x) {
      const size_t i = static_cast<size_t>(y) * r.width + x;
      r.values[i] = static_cast<float>((row + cols[static_cast<size_t>(x)] + v[i]) * inv);
    }
  }
  return r;
}

// The score's parts along a window of keys [k_lo, k_lo + nk) and queries [q_lo, q_lo + nq):
// each part's values at every position, offset n - m and sum n + m the window's cells take, each
// from one sum of waves along them.
struct ScoreParts {
  int64_t k_lo = 0, q_lo = 0, o0 = 0, s0 = 0, nk = 0;
  double constant = 0, inv = 1;
  std::vector<double> query, key, offset, sum;

  // score(m, n) / 1 for the window's keys n = k_lo, ..., k_lo + nk - 1: values (nk).
  void Row(int64_t m, double* values) const {
    const double row = constant + query[static_cast<size_t>(m - q_lo)];
    const double* off = offset.data() + (k_lo - m - o0);  // at n - m
    const double* su = sum.data() + (k_lo + m - s0);      // at n + m
    for (int64_t i = 0; i < nk; ++i) {
      values[i] = (row + key[static_cast<size_t>(i)] + off[i] + su[i]) * inv;
    }
  }
};

ScoreParts MakeScoreParts(const ScoreWaves& w, double scale, int64_t k_lo, int64_t nk, int64_t q_lo,
                          int64_t nq) {
  ScoreParts p;
  p.k_lo = k_lo;
  p.q_lo = q_lo;
  p.nk = nk;
  // Offsets n - m from k_lo - (q_lo + nq - 1), sums n + m from k_lo + q_lo: nk + nq - 1 each.
  p.o0 = k_lo - (q_lo + nq - 1);
  p.s0 = k_lo + q_lo;
  const int64_t spread = nk + nq - 1;
  p.constant = w.constant;
  p.inv = scale;
  auto along = [](const std::vector<WaveTerm>& terms, int64_t lo, int64_t n) {
    std::vector<double> v(static_cast<size_t>(n), 0.0);
    if (!terms.empty()) WaveSumAlong(terms, 2 * lo, 1, n, v.data());
    return v;
  };
  p.query = along(w.query, q_lo, nq);
  p.key = along(w.key, k_lo, nk);
  p.offset = along(w.offset, p.o0, spread);
  if (!w.offset_decaying.empty())
    AddDecayingWavesAlong(w.offset_decaying, p.o0, spread, p.offset.data());
  p.sum = along(w.sum, p.s0, spread);
  return p;
}

// The raster cell by cell from the score's waves, for windows of at most kCellMeansMaxCells
// cells (one to a few per texel, where no lattice fits): each texel the mean of its cells.
void CellScoreRaster(const ScoreWaves& w, double scale, ScoreRaster& r) {
  const int64_t k_lo = r.key_edges.front(), q_lo = r.query_edges.front();
  const ScoreParts parts =
      MakeScoreParts(w, scale, k_lo, r.key_edges.back() - k_lo, q_lo, r.query_edges.back() - q_lo);
  r.values.assign(static_cast<size_t>(r.width) * r.height, 0.0f);
  MeansOverCells(
      r.key_edges, r.query_edges, [&](int64_t m, double* values) { parts.Row(m, values); },
      r.values.data());
  r.exact = true;
}

// The raster from the score along every key and offset the window takes, for waves with no
// lattice (xPos's, which grow or decay along the offset), when a causal mask may hide cells:
// each texel the mean over its cells (its unmasked ones) of constant + query(m) + key(n) +
// offset(n - m), from prefix sums of the keys' and offsets' parts along each query (in long
// double, so a sum of a few cells keeps its digits beside the large ones before it). A
// temperature scales each query's whole q . k by tau(m), so each query's sums are multiplied by
// it. Work: (keys + queries) x terms for the parts, queries x texel columns for the means.
void PrefixScoreRaster(const ScoreWaves& w, const AttentionScorer& s, ScoreRaster& r) {
  const int64_t k_lo = r.key_edges.front(), q_lo = r.query_edges.front();
  const int64_t nk = r.key_edges.back() - k_lo, nq = r.query_edges.back() - q_lo;
  const ScoreParts parts = MakeScoreParts(w, s.scale(), k_lo, nk, q_lo, nq);
  std::vector<long double> key_sums(static_cast<size_t>(nk) + 1, 0.0L),
      offset_sums(parts.offset.size() + 1, 0.0L);
  for (size_t i = 0; i < parts.key.size(); ++i) key_sums[i + 1] = key_sums[i] + parts.key[i];
  for (size_t i = 0; i < parts.offset.size(); ++i) {
    offset_sums[i + 1] = offset_sums[i] + parts.offset[i];
  }
  r.values.assign(static_cast<size_t>(r.width) * r.height, 0.0f);
  // The job's token, read here: the team's other threads have none of their own.
  const CancelToken* job_cancel = CurrentCancelToken();
#pragma omp parallel for schedule(dynamic, 4) if (nq * r.width >= (int64_t{1} << 16))
  for (int y = 0; y < r.height; ++y) {
    if (IsCancelled(job_cancel)) continue;  // cancelled: the rest is skipped, then thrown
    std::vector<long double> acc(static_cast<size_t>(r.width), 0.0L);
    std::vector<int64_t> cells(static_cast<size_t>(r.width), 0);
    for (int64_t m = r.query_edges[static_cast<size_t>(y)];
         m < r.query_edges[static_cast<size_t>(y) + 1]; ++m) {
      const long double row = parts.constant + parts.query[static_cast<size_t>(m - q_lo)];
      const auto tau = static_cast<long double>(TemperatureAt(s.temperature(), m));
      const KeyRun run = s.VisibleKeys(m);
      for (int x = 0; x < r.width; ++x) {
        // The texel's keys the query sees (all of them without a mask).
        const int64_t n0 = std::max(r.key_edges[static_cast<size_t>(x)], run.lo);
        const int64_t n1 = std::min(r.key_edges[static_cast<size_t>(x) + 1], run.hi);
        if (n1 <= n0) continue;
        const auto i = static_cast<size_t>(x);
        acc[i] +=
            tau *
            (static_cast<long double>(n1 - n0) * row +
             (key_sums[static_cast<size_t>(n1 - k_lo)] - key_sums[static_cast<size_t>(n0 - k_lo)]) +
             (offset_sums[static_cast<size_t>(n1 - m - parts.o0)] -
              offset_sums[static_cast<size_t>(n0 - m - parts.o0)]));
        cells[i] += n1 - n0;
      }
    }
    float* out = r.values.data() + static_cast<size_t>(y) * r.width;
    for (int x = 0; x < r.width; ++x) {
      const auto i = static_cast<size_t>(x);
      out[x] = cells[i] > 0
                   ? static_cast<float>(acc[i] / static_cast<long double>(cells[i]) * parts.inv)
                   : std::numeric_limits<float>::quiet_NaN();
    }
  }
  ThrowIfCancelled(job_cancel);
  r.exact = true;
}

// Cells (m, n) of [m0, m1) x [n0, n1) that a causal mask leaves (n <= m), in closed form.
double CellsOnOrBelowDiagonal(int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  long double total = 0;
  const int64_t width = n1 - n0;
  // Rows m in [n0, n1 - 1) see m - n0 + 1 keys (an arithmetic series); rows from n1 - 1 on all.
  const int64_t a = std::max(m0, n0), b = std::min(m1, n1 - 1);
  if (a < b) {
    total +=
        static_cast<long double>(b - a) * static_cast<long double>((a - n0 + 1) + (b - n0)) / 2;
  }
  const int64_t c = std::max(m0, n1 - 1);
  if (c < m1) total += static_cast<long double>(m1 - c) * static_cast<long double>(width);
  return static_cast<double>(total);
}

// The bias schemes: the content part q . k / sqrt(d) is one number, the bias's texel mean the
// encoding's closed form over the block (MeanOverBlock), divided by the unmasked share of the
// block when the scheme's causal mask hides part of it (its table holds 0 there). Exact for
// every texel at any size; false when the encoding has no block means.
bool BiasScoreRaster(const AttentionScorer& s, ScoreRaster& r) {
  const Encoding& e = s.encoding();
  const int64_t first = e.first_position();
  const double content = s.Dot(s.x_query().data(), s.x_key().data());
  double probe = 0;
  if (!e.MeanOverBlock(0, 1, 0, 1, &probe)) return false;
  const bool causal = s.causal();
  r.values.assign(static_cast<size_t>(r.width) * r.height, 0.0f);
  const bool parallel = static_cast<int64_t>(r.width) * r.height >= 4096;
  // The job's token, read here: the team's other threads have none of their own.
  const CancelToken* job_cancel = CurrentCancelToken();
#pragma omp parallel for schedule(dynamic, 8) if (parallel)
  for (int y = 0; y < r.height; ++y) {
    if (IsCancelled(job_cancel)) continue;  // cancelled: the rest is skipped, then thrown
    const int64_t m0 = r.query_edges[static_cast<size_t>(y)];
    const int64_t m1 = r.query_edges[static_cast<size_t>(y) + 1];
    float* out = r.values.data() + static_cast<size_t>(y) * r.width;
    for (int x = 0; x < r.width; ++x) {
      const int64_t n0 = r.key_edges[static_cast<size_t>(x)];
      const int64_t n1 = r.key_edges[static_cast<size_t>(x) + 1];
      double mean = 0;
      e.MeanOverBlock(m0 - first, m1 - m0, n0 - first, n1 - n0, &mean);
      if (causal) {
        const double cells = static_cast<double>(m1 - m0) * static_cast<double>(n1 - n0);
        const double open = CellsOnOrBelowDiagonal(m0, m1, n0, n1);
        out[x] = open > 0 ? static_cast<float>(content + mean * cells / open)
                          : std::numeric_limits<float>::quiet_NaN();
      } else {
        out[x] = static_cast<float>(content + mean);
      }
    }
  }
  ThrowIfCancelled(job_cancel);
  r.exact = true;
  return true;
}

// The mean score over the visible cells of [m0, m1) x [n0, n1) under a banded window: the rows
// that see a key of the block are one run, each row's visible keys one run [a, b); at most
// `samples` rows spread evenly over theirs, each the mean of at most `samples` of its keys spread
// evenly over [a, b), weighted by b - a (its share of the visible cells). `exact` turns false
// when a row or a key run was sampled. qv (d) and kv are scratch.
double VisibleMean(const AttentionScorer& s, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
                   int samples, std::vector<double>& qv, std::vector<double>& kv, bool& exact) {
  const auto d = static_cast<size_t>(s.dim());
  const auto [ma, mb] = RowsSeeing(s.window(), s.encoding().Masked(0, 1), m0, m1, n0, n1);
  const std::vector<int64_t> ms = SamplePositions(ma, mb - ma, samples);
  if (static_cast<int64_t>(ms.size()) != mb - ma) exact = false;
  long double acc = 0, weight = 0;
  for (int64_t m : ms) {
    const KeyRun run = s.VisibleKeys(m);
    const int64_t a = std::max(n0, run.lo), b = std::min(n1, run.hi);
    if (b <= a) continue;
    const std::vector<int64_t> ns = SamplePositions(a, b - a, samples);
    if (static_cast<int64_t>(ns.size()) != b - a) exact = false;
    s.Query(m, qv.data());
    kv.resize(d);
    double row = 0.0;
    for (int64_t n : ns) {
      s.Key(n, kv.data());
      row += s.Dot(qv.data(), kv.data()) + s.encoding().Bias(m, n);
    }
    acc += static_cast<long double>(b - a) * row / static_cast<double>(ns.size());
    weight += static_cast<long double>(b - a);
  }
  return weight > 0 ? static_cast<double>(acc / weight) : std::numeric_limits<double>::quiet_NaN();
}

// The score along the offsets a masked raster's partly visible texels take, for scores that
// depend on the offset k = n - m alone (analysis/masked_texels.h): RoPE's (its waves of k, no
// decay), the biases' (ALiBi's -slope |k|, T5's bucket of k, on the content's one number) and
// NoPE's (the content's one number). `dot` holds scale (q . k) along k, which a temperature
// multiplies by tau(m); `bias` the bias, which it does not.
struct MaskedOffsetScore {
  OffsetPrefix dot, bias;
  std::optional<double> dot_constant;  // in place of `dot` when q . k does not turn
  // In place of `dot` when the offsets are too many to tabulate and the window's key bounds are
  // linear (every window but chunked): scale (q . k) as waves, each block's sum in closed form
  // (VisibleWaveSum).
  std::optional<OffsetWaves> dot_waves;
  bool has_bias = false;
  // In place of `bias` likewise: the bias as pieces u + v k (VisibleSegmentSum).
  std::optional<std::vector<OffsetSegment>> bias_segments;
};

// The bias of query 0 and key k for k in [lo, hi) as pieces u + v k: ALiBi's sides (-slope |k|,
// 0 after the query for causal ALiBi, whose mask hides those keys) and T5's bucket runs
// (t5_buckets.h), each run's value the encoding's own. nullopt for other schemes.
std::optional<std::vector<OffsetSegment>> BiasSegments(const Encoding& e, int64_t lo, int64_t hi) {
  std::vector<OffsetSegment> out;
  if (e.scheme() == Scheme::kAlibi) {
    const double slope = -e.Bias(0, -1);  // query 0, key -1: -slope * 1
    if (lo < 1) out.push_back({lo, 1, 0.0, slope});
    if (hi > 1) {
      const bool causal = e.params().alibi().mode == AlibiMode::kCausal;
      out.push_back({1, hi, 0.0, causal ? 0.0 : -slope});
    }
    return out;
  }
  if (e.scheme() == Scheme::kT5) {
    const T5Params& t5 = e.params().t5();
    if (lo < 0) {
      for (const T5BucketRun& run : T5BucketRuns(t5, -1, -lo)) {
        out.push_back({-run.last, -run.first + 1, e.Bias(0, -run.first), 0.0});
      }
    }
    if (lo <= 0 && hi > 0) out.push_back({0, 1, e.Bias(0, 0), 0.0});
    if (hi > 1) {
      for (const T5BucketRun& run : T5BucketRuns(t5, 1, hi - 1)) {
        out.push_back({run.first, run.last + 1, e.Bias(0, run.first), 0.0});
      }
    }
    return out;
  }
  return std::nullopt;
}

// The most block pieces x waves the closed forms (VisibleWaveSum: up to three pieces a block)
// take on in a frame, about half a second on two cores; past it the cut texels are sampled.
constexpr int64_t kCutWaveMaxWork = int64_t{1} << 26;

// The most offsets MakeMaskedOffsetScore tabulates (two long double prefix sums each: 64 MiB).
constexpr int64_t kMaskedTexelMaxOffsets = int64_t{1} << 21;

// The sum of the q . k part over the visible cells of rows [m0, m1) x keys [n0, n1).
long double CutDotSum(const MaskedOffsetScore& c, const AttentionScorer& s, int64_t m0, int64_t m1,
                      int64_t n0, int64_t n1) {
  if (c.dot_constant) {
    return static_cast<long double>(*c.dot_constant) *
           static_cast<long double>(s.VisibleCells(m0, m1, n0, n1));
  }
  if (c.dot_waves) {
    return VisibleWaveSum(*c.dot_waves, s.window(), s.encoding().Masked(0, 1), m0, m1, n0, n1);
  }
  return VisibleOffsetSum(c.dot, s.window(), s.encoding().Masked(0, 1), m0, m1, n0, n1);
}

// nullopt when the score is not a function of the offset alone (the added tables, xPos, M-RoPE)
// or when the offsets [lo, hi) times the score's waves pass kMaskedTexelMaxWork and neither
// closed form serves: q . k constant (any size), or its waves under linear key bounds for
// `blocks` blocks (the cut texels, or their runs of one tau) within kCutWaveMaxWork.
std::optional<MaskedOffsetScore> MakeMaskedOffsetScore(const AttentionScorer& s, int64_t lo,
                                                       int64_t hi, int64_t blocks) {
  const Encoding& e = s.encoding();
  if (hi <= lo) return std::nullopt;
  double constant = 0;
  std::vector<WaveTerm> terms;
  const bool nope = e.family() == Family::kAdded && e.descriptor().vector_symbol.empty();
  if (e.family() == Family::kBias || nope) {
    // q_m = x_q, k_n = x_k (nothing turns them, nothing is added).
    for (size_t j = 0; j < s.x_query().size(); ++j) constant += s.x_query()[j] * s.x_key()[j];
  } else if (e.family() == Family::kRotary && !PlainRotaryPairs(e).empty()) {
    const std::optional<ScoreWaves> waves =
        MakeScoreWaves(s, /*masked_ok=*/true, /*tempered_ok=*/true);
    if (!waves || !waves->query.empty() || !waves->key.empty() || !waves->sum.empty() ||
        !waves->offset_decaying.empty()) {
      return std::nullopt;
    }
    constant = waves->constant;
    terms = waves->offset;
  } else {
    return std::nullopt;
  }
  const int64_t n = hi - lo;
  MaskedOffsetScore out;
  const double scale = s.scale();
  const auto waves = static_cast<int64_t>(terms.size());
  if (n > kMaskedTexelMaxOffsets || n > kMaskedTexelMaxWork / (waves + 1)) {
    if (e.family() == Family::kBias) {
      // q . k one number, the bias in pieces: closed forms for every block.
      if (!HasLinearKeyBounds(s.window(), e.Masked(0, 1))) return std::nullopt;
      out.bias_segments = BiasSegments(e, lo, hi);
      if (!out.bias_segments) return std::nullopt;
      out.has_bias = true;
      out.dot_constant = constant * scale;
      return out;
    }
    if (terms.empty()) {
      out.dot_constant = constant * scale;
      return out;
    }
    if (!HasLinearKeyBounds(s.window(), e.Masked(0, 1)) ||
        blocks > kCutWaveMaxWork / (3 * (waves + 1))) {
      return std::nullopt;
    }
    for (WaveTerm& t : terms) {
      t.hr *= scale;
      t.hi *= scale;
    }
    out.dot_waves = OffsetWaves::Make(terms, constant * scale);
    return out;
  }
  std::vector<double> v(static_cast<size_t>(n), 0.0);
  if (terms.empty()) {
    // q . k the same at every offset: its sum is the count of visible cells.
    out.dot_constant = constant * scale;
  } else {
    WaveSumAlong(terms, 2 * lo, 1, n, v.data());
    for (double& x : v) x = (x + constant) * scale;
    out.dot = OffsetPrefix::Make(lo, v);
  }
  if (e.family() == Family::kBias) {
    out.has_bias = true;
    // The bias of query 0 and key k: a function of k - 0 alone for ALiBi and T5.
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = e.Bias(0, lo + i);
    out.bias = OffsetPrefix::Make(lo, v);
  }
  return out;
}

// A table added to the tokens (learned positions) under a window whose key bounds are m + c or
// open: the visible cells of rows [m0, m1) x keys [n0, n1) sum, row by row, to
// q_m . (K(b(m)) - K(a(m))) with K(n) = sum_{j<n} k_j (a, b the row's run clamped to the
// block). Over a run of rows where b(m) = m + c that is P_c(mb) - P_c(ma), P_c(m) =
// sum_{m'<m} q_m' . K(m' + c); where b(m) is a fixed key, (Q(mb) - Q(ma)) . K(key), Q(m) =
// sum_{m'<m} q_m'. Under chunked:C the low bound is the chunk's start, a fixed key for each
// chunk's rows. The queries carry their tau. Prefix sums over the table's positions: at most
// kMaskedTableMaxValues positions x d each.
struct MaskedTableScore {
  int64_t first = 0, rows = 0, d = 0;
  std::vector<double> q, k;                // (rows + 1, d) prefix sums
  std::vector<long double> p_low, p_high;  // P_c for the low and high bounds' c
  KeyBound low, high;
};
constexpr int64_t kMaskedTableMaxValues = int64_t{1} << 24;

std::optional<MaskedTableScore> MakeMaskedTableScore(const AttentionScorer& s) {
  const Encoding& e = s.encoding();
  const bool also_causal = e.Masked(0, 1);
  // Chunked windows too: every row's low bound is its chunk's start, a fixed key per chunk.
  if (e.scheme() != Scheme::kLearned ||
      HighKeyBound(s.window(), also_causal).form == KeyBound::kChunk ||
      e.rows() > kMaskedTableMaxValues / std::max<int64_t>(1, s.dim())) {
    return std::nullopt;
  }
  MaskedTableScore t;
  t.first = e.first_position();
  t.rows = e.rows();
  t.d = s.dim();
  t.low = LowKeyBound(s.window());
  t.high = HighKeyBound(s.window(), also_causal);
  const auto d = static_cast<size_t>(t.d);
  const auto n = static_cast<size_t>(t.rows);
  t.q.assign((n + 1) * d, 0.0);
  t.k.assign((n + 1) * d, 0.0);
  std::vector<double> v(d);
  for (size_t i = 0; i < n; ++i) {
    s.Query(t.first + static_cast<int64_t>(i), v.data());
    for (size_t j = 0; j < d; ++j) t.q[(i + 1) * d + j] = t.q[i * d + j] + v[j];
    s.Key(t.first + static_cast<int64_t>(i), v.data());
    for (size_t j = 0; j < d; ++j) t.k[(i + 1) * d + j] = t.k[i * d + j] + v[j];
  }
  auto prefix = [&](const KeyBound& b, std::vector<long double>& out) {
    if (b.form != KeyBound::kLinear) return;
    out.assign(n + 1, 0.0L);
    for (size_t i = 0; i < n; ++i) {
      s.Query(t.first + static_cast<int64_t>(i), v.data());
      const int64_t key = std::clamp<int64_t>(static_cast<int64_t>(i) + b.c, 0, t.rows);
      long double dot = 0;  // unscaled: TableRowsToBound scales
      for (size_t j = 0; j < d; ++j) {
        dot += static_cast<long double>(v[j]) *
               static_cast<long double>(t.k[static_cast<size_t>(key) * d + j]);
      }
      out[i + 1] = out[i] + dot;
    }
  };
  prefix(t.low, t.p_low);
  prefix(t.high, t.p_high);
  return t;
}

int64_t TableFloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return q * b > a ? q - 1 : q;
}

// sum over rows [ma, mb) of q_m . K(bound(m) clamped to [n0, n1)), positions absolute; kNone:
// `none_key`. Dot products of d values are scaled by the scorer's scale at the end.
long double TableRowsToBound(const MaskedTableScore& t, const AttentionScorer& s, const KeyBound& b,
                             const std::vector<long double>& p, int64_t none_key, int64_t ma,
                             int64_t mb, int64_t n0, int64_t n1) {
  const auto d = static_cast<size_t>(t.d);
  auto to_key = [&](int64_t key, int64_t ra, int64_t rb) -> long double {
    if (rb <= ra) return 0;
    const auto i = static_cast<size_t>(ra - t.first), j = static_cast<size_t>(rb - t.first);
    const auto kk = static_cast<size_t>(key - t.first);
    long double acc = 0;
    for (size_t c = 0; c < d; ++c) {
      acc += static_cast<long double>(t.q[j * d + c] - t.q[i * d + c]) *
             static_cast<long double>(t.k[kk * d + c]);
    }
    return acc * static_cast<long double>(s.scale());
  };
  if (b.form == KeyBound::kChunk) {
    // Rows of one chunk end at its start jC, clamped to [n0, n1): the chunks starting at or
    // before n0 all at n0, the ones starting at or after n1 at n1, one fixed key per chunk
    // between (at most (n1 - n0) / C + 1 of them).
    long double total = 0;
    for (int64_t m = ma; m < mb;) {
      const int64_t start = TableFloorDiv(m, b.c) * b.c;
      int64_t end = std::min(mb, start + b.c);
      if (start <= n0) end = std::min(mb, TableFloorDiv(n0, b.c) * b.c + b.c);
      if (start >= n1) end = mb;
      total += to_key(std::clamp(start, n0, n1), m, end);
      m = end;
    }
    return total;
  }
  if (b.form != KeyBound::kLinear) return to_key(none_key, ma, mb);
  // Rows whose m + c is at or before n0 end at n0, at or after n1 at n1; between, at m + c.
  const int64_t a = std::clamp(n0 - b.c + 1, ma, mb), e = std::clamp(n1 - b.c, a, mb);
  long double total = to_key(n0, ma, a) + to_key(n1, e, mb);
  if (e > a) {
    total += (p[static_cast<size_t>(e - t.first)] - p[static_cast<size_t>(a - t.first)]) *
             static_cast<long double>(s.scale());
  }
  return total;
}

double TableCutTexelMean(const MaskedTableScore& t, const AttentionScorer& s, int64_t m0,
                         int64_t m1, int64_t n0, int64_t n1, int64_t open) {
  const auto [ma, mb] = RowsSeeing(s.window(), s.encoding().Masked(0, 1), m0, m1, n0, n1);
  if (mb <= ma) return kNaN;
  const long double total = TableRowsToBound(t, s, t.high, t.p_high, n1, ma, mb, n0, n1) -
                            TableRowsToBound(t, s, t.low, t.p_low, n0, ma, mb, n0, n1);
  return static_cast<double>(total / static_cast<long double>(open));
}

// The exact mean score over the `open` visible cells of [m0, m1) x [n0, n1): the offsets' sums
// (VisibleOffsetSum), the dot part over each run of one tau times that tau.
double CutTexelMean(const MaskedOffsetScore& c, const AttentionScorer& s, int64_t m0, int64_t m1,
                    int64_t n0, int64_t n1, int64_t open) {
  const AttentionWindow& w = s.window();
  const bool also_causal = s.encoding().Masked(0, 1);
  long double total = 0;
  if (s.tempered()) {
    const auto [ma, mb] = RowsSeeing(w, also_causal, m0, m1, n0, n1);
    if (mb > ma) {
      for (const auto& [p, count] : TemperatureRuns(s.temperature(), ma, mb - ma)) {
        total += static_cast<long double>(TemperatureAt(s.temperature(), p)) *
                 CutDotSum(c, s, p, p + count, n0, n1);
      }
    }
  } else {
    total = CutDotSum(c, s, m0, m1, n0, n1);
  }
  if (c.has_bias) {
    total += c.bias_segments ? VisibleSegmentSum(*c.bias_segments, w, also_causal, m0, m1, n0, n1)
                             : VisibleOffsetSum(c.bias, w, also_causal, m0, m1, n0, n1);
  }
  return static_cast<double>(total / static_cast<long double>(open));
}

}  // namespace

namespace {

// The request's window clamped to the table's positions, and the texels it has room for on each
// side (before any lattice): keys [k_lo, k_hi) in px_w texels, queries [q_lo, q_hi) in px_h.
struct ClampedWindow {
  int64_t k_lo = 0, k_hi = 0, q_lo = 0, q_hi = 0;
  int px_w = 1, px_h = 1;
};
std::optional<ClampedWindow> ClampWindow(const Encoding& e, const ScoreRasterRequest& req) {
  if (!(req.x1 > req.x0) || !(req.y1 > req.y0) || req.width_px < 1 || req.height_px < 1) {
    return std::nullopt;
  }
  const auto first = static_cast<double>(e.first_position());
  const double end = first + static_cast<double>(e.rows());
  ClampedWindow w;
  w.k_lo = static_cast<int64_t>(std::clamp(std::floor(req.x0), first, end));
  w.k_hi = static_cast<int64_t>(std::clamp(std::ceil(req.x1), first, end));
  w.q_lo = static_cast<int64_t>(std::clamp(std::floor(req.y0), first, end));
  w.q_hi = static_cast<int64_t>(std::clamp(std::ceil(req.y1), first, end));
  if (w.k_hi <= w.k_lo || w.q_hi <= w.q_lo) return std::nullopt;
  w.px_w = std::max(
      1, static_cast<int>(std::ceil(req.width_px * double(w.k_hi - w.k_lo) / (req.x1 - req.x0))));
  w.px_h = std::max(
      1, static_cast<int>(std::ceil(req.height_px * double(w.q_hi - w.q_lo) / (req.y1 - req.y0))));
  return w;
}

}  // namespace

Status RefuseSampledRaster(const AttentionScorer& s, const ScoreRaster& r) {
  // Unmasked rasters (a decaying rotation's or a bias's own) stay sampled and say so.
  if (r.exact || r.one_cell_per_texel || r.empty() || !s.masked_any()) return {};
  const int64_t queries = r.query_edges.back() - r.query_edges.front();
  const int64_t keys = r.key_edges.back() - r.key_edges.front();
  const std::string mask =
      s.banded() ? AttentionWindowRule(s.window()) : std::string("the causal mask");
  return InvalidArgument(
      "the score view draws every texel as the exact mean of its cells; for " +
      s.encoding().Summary() + " under " + mask +
      " no closed form gives it, so texels are exact only while each holds at most " +
      std::to_string(kScoreTexelSamples) + " positions a side: this window shows " +
      std::to_string(queries) + " queries in " + std::to_string(r.height) + " rows and " +
      std::to_string(keys) + " keys in " + std::to_string(r.width) + " columns; draw at most " +
      std::to_string(static_cast<int64_t>(r.height) * kScoreTexelSamples) + " queries and " +
      std::to_string(static_cast<int64_t>(r.width) * kScoreTexelSamples) +
      " keys (a lower max_len, or a window: export's --score-window)");
}

Status CheckScoreRaster(const AttentionScorer& s, const ScoreRasterRequest& req) {
  const AttentionTemperature& t = s.temperature();
  if (!s.tempered() || !HasExactMeans(s.encoding())) return {};
  const std::optional<ClampedWindow> w = ClampWindow(s.encoding(), req);
  if (!w) return {};
  // A tempered raster never takes the lattice: its texel rows are these.
  const std::vector<int64_t> rows = RasterEdges(w->q_lo, w->q_hi, std::min(w->px_h, req.height_px));
  const auto step = [&t](int64_t q) {
    return static_cast<int64_t>(std::floor((static_cast<double>(q) + 1.0) / t.floor));
  };
  // The runs of one tau past the first of each texel row: each costs an exact mean of d values
  // more than the untempered raster.
  int64_t extra = 0;
  for (size_t y = 0; y + 1 < rows.size(); ++y) extra += step(rows[y + 1] - 1) - step(rows[y]);
  const int64_t d = s.dim();
  if (extra <= kTemperedRasterMaxWork / d) return {};
  // The floor that keeps them within the frame's work: one step per texel row and this many
  // more positions per step over the window's queries.
  const int64_t allowed = std::max<int64_t>(1, kTemperedRasterMaxWork / d);
  const double floor_needed =
      std::ceil(static_cast<double>(w->q_hi - w->q_lo) / static_cast<double>(allowed));
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "--temperature-floor %.9g: the tempered score picture is exact, each texel row "
                "summed over its runs of one tau (a step every %.9g positions); queries %lld to "
                "%lld make %lld more runs than texel rows, and at d %lld a frame takes at most "
                "%lld (2^%d / d): --temperature-floor must be at least %.9g for this window, or "
                "show fewer queries (zoom in, --positions, a smaller --max-len)",
                t.floor, t.floor, static_cast<long long>(w->q_lo),
                static_cast<long long>(w->q_hi - 1), static_cast<long long>(extra),
                static_cast<long long>(d), static_cast<long long>(allowed),
                kTemperedRasterMaxWorkLog2, floor_needed);
  return InvalidArgument(buf);
}

ScoreRaster ComputeScoreRaster(const AttentionScorer& s, const ScoreRasterRequest& req) {
  ScoreRaster r;
  const std::optional<ClampedWindow> window = ClampWindow(s.encoding(), req);
  if (!window) return r;
  const auto [k_lo, k_hi, q_lo, q_hi, px_w, px_h] = *window;
  r.key_edges = RasterEdges(k_lo, k_hi, std::min(px_w, req.width_px));
  r.query_edges = RasterEdges(q_lo, q_hi, std::min(px_h, req.height_px));
  r.width = static_cast<int>(r.key_edges.size()) - 1;
  r.height = static_cast<int>(r.query_edges.size()) - 1;
  r.one_cell_per_texel = k_hi - k_lo == r.width && q_hi - q_lo == r.height;
  if (!r.one_cell_per_texel && req.lattice &&
      static_cast<int64_t>(r.width) * r.height * s.dim() > kOffsetRasterMinWork) {
    // Zoomed out: exact texel means on a lattice, from the score's waves (any window in a frame).
    if (const std::optional<ScoreWaves> waves = MakeScoreWaves(s)) {
      if (std::optional<ScoreRaster> fast =
              OffsetScoreRaster(*waves, s.scale(), k_lo, k_hi, std::min(px_w, req.width_px), q_lo,
                                q_hi, std::min(px_h, req.height_px))) {
        return std::move(*fast);
      }
    }
  }
  // xPos: exact texel means from its waves along every key and offset of the window, while
  // those are few enough (a window of some 10^5 positions at d 65536), masked or not.
  // The added wave tables (sinusoidal) under a mask likewise, and xPos at any size under one:
  // the texels the mask cuts exact means of their visible cells, while the query rows times
  // texel columns stay few.
  const bool masked_rows = s.masked_any() && !r.one_cell_per_texel &&
                           (q_hi - q_lo) * r.width <= kMaskedPrefixMaxRowTexels;
  const bool masked_added = masked_rows && s.encoding().family() == Family::kAdded;
  if ((DecaysAlongOffset(s.encoding()) || masked_added) && !s.has_bias() &&
      (k_hi - k_lo + q_hi - q_lo) * (s.dim() / 2) <= kPrefixRasterMaxWork &&
      (static_cast<int64_t>(r.width) * r.height * s.dim() > (int64_t{1} << 16) || masked_rows)) {
    if (const std::optional<ScoreWaves> waves =
            MakeScoreWaves(s, /*masked_ok=*/true, /*tempered_ok=*/true);
        waves && waves->sum.empty()) {
      PrefixScoreRaster(*waves, s, r);
      return r;
    }
  }
  // A window of few cells per texel with a large d: cell by cell from the waves, rather than a
  // d-long dot product per texel.
  if (static_cast<int64_t>(r.width) * r.height * s.dim() > kOffsetRasterMinWork &&
      (k_hi - k_lo) * (q_hi - q_lo) <= kCellMeansMaxCells) {
    if (const std::optional<ScoreWaves> waves = MakeScoreWaves(s)) {
      CellScoreRaster(*waves, s.scale(), r);
      return r;
    }
  }
  // A bias whose masked cells (if any) are the scheme's own and hold 0 in its table (causal
  // ALiBi; causal T5's hold bucket 0's bias, which a block mean would count): closed-form block
  // means.
  const int64_t first = s.encoding().first_position();
  if (s.has_bias() && !r.one_cell_per_texel && !s.banded() &&
      (!s.causal_mask() || s.encoding().Masked(0, 1)) &&
      (!s.causal() || s.encoding().Bias(first, first + 1) == 0.0) && !s.tempered() &&
      BiasScoreRaster(s, r)) {
    return r;
  }
  r.values.assign(static_cast<size_t>(r.width) * r.height, 0.0f);
  const int64_t d = s.dim();
  const int samples = kScoreTexelSamples;

  // Under a mask, the visible cells of every texel (closed forms); where the score depends on
  // the offset alone, the texels the mask cuts partly are exact means of their visible cells
  // (CutTexelMean) and the wholly visible ones exact means of all theirs (exact mean vectors, and
  // the bias's block mean), and only texel rows and columns holding a wholly visible texel need
  // a mean vector.
  std::vector<int64_t> visible;
  std::optional<MaskedOffsetScore> cut;
  std::optional<MaskedTableScore> table;  // learned tables, when `cut` does not serve
  // The cut texels as (n0 - m0, rows, keys): under a window whose key bounds are m + c, a cut
  // texel's visible cells and their offsets are the same wherever the texel lies, so untempered
  // texels of one shape and place about the band share one mean (at 1e9 positions in 800 x 500
  // the diagonal's 1300 texels take a dozen).
  std::vector<std::array<int64_t, 3>> cut_shapes;
  std::vector<double> cut_shape_means;
  int64_t cut_blocks = 0;
  std::vector<char> row_used(static_cast<size_t>(r.height), 1),
      col_used(static_cast<size_t>(r.width), 1);
  if (s.masked_any() && HasExactMeans(s.encoding())) {
    visible.resize(static_cast<size_t>(r.width) * r.height);
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    const bool also_causal = s.encoding().Masked(0, 1);
    for (int y = 0; y < r.height; ++y) {
      const int64_t m0 = r.query_edges[static_cast<size_t>(y)];
      const int64_t m1 = r.query_edges[static_cast<size_t>(y) + 1];
      // Each row's run lies in [lo(m0), hi(m1 - 1)) and covers [lo(m1 - 1), hi(m0)) (lo and hi
      // never decrease): texels outside the first are masked, inside the second whole; only
      // the ones between need counting.
      const KeyRun top = s.VisibleKeys(m0), bottom = s.VisibleKeys(m1 - 1);
      for (int x = 0; x < r.width; ++x) {
        const int64_t n0 = r.key_edges[static_cast<size_t>(x)];
        const int64_t n1 = r.key_edges[static_cast<size_t>(x) + 1];
        const int64_t o = n1 <= top.lo || n0 >= bottom.hi   ? 0
                          : n0 >= bottom.lo && n1 <= top.hi ? (m1 - m0) * (n1 - n0)
                                                            : s.VisibleCells(m0, m1, n0, n1);
        visible[static_cast<size_t>(y) * r.width + x] = o;
        if (o > 0 && o < (m1 - m0) * (n1 - n0)) {
          const auto [a, b] = VisibleOffsetRange(s.window(), also_causal, m0, m1, n0, n1);
          lo = std::min(lo, a);
          hi = std::max(hi, b);
          cut_shapes.push_back({n0 - m0, m1 - m0, n1 - n0});
          cut_blocks +=
              s.tempered()
                  ? static_cast<int64_t>(TemperatureRuns(s.temperature(), m0, m1 - m0).size())
                  : 1;
        }
      }
    }
    std::sort(cut_shapes.begin(), cut_shapes.end());
    cut_shapes.erase(std::unique(cut_shapes.begin(), cut_shapes.end()), cut_shapes.end());
    const bool shared = !s.tempered() && HasLinearKeyBounds(s.window(), also_causal);
    if (shared) cut_blocks = static_cast<int64_t>(cut_shapes.size());
    if (lo < hi) cut = MakeMaskedOffsetScore(s, lo, hi, cut_blocks);
    if (lo < hi && !cut) table = MakeMaskedTableScore(s);
    if (cut && (cut->dot_waves || cut->bias_segments) && shared) {
      cut_shape_means.resize(cut_shapes.size());
      const CancelToken* job_cancel = CurrentCancelToken();
#pragma omp parallel for schedule(dynamic, 1) if (cut_shapes.size() > 1)
      for (size_t i = 0; i < cut_shapes.size(); ++i) {
        if (IsCancelled(job_cancel)) continue;
        // The shape placed with its first row at 0.
        const auto [offset, rows, keys] = cut_shapes[i];
        const int64_t open = s.VisibleCells(0, rows, offset, offset + keys);
        cut_shape_means[i] = CutTexelMean(*cut, s, 0, rows, offset, offset + keys, open);
      }
      ThrowIfCancelled(job_cancel);
    } else {
      cut_shapes.clear();
    }
    if (cut || table || lo >= hi) {
      std::fill(row_used.begin(), row_used.end(), 0);
      std::fill(col_used.begin(), col_used.end(), 0);
      for (int y = 0; y < r.height; ++y) {
        const int64_t rows =
            r.query_edges[static_cast<size_t>(y) + 1] - r.query_edges[static_cast<size_t>(y)];
        for (int x = 0; x < r.width; ++x) {
          const int64_t cols =
              r.key_edges[static_cast<size_t>(x) + 1] - r.key_edges[static_cast<size_t>(x)];
          if (visible[static_cast<size_t>(y) * r.width + x] == rows * cols)
            row_used[static_cast<size_t>(y)] = col_used[static_cast<size_t>(x)] = 1;
        }
      }
    } else {
      visible.clear();
    }
  }
  const bool exact_means = !visible.empty();

  // The mean query of each texel row and the mean key of each texel column (bilinearity: the
  // mean of q_m . k_n over a block of cells is mean(q) . mean(k)).
  // (Not made when no texel needs them: at 1e9 x 8192 under a band they would be 85 MB.)
  const bool any_row = std::find(row_used.begin(), row_used.end(), 1) != row_used.end();
  std::vector<double> qs(any_row ? static_cast<size_t>(r.height * d) : 0),
      ks(any_row ? static_cast<size_t>(r.width * d) : 0);
  bool exact = true;
  const bool parallel = (static_cast<int64_t>(r.width) + r.height) * d >= (int64_t{1} << 14);
#pragma omp parallel for schedule(dynamic, 16) reduction(&& : exact) if (parallel)
  for (int y = 0; y < r.height; ++y) {
    if (!row_used[static_cast<size_t>(y)]) continue;
    const int64_t a = r.query_edges[static_cast<size_t>(y)];
    const int64_t count = r.query_edges[static_cast<size_t>(y) + 1] - a;
    double* out = qs.data() + static_cast<size_t>(y * d);
    if (exact_means && !s.tempered()) {
      ExactMean(s.encoding(), s.x_query(), a, count, out);
      continue;
    }
    exact = s.MeanQuery(a, count, samples, out) && exact;
  }
#pragma omp parallel for schedule(dynamic, 16) reduction(&& : exact) if (parallel)
  for (int x = 0; x < r.width; ++x) {
    if (!col_used[static_cast<size_t>(x)]) continue;
    const int64_t a = r.key_edges[static_cast<size_t>(x)];
    const int64_t count = r.key_edges[static_cast<size_t>(x) + 1] - a;
    double* out = ks.data() + static_cast<size_t>(x * d);
    if (exact_means) {
      ExactMean(s.encoding(), s.x_key(), a, count, out);
      continue;
    }
    exact = s.MeanKey(a, count, samples, out) && exact;
  }

  const bool bias = s.has_bias();
  const bool banded = s.banded();
  const bool parallel_texels = static_cast<int64_t>(r.width) * r.height * d >= (int64_t{1} << 16);
  // Where the cut texels share their means by shape, the wholly visible ones do too (their mean
  // is a function of the offsets their cells take): one d-long dot product a shape, not a
  // texel (at 1e9 positions in 800 x 500 the causal triangle's 200 000 texels take ~8000).
  std::vector<char> whole_done;
  if (!cut_shapes.empty()) {
    std::vector<std::pair<std::array<int64_t, 3>, int64_t>> whole;
    for (int y = 0; y < r.height; ++y) {
      const int64_t m0 = r.query_edges[static_cast<size_t>(y)];
      const int64_t m1 = r.query_edges[static_cast<size_t>(y) + 1];
      for (int x = 0; x < r.width; ++x) {
        const int64_t n0 = r.key_edges[static_cast<size_t>(x)];
        const int64_t n1 = r.key_edges[static_cast<size_t>(x) + 1];
        const int64_t i = static_cast<int64_t>(y) * r.width + x;
        if (visible[static_cast<size_t>(i)] == (m1 - m0) * (n1 - n0)) {
          whole.push_back({{n0 - m0, m1 - m0, n1 - n0}, i});
        }
      }
    }
    std::sort(whole.begin(), whole.end());
    std::vector<size_t> starts;
    for (size_t i = 0; i < whole.size(); ++i) {
      if (i == 0 || whole[i].first != whole[i - 1].first) starts.push_back(i);
    }
    starts.push_back(whole.size());
    std::vector<char> done(starts.size() - 1, 0);
    const Encoding& e = s.encoding();
#pragma omp parallel for schedule(dynamic, 64) if (parallel_texels)
    for (size_t g = 0; g < done.size(); ++g) {
      const int64_t i = whole[starts[g]].second;
      const int y = static_cast<int>(i / r.width), x = static_cast<int>(i % r.width);
      const int64_t m0 = r.query_edges[static_cast<size_t>(y)];
      const int64_t n0 = r.key_edges[static_cast<size_t>(x)];
      const auto [offset, rows, keys] = whole[starts[g]].first;
      double b = 0.0;
      if (bias &&
          !e.MeanOverBlock(m0 - e.first_position(), rows, n0 - e.first_position(), keys, &b)) {
        continue;  // left to the loop below
      }
      const auto value = static_cast<float>(
          s.Dot(qs.data() + static_cast<size_t>(y * d), ks.data() + static_cast<size_t>(x * d)) +
          b);
      for (size_t j = starts[g]; j < starts[g + 1]; ++j) {
        r.values[static_cast<size_t>(whole[j].second)] = value;
      }
      done[g] = 1;
    }
    whole_done.assign(static_cast<size_t>(r.width) * r.height, 0);
    for (size_t g = 0; g + 1 < starts.size(); ++g) {
      if (!done[g]) continue;
      for (size_t j = starts[g]; j < starts[g + 1]; ++j) {
        whole_done[static_cast<size_t>(whole[j].second)] = 1;
      }
    }
  }
  // The job's token, read here: the team's other threads have none of their own.
  const CancelToken* job_cancel = CurrentCancelToken();
#pragma omp parallel for schedule(dynamic, 4) reduction(&& : exact) if (parallel_texels)
  for (int y = 0; y < r.height; ++y) {
    if (IsCancelled(job_cancel)) continue;  // cancelled: the rest is skipped, then thrown
    const int64_t m0 = r.query_edges[static_cast<size_t>(y)];
    const int64_t m1 = r.query_edges[static_cast<size_t>(y) + 1];
    float* out = r.values.data() + static_cast<size_t>(y) * r.width;
    std::vector<double> qv(static_cast<size_t>(d)), kv(static_cast<size_t>(d));
    for (int x = 0; x < r.width; ++x) {
      const int64_t n0 = r.key_edges[static_cast<size_t>(x)];
      const int64_t n1 = r.key_edges[static_cast<size_t>(x) + 1];
      if (exact_means) {
        // Masked, and the score a function of the offset: every texel exact.
        const int64_t o = visible[static_cast<size_t>(y) * r.width + x];
        if (o == 0) {
          out[x] = std::numeric_limits<float>::quiet_NaN();
        } else if (o < (m1 - m0) * (n1 - n0)) {
          if (!cut_shapes.empty()) {
            const std::array<int64_t, 3> shape{n0 - m0, m1 - m0, n1 - n0};
            const auto it = std::lower_bound(cut_shapes.begin(), cut_shapes.end(), shape);
            out[x] =
                static_cast<float>(cut_shape_means[static_cast<size_t>(it - cut_shapes.begin())]);
          } else if (table) {
            out[x] = static_cast<float>(TableCutTexelMean(*table, s, m0, m1, n0, n1, o));
          } else {
            out[x] = static_cast<float>(CutTexelMean(*cut, s, m0, m1, n0, n1, o));
          }
        } else {
          if (!whole_done.empty() && whole_done[static_cast<size_t>(y) * r.width + x]) continue;
          const Encoding& e = s.encoding();
          double b = 0.0;
          if (bias && !e.MeanOverBlock(m0 - e.first_position(), m1 - m0, n0 - e.first_position(),
                                       n1 - n0, &b)) {
            // A bias with no block means: sampled.
            out[x] = static_cast<float>(VisibleMean(s, m0, m1, n0, n1, samples, qv, kv, exact));
            continue;
          }
          out[x] = static_cast<float>(s.Dot(qs.data() + static_cast<size_t>(y * d),
                                            ks.data() + static_cast<size_t>(x * d)) +
                                      b);
        }
        continue;
      }
      if (banded) {
        // A band or blocks: which cells are visible is exact (closed form); a texel with none
        // is masked, one with all of them is the bilinear mean below, and a partly visible one
        // is the mean over its visible cells, sampled among them.
        const int64_t open = s.VisibleCells(m0, m1, n0, n1);
        if (open == 0) {
          out[x] = std::numeric_limits<float>::quiet_NaN();
          continue;
        }
        if (open < (m1 - m0) * (n1 - n0)) {
          out[x] = static_cast<float>(VisibleMean(s, m0, m1, n0, n1, samples, qv, kv, exact));
          continue;
        }
      }
      const bool all_masked = !banded && s.causal() && n0 > m1 - 1;
      const bool some_masked = !banded && s.causal() && n1 - 1 > m0;
      if (all_masked) {
        out[x] = std::numeric_limits<float>::quiet_NaN();
        continue;
      }
      if (!some_masked && (!bias || (m1 - m0 == 1 && n1 - n0 == 1))) {
        const double b = bias ? s.encoding().Bias(m0, n0) : 0.0;
        out[x] = static_cast<float>(
            s.Dot(qs.data() + static_cast<size_t>(y * d), ks.data() + static_cast<size_t>(x * d)) +
            b);
        continue;
      }
      // A tempered bias, unmasked: the dot part is bilinear, and the bias (whose closed forms
      // above step aside for the query's tau) adds its exact block mean.
      double bias_mean = 0.0;
      if (!some_masked && bias && s.tempered() &&
          s.encoding().MeanOverBlock(m0 - s.encoding().first_position(), m1 - m0,
                                     n0 - s.encoding().first_position(), n1 - n0, &bias_mean)) {
        out[x] = static_cast<float>(
            s.Dot(qs.data() + static_cast<size_t>(y * d), ks.data() + static_cast<size_t>(x * d)) +
            bias_mean);
        continue;
      }
      // A bias or a partly masked block: the mean over the sampled grid's unmasked cells.
      const std::vector<int64_t> ms = SamplePositions(m0, m1 - m0, samples);
      const std::vector<int64_t> ns = SamplePositions(n0, n1 - n0, samples);
      if (static_cast<int64_t>(ms.size()) != m1 - m0 ||
          static_cast<int64_t>(ns.size()) != n1 - n0) {
        exact = false;
      }
      double acc = 0.0;
      int64_t cells = 0;
      if (!some_masked) {
        // Unmasked: the dot part is still bilinear; only the bias is averaged over the grid.
        double bsum = 0.0;
        for (int64_t m : ms) {
          for (int64_t n : ns) bsum += s.encoding().Bias(m, n);
        }
        out[x] = static_cast<float>(
            s.Dot(qs.data() + static_cast<size_t>(y * d), ks.data() + static_cast<size_t>(x * d)) +
            bsum / static_cast<double>(ms.size() * ns.size()));
        continue;
      }
      kv.resize(ns.size() * static_cast<size_t>(d));
      for (size_t i = 0; i < ns.size(); ++i) s.Key(ns[i], kv.data() + i * static_cast<size_t>(d));
      for (int64_t m : ms) {
        s.Query(m, qv.data());
        for (size_t i = 0; i < ns.size(); ++i) {
          if (s.Masked(m, ns[i])) continue;
          acc += s.Dot(qv.data(), kv.data() + i * static_cast<size_t>(d)) +
                 s.encoding().Bias(m, ns[i]);
          ++cells;
        }
      }
      out[x] = cells > 0 ? static_cast<float>(acc / static_cast<double>(cells))
                         : std::numeric_limits<float>::quiet_NaN();
    }
  }
  ThrowIfCancelled(job_cancel);
  r.exact = exact;
  return r;
}

void ScoreRow(const AttentionScorer& s, int64_t m, int64_t n0, int64_t count, double* out) {
  if (count * s.dim() > kOffsetRasterMinWork) {
    // Long rows of wide vectors: from the score's waves along the keys, masked after.
    if (const std::optional<ScoreWaves> waves = MakeScoreWaves(s, /*masked_ok=*/true)) {
      MakeScoreParts(*waves, s.scale(), n0, count, m, 1).Row(m, out);
      for (int64_t i = 0; i < count; ++i) {
        if (s.Masked(m, n0 + i)) out[i] = kNaN;
      }
      return;
    }
  }
  const auto d = static_cast<size_t>(s.dim());
  std::vector<double> q(d), k(d);
  s.Query(m, q.data());
  for (int64_t i = 0; i < count; ++i) {
    const int64_t n = n0 + i;
    if (s.Masked(m, n)) {
      out[i] = kNaN;
      continue;
    }
    s.Key(n, k.data());
    out[i] = s.Dot(q.data(), k.data()) + s.encoding().Bias(m, n);
  }
}

std::vector<double> ScoreKeys(const AttentionScorer& s, int64_t n0, int64_t count) {
  const int64_t d = s.dim();
  std::vector<double> keys(static_cast<size_t>(count * d));
#pragma omp parallel for schedule(static) if (count * d >= (int64_t{1} << 16))
  for (int64_t i = 0; i < count; ++i) s.Key(n0 + i, keys.data() + i * d);
  return keys;
}

void ScoreBlock(const AttentionScorer& s, const double* keys, int64_t n0, int64_t cols, int64_t m0,
                int64_t rows, double* out) {
  const int64_t d = s.dim();
  const Encoding& e = s.encoding();
  // The job's token, read here: the team's other threads have none of their own.
  const CancelToken* job_cancel = CurrentCancelToken();
#pragma omp parallel for schedule(dynamic, 1) if (rows * cols * d >= (int64_t{1} << 18))
  for (int64_t i = 0; i < rows; ++i) {
    if (IsCancelled(job_cancel)) continue;  // cancelled: the rest is skipped, then thrown
    const int64_t m = m0 + i;
    std::vector<double> q(static_cast<size_t>(d));
    s.Query(m, q.data());
    double* dst = out + i * cols;
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t n = n0 + j;
      dst[j] = s.Masked(m, n) ? kNaN : s.Dot(q.data(), keys + j * d) + e.Bias(m, n);
    }
  }
  ThrowIfCancelled(job_cancel);
}

std::vector<double> DecayCurve(const AttentionScorer& s, std::span<const int64_t> distances) {
  const Encoding& e = s.encoding();
  const int64_t first = e.first_position();
  const auto d = static_cast<size_t>(s.dim());
  std::vector<double> k(d), q(d);
  s.Key(first, k.data());
  std::vector<double> out(distances.size(), kNaN);
  for (size_t i = 0; i < distances.size(); ++i) {
    const int64_t dist = distances[i];
    if (dist < 0 || dist >= e.rows() || s.Masked(first + dist, first)) continue;
    s.Query(first + dist, q.data());
    out[i] = s.Dot(q.data(), k.data()) + e.Bias(first + dist, first);
  }
  return out;
}

std::vector<double> SoftmaxRow(std::span<const double> logits) {
  std::vector<double> w(logits.size(), 0.0);
  double hi = -std::numeric_limits<double>::infinity();
  for (double v : logits) {
    if (!std::isnan(v)) hi = std::max(hi, v);
  }
  if (!std::isfinite(hi)) return w;
  double sum = 0.0;
  for (size_t i = 0; i < logits.size(); ++i) {
    if (std::isnan(logits[i])) continue;
    w[i] = std::exp(logits[i] - hi);
    sum += w[i];
  }
  for (double& v : w) v /= sum;
  return w;
}

double RoformerDecayBound(std::span<const double> frequencies, double distance) {
  if (frequencies.empty()) return kNaN;
  std::complex<double> partial(0.0, 0.0);
  double total = 0.0;
  for (double freq : frequencies) {
    partial += std::polar(1.0, distance * freq);  // S_{k+1}
    total += std::abs(partial);
  }
  return total / static_cast<double>(frequencies.size());
}

double RoformerDecayBound(int64_t d, double theta, double distance) {
  const int64_t half = d / 2;
  if (half < 1) return kNaN;
  std::complex<double> partial(0.0, 0.0);
  double total = 0.0;
  for (int64_t k = 0; k < half; ++k) {
    const double freq = std::pow(theta, -2.0 * static_cast<double>(k) / static_cast<double>(d));
    partial += std::polar(1.0, distance * freq);  // S_{k+1}
    total += std::abs(partial);
  }
  return total / static_cast<double>(half);
}

}  // namespace pe
