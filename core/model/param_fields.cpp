#include "model/param_fields.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "base/closest_word.h"
#include "encoding/encoding.h"
#include "encoding/mrope.h"
#include "encoding/sinusoidal_presets.h"
#include "figure/colormap.h"
#include "io/loaded_table.h"
#include "io/tensor_file.h"
#include "model/choice_names.h"
#include "model/embedding.h"
#include "model/token_ids.h"
#include "model/walkthrough_presets.h"
#include "text/subword_tokenizer.h"
#include "text/tokenizer.h"

namespace pe {
namespace {

std::string Num(double v) {
  // The shortest text that reads back to the same double: plain digits ("500000", "0.02") in
  // the range people type them, the exponent form only beyond ("1e-07", "1e+20").
  char buf[400];
  const double a = std::fabs(v);
  const std::chars_format form =
      (a == 0 || (a >= 1e-4 && a < 1e16)) ? std::chars_format::fixed : std::chars_format::general;
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v, form);
  return std::string(buf, r.ptr);
}

// --embedding-rows text: rows separated by ';', values by ','; each float32's shortest text.
std::string FormatRows(const std::vector<std::vector<float>>& rows) {
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    if (r > 0) out += ';';
    for (size_t j = 0; j < rows[r].size(); ++j) {
      if (j > 0) out += ',';
      char buf[32];
      const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, rows[r][j]);
      out.append(buf, ec == std::errc() ? end : buf);
    }
  }
  return out;
}

// At most this many typed values (a tutorial's table is a handful).
constexpr size_t kMaxTypedValues = size_t{1} << 20;

Result<std::vector<std::vector<float>>> ParseRows(const std::string& text,
                                                  const char* flag = "--embedding-rows") {
  std::vector<std::vector<float>> rows;
  if (text.find_first_not_of(" \t") == std::string::npos) return rows;  // empty: seeded E
  size_t count = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t semi = text.find(';', start);
    if (semi == std::string::npos) semi = text.size();
    const std::string row_text = text.substr(start, semi - start);
    std::vector<float> row;
    size_t at = 0;
    while (at <= row_text.size()) {
      size_t comma = row_text.find(',', at);
      if (comma == std::string::npos) comma = row_text.size();
      std::string item = row_text.substr(at, comma - at);
      item.erase(0, item.find_first_not_of(" \t"));
      item.erase(item.find_last_not_of(" \t") + 1);
      float v = 0;
      const char* first = item.data() + (item.size() > 0 && item[0] == '+' ? 1 : 0);
      const auto [ptr, ec] = std::from_chars(first, item.data() + item.size(), v);
      if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() ||
          !std::isfinite(v)) {
        return InvalidArgument(std::string(flag) + ": \"" + item + "\" in row " +
                               std::to_string(rows.size()) +
                               " is not a finite decimal number (rows are separated by ';', "
                               "values by ',': \"0.1,0.3;0.2,0.6\")");
      }
      row.push_back(v);
      if (++count > kMaxTypedValues) {
        return InvalidArgument(std::string(flag) + ": more than " +
                               std::to_string(kMaxTypedValues) + " values");
      }
      at = comma + 1;
    }
    if (!rows.empty() && row.size() != rows.front().size()) {
      return InvalidArgument(std::string(flag) + ": row " + std::to_string(rows.size()) + " has " +
                             std::to_string(row.size()) + " values but row 0 has " +
                             std::to_string(rows.front().size()) +
                             "; every row is one vector of d_model values");
    }
    rows.push_back(std::move(row));
    start = semi + 1;
  }
  return rows;
}

constexpr uint64_t kMaxSeed = std::numeric_limits<uint64_t>::max();
constexpr unsigned kSin = SchemeBit(Scheme::kSinusoidal);
constexpr unsigned kLearned = SchemeBit(Scheme::kLearned);
constexpr unsigned kRope = SchemeBit(Scheme::kRope);
constexpr unsigned kAlibi = SchemeBit(Scheme::kAlibi);
constexpr unsigned kT5 = SchemeBit(Scheme::kT5);
constexpr unsigned kXpos = SchemeBit(Scheme::kXpos);
constexpr unsigned kMrope = SchemeBit(Scheme::kMrope);
constexpr double kInf = std::numeric_limits<double>::infinity();

// Which RoPE scalings a parameter belongs to, for WhyNotApplicable.
std::string NeedsScaling(const ModelParams& m, std::initializer_list<RopeScaling> scalings,
                         const char* which) {
  const RopeScaling s = m.pe.rope().scaling;
  for (RopeScaling ok : scalings) {
    if (s == ok) return {};
  }
  return std::string("it applies to --rope-scaling ") + which + ", not " +
         std::string(RopeScalingName(s));
}

// A value a loaded table fixes (model/model_params.h: d_model follows the embedding or position
// table's columns, T5's buckets and heads its bias table's shape): refused when it differs.
Status FollowsTable(const ModelParams& m, const char* flag, int64_t value) {
  auto conflict = [&](const TableRef& ref, const char* table_flag, const char* what, int64_t has) {
    return InvalidArgument(std::string(flag) + " " + std::to_string(value) + " conflicts with " +
                           table_flag + " " + Quoted(ref.spec) + ", whose table has " +
                           std::to_string(has) + " " + what + "; it follows the table (give " +
                           std::to_string(has) + " or leave " + flag + " out)");
  };
  const std::string_view f = flag;
  if (f == "--d-model") {
    const TableRef& e = m.example.embeddings;
    if (e.loaded() && e.table->cols() != value)
      return conflict(e, "--embeddings", "columns", e.table->cols());
    if (m.pe.kind() == Scheme::kLearned) {
      const TableRef& t = m.pe.learned().table;
      if (t.loaded() && t.table->cols() != value) {
        return conflict(t, "--positions-table", "columns", t.table->cols());
      }
    }
  }
  if (m.pe.kind() == Scheme::kT5 && m.pe.t5().bias.loaded()) {
    const TableRef& b = m.pe.t5().bias;
    if (f == "--heads" && b.table->cols() != value)
      return conflict(b, "--positions-table", "columns (heads)", b.table->cols());
    if (f == "--t5-buckets" && b.table->rows() != value)
      return conflict(b, "--positions-table", "rows (buckets)", b.table->rows());
  }
  if (f == "--max-len" && m.pe.kind() == Scheme::kLearned && m.pe.learned().table.loaded()) {
    const TableRef& t = m.pe.learned().table;
    if (m.pe.offset + value > t.table->rows()) {
      return InvalidArgument("--max-len " + std::to_string(value) + " is more than the " +
                             std::to_string(t.table->rows() - m.pe.offset) +
                             " rows the position table " + Quoted(t.spec) + " has from position " +
                             std::to_string(m.pe.offset) + " (max_len is at most its rows)");
    }
  }
  return {};
}

// `text` (FILE[:TENSOR]) as a table field takes it, without reading the file: printable text
// that names a file and, after a colon, a tensor.
Status CheckTableText(const char* flag, const std::string& text) {
  if (Status s = CheckText(flag, text); !s.ok()) return s;
  Result<TensorSpec> spec = ParseTensorSpec(text);
  if (!spec.ok()) return InvalidArgument(std::string(flag) + ": " + spec.message());
  return {};
}

// Records the table `text` names in `ref` (read by the load step): a new name drops the table
// and hash held; the name already loaded keeps its table.
void SetTableText(TableRef& ref, const std::string& text) {
  if (text == ref.spec && ref.loaded()) return;
  ref = TableRef{text, 0, nullptr, std::nullopt};
}

// Loads `ref.spec` for `use` through the shared cache, under the cap (the load step).
Result<LoadedTablePtr> LoadRef(const char* flag, const TableRef& ref, TableUse use,
                               const MemoryCap& cap, const Progress& progress) {
  Result<TensorSpec> spec = ParseTensorSpec(ref.spec);
  if (!spec.ok()) return InvalidArgument(std::string(flag) + ": " + spec.message());
  Result<LoadedTablePtr> t = SharedTableCache().Get(spec.value(), use, cap, progress);
  if (!t.ok()) return Error{t.error().kind, std::string(flag) + ": " + t.message()};
  return t;
}

// --embeddings-hash / --positions-table-hash when `ref` is loaded: its table must hash to `text`.
Status CompareHash(const char* flag, const TableRef& ref, const std::string& text) {
  const std::string now = HashText(ref.hash);
  if (text != now) {
    return InvalidArgument(std::string(flag) + ": " + Quoted(ref.spec) + " now hashes to " + now +
                           ", not " + text + ": the file is not the one the figure was made from");
  }
  return {};
}

// --embeddings-hash / --positions-table-hash: 16 hex digits, for the table `table_flag` names.
// Checked at once when the table is loaded, else recorded for the load step to check.
Status SetHash(const char* flag, const char* table_flag, TableRef& ref, const std::string& text) {
  if (ref.spec.empty()) {
    return InvalidArgument(std::string(flag) + " checks the table " + table_flag + " loads; give " +
                           table_flag + " first");
  }
  if (text.size() != 16 || text.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return InvalidArgument(std::string(flag) + " must be 16 lowercase hex digits, got \"" + text +
                           "\"");
  }
  if (ref.loaded()) return CompareHash(flag, ref, text);
  ref.expected_hash = std::stoull(text, nullptr, 16);
  return {};
}

// The load step of a hash field: the table just loaded must have the hash given before it.
Status LoadHash(const char* flag, TableRef& ref) {
  if (!ref.loaded() || !ref.expected_hash) return {};
  const std::string want = HashText(*ref.expected_hash);
  ref.expected_hash.reset();
  return CompareHash(flag, ref, want);
}

// ---- the typed builders: each field's parsing, checks and messages live here once.

// Where a field's value lives in the parameters, for a const and a mutable `m` alike:
// AT(m.pe.d_model). (A captureless lambda: its type is the accessor, default-constructible.)
#define AT(...)          \
  [](auto& m) -> auto& { \
    return __VA_ARGS__;  \
  }

// Values v with lo < v (open) or lo <= v, and so on; `says` words the rule for the message.
constexpr NumberRule Over(double lo, std::string_view says) {
  return {lo, true, kInf, false, false, says};
}
constexpr NumberRule AtLeast(double lo, std::string_view says) {
  return {lo, false, kInf, false, false, says};
}
constexpr NumberRule Within(double lo, bool lo_open, double hi, std::string_view says) {
  return {lo, lo_open, hi, false, false, says};
}
constexpr NumberRule Finite(std::string_view says) {
  return {-kInf, false, kInf, false, false, says};
}
constexpr NumberRule NotZero(std::string_view says) {
  return {-kInf, false, kInf, false, true, says};
}

Result<double> ParseRuled(std::string_view flag, const std::string& text, const NumberRule& r) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, std::chars_format::general);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v) || !r.Accepts(v)) {
    return InvalidArgument(std::string(flag) + " must be " + std::string(r.says) + ", got \"" +
                           text + "\"");
  }
  return v;
}

