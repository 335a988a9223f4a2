// The models besides byte-level BPE and WordPiece, and what tokenizer.json says around them:
// BPE over characters with byte fallback (SentencePiece-style: Llama 2, Mistral, Gemma), Unigram
// (T5, XLM-R, ALBERT), WordLevel, the post-processor's special tokens and the decoder's view.
// They follow Hugging Face tokenizers, read and written anew here: models/bpe/model.rs
// (merge_word: a symbol per character, continuing_subword_prefix and end_of_word_suffix, <0xNN>
// byte fallback, fused unknowns; the merge loop of word.rs is MergeSymbols in subword_bpe.cpp),
// models/unigram/model.rs (encode_optimized: the best-scoring path over a lattice of pieces, an
// unknown character scored min_score - 10; tokenize: byte fallback of unknown pieces),
// models/wordlevel/mod.rs, processors/template.rs, bert.rs, roberta.rs, sequence.rs.
#include "text/subword_models.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <nlohmann/json.hpp>

#include "text/subword_internal.h"

namespace pe {

using Json = nlohmann::json;

std::string_view SpecialTokensName(SpecialTokens s) {
  return s == SpecialTokens::kAdd ? "add" : "none";
}

std::optional<SpecialTokens> ParseSpecialTokens(std::string_view name) {
  if (name == "add") return SpecialTokens::kAdd;
  if (name == "none") return SpecialTokens::kNone;
  return std::nullopt;
}

// ---- encoding one pre-token

void SubwordTokenizer::Encoder::ModelWord(std::string_view word, int64_t begin,
                                          std::vector<SubwordPiece>& out) {
  if (word.empty()) return;
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
  result_.clear();
  switch (t_.model_) {
    case Model::kUnigram:
      UnigramWord(word);
      break;
    case Model::kWordLevel:
      WordLevelWord(word);
      break;
    default:
      CharBpeWord(word);
      break;
  }
  // A word whose every character was dropped (no unknown token) caches nothing: it is
  // recomputed, which is cheap and keeps count == 0 meaning an empty slot.
  if (cacheable && !result_.empty()) {
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
    slot->count = static_cast<uint32_t>(result_.size());
    pieces_.insert(pieces_.end(), result_.begin(), result_.end());
    ++cached_;
  }
  int64_t at = begin;
  const int64_t end = begin + static_cast<int64_t>(word.size());
  for (const auto& [id, len] : result_) {
    // A byte-fallback token of a continuing prefix's byte has no byte of its own: clamp.
    const int64_t b = std::min(at, end), e = std::min(at + len, end);
    out.push_back({id, b, e});
    at += len;
  }
}

// models/bpe/model.rs merge_word: one symbol per character (the continuing prefix before all
// but the first, the end-of-word suffix after the last); a character not in the vocabulary
// becomes its <0xNN> byte tokens when all exist (byte_fallback), else the unknown token, fused
// with an unknown just before it when fuse_unk. Then the merges, lowest rank first.
void SubwordTokenizer::Encoder::CharBpeWord(std::string_view word) {
  if (t_.ignore_merges_) {
    if (const int32_t id = t_.ids_.Find(word); id >= 0) {
      result_.emplace_back(id, static_cast<int32_t>(word.size()));
      return;
    }
  }
  id_.clear();
  len_.clear();
  int32_t unk_len = 0;  // a pending unknown's bytes; 0: none
  auto add = [&](int32_t id, int32_t len) {
    id_.push_back(id);
    len_.push_back(len);
  };
  std::string s;
  for (size_t i = 0; i < word.size();) {
    const auto n = static_cast<size_t>(Utf8At(word, i).length);
    const bool first = i == 0, last = i + n == word.size();
    s.clear();
    if (!first) s += t_.continuing_prefix_;
    s.append(word, i, n);
    if (last) s += t_.end_of_word_suffix_;
    i += n;
    if (const int32_t id = t_.ids_.Find(s); id >= 0) {
      if (unk_len > 0) add(t_.unk_id_, unk_len);
      unk_len = 0;
      add(id, static_cast<int32_t>(n));
      continue;
    }
    if (t_.byte_fallback_) {
      bool all = true;
      for (char c : s) all = all && t_.byte_fallback_ids_[static_cast<unsigned char>(c)] >= 0;
      if (all) {
        // As merge_word does: the bytes go in at once, ahead of a pending unknown.
        for (char c : s) add(t_.byte_fallback_ids_[static_cast<unsigned char>(c)], 1);
        continue;
      }
    }
    if (t_.unk_id_ < 0) continue;  // no unknown token: the character is dropped
    if (unk_len > 0 && !t_.fuse_unk_) add(t_.unk_id_, unk_len), unk_len = 0;
    unk_len += static_cast<int32_t>(n);
  }
  if (unk_len > 0) add(t_.unk_id_, unk_len);
  const size_t n = id_.size();
  if (n == 0) return;
  prev_.resize(n);
  next_.resize(n);
  for (size_t k = 0; k < n; ++k) {
    prev_[k] = static_cast<int32_t>(k) - 1;
    next_[k] = k + 1 < n ? static_cast<int32_t>(k + 1) : -1;
  }
  MergeSymbols(n);
  for (int32_t k = 0; k >= 0; k = next_[static_cast<size_t>(k)]) {
    result_.emplace_back(id_[static_cast<size_t>(k)], len_[static_cast<size_t>(k)]);
  }
}

// models/unigram/model.rs encode_optimized and tokenize.
void SubwordTokenizer::Encoder::UnigramWord(std::string_view word) {
  const size_t size = word.size();
  best_.assign(size + 1, Best{});
  const double unk_score = t_.min_score_ - 10.0;
  const auto& trie = t_.trie_;
  const auto& edges = t_.edges_;
  for (size_t start = 0; start < size;) {
    const double here = best_[start].score;
    const auto mblen = static_cast<size_t>(Utf8At(word, start).length);
    bool single = false;
    auto offer = [&](size_t end, int32_t id, double score) {
      Best& b = best_[end];
      const double candidate = here + score;
      if (b.from < 0 || candidate > b.score) {
        b.score = candidate;
        b.from = static_cast<int32_t>(start);
        b.id = id;
      }
    };
    uint32_t node = 0;
    for (size_t k = start; k < size; ++k) {
      const auto c = static_cast<unsigned char>(word[k]);
      const TrieNode& tn = trie[node];
      const auto* lo = edges.data() + tn.first;
      const auto* hi = lo + tn.n;
      const auto* e = std::lower_bound(
          lo, hi, c,
          [](const std::pair<unsigned char, uint32_t>& x, unsigned char v) { return x.first < v; });
      if (e == hi || e->first != c) break;
      node = e->second;
      const int32_t id = trie[node].id;
      if (id < 0) continue;
      offer(k + 1, id, t_.scores_[static_cast<size_t>(id)]);
      if (k + 1 - start == mblen) single = true;
    }
    if (!single) offer(start + mblen, t_.unk_id_, unk_score);
    start += mblen;
  }
  // Back from the end: the path's pieces, consecutive unknowns fused (fuse_unk is always on
  // for Unigram).
  struct Span {
    size_t begin, end;
    bool unk;
  };
  std::vector<Span> spans;
  for (size_t end = size; end > 0;) {
    const Best& b = best_[end];
    const auto from = static_cast<size_t>(b.from);
    const bool unk = b.id == t_.unk_id_;
    if (unk && !spans.empty() && spans.back().unk) {
      spans.back().begin = from;
    } else {
      spans.push_back({from, end, unk});
    }
    end = from;
  }
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
    const auto len = static_cast<int32_t>(it->end - it->begin);
    if (!it->unk) {
      result_.emplace_back(best_[it->end].id, len);
      continue;
    }
    const std::string piece(word.substr(it->begin, it->end - it->begin));
    if (const int32_t id = t_.ids_.Find(piece); id >= 0) {
      result_.emplace_back(id, len);
      continue;
    }
    bool all = t_.byte_fallback_;
    for (char c : piece) all = all && t_.byte_fallback_ids_[static_cast<unsigned char>(c)] >= 0;
    if (all) {
      for (char c : piece)
        result_.emplace_back(t_.byte_fallback_ids_[static_cast<unsigned char>(c)], 1);
    } else {
      result_.emplace_back(t_.unk_id_, len);
    }
  }
}

