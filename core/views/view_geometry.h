// Rules the window's panels and the exported figures share, so a view looks the same on screen
// and in a file: how finely curves are sampled, how many series are drawn, how the scaled
// embedding is written.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "encoding/encoding.h"

namespace pe {

// Samples of a smooth curve across a plot `width_px` pixels wide: two per pixel (a sine between
// samples is then a straight line to well under a pixel), 64 to 20001.
inline int CurveSamples(int width_px) {
  return std::clamp(2 * width_px + 1, 64, 20001);
}

// One column's curve across the positions [x0, x1] of a plot `width_px` pixels wide. Point
// samples of a wave that turns by more than kLineMaxTurn between two samples would draw a slower
// wave that is not there (aliasing). Such a column is drawn as a band instead: pixel k covers the
// positions [edges[k], edges[k + 1]] and the column takes every value in [lo[k], hi[k]] there
// (WaveRangeOver, exact). Otherwise it is the line through (xs, ys), CurveSamples of them.
struct CurveTrace {
  std::vector<double> xs, ys;
  std::vector<double> edges, lo, hi;
  bool band() const { return !lo.empty(); }
  // Positions per pixel of the band (0 for a line).
  double positions_per_pixel() const {
    return band() ? (edges.back() - edges.front()) / static_cast<double>(lo.size()) : 0.0;
  }
};
// The line is faithful while the wave turns by at most pi/4 between samples (8 or more samples
// a period; two per pixel, so pi/2 a pixel).
inline constexpr double kLineMaxTurn = std::numbers::pi / 4;
// Wave columns only (a table without waves() has no continuous form: TraceTableCurve). A column
// whose value is not the bare wave (xPos's decay multiplies it) keeps the line.
CurveTrace TraceWaveCurve(const Encoding& e, int64_t col, double x0, double x1, int width_px);
// The legend's note for a band: "each pixel shows the wave's range over its N positions".
std::string BandNote(double positions_per_pixel);

// A table without waves (learned, bias tables): its curve is the polyline through its rows
// (ValueAt). While the rows in view are no more than the pixels, that polyline through every row
// in view (and one beyond each side). With more, a band over the table's part of [x0, x1]: pixel
// k covers [edges[k], edges[k + 1]] and [lo[k], hi[k]] is the polyline's exact range there, the
// min and max of every row inside and of its values at the two edges, so no spike between
// sampled rows is lost. Every row in view is read once; above kMaxExactBandRows rows in view the
// polyline through every k-th row is drawn instead (TableCurveIsSampled says when).
CurveTrace TraceTableCurve(const Encoding& e, int64_t col, double x0, double x1, int width_px);
// A causal bias's column `col` is a key hidden from the queries before it (Encoding::Masked):
// the first query position that sees it (the table's first position when none is masked). The
// curves leave the positions before it out (TraceTableCurve, the markers): the table holds a
// value there (0, ALiBi's largest bias) that no model adds.
int64_t FirstVisibleQuery(const Encoding& e, int64_t col);
// The note the curves' legends give for a table that masks keys.
inline constexpr const char* kMaskedCurvesNote =
    "a key n is masked for the queries m < n (-inf in the model): its curve starts at m = n";
inline constexpr int64_t kMaxExactBandRows = int64_t{1} << 23;
bool TableCurveIsSampled(const Encoding& e, double x0, double x1, int width_px);
// The legend's note for a table's band: "each pixel shows the range of its N rows".
std::string TableBandNote(double positions_per_pixel);

// At most this many curves are drawn (a longer list is cut, and says so).
inline constexpr size_t kMaxCurveSeries = 64;
// At most this many tokens get a series in the all-tokens sum (more make an unreadable legend).
inline constexpr int kMaxTokenSeries = 32;

// "E × √d": the scaled embedding, as every label writes it.
inline constexpr const char* kScaledEmbedding =
    "E \xc3\x97 \xe2\x88\x9a"
    "d";

}  // namespace pe
