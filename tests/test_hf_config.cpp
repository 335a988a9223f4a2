// The config.json reader and the catalogue: each built-in config gives the schedule its published
// config.json describes (values from the config and from HF transformers' config classes and
// modeling files), v4 and v5 spellings of one model agree, one RoPE layer's table equals a numpy
// port of HF's llama3 scaling, and bad input is refused with the key and the value.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "arch/catalogue.h"
#include "arch/hf_config.h"
#include "encoding/encoding.h"
#include "encoding/rope.h"
#include "model/model_schedule.h"

namespace pe {
namespace {

ModelSchedule Catalogue(const char* name) {
  Result<ModelSchedule> r = CatalogueModel(name);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.message());
  return r.ok() ? r.value() : ModelSchedule{};
}

std::string ConfigOf(const char* name) {
  for (const CatalogueEntry& e : ModelCatalogue()) {
    if (e.name == name) return std::string(e.config);
  }
  ADD_FAILURE() << "no catalogue entry " << name;
  return {};
}

Result<ModelSchedule> Read(const std::string& json) {
  return ReadHfConfig(json, "test", "t");
}

std::string Refusal(const std::string& json) {
  Result<ModelSchedule> r = Read(json);
  EXPECT_FALSE(r.ok()) << json;
  return r.ok() ? std::string() : r.message();
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The shape, the layers and the window of two schedules, not their notes or format.
void ExpectSameSchedule(const ModelSchedule& a, const ModelSchedule& b) {
  EXPECT_EQ(a.shape, b.shape);
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) EXPECT_EQ(a.layers[i], b.layers[i]) << "layer " << i;
}

// Gemma 2's attn_logit_softcapping changes the scores: named as not modelled, never dropped.
TEST(HfConfig, Gemma2NamesItsSoftCapAsNotModelled) {
  const ModelSchedule s = Catalogue("gemma-2-9b");
  bool named = false;
  for (const std::string& u : s.unsupported) {
    named = named || u.find("attn_logit_softcapping 50") != std::string::npos;
  }
  EXPECT_TRUE(named);
  for (const std::string& k : s.unknown_keys) EXPECT_EQ(k.find("softcapping"), std::string::npos);
}

// A head that cannot be paired is named as the head dim, not as a rotary share nobody gave.
TEST(HfConfig, AnOddHeadDimIsNamedAsSuch) {
  Result<ModelSchedule> r = ReadHfConfig(
      R"({"model_type": "llama", "hidden_size": 4095, "num_attention_heads": 35,
          "num_hidden_layers": 2, "rope_theta": 10000, "max_position_embeddings": 128})",
      "odd", "test");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("even head dim >= 2, got 117"), std::string::npos) << r.message();
  EXPECT_EQ(r.message().find("partial_rotary_factor"), std::string::npos) << r.message();
}

TEST(HfConfig, Gpt2IsALearnedTableOnEveryLayer) {
  const ModelSchedule s = Catalogue("gpt2");
  EXPECT_EQ(s.model_type, "gpt2");
  EXPECT_EQ(s.shape.layers, 12);
  EXPECT_EQ(s.shape.heads, 12);
  EXPECT_EQ(s.shape.hidden, 768);
  EXPECT_EQ(s.shape.head_dim, 64);
  EXPECT_EQ(s.shape.context, 1024);
  EXPECT_EQ(s.shape.vocab, 50257);
  ASSERT_EQ(s.layers.size(), 12u);
  for (const LayerPosition& l : s.layers) {
    EXPECT_EQ(l.pe.kind(), Scheme::kLearned);
    EXPECT_EQ(l.pe.d_model, 768);  // the hidden size: the table is added at the input
    EXPECT_EQ(l.pe.max_len, 1024);
    EXPECT_EQ(l.window.kind, AttentionWindowKind::kCausal);
  }
  EXPECT_TRUE(s.unknown_keys.empty());
}

