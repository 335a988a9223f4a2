// Reading a tokenizer's definition from its text: a Hugging Face tokenizer.json, or GPT-2's
// vocab.json + merges.txt; the vocabulary, merges and added tokens checked as they are added.
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "io/read_support.h"
#include "text/normalizers.h"
#include "text/pretokenizers.h"
#include "text/subword_models.h"
#include "text/subword_tokenizer.h"
#include "text/unicode_props.h"

namespace pe {

using Json = nlohmann::json;

namespace {

// `s` in double quotes, control bytes as \xNN, for messages.
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
    if (!ids_.Insert(token, static_cast<int32_t>(id))) {
      return InvalidArgument(where + ": token " + Quote(token) + " appears twice");
    }
    if (taken[static_cast<size_t>(id)]) {
      // A key written twice in the vocabulary object comes first, even when it is later in the
      // file than the id it repeats.
      TokenIdTable seen;
      for (const auto& [again, unused] : entries) {
        if (!seen.Insert(again, 0)) {
          return InvalidArgument(where + ": token " + Quote(again) + " appears twice");
        }
      }
      return InvalidArgument(where + ": tokens " + Quote(tokens_[static_cast<size_t>(id)]) +
                             " and " + Quote(token) + " both have id " + std::to_string(id));
    }
    if (size_t bad = FindInvalidUtf8(token); bad != std::string::npos) {
      return InvalidArgument(where + ": token with id " + std::to_string(id) +
                             " is not valid UTF-8 at its byte " + std::to_string(bad));
    }
    taken[static_cast<size_t>(id)] = true;
    tokens_[static_cast<size_t>(id)] = token;
  }
  return {};
}

Status SubwordTokenizer::AddMerge(std::string_view a, std::string_view b,
                                  const std::function<std::string()>& where) {
  const int32_t ia = ids_.Find(a);
  const int32_t ib = ids_.Find(b);
  // The joined token, built in a buffer kept from merge to merge.
  thread_local std::string joined;
  joined.assign(a);
  // BPE over characters with a continuing prefix: "##a" + "##b" makes "##ab" (models/bpe/model.rs).
  if (model_ == Model::kBpe && !continuing_prefix_.empty() &&
      b.substr(0, continuing_prefix_.size()) == continuing_prefix_) {
    joined += b.substr(continuing_prefix_.size());
  } else {
    joined += b;
  }
  const int32_t ij = ids_.Find(joined);
  if (ia < 0 || ib < 0 || ij < 0) {
    for (auto [id, s] :
         {std::pair{ia, std::string(a)}, std::pair{ib, std::string(b)}, std::pair{ij, joined}}) {
      if (id < 0) {
        return InvalidArgument(where() + ": the merge " +
                               Quote(std::string(a) + " " + std::string(b)) + " names " + Quote(s) +
                               ", which is not in the vocabulary");
      }
    }
  }
  const uint64_t key = (static_cast<uint64_t>(ia) << 32) | static_cast<uint32_t>(ib);
  // A pair listed twice keeps its first (lowest) rank, as HF tokenizers does.
  merges_.Insert(key, Merge{static_cast<int32_t>(merge_count_), ij});
  ++merge_count_;
  return {};
}

Status SubwordTokenizer::FinishByteLevel(const std::string& name) {
  for (int b = 0; b < 256; ++b) {
    std::string s;
    AppendUtf8(s, ByteToUnicode(static_cast<unsigned char>(b)));
    const int32_t id = ids_.Find(s);
    if (id < 0) {
      char buf[96];
      std::snprintf(buf, sizeof buf, ": the byte 0x%02X (token \"%s\") is not in the vocabulary", b,
                    s.c_str());
      return InvalidArgument(name + buf + "; a byte-level BPE vocabulary holds all 256 bytes");
    }
    byte_ids_[b] = id;
  }
  return {};
}

