// A dense row-major float32 matrix with its shape, and the memory cap every table allocation
// goes through.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace pe {

struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> data;  // (rows, cols), row-major

  float at(int64_t r, int64_t c) const { return data[static_cast<size_t>(r * cols + c)]; }
  float& at(int64_t r, int64_t c) { return data[static_cast<size_t>(r * cols + c)]; }
  const float* row(int64_t r) const { return data.data() + r * cols; }
  float* row(int64_t r) { return data.data() + r * cols; }
  bool operator==(const Matrix&) const = default;
};

// How many bytes of tables one request may allocate.
struct MemoryCap {
  uint64_t bytes = uint64_t{2} << 30;  // 2 GiB
  bool operator==(const MemoryCap&) const = default;
};

// Checks that `count` float32 values fit under `cap` (no overflow), naming `what` in the error.
Status CheckFloatCount(const std::string& what, uint64_t rows, uint64_t cols, const MemoryCap& cap);

// A zero-filled (rows, cols) matrix, or an error when it would exceed `cap`.
Result<Matrix> MakeMatrix(const std::string& what, int64_t rows, int64_t cols,
                          const MemoryCap& cap);

// A matrix from explicit values given row by row; `values.size()` must be rows * cols.
Result<Matrix> MatrixFromValues(int64_t rows, int64_t cols, std::vector<float> values);

// "1.5 GiB" style text for a byte count.
std::string FormatBytes(uint64_t bytes);

}  // namespace pe
