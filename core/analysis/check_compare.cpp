// The measuring half of `check` (check.h): how far a table is from its reference, cell by cell
// in absolute terms and in float32 steps, with the tolerance a float file allows; the numbers'
// texts; and a loaded tensor as the 2-D table the check reads. Identification is in check.cpp.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "analysis/check.h"

namespace pe {
namespace {

// float bits -> an integer that grows with the value, -0 and +0 both 0.
int64_t OrderedBits(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  const auto magnitude = static_cast<int64_t>(u & 0x7fffffffu);
  return (u & 0x80000000u) != 0 ? -magnitude : magnitude;
}

}  // namespace

std::string CheckNumberText(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string CheckFloatText(float v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}
int64_t UlpDistance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return -1;
  const int64_t d = OrderedBits(a) - OrderedBits(b);
  return d < 0 ? -d : d;
}

int UlpBucket(int64_t ulps) {
  if (ulps < 0) return kUlpBuckets - 1;
  // ulps in [2^(k-1), 2^k) has bit width k.
  return std::min(static_cast<int>(std::bit_width(static_cast<uint64_t>(ulps))), kUlpBuckets - 1);
}

std::string UlpBucketLabel(int bucket) {
  if (bucket == 0) return "0";
  if (bucket == 1) return "1";
  if (bucket >= kUlpBuckets - 1) return ">= 2^" + std::to_string(kUlpBuckets - 2);
  const int64_t lo = int64_t{1} << (bucket - 1), hi = (int64_t{1} << bucket) - 1;
  return std::to_string(lo) + "-" + std::to_string(hi);
}

double Tolerance::CellTolerance(float reference) const {
  if (absolute) return *absolute;
  const double r = std::abs(static_cast<double>(reference));
  double ulp = 0;
  if (r > 0 && std::isfinite(r)) {
    int e = 0;
    std::frexp(r, &e);  // r in [2^(e-1), 2^e)
    ulp = std::ldexp(1.0, e - bits);
  }
  return std::max(ulp, std::ldexp(amplitude, -bits));
}

ErrorStats CompareTables(const Matrix& table, const Matrix& reference, const Tolerance& tol) {
  ErrorStats s;
  s.rows = std::min(table.rows, reference.rows);
  s.cols = std::min(table.cols, reference.cols);
  if (s.rows == 0 || s.cols == 0) return s;
  const int64_t quarter = std::max<int64_t>(1, s.rows / 4);
  s.worst_table = table.at(0, 0), s.worst_reference = reference.at(0, 0);
  double sum = 0, sum_signed = 0, sum_sq = 0;
  // The tolerance of a normal float depends on its binade only: one per exponent field.
  std::array<double, 256> binade_tolerance{};
  for (int e = 1; e < 255; ++e) {
    binade_tolerance[static_cast<size_t>(e)] = tol.CellTolerance(std::ldexp(1.0f, e - 127));
  }
  auto cell_tolerance = [&](float v) {
    uint32_t u = 0;
    std::memcpy(&u, &v, sizeof u);
    const uint32_t e = (u >> 23) & 0xffu;
    return e == 0 || e == 255 ? tol.CellTolerance(v) : binade_tolerance[e];
  };
  for (int64_t r = 0; r < s.rows; ++r) {
    for (int64_t j = 0; j < s.cols; ++j) {
      const float tv = table.at(r, j), rv = reference.at(r, j);
      const double err = static_cast<double>(tv) - static_cast<double>(rv);
      const double a = std::abs(err);
      const bool bad = std::isnan(a);
      sum += bad ? 0 : a;
      sum_signed += bad ? 0 : err;
      sum_sq += bad ? 0 : err * err;
      if (bad || a > s.max_abs || (r == 0 && j == 0)) {
        if (bad || a > s.max_abs) {
          s.max_abs = bad ? INFINITY : a;
          s.worst_row = r, s.worst_col = j;
          s.worst_table = tv, s.worst_reference = rv;
        }
      }
      if (r < quarter) {
        s.max_abs_head = std::max(s.max_abs_head, bad ? INFINITY : a);
        s.mean_abs_head += bad ? 0 : a;
      }
      if (r >= s.rows - quarter) {
        s.max_abs_tail = std::max(s.max_abs_tail, bad ? INFINITY : a);
        s.mean_abs_tail += bad ? 0 : a;
      }
      const int64_t u = UlpDistance(tv, rv);
      s.max_ulps = u < 0 ? std::numeric_limits<int64_t>::max() : std::max(s.max_ulps, u);
      ++s.ulp_histogram[static_cast<size_t>(UlpBucket(u))];
      if (bad || a > cell_tolerance(rv)) {
        ++s.over_tolerance;
        if (s.off_cells.size() < kOffCellsKept) s.off_cells.push_back({r, j});
      }
    }
  }
  const auto n = static_cast<double>(s.rows * s.cols);
  s.mean_abs_head /= static_cast<double>(quarter * s.cols);
  s.mean_abs_tail /= static_cast<double>(quarter * s.cols);
  s.mean_abs = sum / n;
  s.mean_signed = sum_signed / n;
  s.rms = std::sqrt(sum_sq / n);
  return s;
}

Result<Matrix> TableFromTensor(const std::vector<int64_t>& shape, std::vector<float> data) {
  std::vector<int64_t> kept;
  for (int64_t n : shape) {
    if (n != 1) kept.push_back(n);
  }
  auto shape_text = [&] {
    std::string s = "(";
    for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + (shape.size() == 1 ? ",)" : ")");
  };
  if (kept.size() != 2) {
    return InvalidArgument("the tensor has shape " + shape_text() +
                           "; a positional table is 2-D, (positions L, dimensions d)");
  }
  Matrix m;
  m.rows = kept[0];
  m.cols = kept[1];
  m.data = std::move(data);
  if (static_cast<int64_t>(m.data.size()) != m.rows * m.cols) {
    return InvalidArgument("the tensor's data does not fill its shape " + shape_text());
  }
  return m;
}

int DtypeSignificandBits(const std::string& dtype) {
  if (dtype == "<f2" || dtype == ">f2" || dtype == "F16") return 11;
  if (dtype == "BF16") return 8;
  return 24;
}

}  // namespace pe
