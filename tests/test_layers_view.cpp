// A model's schedule on the command line and in the layers view (arch/model_choice.h,
// views/layers_view.cpp), on schedules built by hand: the layers table's rows, the runs of
// layers the model card prints, opening a layer into the parameters and telling a change.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "arch/model_choice.h"
#include "views/compare_view.h"
#include "views/figure_command.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

// Three kinds of layer, the way a reader would give them: Llama 3.1's RoPE (theta 5e5,
// llama3 scaling 8 / 1 / 4 / 8192, half pairs, head dim 128, causal), Llama 4's NoPE layer
// (temperature 0.1 / 8192) and a half-rotated interleaved RoPE under a sliding window.
ModelSchedule HandBuilt() {
  ModelSchedule s;
  s.name = "hand-built";
  s.source = "tests";
  s.model_type = "llama";
  s.format = "config.json (v4)";
  s.shape.layers = 6;
  s.shape.heads = 32;
  s.shape.kv_heads = 8;
  s.shape.head_dim = 128;
  s.shape.hidden = 4096;
  s.shape.context = 131072;
  LayerPosition rope;
  rope.pe.d_model = 128;
  rope.pe.max_len = 131072;
  RopeParams r;
  r.theta = 500000;
  r.scaling = RopeScaling::kLlama3;
  r.factor = 8;
  r.low_freq_factor = 1;
  r.high_freq_factor = 4;
  r.original_max_len = 8192;
  rope.pe.scheme = r;
  rope.window = {AttentionWindowKind::kCausal, 0};
  LayerPosition nope;
  nope.pe.d_model = 128;
  nope.pe.max_len = 131072;
  nope.pe.scheme = NopeParams{};
  nope.temperature = {TemperatureKind::kLlama4, 0.1, 8192};
  nope.type = "no_rope";
  LayerPosition sliding;
  sliding.pe.d_model = 64;
  sliding.pe.max_len = 131072;
  RopeParams half;
  half.theta = 10000;
  half.pairing = RopePairing::kInterleaved;
  half.rotary_fraction = 0.5;
  sliding.pe.scheme = half;
  sliding.window = {AttentionWindowKind::kSliding, 4096};
  s.layers = {nope, rope, rope, nope, sliding, rope};
  s.notes = {"a note"};
  return s;
}

std::string LayersCsv(const ModelParams& m, Status* status = nullptr) {
  const EncodingPtr e = MakeEncoding(m.pe, m.cap).value();
  const ViewSelection sel;
  const ViewContext c{m, e, sel, FigureSize{}};
  std::ostringstream out;
  Status s = GetView(ViewKind::kLayers).write_table(out, TableFormat::kCsv, c, {});
  if (status != nullptr) *status = s;
  return out.str();
}

TEST(LayersView, CsvHasOneRowPerLayerOfTheSchedule) {
  ModelParams m;
  m.model = std::make_shared<const ModelSchedule>(HandBuilt());
  m.model_layer = 1;
  // Worked by hand from the schedule above: rotary = int(64 * 0.5) = 32 on the sliding layer.
  EXPECT_EQ(LayersCsv(m),
            "layer,scheme,base,scaling,pairing,rotary,window,temperature\n"
            "0,none,,,,,causal,llama4:0.1:8192\n"
            "1,rope,500000,llama3,half,128,causal,none\n"
            "2,rope,500000,llama3,half,128,causal,none\n"
            "3,none,,,,,causal,llama4:0.1:8192\n"
            "4,rope,10000,none,interleaved,32,sliding:4096,none\n"
            "5,rope,500000,llama3,half,128,causal,none\n");
}

TEST(LayersView, NoModelAndNpyAreRefusedWithTheirReason) {
  ModelParams none;
  Status s;
  LayersCsv(none, &s);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--model NAME"), std::string::npos) << s.message();
  ModelParams m;
  m.model = std::make_shared<const ModelSchedule>(HandBuilt());
  const EncodingPtr e = MakeEncoding(m.pe, m.cap).value();
  const ViewSelection sel;
  const ViewContext c{m, e, sel, FigureSize{}};
  std::ostringstream out;
  Status npy = GetView(ViewKind::kLayers).write_table(out, TableFormat::kNpy, c, {});
  ASSERT_FALSE(npy.ok());
  EXPECT_NE(npy.message().find("write it as .csv"), std::string::npos) << npy.message();
  EXPECT_TRUE(out.str().empty());
}

