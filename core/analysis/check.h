// "Check my implementation": a positional table a user computed, compared with the engine's
// exact tables, and identified. No UI here: the `check` command and the check view print and
// draw what these functions return.
//
// Identification reads the parameters off the table rather than searching a grid: under each
// column layout (sinusoidal paper / t2t / tf-text, sin- or cos-first; RoPE half / interleaved,
// cos or sin) the angle of every pair along the rows gives its angular frequency w_i and its
// phase at row 0; a straight-line fit of ln w_i against the layout's exponent e_i gives the base
// and the min timescale (ln w_i = ln m - e_i ln(base / m)); the phase of the slowest pair over
// its frequency gives the first position; the amplitude gives the output scale (or YaRN's
// attention factor). RoPE's scalings follow from how the slow pairs depart from the line of the
// fast ones. Each reading is rounded to the short decimal it most likely was typed as, and every
// candidate is then verified cell by cell against the engine's own table (MakeEncoding).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"
#include "encoding/encoding_params.h"

namespace pe {

// The distance between two float32 values in representable steps (units in the last place):
// 0 for equal values (+0 and -0 too), 1 for neighbours such as 1.0f and nextafterf(1.0f, 2.0f),
// counted across zero through the subnormals. -1 when either is NaN.
int64_t UlpDistance(float a, float b);

// Histogram buckets of ulp distances: bucket 0 holds 0 ulps, bucket k (1 <= k < last) holds
// distances in [2^(k-1), 2^k), the last bucket everything from 2^(kUlpBuckets - 2) on (and NaN).
inline constexpr int kUlpBuckets = 26;
int UlpBucket(int64_t ulps);
// "0", "1", "2-3", "4-7", ..., ">= 2^24".
std::string UlpBucketLabel(int bucket);

// How the report and the check view print numbers: `v` with `digits` significant digits
// ("%.*g"), and a float32 with every digit it needs to read back ("%.9g").
std::string CheckNumberText(double v, int digits = 3);
std::string CheckFloatText(float v);

// How a table compares with its reference over their common cells.
struct ErrorStats {
  int64_t rows = 0, cols = 0;  // the cells compared
  double max_abs = 0;          // max |table - reference|
  double mean_abs = 0;
  double mean_signed = 0;  // mean of table - reference
  double rms = 0;          // root mean square of table - reference
  int64_t worst_row = 0, worst_col = 0;
  float worst_table = 0, worst_reference = 0;
  int64_t max_ulps = 0;
  std::array<int64_t, kUlpBuckets> ulp_histogram{};
  int64_t over_tolerance = 0;  // cells whose |error| exceeds the cell's tolerance
  // Max |error| over the first and the last quarter of the rows: how the error grows.
  double max_abs_head = 0, max_abs_tail = 0;
  double mean_abs_head = 0, mean_abs_tail = 0;  // mean |error| over the same rows
  // The first kOffCellsKept cells beyond the tolerance, in row order: (row, col).
  std::vector<std::pair<int64_t, int64_t>> off_cells;
};
inline constexpr size_t kOffCellsKept = 64;

// The per-cell tolerance: `absolute` when given, else float32 rounding: one ulp of the
// reference value or 2^-(bits) times the table's amplitude, whichever is larger (`bits`: 24 for
// a float32 file, 11 for float16, 8 for bfloat16).
struct Tolerance {
  std::optional<double> absolute;
  int bits = 24;
  double amplitude = 1.0;
  double CellTolerance(float reference) const;
};

// table (rows, cols) against reference (ref_rows, ref_cols) over the top-left block both hold.
ErrorStats CompareTables(const Matrix& table, const Matrix& reference, const Tolerance& tol);

// What the user fixed on the command line: the parameters, and which of them (keys of the
// parameter table, model/param_fields.h: "scheme", "variant", "base", "offset", "rope_theta",
// ...) identification must keep.
struct CheckConstraints {
  EncodingParams fixed;
  std::vector<std::string> keys;
  std::optional<double> tolerance;  // absolute; none: float32 rounding (or the file's format)
  int bits = 24;                    // significand bits of the file's dtype (Tolerance::bits)
  // An intent ("is this what I meant?"): a parameter flag or a model was given. The table then
  // matches only when it is `fixed` (the keys above, the rest read off the table); otherwise
  // the report says what the table is instead and why (the diagnosis). Without one, "what is
  // this?": any known convention matches.
  bool intent = false;
  // The model the intent comes from ("llama-3.1-8b, layer 0"), its config's format
  // (ModelSchedule::format: "config.json (v4)", "GGUF v3") and architecture (model_type): the
  // diagnosis names the config key of each parameter that differs. Empty: flags.
  std::string model;
  std::string model_format;
  std::string model_type;
  bool Has(const std::string& key) const;
};

enum class CheckVerdict {
  kMatch,    // every cell within tolerance of the reference
  kFloat32,  // the scheme matches but the table was computed in float32 (error grows with p)
  kNoMatch,
};
std::string_view CheckVerdictName(CheckVerdict v);  // "match", "float32", "no match"

struct CheckCandidate {
  EncodingParams params;    // d_model and max_len: the reference's shape
  std::string description;  // "sinusoidal, t2t layout, base 10000, offset 2 (fairseq)"
  std::string flags;        // "--scheme sinusoidal --variant t2t --offset 2 ..."
  std::string preset;       // the sinusoidal preset with exactly these parameters, or empty
  std::string layout;       // the layout read: "sinusoidal t2t sin-first", "rope cos half"
  ErrorStats stats;
  double amplitude = 1;  // of the reference
  double score = 0;      // max |error| / amplitude: the ranking
  int unsnapped = 0;     // parameters kept as read (not a short decimal): fewer ranks first
  CheckVerdict verdict = CheckVerdict::kNoMatch;
  std::string worst_formula;  // the reference formula of the worst cell
};

// A cell of the table and its reference under a candidate.
struct CheckCell {
  int64_t row = 0, col = 0, position = 0;
  float table = 0, reference = 0;
  std::string formula;  // the reference formula (Encoding::DescribeCell)
};

// One finding of the diagnosis. `kind` is one word of a fixed vocabulary: order, offset,
// pairing, base, exponent, partial, proportional, scaling, attention-factor, scale, layout,
// float32, transposed, shape, cells, noise. `value` is the number the kind names where there is
// one (the shift k of `offset`, the factor of `scaling`, the table's base of `base`).
struct CheckDiagnosis {
  std::string kind;
  std::string text;  // a sentence
  std::optional<double> value;
};

struct CheckReport {
  int64_t rows = 0, cols = 0;
  // Exit 0 or 1: the table is what the intent says (within the tolerance), or, without an
  // intent, exactly some known convention (or one computed in float32).
  bool matches = false;
  bool has_intent = false;
  // With an intent, the intended reading (the best candidate keeping what was fixed); the
  // table's own identification (nothing fixed) in either case. Unset when none applies.
  std::optional<CheckCandidate> intended, identified;
  std::vector<CheckDiagnosis> diagnosis;
  std::vector<CheckCell> worst_cells;  // largest |error| first, under the diagnosed candidate
  std::vector<std::string> warnings;   // an unusual convention identified (cos first, base 100)
  std::vector<CheckCandidate> ranked;  // best first, at most kCheckCandidatesKept
  CheckVerdict verdict = CheckVerdict::kNoMatch;
  // Sentences on the best candidate: why it is float32, or why nothing matches (transposed,
  // a column extra or missing, a constant shift, noise).
  std::vector<std::string> notes;
  std::string tolerance_text;  // "float32 rounding (1 ulp or 2^-24 x amplitude per cell)"
};
inline constexpr size_t kCheckCandidatesKept = 5;

// Identifies `table` (rows = positions, cols = dimensions) among the sinusoidal layouts and
// RoPE's cos/sin tables, and with an intent (CheckConstraints::intent) compares it with the
// intent and diagnoses the difference. Errors: an empty table or non-finite values, and reference
// tables over `cap`.
Result<CheckReport> CheckTable(const Matrix& table, const CheckConstraints& constraints,
                               const MemoryCap& cap = {});

// The table of a loaded tensor: size-1 axes dropped ((L, 1, d) is (L, d)); an error naming
// the shape when what is left is not 2-D.
Result<Matrix> TableFromTensor(const std::vector<int64_t>& shape, std::vector<float> data);

// Significand bits of a file's dtype: 24 for float32 and float64 (read as float32), 11 for
// "<f2"/"F16", 8 for "BF16".
int DtypeSignificandBits(const std::string& dtype);

// The flags that rebuild `params` on the command line (scheme-specific ones only).
std::string ParamsFlags(const EncodingParams& params);

}  // namespace pe
