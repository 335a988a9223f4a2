// Typed token ids (parsing, vocabulary size, checks), the embedding initialisers and the sum
// view's tables for a sequence and a batch of ids.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <sstream>

#include "base/initializers.h"
#include "encoding/encoding.h"
#include "encoding/learned.h"
#include "model/embedding.h"
#include "model/input_layer.h"
#include "model/param_fields.h"
#include "model/token_ids.h"
#include "test_support.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

using pe::testing::NpyArray;
using pe::testing::ParseCsv;
using pe::testing::ParseNpy;

// ---- an independent re-derivation of the generator and the initialisers ----------------------
// From the formulas in base/random.h and base/initializers.h, written again here: SplitMix64's
// finaliser (Steele, Lea, Flood 2014), Box-Muller, and for the truncated normal the rejection
// rule (redraw a from the stream RandomBits(stream ^ "truncate", a)).
uint64_t Mix(uint64_t seed, uint64_t k) {
  uint64_t z = seed + (k + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double Unit(uint64_t seed, uint64_t k) {
  return static_cast<double>((Mix(seed, k) >> 11) + 1) / 9007199254740992.0;  // 2^53
}
double Gauss(uint64_t seed, uint64_t k) {
  return std::sqrt(-2.0 * std::log(Unit(seed, 2 * k))) *
         std::cos(2.0 * std::numbers::pi * Unit(seed, 2 * k + 1));
}
double Truncated(uint64_t stream, uint64_t k, int* redraws = nullptr) {
  double z = Gauss(stream, k);
  int a = 0;
  while (std::abs(z) > 2.0) z = Gauss(Mix(stream ^ 0x7472756e63617465ull, ++a), k);
  if (redraws) *redraws = a;
  return z;
}

// E[X^n] of N(0, 1) restricted to [-2, 2], by composite Simpson's rule (4096 intervals: the
// error is below 1e-14), independent of the closed form the code uses.
double TruncatedMoment(int n) {
  const int m = 4096;
  const double h = 4.0 / m;
  double num = 0, den = 0;
  for (int i = 0; i <= m; ++i) {
    const double x = -2.0 + h * i;
    const double w = (i == 0 || i == m) ? 1 : (i % 2 ? 4 : 2);
    const double phi = std::exp(-0.5 * x * x);
    num += w * std::pow(x, n) * phi;
    den += w * phi;
  }
  return num / den;
}

// ---- initialisers ------------------------------------------------------------------------------

TEST(EmbeddingInit, NamesRoundTripAndUnknownNamesAreRefused) {
  for (EmbeddingInit init : kAllEmbeddingInits) {
    EXPECT_EQ(ParseEmbeddingInit(EmbeddingInitName(init)), init);
  }
  EXPECT_EQ(EmbeddingInitName(EmbeddingInit::kNormalScaled), "normal-scaled");
  EXPECT_EQ(EmbeddingInitName(EmbeddingInit::kTruncatedNormal), "truncated-normal");
  EXPECT_FALSE(ParseEmbeddingInit("normal"));
  EXPECT_FALSE(ParseEmbeddingInit("Normal-1"));
}

TEST(EmbeddingInit, TruncatedNormalStdIsHaikusConstant) {
  // hk.initializers.VarianceScaling divides by .87962566103423978, "scipy.stats.truncnorm.std(
  // a=-2, b=2)"; the Simpson integral here agrees.
  EXPECT_NEAR(TruncatedNormalStd(), 0.87962566103423978, 1e-15);
  EXPECT_NEAR(std::sqrt(TruncatedMoment(2)), 0.87962566103423978, 1e-12);
  EXPECT_EQ(InitStd(EmbeddingInit::kTruncatedNormal, 64), TruncatedNormalStd());
  EXPECT_EQ(InitStd(EmbeddingInit::kNormalScaled, 64), 0.125);
  EXPECT_EQ(InitStd(EmbeddingInit::kNormal002, 64), 0.02);
  EXPECT_EQ(InitStd(EmbeddingInit::kNormal1, 64), 1.0);
}

// N = 4096 * 256 = 2^20 values of each initialiser. The sample mean has standard error
// sigma / sqrt(N); the sample standard deviation sqrt((mu4 - sigma^4) / N) / (2 sigma) (the
// delta method; sigma / sqrt(2N) for a normal, where mu4 = 3 sigma^4). Both must be within six
// standard errors: a false failure about once in 5e8, and the seeds are fixed anyway.
TEST(EmbeddingInit, MomentsOfEachInitialiserOver2To20Values) {
  const int64_t d = 256, rows = 4096;
  for (EmbeddingInit init : kAllEmbeddingInits) {
    for (uint64_t seed : {0ull, 987654321ull}) {
      const Matrix t = InitEmbedding(init, rows, d, seed).value();
      const double n = static_cast<double>(t.data.size());
      ASSERT_EQ(n, 1048576.0);
      const bool truncated = init == EmbeddingInit::kTruncatedNormal;
      const double scale = init == EmbeddingInit::kNormal1 || truncated ? 1.0
                           : init == EmbeddingInit::kNormal002          ? 0.02
                                                                        : 1.0 / 16.0;  // d^-0.5
      const double sigma = truncated ? std::sqrt(TruncatedMoment(2)) : scale;
      const double mu4 = truncated ? TruncatedMoment(4) : 3 * std::pow(sigma, 4);
      double sum = 0;
      for (float v : t.data) sum += v;
      const double mean = sum / n;
      double sq = 0;
      for (float v : t.data) sq += (v - mean) * (v - mean);
      const double sd = std::sqrt(sq / (n - 1));
      const double se_mean = sigma / std::sqrt(n);
      const double se_sd = std::sqrt((mu4 - std::pow(sigma, 4)) / n) / (2 * sigma);
      EXPECT_LT(std::abs(mean), 6 * se_mean) << EmbeddingInitName(init) << " seed " << seed;
      EXPECT_LT(std::abs(sd - sigma), 6 * se_sd) << EmbeddingInitName(init) << " seed " << seed;
      EXPECT_NEAR(sd, InitStd(init, d), 6 * se_sd) << EmbeddingInitName(init);
      if (truncated) {
        // Bounds: nothing outside [-2, 2], and the draws reach close to both ends.
        float lo = 0, hi = 0;
        double within1 = 0;
        for (float v : t.data) {
          lo = std::min(lo, v);
          hi = std::max(hi, v);
          within1 += std::abs(v) <= 1.0f ? 1 : 0;
        }
        EXPECT_GE(lo, -2.0f);
        EXPECT_LE(hi, 2.0f);
        EXPECT_LT(lo, -1.999f);
        EXPECT_GT(hi, 1.999f);
        // P(|X| <= 1) = erf(1/sqrt 2) / erf(2/sqrt 2) = 0.715227; standard error 0.00044.
        const double p = std::erf(1 / std::numbers::sqrt2) / std::erf(2 / std::numbers::sqrt2);
        EXPECT_NEAR(within1 / n, p, 6 * std::sqrt(p * (1 - p) / n));
      }
    }
  }
}

TEST(EmbeddingInit, GoldenEntriesFromTheIndependentDerivation) {
  // Seed 7, d 16. Literal values computed with Python's math module from the same formulas
  // (SplitMix64, Box-Muller, float32 rounding), then the test's own C++ re-derivation.
  const uint64_t seed = 7;
  const int64_t d = 16;
  EXPECT_EQ(EmbeddingValue(EmbeddingInit::kNormal1, seed, d, 3, 5), 0.441073567f);
  EXPECT_EQ(EmbeddingValue(EmbeddingInit::kNormalScaled, seed, d, 3, 5), 0.110268392f);
  EXPECT_EQ(EmbeddingValue(EmbeddingInit::kNormal002, seed, d, 3, 5), 0.00882147066f);
  EXPECT_EQ(EmbeddingValue(EmbeddingInit::kNormal1, seed, d, 0, 0), 1.36499226f);
  EXPECT_EQ(EmbeddingValue(EmbeddingInit::kNormal1, seed, d, 99, 15), 0.119269587f);
  // Entry (0, 5): the first draw 2.06227801 is outside [-2, 2]; the redraw is kept.
  int redraws = 0;
  EXPECT_NEAR(Truncated(seed, 5, &redraws), 0.407387882, 1e-8);
  EXPECT_EQ(redraws, 1);
  EXPECT_NEAR(Gauss(seed, 5), 2.06227801, 1e-8);
  EXPECT_EQ(EmbeddingValue(EmbeddingInit::kTruncatedNormal, seed, d, 0, 5), 0.407387882f);
  EXPECT_EQ(EmbeddingValue(EmbeddingInit::kTruncatedNormal, seed, d, 3, 5), 0.441073567f);
  // Every entry of a block against the re-derivation, for every initialiser.
  for (EmbeddingInit init : kAllEmbeddingInits) {
    for (int64_t r = 0; r < 64; ++r) {
      for (int64_t c = 0; c < d; ++c) {
        const auto k = static_cast<uint64_t>(r * d + c);
        const double want = init == EmbeddingInit::kTruncatedNormal ? Truncated(seed, k)
                            : init == EmbeddingInit::kNormal002     ? 0.02 * Gauss(seed, k)
                            : init == EmbeddingInit::kNormalScaled  ? 0.25 * Gauss(seed, k)
                                                                    : Gauss(seed, k);
        ASSERT_EQ(EmbeddingValue(init, seed, d, r, c), static_cast<float>(want))
            << EmbeddingInitName(init) << " (" << r << ", " << c << ")";
      }
    }
  }
}

TEST(EmbeddingInit, TheTableDoesNotDependOnTheVocabularySize) {
  for (EmbeddingInit init : kAllEmbeddingInits) {
    const Matrix small = InitEmbedding(init, 10, 8, 3).value();
    const Matrix big = InitEmbedding(init, 1000, 8, 3).value();
    for (int64_t r = 0; r < 10; ++r) {
      for (int64_t c = 0; c < 8; ++c) ASSERT_EQ(small.at(r, c), big.at(r, c));
    }
  }
}

TEST(EmbeddingInit, TheLearnedTableUsesTheSameInitialisersOnItsOwnStream) {
  for (EmbeddingInit init : kAllEmbeddingInits) {
    EncodingParams p;
    p.scheme = LearnedParams{init, 11, {}};
    p.d_model = 16;
    p.max_len = 40;
    for (int64_t pos = 0; pos < 40; ++pos) {
      for (int64_t c = 0; c < 16; ++c) {
        const auto k = static_cast<uint64_t>(pos * 16 + c);
        const double z = init == EmbeddingInit::kTruncatedNormal
                             ? Truncated(LearnedStream(11), k)
                             : Gauss(LearnedStream(11), k) * InitScale(init, 16);
        ASSERT_EQ(LearnedValue(p, pos, c), static_cast<float>(z)) << EmbeddingInitName(init);
      }
    }
  }
}

// ---- parsing -----------------------------------------------------------------------------------

TEST(TokenIds, ParsesSequencesAndBatches) {
  EXPECT_EQ(ParseIds("2,5,0,9").value(), (IdBatch{{2, 5, 0, 9}}));
  EXPECT_EQ(ParseIds(" 2, 5 ,0 ,9 ").value(), (IdBatch{{2, 5, 0, 9}}));
  EXPECT_EQ(ParseIds("7").value(), (IdBatch{{7}}));
  EXPECT_EQ(ParseIds("23,37,3,45,82;97,61,19,73,53").value(),
            (IdBatch{{23, 37, 3, 45, 82}, {97, 61, 19, 73, 53}}));
  EXPECT_EQ(ParseIds("-1,4").value(), (IdBatch{{-1, 4}}));  // parsed; refused by the range check
  for (const char* text : {"2,5,0,9", "23,37,3;97,61,19", "0"}) {
    EXPECT_EQ(FormatIds(ParseIds(text).value()), text);
  }
}

TEST(TokenIds, EveryBadInputHasItsMessage) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"",
       "--ids is empty: give token ids such as 2,5,0,9 (a sequence) or 1,2;3,4 (a batch, rows "
       "separated by ';')"},
      {"  ", "--ids is empty"},
      {"2,,5", "--ids: the id at position 1 is empty (in \"2,,5\")"},
      {"2,5,", "--ids: the id at position 2 is empty"},
      {"1,2;3,", "--ids: the id at row 1, column 1 is empty"},
      {"1,2;", "--ids: row 1 is empty (in \"1,2;\"); rows are separated by ';'"},
      {"2.5,1", "--ids: \"2.5\" at position 0 is not an integer token id (decimal digits only)"},
      {"1,x", "--ids: \"x\" at position 1 is not an integer token id"},
      {"0x10", "--ids: \"0x10\" at position 0 is not an integer token id"},
      {"+5", "--ids: \"+5\" at position 0 is not an integer token id"},
      {"1,2;3,1e3", "--ids: \"1e3\" at row 1, column 1 is not an integer token id"},
      {"1,99999999999999999999",
       "--ids: \"99999999999999999999\" at position 1 does not fit a "
       "64-bit integer (ids must be below 16777216)"},
      {"-99999999999999999999", "does not fit a 64-bit integer"},
      {"1,2,3;4,5",
       "--ids: row 1 has 2 ids but row 0 has 3; every row of a batch must have the "
       "same length"},
      {"1,2;3,4;5", "--ids: row 2 has 1 ids but row 0 has 2"},
  };
  for (const Case& c : cases) {
    Result<IdBatch> r = ParseIds(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.message().find(c.message), std::string::npos) << c.text << ": " << r.message();
  }
}

