// Every figure against the memory cap at the largest tables the app takes: max_len 1e9 (the
// bias schemes' tables are then 1e9 x 1e9) and d_model 65536. Each view of each scheme is asked
// for its estimate; the figure is then built, and what it allocated at its peak (counted by
// this binary's operator new) must stay within the estimate. A view whose estimate is over the
// cap is refused by CheckFigureMemory with a message naming the view, never built.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "model/model_schedule.h"
#include "model/param_fields.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace {

// Bytes held through operator new, and the most held at once since the last reset.
std::atomic<int64_t> g_held{0};
std::atomic<int64_t> g_peak{0};

void Count(int64_t bytes) {
  const int64_t now = g_held.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

// Each block starts with a header of `align` bytes (at least 16) holding its size, so the
// pointer handed out keeps the alignment asked for.
void* Allocate(std::size_t n, std::size_t align) {
  align = std::max<std::size_t>(align, 16);
  void* base = std::aligned_alloc(align, (n + 2 * align - 1) / align * align);
  if (base == nullptr) throw std::bad_alloc();
  *static_cast<std::size_t*>(base) = n;
  *(static_cast<std::size_t*>(base) + 1) = align;
  Count(static_cast<int64_t>(n));
  return static_cast<char*>(base) + align;
}

void Release(void* p, std::size_t align) noexcept {
  if (p == nullptr) return;
  align = std::max<std::size_t>(align, 16);
  auto* base = static_cast<std::size_t*>(static_cast<void*>(static_cast<char*>(p) - align));
  Count(-static_cast<int64_t>(base[0]));
  std::free(base);
}

}  // namespace