template <typename At>
constexpr FieldValue Number(At, NumberRule rule) {
  FieldValue v;
  v.value_name = "NUMBER";
  v.number = rule;
  v.get = [](const ParamField&, const ModelParams& m) { return Num(At{}(m)); };
  v.set = [](const ParamField& f, ModelParams& m, const std::string& text) -> Status {
    Result<double> x = ParseRuled(f.flag, text, f.value.number);
    if (!x.ok()) return x.error();
    At{}(m) = x.value();
    return {};
  };
  return v;
}

// A whole number in [lo, hi]; with `follows_table`, also the value a loaded table fixes.
constexpr bool kFollowsTable = true;
template <typename At>
constexpr FieldValue Int(At, int64_t lo, int64_t hi, bool follows_table = false) {
  FieldValue v;
  v.value_name = "INT";
  v.lo = lo;
  v.hi = hi;
  v.follows_table = follows_table;
  v.get = [](const ParamField&, const ModelParams& m) { return std::to_string(At{}(m)); };
  v.set = [](const ParamField& f, ModelParams& m, const std::string& text) -> Status {
    Result<int64_t> x = ParseInteger(std::string(f.flag), text, f.value.lo, f.value.hi);
    if (!x.ok()) return x.error();
    if (f.value.follows_table) {
      if (Status s = FollowsTable(m, f.flag.data(), x.value()); !s.ok()) return s;
    }
    At{}(m) = x.value();
    return {};
  };
  return v;
}

// A seed: any uint64; `then` passes it on.
template <typename At>
constexpr FieldValue Unsigned(At, void (*then)(ModelParams&) = nullptr) {
  FieldValue v;
  v.value_name = "INT";
  v.then = then;
  v.get = [](const ParamField&, const ModelParams& m) { return std::to_string(At{}(m)); };
  v.set = [](const ParamField& f, ModelParams& m, const std::string& text) -> Status {
    Result<uint64_t> x = ParseUnsigned(std::string(f.flag), text, kMaxSeed);
    if (!x.ok()) return x.error();
    At{}(m) = x.value();
    if (f.value.then) f.value.then(m);
    return {};
  };
  return v;
}

