// The builders of each view (one file each), for the registry (view_registry.cpp). Not for use
// elsewhere: go through Views() / GetView().
#pragma once

#include "views/view_registry.h"

namespace pe {

Result<Figure> HeatmapFigure(const ViewContext& c);
Status CheckHeatmapTable(const ViewContext& c);
Status WriteHeatmapView(std::ostream& out, TableFormat format, const ViewContext& c,
                        const Progress& progress);

Result<Figure> CurvesFigure(const ViewContext& c);
Status CheckCurvesTable(const ViewContext& c);
Status WriteCurvesView(std::ostream& out, TableFormat format, const ViewContext& c,
                       const Progress& progress);

Result<Figure> SumsFigure(const ViewContext& c);
Status CheckSumsTable(const ViewContext& c);
Status WriteSumsView(std::ostream& out, TableFormat format, const ViewContext& c,
                     const Progress& progress);

Result<Figure> RotationFigure(const ViewContext& c);
Status CheckRotationTable(const ViewContext& c);
Status WriteRotationView(std::ostream& out, TableFormat format, const ViewContext& c,
                         const Progress& progress);

Result<Figure> FrequenciesFigure(const ViewContext& c);
Status CheckFrequenciesTable(const ViewContext& c);
Status WriteFrequenciesView(std::ostream& out, TableFormat format, const ViewContext& c,
                            const Progress& progress);

// "sin", "cos", "zero", "angle"
const char* WaveName(Wave w);
// "j=5: i=2 cos, ω=0.1, λ=62.83" or for tables without waves "j=5".
std::string ColumnLegend(const Encoding& e, int64_t col);

}  // namespace pe
