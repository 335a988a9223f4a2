// The views a user can look at and export, by name. views/view_registry.h says what each
// applies to and how it is built.
#pragma once

#include <optional>
#include <string_view>

namespace pe {

enum class ViewKind { kHeatmap, kCurves, kSums, kRotation, kFrequencies };
// "heatmap", "curves", "sum", "rotation", "frequencies"
std::string_view ViewName(ViewKind view);
std::optional<ViewKind> ParseView(std::string_view name);

}  // namespace pe
