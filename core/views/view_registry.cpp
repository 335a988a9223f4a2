#include "views/view_registry.h"

#include <algorithm>
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

// The functions of the views whose files declare them here rather than in view_builders.h: a
// view's own file, its entry below and nothing else.

// precision_view.cpp
Result<Figure> PrecisionFigure(const ViewContext& c);
Status CheckPrecisionTable(const ViewContext& c);
Status WritePrecisionView(std::ostream& out, TableFormat format, const ViewContext& c,
                          const Progress& progress);
uint64_t PrecisionEstimate(const EstimateContext& c);

// position_ids_view.cpp
Result<Figure> PositionIdsFigure(const ViewContext& c);
Result<Figure> LayersFigure(const ViewContext& c);
Status CheckLayersTable(const ViewContext& c);
Status WriteLayersView(std::ostream& out, TableFormat format, const ViewContext& c,
                       const Progress& progress);
uint64_t LayersEstimate(const EstimateContext& c);
std::string LayersTitle(const ModelParams& m, const Encoding& e);
Status CheckPositionIdsTable(const ViewContext& c);
Status WritePositionIdsView(std::ostream& out, TableFormat format, const ViewContext& c,
                            const Progress& progress);
uint64_t PositionIdsEstimate(const EstimateContext& c);
std::string PositionIdsTitle(const ModelParams& m, const Encoding& e);

// mrope_axes_view.cpp
Result<Figure> MropeAxesFigure(const ViewContext& c);
Status CheckMropeAxesTable(const ViewContext& c);
Status WriteMropeAxesView(std::ostream& out, TableFormat format, const ViewContext& c,
                          const Progress& progress);
uint64_t MropeAxesEstimate(const EstimateContext& c);
std::string MropeAxesTitle(const ModelParams& m, const Encoding& e);

// mrope_neighbours_view.cpp
Result<Figure> MropeNeighboursFigure(const ViewContext& c);
Status CheckMropeNeighboursTable(const ViewContext& c);
Status WriteMropeNeighboursView(std::ostream& out, TableFormat format, const ViewContext& c,
                                const Progress& progress);
uint64_t MropeNeighboursEstimate(const EstimateContext& c);
std::string MropeNeighboursTitle(const ModelParams& m, const Encoding& e);

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
// The views of what position adds to a token (walkthrough, projection): NoPE adds nothing,
// so they have nothing to show (the sums view still shows its embeddings alone).
constexpr unsigned kAddsAVector = kAdded & ~SchemeBit(Scheme::kNope);
constexpr const char* kAddedNeed =
    "a scheme that adds a vector to the token embeddings (sinusoidal or learned)";

// The windows of other views that views read, by the view owning each.
constexpr ViewKind kHeatmapWindow[] = {ViewKind::kHeatmap};
constexpr ViewKind kScoreWindow[] = {ViewKind::kScore};
constexpr ViewKind kCompareWindows[] = {ViewKind::kHeatmap, ViewKind::kScore};

// The options only some views read (field keys, model/param_fields.h).
constexpr ViewOption kCurvesOptions[] = {OptionOf<&ModelParams::curve_dims>("dims")};
constexpr ViewOption kRotationOptions[] = {
    OptionOf<&ModelParams::rotation_offset>("rotation_offset")};
constexpr ViewOption kSimilarityOptions[] = {OptionOf<&ModelParams::measure>("measure")};
constexpr ViewOption kScoreOptions[] = {OptionOf<&ModelParams::score_part>("score_part")};
constexpr ViewOption kDecayOptions[] = {OptionOf<&ModelParams::compare>("compare"),
                                        OptionOf<&ModelParams::decay_norm>("decay_norm"),
                                        OptionOf<&ModelParams::decay_log_y>("decay_log_y")};
constexpr ViewOption kAttentionOptions[] = {OptionOf<&ModelParams::query>("query")};
constexpr ViewOption kCompareOptions[] = {OptionOf<&ModelParams::versus>("versus"),
                                          OptionOf<&ModelParams::compare_of>("compare_of")};
