// The attention walkthrough (views/walkthrough.h): eight steps of how position enters attention,
// with the current scheme's live numbers. The app has no projections: q = k = x, one content
// vector (the score view's, AttentionScorer) used as query and key, so every number is the
// position's effect alone. A step that does not apply to the scheme says so in one sentence and
// names the step or preset that shows it.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <map>
#include <numbers>

#include "analysis/attention_score.h"
#include "encoding/alibi.h"
#include "encoding/t5_buckets.h"
#include "model/input_layer.h"
#include "model/model_schedule.h"
#include "text/tokenizer.h"
#include "views/walkthrough.h"

namespace pe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kShown = 8;         // values of a vector written out
constexpr size_t kMaxBars = 32;       // bars of a page
constexpr int64_t kSoftmaxKeys = 16;  // keys of the softmax row's short sequence

std::string Fmt(double v) {
  if (std::isnan(v)) return "masked";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string Fmt4(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

std::string VecText(const std::vector<double>& v) {
  std::string s = "[";
  const auto d = static_cast<int64_t>(v.size());
  for (int64_t j = 0; j < std::min(d, kShown); ++j) {
    if (j > 0) s += ", ";
    s += Fmt(v[static_cast<size_t>(j)]);
  }
  s += d > kShown ? ", ...] (first " + std::to_string(kShown) + " of " + std::to_string(d) + ")"
                  : "]";
  return s;
}

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double acc = 0;
  for (size_t j = 0; j < a.size() && j < b.size(); ++j) acc += a[j] * b[j];
  return acc;
}

std::string Pos(int64_t p) {
  return std::to_string(p);
}

struct AttnContext {
  const ModelParams& params;
  const EncodingPtr& encoding;
  const AttentionScorer& scorer;
  Walkthrough& w;
  Family family;
  Scheme scheme;
  int64_t d = 0;
  int64_t first = 0, last = 0;  // the table's positions
};

std::string SchemeText(const AttnContext& c) {
  return std::string(SchemeName(c.scheme));
}

// The page of a step that does not apply: one sentence, and where to look instead.
void NotApplicable(WalkPage& p, const std::string& why, const std::string& instead) {
  p.applies = false;
  p.explanation = why;
  p.formula = "(this step does not apply to the current scheme)";
  p.numbers.push_back(instead);
  p.code = "-";
  p.highlight_text = "nothing: the step does not apply.";
}

std::string PairText(const AttnContext& c) {
  const WalkAttention& a = c.w.attention;
  return "(m, n) = (" + Pos(a.query) + ", " + Pos(a.key) + ")";
}

// 1. From the model input x to q and k.
void QueryKeyStep(AttnContext& c, WalkPage& p) {
  WalkAttention& a = c.w.attention;
  const std::vector<double>& x = c.scorer.x_query();
  p.title += ": the same x as query and key";
  p.explanation = "This app has no projections: q = k = x (W_q = W_k = I), one content vector " +
                  std::string(c.scorer.x_query() == c.scorer.x_key() ? "used as both query and key"
                                                                     : "per side (tokens A, B)") +
                  ", so every score below is the position's effect alone; " + SchemeText(c) + " " +
                  std::string(c.encoding->descriptor().acts_on) + ".";
  switch (c.family) {
    case Family::kAdded:
      p.formula = c.scheme == Scheme::kNope
                      ? "q = k = x,   score(m, n) = x\xc2\xb7x / \xe2\x88\x9a"
                        "d   (NoPE: no position at all)"
                      : "q_m = x + PE_m,   k_n = x + PE_n,   score(m, n) = q_m\xc2\xb7k_n / "
                        "\xe2\x88\x9a"
                        "d";
      break;
    case Family::kRotary:
      p.formula =
          "q_m = R(m\xce\xb8) x,   k_n = R(n\xce\xb8) x,   score(m, n) = q_m\xc2\xb7k_n / "
          "\xe2\x88\x9a"
          "d";
      break;
    default:
      p.formula =
          "q = k = x,   score(m, n) = x\xc2\xb7x / \xe2\x88\x9a"
          "d + b(m, n)";
      break;
  }
  p.numbers.push_back("d = " + std::to_string(c.d) + ", x = " + VecText(x));
  p.numbers.push_back("|x|\xc2\xb2 = " + Fmt(Dot(x, x)) + ", scale s = " + Fmt(a.scale) +
                      ": x\xc2\xb7x \xc2\xb7 s = " + Fmt(Dot(x, x) * a.scale));
  p.numbers.push_back("query m = " + Pos(a.query) + ", key n = " + Pos(a.key) +
                      ": score(m, n) = " + Fmt(a.score));
  p.numbers.push_back(
      ScoreDefinition(*c.encoding, c.params.content, c.params.softmax_scale, c.params.temperature));
  if (const std::string opts = ScoreOptionsText(c.params); !opts.empty()) {
    p.numbers.push_back("options: " + opts);
  }
  p.code =
      "HF transformers modeling_llama.py LlamaAttention.forward: query_states = "
      "self.q_proj(hidden_states), key_states = self.k_proj(hidden_states); here q_proj and "
      "k_proj are the identity.";
  p.highlight_text =
      "Score view: the cell " + PairText(c) + "; attention view: query " + Pos(a.query) + "'s row.";
}

// 2. Added schemes: the four terms.
void FourTermsStep(AttnContext& c, WalkPage& p) {
  WalkAttention& a = c.w.attention;
  p.title += ": content and position in one dot product";
  if (c.family != Family::kAdded || c.scheme == Scheme::kNope) {
    const std::string why =
        c.scheme == Scheme::kNope
            ? "NoPE adds nothing to x (PE = 0), so of the four terms only x\xc2\xb7x remains."
            : SchemeText(c) + " adds nothing to x (it " +
                  std::string(c.encoding->descriptor().acts_on) +
                  "), so there are no position terms to split.";
    NotApplicable(
        p, why,
        "See step " +
            std::string(c.family == Family::kRotary ? "3 (the rotation)" : "5 (the biases)") +
            ", or the preset gpt2-learned-vs-sinusoid for an added table.");
    a.terms = {kNaN, kNaN, kNaN, kNaN};
    return;
  }
  p.explanation =
      "With PE added to x, q_m\xc2\xb7k_n splits into four terms: content-content, "
      "content-position, position-content and position-position; only the last depends on "
      "the positions alone.";
  p.formula =
      "(x + PE_m)\xc2\xb7(x + PE_n) = x\xc2\xb7x + x\xc2\xb7PE_n + PE_m\xc2\xb7x + "
      "PE_m\xc2\xb7PE_n";
  const std::vector<double>& x = c.scorer.x_query();
  std::vector<float> pm(static_cast<size_t>(c.d)), pn(static_cast<size_t>(c.d));
  c.encoding->FillBlock(a.query - c.first, 1, 0, c.d, pm.data());
  c.encoding->FillBlock(a.key - c.first, 1, 0, c.d, pn.data());
  const std::vector<double> em(pm.begin(), pm.end()), en(pn.begin(), pn.end());
  const std::vector<double>& xk = c.scorer.x_key();
  a.terms = {Dot(x, xk), Dot(x, en), Dot(em, xk), Dot(em, en)};
  static const char* kNames[4] = {"content-content x\xc2\xb7x", "content-position x\xc2\xb7PE_n",
                                  "position-content PE_m\xc2\xb7x",
                                  "position-position PE_m\xc2\xb7PE_n"};
  p.numbers.push_back(
      "m = " + Pos(a.query) + ", n = " + Pos(a.key) + ", |x| = " + Fmt(std::sqrt(Dot(x, x))) +
      ", |PE_m| = " + Fmt(std::sqrt(Dot(em, em))) + ", |PE_n| = " + Fmt(std::sqrt(Dot(en, en))));
  double sum = 0;
  for (int k = 0; k < 4; ++k) {
    sum += a.terms[static_cast<size_t>(k)];
    p.numbers.push_back(std::string(kNames[k]) + " = " + Fmt(a.terms[static_cast<size_t>(k)]) +
                        " (\xc3\x97 s = " + Fmt(a.terms[static_cast<size_t>(k)] * a.scale) + ")");
    c.w.bars.back().push_back({kNames[k], a.terms[static_cast<size_t>(k)] * a.scale});
  }
  p.numbers.push_back("sum \xc3\x97 s = " + Fmt(sum * a.scale) + " = score(m, n) " +
                      (c.params.temperature.kind == TemperatureKind::kNone
                           ? std::string("= ") + Fmt(a.score)
                           : std::string("before the temperature")));
  p.bar_axis = "term \xc3\x97 s";
  if (c.scheme == Scheme::kLearned) {
    // GPT-2's learned table against the sinusoid of the same shape: the sinusoid's
    // PE_m.PE_n = sum_i cos((m - n) w_i) (d/2 pairs, w_i = 10000^(-2i/d)), |PE| = sqrt(d/2).
    const LearnedParams& lp = c.params.pe.learned();
    const int64_t half = c.d / 2;
    double sin_pp = 0;
    for (int64_t i = 0; i < half; ++i) {
      const double w = std::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(c.d));
      sin_pp += std::cos(static_cast<double>(a.query - a.key) * w);
    }
    p.numbers.push_back(
        lp.table.spec.empty()
            ? "learned table: seeded, " + std::string(LearnedInitName(lp.init)) +
                  " (GPT-2's wpe is 1024 \xc3\x97 768 drawn N(0, 0.02\xc2\xb2) before training; "
                  "|PE| \xe2\x89\x88 0.02 \xe2\x88\x9a"
                  "d = " +
                  Fmt(0.02 * std::sqrt(static_cast<double>(c.d))) +
                  "): its position-position term is noise until trained"
            : "learned table: loaded from " + lp.table.spec + " (a trained table)");
    p.numbers.push_back("the sinusoid of the same shape: |PE| = \xe2\x88\x9a(d/2) = " +
                        Fmt(std::sqrt(static_cast<double>(half))) +
                        ", PE_m\xc2\xb7PE_n = \xce\xa3 cos((m-n) \xcf\x89_i) = " + Fmt(sin_pp) +
                        ": fixed waves, not a table; RoPE rotates q and k instead of adding");
  }
  p.code =
      "HF transformers modeling_gpt2.py GPT2Model.forward: hidden_states = inputs_embeds + "
      "position_embeds; the four-term split is Ke, He and Liu 2021 (TUPE), eq. 2.";
  p.highlight_text = "Score view: the cell " + PairText(c) +
                     " (its \"position part only\" is the last term); sums view: x and PE.";
}

