// The GGUF reader: files composed here byte by byte for five real models, each read into a
// schedule compared whole with one written by hand from the model's published config.json
// numbers; and the refusals (truncation at every byte, lying counts, strings past the end,
// version 1, unknown types, special files, the memory cap), none of which may crash.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <span>

#include "arch/catalogue.h"
#include "arch/gguf_reader.h"
#include "arch/open_model.h"
#include "encoding/rope.h"
#include "gguf_test_writer.h"
#include "io/gguf_file.h"
#include "test_support.h"

namespace pe {
namespace {

using testing_gguf::GgufBuilder;

class GgufReader : public testing::TempDirTest {
 protected:
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = Path(name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  Result<ModelSchedule> ReadBytes(const std::string& bytes, const MemoryCap& cap = {}) {
    SpanSource src(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())));
    return ReadGguf(src, "model.gguf", cap);
  }
};

bool Contains(const std::vector<std::string>& v, const std::string& text) {
  for (const std::string& s : v) {
    if (s.find(text) != std::string::npos) return true;
  }
  return false;
}

LayerPosition Rope(int64_t d, int64_t ctx, double theta, RopePairing pairing) {
  LayerPosition l;
  l.pe.d_model = d;
  l.pe.max_len = ctx;
  RopeParams r;
  r.theta = theta;
  r.pairing = pairing;
  r.max_position_embeddings = ctx;
  l.pe.scheme = r;
  return l;
}

// Llama 3.1 8B (meta-llama/Llama-3.1-8B config.json: 32 layers, hidden 4096, 32 heads, 8 kv
// heads, rope_theta 500000, max_position_embeddings 131072, rope_scaling llama3 factor 8,
// low 1, high 4, original 8192; vocab 128256), as llama.cpp's converter writes it.
std::string Llama31() {
  return GgufBuilder()
      .Str("general.architecture", "llama")
      .Str("general.name", "Meta Llama 3.1 8B Instruct")
      .U32("general.file_type", 15)
      .U32("llama.block_count", 32)
      .U32("llama.context_length", 131072)
      .U32("llama.embedding_length", 4096)
      .U32("llama.feed_forward_length", 14336)
      .U32("llama.attention.head_count", 32)
      .U32("llama.attention.head_count_kv", 8)
      .F32("llama.rope.freq_base", 500000.0f)
      .F32("llama.attention.layer_norm_rms_epsilon", 1e-5f)
      .U32("llama.rope.dimension_count", 128)
      .Str("tokenizer.ggml.model", "gpt2")
      .Tokens(128256)
      .F32Tensor("rope_freqs.weight", testing_gguf::Llama31RopeFreqs())
      .Tensor("token_embd.weight", {4096, 128256}, 12, "")
      .Build();
}

ModelSchedule Llama31Expected() {
  ModelSchedule s;
  s.name = "Meta Llama 3.1 8B Instruct";
  s.model_type = "llama";
  s.format = "GGUF v3";
  s.shape = {32, 32, 8, 128, 4096, 128256, 131072, 8192};
  LayerPosition l = Rope(128, 131072, 500000, RopePairing::kInterleaved);
  RopeParams& r = l.pe.rope();
  r.scaling = RopeScaling::kLlama3;
  r.factor = 8;
  r.low_freq_factor = 1;
  r.high_freq_factor = 4;
  r.original_max_len = 8192;
  s.layers.assign(32, l);
  return s;
}

// Compares everything but notes, unsupported and the source (checked on their own).
void ExpectSchedule(ModelSchedule got, const ModelSchedule& want) {
  got.notes.clear();
  got.unsupported.clear();
  got.unknown_keys.clear();
  got.source.clear();
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.model_type, want.model_type);
  EXPECT_EQ(got.format, want.format);
  EXPECT_EQ(got.shape, want.shape);
  ASSERT_EQ(got.layers.size(), want.layers.size());
  for (size_t i = 0; i < got.layers.size(); ++i) {
    EXPECT_EQ(got.layers[i], want.layers[i]) << "layer " << i;
    if (!(got.layers[i] == want.layers[i])) break;
  }
}