// A list of numbers > 0 separated by commas (LongRoPE's factors): spaces around the numbers
// and one pair of enclosing brackets are allowed, so a config.json array pastes as it is.
// Each number's shortest text is recorded, so the list reads back to the same doubles.
Result<std::vector<double>> ParseFactorList(std::string_view flag, const std::string& text) {
  std::string_view t = text;
  auto trim = [](std::string_view v) {
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    return v;
  };
  t = trim(t);
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = trim(t.substr(1, t.size() - 2));
  if (t.empty()) {
    return InvalidArgument(std::string(flag) +
                           " must be a comma-separated list of numbers > 0, got \"" + text + "\"");
  }
  std::vector<double> out;
  size_t start = 0;
  while (true) {
    const size_t comma = t.find(',', start);
    const std::string_view item =
        trim(t.substr(start, comma == std::string_view::npos ? t.npos : comma - start));
    double v = 0;
    const char* end = item.data() + item.size();
    auto [ptr, ec] = std::from_chars(item.data(), end, v, std::chars_format::general);
    if (item.empty() || ec != std::errc() || ptr != end || !std::isfinite(v) || !(v > 0.0)) {
      return InvalidArgument(std::string(flag) + " numbers must be finite and > 0, got \"" +
                             std::string(item) + "\" at position " +
                             std::to_string(out.size() + 1));
    }
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

template <typename At>
constexpr FieldValue FactorList(At) {
  FieldValue v;
  v.value_name = "LIST";
  v.get = [](const ParamField&, const ModelParams& m) {
    std::string s;
    for (double x : At{}(m)) {
      if (!s.empty()) s += ',';
      s += Num(x);
    }
    return s;
  };
  v.set = [](const ParamField& f, ModelParams& m, const std::string& text) -> Status {
    Result<std::vector<double>> x = ParseFactorList(f.flag, text);
    if (!x.ok()) return x.error();
    At{}(m) = std::move(x.value());
    return {};
  };
  return v;
}

// The names of an enum as its name table has them, in the order of its values: "one of a, b, c"
// or "a, b or c".
enum class Listed { kOneOf, kEither };
template <auto Name, auto Parse>
std::string NamesOf(Listed listed) {
  using E = typename decltype(Parse(std::string_view()))::value_type;
  std::vector<std::string_view> names;
  for (int k = 0;; ++k) {
    const std::optional<E> back = Parse(Name(static_cast<E>(k)));
    if (!back || *back != static_cast<E>(k)) break;
    names.push_back(Name(static_cast<E>(k)));
  }
  std::string out = listed == Listed::kOneOf ? "one of " : "";
  for (size_t k = 0; k < names.size(); ++k) {
    if (k > 0) out += listed == Listed::kOneOf || k + 1 < names.size() ? ", " : " or ";
    out += names[k];
  }
  return out;
}

Status BadChoice(std::string_view flag, const std::string& names, const std::string& text) {
  return InvalidArgument(std::string(flag) + " must be " + names + ", got \"" + text + "\"" +
                         DidYouMean(text, WordsOfList(names)));
}

// One of an enum's names (Name and Parse: its name table).
template <auto Name, auto Parse, typename At>
constexpr FieldValue Choice(At, Listed listed) {
  FieldValue v;
  v.value_name = "NAME";
  v.one_of = listed == Listed::kOneOf;
  v.get = [](const ParamField&, const ModelParams& m) { return std::string(Name(At{}(m))); };
  v.set = [](const ParamField& f, ModelParams& m, const std::string& text) -> Status {
    const auto x = Parse(text);
    if (!x) {
      return BadChoice(
          f.flag, NamesOf<Name, Parse>(f.value.one_of ? Listed::kOneOf : Listed::kEither), text);
    }
    At{}(m) = *x;
    return {};
  };
  return v;
}

// A switch: given (or "true", or `given` as metadata records it), the bool becomes `Sets`;
// `other` is what metadata records otherwise.
template <bool Sets, typename At>
constexpr FieldValue Switch(At, std::string_view given, std::string_view other,
                            void (*then)(ModelParams& m) = nullptr) {
  FieldValue v;
  v.value_name = "";
  v.given = given;
  v.other = other;
  v.then = then;
  v.get = [](const ParamField& f, const ModelParams& m) {
    return std::string(At{}(m) == Sets ? f.value.given : f.value.other);
  };
  v.set = [](const ParamField& f, ModelParams& m, const std::string& text) -> Status {
    At{}(m) = (text == "true" || text == f.value.given) ? Sets : !Sets;
    if (f.value.then) f.value.then(m);
    return {};
  };
  return v;
}

// A field with rules of its own: its value name and its text's get and set.
constexpr FieldValue Custom(std::string_view value_name,
                            std::string (*get)(const ParamField&, const ModelParams&),
                            Status (*set)(const ParamField&, ModelParams&, const std::string&),
                            Status (*load)(const ParamField&, ModelParams&,
                                           const Progress&) = nullptr) {
  FieldValue v;
  v.value_name = value_name;
  v.get = get;
  v.set = set;
  v.load = load;
  return v;
}

// A FILE field (or a file's hash) with its load step.
constexpr FieldValue Loads(FieldValue v,
                           Status (*load)(const ParamField&, ModelParams&, const Progress&)) {
  v.load = load;
  return v;
}

// Shared by RoPE and xPos (the base and the table shown), by ALiBi and T5 (heads, the head shown).
#define THETA                                          \
  m.pe.kind() == Scheme::kXpos    ? m.pe.xpos().theta  \
  : m.pe.kind() == Scheme::kMrope ? m.pe.mrope().theta \
                                  : m.pe.rope().theta
#define PART                                          \
  m.pe.kind() == Scheme::kXpos    ? m.pe.xpos().part  \
  : m.pe.kind() == Scheme::kMrope ? m.pe.mrope().part \
                                  : m.pe.rope().part
// Shared by RoPE and M-RoPE.
#define PAIRING m.pe.kind() == Scheme::kMrope ? m.pe.mrope().pairing : m.pe.rope().pairing
#define HEADS m.pe.kind() == Scheme::kT5 ? m.pe.t5().heads : m.pe.alibi().heads
#define HEAD m.pe.kind() == Scheme::kT5 ? m.pe.t5().head : m.pe.alibi().head

using Get = std::string (*)(const ParamField&, const ModelParams&);
using Set = Status (*)(const ParamField&, ModelParams&, const std::string&);
std::string NoText(const ParamField&, const ModelParams&) {
  return {};
}

std::string NotScaledWhenNone(const ModelParams& m) {
  if (m.pe.rope().scaling == RopeScaling::kLongrope) {
    return "longrope takes s = --max-position-embeddings / --original-max-len, not a factor";
  }
  return m.pe.rope().scaling == RopeScaling::kNone
             ? "it applies to a --rope-scaling other than none"
             : "";
}
std::string YarnOnly(const ModelParams& m) {
  return NeedsScaling(m, {RopeScaling::kYarn}, "yarn");
}
std::string Llama3Only(const ModelParams& m) {
  return NeedsScaling(m, {RopeScaling::kLlama3}, "llama3");
}
std::string ExtendingOnly(const ModelParams& m) {
  return NeedsScaling(
      m,
      {RopeScaling::kDynamicNtk, RopeScaling::kYarn, RopeScaling::kLlama3, RopeScaling::kLongrope},
      "dynamic-ntk, yarn, llama3 or longrope");
}
std::string DynamicNtkOnly(const ModelParams& m) {
  return NeedsScaling(m, {RopeScaling::kDynamicNtk, RopeScaling::kLongrope},
                      "dynamic-ntk or longrope");
}
std::string YarnOrLongrope(const ModelParams& m) {
  return NeedsScaling(m, {RopeScaling::kYarn, RopeScaling::kLongrope}, "yarn or longrope");
}
std::string LongropeOnly(const ModelParams& m) {
  return NeedsScaling(m, {RopeScaling::kLongrope}, "longrope");
}
// Recorded only when given: an empty value is no value the flag accepts.
bool HasTokenizerFile(const ModelParams& m) {
  return !m.example.tokenizer_file.empty();
}
// Recorded with a tokenizer file, and whenever it is not the default (so a session saved
// before the file is chosen keeps the choice).
bool RecordsSpecialTokens(const ModelParams& m) {
  return HasTokenizerFile(m) || m.example.special_tokens != SpecialTokens::kAdd;
}
bool HasIds(const ModelParams& m) {
  return !m.example.ids.empty();
}
bool HasVocabSize(const ModelParams& m) {
  return !m.example.ids.empty() || m.example.vocab_size != 0;
}
bool HasEmbeddingRows(const ModelParams& m) {
  return !m.example.embedding_rows.empty();
}
bool HasPositionalRows(const ModelParams& m) {
  return !m.example.positional_rows.empty();
}
bool HasMropeImages(const ModelParams& m) {
  return !m.pe.mrope().images.empty();
}

bool HasMropePatch(const ModelParams& m) {
  return m.mrope_patch.image >= 0;
}
bool HasCheckTable(const ModelParams& m) {
  return !m.check_table.empty();
}
bool HasEmbeddings(const ModelParams& m) {
  return m.example.embeddings.loaded();
}
bool HasPositionsTable(const ModelParams& m) {
  return m.pe.kind() == Scheme::kT5 ? m.pe.t5().bias.loaded() : m.pe.learned().table.loaded();
}
void SeedTheTables(ModelParams& m) {
  if (m.pe.kind() == Scheme::kLearned) m.pe.learned().seed = m.example.seed;
  if (m.pe.kind() == Scheme::kT5) m.pe.t5().seed = m.example.seed;
}

// ---- the fields with rules of their own (set and get as text)

// --causal given: the causal mask replaces any other window (the two are one choice).
void CausalReplacesWindow(ModelParams& m) {
  if (m.causal_mask) m.attention_window = {};
}

std::string AttentionWindowField(const ParamField&, const ModelParams& m) {
  return AttentionWindowText(EffectiveAttentionWindow(m));
}
Status SetAttentionWindow(const ParamField&, ModelParams& m, const std::string& text) {
  Result<AttentionWindow> w = ParseAttentionWindow(text);
  if (!w.ok()) return w.error();
  // causal stays in causal_mask (its own field, --causal), so metadata and sessions read as before.
  m.causal_mask = w.value().kind == AttentionWindowKind::kCausal;
  m.attention_window = m.causal_mask ? AttentionWindow{} : w.value();
  return {};
}
// Recorded only for the windows --causal cannot say, so other figures' metadata is unchanged.
bool HasBandedWindow(const ModelParams& m) {
  return m.attention_window.banded();
}
// Recorded only when not the default, so the figures and sessions of other views are as before.
bool DecayNormGiven(const ModelParams& m) {
  return m.decay_norm != DecayNorm::kRaw;
}
bool DecayLogYGiven(const ModelParams& m) {
  return m.decay_log_y;
}
bool ScorePartGiven(const ModelParams& m) {
  return m.score_part != ScorePart::kAll;
}

std::string SoftmaxScaleText(const ParamField&, const ModelParams& m) {
  return m.softmax_scale > 0 ? Num(m.softmax_scale) : std::string("default");
}
Status SetSoftmaxScale(const ParamField& f, ModelParams& m, const std::string& text) {
  if (text == "default") {
    m.softmax_scale = 0;
    return {};
  }
  Result<double> v = ParseRuled(
      f.flag, text,
      Over(0,
           "a finite number greater than 0 (or default: 1/sqrt(d_model), the head dimension "
           "for the rotary schemes)"));
  if (!v.ok()) return v.error();
  m.softmax_scale = v.value();
  return {};
}
bool HasSoftmaxScale(const ModelParams& m) {
  return m.softmax_scale > 0;
}

Status SetMemoryCap(const ParamField& f, ModelParams& m, const std::string& text) {
  Result<int64_t> v = ParseInteger(std::string(f.flag), text, 1, int64_t{1} << 40);
  if (!v.ok()) return v.error();
  m.cap.bytes = static_cast<uint64_t>(v.value()) << 20;
  return {};
}

bool TemperatureChosen(const ModelParams& m) {
  return m.temperature.kind != TemperatureKind::kNone;
}

std::string NoTemperature(const ModelParams& m) {
  return TemperatureChosen(m) ? std::string()
                              : "it applies with --attention-temperature llama4 (a temperature "
                                "of the query position)";
}

Status SetSchemeText(const ParamField& f, ModelParams& m, const std::string& text) {
  std::optional<Scheme> s = ParseScheme(text);
  if (!s) return BadChoice(f.flag, NamesOf<&SchemeName, &ParseScheme>(Listed::kOneOf), text);
  SetScheme(m, *s);
  return {};
}

Status SetInit(const ParamField& f, ModelParams& m, const std::string& text) {
  std::optional<InitChoice> choice = ParseInitChoice(text);
  if (!choice) return BadChoice(f.flag, kInitChoices, text);
  m.example.init = choice->init;
  m.example.torch_seed = choice->torch_seed;
  m.example.torch_kernel = choice->torch_kernel;
  // PyTorch's stream belongs to the token table; the position table keeps its own.
  if (m.pe.kind() == Scheme::kLearned && choice->init != EmbeddingInit::kTorch) {
    m.pe.learned().init = choice->init;
  }
  return {};
}

Status SetLearnedInit(const ParamField& f, ModelParams& m, const std::string& text) {
  std::optional<LearnedInit> init = ParseLearnedInit(text);
  if (!init) return BadChoice(f.flag, kEmbeddingInitChoices, text);
  m.pe.learned().init = *init;
  return {};
}

Status SetAttentionFactor(const ParamField& f, ModelParams& m, const std::string& text) {
  if (text == "default") {
    m.pe.rope().attention_factor.reset();
    return {};
  }
  Result<double> v = ParseRuled(f.flag, text, Over(0, "a finite number > 0 or default"));
  if (!v.ok()) return v.error();
  m.pe.rope().attention_factor = v.value();
  return {};
}

// --yarn-truncate true|false (HF's truncate key, a JSON bool).
Status SetYarnTruncate(const ParamField& f, ModelParams& m, const std::string& text) {
  if (text != "true" && text != "false") {
    return InvalidArgument(std::string(f.flag) + " must be true or false, got \"" + text + "\"");
  }
  m.pe.rope().yarn_truncate = text == "true";
  return {};
}

// The YaRN and proportional RoPE fields are recorded only away from their defaults, so figures
// made without them keep their metadata.
bool YarnTruncateOff(const ModelParams& m) {
  return !m.pe.rope().yarn_truncate;
}
bool MscaleGiven(const ModelParams& m) {
  return m.pe.rope().mscale != 0.0;
}
bool MscaleAllDimGiven(const ModelParams& m) {
  return m.pe.rope().mscale_all_dim != 0.0;
}
bool ProportionBelowOne(const ModelParams& m) {
  return m.pe.rope().proportion != 1.0;
}

std::string DimsText(const ParamField&, const ModelParams& m) {
  std::string s;
  for (int64_t d : m.curve_dims) {
    if (!s.empty()) s += ',';
    s += std::to_string(d);
  }
  return s;
}
Status SetDims(const ParamField&, ModelParams& m, const std::string& text) {
  Result<std::vector<int64_t>> v = ParseDimList(text);
  if (!v.ok()) return v.error();
  m.curve_dims = v.value();
  return {};
}

// The path is read by the load step (LoadTextFile), which reports what is wrong with it.
Status SetTextFile(const ParamField&, ModelParams& m, const std::string& text) {
  m.example.text_file = text;
  return {};
}
Status LoadTextFile(const ParamField& f, ModelParams& m, const Progress&) {
  if (!m.example.text_file) return {};
  Result<std::string> t = ReadTextFile(*m.example.text_file, m.cap);
  if (!t.ok()) return Error{t.error().kind, std::string(f.flag) + ": " + t.message()};
  m.example.text = std::move(t).value();
  m.example.text_file.reset();
  return {};
}

Status SetTokenizerFile(const ParamField& f, ModelParams& m, const std::string& text) {
  if (text.empty()) {
    m.example.tokenizer_file.clear();
    m.example.subword.reset();
    return {};
  }
  if (Status s = CheckText(std::string(f.flag), text); !s.ok()) return s;
  if (text != m.example.tokenizer_file) m.example.subword.reset();
  m.example.tokenizer_file = text;
  return {};
}
Status LoadTokenizerFile(const ParamField& f, ModelParams& m, const Progress&) {
  if (m.example.tokenizer_file.empty() || m.example.subword) return {};
  const std::string flag(f.flag);
  Result<std::shared_ptr<const SubwordTokenizer>> t =
      LoadSubwordTokenizer(m.example.tokenizer_file, m.cap);
  if (!t.ok()) {
    return t.error().kind == Error::Kind::kRuntime ? RuntimeError(flag + ": " + t.message())
                                                   : InvalidArgument(flag + ": " + t.message());
  }
  m.example.subword = std::move(t).value();
  return {};
}

Status SetIds(const ParamField&, ModelParams& m, const std::string& text) {
  Result<IdBatch> ids = ParseIds(text);
  if (!ids.ok()) return ids.error();
  Result<int64_t> v = IdsVocabSize(ids.value(), m.example.vocab_size);
  if (!v.ok()) return v.error();
  if (Status s = CheckIdBatch(ids.value(), v.value()); !s.ok()) return s;
  m.example.ids = std::move(ids).value();
  return {};
}

Status SetVocabSize(const ParamField& f, ModelParams& m, const std::string& text) {
  Result<int64_t> v = ParseInteger(std::string(f.flag), text, 0, kMaxVocab);
  if (!v.ok()) return v.error();
  if (v.value() > 0) {
    if (Status s = CheckIdBatch(m.example.ids, v.value()); !s.ok()) {
      return InvalidArgument(std::string(f.flag) + " " + text +
                             " does not hold the ids: " + s.message());
    }
  }
  m.example.vocab_size = v.value();
  return {};
}

template <typename At>
constexpr FieldValue RowsField(At) {
  return Custom(
      "LIST", [](const ParamField&, const ModelParams& m) { return FormatRows(At{}(m)); },
      [](const ParamField& f, ModelParams& m, const std::string& text) -> Status {
        Result<std::vector<std::vector<float>>> rows = ParseRows(text, f.flag.data());
        if (!rows.ok()) return rows.error();
        At{}(m) = std::move(rows).value();
        return {};
      });
}

std::string ContentText(const ParamField&, const ModelParams& m) {
  switch (m.content.kind) {
    case ScoreContent::Kind::kRandom:
      return "random";
    case ScoreContent::Kind::kOnes:
      return "ones";
    case ScoreContent::Kind::kTokens:
      break;
  }
  return "tokens:" + std::to_string(m.content.token_a) + "," + std::to_string(m.content.token_b);
}
Status SetContent(const ParamField&, ModelParams& m, const std::string& text) {
  if (text == "random" || text == "ones") {
    m.content.kind = text == "random" ? ScoreContent::Kind::kRandom : ScoreContent::Kind::kOnes;
    return {};
  }
  const size_t comma = text.find(',');
  if (text.rfind("tokens:", 0) == 0 && comma != std::string::npos) {
    Result<int64_t> a =
        ParseInteger("--content token A", text.substr(7, comma - 7), 0, kMaxPosition);
    Result<int64_t> b = ParseInteger("--content token B", text.substr(comma + 1), 0, kMaxPosition);
    if (a.ok() && b.ok()) {
      m.content = {ScoreContent::Kind::kTokens, a.value(), b.value()};
      return {};
    }
  }
  return InvalidArgument("--content must be random, ones or tokens:A,B (token indices), got \"" +
                         text + "\"" +
                         DidYouMean(text.substr(0, text.find(':')), {"random", "ones", "tokens"}));
}

Status SetCompare(const ParamField&, ModelParams& m, const std::string& text) {
  const std::string names = NamesOf<&SchemeName, &ParseScheme>(Listed::kOneOf).substr(7);
  size_t start = 0;
  while (!text.empty() && start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string name = text.substr(start, comma - start);
    if (name.rfind("layer:", 0) == 0) {
      // A layer of the opened model (checked against its layers when the view is drawn).
      Result<int64_t> layer = ParseInteger("--compare " + name, name.substr(6), 0, kMaxPosition);
      if (!layer.ok()) return layer.error();
    } else if (!ParseScheme(name)) {
      return InvalidArgument("--compare: \"" + name + "\" is not a scheme (" + names +
                             ") or layer:N, in \"" + text + "\"" +
                             DidYouMean(name, WordsOfList(names)));
    }
    start = comma + 1;
  }
  m.compare = text;
  return {};
}

Status SetVersus(const ParamField&, ModelParams& m, const std::string& text) {
  if (Result<ModelParams> b = ApplyVersus(m, text); !b.ok()) return b.error();
  m.versus = text;
  return {};
}

Status SetCheckTable(const ParamField& f, ModelParams& m, const std::string& text) {
  const std::string flag(f.flag);
  if (Status s = CheckText(flag, text); !s.ok()) return s;
  if (!text.empty()) {
    Result<TensorSpec> spec = ParseTensorSpec(text);
    if (!spec.ok()) return InvalidArgument(flag + ": " + spec.message());
  }
  m.check_table = text;
  return {};
}

// --model, --model-config, --layer: recorded as text; the model is opened by its caller
// (arch/model_choice.h), so a new name or file drops the schedule opened for the old one.
bool HasModel(const ModelParams& m) {
  return !m.model_name.empty() || !m.model_config.empty();
}
bool HasModelLayer(const ModelParams& m) {
  return HasModel(m) || m.model_layer >= 0;
}
bool HasModelName(const ModelParams& m) {
  return !m.model_name.empty();
}
bool HasModelConfig(const ModelParams& m) {
  return !m.model_config.empty();
}
std::string ModelNameText(const ParamField&, const ModelParams& m) {
  return m.model_name;
}
std::string ModelConfigText(const ParamField&, const ModelParams& m) {
  return m.model_config;
}
std::string ModelLayerText(const ParamField&, const ModelParams& m) {
  return m.model_layer < 0 ? std::string() : std::to_string(m.model_layer);
}
Status SetModelName(const ParamField& f, ModelParams& m, const std::string& text) {
  if (Status s = CheckText(std::string(f.flag), text); !s.ok()) return s;
  if (text != m.model_name) m.model = nullptr;
  m.model_name = text;
  return {};
}
Status SetModelConfig(const ParamField& f, ModelParams& m, const std::string& text) {
  if (Status s = CheckText(std::string(f.flag), text); !s.ok()) return s;
  if (text != m.model_config) m.model = nullptr;
  m.model_config = text;
  return {};
}
Status SetModelLayer(const ParamField& f, ModelParams& m, const std::string& text) {
  // The model's own range is checked when it is opened (ApplyLayer names it); "" is the
  // default, the first positional layer.
  if (text.empty()) {
    m.model_layer = -1;
    return {};
  }
  Result<int64_t> v = ParseInteger(std::string(f.flag), text, 0, int64_t{1} << 30);
  if (!v.ok()) {
    return InvalidArgument(std::string(f.flag) +
                           " must be a layer index, an integer from 0 (the model's own range is "
                           "checked when it opens), got \"" +
                           text + "\"");
  }
  m.model_layer = v.value();
  return {};
}

Status SetEmbeddings(const ParamField& f, ModelParams& m, const std::string& text) {
  if (text.empty()) {
    m.example.embeddings = {};
    return {};
  }
  if (Status s = CheckTableText(f.flag.data(), text); !s.ok()) return s;
  SetTableText(m.example.embeddings, text);
  return {};
}
Status LoadEmbeddings(const ParamField& f, ModelParams& m, const Progress& progress) {
  TableRef& ref = m.example.embeddings;
  if (ref.spec.empty() || ref.loaded()) return {};
  Result<LoadedTablePtr> t = LoadRef(f.flag.data(), ref, TableUse::kEmbeddings, m.cap, progress);
  if (!t.ok()) return t.error();
  const int64_t cols = t.value()->cols();
  if (cols > kMaxDModel) {
    return InvalidArgument("--embeddings: " + Quoted(ref.spec) + " has " + std::to_string(cols) +
                           " columns; d_model must be at most " + std::to_string(kMaxDModel));
  }
  ref.hash = t.value()->hash();
  ref.table = std::move(t).value();
  m.pe.d_model = cols;
  return {};
}

TableRef& PositionsTable(ModelParams& m) {
  return m.pe.kind() == Scheme::kT5 ? m.pe.t5().bias : m.pe.learned().table;
}
const TableRef& PositionsTable(const ModelParams& m) {
  return m.pe.kind() == Scheme::kT5 ? m.pe.t5().bias : m.pe.learned().table;
}

Status SetPositionsTable(const ParamField& f, ModelParams& m, const std::string& text) {
  if (text.empty()) {
    PositionsTable(m) = {};
    return {};
  }
  if (Status s = CheckTableText(f.flag.data(), text); !s.ok()) return s;
  SetTableText(PositionsTable(m), text);
  return {};
}
// The shape rules follow the table: T5's buckets and heads, or d_model and max_len.
Status LoadPositionsTable(const ParamField& f, ModelParams& m, const Progress& progress) {
  TableRef& held = PositionsTable(m);
  if (held.spec.empty() || held.loaded()) return {};
  const std::string text = held.spec;
  Result<LoadedTablePtr> loaded =
      LoadRef(f.flag.data(), held, TableUse::kPositions, m.cap, progress);
  if (!loaded.ok()) return loaded.error();
  TableRef ref{text, loaded.value()->hash(), loaded.value(), held.expected_hash};
  const LoadedTable& t = *ref.table;
  if (m.pe.kind() == Scheme::kT5) {
    if (t.cols() > 4096 || t.rows() < 2 || t.rows() > (int64_t{1} << 20)) {
      return InvalidArgument("--positions-table: " + Quoted(text) + " has shape (" +
                             std::to_string(t.rows()) + ", " + std::to_string(t.cols()) +
                             "); a T5 relative_attention_bias is (buckets, heads) with 2 to "
                             "1048576 buckets and 1 to 4096 heads");
    }
    T5Params& p = m.pe.t5();
    p.buckets = t.rows();
    p.heads = t.cols();
    p.head = std::min(p.head, p.heads - 1);
    p.bias = std::move(ref);
    return {};
  }
  if (t.cols() > kMaxDModel) {
    return InvalidArgument("--positions-table: " + Quoted(text) + " has " +
                           std::to_string(t.cols()) + " columns; d_model must be at most " +
                           std::to_string(kMaxDModel));
  }
  if (m.pe.offset >= t.rows()) {
    return InvalidArgument("--positions-table: " + Quoted(text) + " has " +
                           std::to_string(t.rows()) + " rows, none from --offset " +
                           std::to_string(m.pe.offset));
  }
  m.pe.d_model = t.cols();
  // The table is shown whole: max_len follows its rows from the offset (a --max-len given is
  // applied again after it, and may only be smaller).
  m.pe.max_len = std::min<int64_t>(t.rows() - m.pe.offset, kMaxPosition + 1);
  m.pe.learned().table = std::move(ref);
  return {};
}

// ---- the table

const ParamField kFields[] = {
    // Before anything that allocates or loads (a preset's tables, --tokenizer-file, --embeddings,
    // ...), whatever the order of the flags, a session or a figure's metadata.
    {"", "--memory-cap-mib", "Largest table a request may allocate, in MiB", kAllSchemes,
     Custom(
         "INT",
         [](const ParamField&, const ModelParams& m) { return std::to_string(m.cap.bytes >> 20); },
         &SetMemoryCap)},
    // Next: it resets the parameters to a seed's example (keeping the cap), which the flags after
    // it adjust.
    {"", "--walkthrough-preset",
     "A tutorial's example for the walkthrough: the-cat-sits, blog-position-2, i-love-nlp, "
     "jax-pitfall, embedding-ids, embedding-batch; for the attention walkthrough "
     "rope-positions-2-and-5, alibi-8-heads, t5-buckets-of-a-sentence, llama-3-1-past-8192, "
     "gpt2-learned-vs-sinusoid (none: the current example)",
     kAllSchemes,
     Custom(
         "NAME",
         [](const ParamField&, const ModelParams& m) {
           return m.walkthrough_preset.empty() ? std::string("none") : m.walkthrough_preset;
         },
         [](const ParamField&, ModelParams& m, const std::string& text) {
           return ApplyWalkthroughPreset(text, m);
         })},
    {"scheme", "--scheme",
     "Positional scheme: sinusoidal, learned, rope, alibi, t5, xpos, none (NoPE) or mrope",
     kAllSchemes,
     Custom(
         "NAME",
         [](const ParamField&, const ModelParams& m) {
           return std::string(SchemeName(m.pe.kind()));
         },
         &SetSchemeText)},
    {"d_model", "--d-model",
     "Table width: the model width d_model, or the head dimension for rope (1 to 65536)",
     kAllSchemes, Int(AT(m.pe.d_model), 1, kMaxDModel, kFollowsTable)},
    {"max_len", "--max-len",
     "Positions in the table (1 to 2^31); a loaded --positions-table sets it to its rows unless "
     "given",
     kAllSchemes, Int(AT(m.pe.max_len), 1, kMaxPosition + 1, kFollowsTable)},
    // A preset sets the sinusoidal parameters and the first position of a known implementation
    // (after the width, which one of them depends on); flags after it in this table (offset,
    // variant, ...) still override what it set.
    {"", "--preset",
     "Sinusoidal preset named after the code it copies (fairseq, whisper, ...; see "
     "`export --list-presets`)",
     kSin,
     Custom("NAME", &NoText,
            [](const ParamField&, ModelParams& m, const std::string& text) {
              return ApplySinusoidalPreset(text, m.pe);
            })},
    {"offset", "--offset",
     "Position of the first table row (negative only for sinusoidal: relative offsets)",
     kAllSchemes, Int(AT(m.pe.offset), -kMaxPosition, kMaxPosition)},
    // ---- sinusoidal
    {"variant", "--variant", "Sinusoidal column layout: paper, t2t or tf-text", kSin,
     Choice<&VariantName, &ParseVariant>(AT(m.pe.sinusoidal().variant), Listed::kOneOf)},
    {"order", "--order", "Which wave comes first: sin-first or cos-first (MusicGen)", kSin,
     Choice<&WaveOrderName, &ParseWaveOrder>(AT(m.pe.sinusoidal().order), Listed::kEither)},
    {"base", "--base", "Base of the frequencies = the max timescale (> 1)", kSin,
     Number(AT(m.pe.sinusoidal().base), Over(1, "a finite number greater than 1"))},
    {"min_timescale", "--min-timescale",
     "Min timescale (tensor2tensor, Flax, TF Model Garden; > 0, below the base)", kSin,
     Number(AT(m.pe.sinusoidal().min_timescale), Over(0, "a finite number greater than 0"))},
    {"output_scale", "--output-scale",
     "Multiplies every value (x-transformers uses d^-0.5; non-zero)", kSin,
     Number(AT(m.pe.sinusoidal().output_scale), NotZero("a finite non-zero number"))},
    // ---- the embedding tables' initialisers
    // --init names the initialiser of the model's embedding tables, as GPT-2 and BERT use one
    // initializer_range for both and fairseq draws both from N(0, d^-0.5): the token embeddings
    // for every scheme and, with the learned scheme, the position table too. --learned-init
    // (after it, so metadata read back in order restores both) sets the position table alone.
    {"init", "--init",
     "Initialiser of the embedding tables (the token embeddings; with the learned scheme the "
     "position table too): normal-1 = N(0,1) (torch nn.Embedding), normal-scaled = "
     "N(0, 1/d_model) (fairseq Embedding, tensor2tensor), normal-0.02 = N(0, 0.02^2) (GPT-2, "
     "BERT initializer_range), truncated-normal = N(0,1) cut to [-2, 2], std 0.88 (Haiku "
     "hk.Embed) or torch:SEED = PyTorch's own numbers, torch.manual_seed(SEED); "
     "nn.Embedding(V, d_model).weight with V from --vocab-size (token table only; V * d_model "
     "<= 2^28), as torch computes them on a CPU with AVX2; torch-scalar:SEED the same with "
     "torch's scalar kernel (ATEN_CPU_CAPABILITY=default; the last bits differ)",
     kAllSchemes,
     Custom(
         "NAME",
         [](const ParamField&, const ModelParams& m) {
           return InitChoiceName({m.example.init, m.example.torch_seed, m.example.torch_kernel});
         },
         &SetInit)},
    {"learned_init", "--learned-init",
     "Initialiser of the learned position table alone (default normal-0.02 as GPT-2, BERT): "
     "normal-1, normal-scaled, normal-0.02 or truncated-normal",
     kLearned,
     Custom(
         "NAME",
         [](const ParamField&, const ModelParams& m) {
           return std::string(LearnedInitName(m.pe.learned().init));
         },
         &SetLearnedInit)},
    // ---- rope
    {"rope_theta", "--rope-theta", "RoPE base rope_theta (> 1)", kRope | kXpos | kMrope,
     Number(AT(THETA), Over(1, "a finite number greater than 1"))},
    {"rope_pairing", "--rope-pairing",
     "Which dims rotate together: half (HF rotate_half, i with i + d_rot/2) or interleaved "
     "(2i with 2i+1; Meta Llama, GPT-J, RoFormer)",
     kRope | kMrope, Choice<&RopePairingName, &ParseRopePairing>(AT(PAIRING), Listed::kEither)},
    {"rotary_fraction", "--rotary-fraction",
     "Fraction of the head dims that rotate, (0, 1] (GPT-NeoX 0.25); d_rot must be even", kRope,
     Number(AT(m.pe.rope().rotary_fraction), Within(0, true, 1, "a number in (0, 1]"))},
    {"rope_scaling", "--rope-scaling",
     "Context extension: none, linear, ntk, dynamic-ntk, yarn, llama3 or longrope", kRope,
     Choice<&RopeScalingName, &ParseRopeScaling>(AT(m.pe.rope().scaling), Listed::kOneOf)},
    {"scaling_factor", "--scaling-factor", "rope_scaling factor s (>= 1)", kRope,
     Number(AT(m.pe.rope().factor), AtLeast(1, "a finite number >= 1")), &NotScaledWhenNone},
    {"original_max_len", "--original-max-len",
     "original_max_position_embeddings: the context the model was trained on (>= 1)", kRope,
     Int(AT(m.pe.rope().original_max_len), 1, kMaxPosition + 1), &ExtendingOnly},
    {"beta_fast", "--beta-fast", "YaRN beta_fast (> beta_slow)", kRope,
     Number(AT(m.pe.rope().beta_fast), Over(0, "a finite number > 0")), &YarnOnly},
    {"beta_slow", "--beta-slow", "YaRN beta_slow (> 0)", kRope,
     Number(AT(m.pe.rope().beta_slow), Over(0, "a finite number > 0")), &YarnOnly},
    {"attention_factor", "--attention-factor",
     "YaRN / LongRoPE attention factor multiplying cos and sin (> 0; default: YaRN 0.1 ln s + 1, "
     "LongRoPE sqrt(1 + ln s / ln original))",
     kRope,
     Custom(
         "NUMBER",
         [](const ParamField&, const ModelParams& m) {
           return m.pe.rope().attention_factor ? Num(*m.pe.rope().attention_factor) : "default";
         },
         &SetAttentionFactor),
     &YarnOrLongrope},
    {"low_freq_factor", "--low-freq-factor", "Llama 3 low_freq_factor (> 0)", kRope,
     Number(AT(m.pe.rope().low_freq_factor), Over(0, "a finite number > 0")), &Llama3Only},
    {"high_freq_factor", "--high-freq-factor", "Llama 3 high_freq_factor (> low_freq_factor)",
     kRope, Number(AT(m.pe.rope().high_freq_factor), Over(0, "a finite number > 0")), &Llama3Only},
    {"sequence_len", "--sequence-len",
     "Dynamic NTK and LongRoPE: the current sequence length (0: the table's last position + 1)",
     kRope, Int(AT(m.pe.rope().sequence_len), 0, kMaxPosition + 1), &DynamicNtkOnly},
    {"short_factor", "--short-factor",
     "LongRoPE short_factor: d_rot/2 comma-separated numbers > 0 dividing each pair's frequency "
     "while the sequence length is at most --original-max-len",
     kRope, FactorList(AT(m.pe.rope().short_factor)), &LongropeOnly},
    {"long_factor", "--long-factor",
     "LongRoPE long_factor: d_rot/2 comma-separated numbers > 0 dividing each pair's frequency "
     "once the sequence length passes --original-max-len",
     kRope, FactorList(AT(m.pe.rope().long_factor)), &LongropeOnly},
    {"max_position_embeddings", "--max-position-embeddings",
     "LongRoPE max_position_embeddings M: the extended context; s = M / original sets the "
     "default attention factor (>= 1)",
     kRope, Int(AT(m.pe.rope().max_position_embeddings), 1, kMaxPosition + 1), &LongropeOnly},
    {"yarn_truncate", "--yarn-truncate",
     "YaRN: floor / ceil the correction range's ends, true (HF's default) or false (GPT-OSS: "
     "keep the fractional ends)",
     kRope,
     Custom(
         "BOOL",
         [](const ParamField&,
            const ModelParams&
                m) { return std::string(m.pe.rope().yarn_truncate ? "true" : "false"); },
         &SetYarnTruncate),
     &YarnOnly, &YarnTruncateOff},
    {"mscale", "--mscale",
     "YaRN mscale (DeepSeek; >= 0, 0: not given): with --mscale-all-dim, attention factor "
     "(0.1 mscale ln s + 1) / (0.1 mscale_all_dim ln s + 1)",
     kRope, Number(AT(m.pe.rope().mscale), AtLeast(0, "a finite number >= 0 (0: not given)")),
     &YarnOnly, &MscaleGiven},
    {"mscale_all_dim", "--mscale-all-dim",
     "YaRN mscale_all_dim (DeepSeek; >= 0, 0: not given), the attention factor's denominator",
     kRope,
     Number(AT(m.pe.rope().mscale_all_dim), AtLeast(0, "a finite number >= 0 (0: not given)")),
     &YarnOnly, &MscaleAllDimGiven},
    {"rope_proportion", "--rope-proportion",
     "Proportional RoPE (p-RoPE, Gemma 4), (0, 1]: the first floor(P d / 2) pairs turn at "
     "theta^(-2i/d) over the whole head, the rest never turn (frequency 0); the table stays d "
     "wide. Unlike --rotary-fraction, which leaves the rest out",
     kRope, Number(AT(m.pe.rope().proportion), Within(0, true, 1, "a number in (0, 1]")), nullptr,
     &ProportionBelowOne},
    {"part", "--part",
     "RoPE / xPos table the heatmap shows and exports: cos, sin (max_len, d_rot) or angle "
     "(max_len, d_rot/2)",
     kRope | kXpos | kMrope, Choice<&RopePartName, &ParseRopePart>(AT(PART), Listed::kOneOf)},
    {"dtype", "--dtype",
     "Precision view: the format the table is stored in, bf16 (bfloat16: 8 significant bits, "
     "float32's range) or fp16 (float16: 11 significant bits, max 65504)",
     kAllSchemes, Choice<&DtypeName, &ParseDtype>(AT(m.dtype), Listed::kEither)},
    // ---- ALiBi and T5
    {"heads", "--heads", "Attention heads (ALiBi slopes, T5 biases; 1 to 4096)", kAlibi | kT5,
     Int(AT(HEADS), 1, 4096, kFollowsTable)},
    {"head", "--head", "The head whose bias the views show (0 to heads - 1)", kAlibi | kT5,
     Int(AT(HEAD), 0, 4095)},
    {"alibi_mode", "--alibi-mode",
     "causal: -s (m - n) for keys n <= m; symmetric: -s |m - n| (s the head's slope)", kAlibi,
     Choice<&AlibiModeName, &ParseAlibiMode>(AT(m.pe.alibi().mode), Listed::kEither)},
    {"alibi_max_bias", "--alibi-max-bias",
     "MPT's alibi_bias_max: slopes 2^(-max k / n) (8 in ALiBi; > 0)", kAlibi,
     Number(AT(m.pe.alibi().max_bias), Over(0, "a finite number greater than 0"))},
    {"t5_buckets", "--t5-buckets",
     "T5 relative position buckets (32; >= 2, even and >= 4 when bidirectional)", kT5,
     Int(AT(m.pe.t5().buckets), 2, 1 << 20, kFollowsTable)},
    {"t5_max_distance", "--t5-max-distance",
     "Distance where T5's log-spaced buckets end (128; > the exact distances: "
     "buckets / 4 bidirectional, buckets / 2 causal)",
     kT5, Int(AT(m.pe.t5().max_distance), 1, kMaxPosition)},
    {"t5_direction", "--t5-direction", "bidirectional (encoder) or causal (decoder) buckets", kT5,
     Choice<&T5DirectionName, &ParseT5Direction>(AT(m.pe.t5().direction), Listed::kEither)},
    // ---- xPos
    {"xpos_scale_base", "--xpos-scale-base", "xPos scale_base (512; > 0)", kXpos,
     Number(AT(m.pe.xpos().scale_base), Over(0, "a finite number greater than 0"))},
    {"xpos_side", "--xpos-side",
     "Whose table to show: query (decay zeta^(n/scale_base)) or key (zeta^(-n/scale_base))", kXpos,
     Choice<&XposSideName, &ParseXposSide>(AT(m.pe.xpos().side), Listed::kEither)},
    {"xpos_positions", "--xpos-positions",
     "The n of the decay: absolute (the paper) or centred (torchscale: n - ceil((max_len + "
     "offset) / 2))",
     kXpos,
     Choice<&XposPositionsName, &ParseXposPositions>(AT(m.pe.xpos().positions), Listed::kEither)},
    // ---- M-RoPE
    {"mrope_section", "--mrope-section",
     "M-RoPE mrope_section T,H,W: pairs per position id t, h, w, summing to d_rot/2 "
     "(Qwen2-VL 16,24,24; Qwen3-VL 24,20,20), or auto: the layout's model's proportions for "
     "the head dim",
     kMrope,
     Custom(
         "LIST",
         [](const ParamField&, const ModelParams& m) {
           return MropeSectionText(m.pe.mrope().section);
         },
         [](const ParamField& f, ModelParams& m, const std::string& text) -> Status {
           Result<std::optional<std::array<int64_t, 3>>> s =
               ParseMropeSection(std::string(f.flag), text);
           if (!s.ok()) return s.error();
           m.pe.mrope().section = s.value();
           return {};
         })},
    {"mrope_layout", "--mrope-layout",
     "Which pairs take t, h, w: chunked (Qwen2-VL, Qwen2.5-VL) or interleaved (Qwen3-VL)", kMrope,
     Choice<&MropeLayoutName, &ParseMropeLayout>(AT(m.pe.mrope().layout), Listed::kEither)},
    // Repeatable on the command line (its values joined by new lines); recorded as one list.
    {"mrope_images", "--mrope-image",
     "An image in the sequence: \"at=P,grid=TxHxW\", its first token P and T x H x W patches "
     "(after the spatial merge); repeat for more images, or separate them with ';'",
     kMrope,
     Custom(
         "TEXT",
         [](const ParamField&, const ModelParams& m) {
           return MropeImagesText(m.pe.mrope().images);
         },
         [](const ParamField& f, ModelParams& m, const std::string& text) -> Status {
           Result<std::vector<MropeImage>> v = ParseMropeImages(std::string(f.flag), text);
           if (!v.ok()) return v.error();
           m.pe.mrope().images = std::move(v).value();
           return {};
         }),
     nullptr, &HasMropeImages},
    {"mrope_patch", "--mrope-patch",
     "mrope-neighbours view: the query patch \"image=I,t=T,h=H,w=W\" (the image's index in token "
     "order, the patch's place in its grid, each from 0), or centre (default: the first image's "
     "centre patch)",
     kMrope,
     Custom(
         "TEXT",
         [](const ParamField&, const ModelParams& m) { return MropePatchText(m.mrope_patch); },
         [](const ParamField& f, ModelParams& m, const std::string& text) -> Status {
           Result<MropePatch> v = ParseMropePatch(std::string(f.flag), text);
           if (!v.ok()) return v.error();
           m.mrope_patch = v.value();
           return {};
         }),
     nullptr, &HasMropePatch},
    // ---- the rotation view
    {"rotation_offset", "--rotation-offset",
     "Offset K of the rotation view (sinusoidal): each sin/cos pair of PE(p) is turned by K "
     "times its frequency to PE(p + K); any whole K in [-2147483647, 2147483647] (default 1)",
     kSin, Int(AT(m.rotation_offset), -kMaxPosition, kMaxPosition)},
    // ---- the model input
    {"dims", "--dims", "Columns for the curves, e.g. 4,5,6,7 or 0-3", kAllSchemes,
     Custom("LIST", &DimsText, &SetDims)},
    {"text", "--text",
     "Text for the token sums: a sentence, or several lines (a paragraph, a poem, code); "
     "UTF-8 with tabs and newlines (empty: no tokens)",
     kAllSchemes,
     Custom(
         "TEXT", [](const ParamField&, const ModelParams& m) { return m.example.text; },
         [](const ParamField& f, ModelParams& m, const std::string& text) -> Status {
           if (Status s = CheckMultilineText(std::string(f.flag), text); !s.ok()) return s;
           m.example.text = text;
           return {};
         })},
    // Read into the text (which figures and sessions record): not recorded itself.
    {"", "--text-file",
     "Read the text from a UTF-8 file (a regular file, or a pipe such as /dev/stdin), "
     "newlines and all; replaces --text",
     kAllSchemes, Loads(Custom("FILE", &NoText, &SetTextFile), &LoadTextFile)},
    {"tokenizer", "--tokenizer", "word or char", kAllSchemes,
     Choice<&TokenizerName, &ParseTokenizer>(AT(m.example.tokenizer), Listed::kEither)},
    {"tokenizer_file", "--tokenizer-file",
     "A real subword tokenizer for the text, replacing --tokenizer: a Hugging Face "
     "tokenizer.json (byte-level BPE as GPT-2, Llama 3, Qwen, DeepSeek, GPT-4o; "
     "SentencePiece-style BPE with byte fallback as Llama 2, Mistral, Gemma; Unigram as T5; "
     "WordPiece as BERT), a SentencePiece .model, the tokenizer inside a .gguf, or a folder with "
     "GPT-2's vocab.json + merges.txt or encoder.json + vocab.bpe. The ids are the tokenizer's "
     "and V its size (empty: none)",
     kAllSchemes,
     Loads(Custom(
               "FILE",
               [](const ParamField&, const ModelParams& m) { return m.example.tokenizer_file; },
               &SetTokenizerFile),
           &LoadTokenizerFile),
     nullptr, &HasTokenizerFile},
    // Typed ids replace the text (no tokenizer); before --vocab-size, which checks them.
    {"ids", "--ids",
     "Token ids instead of text: \"2,5,0,9\" (a sequence) or \"23,37,3;97,61,19\" (a batch, "
     "rows separated by ';', all of one length); each id must be in [0, vocab size)",
     kAllSchemes,
     Custom(
         "LIST", [](const ParamField&, const ModelParams& m) { return FormatIds(m.example.ids); },
         &SetIds),
     nullptr, &HasIds},
    {"vocab_size", "--vocab-size",
     "Vocabulary size V: every id must be in [0, V) (1 to 2^24; 0, the default: the largest "
     "id + 1 with --ids, the text's vocabulary without). The embedding rows do not depend on V",
     kAllSchemes,
     Custom(
         "INT",
         [](const ParamField&,
            const ModelParams& m) { return std::to_string(m.example.vocab_size); },
         &SetVocabSize),
     nullptr, &HasVocabSize},
    {"seed", "--seed",
     "Seed of the model's random (untrained) tables: the token embeddings, the learned "
     "position table and T5's bucket biases",
     kAllSchemes, Unsigned(AT(m.example.seed), &SeedTheTables)},
    {"embedding_rows", "--embedding-rows",
     "Embedding rows typed by hand instead of the seeded ones: E[0];E[1];... each d_model "
     "values, e.g. \"0.1,0.3,0.4;0.2,0.6,0.5\"; every id must be below the row count",
     kSin | kLearned, RowsField(AT(m.example.embedding_rows)), nullptr, &HasEmbeddingRows},
    {"positional_rows", "--positional-rows",
     "Positional rows typed by hand, added in place of the scheme's rows: P[0];P[1];... each "
     "d_model values; a token at position p takes P[p], so every position used must be typed",
     kSin | kLearned, RowsField(AT(m.example.positional_rows)), nullptr, &HasPositionalRows},
    {"scaling", "--no-scale", "Do not multiply embeddings by sqrt(d_model)", kSin | kLearned,
     Switch<false>(AT(m.input.scale), "off", "sqrt(d_model)")},
    {"dropout", "--dropout", "Dropout probability p in [0, 1] (train mode only)", kSin | kLearned,
     Number(AT(m.input.dropout), Within(0, false, 1, "a number in [0, 1]"))},
    {"dropout_seed", "--dropout-seed", "Seed of the dropout mask", kSin | kLearned,
     Unsigned(AT(m.input.dropout_seed))},
    {"mode", "--train", "Train mode: apply dropout (eval mode is the identity)", kSin | kLearned,
     Switch<true>(AT(m.input.train), "train", "eval")},
    // ---- the similarity views
    {"measure", "--measure",
     "Similarity views: dot (PE(p).PE(q)) or cosine (the dot over |PE(p)| |PE(q)|)",
     kSin | kLearned | kRope,
     Choice<&SimilarityMeasureName, &ParseSimilarityMeasure>(AT(m.measure), Listed::kEither)},
    // ---- the attention-score views
    {"content", "--content",
     "Attention-score content: random (one seeded vector as q and k), ones, or tokens:A,B "
     "(the embeddings of the sentence's tokens number A and B, e.g. tokens:1,2)",
     kAllSchemes, Custom("NAME", &ContentText, &SetContent)},
    {"causal_mask", "--causal", "Attention scores: hide keys after the query (a decoder)",
     kAllSchemes, Switch<true>(AT(m.causal_mask), "true", "false", &CausalReplacesWindow)},
    {"query", "--query",
     "Attention view: the query position whose softmax row is shown (absolute, offset "
     "included); -1: the table's last position",
     kAllSchemes, Int(AT(m.query), -1, kMaxPosition)},
    {"compare", "--compare",
     "Schemes the decay view draws beside this one, e.g. rope,alibi (each with its defaults and "
     "this shape), or layer:N, layer N of the opened model (--model), e.g. layer:5",
     kAllSchemes,
     Custom(
         "LIST", [](const ParamField&, const ModelParams& m) { return m.compare; }, &SetCompare)},
    {"attention_window", "--attention-window",
     "Attention views' mask: full, causal (as --causal), sliding:W (m - W < n <= m: Mistral, "
     "Gemma 2/3, GPT-OSS), sliding-bidirectional:W (|m - n| <= W/2: ModernBERT's local "
     "attention, W its local_attention) or chunked:C (floor(n/C) = floor(m/C) and n <= m: "
     "Llama 4)",
     kAllSchemes, Custom("NAME", &AttentionWindowField, &SetAttentionWindow), nullptr,
     &HasBandedWindow},
    {"softmax_scale", "--softmax-scale",
     "Attention views: the factor q.k is multiplied by before the bias and the softmax "
     "(default: 1/sqrt(d_model)); e.g. DeepSeek-V3 uses mscale^2/sqrt(d) with mscale = 0.1 ln 40 "
     "+ 1",
     kAllSchemes, Custom("NUMBER", &SoftmaxScaleText, &SetSoftmaxScale), nullptr, &HasSoftmaxScale},
    // Llama 4's query temperature (model_params.h); recorded only when one is chosen (its
    // numbers apply only then), so figures without it keep their metadata.
    {"attention_temperature", "--attention-temperature",
     "Attention scores: scale each query by a temperature of its position: none, or llama4 "
     "(1 + scale ln(floor((p + 1) / floor) + 1), Llama 4's NoPE layers)",
     kAllSchemes,
     Choice<&TemperatureKindName, &ParseTemperatureKind>(AT(m.temperature.kind), Listed::kEither),
     nullptr, &TemperatureChosen},
    {"temperature_scale", "--temperature-scale",
     "Attention temperature: Llama 4's attn_scale (0.1; any finite number)", kAllSchemes,
     Number(AT(m.temperature.scale), Finite("a finite number")), &NoTemperature},
    {"temperature_floor", "--temperature-floor",
     "Attention temperature: Llama 4's floor_scale, positions per step (8192; >= 1)", kAllSchemes,
     Number(AT(m.temperature.floor), AtLeast(1, "a finite number >= 1")), &NoTemperature},
    // ---- the compare view: the second configuration, as overrides of this one's fields
    {"versus", "--versus",
     "Compare view: the second configuration as key=value overrides of this one, e.g. "
     "\"scheme=rope,rope_theta=500000\" or \"d_model=512\" (keys as in figure metadata; applied "
     "in this table's order, the scheme first)",
     kAllSchemes,
     Custom(
         "LIST", [](const ParamField&, const ModelParams& m) { return m.versus; }, &SetVersus)},
    {"compare_of", "--compare-of",
     "Compare view: score (the attention scores score(m, n)) or table (the encodings' tables)",
     kAllSchemes, Choice<&CompareOfName, &ParseCompareOf>(AT(m.compare_of), Listed::kEither)},
    {"colormap", "--colormap",
     "Heatmap colours: rdbu, viridis or cividis (reads the same with red-green colour "
     "blindness)",
     kAllSchemes, Choice<&ColormapName, &ParseColormap>(AT(m.colormap), Listed::kEither)},
    // The check view's loaded table; the file is read when the view is drawn.
    {"check_table", "--check-table",
     "Check view: a table you computed, FILE.npy or FILE.safetensors:TENSOR, shape (L, d), "
     "compared with the exact table of these parameters (d and L taken from the file)",
     kSin | kLearned | kRope,
     Custom(
         "FILE", [](const ParamField&, const ModelParams& m) { return m.check_table; },
         &SetCheckTable),
     nullptr, &HasCheckTable},
    // ---- tables loaded from files (io/loaded_table.h), after the memory cap, which bounds them.
    // Each is recorded with its content hash, so a figure names the exact data it shows and
    // reading its metadata back refuses a file that changed.
    {"embeddings", "--embeddings",
     "Token embedding table E (V, d) from FILE[:TENSOR]: an NPY or safetensors tensor (rows = "
     "token ids), or a word-vector file (GloVe text, .vec, word2vec binary; rows = its words, "
     "a word it lacks takes its <unk> row or a zero row). d_model follows the table's columns",
     kAllSchemes,
     Loads(Custom(
               "FILE",
               [](const ParamField&, const ModelParams& m) { return m.example.embeddings.spec; },
               &SetEmbeddings),
           &LoadEmbeddings),
     nullptr, &HasEmbeddings},
    {"embeddings_hash", "--embeddings-hash",
     "The content hash --embeddings must have (figure metadata records it; loaded_table.h: "
     "FNV-1a 64 over 8-byte words)",
     kAllSchemes,
     Custom(
         "HEX",
         [](const ParamField&, const ModelParams& m) {
           return HashText(m.example.embeddings.hash);
         },
         [](const ParamField& f, ModelParams& m, const std::string& text) {
           return SetHash(f.flag.data(), "--embeddings", m.example.embeddings, text);
         },
         [](const ParamField& f, ModelParams& m, const Progress&) {
           return LoadHash(f.flag.data(), m.example.embeddings);
         }),
     nullptr, &HasEmbeddings},
    {"positions_table", "--positions-table",
     "A trained position table from FILE[:TENSOR] (NPY or safetensors): with the learned scheme "
     "the table (rows >= max_len + offset, d), e.g. GPT-2's wpe; with t5 the "
     "relative_attention_bias (buckets, heads). d_model and max_len (its rows from the offset), or "
     "T5's buckets and heads, follow it unless given",
     kLearned | kT5,
     Loads(
         Custom(
             "FILE", [](const ParamField&, const ModelParams& m) { return PositionsTable(m).spec; },
             &SetPositionsTable),
         &LoadPositionsTable),
     nullptr, &HasPositionsTable},
    {"positions_table_hash", "--positions-table-hash",
     "The content hash --positions-table must have (figure metadata records it)", kLearned | kT5,
     Custom(
         "HEX",
         [](const ParamField&, const ModelParams& m) { return HashText(PositionsTable(m).hash); },
         [](const ParamField& f, ModelParams& m, const std::string& text) {
           return SetHash(f.flag.data(), "--positions-table", PositionsTable(m), text);
         },
         [](const ParamField& f, ModelParams& m, const Progress&) {
           return LoadHash(f.flag.data(), PositionsTable(m));
         }),
     nullptr, &HasPositionsTable},
    // ---- a real model (core/arch): what it names is opened by the command line before the
    // other flags are applied (arch/model_choice.h), so every other flag given overrides the
    // layer's values; figure metadata and sessions record them beside every parameter.
    {"model", "--model",
     "A built-in model (export --list-models lists them): its layer's positional scheme, "
     "window, temperature and width; other flags given override them",
     kAllSchemes, Custom("NAME", &ModelNameText, &SetModelName), nullptr, &HasModelName},
    {"model_config", "--model-config",
     "A model's config.json or GGUF file, read as --model reads a built-in one", kAllSchemes,
     Custom("FILE", &ModelConfigText, &SetModelConfig), nullptr, &HasModelConfig},
    {"layer", "--layer",
     "The model's layer shown, 0-based (default: its first layer with a positional scheme)",
     kAllSchemes, Custom("INT", &ModelLayerText, &SetModelLayer), nullptr, &HasModelLayer},
    {"special_tokens", "--special-tokens",
     "With --tokenizer-file: add (the default) puts the tokens the tokenizer's post-processor "
     "adds around the text (BERT's [CLS] ... [SEP], Llama's <s>), as Python's tokenizer(text) "
     "does and a model sees; none leaves them out (add_special_tokens=False)",
     kAllSchemes,
     Choice<&SpecialTokensName, &ParseSpecialTokens>(AT(m.example.special_tokens), Listed::kEither),
     nullptr, &RecordsSpecialTokens},
    // Recorded only when it is not the default, so the input walkthrough's figures are unchanged.
    {"walkthrough", "--walkthrough",
     "Walkthrough view: input (text to model input, eight steps) or attention (how position "
     "enters attention, eight steps)",
     kAllSchemes,
     Choice<&WalkthroughKindName, &ParseWalkthroughKind>(AT(m.walkthrough), Listed::kEither),
     nullptr, [](const ModelParams& m) { return m.walkthrough != WalkthroughKind::kInput; }},
    {"decay_norm", "--decay-norm",
     "Decay view: each curve s(k) as it is (raw), minus its value at distance 0 (minus-zero), "
     "or as the softmax weight exp(s(k)) / sum_j exp(s(j)) over the distances 0..L-1 (softmax: "
     "for a relative scheme, the last query's causal attention row)",
     kAllSchemes, Choice<&DecayNormName, &ParseDecayNorm>(AT(m.decay_norm), Listed::kEither),
     nullptr, &DecayNormGiven},
    {"decay_log_y", "--log-y",
     "Decay view: a log y axis (with --decay-norm softmax, whose weights are positive)",
     kAllSchemes, Switch<true>(AT(m.decay_log_y), "true", "false"), nullptr, &DecayLogYGiven},
    {"score_part", "--score-part",
     "Score view: the whole logit (all), or only what position adds to it (position: the logit "
     "minus the same logit with no positional scheme, x_A.x_B times the softmax scale)",
     kAllSchemes, Choice<&ScorePartName, &ParseScorePart>(AT(m.score_part), Listed::kEither),
     nullptr, &ScorePartGiven},
};

#undef AT
#undef THETA
#undef PART
#undef HEADS
#undef HEAD

}  // namespace

bool NumberRule::Accepts(double v) const {
  return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi) && !(nonzero && v == 0);
}

