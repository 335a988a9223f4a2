// One description of every parameter a user can set: its key (figure metadata, session files),
// its command-line flag, its help, the schemes it applies to, and how to read and write it as
// text. The CLI's flags, a figure's metadata and the "command for this view" text all iterate
// this table, so they cannot drift apart.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "encoding/scheme_descriptor.h"  // SchemeBit, kAllSchemes
#include "model/model_params.h"

namespace pe {

struct ParamField;

// The values a NUMBER field takes: finite, within [lo, hi] (each end open or closed), not 0
// when `nonzero`; `says` words them for the message ("a finite number greater than 1").
struct NumberRule {
  double lo = -std::numeric_limits<double>::infinity();
  bool lo_open = false;
  double hi = std::numeric_limits<double>::infinity();
  bool hi_open = false;
  bool nonzero = false;
  std::string_view says;
  bool Accepts(double v) const;
};

// How a field's text reads and writes its typed value. param_fields.cpp builds these with
// Number, Int, Unsigned, Choice, Flag and, for the few fields with rules of their own, Custom;
// the parsing and the messages live once in those builders.
struct FieldValue {
  std::string_view
      value_name;  // "INT", "NUMBER", "NAME", "TEXT", "LIST", "FILE", "HEX"; "": a switch
  std::string (*get)(const ParamField& f, const ModelParams& m) = nullptr;
  Status (*set)(const ParamField& f, ModelParams& m, const std::string& text) = nullptr;
  NumberRule number;              // NUMBER: the values allowed
  int64_t lo = 0, hi = 0;         // INT: the values allowed
  bool follows_table = false;     // INT: a loaded table fixes the value (d_model, T5's shape)
  std::string_view given, other;  // a switch: what metadata records when given, and otherwise
  bool one_of = false;            // NAME: the message lists "one of a, b, c", else "a, b or c"
  void (*then)(ModelParams& m) = nullptr;  // after the value is set (the seed reaches the tables)
  // A FILE field (and a file's hash): reads what `set` recorded (the table, tokenizer or text)
  // into `m` and applies the rules that follow from it; does nothing when it is already loaded
  // or nothing is named. An error names the flag, the file and what is wrong. Null: nothing to
  // load.
  Status (*load)(const ParamField& f, ModelParams& m, const Progress& progress) = nullptr;
};

struct ParamField {
  std::string_view key;         // metadata and session key; empty: not recorded (CLI only)
  std::string_view flag;        // "--d-model"
  std::string_view value_name;  // value.value_name
  std::string_view help;
  unsigned schemes = kAllSchemes;
  FieldValue value;
  // Why the field does not apply to `m` although its scheme matches (e.g. a YaRN parameter
  // with another scaling); empty when it applies. Null: it always applies to its schemes.
  std::string (*not_applicable)(const ModelParams& m) = nullptr;
  // Whether figure metadata records the value although the field applies (typed ids only when
  // there are some: an empty list is not a value --ids accepts). Null: always.
  bool (*recorded_when)(const ModelParams& m) = nullptr;

  constexpr ParamField(std::string_view key_, std::string_view flag_, std::string_view help_,
                       unsigned schemes_, FieldValue value_,
                       std::string (*not_applicable_)(const ModelParams&) = nullptr,
                       bool (*recorded_when_)(const ModelParams&) = nullptr)
      : key(key_),
        flag(flag_),
        value_name(value_.value_name),
        help(help_),
        schemes(schemes_),
        value(value_),
        not_applicable(not_applicable_),
        recorded_when(recorded_when_) {}

