// GGUF metadata -> a model's positional schedule. The bytes are gguf_file's; this file knows
// what llama.cpp does with the keys (src/llama-model.cpp `llama_model::load_hparams` and the
// per-architecture graph builders) and maps it onto the app's parameters. docs/FORMATS.md lists
// every key read.
#include "arch/gguf_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>
#include <set>
#include <string_view>

#include "base/format_text.h"
#include "encoding/encoding.h"
#include "encoding/rope.h"
#include "io/gguf_file.h"
#include "io/read_support.h"

namespace pe {

namespace {

// How a llama.cpp architecture places positions. RoPE's pairing follows llama.cpp
// `llama_model_rope_type` (src/llama-model.cpp): LLAMA_ROPE_TYPE_NORM rotates consecutive pairs
// (2i, 2i + 1), LLAMA_ROPE_TYPE_NEOX pairs i with i + n_rot/2 (ggml `ggml_rope_ext` mode 2),
// LLAMA_ROPE_TYPE_MROPE / IMROPE are Qwen2-VL's and Qwen3-VL's multimodal sections. The
// architectures that type LLAMA_ROPE_TYPE_NONE place positions another way: a learned table
// (position_embd), ALiBi or T5's buckets.
enum class Placement { kNorm, kNeox, kMrope, kImrope, kLearned, kAlibi, kT5 };

struct ArchEntry {
  std::string_view arch;  // general.architecture
  Placement placement;
  bool encoder = false;  // full (bidirectional) attention
};

// general.architecture names are llama.cpp's LLM_ARCH_NAMES (src/llama-arch.cpp).
constexpr ArchEntry kArchs[] = {
    // LLAMA_ROPE_TYPE_NORM
    {"llama", Placement::kNorm},
    {"llada", Placement::kNorm},
    {"llama4", Placement::kNorm},
    {"deci", Placement::kNorm},
    {"baichuan", Placement::kNorm},
    {"internlm2", Placement::kNorm},
    {"minicpm", Placement::kNorm},
    {"xverse", Placement::kNorm},
    {"command-r", Placement::kNorm},
    {"cohere2", Placement::kNorm},
    {"olmo", Placement::kNorm},
    {"arctic", Placement::kNorm},
    {"deepseek", Placement::kNorm},
    {"deepseek2", Placement::kNorm},
    {"plm", Placement::kNorm},
    {"chatglm", Placement::kNorm},
    {"glm4", Placement::kNorm},
    {"granite", Placement::kNorm},
    {"granitemoe", Placement::kNorm},
    {"granitehybrid", Placement::kNorm},
    {"chameleon", Placement::kNorm},
    {"bailingmoe", Placement::kNorm},
    {"neo-bert", Placement::kNorm, true},
    {"smollm3", Placement::kNorm},
    {"arcee", Placement::kNorm},
    {"ernie4_5", Placement::kNorm},
    {"ernie4_5-moe", Placement::kNorm},
    // LLAMA_ROPE_TYPE_NEOX
    {"falcon", Placement::kNeox},
    {"falcon-h1", Placement::kNeox},
    {"grok", Placement::kNeox},
    {"dbrx", Placement::kNeox},
    {"jina-bert-v3", Placement::kNeox, true},
    {"nomic-bert", Placement::kNeox, true},
    {"nomic-bert-moe", Placement::kNeox, true},
    {"stablelm", Placement::kNeox},
    {"bitnet", Placement::kNeox},
    {"qwen", Placement::kNeox},
    {"qwen2", Placement::kNeox},
    {"dream", Placement::kNeox},
    {"qwen2moe", Placement::kNeox},
    {"qwen3", Placement::kNeox},
    {"qwen3moe", Placement::kNeox},
    {"qwen3next", Placement::kNeox},
    {"llada-moe", Placement::kNeox},
    {"olmo2", Placement::kNeox},
    {"olmoe", Placement::kNeox},
    {"phi2", Placement::kNeox},
    {"phi3", Placement::kNeox},
    {"phimoe", Placement::kNeox},
    {"plamo", Placement::kNeox},
    {"plamo2", Placement::kNeox},
    {"gemma", Placement::kNeox},
    {"gemma2", Placement::kNeox},
    {"gemma3", Placement::kNeox},
    {"gemma3n", Placement::kNeox},
    {"gemma-embedding", Placement::kNeox, true},
    {"starcoder2", Placement::kNeox},
    {"openelm", Placement::kNeox},
    {"gptneox", Placement::kNeox},
    {"codeshell", Placement::kNeox},
    {"orion", Placement::kNeox},
    {"nemotron", Placement::kNeox},
    {"exaone", Placement::kNeox},
    {"exaone4", Placement::kNeox},
    {"minicpm3", Placement::kNeox},
    {"bailingmoe2", Placement::kNeox},
    {"dots1", Placement::kNeox},
    {"hunyuan-moe", Placement::kNeox},
    {"gpt-oss", Placement::kNeox},
    {"hunyuan-dense", Placement::kNeox},
    {"lfm2", Placement::kNeox},
    {"lfm2moe", Placement::kNeox},
    {"smallthinker", Placement::kNeox},
    {"glm4moe", Placement::kNeox},
    {"seed_oss", Placement::kNeox},
    {"grovemoe", Placement::kNeox},
    {"apertus", Placement::kNeox},
    // LLAMA_ROPE_TYPE_MROPE (Qwen2-VL, Qwen2.5-VL) and IMROPE (Qwen3-VL)
    {"qwen2vl", Placement::kMrope},
    {"qwen3vl", Placement::kImrope},
    {"qwen3vlmoe", Placement::kImrope},
    // LLAMA_ROPE_TYPE_NONE with another placement: learned tables (position_embd.weight),
    // ALiBi (llama.cpp `build_attn` with f_max_alibi_bias), T5's relative buckets. bert and
    // starcoder are typed NEOX / NORM in llama.cpp yet add position_embd: a file with that
    // tensor is read as a learned table whatever its type.
    {"gpt2", Placement::kLearned},
    {"starcoder", Placement::kLearned},
    {"bert", Placement::kLearned, true},
    {"bloom", Placement::kAlibi},
    {"mpt", Placement::kAlibi},
    {"refact", Placement::kAlibi},
    {"jais", Placement::kAlibi},
    {"jina-bert-v2", Placement::kAlibi, true},
    {"t5", Placement::kT5, true},
    {"t5encoder", Placement::kT5, true},
};

const ArchEntry* FindArch(std::string_view arch) {
  for (const ArchEntry& e : kArchs) {
    if (e.arch == arch) return &e;
  }
  return nullptr;
}

// A float32 key as the decimal the converter was given: the shortest decimal that rounds to
// the stored float32 (0.1f reads as 0.1, as config.json has it). Exact float32 values with
// short decimals (500000, 1e6, 8) are themselves; other types are read as they are.
double ShortestDecimal(float f) {
  if (!std::isfinite(f)) return f;
  char buf[64];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) return std::strtod(buf, nullptr);
  }
  return f;
}

