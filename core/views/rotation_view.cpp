// The rotation view: a query's pairs as 2-D arrows, turned by R_p for the chosen position.
#include "views/view_builders.h"

namespace pe {

Result<Figure> RotationFigure(const ViewContext&) {
  return InvalidArgument("the rotation view is not built yet");
}
Status CheckRotationTable(const ViewContext&) {
  return InvalidArgument("the rotation view is not built yet");
}
Status WriteRotationView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the rotation view is not built yet");
}

}  // namespace pe
