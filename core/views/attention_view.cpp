#include "views/view_builders.h"

namespace pe {

Result<Figure> AttentionFigure(const ViewContext&) { return InvalidArgument("the attention view is not built yet"); }
Status CheckAttentionTable(const ViewContext&) { return InvalidArgument("the attention view is not built yet"); }
Status WriteAttentionView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the attention view is not built yet");
}

}  // namespace pe
