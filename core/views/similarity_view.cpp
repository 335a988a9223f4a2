#include "views/view_builders.h"

namespace pe {

Result<Figure> SimilarityFigure(const ViewContext&) { return InvalidArgument("the similarity view is not built yet"); }
Status CheckSimilarityTable(const ViewContext&) { return InvalidArgument("the similarity view is not built yet"); }
Status WriteSimilarityView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the similarity view is not built yet");
}

Result<Figure> SimilarityOffsetFigure(const ViewContext&) { return InvalidArgument("the similarity-offset view is not built yet"); }
Status CheckSimilarityOffsetTable(const ViewContext&) { return InvalidArgument("the similarity-offset view is not built yet"); }
Status WriteSimilarityOffsetView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the similarity-offset view is not built yet");
}

}  // namespace pe
