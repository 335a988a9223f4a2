#include "encoding/positional_encoding.h"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

#include "encoding/encoding.h"
#include "encoding/wave_encoding.h"

namespace pe {
namespace {

std::string FormatDouble(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// ln(x), computed once per value and thread rather than once per column: tables and rasters
// describe thousands of columns of the same base in a row.
long double LogOf(double x) {
  thread_local double last_x = 0.0;
  thread_local long double last_log = 0.0L;
  if (x != last_x) {
    last_log = std::log(static_cast<long double>(x));
    last_x = x;
  }
  return last_log;
}

}  // namespace

Status ValidateSinusoidalParams(const SinusoidalParams& s) {
  if (!std::isfinite(s.base) || !(s.base > 1.0)) {
    return InvalidArgument("base must be a finite number greater than 1, got " +
                           FormatDouble(s.base));
  }
  if (!std::isfinite(s.min_timescale) || !(s.min_timescale > 0.0) || !(s.min_timescale < s.base)) {
    return InvalidArgument("min timescale must be in (0, base = " + FormatDouble(s.base) +
                           "), got " + FormatDouble(s.min_timescale));
  }
  if (!std::isfinite(s.output_scale) || s.output_scale == 0.0) {
    return InvalidArgument("output scale must be a finite non-zero number, got " +
                           FormatDouble(s.output_scale));
  }
  return {};
}

WaveColumn DescribeColumn(const EncodingParams& params, int64_t dim) {
  assert(dim >= 0 && dim < params.d_model && "column index out of range");
  const SinusoidalParams& s = params.sinusoidal();
  const int64_t d = params.d_model;
  const int64_t half = d / 2;
  WaveColumn c;
  c.dim = dim;
  switch (s.variant) {
    case PeVariant::kPaper:
      c.pair = dim / 2;
      c.wave = dim % 2 == 0 ? Wave::kSin : Wave::kCos;
      c.exponent_num = 2.0 * static_cast<double>(c.pair);
      c.exponent_den = static_cast<double>(d);
      break;
    case PeVariant::kT2t:
      if (dim >= 2 * half) {
        c.pair = half;
        c.wave = Wave::kZero;
      } else {
        c.pair = dim < half ? dim : dim - half;
        c.wave = dim < half ? Wave::kSin : Wave::kCos;
      }
      // tensor2tensor divides by max(num_timescales - 1, 1): at d = 2 or 3 (one pair) the
      // exponent is 0 rather than the division by zero of ports that drop the max.
      c.exponent_num = static_cast<double>(c.pair);
      c.exponent_den = static_cast<double>(half - 1 > 1 ? half - 1 : 1);
      break;
    case PeVariant::kTfText: {
      const int64_t sines = d - half;  // ceil(d / 2)
      c.pair = dim < sines ? dim : dim - sines;
      c.wave = dim < sines ? Wave::kSin : Wave::kCos;
      c.exponent_num = 2.0 * static_cast<double>(c.pair);
      c.exponent_den = static_cast<double>(d);
      break;
    }
  }
  if (s.order == WaveOrder::kCosFirst && c.wave != Wave::kZero) {
    c.wave = c.wave == Wave::kSin ? Wave::kCos : Wave::kSin;
  }
  c.amplitude = s.output_scale;
  // w = min * (base/min)^(-num/den) = exp(ln min - (num/den)(ln base - ln min)), in long double
  // and rounded once to double: a w off by 1e-15 relative would move the angle at position 2^31
  // by 2e-6 radians. exp and log rather than powl, which is 9x slower here and no more often
  // correctly rounded. With min = 1 this is exactly exp(-(num/den) ln base).
  if (c.wave != Wave::kZero) {
    const long double log_min =
        s.min_timescale == 1.0 ? 0.0L : std::log((long double)s.min_timescale);
    const long double log_span = LogOf(s.base) - log_min;
    c.frequency = static_cast<double>(
        std::exp(log_min - static_cast<long double>(c.exponent_num) /
                               static_cast<long double>(c.exponent_den) * log_span));
  }
  return c;
}

std::vector<WaveColumn> DescribeColumns(const EncodingParams& params) {
  std::vector<WaveColumn> cols;
  cols.reserve(static_cast<size_t>(params.d_model));
  for (int64_t j = 0; j < params.d_model; ++j) cols.push_back(DescribeColumn(params, j));
  return cols;
}

void FillPeBlock(const EncodingParams& params, int64_t row0, int64_t rows, int64_t col0,
                 int64_t cols, float* out) {
  assert(col0 >= 0 && cols >= 0 && col0 + cols <= params.d_model && "columns out of range");
  std::vector<WaveColumn> columns;
  columns.reserve(static_cast<size_t>(cols));
  for (int64_t j = 0; j < cols; ++j) columns.push_back(DescribeColumn(params, col0 + j));
  FillWaveBlock(columns, params.offset, row0, rows, out);
}

void FillPeBlockNaive(const EncodingParams& params, int64_t row0, int64_t rows, int64_t col0,
                      int64_t cols, float* out) {
  assert(col0 >= 0 && cols >= 0 && col0 + cols <= params.d_model && "columns out of range");
  std::vector<WaveColumn> columns;
  columns.reserve(static_cast<size_t>(cols));
  for (int64_t j = 0; j < cols; ++j) columns.push_back(DescribeColumn(params, col0 + j));
  FillWaveBlockNaive(columns, params.offset, row0, rows, out);
}

Result<Matrix> ComputePeTable(const EncodingParams& params, const MemoryCap& cap) {
  Result<EncodingPtr> encoding = MakeEncoding(params, cap);
  if (!encoding.ok()) return encoding.error();
  return ComputeTable(*encoding.value(), cap);
}

std::string FormatCellFormula(const EncodingParams& params, const WaveColumn& c, int64_t position) {
  char buf[200];
  const double value = WaveValueAt(c, static_cast<double>(position));
  if (c.wave == Wave::kZero) {
    std::snprintf(buf, sizeof buf, "0 (padding column of odd d_model) = 0");
    return buf;
  }
  const SinusoidalParams& s = params.sinusoidal();
  char scale[48] = "";
  if (s.output_scale != 1.0) std::snprintf(scale, sizeof scale, "%g * ", s.output_scale);
  const char* wave = c.wave == Wave::kSin ? "sin" : "cos";
  if (s.min_timescale == 1.0) {
    std::snprintf(buf, sizeof buf, "%s%s(%lld / %g^(%g/%g)) = %.4f", scale, wave,
                  static_cast<long long>(position), s.base, c.exponent_num, c.exponent_den, value);
  } else {
    std::snprintf(buf, sizeof buf, "%s%s(%lld * %g * (%g/%g)^(-%g/%g)) = %.4f", scale, wave,
                  static_cast<long long>(position), s.min_timescale, s.base, s.min_timescale,
                  c.exponent_num, c.exponent_den, value);
  }
  return buf;
}

namespace {

class SinusoidalEncoding final : public WaveTableEncoding {
 public:
  explicit SinusoidalEncoding(const EncodingParams& params)
      : WaveTableEncoding(params, DescribeColumns(params)) {}

