// The config.json reader. HF transformers builds a model from its config class (one per
// model_type, with defaults for the keys a published config leaves out) and reads the RoPE keys
// through modeling_rope_utils.py (`rope_config_validation` in v4, `rope_parameters` in v5); the
// families' modeling files decide which layers slide, chunk or skip RoPE. This file does the
// same for the keys that decide position, one family rule at a time, and says which rule it
// applied (notes) and what it cannot model (unsupported).
#include "arch/hf_config.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

namespace pe {

namespace {

using Json = nlohmann::json;

constexpr int kMaxDepth = 64;
// The most layers a stack may have (real models have at most a few hundred); with LongRoPE's
// lists copied into every layer, this bounds what a config can make the reader allocate.
constexpr int64_t kMaxLayers = 1024;
// LongRoPE's lists over all layers: at most this many numbers.
constexpr uint64_t kMaxLongropeNumbers = uint64_t{1} << 24;

// `v` rounded to bfloat16 (float32 rounded to nearest-even in its top 16 bits), finite v.
double Bfloat16(double v) {
  uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(v));
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<double>(std::bit_cast<float>(bits & 0xFFFF0000u));
}

// Thrown inside this file only, caught by ReadHfConfig: a refusal with its message.
struct Refusal {
  std::string message;
};

std::string Num(double v) {
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // The shortest text that reads back the same number.
  for (int precision = 1; precision <= 17; ++precision) {
    char shorter[64];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return buf;
}

// A value as the config spells it, cut short for messages.
std::string Shown(const Json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

// Keys that say nothing about position: read by nobody here, and not worth listing.
bool Irrelevant(const std::string& k) {
  static const char* const kKeys[] = {
      "architectures",
      "auto_map",
      "torch_dtype",
      "dtype",
      "transformers_version",
      "hidden_act",
      "activation_function",
      "intermediate_size",
      "intermediate_size_mlp",
      "initializer_range",
      "initializer_factor",
      "use_cache",
      "tie_word_embeddings",
      "attention_bias",
      "mlp_bias",
      "pretraining_tp",
      "dropout",
      "task_specific_params",
      "quantization_config",
      "vision_config",
      "audio_config",
      "d_ff",
      "feed_forward_proj",
      "output_past",
      "is_gated_act",
      "dense_act_fn",
      "use_qk_norm",
      "num_local_experts",
      "num_experts_per_tok",
      "num_experts",
      "interleave_moe_layer_step",
      "output_router_logits",
      "moe_layers",
      "mm_tokens_per_image",
      "for_llm_compressor",
      "final_logit_softcapping",
      "hidden_activation",
      "use_bidirectional_attention",
      "max_window_layers",
      "n_inner",
      "scale_attn_weights",
      "reorder_and_upcast_attn",
      "scale_attn_by_inverse_layer_idx",
      "gradient_checkpointing",
      "classifier_dropout",
      "type_vocab_size",
      "bos_token_id",
      "eos_token_id",
      "pad_token_id",
      "decoder_start_token_id",
      "use_return_dict",
      "return_dict",
      "is_decoder",
      "add_cross_attention",
      "n_ctx",
      "tokenizer_class",
      "prefix",
      "problem_type",
      "id2label",
      "label2id",
      "num_labels",
  };
  for (const char* key : kKeys) {
    if (k == key) return true;
  }
  auto ends = [&](std::string_view s) {
    return k.size() >= s.size() && k.compare(k.size() - s.size(), s.size(), s) == 0;
  };
  auto starts = [&](std::string_view s) { return k.rfind(s, 0) == 0; };
  return starts("_") || starts("summary_") || starts("router_") || starts("vision_") ||
         starts("moe_") || ends("_token_id") || ends("_token_index") || ends("_dropout") ||
         ends("_pdrop") || ends("_rate") || ends("_eps") || ends("_epsilon") ||
         ends("_token_ids") || ends("_norm") || ends("_softcapping");
}

// One JSON object with the keys read from it marked, and typed getters that refuse a wrong type
// or range by naming the key (with its path) and the value. null counts as absent, as HF's
// config classes read it.
class Obj {
 public:
  Obj(const Json& j, std::string path, std::string_view model)
      : j_(&j), path_(std::move(path)), model_(model) {}

  bool Has(const std::string& key) {
    auto it = j_->find(key);
    if (it == j_->end()) return false;
    used_.insert(key);
    return !it->is_null();
  }
  const Json* Get(const std::string& key) { return Has(key) ? &j_->at(key) : nullptr; }

  [[noreturn]] void Fail(const std::string& key, const std::string& rule, const Json* v) const {
    throw Refusal{"config.json " + std::string(model_) + ": " + path_ + key + " " + rule +
                  (v ? ", got " + Shown(*v) : std::string())};
  }
  std::string Path(const std::string& key) const { return path_ + key; }

  std::optional<double> Number(const std::string& key) {
    const Json* v = Get(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) Fail(key, "must be a number", v);
    const double d = v->get<double>();
    if (!std::isfinite(d)) Fail(key, "must be a finite number", v);
    return d;
  }
  std::optional<int64_t> Int(const std::string& key, int64_t lo, int64_t hi) {
    const Json* v = Get(key);
    if (!v) return std::nullopt;
    const std::string rule =
        "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (!v->is_number()) Fail(key, rule, v);
    const double d = v->get<double>();
    if (!(d >= static_cast<double>(lo) && d <= static_cast<double>(hi)) || d != std::floor(d)) {
      Fail(key, rule, v);
    }
    return static_cast<int64_t>(d);
  }
  std::optional<bool> Bool(const std::string& key) {
    const Json* v = Get(key);
    if (!v) return std::nullopt;
    // HF tests these for truth: Llama 4's attn_temperature_tuning is published as 4.
    if (v->is_boolean()) return v->get<bool>();
    if (v->is_number()) return v->get<double>() != 0.0;
    Fail(key, "must be true or false", v);
  }
  std::optional<std::string> String(const std::string& key) {
    const Json* v = Get(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) Fail(key, "must be a string", v);
    return v->get<std::string>();
  }
  std::optional<std::vector<double>> Numbers(const std::string& key) {
    const Json* v = Get(key);
    if (!v) return std::nullopt;
    if (!v->is_array()) Fail(key, "must be a list of numbers", v);
    std::vector<double> out;
    for (const Json& e : *v) {
      if (!e.is_number() || !std::isfinite(e.get<double>())) {
        Fail(key, "must be a list of finite numbers", v);
      }
      out.push_back(e.get<double>());
    }
    return out;
  }
  std::optional<std::vector<std::string>> Strings(const std::string& key) {
    const Json* v = Get(key);
    if (!v) return std::nullopt;
    if (!v->is_array()) Fail(key, "must be a list of strings", v);
    std::vector<std::string> out;
    for (const Json& e : *v) {
      if (!e.is_string()) Fail(key, "must be a list of strings", v);
      out.push_back(e.get<std::string>());
    }
    return out;
  }

  // The keys of this object nobody read and that may matter.
  std::vector<std::string> Unread() const {
    std::vector<std::string> out;
    for (auto it = j_->begin(); it != j_->end(); ++it) {
      if (!used_.count(it.key()) && !Irrelevant(it.key())) out.push_back(path_ + it.key());
    }
    return out;
  }
  const Json& json() const { return *j_; }
  const std::string& path() const { return path_; }

 private:
  const Json* j_;
  std::string path_;
  std::string_view model_;
  std::set<std::string> used_;
};

// Model types whose HF attention rotates interleaved pairs (dims 2i, 2i+1): GPT-J's
// rotate_every_two, DeepSeek-V2/V3's MLA rope dims (apply_rotary_pos_emb_interleave), Llama 4's
// complex product over (..., -1, 2).
bool InterleavedFamily(const std::string& t) {
  return t == "gptj" || t == "deepseek_v2" || t == "deepseek_v3" || t == "kimi_k2" ||
         t == "llama4_text" || t == "llama4";
}

// Model types whose HF attention takes the head dim from hidden_size / num_attention_heads and
// never reads head_dim: a head_dim that disagrees contradicts the model.
bool DerivedHeadDimFamily(const std::string& t) {
  return t == "gpt2" || t == "gpt_neox" || t == "gptj" || t == "bloom" || t == "opt" ||
         t == "gpt_neo" || t == "bert" || t == "roberta" || t == "falcon" || t == "mpt" ||
         t == "phi" || t == "stablelm";
}

bool T5Family(const std::string& t) {
  return t == "t5" || t == "mt5" || t == "umt5" || t == "longt5" || t == "switch_transformers";
}

bool LearnedAbsoluteFamily(const std::string& t) {
  return t == "gpt2" || t == "gpt_neo" || t == "opt" || t == "bert" || t == "roberta" ||
         t == "xlm-roberta" || t == "distilbert" || t == "electra" || t == "gpt_bigcode" ||
         t == "biogpt" || t == "codegen";
}

bool EncoderFamily(const std::string& t) {
  return t == "bert" || t == "roberta" || t == "xlm-roberta" || t == "distilbert" ||
         t == "electra" || t == "modernbert";
}

// The defaults of the HF config classes for the keys their published configs leave out (Gemma
// 3's config.json gives only what differs from Gemma3TextConfig). Only what decides position.
struct FamilyDefaults {
  std::optional<double> theta;
  std::optional<double> local_theta;
  std::optional<int64_t> heads, kv_heads, head_dim, context, sliding_window, sliding_pattern;
  std::optional<double> query_pre_attn_scalar;
};
FamilyDefaults DefaultsOf(const std::string& t) {
  FamilyDefaults d;
  if (t == "gemma3_text" || t == "gemma3") {
    // Gemma3TextConfig.__init__ defaults (HF transformers models/gemma3/configuration_gemma3.py).
    d.theta = 1e6;
    d.local_theta = 1e4;
    d.heads = 8;
    d.kv_heads = 4;
    d.head_dim = 256;
    d.context = 131072;
    d.sliding_window = 4096;
    d.sliding_pattern = 6;
    d.query_pre_attn_scalar = 256;
  } else if (t == "gemma2") {
    d.theta = 1e4;
    d.head_dim = 256;
    d.context = 8192;
    d.sliding_window = 4096;
    d.query_pre_attn_scalar = 256;
  } else if (t == "llama4_text" || t == "llama4") {
    d.theta = 500000;
  } else if (t == "modernbert") {
    d.context = 8192;
  } else if (T5Family(t)) {
    d.context = 512;
  }
  return d;
}

// The rope type's parameters, from a v4 rope_scaling or a v5 rope_parameters object.
struct RopeSpec {
  std::optional<double> theta;  // v5: inside rope_parameters
  std::optional<double> partial_rotary_factor;
  RopeParams rope;  // theta, scaling and its parameters; pairing and fraction set later
  bool mrope = false;
  std::optional<std::array<int64_t, 3>> mrope_section;
  bool mrope_interleaved = false;
  bool yarn_original_given = false;
  bool proportional = false;  // Gemma 4's p-RoPE: partial_rotary_factor is the proportion
  bool given = false;         // a scaling object was there
};

class Reader {
 public:
  Reader(std::string_view name, std::string_view source) : name_(name) {
    s_.name = std::string(name);
    s_.source = std::string(source);
    s_.format = "config.json (v4)";
  }

  ModelSchedule Read(const Json& root) {
    if (!root.is_object()) {
      throw Refusal{"config.json " + name_ + ": the file must hold a JSON object, got " +
                    Shown(root)};
    }
    Obj outer(root, "", name_);
    s_.model_type = outer.String("model_type").value_or("");
    const Json* text = outer.Get("text_config");
    if (text && !text->is_object()) outer.Fail("text_config", "must be an object", text);
    std::optional<Obj> inner;
    if (text) {
      inner.emplace(*text, "text_config.", name_);
      Note("a multimodal config: the text model's config (text_config) gives the schedule");
    }
    Obj& c = inner ? *inner : outer;
    type_ = inner ? c.String("model_type").value_or(s_.model_type) : s_.model_type;
    defaults_ = DefaultsOf(type_);
    ReadShape(c);
    ReadInput(c, outer);
    ReadLayers(c);
    for (const std::string& k : outer.Unread()) {
      if (k != "text_config") s_.unknown_keys.push_back(k);
    }
    if (inner) {
      for (const std::string& k : inner->Unread()) s_.unknown_keys.push_back(k);
    }
    return std::move(s_);
  }

 private:
  void Note(std::string n) { s_.notes.push_back(std::move(n)); }
  void Unsupported(const std::string& what) {
    s_.unsupported.push_back("this config asks for " + what + "; PE Explorer does not model " +
                             what);
  }
  // A table added at the input is as wide as the model: the model's width must be given (a head
  // dim alone, head_dim or d_kv, does not say it).
  void RequireHidden() const {
    if (s_.shape.hidden < 1) {
      Fail("no hidden_size (n_embd, d_model): " + type_ +
           "'s position table is added to the token embeddings and is as wide as they are");
    }
  }

  [[noreturn]] void Fail(const std::string& message) const {
    throw Refusal{"config.json " + name_ + ": " + message};
  }

  // First of several spellings of one number.
  std::optional<int64_t> FirstInt(Obj& c, std::initializer_list<const char*> keys, int64_t lo,
                                  int64_t hi, std::string* which = nullptr) {
    for (const char* k : keys) {
      if (auto v = c.Int(k, lo, hi)) {
        if (which) *which = c.Path(k);
        return v;
      }
    }
    return std::nullopt;
  }

  void ReadShape(Obj& c) {
    ModelShape& sh = s_.shape;
    constexpr int64_t kBig = int64_t{1} << 40;
    std::string layers_key;
    std::optional<int64_t> layers =
        FirstInt(c, {"num_hidden_layers", "n_layer", "num_layers", "n_layers", "encoder_layers"}, 1,
                 kMaxLayers, &layers_key);
    if (!layers) {
      Fail("no layer count (num_hidden_layers, n_layer or num_layers)");
    }
    encoder_layers_ = *layers;
    if (T5Family(type_)) {
      decoder_layers_ = c.Int("num_decoder_layers", 0, kMaxLayers).value_or(*layers);
    } else if (type_ == "whisper") {
      decoder_layers_ = c.Int("decoder_layers", 0, kMaxLayers).value_or(*layers);
    }
    sh.layers = encoder_layers_ + decoder_layers_;
    std::string heads_key = "num_attention_heads";
    std::optional<int64_t> heads = FirstInt(
        c, {"num_attention_heads", "n_head", "num_heads", "n_heads", "encoder_attention_heads"}, 1,
        100000, &heads_key);
    if (!heads && defaults_.heads) {
      heads = defaults_.heads;
      Note("num_attention_heads not given: " + type_ + "'s default " + std::to_string(*heads));
    }
    if (!heads) Fail("no head count (num_attention_heads, n_head or num_heads)");
    sh.heads = *heads;
    std::string hidden_key = "hidden_size";
    sh.hidden = FirstInt(c, {"hidden_size", "n_embd", "d_model"}, 1, kBig, &hidden_key).value_or(0);
    sh.kv_heads = c.Int("num_key_value_heads", 1, 100000).value_or(0);
    if (sh.kv_heads == 0) sh.kv_heads = defaults_.kv_heads.value_or(sh.heads);
    sh.vocab = c.Int("vocab_size", 0, kBig).value_or(0);

    std::string head_key = "head_dim";
    std::optional<int64_t> head_dim = FirstInt(c, {"head_dim", "d_kv"}, 1, 65536, &head_key);
    const bool derived_ok = sh.hidden > 0 && sh.hidden % sh.heads == 0;
    if (head_dim && derived_ok && *head_dim != sh.hidden / sh.heads &&
        DerivedHeadDimFamily(type_)) {
      Fail(head_key + " " + std::to_string(*head_dim) + " contradicts " + hidden_key + " " +
           std::to_string(sh.hidden) + " / " + heads_key + " " + std::to_string(sh.heads) + " = " +
           std::to_string(sh.hidden / sh.heads) + " (" + type_ +
           " takes its head dim from those two)");
    }
    if (!head_dim && defaults_.head_dim) {
      head_dim = defaults_.head_dim;
      Note("head_dim not given: " + type_ + "'s default " + std::to_string(*head_dim));
    }
    if (!head_dim) {
      if (sh.hidden == 0) Fail("no width: neither head_dim nor hidden_size (n_embd, d_model)");
      if (!derived_ok) {
        Fail(hidden_key + " " + std::to_string(sh.hidden) + " is not a multiple of " + heads_key +
             " " + std::to_string(sh.heads) + ", and head_dim is not given");
      }
      head_dim = sh.hidden / sh.heads;
    }
    sh.head_dim = *head_dim;

    std::string ctx_key = "max_position_embeddings";
    std::optional<int64_t> ctx =
        FirstInt(c,
                 {"max_position_embeddings", "n_positions", "max_sequence_length", "seq_length",
                  "max_seq_len", "max_target_positions"},
                 1, int64_t{1} << 40, &ctx_key);
    if (auto n_ctx = c.Int("n_ctx", 1, int64_t{1} << 40); n_ctx && ctx && *n_ctx != *ctx) {
      Note("n_ctx " + std::to_string(*n_ctx) + " differs from " + ctx_key + " " +
           std::to_string(*ctx) + ": the position table has " + ctx_key + " rows");
    }
    if (!ctx && defaults_.context) {
      ctx = defaults_.context;
      Note("max_position_embeddings not given: " + type_ + "'s default " + std::to_string(*ctx));
    }
    context_given_ = ctx.has_value();
    sh.context = ctx.value_or(2048);
  }

  // The input layer: the embeddings' scaling and initialiser (ModelSchedule::embedding_scale,
  // embedding_init_std), from the text model's keys or else the outer config's.
  void ReadInput(Obj& c, Obj& outer) {
    if (type_.rfind("gemma", 0) == 0) {
      // HF modeling_gemma.py (and gemma2, gemma3): GemmaModel.forward multiplies the embeddings
      // by normalizer = torch.tensor(hidden_size**0.5, dtype=hidden_states.dtype).
      if (s_.shape.hidden < 1) Fail("no hidden_size: Gemma scales its embeddings by its root");
      s_.embedding_scale = std::sqrt(static_cast<double>(s_.shape.hidden));
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "the token embeddings are multiplied by sqrt(hidden_size) = sqrt(%lld) = %.6g "
                    "(Gemma's normalizer; in bfloat16 it rounds to %.6g)",
                    static_cast<long long>(s_.shape.hidden), s_.embedding_scale,
                    static_cast<double>(Bfloat16(s_.embedding_scale)));
      Note(buf);
    }
    // HF _init_weights: nn.Embedding weight.normal_(0, initializer_range) (GPT-2, BERT, Llama
    // and most others); T5's shared embedding normal_(0, initializer_factor * 1.0); Whisper's
    // init_std.
    const bool t5 = T5Family(type_);
    std::optional<double> std_dev;
    for (Obj* o : {&c, &outer}) {
      for (const char* key : {t5 ? "initializer_factor" : "initializer_range", "init_std"}) {
        if (!std_dev) std_dev = o->Number(key);
        if (std_dev && !(*std_dev > 0)) o->Fail(key, "must be a number > 0", o->Get(key));
      }
    }
    s_.embedding_init_std = std_dev.value_or(t5 ? 1.0 : 0.02);
    if (s_.embedding_init_std != 0.02 && s_.embedding_init_std != 1) {
      Unsupported("token embeddings initialised N(0, " + Num(s_.embedding_init_std) +
                  "^2) (the views draw N(0, 0.02^2) or N(0, 1))");
    }
  }

  // A rope type's object: v4 rope_scaling (`type` or `rope_type`) or one v5 rope_parameters.
  RopeSpec ReadRopeObject(Obj& o) {
    RopeSpec r;
    r.given = true;
    r.theta = o.Number("rope_theta");
    if (r.theta && !(*r.theta > 1))
      o.Fail("rope_theta", "must be a number greater than 1", o.Get("rope_theta"));
    r.partial_rotary_factor = o.Number("partial_rotary_factor");
    std::optional<std::string> type = o.String("rope_type");
    std::optional<std::string> old_type = o.String("type");
    if (type && old_type && *type != *old_type) {
      Fail(o.Path("rope_type") + " \"" + *type + "\" contradicts " + o.Path("type") + " \"" +
           *old_type + "\"");
    }
    const std::string t = type ? *type : old_type.value_or("default");
    const std::string type_key = type ? o.Path("rope_type") : o.Path("type");
    RopeParams& p = r.rope;
    auto factor = [&](bool required) {
      std::optional<double> f = o.Number("factor");
      if (!f && required) Fail(o.Path("factor") + " is required for rope type " + t);
      if (f && !(*f >= 1)) o.Fail("factor", "must be a number >= 1", o.Get("factor"));
      if (f) p.factor = *f;
    };
    auto original = [&] {
      if (auto v = o.Int("original_max_position_embeddings", 1, int64_t{1} << 40)) {
        p.original_max_len = *v;
        r.yarn_original_given = true;
      } else if (top_original_) {
        // Phi-3 gives it beside rope_scaling (HF _compute_longrope_parameters reads
        // config.original_max_position_embeddings).
        p.original_max_len = *top_original_;
      } else {
        p.original_max_len = s_.shape.context;
      }
    };
    if (auto sec = o.Get("mrope_section")) {
      if (!sec->is_array() || sec->size() != 3) {
        o.Fail("mrope_section", "must be a list of three integers (t, h, w)", sec);
      }
      std::array<int64_t, 3> a{};
      for (size_t i = 0; i < 3; ++i) {
        const Json& e = (*sec)[i];
        if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > 65536) {
          o.Fail("mrope_section", "must be a list of three integers in [0, 65536]", sec);
        }
        a[i] = e.get<int64_t>();
      }
      r.mrope_section = a;
      r.mrope = true;
    }
    r.mrope_interleaved = o.Bool("mrope_interleaved").value_or(false);
    if (t == "default" || t == "mrope") {
      p.scaling = RopeScaling::kNone;
      if (t == "mrope") r.mrope = true;
      if (o.Has("factor")) (void)o.Number("factor");  // read, no effect (HF ignores it too)
    } else if (t == "linear") {
      p.scaling = RopeScaling::kLinear;
      factor(true);
    } else if (t == "dynamic") {
      p.scaling = RopeScaling::kDynamicNtk;
      factor(true);
      original();
    } else if (t == "yarn") {
      p.scaling = RopeScaling::kYarn;
      factor(true);
      original();
      if (auto v = o.Number("beta_fast")) p.beta_fast = *v;
      if (auto v = o.Number("beta_slow")) p.beta_slow = *v;
      if (!(p.beta_fast > p.beta_slow && p.beta_slow > 0)) {
        Fail(o.Path("beta_fast") + " " + Num(p.beta_fast) + " and " + o.Path("beta_slow") + " " +
             Num(p.beta_slow) + " must satisfy beta_fast > beta_slow > 0");
      }
      if (auto v = o.Number("attention_factor")) {
        if (!(*v > 0))
          o.Fail("attention_factor", "must be a number > 0", o.Get("attention_factor"));
        p.attention_factor = *v;
      }
      if (auto v = o.Number("mscale")) {
        if (!(*v >= 0)) o.Fail("mscale", "must be a number >= 0", o.Get("mscale"));
        p.mscale = *v;
      }
      if (auto v = o.Number("mscale_all_dim")) {
        if (!(*v >= 0)) o.Fail("mscale_all_dim", "must be a number >= 0", o.Get("mscale_all_dim"));
        p.mscale_all_dim = *v;
      }
      if (auto v = o.Bool("truncate")) p.yarn_truncate = *v;
    } else if (t == "llama3") {
      p.scaling = RopeScaling::kLlama3;
      factor(true);
      if (!o.Has("original_max_position_embeddings")) {
        Fail(o.Path("original_max_position_embeddings") + " is required for rope type llama3");
      }
      original();
      std::optional<double> low = o.Number("low_freq_factor");
      std::optional<double> high = o.Number("high_freq_factor");
      if (!low || !high) {
        Fail(o.Path(low ? "high_freq_factor" : "low_freq_factor") +
             " is required for rope type llama3");
      }
      if (!(*low > 0)) o.Fail("low_freq_factor", "must be a number > 0", o.Get("low_freq_factor"));
      if (!(*high >= *low)) {
        Fail(o.Path("high_freq_factor") + " " + Num(*high) +
             " must be >= " + o.Path("low_freq_factor") + " " + Num(*low));
      }
      p.low_freq_factor = *low;
      p.high_freq_factor = *high;
    } else if (t == "proportional") {
      // Gemma 4 (HF _compute_proportional_rope_parameters): partial_rotary_factor is the share of
      // the head's pairs that turn, over the whole head dim; then / factor.
      r.proportional = true;
      factor(false);
      p.scaling = o.Has("factor") && p.factor != 1 ? RopeScaling::kLinear : RopeScaling::kNone;
    } else if (t == "longrope" || t == "su") {
      p.scaling = RopeScaling::kLongrope;
      std::optional<std::vector<double>> sf = o.Numbers("short_factor");
      std::optional<std::vector<double>> lf = o.Numbers("long_factor");
      if (!sf || !lf) {
        Fail(o.Path(sf ? "long_factor" : "short_factor") + " is required for rope type longrope");
      }
      const uint64_t numbers = (sf->size() + lf->size()) * static_cast<uint64_t>(s_.shape.layers);
      if (numbers > kMaxLongropeNumbers) {
        Fail(o.Path("short_factor") + " and long_factor: " + std::to_string(sf->size()) + " + " +
             std::to_string(lf->size()) + " numbers on each of " + std::to_string(s_.shape.layers) +
             " layers exceed " + std::to_string(kMaxLongropeNumbers));
      }
      p.short_factor = *sf;
      p.long_factor = *lf;
      if (auto v = o.Number("attention_factor")) {
        if (!(*v > 0))
          o.Fail("attention_factor", "must be a number > 0", o.Get("attention_factor"));
        p.attention_factor = *v;
      }
      factor(false);
      original();
      if (t == "su") Note("rope type \"su\" is the old name of longrope");
    } else {
      Fail(type_key + " \"" + t +
           "\" is not a rope type PE Explorer reads (default, linear, dynamic, yarn, llama3, "
           "longrope, mrope, proportional)");
    }
    for (const std::string& k : o.Unread()) s_.unknown_keys.push_back(k);
    return r;
  }

  // The RoPE spec of one layer type (v5 nested), of the whole model (v5 flat or v4), with the
  // top-level rope_theta as v4 gives it.
  std::map<std::string, RopeSpec> ReadRope(Obj& c) {
    std::map<std::string, RopeSpec> out;  // "" for every layer
    std::optional<double> top_theta = c.Number("rope_theta");
    if (!top_theta) top_theta = c.Number("rotary_emb_base");  // GPT-NeoX, StableLM
    if (top_theta && !(*top_theta > 1)) {
      Fail(c.Path("rope_theta") + " must be a number greater than 1, got " + Num(*top_theta));
    }
    top_original_ = c.Int("original_max_position_embeddings", 1, int64_t{1} << 40);
    const Json* v5 = c.Get("rope_parameters");
    const Json* v4 = c.Get("rope_scaling");
    if (v5 && v4) {
      Note("both rope_parameters (v5) and rope_scaling (v4) given: rope_parameters is read");
    }
    const Json* scaling = v5 ? v5 : v4;
    const std::string key = v5 ? "rope_parameters" : "rope_scaling";
    s_.format = v5 ? "config.json (v5)" : "config.json (v4)";
    if (scaling && !scaling->is_object()) c.Fail(key, "must be an object", scaling);
    bool nested = false;
    if (scaling) {
      for (auto it = scaling->begin(); it != scaling->end(); ++it) {
        if (it.value().is_object()) nested = true;
      }
    }
    if (scaling && nested && v5) {
      for (auto it = scaling->begin(); it != scaling->end(); ++it) {
        if (!it.value().is_object()) {
          c.Fail(key + "." + it.key(), "must be an object (one per layer type)", &it.value());
        }
        Obj o(it.value(), c.Path(key) + "." + it.key() + ".", name_);
        out[it.key()] = ReadRopeObject(o);
      }
    } else if (scaling) {
      Obj o(*scaling, c.Path(key) + ".", name_);
      out[""] = ReadRopeObject(o);
    } else {
      out[""] = RopeSpec{};
    }
    for (auto& [type, spec] : out) {
      if (!spec.theta) spec.theta = top_theta;
      if (spec.theta && top_theta && *spec.theta != *top_theta && v5) {
        Note("rope_theta " + Num(*top_theta) + " at the top differs from " + key +
             (type.empty() ? "" : "." + type) + ".rope_theta " + Num(*spec.theta) +
             ": the latter is used");
      }
    }
    return out;
  }

  // The RoPE or M-RoPE parameters of one layer from its spec.
  LayerPosition RopeLayer(const RopeSpec& spec, double theta) {
    const ModelShape& sh = s_.shape;
    LayerPosition l;
    l.pe.max_len = sh.context;
    l.pe.d_model = sh.head_dim;
    const bool interleaved = InterleavedFamily(type_);
    if (spec.mrope) {
      MropeParams m;
      m.theta = theta;
      m.pairing = interleaved ? RopePairing::kInterleaved : RopePairing::kHalf;
      m.layout = spec.mrope_interleaved || type_ == "qwen3_vl" || type_ == "qwen3_vl_moe"
                     ? MropeLayout::kInterleaved
                     : MropeLayout::kChunked;
      if (!spec.mrope_section) Fail("M-RoPE needs mrope_section (t, h, w), which is not given");
      const auto& a = *spec.mrope_section;
      if (a[0] + a[1] + a[2] != sh.head_dim / 2) {
        Fail("mrope_section [" + std::to_string(a[0]) + ", " + std::to_string(a[1]) + ", " +
             std::to_string(a[2]) + "] sums to " + std::to_string(a[0] + a[1] + a[2]) +
             ", not head_dim / 2 = " + std::to_string(sh.head_dim / 2));
      }
      m.section = a;
      l.pe.scheme = m;
      return l;
    }
    RopeParams r = spec.rope;
    r.theta = theta;
    r.pairing = interleaved ? RopePairing::kInterleaved : RopePairing::kHalf;
    r.max_position_embeddings = sh.context;
    if (r.scaling == RopeScaling::kYarn && spec.yarn_original_given &&
        r.original_max_len != sh.context) {
      // HF _compute_yarn_parameters: with original_max_position_embeddings given, the factor is
      // max_position_embeddings / original_max_position_embeddings.
      const double f = static_cast<double>(sh.context) / static_cast<double>(r.original_max_len);
      if (f >= 1 && f != r.factor) {
        if (!yarn_noted_)
          Note("YaRN factor " + Num(r.factor) +
               " replaced by max_position_embeddings / "
               "original_max_position_embeddings = " +
               Num(f) + ", as HF computes it");
        yarn_noted_ = true;
        r.factor = f;
      }
    }
    l.pe.scheme = r;
    return l;
  }

  // The top-level rotary share (partial_rotary_factor, rotary_pct, rotary_dim); a rope object's
  // own partial_rotary_factor (v5) overrides it for its layers (CheckFraction).
  void ReadRotary(Obj& c) {
    const ModelShape& sh = s_.shape;
    std::optional<double> frac = c.Number("partial_rotary_factor");
    std::string frac_key = c.Path("partial_rotary_factor");
    if (auto pct = c.Number("rotary_pct")) {
      frac = pct;
      frac_key = c.Path("rotary_pct");
    }
    if (auto rd = c.Int("rotary_dim", 2, 65536)) {
      frac = static_cast<double>(*rd) / static_cast<double>(sh.head_dim);
      frac_key = c.Path("rotary_dim");
      if (*rd > sh.head_dim || *rd % 2) {
        Fail(frac_key + " " + std::to_string(*rd) + " must be even and at most the head dim " +
             std::to_string(sh.head_dim));
      }
    }
    if (frac) {
      rotary_fraction_ = *frac;
      rotary_key_ = frac_key;
    }
  }

  // A rotary share in (0, 1] giving an even d_rot >= 2 of `head_dim`, or an error naming `key`.
  void CheckFraction(const std::string& key, double frac, int64_t head_dim) {
    const int64_t d_rot = static_cast<int64_t>(static_cast<double>(head_dim) * frac);
    if (frac == 1 && (head_dim < 2 || head_dim % 2)) {
      // Nothing asked for a share: the head itself is what cannot be paired.
      Fail("RoPE needs an even head dim >= 2, got " + std::to_string(head_dim) +
           " (head_dim, or hidden_size / num_attention_heads)");
    }
    if (!(frac > 0 && frac <= 1) || d_rot < 2 || d_rot % 2) {
      Fail(key + " must be in (0, 1] and give an even number of rotated dims >= 2 with head dim " +
           std::to_string(head_dim) + ", got " + Num(frac));
    }
    if (frac < 1 && !fraction_noted_) {
      Note(key + " " + Num(frac) + ": RoPE turns the first " + std::to_string(d_rot) + " of " +
           std::to_string(head_dim) + " head dims; the rest carry no position");
      fraction_noted_ = true;
    }
  }

  // One window per layer from layer_types, a family's pattern or sliding_window.
  void ReadLayers(Obj& c) {
    const ModelShape& sh = s_.shape;
    const size_t n = static_cast<size_t>(sh.layers);
    s_.layers.assign(n, LayerPosition{});
    const bool encoder = EncoderFamily(type_);
    const AttentionWindow base_window = encoder ? AttentionWindow{AttentionWindowKind::kFull, 0}
                                                : AttentionWindow{AttentionWindowKind::kCausal, 0};
    if (auto ed = c.Bool("is_encoder_decoder");
        ed && *ed && !T5Family(type_) && type_ != "whisper") {
      Unsupported("an encoder-decoder model other than T5 (is_encoder_decoder)");
    }

    // ---- attention bias models: T5 and ALiBi ----
    if (T5Family(type_) || c.Has("relative_attention_num_buckets")) {
      T5Params t;
      t.heads = sh.heads;
      t.buckets = c.Int("relative_attention_num_buckets", 2, 65536).value_or(32);
      t.max_distance = c.Int("relative_attention_max_distance", 1, int64_t{1} << 31).value_or(128);
      if (!c.Has("relative_attention_max_distance")) {
        Note("relative_attention_max_distance not given: T5's default 128");
      }
      const int64_t enc = T5Family(type_) ? encoder_layers_ : sh.layers;
      for (size_t i = 0; i < n; ++i) {
        LayerPosition& l = s_.layers[i];
        const bool is_encoder = static_cast<int64_t>(i) < enc;
        l.pe.d_model = sh.head_dim;
        l.pe.max_len = sh.context;
        T5Params li = t;
        li.direction = is_encoder ? T5Direction::kBidirectional : T5Direction::kCausal;
        l.pe.scheme = li;
        l.window = is_encoder ? AttentionWindow{AttentionWindowKind::kFull, 0}
                              : AttentionWindow{AttentionWindowKind::kCausal, 0};
        l.type = is_encoder ? "encoder" : "decoder";
        l.softmax_scale = 1.0;
      }
      if (decoder_layers_ > 0) {
        Note("layers 0-" + std::to_string(encoder_layers_ - 1) +
             " are the encoder's self-attention (bidirectional buckets, full window), layers " +
             std::to_string(encoder_layers_) + "-" + std::to_string(sh.layers - 1) +
             " the decoder's (causal buckets); each stack learns its bias in its first layer "
             "and every layer of the stack reuses it");
      }
      Note(
          "T5 does not divide q.k by sqrt(head dim) (the scale is folded into the weights' "
          "initialisation): softmax scale 1");
      if (!context_given_) Note("T5's buckets need no context; the table length is 512");
      return;
    }
    const Json* attn_config = c.Get("attn_config");  // MPT
    bool alibi = type_ == "bloom";
    double alibi_max = 8;
    if (attn_config && attn_config->is_object()) {
      Obj a(*attn_config, c.Path("attn_config."), name_);
      alibi = a.Bool("alibi").value_or(false) || alibi;
      if (auto v = a.Number("alibi_bias_max")) {
        if (!(*v > 0)) a.Fail("alibi_bias_max", "must be a number > 0", a.Get("alibi_bias_max"));
        alibi_max = *v;
      }
      (void)a.Unread();
    }
    if (c.Bool("alibi").value_or(false) || c.Bool("use_alibi").value_or(false)) alibi = true;
    if (alibi) {
      AlibiParams a;
      a.heads = sh.heads;
      a.max_bias = alibi_max;
      for (LayerPosition& l : s_.layers) {
        l.pe.d_model = sh.head_dim;
        l.pe.max_len = sh.context;
        l.pe.scheme = a;
        l.window = base_window;
      }
      if (!context_given_) {
        Note("no max_position_embeddings: ALiBi needs none; the table length is 2048");
      }
      return;
    }

    // ---- Whisper: a sinusoidal encoder table and a learned decoder table ----
    if (type_ == "whisper") {
      RequireHidden();
      // HF WhisperEncoder: embed_positions holds sinusoids(max_source_positions, d_model), frozen:
      // log_timescale_increment = ln(10000) / (d/2 - 1), [sin | cos] (tensor2tensor's layout).
      const int64_t source = c.Int("max_source_positions", 1, int64_t{1} << 31).value_or(1500);
      SinusoidalParams sin;
      sin.variant = PeVariant::kT2t;
      for (size_t i = 0; i < n; ++i) {
        LayerPosition& l = s_.layers[i];
        const bool is_encoder = static_cast<int64_t>(i) < encoder_layers_;
        l.pe.d_model = sh.hidden;
        l.pe.max_len = is_encoder ? source : sh.context;
        if (is_encoder) {
          l.pe.scheme = sin;
        } else {
          l.pe.scheme = LearnedParams{};
        }
        l.window = is_encoder ? AttentionWindow{AttentionWindowKind::kFull, 0}
                              : AttentionWindow{AttentionWindowKind::kCausal, 0};
        l.type = is_encoder ? "encoder" : "decoder";
      }
      Note("layers 0-" + std::to_string(encoder_layers_ - 1) +
           " are the encoder's (a fixed sinusoidal table of max_source_positions " +
           std::to_string(source) + " rows added to the audio frames), layers " +
           std::to_string(encoder_layers_) + "-" + std::to_string(sh.layers - 1) +
           " the decoder's (a learned table of " + std::to_string(sh.context) + " rows)");
      return;
    }

    // ---- absolute tables ----
    const bool known_rope =
        type_ == "llama" || type_ == "mistral" || type_ == "mixtral" ||
        type_.rfind("qwen", 0) == 0 || type_.rfind("gemma", 0) == 0 || type_.rfind("phi", 0) == 0 ||
        type_ == "gpt_neox" || type_ == "gptj" || type_.rfind("deepseek", 0) == 0 ||
        type_.rfind("llama4", 0) == 0 || type_ == "modernbert" || type_ == "smollm3" ||
        type_ == "starcoder2" || type_ == "olmo" || type_ == "olmo2" || type_ == "cohere" ||
        type_ == "cohere2" || type_ == "stablelm" || type_ == "falcon" || type_ == "gpt_oss" ||
        type_ == "internlm2" || type_ == "granite" || type_ == "exaone";
    std::optional<std::string> pet = c.String("position_embedding_type");
    if (pet && *pet != "absolute" && *pet != "rope" && *pet != "rotary") {
      Unsupported("position_embedding_type \"" + *pet + "\"");
    }
    // A rotary family's position_embedding_type "absolute" is a key left from a BERT-style base
    // config (ModernBERT's config.json has it; its code never reads it: HF
    // modeling_modernbert.py builds only rotary embeddings).
    if (known_rope && pet && *pet == "absolute") {
      Note("position_embedding_type \"absolute\" is ignored: " + type_ +
           "'s code rotates queries and keys and adds no table");
    }
    if (LearnedAbsoluteFamily(type_) || (pet && *pet == "absolute" && !known_rope)) {
      RequireHidden();
      LearnedParams p;
      for (LayerPosition& l : s_.layers) {
        l.pe.d_model = sh.hidden;
        l.pe.max_len = sh.context;
        l.pe.scheme = p;
        l.window = base_window;
      }
      Note("a learned position table (" + std::to_string(sh.context) + " x " +
           std::to_string(sh.hidden) +
           ") added at the input; every layer sees it. Without the checkpoint's table "
           "(--positions-table) a seeded N(0, 0.02^2) stand-in is drawn");
      if (type_ == "opt") Note("OPT's table starts at row 2 (its position offset)");
      return;
    }

    // ---- rotary ----
    std::map<std::string, RopeSpec> specs = ReadRope(c);
    ReadRotary(c);
    if (InterleavedFamily(type_)) {
      Note(type_ + " rotates interleaved pairs (dims 2i, 2i+1)");
    }
    const RopeSpec* any = specs.count("") ? &specs[""] : nullptr;
    const bool rope_keys =
        (any && (any->given || any->theta)) || specs.size() > 1 || (specs.size() == 1 && !any);
    if (!rope_keys && !known_rope) {
      Fail("cannot tell the positional scheme of model_type \"" + type_ +
           "\": no rope_theta, rope_scaling, rope_parameters or position_embedding_type");
    }

    // Layer kinds.
    std::optional<std::vector<std::string>> layer_types = c.Strings("layer_types");
    std::optional<int64_t> sliding = c.Int("sliding_window", 1, kMaxAttentionWindow);
    const std::optional<bool> use_sliding = c.Bool("use_sliding_window");
    const std::optional<int64_t> chunk = c.Int("attention_chunk_size", 1, kMaxAttentionWindow);
    std::optional<int64_t> pattern = c.Int("sliding_window_pattern", 1, 100000);
    const std::optional<int64_t> max_window_layers = c.Int("max_window_layers", 0, 100000);
    std::vector<std::string> kinds(n, "");
    if (layer_types) {
      if (layer_types->size() != n) {
        Fail("layer_types has " + std::to_string(layer_types->size()) +
             " entries, but the model "
             "has " +
             std::to_string(n) + " layers");
      }
      kinds = *layer_types;
    } else if (type_ == "gemma3_text" || type_ == "gemma3" || type_ == "cohere2") {
      if (!pattern) {
        pattern = type_ == "cohere2" ? 4 : defaults_.sliding_pattern.value_or(6);
        Note("sliding_window_pattern not given: " + type_ + "'s default " +
             std::to_string(*pattern) + " (every " + std::to_string(*pattern) +
             "th layer global, the others sliding)");
      }
      // HF Gemma3DecoderLayer: is_sliding = bool((layer_idx + 1) % sliding_window_pattern).
      for (size_t i = 0; i < n; ++i) {
        kinds[i] = (i + 1) % static_cast<size_t>(*pattern) ? "sliding_attention" : "full_attention";
      }
    } else if (type_ == "gemma2") {
      // HF Gemma2DecoderLayer: is_sliding = not bool(layer_idx % 2).
      for (size_t i = 0; i < n; ++i) kinds[i] = i % 2 ? "full_attention" : "sliding_attention";
    } else if (type_ == "modernbert") {
      const int64_t every = c.Int("global_attn_every_n_layers", 1, 100000).value_or(3);
      for (size_t i = 0; i < n; ++i) {
        kinds[i] = i % static_cast<size_t>(every) ? "sliding_attention" : "full_attention";
      }
    }
    // NoPE layers: Llama 4's and SmolLM3's no_rope_layers (1: the layer uses RoPE, 0: NoPE; HF
    // Llama4TextAttention: use_rope = config.no_rope_layers[layer_idx]), or an interval.
    std::vector<bool> nope(n, false);
    if (const Json* nr = c.Get("no_rope_layers"); nr && !(nr->is_array() && nr->empty())) {
      if (!nr->is_array() || nr->size() != n) {
        c.Fail("no_rope_layers", "must be a list of " + std::to_string(n) + " 0/1 flags", nr);
      }
      for (size_t i = 0; i < n; ++i) {
        const Json& e = (*nr)[i];
        if (!(e.is_number_integer() || e.is_boolean())) {
          c.Fail("no_rope_layers", "must be a list of 0/1 flags", nr);
        }
        nope[i] = e.is_boolean() ? !e.get<bool>() : e.get<int64_t>() == 0;
      }
    } else {
      std::optional<int64_t> every = c.Int("no_rope_layer_interval", 1, 100000);
      if (!every) every = c.Int("nope_layer_interval", 1, 100000);
      if (!every && (type_ == "llama4_text" || type_ == "llama4")) {
        every = 4;
        Note(
            "no_rope_layers not given: every 4th layer is NoPE (Llama 4's no_rope_layer_interval)");
      }
      if (every) {
        for (size_t i = 0; i < n; ++i) nope[i] = (i + 1) % static_cast<size_t>(*every) == 0;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (nope[i] && kinds[i].empty()) kinds[i] = "no_rope";
    }
    // Llama 4: chunked attention on its RoPE layers, full causal on its NoPE layers.
    if (chunk && !layer_types) {
      for (size_t i = 0; i < n; ++i) {
        if (!nope[i]) kinds[i] = "chunked_attention";
      }
    }

    // Temperature (Llama 4's NoPE layers).
    AttentionTemperature temp;
    const std::optional<bool> tuning = c.Bool("attn_temperature_tuning");
    const std::optional<double> attn_scale = c.Number("attn_scale");
    const std::optional<double> floor_scale = c.Number("floor_scale");
    if (floor_scale && !(*floor_scale >= 1)) {
      c.Fail("floor_scale", "must be a number >= 1", c.Get("floor_scale"));
    }
    if (tuning.value_or(type_.rfind("llama4", 0) == 0)) {
      temp.kind = TemperatureKind::kLlama4;
      temp.scale = attn_scale.value_or(0.1);
      temp.floor = floor_scale.value_or(8192);
    }

    // Bases.
    std::optional<double> local_theta = c.Number("rope_local_base_freq");
    std::optional<double> global_theta = c.Number("global_rope_theta");
    if (auto v = c.Number("local_rope_theta")) local_theta = v;
    if (!local_theta && defaults_.local_theta) {
      local_theta = defaults_.local_theta;
      Note("rope_local_base_freq not given: " + type_ + "'s default " + Num(*local_theta) +
           " for the sliding layers, which take no scaling");
    }
    for (std::optional<double>* t : {&local_theta, &global_theta}) {
      if (*t && !(**t > 1)) Fail("a rope base must be greater than 1, got " + Num(**t));
    }

    // Gemma 2's soft cap on the attention logits (HF modeling_gemma2.py eager_attention_forward:
    // scores / cap, tanh, * cap, before the mask and the softmax): a change of the scores the
    // score and attention views do not apply.
    if (std::optional<double> cap = c.Number("attn_logit_softcapping"); cap && *cap > 0) {
      Unsupported("attn_logit_softcapping " + Num(*cap));
      Note("attn_logit_softcapping " + Num(*cap) +
           ": the model's scores become cap * tanh(score / cap) before the softmax; the score and "
           "attention views show them uncapped");
    }

    // Softmax scale: Gemma's query_pre_attn_scalar, DeepSeek's q head dim and YaRN mscale.
    double softmax = 0;
    std::optional<double> qpas = c.Number("query_pre_attn_scalar");
    if (!qpas) qpas = defaults_.query_pre_attn_scalar;
    if (qpas) {
      if (!(*qpas > 0))
        c.Fail("query_pre_attn_scalar", "must be a number > 0", c.Get("query_pre_attn_scalar"));
      softmax = 1 / std::sqrt(*qpas);
    }
    std::optional<int64_t> rope_dim = c.Int("qk_rope_head_dim", 2, 65536);
    if (rope_dim) {
      const int64_t nope_dim = c.Int("qk_nope_head_dim", 0, 65536).value_or(0);
      s_.shape.head_dim = nope_dim + *rope_dim;
      softmax = 1 / std::sqrt(static_cast<double>(nope_dim + *rope_dim));
      Note("multi-head latent attention: RoPE on qk_rope_head_dim " + std::to_string(*rope_dim) +
           " dims of the query head's " + std::to_string(nope_dim + *rope_dim) + "; the other " +
           std::to_string(nope_dim) + " carry no position");
    }

    const double default_theta = 10000;
    for (size_t i = 0; i < n; ++i) {
      LayerPosition& l = s_.layers[i];
      const std::string& kind = kinds[i];
      l.type = kind;
      if (nope[i]) {
        l.pe.d_model = s_.shape.head_dim;
        l.pe.max_len = sh.context;
        l.pe.scheme = NopeParams{};
        l.window = base_window;
        l.temperature = temp;
        l.softmax_scale = softmax;
        continue;
      }
      const bool local = kind == "sliding_attention";
      const RopeSpec* spec = nullptr;
      if (specs.count(kind)) {
        spec = &specs[kind];
      } else if (specs.count("")) {
        spec = &specs[""];
      } else if (kind.empty()) {
        Fail(
            "rope_parameters is given per layer type, but the config does not say which type "
            "layer " +
            std::to_string(i) + " is (no layer_types)");
      } else {
        Fail("rope_parameters has no entry for layer type \"" + kind + "\" (layer " +
             std::to_string(i) + ")");
      }
      RopeSpec use = *spec;
      double theta = use.theta.value_or(0);
      const bool per_type = specs.size() > 1 || !specs.count("");
      if (!per_type && local && local_theta) {
        // Gemma 3 (v4): local layers turn at rope_local_base_freq with the default rope; the
        // scaling applies to the global layers only. ModernBERT likewise with local_rope_theta.
        theta = *local_theta;
        use.rope.scaling = RopeScaling::kNone;
      } else if (!per_type && !local && global_theta) {
        theta = *global_theta;
      }
      if (theta == 0) {
        if (defaults_.theta) {
          theta = *defaults_.theta;
          if (!theta_noted_) Note("rope_theta not given: " + type_ + "'s default " + Num(theta));
          theta_noted_ = true;
        } else {
          theta = default_theta;
          if (i == 0) Note("rope_theta not given: HF's default 10000");
        }
      }
      l = RopeLayer(use, theta);
      l.type = kind;
      if (rope_dim) {
        l.pe.d_model = *rope_dim;
        if (l.pe.kind() == Scheme::kRope) {
          const RopeParams& r = l.pe.rope();
          double scale = softmax;
          // HF DeepseekV3Attention: scaling *= mscale^2 with mscale = yarn_get_mscale(factor,
          // mscale_all_dim) when mscale_all_dim is non-zero.
          if (r.scaling == RopeScaling::kYarn && r.mscale_all_dim != 0 && r.factor > 1) {
            const double m = 0.1 * r.mscale_all_dim * std::log(r.factor) + 1;
            scale *= m * m;
          }
          l.softmax_scale = scale;
        }
      } else {
        l.softmax_scale = softmax;
        if (l.pe.kind() == Scheme::kRope && use.proportional) {
          const double prop = use.partial_rotary_factor.value_or(rotary_fraction_);
          const auto pairs = static_cast<int64_t>(prop * static_cast<double>(l.pe.d_model)) / 2;
          if (!(prop > 0 && prop <= 1) || pairs < 1) {
            Fail(
                "partial_rotary_factor of the proportional rope type must be in (0, 1] and "
                "leave a turning pair, got " +
                Num(prop));
          }
          l.pe.rope().proportion = prop;
        } else if (l.pe.kind() == Scheme::kRope) {
          const double frac = use.partial_rotary_factor.value_or(rotary_fraction_);
          CheckFraction(
              use.partial_rotary_factor ? "rope_parameters.partial_rotary_factor" : rotary_key_,
              frac, l.pe.d_model);
          l.pe.rope().rotary_fraction = frac;
        }
        if (l.pe.kind() == Scheme::kRope && l.pe.rope().scaling == RopeScaling::kLongrope) {
          // HF _compute_longrope_parameters divides each of the d_rot / 2 frequencies by one
          // number of each list.
          const RopeParams& lr = l.pe.rope();
          const auto half = static_cast<size_t>(
              static_cast<int64_t>(static_cast<double>(l.pe.d_model) * lr.rotary_fraction) / 2);
          for (const auto* list : {&lr.short_factor, &lr.long_factor}) {
            if (list->size() != half) {
              Fail(std::string(list == &lr.short_factor ? "short_factor" : "long_factor") +
                   " has " + std::to_string(list->size()) +
                   " numbers; LongRoPE needs one per rotated pair, d_rot / 2 = " +
                   std::to_string(half));
            }
          }
        }
      }
      if (kind == "sliding_attention") {
        if (type_ == "modernbert") {
          const int64_t w = c.Int("local_attention", 2, kMaxAttentionWindow).value_or(128);
          l.window = {AttentionWindowKind::kSlidingBidirectional, w};
        } else {
          if (!sliding) sliding = defaults_.sliding_window;
          if (!sliding)
            Fail("layer " + std::to_string(i) + " slides, but sliding_window is not given");
          l.window = {AttentionWindowKind::kSliding, *sliding};
        }
      } else if (kind == "chunked_attention") {
        if (!chunk)
          Fail("layer " + std::to_string(i) + " is chunked, but attention_chunk_size is not given");
        l.window = {AttentionWindowKind::kChunked, *chunk};
      } else if (kind == "full_attention" || kind.empty()) {
        l.window = base_window;
        if (kind.empty() && sliding && !pattern &&
            use_sliding.value_or(type_ == "mistral" || type_ == "mixtral" || type_ == "phi3" ||
                                 type_ == "starcoder2")) {
          // HF Qwen2Config: with use_sliding_window, layers from max_window_layers on slide.
          const bool below = type_.rfind("qwen", 0) == 0 && max_window_layers &&
                             static_cast<int64_t>(i) < *max_window_layers;
          if (!below) l.window = {AttentionWindowKind::kSliding, *sliding};
        }
      } else {
        Unsupported("layer type \"" + kind + "\"");
        l.window = base_window;
      }
    }
    if (sliding && use_sliding && !*use_sliding) {
      Note("sliding_window " + std::to_string(*sliding) +
           " is given but use_sliding_window is false: every layer is causal");
    }
    if (temp.kind != TemperatureKind::kNone) {
      bool any_nope = false;
      for (bool b : nope) any_nope = any_nope || b;
      if (any_nope) {
        Note("attention temperature tuning (attn_scale " + Num(temp.scale) + ", floor_scale " +
             Num(temp.floor) + ") on the NoPE layers only, as HF Llama 4 applies it");
      }
    }
    const LayerPosition& first = s_.layers[static_cast<size_t>(FirstPositionalLayer(s_))];
    if (first.pe.kind() == Scheme::kRope && first.pe.rope().scaling != RopeScaling::kNone) {
      s_.shape.original_context = first.pe.rope().original_max_len;
      if (first.pe.rope().scaling == RopeScaling::kLinear) s_.shape.original_context = 0;
    }
    if (!InterleavedFamily(type_)) {
      bool rotary = false;
      for (const LayerPosition& l : s_.layers) {
        rotary = rotary || l.pe.kind() == Scheme::kRope || l.pe.kind() == Scheme::kMrope;
      }
      if (rotary) Note("pairs rotate in halves (HF rotate_half: dim i with i + d_rot / 2)");
    }
  }

  std::string name_;
  std::string type_;
  FamilyDefaults defaults_;
  ModelSchedule s_;
  int64_t encoder_layers_ = 0, decoder_layers_ = 0;
  bool context_given_ = false;
  bool theta_noted_ = false;
  bool fraction_noted_ = false;
  bool yarn_noted_ = false;
  std::string rotary_key_ = "partial_rotary_factor";
  std::optional<int64_t> top_original_;
  double rotary_fraction_ = 1.0;
};

}  // namespace

Result<ModelSchedule> ReadHfConfig(std::string_view json_text, std::string_view name,
                                   std::string_view source) {
  const std::string who = "config.json " + std::string(name);
  try {
    // nlohmann parses nesting by recursion: a real config nests a few levels, so a deep one is
    // refused before it can exhaust the stack.
    int depth = 0;
    bool in_string = false, escaped = false;
    for (const char ch : json_text) {
      if (in_string) {
        if (escaped) {
          escaped = false;
        } else if (ch == '\\') {
          escaped = true;
        } else if (ch == '"') {
          in_string = false;
        }
      } else if (ch == '"') {
        in_string = true;
      } else if (ch == '[' || ch == '{') {
        if (++depth > kMaxDepth) {
          return InvalidArgument(who + ": nested more than " + std::to_string(kMaxDepth) +
                                 " levels deep; a config.json nests a few");
        }
      } else if (ch == ']' || ch == '}') {
        --depth;
      }
    }
    Json root;
    try {
      root = Json::parse(json_text.begin(), json_text.end());
    } catch (const Json::parse_error& e) {
      // nlohmann's message names the line and column ("parse error at line 3, column 5: ...").
      std::string what = e.what();
      const size_t at = what.find("parse error");
      return InvalidArgument(
          who + ": not valid JSON: " + (at == std::string::npos ? what : what.substr(at)));
    }
    Reader reader(name, source);
    return reader.Read(root);
  } catch (const Refusal& r) {
    return InvalidArgument(r.message);
  } catch (const std::exception& e) {
    return InvalidArgument(who + ": " + e.what());
  }
}

}  // namespace pe
