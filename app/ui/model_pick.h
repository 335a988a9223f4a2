// The window's model choice: a built-in model or a config.json / GGUF file opened into the
// parameters as the command line's --model / --model-config / --layer open it
// (arch/model_choice.h), a layer picked, the link dropped, and a restored session's model
// opened again. Each works on a copy and returns it, or the reason it was refused, so a
// refusal leaves the window's parameters as they were.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/model_params.h"

namespace pe {

// `params` with built-in model `name` opened (its first positional layer applied, the rows
// ModelDefaultRows, the first position 0), or why not. An empty name drops the model
// (DetachModel).
Result<ModelParams> PickCatalogueModel(const ModelParams& params, const std::string& name);
// The same for a config.json or GGUF file, read under params.cap.
Result<ModelParams> PickModelConfig(const ModelParams& params, const std::string& path);
// `params` with layer `layer` of its open model applied (ApplyLayer: the rows and the first
// position stay), or why not (no model open, or a layer out of range).
Result<ModelParams> PickModelLayer(const ModelParams& params, int64_t layer);
// `params` without the model link (name, file, layer and schedule); every parameter stays.
ModelParams DetachModel(const ModelParams& params);
// After a session or figure is read back: the model it names is opened again without
// applying its layer (the saved parameters, edited or not, stay as saved). A model that no
// longer opens adds a warning and is dropped; the parameters stay.
void ReopenSavedModel(ModelParams& params, std::vector<std::string>& warnings);

}  // namespace pe
