#include "model/choice_names.h"

#include <cmath>

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

std::string_view TemperatureKindName(TemperatureKind kind) {
  return kind == TemperatureKind::kLlama4 ? "llama4" : "none";
}

std::optional<TemperatureKind> ParseTemperatureKind(std::string_view name) {
  if (name == "none") return TemperatureKind::kNone;
  if (name == "llama4") return TemperatureKind::kLlama4;
  return std::nullopt;
}

double TemperatureAt(const AttentionTemperature& t, int64_t position) {
  if (t.kind == TemperatureKind::kNone) return 1.0;
  // Positions are exact in double (|p| < 2^53); the division and floor as the reference's.
  const double steps = std::floor((static_cast<double>(position) + 1.0) / t.floor);
  return 1.0 + t.scale * std::log(steps + 1.0);
}

std::string_view DecayNormName(DecayNorm norm) {
  switch (norm) {
    case DecayNorm::kMinusZero:
      return "minus-zero";
    case DecayNorm::kSoftmax:
      return "softmax";
    case DecayNorm::kRaw:
      break;
  }
  return "raw";
}

std::optional<DecayNorm> ParseDecayNorm(std::string_view name) {
  if (name == "raw") return DecayNorm::kRaw;
  if (name == "minus-zero") return DecayNorm::kMinusZero;
  if (name == "softmax") return DecayNorm::kSoftmax;
  return std::nullopt;
}

std::string_view ScorePartName(ScorePart part) {
  return part == ScorePart::kPosition ? "position" : "all";
}

std::optional<ScorePart> ParseScorePart(std::string_view name) {
  if (name == "all") return ScorePart::kAll;
  if (name == "position") return ScorePart::kPosition;
  return std::nullopt;
}

}  // namespace pe