TEST(TokenIds, VocabularySizeDefaultsToTheLargestIdPlusOne) {
  EXPECT_EQ(IdsVocabSize({{2, 5, 0, 9}}, 0).value(), 10);
  EXPECT_EQ(IdsVocabSize({{2, 5}, {0, 99}}, 0).value(), 100);
  EXPECT_EQ(IdsVocabSize({{2, 5}}, 50).value(), 50);
  EXPECT_EQ(IdsVocabSize({{kMaxVocab - 1}}, 0).value(), kMaxVocab);
  EXPECT_EQ(IdsVocabSize({{kMaxVocab}}, 0).message(),
            "--ids: id 16777216 needs a vocabulary larger than the largest allowed, 16777216 "
            "(ids must be in [0, 16777216))");
}

TEST(TokenIds, IdsOutsideTheVocabularyNameTheIdItsPlaceAndV) {
  EXPECT_TRUE(CheckIdBatch({{0, 99}}, 100).ok());
  EXPECT_EQ(CheckIdBatch({{2, 5, 100, 9}}, 100).message(),
            "--ids: id 100 at position 2 is outside [0, 100): the vocabulary size is 100");
  EXPECT_EQ(CheckIdBatch({{23, 37}, {97, -1}}, 100).message(),
            "--ids: id -1 at row 1, column 1 is outside [0, 100): the vocabulary size is 100");
}