TEST_F(GgufReader, Llama31ReadsItsRopeFreqsAsLlama3Scaling) {
  const std::string path = Write("llama31.gguf", Llama31());
  auto s = ReadGgufFile(path);
  ASSERT_TRUE(s.ok()) << s.message();
  ExpectSchedule(s.value(), Llama31Expected());
  EXPECT_EQ(s.value().source, path);
  // The pairing note, and the divisors' reading.
  EXPECT_TRUE(Contains(s.value().notes, "rotates interleaved pairs"));
  EXPECT_TRUE(Contains(s.value().notes, "permuted the q and k weights"));
  EXPECT_TRUE(Contains(s.value().notes, "Llama 3 scaling (factor 8"));
  // Keys not used are listed; tokenizer.* and general.* are not.
  EXPECT_EQ(s.value().unknown_keys,
            (std::vector<std::string>{"llama.feed_forward_length",
                                      "llama.attention.layer_norm_rms_epsilon"}));
  // The frequencies the schedule gives are the divisors' to float32 rounding.
  const RopeFrequencies fr = ComputeRopeFrequencies(s.value().layers[0].pe);
  const std::vector<float> divisors = testing_gguf::Llama31RopeFreqs();
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_NEAR(fr.pairs[i].original / fr.pairs[i].scaled, divisors[i], 4e-7 * divisors[i]) << i;
  }
  // open_model tells a GGUF by its magic.
  auto opened = OpenModelConfig(path);
  ASSERT_TRUE(opened.ok()) << opened.message();
  EXPECT_EQ(opened.value(), s.value());
}

TEST_F(GgufReader, DivisorsOffLlama3sFormulaBecomeExactFactorLists) {
  std::vector<float> divisors = testing_gguf::Llama31RopeFreqs();
  divisors[31] = 2.5f;  // not on the blend line
  const std::string bytes = GgufBuilder()
                                .Str("general.architecture", "llama")
                                .U32("llama.block_count", 2)
                                .U32("llama.context_length", 131072)
                                .U32("llama.embedding_length", 4096)
                                .U32("llama.attention.head_count", 32)
                                .F32("llama.rope.freq_base", 500000.0f)
                                .F32Tensor("rope_freqs.weight", divisors)
                                .Build();
  auto s = ReadBytes(bytes);
  ASSERT_TRUE(s.ok()) << s.message();
  const RopeParams& r = s.value().layers[1].pe.rope();
  EXPECT_EQ(r.scaling, RopeScaling::kLongrope);
  ASSERT_EQ(r.short_factor.size(), 64u);
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(r.short_factor[i], static_cast<double>(divisors[i]));
  EXPECT_EQ(r.long_factor, r.short_factor);
  EXPECT_EQ(r.attention_factor, std::optional<double>(1.0));
  EXPECT_EQ(r.original_max_len, 131072);
  EXPECT_TRUE(Contains(s.value().notes, "do not follow Llama 3's formula"));
  // The frequencies are theta^(-2i/d) / divisor_i, exactly as ggml's freq_factors.
  const RopeFrequencies fr = ComputeRopeFrequencies(s.value().layers[1].pe);
  for (size_t i = 0; i < 64; ++i) {
    const double want = std::pow(500000.0, -2.0 * static_cast<double>(i) / 128.0) / divisors[i];
    EXPECT_NEAR(fr.pairs[i].scaled, want, 1e-15 * want + 1e-300) << i;
  }
}

// Qwen2.5-7B (Qwen/Qwen2.5-7B config.json: 28 layers, hidden 3584, 28 heads, 4 kv heads,
// rope_theta 1e6, max_position_embeddings 32768 -- the GGUF's context_length -- vocab 152064).
TEST_F(GgufReader, Qwen25RotatesHalves) {
  const std::string bytes = GgufBuilder()
                                .Str("general.architecture", "qwen2")
                                .Str("general.name", "Qwen2.5 7B Instruct")
                                .U32("qwen2.block_count", 28)
                                .U32("qwen2.context_length", 32768)
                                .U32("qwen2.embedding_length", 3584)
                                .U32("qwen2.attention.head_count", 28)
                                .U32("qwen2.attention.head_count_kv", 4)
                                .F32("qwen2.rope.freq_base", 1000000.0f)
                                .Tokens(152064)
                                .Build();
  auto s = ReadBytes(bytes);
  ASSERT_TRUE(s.ok()) << s.message();
  ModelSchedule want;
  want.name = "Qwen2.5 7B Instruct";
  want.model_type = "qwen2";
  want.format = "GGUF v3";
  want.shape = {28, 28, 4, 128, 3584, 152064, 32768, 0};
  want.layers.assign(28, Rope(128, 32768, 1e6, RopePairing::kHalf));
  ExpectSchedule(s.value(), want);
  EXPECT_TRUE(Contains(s.value().notes, "rotates halves"));
}

