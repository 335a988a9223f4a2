// The background-job type (jobs/job.h) and the jobs built on it: newest request wins, a
// superseded or cancelled request never publishes, progress, cancel tokens seen by core loops,
// and shutdown cancelling a running task. No timing: tasks wait on their tokens or on flags.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "base/parallel_chunks.h"
#include "encoding/learned.h"
#include "jobs/export_runner.h"
#include "jobs/figure_worker.h"
#include "jobs/job.h"
#include "jobs/table_load_job.h"
#include "test_support.h"
#include "ui/derived.h"

namespace pe {
namespace {

// Spins (yielding) until `token` is cancelled: a task that would run forever unless cancelled.
void WaitForCancel(const CancelToken& token) {
  while (!token.cancelled()) std::this_thread::yield();
}

// A flag a test sets once and another thread waits for.
class Flag {
 public:
  void Set() {
    {
      std::lock_guard<std::mutex> lock(m_);
      set_ = true;
    }
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return set_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool set_ = false;
};

TEST(Job, ASupersededRequestIsCancelledAndNeverPublishes) {
  std::mutex m;
  std::vector<std::string> published;
  std::atomic<bool> first_saw_cancel{false};
  Flag first_started;
  {
    Job job(/*synchronous=*/false);
    job.Submit(0, [&](JobContext& c) {
      first_started.Set();
      WaitForCancel(c.token());
      first_saw_cancel = true;
      c.Publish([&] {
        std::lock_guard<std::mutex> lock(m);
        published.push_back("first");
      });
    });
    first_started.Wait();
    job.Submit(0, [&](JobContext& c) {
      c.Publish([&] {
        std::lock_guard<std::mutex> lock(m);
        published.push_back("second");
      });
    });
    job.WaitIdle();
  }
  EXPECT_TRUE(first_saw_cancel);
  EXPECT_EQ(published, std::vector<std::string>{"second"});
}

TEST(Job, WaitingRequestsStartNewestFirstAndAReplacedOneNeverRuns) {
  std::vector<int> order;
  Job job(/*synchronous=*/false);
  job.Hold(true);
  for (int key : {1, 2, 3, 1}) {
    job.Submit(key, [&order, key](JobContext&) { order.push_back(key); });
  }
  EXPECT_TRUE(job.Busy(1));
  EXPECT_FALSE(job.Busy()) << "held requests count as idle";
  job.Hold(false);
  job.WaitIdle();
  // Key 1's second request replaced its first and is the newest: 1, then 3, then 2.
  EXPECT_EQ(order, (std::vector<int>{1, 3, 2}));
}

TEST(Job, ProgressReachesOneWithItsText) {
  Job job(/*synchronous=*/false);
  std::vector<double> seen;
  job.Submit(0, [&](JobContext& c) {
    const Progress progress = c.progress();
    for (int k = 0; k <= 4; ++k) {
      EXPECT_TRUE(progress(k / 4.0));
      seen.push_back(k / 4.0);
    }
    c.Report(1.0, "done");
  });
  job.WaitIdle();
  EXPECT_EQ(job.fraction(), 1.0);
  EXPECT_EQ(job.text(), "done");
  EXPECT_EQ(seen.back(), 1.0);
}

TEST(Job, ClosingCancelsTheRunningTaskAndJoins) {
  std::atomic<bool> saw_cancel{false};
  Flag started;
  {
    Job job(/*synchronous=*/false);
    job.Submit(0, [&](JobContext& c) {
      started.Set();
      WaitForCancel(c.token());  // would never end unless cancelled
      saw_cancel = true;
    });
    started.Wait();
  }  // ~Job returns only once the task has seen its token and ended
  EXPECT_TRUE(saw_cancel);
}

TEST(Job, ATaskRunsWithItsBudgetOfThreadsAndItsToken) {
  Job job(/*synchronous=*/false, /*threads=*/1);
  int threads = 0;
  const CancelToken* token = nullptr;
  const CancelToken* seen = nullptr;
  job.Submit(0, [&](JobContext& c) {
    threads = FillThreads();
    token = &c.token();
    seen = CurrentCancelToken();
  });
  job.WaitIdle();
  EXPECT_EQ(threads, 1);
  EXPECT_EQ(seen, token);
  EXPECT_EQ(CurrentCancelToken(), nullptr);
  EXPECT_GE(JobThreadBudget(), 1);
}

TEST(ForEachChunkCancel, NoChunkStartsOnceTheCallersTokenIsCancelled) {
  CancelToken token;
  const CancelScope scope(&token);
  std::atomic<int64_t> ran{0};
  bool threw = false;
  try {
    ForEachChunk(1000, 2, [&](int64_t k) {
      ++ran;
      if (k == 3) token.Cancel();
    });
  } catch (const CancelledError&) {
    threw = true;
  }
  EXPECT_TRUE(threw);
  EXPECT_LT(ran.load(), 1000);
  // Without a token every chunk runs.
  const CancelScope none(nullptr);
  ran = 0;
  ForEachChunk(1000, 2, [&](int64_t) { ++ran; });
  EXPECT_EQ(ran.load(), 1000);
}

// A learned table of 2^26 values (256 MiB, seconds to draw): cancelled while it is drawn, it
// stops with a Cancelled status instead of finishing.
EncodingParams LargeLearned(uint64_t seed) {
  EncodingParams p;
  p.scheme = LearnedParams{};
  p.d_model = 1024;
  p.max_len = int64_t{1} << 16;
  p.learned().seed = seed;
  return p;
}

TEST(EncodingJob, CancelStopsALongBuildEarlyWithACancelledStatus) {
  CancelToken token;
  int64_t steps = 0;
  const Result<EncodingPtr> e = MakeEncoding(LargeLearned(1), MemoryCap{}, [&](double) {
    if (++steps == 2) token.Cancel();
    return !token.cancelled();
  });
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, Error::Kind::kCancelled);
  EXPECT_EQ(steps, 2);  // of 64 steps of 2^20 values
}

TEST(EncodingJob, ASupersededBuildIsCancelledAndTheNewestIsInstalled) {
  EncodingBuilder builder(/*background=*/true);
  const EncodingParams first = LargeLearned(1);
  EncodingParams second = LargeLearned(2);
  second.max_len = 2048;  // 2^21 values: built in the background, quickly
  ASSERT_TRUE(builder.Update(first, MemoryCap{}));
  EXPECT_TRUE(builder.building());
  ASSERT_TRUE(builder.Update(second, MemoryCap{}));
  builder.WaitForBuild();
  builder.Update(second, MemoryCap{});
  ASSERT_FALSE(builder.building());
  ASSERT_NE(builder.parts().encoding, nullptr);
  EXPECT_EQ(builder.parts().encoding->params(), second);
  EXPECT_EQ(builder.parts().encoding->ValueAt(5, 7.0), LearnedValue(second, 7, 5));
  EXPECT_FALSE(builder.busy());
}

TEST(EncodingJob, DestroyingTheBuilderCancelsAndJoinsARunningBuild) {
  // The build of 2^26 values stops at its next step of 2^20: the builder's destructor returns.
  auto builder = std::make_unique<EncodingBuilder>(/*background=*/true);
  ASSERT_TRUE(builder->Update(LargeLearned(3), MemoryCap{}));
  EXPECT_TRUE(builder->busy());
  builder.reset();
  SUCCEED();
}

FigureRequest ScoreRequest(int64_t max_len) {
  ModelParams p;
  p.pe.scheme = RopeParams{};
  p.pe.max_len = max_len;
  return {ViewKind::kScore, p, MakeEncoding(p.pe).value(), ViewSelection{}, FigureSize{}};
}

// A builder that, for the score view at max_len 99, runs until its job cancels it.
FigureResult BuildOrWaitForCancel(const FigureRequest& r, std::atomic<int>* cancelled,
                                  Flag* started) {
  if (r.view == ViewKind::kScore && r.params.pe.max_len == 99) {
    started->Set();
    WaitForCancel(*CurrentCancelToken());
    ++*cancelled;
    FigureResult out;
    out.request = r;
    out.error = "cancelled";
    return out;
  }
  return BuildFigure(r);
}

TEST(FigureJob, NewParametersCancelTheRunningBuildWhichNeverPublishes) {
  std::atomic<int> cancelled{0};
  Flag started;
  FigureWorker figures(/*synchronous=*/false, [&](const FigureRequest& r) {
    return BuildOrWaitForCancel(r, &cancelled, &started);
  });
  figures.Request(ScoreRequest(99));
  started.Wait();
  figures.Request(ScoreRequest(100));
  figures.WaitIdle();
  EXPECT_EQ(cancelled.load(), 1);
  const std::optional<FigureResult> r = figures.Take(ViewKind::kScore);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->request.params.pe.max_len, 100);
  EXPECT_TRUE(r->figure.has_value()) << r->error;
  EXPECT_FALSE(figures.Take(ViewKind::kScore).has_value());
}

TEST(FigureJob, ClosingCancelsAStaleBuildAndJoins) {
  std::atomic<int> cancelled{0};
  Flag started;
  {
    FigureWorker figures(/*synchronous=*/false, [&](const FigureRequest& r) {
      return BuildOrWaitForCancel(r, &cancelled, &started);
    });
    figures.Request(ScoreRequest(99));
    started.Wait();
  }
  EXPECT_EQ(cancelled.load(), 1);
}

TEST(FigureJob, BuildFigureSaysCancelledUnderACancelledToken) {
  CancelToken token;
  token.Cancel();
  const CancelScope scope(&token);
  const FigureResult r = BuildFigure(ScoreRequest(100));
  EXPECT_FALSE(r.figure.has_value());
  EXPECT_EQ(r.error, "cancelled");
}

TEST(ExportJob, CancelStopsALongExportAndItsOutcomeSaysSo) {
  ExportRunner runner(/*synchronous=*/false);
  ExportJob job;
  job.view = ViewKind::kHeatmap;
  job.params.pe.max_len = int64_t{1} << 22;  // a CSV of 2^22 rows: minutes to write
  job.path = ::testing::TempDir() + "jobs_cancelled_export.csv";
  ASSERT_TRUE(runner.Start(job));
  EXPECT_TRUE(runner.busy());
  EXPECT_FALSE(runner.Start(job)) << "one export at a time";
  runner.Cancel();
  std::optional<ExportOutcome> o;
  while (!(o = runner.Take())) std::this_thread::yield();
  EXPECT_FALSE(o->status.ok());
  EXPECT_NE(o->status.message().find("cancelled"), std::string::npos) << o->status.message();
  std::remove(job.path.c_str());
}

TEST(TableLoadJobCancel, ALoadCancelledBeforeItEndsSaysSo) {
  // A cancelled job's waiting or running load runs with its token cancelled: it stops at its
  // first step and its outcome says it was cancelled.
  const std::string path = ::testing::TempDir() + "jobs_cancelled_load.npy";
  ASSERT_TRUE(pe::testing::WriteSinusoidNpyWithAWrongCell(path, 4096, 256, 3, 4));
  TableLoadJob job(/*synchronous=*/false);
  ASSERT_TRUE(job.Start({path, TableTarget::kEmbeddings, MemoryCap{}}));
  job.Cancel();
  std::optional<TableLoadOutcome> o;
  while (!(o = job.Take())) std::this_thread::yield();
  ASSERT_FALSE(o->table.ok());
  EXPECT_NE(o->table.message().find("cancelled"), std::string::npos) << o->table.message();
  std::remove(path.c_str());
}

// A value that counts its copies.
struct Counted {
  int value = 0;
  int* copies = nullptr;
  Counted(int v, int* c) : value(v), copies(c) {}
  Counted(const Counted& o) : value(o.value), copies(o.copies) { ++*copies; }
  Counted& operator=(const Counted& o) {
    value = o.value;
    copies = o.copies;
    ++*copies;
    return *this;
  }
  bool operator==(const Counted& o) const { return value == o.value; }
};

TEST(CacheKey, ComparesInPlaceAndCopiesOnlyOnAChange) {
  int copies = 0;
  std::optional<std::tuple<Counted, int>> key;
  const Counted a{1, &copies}, b{2, &copies};
  EXPECT_TRUE(KeyChanged(key, a, 5));
  EXPECT_EQ(copies, 1);
  for (int frame = 0; frame < 10; ++frame) EXPECT_FALSE(KeyChanged(key, a, 5));
  EXPECT_EQ(copies, 1) << "an unchanged key was copied";
  EXPECT_TRUE(KeyChanged(key, a, 6));
  EXPECT_TRUE(KeyChanged(key, b, 6));
  EXPECT_EQ(copies, 3);
  EXPECT_EQ(std::get<0>(*key).value, 2);
}

// The figure job's request compares equal parameters without reducing (copying) them.
TEST(CacheKey, EqualFigureRequestsCompareWithoutACopy) {
  const FigureRequest r = ScoreRequest(100);
  FigureRequest pan = r;
  pan.sel.windows[ViewKind::kScore] = {0, 50, 0, 50};
  EXPECT_TRUE(r.SameParams(pan.params));
  EXPECT_FALSE(r == pan);
  FigureRequest other = r;
  other.params.curve_dims = {0, 1};  // read by another view only
  EXPECT_TRUE(r.SameParams(other.params));
  other.params.causal_mask = true;
  EXPECT_FALSE(r.SameParams(other.params));
}

}  // namespace
}  // namespace pe
