#include "analysis/attention_row.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "encoding/alibi.h"
#include "encoding/t5_buckets.h"

namespace pe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// sum_{j=0}^{K} e^{-s j} and the mean of j under those weights, for s >= 0 (count = K + 1 >= 1),
// in long double. The mean: 1 / expm1(s) - (K + 1) / expm1(s (K + 1)) (the mean of a truncated
// geometric distribution); when s (K + 1) is small the two terms cancel, and the expansion
// K / 2 - s K (K + 2) / 12 (the uniform mean minus s times its variance; the next term is
// O(s^3 K^4)) is used instead.
struct GeometricSum {
  long double sum = 0, mean = 0;
};
GeometricSum Geometric(long double s, int64_t count) {
  const auto n = static_cast<long double>(count);
  const long double k = n - 1;
  if (s == 0) return {n, k / 2};
  GeometricSum g;
  g.sum = std::expm1(-s * n) / std::expm1(-s);
  if (s * n < 1e-3L) {
    g.mean = k / 2 - s * k * (k + 2) / 12;
  } else {
    g.mean = 1 / std::expm1(s) - n / std::expm1(s * n);
  }
  return g;
}

}  // namespace

bool AttentionRowHasClosedForm(const Encoding& e) {
  return e.scheme() == Scheme::kAlibi || e.scheme() == Scheme::kT5;
}

int64_t ResolveAttentionQuery(const Encoding& e, int64_t query) {
  return query == -1 ? e.last_position() : query;
}

Status CheckQueryPosition(int64_t first, int64_t last, int64_t query) {
  if (query < first || query > last) {
    return InvalidArgument("--query must be a position of the table, " + std::to_string(first) +
                           " to " + std::to_string(last) + " (or -1: the last position), got " +
                           std::to_string(query));
  }
  return {};
}

std::pair<int64_t, int64_t> VisibleKeysInTable(const Encoding& e, const AttentionWindow& window,
                                               int64_t query) {
  const KeyRun run = VisibleKeys(window, e.Masked(0, 1), query);
  const int64_t first = e.first_position(), end = first + e.rows();
  const int64_t lo = std::clamp(run.lo, first, end), hi = std::clamp(run.hi, first, end);
  return {lo, std::max(lo, hi)};
}

Status CheckAttentionRow(const Encoding& e, int64_t query, const AttentionWindow& window) {
  if (Status s = CheckQueryPosition(e.first_position(), e.last_position(), query); !s.ok()) {
    return s;
  }
  if (AttentionRowHasClosedForm(e)) return {};
  const auto [lo, hi] = VisibleKeysInTable(e, window, query);
  if (hi - lo <= kMaxEnumeratedKeys) return {};
  const std::string scheme(SchemeName(e.scheme()));
  if (hi - lo == e.rows()) {
    return InvalidArgument("the attention view sums exp(score) over every key, and the " + scheme +
                           " score has no closed form for that sum: --max-len " +
                           "must be at most " + std::to_string(kMaxEnumeratedKeys) +
                           " for it, got " + std::to_string(e.rows()) +
                           " (alibi and t5 take any length)");
  }
  // A window or mask leaves the query part of the table: its visible keys are what counts.
  return InvalidArgument(
      "the attention view sums exp(score) over the keys query " + std::to_string(query) +
      " sees, and the " + scheme + " score has no closed form for that sum: under " +
      "--attention-window " + AttentionWindowText(window) + " it sees keys " + std::to_string(lo) +
      " to " + std::to_string(hi - 1) + ", " + std::to_string(hi - lo) + " keys, and at most " +
      std::to_string(kMaxEnumeratedKeys) +
      " are summed (a narrower window, an earlier --query or a smaller --max-len; alibi and t5 "
      "take any length)");
}

Result<AttentionRow> AttentionRow::Make(const AttentionScorer& scorer, int64_t m) {
  const Encoding& e = scorer.encoding();
  if (Status s = CheckAttentionRow(e, m, scorer.window()); !s.ok()) return s.error();
  AttentionRow r;
  r.scorer_ = scorer;
  r.query_ = m;
  r.first_ = e.first_position();
  r.end_ = r.first_ + e.rows();
  // The keys the query sees: one run (model/attention_window.h), the table's keys without a mask.
  const KeyRun seen = scorer.VisibleKeys(m);
  if (!AttentionRowHasClosedForm(e)) {
    // Only the keys the query sees are scored: the rest weigh 0 whatever their score.
    r.enumerated_ = true;
    std::tie(r.seen_lo_, r.seen_hi_) = VisibleKeysInTable(e, scorer.window(), m);
    const int64_t L = r.seen_hi_ - r.seen_lo_, block = 4096;
    r.logits_.resize(static_cast<size_t>(L));
#pragma omp parallel for schedule(dynamic, 1) if (L * scorer.dim() >= (int64_t{1} << 16))
    for (int64_t b0 = 0; b0 < L; b0 += block) {
      ScoreRow(scorer, m, r.seen_lo_ + b0, std::min(block, L - b0), r.logits_.data() + b0);
    }
    r.Finish();
    return r;
  }
  // Closed forms: the query's own key, then each side as groups nearest first.
  auto add_side = [&](int side, std::vector<Group>& out) {
    const int64_t last_distance =
        side < 0 ? std::min(m - r.first_, m - seen.lo) : std::min(r.end_ - 1 - m, seen.hi - 1 - m);
    if (last_distance < 1) return;
    auto key = [&](int64_t distance) { return m + side * distance; };
    auto push = [&](int64_t d0, int64_t d1, double slope) {  // distances [d0, d1]
      Group g;
      g.near = key(d0);
      g.n0 = std::min(key(d0), key(d1));
      g.n1 = std::max(key(d0), key(d1)) + 1;
      g.logit = scorer.Score(m, g.near);
      g.slope = slope;
      out.push_back(g);
    };
    if (e.scheme() == Scheme::kAlibi) {
      const AlibiParams& a = e.params().alibi();
      // The bias falls by the head's slope per key on both sides (alibi.h).
      push(1, last_distance, AlibiSlopes(a.heads, a.max_bias)[static_cast<size_t>(a.head)]);
    } else {
      for (const T5BucketRun& run : T5BucketRuns(e.params().t5(), side, last_distance)) {
        push(run.first, run.last, 0.0);
      }
    }
  };
  r.groups_.push_back({m, m + 1, m, scorer.Score(m, m), 0.0});
  add_side(-1, r.groups_);
  add_side(+1, r.groups_);
  r.Finish();
  return r;
}

