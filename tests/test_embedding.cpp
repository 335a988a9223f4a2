// Seeded embeddings and lookup: determinism, a golden row computed by an independent Python
// implementation of the documented generator, the N(0, 1) moments, and the seed's shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "base/random.h"
#include "model/embedding.h"

namespace pe {
namespace {

TEST(Embedding, GoldenRowsForSeed0And42) {
  // From a separate Python implementation of random.h's algorithm (float64, then float32).
  const float seed0[] = {-0.45275775f, 2.650606f,  -0.9886041f, 0.25246271f,
                         1.5999936f,   0.0942334f, -1.0693535f, -0.8250644f};
  const float seed42[] = {0.41471976f, -0.89188623f, 1.729593f, 0.54562044f};
  Matrix t0 = InitEmbeddingNormal(2, 4, 0).value();
  for (int k = 0; k < 8; ++k) EXPECT_EQ(t0.data[k], seed0[k]) << k;
  Matrix t42 = InitEmbeddingNormal(1, 4, 42).value();
  for (int k = 0; k < 4; ++k) EXPECT_EQ(t42.data[k], seed42[k]) << k;
}

TEST(Embedding, SameSeedSameTableOtherSeedOtherTable) {
  Matrix a = InitEmbeddingNormal(50, 16, 3).value();
  Matrix b = InitEmbeddingNormal(50, 16, 3).value();
  Matrix c = InitEmbeddingNormal(50, 16, 4).value();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Rows do not depend on the vocabulary size.
  Matrix small = InitEmbeddingNormal(5, 16, 3).value();
  for (int k = 0; k < 5 * 16; ++k) EXPECT_EQ(small.data[k], a.data[k]);
  EXPECT_EQ(EmbeddingValue(3, 16, 7, 9), a.at(7, 9));
}

TEST(Embedding, ValuesAreStandardNormal) {
  Matrix t = InitEmbeddingNormal(1000, 200, 11).value();
  double sum = 0, sq = 0;
  int beyond_2sigma = 0;
  for (float x : t.data) {
    sum += x;
    sq += static_cast<double>(x) * x;
    beyond_2sigma += std::fabs(x) > 2.0f;
  }
  const double n = static_cast<double>(t.data.size());
  EXPECT_NEAR(sum / n, 0.0, 0.01);  // 4 standard errors for n = 200,000
  EXPECT_NEAR(sq / n, 1.0, 0.015);
  EXPECT_NEAR(beyond_2sigma / n, 0.0455, 0.002);
}

TEST(Embedding, UniformIsInTheOpenUnitIntervalEnd) {
  for (uint64_t k = 0; k < 10000; ++k) {
    const double u = RandomUniform(9, k);
    ASSERT_GT(u, 0.0);
    ASSERT_LE(u, 1.0);
  }
}

TEST(Embedding, LookupHasTheSeedsShapesAndRows) {
  // The Annotated-Transformer-style tutorial: ids (2, 5) into a (100, 4) table give (2, 5, 4),
  // out[i, j] = W[x[i, j]].
  Matrix w = InitEmbeddingNormal(100, 4, 0).value();
  const std::vector<int64_t> x = {23, 37, 3, 45, 82, 97, 61, 19, 73, 53};
  Matrix out = LookupRows(w, x).value();
  EXPECT_EQ(out.rows, 10);  // batch 2 * seq 5, row-major (2, 5, 4)
  EXPECT_EQ(out.cols, 4);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 5; ++j) {
      for (int c = 0; c < 4; ++c) EXPECT_EQ(out.at(i * 5 + j, c), w.at(x[i * 5 + j], c));
    }
  }
}

TEST(Embedding, OutOfRangeIdsAndSizesAreErrors) {
  Matrix w = InitEmbeddingNormal(10, 4, 0).value();
  const std::vector<int64_t> bad = {1, 10};
  Result<Matrix> r = LookupRows(w, bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(),
            "token id 10 at index 1 is outside the embedding table: ids must be in [0, 9]");
  const std::vector<int64_t> negative = {-1};
  EXPECT_FALSE(LookupRows(w, negative).ok());
  EXPECT_EQ(InitEmbeddingNormal(0, 4, 0).message(), "vocab_size must be in [1, 16777216], got 0");
  MemoryCap cap;
  cap.bytes = 1024;
  EXPECT_FALSE(InitEmbeddingNormal(100, 100, 0, cap).ok());
}

}  // namespace
}  // namespace pe
