// LongRoPE (Phi-3, Phi-3.5, Phi-4-mini) against numbers worked in numpy float64 from HF
// transformers' formula (src/transformers/modeling_rope_utils.py, _compute_longrope_parameters:
// inv_freq = 1 / (ext * base^(arange(0, d, 2) / d)), attention factor
// sqrt(1 + ln s / ln original); the list picked as dynamic_rope_update's
// longrope_frequency_update picks it), the refusals, and the round trips through figure
// metadata, `export --from` and session files.
//
// The lists are Phi-3-mini-128k-instruct's rope_scaling as its first release's config.json had
// them (head dim 96, rope_theta 10000, original_max_position_embeddings 4096,
// max_position_embeddings 131072; the model's later update changed the numbers), as torchtune's
// phi3_mini_128k builder copies them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "encoding/encoding.h"
#include "encoding/rope.h"
#include "encoding/rope_encoding.h"
#include "model/param_fields.h"
#include "session/figure_session.h"
#include "session/session.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

const std::vector<double> kPhi3Short = {
    1.05,
    1.05,
    1.05,
    1.1,
    1.1,
    1.1500000000000001,
    1.2000000000000002,
    1.2500000000000002,
    1.3000000000000003,
    1.3500000000000003,
    1.5000000000000004,
    2.000000000000001,  // 21 times
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.000000000000001,
    2.0500000000000007,
    2.0500000000000007,
    2.0500000000000007,
    2.1000000000000005,
    2.1000000000000005,
    2.1000000000000005,
    2.1500000000000004,
    2.1500000000000004,
    2.3499999999999996,
    2.549999999999999,
    2.5999999999999988,
    2.5999999999999988,
    2.7499999999999982,
    2.849999999999998,
    2.849999999999998,
    2.9499999999999975,
};

const std::vector<double> kPhi3Long = {
    1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0799999237060547,
    1.2299998998641968, 1.2299998998641968, 1.2999999523162842, 1.4499999284744263,
    1.5999999046325684, 1.6499998569488525, 1.8999998569488525, 2.859999895095825,
    3.68999981880188,   5.419999599456787,  5.489999771118164,  5.489999771118164,
    9.09000015258789,   11.579999923706055, 15.65999984741211,  15.769999504089355,
    15.789999961853027, 18.360000610351562, 21.989999771118164, 23.079999923706055,
    30.009998321533203, 32.35000228881836,  32.590003967285156, 35.56000518798828,
    39.95000457763672,  53.840003967285156, 56.20000457763672,  57.95000457763672,
    59.29000473022461,  59.77000427246094,  59.920005798339844, 61.190006256103516,
    61.96000671386719,  62.50000762939453,  63.3700065612793,   63.48000717163086,
    63.48000717163086,  63.66000747680664,  63.850006103515625, 64.08000946044922,
    64.760009765625,    64.80001068115234,  64.81001281738281,  64.81001281738281,
};

// numpy float64: 1.0 / (np.array(ext) * 10000.0 ** (np.arange(0, 96, 2) / 96)).
const double kShortInvFreq[48] = {
    0.9523809523809523,    0.7860992240647795,    0.6488495895790107,     0.511219386536681,
    0.4219626212375254,    0.3331466825701989,    0.2635231383473649,     0.2088125772546029,
    0.16572574538706794,   0.1317244007436239,    0.09785328450813793,    0.060576382931429404,
    0.04999999999999998,   0.041270209263400914,  0.034064603452898044,   0.028117066259517442,
    0.02320794416806389,   0.019155934247786426,  0.01581138830084189,    0.013050786078412683,
    0.010772173450159411,  0.00889139705019461,   0.0073389963381103466,  0.006057638293142938,
    0.0049999999999999975, 0.004127020926340089,  0.0034064603452898068,  0.002811706625951744,
    0.0023207944168063877, 0.0019155934247786436, 0.0015811388300841893,  0.0013050786078412674,
    0.0010509437512350652, 0.0008674533707506939, 0.0007159996427424725,  0.0005769179326802803,
    0.0004761904761904761, 0.0003930496120323895, 0.000316880032119982,   0.0002615541047396972,
    0.0001975144184516076, 0.0001502426215512663, 0.00012162606385263006, 0.00010039066214163606,
    7.834307963752313e-05, 6.23957687732956e-05,  5.150172868849369e-05,  4.106873419079965e-05,
};
const double kLongInvFreq[48] = {
    0.970873813375653,      0.7860992597639546,     0.6488496190452593,     0.5206864489959006,
    0.37736497654392115,    0.31147863101292006,    0.24325213662769515,    0.1800108513404366,
    0.13465217615288785,    0.10777451904312783,    0.07725259884909466,    0.042361108498851746,
    0.027100272333473823,   0.01522886063221746,    0.012409692121338658,   0.010243011814840485,
    0.005106258257092918,   0.003308451532641424,   0.0020193344131423864,  0.0016551409624367406,
    0.001364429825989088,   0.0009685617379752755,  0.0006674848944518357,  0.0005249253304304379,
    0.00033322227788412293, 0.00025514810722387975, 0.0002090493973986206,  0.00015813870729701156,
    0.00011618493871740517, 7.115874010494568e-05,  5.626828118492224e-05,  4.5041535970642743e-05,
    3.633723255437026e-05,  2.9752037525924455e-05, 2.4495980066522897e-05, 1.979943675047006e-05,
    1.613944305425957e-05,  1.3206465352170938e-05, 1.0751017808387736e-05, 8.85855799716511e-06,
    7.311890846299554e-06,  6.018200439189568e-06,  4.952666183056578e-06,  4.073278449332236e-06,
    3.326797969656069e-06,  2.74425789648234e-06,   2.264772376697305e-06,  1.8693525984053542e-06,
};
// sqrt(1 + ln 32 / ln 4096) = sqrt(1 + 5/12), to 40 digits with Python's decimal module:
// 1.190238071423808332999899968561210879795.
constexpr double kPhi3AttentionFactor = 1.190238071423808333;

