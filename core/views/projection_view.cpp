#include "views/view_builders.h"

namespace pe {

Result<Figure> ProjectionFigure(const ViewContext&) { return InvalidArgument("the projection view is not built yet"); }
Status CheckProjectionTable(const ViewContext&) { return InvalidArgument("the projection view is not built yet"); }
Status WriteProjectionView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the projection view is not built yet");
}

}  // namespace pe