// 3. Rotary: turned pair by pair, so q_m.k_n depends on m - n only.
void RotationStep(AttnContext& c, WalkPage& p) {
  WalkAttention& a = c.w.attention;
  p.title += ": q and k turned pair by pair";
  if (c.family != Family::kRotary) {
    NotApplicable(
        p,
        SchemeText(c) + " turns nothing: " + std::string(c.encoding->descriptor().acts_on) +
            (c.family == Family::kAdded && c.scheme != Scheme::kNope
                 ? "; its PE_m\xc2\xb7PE_n depends on m - n, but x\xc2\xb7PE_n does not (step 2)."
                 : "."),
        "See the preset rope-positions-2-and-5 (RoPE at positions 2 and 5).");
    return;
  }
  p.explanation =
      "Each pair of dimensions of q is turned by m\xce\xb8_i and of k by n\xce\xb8_i; a dot "
      "product of two turned pairs only sees the angle between them, (m - n)\xce\xb8_i, so "
      "q_m\xc2\xb7k_n depends on m - n only.";
  p.formula =
      "q_m\xc2\xb7k_n = \xce\xa3_i Re(conj(X_i) X_i e^{i(m-n)\xce\xb8_i}) = \xce\xa3_i "
      "|X_i|\xc2\xb2 cos((m - n)\xce\xb8_i)   (q = k = x, X_i = x_a + i x_b)";
  const std::vector<double>& x = c.scorer.x_query();
  const std::span<const RotaryPair> pairs = c.encoding->rotary_pairs();
  const double r = static_cast<double>(a.query - a.key);
  double rotated = 0;
  for (const RotaryPair& pr : pairs) {
    const double xa = x[static_cast<size_t>(pr.dim_a)], xb = x[static_cast<size_t>(pr.dim_b)];
    const std::vector<double>& xk = c.scorer.x_key();
    const std::complex<double> q(xa, xb);
    const std::complex<double> k(xk[static_cast<size_t>(pr.dim_a)],
                                 xk[static_cast<size_t>(pr.dim_b)]);
    // amplitude^2 e^{-decay (n - m)} Re(conj(Q) K e^{i (n - m) w}) (encoding.h RotaryPair).
    const double part = pr.amplitude * pr.amplitude * std::exp(-pr.decay * r) *
                        (std::conj(q) * k * std::polar(1.0, -r * pr.frequency)).real() * a.scale;
    a.pair_parts.push_back(part);
    rotated += xa * xa + xb * xb;
    if (a.pair_parts.size() <= 4) {
      p.numbers.push_back("pair " + std::to_string(pr.index) + " (dims " +
                          std::to_string(pr.dim_a) + ", " + std::to_string(pr.dim_b) +
                          "): \xce\xb8 = " + Fmt(pr.frequency) +
                          ", m\xce\xb8 = " + Fmt(static_cast<double>(a.query) * pr.frequency) +
                          ", n\xce\xb8 = " + Fmt(static_cast<double>(a.key) * pr.frequency) +
                          ", part of the score = " + Fmt(part));
    }
    if (c.w.bars.back().size() < kMaxBars) {
      c.w.bars.back().push_back({"pair " + std::to_string(pr.index), part});
    }
  }
  if (pairs.empty()) {
    p.numbers.push_back(
        "M-RoPE turns pairs by three ids (t, h, w); for text tokens all three are the position, "
        "so it is RoPE; image tokens break the m - n rule (the mrope views show them).");
  } else if (rotated < Dot(x, x) * (1 - 1e-12)) {
    p.numbers.push_back("dims not rotated (partial rotary) add x_j\xc2\xb2 at every distance: " +
                        Fmt((Dot(x, x) - rotated) * a.scale));
  }
  p.numbers.push_back("score(" + Pos(a.query) + ", " + Pos(a.key) + ") = " + Fmt(a.score) +
                      ";  score(" + Pos(a.query + a.shift) + ", " + Pos(a.key + a.shift) +
                      ") = " + Fmt(a.shifted_score) + ": the same m - n = " + Pos(a.query - a.key) +
                      ", the same score");
  p.bar_axis = "part of score";
  p.code =
      c.scheme == Scheme::kXpos
          ? "torchscale's XPOS (xpos_relative_position.py): apply_rotary_pos_emb(x, sin, cos, "
            "scale) with scale^(n / scale_base) on queries and its inverse on keys."
          : "HF transformers modeling_llama.py apply_rotary_pos_emb: q_embed = (q * cos) + "
            "(rotate_half(q) * sin) (pairing " +
                std::string(c.scheme == Scheme::kRope ? RopePairingName(c.params.pe.rope().pairing)
                                                      : std::string_view("half")) +
                "; Meta's Llama and RoFormer pair dims 2i, 2i+1).";
  p.highlight_text =
      "Rotation view: the pairs turned at m and n; score view: the diagonal m - n = " +
      Pos(a.query - a.key) + " is one colour.";
}