constexpr ViewOption kPrecisionOptions[] = {OptionOf<&ModelParams::dtype>("dtype")};
constexpr ViewOption kCheckOptions[] = {OptionOf<&ModelParams::dtype>("dtype"),
                                        OptionOf<&ModelParams::check_table>("check_table")};
constexpr ViewOption kMropeNeighboursOptions[] = {
    OptionOf<&ModelParams::mrope_patch>("mrope_patch")};
constexpr ViewOption kWalkthroughOptions[] = {
    OptionOf<&ModelParams::walkthrough_preset>("walkthrough_preset", true),
    OptionOf<&ModelParams::walkthrough>("walkthrough")};

constexpr ViewEntry kViews[] = {
    {.kind = ViewKind::kHeatmap,
     .name = "heatmap",
     .title = "Heatmap: the table, position by column",
     .schemes = kAllSchemes,
     .needs = "",
     .figure = &HeatmapFigure,
     .check_table = &CheckHeatmapTable,
     .write_table = &WriteHeatmapView,
     .estimate = &HeatmapEstimate,
     .window = {.key = "heatmap_window",
                .help = "heatmap and precision (dims x positions)",
                .x = WindowAxis::kDimCells,
                .y = WindowAxis::kPositions,
                .whole = &HeatmapWhole},
     .default_title = &HeatmapTitle,
     .metadata = &HeatmapMetadata},
    {.kind = ViewKind::kCurves,
     .name = "curves",
     .title = "Curves: table columns as waves",
     .schemes = kAllSchemes,
     .needs = "",
     .figure = &CurvesFigure,
     .check_table = &CheckCurvesTable,
     .write_table = &WriteCurvesView,
     .estimate = &CurvesEstimate,
     .window = {.key = "curves_window",
                .help = "curves (positions x values)",
                .x = WindowAxis::kPositions,
                .y = WindowAxis::kValues,
                .whole = &CurvesWhole},
     .options = kCurvesOptions,
     .default_title = &CurvesTitle,
     .metadata = &CurvesMetadata},
    {.kind = ViewKind::kSums,
     .name = "sum",
     .title = "Token + position = model input",
     .schemes = kAdded,
     .needs = kAddedNeed,
     .figure = &SumsFigure,
     .check_table = &CheckSumsTable,
     .write_table = &WriteSumsView,
     .estimate = &SumsEstimate,
     .window = {.key = "sums_window",
                .help = "sum view (dims x values)",
                .x = WindowAxis::kDimBars,
                .y = WindowAxis::kFitted,
                .whole = &SumsWhole},
     .default_title = &SumsTitle,
     .metadata = &SumsMetadata},
    {.kind = ViewKind::kRotation,
     .name = "rotation",
     .title = "Rotation: pairs turned on their circles",
     .schemes = SchemeBit(Scheme::kSinusoidal) | SchemeBit(Scheme::kRope),
     .needs = "sin/cos pairs that rotate (sinusoidal or rope)",
     .figure = &RotationFigure,
     .check_table = &CheckRotationTable,
     .write_table = &WriteRotationView,
     .estimate = &RotationEstimate,
     .options = kRotationOptions,
     .default_title = &RotationTitle,
     .metadata = &RotationMetadata},
    {.kind = ViewKind::kFrequencies,
     .name = "frequencies",
     .title = "Frequencies per pair, original vs scaled",
     .schemes = SchemeBit(Scheme::kRope),
     .needs = "a rotary scheme (rope)",
     .figure = &FrequenciesFigure,
     .check_table = &CheckFrequenciesTable,
     .write_table = &WriteFrequenciesView,
     .estimate = &FrequenciesEstimate,
     .default_title = &FrequenciesTitle},
    {.kind = ViewKind::kBias,
     .name = "bias",
     .title = "Attention bias: query by key, per head",
     .schemes = kBiases,
     .needs = "an attention-bias scheme (alibi or t5)",
     .figure = &BiasFigure,
     .check_table = &CheckBiasTable,
     .write_table = &WriteBiasView,
     .estimate = &BiasEstimate},
    {.kind = ViewKind::kBuckets,
     .name = "buckets",
     .title = "T5 buckets: query by key, and against distance",
     .schemes = SchemeBit(Scheme::kT5),
     .needs = "the t5 scheme",
     .figure = &BucketsFigure,
     .check_table = &CheckBucketsTable,
     .write_table = &WriteBucketsView,
     .estimate = &BucketsEstimate},
    {.kind = ViewKind::kSlopes,
     .name = "slopes",
     .title = "ALiBi slopes per head",
     .schemes = SchemeBit(Scheme::kAlibi),
     .needs = "the alibi scheme",
     .figure = &SlopesFigure,
     .check_table = &CheckSlopesTable,
     .write_table = &WriteSlopesView,
     .estimate = &SlopesEstimate},
    {.kind = ViewKind::kScore,
     .name = "score",
     .title = "Attention score: how position shapes q\xc2\xb7k",
     .schemes = kAllSchemes,
     .needs = "",
     .figure = &ScoreFigure,
     .check_table = &CheckScoreTable,
     .write_table = &WriteScoreView,
     .estimate = &ScoreEstimate,
     .window = {.key = "score_window",
                .help = "score, similarity and compare views (keys x queries)",
                .x = WindowAxis::kPositions,
                .y = WindowAxis::kPositions,
                .whole = &ScoreWhole,
                .empty_is_whole = true},
     .options = kScoreOptions},
    {.kind = ViewKind::kDecay,
     .name = "decay",
     .title = "Score against distance, scheme by scheme",
     .schemes = kAllSchemes,
     .needs = "",
     .figure = &DecayFigure,
     .check_table = &CheckDecayTable,
     .write_table = &WriteDecayView,
     .estimate = &DecayEstimate,
     .options = kDecayOptions},
    {.kind = ViewKind::kRoformerDecay,
     .name = "roformer-decay",
     .title = "RoFormer's long-term decay bound",
     .schemes = SchemeBit(Scheme::kRope),
     .needs = "the rope scheme",
     .figure = &RoformerDecayFigure,
     .check_table = &CheckRoformerDecayTable,
     .write_table = &WriteRoformerDecayView,
     .estimate = &DecayEstimate},
    {.kind = ViewKind::kBaseBound,
     .name = "base-bound",
     .title = "Base of RoPE bounds context length",
     .schemes = SchemeBit(Scheme::kRope),
     .needs = "the rope scheme",
     .figure = &BaseBoundFigure,
     .check_table = &CheckBaseBoundTable,
     .write_table = &WriteBaseBoundView,
     .estimate = &BaseBoundEstimate},
    {.kind = ViewKind::kPiFit,
     .name = "pi-fit",
     .title = "Position Interpolation: a fitted score beyond and inside L",
     .schemes = SchemeBit(Scheme::kRope),
     .needs = "the rope scheme",
     .figure = &PiFitFigure,
     .check_table = &CheckPiFitTable,
     .write_table = &WritePiFitView,
     .estimate = &PiFitEstimate},
    {.kind = ViewKind::kPrecision,
     .name = "precision",
     .title = "Precision: the table in bfloat16 or float16",
     .schemes = kAllSchemes,
     .needs = "",
     .figure = &PrecisionFigure,
     .check_table = &CheckPrecisionTable,
     .write_table = &WritePrecisionView,
     .estimate = &PrecisionEstimate,
     .windows = kHeatmapWindow,
     .options = kPrecisionOptions},
    {.kind = ViewKind::kAttention,
     .name = "attention",
     .title = "Attention: the softmax row of one query",
     .schemes = kAllSchemes,
     .needs = "",
     .figure = &AttentionFigure,
     .check_table = &CheckAttentionTable,
     .write_table = &WriteAttentionView,
     .estimate = &AttentionEstimate,
     .options = kAttentionOptions},
    {.kind = ViewKind::kCompare,
     .name = "compare",
     .title = "Compare two configurations side by side",
     .schemes = kAllSchemes,
     .needs = "",
     .figure = &CompareFigure,
     .check_table = &CheckCompareTable,
     .write_table = &WriteCompareView,
     .estimate = &CompareEstimate,
     .windows = kCompareWindows,
     .options = kCompareOptions},
    {.kind = ViewKind::kSimilarity,
     .name = "similarity",
     .title = "Similarity PE(p)\xc2\xb7PE(q): position by position",
     .schemes = kVectorSchemes,
     .needs = kVectorSchemesNeed,
     .figure = &SimilarityFigure,
     .check_table = &CheckSimilarityTable,
     .write_table = &WriteSimilarityView,
     .estimate = &SimilarityEstimate,
     .windows = kScoreWindow,
     .options = kSimilarityOptions},
    {.kind = ViewKind::kSimilarityOffset,
     .name = "similarity-offset",
     .title = "Similarity against the offset k = q - p",
     .schemes = kVectorSchemes,
     .needs = kVectorSchemesNeed,
     .figure = &SimilarityOffsetFigure,
     .check_table = &CheckSimilarityOffsetTable,
     .write_table = &WriteSimilarityOffsetView,
     .estimate = &SimilarityOffsetEstimate,
     .windows = kScoreWindow,
     .options = kSimilarityOptions},
    {.kind = ViewKind::kSpectrum,
     .name = "spectrum",
     .title = "Spectrum: frequency and wavelength per pair",
     // M-RoPE's angles are three ids times the frequencies, not one position's.
     .schemes = (SchemeBit(Scheme::kSinusoidal) | kRotary) & ~SchemeBit(Scheme::kMrope),
     .needs = "a scheme made of frequencies (sinusoidal, rope or xpos)",
     .figure = &SpectrumFigure,
     .check_table = &CheckSpectrumTable,
     .write_table = &WriteSpectrumView,
     .estimate = &SpectrumEstimate},
    {.kind = ViewKind::kWalkthrough,
     .name = "walkthrough",
     .title = "Walkthrough: from text to model input",
     .schemes = kAddsAVector,
     .needs = kAddedNeed,
     .figure = &WalkthroughFigure,
     .check_table = &CheckWalkthroughTable,
     .write_table = &WriteWalkthroughView,
     .estimate = &WalkthroughEstimate,
     .options = kWalkthroughOptions,
     .pdf_pages = &WalkthroughPages,
     .metadata = &WalkthroughMetadata},
    {.kind = ViewKind::kCheck,
     .name = "check",
     .title = "Check a loaded table against the exact reference",
     .schemes = kVectorSchemes,
     .needs = kVectorSchemesNeed,
     .figure = &CheckFigure,
     .check_table = &CheckCheckTable,
     .write_table = &WriteCheckView,
     .estimate = &CheckEstimate,
     .options = kCheckOptions},
    {.kind = ViewKind::kProjection,
     .name = "projection",
     .title = "Projection: the tokens' vectors in 2-D (PCA)",
     .schemes = kAddsAVector,
     .needs = kAddedNeed,
     .figure = &ProjectionFigure,
     .check_table = &CheckProjectionTable,
     .write_table = &WriteProjectionView,
     .estimate = &ProjectionEstimate},
    {.kind = ViewKind::kPositionIds,
     .name = "position-ids",
     .title = "Position ids: each token's t, h and w",
     .schemes = SchemeBit(Scheme::kMrope),
     .needs = "three position ids per token (the mrope scheme)",
     .figure = &PositionIdsFigure,
     .check_table = &CheckPositionIdsTable,
     .write_table = &WritePositionIdsView,
     .estimate = &PositionIdsEstimate,
     .default_title = &PositionIdsTitle},
    {.kind = ViewKind::kMropeAxes,
     .name = "mrope-axes",
     .title = "M-RoPE axes: which pair turns by t, h or w",
     .schemes = SchemeBit(Scheme::kMrope),
     .needs = "three position ids per token (the mrope scheme)",
     .figure = &MropeAxesFigure,
     .check_table = &CheckMropeAxesTable,
     .write_table = &WriteMropeAxesView,
     .estimate = &MropeAxesEstimate,
     .default_title = &MropeAxesTitle},
    {.kind = ViewKind::kMropeNeighbours,
     .name = "mrope-neighbours",
     .title = "M-RoPE neighbours: q\xc2\xb7k of a patch and the patches around it",
     .schemes = SchemeBit(Scheme::kMrope),
     .needs = "three position ids per token (the mrope scheme)",
     .figure = &MropeNeighboursFigure,
     .check_table = &CheckMropeNeighboursTable,
     .write_table = &WriteMropeNeighboursView,
     .estimate = &MropeNeighboursEstimate,
     .options = kMropeNeighboursOptions,
     .default_title = &MropeNeighboursTitle},
    {.kind = ViewKind::kLayers,
     .name = "layers",
     .title = "Layers: the model's positional treatment, layer by layer",
     .schemes = kAllSchemes,
     .needs = "a model (--model or --model-config)",
     .figure = &LayersFigure,
     .check_table = &CheckLayersTable,
     .write_table = &WriteLayersView,
     .estimate = &LayersEstimate,
     .default_title = &LayersTitle,
     .npy = false},
};

