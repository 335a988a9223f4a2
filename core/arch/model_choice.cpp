#include "arch/model_choice.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "arch/catalogue.h"
#include "arch/open_model.h"
#include "model/param_fields.h"
#include "text/subword_tokenizer.h"

namespace pe {

int64_t ModelDefaultRows(const ModelSchedule& s, int64_t layer) {
  // A layer's own table length when it has one (Whisper's encoder: 1500 rows of
  // max_source_positions, its decoder 448), else the model's context.
  int64_t rows = s.shape.context;
  if (layer >= 0 && layer < static_cast<int64_t>(s.layers.size()) &&
      s.layers[static_cast<size_t>(layer)].pe.max_len > 0) {
    rows = s.layers[static_cast<size_t>(layer)].pe.max_len;
  }
  int64_t cap = kModelDefaultRows;
  if (layer >= 0 && layer < static_cast<int64_t>(s.layers.size())) {
    // A window or a temperature that changes past kModelDefaultRows would not be seen: twice its
    // boundary (a chunk C, a sliding window W, Llama 4's floor_scale) shows where it acts and a
    // second time, up to kModelBoundaryRows.
    const LayerPosition& l = s.layers[static_cast<size_t>(layer)];
    double boundary = 0;
    if (l.window.kind != AttentionWindowKind::kCausal &&
        l.window.kind != AttentionWindowKind::kFull) {
      boundary = static_cast<double>(l.window.size);
    }
    if (l.temperature.kind != TemperatureKind::kNone) {
      boundary = std::max(boundary, l.temperature.floor);
    }
    // A boundary at or past the context never acts (Phi-3's sliding_window 262144).
    if (boundary < static_cast<double>(rows)) {
      cap = std::clamp(static_cast<int64_t>(2 * boundary), kModelDefaultRows, kModelBoundaryRows);
    }
  }
  return rows > 0 ? std::min(rows, cap) : cap;
}

Status OpenModel(ModelParams& m) {
  const bool named = !m.model_name.empty(), filed = !m.model_config.empty();
  if (named && filed) {
    return InvalidArgument(
        "--model and --model-config both name a model (\"" + m.model_name + "\" and \"" +
        m.model_config +
        "\"): give one of them, --model NAME for a built-in model or --model-config FILE for a "
        "config.json or GGUF file");
  }
  if (!named && !filed) {
    m.model = nullptr;
    if (m.model_layer >= 0) {
      return InvalidArgument("--layer " + std::to_string(m.model_layer) +
                             " picks a layer of a model: give --model NAME or --model-config "
                             "FILE with it");
    }
    return {};
  }
  if (!m.model) {
    Result<ModelSchedule> s =
        named ? CatalogueModel(m.model_name) : OpenModelConfig(m.model_config, m.cap);
    if (!s.ok()) {
      const std::string message = s.message();
      if (!named && message.rfind("--model-config", 0) != 0) {
        return Error{s.error().kind, "--model-config " + m.model_config + ": " + message};
      }
      return s.error();
    }
    m.model = std::make_shared<const ModelSchedule>(std::move(s).value());
  }
  const ModelSchedule& s = *m.model;
  // A GGUF file brings its tokenizer (tokenizer.ggml.*) when no tokenizer file is given and it
  // has one that loads; --tokenizer-file FILE.gguf says why one does not.
  if (filed && m.example.tokenizer_file.empty() && s.format.rfind("GGUF", 0) == 0) {
    Result<std::shared_ptr<const SubwordTokenizer>> t = LoadSubwordTokenizer(m.model_config, m.cap);
    if (t.ok()) {
      m.example.tokenizer_file = m.model_config;
      m.example.subword = std::move(t).value();
    }
  }
  const int64_t layer = m.model_layer >= 0 ? m.model_layer : FirstPositionalLayer(s);
  m.pe.max_len = ModelDefaultRows(s, layer);
  m.pe.offset = 0;
  if (Status st = ApplyLayer(s, layer, m); !st.ok()) return st;
  m.model_layer = layer;
  return {};
}

namespace {

// Copies into `layer` what m's scheme parameters hold that a schedule never sets: the inputs
// (M-RoPE's images, a loaded or drawn table and its seed, dynamic NTK's current length) and
// the views' choices (the part shown, the head shown, xPos's side). Nothing when the schemes
// differ.
void KeepInputs(const EncodingParams& m, EncodingParams& layer) {
  if (m.kind() != layer.kind()) return;
  switch (m.kind()) {
    case Scheme::kLearned:
      layer.learned() = m.learned();
      break;
    case Scheme::kRope:
      layer.rope().part = m.rope().part;
      layer.rope().sequence_len = m.rope().sequence_len;
      break;
    case Scheme::kAlibi:
      layer.alibi().head = m.alibi().head;
      break;
    case Scheme::kT5:
      layer.t5().head = m.t5().head;
      layer.t5().seed = m.t5().seed;
      layer.t5().bias = m.t5().bias;
      break;
    case Scheme::kXpos:
      layer.xpos().part = m.xpos().part;
      layer.xpos().side = m.xpos().side;
      break;
    case Scheme::kMrope:
      layer.mrope().images = m.mrope().images;
      layer.mrope().part = m.mrope().part;
      break;
    case Scheme::kSinusoidal:
    case Scheme::kNope:
      break;
  }
}

}  // namespace

bool ModelModified(const ModelParams& m) {
  if (!m.model || m.model_layer < 0) return false;
  // Drawn every frame (the status line, the model controls): a default ModelParams with m's rows,
  // not a copy of m, which may hold a vocabulary and its embeddings. ApplyLayer sets only the
  // fields compared below; what the schedule does not set (the inputs, the views' choices) is
  // m's own.
  ModelParams layer;
  layer.pe.max_len = m.pe.max_len;
  layer.pe.offset = m.pe.offset;
  if (!ApplyLayer(*m.model, m.model_layer, layer).ok()) return true;
  KeepInputs(m.pe, layer.pe);
  return !(layer.pe == m.pe && layer.causal_mask == m.causal_mask &&
           layer.attention_window == m.attention_window && layer.temperature == m.temperature &&
           layer.softmax_scale == m.softmax_scale);
}

std::vector<std::string> ModelEdits(const ModelParams& m) {
  std::vector<std::string> out;
  if (!m.model || m.model_layer < 0) return out;
  ModelParams layer = m;
  if (!ApplyLayer(*m.model, m.model_layer, layer).ok()) return out;
  KeepInputs(m.pe, layer.pe);
  for (const ParamField& f : ParamFields()) {
    if (f.key.empty() || f.key == "model" || f.key == "model_config" || f.key == "layer") continue;
    const bool in_m = f.WhyNotApplicable(m).empty() && f.recorded(m);
    const bool in_layer = f.WhyNotApplicable(layer).empty() && f.recorded(layer);
    if (!in_m && !in_layer) continue;
    if (in_m != in_layer || f.get(m) != f.get(layer)) out.emplace_back(f.key);
  }
  return out;
}

std::string ModelLabel(const ModelParams& m) {
  if (m.model_name.empty() && m.model_config.empty()) return "";
  const std::string name = m.model ? m.model->name
                           : !m.model_name.empty()
                               ? m.model_name
                               : std::filesystem::path(m.model_config).filename().string();
  return (ModelModified(m) ? "modified from " : "") + name + ", layer " +
         std::to_string(std::max<int64_t>(m.model_layer, 0));
}

std::vector<LayerClass> LayerClasses(const ModelSchedule& s) {
  std::vector<LayerClass> out;
  for (size_t i = 0; i < s.layers.size(); ++i) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const LayerClass& c) { return *c.layer == s.layers[i]; });
    if (it == out.end()) {
      out.push_back({&s.layers[i], {}});
      it = out.end() - 1;
    }
    it->layers.push_back(static_cast<int64_t>(i));
  }
  return out;
}