// RoFormer's relative upper bound at distance r: (1/(d/2)) sum_{j=1}^{d/2} |S_j|,
// S_j = sum_{k=0}^{j-1} e^{i r theta_k} (section 3.4.3).
double RoformerBound(std::span<const RotaryPair> pairs, double r) {
  std::complex<double> s = 0;
  double total = 0;
  for (const RotaryPair& pr : pairs) {
    s += std::polar(1.0, r * pr.frequency);
    total += std::abs(s);
  }
  return pairs.empty() ? kNaN : total / static_cast<double>(pairs.size());
}

// 4. Decay with distance.
void DecayStep(AttnContext& c, WalkPage& p) {
  WalkAttention& a = c.w.attention;
  p.title += ": the score against m - n";
  const std::span<const RotaryPair> pairs = c.encoding->rotary_pairs();
  const bool bound = c.family == Family::kRotary && !pairs.empty();
  p.explanation =
      bound ? "RoFormer shows the size of q\xc2\xb7k is bounded by a sum that falls, on the "
              "whole, as m - n grows; the example's own score wanders below it."
      : c.family == Family::kBias
          ? "The bias falls with the distance by design; the content part x\xc2\xb7x is the same "
            "at every distance."
      : c.scheme == Scheme::kNope
          ? "NoPE's score is the same at every distance: nothing but a causal mask tells "
            "positions apart."
          : "An added table's score changes with the distance through its terms (step 2); no "
            "bound forces it down.";
  p.formula = bound ? "|\xce\xa3_i h_i e^{i(m-n)\xce\xb8_i}| \xe2\x89\xa4 (max_i |h_{i+1} - h_i|) "
                      "\xce\xa3_j |S_j|,  S_j = \xce\xa3_{k<j} e^{i(m-n)\xce\xb8_k};  shown: "
                      "(1/(d/2)) \xce\xa3_j |S_j|"
                    : "score(n + r, n) for r = m - n";
  const int64_t key = c.first;
  for (int64_t r = 0; key + r <= c.last; r = r == 0 ? 1 : r * 2) {
    a.distances.push_back(r);
    a.decay_scores.push_back(c.scorer.Score(key + r, key));
    a.decay_bound.push_back(bound ? RoformerBound(pairs, static_cast<double>(r)) : kNaN);
    if (r >= (int64_t{1} << 40)) break;
  }
  for (size_t k = 0; k < a.distances.size(); ++k) {
    if (k < 12) {
      p.numbers.push_back("m - n = " + std::to_string(a.distances[k]) +
                          ": score = " + Fmt(a.decay_scores[k]) +
                          (bound ? ", bound = " + Fmt(a.decay_bound[k]) : std::string()));
    }
    if (c.w.bars.back().size() < kMaxBars) {
      c.w.bars.back().push_back({"m - n = " + std::to_string(a.distances[k]), a.decay_scores[k]});
    }
  }
  if (a.distances.size() > 12) p.numbers.push_back("... (doubling up to the table's end)");
  p.bar_axis = "score";
  p.code = bound ? "RoFormer (Su et al. 2021), section 3.4.3, long-term decay; its Figure 2 plots "
                   "the bound (the decay view draws it)."
                 : "The decay view: the score at key n = " + Pos(key) +
                       " and query n + r, as score(m, n) of step 1.";
  p.highlight_text = "Decay view: the curve of " + SchemeText(c) + " against the distance.";
}

