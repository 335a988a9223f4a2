// The frequencies view: each pair's frequency and wavelength, original vs scaled.
#include "views/view_builders.h"

namespace pe {

Result<Figure> FrequenciesFigure(const ViewContext&) {
  return InvalidArgument("the frequencies view is not built yet");
}
Status CheckFrequenciesTable(const ViewContext&) {
  return InvalidArgument("the frequencies view is not built yet");
}
Status WriteFrequenciesView(std::ostream&, TableFormat, const ViewContext&, const Progress&) {
  return InvalidArgument("the frequencies view is not built yet");
}

}  // namespace pe