void SubwordTokenizer::Encoder::WordLevelWord(std::string_view word) {
  const int32_t id = t_.ids_.Find(word);
  result_.emplace_back(id >= 0 ? id : t_.unk_id_, static_cast<int32_t>(word.size()));
}

// ---- what the ids are

bool SubwordTokenizer::IsSpecial(int64_t id) const {
  return id >= 0 && static_cast<size_t>(id) < special_.size() && special_[static_cast<size_t>(id)];
}

int SubwordTokenizer::ByteFallbackByte(int64_t id) const {
  if (!byte_fallback_ || id < 0 || id >= size()) return -1;
  const std::string& s = tokens_[static_cast<size_t>(id)];
  if (s.size() != 6 || s.compare(0, 3, "<0x") != 0 || s[5] != '>') return -1;
  const int b = std::stoi(s.substr(3, 2), nullptr, 16);
  return byte_fallback_ids_[b] == id ? b : -1;
}

std::string SubwordTokenizer::Decode(const std::vector<int32_t>& ids) const {
  std::string out;
  bool first = true;
  for (int32_t id : ids) {
    if (id < 0 || id >= size() || IsSpecial(id)) continue;
    const std::string& raw = tokens_[static_cast<size_t>(id)];
    // A byte-level vocabulary's added tokens are written as text, not in the byte alphabet;
    // other models' added tokens decode as their tokens do (Gemma's "▁▁" is one).
    bool added = false;
    for (const AddedToken& a : added_)
      added = added || (a.id == id && model_ == Model::kByteLevelBpe);
    if (added) {
      out += raw;
    } else if (model_ == Model::kByteLevelBpe) {
      for (size_t i = 0; i < raw.size();) {
        const Utf8Char u = DecodeUtf8(raw, i);
        i += static_cast<size_t>(u.length);
        int byte = -1;
        for (int b = 0; b < 256 && byte < 0; ++b) {
          if (ByteToUnicode(static_cast<unsigned char>(b)) == u.cp) byte = b;
        }
        if (byte >= 0) {
          out += static_cast<char>(byte);
        } else {
          AppendUtf8(out, u.cp);
        }
      }
    } else if (model_ == Model::kWordPiece) {
      if (raw.compare(0, continuing_prefix_.size(), continuing_prefix_) == 0) {
        out.append(raw, continuing_prefix_.size());
      } else {
        if (!first) out += ' ';
        out += raw;
      }
    } else if (model_ == Model::kWordLevel) {
      if (!first) out += ' ';
      out += raw;
    } else if (const int b = ByteFallbackByte(id); b >= 0) {
      out += static_cast<char>(b);
    } else {
      // ▁ (U+2581) is a space.
      for (size_t i = 0; i < raw.size();) {
        if (raw.compare(i, 3, "\xe2\x96\x81") == 0) {
          out += ' ';
          i += 3;
        } else {
          out += raw[i++];
        }
      }
    }
    first = false;
  }
  size_t strip = 0;
  while (strip < static_cast<size_t>(decode_strip_) && strip < out.size() && out[strip] == ' ') {
    ++strip;
  }
  return strip == 0 ? out : out.substr(strip);
}