// ---- the parameter fields -----------------------------------------------------------------------

TEST(TokenIds, FieldsApplyWholeOrNotAtAll) {
  ModelParams m;
  const ParamField& ids = *FindParamField("--ids");
  const ParamField& vocab = *FindParamField("--vocab-size");
  ASSERT_TRUE(ids.set(m, "23,37,3;97,61,19").ok());
  EXPECT_EQ(m.example.ids, (IdBatch{{23, 37, 3}, {97, 61, 19}}));
  // A bad value leaves the ids as they were.
  EXPECT_FALSE(ids.set(m, "1,2;3").ok());
  EXPECT_EQ(m.example.ids, (IdBatch{{23, 37, 3}, {97, 61, 19}}));
  // A vocabulary too small for the ids is refused, naming both.
  Status s = vocab.set(m, "50");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "--vocab-size 50 does not hold the ids: --ids: id 97 at row 1, column 0 is outside "
            "[0, 50): the vocabulary size is 50");
  EXPECT_EQ(m.example.vocab_size, 0);
  ASSERT_TRUE(vocab.set(m, "100").ok());
  // With V set, new ids are checked against it.
  EXPECT_EQ(ids.set(m, "5,100").message(),
            "--ids: id 100 at position 1 is outside [0, 100): the vocabulary size is 100");
  EXPECT_EQ(m.example.ids.size(), 2u);
  EXPECT_EQ(vocab.set(m, "16777217").message(),
            "--vocab-size must be an integer in [0, 16777216], got \"16777217\"");
  EXPECT_EQ(FindParamField("--init")->set(m, "xavier").message(),
            "--init must be normal-1, normal-scaled, normal-0.02, truncated-normal, torch:SEED or "
            "torch-scalar:SEED (SEED an integer in [0, 18446744073709551615]; torch: PyTorch's "
            "numbers as on an AVX2 CPU, torch-scalar: as its scalar kernel draws them), got "
            "\"xavier\"");
}

