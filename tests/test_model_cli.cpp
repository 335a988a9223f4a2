// A real model on the command line, run as a user runs it: --list-models, describe (text and
// JSON), export --model with --layer and overrides, the layers view's table, the refusals, and
// export --from of a figure drawn from a model. The expected values are the published
// config.json's (assets/models), read by hand.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "arch/catalogue.h"
#include "test_support.h"

namespace pe {
namespace {

using pe::testing::ReadFile;

struct CliRun {
  int code = -1;
  std::string output;  // stdout and stderr
  std::string out;     // stdout alone
};

CliRun RunCli(const std::string& args, bool with_stderr = true) {
  const std::string cmd =
      std::string(PE_EXPLORER_EXE) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = r.output;
  return r;
}

bool FileExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

using ModelCli = pe::testing::TempDirTest;

TEST_F(ModelCli, ListModelsPrintsNameTitleAndSourcePerLine) {
  CliRun r = RunCli("export --list-models", false);
  ASSERT_EQ(r.code, 0) << r.output;
  std::istringstream lines(r.out);
  size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    ASSERT_LT(count, ModelCatalogue().size());
    const CatalogueEntry& e = ModelCatalogue()[count];
    EXPECT_EQ(line,
              std::string(e.name) + "\t" + std::string(e.title) + "\t" + std::string(e.source));
  }
  EXPECT_EQ(count, ModelCatalogue().size());
  EXPECT_TRUE(Contains(r.out, "llama-3.1-8b\tLlama 3.1 8B\thttps://huggingface.co/"));
}

TEST_F(ModelCli, DescribePrintsTheCardAndItsRunsOfLayers) {
  // meta-llama/Llama-3.1-8B config.json: 32 layers of RoPE, rope_theta 500000, llama3 scaling
  // factor 8, low 1, high 4, original 8192, hidden 4096 / 32 heads = head dim 128.
  CliRun r = RunCli("describe --model llama-3.1-8b");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "name: llama-3.1-8b\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "model_type: llama\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "layers: 32\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "context: 131072\n")) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "layers 0-31: rope theta 500000 llama3 factor 8 low 1 high 4 original "
                       "8192, half pairing, 128 dims, causal\n"))
      << r.output;
  // google/gemma-3-4b-it: every 6th layer global (theta 1e6, linear 8), the others sliding 1024
  // at theta 1e4.
  CliRun g = RunCli("describe --model gemma-3-4b --layer 5");
  ASSERT_EQ(g.code, 0) << g.output;
  EXPECT_TRUE(Contains(g.output, "layers 5, 11, 17, 23, 29: rope theta 1000000 linear factor 8"))
      << g.output;
  EXPECT_TRUE(Contains(g.output, "layers 0-4, 6-10, 12-16, 18-22, 24-28, 30-33: rope theta 10000,"))
      << g.output;
  EXPECT_TRUE(Contains(g.output, "chosen layer 5: rope theta 1000000 linear")) << g.output;
}

TEST_F(ModelCli, DescribeJsonHasTheShapeAndTheRuns) {
  CliRun r = RunCli("describe --model gemma-3-4b --json", false);
  ASSERT_EQ(r.code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["name"], "gemma-3-4b");
  EXPECT_EQ(j["shape"]["layers"], 34);
  EXPECT_EQ(j["shape"]["head_dim"], 256);
  EXPECT_EQ(j["first_positional_layer"], 0);
  ASSERT_EQ(j["layer_runs"].size(), 2u);
  EXPECT_EQ(j["layer_runs"][1]["layers"], nlohmann::json({5, 11, 17, 23, 29}));
  EXPECT_EQ(j["layer_runs"][1]["base"], "1000000");
  EXPECT_EQ(j["layer_runs"][1]["scaling"], "linear x8");
  EXPECT_EQ(j["layer_runs"][0]["window"], "sliding:1024");
  EXPECT_FALSE(j.contains("chosen_layer"));

  // --layer adds the chosen layer, as the text form's "chosen layer N" line.
  CliRun l = RunCli("describe --model gemma-3-4b --layer 5 --json", false);
  ASSERT_EQ(l.code, 0) << l.output;
  const nlohmann::json jl = nlohmann::json::parse(l.out, nullptr, false);
  ASSERT_FALSE(jl.is_discarded()) << l.out;
  EXPECT_EQ(jl["chosen_layer"]["layer"], 5);
  EXPECT_EQ(jl["chosen_layer"]["text"], j["layer_runs"][1]["text"]);
}

