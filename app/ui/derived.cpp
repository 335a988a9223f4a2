#include "ui/derived.h"

#include <algorithm>
#include <cmath>

namespace pe {

TableSummary SummarizeTable(const Encoding& e, int64_t max_cells) {
  TableSummary s;
  // |positional vector at position 1| (0 past the table), in double.
  if (e.family() == Family::kAdded && e.first_position() <= 1 && e.last_position() >= 1) {
    double acc = 0.0;
    for (int64_t j = 0; j < e.cols(); ++j) acc += std::pow(e.ValueAt(j, 1.0), 2);
    s.norm_pe1 = std::sqrt(acc);
  }
  const int64_t rows = e.rows(), cols = e.cols();
  if (rows > max_cells / cols) {
    s.min = static_cast<float>(e.Range().lo);
    s.max = static_cast<float>(e.Range().hi);
    return s;
  }
  constexpr int64_t kBlock = 1024;
  std::vector<float> block(static_cast<size_t>(std::min(kBlock, rows) * cols));
  s.min = INFINITY;
  s.max = -INFINITY;
  for (int64_t r0 = 0; r0 < rows; r0 += kBlock) {
    const int64_t n = std::min(kBlock, rows - r0);
    e.FillBlock(r0, n, 0, cols, block.data());
    auto [lo, hi] = std::minmax_element(block.begin(), block.begin() + n * cols);
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
    Result<EncodingPtr> encoding = MakeEncoding(params.pe, params.cap);
    derived_.pe_status = encoding.status();
    derived_.encoding = encoding.ok() ? encoding.value() : nullptr;
    derived_.columns.clear();
    derived_.fastest_wavelength = derived_.slowest_wavelength = 0;
    derived_.wave_frequencies = derived_.cos_columns = derived_.zero_columns = 0;
    if (derived_.encoding) {
      const auto waves = derived_.encoding->waves();
      derived_.columns.assign(waves.begin(), waves.end());
      derived_.fastest_wavelength = INFINITY;
      derived_.slowest_wavelength = 0;
      for (const WaveColumn& c : derived_.columns) {
        if (c.wave == Wave::kZero) continue;
        derived_.fastest_wavelength = std::min(derived_.fastest_wavelength, c.wavelength());
        derived_.slowest_wavelength = std::max(derived_.slowest_wavelength, c.wavelength());
      }
      if (!std::isfinite(derived_.fastest_wavelength)) derived_.fastest_wavelength = 0;
      std::vector<double> freqs;
      for (const WaveColumn& c : derived_.columns) {
        if (c.wave == Wave::kZero) {
          ++derived_.zero_columns;
          continue;
        }
        if (c.wave == Wave::kCos) ++derived_.cos_columns;
        freqs.push_back(c.frequency);
      }
      std::sort(freqs.begin(), freqs.end());
      derived_.wave_frequencies = std::unique(freqs.begin(), freqs.end()) - freqs.begin();
      derived_.summary = SummarizeTable(*derived_.encoding);
    }
    changed = true;
  }
  // The batch row of typed ids, kept inside the batch (ClampSelections fixes the state after).
  const int64_t row =
      std::clamp<int64_t>(state.selection.batch_row, 0, ExampleBatch(params.example) - 1);
  auto key = std::make_tuple(params.pe, params.input, params.example, params.cap, row);
  if (!sentence_key_ || *sentence_key_ != key) {
    sentence_key_ = key;
    derived_.sentence = derived_.encoding ? ComputeSentence(params.example, *derived_.encoding,
                                                            params.input, params.cap, row)
                                          : Result<SentenceResult>(derived_.pe_status.error());
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