TEST(TokenIds, InitSetsBothTablesAndLearnedInitThePositionTableAlone) {
  ModelParams m;
  SetScheme(m, Scheme::kLearned);
  EXPECT_EQ(m.example.init, EmbeddingInit::kNormal1);         // nn.Embedding
  EXPECT_EQ(m.pe.learned().init, EmbeddingInit::kNormal002);  // GPT-2, BERT
  ASSERT_TRUE(FindParamField("--init")->set(m, "normal-scaled").ok());
  EXPECT_EQ(m.example.init, EmbeddingInit::kNormalScaled);
  EXPECT_EQ(m.pe.learned().init, EmbeddingInit::kNormalScaled);
  ASSERT_TRUE(FindParamField("--learned-init")->set(m, "truncated-normal").ok());
  EXPECT_EQ(m.example.init, EmbeddingInit::kNormalScaled);
  EXPECT_EQ(m.pe.learned().init, EmbeddingInit::kTruncatedNormal);
  // Other schemes: the token embeddings only.
  ModelParams sin;
  ASSERT_TRUE(FindParamField("--init")->set(sin, "normal-0.02").ok());
  EXPECT_EQ(sin.example.init, EmbeddingInit::kNormal002);
}

TEST(TokenIds, MetadataRoundTripOfTheNewFields) {
  auto read_back = [](const ModelParams& from) {
    ModelParams m;
    const auto values = ParamValues(from);
    for (const ParamField& f : ParamFields()) {
      for (const auto& [key, value] : values) {
        if (!f.key.empty() && key == f.key) {
          Status s = f.set(m, value);
          EXPECT_TRUE(s.ok()) << key << "=" << value << ": " << (s.ok() ? "" : s.message());
        }
      }
    }
    return m;
  };
  ModelParams m;
  SetScheme(m, Scheme::kLearned);
  m.example.init = EmbeddingInit::kTruncatedNormal;
  m.pe.learned().init = EmbeddingInit::kNormalScaled;
  m.example.ids = {{23, 37, 3, 45, 82}, {97, 61, 19, 73, 53}};
  m.example.vocab_size = 100;
  const ModelParams back = read_back(m);
  EXPECT_EQ(back.example.init, EmbeddingInit::kTruncatedNormal);
  EXPECT_EQ(back.pe.learned().init, EmbeddingInit::kNormalScaled);
  EXPECT_EQ(back.example.ids, m.example.ids);
  EXPECT_EQ(back.example.vocab_size, 100);
  EXPECT_EQ(back.pe, m.pe);
  // Without ids nothing is recorded for them (an empty list is not a value --ids accepts).
  ModelParams text;
  for (const auto& kv : ParamValues(text)) {
    EXPECT_NE(kv.first, "ids");
    EXPECT_NE(kv.first, "vocab_size");
  }
  EXPECT_EQ(read_back(text).example, text.example);
}