std::string FieldNumberText(double v) {
  return Num(v);
}

std::string ParamField::WhyNotApplicable(const ModelParams& m) const {
  if ((schemes & SchemeBit(m.pe.kind())) == 0) {
    std::string names;
    for (Scheme s : kAllSchemeKinds) {
      if ((schemes & SchemeBit(s)) == 0) continue;
      if (!names.empty()) names += " or ";
      names += SchemeName(s);
    }
    return std::string(flag) + " applies to the " + names + " scheme, not to " +
           std::string(SchemeName(m.pe.kind()));
  }
  if (not_applicable) {
    std::string why = not_applicable(m);
    if (!why.empty()) return std::string(flag) + ": " + why;
  }
  return {};
}

std::span<const ParamField> ParamFields() {
  return kFields;
}

const ParamField* FindParamField(std::string_view name) {
  for (const ParamField& f : kFields) {
    if (f.flag == name || (!f.key.empty() && f.key == name)) return &f;
  }
  return nullptr;
}

namespace {

// Why a key that sets what another view shows cannot make B differ from A, or null when it can.
const char* NotPartOfTheComparison(std::string_view key) {
  static constexpr std::pair<std::string_view, const char*> kOtherViews[] = {
      {"colormap", "A and B are drawn with one colormap (set it with --colormap)"},
      {"dims", "it picks the columns of the curves view"},
      {"rotation_offset", "it is the rotation view's offset"},
      {"measure", "it is the similarity views' measure"},
      {"compare", "it lists the schemes of the decay view"},
      {"decay_norm", "it is the decay view's normalisation"},
      {"decay_log_y", "it is the decay view's y axis"},
      {"score_part", "it is the score view's choice of the whole score or its position part"},
      {"check_table", "it is the check view's table"},
      {"dtype", "it is the precision view's storage format"},
      {"query", "it is the attention view's query"},
  };
  for (const auto& [k, why] : kOtherViews) {
    if (k == key) return why;
  }
  return nullptr;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ParamValues(const ModelParams& m) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ParamField& f : kFields) {
    if (f.key.empty() || !f.WhyNotApplicable(m).empty()) continue;
    if (!f.recorded(m)) continue;
    out.emplace_back(std::string(f.key), f.get(m));
  }
  return out;
}

