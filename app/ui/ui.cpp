#include "ui/ui.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <array>
#include <bit>
#include <exception>
#include <optional>

#include "views/figure_export.h"
#include "views/view_registry.h"
#include "panels/panels.h"

namespace pe {
namespace {

// Fits the views to new table extents (d_model, max_len or offset changed).
void RefitOnNewExtents(AppState& state, const Derived& derived) {
  if (!derived.encoding) return;
  const Encoding& e = *derived.encoding;
  // A new shape, scheme or value range (RoPE's angle table, another ALiBi head) refits.
  const ValueRange range = e.Range();
  const std::array<int64_t, 6> extents = {e.cols(),
                                          e.rows(),
                                          e.first_position(),
                                          static_cast<int64_t>(e.scheme()),
                                          std::bit_cast<int64_t>(range.lo),
                                          std::bit_cast<int64_t>(range.hi)};
  if (extents != state.fitted_extents) {
    state.fitted_extents = extents;
    state.heatmap.fitted = false;
    state.curves.fitted = false;
    state.sums.fitted = false;
    state.score.fitted = false;
  }
  if (!state.score.fitted) {
    const auto first = static_cast<double>(e.first_position());
    const double end = first + static_cast<double>(e.rows());
    state.score.view = {first, end, first, end};
    state.score.fitted = true;
  }
  if (state.heatmap.fitted && state.curves.fitted) return;
  const ViewSelection defaults = DefaultViews(state.params, e);
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
    if (ImGui::IsItemHovered() && title_size.x > title_max - at.x) WrappedTooltip(title);
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
  if (edits.empty()) return;
  const ModelParams before = state.params;
  for (const StateEdit& edit : edits) edit(state);
  // A refusal under a field answers the value typed there against the parameters of that
  // moment; once they changed it may no longer hold, so every reason is cleared.
  if (state.params != before) {
    for (auto& [id, field] : state.fields) field.error.clear();
  }
}

// Keeps the selections inside what the derived data has (fewer tokens, a narrower table).
void ClampSelections(AppState& state, const Derived& derived) {
  std::vector<int64_t>& dims = state.params.curve_dims;
  const int64_t d = derived.encoding ? derived.encoding->cols() : state.params.pe.d_model;
  dims.erase(std::remove_if(dims.begin(), dims.end(), [&](int64_t j) { return j < 0 || j >= d; }),
             dims.end());
  const int tokens =
      derived.sentence.ok() ? static_cast<int>(derived.sentence.value().tokens.size()) : 0;
  int64_t& row = state.selection.batch_row;
  row = std::clamp<int64_t>(row, 0, ExampleBatch(state.params.example) - 1);
  int& sel = state.selection.selected_token;
  sel = std::clamp(sel, -1, std::max(0, tokens - 1));
  state.walkthrough.step = std::clamp(state.walkthrough.step, 0, kWalkStepCount - 1);
  int64_t& p = state.rotation.position;
  if (p != -1 && (!derived.encoding || p < derived.encoding->first_position() ||
                  p > derived.encoding->last_position())) {
    p = -1;
  }
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
      // The view panels that are switched on and apply to the scheme: heatmap and curves on
      // top, the scheme's own views (sums, or rotation and frequencies) below them.
      auto shown = [&](ViewKind v) {
        const bool on = v == ViewKind::kHeatmap    ? state.show.heatmap
                        : v == ViewKind::kCurves   ? state.show.curves
                        : v == ViewKind::kSums     ? state.show.sums
                        : v == ViewKind::kRotation ? state.show.rotation
                        : v == ViewKind::kFrequencies ? state.show.frequencies
                                                      : state.show.scheme_views;
        return on && ViewApplies(v, state.params.pe);
      };
      std::vector<const PanelEntry*> top, bottom;
      for (const PanelEntry& p : ViewPanels()) {
        if (shown(p.view)) (p.bottom_row ? bottom : top).push_back(&p);
      }
      ImGui::BeginGroup();
      const float row_gap = ImGui::GetStyle().ItemSpacing.y;
      const float top_h = top.empty() ? 0.0f : bottom.empty() ? body_h : body_h * 0.56f;
      const float bottom_h = bottom.empty() ? 0.0f : body_h - (top.empty() ? 0.0f : top_h + row_gap);
      auto row = [&](const std::vector<const PanelEntry*>& panels, float height,
                     float first_share) {
        float x_left = right_w;
        for (size_t k = 0; k < panels.size(); ++k) {
          const PanelEntry& p = *panels[k];
          const size_t left = panels.size() - k;
          float w = left == 1 ? x_left
                              : (k == 0 && first_share > 0 ? right_w * first_share
                                                           : (x_left - gap * (left - 1)) / left);
          if (k > 0) ImGui::SameLine();
          const ImGuiWindowFlags flags =
              p.view == ViewKind::kSums ? ImGuiWindowFlags_NoScrollWithMouse : plot_flags;
          Panel(state, p.id, p.title, p.view, ImVec2(w, height), flags,
                [&] { p.draw(state, derived, caches, services); });
          x_left -= w + gap;
        }
      };
      if (!top.empty()) row(top, top_h, top.size() > 1 ? 0.52f : 0.0f);
      if (bottom.size() <= 2) {
        if (!bottom.empty()) row(bottom, bottom_h, 0.0f);
      } else {
        // More views than fit side by side: one tab each, the chosen one filling the row.
        if (!top.empty()) ImGui::Dummy(ImVec2(0, 0));
        if (ImGui::BeginChild("scheme_views", ImVec2(right_w, bottom_h), false,
                              ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse)) {
          if (ImGui::BeginTabBar("scheme_view_tabs")) {
            for (const PanelEntry* p : bottom) {
              const ImGuiTabItemFlags tab_flags =
                  state.select_tab == p->view ? ImGuiTabItemFlags_SetSelected : 0;
              if (ImGui::BeginTabItem(ViewName(p->view).data(), nullptr, tab_flags)) {
                const ImVec2 avail_tab = ImGui::GetContentRegionAvail();
                const ImGuiWindowFlags flags =
                    p->view == ViewKind::kSums ? ImGuiWindowFlags_NoScrollWithMouse : plot_flags;
                Panel(state, p->id, p->title, p->view, avail_tab, flags,
                      [&] { p->draw(state, derived, caches, services); });
                ImGui::EndTabItem();
              }
            }
            ImGui::EndTabBar();
            state.select_tab.reset();
          }
        }
        ImGui::EndChild();
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
  v.batch_row = state.selection.batch_row;
  v.highlight = state.export_dialog.token_chosen;
  v.markers = state.curves.markers;
  v.rotation_position = state.rotation.position;
  v.walkthrough_step = state.walkthrough.step;
  if (state.score.fitted) v.score = state.score.view;
  return v;
}

ViewSelection ViewsOf(const AppState& state, ViewKind view) {
  ViewSelection v = ViewsOf(state);
  if (view == ViewKind::kCompare && state.compare.fitted) {
    (state.params.compare_of == CompareOf::kScore ? v.score : v.heatmap) = state.compare.view;
  }
  return v;
}

}  // namespace pe