// 5. Bias schemes.
void BiasesStep(AttnContext& c, WalkPage& p) {
  WalkAttention& a = c.w.attention;
  const EncodingParams& pe = c.params.pe;
  p.title += ": a penalty added to the logits";
  if (c.scheme == Scheme::kAlibi) {
    const AlibiParams& al = pe.alibi();
    p.explanation =
        "ALiBi adds -slope \xc2\xb7 (m - n) to each logit: one slope per head, a geometric "
        "sequence, so some heads look near and others far.";
    p.formula = "b_h(m, n) = -m_h (m - n),   m_h = 2^(-" + Fmt(al.max_bias) +
                " h / H), h = 1..H (H a power of 2)";
    a.slopes = AlibiSlopes(al.heads, al.max_bias);
    const std::vector<double> ex = AlibiSlopeExponents(al.heads, al.max_bias);
    const int64_t r = a.query - a.key;
    for (size_t h = 0; h < a.slopes.size(); ++h) {
      if (h < 16) {
        p.numbers.push_back("head " + std::to_string(h) + ": slope 2^" + Fmt(ex[h]) + " = " +
                            Fmt(a.slopes[h]) + ", bias at m - n = " + std::to_string(r) + ": " +
                            Fmt(-a.slopes[h] * static_cast<double>(r)));
      }
      if (h < kMaxBars) c.w.bars.back().push_back({"head " + std::to_string(h), a.slopes[h]});
    }
    if (a.slopes.size() > 16)
      p.numbers.push_back("... (" + std::to_string(a.slopes.size()) + " heads)");
    p.bar_axis = "slope";
    p.code =
        "ofirpress/attention_with_linear_biases, get_slopes (fairseq/models/transformer.py): "
        "start = 2^(-2^-(log2(n) - 3)), each slope the previous times start; BLOOM's "
        "build_alibi_tensor.";
    p.highlight_text =
        "Bias view: head " + std::to_string(al.head) + "'s matrix; decay view: its line.";
    return;
  }
  if (c.scheme == Scheme::kT5) {
    const T5Params& t5 = pe.t5();
    const bool bi = t5.direction == T5Direction::kBidirectional;
    const int64_t exact = T5MaxExact(bi, t5.buckets);
    p.explanation =
        "T5 puts each relative position key - query into a bucket: one bucket per distance "
        "near the query, then log-spaced buckets up to max_distance; each head learns one bias "
        "per bucket.";
    p.formula = "b_h(m, n) = B[h, bucket(n - m)],  bucket exact below " + std::to_string(exact) +
                ", log-spaced to " + std::to_string(t5.max_distance) + " (" +
                std::to_string(t5.buckets) + " buckets, " +
                std::string(T5DirectionName(t5.direction)) + ")";
    // The sentence's tokens as keys of its last token's query (positions 0 .. T - 1).
    // Its tokens as the input layer cuts them (through a sinusoidal table of the same shape:
    // T5 adds nothing to the tokens, only their count and text are read).
    EncodingParams words;
    words.d_model = c.d;
    words.max_len = std::min<int64_t>(c.last - c.first + 1, 4096);
    Result<SentenceResult> s =
        ComputeSentence(c.params.example, words, c.params.input, c.params.cap);
    int64_t tokens = s.ok() ? static_cast<int64_t>(s.value().ids.size()) : 0;
    tokens = std::min(tokens, c.last - c.first + 1);
    if (tokens > 1) {
      const int64_t q = c.first + tokens - 1;
      std::string line = "the sentence, query = its last token (position " + Pos(q) + "): ";
      for (int64_t t = 0; t < tokens && t < 24; ++t) {
        const int64_t rel = t - (tokens - 1);
        const int64_t b = T5Bucket(rel, bi, t5.buckets, t5.max_distance);
        if (t > 0) line += ", ";
        line += VisibleWhitespace(s.value().tokens[static_cast<size_t>(t)].text) + " " +
                std::to_string(b);
      }
      p.numbers.push_back(line);
    }
    for (int64_t dist : {int64_t{1}, int64_t{2}, int64_t{3}, exact - 1, exact, 2 * exact, 4 * exact,
                         t5.max_distance / 2, t5.max_distance, 2 * t5.max_distance}) {
      for (int64_t r : {-dist, dist}) {
        if (dist <= 0 || (!bi && r > 0)) continue;
        if (std::any_of(a.buckets.begin(), a.buckets.end(),
                        [r](const auto& e) { return e.first == r; })) {
          continue;
        }
        a.buckets.push_back({r, T5Bucket(r, bi, t5.buckets, t5.max_distance)});
      }
    }
    std::sort(a.buckets.begin(), a.buckets.end());
    std::string line = "bucket of key - query: ";
    for (size_t k = 0; k < a.buckets.size(); ++k) {
      if (k > 0) line += ", ";
      line += std::to_string(a.buckets[k].first) + " \xe2\x86\x92 " +
              std::to_string(a.buckets[k].second);
      if (c.w.bars.back().size() < kMaxBars) {
        c.w.bars.back().push_back({"n - m = " + std::to_string(a.buckets[k].first),
                                   static_cast<double>(a.buckets[k].second)});
      }
    }
    p.numbers.push_back(line);
    p.numbers.push_back("head " + std::to_string(t5.head) + "'s bias at " + PairText(c) + ": " +
                        Fmt(c.encoding->Bias(a.query, a.key)) +
                        (t5.bias.spec.empty()
                             ? " (seeded N(0, 1): meaningless until trained; --positions-table "
                               "loads a model's relative_attention_bias)"
                             : " (loaded from " + t5.bias.spec + ")"));
    p.bar_axis = "bucket";
    p.code =
        "HF transformers modeling_t5.py T5Attention._relative_position_bucket (from Mesh "
        "TensorFlow); the bias is relative_attention_bias(bucket).";
    p.highlight_text = "Bias view: the bucket bands of head " + std::to_string(t5.head) + ".";
    return;
  }
  NotApplicable(p,
                SchemeText(c) + " adds no bias to the logits: it " +
                    std::string(c.encoding->descriptor().acts_on) + ".",
                "See the presets alibi-8-heads (ALiBi's slopes) and t5-buckets-of-a-sentence "
                "(T5's buckets).");
}

