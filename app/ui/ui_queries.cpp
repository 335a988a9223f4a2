// What the panels, the session and the frame read off the state (ui.h): the views as an export
// draws them, the text the font atlas must hold, the extents the views were fitted to.
#include <bit>

#include "ui/ui.h"
#include "views/view_registry.h"

namespace pe {

std::array<int64_t, 6> FitExtents(const Encoding& e) {
  const ValueRange range = e.Range();
  return {e.cols(),
          e.rows(),
          e.first_position(),
          static_cast<int64_t>(e.scheme()),
          std::bit_cast<int64_t>(range.lo),
          std::bit_cast<int64_t>(range.hi)};
}

std::string ShownText(const AppState& state) {
  std::string text = state.params.example.text;
  for (const std::string& label : state.manual.labels) {
    text += ' ';
    text += label;
  }
  return text;
}

ViewSelection ViewsOf(const AppState& state) {
  ViewSelection v;
  // A window that stands for the whole table while empty is that until it is fitted.
  for (ViewKind k : WindowOwners()) {
    if (state.windows[k].fitted || !GetView(k).window.empty_is_whole) {
      v.windows[k] = state.windows[k].view;
    }
  }
  v.selected_token = state.selection.selected_token;
  v.batch_row = state.selection.batch_row;
  v.highlight = state.export_dialog.token_chosen;
  v.markers = state.curves.markers;
  v.rotation_position = state.rotation.position;
  v.walkthrough_step = state.walkthrough.step;
  return v;
}

ViewSelection ViewsOf(const AppState& state, ViewKind view) {
  ViewSelection v = ViewsOf(state);
  if (view == ViewKind::kCompare && state.compare.fitted) {
    v.windows[state.params.compare_of == CompareOf::kScore ? ViewKind::kScore
                                                           : ViewKind::kHeatmap] =
        state.compare.view;
  }
  // The check view reads the heatmap's key (--heatmap-window) in the loaded table's coordinates;
  // not fitted yet: the whole file.
  if (view == ViewKind::kCheck) {
    v.windows[ViewKind::kHeatmap] =
        state.check_view.fitted ? state.check_view.view : ViewRange{0, 0, 0, 0};
  }
  return v;
}

}  // namespace pe
