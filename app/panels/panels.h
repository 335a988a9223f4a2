// One free function per panel; each draws inside a child region the layout (ui.cpp) gives it.
#pragma once

#include "app_state.h"
#include "derived.h"

namespace pe {

void DrawControlsPanel(AppState& state, const Derived& derived);
void DrawStatusLine(const AppState& state, const Derived& derived);

}  // namespace pe
