// The compare view's two configurations, for its builder (compare_view.cpp) and its panel: A is
// the current parameters, B the same with the overrides of `--versus` (ApplyVersus), and what
// each is called in titles (the scheme and what differs).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "encoding/encoding.h"
#include "figure/figure.h"
#include "model/model_params.h"

namespace pe {

struct ComparePair {
  ModelParams b;           // the second configuration
  EncodingPtr b_encoding;  // never null
  // "rope, rope_theta=10000" and "rope, rope_theta=500000": the scheme, then each parameter
  // whose value differs, as --versus spells it.
  std::string a_label, b_label;
  // Why there is no A - B (the tables' shapes or positions differ), naming both; empty when
  // there is one.
  std::string no_difference;
  // The overrides B was made with: `a.versus`, or DefaultVersus(a) when that is empty.
  std::string versus;
};

// The B of an empty --versus: the scheme's own instructive counterpart, so the view never opens
// on B = A (SchemeDescriptor::default_versus, encoding/scheme_descriptor.cpp).
std::string DefaultVersus(const ModelParams& a);

// B's parameters: `a` with the overrides of `a.versus` (DefaultVersus(a) when empty); an error
// names --versus and the key, value or parameter refused.
Result<ModelParams> CompareB(const ModelParams& a);
// CompareB whose parameters also make an encoding: B's ranges and size are checked as A's are
// (without building it), so a typed --versus that cannot make B is refused where it is typed.
Status CheckCompareB(const ModelParams& a);

// B from `a.versus` (DefaultVersus(a) when empty): an error names --versus and the key, value
// or parameter refused. `built_b`: B's encoding when the caller has made it already (reused when
// made from exactly B's parameters; a large learned table is then not drawn again), or null.
Result<ComparePair> MakeComparePair(const ModelParams& a, const Encoding& a_encoding,
                                    const EncodingPtr& built_b = nullptr);

// The plot window of the compare figure: --compare-of score, keys (x) by queries (y) from
// sel.windows[ViewKind::kScore]; table, columns (x) by positions (y) from
// sel.windows[ViewKind::kHeatmap]. An axis that shows the whole of A's table (or is empty) shows
// the whole of both tables.
struct ViewSelection;
ViewRange CompareWindow(const ModelParams& a, const Encoding& a_encoding, const ComparePair& pair,
                        const ViewSelection& sel);

// The numbers at one cell: score, (query m, key n); table, (position p, column j). NaN where a
// table has no such cell, a mask hides it, or there is no difference.
struct CompareCell {
  double a = 0, b = 0, diff = 0;
};
CompareCell CompareCellValues(const ModelParams& a, const EncodingPtr& a_encoding,
                              const ComparePair& pair, int64_t row, int64_t col);

}  // namespace pe
