// Columns that are waves of the position: value(p) = amplitude * wave(p * frequency). The
// sinusoidal encodings, RoPE's cos/sin/angle tables and (later) xPos are all made of them, so
// one fast fill, one closed-form raster mean and one curve sampler serve every such scheme.
#pragma once

#include <cstdint>
#include <span>

namespace pe {

enum class Wave : uint8_t {
  kSin,    // amplitude * sin(p w)
  kCos,    // amplitude * cos(p w)
  kZero,   // 0 (t2t's padding column of odd d)
  kAngle,  // p w itself (RoPE's rotation angle; amplitude unused)
};

// What one table column is.
struct WaveColumn {
  int64_t dim = 0;   // the column's index in its table
  int64_t pair = 0;  // i, the frequency index
  Wave wave = Wave::kSin;
  double frequency = 0.0;   // w_i in radians per position
  double amplitude = 1.0;   // multiplies sin and cos (output scale, YaRN's attention factor)
  double exponent_num = 0;  // for the formula text: w_i = base^(-exponent_num / exponent_den)
  double exponent_den = 1;
  double wavelength() const;  // 2 pi / w_i in positions (infinite for a zero column)
  bool operator==(const WaveColumn&) const = default;
};

// The column at a real-valued position (for smooth curves), in double precision.
double WaveValueAt(const WaveColumn& column, double position);
// The column at an integer position, rounded once to float32.
float WaveValue(const WaveColumn& column, int64_t position);

// The exact range of the column's continuous value over the real positions [p0, p1] (p0 <= p1):
// the whole [-|a|, |a|] when the interval spans a full period or more, else the extremes of
// the two ends and of any crest or trough inside. A line for angles, {0, 0} for a zero column.
struct WaveSpan {
  double lo = 0.0, hi = 0.0;
};
WaveSpan WaveRangeOver(const WaveColumn& column, double p0, double p1);

// Mean of the column over integer positions [first, first + n), in closed form (a
// Dirichlet-kernel sum for sin and cos, the midpoint for angles): exact for n = 1, O(1) for any n.
double MeanOverPositions(const WaveColumn& column, int64_t first, int64_t n);

// Writes rows [row0, row0 + rows) of the table whose row r holds position first_position + r,
// for the given `columns` (a contiguous run of the table's columns, in order), into `out`, a
// (rows, columns.size()) row-major buffer.
//
// The fast path (frequency_bank_fill.cpp): for each frequency, sin and cos at position p come
// from the angle-addition recurrence in double, (s, c) <- (s cos w + c sin w, c cos w - s sin w),
// re-anchored with an exact sin/cos of the double angle at every position that is a multiple of
// kPeAnchorPositions, so errors cannot grow past ~1e-13 and the value at a position does not
// depend on how a table is split into blocks. Large blocks run on all cores.
void FillWaveBlock(std::span<const WaveColumn> columns, int64_t first_position, int64_t row0,
                   int64_t rows, float* out);
inline constexpr int64_t kPeAnchorPositions = 1024;

// The reference: every value from WaveValueAt (one sin or cos of the double angle). Agrees with
// FillWaveBlock to within 1e-13 before rounding, so to float32 rounding after it.
void FillWaveBlockNaive(std::span<const WaveColumn> columns, int64_t first_position,
                        int64_t row0, int64_t rows, float* out);

}  // namespace pe
