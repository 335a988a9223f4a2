#include "views/figure_budget.h"

#include "views/view_geometry.h"

#include <algorithm>
#include <cmath>

#include "text/tokenizer.h"

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
      const auto tokens =
          static_cast<uint64_t>(Tokenize(params.example.text, params.example.tokenizer).size());
      const uint64_t series = sel.selected_token >= 0 ? 4 : std::min<uint64_t>(tokens, 32);
      bytes += 4 * sizeof(float) * tokens * d + kFigureBytesPerSumItem * series * d;
      break;
    }
    case ViewKind::kRotation: {
      // As RotationFigure: at most 8 panels of a circle and an arc (181 vertices each at most),
      // two arrows (5 each) and a dot, about 380 line points a panel; the table of every pair
      // (d_rot / 2 rows of 8 doubles) is built alongside.
      bytes += kFigureBytesPerCurveSample * 8 * 380 + 64 * d;
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
      break;
    }
    case ViewKind::kDecay:
    case ViewKind::kRoformerDecay: {
      // A few lines (the schemes compared) sampled twice per pixel, with markers.
      const uint64_t samples = std::clamp<uint64_t>(2 * width_px + 1, 64, 20001) + width_px;
      bytes += kFigureBytesPerCurveSample * samples * 8;
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
    case ViewKind::kCompare:
    case ViewKind::kSimilarity:
    case ViewKind::kSimilarityOffset:
    case ViewKind::kSpectrum:
    case ViewKind::kPrecision:
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
