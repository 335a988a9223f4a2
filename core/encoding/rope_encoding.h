// The rotary encoding (RoPE) as an Encoding: its cos, sin or angle table.
#pragma once

#include "base/status.h"
#include "encoding/encoding.h"

namespace pe {

Status ValidateRopeParams(const EncodingParams& params);
Result<EncodingPtr> MakeRopeEncoding(const EncodingParams& params);

}  // namespace pe