// Gemma 3 4B (google/gemma-3-4b-pt config.json: 34 layers, hidden 2560, 8 heads, 4 kv heads,
// head_dim 256, sliding_window 1024, sliding_window_pattern 6, rope_theta 1e6 with linear
// scaling 8 on the global layers, rope_local_base_freq 10000, max_position_embeddings 131072,
// query_pre_attn_scalar 256 = head_dim).
std::string Gemma3(int layers, int hidden, int heads, int key_length, bool base_swa) {
  GgufBuilder b;
  b.Str("general.architecture", "gemma3")
      .U32("gemma3.block_count", static_cast<uint32_t>(layers))
      .U32("gemma3.context_length", 131072)
      .U32("gemma3.embedding_length", static_cast<uint32_t>(hidden))
      .U32("gemma3.attention.head_count", static_cast<uint32_t>(heads))
      .U32("gemma3.attention.head_count_kv", static_cast<uint32_t>(heads / 2))
      .U32("gemma3.attention.key_length", static_cast<uint32_t>(key_length))
      .U32("gemma3.attention.value_length", static_cast<uint32_t>(key_length))
      .F32("gemma3.rope.freq_base", 1000000.0f)
      .Str("gemma3.rope.scaling.type", "linear")
      .F32("gemma3.rope.scaling.factor", 8.0f)
      .U32("gemma3.attention.sliding_window", 1024);
  if (base_swa) b.F32("gemma3.rope.freq_base_swa", 10000.0f);
  return b.Build();
}

ModelSchedule Gemma3Expected(int64_t layers, int64_t hidden, int64_t heads, int64_t hd) {
  ModelSchedule want;
  want.name = "model.gguf";
  want.model_type = "gemma3";
  want.format = "GGUF v3";
  want.shape = {layers, heads, heads / 2, hd, hidden, 0, 131072, 0};
  LayerPosition local = Rope(hd, 131072, 10000, RopePairing::kHalf);
  local.window = {AttentionWindowKind::kSliding, 1024};
  local.type = "sliding_attention";
  LayerPosition global = Rope(hd, 131072, 1e6, RopePairing::kHalf);
  global.pe.rope().scaling = RopeScaling::kLinear;
  global.pe.rope().factor = 8;
  global.type = "full_attention";
  for (int64_t il = 0; il < layers; ++il) want.layers.push_back(il % 6 == 5 ? global : local);
  // query_pre_attn_scalar^-0.5 = head_dim^-0.5 (llama.cpp sets it for every Gemma)
  for (LayerPosition& l : want.layers) l.softmax_scale = 1.0 / std::sqrt(static_cast<double>(hd));
  // llama.cpp's gemma3 graph: inpL = ggml_scale(inpL, sqrtf(n_embd)), as HF's GemmaModel
  // multiplies by normalizer = hidden_size**0.5.
  want.embedding_scale = std::sqrt(static_cast<double>(hidden));
  return want;
}

TEST_F(GgufReader, Gemma3SlidesFiveLayersInSixWithTheLocalBase) {
  for (const bool base_swa : {false, true}) {
    auto s = ReadBytes(Gemma3(34, 2560, 8, 256, base_swa));
    ASSERT_TRUE(s.ok()) << s.message();
    ExpectSchedule(s.value(), Gemma3Expected(34, 2560, 8, 256));
    EXPECT_EQ(s.value().unknown_keys, std::vector<std::string>{"gemma3.attention.value_length"});
  }
}

// Gemma 3 27B: query_pre_attn_scalar 168 = hidden 5376 / 32 heads, not head_dim 128; llama.cpp
// knows it by the 62 layers.
TEST_F(GgufReader, Gemma3TwentySevenBScalesBy168) {
  auto s = ReadBytes(Gemma3(62, 5376, 32, 128, true));
  ASSERT_TRUE(s.ok()) << s.message();
  ModelSchedule want = Gemma3Expected(62, 5376, 32, 128);
  for (LayerPosition& l : want.layers) l.softmax_scale = 0.07715167498104596;  // 168^-0.5
  ExpectSchedule(s.value(), want);
}

