// T5 relative position buckets (Raffel et al. 2020) with a per-head bias per bucket.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "encoding/encoding.h"

namespace pe {

Status ValidateT5Params(const EncodingParams& params);
Result<EncodingPtr> MakeT5Encoding(const EncodingParams& params);

}  // namespace pe
