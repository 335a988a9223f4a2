// SentencePiece .model files (tokenizer.model of Llama 2, Mistral, T5, Gemma), run by the
// packaged SentencePiece library itself (libsentencepiece): its encoder gives the ids and, for
// each piece, the bytes of the text it covers, so a piece is hovered and grouped as any other
// tokenizer's. The library is run rather than its model converted into the app's BPE and
// Unigram because the Debian package ships no header for the model's protobuf (the normalizer
// spec, the model type), and running it gives SentencePiece's exact behaviour (its
// normalization, whitespace handling, user-defined pieces).
#include <sentencepiece_processor.h>

#include <cstdint>
#include <cstdio>
#include <string_view>

#include "text/subword_internal.h"
#include "text/subword_tokenizer.h"

namespace pe {

namespace {

// The protobuf wire format (protobuf.dev/programming-guides/encoding): a varint at `p`, or false
// when it runs past `end` or past 10 bytes.
bool ReadVarint(const unsigned char*& p, const unsigned char* end, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    const unsigned char b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

// Calls `f(field, bytes)` for each length-delimited field of the message in `m`, skipping the
// others; false when the wire format is broken.
template <typename F>
bool ForEachBytesField(std::string_view m, const F& f) {
  const auto* p = reinterpret_cast<const unsigned char*>(m.data());
  const unsigned char* end = p + m.size();
  while (p < end) {
    uint64_t key = 0, v = 0;
    if (!ReadVarint(p, end, key)) return false;
    switch (key & 7) {
      case 0:
        if (!ReadVarint(p, end, v)) return false;
        break;
      case 1:
        if (end - p < 8) return false;
        p += 8;
        break;
      case 5:
        if (end - p < 4) return false;
        p += 4;
        break;
      case 2:
        if (!ReadVarint(p, end, v) || v > static_cast<uint64_t>(end - p)) return false;
        f(key >> 3, std::string_view(reinterpret_cast<const char*>(p), v));
        p += v;
        break;
      default:
        return false;
    }
  }
  return true;
}

// A precompiled character map as SentencePiece's normalizer reads it (normalizer.cc
// DecodePrecompiledCharsMap): a little-endian uint32 trie size, a Darts-clone double array of
// that many bytes, then NUL-terminated replacement strings. The library follows the array's
// offsets and the strings' starts without bounds checks, so a damaged map would make it read
// past its memory; this checks every unit the way the traversal uses it: a unit with the leaf bit
// (bit 31) holds a string start, which must lie in the strings; any other unit's children
// (index ^ offset ^ label, label < 256) must lie in the array.
bool CharsMapIsSafe(std::string_view map) {
  if (map.empty()) return true;
  if (map.size() < 4) return false;
  const auto* b = reinterpret_cast<const unsigned char*>(map.data());
  const uint32_t trie_bytes =
      b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  if (trie_bytes % 4 != 0 || trie_bytes == 0 || trie_bytes > map.size() - 4) return false;
  const std::string_view strings = map.substr(4 + trie_bytes);
  if (strings.empty() || strings.back() != '\0') return false;
  const size_t n = trie_bytes / 4;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char* u8 = b + 4 + 4 * i;
    const uint32_t u = u8[0] | (u8[1] << 8) | (u8[2] << 16) | (static_cast<uint32_t>(u8[3]) << 24);
    if ((u >> 31) != 0) {
      if ((u & 0x7fffffffu) >= strings.size()) return false;
      continue;
    }
    const uint64_t offset = static_cast<uint64_t>(u >> 10) << ((u & (1u << 9)) >> 6);
    if (((static_cast<uint64_t>(i) ^ offset) | 0xffu) >= n) return false;
  }
  return true;
}

// The model's normalizer (field 3) and denormalizer (field 5) maps (field 2 of each) are safe
// for the library to run; false also when the wire format is broken.
bool NormalizersAreSafe(std::string_view model) {
  bool safe = true;
  const bool wire = ForEachBytesField(model, [&](uint64_t field, std::string_view spec) {
    if (field != 3 && field != 5) return;
    const bool spec_wire = ForEachBytesField(spec, [&](uint64_t f, std::string_view map) {
      if (f == 2 && !CharsMapIsSafe(map)) safe = false;
    });
    if (!spec_wire) safe = false;
  });
  return wire && safe;
}

// Every piece (ModelProto field 1, its field 1) is non-empty and holds no NUL byte: the library
// builds its trie of pieces with Darts-clone, which throws on such keys from code that lets no
// exception out (the process ends).
bool PiecesAreSafe(std::string_view model) {
  bool safe = true;
  const bool wire = ForEachBytesField(model, [&](uint64_t field, std::string_view entry) {
    if (field != 1) return;
    bool has_piece = false;
    const bool entry_wire = ForEachBytesField(entry, [&](uint64_t f, std::string_view piece) {
      if (f != 1) return;
      has_piece = true;
      if (piece.empty() || piece.find('\0') != std::string_view::npos) safe = false;
    });
    if (!entry_wire || !has_piece) safe = false;
  });
  return wire && safe;
}

}  // namespace

Result<SubwordTokenizer> SubwordTokenizer::FromSentencePiece(std::string_view bytes,
                                                             const std::string& name) {
  if (!PiecesAreSafe(bytes)) {
    return InvalidArgument(name +
                           ": not a SentencePiece model, or one of its pieces is empty or holds a "
                           "NUL byte");
  }
  if (!NormalizersAreSafe(bytes)) {
    return InvalidArgument(name +
                           ": not a SentencePiece model, or its normalizer's character map is "
                           "damaged (an offset points outside the map)");
  }
  auto sp = std::make_shared<sentencepiece::SentencePieceProcessor>();
  const auto status = sp->LoadFromSerializedProto(absl::string_view(bytes.data(), bytes.size()));
  if (!status.ok()) {
    return InvalidArgument(name + ": not a SentencePiece model (the SentencePiece library says: " +
                           std::string(status.message()) + ")");
  }
  const int n = sp->GetPieceSize();
  if (n <= 0) return InvalidArgument(name + ": the SentencePiece model holds no pieces");
  SubwordTokenizer t;
  t.model_ = Model::kSentencePiece;
  t.tokens_.resize(static_cast<size_t>(n));
  t.scores_.resize(static_cast<size_t>(n));
  t.special_.assign(static_cast<size_t>(n), false);
  std::fill(std::begin(t.byte_fallback_ids_), std::end(t.byte_fallback_ids_), -1);
  for (int id = 0; id < n; ++id) {
    std::string piece = sp->IdToPiece(id);
    if (FindInvalidUtf8(piece) != std::string::npos) {
      return InvalidArgument(name + ": piece " + std::to_string(id) + " is not valid UTF-8");
    }
    t.scores_[static_cast<size_t>(id)] = sp->GetScore(id);
    if (sp->IsControl(id) || sp->IsUnknown(id)) t.special_[static_cast<size_t>(id)] = true;
    unsigned byte = 0;
    if (sp->IsByte(id) && std::sscanf(piece.c_str(), "<0x%02X>", &byte) == 1 && byte < 256) {
      t.byte_fallback_ids_[byte] = id;
      t.byte_fallback_ = true;
    }
    t.ids_.Insert(piece, id);
    t.tokens_[static_cast<size_t>(id)] = std::move(piece);
  }
  t.unk_id_ = sp->unk_id();
  // What Python's tokenizer(text) adds: Llama's <s> before (bos_id set), T5's </s> after (no
  // bos_id, eos_id set), as the transformers tokenizers for SentencePiece models do by default.
  if (sp->bos_id() >= 0 && sp->bos_id() < n) {
    t.post_prefix_.push_back(sp->bos_id());
  } else if (sp->eos_id() >= 0 && sp->eos_id() < n) {
    t.post_suffix_.push_back(sp->eos_id());
  }
  for (int32_t id : t.post_prefix_) t.special_[static_cast<size_t>(id)] = true;
  for (int32_t id : t.post_suffix_) t.special_[static_cast<size_t>(id)] = true;
  t.sentencepiece_ = std::move(sp);
  return t;
}

// The library's pieces of one segment, each with the bytes of the segment it covers (its
// begin and end); a piece the normalizer made from nothing covers no bytes.
void SubwordTokenizer::Encoder::SentencePieceSegment(std::string_view text, int64_t base,
                                                     std::vector<SubwordPiece>& out) {
  const sentencepiece::ImmutableSentencePieceText spt =
      t_.sentencepiece_->EncodeAsImmutableProto(absl::string_view(text.data(), text.size()));
  for (const auto& p : spt.pieces()) {
    out.push_back({static_cast<int32_t>(p.id()), base + static_cast<int64_t>(p.begin()),
                   base + static_cast<int64_t>(p.end())});
  }
}

}  // namespace pe
