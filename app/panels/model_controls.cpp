// The model picker at the top of the controls: a built-in model or a config.json / GGUF file,
// its layer, its card (the words of `pe-explorer describe`) and Detach. Picking a model sets
// the parameters as the command line's --model and --layer do (ui/model_pick.h); a refusal is
// shown in place and leaves the parameters as they were.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>

#include "arch/catalogue.h"
#include "arch/model_choice.h"
#include "figure/text_wrap.h"
#include "model/model_schedule.h"
#include "model/param_fields.h"
#include "panels/panels.h"
#include "ui/model_pick.h"

namespace pe {
namespace {

constexpr const char* kNoModel = "(none: free parameters)";
constexpr const char* kOpenConfig = "Open model config...";

// Applies a pick at the start of the next frame as an undo step of its own, or keeps its
// reason for the picker.
void ApplyPick(AppState& state, Result<ModelParams> next) {
  if (!next.ok()) {
    state.model_pick.error = InWindowTerms(next.message(), "");
    return;
  }
  QueueModelStep(state, std::move(next).value());
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

// A short number for a button: 10000 "1e4", 500000 "5e5", 160000 "1.6e5"; others as a field
// writes them.
std::string ShortNumber(double v) {
  if (v >= 1000 && v == std::floor(v) && v < 1e15) {
    int e = 0;
    double m = v;
    while (m >= 10) m /= 10, ++e;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4ge%d", m, e);
    return buf;
  }
  return FieldNumberText(v);
}

// A layer in a few words, for the compare button: "sliding 1024, base 1e4", "global, NoPE",
// "chunked 8192, base 5e5".
std::string LayerShortText(const LayerPosition& l) {
  std::string where;
  switch (l.window.kind) {
    case AttentionWindowKind::kFull:
    case AttentionWindowKind::kCausal:
      where = "global";
      break;
    case AttentionWindowKind::kSliding:
      where = "sliding " + std::to_string(l.window.size);
      break;
    case AttentionWindowKind::kSlidingBidirectional:
      where = "sliding " + std::to_string(l.window.size) + " both ways";
      break;
    case AttentionWindowKind::kChunked:
      where = "chunked " + std::to_string(l.window.size);
      break;
  }
  const EncodingParams& p = l.pe;
  switch (p.kind()) {
    case Scheme::kRope:
      return where + ", base " + ShortNumber(p.rope().theta);
    case Scheme::kXpos:
      return where + ", base " + ShortNumber(p.xpos().theta);
    case Scheme::kMrope:
      return where + ", base " + ShortNumber(p.mrope().theta);
    case Scheme::kNope:
      return where + ", NoPE";
    default:
      return where + ", " + std::string(SchemeName(p.kind()));
  }
}

// The first layer whose treatment differs from layer `layer`'s (LayerClasses' order), or -1.
int64_t FirstOtherTreatment(const ModelSchedule& s, int64_t layer) {
  if (layer < 0 || layer >= static_cast<int64_t>(s.layers.size())) return -1;
  for (const LayerClass& c : LayerClasses(s)) {
    if (!(*c.layer == s.layers[static_cast<size_t>(layer)])) return c.layers.front();
  }
  return -1;
}

void DrawModelCard(const ModelSchedule& s) {
  if (!ImGui::CollapsingHeader("Model card")) return;
  std::istringstream lines(DescribeModelText(s));
  for (std::string line; std::getline(lines, line);) WrappedText(line);
}

}  // namespace

void QueueModelStep(AppState& state, ModelParams next) {
  Edit(state, [p = std::move(next)](AppState& st) mutable {
    ApplyModelStep(st, std::move(p), ImGui::GetTime(), ImGui::IsAnyItemActive());
  });
}

std::string CompareOtherLayerLabel(const ModelParams& p) {
  if (!p.model) return "";
  const ModelSchedule& s = *p.model;
  const int64_t other = FirstOtherTreatment(s, p.model_layer);
  if (other < 0) return "";
  return "Compare layer " + std::to_string(p.model_layer) + " (" +
         LayerShortText(s.layers[static_cast<size_t>(p.model_layer)]) + ") with layer " +
         std::to_string(other) + " (" + LayerShortText(s.layers[static_cast<size_t>(other)]) + ")";
}

void CompareWithLayer(AppState& state, int64_t layer) {
  const std::string versus = "layer=" + std::to_string(layer);
  const ParamField* field = FindParamField("--versus");
  Result<ModelParams> next = FieldEditResult(state.params, *field, versus);
  if (!next.ok()) {
    state.model_pick.error = InWindowTerms(next.message(), "");
    return;
  }
  Edit(state, [versus](AppState& st) {
    (void)FindParamField("--versus")->set(st.params, versus);
    st.select_tab = ViewKind::kCompare;
    st.focused_view = ViewKind::kCompare;
    st.model_pick.error.clear();
  });
}

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
    // Read on the loading job (open_table_dialog.cpp applies what it read), as a dropped file.
    if (go && pick.path.empty()) {
      pick.error = InWindowTerms(PickModelConfig(p, "").message(), "");
    } else if (go) {
      pick.open_request = pick.path;
    }
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
  // One click compares this layer with the first of another treatment (Gemma 3's local and
  // global layers, Llama 4's RoPE and NoPE layers); the label, wrapped to the panel, names both.
  if (const std::string label = CompareOtherLayerLabel(p); !label.empty()) {
    const float pad = ImGui::GetStyle().FramePadding.x * 2;
    std::string lines;
    for (const std::string& line : WrapText(
             label, ImGui::GetContentRegionAvail().x - pad,
             [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; }, false)) {
      lines += (lines.empty() ? "" : "\n") + line;
    }
    if (ImGui::Button((lines + "###compare_layers").c_str())) {
      CompareWithLayer(state, FirstOtherTreatment(s, p.model_layer));
    }
    ItemTooltip(
        "Opens the compare view with A this layer (as the parameters are now) and B the first "
        "layer of another treatment, as --view compare --versus \"layer=N\" does. A right-click "
        "on a layer in the layers view compares any other layer.");
  }
  if (ImGui::Button("Detach")) ApplyPick(state, DetachModel(p));
  ItemTooltip(
      "Drop the link to the model and keep every parameter as it is now (Edit > Undo brings "
      "the link back).");
  DrawModelCard(s);
  ImGui::Separator();
}

}  // namespace pe