Status LoadParamFiles(ModelParams& m, const Progress& progress) {
  for (const ParamField& f : ParamFields()) {
    if (!f.loads() || (f.schemes & SchemeBit(m.pe.kind())) == 0) continue;
    if (Status s = f.load(m, progress); !s.ok()) return s;
  }
  return {};
}

Status CheckLoadedTables(const ModelParams& m) {
  const TableRef& e = m.example.embeddings;
  // A file named and not read: the views would show the seeded table or the word tokenizer.
  auto unread = [](const char* flag, const std::string& path) {
    return InvalidArgument(std::string(flag) + " " + Quoted(path) +
                           " is named but not loaded yet (the load step reads it)");
  };
  if (!e.spec.empty() && !e.loaded()) return unread("--embeddings", e.spec);
  if ((m.pe.kind() == Scheme::kLearned || m.pe.kind() == Scheme::kT5) &&
      !PositionsTable(m).spec.empty() && !PositionsTable(m).loaded()) {
    return unread("--positions-table", PositionsTable(m).spec);
  }
  if (!m.example.tokenizer_file.empty() && !m.example.subword) {
    return unread("--tokenizer-file", m.example.tokenizer_file);
  }
  if (m.example.text_file) return unread("--text-file", *m.example.text_file);
  if (m.pe.kind() == Scheme::kLearned && e.loaded() && m.pe.learned().table.loaded() &&
      e.table->cols() != m.pe.learned().table.table->cols()) {
    const TableRef& p = m.pe.learned().table;
    return InvalidArgument("--embeddings " + Quoted(e.spec) + " has " +
                           std::to_string(e.table->cols()) + " columns but --positions-table " +
                           Quoted(p.spec) + " has " + std::to_string(p.table->cols()) +
                           "; both set d_model, so their widths must agree");
  }
  if (Status s = FollowsTable(m, "--d-model", m.pe.d_model); !s.ok()) return s;
  if (Status s = FollowsTable(m, "--max-len", m.pe.max_len); !s.ok()) return s;
  if (m.pe.kind() == Scheme::kT5) {
    if (Status s = FollowsTable(m, "--heads", m.pe.t5().heads); !s.ok()) return s;
    if (Status s = FollowsTable(m, "--t5-buckets", m.pe.t5().buckets); !s.ok()) return s;
  }
  return {};
}

