// analysis/base_bound.h against direct float64 sums of B(m) = sum_i cos(m theta_i): the first
// negative m of the stepped sum equals the naive one's, and the lower bounds the grid scan gives
// are those numpy gives (tests/test_gallery.cpp names them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/base_bound.h"

namespace pe {
namespace {

std::vector<double> Freqs(double base, int d) {
  std::vector<double> f(static_cast<size_t>(d / 2));
  for (size_t i = 0; i < f.size(); ++i) f[i] = std::pow(base, -2.0 * double(i) / double(d));
  return f;
}

int64_t NaiveFirstNegative(const std::vector<double>& f, int64_t limit) {
  for (int64_t m = 1; m <= limit; ++m) {
    double b = 0;
    for (double w : f) b += std::cos(static_cast<double>(m) * w);
    if (b < 0) return m;
  }
  return limit + 1;
}

TEST(BaseBound, SteppedSumFindsTheNaiveFirstNegative) {
  // Base 10000 at d 128: 1707 (numpy), past a reseed at 1025; others across the grid and d.
  EXPECT_EQ(FirstNegativeB(Freqs(10000, 128), 20000), 1707);
  for (int d : {8, 64, 128, 256}) {
    for (double base : {100.0, 2100.0, 11600.0, 12000.0, 27000.0, 500000.0}) {
      const std::vector<double> f = Freqs(base, d);
      EXPECT_EQ(FirstNegativeB(f, 6000), NaiveFirstNegative(f, 6000)) << d << " " << base;
    }
  }
  // A base whose B stays >= 0 over the limit gives limit + 1.
  EXPECT_EQ(FirstNegativeB(Freqs(84000, 128), 8000), 8001);
}

TEST(BaseBound, LowerBoundsAreTheFirstGridBaseReachingEachContext) {
  const std::vector<int64_t> contexts = {1000, 2000, 4000, 8000};
  Result<std::vector<BaseBound>> r = BaseLowerBounds(128, contexts);
  ASSERT_TRUE(r.ok()) << r.message();
  const double want[] = {4300, 16000, 27000, 84000};
  for (size_t k = 0; k < contexts.size(); ++k) {
    EXPECT_EQ(r.value()[k].base, want[k]) << contexts[k];
    EXPECT_GT(r.value()[k].first_negative, contexts[k]);
  }
  // Not monotone in the base: 11600 reaches 2000 (first negative 2051) but 12000 to 15000 do
  // not, which is why the bound is read on the paper's grid (the smallest grid base that
  // reaches L). 11600 is not on the two-digit grid.
  EXPECT_EQ(FirstNegativeB(Freqs(11600, 128), 3000), 2051);
  EXPECT_EQ(FirstNegativeB(Freqs(12000, 128), 3000), 1554);
  const std::vector<double> grid = TwoDigitBases();
  EXPECT_EQ(grid.front(), 10);
  EXPECT_EQ(grid[90], 100);
  EXPECT_EQ(grid[91], 110);
  EXPECT_TRUE(std::is_sorted(grid.begin(), grid.end()));
}

TEST(BaseBound, BadInputIsRefused) {
  const std::vector<int64_t> ok = {10, 20};
  EXPECT_FALSE(BaseLowerBounds(7, ok).ok());
  EXPECT_FALSE(BaseLowerBounds(0, ok).ok());
  const std::vector<int64_t> descending = {20, 10};
  EXPECT_FALSE(BaseLowerBounds(64, descending).ok());
  const std::vector<int64_t> zero = {0};
  EXPECT_FALSE(BaseLowerBounds(64, zero).ok());
}

}  // namespace
}  // namespace pe