// The same for a double computed from such decimals (0.0707 / 0.1).
double Tidy(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return std::strtod(buf, nullptr);
}

std::string Num(double v) {
  return Fmt("%.10g", v);
}

// Reads the metadata as the schedule needs it, recording each key it uses.
class Keys {
 public:
  Keys(const GgufFile& f, const std::string& path, std::string arch)
      : f_(f), path_(path), arch_(std::move(arch)) {}

  const std::string& arch() const { return arch_; }
  std::string Key(const std::string& suffix) const { return arch_ + "." + suffix; }
  const GgufValue* Find(const std::string& key) {
    const GgufValue* v = f_.Find(key);
    if (v != nullptr) used_.insert(key);
    return v;
  }
  bool Has(const std::string& key) const { return f_.Find(key) != nullptr; }
  const std::set<std::string>& used() const { return used_; }

  Error Fail(const std::string& key, const std::string& what) const {
    return InvalidArgument(Quoted(path_) + ": key \"" + key + "\" " + what);
  }

  // A number (an integer or a float scalar); nullopt when absent. A float32 reads as its
  // shortest decimal.
  Result<std::optional<double>> Number(const std::string& key) {
    const GgufValue* v = Find(key);
    if (v == nullptr) return std::optional<double>();
    if (!v->is_number()) {
      return Fail(key, "must be a number, got a " + GgufTypeName(static_cast<uint32_t>(v->type)) +
                           DescribeValue(*v));
    }
    if (v->type == GgufType::kFloat32) return std::optional<double>(ShortestDecimal(float(v->f)));
    return std::optional<double>(v->AsDouble());
  }

  // A non-negative integer below 2^53, as llama.cpp's uint32 keys are; nullopt when absent.
  Result<std::optional<int64_t>> Count(const std::string& key, int64_t max) {
    const GgufValue* v = Find(key);
    if (v == nullptr) return std::optional<int64_t>();
    if (!v->is_integer()) {
      return Fail(key, "must be an integer, got a " + GgufTypeName(static_cast<uint32_t>(v->type)) +
                           DescribeValue(*v));
    }
    const double d = v->AsDouble();
    if (d < 0 || d > static_cast<double>(max)) {
      return Fail(key, "must be in [0, " + std::to_string(max) + "], got " + Num(d));
    }
    return std::optional<int64_t>(static_cast<int64_t>(d));
  }

  // A per-layer integer: a scalar (the same for every layer) or an array of `layers` values
  // (llama.cpp `get_key_or_arr`). Empty when absent.
  Result<std::vector<int64_t>> PerLayer(const std::string& key, int64_t layers, int64_t max) {
    const GgufValue* v = f_.Find(key);
    if (v == nullptr) return std::vector<int64_t>();
    if (v->type != GgufType::kArray) {
      auto c = Count(key, max);
      if (!c.ok()) return c.error();
      return std::vector<int64_t>(static_cast<size_t>(layers), *c.value());
    }
    used_.insert(key);
    if (v->element == GgufType::kString || !v->numbers_kept ||
        v->count != static_cast<uint64_t>(layers)) {
      return Fail(key, "must be an integer or an array of " + std::to_string(layers) +
                           " integers (one per layer), got an array of " +
                           std::to_string(v->count) + " " +
                           GgufTypeName(static_cast<uint32_t>(v->element)) + " values");
    }
    std::vector<int64_t> out;
    for (const double d : v->numbers) {
      if (!(d >= 0 && d <= static_cast<double>(max)) || d != std::floor(d)) {
        return Fail(key, "must hold integers in [0, " + std::to_string(max) + "], got " + Num(d));
      }
      out.push_back(static_cast<int64_t>(d));
    }
    return out;
  }

  Result<std::optional<std::string>> String(const std::string& key) {
    const GgufValue* v = Find(key);
    if (v == nullptr) return std::optional<std::string>();
    if (v->type != GgufType::kString) {
      return Fail(key, "must be a string, got a " + GgufTypeName(static_cast<uint32_t>(v->type)) +
                           DescribeValue(*v));
    }
    if (v->s.size() != v->string_length) {
      return Fail(key, "is a string of " + std::to_string(v->string_length) + " bytes; at most " +
                           std::to_string(kGgufMaxKeptString) + " are read");
    }
    return std::optional<std::string>(v->s);
  }

  static std::string DescribeValue(const GgufValue& v) {
    if (v.is_number()) return " (" + Num(v.AsDouble()) + ")";
    if (v.type == GgufType::kString) return " (\"" + GgufPrintable(v.s) + "\")";
    if (v.type == GgufType::kBool) return v.b ? " (true)" : " (false)";
    if (v.type == GgufType::kArray) return " of " + std::to_string(v.count) + " values";
    return "";
  }

 private:
  const GgufFile& f_;
  const std::string& path_;
  std::string arch_;
  std::set<std::string> used_;
};

