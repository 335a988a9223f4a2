// A model's positional schedule: its shape and, for every layer, how position enters that layer
// (the scheme and its parameters, the attention window, the query temperature and the softmax
// scale). Read from a config.json or a GGUF file, or from the catalogue (core/arch); a view
// shows one layer by copying it into ModelParams (ApplyLayer).
//
// A model with an absolute table added at the input (GPT-2's learned table, Whisper's
// sinusoidal encoder table, BERT) gives every layer that table's parameters: it is what every
// layer sees of position. A model with several treatments (Gemma 3's local and global layers,
// Llama 4's RoPE and NoPE layers, ModernBERT's local and global) lists each layer's own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "encoding/encoding_params.h"
#include "model/attention_window.h"
#include "model/model_params.h"

namespace pe {

// One layer's positional treatment.
struct LayerPosition {
  // The scheme and its parameters. d_model is the width the scheme acts on: the head dim for
  // RoPE, xPos and M-RoPE (the rotated part follows rotary_fraction / proportion), the hidden
  // size for an absolute table, the head dim for ALiBi, T5 and NoPE. max_len is the model's
  // context (max_position_embeddings); offset 0.
  EncodingParams pe;
  // Which keys a query sees: causal for decoders, full for encoders, or a band or a block
  // (sliding, sliding-bidirectional, chunked).
  AttentionWindow window{AttentionWindowKind::kCausal, 0};
  AttentionTemperature temperature;  // Llama 4's NoPE layers; none elsewhere
  double softmax_scale = 0;          // q.k multiplier; 0: 1/sqrt(head_dim)
  // The config's name for this layer's kind ("full_attention", "sliding_attention",
  // "chunked_attention", "no_rope"); empty when the config names none.
  std::string type;
  bool operator==(const LayerPosition&) const = default;
};

// The numbers a model card shows; 0 when the config does not give one.
struct ModelShape {
  int64_t layers = 0;            // num_hidden_layers / {arch}.block_count
  int64_t heads = 0;             // num_attention_heads
  int64_t kv_heads = 0;          // num_key_value_heads (= heads when not given)
  int64_t head_dim = 0;          // head_dim, or hidden_size / heads
  int64_t hidden = 0;            // hidden_size / n_embd / d_model
  int64_t vocab = 0;             // vocab_size
  int64_t context = 0;           // max_position_embeddings / n_positions / {arch}.context_length
  int64_t original_context = 0;  // the pre-extension context of a scaled RoPE; 0: not scaled
  bool operator==(const ModelShape&) const = default;
};

struct ModelSchedule {
  std::string name;        // the catalogue name, or the file's name
  std::string source;      // where the configuration comes from (a URL, or the file's path)
  std::string model_type;  // config.json model_type, or GGUF general.architecture
  std::string format;      // "config.json (v4)", "config.json (v5)", "GGUF v3"
  ModelShape shape;
  std::vector<LayerPosition> layers;  // one per layer, shape.layers of them
  // Keys the reader did not use (listed, never fatal), and what the config asks for that the
  // app does not model, each a sentence ("this config asks for X; PE Explorer does not model
  // X"). Notes explain a mapping a user could get wrong (e.g. a GGUF's pairing).
  std::vector<std::string> unknown_keys;
  std::vector<std::string> unsupported;
  std::vector<std::string> notes;
  // The input layer: the token embeddings are multiplied by embedding_scale before anything is
  // added (1 for GPT-2, BERT, T5 and most HF models; sqrt(hidden_size) for the Gemma family, HF
  // modeling_gemma.py GemmaModel `normalizer = hidden_size**0.5`), and drawn from
  // N(0, embedding_init_std^2) (HF _init_weights: the config's initializer_range, 0.02 for
  // GPT-2 and BERT; T5's initializer_factor, 1.0).
  double embedding_scale = 1;
  double embedding_init_std = 0.02;
  bool operator==(const ModelSchedule&) const = default;
};

// The first layer with a positional scheme (not NoPE), or 0 when none has one.
int64_t FirstPositionalLayer(const ModelSchedule& s);

// Copies layer `layer`'s treatment into `m`: the scheme and its parameters, d_model, the
// attention window (causal_mask for a plain causal one), the temperature and the softmax scale,
// and the model's input layer: the sqrt(d_model) scaling on when embedding_scale is not 1 (an
// absolute table's d_model is the hidden size), the embeddings' initialiser N(0, 1) for
// embedding_init_std 1, else N(0, 0.02^2) (a reader names any other std as not modelled).
// Keeps m's rows (max_len), offset and everything a view owns. An error names the layer and the
// allowed range.
Status ApplyLayer(const ModelSchedule& s, int64_t layer, ModelParams& m);

}  // namespace pe
