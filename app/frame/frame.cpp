#include "frame/frame.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>

#include "frame/shortcut_actions.h"
#include "panels/panels.h"
#include "ui/session.h"
#include "ui/shortcuts.h"
#include "views/figure_export.h"
#include "views/gallery.h"
#include "views/view_registry.h"

namespace pe {
namespace {

// Fits the views to new table extents (d_model, max_len or offset changed).
void RefitOnNewExtents(AppState& state, const Derived& derived) {
  if (!derived.encoding) return;
  const Encoding& e = *derived.encoding;
  // A new shape, scheme or value range (RoPE's angle table, another ALiBi head) refits.
  const std::array<int64_t, 6> extents = FitExtents(e);
  if (state.restored_views_for) {
    // A restored session's views belong to its encoding: kept when it is this one.
    if (*state.restored_views_for == e.params()) state.fitted_extents = extents;
    state.restored_views_for.reset();
  }
  if (extents != state.fitted_extents) {
    // A new shape, first position or scheme refits every view; a new value range alone (a
    // learned table's new seed) only the curves, whose axis is the values: a zoomed heatmap
    // stays where it is, as it does for a new base.
    const bool same_shape =
        std::equal(extents.begin(), extents.begin() + 4, state.fitted_extents.begin());
    state.fitted_extents = extents;
    for (ViewKind k : WindowOwners()) {
      const ViewWindowSpec& w = GetView(k).window;
      const bool values = w.x == WindowAxis::kValues || w.y == WindowAxis::kValues;
      if (!same_shape || values) state.windows[k].fitted = false;
    }
  }
  bool all_fitted = true;
  for (ViewKind k : WindowOwners()) all_fitted = all_fitted && state.windows[k].fitted;
  if (all_fitted) return;
  const ViewSelection defaults = DefaultViews(state.params, e);
  for (ViewKind k : WindowOwners()) {
    ViewWindowState& window = state.windows[k];
    if (window.fitted) continue;
    // An axis its panel fits to the data each frame (the sums' values) is left to it; the other
    // is fitted here too, not only when its panel is drawn: a hidden view must not keep the old
    // table's extent (a session saved meanwhile would restore it).
    const ViewWindowSpec& w = GetView(k).window;
    const ViewRange& whole = defaults.windows[k];
    if (w.x != WindowAxis::kFitted) window.view.x0 = whole.x0, window.view.x1 = whole.x1;
    if (w.y != WindowAxis::kFitted) window.view.y0 = whole.y0, window.view.y1 = whole.y1;
    window.fitted = true;
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
// remember being focused (for Ctrl+E). An exception thrown while drawing stays inside the
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
      ItemTooltip("Save this view as a figure (PNG, SVG, PDF) or its numbers (CSV, NPY). Ctrl+E.");
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
  auto outside = [d](int64_t j) { return j < 0 || j >= d; };
  CurvesViewState& curves = state.curves;
  if (!curves.dims_before_narrowing.empty() && dims != curves.dims_after_narrowing) {
    curves.dims_before_narrowing.clear();  // chosen anew since: that choice stands
  }
  if (!curves.dims_before_narrowing.empty()) {
    // A wider table again: the columns of the earlier choice that fit it now.
    std::vector<int64_t> back = curves.dims_before_narrowing;
    back.erase(std::remove_if(back.begin(), back.end(), outside), back.end());
    dims = back;
    if (back.size() == curves.dims_before_narrowing.size()) {
      curves.dims_before_narrowing.clear();
    } else {
      curves.dims_after_narrowing = back;
    }
  } else if (std::any_of(dims.begin(), dims.end(), outside)) {
    curves.dims_before_narrowing = dims;
    dims.erase(std::remove_if(dims.begin(), dims.end(), outside), dims.end());
    curves.dims_after_narrowing = dims;
  }
  const int tokens =
      derived.sentence.ok() ? static_cast<int>(derived.sentence.value().tokens.size()) : 0;
  int64_t& row = state.selection.batch_row;
  row = std::clamp<int64_t>(row, 0, ExampleBatch(state.params.example) - 1);
  int& sel = state.selection.selected_token;
  sel = std::clamp(sel, -1, std::max(0, tokens - 1));
  state.walkthrough.step =
      std::clamp(state.walkthrough.step, 0,
                 static_cast<int>(WalkStepsOf(state.params.walkthrough).size()) - 1);
  int64_t& p = state.rotation.position;
  if (p != -1 && (!derived.encoding || p < derived.encoding->first_position() ||
                  p > derived.encoding->last_position())) {
    p = -1;
  }
}

// The status line's place taken by a refused choice's reason: one red line, ending in "..." when
// it is longer, the whole of it in the tooltip. Nothing above it moves.
void DrawRefusalLine(const std::string& text) {
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float right = at.x + ImGui::GetContentRegionAvail().x;
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
  ImGui::RenderTextEllipsis(ImGui::GetWindowDrawList(), at, ImVec2(right, at.y + size.y), right,
                            right, text.c_str(), nullptr, &size);
  ImGui::PopStyleColor();
  ImGui::Dummy(ImVec2(std::max(1.0f, std::min(size.x, right - at.x)), size.y));
  if (ImGui::IsItemHovered()) WrappedTooltip(text.c_str());
}

// The View menu: UI scale, theme, presentation mode, the shortcut list. The keys shown beside
// the items are the shortcut table's.
void DrawViewMenu(AppState& state) {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("View")) {
    if (ImGui::BeginMenu("UI scale")) {
      const float now = state.ui.scale;
      if (ImGui::MenuItem("Larger", ShortcutFor(ShortcutAction::kScaleUp).keys, false,
                          now < kMaxUiScale)) {
        ApplyShortcut(state, ShortcutAction::kScaleUp, 0);
      }
      if (ImGui::MenuItem("Smaller", ShortcutFor(ShortcutAction::kScaleDown).keys, false,
                          now > kMinUiScale)) {
        ApplyShortcut(state, ShortcutAction::kScaleDown, 0);
      }
      if (ImGui::MenuItem("Normal (1x)", ShortcutFor(ShortcutAction::kScaleReset).keys)) {
        ApplyShortcut(state, ShortcutAction::kScaleReset, 0);
      }
      ImGui::Separator();
      // The steps Ctrl + and Ctrl - take, the current one checked.
      for (const UiScaleItem& item : UiScaleMenuItems(now)) {
        if (ImGui::MenuItem(item.label.c_str(), nullptr, item.current)) {
          Edit(state, [s = item.scale](AppState& st) { st.ui.scale = s; });
        }
      }
      ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Theme")) {
      for (UiTheme t : {UiTheme::kDark, UiTheme::kLight}) {
        const char* label = t == UiTheme::kDark ? "Dark" : "Light (projectors)";
        if (ImGui::MenuItem(label, nullptr, state.ui.theme == t)) {
          Edit(state, [t](AppState& st) { st.ui.theme = t; });
        }
      }
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Presentation", ShortcutFor(ShortcutAction::kPresentation).keys,
                        state.ui.presentation)) {
      ApplyShortcut(state, ShortcutAction::kPresentation, 0);
    }
    if (ImGui::MenuItem("Keyboard shortcuts", ShortcutFor(ShortcutAction::kShortcuts).keys,
                        state.ui.shortcuts_open)) {
      ApplyShortcut(state, ShortcutAction::kShortcuts, 0);
    }
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

// The Gallery menu: the field's figures (views/gallery.h), each applied to the window as one
// edit (scheme, parameters, view), so Edit > Undo brings the parameters back.
void DrawGalleryMenu(AppState& state) {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("Gallery")) {
    for (const GalleryFigure& f : GalleryFigures()) {
      ImGui::PushID(f.name.data(), f.name.data() + f.name.size());
      const std::string label(f.label);
      if (ImGui::MenuItem(label.c_str())) (void)ApplyGalleryFigure(state, f.name);
      if (ImGui::IsItemHovered()) {
        const std::string tip =
            std::string(f.description) + "\n\nSource: " + std::string(f.source) +
            "\n\npe-explorer export --figure " + std::string(f.name) + " -o FILE";
        WrappedTooltip(tip.c_str());
      }
      ImGui::PopID();
    }
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

}  // namespace

void DrawUi(AppState& state, UiCaches& caches, UiServices& services) {
  // State in, pictures out: apply last frame's edits, then derive, then draw. Panels read only
  // `state` as it is now and `derived` made from it; their edits wait for the next frame.
  // Sessions opened, new or saved from the File menu come first: they replace the state the
  // edits apply to. A widget held (a slider being dragged) keeps its changes one undo step.
  // Nothing thrown here may leave the frame (ImGui would abort): it becomes a message.
  try {
    HandleSessionRequests(state, services.sessions, services.tables);
  } catch (const std::exception& e) {
    state.session.open_requests.clear();
    state.session.notice = std::string("Opening failed: ") + e.what();
    state.session.notice_error = true;
  }
  try {
    ApplyPendingEdits(state);
  } catch (const std::exception& e) {
    state.session.notice = std::string("The change could not be made: ") + e.what();
    state.session.notice_error = true;
  }
  RecordUndo(state, ImGui::IsAnyItemActive());
  if (!state.session.notice.empty()) {
    state.toast = {state.session.notice, state.session.notice_error,
                   ImGui::GetTime() + (state.session.notice_error ? 12.0 : 6.0)};
    state.session.notice.clear();
  }
  const Derived& derived = caches.derived.Update(state);
  ClampSelections(state, derived);
  state.refusal_line.clear();
  caches.drawn.Clear();
  state.selection.hover_position = state.selection.next_hover_position;
  state.selection.hover_dim = state.selection.next_hover_dim;
  state.selection.next_hover_position = -1;
  state.selection.next_hover_dim = -1;
  RefitOnNewExtents(state, derived);

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags host_flags =
      ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
      ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_MenuBar;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(4, 4));
  const bool open = ImGui::Begin("PE Explorer", nullptr, host_flags);
  ImGui::PopStyleVar();
  if (open) {
    ImGuiWindow* host = ImGui::GetCurrentWindow();
    try {
      // The menu bar: each menu is a function of its own, appended here.
      if (ImGui::BeginMenuBar()) {
        DrawFileMenu(state, services);
        DrawEditMenu(state);
        ImGui::EndMenuBar();
      }
      DrawViewMenu(state);
      DrawGalleryMenu(state);
      const float em = ImGui::GetFontSize();
      const float gap = ImGui::GetStyle().ItemSpacing.x;
      const float status_h = ImGui::GetFrameHeightWithSpacing();
      const ImVec2 avail = ImGui::GetContentRegionAvail();
      const bool presenting = state.ui.presentation;
      // The controls take 19 em, but never more than 45% of a small or highly scaled window.
      const float controls_w =
          state.show.controls && !presenting ? std::min(em * 19, avail.x * 0.45f) : 0.0f;
      const float right_w =
          avail.x - controls_w - (state.show.controls && !presenting ? gap : 0.0f);
      const float body_h = avail.y - status_h;
      const ImGuiWindowFlags plot_flags =
          ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoScrollbar;
      if (state.show.controls && !presenting) {
        Panel(state, "controls", "Controls", std::nullopt, ImVec2(controls_w, body_h), 0,
              [&] { DrawControlsPanel(state, derived); });
        ImGui::SameLine();
      }
      // The view panels that are switched on and apply to the scheme: heatmap and curves on
      // top, the scheme's own views (sums, or rotation and frequencies) below them.
      std::vector<const PanelEntry*> top, bottom;
      for (const PanelEntry& p : ViewPanels()) {
        if (state.show.*p.shown && ViewApplies(p.view, state.params) &&
            (!p.needs_model || state.params.model)) {
          (p.bottom_row ? bottom : top).push_back(&p);
        }
      }
      const int panel_count = static_cast<int>(top.size() + bottom.size());
      auto panel_at = [&](int k) -> const PanelEntry& {
        return *(k < static_cast<int>(top.size()) ? top[static_cast<size_t>(k)]
                                                  : bottom[static_cast<size_t>(k) - top.size()]);
      };
      if (state.present_tab_on_show) {
        // Presentation just began: the view on show is the tab on show (when the scheme's views
        // are tabs), else the view presented last.
        state.present_tab_on_show = false;
        for (int k = 0; presenting && k < panel_count && bottom.size() > 2; ++k) {
          if (state.session.shown_tab == panel_at(k).view) state.ui.presentation_panel = k;
        }
      }
      if (std::optional<ShortcutAction> key = PressedShortcut(state.ui)) {
        const bool step_key =
            *key == ShortcutAction::kNextPanel || *key == ShortcutAction::kPreviousPanel;
        const bool walkthrough_on_show =
            presenting && panel_count > 0 &&
            panel_at(std::clamp(state.ui.presentation_panel, 0, panel_count - 1)).view ==
                ViewKind::kWalkthrough;
        // The walkthrough's steps first, as a clicker steps a slide's builds: past its last
        // step (or before its first) the keys move on to the next (previous) view.
        const int steps = caches.walkthrough.walk
                              ? static_cast<int>(caches.walkthrough.walk->pages.size())
                              : kWalkStepCount;
        const int step = state.walkthrough.step;
        if (walkthrough_on_show && step_key &&
            (*key == ShortcutAction::kNextPanel ? step + 1 < steps : step > 0)) {
          const int by = *key == ShortcutAction::kNextPanel ? 1 : -1;
          Edit(state, [by, steps](AppState& st) {
            st.walkthrough.step = std::clamp(st.walkthrough.step + by, 0, steps - 1);
          });
        } else if (*key != ShortcutAction::kExport || services.exports) {
          ApplyShortcut(state, *key, panel_count);
        }
      }
      std::optional<ViewKind> presented;  // the view presentation mode shows
      if (presenting && panel_count > 0) {
        presented = panel_at(std::clamp(state.ui.presentation_panel, 0, panel_count - 1)).view;
        caches.drawn.presented = presented;
      }
      ImGui::BeginGroup();
      if (presenting && panel_count > 0) {
        // One view fills the window; the arrow keys and Page Up / Down step through the views.
        const PanelEntry& p = panel_at(std::clamp(state.ui.presentation_panel, 0, panel_count - 1));
        const ImGuiWindowFlags flags =
            p.scrollbar ? ImGuiWindowFlags_NoScrollWithMouse : plot_flags;
        // Beside every view but the walkthrough (which explains itself), what the controls
        // would say under "What you are looking at", at its top so it shows without scrolling.
        const bool explain = p.view != ViewKind::kWalkthrough && derived.pe_status.ok();
        const float explain_w = explain ? std::min(em * 14, right_w * 0.3f) : 0.0f;
        Panel(state, p.id, PanelTitle(p, derived, state.params), p.view,
              ImVec2(right_w - explain_w - (explain ? gap : 0.0f), body_h), flags,
              [&] { p.draw(p, state, derived, caches, services); });
        if (explain) {
          ImGui::SameLine();
          if (ImGui::BeginChild("explanation", ImVec2(explain_w, body_h), true)) {
            DrawSchemeExplanation(state, derived);
          }
          ImGui::EndChild();
        }
        top.clear();
        bottom.clear();
      }
      const float row_gap = ImGui::GetStyle().ItemSpacing.y;
      const float top_h = top.empty() ? 0.0f : bottom.empty() ? body_h : body_h * 0.56f;
      const float bottom_h =
          bottom.empty() ? 0.0f : body_h - (top.empty() ? 0.0f : top_h + row_gap);
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
              p.scrollbar ? ImGuiWindowFlags_NoScrollWithMouse : plot_flags;
          Panel(state, p.id, PanelTitle(p, derived, state.params), p.view, ImVec2(w, height), flags,
                [&] { p.draw(p, state, derived, caches, services); });
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
          // Tabs keep their whole names: when they do not fit, the row scrolls (arrows at its
          // end) and a list button names every view, as editors with many open files do;
          // shrinking them would cut "walkthrough" to "wal...".
          if (ImGui::BeginTabBar("scheme_view_tabs", ImGuiTabBarFlags_FittingPolicyScroll |
                                                         ImGuiTabBarFlags_TabListPopupButton)) {
            for (const PanelEntry* p : bottom) {
              const ImGuiTabItemFlags tab_flags =
                  state.select_tab == p->view ? ImGuiTabItemFlags_SetSelected : 0;
              const char* label = ViewName(p->view).data();
              const bool open_tab = ImGui::BeginTabItem(label, nullptr, tab_flags);
              caches.drawn.tabs.push_back(
                  {p->view, ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x,
                   ImGui::GetItemRectSize().x});
              if (open_tab) {
                state.session.shown_tab = p->view;
                const ImVec2 avail_tab = ImGui::GetContentRegionAvail();
                const ImGuiWindowFlags flags =
                    p->scrollbar ? ImGuiWindowFlags_NoScrollWithMouse : plot_flags;
                Panel(state, p->id, PanelTitle(*p, derived, state.params), p->view, avail_tab,
                      flags, [&] { p->draw(*p, state, derived, caches, services); });
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
      if (presenting) {
        const bool walking = presented == ViewKind::kWalkthrough;
        ImGui::TextDisabled("Presentation: view %d of %d%s. %s: next, %s: previous, %s: leave.",
                            std::clamp(state.ui.presentation_panel, 0, panel_count - 1) + 1,
                            panel_count, walking ? ", the walkthrough's steps first" : "",
                            ShortcutFor(ShortcutAction::kNextPanel).keys,
                            ShortcutFor(ShortcutAction::kPreviousPanel).keys,
                            ShortcutFor(ShortcutAction::kLeave).keys);
      } else if (!state.refusal_line.empty()) {
        DrawRefusalLine(state.refusal_line);
      } else {
        DrawStatusLine(state, derived);
      }
      if (services.exports) DrawExportDialog(state, services, derived.encoding);
      DrawOpenTableDialog(state, services);
    } catch (const std::exception& e) {
      RecoverToWindow(host);
      ErrorText(std::string("Internal error while drawing: ") + e.what());
    }
  }
  ImGui::End();
  // The windows drawn over the main one: an exception in one closes what it left open and
  // becomes a message, so the frame still ends as ImGui expects.
  auto guarded = [&](const char* what, const auto& draw) {
    // Read without GetCurrentWindow(), which would show the implicit "Debug" window.
    ImGuiWindow* root = GImGui->CurrentWindow;
    try {
      draw();
    } catch (const std::exception& e) {
      RecoverToWindow(root);
      state.session.notice = std::string(what) + " failed: " + e.what();
      state.session.notice_error = true;
    }
  };
  guarded("The session dialog", [&] { DrawSessionDialogs(state, services); });
  guarded("The shortcut list", [&] { caches.drawn.shortcut_rows = DrawShortcutOverlay(state); });
  guarded("The export status", [&] { DrawExportStatus(state, services); });
  guarded("Saving the session", [&] {
    if (services.sessions != nullptr) services.sessions->Tick(state, ImGui::GetTime());
  });
}

}  // namespace pe
