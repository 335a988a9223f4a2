// WordPiece: BertNormalizer and BertPreTokenizer (normalizers/bert.rs, pre_tokenizers/bert.rs in
// Hugging Face tokenizers: cleaning, CJK padding, accent stripping, lowercasing, split on
// whitespace and punctuation), then greedy longest-match-first with the "##" prefix
// (models/wordpiece/mod.rs).
#include "text/subword_internal.h"

namespace pe {

namespace {

// Replaces each code point of valid UTF-8 `piece` with what `append(out, cp)` writes for it.
void MapCodePoints(std::string& piece, void (*append)(std::string&, char32_t)) {
  std::string s;
  for (size_t k = 0; k < piece.size();) {
    const Utf8Char v = DecodeUtf8(piece, k);
    append(s, v.cp);
    k += static_cast<size_t>(v.length);
  }
  piece = std::move(s);
}

}  // namespace

// BertNormalizer (as configured) and BertPreTokenizer, then greedy longest-match-first per
// word. `offsets` maps each byte of the normalized text to the source byte it came from.
void SubwordTokenizer::Encoder::WordPieceSegment(std::string_view text, int64_t base,
                                                 std::vector<SubwordPiece>& out) {
  std::string norm;
  std::vector<int64_t> from;  // (norm.size() + 1) source offsets
  std::string piece;
  for (size_t i = 0; i < text.size();) {
    const Utf8Char u = Utf8At(text, i);
    const auto src = static_cast<int64_t>(i);
    i += static_cast<size_t>(u.length);
    piece.clear();
    if (t_.clean_text_ && (u.cp == 0 || u.cp == 0xFFFD || IsBertControl(u.cp))) continue;
    if (t_.clean_text_ && IsBertWhitespace(u.cp)) {
      piece.push_back(' ');
    } else if (t_.handle_chinese_chars_ && IsCjk(u.cp)) {
      piece.push_back(' ');
      AppendUtf8(piece, u.cp);
      piece += ' ';
    } else {
      AppendUtf8(piece, u.cp);
    }
    if (t_.strip_accents_) MapCodePoints(piece, AppendStripAccents);
    if (t_.lowercase_) MapCodePoints(piece, AppendLowercase);
    norm += piece;
    from.insert(from.end(), piece.size(), src);
  }
  from.push_back(static_cast<int64_t>(text.size()));
  // Whitespace separates words; each punctuation character is a word of its own.
  for (size_t i = 0; i < norm.size();) {
    const Utf8Char u = Utf8At(norm, i);
    if (IsBertWhitespace(u.cp) || IsWhiteSpace(u.cp)) {
      i += static_cast<size_t>(u.length);
      continue;
    }
    size_t e = i + static_cast<size_t>(u.length);
    if (!IsPunctuation(u.cp)) {
      while (e < norm.size()) {
        const Utf8Char v = Utf8At(norm, e);
        if (IsBertWhitespace(v.cp) || IsWhiteSpace(v.cp) || IsPunctuation(v.cp)) break;
        e += static_cast<size_t>(v.length);
      }
    }
    WordPieceWord(std::string_view(norm).substr(i, e - i), i, from, base, out);
    i = e;
  }
}

void SubwordTokenizer::Encoder::WordPieceWord(std::string_view word, size_t at,
                                              const std::vector<int64_t>& from, int64_t base,
                                              std::vector<SubwordPiece>& out) {
  auto source = [&](size_t k) { return base + from[at + k]; };
  int64_t chars = 0;
  for (size_t k = 0; k < word.size(); k += static_cast<size_t>(Utf8At(word, k).length)) ++chars;
  const size_t first = out.size();
  bool bad = chars > t_.max_input_chars_per_word_;
  std::string candidate;
  for (size_t start = 0; !bad && start < word.size();) {
    // Ends at code point boundaries, longest first.
    std::vector<size_t> ends;
    for (size_t k = start; k < word.size();) {
      k += static_cast<size_t>(Utf8At(word, k).length);
      ends.push_back(k);
    }
    int64_t found = -1;
    size_t found_end = 0;
    for (auto e = ends.rbegin(); e != ends.rend(); ++e) {
      candidate.clear();
      if (start > 0) candidate = t_.continuing_prefix_;
      candidate.append(word.substr(start, *e - start));
      if (const int32_t id = t_.ids_.Find(candidate); id >= 0) {
        found = id;
        found_end = *e;
        break;
      }
    }
    if (found < 0) {
      bad = true;
      break;
    }
    out.push_back({static_cast<int32_t>(found), source(start), source(found_end)});
    start = found_end;
  }
  if (bad) {
    out.resize(first);
    out.push_back({t_.unk_id_, source(0), source(word.size())});
  }
}

}  // namespace pe
