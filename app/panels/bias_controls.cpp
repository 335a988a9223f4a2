// The controls and explanation of ALiBi and T5.
#include <imgui.h>

#include "panels/panels.h"

namespace pe {

void DrawBiasControls(AppState& state) { (void)state; }
void DrawBiasExplanation(const AppState& state, const Derived& derived) {
  (void)state;
  (void)derived;
}

}  // namespace pe
