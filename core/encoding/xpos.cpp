#include "encoding/xpos.h"

namespace pe {

Status ValidateXposParams(const EncodingParams&) {
  return InvalidArgument("the xpos scheme is not available yet");
}
Result<EncodingPtr> MakeXposEncoding(const EncodingParams&) {
  return InvalidArgument("the xpos scheme is not available yet");
}

}  // namespace pe