#define PE_TRY_ASSIGN(var, expr)                       \
  auto var##_result = (expr);                          \
  if (!var##_result.ok()) return var##_result.error(); \
  auto var = std::move(var##_result.value())

constexpr int64_t kMaxLayers = 1 << 16;
constexpr int64_t kMaxWidth = int64_t{1} << 24;
constexpr int64_t kMaxContext = int64_t{1} << 40;

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Llama 3's scaling (HF `modeling_rope_utils.py` `_compute_llama3_parameters`, llama.cpp's
// converter `LlamaModel.generate_extra_tensors` writing rope_freqs.weight) divides pair i's
// frequency w_i = theta^(-2i/d) by
//   1                              when 2 pi / w_i < L / high,
//   factor                         when 2 pi / w_i > L / low,
//   1 / ((1 - s) / factor + s)     between, s = (L w_i / (2 pi) - low) / (high - low).
// The divisors fix factor, L / low and L / high only (L and low, high scaled together give the
// same divisors): low_freq_factor is taken as 1, as every Llama 3.x and Llama 4 config has it.
// L and high come from the blended pairs (s is affine in w_i: two of them give both); with none
// (low == high, Llama 4) L is any length between the last kept and the first divided
// wavelength, and the power of two there is taken. The candidate counts only when the app's
// own Llama 3 frequencies (ComputeRopeFrequencies) give every divisor to float32 rounding.
struct Llama3Fit {
  double factor = 1, low = 1, high = 1;
  int64_t original = 0;
};

bool DivisorsMatch(const EncodingParams& candidate, const std::vector<float>& divisors) {
  if (!ValidateEncodingParams(candidate).ok()) return false;
  const RopeFrequencies fr = ComputeRopeFrequencies(candidate);
  if (fr.pairs.size() != divisors.size()) return false;
  for (size_t k = 0; k < divisors.size(); ++k) {
    const double want = divisors[k];
    const double got = fr.pairs[k].original / fr.pairs[k].scaled;
    // The converter computes w_i in float32 (torch): a few float32 ulps.
    if (!(std::fabs(got - want) <= 4e-7 * want)) return false;
  }
  return true;
}

std::optional<Llama3Fit> FitLlama3(EncodingParams base, const std::vector<float>& divisors) {
  const size_t n = divisors.size();
  if (n < 2) return std::nullopt;
  const double factor = *std::max_element(divisors.begin(), divisors.end());
  if (!(factor > 1.0)) return std::nullopt;
  const RopeFrequencies plain = ComputeRopeFrequencies(base);
  if (plain.pairs.size() != n) return std::nullopt;
  // Pairs run from high to low frequency: kept (1), blended, divided (factor).
  std::vector<size_t> blended;
  size_t last_kept = n, first_divided = n;
  for (size_t k = 0; k < n; ++k) {
    if (divisors[k] == 1.0f) {
      last_kept = k;
    } else if (static_cast<double>(divisors[k]) == factor) {
      if (first_divided == n) first_divided = k;
    } else {
      blended.push_back(k);
    }
  }
  auto wavelen = [&](size_t k) { return 2.0 * std::numbers::pi / plain.pairs[k].original; };
  std::vector<Llama3Fit> candidates;
  if (blended.size() >= 2) {
    // s_k = (1 / r_k - 1 / factor) / (1 - 1 / factor) = A w_k + B, A = L / (2 pi (high - 1)),
    // B = -1 / (high - 1).
    auto s_of = [&](size_t k) { return (1.0 / divisors[k] - 1.0 / factor) / (1.0 - 1.0 / factor); };
    const size_t a = blended.front(), b = blended.back();
    const double wa = plain.pairs[a].original, wb = plain.pairs[b].original;
    const double slope = (s_of(a) - s_of(b)) / (wa - wb);
    const double intercept = s_of(a) - slope * wa;
    if (!(intercept < 0)) return std::nullopt;
    const double high = 1.0 - 1.0 / intercept;
    const double original = -slope * 2.0 * std::numbers::pi / intercept;
    if (!(original >= 1 && original < 1e12 && high > 1 && high < 1e6)) return std::nullopt;
    const auto l = static_cast<int64_t>(std::llround(original));
    candidates.push_back({factor, 1.0, std::round(high * 8.0) / 8.0, l});
    candidates.push_back({factor, 1.0, Tidy(high), l});
  } else if (blended.empty() && last_kept < n && first_divided < n && last_kept < first_divided) {
    const double lo = wavelen(last_kept), hi = wavelen(first_divided);
    const double p2 = std::exp2(std::ceil(std::log2(lo)));
    const double l = p2 < hi ? p2 : std::ceil((lo + hi) / 2);
    candidates.push_back({factor, 1.0, 1.0, static_cast<int64_t>(l)});
  }
  for (const Llama3Fit& c : candidates) {
    RopeParams& r = base.rope();
    r.scaling = RopeScaling::kLlama3;
    r.factor = c.factor;
    r.low_freq_factor = c.low;
    r.high_freq_factor = c.high;
    r.original_max_len = c.original;
    if (DivisorsMatch(base, divisors)) return c;
  }
  return std::nullopt;
}

struct Builder {
  const GgufFile& file;
  ByteSource& source;
  const std::string& path;
  const MemoryCap& cap;
  Keys& keys;
  ModelSchedule& s;

  Status Read();

  // `layers` copies of `base`, once their size is known to fit under the cap.
  Status AssignLayers(int64_t layers, const LayerPosition& base) {
    uint64_t lists = 0;
    if (base.pe.kind() == Scheme::kRope) {
      lists = base.pe.rope().short_factor.size() + base.pe.rope().long_factor.size();
    }
    const uint64_t each = sizeof(LayerPosition) + 64 + lists * sizeof(double);
    const uint64_t bytes = SaturatingMul(static_cast<uint64_t>(layers), each);
    if (bytes > cap.bytes) {
      return InvalidArgument(Quoted(path) + ": " + std::to_string(layers) + " layers of " +
                             FormatBytes(each) + " each need " + FormatBytes(bytes) +
                             ", over the memory cap of " + FormatBytes(cap.bytes) +
                             " (--memory-cap-mib)");
    }
    s.layers.assign(static_cast<size_t>(layers), base);
    return {};
  }

  // The shape and the schedule's layers.
  int64_t head_dim = 0;
  std::vector<int64_t> heads_per_layer;
  bool encoder = false;
};

// The file's small float tensor `name`, or empty when the file has none.
Result<std::vector<float>> SmallTensor(const GgufFile& file, ByteSource& source,
                                       const std::string& path, const std::string& name,
                                       uint64_t expected) {
  const GgufTensorInfo* t = file.FindTensor(name);
  if (t == nullptr) return std::vector<float>();
  if (t->dims.size() != 1 || t->dims[0] != expected) {
    std::vector<int64_t> shape;
    for (const uint64_t d : t->dims) shape.push_back(static_cast<int64_t>(d));
    return InvalidArgument(Quoted(path) + ": tensor \"" + name + "\" must have shape (" +
                           std::to_string(expected) + ",) (one divisor per rotated pair), got " +
                           FormatShape(shape));
  }
  auto v = ReadGgufFloatTensor(source, file, *t, path, expected);
  if (!v.ok()) return v.error();
  for (const float x : v.value()) {
    if (!(std::isfinite(x) && x > 0)) {
      return InvalidArgument(Quoted(path) + ": tensor \"" + name +
                             "\" must hold finite divisors greater than 0, got " + Num(x));
    }
  }
  return v;
}

Status Builder::Read() {
  const std::string& arch = keys.arch();
  const ArchEntry* entry = FindArch(arch);
  if (entry == nullptr) {
    return InvalidArgument(
        Quoted(path) + ": key \"general.architecture\" is \"" + GgufPrintable(arch) +
        "\", an architecture whose positional treatment PE Explorer does not know (it reads "
        "llama.cpp's RoPE, M-RoPE, learned, ALiBi and T5 architectures: llama, qwen2, gemma3, "
        "deepseek2, gpt2, bloom, t5 and others; docs/FORMATS.md lists them)");
  }
  encoder = entry->encoder;

  // ---- shape
  PE_TRY_ASSIGN(layers, keys.Count(keys.Key("block_count"), kMaxLayers));
  if (!layers || *layers < 1) {
    return keys.Fail(keys.Key("block_count"),
                     layers ? "must be at least 1, got 0" : "is missing (the number of layers)");
  }
  PE_TRY_ASSIGN(hidden, keys.Count(keys.Key("embedding_length"), kMaxWidth));
  PE_TRY_ASSIGN(context, keys.Count(keys.Key("context_length"), kMaxContext));
  if (!context || *context < 1) {
    return keys.Fail(keys.Key("context_length"),
                     context ? "must be at least 1, got 0" : "is missing (the model's context)");
  }
  s.shape.layers = *layers;
  s.shape.hidden = hidden.value_or(0);
  s.shape.context = *context;
  // The input layer, by architecture (a GGUF records no initialiser): llama.cpp's gemma,
  // gemma2, gemma3 graphs scale inp_embd by sqrt(n_embd) as HF's GemmaModel does
  // (normalizer = hidden_size**0.5); T5's embeddings were drawn N(0, initializer_factor^2 = 1),
  // every other architecture's N(0, initializer_range^2 = 0.02^2) and added unscaled.
  if (arch.rfind("gemma", 0) == 0) {
    if (s.shape.hidden < 1) {
      return keys.Fail(keys.Key("embedding_length"),
                       "is missing (Gemma scales its embeddings by its root)");
    }
    s.embedding_scale = std::sqrt(static_cast<double>(s.shape.hidden));
    s.notes.push_back("the token embeddings are multiplied by sqrt(embedding_length) = " +
                      Num(s.embedding_scale) + " (Gemma's normalizer)");
  }
  if (entry->placement == Placement::kT5) s.embedding_init_std = 1.0;
  {
    auto heads = keys.PerLayer(keys.Key("attention.head_count"), *layers, kMaxWidth);
    if (!heads.ok()) return heads.error();
    heads_per_layer = heads.value();
    auto kv = keys.PerLayer(keys.Key("attention.head_count_kv"), *layers, kMaxWidth);
    if (!kv.ok()) return kv.error();
    if (!heads_per_layer.empty()) {
      s.shape.heads = *std::max_element(heads_per_layer.begin(), heads_per_layer.end());
      if (std::any_of(heads_per_layer.begin(), heads_per_layer.end(),
                      [&](int64_t h) { return h != s.shape.heads; })) {
        s.notes.push_back(
            "attention.head_count differs between layers; the shape shows the "
            "largest, " +
            std::to_string(s.shape.heads));
      }
    }
    s.shape.kv_heads = kv.value().empty() ? s.shape.heads
                                          : *std::max_element(kv.value().begin(), kv.value().end());
  }
  PE_TRY_ASSIGN(key_length, keys.Count(keys.Key("attention.key_length"), kMaxWidth));
  PE_TRY_ASSIGN(key_length_mla, keys.Count(keys.Key("attention.key_length_mla"), kMaxWidth));
  if (key_length_mla && *key_length_mla > 0) {
    head_dim = *key_length_mla;  // DeepSeek's MLA: the q/k head (nope + rope dims)
  } else if (key_length && *key_length > 0) {
    head_dim = *key_length;
  } else if (s.shape.heads > 0 && s.shape.hidden > 0) {
    if (s.shape.hidden % s.shape.heads != 0) {
      return keys.Fail(keys.Key("attention.head_count"),
                       "(" + std::to_string(s.shape.heads) + ") does not divide " +
                           keys.Key("embedding_length") + " (" + std::to_string(s.shape.hidden) +
                           ") and the file gives no attention.key_length");
    }
    head_dim = s.shape.hidden / s.shape.heads;
  }
  s.shape.head_dim = head_dim;
  {
    PE_TRY_ASSIGN(vocab, keys.Count(keys.Key("vocab_size"), INT64_MAX / 2));
    if (vocab) {
      s.shape.vocab = *vocab;
    } else if (const GgufValue* t = keys.Find("tokenizer.ggml.tokens")) {
      if (t->type != GgufType::kArray || t->element != GgufType::kString) {
        return keys.Fail("tokenizer.ggml.tokens", "must be an array of strings");
      }
      s.shape.vocab = static_cast<int64_t>(std::min<uint64_t>(t->count, INT64_MAX / 2));
    }
  }

  // ---- the layers' treatment
  LayerPosition base;
  base.pe.max_len = *context;
  base.window = {encoder ? AttentionWindowKind::kFull : AttentionWindowKind::kCausal, 0};
  if (const GgufValue* causal = keys.Find(keys.Key("attention.causal"))) {
    if (causal->type != GgufType::kBool) {
      return keys.Fail(keys.Key("attention.causal"), "must be a bool");
    }
    base.window = {causal->b ? AttentionWindowKind::kCausal : AttentionWindowKind::kFull, 0};
  }
  PE_TRY_ASSIGN(attention_scale, keys.Number(keys.Key("attention.scale")));
  if (attention_scale) {
    if (!(std::isfinite(*attention_scale) && *attention_scale > 0)) {
      return keys.Fail(keys.Key("attention.scale"),
                       "must be a finite number greater than 0, got " + Num(*attention_scale));
    }
    base.softmax_scale = *attention_scale;
  }

  const bool has_position_table = file.FindTensor("position_embd.weight") != nullptr;
  Placement placement = entry->placement;
  if (has_position_table) placement = Placement::kLearned;

  if (placement == Placement::kLearned) {
    if (!has_position_table) {
      return InvalidArgument(Quoted(path) + ": architecture \"" + arch +
                             "\" adds a learned position table, but the file has no tensor "
                             "\"position_embd.weight\"");
    }
    if (s.shape.hidden < 1) {
      return keys.Fail(keys.Key("embedding_length"), "is missing (the learned table's width)");
    }
    base.pe.d_model = s.shape.hidden;
    base.pe.scheme = LearnedParams{};
    s.notes.push_back(
        "the trained position table is the file's tensor position_embd.weight, (" +
        std::to_string(*context) + ", " + std::to_string(s.shape.hidden) +
        "); the schedule shows a seeded table of that shape (load trained values with "
        "--positions-table)");
    return AssignLayers(*layers, base);
  }
  if (head_dim < 1) {
    return keys.Fail(keys.Key("attention.head_count"),
                     "is missing (with attention.key_length, the head dim)");
  }
  base.pe.d_model = head_dim;

  if (placement == Placement::kAlibi) {
    AlibiParams a;
    a.heads = std::max<int64_t>(1, s.shape.heads);
    a.mode = encoder ? AlibiMode::kSymmetric : AlibiMode::kCausal;
    PE_TRY_ASSIGN(max_bias, keys.Number(keys.Key("attention.max_alibi_bias")));
    a.max_bias = max_bias.value_or(8.0);
    base.pe.scheme = a;
    return AssignLayers(*layers, base);
  }
  if (placement == Placement::kT5) {
    T5Params t;
    t.heads = std::max<int64_t>(1, s.shape.heads);
    PE_TRY_ASSIGN(buckets, keys.Count(keys.Key("attention.relative_buckets_count"), 1 << 20));
    t.buckets = buckets.value_or(32);
    t.direction = T5Direction::kBidirectional;
    base.pe.scheme = t;
    s.notes.push_back(
        "the schedule shows the encoder (bidirectional buckets, full attention); a T5 decoder's "
        "self-attention uses causal buckets; the trained biases are the file's tensors "
        "enc.blk.0.attn_rel_b.weight");
    return AssignLayers(*layers, base);
  }

  // ---- RoPE and M-RoPE
  PE_TRY_ASSIGN(rot, keys.Count(keys.Key("rope.dimension_count"), kMaxWidth));
  int64_t d_rot = rot.value_or(head_dim);
  const bool mla = arch == "deepseek2";
  if (mla) {
    // MLA rotates its own qk_rope_head_dim dims (rope.dimension_count), apart from the
    // qk_nope dims: the RoPE acts on a d_rot-wide vector.
    base.pe.d_model = d_rot;
  }
  if (d_rot < 2 || d_rot % 2 != 0 || d_rot > base.pe.d_model) {
    return keys.Fail(keys.Key("rope.dimension_count"),
                     "must be an even number in [2, " + std::to_string(base.pe.d_model) +
                         "] (the head dim), got " + std::to_string(d_rot));
  }
  PE_TRY_ASSIGN(freq_base, keys.Number(keys.Key("rope.freq_base")));
  const double theta = freq_base.value_or(10000.0);  // llama.cpp's default rope_freq_base_train

  if (placement == Placement::kMrope || placement == Placement::kImrope) {
    MropeParams m;
    m.theta = theta;
    m.pairing = RopePairing::kHalf;
    m.layout = placement == Placement::kMrope ? MropeLayout::kChunked : MropeLayout::kInterleaved;
    const std::string key = keys.Key("rope.dimension_sections");
    const GgufValue* sec = keys.Find(key);
    if (sec != nullptr) {
      if (sec->type != GgufType::kArray || !sec->numbers_kept || sec->count < 3 || sec->count > 4) {
        return keys.Fail(key, "must be an array of 3 or 4 integers (t, h, w[, e] pairs)");
      }
      std::array<int64_t, 3> section{};
      for (int k = 0; k < 3; ++k) {
        const double v = sec->numbers[static_cast<size_t>(k)];
        if (!(v >= 0 && v <= kMaxWidth) || v != std::floor(v)) {
          return keys.Fail(key, "must hold integers, got " + Num(v));
        }
        section[static_cast<size_t>(k)] = static_cast<int64_t>(v);
      }
      if (sec->count == 4 && sec->numbers[3] != 0) {
        s.unsupported.push_back("this file gives a fourth M-RoPE section of " +
                                Num(sec->numbers[3]) +
                                " pairs; PE Explorer does not model a fourth position axis");
      }
      m.section = section;
    }
    if (d_rot != head_dim) {
      s.unsupported.push_back("this file rotates " + std::to_string(d_rot) + " of " +
                              std::to_string(head_dim) +
                              " dims with M-RoPE; PE Explorer's M-RoPE rotates the whole head");
      base.pe.d_model = d_rot;
    }
    base.pe.scheme = m;
    s.notes.push_back("llama.cpp rotates M-RoPE sections in halves (LLAMA_ROPE_TYPE_" +
                      std::string(placement == Placement::kMrope ? "MROPE" : "IMROPE") +
                      "), as HF's Qwen-VL checkpoints do");
    return AssignLayers(*layers, base);
  }

  RopeParams r;
  r.theta = theta;
  r.pairing = placement == Placement::kNorm ? RopePairing::kInterleaved : RopePairing::kHalf;
  r.rotary_fraction = static_cast<double>(d_rot) / static_cast<double>(base.pe.d_model);
  // int(d * fraction) must give d_rot back (HF truncates the product).
  {
    EncodingParams probe = base.pe;
    probe.scheme = r;
    while (RopeRotaryDims(probe) < d_rot) {
      r.rotary_fraction = std::nextafter(r.rotary_fraction, 2.0);
      probe.rope().rotary_fraction = r.rotary_fraction;
    }
  }
  r.max_position_embeddings = *context;
  if (placement == Placement::kNorm) {
    // convert_hf_to_gguf.py permutes q and k (LlamaModel.permute) for the Llama family, whose
    // HF checkpoints rotate halves; Llama 4, DeepSeek and Cohere rotate interleaved pairs in HF
    // too and are not permuted.
    static constexpr std::string_view kPermuted[] = {"llama",      "deci",    "baichuan",
                                                     "internlm2",  "minicpm", "granite",
                                                     "granitemoe", "smollm3", "arcee"};
    const bool permuted =
        std::find(std::begin(kPermuted), std::end(kPermuted), arch) != std::end(kPermuted);
    if (permuted) {
      s.notes.push_back(
          "this GGUF rotates interleaved pairs (2i, 2i+1) (llama.cpp LLAMA_ROPE_TYPE_NORM) while "
          "the HF checkpoint rotates halves (i, i + d/2): llama.cpp's converter permuted the q "
          "and k weights to match, so both give the same attention");
    } else if (arch == "llama4" || arch == "deepseek" || mla || arch == "command-r" ||
               arch == "cohere2") {
      s.notes.push_back(
          "this GGUF rotates interleaved pairs (2i, 2i+1) (llama.cpp LLAMA_ROPE_TYPE_NORM), as "
          "the original checkpoint does");
    } else {
      s.notes.push_back(
          "this GGUF rotates interleaved pairs (2i, 2i+1) (llama.cpp LLAMA_ROPE_TYPE_NORM)");
    }
  } else {
    s.notes.push_back(
        "this GGUF rotates halves (i, i + d/2) (llama.cpp LLAMA_ROPE_TYPE_NEOX), as the HF "
        "checkpoint does");
  }

  // The scaling: rope.scaling.type (llama.cpp: "none", "linear", "yarn", "longrope"; linear
  // when absent) with rope.scaling.factor, or the older rope.scale_linear.
  PE_TRY_ASSIGN(scaling_type, keys.String(keys.Key("rope.scaling.type")));
  PE_TRY_ASSIGN(factor_key, keys.Number(keys.Key("rope.scaling.factor")));
  PE_TRY_ASSIGN(scale_linear, keys.Number(keys.Key("rope.scale_linear")));
  PE_TRY_ASSIGN(original_ctx,
                keys.Count(keys.Key("rope.scaling.original_context_length"), kMaxContext));
  PE_TRY_ASSIGN(attn_factor, keys.Number(keys.Key("rope.scaling.attn_factor")));
  PE_TRY_ASSIGN(beta_fast, keys.Number(keys.Key("rope.scaling.yarn_beta_fast")));
  PE_TRY_ASSIGN(beta_slow, keys.Number(keys.Key("rope.scaling.yarn_beta_slow")));
  PE_TRY_ASSIGN(log_mul, keys.Number(keys.Key("rope.scaling.yarn_log_multiplier")));
  for (const char* k : {"rope.scaling.yarn_ext_factor", "rope.scaling.yarn_attn_factor",
                        "rope.scaling.finetuned"}) {
    if (const GgufValue* v = keys.Find(keys.Key(k))) {
      s.unsupported.push_back("this file gives " + keys.Key(k) + Keys::DescribeValue(*v) +
                              "; PE Explorer does not model it");
    }
  }
  // Phi-3's conversions carry LongRoPE as the two factor tensors.
  const bool has_factor_lists = file.FindTensor("rope_factors_long.weight") != nullptr;
  const std::string type = scaling_type.value_or(has_factor_lists             ? "longrope"
                                                 : factor_key || scale_linear ? "linear"
                                                                              : "none");
  const double factor = factor_key.value_or(scale_linear.value_or(1.0));
  if (type != "none" && type != "linear" && type != "yarn" && type != "longrope") {
    return keys.Fail(keys.Key("rope.scaling.type"),
                     "must be none, linear, yarn or longrope (llama.cpp's names), got \"" +
                         GgufPrintable(type) + "\"");
  }
  if (type != "none" && !(factor > 0 && std::isfinite(factor))) {
    return keys.Fail(keys.Key("rope.scaling.factor"),
                     "must be a finite number greater than 0, got " + Num(factor));
  }
  const std::string original_key = keys.Key("rope.scaling.original_context_length");
  if (type == "linear" && factor != 1.0) {
    r.scaling = RopeScaling::kLinear;
    r.factor = factor;
  } else if (type == "yarn") {
    if (!original_ctx || *original_ctx < 1) {
      return keys.Fail(original_key, "is missing; YaRN needs the pre-extension context");
    }
    r.scaling = RopeScaling::kYarn;
    r.factor = factor;
    r.original_max_len = *original_ctx;
    s.shape.original_context = *original_ctx;
    // ggml's defaults (llama_context_params: yarn_beta_fast 32, yarn_beta_slow 1), which are
    // HF's too; ggml `ggml_rope_yarn_corr_dims` floors and ceils the range always.
    r.beta_fast = beta_fast.value_or(32.0);
    r.beta_slow = beta_slow.value_or(1.0);
    r.yarn_truncate = true;
    if (log_mul) {
      // DeepSeek (llama.cpp's converter writes 0.1 * mscale_all_dim): llama.cpp's deepseek2
      // graph divides ggml's YaRN magnitude 1 + 0.1 ln(factor) back out, so the rotation's
      // attention factor is 1: HF's get_mscale(factor, mscale) / get_mscale(factor,
      // mscale_all_dim) with mscale == mscale_all_dim, which llama.cpp assumes.
      if (!(std::isfinite(*log_mul) && *log_mul >= 0)) {
        return keys.Fail(keys.Key("rope.scaling.yarn_log_multiplier"),
                         "must be a finite number >= 0, got " + Num(*log_mul));
      }
      const double all_dim = Tidy(*log_mul / 0.1);
      r.mscale = all_dim;
      r.mscale_all_dim = all_dim;
    } else if (attn_factor && *attn_factor != 1.0) {
      s.unsupported.push_back("this file gives " + keys.Key("rope.scaling.attn_factor") + " " +
                              Num(*attn_factor) +
                              " with YaRN; PE Explorer applies HF's default 0.1 ln(factor) + 1");
    }
  } else if (type == "longrope") {
    if (!original_ctx || *original_ctx < 1) {
      return keys.Fail(original_key, "is missing; LongRoPE needs the pre-extension context");
    }
    PE_TRY_ASSIGN(longf, SmallTensor(file, source, path, "rope_factors_long.weight",
                                     static_cast<uint64_t>(d_rot / 2)));
    PE_TRY_ASSIGN(shortf, SmallTensor(file, source, path, "rope_factors_short.weight",
                                      static_cast<uint64_t>(d_rot / 2)));
    if (longf.empty() || shortf.empty()) {
      return InvalidArgument(
          Quoted(path) + ": rope.scaling.type is longrope but the file lacks the tensor " +
          (longf.empty() ? "rope_factors_long.weight" : "rope_factors_short.weight"));
    }
    r.scaling = RopeScaling::kLongrope;
    r.long_factor.assign(longf.begin(), longf.end());
    r.short_factor.assign(shortf.begin(), shortf.end());
    r.original_max_len = *original_ctx;
    s.shape.original_context = *original_ctx;
    if (attn_factor) r.attention_factor = *attn_factor;
  }

  // rope_freqs.weight: per-pair divisors of theta^(-2i/d) (ggml `ggml_rope_ext`'s freq_factors),
  // which llama.cpp's converter writes for Llama 3.1-style scaling instead of keys.
  if (file.FindTensor("rope_freqs.weight") != nullptr) {
    PE_TRY_ASSIGN(divisors, SmallTensor(file, source, path, "rope_freqs.weight",
                                        static_cast<uint64_t>(d_rot / 2)));
    if (r.scaling != RopeScaling::kNone) {
      s.unsupported.push_back("this file gives both rope_freqs.weight and a " + type +
                              " scaling; PE Explorer applies the " + type +
                              " scaling and not the divisors");
    } else if (std::all_of(divisors.begin(), divisors.end(), [](float x) { return x == 1.0f; })) {
      s.notes.push_back("rope_freqs.weight divides every frequency by 1: no scaling");
    } else {
      EncodingParams probe = base.pe;
      probe.scheme = r;
      if (const auto fit = FitLlama3(probe, divisors)) {
        r.scaling = RopeScaling::kLlama3;
        r.factor = fit->factor;
        r.low_freq_factor = fit->low;
        r.high_freq_factor = fit->high;
        r.original_max_len = fit->original;
        s.shape.original_context = fit->original;
        s.notes.push_back(
            Fmt("rope_freqs.weight's %zu divisors are Llama 3 scaling (factor %s, low_freq_factor "
                "%s, high_freq_factor %s, original context %lld) to float32 rounding; the divisors "
                "fix factor, original/low and original/high only, and low_freq_factor 1 is assumed",
                divisors.size(), Num(fit->factor).c_str(), Num(fit->low).c_str(),
                Num(fit->high).c_str(), static_cast<long long>(fit->original)));
      } else {
        // Exact in LongRoPE's form: inv_freq_i = 1 / (ext_i theta^(2i/d)) with ext = the
        // divisors for short and long sequences alike, and an attention factor of 1 (ggml
        // applies none with freq_factors outside YaRN).
        r.scaling = RopeScaling::kLongrope;
        r.short_factor.assign(divisors.begin(), divisors.end());
        r.long_factor = r.short_factor;
        r.original_max_len = *context;
        r.attention_factor = 1.0;
        std::string list;
        for (size_t k = 0; k < divisors.size() && k < 8; ++k) {
          list += (k ? ", " : "") + Num(divisors[k]);
        }
        if (divisors.size() > 8) list += ", ...";
        s.notes.push_back(
            "rope_freqs.weight's divisors (" + list +
            ") do not follow Llama 3's formula; the schedule applies them as they are, as "
            "LongRoPE factor lists (the same list for short and long sequences, attention "
            "factor 1)");
      }
    }
  }

  base.pe.scheme = r;
  if (Status st = AssignLayers(*layers, base); !st.ok()) return st;

  // ---- per-architecture layer patterns (llama.cpp `load_hparams` and the graph builders)
  PE_TRY_ASSIGN(window, keys.Count(keys.Key("attention.sliding_window"), kMaxAttentionWindow));
  const std::string pattern_key = keys.Key("attention.sliding_window_pattern");
  auto sliding_by_period = [&](int64_t period) {
    // llama_hparams::set_swa_pattern(n): layer il is sliding when il % n < n - 1.
    std::vector<bool> out(static_cast<size_t>(*layers));
    for (int64_t il = 0; il < *layers; ++il)
      out[static_cast<size_t>(il)] = il % period < period - 1;
    return out;
  };
  // The sliding layers from the pattern key (a period, or one bool per layer), else `period`.
  auto sliding_layers = [&](int64_t period) -> Result<std::vector<bool>> {
    const GgufValue* p = keys.Find(pattern_key);
    if (p == nullptr) return sliding_by_period(period);
    if (p->type == GgufType::kArray) {
      if (!p->numbers_kept || p->count != static_cast<uint64_t>(*layers)) {
        return keys.Fail(pattern_key, "must be a period or an array of " + std::to_string(*layers) +
                                          " bools (one per layer)");
      }
      std::vector<bool> out;
      for (const double v : p->numbers) out.push_back(v != 0);
      return out;
    }
    auto n = keys.Count(pattern_key, kMaxLayers);
    if (!n.ok()) return n.error();
    if (*n.value() < 1) return keys.Fail(pattern_key, "must be at least 1, got 0");
    return sliding_by_period(*n.value());
  };
  auto apply_sliding = [&](const std::vector<bool>& sliding, int64_t w, double local_theta,
                           bool local_scaling, bool global_nope) {
    for (int64_t il = 0; il < *layers; ++il) {
      LayerPosition& l = s.layers[static_cast<size_t>(il)];
      if (sliding[static_cast<size_t>(il)]) {
        l.window = {AttentionWindowKind::kSliding, w};
        l.type = "sliding_attention";
        RopeParams& lr = l.pe.rope();
        lr.theta = local_theta;
        if (!local_scaling) {
          lr.scaling = RopeScaling::kNone;
          lr.short_factor.clear();
          lr.long_factor.clear();
        }
      } else {
        l.type = "full_attention";
        if (global_nope) l.pe.scheme = NopeParams{};
      }
    }
  };

  if (arch == "gemma2" || arch == "gemma3" || arch == "gpt-oss" || arch == "cohere2") {
    const int64_t period = arch == "gemma3" ? 6 : arch == "cohere2" ? 4 : 2;
    const int64_t w = window.value_or(arch == "gemma2" ? 4096 : 0);
    if (w < 1) return keys.Fail(keys.Key("attention.sliding_window"), "is missing or 0");
    PE_TRY_ASSIGN(sliding, sliding_layers(period));
    // Gemma 3's local layers: rope.freq_base_swa (newer llama.cpp), else 10000 unscaled
    // (llama.cpp gemma3 `rope_freq_base_train_swa = 10000`, `rope_freq_scale_train_swa = 1`).
    double local_theta = theta;
    bool local_scaling = true;
    if (arch == "gemma3") {
      PE_TRY_ASSIGN(swa_base, keys.Number(keys.Key("rope.freq_base_swa")));
      local_theta = swa_base.value_or(10000.0);
      local_scaling = false;
    }
    // Cohere2 (Command R7B) rotates only its sliding layers (llama.cpp cohere2 graph: RoPE
    // inside `if (is_swa)`).
    apply_sliding(sliding, w, local_theta, local_scaling, arch == "cohere2");
    if ((arch == "gemma2" || arch == "gemma3") && !attention_scale) {
      // llama.cpp gemma2 / gemma3: f_attention_scale = 1/sqrt(n_embd / n_head) for the 27B
      // models (query_pre_attn_scalar = hidden / heads: 46 and 62 layers), else
      // 1/sqrt(head_dim): HF's query_pre_attn_scalar^-0.5, given explicitly as config.json
      // readings give it.
      const bool is_27b =
          (arch == "gemma2" && *layers == 46) || (arch == "gemma3" && *layers == 62);
      const int64_t scalar =
          is_27b && s.shape.heads > 0 ? s.shape.hidden / s.shape.heads : head_dim;
      const double scale = 1.0 / std::sqrt(static_cast<double>(scalar));
      for (LayerPosition& l : s.layers) l.softmax_scale = scale;
    }
    if (arch == "gpt-oss" && r.scaling == RopeScaling::kYarn) {
      s.notes.push_back(
          "GPT-OSS's config.json asks YaRN not to round its correction range (truncate false); "
          "llama.cpp's ggml always rounds it (ggml_rope_yarn_corr_dims), and so does this "
          "schedule");
    }
  } else if (arch == "llama4") {
    // llama.cpp llama4: chunked attention of 8192 on three layers in four, and NoPE with
    // Llama 4's temperature (attn_temp_floor_scale 8192, f_attn_temp_scale 0.1) on every
    // n_no_rope_layer_step-th (4; no key in llama.cpp's converter); a sliding_window of 0
    // turns both off.
    int64_t step = 4;
    for (const char* k : {"no_rope_layer_step", "attention.no_rope_layer_step"}) {
      PE_TRY_ASSIGN(v, keys.Count(keys.Key(k), kMaxLayers));
      if (v && *v >= 1) step = *v;
    }
    PE_TRY_ASSIGN(temp_scale, keys.Number(keys.Key("attention.temperature_scale")));
    PE_TRY_ASSIGN(temp_floor, keys.Number(keys.Key("attention.temperature_length")));
    if (temp_scale && !std::isfinite(*temp_scale)) {
      return keys.Fail(keys.Key("attention.temperature_scale"),
                       "must be a finite number, got " + Num(*temp_scale));
    }
    if (temp_floor && !(std::isfinite(*temp_floor) && *temp_floor >= 1)) {
      return keys.Fail(keys.Key("attention.temperature_length"),
                       "must be a finite number >= 1, got " + Num(*temp_floor));
    }
    if (window && *window == 0) {
      s.notes.push_back(keys.Key("attention.sliding_window") +
                        " is 0: every layer rotates and attends causally (llama.cpp)");
    } else {
      for (int64_t il = 0; il < *layers; ++il) {
        LayerPosition& l = s.layers[static_cast<size_t>(il)];
        if ((il + 1) % step == 0) {
          l.pe.scheme = NopeParams{};
          l.type = "no_rope";
          l.temperature.kind = TemperatureKind::kLlama4;
          l.temperature.scale = temp_scale.value_or(0.1);
          l.temperature.floor = temp_floor.value_or(8192.0);
        } else {
          l.window = {AttentionWindowKind::kChunked, 8192};
          l.type = "chunked_attention";
        }
      }
    }
  } else if (arch == "smollm3") {
    // llama.cpp smollm3: n_no_rope_layer_step = 4, NoPE where (il + 1) % 4 == 0.
    for (int64_t il = 3; il < *layers; il += 4) {
      s.layers[static_cast<size_t>(il)].pe.scheme = NopeParams{};
    }
  } else if (keys.Has(pattern_key) && window && *window > 0) {
    PE_TRY_ASSIGN(sliding, sliding_layers(1));
    apply_sliding(sliding, *window, theta, true, false);
  } else if (window && *window > 0) {
    s.unsupported.push_back(
        "this file gives " + keys.Key("attention.sliding_window") + " " + std::to_string(*window) +
        " without a layer pattern; PE Explorer knows which layers slide only for gemma2, "
        "gemma3, gpt-oss, cohere2 and llama4 or from attention.sliding_window_pattern, so this "
        "schedule attends causally");
  }
  if (mla) {
    // llama.cpp deepseek2: kq_scale = mscale^2 / sqrt(q head dim), mscale = attn_factor (1 + 0.1
    // mscale_all_dim ln factor): HF DeepseekV3Attention's softmax_scale.
    double mscale = attn_factor.value_or(1.0);
    if (r.scaling == RopeScaling::kYarn && log_mul) {
      mscale *= 1.0 + *log_mul * std::log(r.factor);
    }
    const double scale = mscale * mscale / std::sqrt(static_cast<double>(head_dim));
    for (LayerPosition& l : s.layers) l.softmax_scale = scale;
    s.notes.push_back("DeepSeek's MLA rotates " + std::to_string(d_rot) + " dims of its " +
                      std::to_string(head_dim) +
                      "-dim q/k heads; the layer's width is the rotated part");
  }
  if (!heads_per_layer.empty()) {
    for (int64_t il = 0; il < *layers; ++il) {
      if (heads_per_layer[static_cast<size_t>(il)] == 0) {
        LayerPosition& l = s.layers[static_cast<size_t>(il)];
        l.pe.scheme = NopeParams{};
        l.pe.d_model = head_dim;
        l.type = "recurrent";
      }
    }
  }
  return {};
}

bool Noise(const std::string& key) {
  for (const char* prefix : {"general.", "tokenizer.", "split.", "quantize."}) {
    if (key.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

Result<ModelSchedule> Read(ByteSource& source, const std::string& path, const MemoryCap& cap) {
  auto parsed = ParseGguf(source, path, cap);
  if (!parsed.ok()) return parsed.error();
  const GgufFile& file = parsed.value();
  ModelSchedule s;
  s.source = path;
  s.format = "GGUF v" + std::to_string(file.version);
  Keys keys(file, path, "");
  PE_TRY_ASSIGN(arch, keys.String("general.architecture"));
  if (!arch || arch->empty()) {
    return InvalidArgument(Quoted(path) +
                           ": key \"general.architecture\" is missing (every GGUF model names its "
                           "architecture there)");
  }
  Keys arch_keys(file, path, *arch);
  arch_keys.Find("general.architecture");
  PE_TRY_ASSIGN(name, arch_keys.String("general.name"));
  s.name = name && !name->empty() ? *name : BaseName(path);
  s.model_type = *arch;
  Builder b{file, source, path, cap, arch_keys, s, 0, {}, false};
  if (Status st = b.Read(); !st.ok()) return st.error();
  for (size_t il = 0; il < s.layers.size(); ++il) {
    if (il > 0 && s.layers[il].pe == s.layers[il - 1].pe) continue;
    if (Status st = ValidateEncodingParams(s.layers[il].pe); !st.ok()) {
      return InvalidArgument(Quoted(path) + ": the file's values give layer " + std::to_string(il) +
                             " an invalid treatment: " + st.message());
    }
  }
  for (const std::string& key : file.keys) {
    if (arch_keys.used().count(key) == 0 && !Noise(key)) s.unknown_keys.push_back(key);
  }
  return s;
}

}  // namespace

Result<ModelSchedule> ReadGguf(ByteSource& source, const std::string& path, const MemoryCap& cap) {
  return CatchReaderExceptions(path, [&] { return Read(source, path, cap); });
}

Result<ModelSchedule> ReadGgufFile(const std::string& path, const MemoryCap& cap) {
  // Only a regular file: FileSource would read a FIFO or a device as a stream.
  const RegularFileReader probe = RegularFileReader::Open(path);
  switch (probe.failure()) {
    case RegularFileReader::Failure::kNone:
      break;
    case RegularFileReader::Failure::kCannotRead:
      return InvalidArgument("cannot read " + Quoted(path) + ": " + std::strerror(probe.error()));
    case RegularFileReader::Failure::kNotRegular:
      return InvalidArgument(Quoted(path) + " is " + FileKindName(probe.mode()) +
                             ", not a GGUF file");
  }
  if (probe.size() == 0) {
    return InvalidArgument(Quoted(path) + ": not a GGUF file: it is empty");
  }
  auto source = FileSource::Open(path, cap.bytes);
  if (!source.ok()) return source.error();
  if (!source.value()->KnownSize()) {
    return InvalidArgument(Quoted(path) + " is no longer a regular file, not a GGUF file");
  }
  return ReadGguf(*source.value(), path, cap);
}

}  // namespace pe
