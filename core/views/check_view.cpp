#include "views/view_builders.h"

namespace pe {

Result<Figure> CheckFigure(const ViewContext&) { return InvalidArgument("the check view is not built yet"); }
Status CheckCheckTable(const ViewContext&) { return InvalidArgument("the check view is not built yet"); }
Status WriteCheckView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the check view is not built yet");
}

}  // namespace pe
