#include "views/view_builders.h"

namespace pe {

Result<Figure> PrecisionFigure(const ViewContext&) { return InvalidArgument("the precision view is not built yet"); }
Status CheckPrecisionTable(const ViewContext&) { return InvalidArgument("the precision view is not built yet"); }
Status WritePrecisionView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the precision view is not built yet");
}

}  // namespace pe
