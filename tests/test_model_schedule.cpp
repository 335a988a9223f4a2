// A model's schedule of layers: one layer's treatment reaches the view parameters whole, and
// the rows, offset and view state stay the user's.
#include <gtest/gtest.h>

#include "model/model_schedule.h"

namespace pe {
namespace {

// Two layers as Gemma 3 has them: a local layer (sliding 1024, base 1e4) and a global layer
// (causal, base 1e6 with linear scaling 8).
ModelSchedule TwoLayers() {
  ModelSchedule s;
  s.name = "two-layers";
  s.shape.layers = 3;
  s.shape.head_dim = 256;
  LayerPosition local;
  local.pe.d_model = 256;
  local.pe.max_len = 131072;
  local.pe.scheme = RopeParams{};
  local.pe.rope().theta = 10000;
  local.window = {AttentionWindowKind::kSliding, 1024};
  local.type = "sliding_attention";
  LayerPosition global = local;
  global.pe.rope().theta = 1e6;
  global.pe.rope().scaling = RopeScaling::kLinear;
  global.window = {AttentionWindowKind::kCausal, 0};
  global.softmax_scale = 0.0625;
  global.type = "full_attention";
  LayerPosition nope;
  nope.pe.d_model = 256;
  nope.pe.scheme = NopeParams{};
  nope.temperature.kind = TemperatureKind::kLlama4;
  s.layers = {nope, local, global};
  return s;
}

TEST(ModelSchedule, ApplyLayerCopiesTheTreatmentAndKeepsTheRows) {
  const ModelSchedule s = TwoLayers();
  ModelParams m;
  m.pe.max_len = 300;
  m.pe.offset = 5;
  m.query = 7;
  ASSERT_TRUE(ApplyLayer(s, 1, m).ok());
  EXPECT_EQ(m.pe.kind(), Scheme::kRope);
  EXPECT_EQ(m.pe.d_model, 256);
  EXPECT_EQ(m.pe.rope().theta, 10000);
  EXPECT_EQ(m.pe.max_len, 300);
  EXPECT_EQ(m.pe.offset, 5);
  EXPECT_EQ(m.query, 7);
  EXPECT_FALSE(m.causal_mask);
  EXPECT_EQ(m.attention_window, (AttentionWindow{AttentionWindowKind::kSliding, 1024}));

  ASSERT_TRUE(ApplyLayer(s, 2, m).ok());
  EXPECT_EQ(m.pe.rope().theta, 1e6);
  EXPECT_EQ(m.pe.rope().scaling, RopeScaling::kLinear);
  EXPECT_TRUE(m.causal_mask);  // a plain causal window is the causal switch
  EXPECT_EQ(m.attention_window, AttentionWindow{});
  EXPECT_EQ(m.softmax_scale, 0.0625);
  EXPECT_EQ(m.temperature.kind, TemperatureKind::kNone);

  ASSERT_TRUE(ApplyLayer(s, 0, m).ok());
  EXPECT_EQ(m.pe.kind(), Scheme::kNope);
  EXPECT_EQ(m.temperature.kind, TemperatureKind::kLlama4);
}

TEST(ModelSchedule, ALayerOutsideTheModelIsRefusedWithTheRange) {
  const ModelSchedule s = TwoLayers();
  ModelParams m;
  const ModelParams before = m;
  const Status st = ApplyLayer(s, 3, m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("[0, 2]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("got 3"), std::string::npos) << st.message();
  EXPECT_FALSE(ApplyLayer(s, -1, m).ok());
  EXPECT_EQ(m, before);
}

TEST(ModelSchedule, TheFirstPositionalLayerSkipsNope) {
  ModelSchedule s = TwoLayers();
  EXPECT_EQ(FirstPositionalLayer(s), 1);
  s.layers.erase(s.layers.begin() + 1, s.layers.end());
  EXPECT_EQ(FirstPositionalLayer(s), 0);
}

}  // namespace
}  // namespace pe
