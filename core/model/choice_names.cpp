#include "model/choice_names.h"

namespace pe {

std::string_view DtypeName(LowPrecision dtype) {
  return dtype == LowPrecision::kBf16 ? "bf16" : "fp16";
}

std::string_view DtypeLongName(LowPrecision dtype) {
  return dtype == LowPrecision::kBf16 ? "bfloat16" : "float16";
}

std::optional<LowPrecision> ParseDtype(std::string_view name) {
  if (name == "bf16") return LowPrecision::kBf16;
  if (name == "fp16") return LowPrecision::kFp16;
  return std::nullopt;
}

std::string_view SimilarityMeasureName(SimilarityMeasure measure) {
  return measure == SimilarityMeasure::kCosine ? "cosine" : "dot";
}

std::optional<SimilarityMeasure> ParseSimilarityMeasure(std::string_view name) {
  if (name == "dot") return SimilarityMeasure::kDot;
  if (name == "cosine") return SimilarityMeasure::kCosine;
  return std::nullopt;
}

}  // namespace pe