TEST(HfConfig, T5BaseHasBucketsInEncoderAndDecoder) {
  const ModelSchedule s = Catalogue("t5-base");
  ASSERT_EQ(s.shape.layers, 24);    // 12 encoder + 12 decoder (num_decoder_layers = num_layers)
  EXPECT_EQ(s.shape.head_dim, 64);  // d_kv
  EXPECT_EQ(s.shape.heads, 12);
  for (size_t i = 0; i < 24; ++i) {
    const LayerPosition& l = s.layers[i];
    ASSERT_EQ(l.pe.kind(), Scheme::kT5);
    EXPECT_EQ(l.pe.t5().heads, 12);
    EXPECT_EQ(l.pe.t5().buckets, 32);
    EXPECT_EQ(l.pe.t5().max_distance, 128);
    EXPECT_EQ(l.pe.d_model, 64);
    EXPECT_EQ(l.softmax_scale, 1.0);  // T5 does not divide by sqrt(d_kv)
    if (i < 12) {
      EXPECT_EQ(l.pe.t5().direction, T5Direction::kBidirectional);
      EXPECT_EQ(l.window.kind, AttentionWindowKind::kFull);
    } else {
      EXPECT_EQ(l.pe.t5().direction, T5Direction::kCausal);
      EXPECT_EQ(l.window.kind, AttentionWindowKind::kCausal);
    }
  }
}

TEST(HfConfig, Llama31IsLlama3ScaledRopeOnEveryLayer) {
  const ModelSchedule s = Catalogue("llama-3.1-8b");
  EXPECT_EQ(s.format, "config.json (v4)");
  EXPECT_EQ(s.shape.layers, 32);
  EXPECT_EQ(s.shape.heads, 32);
  EXPECT_EQ(s.shape.kv_heads, 8);
  EXPECT_EQ(s.shape.head_dim, 128);
  EXPECT_EQ(s.shape.context, 131072);
  EXPECT_EQ(s.shape.original_context, 8192);
  for (const LayerPosition& l : s.layers) {
    ASSERT_EQ(l.pe.kind(), Scheme::kRope);
    const RopeParams& r = l.pe.rope();
    EXPECT_EQ(r.theta, 500000);
    EXPECT_EQ(r.scaling, RopeScaling::kLlama3);
    EXPECT_EQ(r.factor, 8);
    EXPECT_EQ(r.low_freq_factor, 1);
    EXPECT_EQ(r.high_freq_factor, 4);
    EXPECT_EQ(r.original_max_len, 8192);
    EXPECT_EQ(r.pairing, RopePairing::kHalf);
    EXPECT_EQ(r.rotary_fraction, 1.0);
    EXPECT_EQ(l.pe.d_model, 128);
    EXPECT_EQ(l.pe.max_len, 131072);
    EXPECT_EQ(l.window.kind, AttentionWindowKind::kCausal);
    EXPECT_EQ(l.temperature.kind, TemperatureKind::kNone);
  }
}

TEST(HfConfig, Gemma3HasFiveLocalLayersToOneGlobal) {
  const ModelSchedule s = Catalogue("gemma-3-4b");
  EXPECT_EQ(s.model_type, "gemma3");
  ASSERT_EQ(s.shape.layers, 34);
  // Gemma3TextConfig's defaults, which the published text_config leaves out.
  EXPECT_EQ(s.shape.heads, 8);
  EXPECT_EQ(s.shape.kv_heads, 4);
  EXPECT_EQ(s.shape.head_dim, 256);
  EXPECT_EQ(s.shape.hidden, 2560);
  EXPECT_EQ(s.shape.context, 131072);
  for (size_t i = 0; i < 34; ++i) {
    const LayerPosition& l = s.layers[i];
    ASSERT_EQ(l.pe.kind(), Scheme::kRope);
    EXPECT_EQ(l.pe.d_model, 256);
    EXPECT_EQ(l.softmax_scale, 0.0625);    // query_pre_attn_scalar 256
    const bool global = (i + 1) % 6 == 0;  // layers 5, 11, 17, 23, 29
    if (global) {
      EXPECT_EQ(l.type, "full_attention");
      EXPECT_EQ(l.pe.rope().theta, 1e6);
      EXPECT_EQ(l.pe.rope().scaling, RopeScaling::kLinear);
      EXPECT_EQ(l.pe.rope().factor, 8);
      EXPECT_EQ(l.window.kind, AttentionWindowKind::kCausal);
    } else {
      EXPECT_EQ(l.type, "sliding_attention");
      EXPECT_EQ(l.pe.rope().theta, 1e4);
      EXPECT_EQ(l.pe.rope().scaling, RopeScaling::kNone);
      EXPECT_EQ(l.window, (AttentionWindow{AttentionWindowKind::kSliding, 1024}));
    }
  }
}

