// The part every "table of waves" encoding shares (sinusoidal, RoPE): the columns are
// amplitude * wave(p * w), filled by the frequency-bank fill and averaged in closed form.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "encoding/encoding.h"
#include "encoding/wave.h"

namespace pe {

class WaveTableEncoding : public Encoding {
 public:
  std::span<const WaveColumn> waves() const override { return columns_; }
  double ValueAt(int64_t col, double position) const override {
    return WaveValueAt(columns_[static_cast<size_t>(col)], position);
  }
  void FillBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
    FillWaveBlock(std::span(columns_).subspan(static_cast<size_t>(col0), static_cast<size_t>(cols)),
                  params_.offset, row0, rows, out);
  }
  void MeanOverRows(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                    double* out) const override {
    for (int64_t j = 0; j < cols; ++j) {
      out[j] =
          MeanOverPositions(columns_[static_cast<size_t>(col0 + j)], params_.offset + row0, rows);
    }
  }
  bool MeanOverTexels(std::span<const int64_t> row_edges, std::span<const int64_t> col_edges,
                      float* out) const override {
    return pe::MeanOverTexels(columns_, row_edges, col_edges, out);
  }

 protected:
  // The parameters by reference: GCC 12 warns (maybe-uninitialized, a false positive) when a
  // by-value EncodingParams holding RoPE's factor lists is destroyed inline here.
  WaveTableEncoding(const EncodingParams& params, std::vector<WaveColumn> columns)
      : Encoding(params), columns_(std::move(columns)) {}
  std::vector<WaveColumn> columns_;  // (cols)
};

}  // namespace pe
