#include "views/view_builders.h"

namespace pe {

Result<Figure> CompareFigure(const ViewContext&) { return InvalidArgument("the compare view is not built yet"); }
Status CheckCompareTable(const ViewContext&) { return InvalidArgument("the compare view is not built yet"); }
Status WriteCompareView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the compare view is not built yet");
}

}  // namespace pe