TEST(HfConfig, Llama4ScoutSkipsRopeOnEveryFourthLayer) {
  const ModelSchedule s = Catalogue("llama-4-scout");
  ASSERT_EQ(s.shape.layers, 48);
  EXPECT_EQ(s.shape.heads, 40);
  EXPECT_EQ(s.shape.head_dim, 128);
  EXPECT_EQ(s.shape.context, 10485760);
  for (size_t i = 0; i < 48; ++i) {
    const LayerPosition& l = s.layers[i];
    if ((i + 1) % 4 == 0) {
      ASSERT_EQ(l.pe.kind(), Scheme::kNope) << i;
      EXPECT_EQ(l.window.kind, AttentionWindowKind::kCausal);
      EXPECT_EQ(l.temperature.kind, TemperatureKind::kLlama4);
      EXPECT_EQ(l.temperature.scale, 0.1);
      EXPECT_EQ(l.temperature.floor, 8192);
    } else {
      ASSERT_EQ(l.pe.kind(), Scheme::kRope) << i;
      const RopeParams& r = l.pe.rope();
      EXPECT_EQ(r.theta, 500000);
      EXPECT_EQ(r.scaling, RopeScaling::kLlama3);
      EXPECT_EQ(r.factor, 16);
      EXPECT_EQ(r.low_freq_factor, 1);
      EXPECT_EQ(r.high_freq_factor, 1);
      EXPECT_EQ(r.pairing, RopePairing::kInterleaved);
      EXPECT_EQ(l.window, (AttentionWindow{AttentionWindowKind::kChunked, 8192}));
      EXPECT_EQ(l.temperature.kind, TemperatureKind::kNone);
    }
  }
  EXPECT_EQ(FirstPositionalLayer(s), 0);
}

TEST(HfConfig, Qwen2VlIsChunkedMrope) {
  const ModelSchedule s = Catalogue("qwen2-vl-7b");
  ASSERT_EQ(s.shape.layers, 28);
  EXPECT_EQ(s.shape.head_dim, 128);  // 3584 / 28
  EXPECT_EQ(s.shape.context, 32768);
  for (const LayerPosition& l : s.layers) {
    ASSERT_EQ(l.pe.kind(), Scheme::kMrope);
    EXPECT_EQ(l.pe.mrope().theta, 1e6);
    EXPECT_EQ(l.pe.mrope().section, (std::array<int64_t, 3>{16, 24, 24}));
    EXPECT_EQ(l.pe.mrope().layout, MropeLayout::kChunked);
    EXPECT_EQ(l.window.kind, AttentionWindowKind::kCausal);  // use_sliding_window false
  }
}

TEST(HfConfig, EveryCatalogueEntryReadsAndBuildsEveryLayer) {
  ASSERT_GE(ModelCatalogue().size(), 6u);
  for (const CatalogueEntry& e : ModelCatalogue()) {
    EXPECT_FALSE(e.title.empty()) << e.name;
    EXPECT_EQ(e.source.substr(0, 8), "https://") << e.name;
    Result<ModelSchedule> r = CatalogueModel(e.name);
    ASSERT_TRUE(r.ok()) << e.name << ": " << r.message();
    EXPECT_EQ(r.value().source, e.source);
    for (const LayerPosition& l : r.value().layers) {
      EncodingParams p = l.pe;
      p.max_len = 64;  // the shape's own checks, on a small table
      EXPECT_TRUE(ValidateEncodingParams(p).ok()) << e.name;
    }
  }
}

TEST(HfConfig, AnUnknownModelNameSuggestsTheClosest) {
  Result<ModelSchedule> r = CatalogueModel("llama-3.1-8");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.message(), "'llama-3.1-8'")) << r.message();
  EXPECT_TRUE(Has(r.message(), "did you mean llama-3.1-8b")) << r.message();
  EXPECT_TRUE(Has(r.message(), "--list-models")) << r.message();
  // A family typed without its punctuation names the entries it begins.
  const Result<ModelSchedule> family = CatalogueModel("llama4");
  ASSERT_FALSE(family.ok());
  EXPECT_TRUE(Has(family.message(), "did you mean llama-4-scout?")) << family.message();
  const Result<ModelSchedule> phi = CatalogueModel("Phi3");
  ASSERT_FALSE(phi.ok());
  EXPECT_TRUE(Has(phi.message(), "did you mean phi-3-mini-128k or phi-3.5-mini?")) << phi.message();
}

