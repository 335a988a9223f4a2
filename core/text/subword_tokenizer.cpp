// Byte-level BPE and WordPiece. The algorithms follow their reference implementations, read and
// written anew here: openai/gpt-2 src/encoder.py (bytes_to_unicode, the split pattern, the
// lowest-rank-first merge loop); Hugging Face tokenizers: pre_tokenizers/byte_level.rs,
// models/bpe/word.rs (merges driven by a priority queue of pair ranks, one per word),
// models/wordpiece/mod.rs (greedy longest-match-first with the "##" prefix), normalizers/bert.rs
// and pre_tokenizers/bert.rs (BERT's cleaning, CJK padding, accent stripping, lowercasing and
// split on whitespace and punctuation).
#include "text/subword_tokenizer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <queue>
#include <unordered_set>

#include "io/read_support.h"
#include "text/unicode_props.h"

namespace pe {

using Json = nlohmann::json;

namespace {

constexpr std::string_view kGpt2Regex =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// The code point at `at` of valid UTF-8.
inline Utf8Char At(std::string_view t, size_t at) {
  const auto c = static_cast<unsigned char>(t[at]);
  if (c < 0x80) return {c, 1, true};
  return DecodeUtf8(t, at);
}

bool IsOther(char32_t cp) {
  return !IsWhiteSpace(cp) && !IsLetter(cp) && !IsNumber(cp);
}

// Length of a contraction 's 't 're 've 'm 'll 'd at `i` (text[i] == '\''), or 0.
size_t Contraction(std::string_view t, size_t i, bool any_case) {
  auto ch = [&](size_t k) -> char {
    if (k >= t.size()) return 0;
    char c = t[k];
    if (any_case && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return c;
  };
  const char a = ch(i + 1), b = ch(i + 2);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if ((a == 'r' || a == 'v') && b == 'e') return 3;
  if (a == 'l' && b == 'l') return 3;
  return 0;
}

// End of the run of code points from `i` that satisfy `pred`.
template <typename Pred>
size_t RunEnd(std::string_view t, size_t i, Pred pred) {
  while (i < t.size()) {
    const Utf8Char u = At(t, i);
    if (!pred(u.cp)) break;
    i += static_cast<size_t>(u.length);
  }
  return i;
}

// The whitespace run [i, j): the regex alternatives \s+(?!\S) | \s+. The first backs off one
// code point when a non-space follows, unless that leaves nothing, where \s+ takes the run.
size_t WhitespaceRunMatch(std::string_view t, size_t i, size_t j) {
  if (j == t.size()) return j;
  size_t last = i;  // start of the run's last code point
  for (size_t k = i; k < j; k += static_cast<size_t>(At(t, k).length)) last = k;
  return last > i ? last : j;
}

size_t NextGpt2(std::string_view t, size_t i) {
  const Utf8Char u = At(t, i);
  const size_t n1 = i + static_cast<size_t>(u.length);
  if (u.cp == '\'') {
    if (size_t c = Contraction(t, i, false)) return i + c;
  }
  // " ?" before \p{L}+, \p{N}+ or [^\s\p{L}\p{N}]+: the class of the code point after it.
  size_t s = i;
  Utf8Char v = u;
  if (u.cp == ' ' && n1 < t.size()) {
    const Utf8Char w = At(t, n1);
    if (!IsWhiteSpace(w.cp)) {
      s = n1;
      v = w;
    }
  }
  if (IsLetter(v.cp)) return RunEnd(t, s, IsLetter);
  if (IsNumber(v.cp)) return RunEnd(t, s, IsNumber);
  if (!IsWhiteSpace(v.cp)) return RunEnd(t, s, IsOther);
  return WhitespaceRunMatch(t, i, RunEnd(t, i, IsWhiteSpace));
}

size_t NextLlama3(std::string_view t, size_t i) {
  const Utf8Char u = At(t, i);
  const size_t n1 = i + static_cast<size_t>(u.length);
  if (u.cp == '\'') {
    if (size_t c = Contraction(t, i, true)) return i + c;
  }
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (IsLetter(u.cp)) return RunEnd(t, i, IsLetter);
  if (u.cp != '\r' && u.cp != '\n' && !IsNumber(u.cp) && n1 < t.size() && IsLetter(At(t, n1).cp)) {
    return RunEnd(t, n1, IsLetter);
  }
  // \p{N}{1,3}
  if (IsNumber(u.cp)) {
    size_t e = i;
    for (int k = 0; k < 3 && e < t.size() && IsNumber(At(t, e).cp); ++k) {
      e += static_cast<size_t>(At(t, e).length);
    }
    return e;
  }
  //  ?[^\s\p{L}\p{N}]+[\r\n]*
  size_t s = i;
  if (u.cp == ' ' && n1 < t.size() && IsOther(At(t, n1).cp)) s = n1;
  if (IsOther(At(t, s).cp)) {
    size_t e = RunEnd(t, s, IsOther);
    while (e < t.size() && (t[e] == '\r' || t[e] == '\n')) ++e;
    return e;
  }
  // \s*[\r\n]+ : up to the run's last line break.
  const size_t j = RunEnd(t, i, IsWhiteSpace);
  size_t last_break = std::string_view::npos;
  for (size_t k = i; k < j; k += static_cast<size_t>(At(t, k).length)) {
    if (t[k] == '\r' || t[k] == '\n') last_break = k;
  }
  if (last_break != std::string_view::npos) return last_break + 1;
  return WhitespaceRunMatch(t, i, j);
}

std::string Quote(std::string_view s) {
  std::string q = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", u);
      q += buf;
    } else {
      q += c;
    }
  }
  q += '"';
  return q;
}

}  // namespace