std::string_view CompareOfName(CompareOf c) {
  return c == CompareOf::kTable ? "table" : "score";
}

std::optional<CompareOf> ParseCompareOf(std::string_view name) {
  if (name == "score") return CompareOf::kScore;
  if (name == "table") return CompareOf::kTable;
  return std::nullopt;
}

Result<std::vector<std::pair<std::string, std::string>>> ParseVersus(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  if (Status s = CheckText("--versus", text); !s.ok()) return s.error();
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    start = comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      // A piece without '=' belongs to the value before it: "dims=4,5,6", "content=tokens:1,2".
      if (out.empty()) {
        return InvalidArgument("--versus: \"" + item + "\" is not key=value (in \"" + text +
                               "\"); e.g. \"scheme=rope,rope_theta=500000\"");
      }
      out.back().second += ',' + item;
      continue;
    }
    std::string key = item.substr(0, eq);
    key.erase(0, key.find_first_not_of(' '));
    key.erase(key.find_last_not_of(' ') + 1);
    const ParamField* f = key.empty() ? nullptr : FindParamField(key);
    if (const char* why = NotPartOfTheComparison(key); why != nullptr && f != nullptr) {
      return InvalidArgument("--versus: " + key + " does not change B: " + why);
    }
    if (f == nullptr || f->key != key || key == "versus" || key == "compare_of") {
      std::string keys;
      std::vector<std::string> key_list;
      for (const ParamField& g : ParamFields()) {
        // Listed: the keys a person types (a file's content hash follows its file by itself).
        if (g.key.empty() || g.key == "versus" || g.key == "compare_of" ||
            NotPartOfTheComparison(g.key) != nullptr || g.key.ends_with("_hash")) {
          continue;
        }
        if (!keys.empty()) keys += ", ";
        keys += g.key;
        key_list.emplace_back(g.key);
      }
      std::string hint;
      if (f == nullptr) f = FindParamField("--" + key);
      if (f != nullptr && !f->key.empty() && f->key != key) {
        hint = " (did you mean " + std::string(f->key) + "?)";
      } else {
        hint = DidYouMean(key, key_list);
      }
      return InvalidArgument("--versus: \"" + key + "\" is not a parameter key" + hint +
                             "; the keys are " + keys);
    }
    for (const auto& kv : out) {
      if (kv.first == key) {
        return InvalidArgument("--versus: " + key + " is given twice (in \"" + text + "\")");
      }
    }
    out.emplace_back(key, item.substr(eq + 1));
  }
  return out;
}