// v4 (rope_theta + rope_scaling) and v5 (rope_parameters, flat or per layer type).
TEST(HfConfig, V4AndV5FormsGiveTheSameSchedule) {
  const ModelSchedule llama = Catalogue("llama-3.1-8b");
  const std::string v5 = R"({"model_type": "llama", "hidden_size": 4096,
      "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
      "max_position_embeddings": 131072, "vocab_size": 128256,
      "rope_parameters": {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
        "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192}})";
  Result<ModelSchedule> r = Read(v5);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().format, "config.json (v5)");
  ExpectSameSchedule(llama, r.value());

  const ModelSchedule gemma = Catalogue("gemma-3-4b");
  std::string types;
  for (int i = 0; i < 34; ++i) {
    types +=
        std::string(i ? ", " : "") + ((i + 1) % 6 ? "\"sliding_attention\"" : "\"full_attention\"");
  }
  const std::string gemma_v5 = R"({"model_type": "gemma3", "text_config": {
      "model_type": "gemma3_text", "hidden_size": 2560, "num_hidden_layers": 34,
      "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
      "max_position_embeddings": 131072, "sliding_window": 1024,
      "query_pre_attn_scalar": 256, "layer_types": [)" +
                               types + R"(],
      "rope_parameters": {
        "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}}})";
  r = Read(gemma_v5);
  ASSERT_TRUE(r.ok()) << r.message();
  ExpectSameSchedule(gemma, r.value());

  const ModelSchedule qwen = Catalogue("qwen2-vl-7b");
  const std::string qwen_v5 = R"({"model_type": "qwen2_vl", "hidden_size": 3584,
      "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
      "max_position_embeddings": 32768, "vocab_size": 152064,
      "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0,
        "mrope_section": [16, 24, 24]}})";
  r = Read(qwen_v5);
  ASSERT_TRUE(r.ok()) << r.message();
  ExpectSameSchedule(qwen, r.value());
}

// One RoPE layer of Llama 3.1 8B against a numpy port of HF transformers modeling_rope_utils.py
// _compute_llama3_parameters (theta 5e5, dim 128, factor 8, low 1, high 4, original 8192), float64:
//   inv = 1 / 5e5^(arange(0, 128, 2) / 128); wavelen = 2 pi / inv
//   inv_l = where(wavelen > 8192, inv / 8, inv)
//   smooth = (8192 / wavelen - 1) / (4 - 1); smoothed = (1 - smooth) inv_l / 8 + smooth inv_l
//   inv_l = where(2048 <= wavelen <= 8192, smoothed, inv_l)
// Pair 31 sits in the blend band (pairs 29-34), pair 45 is divided by 8, pairs 0 and 20 kept.
TEST(HfConfig, Llama31RopeTableMatchesHfLlama3Scaling) {
  const ModelSchedule s = Catalogue("llama-3.1-8b");
  ModelParams m;
  m.pe.max_len = 100001;
  ASSERT_TRUE(ApplyLayer(s, 0, m).ok());
  Result<EncodingPtr> e = MakeEncoding(m.pe, MemoryCap{});
  ASSERT_TRUE(e.ok()) << e.message();
  const RopeFrequencies* f = e.value()->frequencies();
  ASSERT_NE(f, nullptr);
  const int pairs[] = {0, 20, 31, 45, 63};
  const double freq[] = {1.0, 0.016560440080994446, 0.0008567514129196321, 1.2297638677963614e-05,
                         3.068925988914511e-07};
  for (int k = 0; k < 5; ++k) {
    EXPECT_NEAR(f->pairs[static_cast<size_t>(pairs[k])].scaled, freq[k], 1e-13 * freq[k]);
  }
  const int64_t positions[] = {1, 100, 8191, 100000};
  const double cosines[4][5] = {{0.5403023058681398, 0.9998628790459692, 0.9999996329885307,
                                 0.999999999924384, 0.9999999999999529},
                                {0.8623188722876839, -0.08514446729024397, 0.9963321294903412,
                                 0.99999924384051, 0.9999999995290847},
                                {-0.6463904697642574, -0.8482731089868859, 0.7421890654997584,
                                 0.9949310259536566, 0.9999968405138386},
                                {-0.9993608074382124, -0.911170770025769, -0.6583741629923636,
                                 0.33446026976185594, 0.999529121622777}};
  constexpr double kFloat32 = 2e-7;  // one rounding to float32 of a value in [-1, 1], and the angle
  for (int row = 0; row < 4; ++row) {
    for (int k = 0; k < 5; ++k) {
      // Half pairing: pair i is columns i and i + 64 of the cos table.
      float v[2];
      e.value()->FillBlock(positions[row], 1, pairs[k], 1, &v[0]);
      e.value()->FillBlock(positions[row], 1, pairs[k] + 64, 1, &v[1]);
      EXPECT_NEAR(v[0], cosines[row][k], kFloat32)
          << "p " << positions[row] << " pair " << pairs[k];
      EXPECT_NEAR(v[1], cosines[row][k], kFloat32);
    }
  }
}