std::string_view SplitPatternName(SplitPattern p) {
  return p == SplitPattern::kGpt2 ? "GPT-2" : "Llama 3";
}

std::string_view SplitPatternRegex(SplitPattern p) {
  return p == SplitPattern::kGpt2 ? kGpt2Regex : kLlama3Regex;
}

std::vector<std::pair<size_t, size_t>> SplitPreTokens(std::string_view text, SplitPattern p) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < text.size();) {
    const size_t e = p == SplitPattern::kGpt2 ? NextGpt2(text, i) : NextLlama3(text, i);
    out.emplace_back(i, e);
    i = e;
  }
  return out;
}

char32_t ByteToUnicode(unsigned char b) {
  // Printable: '!'..'~', U+00A1..U+00AC, U+00AE..U+00FF keep their code; the rest get
  // U+0100 + (their rank among the non-printable bytes).
  auto printable = [](unsigned c) {
    return (c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF);
  };
  if (printable(b)) return b;
  char32_t n = 0;
  for (unsigned c = 0; c < b; ++c) n += printable(c) ? 0 : 1;
  return 0x100 + n;
}

// ---- loading

int64_t SubwordTokenizer::Id(std::string_view token) const {
  auto it = ids_.find(std::string(token));
  return it == ids_.end() ? -1 : it->second;
}

Status SubwordTokenizer::SetTokenIds(const std::vector<std::pair<std::string, int64_t>>& entries,
                                     const std::string& where) {
  int64_t max_id = -1;
  for (const auto& [token, id] : entries) {
    if (id < 0 || id >= (int64_t{1} << 24)) {
      return InvalidArgument(where + ": token " + Quote(token) + " has id " + std::to_string(id) +
                             ", outside [0, 16777216)");
    }
    max_id = std::max(max_id, id);
  }
  if (entries.empty()) return InvalidArgument(where + " holds no tokens");
  tokens_.assign(static_cast<size_t>(max_id + 1), std::string());
  std::vector<bool> taken(tokens_.size(), false);
  ids_.reserve(entries.size());
  for (const auto& [token, id] : entries) {
    if (token.empty())
      return InvalidArgument(where + ": an empty token (id " + std::to_string(id) + ")");
    if (taken[static_cast<size_t>(id)]) {
      return InvalidArgument(where + ": tokens " + Quote(tokens_[static_cast<size_t>(id)]) +
                             " and " + Quote(token) + " both have id " + std::to_string(id));
    }
    if (size_t bad = FindInvalidUtf8(token); bad != std::string::npos) {
      return InvalidArgument(where + ": token with id " + std::to_string(id) +
                             " is not valid UTF-8 at its byte " + std::to_string(bad));
    }
    taken[static_cast<size_t>(id)] = true;
    tokens_[static_cast<size_t>(id)] = token;
    if (!ids_.emplace(token, static_cast<int32_t>(id)).second) {
      return InvalidArgument(where + ": token " + Quote(token) + " appears twice");
    }
  }
  return {};
}

Status SubwordTokenizer::AddMerge(std::string_view a, std::string_view b,
                                  const std::string& where) {
  auto ia = ids_.find(std::string(a));
  auto ib = ids_.find(std::string(b));
  std::string joined(a);
  joined += b;
  auto ij = ids_.find(joined);
  for (auto [it, s] :
       {std::pair{ia, std::string(a)}, std::pair{ib, std::string(b)}, std::pair{ij, joined}}) {
    if (it == ids_.end()) {
      return InvalidArgument(where + ": the merge " + Quote(std::string(a) + " " + std::string(b)) +
                             " names " + Quote(s) + ", which is not in the vocabulary");
    }
  }
  const uint64_t key =
      (static_cast<uint64_t>(ia->second) << 32) | static_cast<uint32_t>(ib->second);
  // A pair listed twice keeps its first (lowest) rank, as HF tokenizers does.
  merges_.emplace(key, Merge{static_cast<int32_t>(merge_count_), ij->second});
  ++merge_count_;
  return {};
}

Status SubwordTokenizer::FinishByteLevel(const std::string& name) {
  for (int b = 0; b < 256; ++b) {
    std::string s;
    AppendUtf8(s, ByteToUnicode(static_cast<unsigned char>(b)));
    auto it = ids_.find(s);
    if (it == ids_.end()) {
      char buf[96];
      std::snprintf(buf, sizeof buf, ": the byte 0x%02X (token \"%s\") is not in the vocabulary", b,
                    s.c_str());
      return InvalidArgument(name + buf + "; a byte-level BPE vocabulary holds all 256 bytes");
    }
    byte_ids_[b] = it->second;
  }
  return {};
}