std::string LayerRangesText(const std::vector<int64_t>& layers) {
  std::string out;
  for (size_t i = 0; i < layers.size();) {
    size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    // Each piece appended on its own ("-" + to_string(...) draws a false -Wrestrict from
    // GCC 12's inlined string concatenation).
    if (!out.empty()) out.append(", ");
    out.append(std::to_string(layers[i]));
    if (j > i) {
      out.push_back('-');
      out.append(std::to_string(layers[j]));
    }
    i = j + 1;
  }
  return out;
}

namespace {

std::string Num(double v) {
  return FieldNumberText(v);
}

// "llama3 factor 8 low 1 high 4 original 8192": the scaling and the numbers it reads.
std::string ScalingText(const RopeParams& r) {
  std::string out(RopeScalingName(r.scaling));
  const std::string factor = " factor " + Num(r.factor);
  const std::string original = " original " + std::to_string(r.original_max_len);
  switch (r.scaling) {
    case RopeScaling::kNone:
      return out;
    case RopeScaling::kLinear:
    case RopeScaling::kNtk:
      return out + factor;
    case RopeScaling::kDynamicNtk:
      return out + factor + original;
    case RopeScaling::kLlama3:
      return out + factor + " low " + Num(r.low_freq_factor) + " high " + Num(r.high_freq_factor) +
             original;
    case RopeScaling::kYarn:
      out +=
          factor + " beta_fast " + Num(r.beta_fast) + " beta_slow " + Num(r.beta_slow) + original;
      if (r.attention_factor) out += " attention_factor " + Num(*r.attention_factor);
      if (r.mscale != 0 && r.mscale_all_dim != 0) {
        out += " mscale " + Num(r.mscale) + " mscale_all_dim " + Num(r.mscale_all_dim);
      }
      if (!r.yarn_truncate) out += " not truncated";
      return out;
    case RopeScaling::kLongrope:
      return out + original + " max_position_embeddings " +
             std::to_string(r.max_position_embeddings);
  }
  return out;
}

// The layers table's scaling column: the name and, where the scaling has one, its factor
// ("yarn x40", "llama3 x8", "linear x4"); "none"; LongRoPE's factor is the context ratio its
// lists are chosen by, not a divisor, so "longrope" alone.
std::string ScalingColumn(const RopeParams& r) {
  std::string out(RopeScalingName(r.scaling));
  if (r.scaling != RopeScaling::kNone && r.scaling != RopeScaling::kLongrope) {
    out += " x" + Num(r.factor);
  }
  return out;
}

int64_t RotaryDims(const EncodingParams& p) {
  const RopeParams& r = p.rope();
  if (r.proportion < 1.0) {
    return 2 * static_cast<int64_t>(r.proportion * static_cast<double>(p.d_model / 2));
  }
  // HF: int(head_dim * partial_rotary_factor), even.
  return static_cast<int64_t>(static_cast<double>(p.d_model) * r.rotary_fraction) / 2 * 2;
}

std::string TemperatureText(const AttentionTemperature& t) {
  if (t.kind == TemperatureKind::kNone) return "none";
  return "llama4:" + Num(t.scale) + ":" + Num(t.floor);
}

}  // namespace