// DeepSeek-V3's multi-head latent attention: RoPE on qk_rope_head_dim interleaved dims, YaRN with
// mscale / mscale_all_dim, softmax scale mscale^2 / sqrt(192) (HF DeepseekV3Attention):
// numpy (0.1 ln 40 + 1)^2 / sqrt(192) = 0.1352337788608801.
TEST(HfConfig, DeepSeekRopeDimsAndSoftmaxScale) {
  Result<ModelSchedule> r = Read(R"({"model_type": "deepseek_v3", "hidden_size": 7168,
      "num_attention_heads": 128, "num_hidden_layers": 2, "max_position_embeddings": 163840,
      "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "rope_theta": 10000,
      "rope_scaling": {"type": "yarn", "factor": 40, "beta_fast": 32, "beta_slow": 1,
        "mscale": 1.0, "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096}})");
  ASSERT_TRUE(r.ok()) << r.message();
  const LayerPosition& l = r.value().layers[0];
  ASSERT_EQ(l.pe.kind(), Scheme::kRope);
  EXPECT_EQ(l.pe.d_model, 64);
  EXPECT_EQ(l.pe.rope().pairing, RopePairing::kInterleaved);
  EXPECT_EQ(l.pe.rope().scaling, RopeScaling::kYarn);
  EXPECT_EQ(l.pe.rope().factor, 40);  // 163840 / 4096
  EXPECT_EQ(l.pe.rope().mscale, 1);
  EXPECT_EQ(l.pe.rope().mscale_all_dim, 1);
  EXPECT_NEAR(l.softmax_scale, 0.1352337788608801, 1e-15);
}

TEST(HfConfig, PartialRotaryKeys) {
  Result<ModelSchedule> r = Read(R"({"model_type": "gpt_neox", "hidden_size": 512,
      "num_attention_heads": 8, "num_hidden_layers": 1, "max_position_embeddings": 2048,
      "rotary_pct": 0.25, "rotary_emb_base": 10000})");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().layers[0].pe.rope().rotary_fraction, 0.25);
  r = Read(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_layer": 1,
      "n_positions": 2048, "rotary_dim": 64})");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().layers[0].pe.rope().rotary_fraction, 0.25);  // 64 of 256
  EXPECT_EQ(r.value().layers[0].pe.rope().pairing, RopePairing::kInterleaved);
}

TEST(HfConfig, UnknownKeysAreListedAndIrrelevantOnesAreNot) {
  std::string json = ConfigOf("llama-3.1-8b");
  json.insert(json.find('{') + 1, R"("rope_wiggle": 3, "hidden_act": "silu",)");
  json.replace(json.find("\"rope_type\""), 0, R"("rope_extra": 1, )");
  Result<ModelSchedule> r = Read(json);
  ASSERT_TRUE(r.ok()) << r.message();
  const auto& u = r.value().unknown_keys;
  EXPECT_NE(std::find(u.begin(), u.end(), "rope_wiggle"), u.end());
  EXPECT_NE(std::find(u.begin(), u.end(), "rope_scaling.rope_extra"), u.end());
  EXPECT_EQ(std::find(u.begin(), u.end(), "hidden_act"), u.end());
}

