// Data derived from the state, rebuilt only when the parameters it depends on change, never
// inside a draw call's hot path. Panels read it; nothing here knows about ImGui or GL.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "encoding/encoding.h"
#include "jobs/job.h"
#include "model/input_layer.h"
#include "ui/app_state.h"

namespace pe {

struct TableSummary {
  float min = 0.0f;
  float max = 0.0f;
  bool exact = false;          // false: the table was too large to scan and [min, max] is a bound
  double norm_pe1 = 0;         // |PE(norm_position)|
  int64_t norm_position = -1;  // 1, or the last position when 1 is not in the table; -1: none
};

// What follows from the encoding parameters alone.
struct EncodingParts {
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
};
EncodingParts BuildEncodingParts(const EncodingParams& params, const MemoryCap& cap,
                                 const Progress& progress = {});

struct Derived : EncodingParts {
  // Set while the encoding is built off the UI thread (then pe_status holds "building ..." and
  // encoding is null, so no view shows the last parameters' table as the new one).
  bool building = false;
  std::chrono::steady_clock::time_point building_since;
  double building_fraction = 0;  // of the values drawn so far (a loaded table's rows: 0)
  Result<SentenceResult> sentence = InvalidArgument("not computed yet");
  Result<InputParts> manual = InvalidArgument("not computed yet");  // typed-in vectors
  int generation = 0;  // bumped whenever anything above changed
};

// Encodings that store at least this many values (a learned table of 1024 x 1024, about 50 ms
// to draw on two cores) are built off the UI thread when the cache builds in the background.
inline constexpr int64_t kBackgroundBuildCells = int64_t{1} << 20;

// The encoding of the newest parameters given. In the background mode (the interactive window)
// a large learned table is drawn or read on a thread while the frames go on; otherwise (tests,
// screenshots) it is built in Update. The build runs on a job (jobs/job.h): the newest
// parameters win, a build for parameters no longer wanted is cancelled at its next step (2^20
// values) and never published, and the newest are built. Destroying the builder cancels a running
// build and waits for it to stop.
class EncodingBuilder {
 public:
  explicit EncodingBuilder(bool background = false)
      : background_(background), job_(/*synchronous=*/false) {}
  EncodingBuilder(const EncodingBuilder&) = delete;
  EncodingBuilder& operator=(const EncodingBuilder&) = delete;
  void set_background(bool background) { background_ = background; }

  // Brings parts() up to date with `params`; true when they changed (new parts, or a build
  // started for new parameters). While a build runs, parts().encoding is null and pe_status says
  // what is being built.
  bool Update(const EncodingParams& params, const MemoryCap& cap);
  const EncodingParts& parts() const { return parts_; }
  bool building() const { return building_; }
  std::chrono::steady_clock::time_point building_since() const { return building_since_; }
  double building_fraction() const;  // of the values drawn so far (a loaded table's rows: 0)
  // True while a build runs or its result waits for Update (the window keeps drawing frames).
  bool busy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return finished_.has_value() || job_.Busy();
  }
  // Blocks until a running build is done (tests).
  void WaitForBuild() { job_.WaitIdle(); }

 private:
  void StartBuild(const EncodingParams& params, const MemoryCap& cap);

  bool background_ = false;
  mutable std::mutex mutex_;
  std::optional<std::pair<EncodingParams, EncodingParts>> finished_;  // a build's, not yet taken
  std::optional<EncodingParams> key_;
  EncodingParts parts_;
  bool building_ = false;
  std::chrono::steady_clock::time_point building_since_;
  Job job_;  // last: joined before finished_ goes
};

class DerivedCache {
 public:
  // See EncodingBuilder for the background mode.
  explicit DerivedCache(bool background = false) : encoding_(background) {}
  void set_background(bool background) { encoding_.set_background(background); }

  // Brings the derived data up to date with `state` and returns it. While the encoding is built
  // off the UI thread it is null and `building` is set.
  const Derived& Update(const AppState& state);
  const Derived& get() const { return derived_; }
  bool busy() const { return encoding_.busy(); }
  // Blocks until a running build is done (tests).
  void WaitForBuild() { encoding_.WaitForBuild(); }

 private:
  EncodingBuilder encoding_;
  int64_t encoding_version_ = 0;  // bumped when the encoding parts change
  // (encoding version, input layer, text example, memory cap, batch row)
  std::optional<std::tuple<int64_t, InputLayerParams, TextExample, MemoryCap, int64_t>>
      sentence_key_;
  std::optional<std::tuple<ManualVectors, InputLayerParams>> manual_key_;
  Derived derived_;
};

// Whether the inputs `now` differ from those `key` holds, the inputs a cache was built from.
// Compares in place and copies the inputs into `key` only when they changed, so a vocabulary, typed
// rows or the whole ModelParams are not copied every frame to key a cache.
template <class... T>
bool KeyChanged(std::optional<std::tuple<T...>>& key, const std::type_identity_t<T>&... now) {
  if (key && *key == std::tie(now...)) return false;
  key.emplace(now...);
  return true;
}

// Exact min/max by streaming the table when it has at most `max_cells` cells, else the
// encoding's value range.
TableSummary SummarizeTable(const Encoding& encoding, int64_t max_cells = int64_t{1} << 21);

}  // namespace pe
