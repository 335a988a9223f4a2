// Sinusoidal positional encoding (Vaswani et al. 2017, "Attention Is All You Need", section 3.5)
// in the three column layouts that real code uses. Angles are computed in double precision and
// rounded once to float32, so every value is within 6e-8 of the exact one below position 1e7.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"
#include "encoding/encoding_params.h"

namespace pe {

// The column layouts (PeVariant in encoding_params.h), with d = d_model, h = floor(d / 2):
//  kPaper:  interleaved. PE[p, 2i] = sin(p w_i), PE[p, 2i+1] = cos(p w_i), w_i = base^(-2i/d).
//           What the paper and the common PyTorch module compute. For odd d the last column is
//           sin(p w_h): the next frequency of the same formula (the common PyTorch code fails
//           there with a shape error).
//  kT2t:    concatenated [sin | cos] halves, w_i = base^(-i / max(h - 1, 1)), i < h
//           (tensor2tensor get_timing_signal_1d, fairseq SinusoidalPositionalEmbedding).
//           For odd d the last column is zero, as in fairseq.
//  kTfText: concatenated [sin | cos] halves with the paper's w_i = base^(-2i/d) (TensorFlow's
//           text tutorial). For odd d: the ceil(d/2) sines, then the floor(d/2) cosines, so it is
//           always a column permutation of kPaper.

struct PeParams {
  int64_t d_model = 128;
  int64_t max_len = 100;
  double base = 10000.0;
  PeVariant variant = PeVariant::kPaper;
  int64_t offset = 0;  // position of table row 0
  bool operator==(const PeParams&) const = default;
};

// Allowed ranges, checked by ValidatePeParams.
inline constexpr int64_t kMaxDModel = 65536;
inline constexpr int64_t kMaxPosition = (int64_t{1} << 31) - 1;  // last position a table may hold

// An error naming the parameter, its allowed range and the value given; ok when all are valid.
Status ValidatePeParams(const PeParams& params);

enum class PeWave : uint8_t { kSin, kCos, kZero };

// What one column of the table is: PE[p, dim] = wave(p * frequency).
struct PeColumn {
  int64_t dim = 0;
  int64_t pair = 0;  // i, the frequency index
  PeWave wave = PeWave::kSin;
  double frequency = 0.0;   // w_i in radians per position
  double exponent_num = 0;  // w_i = base^(-exponent_num / exponent_den)
  double exponent_den = 1;
  double wavelength() const;  // 2 pi / w_i in positions (infinite for a zero column)
};

// Column `dim` (0 <= dim < d_model) of a valid `params`.
PeColumn DescribeColumn(const PeParams& params, int64_t dim);
// All columns, in table order. (d_model)
std::vector<PeColumn> DescribeColumns(const PeParams& params);

// PE at a real-valued position (for smooth curves), in double precision.
double PeValueAt(const PeColumn& column, double position);

// PE at an integer position, rounded once to float32.
float PeValue(const PeColumn& column, int64_t position);

// Writes table rows [row0, row0 + rows) and columns [col0, col0 + cols) of a valid `params`
// into `out`, a (rows, cols) row-major buffer. Row r holds position params.offset + row0 + r.
// Positions past kMaxPosition are the caller's mistake.
//
// The fast path (pe_fill.cpp): for each frequency, sin and cos at position p come from the
// angle-addition recurrence in double, (s, c) <- (s cos w + c sin w, c cos w - s sin w),
// re-anchored with an exact sin/cos of the double angle at every position that is a multiple of
// kPeAnchorPositions, so errors cannot grow past ~1e-13 and the value at a position does not
// depend on how a table is split into blocks. Large blocks run on all cores.
void FillPeBlock(const PeParams& params, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out);
inline constexpr int64_t kPeAnchorPositions = 1024;

// The reference: every value from PeValueAt (one sin or cos of the double angle). Agrees with
// FillPeBlock to within 1e-13 before rounding, so to float32 rounding after it.
void FillPeBlockNaive(const PeParams& params, int64_t row0, int64_t rows, int64_t col0,
                      int64_t cols, float* out);

// The whole table, (max_len, d_model), or an error for invalid params or a table over `cap`.
Result<Matrix> ComputePeTable(const PeParams& params, const MemoryCap& cap = {});

// "sin(12 / 10000^(8/128)) = 0.3174": the formula of one cell with the numbers filled in.
std::string FormatCellFormula(const PeParams& params, const PeColumn& column, int64_t position);

}  // namespace pe
