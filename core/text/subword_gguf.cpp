// The tokenizer inside a GGUF file (llama.cpp's model file): the tokenizer.ggml.* arrays and
// flags made into the tokenizer.json a Hugging Face conversion of the same model has, then read
// by the tokenizer.json reader, so a GGUF's tokenizer runs the same models, normalizers and
// pre-tokenizers as every other file (no tokenization code of its own).
//
// What llama.cpp does with each key is in its `src/llama-vocab.cpp` (`llama_vocab::impl::load`:
// the default special tokens of each tokenizer.ggml.model, the .pre names and their flags;
// `llm_tokenizer_bpe`: each .pre type's split expressions, applied one after another, each
// keeping the text it does not match as pieces of their own, which is Hugging Face's Split with
// the Isolated behaviour). Where llama.cpp rewrote a pattern of a tokenizer.json for its own
// regex engine (`(?i:'s|...)` spelled out as `'[sS]|...`), the tokenizer.json's own pattern is
// used here: PCRE2 reads it, and the GPT-2 and Llama 3 patterns keep their fast paths.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "io/gguf_file.h"
#include "io/read_support.h"
#include "text/subword_tokenizer.h"
#include "text/unicode_props.h"

namespace pe {

using Json = nlohmann::json;

namespace {

// llama.cpp's token types (`enum llama_token_type`, gguf-py `TokenType`).
// 5 is UNUSED: an ordinary token here.
constexpr int kTypeNormal = 1, kTypeUnknown = 2, kTypeControl = 3, kTypeUserDefined = 4,
              kTypeByte = 6;

constexpr const char* kGpt2Tail =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
constexpr const char* kQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kGpt4o =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kTekken =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kDeepseek3Words =
    R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// Not formatted: clang-format counts this literal's bytes and splits it again on each run.
// clang-format off
constexpr const char* kDeepseekLlmLetters =
    "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-"
    "ᴫᵫ-ᵷᵹ-ᶚḀ-"
    "ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-"
    "ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-"
    "𑣟𞤀-𞥃]+";
// clang-format on
constexpr const char* kCjkHangul = "[一-龥ࠀ-一가-퟿]+";

// What a .pre name stands for: the split expressions in order, and the flags llama.cpp sets
// with it.
struct PreType {
  std::vector<std::string> regexes;
  bool ignore_merges = false;
  bool add_bos = false;
  bool add_sep = false;
};

// The .pre names llama.cpp knows and the app reproduces; nullopt for any other name.
std::optional<PreType> FindPreType(const std::string& name) {
  auto is = [&](std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
  };
  const std::string gpt2(SplitPatternRegex(SplitPattern::kGpt2));
  const std::string llama3(SplitPatternRegex(SplitPattern::kLlama3));
  PreType p;
  if (is({"default"})) {
    p.regexes = {R"([\p{P}\$\+<=>\^~\|]+)", kGpt2Tail, R"(\p{N}+)", "[0-9][0-9][0-9]"};
  } else if (is({"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0",
                 "lfm2"})) {
    p.regexes = {llama3};
    p.ignore_merges = true;
    p.add_bos = true;
  } else if (is({"dbrx", "smaug-bpe", "glm4", "chatglm-bpe"})) {
    p.regexes = {llama3};
  } else if (is({"deepseek-llm"})) {
    p.regexes = {"[\r\n]",  kDeepseekLlmLetters, "\\s?[!-/:-~！-／：-～‘-‟　-。]+",
                 R"(\s+$)", kCjkHangul,          R"(\p{N}+)"};
  } else if (is({"deepseek-coder"})) {
    p.regexes = {"[\r\n]", R"(\s?\p{L}+)", R"(\s?\p{P}+)", kCjkHangul, R"(\p{N})"};
  } else if (is({"deepseek-v3", "hunyuan-dense"})) {
    p.regexes = {R"(\p{N}{1,3})", "[一-龥぀-ゟ゠-ヿ]+", kDeepseek3Words};
  } else if (is({"falcon"})) {
    p.regexes = {R"([\p{P}\$\+<=>\^~\|`]+)", kGpt2Tail, "[0-9][0-9][0-9]"};
  } else if (is({"starcoder", "refact", "command-r", "smollm", "codeshell", "exaone",
                 "minerva-7b"})) {
    p.regexes = {R"(\p{N})", kGpt2Tail};
  } else if (is({"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de",
                 "a.x-4.0", "mellum", "mpt", "olmo", "jais", "trillion", "granite-docling",
                 "exaone4"})) {
    p.regexes = {gpt2};
  } else if (is({"jina-v1-en", "jina-v2-code", "roberta-bpe"})) {
    p.regexes = {gpt2};
    p.add_sep = true;
  } else if (is({"qwen2", "deepseek-r1-qwen", "kormo", "stablelm2", "megrez", "hunyuan",
                 "grok-2"})) {
    p.regexes = {kQwen2};
  } else if (is({"poro-chat", "bloom", "gpt3-finnish"})) {
    p.regexes = {R"( ?[^(\s|.,!?…。，、।۔،)]+)"};
  } else if (is({"viking"})) {
    p.regexes = {R"( ?[^(\s|.,!?…。，、।۔،)]+)", R"(\p{N})"};
  } else if (is({"tekken"})) {
    p.regexes = {kTekken};
    p.ignore_merges = true;
    p.add_bos = true;
  } else if (is({"gpt-4o", "llama4", "minimax-m2"})) {
    p.regexes = {kGpt4o};
  } else if (is({"seed-coder"})) {
    p.regexes = {
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+)"};
  } else if (is({"bailingmoe", "bailingmoe2", "llada-moe"})) {
    p.regexes = {
        R"('(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)"};
  } else {
    return std::nullopt;
  }
  return p;
}

std::string Base64(const std::vector<double>& bytes) {
  static const char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = 0;
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    for (size_t k = 0; k < 3; ++k) {
      v = (v << 8) | (k < n ? static_cast<uint32_t>(bytes[i + k]) & 0xFF : 0);
    }
    for (size_t k = 0; k < 4; ++k) {
      out += k <= n ? kDigits[(v >> (18 - 6 * k)) & 63] : '=';
    }
  }
  return out;
}

// Reads the tokenizer.ggml.* keys of one file; every error names the key.
class GgufVocab {
 public:
  GgufVocab(ByteSource& source, const GgufFile& file, const std::string& name, const MemoryCap& cap)
      : source_(source), file_(file), name_(name), cap_(cap) {}

