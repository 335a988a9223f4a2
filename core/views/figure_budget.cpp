#include "views/figure_budget.h"

#include <algorithm>
#include <cmath>

#include "base/parallel_chunks.h"
#include "model/param_fields.h"
#include "text/tokenizer.h"
#include "views/compare_view.h"
#include "views/view_geometry.h"

namespace pe {

uint64_t EstimateFigureBytes(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                             const FigureSize& size, FigureFormat format) {
  // The plot area is at most the whole figure, in output pixels.
  const double scale = format == FigureFormat::kPng ? size.scale : 1.0;
  const auto width_px = static_cast<uint64_t>(std::ceil(std::max(1.0, size.width * scale)));
  const auto height_px = static_cast<uint64_t>(std::ceil(std::max(1.0, size.height * scale)));
  // A PNG is drawn on an ARGB image and encoded into memory before it is written.
  uint64_t bytes = format == FigureFormat::kPng ? 8 * width_px * height_px : 0;
  const auto d = static_cast<uint64_t>(params.pe.d_model);
  switch (view) {
    case ViewKind::kHeatmap: {
      // As HeatmapFigure: at most 4096 texels a side, never more than the visible cells.
      const double cols = std::ceil(sel.heatmap.x1 - sel.heatmap.x0);
      const double rows = std::ceil(sel.heatmap.y1 - sel.heatmap.y0);
      const auto w =
          std::min<uint64_t>({width_px, 4096, static_cast<uint64_t>(std::max(1.0, cols))});
      const auto h =
          std::min<uint64_t>({height_px, 4096, static_cast<uint64_t>(std::max(1.0, rows))});
      bytes += kFigureBytesPerTexel * w * h;
      break;
    }
    case ViewKind::kCurves: {
      // As CurvesFigure: clamp(2 * plot width + 1, 64, 20001) samples per chosen dimension,
      // plus at most one marker per plot pixel.
      const uint64_t samples = std::clamp<uint64_t>(2 * width_px + 1, 64, 20001) + width_px;
      bytes += kFigureBytesPerCurveSample * samples *
               std::min<uint64_t>(params.curve_dims.size(), kMaxCurveSeries);
      break;
    }
    case ViewKind::kSums: {
      // The sentence's four (T, d) parts, and one bar or point per dimension and series.
      const auto tokens = static_cast<uint64_t>(ExampleTokenCount(params.example));
      const uint64_t series = sel.selected_token >= 0 ? 4 : std::min<uint64_t>(tokens, 32);
      bytes += 4 * sizeof(float) * tokens * d + kFigureBytesPerSumItem * series * d;
      break;
    }
    case ViewKind::kRotation: {
      // As RotationFigure: at most 8 panels (RoPE; 6 for the sinusoidal pairs) of a circle and
      // an arc (181 vertices each at most), two arrows (5 each) and a dot, about 380 line points
      // a panel; the table of every pair (d / 2 rows of at most 13 doubles, RoPE's 8 or the
      // sinusoidal 13) is built alongside.
      bytes += kFigureBytesPerCurveSample * 8 * 380 + 104 * d;
      break;
    }
    case ViewKind::kFrequencies: {
      // As FrequenciesFigure: two lines over the d_rot / 2 <= d / 2 pairs, then up to two dots
      // per pair or (pairs too dense for dots) the treatment runs over the scaled line, a few
      // two-point reference lines, and the pairs' frequencies (48 bytes each).
      const uint64_t pairs = (d + 1) / 2;
      bytes += kFigureBytesPerCurveSample * (5 * pairs + 16) + 48 * pairs;
      break;
    }
    case ViewKind::kBuckets: {
      // As BucketsFigure: a step line of two points per run of one bucket (at most the buckets
      // on each side, plus r = 0), dots at the integer positions when they are a few pixels
      // apart (at most one per plot pixel), and a few two-point reference lines.
      const auto buckets =
          params.pe.kind() == Scheme::kT5 ? static_cast<uint64_t>(params.pe.t5().buckets) : 32;
      bytes += kFigureBytesPerCurveSample * (4 * (buckets + 1) + width_px + 16);
      break;
    }
    case ViewKind::kSlopes: {
      // As SlopesFigure: one bar per head.
      const auto heads =
          params.pe.kind() == Scheme::kAlibi ? static_cast<uint64_t>(params.pe.alibi().heads) : 8;
      bytes += kFigureBytesPerSumItem * heads;
      break;
    }
    case ViewKind::kBias:
    case ViewKind::kScore: {
      // A (query x key) image at screen resolution, at most 4096 texels a side, plus a curve.
      const auto w = std::min<uint64_t>(width_px, 4096), h = std::min<uint64_t>(height_px, 4096);
      bytes += kFigureBytesPerTexel * w * h +
               kFigureBytesPerCurveSample * std::clamp<uint64_t>(2 * width_px + 1, 64, 20001);
      // Scores without a closed form over their texels (a learned table, xPos over a wide
      // window) average the queries of each texel row and the keys of each texel column:
      // (texel rows + columns) x d doubles.
      if (view == ViewKind::kScore) bytes += 8 * (w + h) * d;
      break;
    }
    case ViewKind::kDecay:
    case ViewKind::kRoformerDecay: {
      // A few lines (the schemes compared) sampled twice per pixel, with markers.
      const uint64_t samples = std::clamp<uint64_t>(2 * width_px + 1, 64, 20001) + width_px;
      bytes += kFigureBytesPerCurveSample * samples * 8;
      break;
    }
    case ViewKind::kSimilarity: {
      // As SimilarityFigure: an image at screen resolution (at most 4096 texels a side) and the
      // mean vector of each texel row and column, d doubles each.
      const auto w = std::min<uint64_t>(width_px, 4096), h = std::min<uint64_t>(height_px, 4096);
      bytes += kFigureBytesPerTexel * w * h + 8 * d * (w + h);
      break;
    }
    case ViewKind::kSimilarityOffset: {
      // As SimilarityOffsetFigure: the mean line through clamp(2 * width + 1, 64, 20001) offsets
      // with markers, and one band slice (a filled rectangle, about four points) per offset.
      const uint64_t samples = std::clamp<uint64_t>(2 * width_px + 1, 64, 20001);
      bytes += kFigureBytesPerCurveSample * (samples + width_px + 4 * samples);
      // The similarity's terms (as SimilarityFigure's): a few doubles per dimension.
      bytes += 16 * sizeof(double) * d;
      break;
    }
    case ViewKind::kSpectrum: {
      // As SpectrumFigure: four lines over the at most d / 2 + 1 pairs (the wavelength and the
      // frequency, before and after RoPE's scaling), then a dot per pair on each or (pairs too
      // dense for dots) the category runs over the two lines, a few two-point reference lines,
      // and the pairs' frequencies (24 bytes each).
      const uint64_t pairs = d / 2 + 1;
      bytes += kFigureBytesPerCurveSample * (8 * pairs + 16) + 24 * pairs;
      break;
    }
    case ViewKind::kCompare: {
      // As CompareFigure: three images (A, B, A - B) each at most a third of the width, at most
      // 4096 texels a side; for scores, the two rasters' mean queries and keys, (texel rows +
      // columns) x d doubles for each configuration (B's d_model from --versus).
      const auto w = std::min<uint64_t>(width_px / 3 + 1, 4096);
      const auto h = std::min<uint64_t>(height_px, 4096);
      bytes += 3 * kFigureBytesPerTexel * w * h;
      if (params.compare_of == CompareOf::kScore) {
        uint64_t d_b = d;
        if (Result<ModelParams> b =
                ApplyVersus(params, params.versus.empty() ? DefaultVersus(params) : params.versus);
            b.ok()) {
          d_b = static_cast<uint64_t>(b.value().pe.d_model);
        }
        bytes += 8 * (w + h) * (d + d_b);
      }
      break;
    }
    case ViewKind::kAttention: {
      // As AttentionFigure: one line point per plot pixel column (or per key, with a stem each
      // when the keys are a few pixels apart); the rows without a closed form hold every key's
      // score, (L) doubles, and the top-keys candidates, (L) (score, key) pairs.
      const auto keys = static_cast<uint64_t>(params.pe.max_len);
      const bool closed = params.pe.kind() == Scheme::kAlibi || params.pe.kind() == Scheme::kT5;
      bytes += 3 * kFigureBytesPerCurveSample * std::min<uint64_t>(width_px, keys) + 4096 +
               (closed ? 0 : 24 * keys);
      break;
    }
    case ViewKind::kPrecision: {
      // As PrecisionFigure: an image of the visible window (at most 4096 texels a side, never
      // more than its cells) with a float error per texel, three numbers per texel row, up to
      // 8 sampled columns per texel column (index and texel), and per thread a fill buffer of
      // at most 4 times the sampled columns.
      const double cols = std::ceil(sel.heatmap.x1 - sel.heatmap.x0);
      const double rows = std::ceil(sel.heatmap.y1 - sel.heatmap.y0);
      const auto w =
          std::min<uint64_t>({width_px, 4096, static_cast<uint64_t>(std::max(1.0, cols))});
      const auto h =
          std::min<uint64_t>({height_px, 4096, static_cast<uint64_t>(std::max(1.0, rows))});
      bytes += (kFigureBytesPerTexel + sizeof(float)) * w * h + 3 * sizeof(double) * h +
               8 * 2 * sizeof(int64_t) * w + 2 * 4 * 8 * sizeof(float) * w;
      // Per thread, a block of the sampled rows over the visible columns: about 4 MiB (at
      // least 8 rows), never more than the visible cells; windows wider than 2^17 columns (the
      // biases' keys) fill only the sampled columns, 8 rows of at most 8 per texel column.
      const auto vis_cols = static_cast<uint64_t>(std::max(1.0, cols));
      const auto vis_rows = static_cast<uint64_t>(std::max(1.0, rows));
      const uint64_t block = vis_cols > (uint64_t{1} << 17)
                                 ? 2 * 8 * 8 * sizeof(float) * w
                                 : std::min((uint64_t{4} << 20) + 8 * sizeof(float) * vis_cols,
                                            sizeof(float) * vis_rows * vis_cols);
      bytes += static_cast<uint64_t>(FillThreads()) * block;
      break;
    }
    case ViewKind::kCheck:
    case ViewKind::kProjection:
    case ViewKind::kWalkthrough: {
      // Until their own estimates: an image at screen resolution and a few curves.
      const auto w = std::min<uint64_t>(width_px, 4096), h = std::min<uint64_t>(height_px, 4096);
      bytes += 3 * kFigureBytesPerTexel * w * h +
               kFigureBytesPerCurveSample * std::clamp<uint64_t>(2 * width_px + 1, 64, 20001) * 8;
      break;
    }
  }
  return bytes;
}

Status CheckFigureMemory(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                         const FigureSize& size, FigureFormat format) {
  const uint64_t need = EstimateFigureBytes(view, params, sel, size, format);
  if (need <= params.cap.bytes) return {};
  return InvalidArgument("the " + std::string(ViewName(view)) + " figure needs about " +
                         FormatBytes(need) + ", over the memory cap of " +
                         FormatBytes(params.cap.bytes) +
                         "; show fewer dimensions or a smaller figure, or raise the cap "
                         "(--memory-cap-mib)");
}

}  // namespace pe
