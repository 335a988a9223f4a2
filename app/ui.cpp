#include "ui.h"

#include <imgui.h>

#include <array>
#include <exception>

#include "panels/panels.h"

namespace pe {
namespace {

// Fits the views to new table extents (d_model, max_len or offset changed).
void RefitOnNewExtents(AppState& state, const Derived& derived) {
  const PeParams& p = state.params.pe;
  if (!derived.pe_status.ok()) return;
  const std::array<int64_t, 3> extents = {p.d_model, p.max_len, p.offset};
  if (extents != state.fitted_extents) {
    state.fitted_extents = extents;
    state.heatmap.fitted = false;
    state.curves.fitted = false;
  }
  const PlotRange table{0, static_cast<double>(p.d_model), static_cast<double>(p.offset),
                        static_cast<double>(p.offset) + static_cast<double>(p.max_len)};
  if (!state.heatmap.fitted) {
    state.heatmap.view = table;
    state.heatmap.fitted = true;
  }
  if (!state.curves.fitted) {
    const double last = static_cast<double>(p.offset) + static_cast<double>(p.max_len - 1);
    state.curves.view = {static_cast<double>(p.offset),
                         std::min(last, static_cast<double>(p.offset) + 100.0), -1.15, 1.15};
    if (state.curves.view.x1 <= state.curves.view.x0) state.curves.view.x1 = state.curves.view.x0 + 1;
    state.curves.fitted = true;
  }
}

void Panel(const char* id, const char* title, ImVec2 size, ImGuiWindowFlags flags,
           const auto& draw) {
  if (ImGui::BeginChild(id, size, true, flags)) {
    ImGui::TextUnformatted(title);
    ImGui::Separator();
    draw();
  }
  ImGui::EndChild();
}

}  // namespace

void DrawUi(AppState& state, UiCaches& caches, UiServices& services) {
  const Derived& derived = caches.derived.Update(state);
  state.selection.hover_position = state.selection.next_hover_position;
  state.selection.hover_dim = state.selection.next_hover_dim;
  state.selection.next_hover_position = -1;
  state.selection.next_hover_dim = -1;
  RefitOnNewExtents(state, derived);

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags host_flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                      ImGuiWindowFlags_NoSavedSettings |
                                      ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(4, 4));
  const bool open = ImGui::Begin("PE Explorer", nullptr, host_flags);
  ImGui::PopStyleVar();
  if (open) {
    try {
      const float em = ImGui::GetFontSize();
      const float gap = ImGui::GetStyle().ItemSpacing.x;
      const float status_h = ImGui::GetFrameHeightWithSpacing();
      const ImVec2 avail = ImGui::GetContentRegionAvail();
      const float controls_w = state.show.controls ? em * 19 : 0.0f;
      const float right_w = avail.x - controls_w - (state.show.controls ? gap : 0.0f);
      const float body_h = avail.y - status_h;
      const ImGuiWindowFlags plot_flags =
          ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoScrollbar;
      if (state.show.controls) {
        Panel("controls", "Controls", ImVec2(controls_w, body_h), 0,
              [&] { DrawControlsPanel(state, derived); });
        ImGui::SameLine();
      }
      ImGui::BeginGroup();
      const float top_h = state.show.sums ? body_h * 0.56f : body_h;
      const float heat_w = state.show.curves ? right_w * 0.52f : right_w;
      if (state.show.heatmap) {
        Panel("heatmap", "Positional encoding table  PE[position, dimension]",
              ImVec2(heat_w, top_h), plot_flags,
              [&] { DrawHeatmapPanel(state, derived, caches.heatmap, services); });
        if (state.show.curves) ImGui::SameLine();
      }
      if (state.show.curves) {
        Panel("curves", "Sine curves: one column of the table, as a wave over positions",
              ImVec2(state.show.heatmap ? right_w - heat_w - gap : right_w, top_h), plot_flags,
              [&] { DrawCurvesPanel(state, derived, caches.curves); });
      }
      if (state.show.sums) {
        Panel("sums", "Token sums: embedding x sqrt(d) + positional encoding = model input",
              ImVec2(right_w, body_h - (state.show.heatmap || state.show.curves ? top_h + ImGui::GetStyle().ItemSpacing.y : 0.0f)),
              ImGuiWindowFlags_NoScrollWithMouse, [&] { DrawSumsPanel(state, derived); });
      }
      ImGui::EndGroup();
      DrawStatusLine(state, derived);
    } catch (const std::exception& e) {
      ErrorText(std::string("Internal error while drawing: ") + e.what());
    }
  }
  ImGui::End();
}

}  // namespace pe
