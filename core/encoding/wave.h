// Columns that are waves of the position: value(p) = amplitude * wave(p * frequency). The
// sinusoidal encodings, RoPE's cos/sin/angle tables and (later) xPos are all made of them, so
// one fast fill, one closed-form raster mean and one curve sampler serve every such scheme.
#pragma once

#include <cstdint>
#include <span>

#include "base/simd_path.h"

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

// e^{i m w} = (cos, sin) of m w for an integer-valued m (|m| < 2^53), with the product m w
// carried as the exact sum of two doubles (an FMA gives the rounding error of m * w), so the
// angle is right to ~1e-16 relative: one rounding of m w is off by up to 6e-8 rad at m ~ 1e9.
// That holds for |m w| below 2^31 turns (1.3e10 rad; this app's angles stay below 1e10): past
// it the angle is not reduced, and e^{i lo} from its first-order terms is off by lo^3 / 6 (3e-15
// at 3e11 rad).
struct UnitComplex {
  double re = 1.0, im = 0.0;
};
UnitComplex ExpOfMultiple(double m, double w);

// re[l] + i im[l] = e^{i m w[l]} for every l, as ExpOfMultiple(m, w[l]) gives it, many at a time:
// on the avx2 and avx512 paths four or eight angles a vector with SLEEF's 1.0-ulp vector sine and
// cosine for the reduced angle (the same accuracy, not always the same last bit); on the scalar
// path ExpOfMultiple itself, bit for bit. `re` and `im` hold w.size() values. `path` must be one
// this processor has (the default: ActiveSimdPath()).
void ExpOfMultiples(double m, std::span<const double> w, double* re, double* im, SimdPath path);
void ExpOfMultiples(double m, std::span<const double> w, double* re, double* im);

// Means over texels of a wave table: out[y * (col_edges.size() - 1) + x] = the mean of the cells
// at positions [row_edges[y], row_edges[y + 1]) and columns [col_edges[x], col_edges[x + 1])
// (indices into `columns`), rounded once to float32; both edge lists strictly increasing.
//
// The fast path of the heatmap raster. For every column, the mean over a span [a, a + n) is
// amplitude * Re(e^{i a w} D_n) with the Dirichlet factor D_n = e^{i (n-1) w / 2}
// sin(n w / 2) / (n sin(w / 2)) (times -i for sin columns). From texel row to texel row a advances
// by n, so e^{i a w} follows the recurrence z <- z e^{i n w}, re-anchored exactly
// (ExpOfMultiple) every kTexelAnchorRows rows; errors stay near 1e-14. Span lengths may take a
// few values (RasterEdges gives two); returns false, writing nothing, when they take more than
// kTexelSpanLengths values (use MeanOverTexelsNaive then). Large rasters run on all cores.
bool MeanOverTexels(std::span<const WaveColumn> columns, std::span<const int64_t> row_edges,
                    std::span<const int64_t> col_edges, float* out);
inline constexpr int kTexelAnchorRows = 64;
inline constexpr int kTexelSpanLengths = 4;

// The reference: each texel from MeanOverPositions of its columns, summed in double.
void MeanOverTexelsNaive(std::span<const WaveColumn> columns, std::span<const int64_t> row_edges,
                         std::span<const int64_t> col_edges, float* out);

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

// Steps n pairs' (s_i, c_i) = (sin, cos) of p w_i on by `steps` positions with the fill's
// recurrence: s <- s cw_i + c sw_i, c <- c cw_i - s sw_i (cw_i, sw_i = cos, sin of w_i), each pair
// through all its steps in registers; the same bits as stepping all pairs once a position.
void StepWavePairs(int64_t n, int64_t steps, const double* cw, const double* sw, double* s,
                   double* c);

// The reference: every value from WaveValueAt (one sin or cos of the double angle). Agrees with
// FillWaveBlock to within 1e-13 before rounding, so to float32 rounding after it.
void FillWaveBlockNaive(std::span<const WaveColumn> columns, int64_t first_position, int64_t row0,
                        int64_t rows, float* out);

}  // namespace pe
