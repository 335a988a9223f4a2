// Named sinusoidal presets: the settings of the sinusoidal tables in code people copy (fairseq,
// Whisper, Hugging Face models, tutorials), each written as our SinusoidalParams plus a first
// position. A preset is only listed when our parameters reproduce its source exactly for every
// width the source itself accepts; sinusoidal_presets.cpp says which source each one follows.
#pragma once

#include <span>
#include <string_view>

#include "base/status.h"
#include "encoding/encoding_params.h"

namespace pe {

struct SinusoidalPreset {
  std::string_view name;    // command-line name, lower-case with dashes: "fairseq", "whisper", ...
  std::string_view label;   // shown in the app: "fairseq", "Whisper", ...
  std::string_view source;  // repository and file (and function/class) it follows
  std::string_view note;    // one line: what is special (e.g. "rows start at padding_idx + 1 = 2")
};

// Every preset, in the order the app lists them.
std::span<const SinusoidalPreset> SinusoidalPresets();

// Sets params.scheme to the preset's SinusoidalParams and params.offset (and anything that
// depends on d_model, e.g. output_scale = d^-0.5 for x-transformers), keeping d_model and
// max_len. Whatever scheme params held before is replaced. Unknown name: an error naming it and
// listing the known names; params is left as it was.
Status ApplySinusoidalPreset(std::string_view name, EncodingParams& params);

}  // namespace pe
