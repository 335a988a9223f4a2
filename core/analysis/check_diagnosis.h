// The diagnosis of `check` (check.h): what differs between the intended parameters and those
// the table holds, each in a word of the fixed vocabulary and a sentence (naming the model's
// config key when the intent is a model's), the worst cells under a candidate, and the
// warnings on unusual conventions. Internal to analysis/.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/check.h"
#include "base/matrix.h"
#include "base/status.h"
#include "encoding/encoding_params.h"

namespace pe {

// One finding per parameter that differs between `intended` and `table` (the table's own
// identification): order, offset, pairing, base, exponent, partial, proportional, scaling,
// attention-factor, scale, layout.
std::vector<CheckDiagnosis> ParamDiagnosis(const EncodingParams& intended,
                                           const EncodingParams& table, const CheckConstraints& c);

// What was meant for a table identified as `table`: the parameters the intent fixes
// (c.keys, or all of them for a model) taken from c.fixed, the others from `table`.
EncodingParams MeantParams(const EncodingParams& table, const CheckConstraints& c);

// The `count` cells of `table` farthest from `params`' table, largest |error| first: among
// `stats.off_cells` when they hold every cell beyond the tolerance, else over the whole table.
Result<std::vector<CheckCell>> WorstCells(const Matrix& table, const EncodingParams& params,
                                          const ErrorStats& stats, size_t count,
                                          const MemoryCap& cap = {});

// Sentences on a convention most code does not use: cos first (MusicGen), a base of 100
// (10000^(i/d) where 10000^(2i/d) was meant).
std::vector<std::string> UnusualConventions(const EncodingParams& p);

// The float32 finding: the error grows with the position; compute p·w in float64.
CheckDiagnosis Float32Finding(const CheckCandidate& c);

}  // namespace pe
