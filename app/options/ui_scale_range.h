// The range of the UI scale, shared by the command line (--ui-scale) and the window's settings;
// no ImGui here, so the command line (core only) can include it.
#pragma once

namespace pe {

inline constexpr float kMinUiScale = 0.5f;
inline constexpr float kMaxUiScale = 3.0f;

}  // namespace pe
