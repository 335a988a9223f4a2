#include "encoding/learned.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "base/block_copy.h"
#include "base/random.h"
#include "io/loaded_table.h"

namespace pe {

double LearnedInitStd(LearnedInit init, int64_t d_model) {
  return InitStd(init, d_model);
}

uint64_t LearnedStream(uint64_t seed) {
  return RandomBits(seed ^ 0x706f736974696f6eull /* "position" */, 0);
}

float LearnedValue(const EncodingParams& params, int64_t position, int64_t col) {
  const LearnedParams& l = params.learned();
  const auto k = static_cast<uint64_t>(position) * static_cast<uint64_t>(params.d_model) +
                 static_cast<uint64_t>(col);
  return static_cast<float>(InitValue(l.init, params.d_model, LearnedStream(l.seed), k));
}

namespace {

class LearnedEncoding final : public Encoding {
 public:
  LearnedEncoding(const EncodingParams& params, std::shared_ptr<const Matrix> table)
      : Encoding(params), table_(std::move(table)) {
    // The colour range from the finite values: NaN and Inf are loaded as they are (a loaded
    // table may hold them) and flagged in the title instead of widening the range to infinity.
    float m = 0.0f;
    for (float v : table_->data) {
      if (std::isfinite(v))
        m = std::max(m, std::abs(v));
      else
        ++non_finite_;
    }
    max_abs_ = m > 0.0f ? m : 1.0f;
  }
  const LoadedTable* loaded() const { return params_.learned().table.table.get(); }
  std::string NonFiniteNote() const {
    if (non_finite_ == 0) return {};
    return ", " + std::to_string(non_finite_) + " NaN/Inf values shown";
  }

  std::string TableName() const override { return "W_pos"; }
  ValueRange Range() const override { return {-max_abs_, max_abs_}; }
  std::string Summary() const override {
    const LearnedParams& l = params_.learned();
    if (const LoadedTable* t = loaded()) {
      std::string out = "learned, loaded " + t->spec_text() + " (" + t->dtype() + ", " +
                        std::to_string(t->rows()) + " x " + std::to_string(t->cols()) +
                        "), d=" + std::to_string(params_.d_model) +
                        ", L=" + std::to_string(params_.max_len);
      if (params_.offset != 0) out += ", from position " + std::to_string(params_.offset);
      return out + NonFiniteNote();
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "learned, %s init, seed %llu, d=%lld, L=%lld",
                  std::string(LearnedInitName(l.init)).c_str(),
                  static_cast<unsigned long long>(l.seed), static_cast<long long>(params_.d_model),
                  static_cast<long long>(params_.max_len));
    std::string out = buf;
    if (params_.offset != 0) out += ", from position " + std::to_string(params_.offset);
    return out;
  }
  std::string Title() const override {
    const LearnedParams& l = params_.learned();
    if (const LoadedTable* t = loaded()) {
      return "Learned position embeddings (" + t->spec_text() + NonFiniteNote() + ")";
    }
    return "Learned position embeddings (" + std::string(LearnedInitName(l.init)) + ", seed " +
           std::to_string(l.seed) + ")";
  }
  std::string FileTag() const override { return "learned"; }
  // Between rows: the straight line through the two nearest rows (a learned table has values
  // at integer positions only; the curves draw it as the polyline through them).
  double ValueAt(int64_t col, double position) const override {
    const double r = std::clamp(position - static_cast<double>(params_.offset), 0.0,
                                static_cast<double>(rows() - 1));
    const auto r0 = static_cast<int64_t>(std::floor(r));
    const int64_t r1 = std::min(r0 + 1, rows() - 1);
    const double t = r - static_cast<double>(r0);
    const double a = table_->at(r0, col), b = table_->at(r1, col);
    return a + (b - a) * t;
  }
  void FillBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
    CopyRows(table_->data.data() + row0 * table_->cols + col0, table_->cols, rows, cols, out);
  }
  std::string DescribeCell(int64_t position, int64_t col) const override {
    const LearnedParams& l = params_.learned();
    char buf[160];
    if (const LoadedTable* t = loaded()) {
      std::snprintf(buf, sizeof buf, "W_pos[%lld, %lld] = %.7g (row %lld of %s)",
                    static_cast<long long>(position), static_cast<long long>(col),
                    static_cast<double>(table_->at(position - params_.offset, col)),
                    static_cast<long long>(position), t->spec_text().c_str());
      return buf;
    }
    std::snprintf(buf, sizeof buf, "W_pos[%lld, %lld] ~ %s, seed %llu = %.4f",
                  static_cast<long long>(position), static_cast<long long>(col),
                  InitFormula(l.init, params_.d_model).c_str(),
                  static_cast<unsigned long long>(l.seed),
                  table_->at(position - params_.offset, col));
    return buf;
  }

