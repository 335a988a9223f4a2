#include "ui/derived.h"

#include <algorithm>
#include <cmath>

namespace pe {

TableSummary SummarizeTable(const Encoding& e, int64_t max_cells) {
  TableSummary s;
  // |positional vector at position 1|, or at the last position when 1 is not in the table, in
  // double.
  if (e.family() == Family::kAdded) {
    const int64_t p = e.first_position() <= 1 && e.last_position() >= 1 ? 1 : e.last_position();
    double acc = 0.0;
    for (int64_t j = 0; j < e.cols(); ++j) {
      acc += std::pow(e.ValueAt(j, static_cast<double>(p)), 2);
    }
    s.norm_pe1 = std::sqrt(acc);
    s.norm_position = p;
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

EncodingParts BuildEncodingParts(const EncodingParams& params, const MemoryCap& cap,
                                 const Progress& progress) {
  EncodingParts out;
  Result<EncodingPtr> encoding = MakeEncoding(params, cap, progress);
  out.pe_status = encoding.status();
  out.encoding = encoding.ok() ? encoding.value() : nullptr;
  if (!out.encoding) return out;
  const auto waves = out.encoding->waves();
  out.columns.assign(waves.begin(), waves.end());
  out.fastest_wavelength = INFINITY;
  out.slowest_wavelength = 0;
  std::vector<double> freqs;
  for (const WaveColumn& c : out.columns) {
    if (c.wave == Wave::kZero) {
      ++out.zero_columns;
      continue;
    }
    out.fastest_wavelength = std::min(out.fastest_wavelength, c.wavelength());
    out.slowest_wavelength = std::max(out.slowest_wavelength, c.wavelength());
    if (c.wave == Wave::kCos) ++out.cos_columns;
    freqs.push_back(c.frequency);
  }
  if (!std::isfinite(out.fastest_wavelength)) out.fastest_wavelength = 0;
  std::sort(freqs.begin(), freqs.end());
  out.wave_frequencies = std::unique(freqs.begin(), freqs.end()) - freqs.begin();
  out.summary = SummarizeTable(*out.encoding);
  return out;
}

void EncodingBuilder::StartBuild(const EncodingParams& params, const MemoryCap& cap) {
  job_.Submit(0, [this, params, cap](JobContext& context) {
    EncodingParts parts;
    // An exception (an allocation the machine cannot give) becomes the status the controls show.
    try {
      parts = BuildEncodingParts(params, cap, context.progress());
    } catch (const CancelledError&) {
      return;
    } catch (const std::exception& e) {
      parts.pe_status = RuntimeError(std::string("building the table failed: ") + e.what());
    }
    context.Publish([&] {
      std::lock_guard<std::mutex> lock(mutex_);
      finished_.emplace(params, std::move(parts));
    });
  });
}

double EncodingBuilder::building_fraction() const {
  return building_ ? job_.fraction() : 0.0;
}

bool EncodingBuilder::Update(const EncodingParams& params, const MemoryCap& cap) {
  bool changed = false;
  // A finished build: its table if the parameters are still those it was started for (one for
  // other parameters was cancelled and published nothing, unless it finished first).
  std::optional<std::pair<EncodingParams, EncodingParts>> finished;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished.swap(finished_);
  }
  if (finished && building_ && key_ && *key_ == finished->first) {
    parts_ = std::move(finished->second);
    building_ = false;
    changed = true;
  }
  if (!key_ || *key_ != params) {
    key_ = params;
    const int64_t cells = StoredCells(params);
    if (background_ && cells >= kBackgroundBuildCells && ValidateEncodingParams(params).ok() &&
        CheckEncodingFits(params, cap).ok()) {
      parts_ = EncodingParts{};
      parts_.pe_status =
          InvalidArgument("building the " + std::to_string(params.max_len) + " x " +
                          std::to_string(params.d_model) + " learned position table (" +
                          FormatBytes(static_cast<uint64_t>(cells) * sizeof(float)) + ")");
      building_ = true;
      building_since_ = std::chrono::steady_clock::now();
      // Cancels a build for other parameters at its next step; this one starts when it stops.
      StartBuild(params, cap);
    } else {
      job_.Cancel();  // a build for other parameters is not wanted any more
      parts_ = BuildEncodingParts(params, cap);
      building_ = false;
    }
    changed = true;
  }
  return changed;
}

const Derived& DerivedCache::Update(const AppState& state) {
  const ModelParams& params = state.params;
  bool changed = false;
  if (encoding_.Update(params.pe, params.cap)) {
    static_cast<EncodingParts&>(derived_) = encoding_.parts();
    derived_.building = encoding_.building();
    derived_.building_since = encoding_.building_since();
    ++encoding_version_;  // the sentence follows the encoding
    changed = true;
  }
  derived_.building_fraction = encoding_.building_fraction();
  // The batch row of typed ids, kept inside the batch (ClampSelections fixes the state after).
  const int64_t row =
      std::clamp<int64_t>(state.selection.batch_row, 0, ExampleBatch(params.example) - 1);
  if (KeyChanged(sentence_key_, encoding_version_, params.input, params.example, params.cap, row)) {
    derived_.sentence = derived_.encoding ? ComputeSentence(params.example, *derived_.encoding,
                                                            params.input, params.cap, row)
                                          : Result<SentenceResult>(derived_.pe_status.error());
    changed = true;
  }
  // The typed vectors have their own scaling switch; dropout follows the input layer's.
  InputLayerParams manual_input = params.input;
  manual_input.scale = state.manual.scale;
  manual_input.pe_discarded = false;  // typed vectors add the PE typed beside them
  if (KeyChanged(manual_key_, state.manual, manual_input)) {
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
