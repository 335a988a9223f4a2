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
#include "ui/app_state.h"

namespace pe {

// `params` with built-in model `name` opened (its first positional layer applied, the rows
// ModelDefaultRows, the first position 0), or why not. An empty name drops the model
// (DetachModel).
Result<ModelParams> PickCatalogueModel(const ModelParams& params, const std::string& name);
// The same for a config.json or GGUF file, read under params.cap.
Result<ModelParams> PickModelConfig(const ModelParams& params, const std::string& path);
// The same for a file already read (on the loading job) into `schedule`.
Result<ModelParams> PickOpenedModel(const ModelParams& params, const std::string& path,
                                    ModelSchedule schedule);
// `params` with layer `layer` of its open model applied (ApplyLayer: the rows and the first
// position stay), or why not (no model open, or a layer out of range).
Result<ModelParams> PickModelLayer(const ModelParams& params, int64_t layer);
// `params` without the model link (name, file, layer and schedule); every parameter stays.
ModelParams DetachModel(const ModelParams& params);
// What a model step did, for the status line: `done` ("layer 5 applied", "llama-3.1-8b
// opened", "detached from llama-3.1-8b"), then what of `before` it replaced: the user's edits
// of the model's layer (ModelEdits, named as the field's key with spaces: "rope theta") -
// "layer 5 applied; your edit of rope theta was replaced - Undo restores it". Detach replaces
// no value.
std::string ModelStepNote(const ModelParams& before, const std::string& done, bool replaces = true);
// Sets `next` as the parameters in one undo step of its own (Undo brings back the parameters
// before it, edits included), with the note for the status line (ModelStepNote of
// ModelStepDone) until `now` + a few seconds. `holding`: a widget is held (the layer slider
// dragged): the step is the drag's, committed when it is let go (RecordUndo), and the note
// speaks of the parameters before the drag.
void ApplyModelStep(AppState& state, ModelParams next, double now, bool holding);
// What a pick of `next` over `before` is called in its note: "llama-3.1-8b opened, layer 0",
// "layer 5 applied", "detached from llama-3.1-8b".
std::string ModelStepDone(const ModelParams& before, const ModelParams& next);

// After a session or figure is read back: the model it names is opened again without
// applying its layer (the saved parameters, edited or not, stay as saved). A model that no
// longer opens adds a warning and is dropped; the parameters stay.
void ReopenSavedModel(ModelParams& params, std::vector<std::string>& warnings);

}  // namespace pe
