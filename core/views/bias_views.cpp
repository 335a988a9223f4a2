// The attention-bias views: the bias of ALiBi and T5, T5's buckets, ALiBi's slopes.
#include "views/view_builders.h"

namespace pe {

Result<Figure> BiasFigure(const ViewContext&) {
  return InvalidArgument("the bias view is not built yet");
}
Status CheckBiasTable(const ViewContext&) {
  return InvalidArgument("the bias view is not built yet");
}
Status WriteBiasView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the bias view is not built yet");
}

Result<Figure> BucketsFigure(const ViewContext&) {
  return InvalidArgument("the buckets view is not built yet");
}
Status CheckBucketsTable(const ViewContext&) {
  return InvalidArgument("the buckets view is not built yet");
}
Status WriteBucketsView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the buckets view is not built yet");
}

Result<Figure> SlopesFigure(const ViewContext&) {
  return InvalidArgument("the slopes view is not built yet");
}
Status CheckSlopesTable(const ViewContext&) {
  return InvalidArgument("the slopes view is not built yet");
}
Status WriteSlopesView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the slopes view is not built yet");
}

}  // namespace pe