EncodingParams Phi3(int64_t max_len, int64_t sequence_len = 0) {
  EncodingParams p;
  p.d_model = 96;
  p.max_len = max_len;
  RopeParams r;
  r.theta = 10000.0;
  r.scaling = RopeScaling::kLongrope;
  r.original_max_len = 4096;
  r.max_position_embeddings = 131072;
  r.short_factor = kPhi3Short;
  r.long_factor = kPhi3Long;
  r.sequence_len = sequence_len;
  p.scheme = r;
  return p;
}

std::string Refusal(const EncodingParams& p) {
  const Status s = ValidateRopeParams(p);
  EXPECT_FALSE(s.ok());
  return s.ok() ? std::string() : s.message();
}

TEST(Longrope, ThePublishedListsHave48NumbersForHeadDim96) {
  EXPECT_EQ(kPhi3Short.size(), 48u);
  EXPECT_EQ(kPhi3Long.size(), 48u);
}

TEST(Longrope, AttentionFactorIsSqrtOfOnePlusLnSOverLnOriginal) {
  EXPECT_NEAR(RopeLongropeDefaultAttentionFactor(131072, 4096), kPhi3AttentionFactor, 4e-16);
  // s <= 1: no scaling of cos and sin.
  EXPECT_EQ(RopeLongropeDefaultAttentionFactor(4096, 4096), 1.0);
  EXPECT_EQ(RopeLongropeDefaultAttentionFactor(2048, 4096), 1.0);
  // s = 4, L = 16: sqrt(1 + ln 4 / ln 16) = sqrt(1.5).
  EXPECT_NEAR(RopeLongropeDefaultAttentionFactor(64, 16), std::sqrt(1.5), 4e-16);
  // A given factor wins.
  EncodingParams p = Phi3(100);
  p.rope().attention_factor = 1.5;
  EXPECT_EQ(ComputeRopeFrequencies(p).attention_factor, 1.5);
}

void ExpectFrequencies(const RopeFrequencies& f, const double (&want)[48], const char* which) {
  ASSERT_EQ(f.pairs.size(), 48u);
  for (size_t i = 0; i < 48; ++i) {
    EXPECT_NEAR(f.pairs[i].scaled, want[i], 2e-15 * want[i]) << which << " pair " << i;
  }
}

