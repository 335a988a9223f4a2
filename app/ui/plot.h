// A small plot layer drawn with ImDrawList (ImPlot is not packaged here), shaped like ImPlot:
// construct a Plot (frame, axes, ticks, input), add items, End(). Sizes follow the font size.
// Input: wheel zooms around the mouse (Shift: x only, Ctrl: y only), left-drag pans,
// double-click fits the data limits. The view lives in the caller's state.
#pragma once

#include <imgui.h>

#include <span>
#include <string>

#include "figure/colormap.h"
#include "figure/figure.h"

namespace pe {

// The window onto plot coordinates is the same type the exported figures use.
using PlotRange = ViewRange;

struct PlotSpec {
  const char* title = nullptr;
  const char* x_label = nullptr;
  const char* y_label = nullptr;
  PlotRange limits;          // the data: the view is kept inside it; double-click fits to it
  double min_x_span = 1e-6;  // how far one may zoom in
  double min_y_span = 1e-6;
  bool y_down = false;   // y grows downward (a matrix: row 0 at the top)
  bool x_cells = false;  // integer categories: tick k sits at the centre of cell [k, k+1)
  bool y_cells = false;
  bool x_integer = false;  // only whole-number ticks on x (an index axis)
  bool lock_y = false;     // zoom and pan move x only; the caller owns y
  bool crosshair = true;
  // Ticks placed by the caller (plot position, label); empty: nice ticks over the view.
  std::span<const Tick> x_ticks, y_ticks;
};

class Plot {
 public:
  // Takes `size` (0 = the rest of the content region) and handles this frame's input.
  Plot(const char* id, PlotRange& view, const PlotSpec& spec, ImVec2 size = ImVec2(0, 0));
  ~Plot();
  Plot(const Plot&) = delete;
  Plot& operator=(const Plot&) = delete;

  ImVec2 ToPixels(double x, double y) const;
  double PixelToX(float px) const;
  double PixelToY(float py) const;
  bool hovered() const { return hovered_; }
  double mouse_x() const { return mouse_x_; }
  double mouse_y() const { return mouse_y_; }
  ImVec2 area_min() const { return min_; }
  ImVec2 area_max() const { return max_; }
  float pixels_per_x() const;  // screen pixels per unit of x
  float pixels_per_y() const;
  ImDrawList* draw_list() const { return draw_; }

  void Line(const double* xs, const double* ys, int n, ImU32 color, float thickness = 1.5f);
  void Markers(const double* xs, const double* ys, int n, ImU32 color, float radius);
  // An image covering [x0, x1] x [y0, y1] in plot coordinates.
  void Image(ImTextureID texture, double x0, double y0, double x1, double y1);
  void VLine(double x, ImU32 color, float thickness = 1.0f);
  void HLine(double y, ImU32 color, float thickness = 1.0f);
  void Rect(double x0, double y0, double x1, double y1, ImU32 color, float thickness = 1.0f);
  void FilledRect(double x0, double y0, double x1, double y1, ImU32 color);
  // A band of `n` steps: step k fills x in [edges[k], edges[k + 1]], y in [lo[k], hi[k]], at
  // least one pixel tall (a step near a crest stays visible).
  void Band(const double* edges, const double* lo, const double* hi, int n, ImU32 color);
  void End();

 private:
  PlotRange& view_;
  const PlotSpec& spec_;
  ImDrawList* draw_ = nullptr;
  ImVec2 min_, max_;      // the data area
  ImVec2 origin_, size_;  // the whole plot with its labels
  bool hovered_ = false;
  bool ended_ = false;
  double mouse_x_ = 0, mouse_y_ = 0;
};

// Keeps `view` inside `limits` and no smaller than the minimum spans.
PlotRange ClampView(PlotRange view, const PlotSpec& spec);

// A vertical colour bar for [vmin, vmax] with ticks and a label, in `size`.
// The width a colour bar of [vmin, vmax] drawn `height` tall needs beside a plot (its longest
// tick label, "-0.00015", fits, and its `label` above the bar when given), at least the 4.2 em
// the panels used to give every bar.
// `text` cut at a character boundary and ended with an ellipsis so that it is at most `width`
// pixels wide in the current font (the text itself when it fits).
std::string ElideToWidth(const std::string& text, float width);

float ColorBarWidth(float vmin, float vmax, float height, const char* label = nullptr);
void ColorBar(const char* id, ColormapId colormap, float vmin, float vmax, const char* label,
              ImVec2 size);

// Colours shared by the panels (the four parts of the input layer, highlights).
ImU32 SeriesColor(int index);

}  // namespace pe
