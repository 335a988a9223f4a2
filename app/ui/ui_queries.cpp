// What the panels, the session and the frame read off the state (ui.h): the views as an export
// draws them, the text the font atlas must hold, the extents the views were fitted to.
#include <bit>

#include "ui/ui.h"

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
  // The check view reads the heatmap's key (--heatmap-window) in the loaded table's coordinates;
  // not fitted yet: the whole file.
  if (view == ViewKind::kCheck) {
    v.heatmap = state.check_view.fitted ? state.check_view.view : ViewRange{0, 0, 0, 0};
  }
  return v;
}

}  // namespace pe
