#include "ui/ui.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <array>
#include <exception>
#include <optional>

#include "views/figure_export.h"
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
    state.sums.fitted = false;
  }
  const ViewSelection defaults = DefaultViews(state.params);
  if (!state.heatmap.fitted) {
    state.heatmap.view = defaults.heatmap;
    state.heatmap.fitted = true;
  }
  if (!state.curves.fitted) {
    state.curves.view = defaults.curves;
    state.curves.fitted = true;
  }
}

// Closes whatever a panel left open when it threw (tooltips, child windows, tables, groups, ID
// and style stacks) until `panel` is the current window again, so the frame can go on.
void RecoverToWindow(ImGuiWindow* panel) {
  ImGuiContext& g = *GImGui;
  while (g.CurrentWindow != nullptr && g.CurrentWindow != panel && g.CurrentWindowStack.Size > 1) {
    ImGui::ErrorCheckEndWindowRecover(nullptr);
    if (g.CurrentWindow->Flags & ImGuiWindowFlags_ChildWindow) {
      ImGui::EndChild();
    } else {
      ImGui::End();
    }
  }
  if (g.CurrentWindow == panel) ImGui::ErrorCheckEndWindowRecover(nullptr);
}

// A bordered region with a title line; panels that show a view get an Export... button and
// remember being focused (for Ctrl+S). An exception thrown while drawing stays inside the
// panel: it shows the message and the rest of the window goes on.
void Panel(AppState& state, const char* id, const char* title, std::optional<ViewKind> view,
           ImVec2 size, ImGuiWindowFlags flags, const auto& draw) {
  if (ImGui::BeginChild(id, size, true, flags)) {
    ImGuiWindow* panel = ImGui::GetCurrentWindow();
    const float button_w =
        view ? ImGui::CalcTextSize("Export...").x + ImGui::GetStyle().FramePadding.x * 2 : 0.0f;
    // The title gets what the button leaves; a title that does not fit ends in "...".
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float title_max = at.x + ImGui::GetContentRegionAvail().x -
                            (view ? button_w + ImGui::GetStyle().ItemSpacing.x : 0.0f);
    const ImVec2 title_size = ImGui::CalcTextSize(title);
    ImGui::RenderTextEllipsis(ImGui::GetWindowDrawList(), at,
                              ImVec2(title_max, at.y + title_size.y), title_max, title_max, title,
                              nullptr, &title_size);
    ImGui::Dummy(ImVec2(std::max(0.0f, std::min(title_size.x, title_max - at.x)), title_size.y));
    if (ImGui::IsItemHovered() && title_size.x > title_max - at.x) ImGui::SetTooltip("%s", title);
    if (view) {
      ImGui::SameLine(
          std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - button_w));
      if (ImGui::SmallButton("Export...")) OpenExportDialog(state, *view);
      ItemTooltip("Save this view as a figure (PNG, SVG, PDF) or its numbers (CSV, NPY). Ctrl+S.");
      if (ImGui::IsWindowFocused(ImGuiFocusedFlags_ChildWindows)) state.focused_view = *view;
    }
    ImGui::Separator();
    try {
      draw();
    } catch (const std::exception& e) {
      RecoverToWindow(panel);
      ErrorText(std::string("Internal error while drawing this panel: ") + e.what());
    }
  }
  ImGui::EndChild();
}

// Applies the edits queued while the last frame was drawn. They may replace the whole state
// (Reset), so the queue is moved out first.
void ApplyPendingEdits(AppState& state) {
  std::vector<StateEdit> edits = std::move(state.pending_edits);
  state.pending_edits.clear();
  for (const StateEdit& edit : edits) edit(state);
}

// Keeps the selections inside what the derived data has (fewer tokens, a narrower table).
void ClampSelections(AppState& state, const Derived& derived) {
  std::vector<int64_t>& dims = state.params.curve_dims;
  const int64_t d = state.params.pe.d_model;
  dims.erase(std::remove_if(dims.begin(), dims.end(), [&](int64_t j) { return j < 0 || j >= d; }),
             dims.end());
  const int tokens =
      derived.sentence.ok() ? static_cast<int>(derived.sentence.value().tokens.size()) : 0;
  int& sel = state.selection.selected_token;
  sel = std::clamp(sel, -1, std::max(0, tokens - 1));
}

}  // namespace

void DrawUi(AppState& state, UiCaches& caches, UiServices& services) {
  // State in, pictures out: apply last frame's edits, then derive, then draw. Panels read only
  // `state` as it is now and `derived` made from it; their edits wait for the next frame.
  ApplyPendingEdits(state);
  const Derived& derived = caches.derived.Update(state);
  ClampSelections(state, derived);
  caches.drawn.Clear();
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
    ImGuiWindow* host = ImGui::GetCurrentWindow();
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
        Panel(state, "controls", "Controls", std::nullopt, ImVec2(controls_w, body_h), 0,
              [&] { DrawControlsPanel(state, derived); });
        ImGui::SameLine();
      }
      ImGui::BeginGroup();
      const float top_h = state.show.sums ? body_h * 0.56f : body_h;
      const float heat_w = state.show.curves ? right_w * 0.52f : right_w;
      if (state.show.heatmap) {
        Panel(state, "heatmap", "Positional encoding table PE[position, dimension]",
              ViewKind::kHeatmap, ImVec2(heat_w, top_h), plot_flags,
              [&] { DrawHeatmapPanel(state, derived, caches.heatmap, services, caches.drawn); });
        if (state.show.curves) ImGui::SameLine();
      }
      if (state.show.curves) {
        Panel(state, "curves", "Sine curves: table columns as waves", ViewKind::kCurves,
              ImVec2(state.show.heatmap ? right_w - heat_w - gap : right_w, top_h), plot_flags,
              [&] { DrawCurvesPanel(state, derived, caches.curves, caches.drawn); });
      }
      if (state.show.sums) {
        Panel(state, "sums",
              "Token sums: embedding \xc2\xb7 \xe2\x88\x9a"
              "d + positional encoding = model input",
              ViewKind::kSums,
              ImVec2(right_w, body_h - (state.show.heatmap || state.show.curves
                                            ? top_h + ImGui::GetStyle().ItemSpacing.y
                                            : 0.0f)),
              ImGuiWindowFlags_NoScrollWithMouse,
              [&] { DrawSumsPanel(state, derived, caches.drawn); });
      }
      ImGui::EndGroup();
      DrawStatusLine(state, derived);
      if (services.exports) {
        const ImGuiIO& io = ImGui::GetIO();
        if (io.KeyCtrl && ImGui::IsKeyPressed('S', false) &&
            !ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) {
          OpenExportDialog(state, state.focused_view);
        }
        DrawExportDialog(state, services);
      }
    } catch (const std::exception& e) {
      RecoverToWindow(host);
      ErrorText(std::string("Internal error while drawing: ") + e.what());
    }
  }
  ImGui::End();
  DrawExportStatus(state, services);
}

ViewSelection ViewsOf(const AppState& state) {
  ViewSelection v;
  v.heatmap = state.heatmap.view;
  v.curves = state.curves.view;
  v.sums = state.sums.view;
  v.selected_token = state.selection.selected_token;
  v.highlight = state.export_dialog.token_chosen;
  v.markers = state.curves.markers;
  return v;
}

}  // namespace pe
