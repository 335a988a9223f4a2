// GGUF (llama.cpp's model file, versions 2 and 3): the header and the metadata, memory-mapped,
// never the tensor data except the small `rope_freqs.weight` table Llama 3.1-style conversions
// write; read into a model's positional schedule (model/model_schedule.h).
#pragma once

#include <string>

#include "base/matrix.h"
#include "base/status.h"
#include "io/read_support.h"
#include "model/model_schedule.h"

namespace pe {

// Reads a .gguf file's schedule. An error names the file, the key and the value; special files
// are refused; nothing it reads exceeds `cap`. Never throws.
Result<ModelSchedule> ReadGgufFile(const std::string& path, const MemoryCap& cap = {});

// The same from any source (a span in tests and the fuzzer); `path` names it in the schedule
// and in messages. The tensor infos and metadata kept stay under `cap`.
Result<ModelSchedule> ReadGguf(ByteSource& source, const std::string& path,
                               const MemoryCap& cap = {});

}  // namespace pe