// Llama 4 Scout (meta-llama/Llama-4-Scout-17B-16E config.json text_config: 48 layers, hidden
// 5120, 40 heads, 8 kv heads, head_dim 128, rope_theta 500000, rope_scaling llama3 factor 16,
// low 1, high 1, original 8192, attention_chunk_size 8192, no_rope every 4th layer with
// attn_temperature_tuning (attn_scale 0.1, floor_scale 8192), max_position_embeddings 10485760).
std::string Llama4Scout() {
  // The converter's divisors with low == high == 1: 1 below wavelength 8192, 16 above.
  std::vector<float> divisors;
  for (int i = 0; i < 64; ++i) {
    const double wavelen = 2 * M_PI * std::pow(500000.0, i / 64.0);
    divisors.push_back(wavelen < 8192 ? 1.0f : 16.0f);
  }
  return GgufBuilder()
      .Str("general.architecture", "llama4")
      .Str("general.name", "Llama 4 Scout 17B 16E Instruct")
      .U32("llama4.block_count", 48)
      .U32("llama4.context_length", 10485760)
      .U32("llama4.embedding_length", 5120)
      .U32("llama4.attention.head_count", 40)
      .U32("llama4.attention.head_count_kv", 8)
      .U32("llama4.rope.dimension_count", 128)
      .F32("llama4.rope.freq_base", 500000.0f)
      .U32("llama4.interleave_moe_layer_step", 1)
      .U32("llama4.expert_count", 16)
      .Tokens(202048)
      .F32Tensor("rope_freqs.weight", divisors)
      .Build();
}

TEST_F(GgufReader, Llama4HasNopeEveryFourthLayerAndChunksTheOthers) {
  const std::string bytes = Llama4Scout();
  auto s = ReadBytes(bytes);
  ASSERT_TRUE(s.ok()) << s.message();
  ModelSchedule want;
  want.name = "Llama 4 Scout 17B 16E Instruct";
  want.model_type = "llama4";
  want.format = "GGUF v3";
  want.shape = {48, 40, 8, 128, 5120, 202048, 10485760, 8192};
  LayerPosition rope = Rope(128, 10485760, 500000, RopePairing::kInterleaved);
  rope.pe.rope().scaling = RopeScaling::kLlama3;
  rope.pe.rope().factor = 16;
  rope.pe.rope().low_freq_factor = 1;
  rope.pe.rope().high_freq_factor = 1;
  rope.pe.rope().original_max_len = 8192;
  rope.window = {AttentionWindowKind::kChunked, 8192};
  rope.type = "chunked_attention";
  LayerPosition nope;
  nope.pe.d_model = 128;
  nope.pe.max_len = 10485760;
  nope.pe.scheme = NopeParams{};
  nope.temperature = {TemperatureKind::kLlama4, 0.1, 8192};
  nope.type = "no_rope";
  for (int il = 0; il < 48; ++il) want.layers.push_back(il % 4 == 3 ? nope : rope);
  ExpectSchedule(s.value(), want);
  EXPECT_EQ(FirstPositionalLayer(s.value()), 0);
  EXPECT_TRUE(Contains(s.value().notes, "as the original checkpoint does"));
}

// DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json: 61 layers, hidden 7168, 128 heads,
// qk_nope_head_dim 128 + qk_rope_head_dim 64, kv_lora_rank 512, rope_theta 10000, yarn factor
// 40, original 4096, beta_fast 32, beta_slow 1, mscale 1, mscale_all_dim 1,
// max_position_embeddings 163840, vocab 129280), as llama.cpp's MLA converter writes it
// (key_length = kv_lora_rank + rope dims, key_length_mla = 192, yarn_log_multiplier 0.1).
TEST_F(GgufReader, DeepseekV3RotatesItsRopeDimsWithYarnAndScalesTheSoftmax) {
  const std::string bytes = GgufBuilder()
                                .Str("general.architecture", "deepseek2")
                                .Str("general.name", "DeepSeek V3")
                                .U32("deepseek2.block_count", 61)
                                .U32("deepseek2.context_length", 163840)
                                .U32("deepseek2.embedding_length", 7168)
                                .U32("deepseek2.attention.head_count", 128)
                                .U32("deepseek2.attention.head_count_kv", 1)
                                .U32("deepseek2.attention.key_length", 576)
                                .U32("deepseek2.attention.value_length", 512)
                                .U32("deepseek2.attention.key_length_mla", 192)
                                .U32("deepseek2.attention.value_length_mla", 128)
                                .U32("deepseek2.rope.dimension_count", 64)
                                .F32("deepseek2.rope.freq_base", 10000.0f)
                                .Str("deepseek2.rope.scaling.type", "yarn")
                                .F32("deepseek2.rope.scaling.factor", 40.0f)
                                .U32("deepseek2.rope.scaling.original_context_length", 4096)
                                .F32("deepseek2.rope.scaling.yarn_log_multiplier", 0.1f)
                                .U32("deepseek2.vocab_size", 129280)
                                .Build();
  auto s = ReadBytes(bytes);
  ASSERT_TRUE(s.ok()) << s.message();
  ModelSchedule want;
  want.name = "DeepSeek V3";
  want.model_type = "deepseek2";
  want.format = "GGUF v3";
  want.shape = {61, 128, 1, 192, 7168, 129280, 163840, 4096};
  LayerPosition l = Rope(64, 163840, 10000, RopePairing::kInterleaved);
  RopeParams& r = l.pe.rope();
  r.scaling = RopeScaling::kYarn;
  r.factor = 40;
  r.original_max_len = 4096;
  r.beta_fast = 32;
  r.beta_slow = 1;
  r.mscale = 1;
  r.mscale_all_dim = 1;
  // (0.1 ln 40 + 1)^2 / sqrt(192), numpy float64.
  l.softmax_scale = 0.1352337788608801;
  want.layers.assign(61, l);
  ExpectSchedule(s.value(), want);
  // The rotation's YaRN magnitude is 1 (mscale / mscale_all_dim).
  EXPECT_DOUBLE_EQ(ComputeRopeFrequencies(s.value().layers[0].pe).attention_factor, 1.0);
}

// Phi-3 mini 128k's conversion: LongRoPE as two factor tensors, the original context and the
// attention factor llama.cpp's converter computes, sqrt(1 + ln(131072 / 4096) / ln 4096).
TEST_F(GgufReader, Phi3LongropeReadsItsFactorTensors) {
  std::vector<float> short_f, long_f;
  for (int i = 0; i < 48; ++i) {
    short_f.push_back(1.0f + 0.01f * static_cast<float>(i));
    long_f.push_back(1.0f + 0.5f * static_cast<float>(i));
  }
  const std::string bytes = GgufBuilder()
                                .Str("general.architecture", "phi3")
                                .U32("phi3.block_count", 32)
                                .U32("phi3.context_length", 131072)
                                .U32("phi3.embedding_length", 3072)
                                .U32("phi3.attention.head_count", 32)
                                .U32("phi3.rope.dimension_count", 96)
                                .U32("phi3.rope.scaling.original_context_length", 4096)
                                .F32("phi3.rope.scaling.attn_factor", 1.1902381f)
                                .F32Tensor("rope_factors_long.weight", long_f)
                                .F32Tensor("rope_factors_short.weight", short_f)
                                .Build();
  auto s = ReadBytes(bytes);
  ASSERT_TRUE(s.ok()) << s.message();
  const RopeParams& r = s.value().layers[31].pe.rope();
  EXPECT_EQ(r.scaling, RopeScaling::kLongrope);
  EXPECT_EQ(r.pairing, RopePairing::kHalf);
  EXPECT_EQ(r.original_max_len, 4096);
  EXPECT_EQ(r.max_position_embeddings, 131072);
  EXPECT_EQ(r.attention_factor, std::optional<double>(1.1902381));
  EXPECT_EQ(r.long_factor, std::vector<double>(long_f.begin(), long_f.end()));
  EXPECT_EQ(r.short_factor, std::vector<double>(short_f.begin(), short_f.end()));
  EXPECT_EQ(s.value().shape.original_context, 4096);
}

