// The attention-score views: score(m, n), its decay with distance, RoFormer's bound.
#include "views/view_builders.h"

namespace pe {

Result<Figure> ScoreFigure(const ViewContext&) {
  return InvalidArgument("the score view is not built yet");
}
Status CheckScoreTable(const ViewContext&) {
  return InvalidArgument("the score view is not built yet");
}
Status WriteScoreView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the score view is not built yet");
}

Result<Figure> DecayFigure(const ViewContext&) {
  return InvalidArgument("the decay view is not built yet");
}
Status CheckDecayTable(const ViewContext&) {
  return InvalidArgument("the decay view is not built yet");
}
Status WriteDecayView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the decay view is not built yet");
}

Result<Figure> RoformerDecayFigure(const ViewContext&) {
  return InvalidArgument("the roformerdecay view is not built yet");
}
Status CheckRoformerDecayTable(const ViewContext&) {
  return InvalidArgument("the roformerdecay view is not built yet");
}
Status WriteRoformerDecayView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the roformerdecay view is not built yet");
}

}  // namespace pe