TEST(LayersView, FigureHasACellPerLayerAClassPerTreatmentAndTheChosenLayerOutlined) {
  ModelParams m;
  m.model = std::make_shared<const ModelSchedule>(HandBuilt());
  m.model_layer = 4;
  Result<Figure> f = BuildViewFigure(ViewKind::kLayers, m, ViewSelection{}, FigureSize{},
                                     FigureFormat::kPng, "", nullptr);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f.value().rects.size(), 6u);
  ASSERT_EQ(f.value().overlays.size(), 1u);
  EXPECT_EQ(f.value().overlays[0].x0, 4.0);
  EXPECT_EQ(f.value().overlays[0].x1, 5.0);
  // Three classes: NoPE on 0 and 3, Llama 3 RoPE on 1, 2 and 5, the sliding layer 4.
  ASSERT_GE(f.value().legend.size(), 3u);
  EXPECT_EQ(f.value().legend[0].label, "layers 0, 3: none, causal, llama4:0.1:8192");
  EXPECT_EQ(f.value().legend[1].label, "layers 1-2, 5: rope 500000 llama3, causal");
  EXPECT_EQ(f.value().legend[2].label, "layer 4: rope 10000, sliding:4096");
  EXPECT_EQ(f.value().rects[0].color, f.value().rects[3].color);
  EXPECT_NE(f.value().rects[0].color, f.value().rects[1].color);
  EXPECT_EQ(f.value().labels[4].hover,
            "layer 4: rope theta 10000, interleaved pairing, 64 dims (32 rotated), sliding:4096");
}

TEST(ModelChoice, RunsOfLayersAndTheCard) {
  const ModelSchedule s = HandBuilt();
  EXPECT_EQ(LayerRangesText({0, 1, 2, 4, 5, 6, 8}), "0-2, 4-6, 8");
  const std::vector<LayerClass> classes = LayerClasses(s);
  ASSERT_EQ(classes.size(), 3u);
  EXPECT_EQ(classes[1].layers, (std::vector<int64_t>{1, 2, 5}));
  const std::string card = DescribeModelText(s);
  EXPECT_NE(card.find("layers 1-2, 5: rope theta 500000 llama3 factor 8 low 1 high 4 original "
                      "8192, half pairing, 128 dims, causal\n"),
            std::string::npos)
      << card;
  EXPECT_NE(card.find("layers 0, 3: none, 128 dims, causal, temperature llama4:0.1:8192 "
                      "(no_rope)\n"),
            std::string::npos)
      << card;
  EXPECT_NE(card.find("head_dim: 128\n"), std::string::npos) << card;
  EXPECT_NE(card.find("notes:\n  a note\n"), std::string::npos) << card;
  const std::string json = DescribeModelJson(s);
  EXPECT_NE(json.find("\"first_positional_layer\": 1"), std::string::npos) << json;
}

// A layer with a table of its own length gets those rows: Whisper's encoder layers 1500
// (max_source_positions), its decoder layers 448 (max_target_positions).
TEST(ModelChoice, ALayerWithItsOwnTableLengthGetsThoseRows) {
  ModelParams enc;
  enc.model_name = "whisper-base";
  ASSERT_TRUE(OpenModel(enc).ok());
  EXPECT_EQ(enc.model_layer, 0);
  EXPECT_EQ(enc.pe.kind(), Scheme::kSinusoidal);
  EXPECT_EQ(enc.pe.max_len, 1500);
  ModelParams dec;
  dec.model_name = "whisper-base";
  dec.model_layer = 6;
  ASSERT_TRUE(OpenModel(dec).ok());
  EXPECT_EQ(dec.pe.kind(), Scheme::kLearned);
  EXPECT_EQ(dec.pe.max_len, 448);
}