// ---- the input layer with typed ids ------------------------------------------------------------

ModelParams IdsParams(IdBatch ids, int64_t vocab_size, int64_t d) {
  ModelParams m;
  m.pe.d_model = d;
  m.pe.max_len = 16;
  m.example.ids = std::move(ids);
  m.example.vocab_size = vocab_size;
  m.example.seed = 5;
  return m;
}

std::string SumTable(const ModelParams& m, TableFormat format, Status* status = nullptr) {
  const EncodingPtr e = MakeEncoding(m.pe).value();
  const ViewSelection sel;
  const ViewContext c{m, e, sel, {}, FigureFormat::kPng};
  std::ostringstream out;
  Status s = GetView(ViewKind::kSums).check_table(c);
  if (s.ok()) s = GetView(ViewKind::kSums).write_table(out, format, c, {});
  if (status) *status = s;
  return out.str();
}

TEST(TokenIds, SumNpyOfASequenceIsTokensBy4ByD) {
  const ModelParams m = IdsParams({{2, 5, 0, 9}}, 0, 8);
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(SumTable(m, TableFormat::kNpy), a, why)) << why;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{4, 4, 8}));
  const auto rows = ParseCsv(SumTable(m, TableFormat::kCsv));
  ASSERT_EQ(rows.size(), 1u + 4 * 4);
  EXPECT_EQ(rows[0][0], "token");
  EXPECT_EQ(rows[1][0], "id 2");
  EXPECT_EQ(rows[5][2], "5");  // the id column
}

