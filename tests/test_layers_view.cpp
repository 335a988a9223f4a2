// A model's schedule on the command line and in the layers view (arch/model_choice.h,
// views/layers_view.cpp), on schedules built by hand: the layers table's rows, the runs of
// layers the model card prints, opening a layer into the parameters and telling a change.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/attention_score.h"
#include "arch/catalogue.h"
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
            "1,rope,500000,llama3 x8,half,128,causal,none\n"
            "2,rope,500000,llama3 x8,half,128,causal,none\n"
            "3,none,,,,,causal,llama4:0.1:8192\n"
            "4,rope,10000,none,interleaved,32,sliding:4096,none\n"
            "5,rope,500000,llama3 x8,half,128,causal,none\n");
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
  EXPECT_EQ(f.value().legend[1].label, "layers 1-2, 5: rope 500000 llama3 x8, causal");
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

// The scaling column carries the factor the frequencies are divided by (DeepSeek-V3's YaRN 40,
// Llama 3.1's llama3 8, Gemma 3's global linear 8, from their config.json files); LongRoPE's
// lists have no one factor.
TEST(LayersView, TheScalingColumnCarriesTheFactor) {
  auto scaling = [](const char* name, int64_t layer) {
    Result<ModelSchedule> s = CatalogueModel(name);
    EXPECT_TRUE(s.ok()) << s.message();
    return s.ok() ? LayerColumnsOf(s.value().layers[static_cast<size_t>(layer)]).scaling : "";
  };
  EXPECT_EQ(scaling("deepseek-v3", 0), "yarn x40");
  EXPECT_EQ(scaling("llama-3.1-8b", 0), "llama3 x8");
  EXPECT_EQ(scaling("gemma-3-4b", 5), "linear x8");
  EXPECT_EQ(scaling("gemma-3-4b", 0), "none");
  EXPECT_EQ(scaling("phi-3-mini-128k", 0), "longrope");
  EXPECT_EQ(scaling("qwen2.5-7b-yarn", 0), "yarn x4");
}

// A config that does not open names the flag and the file once, not the reader's own
// "config.json NAME: " or "\"PATH\": " after it.
TEST(ModelChoice, AConfigThatDoesNotOpenNamesItsFileOnce) {
  char tmpl[] = "/tmp/pe-test-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const std::string json = dir + "/broken.json", gguf = dir + "/broken.gguf";
  std::ofstream(json) << "{\"model_type\": \"llama\", \"num_hidden_layers\": 2}";
  std::ofstream(gguf) << "GGUF\x09";
  for (const std::string& path : {json, gguf}) {
    ModelParams m;
    m.model_config = path;
    Status s = OpenModel(m);
    ASSERT_FALSE(s.ok()) << path;
    EXPECT_EQ(s.message().rfind("--model-config " + path + ": ", 0), 0u) << s.message();
    EXPECT_EQ(count(s.message(), path.substr(dir.size() + 1)), 1u) << s.message();
  }
  ModelParams m;
  m.model_config = json;
  Status s = OpenModel(m);
  EXPECT_EQ(s.message(), "--model-config " + json +
                             ": no head count (num_attention_heads, n_head or num_heads)");
  std::system(("rm -rf " + dir).c_str());
}

