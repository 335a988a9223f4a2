// The candidates of `check`'s identification (check.h): parameters read off a table under one
// column layout, before verification against the engine's own table. Internal to analysis/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/check.h"
#include "base/matrix.h"
#include "encoding/encoding_params.h"

namespace pe {

struct CheckDraft {
  EncodingParams params;
  int unsnapped = 0;       // readings that did not snap to a short decimal
  std::string hypothesis;  // the layout tried, for "best per layout"
};

// Whether the user's --scheme (if any) is `s`.
bool SchemeAllowed(const CheckConstraints& c, Scheme s);
// The sinusoidal drafts of one layout (variant, order) for a table `assumed_d` wide.
void SinusoidalDrafts(const Matrix& t, int64_t assumed_d, PeVariant variant, WaveOrder order,
                      const CheckConstraints& c, std::vector<CheckDraft>& out);
// RoPE's cos or sin table in one pairing: drafts for each scaling the frequencies suggest.
// It reads the table into a RopeReading and drafts from that (RopeReadingDrafts).
void RopeDrafts(const Matrix& t, int64_t assumed_d, RopePairing pairing, RopePart part,
                const CheckConstraints& c, std::vector<CheckDraft>& out);

// What a RoPE table, or an engine's inv_freq vector, says about its d/2 pairs.
struct RopeReading {
  std::vector<double> frequency;  // radians per position; NaN (or weight 0) where not read
  std::vector<double> weight;     // each reading's weight in the fits
  double amplitude = 1;     // the largest |cos| (YaRN's attention factor); NaN: unknown (inv_freq)
  int64_t still_pairs = 0;  // trailing pairs that never turn (proportional RoPE)
};

// The drafts a reading suggests (no scaling, linear, NTK, YaRN and Llama 3 at the original
// lengths models ship with, each with the proportion when pairs stand still), shaped as
// `shape` (d_model: twice the pairs read; max_len, offset) in `pairing` and `part`, with what
// `c` fixes kept. `hypothesis` names the layout for the ranking's "best per layout".
void RopeReadingDrafts(const RopeReading& reading, const EncodingParams& shape,
                       const std::string& hypothesis, RopePairing pairing, RopePart part,
                       const CheckConstraints& c, std::vector<CheckDraft>& out);

}  // namespace pe
