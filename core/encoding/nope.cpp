#include "encoding/nope.h"

#include <algorithm>
#include <memory>
#include <string>

namespace pe {
namespace {

class NopeEncoding final : public Encoding {
 public:
  explicit NopeEncoding(const EncodingParams& params) : Encoding(params) {}

  std::string TableName() const override { return "zero vector"; }
  // The table is 0 everywhere; a symmetric bar keeps 0 in its middle colour.
  ValueRange Range() const override { return {-1.0, 1.0}; }
  std::string Summary() const override {
    std::string s = "none (NoPE), d=" + std::to_string(params_.d_model) +
                    ", L=" + std::to_string(params_.max_len);
    if (params_.offset != 0) s += ", from position " + std::to_string(params_.offset);
    return s;
  }
  std::string Title() const override {
    return "NoPE adds no position: the model input is the token embedding alone";
  }
  std::string FileTag() const override { return "nope"; }
  double ValueAt(int64_t col, double position) const override {
    (void)col, (void)position;
    return 0.0;
  }
  void FillBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
    (void)row0, (void)col0;
    std::fill(out, out + rows * cols, 0.0f);
  }
  void MeanOverRows(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                    double* out) const override {
    (void)row0, (void)rows, (void)col0;
    std::fill(out, out + cols, 0.0);
  }
  bool MeanOverBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                     double* mean) const override {
    (void)row0, (void)rows, (void)col0, (void)cols;
    *mean = 0.0;
    return true;
  }
  bool MeanOverTexels(std::span<const int64_t> row_edges, std::span<const int64_t> col_edges,
                      float* out) const override {
    if (row_edges.size() < 2 || col_edges.size() < 2) return true;
    std::fill(out, out + (row_edges.size() - 1) * (col_edges.size() - 1), 0.0f);
    return true;
  }
  std::string DescribeCell(int64_t position, int64_t col) const override {
    return "no position is added: 0 at position " + std::to_string(position) + ", dim " +
           std::to_string(col);
  }
};

}  // namespace

Result<EncodingPtr> MakeNopeEncoding(const EncodingParams& params) {
  return EncodingPtr(std::make_shared<NopeEncoding>(params));
}

}  // namespace pe