// A model sets its input layer: GPT-2 and BERT add N(0, 0.02^2) embeddings unscaled (HF
// _init_weights with initializer_range 0.02; no scaling in GPT2Model / BertEmbeddings), T5 draws
// N(0, initializer_factor^2 = 1) unscaled, Gemma 3 multiplies by sqrt(hidden_size 2560)
// (modeling_gemma normalizer). The paper's defaults (sqrt(d) scaling, N(0, 1)) are replaced.
TEST(ModelChoice, AModelSetsItsInputLayer) {
  struct Case {
    const char* name;
    bool scale;
    EmbeddingInit init;
    double embedding_scale, init_std;
  };
  const Case cases[] = {
      {"gpt2", false, EmbeddingInit::kNormal002, 1.0, 0.02},
      {"bert-base-uncased", false, EmbeddingInit::kNormal002, 1.0, 0.02},
      {"t5-base", false, EmbeddingInit::kNormal1, 1.0, 1.0},
      {"llama-3.1-8b", false, EmbeddingInit::kNormal002, 1.0, 0.02},
      // math.sqrt(2560) in Python
      {"gemma-3-4b", true, EmbeddingInit::kNormal002, 50.59644256269407, 0.02},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    ModelParams m;
    ASSERT_TRUE(m.input.scale);  // the paper's default, which a model replaces
    m.model_name = k.name;
    ASSERT_TRUE(OpenModel(m).ok());
    EXPECT_EQ(m.input.scale, k.scale);
    EXPECT_EQ(m.example.init, k.init);
    EXPECT_DOUBLE_EQ(m.model->embedding_scale, k.embedding_scale);
    EXPECT_EQ(m.model->embedding_init_std, k.init_std);
  }
  const ModelSchedule gemma = CatalogueModel("gemma-3-4b").value();
  EXPECT_NE(DescribeModelText(gemma).find(
                "\ninput: token embeddings x sqrt(2560) = 50.5964, initialised N(0, 0.02^2)\n"),
            std::string::npos)
      << DescribeModelText(gemma);
  const ModelSchedule gpt2 = CatalogueModel("gpt2").value();
  EXPECT_NE(DescribeModelText(gpt2).find(
                "\ninput: token embeddings added unscaled, initialised N(0, 0.02^2)\n"),
            std::string::npos);
  EXPECT_NE(DescribeModelJson(gemma).find("\"embedding_scale\": 50.59644256269407"),
            std::string::npos);
  // GPT-2's sum view adds E itself, not E x sqrt(768).
  ModelParams m;
  m.model_name = "gpt2";
  ASSERT_TRUE(OpenModel(m).ok());
  Result<Figure> sum = BuildViewFigure(ViewKind::kSums, m, ViewSelection{}, FigureSize{},
                                       FigureFormat::kPng, "", nullptr);
  ASSERT_TRUE(sum.ok()) << sum.message();
  EXPECT_EQ(sum.value().title.find("\xe2\x88\x9a"), std::string::npos) << sum.value().title;
}

// The legend writes the softmax scale a model's layer uses as the model computes it:
// DeepSeek-V3's mscale^2 / sqrt(q head dim 192) with mscale = 0.1 ln 40 + 1 (numpy:
// 1.8738542070926265 / sqrt(192) = 0.1352337788608801), not "in place of 1/√64" (its 64
// rotated dims); Gemma 3's query_pre_attn_scalar 256.
TEST(ModelChoice, TheSoftmaxScaleIsWrittenAsTheModelComputesIt) {
  ModelParams m;
  m.model_name = "deepseek-v3";
  ASSERT_TRUE(OpenModel(m).ok());
  EXPECT_EQ(SoftmaxScaleText(m, m.pe.d_model),
            "softmax scale s = 1.874/\xe2\x88\x9a"
            "192 = 0.1352 (deepseek-v3's, q head dim 192)");
  Result<Figure> score = BuildViewFigure(ViewKind::kScore, m, ViewSelection{}, FigureSize{},
                                         FigureFormat::kPng, "", nullptr);
  ASSERT_TRUE(score.ok()) << score.message();
  bool found = false;
  for (const FigureLegendItem& l : score.value().legend) {
    EXPECT_EQ(l.label.find("1/\xe2\x88\x9a"
                           "64"),
              std::string::npos)
        << l.label;
    found = found || l.label.find(
                         "1.874/\xe2\x88\x9a"
                         "192") != std::string::npos;
  }
  EXPECT_TRUE(found);
  ModelParams g;
  g.model_name = "gemma-3-4b";
  ASSERT_TRUE(OpenModel(g).ok());
  EXPECT_EQ(SoftmaxScaleText(g, g.pe.d_model),
            "softmax scale s = 1/\xe2\x88\x9a"
            "256 = 0.0625 (gemma-3-4b's)");
  // A scale typed by hand is compared with the default 1/sqrt(d_model).
  g.softmax_scale = 0.2;
  EXPECT_EQ(SoftmaxScaleText(g, 256),
            "softmax scale s = 0.2 (in place of 1/\xe2\x88\x9a"
            "256 = 0.0625)");
}

// Llama 4's chunk (8192) and temperature floor (8192) are past 4096 rows: its layers open with
// twice that, 16384 rows; a layer with no boundary past 4096 keeps 4096, Mistral v0.1's sliding
// 4096 gets 8192.
TEST(ModelChoice, ALayerOpensWithRowsThatShowItsBoundary) {
  const ModelSchedule l4 = CatalogueModel("llama-4-scout").value();
  EXPECT_EQ(ModelDefaultRows(l4, 0), 16384);  // chunked 8192
  EXPECT_EQ(ModelDefaultRows(l4, 3), 16384);  // NoPE, floor_scale 8192
  EXPECT_EQ(ModelDefaultRows(l4), 4096);
  EXPECT_EQ(ModelDefaultRows(CatalogueModel("mistral-7b-v0.1").value(), 0), 8192);
  EXPECT_EQ(ModelDefaultRows(CatalogueModel("llama-3.1-8b").value(), 0), 4096);
  EXPECT_EQ(ModelDefaultRows(CatalogueModel("gemma-3-4b").value(), 0), 4096);  // sliding 1024
  EXPECT_EQ(ModelDefaultRows(CatalogueModel("gpt2").value(), 0), 1024);        // its context
  // Phi-3 mini 128k's sliding_window 262144 is past its context 131072: it never acts.
  EXPECT_EQ(ModelDefaultRows(CatalogueModel("phi-3-mini-128k").value(), 0), 4096);
  ModelParams m;
  m.model_name = "llama-4-scout";
  m.model_layer = 3;
  ASSERT_TRUE(OpenModel(m).ok());
  EXPECT_EQ(m.pe.max_len, 16384);
}