Status SubwordTokenizer::AddAddedToken(const std::string& content, int64_t id,
                                       const std::string& where) {
  if (content.empty()) return InvalidArgument(where + ": an empty added token");
  if (FindInvalidUtf8(content) != std::string::npos) {
    return InvalidArgument(where + ": the added token is not valid UTF-8");
  }
  if (id < 0 || id >= (int64_t{1} << 24)) {
    return InvalidArgument(where + ": id " + std::to_string(id) + " is outside [0, 16777216)");
  }
  auto it = ids_.find(content);
  if (it != ids_.end() && it->second != id) {
    return InvalidArgument(where + ": " + Quote(content) + " has id " + std::to_string(id) +
                           " but the vocabulary gives it id " + std::to_string(it->second));
  }
  if (it == ids_.end()) {
    if (static_cast<size_t>(id) >= tokens_.size()) tokens_.resize(static_cast<size_t>(id) + 1);
    if (!tokens_[static_cast<size_t>(id)].empty()) {
      return InvalidArgument(where + ": tokens " + Quote(tokens_[static_cast<size_t>(id)]) +
                             " and " + Quote(content) + " both have id " + std::to_string(id));
    }
    tokens_[static_cast<size_t>(id)] = content;
    ids_.emplace(content, static_cast<int32_t>(id));
  }
  for (const AddedToken& a : added_) {
    if (a.content == content) return {};
  }
  added_.push_back({content, static_cast<int32_t>(id)});
  std::stable_sort(added_.begin(), added_.end(), [](const AddedToken& x, const AddedToken& y) {
    return x.content.size() > y.content.size();
  });
  return {};
}

namespace {

// Parses JSON, refusing an object with a key twice (a vocabulary must not silently lose a
// token). Errors carry the JSON library's line and column.
Result<Json> ParseJson(std::string_view text, const std::string& name) {
  std::vector<std::unordered_set<std::string>> keys;
  std::string duplicate;
  auto callback = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == Json::parse_event_t::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == Json::parse_event_t::key && !keys.empty() && duplicate.empty()) {
      if (parsed.is_string() && !keys.back().insert(parsed.get<std::string>()).second) {
        duplicate = parsed.get<std::string>();
      }
    }
    return true;
  };
  Json j;
  try {
    j = Json::parse(text.begin(), text.end(), callback);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    if (size_t p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    return InvalidArgument(name + ": not valid JSON: " + what + " (byte " + std::to_string(e.byte) +
                           ")");
  } catch (const Json::exception& e) {
    return InvalidArgument(name + ": not valid JSON: " + e.what());
  }
  if (!duplicate.empty()) {
    return InvalidArgument(name + ": the key " + Quote(duplicate) +
                           " appears twice in one JSON object");
  }
  return j;
}

const Json* Member(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::string TypeOf(const Json* j) {
  if (!j) return "null";
  if (const Json* t = Member(*j, "type"); t && t->is_string()) return t->get<std::string>();
  return "(no type)";
}

// Token -> id pairs of a JSON object; `where` names it in errors.
Result<std::vector<std::pair<std::string, int64_t>>> VocabEntries(const Json& vocab,
                                                                  const std::string& where) {
  if (!vocab.is_object()) return InvalidArgument(where + " is not a JSON object of token -> id");
  std::vector<std::pair<std::string, int64_t>> entries;
  entries.reserve(vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it.value().is_number_integer()) {
      return InvalidArgument(where + ": the id of " + Quote(it.key()) + " is not an integer");
    }
    entries.emplace_back(it.key(), it.value().get<int64_t>());
  }
  return entries;
}

bool GetBool(const Json* j, const char* key, bool fallback) {
  const Json* v = j ? Member(*j, key) : nullptr;
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

}  // namespace