TEST_F(ModelCli, ALayerGivesTheSameTableAsItsFlagsAndAnOverrideIsModified) {
  CliRun a = RunCli("export --model gemma-3-4b --layer 5 --view heatmap --max-len 16 -o " +
                    Path("model.csv"));
  ASSERT_EQ(a.code, 0) << a.output;
  CliRun b = RunCli(
      "export --scheme rope --d-model 256 --rope-theta 1000000 --rope-scaling linear "
      "--scaling-factor 8 --view heatmap --max-len 16 -o " +
      Path("flags.csv"));
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_EQ(ReadFile(Path("model.csv")), ReadFile(Path("flags.csv")));
  // Another theta wherever it stands overrides the layer's, and the figure says so.
  CliRun c = RunCli(
      "export --rope-theta 20000 --model gemma-3-4b --layer 5 --view heatmap "
      "--max-len 16 -o " +
      Path("theta.csv"));
  ASSERT_EQ(c.code, 0) << c.output;
  CliRun d = RunCli(
      "export --scheme rope --d-model 256 --rope-theta 20000 --rope-scaling linear "
      "--scaling-factor 8 --view heatmap --max-len 16 -o " +
      Path("theta_flags.csv"));
  ASSERT_EQ(d.code, 0) << d.output;
  EXPECT_EQ(ReadFile(Path("theta.csv")), ReadFile(Path("theta_flags.csv")));
  EXPECT_NE(ReadFile(Path("theta.csv")), ReadFile(Path("model.csv")));
  CliRun svg = RunCli(
      "export --model gemma-3-4b --layer 5 --rope-theta 20000 --view heatmap "
      "--max-len 16 -o " +
      Path("theta.svg"));
  ASSERT_EQ(svg.code, 0) << svg.output;
  const std::string text = ReadFile(Path("theta.svg"));
  EXPECT_TRUE(Contains(text, "[modified from gemma-3-4b, layer 5]")) << text.substr(0, 2000);
  CliRun same = RunCli(
      "export --model gemma-3-4b --layer 5 --rope-theta 1000000 --view heatmap "
      "--max-len 16 -o " +
      Path("same.svg"));
  ASSERT_EQ(same.code, 0) << same.output;
  EXPECT_TRUE(Contains(ReadFile(Path("same.svg")), "[gemma-3-4b, layer 5]"));
}