void AttentionRow::Finish() {
  // s_max, then Z = sum e^{t} and T = sum e^{t} t over the unmasked keys (t = score - s_max):
  // entropy = log Z - T / Z.
  long double z = 0, t_sum = 0;
  double hi = -std::numeric_limits<double>::infinity();
  unmasked_ = 0;
  if (closed_form()) {
    for (const Group& g : groups_) hi = std::max(hi, g.logit);
    for (const Group& g : groups_) {
      const long double t0 = static_cast<long double>(g.logit) - hi;
      const GeometricSum geo = Geometric(g.slope, g.n1 - g.n0);
      const long double mass = std::exp(t0) * geo.sum;
      z += mass;
      t_sum += mass * (t0 - static_cast<long double>(g.slope) * geo.mean);
      unmasked_ += g.n1 - g.n0;
    }
  } else {
    for (double v : logits_) {
      if (!std::isnan(v)) hi = std::max(hi, v);
    }
    const auto L = static_cast<int64_t>(logits_.size());
    int64_t count = 0;
#pragma omp parallel for reduction(+ : z, t_sum, count) if (L >= (int64_t{1} << 16))
    for (int64_t i = 0; i < L; ++i) {
      const double v = logits_[static_cast<size_t>(i)];
      if (std::isnan(v)) continue;
      const long double t = static_cast<long double>(v) - hi;
      const long double w = std::exp(t);
      z += w;
      t_sum += w * t;
      ++count;
    }
    unmasked_ = count;
  }
  if (unmasked_ == 0 || !(z > 0)) {
    max_logit_ = kNaN;
    log_z_ = kNaN;
    entropy_ = kNaN;
    return;
  }
  max_logit_ = hi;
  log_z_ = static_cast<double>(std::log(z));
  entropy_ = static_cast<double>(std::log(z) - t_sum / z);
}

double AttentionRow::Score(int64_t n) const {
  if (n < first_ || n >= end_) return kNaN;
  if (!closed_form()) {
    return n >= seen_lo_ && n < seen_hi_ ? logits_[static_cast<size_t>(n - seen_lo_)] : kNaN;
  }
  return scorer_.Score(query_, n);
}

double AttentionRow::Weight(int64_t n) const {
  const double s = Score(n);
  if (std::isnan(s) || std::isnan(log_z_)) return 0.0;
  return std::exp((s - max_logit_) - log_z_);
}

double AttentionRow::MaxWeightIn(int64_t n0, int64_t n1) const {
  n0 = std::max(n0, first_);
  n1 = std::min(n1, end_);
  if (n1 <= n0 || std::isnan(log_z_)) return 0.0;
  double hi = -std::numeric_limits<double>::infinity();
  if (closed_form()) {
    for (const Group& g : groups_) {
      const int64_t a = std::max(n0, g.n0), b = std::min(n1, g.n1);
      if (b <= a) continue;
      // The group's scores fall away from `near`: its best key in [a, b) is the one nearest it.
      hi = std::max(hi, GroupLogit(g, std::clamp(g.near, a, b - 1)));
    }
  } else {
    for (int64_t n = std::max(n0, seen_lo_); n < std::min(n1, seen_hi_); ++n) {
      const double v = logits_[static_cast<size_t>(n - seen_lo_)];
      if (!std::isnan(v)) hi = std::max(hi, v);
    }
  }
  if (!std::isfinite(hi)) return 0.0;
  return std::exp((hi - max_logit_) - log_z_);
}

std::vector<int64_t> AttentionRow::TopKeys(int count) const {
  std::vector<std::pair<double, int64_t>> candidates;  // (score, key)
  if (closed_form()) {
    // Within a group the keys nearest the query score highest, so each group offers its first
    // `count` keys from `near` outwards.
    for (const Group& g : groups_) {
      const int64_t step = g.near == g.n0 ? 1 : -1;
      for (int64_t i = 0; i < count && i < g.n1 - g.n0; ++i) {
        const int64_t n = g.near + step * i;
        candidates.push_back({GroupLogit(g, n), n});
      }
    }
  } else {
    for (size_t i = 0; i < logits_.size(); ++i) {
      if (!std::isnan(logits_[i]))
        candidates.push_back({logits_[i], seen_lo_ + static_cast<int64_t>(i)});
    }
  }
  const int64_t m = query_;
  auto better = [m](const std::pair<double, int64_t>& a, const std::pair<double, int64_t>& b) {
    if (a.first != b.first) return a.first > b.first;
    const int64_t da = a.second > m ? a.second - m : m - a.second;
    const int64_t db = b.second > m ? b.second - m : m - b.second;
    if (da != db) return da < db;
    return a.second < b.second;
  };
  const auto k = std::min(candidates.size(), static_cast<size_t>(std::max(count, 0)));
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(k),
                    candidates.end(), better);
  std::vector<int64_t> out;
  for (size_t i = 0; i < k; ++i) out.push_back(candidates[i].second);
  return out;
}

}  // namespace pe
