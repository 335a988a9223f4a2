// Byte-level BPE: the lowest-rank-first merge loop (openai/gpt-2 src/encoder.py; Hugging Face
// tokenizers' models/bpe/word.rs drives it with a priority queue of pair ranks, as here) and the
// cache of words already encoded in one Encode call.
#include <algorithm>
#include <cstring>

#include "text/subword_internal.h"

namespace pe {

// The table starts small (a sentence needs few slots) and doubles at half load.
void SubwordTokenizer::Encoder::Grow() {
  std::vector<Slot> old(std::max<size_t>(1024, slots_.size() * 2));
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.count == 0) continue;
    size_t i = s.hash & mask;
    while (slots_[i].count != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

SubwordTokenizer::Encoder::Slot* SubwordTokenizer::Encoder::Find(std::string_view word,
                                                                 uint64_t hash) {
  if (slots_.empty() || (cached_ + 1) * 2 > slots_.size()) Grow();
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.count == 0) return &s;
    if (s.hash == hash && s.key_len == word.size() &&
        std::memcmp(keys_.data() + s.key, word.data(), word.size()) == 0) {
      return &s;
    }
  }
}

void SubwordTokenizer::Encoder::BpeWord(std::string_view word, int64_t begin,
                                        std::vector<SubwordPiece>& out) {
  const bool cacheable = word.size() <= kMaxCachedWordBytes;
  Slot* slot = nullptr;
  uint64_t hash = 0;
  if (cacheable) {
    hash = HashBytes(word);
    slot = Find(word, hash);
    if (slot->count != 0) {
      int64_t at = begin;
      for (uint32_t k = 0; k < slot->count; ++k) {
        const auto [id, len] = pieces_[slot->first + k];
        out.push_back({id, at, at + len});
        at += len;
      }
      return;
    }
  }
  Merge(word);
  if (cacheable) {
    if (cached_ >= kMaxCachedWords) {
      std::fill(slots_.begin(), slots_.end(), Slot{});
      keys_.clear();
      pieces_.clear();
      cached_ = 0;
      slot = Find(word, hash);
    }
    slot->hash = hash;
    slot->key = static_cast<uint32_t>(keys_.size());
    slot->key_len = static_cast<uint32_t>(word.size());
    keys_.append(word);
    slot->first = static_cast<uint32_t>(pieces_.size());
    for (int32_t k = 0; k >= 0; k = next_[static_cast<size_t>(k)]) {
      pieces_.emplace_back(id_[static_cast<size_t>(k)], len_[static_cast<size_t>(k)]);
      ++slot->count;
    }
    ++cached_;
  }
  int64_t at = begin;
  for (int32_t k = 0; k >= 0; k = next_[static_cast<size_t>(k)]) {
    out.push_back({id_[static_cast<size_t>(k)], at, at + len_[static_cast<size_t>(k)]});
    at += len_[static_cast<size_t>(k)];
  }
}

// Leaves the word's tokens as a linked list from symbol 0 in id_/len_/next_. One symbol per
// byte to begin; then, as word.rs does, the lowest-ranked adjacent pair (leftmost among equal
// ranks) is merged until no adjacent pair has a merge. A heap entry whose symbols have
// changed since it was pushed is skipped when popped.
void SubwordTokenizer::Encoder::Merge(std::string_view word) {
  const size_t n = word.size();
  id_.resize(n);
  len_.resize(n);
  prev_.resize(n);
  next_.resize(n);
  for (size_t k = 0; k < n; ++k) {
    id_[k] = t_.byte_ids_[static_cast<unsigned char>(word[k])];
    len_[k] = 1;
    prev_[k] = static_cast<int32_t>(k) - 1;
    next_[k] = k + 1 < n ? static_cast<int32_t>(k + 1) : -1;
  }
  if (t_.ignore_merges_ && n > 1) {
    std::string whole;
    for (char c : word) AppendUtf8(whole, ByteToUnicode(static_cast<unsigned char>(c)));
    if (const int32_t id = t_.ids_.Find(whole); id >= 0) {
      id_[0] = id;
      len_[0] = static_cast<int32_t>(n);
      next_[0] = -1;
      return;
    }
  }
  MergeSymbols(n);
}

void SubwordTokenizer::Encoder::MergeSymbols(size_t n) {
  heap_.clear();
  auto push = [&](int32_t left) {
    const int32_t right = next_[static_cast<size_t>(left)];
    if (right < 0) return;
    const auto* m =
        t_.merges_.Find(Key(id_[static_cast<size_t>(left)], id_[static_cast<size_t>(right)]));
    if (!m) return;
    heap_.push_back({m->rank, left, right, m->id});
    std::push_heap(heap_.begin(), heap_.end(), Later);
  };
  for (size_t k = 0; k + 1 < n; ++k) push(static_cast<int32_t>(k));
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), Later);
    const Pending p = heap_.back();
    heap_.pop_back();
    // Stale: the left symbol was merged into its neighbour, or its right neighbour changed.
    if (len_[static_cast<size_t>(p.left)] == 0 || next_[static_cast<size_t>(p.left)] != p.right ||
        len_[static_cast<size_t>(p.right)] == 0) {
      continue;
    }
    const auto* m =
        t_.merges_.Find(Key(id_[static_cast<size_t>(p.left)], id_[static_cast<size_t>(p.right)]));
    if (!m || m->rank != p.rank) continue;
    const auto l = static_cast<size_t>(p.left), r = static_cast<size_t>(p.right);
    id_[l] = p.merged;
    len_[l] += len_[r];
    len_[r] = 0;
    next_[l] = next_[r];
    if (next_[r] >= 0) prev_[static_cast<size_t>(next_[r])] = p.left;
    if (prev_[l] >= 0) push(prev_[l]);
    push(p.left);
  }
}

}  // namespace pe