Result<SubwordTokenizer> SubwordTokenizer::FromTokenizerJson(std::string_view json,
                                                             const std::string& name) {
  if (size_t bad = FindInvalidUtf8(json); bad != std::string::npos) {
    return InvalidArgument(name + ": not valid UTF-8 at byte " + std::to_string(bad));
  }
  Result<Json> parsed = ParseJson(json, name);
  if (!parsed.ok()) return parsed.error();
  const Json& root = parsed.value();
  const Json* model = Member(root, "model");
  if (!model || !model->is_object()) {
    return InvalidArgument(name + ": no \"model\" object; expected a Hugging Face tokenizer.json");
  }
  SubwordTokenizer t;
  const std::string type = TypeOf(model);
  const Json* vocab = Member(*model, "vocab");
  if (!vocab) return InvalidArgument(name + ": model.vocab is missing");
  Result<std::vector<std::pair<std::string, int64_t>>> entries =
      VocabEntries(*vocab, name + ": model.vocab");
  if (!entries.ok()) return entries.error();
  if (Status s = t.SetTokenIds(entries.value(), name + ": model.vocab"); !s.ok()) return s;

  const Json* normalizer = Member(root, "normalizer");
  const Json* pre = Member(root, "pre_tokenizer");
  if (type == "BPE") {
    t.model_ = Model::kByteLevelBpe;
    if (normalizer) {
      return InvalidArgument(name + ": normalizer " + Quote(TypeOf(normalizer)) +
                             " is not supported with BPE (byte-level models have none)");
    }
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
      if (const Json* v = Member(*model, key);
          v && !(v->is_string() && v->get<std::string>().empty())) {
        return InvalidArgument(name + ": model." + key +
                               " is not supported (byte-level BPE has none)");
      }
    }
    if (GetBool(model, "byte_fallback", false)) {
      return InvalidArgument(name +
                             ": model.byte_fallback (a SentencePiece-style BPE) is not "
                             "supported; only byte-level BPE is");
    }
    t.ignore_merges_ = GetBool(model, "ignore_merges", false);
    // The pre-tokenizer: ByteLevel (with its own GPT-2 split), or a Sequence of a Split with a
    // known pattern and a ByteLevel without the split.
    std::vector<const Json*> steps;
    if (pre && TypeOf(pre) == "Sequence") {
      const Json* list = Member(*pre, "pretokenizers");
      if (!list || !list->is_array()) {
        return InvalidArgument(name + ": pre_tokenizer.pretokenizers is not a list");
      }
      for (const Json& s : *list) steps.push_back(&s);
    } else if (pre) {
      steps.push_back(pre);
    }
    bool byte_level = false, split = false;
    for (size_t k = 0; k < steps.size(); ++k) {
      const std::string st = TypeOf(steps[k]);
      const std::string where =
          name + ": pre_tokenizer step " + std::to_string(k) + " (" + st + ")";
      if (st == "ByteLevel") {
        byte_level = true;
        t.add_prefix_space_ = GetBool(steps[k], "add_prefix_space", false);
        if (GetBool(steps[k], "use_regex", true)) {
          if (split) return InvalidArgument(where + ": splits twice (a Split and use_regex)");
          split = true;
          t.pattern_ = SplitPattern::kGpt2;
        }
      } else if (st == "Split") {
        const Json* pattern = Member(*steps[k], "pattern");
        const Json* regex = pattern ? Member(*pattern, "Regex") : nullptr;
        if (!regex || !regex->is_string()) {
          return InvalidArgument(where + ": only a {\"Regex\": ...} pattern is supported");
        }
        const std::string r = regex->get<std::string>();
        if (r == kGpt2Regex) {
          t.pattern_ = SplitPattern::kGpt2;
        } else if (r == kLlama3Regex) {
          t.pattern_ = SplitPattern::kLlama3;
        } else {
          return InvalidArgument(where + ": the pattern " + Quote(r) +
                                 " is neither GPT-2's nor Llama 3's, the two supported");
        }
        if (split) return InvalidArgument(where + ": a second split");
        split = true;
      } else {
        return InvalidArgument(where + ": not supported with BPE (ByteLevel and Split are)");
      }
    }
    if (!byte_level) {
      return InvalidArgument(name +
                             ": BPE without a ByteLevel pre-tokenizer is not supported "
                             "(only byte-level BPE, as GPT-2 and Llama 3, is)");
    }
    if (!split) t.pattern_ = SplitPattern::kGpt2;  // never reached by real files; keep a split
    const Json* merges = Member(*model, "merges");
    if (!merges || !merges->is_array())
      return InvalidArgument(name + ": model.merges is not a list");
    t.merges_.reserve(merges->size());
    for (size_t k = 0; k < merges->size(); ++k) {
      const Json& m = (*merges)[k];
      const std::string where = name + ": model.merges[" + std::to_string(k) + "]";
      if (m.is_string()) {
        const std::string s = m.get<std::string>();
        const size_t sp = s.find(' ');
        if (sp == std::string::npos || sp == 0 || sp + 1 == s.size() ||
            s.find(' ', sp + 1) != std::string::npos) {
          return InvalidArgument(where + ": " + Quote(s) +
                                 " is not two tokens separated by one space");
        }
        if (Status st = t.AddMerge(std::string_view(s).substr(0, sp),
                                   std::string_view(s).substr(sp + 1), where);
            !st.ok()) {
          return st;
        }
      } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
        if (Status st = t.AddMerge(m[0].get<std::string>(), m[1].get<std::string>(), where);
            !st.ok()) {
          return st;
        }
      } else {
        return InvalidArgument(where + ": a merge is \"a b\" or [\"a\", \"b\"]");
      }
    }
    if (Status s = t.FinishByteLevel(name + ": model.vocab"); !s.ok()) return s;
  } else if (type == "WordPiece") {
    t.model_ = Model::kWordPiece;
    if (const Json* p = Member(*model, "continuing_subword_prefix")) {
      if (!p->is_string())
        return InvalidArgument(name + ": model.continuing_subword_prefix is not a string");
      t.continuing_prefix_ = p->get<std::string>();
    }
    if (const Json* m = Member(*model, "max_input_chars_per_word")) {
      if (!m->is_number_integer() || m->get<int64_t>() < 1) {
        return InvalidArgument(name + ": model.max_input_chars_per_word is not a positive integer");
      }
      t.max_input_chars_per_word_ = m->get<int64_t>();
    }
    const Json* unk = Member(*model, "unk_token");
    const std::string unk_token = unk && unk->is_string() ? unk->get<std::string>() : "[UNK]";
    const int64_t unk_id = t.Id(unk_token);
    if (unk_id < 0) {
      return InvalidArgument(name + ": the unknown token " + Quote(unk_token) +
                             " (model.unk_token) is not in the vocabulary");
    }
    t.unk_id_ = static_cast<int32_t>(unk_id);
    if (normalizer) {
      if (TypeOf(normalizer) != "BertNormalizer") {
        return InvalidArgument(name + ": normalizer " + Quote(TypeOf(normalizer)) +
                               " is not supported with WordPiece (BertNormalizer is)");
      }
      t.clean_text_ = GetBool(normalizer, "clean_text", true);
      t.handle_chinese_chars_ = GetBool(normalizer, "handle_chinese_chars", true);
      t.lowercase_ = GetBool(normalizer, "lowercase", true);
      // strip_accents: null follows lowercase (BERT's uncased models strip, cased ones do not).
      t.strip_accents_ = GetBool(normalizer, "strip_accents", t.lowercase_);
    }
    if (pre && TypeOf(pre) != "BertPreTokenizer") {
      return InvalidArgument(name + ": pre_tokenizer " + Quote(TypeOf(pre)) +
                             " is not supported with WordPiece (BertPreTokenizer is)");
    }
  } else {
    return InvalidArgument(name + ": model type " + Quote(type) +
                           " is not supported; BPE (byte-level) and WordPiece are");
  }
  if (const Json* added = Member(root, "added_tokens")) {
    if (!added->is_array()) return InvalidArgument(name + ": added_tokens is not a list");
    for (size_t k = 0; k < added->size(); ++k) {
      const Json& a = (*added)[k];
      const std::string where = name + ": added_tokens[" + std::to_string(k) + "]";
      const Json* content = Member(a, "content");
      const Json* id = Member(a, "id");
      if (!content || !content->is_string() || !id || !id->is_number_integer()) {
        return InvalidArgument(where + ": needs a string \"content\" and an integer \"id\"");
      }
      if (Status s = t.AddAddedToken(content->get<std::string>(), id->get<int64_t>(), where);
          !s.ok()) {
        return s;
      }
    }
  }
  return t;
}

