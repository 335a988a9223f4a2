// Sinusoidal positional encoding (Vaswani et al. 2017, "Attention Is All You Need", section 3.5)
// in the three column layouts that real code uses. Angles are computed in double precision and
// rounded once to float32, so every value is within 6e-8 of the exact one below position 1e7.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"
#include "encoding/encoding_params.h"
#include "encoding/wave.h"

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

// The scheme part of sinusoidal params (the shape is checked by ValidateEncodingParams):
// base > 1, 0 < min_timescale < base, output_scale finite and non-zero.
Status ValidateSinusoidalParams(const SinusoidalParams& params);

// Column `dim` (0 <= dim < d_model) of valid sinusoidal `params`. With e_i the layout's exponent
// (2i/d for paper and tf-text, i/max(h-1, 1) for t2t) the frequency is
//   w_i = min_timescale * (base / min_timescale)^(-e_i)
// as tensor2tensor's get_timing_signal_1d computes it (it multiplies by min_timescale; with the
// default min_timescale 1 this is base^(-e_i)). cos-first swaps the sin and cos columns of
// each pair; output_scale is the amplitude.
WaveColumn DescribeColumn(const EncodingParams& params, int64_t dim);
// All columns, in table order. (d_model)
std::vector<WaveColumn> DescribeColumns(const EncodingParams& params);

// Fills of sinusoidal params (tests and benchmarks; the app goes through Encoding): rows
// [row0, row0 + rows) and columns [col0, col0 + cols) into a (rows, cols) buffer.
void FillPeBlock(const EncodingParams& params, int64_t row0, int64_t rows, int64_t col0,
                 int64_t cols, float* out);
void FillPeBlockNaive(const EncodingParams& params, int64_t row0, int64_t rows, int64_t col0,
                      int64_t cols, float* out);

// The whole table of any scheme, (max_len, cols), or an error for invalid params or a table
// over `cap` (MakeEncoding then ComputeTable).
Result<Matrix> ComputePeTable(const EncodingParams& params, const MemoryCap& cap = {});

// "sin(12 / 10000^(8/128)) = 0.3174": the formula of one cell with the numbers filled in.
std::string FormatCellFormula(const EncodingParams& params, const WaveColumn& column,
                              int64_t position);

// The sinusoidal Encoding (valid params).
std::shared_ptr<const class Encoding> MakeSinusoidalEncoding(const EncodingParams& params);

}  // namespace pe
