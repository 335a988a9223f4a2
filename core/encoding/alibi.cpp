#include "encoding/alibi.h"

namespace pe {

Status ValidateAlibiParams(const EncodingParams&) {
  return InvalidArgument("the alibi scheme is not available yet");
}
Result<EncodingPtr> MakeAlibiEncoding(const EncodingParams&) {
  return InvalidArgument("the alibi scheme is not available yet");
}

}  // namespace pe
