// The whole UI of one frame, without GL: what the window runs and what headless tests drive.
// It lays out the panels (app/panels) and runs the shortcuts; the state and caches it draws
// with are the ui floor's (ui/ui.h).
#pragma once

#include "ui/app_state.h"
#include "ui/ui.h"

namespace pe {

// Applies the edits queued in the last frame (state.pending_edits), updates the derived data and
// draws every visible panel. Edits made while drawing show in the next frame: a loop that waits
// for events must not wait while state.pending_edits is not empty. Never throws.
void DrawUi(AppState& state, UiCaches& caches, UiServices& services);

}  // namespace pe
