#include "encoding/positional_encoding.h"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

namespace pe {

namespace {

std::string FormatDouble(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// ln(base), computed once per base and thread rather than once per column: tables and rasters
// describe thousands of columns of the same base in a row.
long double LogOfBase(double base) {
  thread_local double last_base = 0.0;
  thread_local long double last_log = 0.0L;
  if (base != last_base) {
    last_log = std::log(static_cast<long double>(base));
    last_base = base;
  }
  return last_log;
}

}  // namespace

Status ValidatePeParams(const PeParams& p) {
  if (p.d_model < 1 || p.d_model > kMaxDModel) {
    return InvalidArgument("d_model must be in [1, " + std::to_string(kMaxDModel) + "], got " +
                           std::to_string(p.d_model));
  }
  if (p.max_len < 1 || p.max_len > kMaxPosition + 1) {
    return InvalidArgument("max_len must be in [1, " + std::to_string(kMaxPosition + 1) +
                           "], got " + std::to_string(p.max_len));
  }
  if (!std::isfinite(p.base) || !(p.base > 1.0)) {
    return InvalidArgument("base must be a finite number greater than 1, got " +
                           FormatDouble(p.base));
  }
  const int64_t max_offset = kMaxPosition + 1 - p.max_len;
  if (p.offset < 0 || p.offset > max_offset) {
    return InvalidArgument("offset must be in [0, " + std::to_string(max_offset) +
                           "] so that the last position stays at most " +
                           std::to_string(kMaxPosition) + " with max_len " +
                           std::to_string(p.max_len) + ", got " + std::to_string(p.offset));
  }
  return {};
}

double PeColumn::wavelength() const {
  if (wave == PeWave::kZero || frequency == 0.0) return std::numeric_limits<double>::infinity();
  return 2.0 * std::numbers::pi / frequency;
}

PeColumn DescribeColumn(const PeParams& params, int64_t dim) {
  assert(dim >= 0 && dim < params.d_model && "column index out of range");
  const int64_t d = params.d_model;
  const int64_t half = d / 2;
  PeColumn c;
  c.dim = dim;
  switch (params.variant) {
    case PeVariant::kPaper:
      c.pair = dim / 2;
      c.wave = dim % 2 == 0 ? PeWave::kSin : PeWave::kCos;
      c.exponent_num = 2.0 * static_cast<double>(c.pair);
      c.exponent_den = static_cast<double>(d);
      break;
    case PeVariant::kT2t:
      if (dim >= 2 * half) {
        c.pair = half;
        c.wave = PeWave::kZero;
      } else {
        c.pair = dim < half ? dim : dim - half;
        c.wave = dim < half ? PeWave::kSin : PeWave::kCos;
      }
      c.exponent_num = static_cast<double>(c.pair);
      c.exponent_den = static_cast<double>(half - 1 > 1 ? half - 1 : 1);
      break;
    case PeVariant::kTfText: {
      const int64_t sines = d - half;  // ceil(d / 2)
      c.pair = dim < sines ? dim : dim - sines;
      c.wave = dim < sines ? PeWave::kSin : PeWave::kCos;
      c.exponent_num = 2.0 * static_cast<double>(c.pair);
      c.exponent_den = static_cast<double>(d);
      break;
    }
  }
  // w = base^(-num/den) = exp(-(num/den) ln base), computed in long double and rounded once to
  // double: a w off by 1e-15 relative would move the angle at position 2^31 by 2e-6 radians.
  // exp and log rather than powl, which is 9x slower here and no more often correctly rounded.
  if (c.wave != PeWave::kZero) {
    c.frequency = static_cast<double>(std::exp(-static_cast<long double>(c.exponent_num) /
                                               static_cast<long double>(c.exponent_den) *
                                               LogOfBase(params.base)));
  }
  return c;
}

std::vector<PeColumn> DescribeColumns(const PeParams& params) {
  std::vector<PeColumn> cols;
  cols.reserve(static_cast<size_t>(params.d_model));
  for (int64_t j = 0; j < params.d_model; ++j) cols.push_back(DescribeColumn(params, j));
  return cols;
}

double PeValueAt(const PeColumn& column, double position) {
  const double angle = position * column.frequency;
  switch (column.wave) {
    case PeWave::kSin:
      return std::sin(angle);
    case PeWave::kCos:
      return std::cos(angle);
    case PeWave::kZero:
      return 0.0;
  }
  return 0.0;
}

float PeValue(const PeColumn& column, int64_t position) {
  return static_cast<float>(PeValueAt(column, static_cast<double>(position)));
}

void FillPeBlockNaive(const PeParams& params, int64_t row0, int64_t rows, int64_t col0,
                      int64_t cols, float* out) {
  assert(col0 >= 0 && cols >= 0 && col0 + cols <= params.d_model && "columns out of range");
  assert(row0 >= 0 && rows >= 0 && "rows out of range");
  std::vector<PeColumn> columns;
  columns.reserve(static_cast<size_t>(cols));
  for (int64_t j = 0; j < cols; ++j) columns.push_back(DescribeColumn(params, col0 + j));
  for (int64_t r = 0; r < rows; ++r) {
    const double position = static_cast<double>(params.offset + row0 + r);
    float* dst = out + r * cols;
    for (int64_t j = 0; j < cols; ++j) {
      dst[j] = static_cast<float>(PeValueAt(columns[static_cast<size_t>(j)], position));
    }
  }
}

Result<Matrix> ComputePeTable(const PeParams& params, const MemoryCap& cap) {
  if (Status s = ValidatePeParams(params); !s.ok()) return s.error();
  Result<Matrix> table =
      MakeMatrix("the positional-encoding table", params.max_len, params.d_model, cap);
  if (!table.ok()) return table;
  Matrix& m = table.value();
  FillPeBlock(params, 0, m.rows, 0, m.cols, m.data.data());
  return table;
}

std::string FormatCellFormula(const PeParams& params, const PeColumn& c, int64_t position) {
  char buf[160];
  const double value = PeValueAt(c, static_cast<double>(position));
  if (c.wave == PeWave::kZero) {
    std::snprintf(buf, sizeof buf, "0 (padding column of odd d_model) = 0");
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%s(%lld / %g^(%g/%g)) = %.4f",
                c.wave == PeWave::kSin ? "sin" : "cos", static_cast<long long>(position),
                params.base, c.exponent_num, c.exponent_den, value);
  return buf;
}

}  // namespace pe
