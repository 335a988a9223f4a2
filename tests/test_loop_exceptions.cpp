// Exceptions thrown inside parallel work reach the caller instead of ending the process.
#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <stdexcept>

#include "base/loop_exceptions.h"
#include "base/parallel_chunks.h"

namespace pe {
namespace {

TEST(LoopExceptions, AChunkThatThrowsOnAHelperThreadReachesTheCaller) {
  for (int run = 0; run < 20; ++run) {
    std::atomic<int> calls{0};
    EXPECT_THROW(ForEachChunk(64, 4,
                              [&](int64_t k) {
                                calls.fetch_add(1);
                                if (k % 7 == 3) throw std::bad_alloc();
                              }),
                 std::bad_alloc);
    EXPECT_GE(calls.load(), 1);
  }
  // Work that does not throw still runs every chunk once.
  std::atomic<int64_t> sum{0};
  ForEachChunk(100, 4, [&](int64_t k) { sum.fetch_add(k); });
  EXPECT_EQ(sum.load(), 4950);
}

TEST(LoopExceptions, AnOpenMpLoopCarriesItsFirstExceptionOut) {
  LoopExceptions errors;
  std::atomic<int> ran{0};
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < 1000; ++i) {
    errors.Run([&] {
      ran.fetch_add(1);
      if (i == 10) throw std::runtime_error("cell 10");
    });
  }
  try {
    errors.Rethrow();
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cell 10");
  }
  EXPECT_GE(ran.load(), 11);
  LoopExceptions none;
  none.Run([] {});
  EXPECT_NO_THROW(none.Rethrow());
}

}  // namespace
}  // namespace pe