Result<ModelParams> ApplyVersus(const ModelParams& m, const std::string& text) {
  Result<std::vector<std::pair<std::string, std::string>>> pairs = ParseVersus(text);
  if (!pairs.ok()) return pairs.error();
  ModelParams b = m;
  for (const ParamField& f : ParamFields()) {
    for (const auto& [key, value] : pairs.value()) {
      if (key != f.key) continue;
      if (std::string why = f.WhyNotApplicable(b); !why.empty()) {
        return InvalidArgument("--versus: " + key + "=" + value + " does not apply: " + why);
      }
      std::string given = value;
      if (f.is_switch()) {
        // A switch reads "true" (given) or the text it records in metadata ("off", "train");
        // "false" is the default's text. Anything else is refused, not taken as "on".
        ModelParams off = b, on = b;
        off.input = ModelParams().input;
        off.causal_mask = false;
        off.attention_window = {};
        (void)f.set(on, "true");
        const std::string off_text = f.get(off), on_text = f.get(on);
        if (given == "false") given = off_text;
        if (given != "true" && given != off_text && given != on_text) {
          return InvalidArgument("--versus: " + key + " must be true, false, " + on_text + " or " +
                                 off_text + ", got \"" + value + "\"");
        }
      }
      Status s = f.set(b, given);
      if (!s.ok()) return InvalidArgument("--versus: " + key + "=" + value + ": " + s.message());
    }
  }
  return b;
}