Result<SubwordTokenizer> SubwordTokenizer::FromGpt2Files(std::string_view vocab_json,
                                                         const std::string& vocab_name,
                                                         std::string_view merges,
                                                         const std::string& merges_name) {
  if (size_t bad = FindInvalidUtf8(vocab_json); bad != std::string::npos) {
    return InvalidArgument(vocab_name + ": not valid UTF-8 at byte " + std::to_string(bad));
  }
  if (size_t bad = FindInvalidUtf8(merges); bad != std::string::npos) {
    return InvalidArgument(merges_name + ": not valid UTF-8 at byte " + std::to_string(bad));
  }
  Result<Json> parsed = ParseJson(vocab_json, vocab_name);
  if (!parsed.ok()) return parsed.error();
  Result<std::vector<std::pair<std::string, int64_t>>> entries =
      VocabEntries(parsed.value(), vocab_name);
  if (!entries.ok()) return entries.error();
  SubwordTokenizer t;
  if (Status s = t.SetTokenIds(entries.value(), vocab_name); !s.ok()) return s;
  size_t line_no = 0;
  for (size_t at = 0; at < merges.size();) {
    size_t end = merges.find('\n', at);
    if (end == std::string_view::npos) end = merges.size();
    std::string_view line = merges.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
    const std::string where = merges_name + ": line " + std::to_string(line_no);
    const size_t sp = line.find(' ');
    if (sp == std::string_view::npos || sp == 0 || sp + 1 == line.size() ||
        line.find(' ', sp + 1) != std::string_view::npos) {
      return InvalidArgument(where + ": " + Quote(line) +
                             " is not two tokens separated by one space");
    }
    if (Status s = t.AddMerge(line.substr(0, sp), line.substr(sp + 1), where); !s.ok()) return s;
  }
  if (Status s = t.FinishByteLevel(vocab_name); !s.ok()) return s;
  // GPT-2's one special token, when the vocabulary has it.
  if (int64_t eot = t.Id("<|endoftext|>"); eot >= 0) {
    t.added_.push_back({"<|endoftext|>", static_cast<int32_t>(eot)});
  }
  return t;
}

// ---- display

std::string SubwordTokenizer::DisplayToken(int64_t id) const {
  if (id < 0 || id >= size()) return "<id " + std::to_string(id) + ">";
  const std::string& raw = tokens_[static_cast<size_t>(id)];
  std::string bytes;
  bool byte_level = model_ == Model::kByteLevelBpe;
  if (byte_level) {
    for (const AddedToken& a : added_) {
      if (a.id == id) byte_level = false;  // special tokens are shown as written
    }
  }
  if (byte_level) {
    for (size_t i = 0; i < raw.size();) {
      const Utf8Char u = DecodeUtf8(raw, i);
      i += static_cast<size_t>(u.length);
      bool found = false;
      // The inverse of ByteToUnicode: Latin-1 printable bytes are themselves, U+0100.. the rest.
      if (u.cp < 0x100 && ByteToUnicode(static_cast<unsigned char>(u.cp)) == u.cp) {
        bytes += static_cast<char>(u.cp);
        found = true;
      } else if (u.cp >= 0x100 && u.cp < 0x100 + 68) {
        for (int b = 0; b < 256; ++b) {
          if (ByteToUnicode(static_cast<unsigned char>(b)) == u.cp) {
            bytes += static_cast<char>(b);
            found = true;
            break;
          }
        }
      }
      if (!found) AppendUtf8(bytes, u.cp);
    }
  } else {
    bytes = raw;
  }
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    const Utf8Char u = DecodeUtf8(bytes, i);
    if (!u.valid) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "<0x%02X>", static_cast<unsigned char>(bytes[i]));
      out += buf;
    } else if (u.cp == ' ') {
      out += "\xe2\x90\xa3";  // ␣
    } else if (u.cp == '\n') {
      out += "\xe2\x86\xb5";  // ↵
    } else if (u.cp == '\t') {
      out += "\xe2\x87\xa5";  // ⇥
    } else if (u.cp < 0x20 || u.cp == 0x7F || (u.cp >= 0x80 && u.cp < 0xA0)) {
      char buf[12];
      std::snprintf(buf, sizeof buf, "<0x%02X>", static_cast<unsigned>(u.cp));
      out += buf;
    } else {
      out.append(bytes, i, static_cast<size_t>(u.length));
    }
    i += static_cast<size_t>(u.length);
  }
  return out;
}

