#include "encoding/alibi.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <memory>

#include "base/format_text.h"

namespace pe {

std::vector<double> AlibiSlopeExponents(int64_t heads, double max_bias) {
  // c: the largest power of two <= heads. Its slopes, then the odd ones of 2c (MPT's
  // gen_slopes takes slopes[1::2] then slopes[::2] of the 2c list, which is the same order).
  const auto c = static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(heads)));
  std::vector<double> e;
  e.reserve(static_cast<size_t>(heads));
  for (int64_t k = 1; k <= c; ++k) {
    e.push_back(-max_bias * static_cast<double>(k) / static_cast<double>(c));
  }
  for (int64_t k = 1; k <= heads - c; ++k) {
    e.push_back(-max_bias * static_cast<double>(2 * k - 1) / static_cast<double>(2 * c));
  }
  return e;
}

std::vector<double> AlibiSlopes(int64_t heads, double max_bias) {
  std::vector<double> s = AlibiSlopeExponents(heads, max_bias);
  for (double& v : s) v = std::exp2(v);
  return s;
}

Status ValidateAlibiParams(const EncodingParams& params) {
  const AlibiParams& a = params.alibi();
  if (a.heads < 1 || a.heads > kMaxHeads) {
    return InvalidArgument("--heads must be in [1, " + std::to_string(kMaxHeads) + "], got " +
                           std::to_string(a.heads));
  }
  if (a.head < 0 || a.head >= a.heads) {
    return InvalidArgument("--head must be in [0, " + std::to_string(a.heads - 1) +
                           "] (one of --heads " + std::to_string(a.heads) + "), got " +
                           std::to_string(a.head));
  }
  if (!(a.max_bias > 0) || !std::isfinite(a.max_bias)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", a.max_bias);
    return InvalidArgument(std::string("--alibi-max-bias must be a finite number > 0, got ") + buf);
  }
  return {};
}

namespace {

// Sum of the integers a, a + 1, ..., b (0 when b < a), in double.
double SumRange(double a, double b) {
  if (b < a) return 0.0;
  return (a + b) * (b - a + 1.0) * 0.5;
}

// sum_{y=1}^{x} y (y + 1) / 2 = x (x + 1) (x + 2) / 6 for x > 0, else 0: summed twice, the
// distances max(q - k, 0) of a block.
double Tetra(double x) {
  return x > 0 ? x * (x + 1.0) * (x + 2.0) / 6.0 : 0.0;
}

// sum of max(q - k, 0) over q in [q0, q1], k in [k0, k1]: for each q the keys give
// T(q - k0) - T(q - k1 - 1) with T(x) = x (x + 1) / 2 (x > 0), and the queries sum those.
double SumPositive(double q0, double q1, double k0, double k1) {
  return Tetra(q1 - k0) - Tetra(q0 - 1.0 - k0) - Tetra(q1 - k1 - 1.0) + Tetra(q0 - k1 - 2.0);
}

class AlibiEncoding final : public Encoding {
 public:
  explicit AlibiEncoding(const EncodingParams& params)
      : Encoding(params),
        exponent_(
            AlibiSlopeExponents(params.alibi().heads,
                                params.alibi().max_bias)[static_cast<size_t>(params.alibi().head)]),
        slope_(std::exp2(exponent_)) {}

