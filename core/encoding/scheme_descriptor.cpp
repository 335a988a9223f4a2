#include "encoding/scheme_descriptor.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace pe {
namespace {

std::string Num(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// The shortest text that reads back to the same double.
std::string Exact(double v) {
  if (v == std::round(v) && std::abs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  for (int prec = 1; prec <= 17; ++prec) {
    char s[48];
    std::snprintf(s, sizeof s, "%.*g", prec, v);
    if (std::strtod(s, nullptr) == v) return s;
  }
  return Num(v, 17);
}

}  // namespace

// ---- check: description and flags -------------------------------------------------------------

std::string CheckDescribeSinusoidal(const EncodingParams& p) {
  const SinusoidalParams& sp = p.sinusoidal();
  std::string s = "sinusoidal, " + std::string(VariantName(sp.variant)) + " layout";
  if (sp.order == WaveOrder::kCosFirst) s += ", cos first";
  s += ", base " + Exact(sp.base);
  if (sp.min_timescale != 1.0) s += ", min timescale " + Exact(sp.min_timescale);
  if (sp.output_scale != 1.0) s += ", scale " + Num(sp.output_scale, 6);
  return s;
}

std::string CheckDescribeRope(const EncodingParams& p) {
  const RopeParams& r = p.rope();
  std::string s = "rope " + std::string(RopePartName(r.part)) + ", " +
                  std::string(RopePairingName(r.pairing)) + " pairing, theta " + Exact(r.theta);
  if (r.scaling == RopeScaling::kLongrope) {
    s += ", longrope (original length " + std::to_string(r.original_max_len) + ", max " +
         std::to_string(r.max_position_embeddings) + ")";
    if (r.attention_factor) s += ", attention factor " + Exact(*r.attention_factor);
  } else if (r.scaling != RopeScaling::kNone) {
    s += ", " + std::string(RopeScalingName(r.scaling)) + " factor " + Exact(r.factor);
    if (r.scaling == RopeScaling::kYarn || r.scaling == RopeScaling::kLlama3) {
      s += ", original length " + std::to_string(r.original_max_len);
    }
    if (r.attention_factor) s += ", attention factor " + Exact(*r.attention_factor);
  }
  if (r.proportion != 1.0) s += ", proportion " + Exact(r.proportion);
  return s;
}

std::string CheckDescribeByName(const EncodingParams& p) {
  return std::string(SchemeName(p.kind()));
}

std::string CheckFlagsSinusoidal(const EncodingParams& p) {
  const SinusoidalParams& sp = p.sinusoidal();
  std::string s = " --variant " + std::string(VariantName(sp.variant));
  s += " --order " + std::string(WaveOrderName(sp.order));
  s += " --base " + Exact(sp.base);
  if (sp.min_timescale != 1.0) s += " --min-timescale " + Exact(sp.min_timescale);
  if (sp.output_scale != 1.0) s += " --output-scale " + Exact(sp.output_scale);
  return s;
}

std::string CheckFlagsRope(const EncodingParams& p) {
  const RopeParams& r = p.rope();
  std::string s = " --part " + std::string(RopePartName(r.part));
  s += " --rope-pairing " + std::string(RopePairingName(r.pairing));
  s += " --rope-theta " + Exact(r.theta);
  if (r.scaling == RopeScaling::kLongrope) {
    // LongRoPE has no factor: its lists, lengths and the length that picks the list.
    auto list = [](const std::vector<double>& v) {
      std::string t;
      for (double x : v) {
        if (!t.empty()) t += ',';
        t += Exact(x);
      }
      return t;
    };
    s += " --rope-scaling longrope --short-factor " + list(r.short_factor);
    s += " --long-factor " + list(r.long_factor);
    s += " --original-max-len " + std::to_string(r.original_max_len);
    s += " --max-position-embeddings " + std::to_string(r.max_position_embeddings);
    if (r.sequence_len != 0) s += " --sequence-len " + std::to_string(r.sequence_len);
    if (r.attention_factor) s += " --attention-factor " + Exact(*r.attention_factor);
  } else if (r.scaling != RopeScaling::kNone) {
    s += " --rope-scaling " + std::string(RopeScalingName(r.scaling));
    s += " --scaling-factor " + Exact(r.factor);
    if (r.scaling == RopeScaling::kYarn || r.scaling == RopeScaling::kLlama3) {
      s += " --original-max-len " + std::to_string(r.original_max_len);
    }
    if (r.attention_factor) s += " --attention-factor " + Exact(*r.attention_factor);
  }
  if (r.proportion != 1.0) s += " --rope-proportion " + Exact(r.proportion);
  return s;
}

std::string NoFlags(const EncodingParams&) {
  return {};
}

// ---- the compare view's default B ---------------------------------------------------------------
// The scheme's own instructive counterpart, so the compare view never opens on B = A.

// base=100 (base=10000 when the base is already 100).
std::string DefaultVersusSinusoidal(const EncodingParams& p) {
  return p.sinusoidal().base == 100.0 ? "base=10000" : "base=100";
}

// The fixed table a learned one replaced.
std::string DefaultVersusLearned(const EncodingParams&) {
  return "scheme=sinusoidal";
}

// Llama 3's base 500000 (10000 when already 500000).
std::string DefaultVersusRope(const EncodingParams& p) {
  return p.rope().theta == 500000.0 ? "rope_theta=10000" : "rope_theta=500000";
}

std::string DefaultVersusAlibi(const EncodingParams& p) {
  // The steepest slope against the gentlest (head 0 against the last head); the other mode
  // with one head.
  const AlibiParams& al = p.alibi();
  if (al.heads > 1) return "head=" + std::to_string(al.head == al.heads - 1 ? 0 : al.heads - 1);
  return al.mode == AlibiMode::kCausal ? "alibi_mode=symmetric" : "alibi_mode=causal";
}

// The other direction (bidirectional <-> causal).
std::string DefaultVersusT5(const EncodingParams& p) {
  return p.t5().direction == T5Direction::kBidirectional ? "t5_direction=causal"
                                                         : "t5_direction=bidirectional";
}

// RoPE: xPos without its decay.
std::string DefaultVersusXpos(const EncodingParams&) {
  return "scheme=rope";
}

// RoPE: Llama 4 and SmolLM3 put a NoPE layer after every three RoPE layers.
std::string DefaultVersusNope(const EncodingParams&) {
  return "scheme=rope";
}

// The other layout: Qwen2-VL's chunks against Qwen3-VL's interleaving.
std::string DefaultVersusMrope(const EncodingParams& p) {
  return p.mrope().layout == MropeLayout::kChunked ? "mrope_layout=interleaved"
                                                   : "mrope_layout=chunked";
}

}  // namespace pe
