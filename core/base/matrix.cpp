#include "base/matrix.h"

#include <cstdio>
#include <limits>

namespace pe {

std::string FormatBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 6) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

Status CheckFloatCount(const std::string& what, uint64_t rows, uint64_t cols,
                       const MemoryCap& cap) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  bool overflow = rows != 0 && cols > max / rows;
  uint64_t count = overflow ? 0 : rows * cols;
  overflow = overflow || count > max / sizeof(float);
  if (overflow || count * sizeof(float) > cap.bytes) {
    std::string need =
        overflow ? std::string("more than 16 EiB") : FormatBytes(count * sizeof(float));
    return InvalidArgument(what + " of " + std::to_string(rows) + " x " + std::to_string(cols) +
                           " float32 values needs " + need + ", over the memory cap of " +
                           FormatBytes(cap.bytes) +
                           "; use smaller sizes or raise the cap (--memory-cap-mib)");
  }
  return {};
}

Result<Matrix> MakeMatrix(const std::string& what, int64_t rows, int64_t cols,
                          const MemoryCap& cap) {
  if (rows < 0 || cols < 0) {
    return InvalidArgument(what + ": negative shape " + std::to_string(rows) + " x " +
                           std::to_string(cols));
  }
  Status s = CheckFloatCount(what, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), cap);
  if (!s.ok()) return s.error();
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.data.assign(static_cast<size_t>(rows * cols), 0.0f);
  return m;
}

Result<Matrix> MatrixFromValues(int64_t rows, int64_t cols, std::vector<float> values) {
  if (rows < 0 || cols < 0 ||
      static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols) != values.size()) {
    return InvalidArgument("a " + std::to_string(rows) + " x " + std::to_string(cols) +
                           " matrix needs " + std::to_string(rows * cols) + " values, got " +
                           std::to_string(values.size()));
  }
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.data = std::move(values);
  return m;
}

}  // namespace pe
