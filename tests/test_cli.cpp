// `pe-explorer export` run as a separate process, the way users and scripts run it: every view
// and format, numbers checked against the engine and (where numpy is installed) against numpy's
// float64 formula; every bad argument gives a message, the right exit code and no file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "analysis/attention_score.h"
#include "analysis/similarity.h"
#include "base/random.h"
#include "cli/command_line.h"
#include "cli/export_command.h"
#include "encoding/alibi.h"
#include "encoding/positional_encoding.h"
#include "encoding/t5_buckets.h"
#include "io/file_writers.h"
#include "model/embedding.h"
#include "session/figure_session.h"
#include "test_support.h"

namespace pe {
namespace {

using pe::testing::NpyArray;
using pe::testing::ParseCsv;
using pe::testing::ParseNpy;
using pe::testing::ReadFile;

struct CliRun {
  int code = -1;
  std::string output;  // stdout and stderr
};

// Runs the CLI through bash (the arguments may use $'...' quoting).
CliRun RunCli(const std::string& args) {
  std::string quoted;
  for (char c : std::string(PE_EXPLORER_EXE) + " " + args + " 2>&1") {
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  const std::string cmd = "bash -c '" + quoted + "'";
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

using Cli = pe::testing::TempDirTest;

// The CLI run by bash in the folder `dir`.
CliRun RunCliIn(const std::string& dir, const std::string& args) {
  return RunCli("--version > /dev/null && cd '" + dir + "' && " + PE_EXPLORER_EXE + " " + args);
}

// A loaded position table is exported whole: max_len follows its 1024 rows unless given.
TEST_F(Cli, ALoadedPositionTableIsExportedWhole) {
  ASSERT_TRUE(pe::testing::WriteSinusoidNpyWithAWrongCell(Path("wpe.npy"), 1024, 4, 0, 0));
  CliRun r = RunCli("export --view heatmap --scheme learned --positions-table " + Path("wpe.npy") +
                    " -o " + Path("all.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("all.npy")), a, why)) << why;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{1024, 4}));
  r = RunCli("export --view heatmap --scheme learned --max-len 100 --positions-table " +
             Path("wpe.npy") + " -o " + Path("some.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray some;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("some.npy")), some, why)) << why;
  EXPECT_EQ(some.shape, (std::vector<int64_t>{100, 4}));
}

// A figure made with a table named by a relative path is drawn again from another folder: the
// table is found beside the figure, or (the figure moved) where it was read from.
TEST_F(Cli, AFigureWithARelativeTablePathIsDrawnAgainFromAnotherFolder) {
  ASSERT_EQ(::mkdir(Path("a").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir(Path("b").c_str(), 0700), 0);
  ASSERT_TRUE(pe::testing::WriteSinusoidNpyWithAWrongCell(Path("a/w.npy"), 12, 4, 0, 0));
  CliRun r = RunCliIn(Path("a"),
                      "export --view heatmap --scheme learned --positions-table w.npy -o fig.png");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string png = ReadFile(Path("a/fig.png"));
  EXPECT_NE(png.find("positions_table=w.npy"), std::string::npos);
  r = RunCliIn(Path("b"), "export --from ../a/fig.png -o t.npy");
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("b/t.npy")), a, why)) << why;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{12, 4}));
  // The figure alone in another folder: the absolute path recorded finds the table.
  std::ofstream(Path("b/moved.png"), std::ios::binary) << png;
  r = RunCliIn(Path("b"), "export --from moved.png -o u.npy");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(Exists(Path("b/u.npy")));
}

TEST_F(Cli, HeatmapNpyIsTheEngineTable) {
  CliRun r = RunCli("export --view heatmap --d-model 128 --max-len 100 -o " + Path("pe.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("pe.npy")), a, why)) << why;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{100, 128}));
  EncodingParams p;
  EXPECT_EQ(a.data, ComputePeTable(p).value().data);
}

TEST_F(Cli, HeatmapMatchesNumpyFloat64Formula) {
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "numpy is not installed (apt-get install python3-numpy)";
  }
  for (const char* variant : {"paper", "t2t", "tf-text"}) {
    const std::string out = Path(std::string(variant) + ".npy");
    ASSERT_EQ(RunCli(std::string("export --view heatmap --d-model 31 --max-len 64 --offset 9999000 "
                                 "--variant ") +
                     variant + " -o " + out)
                  .code,
              0);
    // numpy's float64 formulas, written from each variant's definition.
    const std::string script = R"PY(
import sys, numpy as np
v, path = sys.argv[1], sys.argv[2]
d, L, off = 31, 64, 9999000
pos = np.arange(off, off + L, dtype=np.float64)[:, None]
h = d // 2
if v == 'paper':
    i = np.arange(d) // 2
    w = 10000.0 ** (-2.0 * i / d)
    ref = np.where(np.arange(d) % 2 == 0, np.sin(pos * w), np.cos(pos * w))
elif v == 't2t':
    w = 10000.0 ** (-np.arange(h) / max(h - 1, 1))
    ref = np.concatenate([np.sin(pos * w), np.cos(pos * w), np.zeros((L, d - 2 * h))], axis=1)
else:
    s = d - h
    ref = np.concatenate([np.sin(pos * 10000.0 ** (-2.0 * np.arange(s) / d)),
                          np.cos(pos * 10000.0 ** (-2.0 * np.arange(h) / d))], axis=1)
got = np.load(path)
assert got.dtype == np.float32 and got.shape == (L, d), (got.dtype, got.shape)
err = np.abs(got.astype(np.float64) - ref).max()
print(err)
sys.exit(0 if err < 1e-7 else 1)
)PY";
    const std::string py = Path("check.py");
    FILE* f = std::fopen(py.c_str(), "w");
    std::fputs(script.c_str(), f);
    std::fclose(f);
    EXPECT_EQ(std::system(("/usr/bin/python3 " + py + " " + variant + " " + out).c_str()), 0)
        << variant;
  }
}

TEST_F(Cli, CurvesCsvHasTheChosenDims) {
  CliRun r =
      RunCli("export --view curves --dims 4,5,6,7 --d-model 20 --max-len 100 -o " + Path("c.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  auto rows = ParseCsv(ReadFile(Path("c.csv")));
  ASSERT_EQ(rows.size(), 101u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"pos", "d4", "d5", "d6", "d7"}));
  EXPECT_EQ(rows[3][0], "2");
  EXPECT_EQ(std::strtof(rows[3][1].c_str(), nullptr),
            static_cast<float>(std::sin(2 * std::pow(10000.0, -4.0 / 20))));
  r = RunCli("export --view curves --dims 0,1 --d-model 8 --max-len 3 -o " + Path("c.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("c.npy")), a, why)) << why;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(a.data, (std::vector<float>{
                        0, 1, static_cast<float>(std::sin(1.0)), static_cast<float>(std::cos(1.0)),
                        static_cast<float>(std::sin(2.0)), static_cast<float>(std::cos(2.0))}));
}

TEST_F(Cli, SumCsvToStdoutAndNpy) {
  CliRun r = RunCli("export --view sum --text 'The cat sits on the mat' --d-model 8 --seed 0 -o -");
  ASSERT_EQ(r.code, 0) << r.output;
  auto rows = ParseCsv(r.output);
  ASSERT_EQ(rows.size(), 25u);
  EXPECT_EQ(rows[0][0], "token");
  EXPECT_EQ(rows[21][0], "mat");
  EXPECT_EQ(rows[21][2], "5");
  r = RunCli("export --view sum --d-model 8 --no-scale --dropout 0.5 --train -o " + Path("s.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("s.npy")), a, why)) << why;
  ASSERT_EQ(a.shape, (std::vector<int64_t>{6, 4, 8}));
  int zeros = 0;
  for (int t = 0; t < 6; ++t) {
    for (int j = 0; j < 8; ++j) {
      const float emb = a.data[(t * 4 + 0) * 8 + j], scaled = a.data[(t * 4 + 1) * 8 + j];
      const float pos = a.data[(t * 4 + 2) * 8 + j], sum = a.data[(t * 4 + 3) * 8 + j];
      EXPECT_EQ(emb, scaled);  // --no-scale
      if (sum == 0.0f) {
        ++zeros;
      } else {
        EXPECT_FLOAT_EQ(sum, (scaled + pos) * 2.0f);  // kept values scaled by 1 / (1 - p)
      }
    }
  }
  EXPECT_GT(zeros, 8);
  EXPECT_LT(zeros, 40);
}

// The contract's batch: (batch, tokens, 4, d) with out[i, j] = W[x[i, j]] * sqrt(d) + PE[j], and
// the row picked for the figure. The engine's table W is made independently of the CLI.
TEST_F(Cli, SumOfTypedIdsForASequenceAndABatch) {
  CliRun r = RunCli("export --view sum --ids 2,5,0,9 --d-model 8 -o " + Path("seq.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("seq.npy")), a, why)) << why;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{4, 4, 8}));
  r = RunCli(
      "export --view sum --ids '23,37,3,45,82;97,61,19,73,53' --vocab-size 100 "
      "--d-model 4 --seed 3 -o " +
      Path("batch.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  a = NpyArray{};
  ASSERT_TRUE(ParseNpy(ReadFile(Path("batch.npy")), a, why)) << why;
  ASSERT_EQ(a.shape, (std::vector<int64_t>{2, 5, 4, 4}));
  const int64_t x[2][5] = {{23, 37, 3, 45, 82}, {97, 61, 19, 73, 53}};
  const Matrix w = InitEmbeddingNormal(100, 4, 3).value();  // (V, d)
  EncodingParams p;
  p.d_model = 4;
  const Matrix pe = ComputePeTable(p).value();  // (max_len, d)
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 5; ++j) {
      for (int c = 0; c < 4; ++c) {
        const float sum = a.data[static_cast<size_t>(((i * 5 + j) * 4 + 3) * 4 + c)];
        ASSERT_EQ(sum, w.at(x[i][j], c) * 2.0f + pe.at(j, c)) << i << "," << j << "," << c;
      }
    }
  }
  r = RunCli("export --view sum --ids '23,37;97,61' -o -");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto rows = ParseCsv(r.output);
  ASSERT_EQ(rows.size(), 1u + 2 * 2 * 4);
  EXPECT_EQ(rows[0][0], "batch");
  EXPECT_EQ(rows[9][0], "1");
  EXPECT_EQ(rows[9][1], "id 97");
  // --init reaches the table: normal-scaled is normal-1 over sqrt(d).
  r = RunCli("export --view sum --ids 7 --d-model 16 --init normal-scaled -o -");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto scaled = ParseCsv(r.output);
  ASSERT_GE(scaled.size(), 2u);
  EXPECT_EQ(std::stof(scaled[1][4]), static_cast<float>(RandomNormal(0, 7 * 16) / 4.0));
  // The figure shows the chosen batch row.
  r = RunCli("export --view sum --ids '23,37;97,61' --batch-row 1 --token all -o " +
             Path("batch.png"));
  EXPECT_EQ(r.code, 0) << r.output;
  r = RunCli("export --view sum --ids '23,37;97,61' --batch-row 2 -o " + Path("bad.png"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--batch-row must be a row of the ids in [0, 1], got \"2\""),
            std::string::npos)
      << r.output;
}

TEST_F(Cli, RopeViewsExportTablesAndFigures) {
  CliRun r =
      RunCli("export --scheme rope --view rotation --rotation-position 37 -o " + Path("rot.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto rows = ParseCsv(ReadFile(Path("rot.csv")));
  ASSERT_EQ(rows.size(), 65u);  // the header and every pair of the 128-dim head
  EXPECT_EQ(rows[0][7], "r_b");
  r = RunCli(
      "export --scheme rope --rope-scaling llama3 --rope-theta 500000 --view frequencies "
      "-o " +
      Path("freq.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("freq.npy")), a, why)) << why;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{64, 7}));
  r = RunCli("export --scheme rope --rope-scaling yarn --view rotation --rotation-position 99 -o " +
             Path("rot.svg"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(ReadFile(Path("rot.svg")).find("<svg"), std::string::npos);
  // A figure of a view the scheme does not have: refused, nothing written.
  r = RunCli("export --scheme learned --view rotation -o " + Path("x.png"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("the rotation view needs sin/cos pairs that rotate (sinusoidal or "
                          "rope); the learned scheme has no such view"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(Exists(Path("x.png")));
}

TEST_F(Cli, ScoreViewsExportTheCoreNumbers) {
  CliRun r = RunCli("export --scheme rope --view score --max-len 64 -o " + Path("s.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("s.npy")), a, why)) << why;
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{64, 64}));
  ModelParams m;
  m.pe.max_len = 64;
  m.pe.scheme = RopeParams{};
  Result<AttentionScorer> s = AttentionScorer::Make(m, MakeEncoding(m.pe).value());
  ASSERT_TRUE(s.ok()) << s.message();
  for (int64_t q = 0; q < 64; q += 7) {
    for (int64_t k = 0; k < 64; k += 5) {
      const double want = s.value().Score(q, k);
      EXPECT_NEAR(a.data[static_cast<size_t>(q * 64 + k)], want, 1e-5 * (1 + std::abs(want)));
    }
  }
  // Causal: masked cells are NaN in NPY and empty in CSV.
  r = RunCli("export --scheme rope --view score --max-len 4 --causal -o " + Path("c.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  auto rows = ParseCsv(ReadFile(Path("c.csv")));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"q", "k0", "k1", "k2", "k3"}));
  EXPECT_EQ(rows[1][0], "0");
  EXPECT_NE(rows[1][1], "");
  EXPECT_EQ(rows[1][2], "");
  EXPECT_EQ(rows[2][3], "");
  EXPECT_NE(rows[4][4], "");

  r = RunCli("export --view decay --compare sinusoidal,learned --max-len 20 -o " + Path("d.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  rows = ParseCsv(ReadFile(Path("d.csv")));
  ASSERT_EQ(rows.size(), 21u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"distance", "paper", "learned"}));
  EXPECT_EQ(rows[20][0], "19");

  r = RunCli("export --view roformer-decay --scheme rope --d-model 128 --max-len 251 -o " +
             Path("r.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  rows = ParseCsv(ReadFile(Path("r.csv")));
  ASSERT_EQ(rows.size(), 252u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"distance", "bound"}));
  EXPECT_NEAR(std::stod(rows[1][1]), 32.5, 1e-5);
  EXPECT_NEAR(std::stod(rows[11][1]), 17.954, 1e-3);
  EXPECT_NEAR(std::stod(rows[251][1]), 6.548, 1e-3);
  r = RunCli("export --view roformer-decay --scheme rope --d-model 128 --max-len 251 -o " +
             Path("r.png"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(Exists(Path("r.png")));
  // The bound is RoPE's: other schemes are told so.
  r = RunCli("export --view roformer-decay -o " + Path("x.csv"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(Exists(Path("x.csv")));
}

TEST_F(Cli, SimilarityViewsExportTheCoreNumbers) {
  CliRun r = RunCli(
      "export --view similarity --measure cosine --d-model 9 --max-len 40 --offset 7 "
      "-o " +
      Path("s.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("s.npy")), a, why)) << why;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{40, 40}));
  ModelParams m;
  m.pe.d_model = 9;
  m.pe.max_len = 40;
  m.pe.offset = 7;
  Result<PositionSimilarity> s =
      PositionSimilarity::Make(MakeEncoding(m.pe).value(), SimilarityMeasure::kCosine);
  ASSERT_TRUE(s.ok()) << s.message();
  for (int64_t p = 0; p < 40; p += 3) {
    for (int64_t q = 0; q < 40; q += 7) {
      EXPECT_NEAR(a.data[static_cast<size_t>(p * 40 + q)], s.value().Value(7 + p, 7 + q), 1e-6);
    }
  }
  r = RunCli("export --view similarity-offset --scheme learned --max-len 5 -o " + Path("o.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto rows = ParseCsv(ReadFile(Path("o.csv")));
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"k", "value"}));
  EXPECT_EQ(rows[1][0], "-4");
  EXPECT_EQ(rows[9][0], "4");
  for (const char* ext : {"png", "svg", "pdf"}) {
    r = RunCli(std::string("export --view similarity-offset --scheme rope -o ") + Path("f.") + ext);
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_TRUE(Exists(Path("f.") + ext));
  }
}

TEST_F(Cli, AttentionViewExportsTheSoftmaxRow) {
  // Symmetric ALiBi, slope 1/2, query 32 of 64: far from both ends the weights are the
  // two-sided geometric law, tanh(1/4) e^{-|k|/2} at distance k (NPY (L,) float32).
  CliRun r = RunCli(
      "export --view attention --scheme alibi --alibi-mode symmetric --max-len 64 "
      "--query 32 -o " +
      Path("a.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("a.npy")), a, why)) << why;
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{64}));
  for (int k = -6; k <= 6; ++k) {
    EXPECT_NEAR(a.data[static_cast<size_t>(32 + k)], std::tanh(0.25) * std::exp(-0.5 * std::abs(k)),
                1e-7);
  }
  // The default query is the last position; --causal zeroes later keys (CSV key,score,weight).
  r = RunCli("export --view attention --scheme rope --max-len 6 --causal --query 3 -o " +
             Path("a.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  auto rows = ParseCsv(ReadFile(Path("a.csv")));
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"key", "score", "weight"}));
  EXPECT_NE(rows[4][1], "");
  EXPECT_EQ(rows[5][1], "");
  EXPECT_EQ(std::stod(rows[5][2]), 0.0);
  EXPECT_EQ(std::stod(rows[6][2]), 0.0);
  // Out of the table, or too long a row without a closed form: a message naming the flag.
  r = RunCli("export --view attention --max-len 10 --query 10 -o " + Path("x.csv"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("--query"), std::string::npos) << r.output;
  EXPECT_FALSE(Exists(Path("x.csv")));
  r = RunCli("export --view attention --scheme rope --max-len 2000000 -o " + Path("x.png"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("1048576"), std::string::npos) << r.output;
  EXPECT_FALSE(Exists(Path("x.png")));
}

TEST_F(Cli, HelpOnEveryLevel) {
  CliRun top = RunCli("--help");
  EXPECT_EQ(top.code, 0);
  EXPECT_NE(top.output.find("export"), std::string::npos);
  CliRun exp = RunCli("export --help");
  EXPECT_EQ(exp.code, 0);
  EXPECT_NE(exp.output.find("--view"), std::string::npos);
  EXPECT_NE(exp.output.find("--d-model"), std::string::npos);
}

TEST_F(Cli, BadArgumentsGiveAMessageAnExitCodeAndNoFile) {
  struct Case {
    std::string args;
    int code;
    std::string message;
  };
  const Case cases[] = {
      {"--d-model 0", 2, "--d-model must be an integer in [1, 65536], got \"0\""},
      {"--d-model -4", 2, "--d-model must be an integer in [1, 65536], got \"-4\""},
      {"--d-model 1e30", 2, "--d-model"},
      {"--max-len 0", 2, "--max-len must be an integer in [1, 2147483648], got \"0\""},
      {"--max-len 99999999999", 2,
       "--max-len must be an integer in [1, 2147483648], got \"99999999999\""},
      {"--base nan", 2, "--base must be a finite number greater than 1, got \"nan\""},
      {"--base 1", 2, "--base must be a finite number greater than 1, got \"1\""},
      {"--base inf", 2, "--base must be a finite number greater than 1, got \"inf\""},
      {"--offset -2147483648", 2,
       "--offset must be an integer in [-2147483647, 2147483647], got \"-2147483648\""},
      {"--scheme learned --offset -1", 2, "offset must be in [0, 2147483548]"},
      {"--scheme rope --base 500", 2, "--base applies to the sinusoidal scheme, not to rope"},
      {"--rope-theta 500", 2,
       "--rope-theta applies to the rope or xpos or mrope scheme, not to sinusoidal"},
      {"--scheme rope --beta-fast 16", 2,
       "--beta-fast: it applies to --rope-scaling yarn, not none"},
      {"--scheme rope --rope-scaling yarn --scaling-factor 0.5", 2,
       "--scaling-factor must be a finite number >= 1, got \"0.5\""},
      {"--scheme learned --view rotation", 2,
       "the rotation view needs sin/cos pairs that rotate (sinusoidal or rope)"},
      {"--scheme alibi --view spectrum", 2,
       "the spectrum view needs a scheme made of frequencies (sinusoidal, rope or xpos); the "
       "alibi scheme has no such view"},
      {"--view rotation --rotation-offset 2147483648", 2,
       "--rotation-offset must be an integer in [-2147483647, 2147483647], got \"2147483648\""},
      {"--view rotation --rotation-offset 1.5", 2, "--rotation-offset must be an integer"},
      {"--scheme rope --view rotation --rotation-offset 2", 2,
       "--rotation-offset applies to the sinusoidal scheme, not to rope"},
      {"--scheme sinusoidal --view frequencies", 2,
       "the frequencies view needs a rotary scheme (rope); the sinusoidal scheme has no such view"},
      {"--scheme rope --view rotation --rotation-position 100", 2,
       "--rotation-position must be a whole position in [0, 99] (the table's positions), got "
       "\"100\""},
      {"--scheme rope --view rotation --rotation-position 3.5", 2,
       "--rotation-position must be a whole position in [0, 99]"},
      {"--scheme rope --view heatmap --rotation-position 5", 2,
       "--rotation-position applies to the rotation view, not to heatmap"},
      {"--scheme rope --view sum", 2, "the sum view needs a scheme that adds"},
      {"--variant sinusoid", 2, "--variant must be one of paper, t2t, tf-text, got \"sinusoid\""},
      {"--view spiral", 2,
       "--view must be one of heatmap, curves, sum, rotation, frequencies, bias, buckets, slopes, "
       "score, decay, roformer-decay, "},
      {"--bogus 3", 2, "--bogus is not an option\n"},
      {"--d-modle 8", 2, "--d-modle is not an option (did you mean --d-model?)"},
      {"--view heatmp", 2, "got \"heatmp\" (did you mean heatmap?)"},
      {"--scheme rop", 2, "got \"rop\" (did you mean rope?)"},
      {"--colormap Viridis", 2, "got \"Viridis\" (did you mean viridis?)"},
      {"--ui-scale 2", 2, "--ui-scale is a window option; `export` never opens a window"},
      {"--view attention --query 500", 2,
       "--query must be a position of the table, 0 to 99 (or -1: the last position), got 500"},
      {"--scheme alibi --head 8", 2, "--head must be in [0, 7] (one of --heads 8), got 8"},
      {"--scheme t5 --t5-buckets 3", 2, "--t5-buckets must be even and at least 4"},
      {"--view decay --compare rope,alibbi", 2, "in \"rope,alibbi\" (did you mean alibi?)"},
      {"--view curves --dims 4,200", 2, "dims: dimension 200 is outside [0, 127]"},
      {"--view curves --dims x", 2, "is not a dimension index"},
      {"--view sum --dropout 1.5", 2, "--dropout must be a number in [0, 1], got \"1.5\""},
      {"--view sum --dropout nan", 2, "--dropout must be a number in [0, 1], got \"nan\""},
      {"--view sum --max-len 3", 2, "the sequence has 6 tokens but max_len is 3"},
      {"--view sum --vocab /nonexistent/vocab.txt", 1, "cannot read"},
      {"--max-len 100000000 --d-model 4096", 2, "over the memory cap of 2.0 GiB"},
      {"--memory-cap-mib 0", 2,
       "--memory-cap-mib must be an integer in [1, 1099511627776], got \"0\""},
      {"--tokenizer bpe", 2, "--tokenizer must be word or char"},
      {"--view similarity --measure foo", 2, "--measure must be dot or cosine, got \"foo\""},
      {"--scheme alibi --view similarity", 2, "the similarity view needs a vector per position"},
      {"--view similarity --max-len 100000", 2,
       "the (position x position) similarity table of 100000 x 100000 float32 values needs"},
      {"--view score --max-len 100000", 2,
       "raise the cap (--memory-cap-mib); or write only positions A to B-1 with --positions A:B"},
      {"--view sum --ids ''", 2, "--ids is empty: give token ids such as 2,5,0,9"},
      {"--view sum --ids 2,x", 2, "--ids: \"x\" at position 1 is not an integer token id"},
      {"--view sum --ids 1,99999999999999999999", 2, "does not fit a 64-bit integer"},
      {"--view sum --ids '1,2;3'", 2,
       "--ids: row 1 has 1 ids but row 0 has 2; every row of a batch must have the same length"},
      {"--view sum --ids 2,5,100 --vocab-size 100", 2,
       "--vocab-size 100 does not hold the ids: --ids: id 100 at position 2 is outside [0, 100)"},
      {"--view sum --ids '23,37;97,-1'", 2,
       "--ids: id -1 at row 1, column 1 is outside [0, 98): the vocabulary size is 98"},
      {"--view sum --ids 1,2 --vocab-size -1", 2,
       "--vocab-size must be an integer in [0, 16777216], got \"-1\""},
      {"--view sum --ids 1,2,3,4 --max-len 3", 2, "the sequence has 4 tokens but max_len is 3"},
      {"--view sum --init xavier", 2,
       "--init must be normal-1, normal-scaled, normal-0.02, truncated-normal, torch:SEED or "
       "torch-scalar:SEED (SEED an integer in [0, 18446744073709551615]; torch: PyTorch's "
       "numbers as on an AVX2 CPU, torch-scalar: as its scalar kernel draws them), got "
       "\"xavier\""},
      {"--learned-init normal-1", 2,
       "--learned-init applies to the learned scheme, not to sinusoidal"},
  };
  for (const Case& c : cases) {
    const std::string out = Path("out.csv");
    CliRun r = RunCli("export " + c.args + " -o " + out);
    EXPECT_EQ(r.code, c.code) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_FALSE(Exists(out)) << c.args;
  }
  CliRun no_ext = RunCli("export -o " + Path("table"));
  EXPECT_EQ(no_ext.code, 2);
  EXPECT_NE(no_ext.output.find("use a .png, .svg, .pdf, .csv or .npy file name"),
            std::string::npos);
  EXPECT_EQ(RunCli("export --view heatmap").code, 2);  // -o is required
  CliRun unwritable = RunCli("export -o /nonexistent-dir/pe.csv");
  EXPECT_EQ(unwritable.code, 1);
  EXPECT_NE(unwritable.output.find("cannot write /nonexistent-dir/pe.csv"), std::string::npos)
      << unwritable.output;
  // Nothing but the test's own files in the folder: no temporaries left behind.
  EXPECT_EQ(std::system(("test -z \"$(ls -A " + dir_ + ")\"").c_str()), 0);
}

TEST_F(Cli, WindowWithoutDisplaySaysWhatToDo) {
  if (std::getenv("DISPLAY") != nullptr) {
    GTEST_SKIP() << "DISPLAY is set, so the window opens instead of explaining what to do; "
                    "run this test without DISPLAY (CI wraps only the window tests in xvfb)";
  }
  CliRun r = RunCli("--frames 1 --screenshot " + Path("x.png") + " </dev/null");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("xvfb-run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pe-explorer export"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "one line only:\n" << r.output;
}

// A mistyped command is not taken for a file to open, and an unknown --tab names the view meant;
// both before any window is tried.
TEST_F(Cli, MistypedCommandsAndTabsSuggestTheNearestName) {
  CliRun r = RunCli("exprot --view heatmap </dev/null");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("\"exprot\" is neither a file nor a command (did you mean `export`?)"),
            std::string::npos)
      << r.output;
  r = RunCli("--tab atention </dev/null");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("got \"atention\" (did you mean attention?)"), std::string::npos)
      << r.output;
  // A flag of `export` given to the window, or a window flag mistyped; `check` without a table.
  r = RunCli("--viw heatmap </dev/null");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--viw is not an option (did you mean `export --view`?)"),
            std::string::npos)
      << r.output;
  r = RunCli("--view heatmap </dev/null");
  EXPECT_NE(r.output.find("--view is an option of `export`"), std::string::npos) << r.output;
  r = RunCli("--theme dakr </dev/null");
  EXPECT_NE(r.output.find("got \"dakr\" (did you mean dark?)"), std::string::npos) << r.output;
  r = RunCli("--screenshot " + Path("shot.bmp") + " </dev/null");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--screenshot writes a PNG: give a .png file name"), std::string::npos)
      << r.output;
  EXPECT_FALSE(Exists(Path("shot.bmp")));
  r = RunCli("check");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("check needs the table to compare: pe-explorer check FILE.npy"),
            std::string::npos)
      << r.output;
  // An existing file of that name is opened as asked (it fails later, as no file of a view).
  const std::string file = Path("chek");
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  r = RunCli(file + " </dev/null");
  EXPECT_EQ(r.output.find("did you mean"), std::string::npos) << r.output;
  // Parameter flags beside a file to open would be outvoted by it: refused, naming the way.
  r = RunCli(file + " --d-model 64 </dev/null");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("sets every parameter, so parameter flags beside it would be ignored"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("export --from FILE"), std::string::npos) << r.output;
  // A compare figure drawn again as another view of another scheme: its --versus, which only the
  // compare view reads and which does not apply to the new scheme, is not carried over.
  ASSERT_EQ(
      RunCli("export --view compare --scheme rope --versus rope_theta=500000 -o " + Path("c.png"))
          .code,
      0);
  r = RunCli("export --from " + Path("c.png") + " --view heatmap --scheme sinusoidal -o " +
             Path("h.png"));
  EXPECT_EQ(r.code, 0) << r.output;
}

// Numbers are decimal text, read whole, in their full range, and an error echoes the text
// exactly as given (CLI11's own conversions read 064 as octal, 0x10 as hex, wrapped -1 seeds).
TEST_F(Cli, NumbersAreDecimalAndErrorsEchoTheText) {
  CliRun r = RunCli("export --d-model 064 --max-len 2 -o -");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(ParseCsv(r.output)[0].size(), 65u) << "064 is 64 columns (plus pos), never 52";
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--d-model 0x10", "--d-model must be an integer in [1, 65536], got \"0x10\""},
      {"--d-model 064x", "--d-model must be an integer in [1, 65536], got \"064x\""},
      {"--d-model ''", "--d-model must be an integer in [1, 65536], got \"\""},
      {"--d-model ' 8'", "--d-model must be an integer in [1, 65536], got \" 8\""},
      {"--max-len 99999999999999999999999",
       "--max-len must be an integer in [1, 2147483648], got \"99999999999999999999999\""},
      {"--seed -1", "--seed must be an integer in [0, 18446744073709551615], got \"-1\""},
      {"--seed 18446744073709551616",
       "--seed must be an integer in [0, 18446744073709551615], got \"18446744073709551616\""},
      {"--seed 1e23", "--seed must be an integer in [0, 18446744073709551615], got \"1e23\""},
      {"--dropout-seed 0x1", "--dropout-seed must be an integer in [0, 18446744073709551615]"},
      {"--base 0x10", "--base must be a finite number greater than 1, got \"0x10\""},
      {"--base ''", "--base must be a finite number greater than 1, got \"\""},
      {"--base 1e400", "--base must be a finite number greater than 1, got \"1e400\""},
      {"--view sum --dropout 0.5x", "--dropout must be a number in [0, 1], got \"0.5x\""},
      {"--memory-cap-mib 0x10", "--memory-cap-mib must be an integer in [1, 1099511627776]"},
  };
  for (const Case& c : cases) {
    CliRun bad = RunCli("export " + c.args + " -o " + Path("out.csv"));
    EXPECT_EQ(bad.code, 2) << c.args << "\n" << bad.output;
    EXPECT_NE(bad.output.find(c.message), std::string::npos) << c.args << "\n" << bad.output;
    EXPECT_FALSE(Exists(Path("out.csv"))) << c.args;
  }
  // The figure's size: whole layout units (1e3 is not one), a scale in range; the message repeats
  // the text given, not the number it reads as ("1e+23").
  const Case size_cases[] = {
      {"--width 0x300", "--width must be an integer in [120, 10000], got \"0x300\""},
      {"--width 1e3", "--width must be an integer in [120, 10000], got \"1e3\""},
      {"--height 1e3", "--height must be an integer in [90, 10000], got \"1e3\""},
      {"--width 1e23", "--width must be an integer in [120, 10000], got \"1e23\""},
      {"--height 80", "--height must be an integer in [90, 10000], got \"80\""},
      {"--width 960.5", "--width must be an integer in [120, 10000], got \"960.5\""},
      {"--scale 1e9", "--scale must be a number in [0.25, 8], got \"1e9\""},
  };
  for (const Case& c : size_cases) {
    CliRun bad = RunCli("export " + c.args + " -o " + Path("f.svg"));
    EXPECT_EQ(bad.code, 2) << c.args << "\n" << bad.output;
    EXPECT_NE(bad.output.find(c.message), std::string::npos) << c.args << "\n" << bad.output;
    EXPECT_EQ(bad.output.find("e+"), std::string::npos) << c.args << "\n" << bad.output;
    EXPECT_FALSE(Exists(Path("f.svg"))) << c.args;
  }
  CliRun size = RunCli("export --width 1000 --height 300 --scale 0.5 -o " + Path("f.svg"));
  EXPECT_EQ(size.code, 0) << size.output;
  // The seed is the number given: 2^64 - 1 and 0 give different embeddings, and 1 is not 01x.
  CliRun a = RunCli("export --view sum --seed 18446744073709551615 -o -");
  CliRun b = RunCli("export --view sum --seed 0 -o -");
  ASSERT_EQ(a.code, 0) << a.output;
  EXPECT_NE(a.output, b.output);
}

TEST_F(Cli, FlagsThatWouldBeIgnoredAreRefused) {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--screenshot " + Path("x.png") + " export", "--screenshot is a window option"},
      {"--frames 3 export", "--frames is a window option"},
      {"--frame-stats 5 export", "--frame-stats is a window option"},
      {"--animate export", "--animate is a window option"},
      {"--size 800x600 export", "--size is a window option"},
      {"export --width 300", "--width applies to figures (.png, .svg, .pdf), not to the .csv"},
      {"export --title x", "--title applies to figures"},
      {"export --token 1", "--token applies to figures"},
      {"export --view sum --positions 0:2", "--positions does not apply to the sum table"},
      {"export --positions 1.5:3", "--positions for a table must be whole positions A:B"},
  };
  for (const Case& c : cases) {
    CliRun r = RunCli(c.args + " -o " + Path("out.csv"));
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_FALSE(Exists(Path("out.csv"))) << c.args;
  }
  // --frame-stats 0 is outside its documented range; if it were taken, --screenshot would
  // still end the run after one frame.
  CliRun zero = RunCli("--frame-stats 0 --frames 1 --screenshot " + Path("x.png") + " </dev/null");
  EXPECT_EQ(zero.code, 2) << zero.output;
  EXPECT_NE(zero.output.find("--frame-stats must be an integer in [1, 100000], got \"0\""),
            std::string::npos)
      << zero.output;
}

// --positions A:B on a table keeps rows A to B-1 (absolute positions, like PE[A:B]).
TEST_F(Cli, PositionsSelectTheRowsOfHeatmapAndCurvesTables) {
  CliRun r =
      RunCli("export --d-model 6 --max-len 100 --offset 5 --positions 40:43 -o " + Path("h.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("h.npy")), a, why)) << why;
  ASSERT_EQ(a.shape, (std::vector<int64_t>{3, 6}));
  for (int r0 = 0; r0 < 3; ++r0) {
    const double p = 40 + r0;
    for (int i = 0; i < 3; ++i) {
      const double w = std::pow(10000.0, -2.0 * i / 6);
      EXPECT_NEAR(a.data[r0 * 6 + 2 * i], std::sin(p * w), 1e-6) << p;
      EXPECT_NEAR(a.data[r0 * 6 + 2 * i + 1], std::cos(p * w), 1e-6) << p;
    }
  }
  r = RunCli("export --view curves --dims 1,2 --d-model 6 --max-len 100 --positions 7:9 -o -");
  ASSERT_EQ(r.code, 0) << r.output;
  auto rows = ParseCsv(r.output);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][0], "7");
  EXPECT_EQ(rows[2][0], "8");
  EXPECT_NEAR(std::strtod(rows[2][1].c_str(), nullptr), std::cos(8.0), 1e-6);
  EXPECT_EQ(RunCli("export --positions 0:101 --max-len 100 -o -").code, 2);
}

// A token index means a token of the sentence in every view, and the message gives the
// sentence's range, not max_len's.
TEST_F(Cli, TokenIsCheckedAgainstTheSentence) {
  for (const char* view : {"heatmap", "curves", "sum"}) {
    CliRun r = RunCli(std::string("export --view ") + view + " --max-len 100 --token 9 -o " +
                      Path("t.svg"));
    EXPECT_EQ(r.code, 2) << view << "\n" << r.output;
    EXPECT_NE(r.output.find("--token must be all or a token index in [0, 5] (the sentence has "
                            "6 tokens), got \"9\""),
              std::string::npos)
        << view << "\n"
        << r.output;
    EXPECT_FALSE(Exists(Path("t.svg")));
  }
  EXPECT_EQ(RunCli("export --view heatmap --token 5 -o " + Path("t.svg")).code, 0);
}

TEST_F(Cli, TextFlagsMustBeValidUtf8WithoutControlCharacters) {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--view sum --text $'ab\\xff'", "--text is not valid UTF-8 at byte offset 2 (0xFF)"},
      {"--view sum --text $'caf\\xc3'", "--text is not valid UTF-8 at byte offset 3 (0xC3)"},
      {"--view sum --text $'\\xc0\\xaf'", "--text is not valid UTF-8 at byte offset 0 (0xC0)"},
      {"--view sum --text $'a\\x01b'",
       "--text holds a control character at byte offset 1 (0x01); only tab and newline are "
       "allowed"},
      {"--title $'x\\xed\\xa0\\x80'", "--title is not valid UTF-8 at byte offset 1 (0xED)"},
      {"--title $'line\\nbreak'",
       "--title holds a control character (only tab is allowed) at byte offset 4 (0x0A)"},
  };
  for (const Case& c : cases) {
    CliRun r = RunCli("export " + c.args + " -o " + Path("f.svg"));
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_FALSE(Exists(Path("f.svg"))) << c.args;
  }
  CliRun ok = RunCli("export --view sum --text $'caf\\xc3\\xa9\\tau lait' --title $'a\\tb' -o " +
                     Path("f.svg"));
  EXPECT_EQ(ok.code, 0) << ok.output;
  // A text of several lines is a text (a title stays one line).
  ok = RunCli("export --view sum --text $'line one\\nline two' -o " + Path("g.svg"));
  EXPECT_EQ(ok.code, 0) << ok.output;
}

// A poem from a file: newlines and tabs are tokens of the char tokenizer, drawn as marks in the
// figures (valid SVG, PDF text), recorded in the metadata and read back by --from.
TEST_F(Cli, MultiLineTextFromAFileMakesValidFiguresThatReadBack) {
  const std::string poem = "Two roads\n\tdiverged\n";
  {
    std::ofstream out(Path("poem.txt"), std::ios::binary);
    out << poem;
  }
  CliRun r = RunCli("export --view sum --tokenizer char --token 9 --text-file " + Path("poem.txt") +
                    " -o " + Path("p.svg"));
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string svg = ReadFile(Path("p.svg"));
  // The metadata keeps the newlines and the tab as character references (a parser would turn
  // raw ones in an attribute into spaces).
  EXPECT_NE(svg.find("<pe:param name=\"text\" value=\"Two roads&#10;&#9;diverged&#10;\"/>"),
            std::string::npos);
  if (std::system("command -v xmllint >/dev/null 2>&1") == 0) {
    EXPECT_EQ(std::system(("xmllint --noout " + Path("p.svg")).c_str()), 0);
    const std::string value = testing::Capture(
        "xmllint --xpath 'string(//*[local-name()=\"param\"][@name=\"text\"]/@value)' " +
        Path("p.svg"));
    // xmllint ends what it prints with a newline of its own.
    EXPECT_EQ(value, poem + "\n");
  }
  // Redrawn from the figure: the same text, so the same file.
  r = RunCli("export --from " + Path("p.svg") + " -o " + Path("again.svg"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(ReadFile(Path("again.svg")), svg);
  r = RunCli("export --from " + Path("p.svg") + " -o " + Path("p.pdf"));
  ASSERT_EQ(r.code, 0) << r.output;
  r = RunCli("export --from " + Path("p.pdf") + " -o " + Path("p.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  // The CSV's tokens: the text's characters, newline and tab included, in order.
  r = RunCli("export --view sum --tokenizer char --text-file " + Path("poem.txt") + " -o " +
             Path("direct.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(ReadFile(Path("p.csv")), ReadFile(Path("direct.csv")));
  if (std::system("command -v pdftotext >/dev/null 2>&1") == 0) {
    // The token 9 is the newline after "roads": its title and legend show the mark.
    const std::string text = testing::Capture("pdftotext " + Path("p.pdf") + " -");
    EXPECT_NE(text.find("\u21b5"), std::string::npos) << text;
    const std::string info = testing::Capture("pdfinfo " + Path("p.pdf"));
    EXPECT_NE(info.find("Two%20roads%0A%09diverged%0A"), std::string::npos) << info;
  }
  // Bad files are refused naming the file and the byte.
  {
    std::ofstream out(Path("latin1.txt"), std::ios::binary);
    out << "caf\xe9";
  }
  r = RunCli("export --view sum --text-file " + Path("latin1.txt") + " -o " + Path("bad.svg"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--text-file: \"" + Path("latin1.txt") +
                          "\" is not valid UTF-8 at byte offset 3 (0xE9)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(Exists(Path("bad.svg")));
}

// An empty text, or one of spaces only, has no tokens: the message does not repeat the text.
TEST_F(Cli, AnEmptyTextHasNoTokensAndTheMessageIsShort) {
  // No tokens is a valid input: the figure says so (PDF text, read back), the table has no rows.
  CliRun r = RunCli("export --view sum --text \"$(printf '%1000s')\" -o " + Path("s.pdf"));
  ASSERT_EQ(r.code, 0) << r.output;
  std::string text = testing::Capture("pdftotext " + Path("s.pdf") + " -");
  EXPECT_NE(text.find("The text (1000 spaces) has no tokens"), std::string::npos) << text;
  EXPECT_LT(text.size(), 400u) << text;
  r = RunCli("export --view projection --text '' -o " + Path("p.pdf"));
  ASSERT_EQ(r.code, 0) << r.output;
  text = testing::Capture("pdftotext " + Path("p.pdf") + " -");
  EXPECT_NE(text.find("The text is empty: it has no tokens"), std::string::npos) << text;
  r = RunCli("export --view sum --text '' -o " + Path("s.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string csv = ReadFile(Path("s.csv"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1) << csv;  // the header alone
  // Views that do not need tokens take an empty text.
  r = RunCli("export --view heatmap --text '' -o " + Path("h.svg"));
  EXPECT_EQ(r.code, 0) << r.output;
}

TEST_F(Cli, AlibiBiasAndSlopes) {
  // bias: (heads, L, L) float32, -m_h (i - j) below the diagonal, 0 where the key is masked.
  CliRun r = RunCli("export --scheme alibi --heads 12 --view bias --max-len 20 --offset 3 -o " +
                    Path("bias.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("bias.npy")), a, why)) << why;
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{12, 20, 20}));
  const std::vector<double> slopes = AlibiSlopes(12, 8.0);
  for (int h = 0; h < 12; ++h) {
    for (int i = 0; i < 20; ++i) {
      for (int j = 0; j < 20; ++j) {
        const float want =
            j <= i ? static_cast<float>(-slopes[static_cast<size_t>(h)] * (i - j)) : 0.0f;
        ASSERT_EQ(a.data[static_cast<size_t>((h * 20 + i) * 20 + j)], want) << h << i << j;
      }
    }
  }
  r = RunCli(
      "export --scheme alibi --heads 2 --alibi-mode symmetric --view bias --max-len 3 "
      "-o -");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output,
            "head,query,k0,k1,k2\n"
            "0,0,0,-0.0625,-0.125\n0,1,-0.0625,0,-0.0625\n0,2,-0.125,-0.0625,0\n"
            "1,0,0,-0.00390625,-0.0078125\n1,1,-0.00390625,0,-0.00390625\n"
            "1,2,-0.0078125,-0.00390625,0\n");
  // slopes: (heads,) float32 and a head,slope CSV.
  r = RunCli("export --scheme alibi --heads 6 --view slopes -o " + Path("slopes.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray s;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("slopes.npy")), s, why)) << why;
  EXPECT_EQ(s.descr, "<f4");
  EXPECT_EQ(s.shape, (std::vector<int64_t>{6}));
  EXPECT_EQ(s.data, (std::vector<float>{0x1p-2f, 0x1p-4f, 0x1p-6f, 0x1p-8f, 0x1p-1f, 0x1p-3f}));
  r = RunCli("export --scheme alibi --heads 3 --alibi-max-bias 4 --view slopes -o -");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "head,slope\n0,0.25\n1,0.0625\n2,0.5\n");
  // Refused: a head past the heads, the bias table over the memory cap, a view of another scheme.
  r = RunCli("export --scheme alibi --heads 8 --head 8 --view bias -o " + Path("x.npy"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("head must be in [0, 7]"), std::string::npos) << r.output;
  r = RunCli("export --scheme alibi --heads 64 --view bias --max-len 2000 --memory-cap-mib 64 -o " +
             Path("x.npy"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("bias table"), std::string::npos) << r.output;
  r = RunCli("export --scheme t5 --view slopes -o " + Path("x.npy"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("the slopes view needs the alibi scheme"), std::string::npos) << r.output;
  EXPECT_FALSE(Exists(Path("x.npy")));
}

TEST_F(Cli, T5BucketsAndBias) {
  // buckets: (L, L) int32, bucket(key - query).
  CliRun r = RunCli("export --scheme t5 --view buckets --max-len 150 -o " + Path("b.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("b.npy")), a, why)) << why;
  EXPECT_EQ(a.descr, "<i4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{150, 150}));
  for (int64_t i = 0; i < 150; ++i) {
    for (int64_t j = 0; j < 150; ++j) {
      int32_t b = 0;
      std::memcpy(&b, &a.data[static_cast<size_t>(i * 150 + j)], 4);
      ASSERT_EQ(b, T5Bucket(j - i, true, 32, 128)) << i << ", " << j;
    }
  }
  r = RunCli("export --scheme t5 --t5-direction causal --view buckets --max-len 3 -o -");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "query,k0,k1,k2\n0,0,0,0\n1,1,0,0\n2,2,1,0\n");
  // bias: (heads, L, L) float32, the seeded bias of each head's bucket.
  r = RunCli("export --scheme t5 --heads 3 --seed 5 --view bias --max-len 40 -o " + Path("t.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray t;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("t.npy")), t, why)) << why;
  EXPECT_EQ(t.descr, "<f4");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{3, 40, 40}));
  T5Params params;
  params.heads = 3;
  params.seed = 5;
  for (int64_t h = 0; h < 3; ++h) {
    for (int64_t i = 0; i < 40; ++i) {
      for (int64_t j = 0; j < 40; ++j) {
        ASSERT_EQ(t.data[static_cast<size_t>((h * 40 + i) * 40 + j)],
                  T5BucketBias(params, h, T5Bucket(j - i, true, 32, 128)));
      }
    }
  }
  r = RunCli("export --scheme t5 --t5-buckets 31 --view buckets -o " + Path("x.npy"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("buckets must be even"), std::string::npos) << r.output;
  r = RunCli("export --scheme t5 --t5-max-distance 8 --view buckets -o " + Path("x.npy"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("--t5-max-distance must be in [9, "), std::string::npos) << r.output;
  EXPECT_FALSE(Exists(Path("x.npy")));
  // The figures render.
  for (const char* view : {"bias", "buckets"}) {
    r = RunCli(std::string("export --scheme t5 --view ") + view + " -o " + Path("f.svg"));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(ReadFile(Path("f.svg")).find("<svg"), std::string::npos);
  }
}

// The precision view through the CLI: the NPY error table against the heatmap's table rounded
// here with the test's own float16 rounding, the CSV's position columns, the --dtype refusal.
// numpy's float16 cast (its own round-to-nearest-even code) checks a million N(0, 1) values.
TEST_F(Cli, PrecisionTablesRoundTrip) {
  CliRun r =
      RunCli("export --view precision --dtype fp16 --d-model 8 --max-len 2100 -o " + Path("p.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  r = RunCli("export --view heatmap --d-model 8 --max-len 2100 -o " + Path("t.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray err, table;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("p.npy")), err, why)) << why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("t.npy")), table, why)) << why;
  EXPECT_EQ(err.shape, (std::vector<int64_t>{2100, 8}));
  // float16 by hand for |v| in [2^-14, 1]: keep 11 significant bits, ties to even.
  for (size_t k = 0; k < table.data.size(); ++k) {
    const double v = table.data[k];
    if (std::abs(v) < std::ldexp(1.0, -14)) continue;
    int e = 0;
    std::frexp(v, &e);  // |v| in [2^(e-1), 2^e)
    const double ulp = std::ldexp(1.0, e - 11);
    const double q = std::nearbyint(v / ulp) * ulp;  // the default rounding: to nearest even
    ASSERT_EQ(err.data[k], static_cast<float>(q - v)) << k << " " << v;
  }
  r = RunCli("export --view precision --dtype fp16 --d-model 8 --max-len 2100 -o " + Path("p.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  auto rows = ParseCsv(ReadFile(Path("p.csv")));
  ASSERT_EQ(rows.size(), 2101u);
  EXPECT_EQ(rows[2049][0], "2048");
  EXPECT_EQ(rows[2049][6], "1");
  EXPECT_EQ(rows[2050][0], "2049");
  EXPECT_EQ(rows[2050][5], "2048");
  EXPECT_EQ(rows[2050][6], "0");
  EXPECT_EQ(rows[2050][7], "1");
  r = RunCli("export --view precision --dtype fp8 -o " + Path("x.npy"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--dtype must be bf16 or fp16, got \"fp8\""), std::string::npos)
      << r.output;
  EXPECT_FALSE(Exists(Path("x.npy")));
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "numpy is not installed (apt-get install python3-numpy)";
  }
  ASSERT_EQ(RunCli("export --scheme learned --init normal-1 --view heatmap --d-model 512 "
                   "--max-len 2048 -o " +
                   Path("l.npy"))
                .code,
            0);
  ASSERT_EQ(RunCli("export --scheme learned --init normal-1 --view precision --dtype fp16 "
                   "--d-model 512 --max-len 2048 -o " +
                   Path("le.npy"))
                .code,
            0);
  const std::string script = R"PY(
import sys, numpy as np
t, e = np.load(sys.argv[1]), np.load(sys.argv[2])
ref = t.astype(np.float16).astype(np.float32) - t
sys.exit(0 if e.dtype == np.float32 and np.array_equal(e, ref) else 1)
)PY";
  const std::string py = Path("check_fp16.py");
  FILE* f = std::fopen(py.c_str(), "w");
  std::fputs(script.c_str(), f);
  std::fclose(f);
  EXPECT_EQ(
      std::system(("/usr/bin/python3 " + py + " " + Path("l.npy") + " " + Path("le.npy")).c_str()),
      0);
}

// Parameters given before the word `export` are the export's too (never silently dropped).
TEST_F(Cli, ParametersBeforeExportApply) {
  CliRun r = RunCli("--d-model 8 --max-len 12 export --view heatmap -o " + Path("before.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("before.npy")), a, why)) << why;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{12, 8}));
  // A scheme before `export` selects the scheme's views; a later flag of the same name wins.
  r = RunCli("--scheme rope export --view frequencies --d-model 16 -o " + Path("f.csv"));
  EXPECT_EQ(r.code, 0) << r.output;
  r = RunCli("--d-model 8 export --d-model 6 --view heatmap -o " + Path("later.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray later;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("later.npy")), later, why)) << why;
  EXPECT_EQ(later.shape, (std::vector<int64_t>{100, 6}));
}

// --tokenizer-file: the sum view's CSV holds the tokenizer's ids (GPT-2's, from the reduced
// vocabulary of tests/data/gpt2_small, whose golden ids came from an independent encoder).
TEST_F(Cli, TokenizerFileGivesTheTokenizersIds) {
  const std::string dir = std::string(PE_TEST_DATA) + "/gpt2_small";
  CliRun r = RunCli("export --view sum --text 'Hello world' --d-model 8 --tokenizer-file " + dir +
                    " -o " + Path("sum.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  std::istringstream csv(ReadFile(Path("sum.csv")));
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(csv, line)) {
    if (line.find(",embedding,") != std::string::npos)
      rows.push_back(line.substr(0, line.find(",embedding,")));
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"\"Hello\",0,15496", "\"\xe2\x90\xa3world\",1,995"}));
  r = RunCli("export --view sum --tokenizer-file " + Path("none") + " -o " + Path("x.csv"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("--tokenizer-file"), std::string::npos) << r.output;
  EXPECT_FALSE(Exists(Path("x.csv")));
}

// `check` through the real binary: a table the export wrote (the project's NPY writer) is
// identified with exit 0, the same table with noise gets 1 and a useful note, bad input 2 with
// a message naming the file.
TEST_F(Cli, CheckExitCodes) {
  const std::string table = Path("fairseq.npy");
  CliRun r = RunCli("export --view heatmap --preset fairseq --d-model 32 --max-len 50 -o " + table);
  ASSERT_EQ(r.code, 0) << r.output;
  r = RunCli("check " + table);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("t2t layout"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("offset 2 (fairseq)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("worst cell"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("second:"), std::string::npos) << r.output;
  // Fixed parameters restrict the search: the right ones still match, a wrong one does not.
  r = RunCli("check " + table + " --variant t2t --offset 2");
  EXPECT_EQ(r.code, 0) << r.output;
  r = RunCli("check " + table + " --scheme rope");
  EXPECT_EQ(r.code, 1) << r.output;
  r = RunCli("check " + table + " --json");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("\"verdict\": \"match\""), std::string::npos) << r.output;

  // Noise of 1e-3 on every value.
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(table), a, why)) << why;
  std::vector<float> noisy(a.data.begin(), a.data.end());
  for (size_t k = 0; k < noisy.size(); ++k) {
    noisy[k] += 1e-3f * static_cast<float>(std::sin(12.9898 * static_cast<double>(k)));
  }
  const std::string noisy_path = Path("noisy.npy");
  {
    std::ofstream out(noisy_path, std::ios::binary);
    const int64_t shape[] = {a.shape[0], a.shape[1]};
    out << NpyHeader(shape);
    WriteFloatsLE(out, noisy.data(), static_cast<int64_t>(noisy.size()));
  }
  r = RunCli("check " + noisy_path);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("no match"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("note:"), std::string::npos) << r.output;
  // ... and a tolerance that covers it.
  r = RunCli("check " + noisy_path + " --tolerance 0.002");
  EXPECT_EQ(r.code, 0) << r.output;

  r = RunCli("check " + Path("absent.npy"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("absent.npy"), std::string::npos) << r.output;
  {
    std::ofstream out(Path("short.npy"), std::ios::binary);
    const std::string bytes = ReadFile(table);
    out << bytes.substr(0, bytes.size() / 2);
  }
  r = RunCli("check " + Path("short.npy"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("short.npy"), std::string::npos) << r.output;
  r = RunCli("check " + table + " --tolerance -1");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--tolerance"), std::string::npos) << r.output;
  r = RunCli("check " + table + " --d-model 32");
  EXPECT_EQ(r.code, 2) << r.output;
}

// Tables from files through the real binary: numpy writes the files (PE_NUMPY_PYTHON), the
// exports must give their values back bit for bit (float32) or as numpy rounds (float64).
const char* NumpyPython() {
  const char* py = std::getenv("PE_NUMPY_PYTHON");
  return py != nullptr && *py != 0 ? py : "/usr/bin/python3";
}

bool HaveNumpy() {
  return std::system((std::string(NumpyPython()) + " -c 'import numpy' >/dev/null 2>&1").c_str()) ==
         0;
}

TEST_F(Cli, PositionsTableFromNumpyExportsItsValues) {
  if (!HaveNumpy()) GTEST_SKIP() << "numpy is not installed (apt-get install python3-numpy)";
  const std::string script =
      "import numpy as np\n"
      "r = np.random.default_rng(5)\n"
      "np.save('" +
      Path("wpe.npy") +
      "', r.standard_normal((40, 24)).astype(np.float32))\n"
      "np.save('" +
      Path("wpe64.npy") +
      "', r.standard_normal((40, 24)))\n"
      "np.save('" +
      Path("ids.npy") + "', np.arange(12, dtype=np.float32).reshape(3, 4))\n";
  std::ofstream(Path("make.py")) << script;
  ASSERT_EQ(std::system((std::string(NumpyPython()) + " " + Path("make.py")).c_str()), 0);
  CliRun r = RunCli("export --view heatmap --scheme learned --positions-table " + Path("wpe.npy") +
                    " --max-len 40 -o " + Path("out.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  NpyArray in, out;
  std::string why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("wpe.npy")), in, why)) << why;
  ASSERT_TRUE(ParseNpy(ReadFile(Path("out.npy")), out, why)) << why;
  EXPECT_EQ(out.shape, (std::vector<int64_t>{40, 24}));
  EXPECT_EQ(std::memcmp(in.data.data(), out.data.data(), in.data.size() * 4), 0);
  // float64: numpy's own astype(float32) rounding is the reference.
  r = RunCli("export --view heatmap --scheme learned --positions-table " + Path("wpe64.npy") +
             " --max-len 40 -o " + Path("out64.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  std::ofstream(Path("cmp.py")) << "import numpy as np, sys\n"
                                   "a = np.load('" +
                                       Path("wpe64.npy") +
                                       "').astype(np.float32)\n"
                                       "b = np.load('" +
                                       Path("out64.npy") +
                                       "')\n"
                                       "sys.exit(0 if a.tobytes() == b.tobytes() else 1)\n";
  EXPECT_EQ(std::system((std::string(NumpyPython()) + " " + Path("cmp.py")).c_str()), 0);
  // The figure's metadata names the file and its hash; --from redraws it.
  r = RunCli("export --view heatmap --scheme learned --positions-table " + Path("wpe.npy") +
             " -o " + Path("fig.png"));
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string png = ReadFile(Path("fig.png"));
  EXPECT_NE(png.find("positions_table=" + Path("wpe.npy")), std::string::npos);
  EXPECT_NE(png.find("positions_table_hash="), std::string::npos);
  r = RunCli("export --from " + Path("fig.png") + " -o " + Path("again.png"));
  EXPECT_EQ(r.code, 0) << r.output;
  // The file changes: the figure no longer reads back.
  std::ofstream(Path("make2.py")) << "import numpy as np\nnp.save('" + Path("wpe.npy") +
                                         "', np.ones((40, 24), np.float32))\n";
  ASSERT_EQ(std::system((std::string(NumpyPython()) + " " + Path("make2.py")).c_str()), 0);
  r = RunCli("export --from " + Path("fig.png") + " -o " + Path("changed.png"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("not the one the figure was made from"), std::string::npos) << r.output;
  EXPECT_FALSE(Exists(Path("changed.png")));
}

TEST_F(Cli, EmbeddingsFromGloveAndConflictsAreRefusedNamingTheFile) {
  std::ofstream(Path("g.txt")) << "the 1 2 3\ncat 4 5 6\nmat 7 8 9\n";
  CliRun r = RunCli("export --view sum --embeddings " + Path("g.txt") +
                    " --text 'The cat sat on the mat' -o " + Path("s.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto rows = ParseCsv(ReadFile(Path("s.csv")));
  ASSERT_GT(rows.size(), 1u);
  // The embedding rows: "The" -> the, "cat" -> cat, "sat" -> the zero row (id V = 3).
  int checked = 0;
  for (const auto& row : rows) {
    if (row.size() < 7 || row[3] != "embedding") continue;
    const std::string values = row[2] + ":" + row[4] + "," + row[5] + "," + row[6];
    if (row[1] == "0") {
      EXPECT_EQ(values, "0:1,2,3");
    }
    if (row[1] == "1") {
      EXPECT_EQ(values, "1:4,5,6");
    }
    if (row[1] == "2") {
      EXPECT_EQ(values, "3:0,0,0");  // "sat": the zero row, id V = 3
    }
    checked += row[1] == "0" || row[1] == "1" || row[1] == "2" ? 1 : 0;
  }
  EXPECT_EQ(checked, 3) << ReadFile(Path("s.csv")).substr(0, 400);
  r = RunCli("export --view heatmap --embeddings " + Path("g.txt") + " --d-model 8 -o " +
             Path("x.png"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--d-model 8 conflicts with --embeddings"), std::string::npos)
      << r.output;
  EXPECT_FALSE(Exists(Path("x.png")));
  r = RunCli("export --view heatmap --embeddings " + Path("missing.txt") + " -o " + Path("x.png"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find(Path("missing.txt")), std::string::npos) << r.output;
  std::ofstream(Path("bad.txt")) << "a 1 2\nb 3\n";
  r = RunCli("export --view heatmap --embeddings " + Path("bad.txt") + " -o " + Path("x.png"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find(Path("bad.txt")), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("line 2"), std::string::npos) << r.output;
  EXPECT_FALSE(Exists(Path("x.png")));
}

// The memory cap bounds every file a flag loads, wherever --memory-cap-mib stands: a
// tokenizer.json of 60000 bytes needs 24 bytes per byte to parse (1.4 MiB), over a cap of 1 MiB
// and under one of 2 MiB, before or after --tokenizer-file, and under the figure of --from.
TEST_F(Cli, TheMemoryCapBoundsTheTokenizerFileInEitherOrder) {
  std::string json = ReadFile(std::string(PE_TEST_DATA) + "/llama3_small/tokenizer.json");
  ASSERT_FALSE(json.empty());
  ASSERT_LT(json.size(), 60000u);
  json += std::string(60000 - json.size(), ' ');
  std::ofstream(Path("tokenizer.json"), std::ios::binary) << json;
  const std::string tokenizer = "--tokenizer-file " + Path("tokenizer.json");
  for (const char* cap : {"1", "2"}) {
    const std::string c = std::string("--memory-cap-mib ") + cap;
    for (const std::string& args : {c + " " + tokenizer, tokenizer + " " + c}) {
      const std::string out = Path(std::string("sum") + cap + ".csv");
      CliRun r = RunCli("export --view sum --d-model 8 " + args + " -o " + out);
      if (std::string(cap) == "1") {
        EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
        EXPECT_NE(r.output.find("--tokenizer-file"), std::string::npos) << args << r.output;
        EXPECT_NE(r.output.find("over the memory cap of 1.0 MiB"), std::string::npos)
            << args << "\n"
            << r.output;
        EXPECT_FALSE(Exists(out)) << args;
      } else {
        EXPECT_EQ(r.code, 0) << args << "\n" << r.output;
      }
      std::remove(out.c_str());
    }
  }
  // The figure records the tokenizer, not the cap: drawn again under a smaller one, the file is
  // refused; under the default it loads.
  CliRun fig = RunCli("export --view sum --d-model 8 " + tokenizer + " -o " + Path("fig.svg"));
  ASSERT_EQ(fig.code, 0) << fig.output;
  CliRun capped =
      RunCli("export --from " + Path("fig.svg") + " --memory-cap-mib 1 -o " + Path("again.svg"));
  EXPECT_EQ(capped.code, 2) << capped.output;
  EXPECT_NE(capped.output.find("over the memory cap of 1.0 MiB"), std::string::npos)
      << capped.output;
  EXPECT_FALSE(Exists(Path("again.svg")));
  CliRun again = RunCli("export --from " + Path("fig.svg") + " -o " + Path("again.svg"));
  EXPECT_EQ(again.code, 0) << again.output;
  // The window opens the figure under its cap too.
  Result<FigureSession> opened = ReadFigureSession(Path("fig.svg"), MemoryCap{uint64_t{1} << 20});
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.message().find("over the memory cap of 1.0 MiB"), std::string::npos)
      << opened.message();
  EXPECT_TRUE(ReadFigureSession(Path("fig.svg")).ok());
  // Beside a file to open, the cap is no parameter the file would outvote.
  int exit_code = -1;
  const std::string file = Path("fig.svg");
  const char* argv[] = {"pe-explorer", "--memory-cap-mib", "1", file.c_str()};
  std::optional<CommandLine> cl = ParseCommandLine(4, argv, exit_code);
  ASSERT_TRUE(cl.has_value()) << exit_code;
  EXPECT_EQ(cl->params.cap.bytes, uint64_t{1} << 20);
  EXPECT_FALSE(cl->window.params_given);
}

// A flag given an empty value is refused naming the flag, not taken for absent.
TEST_F(Cli, EmptyValuesAreRefusedNamingTheFlag) {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"export --view sum --ids '1,2;3,4' --batch-row '' -o " + Path("x.png"),
       "--batch-row must be a row of the ids in [0, 1], got \"\""},
      {"export --view rotation --rotation-position '' -o " + Path("x.csv"),
       "--rotation-position must be a whole position"},
      {"export --positions '' -o " + Path("x.csv"), "--positions must be A:B"},
      {"export --dim-range '' -o " + Path("x.png"), "--dim-range must be A:B"},
      {"export --token '' -o " + Path("x.png"), "--token must be all or a token index"},
      {"export --heatmap-window '' -o " + Path("x.png"), "--heatmap-window must be X0:X1:Y0:Y1"},
      {"export --view walkthrough --walkthrough-step '' -o " + Path("x.png"),
       "--walkthrough-step must be a step in [0, 7], got \"\""},
      {"export --view sum --ids '1,2;3,4' --batch-row= -o " + Path("x.png"),
       "--batch-row must be a row of the ids in [0, 1], got \"\""},
      {"--tab '' </dev/null", "--tab must be a view name"},
      {"--tab= </dev/null", "--tab must be a view name"},
      {"--screenshot '' </dev/null", "--screenshot writes a PNG: give a .png file name, got \"\""},
  };
  for (const Case& c : cases) {
    CliRun r = RunCli(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_FALSE(Exists(Path("x.csv")) || Exists(Path("x.png"))) << c.args;
  }
  // check --tolerance '': refused before the table is read.
  CliRun r = RunCli("export --d-model 8 --max-len 10 -o " + Path("t.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  r = RunCli("check " + Path("t.npy") + " --tolerance ''");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--tolerance must be a finite number >= 0, got \"\""), std::string::npos)
      << r.output;
}

// "--title=" is an empty value: the option after it stays an option.
TEST_F(Cli, AnEmptyValueAfterAnEqualsSignKeepsTheNextOption) {
  CliRun r = RunCli("export --view heatmap --title= --d-model 8 --max-len 10 -o " + Path("t.svg"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(ReadFile(Path("t.svg")).find("d_model\" value=\"8\""), std::string::npos);
  // An empty --text=: whatever the text path says of it, the next option is not its value.
  const std::string dir = std::string(PE_TEST_DATA) + "/gpt2_small";
  r = RunCli("export --view sum --d-model 8 --text= --tokenizer-file " + dir + " -o " +
             Path("s.csv"));
  EXPECT_EQ(r.output.find("not expected"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("--tokenizer-file"), std::string::npos) << r.output;
}

// Windows far beyond any table (cairo cannot invert the matrix of 0:1e308) or of no extent are
// usage errors naming the flag and the limits.
TEST_F(Cli, HugeWindowsAreRefusedNamingTheFlagAndTheLimit) {
  struct Case {
    std::string view, flag, window;
  };
  const Case cases[] = {
      {"heatmap", "--heatmap-window", "0:1e308:0:1e308"},
      {"heatmap", "--heatmap-window", "-1e308:1e308:-1e308:1e308"},
      {"precision", "--heatmap-window", "0:4:0:1e17"},
      {"curves", "--curves-window", "0:1e308:-1:1"},
      {"curves", "--curves-window", "0:10:-1e300:1e300"},
      {"score", "--score-window", "0:1e308:0:1e308"},
      {"sum", "--sums-window", "-1e308:1e308:-1:1"},
      {"curves", "--curves-window", "0:1e-300:-1:1"},
  };
  for (const Case& c : cases) {
    const std::string args =
        "export --view " + c.view + " " + c.flag + " " + c.window + " -o " + Path("w.png");
    CliRun r = RunCli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.flag + " must be X0:X1:Y0:Y1"), std::string::npos) << args << "\n"
                                                                                 << r.output;
    EXPECT_NE(r.output.find("9007199254740992"), std::string::npos) << args << "\n" << r.output;
    EXPECT_FALSE(Exists(Path("w.png"))) << args;
  }
  CliRun ok = RunCli("export --view curves --curves-window -5:120.5:-1.5:1.5 -o " + Path("w.png"));
  EXPECT_EQ(ok.code, 0) << ok.output;
}

// Flags the chosen view does not read are refused naming the views they apply to, as flags of
// another scheme are; those it reads still work.
TEST_F(Cli, FlagsThatTheViewDoesNotReadAreRefused) {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--view heatmap --versus d_model=64 -o " + Path("x.png"),
       "--versus applies to the compare view, not to heatmap"},
      {"--view heatmap --compare rope -o " + Path("x.csv"),
       "--compare applies to the decay view, not to heatmap"},
      {"--view heatmap --compare-of table -o " + Path("x.csv"),
       "--compare-of applies to the compare view, not to heatmap"},
      {"--view heatmap --dims 0-3 -o " + Path("x.csv"),
       "--dims applies to the curves view, not to heatmap"},
      {"--view score --measure cosine -o " + Path("x.csv"),
       "--measure applies to the similarity and similarity-offset views, not to score"},
      {"--view heatmap --dtype fp16 -o " + Path("x.csv"),
       "--dtype applies to the precision and check views, not to heatmap"},
      {"--view curves --query 3 -o " + Path("x.csv"),
       "--query applies to the attention view, not to curves"},
      {"--view heatmap --rotation-offset 3 -o " + Path("x.csv"),
       "--rotation-offset applies to the rotation view, not to heatmap"},
      {"--view heatmap --highlight --no-highlight --token 1 -o " + Path("x.png"),
       "--highlight and --no-highlight contradict each other"},
      {"--view score --highlight -o " + Path("x.png"),
       "--highlight applies to the heatmap and curves views, not to score"},
      {"--view heatmap --no-markers -o " + Path("x.png"),
       "--no-markers applies to the curves view, not to heatmap"},
      {"--view curves --heatmap-window 0:4:0:10 -o " + Path("x.png"),
       "--heatmap-window applies to the heatmap, precision, compare and check views, not to "
       "curves"},
      {"--view heatmap --score-window 0:4:0:10 -o " + Path("x.png"),
       "--score-window applies to the score, compare, similarity and similarity-offset views, "
       "not to heatmap"},
      {"--view score --dim-range 0:4 -o " + Path("x.png"), "--dim-range applies to the"},
  };
  for (const Case& c : cases) {
    CliRun r = RunCli("export " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_FALSE(Exists(Path("x.png")) || Exists(Path("x.csv"))) << c.args;
  }
  // Before `export` too.
  CliRun before = RunCli("--versus d_model=64 export --view heatmap -o " + Path("x.csv"));
  EXPECT_EQ(before.code, 2) << before.output;
  EXPECT_NE(before.output.find("--versus applies to the compare view"), std::string::npos)
      << before.output;
  const std::pair<const char*, const char*> fine[] = {
      {"--view compare --versus d_model=64 --d-model 32 --max-len 20", "x.csv"},
      {"--view decay --compare rope --d-model 16 --max-len 20", "x.csv"},
      {"--view curves --dims 0-3 --no-markers --highlight --token 1", "x.png"},
      {"--view similarity --measure cosine --d-model 16 --max-len 20", "x.csv"},
      {"--view precision --dtype fp16 --heatmap-window 0:4:0:10", "x.png"},
      {"--view sum --dim-range 0:4", "x.png"},
  };
  for (const auto& [args, out] : fine) {
    CliRun r = RunCli(std::string("export ") + args + " -o " + Path(out));
    EXPECT_EQ(r.code, 0) << args << "\n" << r.output;
    EXPECT_TRUE(Exists(Path(out))) << args;
    std::remove(Path(out).c_str());
  }
}

// A walkthrough PNG holds one step: without one, the message says how to give it.
TEST_F(Cli, AWalkthroughPngWithoutAStepAsksForTheStep) {
  CliRun r = RunCli("export --view walkthrough -o " + Path("w.png"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--walkthrough-step"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(".pdf"), std::string::npos) << r.output;
  EXPECT_FALSE(Exists(Path("w.png")));
  r = RunCli("export --view walkthrough --walkthrough-step 2 -o " + Path("w.png"));
  EXPECT_EQ(r.code, 0) << r.output;
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

// The window's look from flags wins over the restored session's only when the flag is given.
TEST(CommandLineLook, UiScaleAndThemeSayWhetherTheyWereGiven) {
  int exit_code = 0;
  const char* bare[] = {"pe-explorer"};
  std::optional<CommandLine> a = ParseCommandLine(1, bare, exit_code);
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(a->window.ui_scale_given);
  EXPECT_FALSE(a->window.theme_given);
  const char* given[] = {"pe-explorer", "--ui-scale", "2", "--theme", "light"};
  std::optional<CommandLine> b = ParseCommandLine(5, given, exit_code);
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE(b->window.ui_scale_given);
  EXPECT_TRUE(b->window.theme_given);
  EXPECT_EQ(b->window.ui_scale, 2.0f);
  EXPECT_TRUE(b->window.light_theme);
}

}  // namespace
}  // namespace pe