TEST(HfConfig, UnsupportedAsksAreNamed) {
  Result<ModelSchedule> r = Read(R"({"model_type": "bert", "hidden_size": 768,
      "num_attention_heads": 12, "num_hidden_layers": 2, "max_position_embeddings": 512,
      "position_embedding_type": "relative_key"})");
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r.value().unsupported.size(), 1u);
  EXPECT_TRUE(Has(r.value().unsupported[0], "relative_key")) << r.value().unsupported[0];
  EXPECT_TRUE(Has(r.value().unsupported[0], "PE Explorer does not model"));
}

TEST(HfConfig, BadInputIsRefusedNamingTheKeyAndValue) {
  const std::string base = R"("model_type": "llama", "hidden_size": 256,
      "num_attention_heads": 4, "num_hidden_layers": 2, "max_position_embeddings": 1024)";
  std::string m = Refusal("{\n  \"a\": 1,\n  \"b\": }");
  EXPECT_TRUE(Has(m, "not valid JSON")) << m;
  EXPECT_TRUE(Has(m, "line 3, column 8")) << m;
  m = Refusal("[1, 2]");
  EXPECT_TRUE(Has(m, "JSON object")) << m;
  m = Refusal("{" + base + R"(, "rope_theta": "big"})");
  EXPECT_TRUE(Has(m, "rope_theta must be a number, got \"big\"")) << m;
  m = Refusal("{" + base + R"(, "rope_scaling": {"rope_type": "linear", "factor": 0.5}})");
  EXPECT_TRUE(Has(m, "rope_scaling.factor must be a number >= 1, got 0.5")) << m;
  m = Refusal("{" + base + R"(, "rope_scaling": {"rope_type": "linear"}})");
  EXPECT_TRUE(Has(m, "rope_scaling.factor is required for rope type linear")) << m;
  m = Refusal("{" + base + R"(, "rope_scaling": {"rope_type": "wavy"}})");
  EXPECT_TRUE(Has(m, "rope_scaling.rope_type \"wavy\" is not a rope type")) << m;
  m = Refusal("{" + base +
              R"(, "rope_scaling": {"rope_type": "linear", "type": "yarn", "factor": 2}})");
  EXPECT_TRUE(Has(m, "contradicts")) << m;
  m = Refusal("{" + base + R"(, "rope_scaling": {"type": "mrope", "mrope_section": [16, 8, 4]}})");
  EXPECT_TRUE(Has(m, "mrope_section [16, 8, 4] sums to 28, not head_dim / 2 = 32")) << m;
  m = Refusal(R"({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4,
      "num_hidden_layers": 2.5})");
  EXPECT_TRUE(Has(m, "num_hidden_layers must be an integer in [1, 1024], got 2.5")) << m;
  m = Refusal(R"({"model_type": "gpt_neox", "hidden_size": 256, "num_attention_heads": 4,
      "num_hidden_layers": 2, "head_dim": 32})");
  EXPECT_TRUE(Has(m, "head_dim 32 contradicts hidden_size 256 / num_attention_heads 4 = 64")) << m;
  m = Refusal("{" + base + R"(, "layer_types": ["full_attention"]})");
  EXPECT_TRUE(Has(m, "layer_types has 1 entries, but the model has 2 layers")) << m;
  m = Refusal("{" + base + R"(, "rope_scaling": {"type": "longrope", "short_factor": [1, 1],
      "long_factor": [2, 2]}})");
  EXPECT_TRUE(
      Has(m, "short_factor has 2 numbers; LongRoPE needs one per rotated pair, d_rot / 2 = 32"))
      << m;
  m = Refusal("{" + base + R"(, "rope_parameters": {"full_attention": {"rope_theta": 1e6}}})");
  EXPECT_TRUE(Has(m, "does not say which type layer 0 is (no layer_types)")) << m;
  m = Refusal("{" + base + R"(, "layer_types": ["full_attention", "sliding_attention"],
      "rope_parameters": {"full_attention": {"rope_theta": 1e6}}})");
  EXPECT_TRUE(Has(m, "rope_parameters has no entry for layer type \"sliding_attention\" (layer 1)"))
      << m;
  // A learned table is as wide as the model: a head dim alone (d_kv) does not give its width
  // (a fuzzed GPT-2 config with no n_embd once read as a table 0 dims wide).
  m = Refusal(R"({"model_type": "gpt2", "n_head": 4, "n_layer": 2, "d_kv": 16,
      "n_positions": 128})");
  EXPECT_TRUE(Has(m, "no hidden_size (n_embd, d_model): gpt2's position table is added")) << m;
  m = Refusal(R"({"model_type": "whisper", "encoder_attention_heads": 4, "num_hidden_layers": 2,
      "head_dim": 16})");
  EXPECT_TRUE(Has(m, "no hidden_size (n_embd, d_model): whisper's position table")) << m;
  m = Refusal(std::string(100, '[') + std::string(100, ']'));
  EXPECT_TRUE(Has(m, "nested more than")) << m;
  m = Refusal(R"({"model_type": "mystery", "hidden_size": 8, "num_attention_heads": 2,
      "num_hidden_layers": 1})");
  EXPECT_TRUE(Has(m, "cannot tell the positional scheme of model_type \"mystery\"")) << m;
}

