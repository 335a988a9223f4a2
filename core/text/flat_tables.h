// The tokenizer's two big lookup tables: token text -> id, and a pair of ids -> its merge.
//
// Both are open addressing with linear probing over a power-of-two array kept at most half full,
// so a lookup touches one slot (and, for text, the one place its bytes are kept) instead of a
// hash bucket and a list node; loading a 200,000-token vocabulary does about 800,000 lookups.
// Abseil's flat map would do, but its absl::string_view clashes with the alias of that name that
// the SentencePiece headers declare, and both meet in the tokenizer's translation units.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pe {

// The power of two (at least 16) that holds `n` entries at most half full.
inline size_t FlatCapacity(size_t n) {
  size_t c = 16;
  while (c < 2 * n) c *= 2;
  return c;
}

// Token text -> id. The texts are kept back to back in one buffer.
class TokenIdTable {
 public:
  void reserve(size_t n) {
    if (2 * n > slots_.size()) Rehash(FlatCapacity(n));
  }
  size_t size() const { return size_; }

  // The id of `token`, or -1.
  int32_t Find(std::string_view token) const {
    if (slots_.empty()) return -1;
    const uint64_t h = Hash(token);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.id < 0) return -1;
      if (s.hash == h && s.len == token.size() &&
          std::string_view(text_.data() + s.offset, s.len) == token) {
        return s.id;
      }
    }
  }
  // Adds `token` with `id` (>= 0); false, and nothing changed, when it is there already.
  bool Insert(std::string_view token, int32_t id) {
    if (2 * (size_ + 1) > slots_.size()) Rehash(FlatCapacity(size_ + 1));
    const uint64_t h = Hash(token);
    size_t i = h & mask_;
    for (;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.id < 0) break;
      if (s.hash == h && s.len == token.size() &&
          std::string_view(text_.data() + s.offset, s.len) == token) {
        return false;
      }
    }
    slots_[i] = Slot{h, text_.size(), token.size(), id};
    text_.append(token);
    ++size_;
    return true;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    size_t offset = 0, len = 0;  // into text_
    int32_t id = -1;             // -1: empty
  };
  static uint64_t Hash(std::string_view s) { return std::hash<std::string_view>{}(s); }
  void Rehash(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.id < 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].id >= 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
  std::string text_;
};

// A 64-bit key that is never ~0 -> a value.
template <typename Value>
class PairTable {
 public:
  void reserve(size_t n) {
    if (2 * n > slots_.size()) Rehash(FlatCapacity(n));
  }
  size_t size() const { return size_; }

  // The value of `key`, or null.
  const Value* Find(uint64_t key) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = Mix(key) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == kEmpty) return nullptr;
    }
  }
  // Adds `key` with `value`; false, keeping the first value, when the key is there already.
  bool Insert(uint64_t key, const Value& value) {
    if (2 * (size_ + 1) > slots_.size()) Rehash(FlatCapacity(size_ + 1));
    size_t i = Mix(key) & mask_;
    for (; slots_[i].key != kEmpty; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return false;
    }
    slots_[i] = Slot{key, value};
    ++size_;
    return true;
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    uint64_t key = kEmpty;
    Value value{};
  };
  // splitmix64's finaliser: the ids in a key are small and close together.
  static uint64_t Mix(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  void Rehash(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.key == kEmpty) continue;
      size_t i = Mix(s.key) & mask_;
      while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace pe