std::string InputText(const ModelSchedule& s) {
  const std::string init = "initialised N(0, " + Num(s.embedding_init_std) + "^2)";
  if (s.embedding_scale == 1) return "token embeddings added unscaled, " + init;
  const double squared = s.embedding_scale * s.embedding_scale;
  const std::string root = std::fabs(squared - std::round(squared)) < 1e-9 * squared
                               ? "sqrt(" + Num(std::round(squared)) + ") = "
                               : std::string();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", s.embedding_scale);
  return "token embeddings x " + root + buf + ", " + init;
}

LayerColumns LayerColumnsOf(const LayerPosition& l) {
  LayerColumns c;
  const EncodingParams& p = l.pe;
  c.scheme = std::string(SchemeName(p.kind()));
  switch (p.kind()) {
    case Scheme::kSinusoidal:
      c.base = Num(p.sinusoidal().base);
      break;
    case Scheme::kRope:
      c.base = Num(p.rope().theta);
      c.scaling = ScalingColumn(p.rope());
      c.pairing = std::string(RopePairingName(p.rope().pairing));
      c.rotary = std::to_string(RotaryDims(p));
      break;
    case Scheme::kXpos:
      c.base = Num(p.xpos().theta);
      c.pairing = "interleaved";
      c.rotary = std::to_string(p.d_model);
      break;
    case Scheme::kMrope:
      c.base = Num(p.mrope().theta);
      c.pairing = std::string(RopePairingName(p.mrope().pairing));
      c.rotary = std::to_string(p.d_model);
      break;
    default:
      break;
  }
  c.window = AttentionWindowText(l.window);
  c.temperature = TemperatureText(l.temperature);
  return c;
}

