#include "encoding/t5_buckets.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "base/format_text.h"
#include "base/random.h"
#include "io/loaded_table.h"

namespace pe {

int64_t T5MaxExact(bool bidirectional, int64_t buckets) {
  return bidirectional ? (buckets / 2) / 2 : buckets / 2;
}

int64_t T5Bucket(int64_t relative_position, bool bidirectional, int64_t buckets,
                 int64_t max_distance) {
  int64_t n = buckets;  // buckets of one side
  int64_t bucket = 0;
  int64_t distance;
  if (bidirectional) {
    n = buckets / 2;
    if (relative_position > 0) bucket += n;
    distance = relative_position < 0 ? -relative_position : relative_position;
  } else {
    distance = relative_position < 0 ? -relative_position : 0;
  }
  const int64_t max_exact = n / 2;
  if (distance < max_exact) return bucket + distance;
  // float32 throughout, as torch computes it on a float tensor.
  const float ratio = static_cast<float>(distance) / static_cast<float>(max_exact);
  const auto log_range = static_cast<float>(
      std::log(static_cast<double>(max_distance) / static_cast<double>(max_exact)));
  const float scaled = std::log(ratio) / log_range * static_cast<float>(n - max_exact);
  const int64_t large = max_exact + static_cast<int64_t>(scaled);  // truncation, as .to(long)
  return bucket + std::min(large, n - 1);
}

std::vector<T5BucketRun> T5BucketRuns(const T5Params& t5, int side, int64_t last_distance) {
  const bool bidirectional = t5.direction == T5Direction::kBidirectional;
  auto bucket_of = [&](int64_t d) {
    return T5Bucket(side > 0 ? d : -d, bidirectional, t5.buckets, t5.max_distance);
  };
  // The bucket does not decrease with the distance (each rounding in the formula is monotone),
  // so each run's end is found by bisection.
  std::vector<T5BucketRun> runs;
  for (int64_t d = 1; d <= last_distance;) {
    const int64_t b = bucket_of(d);
    int64_t lo = d, hi = last_distance;  // the run's last distance is in [lo, hi]
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (bucket_of(mid) == b) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    runs.push_back({d, lo, b});
    d = lo + 1;
  }
  return runs;
}

uint64_t T5BiasStream(uint64_t seed) {
  return RandomBits(seed ^ 0x7435626961736573ull /* "t5biases" */, 0);
}

float T5BucketBias(const T5Params& t5, int64_t head, int64_t bucket) {
  const auto k = static_cast<uint64_t>(head) * static_cast<uint64_t>(t5.buckets) +
                 static_cast<uint64_t>(bucket);
  return static_cast<float>(RandomNormal(T5BiasStream(t5.seed), k));
}

Status ValidateT5Params(const EncodingParams& params) {
  const T5Params& t = params.t5();
  if (t.heads < 1 || t.heads > 4096) {
    return InvalidArgument("--heads must be in [1, 4096], got " + std::to_string(t.heads));
  }
  if (t.head < 0 || t.head >= t.heads) {
    return InvalidArgument("--head must be in [0, " + std::to_string(t.heads - 1) +
                           "] (one of --heads " + std::to_string(t.heads) + "), got " +
                           std::to_string(t.head));
  }
  const bool bidirectional = t.direction == T5Direction::kBidirectional;
  if (t.buckets < 2 || t.buckets > (int64_t{1} << 20)) {
    return InvalidArgument("--t5-buckets must be in [2, 1048576], got " +
                           std::to_string(t.buckets));
  }
  // HF halves the buckets per side and halves again for the exact ones: an odd count leaves a
  // bucket unused and fewer than 4 leaves no exact distance (the log then divides by zero).
  if (bidirectional && (t.buckets % 2 != 0 || t.buckets < 4)) {
    return InvalidArgument(
        "--t5-buckets must be even and at least 4 when bidirectional (half for each side, each "
        "with at least one exact distance), got " +
        std::to_string(t.buckets));
  }
  if (const TableRef& ref = t.bias; ref.loaded()) {
    // HF's relative_attention_bias is nn.Embedding(num_buckets, n_heads): (buckets, heads).
    if (ref.table->rows() != t.buckets || ref.table->cols() != t.heads) {
      return InvalidArgument("the T5 bias table " + Quoted(ref.spec) + " has shape (" +
                             std::to_string(ref.table->rows()) + ", " +
                             std::to_string(ref.table->cols()) + ") but --t5-buckets is " +
                             std::to_string(t.buckets) + " and --heads " + std::to_string(t.heads) +
                             "; the table is (buckets, heads) and both follow it");
    }
  }
  // The log bins divide by log(max_distance / max_exact): it must be > 0.
  const int64_t max_exact = T5MaxExact(bidirectional, t.buckets);
  if (t.max_distance <= max_exact || t.max_distance > kMaxPosition) {
    return InvalidArgument("--t5-max-distance must be in [" + std::to_string(max_exact + 1) + ", " +
                           std::to_string(kMaxPosition) + "] (greater than the " +
                           std::to_string(max_exact) + " exact distances of " +
                           std::to_string(t.buckets) + " " +
                           std::string(T5DirectionName(t.direction)) + " buckets), got " +
                           std::to_string(t.max_distance));
  }
  return {};
}

namespace {

// Runs of equal buckets over the distances d = 1, 2, ... of one side, for sums of the bias over
// any range of relative positions without visiting them: sum_{d=1}^{D} g(d) = cum[k] +
// (D - start[k] + 1) * value[k] with k the run holding D. (runs <= buckets)
struct Runs {
  std::vector<int64_t> start;
  std::vector<double> value, cum;
  std::vector<double> cum2;  // sum_{d=1}^{start - 1} Sum(d), for block means

