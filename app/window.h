// The real window: GLFW + OpenGL 3 + Dear ImGui. Also renders hidden for --screenshot and
// --frame-stats.
#pragma once

#include "app_state.h"
#include "command_line.h"

namespace pe {

// Runs the window until it is closed (or the requested frames are rendered). Returns the exit
// code; without a display it prints one line on what to do instead and returns 1.
int RunWindow(AppState& state, const WindowRequest& request);

}  // namespace pe
