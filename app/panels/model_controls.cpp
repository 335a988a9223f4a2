// The model picker at the top of the controls: a built-in model or a config.json / GGUF file,
// its layer, its card (the words of `pe-explorer describe`) and Detach. Picking a model sets
// the parameters as the command line's --model and --layer do (ui/model_pick.h); a refusal is
// shown in place and leaves the parameters as they were.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <utility>

#include "arch/catalogue.h"
#include "arch/model_choice.h"
#include "model/model_schedule.h"
#include "panels/panels.h"
#include "ui/model_pick.h"

namespace pe {
namespace {

constexpr const char* kNoModel = "(none: free parameters)";
constexpr const char* kOpenConfig = "Open model config...";

// Applies a pick at the start of the next frame, or keeps its reason for the picker.
void ApplyPick(AppState& state, Result<ModelParams> next) {
  if (!next.ok()) {
    state.model_pick.error = next.message();
    return;
  }
  Edit(state, [p = std::move(next).value()](AppState& st) {
    st.params = p;
    st.model_pick.error.clear();
    st.model_pick.enter_path = false;
  });
}

// What the combo shows for the open model: the catalogue title, or the file's name.
std::string ModelPreview(const ModelParams& p) {
  if (!p.model_name.empty()) {
    for (const CatalogueEntry& e : ModelCatalogue()) {
      if (e.name == p.model_name) return std::string(e.title);
    }
    return p.model_name;
  }
  if (!p.model_config.empty()) {
    return std::filesystem::path(p.model_config).filename().string();
  }
  return kNoModel;
}

void DrawModelCard(const ModelSchedule& s) {
  if (!ImGui::CollapsingHeader("Model card")) return;
  std::istringstream lines(DescribeModelText(s));
  for (std::string line; std::getline(lines, line);) WrappedText(line);
}

}  // namespace

void DrawModelControls(AppState& state) {
  const ModelParams& p = state.params;
  ModelPickState& pick = state.model_pick;
  ImGui::TextDisabled("Model");
  const std::string whole = ModelPreview(p);
  // Too wide beside its label: the title without its parenthesis ("Llama 4 Scout 17B-16E"),
  // whole in the tooltip.
  std::string preview = whole;
  const ImGuiStyle& style = ImGui::GetStyle();
  if (ImGui::CalcTextSize(whole.c_str()).x >
          ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("model").x -
              style.ItemInnerSpacing.x - ImGui::GetFrameHeight() - style.FramePadding.x * 2 &&
      whole.rfind(" (") != std::string::npos) {
    preview.resize(whole.rfind(" ("));
  }
  const bool refused = !pick.error.empty();
  if (refused) PushRefusedFrame();
  const char* shown[] = {preview.c_str()};
  FitComboWidth("model", shown);  // "Llama 4 Scout 17B-16E (text)" whole where the panel allows
  const bool open = ImGui::BeginCombo("model", preview.c_str(), ImGuiComboFlags_HeightLarge);
  const bool clipped = preview != whole || ComboClipped(preview.c_str());
  if (refused) PopRefusedFrame();
  if (open) {
    if (ImGui::Selectable(kNoModel, !p.model)) ApplyPick(state, PickCatalogueModel(p, ""));
    ItemTooltip("No model: every parameter is free, as set below.");
    int k = 0;
    for (const CatalogueEntry& e : ModelCatalogue()) {
      ImGui::PushID(k++);
      const std::string title(e.title);
      if (ImGui::Selectable(title.c_str(), p.model_name == e.name)) {
        ApplyPick(state, PickCatalogueModel(p, std::string(e.name)));
      }
      if (ImGui::IsItemHovered()) {
        WrappedTooltip((std::string(e.name) + "\n" + std::string(e.source)).c_str());
      }
      ImGui::PopID();
    }
    if (ImGui::Selectable(kOpenConfig, false)) pick.enter_path = true;
    ItemTooltip("A model's config.json or GGUF file (only its header is read).");
    ImGui::EndCombo();
  }
  ItemTooltip(((clipped ? whole + "\n\n" : std::string()) +
               "A real model: its layer's positional scheme, width, window and temperature, as the "
               "command line's --model NAME or --model-config FILE sets them. Edit any value below "
               "afterwards: the model stays recorded and the status line says \"modified from\".")
                  .c_str());
  if (pick.enter_path) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    bool go = ImGui::InputTextWithHint("file", "config.json or model.gguf", &pick.path,
                                       ImGuiInputTextFlags_EnterReturnsTrue);
    ItemTooltip("The path of a config.json or a GGUF file; Enter or Open reads it.");
    go |= ImGui::Button("Open");
    ImGui::SameLine();
    if (ImGui::Button("Cancel##model config")) {
      pick.enter_path = false;
      pick.error.clear();
    }
    // A config.json or a GGUF header is read in milliseconds: on the frame, not a job.
    if (go) ApplyPick(state, PickModelConfig(p, pick.path));
  }
  if (!pick.error.empty()) ErrorText(pick.error);
  if (!p.model) return;
  const ModelSchedule& s = *p.model;
  const int layers = static_cast<int>(s.layers.size());
  ImGui::TextUnformatted(ModelLabel(p).c_str());
  if (layers > 0) {
    int layer = static_cast<int>(p.model_layer);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (ImGui::SliderInt("layer", &layer, 0, layers - 1, "%d", ImGuiSliderFlags_AlwaysClamp) &&
        layer != p.model_layer) {
      ApplyPick(state, PickModelLayer(p, layer));
    }
    ItemTooltip("The model's layer shown (0-based), as --layer picks it.");
    if (p.model_layer >= 0 && p.model_layer < layers) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      WrappedText(LayerTreatmentText(s.layers[static_cast<size_t>(p.model_layer)]));
      ImGui::PopStyleColor();
    }
  }
  if (ImGui::Button("Detach")) ApplyPick(state, DetachModel(p));
  ItemTooltip("Drop the link to the model and keep every parameter as it is now.");
  DrawModelCard(s);
  ImGui::Separator();
}

}  // namespace pe
