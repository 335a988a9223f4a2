// Opens a model's configuration file, a config.json or a GGUF file, told apart by content (a
// GGUF file starts with the bytes "GGUF").
#pragma once

#include <string>

#include "base/matrix.h"
#include "base/status.h"
#include "model/model_schedule.h"

namespace pe {

// The largest config.json read (a real one is a few kilobytes).
inline constexpr uint64_t kMaxConfigJsonBytes = uint64_t{16} << 20;

// Reads `path` as a GGUF file or a config.json. Special files (FIFOs, devices, directories) are
// refused; an error names the file. Never throws.
Result<ModelSchedule> OpenModelConfig(const std::string& path, const MemoryCap& cap = {});

// Whether `path` is a model's configuration by its content: a regular file starting with the
// bytes "GGUF", or a JSON object of at most kMaxConfigJsonBytes with a top-level "model_type" or
// "architectures" key (a tokenizer.json has neither). Reads no more than that; never throws.
bool LooksLikeModelConfig(const std::string& path);

}  // namespace pe
