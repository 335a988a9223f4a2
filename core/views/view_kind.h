// The views a user can look at and export, by name. views/view_registry.h says what each
// applies to and how it is built.
#pragma once

#include <optional>
#include <string_view>

namespace pe {

enum class ViewKind {
  kHeatmap,
  kCurves,
  kSums,
  kRotation,
  kFrequencies,
  kBias,
  kBuckets,
  kSlopes,
  kScore,
  kDecay,
  kRoformerDecay,
  kBaseBound,
  kPiFit,
  kAttention,
  kCompare,
  kSimilarity,
  kSimilarityOffset,
  kSpectrum,
  kPrecision,
  kWalkthrough,
  kCheck,
  kProjection,
  kPositionIds,
  kMropeAxes,
  kMropeNeighbours,
  kLayers,  // the last: kViewKinds counts up to it
};
inline constexpr int kViewKinds = static_cast<int>(ViewKind::kLayers) + 1;
// "heatmap", "curves", "sum", "rotation", "frequencies", "bias", "buckets", "slopes", "score",
// "decay", "roformer-decay", "base-bound", "pi-fit", "attention", "compare", "similarity",
// "similarity-offset", "spectrum", "precision", "walkthrough", "check", "projection",
// "position-ids", "mrope-axes", "mrope-neighbours", "layers"
std::string_view ViewName(ViewKind view);

// The windows of a ViewSelection a view's figure can depend on (each a --*-window flag and a
// metadata key, figure_export.h: WindowKeyName).
enum class ViewWindowKey { kHeatmap, kCurves, kSums, kScore };
std::optional<ViewKind> ParseView(std::string_view name);

}  // namespace pe