void* operator new(std::size_t n) {
  return Allocate(n, 16);
}
void* operator new[](std::size_t n) {
  return Allocate(n, 16);
}
void* operator new(std::size_t n, std::align_val_t a) {
  return Allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return Allocate(n, static_cast<std::size_t>(a));
}
// The nothrow forms too (std::stable_sort's temporary buffer uses them): the sanitizer build
// supplies its own otherwise, and a block it allocated would come back to Release here.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n, 16);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n, 16);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n, static_cast<std::size_t>(a));
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n, static_cast<std::size_t>(a));
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  Release(p, 16);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  Release(p, 16);
}
void operator delete(void* p, std::align_val_t a, const std::nothrow_t&) noexcept {
  Release(p, static_cast<std::size_t>(a));
}
void operator delete[](void* p, std::align_val_t a, const std::nothrow_t&) noexcept {
  Release(p, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept {
  Release(p, 16);
}
void operator delete[](void* p) noexcept {
  Release(p, 16);
}
void operator delete(void* p, std::size_t) noexcept {
  Release(p, 16);
}
void operator delete[](void* p, std::size_t) noexcept {
  Release(p, 16);
}
void operator delete(void* p, std::align_val_t a) noexcept {
  Release(p, static_cast<std::size_t>(a));
}
void operator delete[](void* p, std::align_val_t a) noexcept {
  Release(p, static_cast<std::size_t>(a));
}
void operator delete(void* p, std::size_t, std::align_val_t a) noexcept {
  Release(p, static_cast<std::size_t>(a));
}
void operator delete[](void* p, std::size_t, std::align_val_t a) noexcept {
  Release(p, static_cast<std::size_t>(a));
}

namespace pe {
namespace {

// A table of `scheme` with max_len rows (the bias schemes' tables are max_len x max_len) and
// d_model columns; a learned table, drawn and held in memory, at 2^12 rows of at most 2048.
ModelParams Table(Scheme scheme, int64_t max_len, int64_t d_model) {
  ModelParams m;
  SetScheme(m, scheme);
  m.pe.max_len = scheme == Scheme::kLearned ? 4096 : max_len;
  m.pe.d_model = scheme == Scheme::kLearned ? std::min<int64_t>(d_model, 2048) : d_model;
  // An image as wide as the neighbours view's heatmap samples (mrope-neighbours needs one).
  if (scheme == Scheme::kMrope) m.pe.mrope().images = {{100, 3, 2048, 1024}};
  return m;
}

// Builders allocate some bookkeeping the estimates leave out (labels, legends, small vectors).
constexpr int64_t kSlack = int64_t{1} << 20;

// Every view of every scheme at max_len 1e9 and d 65536 has an estimate, and one over the cap
// is refused by the check the window and exports run before building, naming the view.
TEST(FigureBudget, EveryViewOfEverySchemeAtTheLargestTablesHasAnEstimateTheCapChecks) {
  const FigureSize size{1920, 1080, 2.0};
  for (Scheme scheme : kAllSchemeKinds) {
    ModelParams m = Table(scheme, 1'000'000'000, 65536);
    ASSERT_TRUE(ValidateEncodingParams(m.pe).ok()) << SchemeName(scheme);
    const ViewSelection sel = DefaultViews(m);
    for (const ViewEntry& v : Views()) {
      if (!ViewApplies(v.kind, m.pe)) continue;
      const std::string what = std::string(v.name) + " of " + std::string(SchemeName(scheme));
      const uint64_t estimate = EstimateFigureBytes(v.kind, m, sel, size, FigureFormat::kPng);
      EXPECT_GT(estimate, 0u) << what;
      for (const uint64_t cap : {uint64_t{1} << 20, uint64_t{2} << 30}) {
        m.cap.bytes = cap;
        const Status fits = CheckFigureMemory(v.kind, m, sel, size, FigureFormat::kPng);
        EXPECT_EQ(fits.ok(), estimate <= cap) << what;
        if (!fits.ok()) {
          EXPECT_NE(fits.message().find(std::string(v.name)), std::string::npos)
              << what << ": " << fits.message();
        }
      }
    }
  }
}

// pi-fit at the largest fit it makes (L 8192 of max_len 1e9, d 256): its matrix is the figure's
// peak, within the estimate.
TEST(FigureBudget, PiFitStaysWithinItsEstimate) {
  const FigureSize size{480, 320, 1.0};
  ModelParams m = Table(Scheme::kRope, 1'000'000'000, 256);
  const Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  ASSERT_TRUE(e.ok()) << e.message();
  const ViewSelection sel = DefaultViews(m, *e.value());
  const uint64_t estimate = EstimateFigureBytes(ViewKind::kPiFit, m, sel, size, FigureFormat::kPng);
  const int64_t before = g_held.load();
  g_peak.store(before);
  const Result<Figure> f =
      BuildViewFigure(ViewKind::kPiFit, m, sel, size, FigureFormat::kPng, "", e.value());
  const int64_t peak = g_peak.load() - before;
  ASSERT_TRUE(f.ok()) << f.message();
  // The matrix alone is (8193 + 256) x 256 doubles: 17.3 MB.
  EXPECT_GE(peak, 17'000'000);
  EXPECT_LE(peak, static_cast<int64_t>(estimate) + kSlack) << peak << " vs " << estimate;
}

// The figures themselves, built at max_len 1e9 (d 1024 keeps the suite fast; every term of the
// estimates that grows with d is exercised), allocate at their peak no more than estimated.
TEST(FigureBudget, EveryViewOfEverySchemeAtABillionPositionsStaysWithinItsEstimate) {
  const FigureSize size{480, 320, 1.0};
  for (Scheme scheme : kAllSchemeKinds) {
    ModelParams m = Table(scheme, 1'000'000'000, 1024);
    // The layers view draws a model's schedule: 128 layers of this table, two kinds of window.
    auto schedule = std::make_shared<ModelSchedule>();
    schedule->layers.resize(128);
    for (size_t i = 0; i < schedule->layers.size(); ++i) {
      schedule->layers[i].pe = m.pe;
      if (i % 4 != 3) schedule->layers[i].window = {AttentionWindowKind::kSliding, 4096};
    }
    m.model = std::move(schedule);
    m.model_layer = 3;
    const Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
    ASSERT_TRUE(e.ok()) << e.message();
    const ViewSelection sel = DefaultViews(m, *e.value());
    for (const ViewEntry& v : Views()) {
      if (!ViewApplies(v.kind, m.pe)) continue;
      // The check view needs a file; the walkthrough follows the text, not the table.
      if (v.kind == ViewKind::kCheck || v.kind == ViewKind::kWalkthrough) continue;
      // pi-fit solves a d-unknown fit and refuses heads over 512 dims (its own test checks the
      // message); at d 1024 there is nothing to build.
      if (v.kind == ViewKind::kPiFit) continue;
      const std::string what = std::string(v.name) + " of " + std::string(SchemeName(scheme));
      const uint64_t estimate = EstimateFigureBytes(v.kind, m, sel, size, FigureFormat::kPng);
      // Over the cap (the attention row of a table without a closed form holds every key's
      // score): refused before building, which the test above checks.
      if (!CheckFigureMemory(v.kind, m, sel, size, FigureFormat::kPng).ok()) continue;
      const int64_t before = g_held.load();
      g_peak.store(before);
      const Result<Figure> f =
          BuildViewFigure(v.kind, m, sel, size, FigureFormat::kPng, "", e.value());
      const int64_t peak = g_peak.load() - before;
      EXPECT_TRUE(f.ok()) << what << ": " << f.message();
      EXPECT_LE(peak, static_cast<int64_t>(estimate) + kSlack)
          << what << ": built with a peak of " << peak << " bytes, estimated " << estimate;
    }
  }
}

// The score, attention and decay views under a sliding, a bidirectional sliding and a chunked
// window at max_len 1e9 (d 128): the estimate covers what the figures allocate, as for the
// causal mask (a window counts its texels' visible cells in closed form, allocating nothing).
TEST(FigureBudget, WindowedScoreViewsAtABillionPositionsStayWithinTheirEstimates) {
  const FigureSize size{480, 320, 1.0};
  for (const char* window : {"sliding:4096", "sliding-bidirectional:128", "chunked:8192"}) {
    for (Scheme scheme : {Scheme::kRope, Scheme::kSinusoidal, Scheme::kAlibi, Scheme::kT5}) {
      ModelParams m = Table(scheme, 1'000'000'000, 128);
      ASSERT_TRUE(FindParamField("--attention-window")->set(m, window).ok());
      const Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
      ASSERT_TRUE(e.ok()) << e.message();
      const ViewSelection sel = DefaultViews(m, *e.value());
      for (ViewKind view : {ViewKind::kScore, ViewKind::kDecay, ViewKind::kAttention}) {
        const std::string what =
            std::string(ViewName(view)) + " of " + std::string(SchemeName(scheme)) + " " + window;
        if (!CheckFigureMemory(view, m, sel, size, FigureFormat::kPng).ok()) continue;
        const uint64_t estimate = EstimateFigureBytes(view, m, sel, size, FigureFormat::kPng);
        const int64_t before = g_held.load();
        g_peak.store(before);
        const Result<Figure> f =
            BuildViewFigure(view, m, sel, size, FigureFormat::kPng, "", e.value());
        const int64_t peak = g_peak.load() - before;
        // An added table under a window has no closed form for the texels the window cuts:
        // the score view refuses a billion positions, naming the size it draws exactly.
        const bool refused = scheme == Scheme::kSinusoidal && view == ViewKind::kScore;
        if (refused) {
          ASSERT_FALSE(f.ok()) << what;
          EXPECT_NE(f.message().find("no closed form gives it, so texels are exact only while "
                                     "each holds at most 8 positions a side"),
                    std::string::npos)
              << f.message();
        } else {
          EXPECT_TRUE(f.ok()) << what << ": " << f.message();
        }
        EXPECT_LE(peak, static_cast<int64_t>(estimate) + kSlack)
            << what << ": built with a peak of " << peak << " bytes, estimated " << estimate;
      }
    }
  }
}

// Under a mask the score and compare views draw exact texels or refuse: M-RoPE cut by a causal
// mask or a window, and a learned table past the prefix sums' size (positions x d >= 2^24), have
// no closed form for the texels the mask cuts, so past 8 positions a texel side the view names the
// size and the largest window it draws; at that size (and smaller) every texel is the exact mean
// of its cells. A learned table's chunks within the prefix sums' size are exact at any size.
TEST(FigureBudget, MaskedScoreViewsWithNoClosedFormRefusePastTheirExactSize) {
  const FigureSize size{480, 320, 1.0};
  struct Case {
    Scheme scheme;
    const char* window;
    int64_t d;
    bool refused_when_large;
  };
  for (const Case& k :
       {Case{Scheme::kMrope, "causal", 16, true}, Case{Scheme::kMrope, "sliding:100", 16, true},
        Case{Scheme::kLearned, "chunked:64", 256, true},
        Case{Scheme::kLearned, "chunked:64", 16, false}}) {
    for (int64_t len : {int64_t{100'000}, int64_t{400}}) {
      ModelParams m = Table(k.scheme, len, k.d);
      m.pe.max_len = len;
      m.pe.d_model = k.d;
      if (k.scheme == Scheme::kMrope) m.pe.mrope().images = {{10, 1, 4, 4}};
      ASSERT_TRUE(FindParamField("--attention-window")->set(m, k.window).ok());
      const Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
      ASSERT_TRUE(e.ok()) << e.message();
      const ViewSelection sel = DefaultViews(m, *e.value());
      const Result<Figure> f =
          BuildViewFigure(ViewKind::kScore, m, sel, size, FigureFormat::kPng, "", e.value());
      const std::string what = std::string(SchemeName(k.scheme)) + " " + k.window + " d " +
                               std::to_string(k.d) + " at " + std::to_string(len);
      if (len > 8 * 320 && k.refused_when_large) {
        ASSERT_FALSE(f.ok()) << what;
        EXPECT_NE(f.message().find("this window shows " + std::to_string(len) + " queries in "),
                  std::string::npos)
            << f.message();
        EXPECT_NE(f.message().find("draw at most "), std::string::npos) << f.message();
      } else {
        ASSERT_TRUE(f.ok()) << what << ": " << f.message();
        bool exact = false;
        for (const FigureLegendItem& item : f.value().legend) {
          exact = exact || item.label == "texel = exact mean of its cells" ||
                  item.label == "one cell per texel";
        }
        EXPECT_TRUE(exact) << what;
      }
    }
  }
}

}  // namespace
}  // namespace pe