// Every view has exactly one entry, and each entry every piece a view must have: a name, a
// title, and, when it does not apply to every scheme, what it needs. Its builder, table writer
// and memory estimate are members without defaults (-Wmissing-field-initializers names a
// forgotten one) and ViewEntries.EveryViewKindHasAnEntryWithItsPieces checks they are set:
// comparing a function's address with null is not a constant expression where null pointer checks
// are kept (the sanitizer build).
constexpr bool EveryViewComplete(std::span<const ViewEntry> views) {
  if (views.size() != kViewKinds) return false;
  for (int k = 0; k < kViewKinds; ++k) {
    int entries = 0;
    for (const ViewEntry& v : views) entries += v.kind == static_cast<ViewKind>(k) ? 1 : 0;
    if (entries != 1) return false;
  }
  for (const ViewEntry& v : views) {
    if (v.name.empty() || v.title.empty() || (v.schemes != kAllSchemes && v.needs.empty())) {
      return false;
    }
  }
  return true;
}
static_assert(EveryViewComplete(kViews),
              "every ViewKind needs one entry in kViews with a name and a title (and `needs` "
              "when it does not apply to every scheme)");

static_assert(EveryWindowComplete(kViews),
              "a view's own window needs a unique key \"NAME_window\" and its --help text; the "
              "windows an entry reads (`windows`) must be other views' own windows");

