// The three views a user can look at and export.
#pragma once

#include <optional>
#include <string_view>

namespace pe {

enum class ViewKind { kHeatmap, kCurves, kSums };
std::string_view ViewName(ViewKind view);  // "heatmap", "curves", "sum"
std::optional<ViewKind> ParseView(std::string_view name);

}  // namespace pe
