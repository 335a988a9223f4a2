#include "ui/derived.h"

#include <algorithm>
#include <cmath>

namespace pe {

TableSummary SummarizeTable(const PeParams& params, int64_t max_cells) {
  TableSummary s;
  double acc = 0.0;
  for (const PeColumn& c : DescribeColumns(params)) acc += std::pow(PeValueAt(c, 1.0), 2);
  s.norm_pe1 = std::sqrt(acc);
  if (params.max_len > max_cells / params.d_model) {
    s.min = -1.0f;
    s.max = 1.0f;
    return s;
  }
  constexpr int64_t kBlock = 1024;
  std::vector<float> block(static_cast<size_t>(std::min(kBlock, params.max_len) * params.d_model));
  s.min = INFINITY;
  s.max = -INFINITY;
  for (int64_t r0 = 0; r0 < params.max_len; r0 += kBlock) {
    const int64_t rows = std::min(kBlock, params.max_len - r0);
    FillPeBlock(params, r0, rows, 0, params.d_model, block.data());
    auto [lo, hi] = std::minmax_element(block.begin(), block.begin() + rows * params.d_model);
    s.min = std::min(s.min, *lo);
    s.max = std::max(s.max, *hi);
  }
  s.exact = true;
  return s;
}

const Derived& DerivedCache::Update(const AppState& state) {
  const ModelParams& params = state.params;
  bool changed = false;
  if (!pe_key_ || *pe_key_ != params.pe) {
    pe_key_ = params.pe;
    derived_.pe_status = ValidatePeParams(params.pe);
    derived_.columns.clear();
    if (derived_.pe_status.ok()) {
      derived_.columns = DescribeColumns(params.pe);
      derived_.fastest_wavelength = INFINITY;
      derived_.slowest_wavelength = 0;
      for (const PeColumn& c : derived_.columns) {
        if (c.wave == PeWave::kZero) continue;
        derived_.fastest_wavelength = std::min(derived_.fastest_wavelength, c.wavelength());
        derived_.slowest_wavelength = std::max(derived_.slowest_wavelength, c.wavelength());
      }
      derived_.summary = SummarizeTable(params.pe);
    }
    changed = true;
  }
  auto key = std::make_tuple(params.pe, params.input, params.example, params.cap);
  if (!sentence_key_ || *sentence_key_ != key) {
    sentence_key_ = key;
    derived_.sentence = ComputeSentence(params.example, params.pe, params.input, params.cap);
    changed = true;
  }
  // The typed vectors have their own scaling switch; dropout follows the input layer's.
  InputLayerParams manual_input = params.input;
  manual_input.scale = state.manual.scale;
  auto manual_key = std::make_tuple(state.manual, manual_input);
  if (!manual_key_ || *manual_key_ != manual_key) {
    manual_key_ = manual_key;
    const ManualVectors& m = state.manual;
    Result<Matrix> e = MatrixFromValues(m.tokens, m.dims, m.embedding);
    Result<Matrix> p = MatrixFromValues(m.tokens, m.dims, m.positional);
    derived_.manual = !e.ok()   ? Result<InputParts>(e.error())
                      : !p.ok() ? Result<InputParts>(p.error())
                                : CombineInputParts(e.value(), p.value(), manual_input);
    changed = true;
  }
  if (changed) ++derived_.generation;
  return derived_;
}

}  // namespace pe