void SetScheme(ModelParams& m, Scheme scheme) {
  if (m.pe.kind() == scheme) return;
  switch (scheme) {
    case Scheme::kSinusoidal:
      m.pe.scheme = SinusoidalParams{};
      break;
    case Scheme::kLearned: {
      LearnedParams l;
      l.seed = m.example.seed;
      m.pe.scheme = l;
      break;
    }
    case Scheme::kRope:
      m.pe.scheme = RopeParams{};
      break;
    case Scheme::kAlibi:
      m.pe.scheme = AlibiParams{};
      break;
    case Scheme::kT5: {
      T5Params t5;
      t5.seed = m.example.seed;
      m.pe.scheme = t5;
      break;
    }
    case Scheme::kXpos:
      m.pe.scheme = XposParams{};
      break;
    case Scheme::kNope:
      m.pe.scheme = NopeParams{};
      break;
    case Scheme::kMrope:
      m.pe.scheme = MropeParams{};
      break;
  }
}

Result<std::vector<int64_t>> ParseDimList(const std::string& text) {
  std::vector<int64_t> dims;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    auto parse = [](const std::string& s, int64_t& v) {
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      return ec == std::errc() && p == s.data() + s.size() && !s.empty();
    };
    const size_t dash = item.find('-', 1);
    int64_t a = 0, b = 0;
    if (dash != std::string::npos && parse(item.substr(0, dash), a) &&
        parse(item.substr(dash + 1), b) && a >= 0 && a <= b && b - a < kMaxDModel) {
      for (int64_t d = a; d <= b; ++d) dims.push_back(d);
    } else if (parse(item, a)) {
      dims.push_back(a);
    } else {
      return InvalidArgument("dims: \"" + item +
                             "\" is not a dimension index or a range like 4-7 (in \"" + text +
                             "\")");
    }
    start = comma + 1;
  }
  return dims;
}

Status CheckText(const std::string& what, const std::string& text) {
  auto fail = [&](size_t at, const char* problem) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned char>(text[at]));
    return InvalidArgument(what + " " + problem + " at byte offset " + std::to_string(at) + " (" +
                           buf + ")");
  };
  for (size_t k = 0; k < text.size();) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7F) {
        return fail(k, "holds a control character (only tab is allowed)");
      }
      ++k;
      continue;
    }
    // UTF-8 (RFC 3629): shortest form, no surrogates, at most U+10FFFF.
    const int len = c >= 0xC2 && c <= 0xDF   ? 2
                    : c >= 0xE0 && c <= 0xEF ? 3
                    : c >= 0xF0 && c <= 0xF4 ? 4
                                             : 0;
    if (len == 0 || k + static_cast<size_t>(len) > text.size()) {
      return fail(k, "is not valid UTF-8");
    }
    const auto c1 = static_cast<unsigned char>(text[k + 1]);
    const unsigned char lo1 = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi1 = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    if (c1 < lo1 || c1 > hi1) return fail(k, "is not valid UTF-8");
    for (int j = 2; j < len; ++j) {
      if ((static_cast<unsigned char>(text[k + static_cast<size_t>(j)]) & 0xC0) != 0x80) {
        return fail(k, "is not valid UTF-8");
      }
    }
    k += static_cast<size_t>(len);
  }
  return {};
}

namespace {
template <class T>
Result<T> ParseIntegerIn(const std::string& what, const std::string& text, T lo, T hi) {
  T v{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < lo || v > hi) {
    return InvalidArgument(what + " must be an integer in [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "], got \"" + text + "\"");
  }
  return v;
}
}  // namespace

Result<int64_t> ParseInteger(const std::string& what, const std::string& text, int64_t lo,
                             int64_t hi) {
  return ParseIntegerIn<int64_t>(what, text, lo, hi);
}

Result<uint64_t> ParseUnsigned(const std::string& what, const std::string& text, uint64_t hi) {
  return ParseIntegerIn<uint64_t>(what, text, 0, hi);
}

Result<double> ParseNumber(const std::string& what, const std::string& text,
                           const std::string& range, bool (*in_range)(double)) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, std::chars_format::general);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v) || !in_range(v)) {
    return InvalidArgument(what + " must be " + range + ", got \"" + text + "\"");
  }
  return v;
}

}  // namespace pe