TEST_F(ModelCli, TheLayersTableIsTheConfigsSchedule) {
  CliRun r = RunCli("export --model gemma-3-4b --view layers -o " + Path("layers.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  std::string expected = "layer,scheme,base,scaling,pairing,rotary,window,temperature\n";
  for (int i = 0; i < 34; ++i) {
    expected += std::to_string(i) + (i % 6 == 5 ? ",rope,1000000,linear x8,half,256,causal,none\n"
                                                : ",rope,10000,none,half,256,sliding:1024,none\n");
  }
  EXPECT_EQ(ReadFile(Path("layers.csv")), expected);
}

TEST_F(ModelCli, RefusalsNameTheFlagTheRuleAndTheValue) {
  CliRun range = RunCli("export --model gemma-3-4b --layer 40 --view heatmap -o " + Path("a.csv"));
  EXPECT_EQ(range.code, 2);
  EXPECT_TRUE(Contains(range.output,
                       "--layer must be an integer in [0, 33] for gemma-3-4b (34 layers), got 40"))
      << range.output;
  CliRun both = RunCli("export --model gemma-3-4b --model-config " + Path("config.json") +
                       " --view heatmap -o " + Path("b.csv"));
  EXPECT_EQ(both.code, 2);
  EXPECT_TRUE(Contains(both.output, "--model and --model-config both name a model")) << both.output;
  CliRun alone = RunCli("export --layer 3 --view heatmap -o " + Path("c.csv"));
  EXPECT_EQ(alone.code, 2);
  EXPECT_TRUE(Contains(alone.output, "--layer 3 picks a layer of a model")) << alone.output;
  CliRun unknown = RunCli("describe --model no-such-model");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_TRUE(Contains(unknown.output, "no-such-model")) << unknown.output;
  CliRun none = RunCli("export --view layers -o " + Path("d.csv"));
  EXPECT_EQ(none.code, 2);
  EXPECT_TRUE(Contains(none.output, "the layers view draws a model's layers")) << none.output;
  CliRun npy = RunCli("export --model gemma-3-4b --view layers -o " + Path("e.npy"));
  EXPECT_EQ(npy.code, 2);
  EXPECT_TRUE(Contains(npy.output, "write it as .csv")) << npy.output;
  CliRun bare = RunCli("describe");
  EXPECT_EQ(bare.code, 2);
  EXPECT_TRUE(Contains(bare.output, "describe needs a model")) << bare.output;
  for (const char* f : {"a.csv", "b.csv", "c.csv", "d.csv", "e.npy"}) {
    EXPECT_FALSE(FileExists(Path(f))) << f;
  }
}

TEST_F(ModelCli, AFigureOfAModelIsDrawnAgainFromItsMetadata) {
  CliRun png = RunCli("export --model gemma-3-4b --layer 5 --view score --max-len 32 -o " +
                      Path("score.png"));
  ASSERT_EQ(png.code, 0) << png.output;
  CliRun from = RunCli("export --from " + Path("score.png") + " -o " + Path("from.csv"));
  ASSERT_EQ(from.code, 0) << from.output;
  CliRun direct = RunCli("export --model gemma-3-4b --layer 5 --view score --max-len 32 -o " +
                         Path("direct.csv"));
  ASSERT_EQ(direct.code, 0) << direct.output;
  EXPECT_EQ(ReadFile(Path("from.csv")), ReadFile(Path("direct.csv")));
  // Its layers, too: the built-in model is named, not a file.
  CliRun layers =
      RunCli("export --from " + Path("score.png") + " --view layers -o " + Path("layers.csv"));
  ASSERT_EQ(layers.code, 0) << layers.output;
  EXPECT_TRUE(
      Contains(ReadFile(Path("layers.csv")), "\n5,rope,1000000,linear x8,half,256,causal,"));
}

// A config.json of one's own: read by --model-config, described, and a figure drawn from it is
// drawn again by export --from after the file is gone (its parameters give the numbers).
TEST_F(ModelCli, AConfigFileIsReadAndItsFigureNeedsItNoMore) {
  {
    std::ofstream f(Path("config.json"));
    f << R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4,
             "hidden_size": 256, "max_position_embeddings": 2048, "rope_theta": 20000})";
  }
  CliRun card = RunCli("describe --model-config " + Path("config.json"));
  ASSERT_EQ(card.code, 0) << card.output;
  // head dim 256 / 4 = 64, every layer the same.
  EXPECT_TRUE(Contains(card.output, "layers 0-1: rope theta 20000, half pairing, 64 dims, causal"))
      << card.output;
  CliRun png = RunCli("export --model-config " + Path("config.json") +
                      " --view heatmap --max-len 20 -o " + Path("h.png"));
  ASSERT_EQ(png.code, 0) << png.output;
  CliRun direct = RunCli("export --model-config " + Path("config.json") +
                         " --view heatmap --max-len 20 -o " + Path("direct.csv"));
  ASSERT_EQ(direct.code, 0) << direct.output;
  std::remove(Path("config.json").c_str());
  CliRun from = RunCli("export --from " + Path("h.png") + " -o " + Path("from.csv"));
  ASSERT_EQ(from.code, 0) << from.output;
  EXPECT_EQ(ReadFile(Path("from.csv")), ReadFile(Path("direct.csv")));
  CliRun flags = RunCli(
      "export --scheme rope --d-model 64 --rope-theta 20000 --view heatmap "
      "--max-len 20 -o " +
      Path("flags.csv"));
  ASSERT_EQ(flags.code, 0) << flags.output;
  EXPECT_EQ(ReadFile(Path("direct.csv")), ReadFile(Path("flags.csv")));
}

}  // namespace
}  // namespace pe
