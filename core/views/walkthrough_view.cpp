#include "views/view_builders.h"

namespace pe {

Result<Figure> WalkthroughFigure(const ViewContext&) { return InvalidArgument("the walkthrough view is not built yet"); }
Status CheckWalkthroughTable(const ViewContext&) { return InvalidArgument("the walkthrough view is not built yet"); }
Status WriteWalkthroughView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the walkthrough view is not built yet");
}

}  // namespace pe
