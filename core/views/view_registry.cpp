#include "views/view_registry.h"

#include <string>

#include "views/view_builders.h"

namespace pe {

PixelSize PlotPixels(const ViewContext& c, const Figure& f) {
  c.pixels_used = c.plot_pixels.size() == 1
                      ? c.plot_pixels
                      : std::vector<PixelSize>{PlotAreaPixels(f, c.size, c.format)};
  return c.pixels_used.front();
}

std::vector<PixelSize> PanelPixels(const ViewContext& c, const Figure& f) {
  c.pixels_used = c.plot_pixels.size() == f.panels.size() && !f.panels.empty()
                      ? c.plot_pixels
                      : PanelAreaPixels(f, c.size, c.format);
  return c.pixels_used;
}

namespace {

constexpr unsigned kAdded = SchemesOf(Family::kAdded);
constexpr unsigned kRotary = SchemesOf(Family::kRotary);
constexpr unsigned kBiases = SchemesOf(Family::kBias);
// A vector per position to compare (analysis/similarity.h: RoPE's is R_p u; xPos's carries a
// decay that only cancels in q.k; the biases have none).
constexpr unsigned kVectorSchemes =
    SchemesWhere([](const SchemeDescriptor& d) { return d.vector_per_position; });
constexpr const char* kVectorSchemesNeed =
    "a vector per position (sinusoidal, learned or rope; xpos's vectors carry a decay that "
    "cancels only in q\xc2\xb7k, the biases have none)";

const ViewEntry kViews[] = {
    {ViewKind::kHeatmap, "heatmap", "Heatmap: the table, position by column", kAllSchemes, "",
     &HeatmapFigure, &CheckHeatmapTable, &WriteHeatmapView},
    {ViewKind::kCurves, "curves", "Curves: table columns as waves", kAllSchemes, "", &CurvesFigure,
     &CheckCurvesTable, &WriteCurvesView},
    {ViewKind::kSums, "sum", "Token + position = model input", kAdded,
     "a scheme that adds a vector to the token embeddings (sinusoidal or learned)", &SumsFigure,
     &CheckSumsTable, &WriteSumsView},
    {ViewKind::kRotation, "rotation", "Rotation: pairs turned on their circles",
     SchemeBit(Scheme::kSinusoidal) | SchemeBit(Scheme::kRope),
     "sin/cos pairs that rotate (sinusoidal or rope)", &RotationFigure, &CheckRotationTable,
     &WriteRotationView},
    {ViewKind::kFrequencies, "frequencies", "Frequencies per pair, original vs scaled",
     SchemeBit(Scheme::kRope), "a rotary scheme (rope)", &FrequenciesFigure, &CheckFrequenciesTable,
     &WriteFrequenciesView},
    {ViewKind::kBias, "bias", "Attention bias: query by key, per head", kBiases,
     "an attention-bias scheme (alibi or t5)", &BiasFigure, &CheckBiasTable, &WriteBiasView},
    {ViewKind::kBuckets, "buckets", "T5 buckets: query by key, and against distance",
     SchemeBit(Scheme::kT5), "the t5 scheme", &BucketsFigure, &CheckBucketsTable,
     &WriteBucketsView},
    {ViewKind::kSlopes, "slopes", "ALiBi slopes per head", SchemeBit(Scheme::kAlibi),
     "the alibi scheme", &SlopesFigure, &CheckSlopesTable, &WriteSlopesView},
    {ViewKind::kScore, "score", "Attention score: how position shapes q\xc2\xb7k", kAllSchemes, "",
     &ScoreFigure, &CheckScoreTable, &WriteScoreView},
    {ViewKind::kDecay, "decay", "Score against distance, scheme by scheme", kAllSchemes, "",
     &DecayFigure, &CheckDecayTable, &WriteDecayView},
    {ViewKind::kRoformerDecay, "roformer-decay", "RoFormer's long-term decay bound",
     SchemeBit(Scheme::kRope), "the rope scheme", &RoformerDecayFigure, &CheckRoformerDecayTable,
     &WriteRoformerDecayView},
    {ViewKind::kPrecision, "precision", "Precision: the table in bfloat16 or float16", kAllSchemes,
     "", &PrecisionFigure, &CheckPrecisionTable, &WritePrecisionView},
    {ViewKind::kAttention, "attention", "Attention: the softmax row of one query", kAllSchemes, "",
     &AttentionFigure, &CheckAttentionTable, &WriteAttentionView},
    {ViewKind::kCompare, "compare", "Compare two configurations side by side", kAllSchemes, "",
     &CompareFigure, &CheckCompareTable, &WriteCompareView},
    {ViewKind::kSimilarity, "similarity", "Similarity PE(p)\xc2\xb7PE(q): position by position",
     kVectorSchemes, kVectorSchemesNeed, &SimilarityFigure, &CheckSimilarityTable,
     &WriteSimilarityView},
    {ViewKind::kSimilarityOffset, "similarity-offset", "Similarity against the offset k = q - p",
     kVectorSchemes, kVectorSchemesNeed, &SimilarityOffsetFigure, &CheckSimilarityOffsetTable,
     &WriteSimilarityOffsetView},
    {ViewKind::kSpectrum, "spectrum", "Spectrum: frequency and wavelength per pair",
     SchemeBit(Scheme::kSinusoidal) | kRotary,
     "a scheme made of frequencies (sinusoidal, rope or xpos)", &SpectrumFigure,
     &CheckSpectrumTable, &WriteSpectrumView},
    {ViewKind::kWalkthrough, "walkthrough", "Walkthrough: from text to model input", kAdded,
     "a scheme that adds a vector to the token embeddings (sinusoidal or learned)",
     &WalkthroughFigure, &CheckWalkthroughTable, &WriteWalkthroughView, &WalkthroughPages},
    {ViewKind::kCheck, "check", "Check a loaded table against the exact reference", kVectorSchemes,
     kVectorSchemesNeed, &CheckFigure, &CheckCheckTable, &WriteCheckView},
    {ViewKind::kProjection, "projection", "Projection: the tokens' vectors in 2-D (PCA)", kAdded,
     "a scheme that adds a vector to the token embeddings (sinusoidal or learned)",
     &ProjectionFigure, &CheckProjectionTable, &WriteProjectionView},
};

}  // namespace

ModelParams ParamsViewReads(const ModelParams& m, ViewKind view) {
  const ModelParams defaults;
  ModelParams out = m;
  auto keep_for = [&](auto member, std::initializer_list<ViewKind> readers) {
    for (ViewKind v : readers) {
      if (v == view) return;
    }
    out.*member = defaults.*member;
  };
  keep_for(&ModelParams::curve_dims, {ViewKind::kCurves});
  keep_for(&ModelParams::rotation_offset, {ViewKind::kRotation});
  keep_for(&ModelParams::measure, {ViewKind::kSimilarity, ViewKind::kSimilarityOffset});
  keep_for(&ModelParams::compare, {ViewKind::kScore, ViewKind::kDecay});
  keep_for(&ModelParams::query, {ViewKind::kAttention});
  keep_for(&ModelParams::versus, {ViewKind::kCompare});
  keep_for(&ModelParams::compare_of, {ViewKind::kCompare});
  keep_for(&ModelParams::dtype, {ViewKind::kPrecision, ViewKind::kCheck});
  keep_for(&ModelParams::check_table, {ViewKind::kCheck});
  keep_for(&ModelParams::walkthrough_preset, {ViewKind::kWalkthrough});
  return out;
}

std::span<const ViewEntry> Views() {
  return kViews;
}

const ViewEntry& GetView(ViewKind kind) {
  for (const ViewEntry& v : kViews) {
    if (v.kind == kind) return v;
  }
  return kViews[0];
}

std::string_view ViewName(ViewKind view) {
  return GetView(view).name;
}

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
