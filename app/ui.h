// The whole UI of one frame, without GL: what the window runs and what headless tests drive.
#pragma once

#include "app_state.h"
#include "derived.h"

namespace pe {

// Updates the derived data from `state` and draws every visible panel. Never throws.
void DrawUi(AppState& state, DerivedCache& cache);

}  // namespace pe