  // The value as text (a switch: what metadata records, "true"/"false", "train"/"eval", ...);
  // what `set` reads back.
  std::string get(const ModelParams& m) const { return value.get(*this, m); }
  // Parses `text` (decimal only, the whole text) and sets the value; an error names the flag,
  // the allowed range and the text. A switch gets "true". Never reads a file: a FILE field
  // records the path (checked as text), and `load` reads it.
  Status set(ModelParams& m, const std::string& text) const { return value.set(*this, m, text); }
  // The load step of a FILE field (and of a file's hash): see FieldValue::load.
  Status load(ModelParams& m, const Progress& progress = {}) const {
    return value.load != nullptr ? value.load(*this, m, progress) : Status{};
  }
  bool loads() const { return value.load != nullptr; }
  bool recorded(const ModelParams& m) const { return recorded_when == nullptr || recorded_when(m); }
  bool is_switch() const { return value_name.empty(); }
  // Empty when the field applies to `m`, else a sentence saying why not, naming the scheme.
  std::string WhyNotApplicable(const ModelParams& m) const;
};

// The text a NUMBER field records for `v` and reads back to the same double ("500000", "0.02",
// "1e-07"): the window sets a number it parsed through this text, as the command line would.
std::string FieldNumberText(double v);

// Every field, in the order the CLI applies them: the memory cap first (it bounds every table and
// file loaded after it), then the scheme and preset (they reset the
// scheme's parameters), then the shape, then the rest.
std::span<const ParamField> ParamFields();
const ParamField* FindParamField(std::string_view flag_or_key);

// key -> value of every recorded field that applies to `m`, in table order.
std::vector<std::pair<std::string, std::string>> ParamValues(const ModelParams& m);

// Switches `m` to `scheme` with that scheme's default parameters, keeping the shape (and the
// seed, which the learned table shares with the token embeddings).
void SetScheme(ModelParams& m, Scheme scheme);

// The compare view's --compare-of: "score" or "table".
std::string_view CompareOfName(CompareOf c);
std::optional<CompareOf> ParseCompareOf(std::string_view name);

// --versus "key=value,key=value": the keys are the fields' keys (figure metadata); a piece
// without '=' continues the value before it ("dims=4,5,6"). An error names the bad key and
// lists the keys. Keys are checked here, values by ApplyVersus.
Result<std::vector<std::pair<std::string, std::string>>> ParseVersus(const std::string& text);
// The second configuration of the compare view: `m` with the overrides of `text` applied in the
// field table's order (the scheme first, as SetScheme does, so "scheme=rope,rope_theta=500000"
// works), each refused, naming the key, the value and what is allowed, when it does not apply
// to the scheme or its value is bad. The encoding parameters are not validated here.
Result<ModelParams> ApplyVersus(const ModelParams& m, const std::string& text);

// "4,5,6,7" -> {4, 5, 6, 7}; ranges "0-3" allowed. Errors name the bad item.
Result<std::vector<int64_t>> ParseDimList(const std::string& text);

// Text values end up in figure titles and SVG/PDF metadata: they must be valid UTF-8 and hold
// no control characters but tab. Refused rather than cleaned, so a figure never shows a text
// other than the one given.
Status CheckText(const std::string& what, const std::string& text);

// A decimal integer in [lo, hi], the whole of `text` ("064" is 64; "0x10", "1e3", "+5", " 5"
// and "" are refused). The error names `what`, the range and the text.
Result<int64_t> ParseInteger(const std::string& what, const std::string& text, int64_t lo,
                             int64_t hi);
Result<uint64_t> ParseUnsigned(const std::string& what, const std::string& text, uint64_t hi);
// A finite decimal number ("1e-3" is fine; "0x10", "nan", "inf" and "" are refused) that
// `in_range` accepts; `range` words the allowed values for the message.
Result<double> ParseNumber(const std::string& what, const std::string& text,
                           const std::string& range, bool (*in_range)(double));

// The load step: every file the FILE fields of `m` name and that is not loaded yet is read, in
// the field table's order (the embeddings before the position table, each table before its
// hash), under `m.cap`: --text-file's text, --tokenizer-file's tokenizer, --embeddings' and
// --positions-table's tables (through io/loaded_table.h's shared cache). What follows from a
// table is applied as it loads: d_model follows the embedding or learned position table's
// columns, max_len the position table's rows from the offset, T5's buckets and heads its bias
// table's shape; a hash given for a table must be its hash. The first error is returned, naming
// the flag and the file, as setting the field did when it read the file. `progress` reports the
// tables' reading and may cancel it (io/loaded_table.h). The command line calls it once all its
// flags are set; the window on its table-load job.
Status LoadParamFiles(ModelParams& m, const Progress& progress = {});

// Ok when the loaded tables agree with `m`: d_model is the embedding table's and the learned
// position table's columns, T5's buckets and heads its bias table's shape, max_len within the
// position table's rows. Else an error naming the flag, the file and what the table has; a table
// named but not loaded yet (LoadParamFiles not run) is refused too.
Status CheckLoadedTables(const ModelParams& m);

}  // namespace pe
