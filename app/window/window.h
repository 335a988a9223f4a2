// The real window: GLFW + OpenGL 3 + Dear ImGui. Also renders hidden for --screenshot and
// --frame-stats.
#pragma once

#include <functional>

#include "options/window_request.h"
#include "ui/app_state.h"
#include "ui/ui.h"

namespace pe {

// Runs the window until it is closed (or the requested frames are rendered). Returns the exit
// code; without a display it prints one line on what to do instead and returns 1.
// `after_last_frame`, when set, sees the caches after an offscreen run's last frame (tests use
// it to know where each plot was drawn).
// `sessions`, when set, autosaves the last session while the window runs and when it closes.
int RunWindow(AppState& state, const WindowRequest& request,
              const std::function<void(const UiCaches&)>& after_last_frame = {},
              SessionKeeper* sessions = nullptr);

}  // namespace pe