// out[i, j] = W[x[i, j]] * sqrt(d) + PE[j]: the batch example of llm.c's encoder_forward, with
// W the whole (100, 4) table made independently of the view and PE the paper's formula.
TEST(TokenIds, BatchNpyIsEmbeddingRowsPlusPositions) {
  const IdBatch x = {{23, 37, 3, 45, 82}, {97, 61, 19, 73, 53}};
  const ModelParams m = IdsParams(x, 100, 4);
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(SumTable(m, TableFormat::kNpy), a, why)) << why;
  ASSERT_EQ(a.shape, (std::vector<int64_t>{2, 5, 4, 4}));
  const Matrix w = InitEmbedding(EmbeddingInit::kNormal1, 100, 4, 5).value();  // (V, d)
  const float s = 2.0f;                                                        // sqrt(4)
  for (size_t i = 0; i < 2; ++i) {
    for (size_t j = 0; j < 5; ++j) {
      for (int64_t c = 0; c < 4; ++c) {
        // PE[j, c]: paper layout, sin for even c, cos for odd, frequency 10000^(-(c - c%2)/d).
        const double angle = static_cast<double>(j) * std::pow(10000.0, -(c - c % 2) / 4.0);
        const double pe = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
        const size_t at = ((i * 5 + j) * 4) * 4 + static_cast<size_t>(c);
        const float e = w.at(x[i][j], c);
        EXPECT_EQ(a.data[at + 0 * 4], e) << i << "," << j;                   // embedding
        EXPECT_EQ(a.data[at + 1 * 4], e * s) << i << "," << j;               // scaled
        EXPECT_NEAR(a.data[at + 2 * 4], pe, 1e-6) << i << "," << j;          // positional
        EXPECT_NEAR(a.data[at + 3 * 4], e * s + pe, 2e-6) << i << "," << j;  // sum
      }
    }
  }
  // The batched forward pass gives the same sums (naive table lookup vs the kernel).
  std::vector<int64_t> flat;
  for (const auto& row : x) flat.insert(flat.end(), row.begin(), row.end());
  const Matrix out = InputLayerForward(w, flat, 2, 5, m.pe, m.input).value();  // (10, 4)
  for (int64_t bt = 0; bt < 10; ++bt) {
    for (int64_t c = 0; c < 4; ++c) {
      ASSERT_EQ(out.at(bt, c), a.data[static_cast<size_t>((bt * 4 + 3) * 4 + c)]);
    }
  }
  // CSV: a leading batch column.
  const auto rows = ParseCsv(SumTable(m, TableFormat::kCsv));
  ASSERT_EQ(rows.size(), 1u + 2 * 5 * 4);
  EXPECT_EQ(rows[0][0], "batch");
  EXPECT_EQ(rows[0][1], "token");
  EXPECT_EQ(rows[21][0], "1");
  EXPECT_EQ(rows[21][1], "id 97");
  EXPECT_EQ(rows[21][2], "0");  // position: every row starts at 0
  EXPECT_EQ(rows[21][3], "97");
}

