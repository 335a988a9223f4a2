// xPos (Sun et al. 2023): RoPE with a per-pair exponential decay.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "encoding/encoding.h"

namespace pe {

Status ValidateXposParams(const EncodingParams& params);
Result<EncodingPtr> MakeXposEncoding(const EncodingParams& params);

}  // namespace pe