std::string LayerTreatmentText(const LayerPosition& l) {
  const EncodingParams& p = l.pe;
  std::string out(SchemeName(p.kind()));
  const std::string dims = std::to_string(p.d_model) + " dims";
  switch (p.kind()) {
    case Scheme::kSinusoidal:
      out += " base " + Num(p.sinusoidal().base) + ", " + dims;
      break;
    case Scheme::kLearned:
    case Scheme::kNope:
      out += ", " + dims;
      break;
    case Scheme::kRope: {
      const RopeParams& r = p.rope();
      out += " theta " + Num(r.theta);
      if (r.scaling != RopeScaling::kNone) out += " " + ScalingText(r);
      out += ", " + std::string(RopePairingName(r.pairing)) + " pairing, " + dims;
      if (RotaryDims(p) != p.d_model) {
        out += " (" + std::to_string(RotaryDims(p)) + " rotated)";
      }
      break;
    }
    case Scheme::kAlibi:
      out += " " + std::to_string(p.alibi().heads) + " heads max_bias " + Num(p.alibi().max_bias) +
             ", " + dims;
      break;
    case Scheme::kT5:
      out += " " + std::to_string(p.t5().buckets) + " buckets max_distance " +
             std::to_string(p.t5().max_distance) + " " +
             std::string(T5DirectionName(p.t5().direction)) + ", " + dims;
      break;
    case Scheme::kXpos:
      out +=
          " theta " + Num(p.xpos().theta) + " scale_base " + Num(p.xpos().scale_base) + ", " + dims;
      break;
    case Scheme::kMrope:
      out += " theta " + Num(p.mrope().theta) + " " +
             std::string(MropeLayoutName(p.mrope().layout)) + ", " +
             std::string(RopePairingName(p.mrope().pairing)) + " pairing, " + dims;
      break;
  }
  out += ", " + AttentionWindowText(l.window);
  if (l.temperature.kind != TemperatureKind::kNone) {
    out += ", temperature " + TemperatureText(l.temperature);
  }
  if (l.softmax_scale != 0) out += ", softmax scale " + Num(l.softmax_scale);
  if (!l.type.empty()) out += " (" + l.type + ")";
  return out;
}

std::string DescribeModelText(const ModelSchedule& s) {
  std::string out;
  auto line = [&out](const std::string& key, const std::string& value) {
    if (!value.empty()) out += key + ": " + value + "\n";
  };
  auto number = [&line](const std::string& key, int64_t v) {
    if (v != 0) line(key, std::to_string(v));
  };
  line("name", s.name);
  line("source", s.source);
  line("format", s.format);
  line("model_type", s.model_type);
  number("layers", s.shape.layers);
  number("heads", s.shape.heads);
  number("kv_heads", s.shape.kv_heads);
  number("head_dim", s.shape.head_dim);
  number("hidden", s.shape.hidden);
  number("vocab", s.shape.vocab);
  number("context", s.shape.context);
  number("original_context", s.shape.original_context);
  line("input", InputText(s));
  for (const LayerClass& c : LayerClasses(s)) {
    out += (c.layers.size() == 1 ? "layer " : "layers ") + LayerRangesText(c.layers) + ": " +
           LayerTreatmentText(*c.layer) + "\n";
  }
  auto list = [&out](const std::string& title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out += title + ":\n";
    for (const std::string& i : items) out += "  " + i + "\n";
  };
  list("unknown keys", s.unknown_keys);
  list("unsupported", s.unsupported);
  list("notes", s.notes);
  return out;
}

std::string DescribeModelJson(const ModelSchedule& s, int64_t layer) {
  nlohmann::ordered_json j;
  j["name"] = s.name;
  j["source"] = s.source;
  j["format"] = s.format;
  j["model_type"] = s.model_type;
  j["shape"] = {{"layers", s.shape.layers},     {"heads", s.shape.heads},
                {"kv_heads", s.shape.kv_heads}, {"head_dim", s.shape.head_dim},
                {"hidden", s.shape.hidden},     {"vocab", s.shape.vocab},
                {"context", s.shape.context},   {"original_context", s.shape.original_context}};
  j["first_positional_layer"] = FirstPositionalLayer(s);
  j["input"] = {{"embedding_scale", s.embedding_scale},
                {"embedding_init_std", s.embedding_init_std},
                {"text", InputText(s)}};
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const LayerClass& c : LayerClasses(s)) {
    const LayerColumns col = LayerColumnsOf(*c.layer);
    nlohmann::ordered_json r;
    r["layers"] = c.layers;
    r["ranges"] = LayerRangesText(c.layers);
    r["text"] = LayerTreatmentText(*c.layer);
    r["scheme"] = col.scheme;
    r["base"] = col.base;
    r["scaling"] = col.scaling;
    r["pairing"] = col.pairing;
    r["rotary"] = col.rotary;
    r["d_model"] = c.layer->pe.d_model;
    r["window"] = col.window;
    r["temperature"] = col.temperature;
    r["softmax_scale"] = c.layer->softmax_scale;
    r["type"] = c.layer->type;
    runs.push_back(std::move(r));
  }
  j["layer_runs"] = std::move(runs);
  j["unknown_keys"] = s.unknown_keys;
  j["unsupported"] = s.unsupported;
  j["notes"] = s.notes;
  if (layer >= 0 && layer < static_cast<int64_t>(s.layers.size())) {
    const LayerPosition& l = s.layers[static_cast<size_t>(layer)];
    j["chosen_layer"] = {{"layer", layer}, {"text", LayerTreatmentText(l)}};
  }
  return j.dump(2) + "\n";
}

}  // namespace pe