// ---- reading

namespace {

std::string Q(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  out.append(s);
  out += '"';
  return out;
}

const Json* Get(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

Result<bool> Flag(const Json& j, const char* key, bool fallback, const std::string& where) {
  const Json* v = Get(j, key);
  if (!v) return fallback;
  if (!v->is_boolean()) return InvalidArgument(where + "." + key + " is not true or false");
  return v->get<bool>();
}

}  // namespace

Status ModelReaders::ReadCharBpe(SubwordTokenizer& t, const Json& model, const std::string& where) {
  t.model_ = SubwordTokenizer::Model::kBpe;
  t.continuing_prefix_.clear();
  for (auto [key, dest] : {std::pair{"continuing_subword_prefix", &t.continuing_prefix_},
                           std::pair{"end_of_word_suffix", &t.end_of_word_suffix_}}) {
    if (const Json* v = Get(model, key)) {
      if (!v->is_string()) return InvalidArgument(where + "." + key + " is not a string");
      *dest = v->get<std::string>();
    }
  }
  for (auto [key, dest] :
       {std::pair{"byte_fallback", &t.byte_fallback_}, std::pair{"fuse_unk", &t.fuse_unk_},
        std::pair{"ignore_merges", &t.ignore_merges_}}) {
    Result<bool> f = Flag(model, key, false, where);
    if (!f.ok()) return f.error();
    *dest = f.value();
  }
  if (const Json* unk = Get(model, "unk_token")) {
    if (!unk->is_string()) return InvalidArgument(where + ".unk_token is not a string");
    const int64_t id = t.Id(unk->get<std::string>());
    if (id < 0) {
      return InvalidArgument(where + ".unk_token " + Q(unk->get<std::string>()) +
                             " is not in the vocabulary");
    }
    t.unk_id_ = static_cast<int32_t>(id);
  }
  return {};
}

Status ModelReaders::CheckDropout(const Json& model, const std::string& where) {
  const Json* d = Get(model, "dropout");
  if (!d) return {};
  if (!d->is_number()) return InvalidArgument(where + ".dropout is not a number");
  const double p = d->get<double>();
  if (p == 0) return {};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", p);
  return InvalidArgument(where + ".dropout is " + buf +
                         ": BPE dropout skips merges at random, so the ids would change from one "
                         "run to the next; only null or 0 is supported");
}

Status ModelReaders::ReadUnigram(SubwordTokenizer& t, const Json& model, const std::string& where,
                                 const std::vector<std::pair<std::string, double>>* pieces) {
  t.model_ = SubwordTokenizer::Model::kUnigram;
  std::vector<std::pair<std::string, double>> from_document;
  if (!pieces) {
    const Json* vocab = Get(model, "vocab");
    if (!vocab || !vocab->is_array()) {
      return InvalidArgument(where + ".vocab is not a non-empty list of [piece, score]");
    }
    from_document.reserve(vocab->size());
    for (size_t k = 0; k < vocab->size(); ++k) {
      const Json& e = (*vocab)[k];
      if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number()) {
        return InvalidArgument(where + ".vocab[" + std::to_string(k) + "] is not [piece, score]");
      }
      from_document.emplace_back(e[0].get<std::string>(), e[1].get<double>());
    }
    pieces = &from_document;
  }
  if (pieces->empty()) {
    return InvalidArgument(where + ".vocab is not a non-empty list of [piece, score]");
  }
  std::vector<std::pair<std::string, int64_t>> entries;
  entries.reserve(pieces->size());
  t.scores_.reserve(pieces->size());
  t.min_score_ = INFINITY;
  for (size_t k = 0; k < pieces->size(); ++k) {
    const double score = (*pieces)[k].second;
    if (!std::isfinite(score)) {
      return InvalidArgument(where + ".vocab[" + std::to_string(k) + "]: the score is not finite");
    }
    entries.emplace_back((*pieces)[k].first, static_cast<int64_t>(k));
    t.scores_.push_back(score);
    t.min_score_ = std::min(t.min_score_, score);
  }
  if (Status s = t.SetTokenIds(entries, where + ".vocab"); !s.ok()) return s;
  Result<bool> fallback = Flag(model, "byte_fallback", false, where);
  if (!fallback.ok()) return fallback.error();
  t.byte_fallback_ = fallback.value();
  const Json* unk = Get(model, "unk_id");
  if (!unk) {
    return InvalidArgument(where + ".unk_id is null: a Unigram model needs an unknown piece");
  }
  if (!unk->is_number_integer() || unk->get<int64_t>() < 0 ||
      unk->get<int64_t>() >= static_cast<int64_t>(pieces->size())) {
    return InvalidArgument(where + ".unk_id is not an index into model.vocab");
  }
  t.unk_id_ = static_cast<int32_t>(unk->get<int64_t>());
  // The trie of the pieces: built breadth first over the sorted pieces, so each node's
  // children are contiguous and sorted by byte.
  std::vector<std::pair<std::string_view, int32_t>> keys;
  keys.reserve(entries.size());
  for (size_t k = 0; k < t.tokens_.size(); ++k) {
    keys.emplace_back(t.tokens_[k], static_cast<int32_t>(k));
  }
  std::sort(keys.begin(), keys.end());
  struct Range {
    size_t lo, hi, depth;
    uint32_t node;
  };
  t.trie_.assign(1, SubwordTokenizer::TrieNode{});
  t.edges_.clear();
  std::deque<Range> todo{{0, keys.size(), 0, 0}};
  while (!todo.empty()) {
    const Range r = todo.front();
    todo.pop_front();
    size_t lo = r.lo;
    if (lo < r.hi && keys[lo].first.size() == r.depth) t.trie_[r.node].id = keys[lo++].second;
    t.trie_[r.node].first = static_cast<uint32_t>(t.edges_.size());
    while (lo < r.hi) {
      const auto c = static_cast<unsigned char>(keys[lo].first[r.depth]);
      size_t hi = lo;
      while (hi < r.hi && static_cast<unsigned char>(keys[hi].first[r.depth]) == c) ++hi;
      const auto child = static_cast<uint32_t>(t.trie_.size());
      t.trie_.emplace_back();
      t.edges_.emplace_back(c, child);
      ++t.trie_[r.node].n;
      todo.push_back({lo, hi, r.depth + 1, child});
      lo = hi;
    }
  }
  return {};
}