  static Runs Build(const std::vector<T5BucketRun>& runs, const std::vector<float>& bias) {
    Runs r;
    double cum = 0, cum2 = 0;
    for (const T5BucketRun& run : runs) {
      const float g = bias[static_cast<size_t>(run.bucket)];
      r.start.push_back(run.first);
      r.value.push_back(g);
      r.cum.push_back(cum);
      r.cum2.push_back(cum2);
      const auto len = static_cast<double>(run.last - run.first + 1);
      cum2 += len * cum + g * len * (len + 1.0) * 0.5;
      cum += len * g;
    }
    return r;
  }
  // The run holding distance d >= 1.
  size_t RunOf(int64_t d) const {
    return static_cast<size_t>(std::upper_bound(start.begin(), start.end(), d) - start.begin() - 1);
  }
  // sum_{d=1}^{last} Sum(d), last >= 0: within a run Sum grows linearly.
  double Sum2(int64_t last) const {
    if (last <= 0) return 0.0;
    const size_t k = RunOf(last);
    const auto n = static_cast<double>(last - start[k] + 1);
    return cum2[k] + n * cum[k] + value[k] * n * (n + 1.0) * 0.5;
  }
  // sum_{d=1}^{last}, last >= 0. `*hint` is the run of the previous call (SIZE_MAX: none): a
  // sweep over neighbouring distances moves it by a step instead of searching.
  double Sum(int64_t last, size_t* hint) const {
    if (last <= 0) return 0.0;
    size_t k = *hint;
    if (k >= start.size()) {
      k = static_cast<size_t>(std::upper_bound(start.begin(), start.end(), last) - start.begin() -
                              1);
    } else {
      while (k + 1 < start.size() && start[k + 1] <= last) ++k;
      while (k > 0 && start[k] > last) --k;
    }
    *hint = k;
    return cum[k] + static_cast<double>(last - start[k] + 1) * value[k];
  }
};

class T5Encoding final : public Encoding {
 public:
  explicit T5Encoding(const EncodingParams& params) : Encoding(params) {
    const T5Params& t = params.t5();
    bias_.resize(static_cast<size_t>(t.buckets));
    for (int64_t b = 0; b < t.buckets; ++b) {
      bias_[static_cast<size_t>(b)] =
          t.bias.loaded() ? t.bias.table->At(b, t.head) : T5BucketBias(t, t.head, b);
    }
    float m = 0;
    for (float v : bias_) {
      if (std::isfinite(v))
        m = std::max(m, std::abs(v));
      else
        ++non_finite_;
    }
    max_abs_ = m > 0 ? m : 1.0f;
    after_ = Runs::Build(T5BucketRuns(t, +1, kMaxPosition + 1), bias_);
    before_ = Runs::Build(T5BucketRuns(t, -1, kMaxPosition + 1), bias_);
    bias0_ = bias_[static_cast<size_t>(bucket(0))];
  }

