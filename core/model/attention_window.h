// Which keys a query attends to: the attention mask of the score, attention and decay views, as
// a band or a block of the (query x key) plane. Every window leaves query m one contiguous run of
// keys [lo(m), hi(m)), and lo and hi never decrease with m, so counts over a block of cells have
// closed forms (no loop over keys, whatever the table length).
//   full:                    every key.
//   causal:                  n <= m.
//   sliding:W                m - W < n <= m. HF transformers `masking_utils.py`:
//                            `sliding_window_overlay` (kv_idx > q_idx - sliding_window) and'ed
//                            with `causal_mask_function`: Mistral, Gemma 2/3, GPT-OSS.
//   sliding-bidirectional:W  |m - n| <= floor(W / 2), W the encoder's whole window: ModernBERT's
//                            `local_attention` (HF `modeling_modernbert.py`
//                            `_update_attention_mask`: distance <= local_attention // 2; in
//                            `masking_utils.py` `sliding_window_bidirectional_overlay` with
//                            sliding_window = local_attention // 2).
//   chunked:C                floor(n / C) == floor(m / C) and n <= m (Llama 4's local layers;
//                            HF `masking_utils.py` `chunked_overlay` and'ed with the causal mask,
//                            positions absolute, no padding).
// Positions are absolute (the table's offset included).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace pe {

enum class AttentionWindowKind { kFull, kCausal, kSliding, kSlidingBidirectional, kChunked };

// "full", "causal", "sliding", "sliding-bidirectional", "chunked".
std::string_view AttentionWindowKindName(AttentionWindowKind kind);

// The largest W or C (2^31: a window wider than any table).
inline constexpr int64_t kMaxAttentionWindow = int64_t{1} << 31;

struct AttentionWindow {
  AttentionWindowKind kind = AttentionWindowKind::kFull;
  int64_t size = 0;  // W (sliding) or C (chunked); 0 for full and causal
  bool operator==(const AttentionWindow&) const = default;

  // Whether keys after the query are hidden (causal, sliding, chunked).
  bool hides_later() const {
    return kind == AttentionWindowKind::kCausal || kind == AttentionWindowKind::kSliding ||
           kind == AttentionWindowKind::kChunked;
  }
  // A band or a block beyond the causal triangle: sliding, sliding-bidirectional, chunked.
  bool banded() const {
    return kind == AttentionWindowKind::kSliding ||
           kind == AttentionWindowKind::kSlidingBidirectional ||
           kind == AttentionWindowKind::kChunked;
  }
};

// "full", "causal", "sliding:4096", "sliding-bidirectional:128", "chunked:8192": what
// --attention-window reads back.
std::string AttentionWindowText(const AttentionWindow& w);
// The rule in words for legends: "sliding window W = 4096 (m − W < n ≤ m)".
std::string AttentionWindowRule(const AttentionWindow& w);

// Parses --attention-window's text; an error names the flag, what is allowed and the text.
Result<AttentionWindow> ParseAttentionWindow(const std::string& text);

// Beyond every position a table holds: the ends of a run that has none.
inline constexpr int64_t kFarPosition = int64_t{1} << 62;

// The keys query m sees, [lo, hi) (kFarPosition-wide on an open side); `also_causal` adds the
// causal mask a scheme implies (causal ALiBi).
struct KeyRun {
  int64_t lo = -kFarPosition, hi = kFarPosition;
};
KeyRun VisibleKeys(const AttentionWindow& w, bool also_causal, int64_t m);
bool Sees(const AttentionWindow& w, bool also_causal, int64_t m, int64_t n);

// The cells (m, n) of [m0, m1) x [n0, n1) the window leaves visible, in closed form: the sum over
// rows of |[lo(m), hi(m)) ∩ [n0, n1)| = sum clamp(hi(m), n0, n1) - sum clamp(lo(m), n0, n1),
// each an arithmetic series over the rows (or over the chunks). Exact (counts below 2^63).
int64_t VisibleCells(const AttentionWindow& w, bool also_causal, int64_t m0, int64_t m1, int64_t n0,
                     int64_t n1);

// The rows of [m0, m1) that see at least one key of [n0, n1): one run [first, second) (empty
// when first == second), since lo and hi never decrease with m.
std::pair<int64_t, int64_t> RowsSeeing(const AttentionWindow& w, bool also_causal, int64_t m0,
                                       int64_t m1, int64_t n0, int64_t n1);

// The ends of VisibleKeys as forms, for closed forms over blocks of cells (analysis/masked_texels):
// lo(m) and hi(m) are each m + c (kLinear), a chunk's start C floor(m / C) (kChunk, c = C; lo
// only) or unbounded (kNone).
struct KeyBound {
  enum Form { kNone, kLinear, kChunk } form = kNone;
  int64_t c = 0;
};
KeyBound LowKeyBound(const AttentionWindow& w);
KeyBound HighKeyBound(const AttentionWindow& w, bool also_causal);

}  // namespace pe