// 6. One query's softmax row under each mask.
void SoftmaxStep(AttnContext& c, WalkPage& p) {
  WalkAttention& a = c.w.attention;
  const int64_t keys = std::min(kSoftmaxKeys, c.last - c.first + 1);
  const int64_t q = c.first + keys - 1;
  p.title += ": where one query's attention goes";
  p.explanation =
      "The query's scores over the keys become weights summing to 1; a mask removes "
      "keys before the softmax (causal: the future; sliding: beyond a band; chunked: "
      "other blocks), and the rest share the weight.";
  p.formula = "w(m, n) = exp(score(m, n)) / \xce\xa3_{n' visible} exp(score(m, n'))";
  p.numbers.push_back("a sequence of the table's first " + std::to_string(keys) +
                      " positions, query m = " + Pos(q) + " (its last):");
  struct Mask {
    std::string name;
    AttentionWindow window;
  };
  const AttentionWindow own = EffectiveAttentionWindow(c.params);
  std::vector<Mask> masks = {{"these parameters (" +
                                  std::string(AttentionWindowKindName(own.kind)) +
                                  (own.size > 0 ? ":" + std::to_string(own.size) : "") + ")",
                              own}};
  for (const AttentionWindow& wnd : {AttentionWindow{AttentionWindowKind::kFull, 0},
                                     AttentionWindow{AttentionWindowKind::kCausal, 0},
                                     AttentionWindow{AttentionWindowKind::kSliding, 4},
                                     AttentionWindow{AttentionWindowKind::kChunked, 4}}) {
    if (wnd == own) continue;
    masks.push_back({std::string(AttentionWindowKindName(wnd.kind)) +
                         (wnd.size > 0 ? ":" + std::to_string(wnd.size) : ""),
                     wnd});
  }
  for (size_t k = 0; k < masks.size(); ++k) {
    Result<AttentionScorer> s =
        AttentionScorer::Make(c.encoding, c.scorer.x_query(), c.scorer.x_key(), masks[k].window,
                              c.params.softmax_scale, c.params.temperature);
    if (!s.ok()) continue;
    std::vector<double> scores;
    double hi = -std::numeric_limits<double>::infinity();
    for (int64_t n = c.first; n < c.first + keys; ++n) {
      scores.push_back(s.value().Score(q, n));
      if (!std::isnan(scores.back())) hi = std::max(hi, scores.back());
    }
    double z = 0;
    for (double v : scores) z += std::isnan(v) ? 0.0 : std::exp(v - hi);
    std::string line = masks[k].name + ": ";
    for (size_t n = 0; n < scores.size(); ++n) {
      const double wgt = std::isnan(scores[n]) ? 0.0 : std::exp(scores[n] - hi) / z;
      if (n > 0) line += " ";
      line += Fmt4(wgt);
      if (k == 0) {
        a.softmax_keys.push_back(c.first + static_cast<int64_t>(n));
        a.softmax_weights.push_back(wgt);
        c.w.bars.back().push_back({"key " + Pos(c.first + static_cast<int64_t>(n)), wgt});
      }
    }
    p.numbers.push_back(line);
  }
  p.bar_axis = "weight";
  p.code =
      "HF transformers modeling_llama.py eager_attention_forward: attn_weights = "
      "softmax(attn_weights + causal_mask); the sliding and chunked masks: HF masking_utils.py "
      "sliding_window_overlay, chunked_overlay.";
  p.highlight_text = "Attention view: query " + Pos(q) + "'s row (over the whole table).";
}

