#include "ui/model_pick.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "arch/catalogue.h"
#include "arch/model_choice.h"
#include "arch/open_model.h"
#include "encoding/encoding.h"
#include "model/model_schedule.h"
#include "model/param_fields.h"

namespace pe {
namespace {

// The checks an edit of a field passes in the window (ValidateEncodingParams, the memory cap).
Result<ModelParams> Checked(ModelParams next) {
  Status s = ValidateEncodingParams(next.pe);
  if (s.ok()) s = CheckEncodingFits(next.pe, next.cap);
  if (!s.ok()) return s.error();
  return next;
}

Result<ModelParams> Opened(const ModelParams& params, const std::string& name,
                           const std::string& path) {
  ModelParams next = DetachModel(params);
  next.model_name = name;
  next.model_config = path;
  if (Status s = OpenModel(next); !s.ok()) return s.error();
  return Checked(std::move(next));
}

}  // namespace

Result<ModelParams> PickCatalogueModel(const ModelParams& params, const std::string& name) {
  if (name.empty()) return DetachModel(params);
  return Opened(params, name, "");
}

Result<ModelParams> PickModelConfig(const ModelParams& params, const std::string& path) {
  if (path.empty()) {
    return InvalidArgument("model config: give the path of a config.json or GGUF file");
  }
  return Opened(params, "", path);
}

Result<ModelParams> PickOpenedModel(const ModelParams& params, const std::string& path,
                                    ModelSchedule schedule) {
  ModelParams next = DetachModel(params);
  next.model_config = path;
  next.model = std::make_shared<const ModelSchedule>(std::move(schedule));
  if (Status s = OpenModel(next); !s.ok()) return s.error();
  return Checked(std::move(next));
}

Result<ModelParams> PickModelLayer(const ModelParams& params, int64_t layer) {
  if (!params.model) return InvalidArgument("layer: no model is open");
  ModelParams next = params;
  if (Status s = ApplyLayer(*params.model, layer, next); !s.ok()) return s.error();
  next.model_layer = layer;
  return Checked(std::move(next));
}

ModelParams DetachModel(const ModelParams& params) {
  ModelParams next = params;
  next.model_name.clear();
  next.model_config.clear();
  next.model_layer = -1;
  next.model = nullptr;
  return next;
}

std::string ModelStepNote(const ModelParams& before, const std::string& done, bool replaces) {
  std::vector<std::string> edits = replaces ? ModelEdits(before) : std::vector<std::string>{};
  if (edits.empty()) return done;
  for (std::string& e : edits) std::replace(e.begin(), e.end(), '_', ' ');
  std::string names;
  const size_t shown = std::min<size_t>(edits.size(), 3);
  for (size_t k = 0; k < shown; ++k) {
    if (k > 0) names += k + 1 == shown && edits.size() == shown ? " and " : ", ";
    names += edits[k];
  }
  if (edits.size() > shown) names += " and " + std::to_string(edits.size() - shown) + " more";
  const bool one = edits.size() == 1;
  return done + "; your edit" + (one ? "" : "s") + " of " + names + (one ? " was" : " were") +
         " replaced - Undo restores " + (one ? "it" : "them");
}

std::string ModelStepDone(const ModelParams& before, const ModelParams& next) {
  auto name = [](const ModelParams& p) {
    return p.model ? p.model->name : !p.model_name.empty() ? p.model_name : p.model_config;
  };
  if (!next.model) {
    return before.model ? "detached from " + name(before) + "; every value stays" : "no model";
  }
  const std::string layer = "layer " + std::to_string(next.model_layer);
  if (before.model == next.model) return layer + " applied";
  return name(next) + " opened, " + layer + " applied";
}

void ApplyModelStep(AppState& state, ModelParams next, double now, bool holding) {
  UndoHistory& h = state.history;
  const ModelParams& before = holding && h.committed ? h.committed->params : state.params;
  std::string note = ModelStepNote(before, ModelStepDone(before, next), next.model != nullptr);
  if (!holding) {
    // A change not yet committed is a step of its own before this one.
    if (h.committed && !(h.committed->params == state.params)) {
      h.undo.push_back(std::move(*h.committed));
    }
    h.undo.push_back(UndoStep{state.params, state.selection.selected_token});
    while (h.undo.size() > UndoHistory::kMaxSteps) h.undo.erase(h.undo.begin());
    h.redo.clear();
  }
  state.params = std::move(next);
  if (!holding) h.committed = UndoStep{state.params, state.selection.selected_token};
  ModelPickState& pick = state.model_pick;
  pick.error.clear();
  pick.enter_path = false;
  pick.note = std::move(note);
  pick.note_until = now + 8.0;
  pick.note_model = state.params.model;
  pick.note_layer = state.params.model_layer;
}

void ReopenSavedModel(ModelParams& params, std::vector<std::string>& warnings) {
  const bool named = !params.model_name.empty(), filed = !params.model_config.empty();
  if (params.model || (!named && !filed)) return;
  Result<ModelSchedule> s = named && !filed ? CatalogueModel(params.model_name)
                            : !named        ? OpenModelConfig(params.model_config, params.cap)
                                            : Result<ModelSchedule>(InvalidArgument(
                                                  "both a built-in model and a model file are named"));
  const int64_t layers = s.ok() ? static_cast<int64_t>(s.value().layers.size()) : 0;
  if (s.ok() && params.model_layer >= layers) {
    s = InvalidArgument("layer " + std::to_string(params.model_layer) + " is past its " +
                        std::to_string(layers) + " layers");
  }
  if (!s.ok()) {
    warnings.push_back("the model \"" + (named ? params.model_name : params.model_config) +
                       "\" was not opened (" + s.message() +
                       "); its parameters stay, without the model");
    params = DetachModel(params);
    return;
  }
  if (params.model_layer < 0) params.model_layer = FirstPositionalLayer(s.value());
  params.model = std::make_shared<const ModelSchedule>(std::move(s).value());
}

}  // namespace pe