 private:
  std::shared_ptr<const Matrix> table_;  // (max_len, d_model)
  float max_abs_ = 1.0f;
  int64_t non_finite_ = 0;
};

}  // namespace

Status CheckLearnedTable(const EncodingParams& params) {
  const TableRef& ref = params.learned().table;
  if (!ref.loaded()) return {};
  const LoadedTable& t = *ref.table;
  if (t.cols() != params.d_model) {
    return InvalidArgument("d_model is " + std::to_string(params.d_model) +
                           " but the position table " + Quoted(ref.spec) + " has " +
                           std::to_string(t.cols()) + " columns; d_model follows the table");
  }
  if (params.offset + params.max_len > t.rows()) {
    return InvalidArgument(
        "--max-len " + std::to_string(params.max_len) +
        (params.offset != 0 ? " from --offset " + std::to_string(params.offset) : std::string()) +
        " needs " + std::to_string(params.offset + params.max_len) +
        " rows but the position table " + Quoted(ref.spec) + " has " + std::to_string(t.rows()) +
        "; max_len + offset must be at most " + std::to_string(t.rows()));
  }
  return {};
}

Result<EncodingPtr> MakeLearnedEncoding(const EncodingParams& params, const MemoryCap& cap,
                                        const Progress& progress) {
  if (const TableRef& ref = params.learned().table; ref.loaded()) {
    // The table's rows offset .. offset + max_len - 1: position p is row p of the file.
    if (Status s = CheckLearnedTable(params); !s.ok()) return s.error();
    Result<Matrix> rows = ref.table->ReadRows(params.offset, params.max_len, cap);
    if (!rows.ok()) return rows.error();
    return EncodingPtr(std::make_shared<LearnedEncoding>(
        params, std::make_shared<const Matrix>(std::move(rows).value())));
  }
  Result<Matrix> table =
      MakeMatrix("the learned position table", params.max_len, params.d_model, cap);
  if (!table.ok()) return table.error();
  Matrix& m = table.value();
  // In steps of about 2^20 values (some 20 ms on two cores), so a caller can follow and stop it.
  const int64_t step = std::max<int64_t>(1, (int64_t{1} << 20) / m.cols);
  for (int64_t r0 = 0; r0 < m.rows; r0 += step) {
    // Stopped by the caller's Progress or by the cancel token of the job running it.
    if ((progress && !progress(static_cast<double>(r0) / static_cast<double>(m.rows))) ||
        IsCancelled(CurrentCancelToken())) {
      return Cancelled("drawing the learned position table was stopped");
    }
    const int64_t r1 = std::min(m.rows, r0 + step);
#pragma omp parallel for schedule(static) if ((r1 - r0) * m.cols >= (int64_t{1} << 18))
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t c = 0; c < m.cols; ++c) m.at(r, c) = LearnedValue(params, params.offset + r, c);
    }
  }
  if (progress) progress(1.0);
  return EncodingPtr(
      std::make_shared<LearnedEncoding>(params, std::make_shared<const Matrix>(std::move(m))));
}

}  // namespace pe