// 7. Long context: what the scaling does to each pair.
void LongContextStep(AttnContext& c, WalkPage& p) {
  WalkAttention& a = c.w.attention;
  p.title += ": scaling the frequencies past the training length";
  const RopeFrequencies* f = c.encoding->frequencies();
  if (f == nullptr) {
    NotApplicable(p,
                  SchemeText(c) + " has no frequencies to scale" +
                      (c.scheme == Scheme::kAlibi
                           ? ": ALiBi's linear bias is the same at any length (its paper's "
                             "train short, test long)."
                           : "."),
                  "See the preset llama-3-1-past-8192 (RoPE with Llama 3.1's scaling).");
    return;
  }
  const RopeParams& rp = c.params.pe.rope();
  const bool scaled = rp.scaling != RopeScaling::kNone;
  const int64_t train = scaled ? rp.original_max_len : c.params.pe.max_len;
  p.explanation =
      "A pair whose wavelength 2\xcf\x80/\xce\xb8_i is shorter than the training length has "
      "seen every angle and is kept; a longer one would meet angles it never saw, so it is "
      "interpolated (divided by the factor), and the pairs between are blended.";
  p.formula = scaled ? "\xce\xb8'_i = \xce\xb8_i (kept),  \xce\xb8_i / factor (interpolated), "
                       "or between (blended);  scaling " +
                           std::string(RopeScalingName(rp.scaling)) + " \xc3\x97" + Fmt(rp.factor) +
                           ", trained on " + std::to_string(train)
                     : "no scaling: \xce\xb8'_i = \xce\xb8_i = base^(-2i/d)";
  for (const RopePair& pr : f->pairs) {
    switch (pr.treatment) {
      case PairTreatment::kKept:
        ++a.kept;
        break;
      case PairTreatment::kInterpolated:
        ++a.interpolated;
        break;
      case PairTreatment::kBlended:
        ++a.blended;
        break;
    }
  }
  p.numbers.push_back(std::to_string(f->pairs.size()) + " pairs: " + std::to_string(a.kept) +
                      " kept, " + std::to_string(a.interpolated) + " interpolated, " +
                      std::to_string(a.blended) + " blended");
  const size_t n = f->pairs.size();
  const size_t step = std::max<size_t>(1, n / 8);
  for (size_t i = 0; i < n; i += step) {
    const RopePair& pr = f->pairs[i];
    const double wl = 2 * std::numbers::pi / pr.original;
    p.numbers.push_back("pair " + std::to_string(pr.index) + ": wavelength " + Fmt(wl) +
                        (wl < static_cast<double>(train) ? " < " : " \xe2\x89\xa5 ") +
                        std::to_string(train) + ", \xce\xb8 " + Fmt(pr.original) +
                        " \xe2\x86\x92 " + Fmt(pr.scaled) + " (" +
                        std::string(PairTreatmentName(pr.treatment)) + ")");
  }
  for (size_t i = 0; i < n && c.w.bars.back().size() < kMaxBars;
       i += std::max<size_t>(1, n / kMaxBars)) {
    const RopePair& pr = f->pairs[i];
    c.w.bars.back().push_back(
        {"pair " + std::to_string(pr.index), pr.original > 0 ? pr.scaled / pr.original : 1.0});
  }
  if (!scaled) {
    p.numbers.push_back(
        "without a scaling every pair is kept; the preset llama-3-1-past-8192 "
        "shows Llama 3.1's three bands.");
  }
  p.bar_axis = "\xce\xb8' / \xce\xb8";
  static const std::map<RopeScaling, const char*> kSource = {
      {RopeScaling::kNone, "_compute_default_rope_parameters"},
      {RopeScaling::kLinear, "_compute_linear_scaling_rope_parameters"},
      {RopeScaling::kNtk, "_compute_dynamic_ntk_parameters (its static form)"},
      {RopeScaling::kDynamicNtk, "_compute_dynamic_ntk_parameters"},
      {RopeScaling::kYarn, "_compute_yarn_parameters"},
      {RopeScaling::kLlama3, "_compute_llama3_parameters"},
      {RopeScaling::kLongrope, "_compute_longrope_parameters"}};
  p.code = "HF transformers modeling_rope_utils.py " + std::string(kSource.at(rp.scaling)) + ".";
  p.highlight_text = "Spectrum view: each pair's frequency before and after the scaling.";
}