  std::string TableName() const override { return "PE"; }
  ValueRange Range() const override {
    const double a = std::abs(params_.sinusoidal().output_scale);
    return {-a, a};
  }
  std::string Summary() const override {
    const SinusoidalParams& s = params_.sinusoidal();
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s%s, d=%lld, L=%lld, base %g",
                  std::string(VariantName(s.variant)).c_str(),
                  s.order == WaveOrder::kCosFirst ? " cos-first" : "",
                  static_cast<long long>(params_.d_model), static_cast<long long>(params_.max_len),
                  s.base);
    std::string out = buf;
    if (s.min_timescale != 1.0) {
      std::snprintf(buf, sizeof buf, ", min timescale %g", s.min_timescale);
      out += buf;
    }
    if (s.output_scale != 1.0) {
      std::snprintf(buf, sizeof buf, ", scale %g", s.output_scale);
      out += buf;
    }
    if (params_.offset != 0) out += ", from position " + std::to_string(params_.offset);
    return out;
  }
  std::string Title() const override {
    const SinusoidalParams& s = params_.sinusoidal();
    return "Sinusoidal positional encoding (" + std::string(VariantName(s.variant)) +
           (s.order == WaveOrder::kCosFirst ? ", cos-first" : "") + ")";
  }
  std::string FileTag() const override {
    const SinusoidalParams& s = params_.sinusoidal();
    return std::string(VariantName(s.variant)) +
           (s.order == WaveOrder::kCosFirst ? "-cos-first" : "");
  }
  std::string DescribeCell(int64_t position, int64_t col) const override {
    return FormatCellFormula(params_, columns_[static_cast<size_t>(col)], position);
  }

 private:
};

}  // namespace

std::shared_ptr<const Encoding> MakeSinusoidalEncoding(const EncodingParams& params) {
  return std::make_shared<SinusoidalEncoding>(params);
}

}  // namespace pe
