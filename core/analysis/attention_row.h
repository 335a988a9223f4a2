// The softmax row of one query over every key of the table: where its attention goes.
//   weight(m, n) = exp(score(m, n) - s_max) / Z,   Z = sum over the unmasked keys n of
//                  exp(score(m, n) - s_max)
// with score(m, n) from AttentionScorer (attention_score.h) and s_max the row's largest score
// (subtracted first, as every softmax kernel does, so no exponential overflows); keys a mask hides
// (the causal mask asked for, causal ALiBi) weigh 0.
//
// Z and the entropy are exact at any table length where the score has a closed form along the
// row, and summed key by key where it has none:
//   alibi: score = c - s |m - n| (s the head's slope): each side of the query is a geometric
//          series, sum_{j=0}^{K} e^{-s j} = expm1(-s (K + 1)) / expm1(-s), in long double.
//   t5:    the bias is constant on each run of one bucket (T5BucketRuns): a run of c keys adds
//          c e^{t}; at most `buckets` runs a side, whatever max_len is.
//   sinusoidal, learned, rope, xpos: no closed form of the sum; every key the query sees is
//          scored and the exponentials summed in long double. A window leaves the query one run
//          of keys [lo(m), hi(m)) (model/attention_window.h), and only that run is scored, so a
//          sliding:4096 window works at any table length. These rows are refused when the query
//          sees more than kMaxEnumeratedKeys keys, with a message naming the cap (a 1e9-key row
//          costs minutes per query).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/attention_score.h"
#include "base/status.h"

namespace pe {

// The most keys a row without a closed form is summed over (2^20).
inline constexpr int64_t kMaxEnumeratedKeys = int64_t{1} << 20;

// True when the scheme's row has a closed form (alibi, t5): any table length works.
bool AttentionRowHasClosedForm(const Encoding& encoding);

// An error naming --query and the allowed range when `query` (an absolute position, after -1 is
// resolved) is outside the table, or naming --max-len (or --attention-window) and the cap when
// the row has no closed form and the query sees more than kMaxEnumeratedKeys keys of the table
// under `window` (full: every key; the scheme's own causal mask counted too).
Status CheckAttentionRow(const Encoding& encoding, int64_t query,
                         const AttentionWindow& window = {});

// The keys of the table query m sees, [first, second) (empty when equal): the window's run
// (the scheme's causal mask included) clamped to the table.
std::pair<int64_t, int64_t> VisibleKeysInTable(const Encoding& encoding,
                                               const AttentionWindow& window, int64_t query);

// An error naming --query and the table's positions [first, last] when `query` (not -1) is
// outside them: the check of every view, before any table is made.
Status CheckQueryPosition(int64_t first, int64_t last, int64_t query);

// -1 resolved: the table's last position (the query that sees every key, with a causal mask as
// without); any other value unchanged.
int64_t ResolveAttentionQuery(const Encoding& encoding, int64_t query);

class AttentionRow {
 public:
  // The row of query `m` (absolute position) over every key of the table. Errors as
  // CheckAttentionRow.
  static Result<AttentionRow> Make(const AttentionScorer& scorer, int64_t m);

  int64_t query() const { return query_; }
  int64_t first_key() const { return first_; }
  int64_t end_key() const { return end_; }  // one past the last key
  bool closed_form() const { return !enumerated_; }
  int64_t unmasked_keys() const { return unmasked_; }

  // score(m, n); NaN when masked.
  double Score(int64_t n) const;
  // The softmax weight of key n (0 when masked or outside the table).
  double Weight(int64_t n) const;
  // The largest weight among the keys [n0, n1) (clamped to the table); 0 when all are masked.
  double MaxWeightIn(int64_t n0, int64_t n1) const;
  // -sum w log w, in nats (exp(entropy) is the number of keys a uniform row would spread over).
  double entropy() const { return entropy_; }
  // The `count` keys of largest weight, largest first; ties go to the key nearest the query,
  // then the earlier one.
  std::vector<int64_t> TopKeys(int count) const;

 private:
  // Keys [n0, n1) whose score falls by `slope` per key away from `near` (the group's key nearest
  // the query), from `logit` at `near`. slope 0: a constant run.
  struct Group {
    int64_t n0 = 0, n1 = 0, near = 0;
    double logit = 0, slope = 0;
  };
  double GroupLogit(const Group& g, int64_t n) const {
    return g.logit - g.slope * static_cast<double>(n > g.near ? n - g.near : g.near - n);
  }
  void Finish();

  AttentionScorer scorer_;
  int64_t query_ = 0, first_ = 0, end_ = 0, unmasked_ = 0;
  std::vector<Group> groups_;  // closed form
  // Without a closed form: the scores of the keys the query sees, [seen_lo_, seen_hi_), NaN
  // where masked; every other key is masked. Empty for a closed form.
  std::vector<double> logits_;
  int64_t seen_lo_ = 0, seen_hi_ = 0;
  bool enumerated_ = false;
  double max_logit_ = 0, log_z_ = 0, entropy_ = 0;
};

}  // namespace pe