  Error Fail(const std::string& key, const std::string& what) const {
    return InvalidArgument(Quoted(name_) + ": key \"" + key + "\" " + what);
  }

  Result<std::string> String(const std::string& key, const std::string& fallback) const {
    const GgufValue* v = file_.Find(key);
    if (v == nullptr) return fallback;
    if (v->type != GgufType::kString) return Fail(key, "must be a string");
    if (v->s.size() != v->string_length) return Fail(key, "is too long");
    return v->s;
  }
  Result<bool> Bool(const std::string& key, bool fallback) const {
    const GgufValue* v = file_.Find(key);
    if (v == nullptr) return fallback;
    if (v->type != GgufType::kBool) return Fail(key, "must be a bool");
    return v->b;
  }
  // A token id: an integer in [0, n); -1 when absent and `fallback` is -1.
  Result<int64_t> Id(const std::string& key, int64_t fallback, size_t n) const {
    const GgufValue* v = file_.Find(key);
    if (v == nullptr) return fallback < static_cast<int64_t>(n) ? fallback : -1;
    if (!v->is_integer()) return Fail(key, "must be an integer token id");
    const double id = v->AsDouble();
    if (id < 0 || id >= static_cast<double>(n)) {
      return Fail(key, "is " + std::to_string(static_cast<int64_t>(id)) +
                           ", not a token id (the vocabulary has " + std::to_string(n) +
                           " tokens)");
    }
    return static_cast<int64_t>(id);
  }
  Result<std::vector<std::string>> Strings(const std::string& key) const {
    const GgufValue* v = file_.Find(key);
    if (v == nullptr) return Fail(key, "is missing");
    return ReadGgufStrings(source_, *v, key, name_, cap_);
  }
  // A numeric array of `n` values, or empty when absent.
  Result<std::vector<double>> Numbers(const std::string& key, size_t n) const {
    const GgufValue* v = file_.Find(key);
    if (v == nullptr) return std::vector<double>();
    if (v->type != GgufType::kArray || v->element == GgufType::kString) {
      return Fail(key, "must be an array of numbers");
    }
    if (n != SIZE_MAX && v->count != n) {
      return Fail(key, "has " + std::to_string(v->count) + " values for " + std::to_string(n) +
                           " tokens (tokenizer.ggml.tokens)");
    }
    return ReadGgufNumbers(source_, *v, key, name_, cap_);
  }