// The placements other than RoPE: Qwen2-VL's M-RoPE sections, BLOOM's ALiBi, GPT-2's learned
// table (found by its position_embd tensor).
TEST_F(GgufReader, MropeAlibiAndLearnedArchitectures) {
  auto s = ReadBytes(GgufBuilder()
                         .Str("general.architecture", "qwen2vl")
                         .U32("qwen2vl.block_count", 28)
                         .U32("qwen2vl.context_length", 32768)
                         .U32("qwen2vl.embedding_length", 3584)
                         .U32("qwen2vl.attention.head_count", 28)
                         .F32("qwen2vl.rope.freq_base", 1000000.0f)
                         .I32Array("qwen2vl.rope.dimension_sections", {16, 24, 24, 0})
                         .Build());
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(s.value().layers[0].pe.kind(), Scheme::kMrope);
  const MropeParams& m = s.value().layers[0].pe.mrope();
  EXPECT_EQ(m.section, (std::array<int64_t, 3>{16, 24, 24}));
  EXPECT_EQ(m.layout, MropeLayout::kChunked);
  EXPECT_EQ(m.theta, 1e6);
  EXPECT_EQ(s.value().layers[0].pe.d_model, 128);

  s = ReadBytes(GgufBuilder()
                    .Str("general.architecture", "bloom")
                    .U32("bloom.block_count", 24)
                    .U32("bloom.context_length", 2048)
                    .U32("bloom.embedding_length", 1024)
                    .U32("bloom.attention.head_count", 16)
                    .Build());
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(s.value().layers[23].pe.kind(), Scheme::kAlibi);
  EXPECT_EQ(s.value().layers[23].pe.alibi().heads, 16);
  EXPECT_EQ(s.value().layers[23].pe.alibi().max_bias, 8.0);
  EXPECT_EQ(s.value().layers[23].pe.d_model, 64);

  s = ReadBytes(GgufBuilder()
                    .Str("general.architecture", "gpt2")
                    .U32("gpt2.block_count", 12)
                    .U32("gpt2.context_length", 1024)
                    .U32("gpt2.embedding_length", 768)
                    .U32("gpt2.attention.head_count", 12)
                    .Tensor("position_embd.weight", {768, 1024}, 0, "")
                    .Build());
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(s.value().layers[0].pe.kind(), Scheme::kLearned);
  EXPECT_EQ(s.value().layers[0].pe.d_model, 768);
  EXPECT_EQ(s.value().layers[0].pe.max_len, 1024);
}

// ---- refusals

TEST_F(GgufReader, EveryTruncationIsAnErrorNeverACrash) {
  const std::string full = GgufBuilder()
                               .Str("general.architecture", "llama")
                               .U32("llama.block_count", 2)
                               .U32("llama.context_length", 4096)
                               .U32("llama.embedding_length", 256)
                               .U32("llama.attention.head_count", 4)
                               .U32Array("llama.attention.head_count_kv", {4, 4})
                               .F32("llama.rope.freq_base", 10000.0f)
                               .Tokens(3)
                               .F32Tensor("rope_freqs.weight", std::vector<float>(32, 2.0f))
                               .Build();
  ASSERT_TRUE(ReadBytes(full).ok()) << ReadBytes(full).message();
  const std::string path = Path("cut.gguf");
  for (size_t n = 0; n < full.size(); ++n) {
    auto s = ReadBytes(full.substr(0, n));
    ASSERT_FALSE(s.ok()) << "a file cut at byte " << n << " was read";
    EXPECT_NE(s.message().find("model.gguf"), std::string::npos) << s.message();
    if (n % 7 == 0) {  // the path version too, on a real file
      std::ofstream(path, std::ios::binary | std::ios::trunc) << full.substr(0, n);
      auto f = ReadGgufFile(path);
      ASSERT_FALSE(f.ok()) << n;
      EXPECT_NE(f.message().find(path), std::string::npos) << f.message();
    }
  }
}