  int64_t cols() const override { return params_.max_len; }
  std::string TableName() const override { return "bias"; }
  ColumnNoun column_noun() const override { return ColumnNoun::kKey; }
  // Every value lies in [-m (L - 1), 0]; a one-row table gets [-m, 0] so the bar has a width.
  ValueRange Range() const override {
    const double far = static_cast<double>(std::max<int64_t>(1, params_.max_len - 1));
    return {-slope_ * far, 0.0};
  }
  std::string Summary() const override {
    const AlibiParams& a = params_.alibi();
    std::string s = Fmt("alibi %s, %lld heads, head %lld (slope 2^%g = %.6g), max bias %g, L=%lld",
                        std::string(AlibiModeName(a.mode)).c_str(), static_cast<long long>(a.heads),
                        static_cast<long long>(a.head), exponent_, slope_, a.max_bias,
                        static_cast<long long>(params_.max_len));
    if (params_.offset != 0)
      s += Fmt(", from position %lld", static_cast<long long>(params_.offset));
    return s;
  }
  std::string Title() const override {
    const AlibiParams& a = params_.alibi();
    // "slope 2^-1": the paper's m is the query position in every view here.
    return Fmt("ALiBi bias, head %lld of %lld (%s, slope 2^%g = %.6g)",
               static_cast<long long>(a.head), static_cast<long long>(a.heads),
               std::string(AlibiModeName(a.mode)).c_str(), exponent_, slope_);
  }
  std::string FileTag() const override {
    const AlibiParams& a = params_.alibi();
    return Fmt("alibi-%s-h%lld", std::string(AlibiModeName(a.mode)).c_str(),
               static_cast<long long>(a.head));
  }
  // Column `col` is the key at offset + col; `position` is the query (real-valued: the line
  // between integer queries, which the formula already is).
  double ValueAt(int64_t col, double position) const override {
    const double d = position - static_cast<double>(params_.offset + col);
    if (d == 0 || (causal() && d < 0)) return 0.0;  // +0, not -0
    return -slope_ * std::abs(d);
  }
  void FillBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t q = params_.offset + row0 + r;
      float* row = out + r * cols;
      for (int64_t c = 0; c < cols; ++c) {
        row[c] = static_cast<float>(Bias(q, params_.offset + col0 + c));
      }
    }
  }
  // Closed form per key: the sum of the distances q - k over the rows' queries is an arithmetic
  // series (split at the diagonal for the symmetric mode; cut there for the causal one).
  void MeanOverRows(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                    double* out) const override {
    const auto q0 = static_cast<double>(params_.offset + row0);
    const double q1 = q0 + static_cast<double>(rows) - 1.0;
    for (int64_t j = 0; j < cols; ++j) {
      const auto k = static_cast<double>(params_.offset + col0 + j);
      double sum;  // of |q - k| over the unmasked queries
      if (causal()) {
        sum = SumRange(std::max(q0, k) - k, q1 - k);
      } else if (k <= q0) {
        sum = SumRange(q0 - k, q1 - k);
      } else if (k >= q1) {
        sum = SumRange(k - q1, k - q0);
      } else {
        sum = SumRange(1.0, k - q0) + SumRange(0.0, q1 - k);
      }
      out[j] = -slope_ * sum / static_cast<double>(rows);
    }
  }
  // A block on one side of the diagonal is linear in q - k: its mean is the value at the mean
  // query and key. A block across it sums the positive distances in closed form (arguments no
  // larger than the block, so no large cancellation).
  bool MeanOverBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                     double* mean) const override {
    const auto q0 = static_cast<double>(params_.offset + row0);
    const double q1 = q0 + static_cast<double>(rows) - 1.0;
    const auto k0 = static_cast<double>(params_.offset + col0);
    const double k1 = k0 + static_cast<double>(cols) - 1.0;
    const double centre = 0.5 * (q0 + q1) - 0.5 * (k0 + k1);  // mean of q - k
    double distance;  // mean of the distance the bias counts
    if (q0 >= k1) {
      distance = centre;
    } else if (q1 <= k0) {
      distance = causal() ? 0.0 : -centre;
    } else {
      double sum = SumPositive(q0, q1, k0, k1);
      if (!causal()) sum += SumPositive(k0, k1, q0, q1);
      distance = sum / (static_cast<double>(rows) * static_cast<double>(cols));
    }
    *mean = distance == 0 ? 0.0 : -slope_ * distance;
    return true;
  }
  // "-0.0625 * (37 - 12) = -1.5625"
  std::string DescribeCell(int64_t position, int64_t col) const override {
    const int64_t k = params_.offset + col;
    const auto q = static_cast<long long>(position);
    if (Masked(position, k)) {
      return Fmt("key %lld is after query %lld: masked (causal), -inf in the model, 0 here",
                 static_cast<long long>(k), q);
    }
    const double v = static_cast<float>(Bias(position, k));
    if (causal())
      return Fmt("-%.6g * (%lld - %lld) = %.6g", slope_, q, static_cast<long long>(k), v);
    return Fmt("-%.6g * |%lld - %lld| = %.6g", slope_, q, static_cast<long long>(k), v);
  }
  double Bias(int64_t query_position, int64_t key_position) const override {
    const auto d = static_cast<double>(query_position - key_position);
    if (d == 0 || (causal() && d < 0)) return 0.0;  // +0, not -0
    return -slope_ * std::abs(d);
  }
  bool Masked(int64_t query_position, int64_t key_position) const override {
    return causal() && key_position > query_position;
  }

 private:
  bool causal() const { return params_.alibi().mode == AlibiMode::kCausal; }
  double exponent_;  // log2 of the slope
  double slope_;     // m of the chosen head
};

}  // namespace

Result<EncodingPtr> MakeAlibiEncoding(const EncodingParams& params) {
  if (Status s = ValidateAlibiParams(params); !s.ok()) return s.error();
  return EncodingPtr(std::make_shared<AlibiEncoding>(params));
}

}  // namespace pe