 private:
  ByteSource& source_;
  const GgufFile& file_;
  const std::string& name_;
  const MemoryCap& cap_;
};

Json SplitJson(const std::string& regex) {
  return Json{{"type", "Split"},
              {"pattern", {{"Regex", regex}}},
              {"behavior", "Isolated"},
              {"invert", false}};
}

// SentencePiece-style BPE's merges from the pieces' scores, as Hugging Face's conversion of a
// SentencePiece BPE model makes them (transformers `convert_slow_tokenizer.py`
// `SentencePieceExtractor.extract`): every way of cutting a piece into two pieces of the
// vocabulary is a merge, ranked by the whole piece's score, highest first (then by the ids of
// the two parts). llama.cpp's SPM tokenizer (`llm_tokenizer_spm_session`) merges the pair whose
// joined text is the piece of highest score, which is the same order; it looks the joined text
// up in the whole vocabulary, whatever its token type (Gemma's user-defined "▁▁" is made so).
std::vector<std::string> MergesFromScores(const std::vector<std::string>& tokens,
                                          const std::vector<double>& scores) {
  std::unordered_map<std::string_view, int64_t> ids;
  ids.reserve(tokens.size());
  for (size_t k = 0; k < tokens.size(); ++k) ids.emplace(tokens[k], static_cast<int64_t>(k));
  struct Candidate {
    double score;
    int64_t merged, left, right;
    size_t cut;
  };
  std::vector<Candidate> c;
  for (size_t k = 0; k < tokens.size(); ++k) {
    const std::string_view t = tokens[k];
    for (size_t cut = 1; cut < t.size(); ++cut) {
      if ((static_cast<unsigned char>(t[cut]) & 0xC0) == 0x80) continue;  // inside a character
      auto l = ids.find(t.substr(0, cut));
      if (l == ids.end()) continue;
      auto r = ids.find(t.substr(cut));
      if (r == ids.end()) continue;
      c.push_back(
          {scores.empty() ? 0.0 : scores[k], static_cast<int64_t>(k), l->second, r->second, cut});
    }
  }
  std::stable_sort(c.begin(), c.end(), [](const Candidate& x, const Candidate& y) {
    if (x.score != y.score) return x.score > y.score;
    if (x.merged != y.merged) return x.merged < y.merged;
    if (x.left != y.left) return x.left < y.left;
    return x.right < y.right;
  });
  std::vector<std::string> merges;
  merges.reserve(c.size());
  for (const Candidate& m : c) {
    const std::string& t = tokens[static_cast<size_t>(m.merged)];
    merges.push_back(t.substr(0, m.cut) + " " + t.substr(m.cut));
  }
  return merges;
}

}  // namespace