TEST(Longrope, ShortFactorsUpToTheOriginalLengthLongFactorsPastIt) {
  // A table of 2048 rows: the sequence length is 2048 <= 4096, short factors.
  const RopeFrequencies at2048 = ComputeRopeFrequencies(Phi3(2048));
  EXPECT_FALSE(at2048.longrope_uses_long);
  EXPECT_EQ(at2048.sequence_len, 2048);
  ExpectFrequencies(at2048, kShortInvFreq, "2048");
  EXPECT_NEAR(at2048.attention_factor, kPhi3AttentionFactor, 4e-16);
  // 8192 rows: long factors.
  const RopeFrequencies at8192 = ComputeRopeFrequencies(Phi3(8192));
  EXPECT_TRUE(at8192.longrope_uses_long);
  ExpectFrequencies(at8192, kLongInvFreq, "8192");
  // Both lists are kept whichever the table uses.
  for (size_t i = 0; i < 48; ++i) {
    EXPECT_NEAR(at2048.longrope_long[i], kLongInvFreq[i], 2e-15 * kLongInvFreq[i]);
    EXPECT_NEAR(at8192.longrope_short[i], kShortInvFreq[i], 2e-15 * kShortInvFreq[i]);
  }
  // The switch is strictly past the original length (HF: seq_len > original).
  EXPECT_FALSE(ComputeRopeFrequencies(Phi3(4096)).longrope_uses_long);
  EXPECT_TRUE(ComputeRopeFrequencies(Phi3(4097)).longrope_uses_long);
  // --sequence-len chooses for a short table, and an offset counts in the table's length.
  EXPECT_TRUE(ComputeRopeFrequencies(Phi3(100, 8192)).longrope_uses_long);
  EXPECT_FALSE(ComputeRopeFrequencies(Phi3(8192, 4096)).longrope_uses_long);
  EncodingParams shifted = Phi3(100);
  shifted.offset = 4000;
  EXPECT_TRUE(ComputeRopeFrequencies(shifted).longrope_uses_long);
}

// cos and sin cells of the half layout times the attention factor, from numpy:
// np.cos(p * inv_freq[i]) * af and np.sin(...) * af.
struct Cell {
  int64_t max_len, position, pair;
  double cos, sin;
};
constexpr Cell kCells[] = {
    {2048, 1, 0, 0.6900342600060418, 0.9698037877243938},
    {2048, 2047, 5, -1.1600633022835027, -0.26630771930562136},
    {2048, 2047, 47, 1.186034616737549, 0.09994275645028503},
    {8192, 1, 0, 0.6719828479375434, 0.9823979431698823},
    {8192, 2047, 5, -1.1774794438138538, 0.17380686425594283},
    {8192, 8191, 20, 0.21363865290966355, -1.1709078497685508},
    {8192, 8191, 47, 1.1900985465428398, 0.018224055072541687},
    {8192, 5000, 30, 1.1434425150945742, 0.33046313159089563},
};

TEST(Longrope, TableCellsMatchNumpyToFloat32Rounding) {
  for (const Cell& c : kCells) {
    for (RopePart part : {RopePart::kCos, RopePart::kSin}) {
      EncodingParams p = Phi3(c.max_len);
      p.rope().part = part;
      Result<EncodingPtr> e = MakeEncoding(p);
      ASSERT_TRUE(e.ok()) << e.message();
      ASSERT_EQ(e.value()->cols(), 96);
      std::vector<float> row(96);
      e.value()->FillBlock(c.position, 1, 0, 96, row.data());
      const double want = part == RopePart::kCos ? c.cos : c.sin;
      // The pair sits in columns i and i + 48 (rotate_half).
      for (int64_t col : {c.pair, c.pair + 48}) {
        EXPECT_EQ(row[static_cast<size_t>(col)], static_cast<float>(want))
            << "rows " << c.max_len << ", position " << c.position << ", column " << col;
      }
    }
  }
}

TEST(Longrope, RefusesMissingShortOrWrongListsNamingFlagRuleAndValue) {
  EncodingParams p = Phi3(100);
  p.rope().short_factor.clear();
  EXPECT_EQ(Refusal(p),
            "--rope-scaling longrope needs --short-factor: 48 comma-separated numbers > 0 "
            "(d_rot / 2, one per rotated pair), got none");
  p = Phi3(100);
  p.rope().long_factor.clear();
  EXPECT_NE(Refusal(p).find("needs --long-factor"), std::string::npos);
  p = Phi3(100);
  p.rope().long_factor.pop_back();
  EXPECT_EQ(Refusal(p),
            "--long-factor must hold d_rot / 2 = 48 numbers, one per rotated pair, got 47");
  p = Phi3(100);
  p.d_model = 128;  // d_rot / 2 = 64
  EXPECT_EQ(Refusal(p),
            "--short-factor must hold d_rot / 2 = 64 numbers, one per rotated pair, got 48");
  p = Phi3(100);
  p.rope().short_factor[3] = 0.0;
  EXPECT_EQ(Refusal(p), "--short-factor numbers must be finite and > 0, got 0 at position 4");
  p = Phi3(100);
  p.rope().long_factor[0] = std::nan("");
  EXPECT_NE(Refusal(p).find("--long-factor numbers must be finite and > 0, got nan"),
            std::string::npos);
  p = Phi3(100);
  p.rope().original_max_len = 1;
  EXPECT_NE(Refusal(p).find("needs original max length (--original-max-len) >= 2, got 1"),
            std::string::npos);
  p.rope().attention_factor = 1.2;  // then ln(original) is not needed
  EXPECT_TRUE(ValidateRopeParams(p).ok());
}

