#include "ui.h"

#include <imgui.h>

#include "panels/panels.h"

namespace pe {

void DrawUi(AppState& state, DerivedCache& cache) {
  const Derived& derived = cache.Update(state.params);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags host_flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                      ImGuiWindowFlags_NoSavedSettings |
                                      ImGuiWindowFlags_NoBringToFrontOnFocus;
  if (ImGui::Begin("PE Explorer", nullptr, host_flags)) {
    const float em = ImGui::GetFontSize();
    const float status_h = ImGui::GetFrameHeightWithSpacing();
    if (ImGui::BeginChild("controls", ImVec2(em * 19, -status_h), true)) {
      DrawControlsPanel(state, derived);
    }
    ImGui::EndChild();
    DrawStatusLine(state, derived);
  }
  ImGui::End();
}

}  // namespace pe