Status ModelReaders::ReadWordLevel(SubwordTokenizer& t, const Json& model,
                                   const std::string& where) {
  t.model_ = SubwordTokenizer::Model::kWordLevel;
  const Json* unk = Get(model, "unk_token");
  const std::string name = unk && unk->is_string() ? unk->get<std::string>() : "<unk>";
  const int64_t id = t.Id(name);
  if (id < 0) {
    return InvalidArgument(where + ".unk_token " + Q(name) + " is not in the vocabulary");
  }
  t.unk_id_ = static_cast<int32_t>(id);
  return {};
}

void ModelReaders::FindByteFallbackTokens(SubwordTokenizer& t) {
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "<0x%02X>", b);
    t.byte_fallback_ids_[b] = static_cast<int32_t>(t.Id(buf));
  }
}

namespace {

// The ids of a post-processor's token: [name, id] (BERT's, RoBERTa's).
Result<int32_t> PairToken(const SubwordTokenizer& t, const Json& post, const char* key,
                          const std::string& where) {
  const Json* v = Get(post, key);
  if (!v || !v->is_array() || v->size() != 2 || !(*v)[0].is_string() ||
      !(*v)[1].is_number_integer()) {
    return InvalidArgument(where + "." + key + " is not [token, id]");
  }
  const int64_t id = (*v)[1].get<int64_t>();
  if (id < 0 || id >= t.size()) {
    return InvalidArgument(where + "." + key + ": id " + std::to_string(id) +
                           " is outside the vocabulary (" + std::to_string(t.size()) + " tokens)");
  }
  return static_cast<int32_t>(id);
}

}  // namespace

