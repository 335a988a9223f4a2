// SentencePiece .model files (tokenizer.model of Llama 2, Mistral, T5, Gemma), run by the
// packaged SentencePiece library itself (libsentencepiece): its encoder gives the ids and, for
// each piece, the bytes of the text it covers, so a piece is hovered and grouped as any other
// tokenizer's. The library is run rather than its model converted into the app's BPE and
// Unigram because the Debian package ships no header for the model's protobuf (the normalizer
// spec, the model type), and running it gives SentencePiece's exact behaviour (its
// normalization, whitespace handling, user-defined pieces).
#include <sentencepiece_processor.h>

#include <cstdio>

#include "text/subword_internal.h"
#include "text/subword_tokenizer.h"

namespace pe {

Result<SubwordTokenizer> SubwordTokenizer::FromSentencePiece(std::string_view bytes,
                                                             const std::string& name) {
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
    t.ids_.emplace(piece, id);
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