// The compare view's B may name another layer or another model: it gets that layer's
// treatment on A's rows, and further keys override it.
TEST(ModelChoice, CompareBTakesTheLayerOrModelItNames) {
  ModelParams a;
  a.model_name = "gemma-3-4b";
  a.model_layer = 5;  // global: theta 1e6, linear x8, causal
  ASSERT_TRUE(OpenModel(a).ok());
  a.pe.max_len = 300;
  a.versus = "layer=0";
  Result<ModelParams> b = CompareB(a);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b.value().pe.rope().theta, 10000);
  EXPECT_EQ(b.value().pe.rope().scaling, RopeScaling::kNone);
  EXPECT_EQ(b.value().attention_window, (AttentionWindow{AttentionWindowKind::kSliding, 1024}));
  EXPECT_EQ(b.value().pe.max_len, 300);
  EXPECT_EQ(b.value().model_layer, 0);

  a.versus = "layer=0,rope_theta=20000";  // later keys override the layer
  b = CompareB(a);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b.value().pe.rope().theta, 20000);

  a.versus = "model=gpt2";
  b = CompareB(a);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b.value().pe.kind(), Scheme::kLearned);
  EXPECT_EQ(b.value().pe.d_model, 768);
  EXPECT_EQ(b.value().pe.max_len, 300);

  a.versus = "layer=99";
  b = CompareB(a);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.message().find("[0, 33]"), std::string::npos) << b.message();

  ModelParams free;  // no model: a layer alone is refused
  free.versus = "layer=1";
  EXPECT_FALSE(CompareB(free).ok());
}

TEST(ModelChoice, TheLayerSetsTheParametersAndAChangeIsTold) {
  ModelParams m;
  m.model = std::make_shared<const ModelSchedule>(HandBuilt());
  m.model_name = "hand-built";  // opened already: OpenModel keeps the schedule
  ASSERT_TRUE(OpenModel(m).ok());
  EXPECT_EQ(m.model_layer, 1);  // the first layer with a positional scheme
  EXPECT_EQ(m.pe.kind(), Scheme::kRope);
  EXPECT_EQ(m.pe.rope().theta, 500000);
  EXPECT_EQ(m.pe.d_model, 128);
  EXPECT_EQ(m.pe.max_len, kModelDefaultRows);  // the context, 131072, capped
  EXPECT_TRUE(m.causal_mask);
  EXPECT_FALSE(ModelModified(m));
  EXPECT_EQ(ModelLabel(m), "hand-built, layer 1");
  m.pe.max_len = 64;  // the rows are the view's
  EXPECT_FALSE(ModelModified(m));
  m.pe.rope().theta = 20000;
  EXPECT_TRUE(ModelModified(m));
  EXPECT_EQ(ModelLabel(m), "modified from hand-built, layer 1");

  ModelParams sliding;
  sliding.model = m.model;
  sliding.model_name = "hand-built";
  sliding.model_layer = 4;
  ASSERT_TRUE(OpenModel(sliding).ok());
  EXPECT_FALSE(sliding.causal_mask);
  EXPECT_EQ(sliding.attention_window, (AttentionWindow{AttentionWindowKind::kSliding, 4096}));
  sliding.model_layer = 6;
  Status out = OpenModel(sliding);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.message(), "--layer must be an integer in [0, 5] for hand-built (6 layers), got 6");
}

TEST(ModelChoice, BothNamesOrALayerAloneAreRefused) {
  ModelParams both;
  both.model_name = "a";
  both.model_config = "b.json";
  Status s = OpenModel(both);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--model and --model-config both name a model"), std::string::npos);
  ModelParams layer;
  layer.model_layer = 2;
  s = OpenModel(layer);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--layer 2 picks a layer of a model"), std::string::npos);
  ModelParams nothing;
  EXPECT_TRUE(OpenModel(nothing).ok());
  EXPECT_EQ(nothing.model, nullptr);
}

// The command copied from a figure of a model names the model and its layer, then what differs
// from the layer: a theta set back to RoPE's default 10000 is still given, the scheme the layer
// has is not (--scheme would reset the layer's parameters).
TEST(ModelChoice, TheCopiedCommandGivesWhatDiffersFromTheLayer) {
  ModelParams m;
  m.model = std::make_shared<const ModelSchedule>(HandBuilt());
  m.model_name = "hand-built";
  ASSERT_TRUE(OpenModel(m).ok());
  m.pe.rope().theta = 10000;
  std::map<std::string, std::string> flags;
  for (const CommandFlag& f :
       ExportCommandFlags(ViewKind::kHeatmap, m, ViewSelection{}, FigureSize{}, "", nullptr)) {
    flags[f.flag] = f.value;
  }
  EXPECT_EQ(flags["--model"], "hand-built");
  EXPECT_EQ(flags["--layer"], "1");
  EXPECT_EQ(flags["--rope-theta"], "10000");
  EXPECT_EQ(flags.count("--scheme"), 0u);
  EXPECT_EQ(flags.count("--scaling-factor"), 0u);  // the layer's 8
  EXPECT_EQ(flags.count("--d-model"), 0u);         // the layer's 128
}

}  // namespace
}  // namespace pe
