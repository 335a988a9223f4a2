#include "analysis/check_cases.h"

#include <array>
#include <cmath>

#include "encoding/encoding.h"

namespace pe {
namespace {

constexpr std::array<CheckCase, 6> kCases = {{
    {"deepseek-indexer-pairing", "DeepSeek-V3.2's indexer pairing",
     "DeepSeek-V3.2's lightning indexer rotates NeoX-style halves while its attention rotates "
     "interleaved pairs; a port that reused the attention's rotation for the indexer made this "
     "table (64 rotary dims, theta 10000).",
     "pairing"},
    {"gemma4-proportional", "Gemma 4: proportional vs partial RoPE",
     "Gemma 4's global layers use proportional RoPE: a quarter of the pairs turn, at "
     "theta^(-2i/d) over the whole head of 256. A port that took partial_rotary_factor as "
     "partial rotary ran the exponent over the 64 dims that turn.",
     "partial"},
    {"llama-gguf-pairing", "A Llama GGUF's interleaved pairs vs the HF checkpoint's halves",
     "llama.cpp permutes Q and K when it writes a GGUF so that its rotation pairs neighbours "
     "(2i, 2i + 1); the HF checkpoint pairs the halves (i, i + 64). This cos table of Llama 3.1 "
     "(theta 500000, llama3 scaling 8) pairs neighbours, used with the HF weights.",
     "pairing"},
    {"yarn-off", "YaRN silently off",
     "Qwen2.5 documents YaRN (factor 4, original 32768) for long contexts; older transformers "
     "read the config's \"type\": \"yarn\" and applied no scaling at all. This table has none.",
     "scaling"},
    {"deepseek-attention-factor", "DeepSeek's attention factor default",
     "DeepSeek-V3's YaRN sets mscale = mscale_all_dim = 1, so the cos/sin attention factor is "
     "mscale(40, 1) / mscale(40, 1) = 1; a port that used YaRN's default 0.1 ln(40) + 1 = 1.369 "
     "scaled every cos and sin by it.",
     "attention-factor"},
    {"float32-1e6", "float32 angles at position 1e6",
     "The angles p w computed in float32 at positions from 1000000: float32 holds p to 1/16 "
     "there, so the angle of a fast pair is off by up to 0.03 rad. Computing p w in float64 "
     "(or the angle modulo 2 pi) fixes it.",
     "float32"},
}};

EncodingParams Rope(int64_t d, int64_t rows, double theta, RopePairing pairing) {
  EncodingParams p;
  RopeParams r;
  r.theta = theta;
  r.pairing = pairing;
  p.scheme = r;
  p.d_model = d;
  p.max_len = rows;
  return p;
}

EncodingParams DeepseekYarn(int64_t rows) {
  // DeepSeek-V3's config.json: rope_theta 10000, qk_rope_head_dim 64, rope_scaling {type yarn,
  // factor 40, original_max_position_embeddings 4096, beta_fast 32, beta_slow 1, mscale 1,
  // mscale_all_dim 1}; its rotation pairs neighbours.
  EncodingParams p = Rope(64, rows, 10000, RopePairing::kInterleaved);
  RopeParams& r = p.rope();
  r.scaling = RopeScaling::kYarn;
  r.factor = 40;
  r.original_max_len = 4096;
  r.beta_fast = 32;
  r.beta_slow = 1;
  r.mscale = 1;
  r.mscale_all_dim = 1;
  return p;
}

EncodingParams Llama31(int64_t rows, RopePairing pairing) {
  // Llama 3.1's config.json: rope_theta 500000, head_dim 128, rope_scaling {rope_type llama3,
  // factor 8, low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings 8192}.
  EncodingParams p = Rope(128, rows, 500000, pairing);
  RopeParams& r = p.rope();
  r.scaling = RopeScaling::kLlama3;
  r.factor = 8;
  r.low_freq_factor = 1;
  r.high_freq_factor = 4;
  r.original_max_len = 8192;
  return p;
}

Result<Matrix> Exact(const EncodingParams& p, const MemoryCap& cap) {
  Result<EncodingPtr> e = MakeEncoding(p, cap);
  if (!e.ok()) return e.error();
  return ComputeTable(*e.value(), cap);
}

// RoPE's cos table with the angles in float32, as HF's `RotaryEmbedding.forward` computes them
// (modeling_llama.py: inv_freq = 1 / base^(arange(0, d, 2).float() / d) in float32, then
// freqs = inv_freq @ position_ids.float(), cos(emb) in float32), halves paired.
Matrix Float32Cos(int64_t d, int64_t rows, int64_t first, double theta) {
  Matrix m;
  m.rows = rows;
  m.cols = d;
  m.data.assign(static_cast<size_t>(rows * d), 0.0f);
  std::vector<float> inv(static_cast<size_t>(d / 2));
  for (int64_t i = 0; i < d / 2; ++i) {
    const auto exponent = static_cast<float>(2 * i) / static_cast<float>(d);
    inv[static_cast<size_t>(i)] = 1.0f / std::pow(static_cast<float>(theta), exponent);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const auto p = static_cast<float>(first + r);
    float* row = m.row(r);
    for (int64_t j = 0; j < d; ++j) {
      const float angle = p * inv[static_cast<size_t>(j % (d / 2))];
      row[j] = static_cast<float>(std::cos(static_cast<double>(angle)));
    }
  }
  return m;
}

}  // namespace

std::span<const CheckCase> CheckCases() {
  return kCases;
}

const CheckCase* FindCheckCase(std::string_view name) {
  for (const CheckCase& c : kCases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::vector<std::string> WholeIntentKeys() {
  return {"scheme",
          "offset",
          "variant",
          "order",
          "base",
          "min_timescale",
          "output_scale",
          "rope_theta",
          "rope_pairing",
          "rope_scaling",
          "scaling_factor",
          "original_max_len",
          "beta_fast",
          "beta_slow",
          "attention_factor",
          "low_freq_factor",
          "high_freq_factor",
          "rotary_fraction",
          "rope_proportion",
          "mscale",
          "mscale_all_dim",
          "yarn_truncate"};
}

CheckConstraints WholeIntent(const EncodingParams& intent, int bits) {
  CheckConstraints c;
  c.fixed = intent;
  c.keys = WholeIntentKeys();
  c.intent = true;
  c.bits = bits;
  return c;
}

Result<CheckCaseTable> MakeCheckCase(std::string_view name, const MemoryCap& cap) {
  if (FindCheckCase(name) == nullptr) {
    std::string names;
    for (const CheckCase& c : kCases) names += (names.empty() ? "" : ", ") + std::string(c.name);
    return InvalidArgument("--case: \"" + std::string(name) + "\" is not a teaching case (" +
                           names + ")");
  }
  CheckCaseTable out;
  EncodingParams bug;
  if (name == "deepseek-indexer-pairing") {
    out.intent = Rope(64, 512, 10000, RopePairing::kHalf);
    bug = Rope(64, 512, 10000, RopePairing::kInterleaved);
  } else if (name == "gemma4-proportional") {
    // Gemma 4's global layers: head_dim 512 in the 31B; 256 here, rope_theta 1e6, proportional
    // with partial_rotary_factor 0.25.
    out.intent = Rope(256, 512, 1e6, RopePairing::kHalf);
    out.intent.rope().proportion = 0.25;
    bug = out.intent;
    // theta^(-2i/d_rot) over the d_rot = d / 4 dims that turn: theta^4 over the whole head.
    bug.rope().theta = 1e24;
  } else if (name == "llama-gguf-pairing") {
    out.intent = Llama31(1024, RopePairing::kHalf);
    bug = Llama31(1024, RopePairing::kInterleaved);
  } else if (name == "yarn-off") {
    // Qwen2.5-7B-Instruct: rope_theta 1e6, head_dim 128, rope_scaling {type yarn, factor 4,
    // original_max_position_embeddings 32768} as its model card documents.
    out.intent = Rope(128, 1024, 1e6, RopePairing::kHalf);
    out.intent.rope().scaling = RopeScaling::kYarn;
    out.intent.rope().factor = 4;
    out.intent.rope().original_max_len = 32768;
    bug = Rope(128, 1024, 1e6, RopePairing::kHalf);
  } else if (name == "deepseek-attention-factor") {
    out.intent = DeepseekYarn(1024);
    // HF's _compute_yarn_parameters: attention_factor = get_mscale(40, 1) / get_mscale(40, 1).
    out.intent.rope().attention_factor = 1.0;
    bug = out.intent;
    bug.rope().attention_factor.reset();
    bug.rope().mscale = 0;
    bug.rope().mscale_all_dim = 0;
  } else {  // float32-1e6
    out.intent = Rope(128, 64, 10000, RopePairing::kHalf);
    out.intent.offset = 1000000;
    out.table = Float32Cos(128, 64, 1000000, 10000);
    return out;
  }
  Result<Matrix> t = Exact(bug, cap);
  if (!t.ok()) return t.error();
  out.table = std::move(t).value();
  return out;
}

}  // namespace pe