std::string SubwordTokenizer::Describe() const {
  if (model_ == Model::kWordPiece) {
    return "WordPiece, " + std::to_string(size()) + " tokens" + (lowercase_ ? ", lowercased" : "");
  }
  return "byte-level BPE, " + std::string(SplitPatternName(pattern_)) + " split, " +
         std::to_string(size()) + " tokens, " + std::to_string(merge_count_) + " merges";
}

// ---- encoding

// One Encode call's state: the word cache and the merge workspace.
class SubwordTokenizer::Encoder {
 public:
  explicit Encoder(const SubwordTokenizer& t) : t_(t) {}

  void Segment(std::string_view text, int64_t base, std::vector<SubwordPiece>& out) {
    if (t_.model_ == Model::kWordPiece) {
      WordPieceSegment(text, base, out);
      return;
    }
    const bool gpt2 = t_.pattern_ == SplitPattern::kGpt2;
    for (size_t b = 0; b < text.size();) {
      const size_t e = gpt2 ? NextGpt2(text, b) : NextLlama3(text, b);
      BpeWord(text.substr(b, e - b), base + static_cast<int64_t>(b), out);
      b = e;
    }
  }

 private:
  // The word cache: open addressing with linear probing over a power-of-two table; the words'
  // bytes live in keys_, their pieces in pieces_. Cleared when full, so memory stays bounded.
  struct Slot {
    uint64_t hash = 0;
    uint32_t key = 0, key_len = 0;  // into keys_
    uint32_t first = 0, count = 0;  // into pieces_; count 0: empty
  };
  static constexpr size_t kMaxCachedWords = 1 << 17;
  static constexpr size_t kMaxCachedWordBytes = 256;

  static uint64_t HashBytes(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, then a final mix for the low bits
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
  }