// 8. Layers that differ.
void LayersStep(AttnContext& c, WalkPage& p) {
  WalkAttention& a = c.w.attention;
  p.title += ": not every layer treats position alike";
  p.explanation =
      "Some models mix layers: local layers with a small RoPE base and a sliding window, "
      "global layers with a large base, and NoPE layers with no position at all.";
  p.formula = "layer l: scheme_l, base_l, window_l";
  const ModelSchedule* s = c.params.model.get();
  if (s == nullptr || s->layers.empty()) {
    NotApplicable(
        p, "No model is open, so there is one layer: the current " + SchemeText(c) + " scheme.",
        "Open one: --model gemma-3-4b (local layers base 10000 with a sliding window "
        "of 1024, global layers base 1e6) or --model llama-4-scout (every fourth layer "
        "NoPE).");
    return;
  }
  // Runs of layers with the same treatment, grouped by treatment.
  std::map<std::string, std::vector<int64_t>> groups;
  std::vector<std::string> order;
  for (size_t l = 0; l < s->layers.size(); ++l) {
    const LayerPosition& lp = s->layers[l];
    std::string key = std::string(SchemeName(lp.pe.kind()));
    if (lp.pe.kind() == Scheme::kRope) key += " base " + Fmt(lp.pe.rope().theta);
    key += ", " + std::string(AttentionWindowKindName(lp.window.kind));
    if (lp.window.size > 0) key += ":" + std::to_string(lp.window.size);
    if (!lp.type.empty()) key += " (" + lp.type + ")";
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(static_cast<int64_t>(l));
  }
  for (const std::string& key : order) {
    const std::vector<int64_t>& ls = groups[key];
    std::string list;
    for (size_t k = 0; k < ls.size() && k < 12; ++k) {
      if (k > 0) list += ", ";
      list += std::to_string(ls[k]);
    }
    if (ls.size() > 12) list += ", ...";
    a.layer_groups.push_back(std::to_string(ls.size()) + " layers: " + key);
    p.numbers.push_back(s->name + ": " + std::to_string(ls.size()) + " layers " + key + ": " +
                        list);
  }
  p.numbers.push_back("the views show layer " + std::to_string(c.params.model_layer) +
                      " (--layer)");
  p.code =
      "HF transformers modeling_gemma3.py: rotary_emb_local (rope_local_base_freq) for sliding "
      "layers; modeling_llama4.py: no_rope_layers.";
  p.highlight_text = "Layers view: every layer of " + s->name + ".";
}

