// The tutorials' own worked examples, loadable in one click (the walkthrough panel) or with
// `--walkthrough-preset NAME`: each sets the example, the shape and the input layer as its
// tutorial does. Two of them are typed tables rather than a computation (the blog's "I love NLP"
// sum, set as --embedding-rows and --positional-rows) or teach a pitfall (the JAX notebook's
// discarded `.at[].set()`, set as InputLayerParams::pe_discarded): parameters, so every view,
// export and copied command shows the same numbers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/model_params.h"

namespace pe {

// Vectors typed by hand, as a tutorial prints them: (tokens, dims) row-major, rows named.
struct TypedVectors {
  std::vector<std::string> labels;  // (tokens)
  int64_t dims = 0;
  std::vector<float> embedding;   // (tokens, dims) the token embeddings
  std::vector<float> positional;  // (tokens, dims) the positional vectors
};

struct WalkthroughPreset {
  std::string_view name;      // the --walkthrough-preset value
  std::string_view label;     // the panel's button
  std::string_view source;    // which tutorial it comes from, in the project's words
  int focus_token = 0;        // the token the steps follow when the preset loads
  bool pe_discarded = false;  // the positional table the code builds stays zero (JAX pitfall)
  const TypedVectors* typed = nullptr;      // the printed rows apply() sets as typed rows
  void (*apply)(ModelParams& m) = nullptr;  // sets the example on default parameters
};

std::span<const WalkthroughPreset> WalkthroughPresets();
// The walkthrough a preset shows (what its apply() sets): input or attention.
WalkthroughKind PresetWalkthrough(const WalkthroughPreset& preset);
// Null for an unknown name (and for "").
const WalkthroughPreset* FindWalkthroughPreset(std::string_view name);
// Sets `m` to the preset's example: the default parameters (memory cap kept), then the preset's
// own. A preset of typed ids keeps the default sentence, so emptying the ids goes back to its
// tokens. "none" clears the preset name (and the JAX pitfall of its preset). An unknown name is an
// error listing the names.
Status ApplyWalkthroughPreset(const std::string& name, ModelParams& m);

}  // namespace pe
