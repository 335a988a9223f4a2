// The builders of each view (one file each), for the registry (view_registry.cpp). Not for use
// elsewhere: go through Views() / GetView().
#pragma once

#include "views/view_registry.h"

namespace pe {

Result<Figure> HeatmapFigure(const ViewContext& c);
// The legend line for the grey of masked texels (GreyMaskedTexels), when `e` masks any key of
// its table (causal ALiBi); shared by the heatmap and bias figures.
void AddMaskedLegend(const Encoding& e, Figure& f);
Status CheckHeatmapTable(const ViewContext& c);
Status WriteHeatmapView(std::ostream& out, TableFormat format, const ViewContext& c,
                        const Progress& progress);
uint64_t HeatmapEstimate(const EstimateContext& c);
// Its window over the whole table: every column by every position.
ViewRange HeatmapWhole(const ModelParams& m, const Encoding& e);
std::string HeatmapTitle(const ModelParams& m, const Encoding& e);
void HeatmapMetadata(const ModelParams& m, const ViewSelection& sel, MetadataList& out);

Result<Figure> CurvesFigure(const ViewContext& c);
Status CheckCurvesTable(const ViewContext& c);
Status WriteCurvesView(std::ostream& out, TableFormat format, const ViewContext& c,
                       const Progress& progress);
uint64_t CurvesEstimate(const EstimateContext& c);
// Its window over the whole table: CurvesLimits.
ViewRange CurvesWhole(const ModelParams& m, const Encoding& e);
std::string CurvesTitle(const ModelParams& m, const Encoding& e);
void CurvesMetadata(const ModelParams& m, const ViewSelection& sel, MetadataList& out);

Result<Figure> SumsFigure(const ViewContext& c);
// The figure of a text with no tokens: `title`, empty axes over `window` and a note saying so.
Figure NoTokensFigure(const ModelParams& m, const std::string& title, const ViewRange& window);
Status CheckSumsTable(const ViewContext& c);
Status WriteSumsView(std::ostream& out, TableFormat format, const ViewContext& c,
                     const Progress& progress);
uint64_t SumsEstimate(const EstimateContext& c);
// Its window over every dimension (bars centred on them), values [-1, 1] until the panel fits
// them to the bars.
ViewRange SumsWhole(const ModelParams& m, const Encoding& e);
std::string SumsTitle(const ModelParams& m, const Encoding& e);
void SumsMetadata(const ModelParams& m, const ViewSelection& sel, MetadataList& out);

Result<Figure> RotationFigure(const ViewContext& c);
Status CheckRotationTable(const ViewContext& c);
Status WriteRotationView(std::ostream& out, TableFormat format, const ViewContext& c,
                         const Progress& progress);
uint64_t RotationEstimate(const EstimateContext& c);
std::string RotationTitle(const ModelParams& m, const Encoding& e);
void RotationMetadata(const ModelParams& m, const ViewSelection& sel, MetadataList& out);

Result<Figure> FrequenciesFigure(const ViewContext& c);
Status CheckFrequenciesTable(const ViewContext& c);
Status WriteFrequenciesView(std::ostream& out, TableFormat format, const ViewContext& c,
                            const Progress& progress);
uint64_t FrequenciesEstimate(const EstimateContext& c);
std::string FrequenciesTitle(const ModelParams& m, const Encoding& e);

// The attention-bias views (bias_views.cpp): the (heads, L, L) bias, T5's bucket ids, ALiBi's
// slopes.
Result<Figure> BiasFigure(const ViewContext& c);
Status CheckBiasTable(const ViewContext& c);
Status WriteBiasView(std::ostream& out, TableFormat format, const ViewContext& c,
                     const Progress& progress);
uint64_t BiasEstimate(const EstimateContext& c);
Result<Figure> BucketsFigure(const ViewContext& c);
Status CheckBucketsTable(const ViewContext& c);
Status WriteBucketsView(std::ostream& out, TableFormat format, const ViewContext& c,
                        const Progress& progress);
uint64_t BucketsEstimate(const EstimateContext& c);
Result<Figure> SlopesFigure(const ViewContext& c);
Status CheckSlopesTable(const ViewContext& c);
Status WriteSlopesView(std::ostream& out, TableFormat format, const ViewContext& c,
                       const Progress& progress);
uint64_t SlopesEstimate(const EstimateContext& c);

// The attention-score views (score_views.cpp): score(m, n) as a (query x key) table, its decay
// against the distance, RoFormer's long-term decay bound.
Result<Figure> ScoreFigure(const ViewContext& c);
Status CheckScoreTable(const ViewContext& c);
Status WriteScoreView(std::ostream& out, TableFormat format, const ViewContext& c,
                      const Progress& progress);
uint64_t ScoreEstimate(const EstimateContext& c);
// Its window over the whole table: every key by every query.
ViewRange ScoreWhole(const ModelParams& m, const Encoding& e);
Result<Figure> DecayFigure(const ViewContext& c);
Status CheckDecayTable(const ViewContext& c);
Status WriteDecayView(std::ostream& out, TableFormat format, const ViewContext& c,
                      const Progress& progress);
uint64_t DecayEstimate(const EstimateContext& c);
// Ticks on a log10 axis (plot coordinates are log10 of the value): each decade, with 2 and 5
// within them when fewer than three decades show; labels as "1e3", "2e3". Decay and base-bound.
std::vector<Tick> LogTicks(double lo, double hi);

// Men et al.'s lower bound of RoPE's base against the context length (base_bound_view.cpp).
Result<Figure> BaseBoundFigure(const ViewContext& c);
Status CheckBaseBoundTable(const ViewContext& c);
Status WriteBaseBoundView(std::ostream& out, TableFormat format, const ViewContext& c,
                          const Progress& progress);
uint64_t BaseBoundEstimate(const EstimateContext& c);

// Position Interpolation's Figure 2: a least-squares score beyond and inside L (pi_fit_view.cpp).
Result<Figure> PiFitFigure(const ViewContext& c);
Status CheckPiFitTable(const ViewContext& c);
Status WritePiFitView(std::ostream& out, TableFormat format, const ViewContext& c,
                      const Progress& progress);
uint64_t PiFitEstimate(const EstimateContext& c);

Result<Figure> RoformerDecayFigure(const ViewContext& c);
Status CheckRoformerDecayTable(const ViewContext& c);
Status WriteRoformerDecayView(std::ostream& out, TableFormat format, const ViewContext& c,
                              const Progress& progress);

// (attention_view.cpp)
Result<Figure> AttentionFigure(const ViewContext& c);
Status CheckAttentionTable(const ViewContext& c);
Status WriteAttentionView(std::ostream& out, TableFormat format, const ViewContext& c,
                          const Progress& progress);
uint64_t AttentionEstimate(const EstimateContext& c);

// (compare_view.cpp)
Result<Figure> CompareFigure(const ViewContext& c);
Status CheckCompareTable(const ViewContext& c);
Status WriteCompareView(std::ostream& out, TableFormat format, const ViewContext& c,
                        const Progress& progress);
uint64_t CompareEstimate(const EstimateContext& c);

// (similarity_view.cpp)
Result<Figure> SimilarityFigure(const ViewContext& c);
Status CheckSimilarityTable(const ViewContext& c);
Status WriteSimilarityView(std::ostream& out, TableFormat format, const ViewContext& c,
                           const Progress& progress);
uint64_t SimilarityEstimate(const EstimateContext& c);

// (similarity_view.cpp)
Result<Figure> SimilarityOffsetFigure(const ViewContext& c);
Status CheckSimilarityOffsetTable(const ViewContext& c);
Status WriteSimilarityOffsetView(std::ostream& out, TableFormat format, const ViewContext& c,
                                 const Progress& progress);
uint64_t SimilarityOffsetEstimate(const EstimateContext& c);

// (spectrum_view.cpp)
Result<Figure> SpectrumFigure(const ViewContext& c);
Status CheckSpectrumTable(const ViewContext& c);
Status WriteSpectrumView(std::ostream& out, TableFormat format, const ViewContext& c,
                         const Progress& progress);
uint64_t SpectrumEstimate(const EstimateContext& c);

// (walkthrough_view.cpp)
Result<Figure> WalkthroughFigure(const ViewContext& c);
Status CheckWalkthroughTable(const ViewContext& c);
Status WriteWalkthroughView(std::ostream& out, TableFormat format, const ViewContext& c,
                            const Progress& progress);
uint64_t WalkthroughEstimate(const EstimateContext& c);
void WalkthroughMetadata(const ModelParams& m, const ViewSelection& sel, MetadataList& out);
Result<std::vector<Figure>> WalkthroughPages(const ViewContext& c);

// (check_view.cpp)
Result<Figure> CheckFigure(const ViewContext& c);
Status CheckCheckTable(const ViewContext& c);
Status WriteCheckView(std::ostream& out, TableFormat format, const ViewContext& c,
                      const Progress& progress);
uint64_t CheckEstimate(const EstimateContext& c);

// (projection_view.cpp)
Result<Figure> ProjectionFigure(const ViewContext& c);
Status CheckProjectionTable(const ViewContext& c);
Status WriteProjectionView(std::ostream& out, TableFormat format, const ViewContext& c,
                           const Progress& progress);
uint64_t ProjectionEstimate(const EstimateContext& c);

// The score views' content in words: "x: one N(0, 1) vector (seed 0), as query and key" and
// the like (score_views.cpp).
std::string ScoreContentText(const ModelParams& m);

// "sin", "cos", "zero", "angle"
const char* WaveName(Wave w);
// "j=5: i=2 cos, ω=0.1, λ=62.83" or for tables without waves "j=5".
std::string ColumnLegend(const Encoding& e, int64_t col);

}  // namespace pe