TEST(TokenIds, EachBatchRowHasItsOwnPositionsAndTheInitChangesTheRows) {
  ModelParams m = IdsParams({{23, 37, 3}, {97, 61, 19}}, 100, 8);
  const EncodingPtr e = MakeEncoding(m.pe).value();
  const SentenceResult r1 = ComputeSentence(m.example, *e, m.input, {}, 1).value();
  EXPECT_EQ(r1.ids, (std::vector<int64_t>{97, 61, 19}));
  EXPECT_EQ(r1.tokens[0].text, "id 97");
  EXPECT_EQ(r1.vocab_size, 100);
  EXPECT_EQ(r1.batch, 2);
  const SentenceResult r0 = ComputeSentence(m.example, *e, m.input, {}, 0).value();
  EXPECT_EQ(r1.parts.positional.data, r0.parts.positional.data);  // positions 0..T-1 in each row
  for (int64_t j = 0; j < 8; ++j) {
    EXPECT_EQ(r1.parts.embedding.at(2, j), EmbeddingValue(5, 8, 19, j));
    EXPECT_EQ(r0.parts.embedding.at(0, j), EmbeddingValue(5, 8, 23, j));
  }
  EXPECT_EQ(ComputeSentence(m.example, *e, m.input, {}, 2).message(),
            "batch row 2 is outside [0, 1]: the ids have 2 rows");
  m.example.init = EmbeddingInit::kNormalScaled;
  const SentenceResult scaled = ComputeSentence(m.example, *e, m.input, {}, 1).value();
  for (int64_t j = 0; j < 8; ++j) {
    EXPECT_EQ(scaled.parts.embedding.at(0, j),
              static_cast<float>(Gauss(5, static_cast<uint64_t>(97 * 8 + j)) / std::sqrt(8.0)));
  }
  // An id outside V stops the whole batch, naming its place.
  m.example.ids = {{23, 37, 3}, {97, 100, 19}};
  EXPECT_EQ(ComputeSentence(m.example, *e, m.input, {}, 0).message(),
            "--ids: id 100 at row 1, column 1 is outside [0, 100): the vocabulary size is 100");
  Status s;
  SumTable(m, TableFormat::kNpy, &s);
  EXPECT_FALSE(s.ok());
}

TEST(TokenIds, ATextCheckedAgainstAVocabularySize) {
  ModelParams m;
  m.example.vocab_size = 4;  // "The cat sits on the mat" has 6 words
  const EncodingPtr e = MakeEncoding(m.pe).value();
  EXPECT_EQ(ComputeSentence(m.example, *e, m.input).message(),
            "--vocab-size 4 is too small for the text: token 4 has id 4 (the text's vocabulary "
            "has 6 entries)");
  m.example.vocab_size = 6;
  EXPECT_EQ(ComputeSentence(m.example, *e, m.input).value().vocab_size, 6);
}

}  // namespace
}  // namespace pe
