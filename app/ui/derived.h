// Data derived from the state, rebuilt only when the parameters it depends on change, never
// inside a draw call's hot path. Panels read it; nothing here knows about ImGui or GL.
#pragma once

#include <optional>
#include <tuple>

#include "encoding/encoding.h"
#include "model/input_layer.h"
#include "ui/app_state.h"

namespace pe {

struct TableSummary {
  float min = 0.0f;
  float max = 0.0f;
  bool exact = false;   // false: the table was too large to scan and [min, max] is a bound
  double norm_pe1 = 0;  // |PE(position 1)|
};

struct Derived {
  Status pe_status;                 // why the current parameters make no encoding, if they do not
  EncodingPtr encoding;             // the current encoding; null when pe_status fails
  std::vector<WaveColumn> columns;  // (cols) its wave columns; empty for tables without waves
  double fastest_wavelength = 0;    // of the non-zero columns, in positions
  double slowest_wavelength = 0;
  // Of `columns`: distinct non-zero frequencies, cosine columns (each has its sine) and zero
  // columns, counted once per encoding (a per-frame count was quadratic in d_model).
  int64_t wave_frequencies = 0;
  int64_t cos_columns = 0;
  int64_t zero_columns = 0;
  TableSummary summary;
  Result<SentenceResult> sentence = InvalidArgument("not computed yet");
  Result<InputParts> manual = InvalidArgument("not computed yet");  // typed-in vectors
  int generation = 0;  // bumped whenever anything above changed
};

class DerivedCache {
 public:
  // Brings the derived data up to date with `state` and returns it.
  const Derived& Update(const AppState& state);
  const Derived& get() const { return derived_; }

 private:
  std::optional<EncodingParams> pe_key_;
  std::optional<std::tuple<EncodingParams, InputLayerParams, TextExample, MemoryCap, int64_t>>
      sentence_key_;
  std::optional<std::tuple<ManualVectors, InputLayerParams>> manual_key_;
  Derived derived_;
};

// Exact min/max by streaming the table when it has at most `max_cells` cells, else the
// encoding's value range.
TableSummary SummarizeTable(const Encoding& encoding, int64_t max_cells = int64_t{1} << 21);

}  // namespace pe