TEST_F(GgufReader, LyingCountsAndLengthsAreRefusedWithTheirNumbers) {
  // A kv_count the file cannot hold.
  auto s =
      ReadBytes(GgufBuilder().Str("general.architecture", "llama").LieCounts(0, 1u << 30).Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("kv_count 1073741824"), std::string::npos) << s.message();
  // A tensor_count likewise.
  s = ReadBytes(
      GgufBuilder().Str("general.architecture", "llama").LieCounts(uint64_t{1} << 60, 1).Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("tensor_count 1152921504606846976"), std::string::npos) << s.message();
  // A string whose length runs past the end.
  s = ReadBytes(GgufBuilder()
                    .Raw("general.architecture", 8, GgufBuilder::Le(uint64_t{1} << 40, 8) + "llama")
                    .Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("general.architecture"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("1099511627776 bytes"), std::string::npos) << s.message();
  // An array whose count runs past the end.
  s = ReadBytes(GgufBuilder()
                    .Str("general.architecture", "llama")
                    .Raw("llama.attention.head_count", 9,
                         GgufBuilder::Le(4, 4) + GgufBuilder::Le(uint64_t{1} << 50, 8))
                    .Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("llama.attention.head_count"), std::string::npos) << s.message();
  // A string array likewise.
  s = ReadBytes(GgufBuilder()
                    .Str("general.architecture", "llama")
                    .Raw("tokenizer.ggml.tokens", 9,
                         GgufBuilder::Le(8, 4) + GgufBuilder::Le(uint64_t{1} << 40, 8))
                    .Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("tokenizer.ggml.tokens"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("1099511627776 strings"), std::string::npos) << s.message();
}

TEST_F(GgufReader, UnknownTypesVersionsAndDuplicatesAreNamed) {
  auto s = ReadBytes(GgufBuilder().Raw("llama.odd", 13, "xxxx").Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("key \"llama.odd\": unknown value type 13"), std::string::npos)
      << s.message();
  s = ReadBytes(GgufBuilder().Raw("llama.odd", 9, GgufBuilder::Le(42, 4) + "xxxxxxxx").Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unknown array element type 42"), std::string::npos) << s.message();
  s = ReadBytes(GgufBuilder(1).Str("general.architecture", "llama").Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("GGUF version 1"), std::string::npos) << s.message();
  s = ReadBytes(GgufBuilder(4).Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("GGUF version 4 is not read"), std::string::npos) << s.message();
  s = ReadBytes("GGML" + std::string(40, '\0'));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("does not start with the bytes \"GGUF\""), std::string::npos);
  s = ReadBytes(GgufBuilder().U32("a.b", 1).U32("a.b", 2).Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("key \"a.b\" appears twice"), std::string::npos) << s.message();
  s = ReadBytes(GgufBuilder().Raw("x", 7, std::string(1, '\x05')).Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("a bool must be 0 or 1, got 5"), std::string::npos) << s.message();
  s = ReadBytes(GgufBuilder().U32("general.alignment", 24).Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("power of two, got 24"), std::string::npos) << s.message();
  // An architecture without a known placement, and a wrongly typed key.
  s = ReadBytes(GgufBuilder().Str("general.architecture", "mamba").Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("\"mamba\", an architecture whose positional treatment"),
            std::string::npos)
      << s.message();
  s = ReadBytes(
      GgufBuilder().Str("general.architecture", "qwen2").Str("qwen2.block_count", "many").Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(
      s.message().find("key \"qwen2.block_count\" must be an integer, got a string (\"many\")"),
      std::string::npos)
      << s.message();
}

TEST_F(GgufReader, ABadRopeFreqsTensorIsRefused) {
  auto with = [](const std::string& tensor_bytes, std::vector<uint64_t> dims, uint32_t type) {
    return GgufBuilder()
        .Str("general.architecture", "llama")
        .U32("llama.block_count", 1)
        .U32("llama.context_length", 4096)
        .U32("llama.embedding_length", 256)
        .U32("llama.attention.head_count", 4)
        .Tensor("rope_freqs.weight", dims, type, tensor_bytes)
        .Build();
  };
  auto s = ReadBytes(with(std::string(16 * 4, '\0'), {16}, 0));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("must have shape (32,)"), std::string::npos) << s.message();
  s = ReadBytes(with(std::string(32 * 4, '\0'), {32}, 0));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("finite divisors greater than 0, got 0"), std::string::npos)
      << s.message();
  s = ReadBytes(with(std::string(32, '\0'), {32}, 2));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("ggml type 2"), std::string::npos) << s.message();
  // The info only, its bytes beyond the end of the file.
  s = ReadBytes(with("", {32}, 0));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("past the end of the file"), std::string::npos) << s.message();
}

TEST_F(GgufReader, SpecialFilesAreRefusedByKind) {
  auto s = ReadGgufFile(dir_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is a directory, not a GGUF file"), std::string::npos) << s.message();
  s = ReadGgufFile("/dev/zero");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is a character device"), std::string::npos) << s.message();
  const std::string fifo = Path("fifo.gguf");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  s = ReadGgufFile(fifo);  // no writer: must not wait for one
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is a FIFO"), std::string::npos) << s.message();
  s = ReadGgufFile(Write("empty.gguf", ""));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("it is empty"), std::string::npos) << s.message();
  s = ReadGgufFile(Path("missing.gguf"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("No such file"), std::string::npos) << s.message();
}

TEST_F(GgufReader, TheMemoryCapRefusesMetadataBeforeItIsKept) {
  GgufBuilder b;
  b.Str("general.architecture", "llama");
  for (int k = 0; k < 200; ++k)
    b.U32Array("llama.list" + std::to_string(k), std::vector<uint32_t>(1000, 1));
  const std::string bytes = b.Build();
  auto s = ReadBytes(bytes, MemoryCap{1 << 20});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("past the memory cap of 1.0 MiB"), std::string::npos) << s.message();
}

