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
void RopeDrafts(const Matrix& t, int64_t assumed_d, RopePairing pairing, RopePart part,
                const CheckConstraints& c, std::vector<CheckDraft>& out);

}  // namespace pe
