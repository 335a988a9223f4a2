// The controls and explanation of xPos.
#include <imgui.h>

#include "panels/panels.h"

namespace pe {

void DrawXposControls(AppState& state) { (void)state; }
void DrawXposExplanation(const AppState& state, const Derived& derived) {
  (void)state;
  (void)derived;
}

}  // namespace pe
