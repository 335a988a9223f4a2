// Hugging Face config.json, in both shapes: v4 (rope_theta and rope_scaling at the top) and v5
// (rope_parameters, possibly one per layer type), read into a model's positional schedule
// (model/model_schedule.h). docs/FORMATS.md lists the keys read and how each maps.
#pragma once

#include <string>
#include <string_view>

#include "base/matrix.h"
#include "base/status.h"
#include "model/model_schedule.h"

namespace pe {

// Reads a config.json's text. `name` names the model in the schedule and in messages (the
// catalogue name or the file's name); `source` is recorded as the schedule's source. Unknown
// keys are listed in the schedule, never fatal; malformed JSON, a contradictory or
// out-of-range key is an error naming the key and the value. Never throws.
Result<ModelSchedule> ReadHfConfig(std::string_view json_text, std::string_view name,
                                   std::string_view source);

}  // namespace pe