TEST(Longrope, FlagsParseListsAndRefuseBadText) {
  ModelParams m;
  SetScheme(m, Scheme::kRope);
  const ParamField* scaling = FindParamField("--rope-scaling");
  const ParamField* shorts = FindParamField("--short-factor");
  const ParamField* longs = FindParamField("--long-factor");
  const ParamField* max_pos = FindParamField("--max-position-embeddings");
  ASSERT_TRUE(scaling && shorts && longs && max_pos);
  // Not longrope: the lists do not apply.
  EXPECT_NE(shorts->WhyNotApplicable(m).find("it applies to --rope-scaling longrope, not none"),
            std::string::npos);
  ASSERT_TRUE(scaling->set(m, "longrope").ok());
  EXPECT_EQ(shorts->WhyNotApplicable(m), "");
  EXPECT_NE(FindParamField("--scaling-factor")
                ->WhyNotApplicable(m)
                .find("longrope takes s = --max-position-embeddings / --original-max-len"),
            std::string::npos);
  EXPECT_EQ(FindParamField("--sequence-len")->WhyNotApplicable(m), "");
  EXPECT_EQ(FindParamField("--attention-factor")->WhyNotApplicable(m), "");
  // A config.json array pastes as it is; the shortest text reads back.
  ASSERT_TRUE(shorts->set(m, "[1.05, 1.1,\n 2.000000000000001 ]").ok());
  EXPECT_EQ(m.pe.rope().short_factor, (std::vector<double>{1.05, 1.1, 2.000000000000001}));
  EXPECT_EQ(shorts->get(m), "1.05,1.1,2.000000000000001");
  EXPECT_EQ(longs->set(m, "1,,2").message(),
            "--long-factor numbers must be finite and > 0, got \"\" at position 2");
  EXPECT_EQ(longs->set(m, "1,-2").message(),
            "--long-factor numbers must be finite and > 0, got \"-2\" at position 2");
  EXPECT_EQ(longs->set(m, "1,inf").message(),
            "--long-factor numbers must be finite and > 0, got \"inf\" at position 2");
  EXPECT_EQ(longs->set(m, "").message(),
            "--long-factor must be a comma-separated list of numbers > 0, got \"\"");
  EXPECT_FALSE(max_pos->set(m, "0").ok());
}

ModelParams Phi3Model(int64_t max_len) {
  ModelParams m;
  m.pe = Phi3(max_len);
  return m;
}

TEST(Longrope, FigureMetadataAndSessionsRegenerateTheFigure) {
  const ModelParams m = Phi3Model(8192);
  // Metadata records the lists and lengths.
  bool has_short = false, has_long = false, has_max = false;
  for (const auto& [key, value] : ParamValues(m)) {
    if (key == "short_factor") has_short = value == FindParamField("short_factor")->get(m);
    if (key == "long_factor") has_long = true;
    if (key == "max_position_embeddings") has_max = value == "131072";
    EXPECT_NE(key, "scaling_factor");
  }
  EXPECT_TRUE(has_short && has_long && has_max);

  // Session files: the same parameters back.
  SessionContent content;
  content.params = m;
  Result<LoadedSession> back = SessionFromDocument(MakeSessionDocument(content), ModelParams{});
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back.value().content.params.pe, m.pe);

  // A figure of the frequencies view, read back as `export --from` reads it, and drawn again.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("pe_longrope_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string first = (dir / "first.svg").string(), again = (dir / "again.svg").string();
  ExportRequestOptions options;
  ASSERT_TRUE(ExportView(ViewKind::kFrequencies, m, ViewSelection{}, first, options).ok());
  Result<FigureSession> read = ReadFigureSession(first);
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(read.value().params.pe, m.pe);
  options.size = read.value().size;
  options.title = read.value().title;
  ASSERT_TRUE(
      ExportView(read.value().view, read.value().params, read.value().views, again, options).ok());
  auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(bytes(first), bytes(again));
  std::filesystem::remove_all(dir);
}

TEST(Longrope, TextsNameTheListInUseAndTheSwitch) {
  Result<EncodingPtr> e = MakeEncoding(Phi3(8192));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value()->ScalingText(),
            ", longrope long factors at length 8192 (original 4096, max 131072), attention "
            "factor 1.1902381");
  EXPECT_NE(e.value()->DescribeCell(5000, 30).find(
                "1.1902381 * cos(5000 * 10000^(-60/96) / 56.2000046 [long factor]) = 1.1434"),
            std::string::npos)
      << e.value()->DescribeCell(5000, 30);
}

}  // namespace
}  // namespace pe
