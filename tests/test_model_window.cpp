// The window's model picker (panels/model_controls.cpp, ui/model_pick.h): a built-in model
// picked from the combo, the layer slider, a config file refused in place, Detach, and the
// model kept by a session. Expected values are the published Llama 4 Scout config
// (assets/models/llama-4-scout.json: rope_theta 500000, rope_scaling llama3 factor 16, low 1,
// high 1, original 8192, head_dim 128, attention_chunk_size 8192, no_rope_layers 0 at every
// 4th layer, attn_scale 0.1, floor_scale 8192), not the reader's output.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "arch/catalogue.h"
#include "arch/model_choice.h"
#include "arch/open_model.h"
#include "encoding/encoding.h"
#include "encoding/mrope.h"
#include "headless_ui.h"
#include "jobs/table_load_job.h"
#include "model/model_schedule.h"
#include "model/param_fields.h"
#include "panels/panels.h"
#include "session/session.h"
#include "ui/model_pick.h"
#include "ui/session.h"
#include "views/compare_view.h"

namespace pe {
namespace {

void ExpectScoutRopeLayer(const ModelParams& p) {
  ASSERT_EQ(p.pe.kind(), Scheme::kRope);
  const RopeParams& r = p.pe.rope();
  EXPECT_EQ(r.theta, 500000.0);
  EXPECT_EQ(r.scaling, RopeScaling::kLlama3);
  EXPECT_EQ(r.factor, 16.0);
  EXPECT_EQ(r.low_freq_factor, 1.0);
  EXPECT_EQ(r.high_freq_factor, 1.0);
  EXPECT_EQ(r.original_max_len, 8192);
  EXPECT_EQ(p.pe.d_model, 128);
  EXPECT_EQ(p.attention_window.kind, AttentionWindowKind::kChunked);
  EXPECT_EQ(p.attention_window.size, 8192);
  EXPECT_EQ(p.temperature.kind, TemperatureKind::kNone);
}

void ExpectScoutNopeLayer(const ModelParams& p) {
  EXPECT_EQ(p.pe.kind(), Scheme::kNope);
  EXPECT_EQ(p.pe.d_model, 128);
  EXPECT_EQ(p.temperature.kind, TemperatureKind::kLlama4);
  EXPECT_EQ(p.temperature.scale, 0.1);
  EXPECT_EQ(p.temperature.floor, 8192.0);
}

std::string TmpFile(const std::string& name, const std::string& text) {
  std::filesystem::create_directories(PE_TEST_TMP);
  const std::string path = std::string(PE_TEST_TMP) + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST(ModelPick, ACatalogueModelSetsItsFirstPositionalLayerAndTheLayerSliderAnother) {
  ModelParams p;
  p.pe.max_len = 100;
  Result<ModelParams> picked = PickCatalogueModel(p, "llama-4-scout");
  ASSERT_TRUE(picked.ok()) << picked.message();
  const ModelParams& m = picked.value();
  EXPECT_EQ(m.model_name, "llama-4-scout");
  EXPECT_EQ(m.model_layer, 0);
  ASSERT_NE(m.model, nullptr);
  EXPECT_EQ(m.model->layers.size(), 48u);
  ExpectScoutRopeLayer(m);
  // The rows as the command line's default: twice the chunk 8192 of layer 0, so that its
  // boundary is on screen (the context is 10485760).
  EXPECT_EQ(m.pe.max_len, 16384);
  EXPECT_FALSE(ModelModified(m));
  EXPECT_EQ(ModelLabel(m), "llama-4-scout, layer 0");

  Result<ModelParams> third = PickModelLayer(m, 3);
  ASSERT_TRUE(third.ok()) << third.message();
  EXPECT_EQ(third.value().model_layer, 3);
  ExpectScoutNopeLayer(third.value());
  EXPECT_EQ(third.value().pe.max_len, 16384);  // the rows stay
  EXPECT_EQ(ModelLabel(third.value()), "llama-4-scout, layer 3");
  Result<ModelParams> fifth = PickModelLayer(third.value(), 5);
  ASSERT_TRUE(fifth.ok());
  ExpectScoutRopeLayer(fifth.value());

  // Refusals name what is wrong and change nothing (the caller keeps its parameters).
  Result<ModelParams> past = PickModelLayer(m, 48);
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.message().find("48"), std::string::npos) << past.message();
  EXPECT_FALSE(PickModelLayer(p, 0).ok());
  Result<ModelParams> unknown = PickCatalogueModel(m, "llama-9");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("llama-9"), std::string::npos) << unknown.message();
}

TEST(ModelPick, DetachKeepsEveryParameterAndDropsTheLink) {
  Result<ModelParams> picked = PickCatalogueModel(ModelParams{}, "llama-4-scout");
  ASSERT_TRUE(picked.ok());
  ModelParams edited = picked.value();
  edited.pe.d_model = 64;
  EXPECT_TRUE(ModelModified(edited));
  EXPECT_EQ(ModelLabel(edited), "modified from llama-4-scout, layer 0");
  const ModelParams detached = DetachModel(edited);
  EXPECT_EQ(detached.model, nullptr);
  EXPECT_TRUE(detached.model_name.empty());
  EXPECT_EQ(detached.model_layer, -1);
  EXPECT_EQ(ModelLabel(detached), "");
  EXPECT_EQ(detached.pe, edited.pe);
  EXPECT_EQ(detached.attention_window, edited.attention_window);
  EXPECT_EQ(detached.temperature, edited.temperature);
}

TEST(ModelPick, ASessionReopensItsModelAndKeepsItsEditedParameters) {
  AppState state;
  Result<ModelParams> picked = PickCatalogueModel(state.params, "llama-4-scout");
  ASSERT_TRUE(picked.ok());
  Result<ModelParams> third = PickModelLayer(picked.value(), 3);
  ASSERT_TRUE(third.ok());
  state.params = third.value();
  state.params.pe.d_model = 96;  // edited after the pick: modified from the model
  const SessionDocument doc = MakeSessionDocument(SessionOf(state));
  Result<LoadedSession> loaded = SessionFromDocument(doc, ModelParams{});
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  AppState restored;
  std::vector<std::string> warnings;
  RestoreSession(restored, loaded.value().content, warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_NE(restored.params.model, nullptr);
  EXPECT_EQ(restored.params.model_name, "llama-4-scout");
  EXPECT_EQ(restored.params.model_layer, 3);
  EXPECT_EQ(restored.params.pe.d_model, 96);
  EXPECT_EQ(restored.params.pe.kind(), Scheme::kNope);
  EXPECT_EQ(ModelLabel(restored.params), "modified from llama-4-scout, layer 3");

  // A model file that no longer opens: a warning, the parameters without the model.
  ModelParams gone = state.params;
  gone.model = nullptr;
  gone.model_name.clear();
  gone.model_config = std::string(PE_TEST_TMP) + "/no_such_config.json";
  std::vector<std::string> w2;
  ReopenSavedModel(gone, w2);
  ASSERT_EQ(w2.size(), 1u);
  EXPECT_NE(w2[0].find("no_such_config.json"), std::string::npos) << w2[0];
  EXPECT_EQ(gone.model, nullptr);
  EXPECT_TRUE(gone.model_config.empty());
  EXPECT_EQ(gone.pe.d_model, 96);
}

// The combo in the controls: its first built-in model, picked with the pointer.
TEST_F(HeadlessUi, PickingAModelFromTheComboSetsItsLayerAndShowsTheLayersPanel) {
  Frames(2);
  ImGuiWindow* controls = nullptr;
  ImVec2 at;
  ASSERT_TRUE(FindControlsField("model", &controls, &at));
  Click(at);
  Frames(2);
  ImGuiWindow* popup = nullptr;
  for (ImGuiWindow* w : GImGui->Windows) {
    if (std::strncmp(w->Name, "##Combo_", 8) == 0 && w->Active) popup = w;
  }
  ASSERT_NE(popup, nullptr);
  const CatalogueEntry& first = ModelCatalogue()[0];
  const std::string title(first.title);
  ImVec2 item;
  ASSERT_TRUE(Find(popup, IdUnderInt(popup, 0, title.c_str()),
                   ImVec2(popup->Pos.x + 20, popup->Pos.y), false, &item));
  Click(item);
  Frames(2);
  EXPECT_EQ(state_.params.model_name, std::string(first.name));
  ASSERT_NE(state_.params.model, nullptr);
  Result<ModelParams> expected = PickCatalogueModel(ModelParams{}, std::string(first.name));
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(state_.params.pe, expected.value().pe);
  EXPECT_EQ(state_.params.model_layer, expected.value().model_layer);
  // The layers panel shows with a model.
  state_.select_tab = ViewKind::kLayers;
  Frames(3);
  ASSERT_NE(Child("layers"), nullptr);
  EXPECT_TRUE(Child("layers")->Active);
}

TEST_F(HeadlessUi, TheLayerSliderAppliesALayerAndDetachKeepsTheEditedParameters) {
  Result<ModelParams> picked = PickCatalogueModel(state_.params, "llama-4-scout");
  ASSERT_TRUE(picked.ok());
  state_.params = picked.value();
  Frames(2);
  ImGuiWindow* controls = nullptr;
  ImVec2 at;
  ASSERT_TRUE(FindControlsField("layer", &controls, &at));
  // The slider's right end: the last layer, 47 (a RoPE layer), then its left end: layer 0.
  const float width = ImGui::GetFontSize() * 14;
  Click(ImVec2(controls->Pos.x + 25 + width - 30, at.y));
  Frames(2);
  EXPECT_GT(state_.params.model_layer, 40);
  const int64_t moved = state_.params.model_layer;
  Result<ModelParams> expected = PickModelLayer(picked.value(), moved);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(state_.params.pe, expected.value().pe);
  EXPECT_EQ(state_.params.temperature, expected.value().temperature);
  EXPECT_FALSE(ModelModified(state_.params));
  // Every 4th layer (3, 7, ..., 47) is NoPE in the published no_rope_layers.
  if (moved % 4 == 3) {
    ExpectScoutNopeLayer(state_.params);
  } else {
    ExpectScoutRopeLayer(state_.params);
  }
  // An edited width: the model stays recorded, modified.
  ASSERT_TRUE(FindControlsField("head dim", &controls, &at));
  Click(at);
  SelectAllAndType("64");
  EXPECT_EQ(state_.params.pe.d_model, 64);
  EXPECT_NE(state_.params.model, nullptr);
  EXPECT_EQ(ModelLabel(state_.params),
            "modified from llama-4-scout, layer " + std::to_string(moved));
  const EncodingParams edited = state_.params.pe;
  ASSERT_TRUE(FindControlsField("Detach", &controls, &at));
  Click(at);
  Frames(2);
  EXPECT_EQ(state_.params.model, nullptr);
  EXPECT_TRUE(state_.params.model_name.empty());
  EXPECT_EQ(state_.params.pe, edited);
  // The layers panel goes with the model.
  state_.select_tab = ViewKind::kLayers;
  Frames(3);
  EXPECT_TRUE(Child("layers") == nullptr || !Child("layers")->Active);
}

TEST_F(HeadlessUi, ABadModelConfigIsRefusedInPlaceAndTheModelStays) {
  Result<ModelParams> picked = PickCatalogueModel(state_.params, "llama-4-scout");
  ASSERT_TRUE(picked.ok());
  state_.params = picked.value();
  const std::string bad = TmpFile("bad_model_config.json", "{\"model_type\": ");
  state_.model_pick.enter_path = true;
  Frames(2);
  ImGuiWindow* controls = nullptr;
  ImVec2 at;
  ASSERT_TRUE(FindControlsField("file", &controls, &at));
  Click(at);
  SelectAllAndType(bad.c_str());
  Frames(2);
  EXPECT_NE(state_.model_pick.error.find("bad_model_config.json"), std::string::npos)
      << state_.model_pick.error;
  EXPECT_EQ(state_.params.model_name, "llama-4-scout");
  EXPECT_EQ(state_.params.model, picked.value().model);
  EXPECT_EQ(state_.params.pe, picked.value().pe);
  // A good one then opens, and clears the reason.
  const std::string good =
      TmpFile("good_model_config.json",
              "{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_attention_heads\": 4, "
              "\"num_hidden_layers\": 2, \"max_position_embeddings\": 512, \"rope_theta\": 10000}");
  state_.model_pick.path = good;
  state_.model_pick.enter_path = true;
  Frames(1);
  ASSERT_TRUE(FindControlsField("Open", &controls, &at));
  Click(at);
  Frames(2);
  EXPECT_TRUE(state_.model_pick.error.empty()) << state_.model_pick.error;
  EXPECT_EQ(state_.params.model_config, good);
  EXPECT_TRUE(state_.params.model_name.empty());
  ASSERT_EQ(state_.params.pe.kind(), Scheme::kRope);
  EXPECT_EQ(state_.params.pe.rope().theta, 10000.0);
  EXPECT_EQ(state_.params.pe.d_model, 64);  // 256 / 4 heads
  EXPECT_EQ(state_.params.pe.max_len, 512);
}

}  // namespace pe

namespace pe {

// A click on a layer's column of the layers panel picks that layer, as the slider does.
TEST_F(HeadlessUi, ClickingALayerInTheLayersPanelPicksIt) {
  Result<ModelParams> picked = PickCatalogueModel(state_.params, "llama-4-scout");
  ASSERT_TRUE(picked.ok());
  Result<ModelParams> third = PickModelLayer(picked.value(), 3);
  ASSERT_TRUE(third.ok());
  state_.params = third.value();
  state_.select_tab = ViewKind::kLayers;
  Frames(4);
  ImGuiWindow* layers = Child("layers");
  ASSERT_NE(layers, nullptr);
  ASSERT_TRUE(layers->Active);
  Click(ImVec2(layers->Pos.x + layers->Size.x * 0.4f, layers->Pos.y + layers->Size.y * 0.5f));
  Frames(2);
  const int64_t clicked = state_.params.model_layer;
  EXPECT_GT(clicked, 3);
  EXPECT_LT(clicked, 48);
  if (clicked % 4 == 3) {
    ExpectScoutNopeLayer(state_.params);
  } else {
    ExpectScoutRopeLayer(state_.params);
  }
  EXPECT_FALSE(ModelModified(state_.params));
}

}  // namespace pe

namespace pe {

// What the schedule sets, not the inputs: an M-RoPE image added to Qwen2-VL (published
// rope_theta 1000000, mrope_section [16, 24, 24]) leaves the model unmodified; a changed rope
// theta modifies it.
TEST(ModelModified, AnImageAddedIsAnInputAndAChangedThetaIsAnEdit) {
  Result<ModelParams> picked = PickCatalogueModel(ModelParams{}, "qwen2-vl-7b");
  ASSERT_TRUE(picked.ok()) << picked.message();
  ModelParams m = picked.value();
  ASSERT_EQ(m.pe.kind(), Scheme::kMrope);
  ASSERT_TRUE(FindParamField("--mrope-image")->set(m, "at=3,grid=1x4x4").ok());
  ASSERT_EQ(m.pe.mrope().images.size(), 1u);
  EXPECT_FALSE(ModelModified(m));
  EXPECT_TRUE(ModelEdits(m).empty());
  EXPECT_EQ(ModelLabel(m), "qwen2-vl-7b, layer 0");
  ASSERT_TRUE(FindParamField("--rope-theta")->set(m, "500000").ok());
  EXPECT_TRUE(ModelModified(m));
  EXPECT_EQ(ModelEdits(m), std::vector<std::string>{"rope_theta"});
}

// Right-click on a layer of the layers view, then "Compare layer 0 with this layer": the
// compare view, with B the clicked layer's parameters on A's rows.
TEST_F(HeadlessUi, RightClickingALayerComparesTheLayerShownWithIt) {
  Result<ModelParams> picked = PickCatalogueModel(state_.params, "llama-4-scout");
  ASSERT_TRUE(picked.ok());
  state_.params = picked.value();
  state_.select_tab = ViewKind::kLayers;
  Frames(4);
  ImGuiWindow* layers = Child("layers");
  ASSERT_NE(layers, nullptr);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos =
      ImVec2(layers->Pos.x + layers->Size.x * 0.4f, layers->Pos.y + layers->Size.y * 0.5f);
  Frame();
  io.MouseDown[1] = true;
  Frame();
  io.MouseDown[1] = false;
  Frames(2);
  const int64_t clicked = state_.model_pick.menu_layer;
  ASSERT_GT(clicked, 0);
  ASSERT_LT(clicked, 48);
  EXPECT_EQ(state_.params.model_layer, 0);  // a right-click picks nothing
  ImGuiWindow* menu = nullptr;
  for (const ImGuiPopupData& open : GImGui->OpenPopupStack) {
    if (open.Window != nullptr && open.Window->Active) menu = open.Window;
  }
  ASSERT_NE(menu, nullptr);
  const std::string item = "Compare layer 0 with this layer (" + std::to_string(clicked) + ")";
  ImVec2 at;
  ASSERT_TRUE(
      Find(menu, Id(menu, item.c_str()), ImVec2(menu->Pos.x + 20, menu->Pos.y), false, &at));
  Click(at);
  Frames(3);
  EXPECT_EQ(state_.session.shown_tab, ViewKind::kCompare);
  EXPECT_EQ(state_.params.versus, "layer=" + std::to_string(clicked));
  EXPECT_EQ(state_.params.model_layer, 0);
  Result<ModelParams> b = CompareB(state_.params);
  ASSERT_TRUE(b.ok()) << b.message();
  Result<ModelParams> named = PickModelLayer(state_.params, clicked);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(b.value().pe, named.value().pe);
  EXPECT_EQ(b.value().temperature, named.value().temperature);
  EXPECT_EQ(b.value().attention_window, named.value().attention_window);
  if (clicked % 4 == 3) {
    ExpectScoutNopeLayer(b.value());
  } else {
    ExpectScoutRopeLayer(b.value());
  }
}

// The Model card's button: Gemma 3 4B's layer 0 (sliding 1024, rope_local_base_freq 10000)
// with its first global layer, 5 (rope_theta 1000000, linear factor 8): both named on it.
TEST_F(HeadlessUi, TheModelCardComparesTheLayerWithTheFirstOfAnotherTreatment) {
  Result<ModelParams> picked = PickCatalogueModel(state_.params, "gemma-3-4b");
  ASSERT_TRUE(picked.ok());
  state_.params = picked.value();
  Frames(2);
  ImGuiWindow* controls = nullptr;
  ImVec2 at;
  EXPECT_EQ(CompareOtherLayerLabel(state_.params),
            "Compare layer 0 (sliding 1024, base 1e4) with layer 5 (global, base 1e6)");
  ASSERT_TRUE(FindControlsField("###compare_layers", &controls, &at));
  Click(at);
  Frames(3);
  EXPECT_EQ(state_.session.shown_tab, ViewKind::kCompare);
  EXPECT_EQ(state_.params.versus, "layer=5");
  Result<ModelParams> b = CompareB(state_.params);
  ASSERT_TRUE(b.ok()) << b.message();
  ASSERT_EQ(b.value().pe.kind(), Scheme::kRope);
  EXPECT_EQ(b.value().pe.rope().theta, 1000000.0);
  EXPECT_EQ(b.value().pe.rope().scaling, RopeScaling::kLinear);
  EXPECT_EQ(b.value().pe.rope().factor, 8.0);
  EXPECT_EQ(b.value().pe.max_len, state_.params.pe.max_len);
  EXPECT_TRUE(b.value().causal_mask);
  EXPECT_EQ(state_.params.pe.rope().theta, 10000.0);
  EXPECT_EQ(state_.params.attention_window.kind, AttentionWindowKind::kSliding);
  EXPECT_EQ(state_.params.attention_window.size, 1024);
  Result<ModelParams> named = PickModelLayer(state_.params, 5);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(b.value().pe, named.value().pe);
  // The compare panels' titles name both layers first, where a narrow panel still shows them.
  Result<EncodingPtr> ea = MakeEncoding(state_.params.pe, state_.params.cap);
  ASSERT_TRUE(ea.ok()) << ea.message();
  Result<ComparePair> pair = MakeComparePair(state_.params, *ea.value());
  ASSERT_TRUE(pair.ok()) << pair.message();
  EXPECT_EQ(pair.value().a_label.rfind("rope, layer=0, ", 0), 0u) << pair.value().a_label;
  EXPECT_EQ(pair.value().b_label.rfind("rope, layer=5, ", 0), 0u) << pair.value().b_label;
}

// A layer change after an edit: the status line says what was replaced, and Undo brings the
// edited parameters back; Detach and a model pick are undo steps too.
TEST_F(HeadlessUi, ALayerChangeOverAnEditSaysSoAndUndoRestoresTheEdit) {
  Result<ModelParams> picked = PickCatalogueModel(state_.params, "llama-4-scout");
  ASSERT_TRUE(picked.ok());
  QueueModelStep(state_, picked.value());
  Frames(2);
  EXPECT_EQ(state_.params.model_name, "llama-4-scout");
  ASSERT_EQ(state_.history.undo.size(), 1u);
  EXPECT_EQ(state_.history.undo.back().params.model, nullptr);
  ImGuiWindow* controls = nullptr;
  ImVec2 at;
  ASSERT_TRUE(FindControlsField("rope_theta", &controls, &at));
  Click(at);
  SelectAllAndType("250000");
  ASSERT_EQ(state_.params.pe.rope().theta, 250000.0);
  const ModelParams edited = state_.params;
  Result<ModelParams> fifth = PickModelLayer(state_.params, 5);
  ASSERT_TRUE(fifth.ok());
  QueueModelStep(state_, fifth.value());
  Frames(2);
  EXPECT_EQ(state_.params.model_layer, 5);
  EXPECT_EQ(state_.params.pe.rope().theta, 500000.0);
  EXPECT_EQ(state_.model_pick.note,
            "layer 5 applied; your edit of rope theta was replaced - Undo restores it");
  Undo(state_);
  Frames(2);
  EXPECT_EQ(state_.params, edited);
  // Detach, then Undo: the link is back.
  QueueModelStep(state_, DetachModel(state_.params));
  Frames(2);
  EXPECT_EQ(state_.params.model, nullptr);
  Undo(state_);
  Frames(2);
  EXPECT_EQ(state_.params, edited);
  EXPECT_EQ(ModelLabel(state_.params), "modified from llama-4-scout, layer 0");
}

}  // namespace pe

namespace pe {

// Refusals the window shows name its controls, not the command line's flags (which the command
// line's own messages keep): the model file field, the M-RoPE images field.
TEST(WindowWords, AModelFileAndAnImageAreNamedByTheirControls) {
  Result<ModelParams> missing = PickModelConfig(ModelParams{}, "/no/such/config.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message().rfind("--model-config", 0), 0u) << missing.message();
  const std::string shown = InWindowTerms(missing.message(), "");
  EXPECT_EQ(shown.rfind("model file", 0), 0u) << shown;
  EXPECT_EQ(shown.find("--"), std::string::npos) << shown;

  Result<ModelParams> qwen = PickCatalogueModel(ModelParams{}, "qwen2-vl-7b");
  ASSERT_TRUE(qwen.ok());
  Result<MropeQueryPatch> patch = ResolveMropePatch(qwen.value().pe, MropePatch{});
  ASSERT_FALSE(patch.ok());
  EXPECT_NE(patch.message().find("--mrope-image"), std::string::npos) << patch.message();
  const std::string said = InWindowTerms(patch.message(), "");
  EXPECT_EQ(said.find("--"), std::string::npos) << said;
  EXPECT_NE(said.find("add one with images \"at=P,grid=TxHxW\""), std::string::npos) << said;
}

TEST_F(HeadlessUi, AModelFileRefusedInThePickerNamesTheField) {
  state_.model_pick.enter_path = true;
  state_.model_pick.path = std::string(PE_TEST_TMP) + "/no_such_model_config.json";
  Frames(2);
  ImGuiWindow* controls = nullptr;
  ImVec2 at;
  ASSERT_TRUE(FindControlsField("Open", &controls, &at));
  Click(at);
  Frames(2);
  EXPECT_EQ(state_.model_pick.error.rfind("model file: ", 0), 0u) << state_.model_pick.error;
  EXPECT_NE(state_.model_pick.error.find("no_such_model_config.json"), std::string::npos);
  EXPECT_EQ(state_.params.model, nullptr);
}

}  // namespace pe

namespace pe {

namespace {

const char* const kSmallLlamaConfig =
    "{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_attention_heads\": 4, "
    "\"num_hidden_layers\": 2, \"max_position_embeddings\": 512, \"rope_theta\": 10000}";

}  // namespace

// Files dropped on the window: a config.json (by its "model_type") or a GGUF file (by its magic)
// opens as the model on the loading job; a tokenizer.json still goes to the tokenizer; a bad
// model file is refused in place and the model stays.
TEST_F(HeadlessUi, ADroppedModelFileOpensAsTheModelAndATokenizerStaysATokenizer) {
  TableLoadJob tables(/*synchronous=*/true);
  services_.tables = &tables;
  Result<ModelParams> picked = PickCatalogueModel(state_.params, "llama-4-scout");
  ASSERT_TRUE(picked.ok());
  state_.params = picked.value();
  Frames(2);
  const std::string config = TmpFile("dropped_config.json", kSmallLlamaConfig);
  state_.dropped_files.push_back(config);
  Frames(3);
  EXPECT_TRUE(state_.model_pick.error.empty()) << state_.model_pick.error;
  EXPECT_EQ(state_.params.model_config, config);
  ASSERT_EQ(state_.params.pe.kind(), Scheme::kRope);
  EXPECT_EQ(state_.params.pe.rope().theta, 10000.0);
  EXPECT_EQ(state_.params.pe.d_model, 64);  // 256 / 4 heads
  ASSERT_FALSE(state_.history.undo.empty());
  EXPECT_EQ(state_.history.undo.back().params.model_name, "llama-4-scout");

  const std::string tokenizer =
      TmpFile("dropped_tokenizer.json",
              "{\"version\": \"1.0\", \"model\": {\"type\": \"WordLevel\", \"vocab\": "
              "{\"a\": 0, \"[UNK]\": 1}, \"unk_token\": \"[UNK]\"}}");
  state_.dropped_files.push_back(tokenizer);
  Frames(3);
  EXPECT_TRUE(state_.open_table.tokenizer) << state_.open_table.note;
  EXPECT_EQ(state_.open_table.path, tokenizer);
  EXPECT_EQ(state_.params.model_config, config);

  const ModelParams before = state_.params;
  const std::string bad_gguf = TmpFile("dropped_bad.gguf", std::string("GGUF\x03\0\0\0", 8));
  state_.dropped_files.push_back(bad_gguf);
  Frames(3);
  EXPECT_NE(state_.model_pick.error.find("dropped_bad.gguf"), std::string::npos)
      << state_.model_pick.error;
  EXPECT_EQ(state_.model_pick.error.find("--"), std::string::npos) << state_.model_pick.error;
  EXPECT_EQ(state_.params, before);
}

// The picker's Open reads the file on the loading job, not in the frame: while the job is held
// the frames go on with the model as it was.
TEST_F(HeadlessUi, TheModelPickersOpenReadsOnTheLoadingJob) {
  TableLoadJob tables(/*synchronous=*/false);
  services_.tables = &tables;
  tables.Hold(true);
  const std::string config = TmpFile("job_config.json", kSmallLlamaConfig);
  state_.model_pick.enter_path = true;
  state_.model_pick.path = config;
  Frames(1);
  ImGuiWindow* controls = nullptr;
  ImVec2 at;
  ASSERT_TRUE(FindControlsField("Open", &controls, &at));
  Click(at);
  Frames(2);
  EXPECT_TRUE(state_.model_pick.open_request.empty());  // handed to the job
  EXPECT_EQ(state_.params.model, nullptr);              // not read in the frame
  tables.Hold(false);
  for (int k = 0; k < 200 && state_.params.model == nullptr; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    Frame();
  }
  Frames(2);
  ASSERT_NE(state_.params.model, nullptr);
  EXPECT_EQ(state_.params.model_config, config);
  EXPECT_EQ(state_.params.pe.d_model, 64);
}

// By content: GGUF's magic, or a JSON object with "model_type" or "architectures".
TEST(LooksLikeModelConfig, TellsAModelFileByItsContent) {
  EXPECT_TRUE(LooksLikeModelConfig(TmpFile("sniff_a.json", "{\"model_type\": \"gpt2\"}")));
  EXPECT_TRUE(
      LooksLikeModelConfig(TmpFile("sniff_b.txt", " {\"architectures\": [\"LlamaForCausalLM\"]}")));
  EXPECT_TRUE(LooksLikeModelConfig(TmpFile("sniff_c.bin", std::string("GGUF\x03\0\0\0", 8))));
  EXPECT_FALSE(LooksLikeModelConfig(TmpFile("sniff_d.json", "{\"model\": {\"type\": \"BPE\"}}")));
  EXPECT_FALSE(LooksLikeModelConfig(TmpFile("sniff_e.json", "[{\"model_type\": \"gpt2\"}]")));
  EXPECT_FALSE(LooksLikeModelConfig(TmpFile("sniff_f.npy", "\x93NUMPY")));
  EXPECT_FALSE(LooksLikeModelConfig(std::string(PE_TEST_TMP) + "/no_such_sniff.json"));
  EXPECT_FALSE(LooksLikeModelConfig(PE_TEST_TMP));
}

}  // namespace pe
