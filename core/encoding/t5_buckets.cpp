#include "encoding/t5_buckets.h"

namespace pe {

Status ValidateT5Params(const EncodingParams&) {
  return InvalidArgument("the t5 scheme is not available yet");
}
Result<EncodingPtr> MakeT5Encoding(const EncodingParams&) {
  return InvalidArgument("the t5 scheme is not available yet");
}

}  // namespace pe