Result<SubwordTokenizer> SubwordTokenizer::FromGguf(ByteSource& source, const GgufFile& file,
                                                    const std::string& name, const MemoryCap& cap) {
  GgufVocab g(source, file, name, cap);
  if (file.Find("tokenizer.ggml.model") == nullptr) {
    return InvalidArgument(Quoted(name) + ": holds no tokenizer (no key \"tokenizer.ggml.model\")");
  }
  Result<std::string> model_name = g.String("tokenizer.ggml.model", "");
  if (!model_name.ok()) return model_name.error();
  const std::string& kind = model_name.value();
  if (kind != "gpt2" && kind != "llama" && kind != "bert" && kind != "t5") {
    return g.Fail("tokenizer.ggml.model",
                  "is \"" + GgufPrintable(kind) +
                      "\": not a tokenizer the app reads (gpt2, llama, bert and t5 are)");
  }
  Result<std::vector<std::string>> tokens_read = g.Strings("tokenizer.ggml.tokens");
  if (!tokens_read.ok()) return tokens_read.error();
  std::vector<std::string>& tokens = tokens_read.value();
  const size_t n = tokens.size();
  if (n == 0) return g.Fail("tokenizer.ggml.tokens", "holds no tokens");
  if (n > (size_t{1} << 24)) {
    return g.Fail("tokenizer.ggml.tokens",
                  "holds " + std::to_string(n) + " tokens; at most 16777216 are read");
  }
  for (size_t k = 0; k < n; ++k) {
    if (tokens[k].empty()) {
      return g.Fail("tokenizer.ggml.tokens", "has an empty token at index " + std::to_string(k));
    }
    if (size_t bad = FindInvalidUtf8(tokens[k]); bad != std::string::npos) {
      return g.Fail("tokenizer.ggml.tokens", "has a token at index " + std::to_string(k) +
                                                 " that is not valid UTF-8 at its byte " +
                                                 std::to_string(bad));
    }
  }
  Result<std::vector<double>> scores = g.Numbers("tokenizer.ggml.scores", n);
  if (!scores.ok()) return scores.error();
  Result<std::vector<double>> types = g.Numbers("tokenizer.ggml.token_type", n);
  if (!types.ok()) return types.error();
  for (size_t k = 0; k < types.value().size(); ++k) {
    const double t = types.value()[k];
    if (t != std::floor(t) || t < 0 || t > kTypeByte) {
      return g.Fail("tokenizer.ggml.token_type", "has " + std::to_string(t) + " at index " +
                                                     std::to_string(k) +
                                                     " (llama.cpp's token types are 0 to 6)");
    }
  }
  for (size_t k = 0; k < scores.value().size(); ++k) {
    if (!std::isfinite(scores.value()[k])) {
      return g.Fail("tokenizer.ggml.scores",
                    "has a value that is not finite at index " + std::to_string(k));
    }
  }
  auto type_of = [&](size_t k) {
    return types.value().empty() ? kTypeNormal : static_cast<int>(types.value()[k]);
  };

  // llama.cpp's defaults for each tokenizer (llama_vocab::impl::load).
  int64_t bos = -1, eos = -1, unk = -1, sep = -1;
  bool add_bos = false, add_eos = false, add_sep = false, ignore_merges = false;
  std::optional<PreType> pre;
  if (kind == "llama") {
    bos = 1, eos = 2, unk = 0;
    add_bos = true;
  } else if (kind == "gpt2") {
    bos = 11, eos = 11;
    Result<std::string> pre_name = g.String("tokenizer.ggml.pre", "default");
    if (!pre_name.ok()) return pre_name.error();
    pre = FindPreType(pre_name.value());
    if (!pre) {
      return g.Fail("tokenizer.ggml.pre",
                    "is \"" + GgufPrintable(pre_name.value()) +
                        "\": a pre-tokenizer the app does not know (llama.cpp's names it "
                        "reads: default, llama-bpe, llama3, qwen2, deepseek-llm, "
                        "deepseek-coder, deepseek-v3, gpt-2, gpt-4o, tekken, falcon, "
                        "starcoder, ...; see docs/FORMATS.md)");
    }
    add_bos = pre->add_bos;
    add_sep = pre->add_sep;
    ignore_merges = pre->ignore_merges;
  } else if (kind == "bert") {
    bos = 101, unk = 100, sep = 102;
    add_bos = true;
    add_sep = true;
  } else {  // t5
    eos = 1, unk = 2;
    add_eos = true;
  }
  struct IdKey {
    const char* key;
    int64_t* id;
  };
  for (IdKey k :
       {IdKey{"tokenizer.ggml.bos_token_id", &bos}, IdKey{"tokenizer.ggml.eos_token_id", &eos},
        IdKey{"tokenizer.ggml.unknown_token_id", &unk},
        IdKey{"tokenizer.ggml.seperator_token_id", &sep}}) {
    Result<int64_t> id = g.Id(k.key, *k.id, n);
    if (!id.ok()) return id.error();
    *k.id = id.value();
  }
  struct FlagKey {
    const char* key;
    bool* flag;
  };
  for (FlagKey k : {FlagKey{"tokenizer.ggml.add_bos_token", &add_bos},
                    FlagKey{"tokenizer.ggml.add_eos_token", &add_eos},
                    FlagKey{"tokenizer.ggml.add_sep_token", &add_sep}}) {
    Result<bool> b = g.Bool(k.key, *k.flag);
    if (!b.ok()) return b.error();
    *k.flag = b.value();
  }
  for (auto [flag, id, key] : {std::tuple{add_bos, bos, "tokenizer.ggml.bos_token_id"},
                               std::tuple{add_eos, eos, "tokenizer.ggml.eos_token_id"},
                               std::tuple{add_sep, sep, "tokenizer.ggml.seperator_token_id"}}) {
    if (flag && id < 0) return g.Fail(key, "is missing, but the token is to be added");
  }

  // BERT's vocabulary as llama.cpp's conversion writes it: a word's first piece with a leading
  // U+2581 (the "phantom space"), a continuation without its "##", [..] tokens as they are.
  if (kind == "bert") {
    for (std::string& t : tokens) {
      if (t.size() >= 2 && t.front() == '[' && t.back() == ']') continue;
      if (t.rfind("\xE2\x96\x81", 0) == 0 && t.size() > 3) {
        t.erase(0, 3);
      } else {
        t = "##" + t;
      }
    }
  }

  Json root = Json::object();
  Json vocab = kind == "t5" ? Json::array() : Json::object();
  for (size_t k = 0; k < n; ++k) {
    if (kind == "t5") {
      vocab.push_back(Json::array({tokens[k], scores.value().empty() ? 0.0 : scores.value()[k]}));
    } else if (!vocab.emplace(tokens[k], static_cast<int64_t>(k)).second) {
      return g.Fail("tokenizer.ggml.tokens", "has the token \"" + GgufPrintable(tokens[k]) +
                                                 "\" twice (at " +
                                                 std::to_string(vocab[tokens[k]].get<int64_t>()) +
                                                 " and " + std::to_string(k) + ")");
    }
  }
  const std::string unk_token = unk >= 0 ? tokens[static_cast<size_t>(unk)] : std::string();
  const std::string space = "\xE2\x96\x81";  // U+2581, SentencePiece's space
  if (kind == "gpt2") {
    Result<std::vector<std::string>> merges = g.Strings("tokenizer.ggml.merges");
    if (!merges.ok()) return merges.error();
    root["model"] = Json{{"type", "BPE"},
                         {"vocab", std::move(vocab)},
                         {"merges", std::move(merges.value())},
                         {"ignore_merges", ignore_merges}};
    Json pres = Json::array();
    for (const std::string& r : pre->regexes) pres.push_back(SplitJson(r));
    pres.push_back(Json{{"type", "ByteLevel"},
                        {"add_prefix_space", false},
                        {"trim_offsets", false},
                        {"use_regex", false}});
    root["pre_tokenizer"] = Json{{"type", "Sequence"}, {"pretokenizers", std::move(pres)}};
    root["decoder"] = Json{{"type", "ByteLevel"}};
  } else if (kind == "llama") {
    if (scores.value().empty()) return g.Fail("tokenizer.ggml.scores", "is missing");
    Result<bool> prefix = g.Bool("tokenizer.ggml.add_space_prefix", true);
    if (!prefix.ok()) return prefix.error();
    Json model = Json{{"type", "BPE"},
                      {"vocab", std::move(vocab)},
                      {"merges", MergesFromScores(tokens, scores.value())},
                      {"byte_fallback", true},
                      {"fuse_unk", true}};
    if (unk >= 0) model["unk_token"] = unk_token;
    root["model"] = std::move(model);
    Json norms = Json::array();
    if (prefix.value()) norms.push_back(Json{{"type", "Prepend"}, {"prepend", space}});
    norms.push_back(Json{{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", space}});
    root["normalizer"] = Json{{"type", "Sequence"}, {"normalizers", std::move(norms)}};
    Json decoders = Json::array(
        {Json{{"type", "Replace"}, {"pattern", {{"String", space}}}, {"content", " "}}});
    if (prefix.value()) {
      decoders.push_back(Json{{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}});
    }
    root["decoder"] = Json{{"type", "Sequence"}, {"decoders", std::move(decoders)}};
  } else if (kind == "bert") {
    if (unk < 0) return g.Fail("tokenizer.ggml.unknown_token_id", "is missing");
    root["model"] = Json{{"type", "WordPiece"},
                         {"vocab", std::move(vocab)},
                         {"unk_token", tokens[static_cast<size_t>(unk)]},
                         {"continuing_subword_prefix", "##"},
                         {"max_input_chars_per_word", 100}};
    root["normalizer"] = Json{{"type", "BertNormalizer"},
                              {"clean_text", true},
                              {"handle_chinese_chars", true},
                              {"strip_accents", nullptr},
                              {"lowercase", true}};
    root["pre_tokenizer"] = Json{{"type", "BertPreTokenizer"}};
  } else {  // t5: SentencePiece Unigram
    if (scores.value().empty()) return g.Fail("tokenizer.ggml.scores", "is missing");
    Result<bool> prefix = g.Bool("tokenizer.ggml.add_space_prefix", true);
    if (!prefix.ok()) return prefix.error();
    Result<bool> extra = g.Bool("tokenizer.ggml.remove_extra_whitespaces", true);
    if (!extra.ok()) return extra.error();
    bool byte_fallback = false;
    for (size_t k = 0; k < n; ++k) byte_fallback = byte_fallback || type_of(k) == kTypeByte;
    Json model = Json{{"type", "Unigram"}, {"vocab", std::move(vocab)}};
    model["byte_fallback"] = byte_fallback;
    if (unk >= 0) model["unk_id"] = unk;
    root["model"] = std::move(model);
    Result<std::vector<double>> charsmap =
        g.Numbers("tokenizer.ggml.precompiled_charsmap", SIZE_MAX);
    if (!charsmap.ok()) return charsmap.error();
    if (!charsmap.value().empty()) {
      root["normalizer"] =
          Json{{"type", "Precompiled"}, {"precompiled_charsmap", Base64(charsmap.value())}};
    }
    Json pres = Json::array();
    if (extra.value()) pres.push_back(Json{{"type", "WhitespaceSplit"}});
    pres.push_back(Json{{"type", "Metaspace"},
                        {"replacement", space},
                        {"prepend_scheme", prefix.value() ? "always" : "never"},
                        {"split", true}});
    root["pre_tokenizer"] = Json{{"type", "Sequence"}, {"pretokenizers", std::move(pres)}};
    root["decoder"] = Json{{"type", "Metaspace"},
                           {"replacement", space},
                           {"prepend_scheme", prefix.value() ? "always" : "never"},
                           {"split", true}};
  }

  // Control and unknown tokens are special; user-defined ones are matched in the text as they
  // are (llama.cpp's tokenizer_st_partition), not special.
  Json added = Json::array();
  for (size_t k = 0; k < n; ++k) {
    const int t = type_of(k);
    if (t != kTypeControl && t != kTypeUserDefined && t != kTypeUnknown) continue;
    added.push_back(Json{{"id", static_cast<int64_t>(k)},
                         {"content", tokens[k]},
                         {"special", t != kTypeUserDefined},
                         {"normalized", false}});
  }
  root["added_tokens"] = std::move(added);

  Json single = Json::array();
  Json specials = Json::object();
  auto special = [&](int64_t id) {
    const std::string& t = tokens[static_cast<size_t>(id)];
    single.push_back(Json{{"SpecialToken", {{"id", t}, {"type_id", 0}}}});
    specials[t] = Json{{"id", t}, {"ids", {id}}, {"tokens", {t}}};
  };
  if (add_bos) special(bos);
  single.push_back(Json{{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
  if (add_eos) special(eos);
  if (add_sep) special(sep);
  if (add_bos || add_eos || add_sep) {
    root["post_processor"] =
        Json{{"type", "TemplateProcessing"}, {"single", single}, {"special_tokens", specials}};
  }
  return FromJsonRoot(root, name + " (tokenizer.ggml.*)");
}

}  // namespace pe
