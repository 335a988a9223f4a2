// The model a user names (--model NAME, --model-config FILE, --layer N): opening it into
// ModelParams, telling whether other flags changed the layer it gave, and the model card
// (`pe-explorer describe`) as text and as JSON. The layers view and its table use the same
// words for a layer (LayerTreatmentText, LayerColumns).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/model_params.h"
#include "model/model_schedule.h"

namespace pe {

// The rows a model's table gets unless --max-len is given: its context, at most this many, so
// that every view of a long-context model (131072 positions and more) stays quick and within
// the default memory cap.
inline constexpr int64_t kModelDefaultRows = 4096;
// A layer whose window or temperature changes further out (Llama 4's chunk 8192 and
// floor_scale 8192, Mistral's sliding 4096) gets twice that boundary instead, at most this
// many rows (docs/PERFORMANCE.md: every view of Llama 4 at 16384 rows draws in about a second).
inline constexpr int64_t kModelBoundaryRows = 32768;
// Layer `layer`'s table length (the model's context when the layer gives none), at most
// kModelDefaultRows, or twice the layer's window or temperature floor when that is more (at
// most kModelBoundaryRows); -1: the model's context, at most kModelDefaultRows.
int64_t ModelDefaultRows(const ModelSchedule& s, int64_t layer = -1);

// Opens the model `m` names and applies its layer (model_layer, or FirstPositionalLayer when
// -1) with ApplyLayer: the scheme and its parameters, the width, the window, the temperature
// and the softmax scale; max_len becomes ModelDefaultRows. Sets m.model and m.model_layer.
// Nothing to do when neither --model nor --model-config is given, but --layer alone, or both
// names, are refused. Reads a file for --model-config (under m.cap); an error names the flag.
Status OpenModel(ModelParams& m);

// Whether the parameters differ from what the model's layer gives (the scheme, its
// parameters, the width, the window, the temperature, the softmax scale); the rows and the
// first position are the view's, not the model's. False without an open model.
bool ModelModified(const ModelParams& m);

// The keys of the fields (param_fields.h) whose values differ from what the model's layer gives,
// in the field table's order ("rope_theta", "d_model"): the user's edits, which a pick of another
// layer or model replaces. Empty without an open model or when ModelModified is false.
std::vector<std::string> ModelEdits(const ModelParams& m);

// "llama-3.1-8b, layer 0" or "modified from llama-3.1-8b, layer 0"; "" without a model.
std::string ModelLabel(const ModelParams& m);

// Layers with the same treatment (equal LayerPosition), in order of first appearance.
struct LayerClass {
  const LayerPosition* layer = nullptr;  // the first of them, in the schedule
  std::vector<int64_t> layers;           // ascending
};
std::vector<LayerClass> LayerClasses(const ModelSchedule& s);
// "0-2, 4-6, 8".
std::string LayerRangesText(const std::vector<int64_t>& layers);
// "rope theta 500000 llama3 factor 8 low 1 high 4 original 8192, half pairing, 128 dims,
// causal" (and the temperature, the softmax scale and the config's layer type when given).
std::string LayerTreatmentText(const LayerPosition& l);

// The layers table's columns for one layer (layer,scheme,base,scaling,pairing,rotary,window,
// temperature): "" where a column does not apply to the scheme.
struct LayerColumns {
  std::string scheme;       // SchemeName
  std::string base;         // theta (RoPE, xPos, M-RoPE) or the sinusoidal base
  std::string scaling;      // RoPE's scaling and its factor: none, linear x4, yarn x40, longrope
  std::string pairing;      // half or interleaved
  std::string rotary;       // the rotated dims: RoPE int(d * rotary_fraction), else d
  std::string window;       // AttentionWindowText: causal, full, sliding:4096, chunked:8192
  std::string temperature;  // none, or llama4:SCALE:FLOOR
};
LayerColumns LayerColumnsOf(const LayerPosition& l);

// The input layer in words: "token embeddings added unscaled, initialised N(0, 0.02^2)", or
// "token embeddings x sqrt(2560) = 50.5964, initialised N(0, 0.02^2)" (Gemma).
std::string InputText(const ModelSchedule& s);

// The model card: name, source, format, model_type, the shape, the input layer, one line per
// class of layers, then the unknown keys, what is not modelled and the notes.
std::string DescribeModelText(const ModelSchedule& s);
// With `layer` in range, the JSON also has "chosen_layer": {"layer": N, "text": ...}, as the
// text form's "chosen layer N: ..." line.
std::string DescribeModelJson(const ModelSchedule& s, int64_t layer = -1);

}  // namespace pe
