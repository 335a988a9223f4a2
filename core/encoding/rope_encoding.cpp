#include "encoding/rope_encoding.h"

namespace pe {

// Filled in with the rotary frequencies.
Status ValidateRopeParams(const EncodingParams&) {
  return InvalidArgument("the rope scheme is not available yet");
}
Result<EncodingPtr> MakeRopeEncoding(const EncodingParams&) {
  return InvalidArgument("the rope scheme is not available yet");
}

}  // namespace pe
