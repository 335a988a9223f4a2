#include "views/view_registry.h"

#include <string>

#include "views/view_builders.h"

namespace pe {
namespace {

constexpr unsigned kAdded = SchemeBit(Scheme::kSinusoidal) | SchemeBit(Scheme::kLearned);
constexpr unsigned kRotary = SchemeBit(Scheme::kRope);

const ViewEntry kViews[] = {
    {ViewKind::kHeatmap, "heatmap", "Heatmap: the table, position by column", kAllSchemes, "",
     &HeatmapFigure, &CheckHeatmapTable, &WriteHeatmapView},
    {ViewKind::kCurves, "curves", "Curves: table columns as waves", kAllSchemes, "",
     &CurvesFigure, &CheckCurvesTable, &WriteCurvesView},
    {ViewKind::kSums, "sum", "Token + position = model input", kAdded,
     "a scheme that adds a vector to the token embeddings (sinusoidal or learned)", &SumsFigure,
     &CheckSumsTable, &WriteSumsView},
    {ViewKind::kRotation, "rotation", "Rotation: a query turned by each pair", kRotary,
     "a rotary scheme (rope)", &RotationFigure, &CheckRotationTable, &WriteRotationView},
    {ViewKind::kFrequencies, "frequencies", "Frequencies per pair, original vs scaled", kRotary,
     "a rotary scheme (rope)", &FrequenciesFigure, &CheckFrequenciesTable,
     &WriteFrequenciesView},
};

}  // namespace

std::span<const ViewEntry> Views() { return kViews; }

const ViewEntry& GetView(ViewKind kind) {
  for (const ViewEntry& v : kViews) {
    if (v.kind == kind) return v;
  }
  return kViews[0];
}

std::string_view ViewName(ViewKind view) { return GetView(view).name; }

std::optional<ViewKind> ParseView(std::string_view name) {
  for (const ViewEntry& v : kViews) {
    if (v.name == name) return v.kind;
  }
  return std::nullopt;
}

bool ViewApplies(ViewKind kind, const EncodingParams& params) {
  return (GetView(kind).schemes & SchemeBit(params.kind())) != 0;
}

Status CheckViewApplies(ViewKind kind, const EncodingParams& params) {
  if (ViewApplies(kind, params)) return {};
  const ViewEntry& v = GetView(kind);
  return InvalidArgument("the " + std::string(v.name) + " view needs " + std::string(v.needs) +
                         "; the " + std::string(SchemeName(params.kind())) +
                         " scheme has no such view");
}

}  // namespace pe
