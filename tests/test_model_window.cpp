// The window's model picker (panels/model_controls.cpp, ui/model_pick.h): a built-in model
// picked from the combo, the layer slider, a config file refused in place, Detach, and the
// model kept by a session. Expected values are the published Llama 4 Scout config
// (assets/models/llama-4-scout.json: rope_theta 500000, rope_scaling llama3 factor 16, low 1,
// high 1, original 8192, head_dim 128, attention_chunk_size 8192, no_rope_layers 0 at every
// 4th layer, attn_scale 0.1, floor_scale 8192), not the reader's output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "arch/catalogue.h"
#include "arch/model_choice.h"
#include "headless_ui.h"
#include "model/model_schedule.h"
#include "session/session.h"
#include "ui/model_pick.h"
#include "ui/session.h"

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
