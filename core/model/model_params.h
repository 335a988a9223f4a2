// The parameters of the model input the app shows: what `export` takes as flags too.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "encoding/mrope.h"
#include "encoding/positional_encoding.h"
#include "figure/colormap.h"
#include "model/attention_window.h"
#include "model/input_layer.h"

namespace pe {

struct ModelSchedule;  // model/model_schedule.h

// What the attention-score view scores: one seeded N(0, 1) vector used as both query and key
// content, all ones, or the embedding rows of two tokens of the sentence (A as the query, B as
// the key).
struct ScoreContent {
  enum class Kind { kRandom, kOnes, kTokens } kind = Kind::kRandom;
  int64_t token_a = 0, token_b = 1;
  bool operator==(const ScoreContent&) const = default;
};

// The similarity views' measure: PE(p).PE(q), or that over |PE(p)| |PE(q)|.
enum class SimilarityMeasure { kDot, kCosine };
// The precision view's low-precision format.
enum class LowPrecision { kBf16, kFp16 };
// What the compare view puts side by side.
enum class CompareOf { kScore, kTable };
// How the decay view scales each curve s(k) (k = 0..L-1): as it is; minus its value at
// distance 0; or as the softmax weight exp(s(k)) / sum_j exp(s(j)) over every distance.
enum class DecayNorm { kRaw, kMinusZero, kSoftmax };
// What the score view draws: the whole logit, or only what position adds to it (the logit
// minus the same logit with no positional scheme: views/score_views.cpp).
enum class ScorePart { kAll, kPosition };

// Which guided walkthrough the walkthrough view shows: from text to the model input (the eight
// input steps), or how position enters attention (the eight attention steps).
enum class WalkthroughKind { kInput, kAttention };
std::string_view WalkthroughKindName(WalkthroughKind kind);  // "input", "attention"
std::optional<WalkthroughKind> ParseWalkthroughKind(std::string_view name);

// Llama 4's attention temperature (its NoPE layers): the query at position p (0-based, as the
// reference code's positions) is multiplied by
//   tau(p) = 1 + scale * ln(floor((p + 1) / floor) + 1)
// (meta-llama/llama-models models/llama4/model.py Attention.forward, attn_scales from
// seq_positions = arange(start_pos, ...); HF transformers models/llama4/modeling_llama4.py
// Llama4TextAttention.forward, from cache_position; config attn_scale 0.1, floor_scale 8192).
// tau is 1 up to p = floor - 2 and grows by steps every `floor` positions after.
enum class TemperatureKind { kNone, kLlama4 };
struct AttentionTemperature {
  TemperatureKind kind = TemperatureKind::kNone;
  double scale = 0.1;     // attn_scale: any finite number
  double floor = 8192.0;  // floor_scale: a finite number >= 1
  bool operator==(const AttentionTemperature&) const = default;
};
// tau(p) in double precision: 1 for kNone.
double TemperatureAt(const AttentionTemperature& t, int64_t position);

struct ModelParams {
  EncodingParams pe;
  InputLayerParams input;
  TextExample example;
  std::vector<int64_t> curve_dims = {4, 5, 6, 7};
  ColormapId colormap = ColormapId::kRdBu;
  ScoreContent content;      // the attention-score view's query and key content
  bool causal_mask = false;  // the attention-score view hides keys after the query
  std::string compare;       // schemes the score and decay views put beside this one, "a,b"
  int64_t query = -1;        // the attention view's query position; -1: the view's default
  // The rotation view's offset K for the sinusoidal scheme: PE(p + K) = R(K) PE(p). It lives
  // here, not in ViewSelection beside rotation_position, because it is a parameter of what the
  // figure shows (recorded in its metadata and in sessions, set by the field table like every
  // flag), while p is where the view stands, moved by the slider and the play switch.
  int64_t rotation_offset = 1;
  std::string versus;  // the compare view's second configuration: "key=value,..."
  CompareOf compare_of = CompareOf::kScore;
  SimilarityMeasure measure = SimilarityMeasure::kDot;
  LowPrecision dtype = LowPrecision::kBf16;
  // The seed example the walkthrough follows (model/walkthrough_presets.h); empty: the current
  // example. Typed tables and the JAX pitfall are read from the preset by this name.
  std::string walkthrough_preset;
  // The check view's table: "FILE" or "FILE:TENSOR" (io/tensor_file.h), shape (L, d); empty:
  // none loaded. Read when the view is drawn, so the file is never copied into the params.
  std::string check_table;
  // The score views' query temperature (Llama 4); none: 1 at every position.
  AttentionTemperature temperature;
  MemoryCap cap;
  // The attention views' mask beyond the causal one (sliding, sliding-bidirectional, chunked;
  // model/attention_window.h); full otherwise. causal_mask and this are never both set: the
  // causal mask is --attention-window causal, kept in causal_mask as before.
  AttentionWindow attention_window;
  // The factor q.k is multiplied by before the bias and the softmax; 0: 1/sqrt(d_model).
  double softmax_scale = 0;
  // The mrope-neighbours view's query patch; image -1: the first image's centre.
  MropePatch mrope_patch;
  // The real model the positional parameters were taken from (--model NAME from the catalogue,
  // or --model-config FILE) and its layer (--layer; -1 until the model is opened: its first
  // positional layer). Setting them reads nothing: the command line opens the model
  // (arch/model_choice.h) before it applies the other flags, which override the layer's values.
  std::string model_name;
  std::string model_config;
  int64_t model_layer = -1;
  // The opened model's schedule (shared, immutable; compared by pointer), null when no model
  // is open; the layers view draws it.
  std::shared_ptr<const ModelSchedule> model;
  // The walkthrough view's walkthrough (--walkthrough).
  WalkthroughKind walkthrough = WalkthroughKind::kInput;
  // The decay view's normalisation and its log y axis (softmax weights only).
  DecayNorm decay_norm = DecayNorm::kRaw;
  bool decay_log_y = false;
  // The score view's whole logit or its position part.
  ScorePart score_part = ScorePart::kAll;
  bool operator==(const ModelParams&) const = default;
};

// The window the views apply: causal when causal_mask is set, else attention_window.
inline AttentionWindow EffectiveAttentionWindow(const ModelParams& m) {
  return m.causal_mask ? AttentionWindow{AttentionWindowKind::kCausal, 0} : m.attention_window;
}

}  // namespace pe
