#include "arch/gguf_reader.h"

namespace pe {

Result<ModelSchedule> ReadGgufFile(const std::string& path, const MemoryCap& /*cap*/) {
  return InvalidArgument("GGUF " + path + ": not read yet");
}

}  // namespace pe