// Gemma's head_dim differs from hidden_size / heads on purpose: read, not refused.
TEST(HfConfig, GemmaHeadDimNeedNotBeHiddenOverHeads) {
  Result<ModelSchedule> r = Read(R"({"model_type": "gemma3_text", "hidden_size": 5376,
      "num_attention_heads": 32, "num_hidden_layers": 6, "head_dim": 128,
      "query_pre_attn_scalar": 168, "sliding_window": 1024})");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().shape.head_dim, 128);
  EXPECT_DOUBLE_EQ(r.value().layers[0].softmax_scale, 1 / std::sqrt(168.0));
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

// Families beyond the six, in the smallest configs that show their rule.
TEST(HfConfigFamilies, WhisperModernBertAlibiSlidingLongropeProportional) {
  Result<ModelSchedule> r = Read(R"({"model_type": "whisper", "d_model": 384,
      "encoder_layers": 4, "decoder_layers": 4, "encoder_attention_heads": 6,
      "decoder_attention_heads": 6, "max_source_positions": 1500, "max_target_positions": 448,
      "is_encoder_decoder": true})");
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r.value().layers.size(), 8u);
  EXPECT_EQ(r.value().layers[0].pe.kind(), Scheme::kSinusoidal);
  EXPECT_EQ(r.value().layers[0].pe.sinusoidal().variant, PeVariant::kT2t);
  EXPECT_EQ(r.value().layers[0].pe.max_len, 1500);
  EXPECT_EQ(r.value().layers[0].window.kind, AttentionWindowKind::kFull);
  EXPECT_EQ(r.value().layers[4].pe.kind(), Scheme::kLearned);
  EXPECT_EQ(r.value().layers[4].pe.max_len, 448);
  EXPECT_EQ(r.value().layers[4].window.kind, AttentionWindowKind::kCausal);
  EXPECT_TRUE(r.value().unsupported.empty());

  // ModernBERT: global every 3rd layer from 0 (base 160000, full), local (base 1e4,
  // sliding-bidirectional 128).
  r = Read(R"({"model_type": "modernbert", "hidden_size": 768, "num_attention_heads": 12,
      "num_hidden_layers": 4, "max_position_embeddings": 8192, "global_rope_theta": 160000.0,
      "local_rope_theta": 10000.0, "global_attn_every_n_layers": 3, "local_attention": 128})");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().layers[0].pe.rope().theta, 160000);
  EXPECT_EQ(r.value().layers[0].window.kind, AttentionWindowKind::kFull);
  EXPECT_EQ(r.value().layers[1].pe.rope().theta, 10000);
  EXPECT_EQ(r.value().layers[1].window,
            (AttentionWindow{AttentionWindowKind::kSlidingBidirectional, 128}));
  EXPECT_EQ(r.value().layers[3].pe.rope().theta, 160000);

  r = Read(R"({"model_type": "mpt", "d_model": 4096, "n_heads": 32, "n_layers": 2,
      "max_seq_len": 2048, "attn_config": {"alibi": true, "alibi_bias_max": 8}})");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().layers[1].pe.kind(), Scheme::kAlibi);
  EXPECT_EQ(r.value().layers[1].pe.alibi().heads, 32);
  EXPECT_EQ(r.value().layers[1].pe.d_model, 128);

  r = Read(R"({"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32,
      "num_hidden_layers": 2, "max_position_embeddings": 32768, "rope_theta": 10000.0,
      "sliding_window": 4096})");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().layers[1].window, (AttentionWindow{AttentionWindowKind::kSliding, 4096}));

  // Phi-3: original_max_position_embeddings beside rope_scaling.
  std::string lists;
  for (int i = 0; i < 48; ++i) lists += std::string(i ? ", " : "") + "1.5";
  r = Read(R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32,
      "num_hidden_layers": 1, "max_position_embeddings": 131072,
      "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
      "rope_scaling": {"type": "longrope", "short_factor": [)" +
           lists + R"(], "long_factor": [)" + lists + R"(]}})");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().layers[0].pe.rope().scaling, RopeScaling::kLongrope);
  EXPECT_EQ(r.value().layers[0].pe.rope().original_max_len, 4096);
  EncodingParams p = r.value().layers[0].pe;
  p.max_len = 8;
  EXPECT_TRUE(ValidateEncodingParams(p).ok());

  // Gemma 4's proportional type: partial_rotary_factor is the proportion of turning pairs.
  r = Read(R"({"model_type": "gemma4_text", "hidden_size": 1024, "num_attention_heads": 4,
      "head_dim": 256, "num_hidden_layers": 1, "max_position_embeddings": 131072,
      "rope_parameters": {"rope_type": "proportional", "rope_theta": 1000000.0,
        "partial_rotary_factor": 0.25}})");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().layers[0].pe.rope().proportion, 0.25);
  EXPECT_EQ(r.value().layers[0].pe.rope().rotary_fraction, 1.0);
  EXPECT_EQ(r.value().layers[0].pe.rope().scaling, RopeScaling::kNone);

  // Qwen3-VL: the text model's interleaved M-RoPE.
  r = Read(R"({"model_type": "qwen3_vl", "text_config": {"model_type": "qwen3_vl_text",
      "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 2,
      "max_position_embeddings": 262144, "rope_theta": 5000000, "rope_scaling": {
        "mrope_interleaved": true, "mrope_section": [24, 20, 20], "rope_type": "default"}}})");
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r.value().layers[1].pe.kind(), Scheme::kMrope);
  EXPECT_EQ(r.value().layers[1].pe.mrope().layout, MropeLayout::kInterleaved);
  EXPECT_EQ(r.value().layers[1].pe.mrope().theta, 5e6);

  // GPT-OSS: sliding 128 on the layers layer_types names, YaRN with truncate false.
  r = Read(R"({"model_type": "gpt_oss", "head_dim": 64, "hidden_size": 2880,
      "num_attention_heads": 64, "num_hidden_layers": 2, "max_position_embeddings": 131072,
      "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 128,
      "rope_theta": 150000, "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0,
        "factor": 32.0, "original_max_position_embeddings": 4096, "rope_type": "yarn",
        "truncate": false}})");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().layers[0].window, (AttentionWindow{AttentionWindowKind::kSliding, 128}));
  EXPECT_EQ(r.value().layers[1].window.kind, AttentionWindowKind::kCausal);
  EXPECT_EQ(r.value().layers[1].pe.rope().scaling, RopeScaling::kYarn);
  EXPECT_EQ(r.value().layers[1].pe.rope().factor, 32);
  EXPECT_FALSE(r.value().layers[1].pe.rope().yarn_truncate);
  EXPECT_EQ(r.value().layers[1].pe.rope().original_max_len, 4096);

  // Per layer type: the proportion is the global layers' alone; the sliding layers turn whole.
  r = Read(R"({"model_type": "gemma4_text", "hidden_size": 1024, "num_attention_heads": 4,
      "head_dim": 256, "num_hidden_layers": 2, "max_position_embeddings": 131072,
      "sliding_window": 512, "layer_types": ["sliding_attention", "full_attention"],
      "rope_parameters": {
        "full_attention": {"rope_type": "proportional", "rope_theta": 1000000.0,
          "partial_rotary_factor": 0.25},
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}})");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().layers[0].pe.rope().proportion, 1.0);
  EXPECT_EQ(r.value().layers[0].pe.rope().rotary_fraction, 1.0);
  EXPECT_EQ(r.value().layers[0].pe.rope().theta, 10000);
  EXPECT_EQ(r.value().layers[0].window, (AttentionWindow{AttentionWindowKind::kSliding, 512}));
  EXPECT_EQ(r.value().layers[1].pe.rope().proportion, 0.25);
  EXPECT_EQ(r.value().layers[1].pe.rope().theta, 1e6);
}

}  // namespace
}  // namespace pe