Status SubwordTokenizer::AddAddedToken(const AddedToken& token, const std::string& where) {
  const std::string& content = token.content;
  const int64_t id = token.id;
  if (content.empty()) return InvalidArgument(where + ": an empty added token");
  if (FindInvalidUtf8(content) != std::string::npos) {
    return InvalidArgument(where + ": the added token is not valid UTF-8");
  }
  if (id < 0 || id >= (int64_t{1} << 24)) {
    return InvalidArgument(where + ": id " + std::to_string(id) + " is outside [0, 16777216)");
  }
  const int32_t known = ids_.Find(content);
  if (known >= 0 && known != id) {
    return InvalidArgument(where + ": " + Quote(content) + " has id " + std::to_string(id) +
                           " but the vocabulary gives it id " + std::to_string(known));
  }
  if (known < 0) {
    if (static_cast<size_t>(id) >= tokens_.size()) tokens_.resize(static_cast<size_t>(id) + 1);
    if (!tokens_[static_cast<size_t>(id)].empty()) {
      return InvalidArgument(where + ": tokens " + Quote(tokens_[static_cast<size_t>(id)]) +
                             " and " + Quote(content) + " both have id " + std::to_string(id));
    }
    tokens_[static_cast<size_t>(id)] = content;
    ids_.Insert(content, static_cast<int32_t>(id));
  }
  added_.push_back(token);
  return {};
}

void SubwordTokenizer::FinishAddedTokens() {
  // Once, after all are read: Gemma 3 lists 6,000 added tokens, and sorting after each one took
  // two seconds. A token listed twice keeps its first entry.
  std::vector<AddedToken> unique;
  unique.reserve(added_.size());
  TokenIdTable seen;
  for (AddedToken& a : added_) {
    if (seen.Insert(a.content, 0)) unique.push_back(std::move(a));
  }
  added_ = std::move(unique);
  std::stable_sort(added_.begin(), added_.end(), [](const AddedToken& x, const AddedToken& y) {
    return x.content.size() > y.content.size();
  });
}

// A vocabulary (token -> id) and a list of merges as the parser met them, in file order.
struct SubwordTokenizer::BulkLists {
  struct MergeEntry {
    enum Form : uint8_t { kString, kPair, kOther } form = kOther;
    std::string a, b;  // kString: the whole "a b" in `a`
  };
  bool has_vocab = false, has_merges = false, has_pieces = false;
  std::vector<std::pair<std::string, int64_t>> vocab;
  std::vector<std::pair<std::string, double>> pieces;  // a Unigram's [piece, score] list
  std::vector<MergeEntry> merges;
};

namespace {

using BulkLists = SubwordTokenizer::BulkLists;

// Builds the parsed document as nlohmann's own DOM parser does, and notes the first key an
// object holds twice. Each key is inserted into its object once: the insertion itself tells
// whether the key was there already, so no second set of keys is kept.
class DomWithDuplicates {
 public:
  explicit DomWithDuplicates(Json& root) : root_(root) {}