TEST_F(GgufReader, ANonFiniteScaleIsRefusedWithItsKey) {
  auto s = ReadBytes(GgufBuilder()
                         .Str("general.architecture", "granite")
                         .U32("granite.block_count", 2)
                         .U32("granite.context_length", 4096)
                         .U32("granite.embedding_length", 256)
                         .U32("granite.attention.head_count", 4)
                         .F32("granite.attention.scale", std::nanf(""))
                         .Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("key \"granite.attention.scale\" must be a finite number greater "
                             "than 0, got nan"),
            std::string::npos)
      << s.message();
}

TEST_F(GgufReader, AnUnknownSlidingWindowIsSaidNotGuessed) {
  const std::string bytes = GgufBuilder()
                                .Str("general.architecture", "qwen2")
                                .U32("qwen2.block_count", 2)
                                .U32("qwen2.context_length", 4096)
                                .U32("qwen2.embedding_length", 256)
                                .U32("qwen2.attention.head_count", 4)
                                .U32("qwen2.attention.sliding_window", 512)
                                .Build();
  auto s = ReadBytes(bytes);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s.value().layers[0].window, (AttentionWindow{AttentionWindowKind::kCausal, 0}));
  EXPECT_TRUE(Contains(s.value().unsupported, "sliding_window 512 without a layer pattern"));
}

TEST(GgufFile, FloatKeysAndArraysKeepTheirTypes) {
  const std::string bytes = GgufBuilder()
                                .F32("a.f", 0.1f)
                                .I32Array("a.arr", {-3, 7})
                                .Bool("a.b", true)
                                .U64("a.u", uint64_t{1} << 40)
                                .Build();
  SpanSource src(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())));
  auto f = ParseGguf(src, "x.gguf", MemoryCap{});
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f.value().keys, (std::vector<std::string>{"a.f", "a.arr", "a.b", "a.u"}));
  EXPECT_EQ(f.value().Find("a.f")->f, static_cast<double>(0.1f));
  EXPECT_EQ(f.value().Find("a.arr")->numbers, (std::vector<double>{-3, 7}));
  EXPECT_TRUE(f.value().Find("a.b")->b);
  EXPECT_EQ(f.value().Find("a.u")->u, uint64_t{1} << 40);
  EXPECT_EQ(f.value().data_offset % 32, 0u);
}

// The same model read from its GGUF and from its published config.json (the catalogue's copy)
// gives the same shape and the same layers; the one difference is the pairing of Llama 3.1,
// whose GGUF rotates interleaved pairs where the HF checkpoint rotates halves (the converter
// permuted q and k), and which the schedule's note states.
TEST_F(GgufReader, AGgufAndItsConfigJsonGiveTheSameSchedule) {
  struct Case {
    const char* model;
    std::string gguf;
  };
  const Case cases[] = {{"llama-3.1-8b", Llama31()},
                        {"gemma-3-4b", Gemma3(34, 2560, 8, 256, true)},
                        {"llama-4-scout", Llama4Scout()}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.model);
    auto from_gguf = ReadBytes(c.gguf);
    ASSERT_TRUE(from_gguf.ok()) << from_gguf.message();
    auto from_config = CatalogueModel(c.model);
    ASSERT_TRUE(from_config.ok()) << from_config.message();
    ModelSchedule g = from_gguf.value();
    const ModelSchedule& h = from_config.value();
    if (g.shape.vocab == 0) g.shape.vocab = h.shape.vocab;  // the test's Gemma GGUF has no tokens
    EXPECT_EQ(g.shape, h.shape);
    ASSERT_EQ(g.layers.size(), h.layers.size());
    for (size_t i = 0; i < g.layers.size(); ++i) {
      LayerPosition l = g.layers[i];
      if (std::string(c.model) == "llama-3.1-8b") {
        EXPECT_EQ(l.pe.rope().pairing, RopePairing::kInterleaved);
        l.pe.rope().pairing = RopePairing::kHalf;
      }
      EXPECT_EQ(l, h.layers[i]) << "layer " << i;
    }
  }
}

}  // namespace
}  // namespace pe