bool ReadsOption(std::span<const ViewOption> options, std::string_view key) {
  for (const ViewOption& o : options) {
    if (o.key == key) return true;
  }
  return false;
}

}  // namespace

ModelParams ParamsViewReads(const ModelParams& m, ViewKind view) {
  const ModelParams defaults;
  const std::span<const ViewOption> own = GetView(view).options;
  ModelParams out = m;
  for (const ViewEntry& v : kViews) {
    for (const ViewOption& o : v.options) {
      if (!ReadsOption(own, o.key)) o.reset(out, defaults);
    }
  }
  return out;
}

std::vector<std::string_view> ViewsReading(std::string_view key) {
  std::vector<std::string_view> names;
  for (const ViewEntry& v : kViews) {
    for (const ViewOption& o : v.options) {
      if (o.key == key && !o.other_views_record) names.push_back(v.name);
    }
  }
  return names;
}

bool OnlyOtherViewsRead(std::string_view key, std::string_view view_name) {
  const std::vector<std::string_view> readers = ViewsReading(key);
  return !readers.empty() && std::find(readers.begin(), readers.end(), view_name) == readers.end();
}

bool OnlyOtherViewsRead(std::string_view key, ViewKind view) {
  return OnlyOtherViewsRead(key, ViewName(view));
}

void AddPresetMetadata(const ModelParams& m, MetadataList& out) {
  if (m.input.pe_discarded && !m.walkthrough_preset.empty()) {
    out.push_back({"walkthrough_preset", m.walkthrough_preset});
  }
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

bool ViewApplies(ViewKind kind, const ModelParams& params) {
  if (kind == ViewKind::kWalkthrough && params.walkthrough == WalkthroughKind::kAttention) {
    return true;
  }
  return ViewApplies(kind, params.pe);
}

Status CheckViewApplies(ViewKind kind, const ModelParams& params) {
  if (ViewApplies(kind, params)) return {};
  return CheckViewApplies(kind, params.pe);
}

}  // namespace pe
