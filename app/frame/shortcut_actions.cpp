#include "frame/shortcut_actions.h"

#include "panels/panels.h"
#include "ui/session.h"
#include "ui/ui_settings.h"

namespace pe {

void ApplyShortcut(AppState& state, ShortcutAction action, int panels) {
  switch (action) {
    case ShortcutAction::kScaleUp:
      Edit(state, [](AppState& st) { st.ui.scale = StepUiScale(st.ui.scale, +1); });
      break;
    case ShortcutAction::kScaleDown:
      Edit(state, [](AppState& st) { st.ui.scale = StepUiScale(st.ui.scale, -1); });
      break;
    case ShortcutAction::kScaleReset:
      Edit(state, [](AppState& st) { st.ui.scale = 1.0f; });
      break;
    case ShortcutAction::kShortcuts:
      Edit(state, [](AppState& st) { st.ui.shortcuts_open = !st.ui.shortcuts_open; });
      break;
    case ShortcutAction::kPresentation:
      Edit(state, [](AppState& st) {
        st.ui.presentation = !st.ui.presentation;
        st.present_tab_on_show = st.ui.presentation;
      });
      break;
    case ShortcutAction::kNextPanel:
      Edit(state, [panels](AppState& st) {
        st.ui.presentation_panel = panels > 0 ? (st.ui.presentation_panel + 1) % panels : 0;
      });
      break;
    case ShortcutAction::kPreviousPanel:
      Edit(state, [panels](AppState& st) {
        st.ui.presentation_panel =
            panels > 0 ? (st.ui.presentation_panel + panels - 1) % panels : 0;
      });
      break;
    case ShortcutAction::kLeave:
      Edit(state, [](AppState& st) {
        // The overlay first: Esc closes what is on top.
        if (st.ui.shortcuts_open) {
          st.ui.shortcuts_open = false;
        } else {
          st.ui.presentation = false;
        }
      });
      break;
    case ShortcutAction::kUndo:
      Undo(state);
      break;
    case ShortcutAction::kRedo:
      Redo(state);
      break;
    case ShortcutAction::kSaveSession:
      state.session.save_requested = true;
      break;
    case ShortcutAction::kSaveSessionAs:
      state.session.save_as_dialog = true;
      break;
    case ShortcutAction::kOpenSession:
      state.session.open_dialog = true;
      break;
    case ShortcutAction::kOpenTable:
      state.open_table.open_requested = true;
      break;
    case ShortcutAction::kExport:
      OpenExportDialog(state, state.focused_view);
      break;
  }
}

}  // namespace pe
