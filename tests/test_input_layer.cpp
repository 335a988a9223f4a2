// The input layer: the blog's hand-worked sum, sqrt(d) scaling, dropout semantics (nn.Dropout),
// norms, and the batched forward pass against the per-token parts.
#include <gtest/gtest.h>

#include <cmath>

#include "base/random.h"
#include "model/embedding.h"
#include "model/input_layer.h"

namespace pe {
namespace {

TEST(InputLayer, BlogWorkedExampleWithExplicitValues) {
  Matrix e = MatrixFromValues(3, 3, {0.1f, 0.3f, 0.4f, 0.2f, 0.6f, 0.5f, 0.7f, 0.9f, 0.8f}).value();
  Matrix p = MatrixFromValues(3, 3, {0.01f, 0.02f, 0.03f, 0.04f, 0.05f, 0.06f, 0.07f, 0.08f, 0.09f})
                 .value();
  InputLayerParams params;
  params.scale = false;
  InputParts parts = CombineInputParts(e, p, params).value();
  const float expected[] = {0.11f, 0.32f, 0.43f, 0.24f, 0.65f, 0.56f, 0.77f, 0.98f, 0.89f};
  for (int k = 0; k < 9; ++k) EXPECT_NEAR(parts.sum.data[k], expected[k], 1e-7f) << k;
  EXPECT_EQ(parts.scaled, e);
}

TEST(InputLayer, ScalingMultipliesBySqrtD) {
  EncodingParams pe;
  pe.d_model = 16;
  Matrix table = InitEmbeddingNormal(10, 16, 1).value();
  const std::vector<int64_t> ids = {3, 1, 3};
  InputParts parts = ComputeInputParts(table, ids, pe, {}).value();
  ASSERT_EQ(parts.tokens(), 3);
  for (int t = 0; t < 3; ++t) {
    for (int j = 0; j < 16; ++j) {
      EXPECT_EQ(parts.embedding.at(t, j), table.at(ids[t], j));
      EXPECT_EQ(parts.scaled.at(t, j), table.at(ids[t], j) * 4.0f);
      EXPECT_EQ(parts.sum.at(t, j), parts.scaled.at(t, j) + parts.positional.at(t, j));
    }
    EXPECT_NEAR(parts.Norm(Part::kScaled, t), 4.0 * parts.Norm(Part::kEmbedding, t), 1e-5);
    EXPECT_NEAR(parts.Norm(Part::kPositional, t), std::sqrt(8.0), 1e-6);  // 8 sin/cos pairs
    EXPECT_NEAR(parts.ScaledToPositionalRatio(t), parts.Norm(Part::kScaled, t) / std::sqrt(8.0),
                1e-6);
  }
  // Same token, different positions: same embedding, different sum.
  EXPECT_NE(parts.sum.at(0, 0), parts.sum.at(2, 0));
}

TEST(InputLayer, DropoutIsIdentityInEvalAndInvertedInTrain) {
  Matrix e = InitEmbeddingNormal(1, 64, 0).value();
  Matrix big;
  big.rows = 400;
  big.cols = 64;
  for (int r = 0; r < 400; ++r) big.data.insert(big.data.end(), e.data.begin(), e.data.end());
  Matrix zeros = MatrixFromValues(400, 64, std::vector<float>(400 * 64, 0.0f)).value();
  InputLayerParams params;
  params.scale = false;
  params.dropout = 0.3;
  InputParts eval = CombineInputParts(big, zeros, params).value();
  EXPECT_EQ(eval.sum, big);
  params.train = true;
  InputParts train = CombineInputParts(big, zeros, params).value();
  int dropped = 0;
  for (size_t k = 0; k < big.data.size(); ++k) {
    if (train.sum.data[k] == 0.0f) {
      ++dropped;
    } else {
      ASSERT_FLOAT_EQ(train.sum.data[k], big.data[k] / 0.7f);
    }
  }
  EXPECT_NEAR(dropped / 25600.0, 0.3, 0.012);  // ~4 standard errors
  params.dropout = 1.0;
  InputParts all_dropped = CombineInputParts(big, zeros, params).value();
  for (float x : all_dropped.sum.data) ASSERT_EQ(x, 0.0f);
  params.dropout = 1.5;
  EXPECT_EQ(CombineInputParts(big, zeros, params).message(), "dropout must be in [0, 1], got 1.5");
  params.dropout = NAN;
  EXPECT_FALSE(CombineInputParts(big, zeros, params).ok());
}

// The fast mask is an integer test; the definition is the double one: element k is dropped
// when RandomUniform(seed, first + k) <= p. Checked on both sides of a uniform's exact value.
TEST(InputLayer, DropoutMaskIsTheUniformTestElementByElement) {
  const uint64_t seed = 77, first = 1000;
  const int64_t n = 4099;  // not a multiple of any vector width
  const double at = RandomUniform(seed, first + 1234);
  for (double p : {1e-12, 0.1, 1.0 / 3.0, 0.5, 0.999999, at, std::nextafter(at, 0.0)}) {
    std::vector<float> fast(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) fast[static_cast<size_t>(k)] = 1.0f + static_cast<float>(k);
    const std::vector<float> in = fast;
    ApplyDropout(fast.data(), n, p, seed, first);
    const auto keep_scale = static_cast<float>(1.0 / (1.0 - p));
    for (int64_t k = 0; k < n; ++k) {
      const auto i = static_cast<size_t>(k);
      const bool drop = RandomUniform(seed, first + static_cast<uint64_t>(k)) <= p;
      ASSERT_EQ(fast[i], drop ? 0.0f : in[i] * keep_scale) << "p " << p << " element " << k;
    }
  }
  std::vector<float> one = {5.0f};
  ApplyDropout(one.data(), 1, at, seed, first + 1234);
  EXPECT_EQ(one[0], 0.0f);  // u == p is dropped
  one = {5.0f};
  ApplyDropout(one.data(), 1, std::nextafter(at, 0.0), seed, first + 1234);
  EXPECT_NE(one[0], 0.0f);
}

TEST(InputLayer, BatchedTrainingForwardDropsTheSameElementsAsTheParts) {
  EncodingParams pe;
  pe.d_model = 256;
  pe.max_len = 1100;
  Matrix table = InitEmbeddingNormal(50, 256, 3).value();
  std::vector<int64_t> ids(2 * 1100);  // 2200 x 256 values: large enough for the threaded path
  for (size_t k = 0; k < ids.size(); ++k) ids[k] = static_cast<int64_t>((k * 31) % 50);
  InputLayerParams params;
  params.train = true;
  params.dropout = 0.25;
  params.dropout_seed = 9;
  Matrix out = InputLayerForward(table, ids, 2, 1100, pe, params).value();
  InputLayerParams eval = params;
  eval.train = false;
  Matrix clean = InputLayerForward(table, ids, 2, 1100, pe, eval).value();
  int64_t dropped = 0;
  for (size_t k = 0; k < out.data.size(); ++k) {
    const bool drop = RandomUniform(9, k) <= 0.25;
    dropped += drop;
    ASSERT_EQ(out.data[k], drop ? 0.0f : clean.data[k] * static_cast<float>(1.0 / 0.75)) << k;
  }
  EXPECT_GT(dropped, 0);
}

TEST(InputLayer, SequenceLongerThanMaxLenIsAnError) {
  EncodingParams pe;
  pe.d_model = 4;
  pe.max_len = 2;
  Matrix table = InitEmbeddingNormal(10, 4, 0).value();
  const std::vector<int64_t> ids = {1, 2, 3};
  EXPECT_EQ(ComputeInputParts(table, ids, pe, {}).message(),
            "the sequence has 3 tokens but max_len is 2; raise max_len to at least 3");
}

TEST(InputLayer, TruncationKeepsTheFirstMaxLenTokensWithTheirFullTextIds) {
  EncodingParams pe;
  pe.d_model = 4;
  pe.max_len = 2;
  TextExample ex;
  ex.text = "x y x z";
  EXPECT_FALSE(ComputeSentence(ex, pe, {}).ok());  // refused by default
  ex.truncate = true;
  Result<SentenceResult> r = ComputeSentence(ex, pe, {});
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().ids, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(r.value().dropped_tokens, 2);
  EXPECT_EQ(r.value().parts.tokens(), 2);
  EXPECT_EQ(r.value().vocabulary.size(), 3);  // built from the whole text
}

TEST(InputLayer, BatchedForwardMatchesPerSequenceParts) {
  EncodingParams pe;
  pe.d_model = 4;
  pe.max_len = 10;
  pe.offset = 3;
  Matrix table = InitEmbeddingNormal(100, 4, 0).value();
  const std::vector<int64_t> ids = {23, 37, 3, 45, 82, 97, 61, 19, 73, 53};  // (2, 5)
  Matrix out = InputLayerForward(table, ids, 2, 5, pe, {}).value();
  ASSERT_EQ(out.rows, 10);
  ASSERT_EQ(out.cols, 4);
  for (int b = 0; b < 2; ++b) {
    InputParts parts = ComputeInputParts(table, std::span(ids).subspan(b * 5, 5), pe, {}).value();
    for (int t = 0; t < 5; ++t) {
      for (int j = 0; j < 4; ++j) EXPECT_EQ(out.at(b * 5 + t, j), parts.sum.at(t, j));
    }
  }
  EXPECT_FALSE(InputLayerForward(table, ids, 3, 5, pe, {}).ok());
}

TEST(InputLayer, SentencesOverTheMemoryCapAreRefused) {
  EncodingParams pe;
  pe.d_model = 65536;
  pe.max_len = 100000;
  TextExample ex;
  ex.text = std::string(5000, 'a');
  ex.tokenizer = TokenizerKind::kChar;
  MemoryCap cap;
  cap.bytes = uint64_t{1} << 30;
  Result<SentenceResult> r = ComputeSentence(ex, pe, {}, cap);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(),
            "the sentence's four parts of 20000 x 65536 float32 values needs 4.9 GiB, over the "
            "memory cap of 1.0 GiB; use smaller sizes or raise the cap (--memory-cap-mib)");
}

TEST(InputLayer, SentenceUsesTheSeededTableRows) {
  EncodingParams pe;
  pe.d_model = 8;
  TextExample ex;
  ex.seed = 5;
  SentenceResult s = ComputeSentence(ex, pe, {}).value();
  EXPECT_EQ(s.ids, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  Matrix table = InitEmbeddingNormal(6, 8, 5).value();
  for (int t = 0; t < 6; ++t) {
    for (int j = 0; j < 8; ++j) EXPECT_EQ(s.parts.embedding.at(t, j), table.at(t, j));
  }
  ex.text = "";
  EXPECT_EQ(ComputeSentence(ex, pe, {}).value().parts.tokens(), 0);
}

}  // namespace
}  // namespace pe