struct AttnStepBuilder {
  WalkStep step;
  void (*build)(AttnContext&, WalkPage&);
};
constexpr std::array<AttnStepBuilder, kAttentionStepCount> kAttnBuilders = {{
    {WalkStep::kQueryKey, QueryKeyStep},
    {WalkStep::kFourTerms, FourTermsStep},
    {WalkStep::kRotation, RotationStep},
    {WalkStep::kDecay, DecayStep},
    {WalkStep::kBiases, BiasesStep},
    {WalkStep::kSoftmaxRow, SoftmaxStep},
    {WalkStep::kLongContext, LongContextStep},
    {WalkStep::kLayers, LayersStep},
}};

}  // namespace

Result<Walkthrough> BuildAttentionWalkthrough(const ModelParams& params,
                                              const EncodingPtr& encoding, int focus) {
  Result<AttentionScorer> scorer = AttentionScorer::Make(params, encoding);
  if (!scorer.ok()) return scorer.error();
  Walkthrough w;
  w.kind = WalkthroughKind::kAttention;
  w.title = "PE Explorer walkthrough: position in attention";
  w.d = encoding->params().d_model;
  w.focus = std::max(0, focus);
  AttnContext c{params, encoding, scorer.value(), w, encoding->family(), encoding->scheme()};
  c.d = w.d;
  c.first = encoding->first_position();
  c.last = encoding->last_position();
  WalkAttention& a = w.attention;
  // Positions 2 and 5 (query 5 looks back at key 2), moved by 10, both kept inside the table.
  const int64_t span = c.last - c.first;
  a.query = c.first + std::min<int64_t>(5, span);
  a.key = std::max(c.first, a.query - 3);
  a.shift = std::max<int64_t>(0, std::min<int64_t>(10, c.last - a.query));
  a.scale = scorer.value().scale();
  a.score = scorer.value().Score(a.query, a.key);
  a.shifted_score = scorer.value().Score(a.query + a.shift, a.key + a.shift);
  for (const AttnStepBuilder& b : kAttnBuilders) {
    w.matrices.emplace_back();
    w.bars.emplace_back();
    WalkPage& p = w.pages.emplace_back();
    p.step = b.step;
    p.title = std::to_string(w.pages.size()) + ". " + std::string(WalkStepName(b.step));
    b.build(c, p);
  }
  return w;
}

}  // namespace pe
