#include "views/view_builders.h"

namespace pe {

Result<Figure> SpectrumFigure(const ViewContext&) { return InvalidArgument("the spectrum view is not built yet"); }
Status CheckSpectrumTable(const ViewContext&) { return InvalidArgument("the spectrum view is not built yet"); }
Status WriteSpectrumView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the spectrum view is not built yet");
}

}  // namespace pe