  int64_t cols() const override { return params_.max_len; }
  std::string TableName() const override { return "bias"; }
  ColumnNoun column_noun() const override { return ColumnNoun::kKey; }
  ValueRange Range() const override { return {-max_abs_, max_abs_}; }
  std::string Summary() const override {
    const T5Params& t = params_.t5();
    std::string s =
        Fmt("t5 %s, %lld buckets, max distance %lld, %lld heads, head %lld, seed %llu, "
            "L=%lld",
            std::string(T5DirectionName(t.direction)).c_str(), static_cast<long long>(t.buckets),
            static_cast<long long>(t.max_distance), static_cast<long long>(t.heads),
            static_cast<long long>(t.head), static_cast<unsigned long long>(t.seed),
            static_cast<long long>(params_.max_len));
    if (t.bias.loaded()) s += ", biases from " + t.bias.table->spec_text();
    if (params_.offset != 0)
      s += Fmt(", from position %lld", static_cast<long long>(params_.offset));
    return s;
  }
  std::string Title() const override {
    const T5Params& t = params_.t5();
    if (t.bias.loaded()) {
      std::string s =
          Fmt("T5 relative bias, head %lld of %lld (%s, %lld buckets, max distance %lld, ",
              static_cast<long long>(t.head), static_cast<long long>(t.heads),
              std::string(T5DirectionName(t.direction)).c_str(), static_cast<long long>(t.buckets),
              static_cast<long long>(t.max_distance));
      s += t.bias.table->spec_text();
      if (non_finite_ != 0) s += ", " + std::to_string(non_finite_) + " NaN/Inf biases";
      return s + ")";
    }
    return Fmt(
        "T5 relative bias, head %lld of %lld (%s, %lld buckets, max distance %lld, seed %llu)",
        static_cast<long long>(t.head), static_cast<long long>(t.heads),
        std::string(T5DirectionName(t.direction)).c_str(), static_cast<long long>(t.buckets),
        static_cast<long long>(t.max_distance), static_cast<unsigned long long>(t.seed));
  }
  std::string FileTag() const override {
    const T5Params& t = params_.t5();
    return Fmt("t5-%s-h%lld", std::string(T5DirectionName(t.direction)).c_str(),
               static_cast<long long>(t.head));
  }
  // A real-valued query takes the nearest integer query (the bias is a step function).
  double ValueAt(int64_t col, double position) const override {
    const auto q = static_cast<int64_t>(std::llround(position));
    return Bias(q, params_.offset + col);
  }
  void FillBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t q = params_.offset + row0 + r;
      float* row = out + r * cols;
      for (int64_t c = 0; c < cols; ++c) {
        row[c] = bias_[static_cast<size_t>(bucket(params_.offset + col0 + c - q))];
      }
    }
  }
  // Per key: the queries' relative positions k - q form one range; its sum comes from the runs.
  void MeanOverRows(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                    double* out) const override {
    const int64_t q0 = params_.offset + row0, q1 = q0 + rows - 1;
    Hints hi, lo;  // both ends move by one per key
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t k = params_.offset + col0 + j;
      out[j] = (Prefix(k - q0, &hi) - Prefix(k - q1 - 1, &lo)) / static_cast<double>(rows);
    }
  }
  // A block whose relative positions r = k - q all fall in one run of one bucket is that
  // bucket's bias; otherwise the double sum of the bias over r comes from the second-order sums
  // of the runs (near the diagonal, where the arguments stay about the block's size).
  bool MeanOverBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                     double* mean) const override {
    const int64_t q0 = params_.offset + row0, q1 = q0 + rows - 1;
    const int64_t k0 = params_.offset + col0, k1 = k0 + cols - 1;
    const int64_t r_lo = k0 - q1, r_hi = k1 - q0;
    if (r_lo > 0 && after_.RunOf(r_lo) == after_.RunOf(r_hi)) {
      *mean = after_.value[after_.RunOf(r_lo)];
      return true;
    }
    if (r_hi < 0 && before_.RunOf(-r_hi) == before_.RunOf(-r_lo)) {
      *mean = before_.value[before_.RunOf(-r_hi)];
      return true;
    }
    const double sum =
        Prefix2(k1 - q0) - Prefix2(k0 - q0 - 1) - Prefix2(k1 - q1 - 1) + Prefix2(k0 - q1 - 2);
    *mean = sum / (static_cast<double>(rows) * static_cast<double>(cols));
    return true;
  }
  std::string DescribeCell(int64_t position, int64_t col) const override {
    const int64_t k = params_.offset + col;
    const int64_t r = k - position;
    const int64_t b = bucket(r);
    return Fmt("bucket(%lld - %lld = %lld) = %lld; bias[head %lld, bucket %lld] = %.4f",
               static_cast<long long>(k), static_cast<long long>(position),
               static_cast<long long>(r), static_cast<long long>(b),
               static_cast<long long>(params_.t5().head), static_cast<long long>(b),
               bias_[static_cast<size_t>(b)]);
  }
  double Bias(int64_t query_position, int64_t key_position) const override {
    return bias_[static_cast<size_t>(bucket(key_position - query_position))];
  }
  // A causal T5 (a decoder's self-attention) runs under a causal mask: a key after the query
  // gets bucket 0 from the bucketing but is never attended to.
  bool Masked(int64_t query_position, int64_t key_position) const override {
    return params_.t5().direction == T5Direction::kCausal && key_position > query_position;
  }

 private:
  int64_t bucket(int64_t relative) const {
    const T5Params& t = params_.t5();
    return T5Bucket(relative, t.direction == T5Direction::kBidirectional, t.buckets,
                    t.max_distance);
  }
  // sum of g(r) for r in [0, x] (x >= 0), or minus the sum over [x + 1, -1] (x < 0), so that
  // the sum over [a, b] is Prefix(b) - Prefix(a - 1).
  struct Hints {
    size_t after = SIZE_MAX, before = SIZE_MAX;
  };
  double Prefix(int64_t x, Hints* h) const {
    if (x >= 0) return bias0_ + after_.Sum(x, &h->after);
    return -before_.Sum(-x - 1, &h->before);
  }
  // Likewise for the prefix sums themselves: sum over y in [a, b] of Prefix(y) is
  // Prefix2(b) - Prefix2(a - 1).
  double Prefix2(int64_t x) const {
    if (x >= 0) return static_cast<double>(x + 1) * bias0_ + after_.Sum2(x);
    return before_.Sum2(-x - 2);
  }

  std::vector<float> bias_;  // (buckets) of the chosen head
  float max_abs_ = 1.0f;
  int64_t non_finite_ = 0;  // NaN / Inf biases of a loaded table (flagged in the title)
  double bias0_ = 0;        // the bias at r = 0
  Runs after_, before_;     // keys after the query (r = d > 0), before it (r = -d)
};

}  // namespace

Result<EncodingPtr> MakeT5Encoding(const EncodingParams& params) {
  if (Status s = ValidateT5Params(params); !s.ok()) return s.error();
  return EncodingPtr(std::make_shared<T5Encoding>(params));
}

}  // namespace pe
