// The gallery (`export --list-figures`, `export --figure NAME`), run as a user runs it: the list,
// every figure exported to PNG and drawn again from its own metadata byte for byte, the
// refusals, and each figure's numbers (its view's CSV) against golden values worked with numpy
// from the source's formula (/usr/bin/python3, float64; the source is named at each).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "session/figure_session.h"
#include "session/gallery_session.h"
#include "test_support.h"
#include "views/gallery.h"

namespace pe {
namespace {

using pe::testing::ParseCsv;
using pe::testing::ReadFile;

struct ShellRun {
  int code = -1;
  std::string output;
};

// `args` is shell text (already quoted), run with the real binary.
ShellRun Shell(const std::string& args) {
  ShellRun r;
  FILE* p = ::popen((std::string(PE_EXPLORER_EXE) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class Gallery : public pe::testing::TempDirTest {
 protected:
  // The figure's numbers: `export --figure NAME [extra] -o NAME.csv`, parsed (header first).
  std::vector<std::vector<std::string>> Csv(const std::string& name,
                                            const std::string& extra = "") {
    const std::string path = Path(name + ".csv");
    const ShellRun r = Shell("export --figure " + name + " " + extra + " -o " + path);
    EXPECT_EQ(r.code, 0) << r.output;
    return ParseCsv(ReadFile(path));
  }
  // The column named `column` of the header row.
  static size_t Column(const std::vector<std::vector<std::string>>& t, const std::string& column) {
    for (size_t c = 0; c < t.at(0).size(); ++c) {
      if (t[0][c] == column) return c;
    }
    ADD_FAILURE() << "no column " << column;
    return 0;
  }
  // The cell of data row `row` (0 the first after the header) in `column`, as a number.
  static double At(const std::vector<std::vector<std::string>>& t, size_t row,
                   const std::string& column) {
    return std::stod(t.at(row + 1).at(Column(t, column)));
  }
};

// Float32 rounding of values of magnitude up to about 1, and of sums of 64 of them.
constexpr double kCell = 1e-6;
constexpr double kSum = 2e-5;

TEST_F(Gallery, ListFiguresPrintsEveryFigureWithItsSource) {
  const ShellRun r = Shell("export --list-figures");
  ASSERT_EQ(r.code, 0) << r.output;
  std::istringstream lines(r.output);
  size_t n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    ASSERT_LT(n, GalleryFigures().size()) << line;
    const GalleryFigure& f = GalleryFigures()[n];
    EXPECT_EQ(line, std::string(f.name) + "\t" + std::string(f.description) + "\t" +
                        std::string(f.source));
    // A source names a title in quotes, or a reference implementation's file.
    EXPECT_TRUE(f.source.find('"') != std::string_view::npos) << f.source;
  }
  EXPECT_EQ(n, GalleryFigures().size());
  EXPECT_GE(n, 12u);
}

TEST_F(Gallery, EveryFigureExportsToPngAndItsMetadataDrawsItAgain) {
  for (const GalleryFigure& f : GalleryFigures()) {
    SCOPED_TRACE(std::string(f.name));
    const std::string png = Path(std::string(f.name) + ".png");
    const ShellRun r = Shell("export --figure " + std::string(f.name) + " -o " + png);
    ASSERT_EQ(r.code, 0) << r.output;
    // Its metadata gives back exactly the preset: the view, every parameter, the title.
    Result<FigureSession> from_file = ReadFigureSession(png);
    ASSERT_TRUE(from_file.ok()) << from_file.message();
    Result<FigureSession> preset = GalleryFigureSession(f.name);
    ASSERT_TRUE(preset.ok()) << preset.message();
    EXPECT_EQ(from_file.value().view, preset.value().view);
    EXPECT_TRUE(from_file.value().params == preset.value().params);
    EXPECT_EQ(from_file.value().title, preset.value().title);
    EXPECT_FALSE(preset.value().title.empty());
    // Drawn again from the file alone: the same bytes.
    const std::string again = Path(std::string(f.name) + "_again.png");
    const ShellRun r2 = Shell("export --from " + png + " -o " + again);
    ASSERT_EQ(r2.code, 0) << r2.output;
    EXPECT_TRUE(ReadFile(png) == ReadFile(again));
  }
}

TEST_F(Gallery, UnknownNamesAndFigureWithFromAreRefused) {
  const ShellRun r = Shell("export --figure roformer-decy -o " + Path("x.png"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--figure must be a gallery figure"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("roformer-decay, pi-interpolation"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"roformer-decy\""), std::string::npos) << r.output;
  EXPECT_FALSE(std::ifstream(Path("x.png")).good());
  ASSERT_EQ(Shell("export --figure t5-buckets -o " + Path("t5.png")).code, 0);
  const ShellRun both =
      Shell("export --figure t5-buckets --from " + Path("t5.png") + " -o " + Path("y.png"));
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.output.find("--figure and --from"), std::string::npos) << both.output;
  EXPECT_FALSE(GalleryFigureSession("nope").ok());
}

// Flags given win over the figure's: RoFormer's bound at d 64 starts at (1/32) sum j = 16.5.
TEST_F(Gallery, FlagsGivenOverrideTheFigure) {
  const auto t = Csv("roformer-decay", "--d-model 64");
  EXPECT_NEAR(At(t, 0, "bound"), 16.5, kSum);
}

// Alammar's table: tensor2tensor common_attention.py get_timing_signal_1d, 256 timescales,
// log increment ln(10000) / 255, [sin | cos]. numpy: sin(19 inv[0]), cos(19 inv[0]),
// sin(19 inv[1]), cos(10 inv[44]), cos(7 inv[255]).
TEST_F(Gallery, AlammarSinusoidIsTensor2tensorsTable) {
  const auto t = Csv("alammar-sinusoid");
  ASSERT_EQ(t.size(), 21u);
  ASSERT_EQ(t[0].size(), 513u);
  EXPECT_NEAR(std::stod(t[20][1 + 0]), 0.14987720966295234, kCell);
  EXPECT_NEAR(std::stod(t[20][1 + 256]), 0.9887046181866692, kCell);
  EXPECT_NEAR(std::stod(t[20][1 + 1]), -0.4999758888768651, kCell);
  EXPECT_NEAR(std::stod(t[11][1 + 300]), -0.45290412310996847, kCell);
  EXPECT_NEAR(std::stod(t[8][1 + 511]), 0.99999975500001, kCell);
}

// Kazemnejad's Figure 2: PE(p, 2i) = sin(p / 10000^(2i/128)), PE(p, 2i+1) = cos(...).
TEST_F(Gallery, KazemnejadSinusoidIsThePapersInterleavedTable) {
  const auto t = Csv("kazemnejad-sinusoid");
  ASSERT_EQ(t.size(), 51u);
  ASSERT_EQ(t[0].size(), 129u);
  EXPECT_NEAR(std::stod(t[50][1 + 10]), -0.9554948005128402, kCell);
  EXPECT_NEAR(std::stod(t[50][1 + 11]), 0.2950079425929543, kCell);
  EXPECT_NEAR(std::stod(t[26][1 + 64]), 0.24740395925452294, kCell);
  EXPECT_NEAR(std::stod(t[2][1 + 127]), 0.9999999933323929, kCell);
}

// The TensorFlow tutorial's positional_encoding(2048, 512): depth 256, rates 1/10000^(i/256),
// concatenate [sin, cos].
TEST_F(Gallery, TensorflowSinusoidIsTheTutorials2048By512Table) {
  const auto t = Csv("tensorflow-sinusoid");
  ASSERT_EQ(t.size(), 2049u);
  ASSERT_EQ(t[0].size(), 513u);
  EXPECT_NEAR(std::stod(t[2048][1 + 0]), -0.9683193119086263, kCell);
  EXPECT_NEAR(std::stod(t[2048][1 + 256]), 0.24971525821383958, kCell);
  EXPECT_NEAR(std::stod(t[1001][1 + 100]), 0.77715830929554, kCell);
  EXPECT_NEAR(std::stod(t[1001][1 + 356]), -0.629305142433222, kCell);
  EXPECT_NEAR(std::stod(t[2048][1 + 511]), 0.977570197542513, kCell);
}

// The Annotated Transformer's plot: columns 4-7 of the d 20 table: sin and cos of
// p / 10000^(4/20), then of p / 10000^(6/20).
TEST_F(Gallery, AnnotatedCurvesAreDims4To7AtD20) {
  const auto t = Csv("annotated-curves");
  ASSERT_EQ(t.size(), 101u);
  ASSERT_EQ(t[0].size(), 5u);
  const double at50[] = {0.9975170079523535, -0.07042598132638386, -0.013193686002998521,
                         -0.999912959536806};
  const double at99[] = {0.017519766200839552, -0.9998465171176364, -0.03669935378677527,
                         0.999326351814878};
  for (int c = 0; c < 4; ++c) {
    EXPECT_NEAR(std::stod(t[51][1 + c]), at50[c], kCell);
    EXPECT_NEAR(std::stod(t[100][1 + c]), at99[c], kCell);
  }
}

// RoFormer's Figure 2: (1/(d/2)) sum_{j=1}^{d/2} |sum_{k<j} e^{i r theta_k}|, d 128.
TEST_F(Gallery, RoformerDecayIsTheBound) {
  const auto t = Csv("roformer-decay");
  ASSERT_EQ(t.size(), 252u);
  EXPECT_NEAR(At(t, 0, "bound"), 32.5, kSum);
  EXPECT_NEAR(At(t, 1, "bound"), 31.538166142658085, kSum);
  EXPECT_NEAR(At(t, 10, "bound"), 17.95413713708483, kSum);
  EXPECT_NEAR(At(t, 100, "bound"), 10.227329948505133, kSum);
  EXPECT_NEAR(At(t, 250, "bound"), 6.548179031941595, kSum);
}

// Position Interpolation: with q = k = ones the score at distance k is
// (2/sqrt(128)) sum_i cos(k theta_i / s), s 2 with PI and 1 as trained (Chen et al. 2023,
// Section 2.3: f'(x, m) = f(x, m L / L')).
TEST_F(Gallery, PiInterpolationHalvesEveryAngle) {
  const auto t = Csv("pi-interpolation");
  ASSERT_EQ(t.size(), 4097u);
  ASSERT_EQ(t[0].size(), 3u);
  const size_t rows[] = {0, 1000, 2047, 3000, 4095};
  const double pi[] = {11.31370849898476, 3.376911579018292, 2.2630656071774906, 0.8912887327907271,
                       1.451771095074258};
  const double none[] = {11.31370849898476, 1.7991851448397913, 1.5422076737766974,
                         0.47839325768718943, -0.7517237712612356};
  for (int k = 0; k < 5; ++k) {
    EXPECT_NEAR(std::stod(t[rows[k] + 1][1]), pi[k], kSum) << rows[k];
    EXPECT_NEAR(std::stod(t[rows[k] + 1][2]), none[k], kSum) << rows[k];
  }
}

// YaRN: HF modeling_rope_utils.py _compute_yarn_parameters at d 128, base 10000, s 16, original
// 4096, beta 32 and 1: the correction range is pairs 20 to 46 (floor and ceil of
// d ln(L / (2 pi b)) / (2 ln base)); pairs below keep their frequency, above are divided by 16.
TEST_F(Gallery, YarnRampRunsFromPair20To46) {
  const auto t = Csv("yarn-ramp");
  ASSERT_EQ(t.size(), 65u);
  EXPECT_NEAR(At(t, 0, "scaled"), 1.0, kCell);
  EXPECT_NEAR(At(t, 20, "scaled") / 0.056234132519034905, 1.0, kCell);
  EXPECT_NEAR(At(t, 30, "scaled") / 0.00852684377296741, 1.0, kCell);
  EXPECT_NEAR(At(t, 46, "scaled") / 8.334508951020775e-05, 1.0, kCell);
  EXPECT_NEAR(At(t, 63, "scaled") / 7.217387404309114e-06, 1.0, kCell);
  // The CSV's ramp is HF's inv_freq_extrapolation_factor, 1 - gamma: 1 kept, 0 interpolated.
  EXPECT_NEAR(At(t, 20, "ramp"), 1.0, kCell);
  EXPECT_NEAR(At(t, 33, "ramp"), 0.5, kCell);  // (46 - 33) / (46 - 20)
  EXPECT_NEAR(At(t, 46, "ramp"), 0.0, kCell);
}

// Llama 3.1: HF _compute_llama3_parameters at theta 500000, x8, low 1, high 4, original 8192:
// 29 pairs of wavelength below 2048 kept, 29 above 8192 divided by 8, 6 blended.
TEST_F(Gallery, Llama31HasThreeBands) {
  const auto t = Csv("llama31-bands");
  ASSERT_EQ(t.size(), 65u);
  int kept = 0, divided = 0, blended = 0;
  for (size_t i = 0; i < 64; ++i) {
    const double ratio = At(t, i, "scaled") / At(t, i, "original");
    if (std::abs(ratio - 1) < 1e-6) {
      ++kept;
    } else if (std::abs(ratio - 0.125) < 1e-6) {
      ++divided;
    } else {
      ++blended;
    }
  }
  EXPECT_EQ(kept, 29);
  EXPECT_EQ(divided, 29);
  EXPECT_EQ(blended, 6);
  EXPECT_NEAR(At(t, 30, "scaled") / 0.0013718935677611381, 1.0, kCell);
  EXPECT_NEAR(At(t, 40, "scaled") / 3.428102195952591e-05, 1.0, kCell);
  EXPECT_NEAR(At(t, 45, "scaled") / 1.2297638677963614e-05, 1.0, kCell);
  EXPECT_NEAR(At(t, 63, "scaled") / 3.068925988914511e-07, 1.0, kCell);
}

// NTK-aware: base 10000 x 8^(128/126) = 82684.62264056221, inv_freq_i = base'^(-2i/128).
TEST_F(Gallery, NtkKeepsTheFastPairsAndSlowsTheSlowOnes) {
  const auto t = Csv("ntk-vs-linear");
  ASSERT_EQ(t.size(), 65u);
  EXPECT_NEAR(At(t, 0, "scaled"), 1.0, kCell);
  EXPECT_NEAR(At(t, 1, "scaled") / 0.8378480019188024, 1.0, kCell);
  EXPECT_NEAR(At(t, 32, "scaled") / 0.003477664048114574, 1.0, kCell);
  EXPECT_NEAR(At(t, 63, "scaled") / 1.4434774808618228e-05, 1.0, kCell);
  // The slowest pair is divided by 8 exactly: (8^(128/126))^(-126/128) = 1/8.
  EXPECT_NEAR(At(t, 63, "scaled") / At(t, 63, "original"), 0.125, kCell);
}

// ALiBi's Figure 3: head 0 of 8 has slope 1/2; the causal bias of query i and key j <= i is
// -(i - j)/2 (the CSV holds every head: head h's query i is data row 8h + i); the slopes are 2^-1
// ... 2^-8 (Press et al. 2022, Section 3).
TEST_F(Gallery, AlibiBiasAndSlopes) {
  const auto bias = Csv("alibi-bias");
  ASSERT_EQ(bias.size(), 65u);
  EXPECT_NEAR(At(bias, 7, "k0"), -3.5, kCell);
  EXPECT_NEAR(At(bias, 7, "k6"), -0.5, kCell);
  EXPECT_NEAR(At(bias, 7, "k7"), 0.0, kCell);
  EXPECT_NEAR(At(bias, 4, "k1"), -1.5, kCell);
  EXPECT_NEAR(At(bias, 8 + 7, "k0"), -7.0 / 4, kCell);
  EXPECT_NEAR(At(bias, 56 + 7, "k0"), -7.0 / 256, kCell);
  const auto slopes = Csv("alibi-slopes");
  ASSERT_EQ(slopes.size(), 9u);
  for (size_t h = 0; h < 8; ++h) {
    EXPECT_EQ(At(slopes, h, "slope"), std::ldexp(1.0, -static_cast<int>(h) - 1)) << h;
  }
}

// T5: HF modeling_t5.py _relative_position_bucket (bidirectional, 32 buckets, max distance
// 128), relative position = key - query: numpy gives -128 -> 15, -20 -> 10, -7 -> 7, -1 -> 1,
// 0 -> 0, 1 -> 17, 8 -> 24, 20 -> 26, 64 -> 30, 127 -> 31.
TEST_F(Gallery, T5BucketsAreHfs) {
  const auto t = Csv("t5-buckets");
  // Query 128 of 256: key k is at relative position k - 128.
  const std::pair<int, int> want[] = {{-128, 15}, {-64, 14}, {-20, 10}, {-9, 8},  {-8, 8},
                                      {-7, 7},    {-1, 1},   {0, 0},    {1, 17},  {7, 23},
                                      {8, 24},    {9, 24},   {20, 26},  {64, 30}, {127, 31}};
  for (const auto& [rel, bucket] : want) {
    std::string key = "k";
    key += std::to_string(128 + rel);
    EXPECT_EQ(At(t, 128, key), bucket) << rel;
  }
}

// p-RoPE at 0.25 (Gemma 4's proportional type): theta_i = 1e6^(-2i/256) for the first 32
// pairs, 0 for the rest; pair 31 turns every 2 pi / 0.03522694651473102 = 178.36 positions.
TEST_F(Gallery, PRopeTurnsAQuarterOfThePairs) {
  const auto t = Csv("p-rope-gemma4");
  ASSERT_EQ(t.size(), 129u);
  EXPECT_NEAR(At(t, 0, "scaled"), 1.0, kCell);
  EXPECT_NEAR(At(t, 31, "scaled") / 0.03522694651473102, 1.0, kCell);
  EXPECT_NEAR(At(t, 31, "scaled_wavelength") / 178.36304104734475, 1.0, kCell);
  for (size_t i = 32; i < 128; ++i) EXPECT_EQ(At(t, i, "scaled"), 0.0) << i;
}

// Men et al. 2024: B(m) = sum_{i<64} cos(m 10000^(-2i/128)) first falls below 0 at m = 1707
// (numpy over m = 0..19999: B(1707) = -0.49893152989507206); with q = k = ones the score is
// 2 B(m) / sqrt(128). Its minimum over m < 8192 is at 7202: B = -13.586606625866068.
TEST_F(Gallery, BaseBoundFirstGoesNegativeAt1707) {
  const auto t = Csv("base-bound-b-of-m");
  ASSERT_EQ(t.size(), 8193u);
  size_t first = 0;
  while (first < 8192 && std::stod(t[first + 1][1]) >= 0) ++first;
  EXPECT_EQ(first, 1707u);
  EXPECT_NEAR(std::stod(t[1708][1]), 2 * -0.49893152989507206 / std::sqrt(128.0), kSum);
  EXPECT_NEAR(std::stod(t[7203][1]), 2 * -13.586606625866068 / std::sqrt(128.0), kSum);
}

// Men et al.'s Figure 1: the smallest base of two significant digits whose B(m) stays >= 0 up
// to L, at d 128. numpy (float64 cos sums over every m, bases 10..99 x 10^k in order) gives
// 4300 for L = 1000 (B first negative at 1077), 16000 for 2000 (2724), 27000 for 4000 (4079)
// and 84000 for 8000, the paper's values for 1k to 8k; 2100000 for 64000 and 7800000 for
// 128000, also the paper's.
TEST_F(Gallery, BaseBoundCurveGivesThePapersLowerBounds) {
  const auto t = Csv("base-bound");
  ASSERT_GE(t.size(), 40u);
  EXPECT_EQ(t[0], (std::vector<std::string>{"context", "lower_bound_base", "first_negative_m"}));
  auto row = [&t](int64_t context) -> const std::vector<std::string>* {
    for (const auto& r : t) {
      if (r[0] == std::to_string(context)) return &r;
    }
    return nullptr;
  };
  const std::pair<int64_t, double> want[] = {{1000, 4300},  {2000, 16000},  {4000, 27000},
                                             {8000, 84000}, {64000, 2.1e6}, {128000, 7.8e6}};
  for (const auto& [context, base] : want) {
    const auto* r = row(context);
    ASSERT_NE(r, nullptr) << context;
    EXPECT_EQ(std::stod((*r)[1]), base) << context;
  }
  EXPECT_EQ(std::stoll((*row(1000))[2]), 1077);
  EXPECT_EQ(std::stoll((*row(2000))[2]), 2724);
  EXPECT_EQ(std::stoll((*row(4000))[2]), 4079);
  // The bound never decreases with L (each base is the first of the grid to reach L).
  for (size_t k = 2; k < t.size(); ++k) {
    EXPECT_GE(std::stod(t[k][1]), std::stod(t[k - 1][1])) << t[k][0];
  }
}

// The legend points at the current base's dot only when the dot is drawn: at theta 10000 B first
// turns negative at m = 1706, on the axis; at 1e9 it stays >= 0 past the axis, and no dot is drawn.
TEST_F(Gallery, BaseBoundLegendNamesTheDotOnlyWhenItIsDrawn) {
  for (const auto& [theta, dot] : {std::pair{"10000", true}, std::pair{"1e9", false}}) {
    const std::string path = Path(std::string("bb_") + theta + ".svg");
    const ShellRun r = Shell(std::string("export --view base-bound --scheme rope --rope-theta ") +
                             theta + " -o " + path);
    ASSERT_EQ(r.code, 0) << r.output;
    const std::string svg = ReadFile(path);
    EXPECT_EQ(svg.find("(the dot)") != std::string::npos, dot) << theta;
    EXPECT_EQ(svg.find("(off the axis)") != std::string::npos, !dot) << theta;
  }
}

// bf16 keeps 8 significant bits: positions made in it are exact to 256, 257 becomes 256, 1001
// becomes 1000 and 65535 becomes 65536 (numpy: float32 -> bfloat16 round to nearest even).
TEST_F(Gallery, Bf16PrecisionMarksThePositionsItCannotHold) {
  const auto t = Csv("bf16-precision");
  ASSERT_EQ(t.size(), 65537u);
  EXPECT_EQ(At(t, 256, "position_in_dtype"), 256);
  EXPECT_EQ(At(t, 257, "position_in_dtype"), 256);
  EXPECT_EQ(At(t, 1001, "position_in_dtype"), 1000);
  EXPECT_EQ(At(t, 65535, "position_in_dtype"), 65536);
  EXPECT_EQ(At(t, 0, "max_abs_error"), 0.0);  // cos 0 = 1 and sin 0 = 0 are exact
  // bf16's step near 1 is 2^-8 below and 2^-7 above: no error passes half of the larger.
  for (size_t p = 0; p < 65536; p += 4099) EXPECT_LE(At(t, p, "max_abs_error"), 1.0 / 256) << p;
}

}  // namespace
}  // namespace pe
