// ALiBi: attention with linear biases (Press et al. 2022), as an Encoding of the bias family.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "encoding/encoding.h"

namespace pe {

Status ValidateAlibiParams(const EncodingParams& params);
Result<EncodingPtr> MakeAlibiEncoding(const EncodingParams& params);

}  // namespace pe