// Gemma 3's 34 and Llama 4's 48 layers: a cell too narrow for its text keeps its number, or
// every k-th cell does; the chosen layer 0's outline stays inside the plot.
TEST(LayersView, NarrowCellsKeepTheirNumbersAndTheOutlineStaysInside) {
  for (const char* name : {"gemma-3-4b", "llama-4-scout", "deepseek-v3"}) {
    SCOPED_TRACE(name);
    ModelParams m;
    m.model_name = name;
    m.model_layer = 0;
    ASSERT_TRUE(OpenModel(m).ok());
    Result<Figure> f = BuildViewFigure(ViewKind::kLayers, m, ViewSelection{}, FigureSize{},
                                       FigureFormat::kPng, "", nullptr);
    ASSERT_TRUE(f.ok()) << f.message();
    const Figure& fig = f.value();
    ASSERT_EQ(fig.labels.size(), m.model->layers.size());
    EXPECT_EQ(fig.labels[0].text, "0");
    size_t numbered = 0;
    for (size_t i = 0; i < fig.labels.size(); ++i) {
      if (!fig.labels[i].text.empty()) {
        EXPECT_EQ(fig.labels[i].text, std::to_string(i));
        ++numbered;
      }
    }
    EXPECT_GE(numbered, fig.labels.size() / 5) << numbered;
    ASSERT_EQ(fig.overlays.size(), 1u);
    EXPECT_LT(fig.view.x0, fig.overlays[0].x0);
    EXPECT_GT(fig.view.x1, static_cast<double>(m.model->layers.size()));
  }
}

// LongRoPE's pairs are named by the list in use and their own number (Phi-3 mini 128k's
// short_factor: 1.05 for pair 0, 1.25 for pair 7), not by Llama 3's kept / blended.
TEST(ModelChoice, LongropePairsSayTheirListAndFactor) {
  ModelParams m;
  m.model_name = "phi-3-mini-128k";
  ASSERT_TRUE(OpenModel(m).ok());
  Result<Figure> rot = BuildViewFigure(ViewKind::kRotation, m, ViewSelection{}, FigureSize{},
                                       FigureFormat::kPng, "", nullptr);
  ASSERT_TRUE(rot.ok()) << rot.message();
  bool pair0 = false, pair7 = false;
  for (const FigureLegendItem& l : rot.value().legend) {
    EXPECT_EQ(l.label.find("blended"), std::string::npos) << l.label;
    EXPECT_EQ(l.label.find("kept"), std::string::npos) << l.label;
    if (l.label.rfind("pair 0 ", 0) == 0) pair0 = l.label.ends_with(", / short_factor 1.05");
    if (l.label.rfind("pair 7 ", 0) == 0) pair7 = l.label.ends_with(", / short_factor 1.25");
  }
  EXPECT_TRUE(pair0);
  EXPECT_TRUE(pair7);
  Result<Figure> freq = BuildViewFigure(ViewKind::kFrequencies, m, ViewSelection{}, FigureSize{},
                                        FigureFormat::kPng, "", nullptr);
  ASSERT_TRUE(freq.ok()) << freq.message();
  std::vector<std::string> labels;
  for (const FigureLegendItem& l : freq.value().legend) labels.push_back(l.label);
  // 131072 / 4096 = 32; every one of the 48 short factors is neither 1 nor 32.
  EXPECT_NE(std::find(labels.begin(), labels.end(), "short_factor_i = 1: 0 pairs"), labels.end());
  EXPECT_NE(std::find(labels.begin(), labels.end(), "short_factor_i = M / L = 32: 0 pairs"),
            labels.end());
  EXPECT_NE(std::find(labels.begin(), labels.end(), "short_factor_i another number: 48 pairs"),
            labels.end());
}

}  // namespace
}  // namespace pe
