// Teaching cases of `check`: buggy tables the app makes as real ports made them, each with the
// parameters that were meant and the word of the diagnosis it should get. `pe-explorer check
// --case NAME` checks one; the window's check panel loads one in a click.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/check.h"
#include "base/matrix.h"
#include "base/status.h"
#include "encoding/encoding_params.h"

namespace pe {

struct CheckCase {
  std::string_view name;    // what --case takes: "deepseek-indexer-pairing"
  std::string_view title;   // "DeepSeek-V3.2's indexer pairing"
  std::string_view story;   // what the port did and what was meant
  std::string_view expect;  // the diagnosis word the table gets: "pairing"
};

// Every case, in the order --list-cases prints them.
std::span<const CheckCase> CheckCases();
const CheckCase* FindCheckCase(std::string_view name);

struct CheckCaseTable {
  Matrix table;           // the buggy table, (L, d)
  EncodingParams intent;  // what was meant (d_model and max_len: the table's shape)
};

// The case's buggy table and its intent; an error names the case when it is not one.
Result<CheckCaseTable> MakeCheckCase(std::string_view name, const MemoryCap& cap = {});

// The constraints of a whole set of parameters as the intent (every key fixed, as `check
// --model` fixes them), for a table of significand `bits`.
CheckConstraints WholeIntent(const EncodingParams& intent, int bits = 24);
// The keys a whole intent fixes (a model's layer, a case): its scheme, the first position 0 and
// every parameter (which part, cos or sin, is the table's own).
std::vector<std::string> WholeIntentKeys();

}  // namespace pe