Status ModelReaders::ReadPostProcessor(SubwordTokenizer& t, const Json& post,
                                       const std::string& where, int depth) {
  const Json* type = Get(post, "type");
  const std::string kind = type && type->is_string() ? type->get<std::string>() : "(no type)";
  if (t.post_name_.empty()) t.post_name_ = kind;
  if (kind == "ByteLevel") return {};  // it trims offsets only
  if (kind == "BertProcessing" || kind == "RobertaProcessing") {
    Result<int32_t> cls = PairToken(t, post, "cls", where);
    if (!cls.ok()) return cls.error();
    Result<int32_t> sep = PairToken(t, post, "sep", where);
    if (!sep.ok()) return sep.error();
    t.post_prefix_.insert(t.post_prefix_.begin(), cls.value());
    t.post_suffix_.push_back(sep.value());
    return {};
  }
  if (kind == "Sequence") {
    const Json* list = Get(post, "processors");
    if (!list || !list->is_array()) return InvalidArgument(where + ".processors is not a list");
    if (depth > 8) return InvalidArgument(where + ": Sequences nested more than 8 deep");
    for (size_t k = 0; k < list->size(); ++k) {
      if (Status s = ReadPostProcessor(t, (*list)[k],
                                       where + ".processors[" + std::to_string(k) + "]", depth + 1);
          !s.ok()) {
        return s;
      }
    }
    return {};
  }
  if (kind != "TemplateProcessing") {
    return InvalidArgument(where + ": post-processor " + Q(kind) +
                           " is not supported (TemplateProcessing, BertProcessing, "
                           "RobertaProcessing, ByteLevel and Sequence are)");
  }
  const Json* single = Get(post, "single");
  const Json* specials = Get(post, "special_tokens");
  if (!single || !single->is_array()) return InvalidArgument(where + ".single is not a list");
  std::vector<int32_t> before, after;
  int sequences = 0;
  for (size_t k = 0; k < single->size(); ++k) {
    const std::string at = where + ".single[" + std::to_string(k) + "]";
    const Json& item = (*single)[k];
    if (Get(item, "Sequence")) {
      ++sequences;
      continue;
    }
    const Json* sp = Get(item, "SpecialToken");
    const Json* name = sp ? Get(*sp, "id") : nullptr;
    if (!name || !name->is_string()) {
      return InvalidArgument(at + " is neither {\"Sequence\": ...} nor {\"SpecialToken\": ...}");
    }
    const Json* entry = specials ? Get(*specials, name->get<std::string>().c_str()) : nullptr;
    const Json* ids = entry ? Get(*entry, "ids") : nullptr;
    if (!ids || !ids->is_array()) {
      return InvalidArgument(at + ": the special token " + Q(name->get<std::string>()) +
                             " has no ids in " + where + ".special_tokens");
    }
    for (const Json& id : *ids) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= t.size()) {
        return InvalidArgument(where + ".special_tokens[" + Q(name->get<std::string>()) +
                               "].ids holds an id outside the vocabulary (" +
                               std::to_string(t.size()) + " tokens)");
      }
      (sequences == 0 ? before : after).push_back(static_cast<int32_t>(id.get<int64_t>()));
    }
  }
  if (sequences != 1) {
    return InvalidArgument(where + ".single holds " + std::to_string(sequences) +
                           " sequences; one ($A) is expected");
  }
  t.post_prefix_.insert(t.post_prefix_.begin(), before.begin(), before.end());
  t.post_suffix_.insert(t.post_suffix_.end(), after.begin(), after.end());
  return {};
}

