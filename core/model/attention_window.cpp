#include "model/attention_window.h"

#include <algorithm>
#include <charconv>

namespace pe {
namespace {

using Kind = AttentionWindowKind;

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// lo(m) = m + c (linear), a chunk's start C floor(m / C), or no bound; hi(m) = m + c or none.
struct Bound {
  enum { kNone, kLinear, kChunk } form = kNone;
  int64_t c = 0;  // kLinear: the offset; kChunk: C
};

Bound LowBound(const AttentionWindow& w) {
  switch (w.kind) {
    case Kind::kSliding:
      return {Bound::kLinear, 1 - w.size};
    case Kind::kSlidingBidirectional:
      return {Bound::kLinear, -(w.size / 2)};
    case Kind::kChunked:
      return {Bound::kChunk, w.size};
    default:
      return {};
  }
}

Bound HighBound(const AttentionWindow& w, bool also_causal) {
  if (also_causal || w.hides_later()) return {Bound::kLinear, 1};
  if (w.kind == Kind::kSlidingBidirectional) return {Bound::kLinear, w.size / 2 + 1};
  return {};
}

int64_t At(const Bound& b, int64_t m, int64_t none) {
  switch (b.form) {
    case Bound::kLinear:
      return m + b.c;
    case Bound::kChunk:
      return FloorDiv(m, b.c) * b.c;
    case Bound::kNone:
      break;
  }
  return none;
}

// sum_{m = m0}^{m1 - 1} clamp(f(m), n0, n1) for f = lo or hi (a constant `none` when unbounded),
// in long double (exact: every partial sum stays below 2^64).
long double SumClamped(const Bound& b, int64_t none, int64_t m0, int64_t m1, int64_t n0,
                       int64_t n1) {
  using LD = long double;
  if (m1 <= m0) return 0;
  switch (b.form) {
    case Bound::kNone:
      return static_cast<LD>(m1 - m0) * static_cast<LD>(std::clamp(none, n0, n1));
    case Bound::kLinear: {
      // Rows m < n0 - c give n0, rows m >= n1 - c give n1, the rows between m + c.
      const int64_t a = std::clamp(n0 - b.c, m0, m1), e = std::clamp(n1 - b.c, a, m1);
      return static_cast<LD>(a - m0) * n0 + static_cast<LD>(e - a) * (a + e - 1 + 2 * b.c) / 2 +
             static_cast<LD>(m1 - e) * n1;
    }
    case Bound::kChunk: {
      const int64_t C = b.c;
      auto g = [&](int64_t j) { return static_cast<LD>(std::clamp(j * C, n0, n1)); };
      const int64_t j0 = FloorDiv(m0, C), j1 = FloorDiv(m1 - 1, C);
      if (j0 == j1) return static_cast<LD>(m1 - m0) * g(j0);
      LD total = static_cast<LD>((j0 + 1) * C - m0) * g(j0) + static_cast<LD>(m1 - j1 * C) * g(j1);
      // The whole chunks j in [ja, jb): chunks with jC <= n0 give n0, those with jC >= n1 give
      // n1, the ones between jC; each counted C times.
      const int64_t ja = j0 + 1, jb = j1;
      if (jb > ja) {
        const int64_t p = FloorDiv(n0, C) + 1, q = -FloorDiv(-n1, C);
        const int64_t A = std::clamp(p, ja, jb), B = std::clamp(q, A, jb);
        total +=
            static_cast<LD>(C) * (static_cast<LD>(A - ja) * n0 +
                                  static_cast<LD>(C) * static_cast<LD>(B - A) * (A + B - 1) / 2 +
                                  static_cast<LD>(jb - B) * n1);
      }
      return total;
    }
  }
  return 0;
}

}  // namespace

std::string_view AttentionWindowKindName(AttentionWindowKind kind) {
  switch (kind) {
    case Kind::kFull:
      return "full";
    case Kind::kCausal:
      return "causal";
    case Kind::kSliding:
      return "sliding";
    case Kind::kSlidingBidirectional:
      return "sliding-bidirectional";
    case Kind::kChunked:
      return "chunked";
  }
  return "";
}

std::string AttentionWindowText(const AttentionWindow& w) {
  std::string out(AttentionWindowKindName(w.kind));
  if (w.banded()) {
    out += ':';
    out += std::to_string(w.size);
  }
  return out;
}

std::string AttentionWindowRule(const AttentionWindow& w) {
  const std::string size = std::to_string(w.size);
  const std::string le = "\xe2\x89\xa4", minus = "\xe2\x88\x92";  // ≤ −
  switch (w.kind) {
    case Kind::kFull:
      return "full attention (every key)";
    case Kind::kCausal:
      return "causal (n " + le + " m)";
    case Kind::kSliding:
      return "sliding window W = " + size + " (m " + minus + " W < n " + le + " m)";
    case Kind::kSlidingBidirectional:
      return "bidirectional sliding window W = " + size + " (|m " + minus + " n| " + le + " " +
             std::to_string(w.size / 2) + ")";
    case Kind::kChunked:
      return "chunked C = " + size +
             " (\xe2\x8c\x8an/C\xe2\x8c\x8b = \xe2\x8c\x8am/C\xe2\x8c\x8b, n " + le + " m)";
  }
  return "";
}

Result<AttentionWindow> ParseAttentionWindow(const std::string& text) {
  const std::string names =
      "full, causal, sliding:W, sliding-bidirectional:W or chunked:C (W, C whole numbers from 1 "
      "to " +
      std::to_string(kMaxAttentionWindow) + ")";
  for (Kind k : {Kind::kFull, Kind::kCausal}) {
    if (text == AttentionWindowKindName(k)) return AttentionWindow{k, 0};
  }
  const size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  for (Kind k : {Kind::kSliding, Kind::kSlidingBidirectional, Kind::kChunked}) {
    if (name != AttentionWindowKindName(k)) continue;
    const char* what = k == Kind::kChunked ? "the chunk size C" : "the window W";
    if (colon == std::string::npos) {
      return InvalidArgument("--attention-window " + name + " needs " + what + ", as " + name +
                             ":" + (k == Kind::kChunked ? "8192" : "4096") + ", got \"" + text +
                             "\"");
    }
    const std::string digits = text.substr(colon + 1);
    int64_t v = 0;
    const char* end = digits.data() + digits.size();
    auto [ptr, ec] = std::from_chars(digits.data(), end, v);
    if (digits.empty() || ec != std::errc() || ptr != end || v < 1 || v > kMaxAttentionWindow) {
      return InvalidArgument("--attention-window " + name + ": " + what +
                             " must be a whole number from 1 to " +
                             std::to_string(kMaxAttentionWindow) + ", got \"" + digits + "\"");
    }
    return AttentionWindow{k, v};
  }
  return InvalidArgument("--attention-window must be " + names + ", got \"" + text + "\"");
}

KeyRun VisibleKeys(const AttentionWindow& w, bool also_causal, int64_t m) {
  return {At(LowBound(w), m, -kFarPosition), At(HighBound(w, also_causal), m, kFarPosition)};
}

bool Sees(const AttentionWindow& w, bool also_causal, int64_t m, int64_t n) {
  const KeyRun run = VisibleKeys(w, also_causal, m);
  return n >= run.lo && n < run.hi;
}

int64_t VisibleCells(const AttentionWindow& w, bool also_causal, int64_t m0, int64_t m1, int64_t n0,
                     int64_t n1) {
  if (m1 <= m0 || n1 <= n0) return 0;
  // Each row's run is never empty (lo(m) <= m < hi(m)), so its part inside [n0, n1) is
  // clamp(hi) - clamp(lo).
  const long double hi = SumClamped(HighBound(w, also_causal), kFarPosition, m0, m1, n0, n1);
  const long double lo = SumClamped(LowBound(w), -kFarPosition, m0, m1, n0, n1);
  return static_cast<int64_t>(hi - lo);
}

std::pair<int64_t, int64_t> RowsSeeing(const AttentionWindow& w, bool also_causal, int64_t m0,
                                       int64_t m1, int64_t n0, int64_t n1) {
  // The first row whose run ends after n0, and the first whose run starts at n1 or later.
  auto first_where = [&](auto pred) {
    int64_t a = m0, b = m1;
    while (a < b) {
      const int64_t mid = a + (b - a) / 2;
      if (pred(VisibleKeys(w, also_causal, mid))) {
        b = mid;
      } else {
        a = mid + 1;
      }
    }
    return a;
  };
  const int64_t first = first_where([&](const KeyRun& r) { return r.hi > n0; });
  const int64_t end = first_where([&](const KeyRun& r) { return r.lo >= n1; });
  return {first, std::max(first, end)};
}

KeyBound LowKeyBound(const AttentionWindow& w) {
  const Bound b = LowBound(w);
  return {static_cast<KeyBound::Form>(b.form), b.c};
}

KeyBound HighKeyBound(const AttentionWindow& w, bool also_causal) {
  const Bound b = HighBound(w, also_causal);
  return {static_cast<KeyBound::Form>(b.form), b.c};
}

}  // namespace pe
