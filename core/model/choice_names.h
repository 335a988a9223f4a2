// The names of the model parameters' choices (model_params.h): what the field table parses from
// flags and sessions, and what the views and figures print.
#pragma once

#include <optional>
#include <string_view>

#include "model/model_params.h"

namespace pe {

// "bf16", "fp16" (the --dtype values) and back.
std::string_view DtypeName(LowPrecision dtype);
std::optional<LowPrecision> ParseDtype(std::string_view name);
// "bfloat16", "float16": for sentences.
std::string_view DtypeLongName(LowPrecision dtype);

// "dot", "cosine" (the --measure values) and back.
std::string_view SimilarityMeasureName(SimilarityMeasure measure);
std::optional<SimilarityMeasure> ParseSimilarityMeasure(std::string_view name);

// "none", "llama4" (the --attention-temperature values) and back.
std::string_view TemperatureKindName(TemperatureKind kind);
std::optional<TemperatureKind> ParseTemperatureKind(std::string_view name);

// "raw", "minus-zero", "softmax" (the --decay-norm values) and back.
std::string_view DecayNormName(DecayNorm norm);
std::optional<DecayNorm> ParseDecayNorm(std::string_view name);

// "all", "position" (the --score-part values) and back.
std::string_view ScorePartName(ScorePart part);
std::optional<ScorePart> ParseScorePart(std::string_view name);

}  // namespace pe