  // The table starts small (a sentence needs few slots) and doubles at half load.
  void Grow() {
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

  Slot* Find(std::string_view word, uint64_t hash) {
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

  void BpeWord(std::string_view word, int64_t begin, std::vector<SubwordPiece>& out) {
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
  void Merge(std::string_view word) {
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
      if (auto it = t_.ids_.find(whole); it != t_.ids_.end()) {
        id_[0] = it->second;
        len_[0] = static_cast<int32_t>(n);
        next_[0] = -1;
        return;
      }
    }
    heap_.clear();
    auto push = [&](int32_t left) {
      const int32_t right = next_[static_cast<size_t>(left)];
      if (right < 0) return;
      auto it =
          t_.merges_.find(Key(id_[static_cast<size_t>(left)], id_[static_cast<size_t>(right)]));
      if (it == t_.merges_.end()) return;
      heap_.push_back({it->second.rank, left, right, it->second.id});
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
      auto it =
          t_.merges_.find(Key(id_[static_cast<size_t>(p.left)], id_[static_cast<size_t>(p.right)]));
      if (it == t_.merges_.end() || it->second.rank != p.rank) continue;
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

  static uint64_t Key(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b);
  }
  struct Pending {
    int32_t rank, left, right, merged;
  };
  // Max-heap order reversed: the lowest rank, then the leftmost, comes out first.
  static bool Later(const Pending& x, const Pending& y) {
    return x.rank != y.rank ? x.rank > y.rank : x.left > y.left;
  }

  // BertNormalizer (as configured) and BertPreTokenizer, then greedy longest-match-first per
  // word. `offsets` maps each byte of the normalized text to the source byte it came from.
  void WordPieceSegment(std::string_view text, int64_t base, std::vector<SubwordPiece>& out) {
    std::string norm;
    std::vector<int64_t> from;  // (norm.size() + 1) source offsets
    std::string piece;
    for (size_t i = 0; i < text.size();) {
      const Utf8Char u = At(text, i);
      const auto src = static_cast<int64_t>(i);
      i += static_cast<size_t>(u.length);
      piece.clear();
      if (t_.clean_text_ && (u.cp == 0 || u.cp == 0xFFFD || IsBertControl(u.cp))) continue;
      if (t_.clean_text_ && IsBertWhitespace(u.cp)) {
        piece = " ";
      } else if (t_.handle_chinese_chars_ && IsCjk(u.cp)) {
        piece = " ";
        AppendUtf8(piece, u.cp);
        piece += ' ';
      } else {
        AppendUtf8(piece, u.cp);
      }
      if (t_.strip_accents_) {
        std::string s;
        for (size_t k = 0; k < piece.size();) {
          const Utf8Char v = DecodeUtf8(piece, k);
          AppendStripAccents(s, v.cp);
          k += static_cast<size_t>(v.length);
        }
        piece = std::move(s);
      }
      if (t_.lowercase_) {
        std::string s;
        for (size_t k = 0; k < piece.size();) {
          const Utf8Char v = DecodeUtf8(piece, k);
          AppendLowercase(s, v.cp);
          k += static_cast<size_t>(v.length);
        }
        piece = std::move(s);
      }
      norm += piece;
      from.insert(from.end(), piece.size(), src);
    }
    from.push_back(static_cast<int64_t>(text.size()));
    // Whitespace separates words; each punctuation character is a word of its own.
    for (size_t i = 0; i < norm.size();) {
      const Utf8Char u = At(norm, i);
      if (IsBertWhitespace(u.cp) || IsWhiteSpace(u.cp)) {
        i += static_cast<size_t>(u.length);
        continue;
      }
      size_t e = i + static_cast<size_t>(u.length);
      if (!IsPunctuation(u.cp)) {
        while (e < norm.size()) {
          const Utf8Char v = At(norm, e);
          if (IsBertWhitespace(v.cp) || IsWhiteSpace(v.cp) || IsPunctuation(v.cp)) break;
          e += static_cast<size_t>(v.length);
        }
      }
      WordPieceWord(std::string_view(norm).substr(i, e - i), i, from, base, out);
      i = e;
    }
  }

  void WordPieceWord(std::string_view word, size_t at, const std::vector<int64_t>& from,
                     int64_t base, std::vector<SubwordPiece>& out) {
    auto source = [&](size_t k) { return base + from[at + k]; };
    int64_t chars = 0;
    for (size_t k = 0; k < word.size(); k += static_cast<size_t>(At(word, k).length)) ++chars;
    const size_t first = out.size();
    bool bad = chars > t_.max_input_chars_per_word_;
    std::string candidate;
    for (size_t start = 0; !bad && start < word.size();) {
      // Ends at code point boundaries, longest first.
      std::vector<size_t> ends;
      for (size_t k = start; k < word.size();) {
        k += static_cast<size_t>(At(word, k).length);
        ends.push_back(k);
      }
      int64_t found = -1;
      size_t found_end = 0;
      for (auto e = ends.rbegin(); e != ends.rend(); ++e) {
        candidate.clear();
        if (start > 0) candidate = t_.continuing_prefix_;
        candidate.append(word.substr(start, *e - start));
        if (auto it = t_.ids_.find(candidate); it != t_.ids_.end()) {
          found = it->second;
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

  const SubwordTokenizer& t_;
  std::vector<Slot> slots_;  // (2 * kMaxCachedWords)
  std::string keys_;
  size_t cached_ = 0;
  std::vector<std::pair<int32_t, int32_t>> pieces_;  // (id, bytes) of cached words
  std::vector<int32_t> id_, len_, prev_, next_;
  std::vector<Pending> heap_;
};

Result<std::vector<SubwordPiece>> SubwordTokenizer::Encode(std::string_view text) const {
  if (size_t bad = FindInvalidUtf8(text); bad != std::string_view::npos) {
    return InvalidArgument("the text is not valid UTF-8 at byte " + std::to_string(bad));
  }
  std::vector<SubwordPiece> out;
  out.reserve(text.size() / 4 + 1);
  Encoder encoder(*this);
  // Added tokens first: the text between them is split and merged.
  bool first_byte[256] = {};
  for (const AddedToken& a : added_) first_byte[static_cast<unsigned char>(a.content[0])] = true;
  size_t segment = 0;
  auto flush = [&](size_t end) {
    if (end <= segment) return;
    std::string_view part = text.substr(segment, end - segment);
    if (add_prefix_space_ && model_ == Model::kByteLevelBpe && part[0] != ' ') {
      // The prefix space is encoded with the first word; its piece starts at the word.
      std::string spaced = " ";
      spaced.append(part);
      const size_t before = out.size();
      encoder.Segment(spaced, static_cast<int64_t>(segment) - 1, out);
      for (size_t k = before; k < out.size(); ++k) {
        out[k].begin = std::max<int64_t>(out[k].begin, static_cast<int64_t>(segment));
        out[k].end = std::max<int64_t>(out[k].end, static_cast<int64_t>(segment));
      }
    } else {
      encoder.Segment(part, static_cast<int64_t>(segment), out);
    }
  };
  if (!added_.empty()) {
    for (size_t i = 0; i < text.size();) {
      const AddedToken* hit = nullptr;
      if (first_byte[static_cast<unsigned char>(text[i])]) {
        for (const AddedToken& a : added_) {
          if (text.compare(i, a.content.size(), a.content) == 0) {
            hit = &a;
            break;
          }
        }
      }
      if (!hit) {
        ++i;
        continue;
      }
      flush(i);
      out.push_back(
          {hit->id, static_cast<int64_t>(i), static_cast<int64_t>(i + hit->content.size())});
      i += hit->content.size();
      segment = i;
    }
  }
  flush(text.size());
  return out;
}

// ---- files

namespace {

// A regular file's bytes, refused when it is something else or does not fit `budget`.
Result<std::string> ReadSmallFile(const std::string& path, uint64_t factor, const MemoryCap& cap) {
  const std::string quoted = "\"" + path + "\"";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return RuntimeError("cannot read " + quoted + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return RuntimeError("cannot read " + quoted + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument(quoted + " is not a regular file");
  const auto size = static_cast<uint64_t>(st.st_size);
  // Saturating: a sparse file of 4 EiB must not wrap the product below the cap.
  const uint64_t need = SaturatingMul(size, factor);
  if (need > cap.bytes || size > std::string().max_size()) {
    return InvalidArgument(
        quoted + " (" + FormatBytes(size) + ") needs about " +
        (need == UINT64_MAX ? std::string("more than 16 EiB") : FormatBytes(need)) +
        " to parse, over the memory cap of " + FormatBytes(cap.bytes) + " (--memory-cap-mib)");
  }
  std::string bytes;
  try {
    bytes.resize(static_cast<size_t>(size));
  } catch (const std::exception&) {  // bad_alloc, length_error
    return RuntimeError("cannot read " + quoted + ": " + FormatBytes(size) +
                        " could not be allocated");
  }
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return RuntimeError("cannot read " + quoted + ": " + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);  // a file that shrank while read is read as far as it goes
  return bytes;
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

constexpr uint64_t kJsonFactor = 24;  // parsed JSON and the tables built from it, per file byte

}  // namespace

TokenizerFileKind SniffTokenizerFile(std::string_view b) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  size_t k = 0;
  if (b.substr(0, 3) == "\xEF\xBB\xBF") k = 3;  // a byte order mark
  while (k < b.size() && is_space(b[k])) ++k;
  if (k >= b.size() || b[k] != '{') return TokenizerFileKind::kNone;
  ++k;
  int depth = 1;
  bool first_member = true;
  while (k < b.size() && depth > 0) {
    const char c = b[k];
    if (c == '"') {
      // A string: at depth 1 followed by ':' it is a top-level key.
      const size_t begin = ++k;
      while (k < b.size() && b[k] != '"') k += b[k] == '\\' ? 2 : 1;
      if (k >= b.size()) break;
      const std::string_view str = b.substr(begin, k - begin);
      ++k;
      if (depth != 1) continue;
      size_t j = k;
      while (j < b.size() && is_space(b[j])) ++j;
      if (j >= b.size() || b[j] != ':') continue;  // a value
      if (str == "model") return TokenizerFileKind::kTokenizerJson;
      k = j + 1;  // past the ':', at the value
      if (first_member) {
        first_member = false;
        size_t v = k;
        while (v < b.size() && is_space(b[v])) ++v;
        if (v < b.size() && (b[v] == '-' || (b[v] >= '0' && b[v] <= '9'))) {
          return TokenizerFileKind::kGpt2Vocab;
        }
      }
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    ++k;
  }
  return TokenizerFileKind::kNone;
}

TokenizerFileKind SniffTokenizerPath(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return TokenizerFileKind::kNone;
  Result<std::unique_ptr<FileSource>> src = FileSource::Open(path, 0);
  if (!src.ok()) return TokenizerFileKind::kNone;
  Result<std::span<const std::byte>> bytes = src.value()->Prefix(UINT64_MAX);
  if (!bytes.ok()) return TokenizerFileKind::kNone;
  return SniffTokenizerFile(
      std::string_view(reinterpret_cast<const char*>(bytes.value().data()), bytes.value().size()));
}

namespace {

Result<std::shared_ptr<const SubwordTokenizer>> LoadSubwordTokenizerImpl(const std::string& path,
                                                                         const MemoryCap& cap) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return RuntimeError("cannot read \"" + path + "\": " + std::strerror(errno));
  }
  auto wrap = [](Result<SubwordTokenizer> t) -> Result<std::shared_ptr<const SubwordTokenizer>> {
    if (!t.ok()) return t.error();
    return std::shared_ptr<const SubwordTokenizer>(
        std::make_shared<SubwordTokenizer>(std::move(t).value()));
  };
  if (!S_ISDIR(st.st_mode) && SniffTokenizerPath(path) == TokenizerFileKind::kGpt2Vocab) {
    // GPT-2's vocab.json (or encoder.json) names its folder: the merges are beside it.
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "./" : path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::string merges = dir + (base == "encoder.json" ? "vocab.bpe" : "merges.txt");
    if (!IsFile(merges)) {
      return InvalidArgument("\"" + path + "\" is GPT-2's token -> id map; its merges, \"" +
                             merges + "\", are not beside it");
    }
    Result<std::string> v = ReadSmallFile(path, kJsonFactor, cap);
    if (!v.ok()) return v.error();
    Result<std::string> m = ReadSmallFile(merges, kJsonFactor, cap);
    if (!m.ok()) return m.error();
    return wrap(SubwordTokenizer::FromGpt2Files(v.value(), path, m.value(), merges));
  }
  if (S_ISDIR(st.st_mode)) {
    std::string dir = path;
    if (!dir.empty() && dir.back() != '/') dir += '/';
    for (auto [vocab, merges] :
         {std::pair{"vocab.json", "merges.txt"}, std::pair{"encoder.json", "vocab.bpe"}}) {
      if (!IsFile(dir + vocab) || !IsFile(dir + merges)) continue;
      Result<std::string> v = ReadSmallFile(dir + vocab, kJsonFactor, cap);
      if (!v.ok()) return v.error();
      Result<std::string> m = ReadSmallFile(dir + merges, kJsonFactor, cap);
      if (!m.ok()) return m.error();
      return wrap(SubwordTokenizer::FromGpt2Files(v.value(), dir + vocab, m.value(), dir + merges));
    }
    if (IsFile(dir + "tokenizer.json")) {
      Result<std::string> j = ReadSmallFile(dir + "tokenizer.json", kJsonFactor, cap);
      if (!j.ok()) return j.error();
      return wrap(SubwordTokenizer::FromTokenizerJson(j.value(), dir + "tokenizer.json"));
    }
    return InvalidArgument("the folder \"" + path +
                           "\" holds none of vocab.json + merges.txt, encoder.json + vocab.bpe "
                           "or tokenizer.json");
  }
  Result<std::string> j = ReadSmallFile(path, kJsonFactor, cap);
  if (!j.ok()) return j.error();
  return wrap(SubwordTokenizer::FromTokenizerJson(j.value(), path));
}

}  // namespace

Result<std::shared_ptr<const SubwordTokenizer>> LoadSubwordTokenizer(const std::string& path,
                                                                     const MemoryCap& cap) {
  return CatchReaderExceptions(path, [&] { return LoadSubwordTokenizerImpl(path, cap); });
}

}  // namespace pe