  bool null() { return Value(nullptr); }
  bool boolean(bool v) { return Value(v); }
  bool number_integer(Json::number_integer_t v) { return Value(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return Value(v); }
  bool number_float(Json::number_float_t v, const Json::string_t&) { return Value(v); }
  bool string(Json::string_t& v) { return Value(std::move(v)); }
  bool binary(Json::binary_t& v) { return Value(std::move(v)); }
  bool start_object(std::size_t) { return Open(Json::value_t::object); }
  bool start_array(std::size_t) { return Open(Json::value_t::array); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool key(Json::string_t& k) {
    auto [it, inserted] = stack_.back()->get_ref<Json::object_t&>().try_emplace(k);
    if (!inserted && duplicate_.empty()) duplicate_ = k;
    element_ = &it->second;
    return true;
  }
  [[noreturn]] bool parse_error(std::size_t, const std::string&,
                                const nlohmann::detail::exception& e) {
    // Rethrown with its own type, as the DOM parser does.
    switch ((e.id / 100) % 100) {
      case 1:
        throw *static_cast<const Json::parse_error*>(&e);
      case 4:
        throw *static_cast<const Json::out_of_range*>(&e);
      case 2:
        throw *static_cast<const Json::invalid_iterator*>(&e);
      case 3:
        throw *static_cast<const Json::type_error*>(&e);
      default:
        throw *static_cast<const Json::other_error*>(&e);
    }
  }
  const std::string& duplicate() const { return duplicate_; }

 private:
  template <typename V>
  Json* Place(V&& v) {
    if (stack_.empty()) {
      root_ = Json(std::forward<V>(v));
      return &root_;
    }
    if (stack_.back()->is_array()) {
      auto& array = stack_.back()->get_ref<Json::array_t&>();
      array.emplace_back(std::forward<V>(v));
      return &array.back();
    }
    *element_ = Json(std::forward<V>(v));
    return element_;
  }
  template <typename V>
  bool Value(V&& v) {
    Place(std::forward<V>(v));
    return true;
  }
  bool Open(Json::value_t type) {
    stack_.push_back(Place(type));
    return true;
  }
  bool Close() {
    stack_.pop_back();
    return true;
  }

  Json& root_;
  std::vector<Json*> stack_;
  Json* element_ = nullptr;
  std::string duplicate_;
};

// Parses JSON, refusing an object with a key twice (a vocabulary must not silently lose a
// token). Errors carry the JSON library's line and column.
Result<Json> ParseJson(std::string_view text, const std::string& name) {
  Json j;
  DomWithDuplicates dom(j);
  try {
    Json::sax_parse(text.begin(), text.end(), &dom);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    if (size_t p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    return InvalidArgument(name + ": not valid JSON: " + what + " (byte " + std::to_string(e.byte) +
                           ")");
  } catch (const Json::exception& e) {
    return InvalidArgument(name + ": not valid JSON: " + e.what());
  }
  if (!dom.duplicate().empty()) {
    return InvalidArgument(name + ": the key " + Quote(dom.duplicate()) +
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

void SubwordTokenizer::UseGeneralPath(Normalizer normalizer, PreTokenizer pre_tokenizer) {
  normalizer_ = std::make_shared<const Normalizer>(std::move(normalizer));
  pre_tokenizer_ = std::make_shared<const PreTokenizer>(std::move(pre_tokenizer));
}

namespace {

// Token -> id pairs in file order; false for an id that is not an integer.
bool ReadVocab(simdjson::dom::object vocab, std::vector<std::pair<std::string, int64_t>>* out) {
  out->reserve(vocab.size());
  for (auto [token, id] : vocab) {
    int64_t v = 0;
    if (id.get(v)) return false;
    out->emplace_back(std::string(token), v);
  }
  return true;
}

// The fast way through a tokenizer.json: simdjson parses and checks the whole file (UTF-8,
// escapes, control characters, numbers, structure) at memory speed; model.vocab and
// model.merges are read from its tree into the bulk lists; every other value, small, is written
// back as JSON text and read by the same document reader as before. Anything out of the
// ordinary (a parse error, a key twice in the root or the model, an id that is not an integer,
// a merge that is neither "a b" nor [a, b]) returns nothing, and the caller reads the file the
// slow way, which names the problem as it always has.
std::optional<Json> FastRoot(std::string_view json, const std::string& name, BulkLists* bulk) {
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  const simdjson::padded_string padded(json);
  if (parser.parse(padded).get(root)) return std::nullopt;
  auto small = [&](simdjson::dom::element e) -> std::optional<Json> {
    Result<Json> j = ParseJson(simdjson::minify(e), name);
    if (!j.ok()) return std::nullopt;
    return std::move(j).value();
  };
  Json out = Json::object();
  std::set<std::string_view> root_keys;
  for (auto [key, value] : root) {
    if (!root_keys.insert(key).second) return std::nullopt;
    simdjson::dom::object model;
    if (key != "model" || value.get(model)) {
      std::optional<Json> j = small(value);
      if (!j) return std::nullopt;
      out[std::string(key)] = std::move(*j);
      continue;
    }
    Json& model_json = out["model"] = Json::object();
    std::set<std::string_view> model_keys;
    for (auto [mkey, mvalue] : model) {
      if (!model_keys.insert(mkey).second) return std::nullopt;
      simdjson::dom::object vocab;
      simdjson::dom::array merges, pieces;
      if (mkey == "vocab" && !mvalue.get(vocab)) {
        if (!ReadVocab(vocab, &bulk->vocab)) return std::nullopt;
        bulk->has_vocab = true;
        model_json["vocab"] = Json::object();
      } else if (mkey == "vocab" && !mvalue.get(pieces)) {
        bulk->pieces.reserve(pieces.size());
        for (simdjson::dom::element e : pieces) {
          simdjson::dom::array pair;
          std::string_view piece;
          double score = 0;
          if (e.get(pair) || pair.size() != 2 || pair.at(0).get(piece) || pair.at(1).get(score)) {
            return std::nullopt;
          }
          bulk->pieces.emplace_back(std::string(piece), score);
        }
        bulk->has_pieces = true;
        model_json["vocab"] = Json::array();
      } else if (mkey == "merges" && !mvalue.get(merges)) {
        bulk->has_merges = true;
        bulk->merges.reserve(merges.size());
        for (simdjson::dom::element m : merges) {
          BulkLists::MergeEntry& e = bulk->merges.emplace_back();
          std::string_view a, b;
          simdjson::dom::array pair;
          if (!m.get(a)) {
            e.form = BulkLists::MergeEntry::kString;
          } else if (!m.get(pair) && pair.size() == 2 && !pair.at(0).get(a) && !pair.at(1).get(b)) {
            e.form = BulkLists::MergeEntry::kPair;
            e.b = b;
          } else {
            return std::nullopt;
          }
          e.a = a;
        }
        model_json["merges"] = Json::array();
      } else {
        std::optional<Json> j = small(mvalue);
        if (!j) return std::nullopt;
        model_json[std::string(mkey)] = std::move(*j);
      }
    }
  }
  return out;
}

// GPT-2's vocab.json the same way: its pairs, or nothing for the document reader to explain.
std::optional<std::vector<std::pair<std::string, int64_t>>> FastVocabJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  const simdjson::padded_string padded(json);
  std::vector<std::pair<std::string, int64_t>> entries;
  if (parser.parse(padded).get(root) || !ReadVocab(root, &entries)) return std::nullopt;
  return entries;
}

}  // namespace

bool SubwordTokenizer::ReadsInOnePass(std::string_view json) {
  BulkLists bulk;
  return FastRoot(json, "", &bulk).has_value();
}

Result<SubwordTokenizer> SubwordTokenizer::FromTokenizerJson(std::string_view json,
                                                             const std::string& name) {
  {
    BulkLists bulk;
    if (std::optional<Json> root = FastRoot(json, name, &bulk)) {
      return FromJsonRoot(*root, name, &bulk);
    }
  }
  if (size_t bad = FindInvalidUtf8(json); bad != std::string::npos) {
    return InvalidArgument(name + ": not valid UTF-8 at byte " + std::to_string(bad));
  }
  Result<Json> parsed = ParseJson(json, name);
  if (!parsed.ok()) return parsed.error();
  return FromJsonRoot(parsed.value(), name);
}

Result<SubwordTokenizer> SubwordTokenizer::FromJsonRoot(const Json& root, const std::string& name,
                                                        const BulkLists* bulk) {
  const Json* model = Member(root, "model");
  if (!model || !model->is_object()) {
    return InvalidArgument(name + ": no \"model\" object; expected a Hugging Face tokenizer.json");
  }
  SubwordTokenizer t;
  const std::string type = TypeOf(model);
  const Json* vocab = Member(*model, "vocab");
  if (!vocab) return InvalidArgument(name + ": model.vocab is missing");
  if (type == "Unigram") {
    if (Status s = ModelReaders::ReadUnigram(t, *model, name + ": model",
                                             bulk && bulk->has_pieces ? &bulk->pieces : nullptr);
        !s.ok()) {
      return s;
    }
  } else if (bulk && bulk->has_vocab) {
    if (Status s = t.SetTokenIds(bulk->vocab, name + ": model.vocab"); !s.ok()) return s;
  } else {
    Result<std::vector<std::pair<std::string, int64_t>>> entries =
        VocabEntries(*vocab, name + ": model.vocab");
    if (!entries.ok()) return entries.error();
    if (Status s = t.SetTokenIds(entries.value(), name + ": model.vocab"); !s.ok()) return s;
  }

  const Json* normalizer_json = Member(root, "normalizer");
  const Json* pre_json = Member(root, "pre_tokenizer");
  Result<Normalizer> normalizer =
      Normalizer::FromJson(normalizer_json ? *normalizer_json : Json(), name + ": normalizer");
  if (!normalizer.ok()) return normalizer.error();
  Result<PreTokenizer> pre_tokenizer =
      PreTokenizer::FromJson(pre_json ? *pre_json : Json(), name + ": pre_tokenizer");
  if (!pre_tokenizer.ok()) return pre_tokenizer.error();
  // Byte-level BPE has a ByteLevel pre-tokenizer (alone or in a Sequence); BPE without one
  // works over characters (SentencePiece-style, with byte fallback).
  const bool has_byte_level = pre_tokenizer.value().HasByteLevel();
  if (type == "BPE") {
    if (Status s = ModelReaders::CheckDropout(*model, name + ": model"); !s.ok()) return s;
  }
  if (type == "BPE" && (!has_byte_level || GetBool(model, "byte_fallback", false))) {
    if (Status s = ModelReaders::ReadCharBpe(t, *model, name + ": model"); !s.ok()) return s;
    if (Status s = t.ReadMerges(*model, name, bulk); !s.ok()) return s;
    t.UseGeneralPath(std::move(normalizer.value()), std::move(pre_tokenizer.value()));
  } else if (type == "Unigram" || type == "WordLevel") {
    if (type == "WordLevel") {
      if (Status s = ModelReaders::ReadWordLevel(t, *model, name + ": model"); !s.ok()) return s;
    }
    t.UseGeneralPath(std::move(normalizer.value()), std::move(pre_tokenizer.value()));
  } else if (type == "BPE") {
    t.model_ = Model::kByteLevelBpe;
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
    if (!pre_tokenizer.value().HasByteLevel()) {
      return InvalidArgument(name +
                             ": BPE without a ByteLevel pre-tokenizer is not supported "
                             "(only byte-level BPE, as GPT-2 and Llama 3, is)");
    }
    // Today's fast path: no normalizer, ByteLevel's own GPT-2 split or a Split with the GPT-2 or
    // Llama 3 pattern; anything else runs the components one by one.
    if (!normalizer.value().empty() ||
        !pre_tokenizer.value().IsByteLevelFastPath(&t.pattern_, &t.add_prefix_space_)) {
      t.UseGeneralPath(std::move(normalizer.value()), std::move(pre_tokenizer.value()));
    }
    if (Status s = t.ReadMerges(*model, name, bulk); !s.ok()) return s;
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
    // BertNormalizer and BertPreTokenizer (or none) take the WordPiece path of their own.
    Normalizer::Bert bert;
    const bool bert_normalizer = normalizer.value().IsBertOnly(&bert);
    if ((normalizer.value().empty() || bert_normalizer) &&
        (pre_tokenizer.value().empty() || pre_tokenizer.value().IsBertOnly())) {
      if (bert_normalizer) {
        t.clean_text_ = bert.clean_text;
        t.handle_chinese_chars_ = bert.handle_chinese_chars;
        t.lowercase_ = bert.lowercase;
        t.strip_accents_ = bert.strip_accents;
      }
    } else {
      t.UseGeneralPath(std::move(normalizer.value()), std::move(pre_tokenizer.value()));
    }
  } else {
    return InvalidArgument(name + ": model type " + Quote(type) +
                           " is not supported; BPE, WordPiece, Unigram and WordLevel are");
  }
  ModelReaders::FindByteFallbackTokens(t);
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
      AddedToken token;
      token.content = content->get<std::string>();
      const int64_t id_value = id->get<int64_t>();
      token.id = static_cast<int32_t>(std::clamp<int64_t>(id_value, -1, int64_t{1} << 24));
      for (auto [key, dest] :
           {std::pair{"special", &token.special}, std::pair{"lstrip", &token.lstrip},
            std::pair{"rstrip", &token.rstrip}, std::pair{"single_word", &token.single_word},
            std::pair{"normalized", &token.normalized}}) {
        const Json* v = Member(a, key);
        if (v && !v->is_boolean())
          return InvalidArgument(where + "." + key + " is not true or false");
        if (v) *dest = v->get<bool>();
      }
      if (Status s = t.AddAddedToken(token, where); !s.ok()) return s;
    }
    t.FinishAddedTokens();
  }
  if (const Json* post = Member(root, "post_processor")) {
    if (Status s = ModelReaders::ReadPostProcessor(t, *post, name + ": post_processor"); !s.ok()) {
      return s;
    }
  }
  if (const Json* decoder = Member(root, "decoder")) ModelReaders::ReadDecoder(t, *decoder);
  ModelReaders::MarkSpecial(t);
  return t;
}

Status SubwordTokenizer::ReadMerges(const nlohmann::json& model, const std::string& name,
                                    const BulkLists* bulk) {
  using Entry = BulkLists::MergeEntry;
  // Merge k as "a b", as [a, b] or as neither, from the bulk lists or the document.
  const Json* merges = bulk && bulk->has_merges ? nullptr : Member(model, "merges");
  if (!(bulk && bulk->has_merges) && (!merges || !merges->is_array())) {
    return InvalidArgument(name + ": model.merges is not a list");
  }
  const size_t n = merges ? merges->size() : bulk->merges.size();
  auto form = [&](size_t k, std::string_view* a, std::string_view* b) {
    if (!merges) {
      const Entry& e = bulk->merges[k];
      *a = e.a;
      *b = e.b;
      return e.form;
    }
    const Json& m = (*merges)[k];
    if (m.is_string()) {
      *a = m.get_ref<const std::string&>();
      return Entry::kString;
    }
    if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      *a = m[0].get_ref<const std::string&>();
      *b = m[1].get_ref<const std::string&>();
      return Entry::kPair;
    }
    return Entry::kOther;
  };
  merges_.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    auto where = [&] { return name + ": model.merges[" + std::to_string(k) + "]"; };
    std::string_view a, b;
    switch (form(k, &a, &b)) {
      case Entry::kString: {
        const std::string_view s = a;
        const size_t sp = s.find(' ');
        if (sp == std::string_view::npos || sp == 0 || sp + 1 == s.size() ||
            s.find(' ', sp + 1) != std::string_view::npos) {
          return InvalidArgument(where() + ": " + Quote(s) +
                                 " is not two tokens separated by one space");
        }
        a = s.substr(0, sp);
        b = s.substr(sp + 1);
        break;
      }
      case Entry::kPair:
        break;
      case Entry::kOther:
        return InvalidArgument(where() + ": a merge is \"a b\" or [\"a\", \"b\"]");
    }
    if (Status st = AddMerge(a, b, where); !st.ok()) return st;
  }
  return {};
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
  std::optional<std::vector<std::pair<std::string, int64_t>>> entries = FastVocabJson(vocab_json);
  if (!entries) {
    Result<Json> parsed = ParseJson(vocab_json, vocab_name);
    if (!parsed.ok()) return parsed.error();
    Result<std::vector<std::pair<std::string, int64_t>>> read =
        VocabEntries(parsed.value(), vocab_name);
    if (!read.ok()) return read.error();
    entries = std::move(read).value();
  }
  SubwordTokenizer t;
  if (Status s = t.SetTokenIds(*entries, vocab_name); !s.ok()) return s;
  size_t line_no = 0;
  for (size_t at = 0; at < merges.size();) {
    size_t end = merges.find('\n', at);
    if (end == std::string_view::npos) end = merges.size();
    std::string_view line = merges.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
    auto where = [&] { return merges_name + ": line " + std::to_string(line_no); };
    const size_t sp = line.find(' ');
    if (sp == std::string_view::npos || sp == 0 || sp + 1 == line.size() ||
        line.find(' ', sp + 1) != std::string_view::npos) {
      return InvalidArgument(where() + ": " + Quote(line) +
                             " is not two tokens separated by one space");
    }
    if (Status s = t.AddMerge(line.substr(0, sp), line.substr(sp + 1), where); !s.ok()) return s;
  }
  if (Status s = t.FinishByteLevel(vocab_name); !s.ok()) return s;
  // GPT-2's one special token, when the vocabulary has it.
  if (int64_t eot = t.Id("<|endoftext|>"); eot >= 0) {
    AddedToken eot_token;
    eot_token.content = "<|endoftext|>";
    eot_token.id = static_cast<int32_t>(eot);
    eot_token.special = true;
    t.added_.push_back(eot_token);
  }
  ModelReaders::MarkSpecial(t);
  return t;
}

}  // namespace pe