void ModelReaders::ReadDecoder(SubwordTokenizer& t, const Json& decoder) {
  const Json* type = Get(decoder, "type");
  const std::string kind = type && type->is_string() ? type->get<std::string>() : "";
  if (kind == "Sequence") {
    if (const Json* list = Get(decoder, "decoders"); list && list->is_array()) {
      for (const Json& d : *list) {
        if (Get(d, "type") && Get(d, "type")->is_string() &&
            Get(d, "type")->get<std::string>() != "Sequence") {
          ReadDecoder(t, d);
        }
      }
    }
  } else if (kind == "Strip") {
    const Json* start = Get(decoder, "start");
    const Json* content = Get(decoder, "content");
    if (start && start->is_number_integer() && content && content->is_string() &&
        content->get<std::string>() == " ") {
      t.decode_strip_ = static_cast<int>(std::clamp<int64_t>(start->get<int64_t>(), 0, 8));
    }
  } else if (kind == "Metaspace") {
    const Json* scheme = Get(decoder, "prepend_scheme");
    const bool never = scheme && scheme->is_string() && scheme->get<std::string>() == "never";
    const Json* add = Get(decoder, "add_prefix_space");
    if (!never && !(add && add->is_boolean() && !add->get<bool>())) t.decode_strip_ = 1;
  }
}

void ModelReaders::MarkSpecial(SubwordTokenizer& t) {
  t.special_.assign(t.tokens_.size(), false);
  for (const SubwordTokenizer::AddedToken& a : t.added_) {
    if (a.special) t.special_[static_cast<size_t>(a.id)] = true;
  }
  for (int32_t id : t.post_prefix_) t.special_[static_cast<size_t>(id)] = true;
  for (int32_t id : t.post_suffix_) t.special_[static_cast<size_t>(id)] = true;
}

}  // namespace pe
