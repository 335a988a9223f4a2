#include "ui/plot.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/ticks.h"
#include "figure/markup.h"
#include "ui/ui_settings.h"

namespace pe {

PlotRange ClampView(PlotRange v, const PlotSpec& s) {
  auto clamp_axis = [](double& a, double& b, double lo, double hi, double min_span) {
    if (!(b > a) || !std::isfinite(a) || !std::isfinite(b)) {
      a = lo;
      b = hi;
    }
    double span = std::clamp(b - a, std::min(min_span, hi - lo), hi - lo);
    double centre = (a + b) / 2;
    a = centre - span / 2;
    b = centre + span / 2;
    if (a < lo) {
      b += lo - a;
      a = lo;
    }
    if (b > hi) {
      a -= b - hi;
      b = hi;
    }
    a = std::max(a, lo);
  };
  clamp_axis(v.x0, v.x1, s.limits.x0, s.limits.x1, s.min_x_span);
  if (!s.lock_y) clamp_axis(v.y0, v.y1, s.limits.y0, s.limits.y1, s.min_y_span);
  return v;
}

namespace {

// Ticks the caller placed, shifted as nice ticks are (by the cell centre) before drawing.
std::vector<Tick> GivenTicks(std::span<const Tick> ticks, double cell_centre) {
  std::vector<Tick> out(ticks.begin(), ticks.end());
  for (Tick& t : out) t.value -= cell_centre;
  return out;
}

}  // namespace

ImU32 SeriesColor(int index) {
  const Rgba8 c = SeriesRgba(index);
  return IM_COL32(c.r, c.g, c.b, c.a);
}

Plot::Plot(const char* id, PlotRange& view, const PlotSpec& spec, ImVec2 size)
    : view_(view), spec_(spec) {
  ImGui::PushID(id);
  draw_ = ImGui::GetWindowDrawList();
  const float em = ImGui::GetFontSize();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  if (size.x <= 0) size.x = avail.x;
  if (size.y <= 0) size.y = avail.y;
  size.x = std::max(size.x, em * 8);
  size.y = std::max(size.y, em * 6);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  origin_ = origin;
  size_ = size;
  view_ = ClampView(view_, spec_);

  // Layout: [title] / [y label] / y tick labels | plot area / x tick labels / x label.
  const float title_h = spec.title ? em * 1.4f : 0.0f;
  const float ylabel_h = spec.y_label ? em * 1.2f : 0.0f;
  const float xlabel_h = spec.x_label ? em * 1.2f : 0.0f;
  const float xtick_h = em * 1.3f;
  const float top = origin.y + title_h + ylabel_h + em * 0.3f;
  const float bottom = origin.y + size.y - xtick_h - xlabel_h;
  // The y tick labels depend only on the height: measure them so the widest fits ("1.2e+09").
  const double yc = spec.y_cells ? 0.5 : 0.0;
  const int y_target = std::max(2, static_cast<int>((bottom - top) / (em * 2.5f)));
  float ytick_w = ImGui::CalcTextSize("-0.000").x;
  const std::vector<Tick> yticks =
      !spec.y_ticks.empty() ? GivenTicks(spec.y_ticks, yc)
                            : NiceTicks(view_.y0 - yc, view_.y1 - yc, y_target, spec.y_cells);
  for (const Tick& t : yticks) {
    ytick_w = std::max(ytick_w, ImGui::CalcTextSize(t.label.c_str()).x);
  }
  ytick_w += em * 0.6f;
  // The data area on whole pixels: a raster of one texel per pixel then lands with every pixel
  // centre on a texel centre. At fractional edges those centres sit near texel boundaries, and
  // the two triangles of the image's quad round them to different texel rows (blocks of the
  // neighbouring row's colour wherever neighbouring rows differ, as in fast waves).
  min_ = ImVec2(std::round(origin.x + ytick_w), std::round(top));
  max_ = ImVec2(std::round(origin.x + size.x - em * 0.6f), std::round(bottom));
  if (max_.x < min_.x + em) max_.x = std::round(min_.x + em);
  if (max_.y < min_.y + em) max_.y = std::round(min_.y + em);

  ImGui::SetCursorScreenPos(min_);
  ImGui::InvisibleButton("##plot_area", ImVec2(max_.x - min_.x, max_.y - min_.y),
                         ImGuiButtonFlags_MouseButtonLeft);
  hovered_ = ImGui::IsItemHovered();
  const ImGuiIO& io = ImGui::GetIO();
  mouse_x_ = PixelToX(io.MousePos.x);
  mouse_y_ = PixelToY(io.MousePos.y);

  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f)) {
    const double dx = -io.MouseDelta.x * (view_.x1 - view_.x0) / (max_.x - min_.x);
    const double dy =
        (spec_.y_down ? -1.0 : 1.0) * io.MouseDelta.y * (view_.y1 - view_.y0) / (max_.y - min_.y);
    view_.x0 += dx;
    view_.x1 += dx;
    if (!spec_.lock_y) {
      view_.y0 += dy;
      view_.y1 += dy;
    }
  }
  if (hovered_ && io.MouseWheel != 0.0f) {
    const double f = std::pow(1.2, -io.MouseWheel);
    const bool zoom_x = !io.KeyCtrl || spec_.lock_y;
    const bool zoom_y = !io.KeyShift && !spec_.lock_y;
    if (zoom_x) {
      view_.x0 = mouse_x_ - (mouse_x_ - view_.x0) * f;
      view_.x1 = mouse_x_ + (view_.x1 - mouse_x_) * f;
    }
    if (zoom_y) {
      view_.y0 = mouse_y_ - (mouse_y_ - view_.y0) * f;
      view_.y1 = mouse_y_ + (view_.y1 - mouse_y_) * f;
    }
  }
  if (hovered_ && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    view_.x0 = spec_.limits.x0;
    view_.x1 = spec_.limits.x1;
    if (!spec_.lock_y) {
      view_.y0 = spec_.limits.y0;
      view_.y1 = spec_.limits.y1;
    }
  }
  view_ = ClampView(view_, spec_);

  // Title and axis labels.
  if (spec.title) {
    // Centred over the data, kept inside the widget; a title wider than the widget ends in an
    // ellipsis, whole in a tooltip, rather than running into its neighbour.
    // Sub- and superscripts written as markup ("ω_i", "2^-1") as Unicode characters.
    const std::string full = MarkupToUnicode(spec.title);
    const std::string title = ElideToWidth(full.c_str(), size.x);
    const float tw = ImGui::CalcTextSize(title.c_str()).x;
    const float x = std::clamp((min_.x + max_.x - tw) / 2, origin.x,
                               std::max(origin.x, origin.x + size.x - tw));
    draw_->AddText(ImVec2(x, origin.y), CurrentPlotColors().text, title.c_str());
    if (title != full &&
        ImGui::IsMouseHoveringRect(ImVec2(x, origin.y), ImVec2(x + tw, origin.y + title_h))) {
      ImGui::SetTooltip("%s", full.c_str());
    }
  }
  if (spec.y_label) {
    draw_->AddText(ImVec2(origin.x, origin.y + title_h), CurrentPlotColors().dim,
                   MarkupToUnicode(spec.y_label).c_str());
  }
  if (spec.x_label) {
    const std::string x_label = MarkupToUnicode(spec.x_label);
    const float tw = ImGui::CalcTextSize(x_label.c_str()).x;
    draw_->AddText(ImVec2((min_.x + max_.x - tw) / 2, max_.y + xtick_h), CurrentPlotColors().dim,
                   x_label.c_str());
  }

  // Ticks, labels and grid. Target counts come from the room a label needs.
  const float w = max_.x - min_.x;
  const double xc = spec.x_cells ? 0.5 : 0.0;
  const int x_target = std::max(2, static_cast<int>(w / (em * 5.5f)));
  float last_right = -1e9f;
  const std::vector<Tick> xticks =
      !spec.x_ticks.empty()
          ? GivenTicks(spec.x_ticks, xc)
          : NiceTicks(view_.x0 - xc, view_.x1 - xc, x_target, spec.x_cells || spec.x_integer);
  for (const Tick& t : xticks) {
    const float px = ToPixels(t.value + xc, 0).x;
    if (px < min_.x - 0.5f || px > max_.x + 0.5f) continue;
    draw_->AddLine(ImVec2(px, min_.y), ImVec2(px, max_.y), CurrentPlotColors().grid);
    draw_->AddLine(ImVec2(px, max_.y), ImVec2(px, max_.y + em * 0.3f), CurrentPlotColors().frame);
    const float tw = ImGui::CalcTextSize(t.label.c_str()).x;
    const float lx = std::clamp(px - tw / 2, origin.x, origin.x + size.x - tw);
    if (lx < last_right + em * 0.5f) continue;  // never overlap the previous label
    draw_->AddText(ImVec2(lx, max_.y + em * 0.25f), CurrentPlotColors().dim, t.label.c_str());
    last_right = lx + tw;
  }
  const std::vector<Tick> yticks_now =
      !spec.y_ticks.empty() ? GivenTicks(spec.y_ticks, yc)
                            : NiceTicks(view_.y0 - yc, view_.y1 - yc, y_target, spec.y_cells);
  for (const Tick& t : yticks_now) {
    const float py = ToPixels(0, t.value + yc).y;
    if (py < min_.y - 0.5f || py > max_.y + 0.5f) continue;
    draw_->AddLine(ImVec2(min_.x, py), ImVec2(max_.x, py), CurrentPlotColors().grid);
    draw_->AddLine(ImVec2(min_.x - em * 0.3f, py), ImVec2(min_.x, py), CurrentPlotColors().frame);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    const float ly = std::clamp(py - ts.y / 2, min_.y - ts.y / 2, max_.y - ts.y / 2);
    draw_->AddText(ImVec2(min_.x - em * 0.4f - ts.x, ly), CurrentPlotColors().dim, t.label.c_str());
  }
  draw_->PushClipRect(min_, max_, true);
}

Plot::~Plot() {
  End();
}

void Plot::End() {
  if (ended_) return;
  ended_ = true;
  if (hovered_ && spec_.crosshair) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    draw_->AddLine(ImVec2(m.x, min_.y), ImVec2(m.x, max_.y), CurrentPlotColors().crosshair);
    draw_->AddLine(ImVec2(min_.x, m.y), ImVec2(max_.x, m.y), CurrentPlotColors().crosshair);
  }
  draw_->PopClipRect();
  // The frame just outside the data area, so it never covers the last row or column of cells
  // (AddRect strokes half a pixel inside the rectangle it is given).
  draw_->AddRect(ImVec2(min_.x - 1, min_.y - 1), ImVec2(max_.x + 1, max_.y + 1),
                 CurrentPlotColors().frame);
  // The plot takes its whole size, labels included, so what follows goes below it.
  ImGui::SetCursorScreenPos(origin_);
  ImGui::Dummy(size_);
  ImGui::PopID();
}

ImVec2 Plot::ToPixels(double x, double y) const {
  const double tx = (x - view_.x0) / (view_.x1 - view_.x0);
  double ty = (y - view_.y0) / (view_.y1 - view_.y0);
  if (!spec_.y_down) ty = 1.0 - ty;
  return ImVec2(static_cast<float>(min_.x + tx * (max_.x - min_.x)),
                static_cast<float>(min_.y + ty * (max_.y - min_.y)));
}

double Plot::PixelToX(float px) const {
  return view_.x0 + (px - min_.x) / static_cast<double>(max_.x - min_.x) * (view_.x1 - view_.x0);
}

double Plot::PixelToY(float py) const {
  double t = (py - min_.y) / static_cast<double>(max_.y - min_.y);
  if (!spec_.y_down) t = 1.0 - t;
  return view_.y0 + t * (view_.y1 - view_.y0);
}

float Plot::pixels_per_x() const {
  return static_cast<float>((max_.x - min_.x) / (view_.x1 - view_.x0));
}
float Plot::pixels_per_y() const {
  return static_cast<float>((max_.y - min_.y) / (view_.y1 - view_.y0));
}

void Plot::Line(const double* xs, const double* ys, int n, ImU32 color, float thickness) {
  if (n < 2) return;
  std::vector<ImVec2> pts;
  const float width = max_.x - min_.x;
  // Curves sample exactly 2 points per pixel (2 * width + 1): those keep every point.
  const bool decimate = n > 2 * static_cast<int>(width) + 1;
  if (decimate) {
    // More points than pixels: each pixel column keeps its lowest and highest point, in x
    // order, so peaks survive (no aliasing) and the line costs O(width). xs must ascend.
    pts.reserve(static_cast<size_t>(width) * 2 + 8);
    int k = 0;
    while (k < n) {
      const ImVec2 first = ToPixels(xs[k], ys[k]);
      const float column = std::floor(first.x);
      ImVec2 lo = first, hi = first;
      int lo_k = k, hi_k = k;
      int j = k + 1;
      for (; j < n; ++j) {
        const ImVec2 q = ToPixels(xs[j], ys[j]);
        if (std::floor(q.x) != column) break;
        if (q.y > lo.y) {
          lo = q;
          lo_k = j;
        }
        if (q.y < hi.y) {
          hi = q;
          hi_k = j;
        }
      }
      pts.push_back(lo_k <= hi_k ? lo : hi);
      if (lo_k != hi_k) pts.push_back(lo_k <= hi_k ? hi : lo);
      k = j;
    }
    thickness = std::min(thickness, 1.0f);  // ImGui's cheap anti-aliased path for dense lines
  } else {
    pts.resize(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) pts[static_cast<size_t>(k)] = ToPixels(xs[k], ys[k]);
  }
  // Drawn in runs so no single polyline grows past ImDrawList's 16-bit index limits. A line of
  // its own points (not decimated) also ends a run at every turn sharper than a right angle:
  // ImGui joins segments with averaged normals, which at a spike (a learned table's noise) fold
  // the steep segment's quad onto itself, so it showed as dashes. A dense line's zigzag between
  // a column's lowest and highest point stays one run (its turns are all sharp, and splitting
  // them would double its vertices).
  constexpr size_t kRun = 2048;
  auto sharp_turn = [&](size_t k) {  // at pts[k], between pts[k - 1] and pts[k + 1]
    const ImVec2 a = pts[k - 1], b = pts[k], c = pts[k + 1];
    return (b.x - a.x) * (c.x - b.x) + (b.y - a.y) * (c.y - b.y) < 0.0f;
  };
  size_t start = 0;
  while (start + 1 < pts.size()) {
    size_t end = start + 1;  // the run is pts[start ..= end]
    while (end + 1 < pts.size() && end - start + 1 < kRun && (decimate || !sharp_turn(end))) ++end;
    draw_->AddPolyline(pts.data() + start, static_cast<int>(end - start + 1), color, 0, thickness);
    start = end;
  }
}

void Plot::Markers(const double* xs, const double* ys, int n, ImU32 color, float radius) {
  for (int k = 0; k < n; ++k) {
    if (std::isfinite(ys[k])) draw_->AddCircleFilled(ToPixels(xs[k], ys[k]), radius, color, 8);
  }
}

void Plot::Image(ImTextureID texture, double x0, double y0, double x1, double y1) {
  // Edges on whole pixels, for the reason the data area is (the constructor).
  auto snap = [](ImVec2 p) { return ImVec2(std::round(p.x), std::round(p.y)); };
  ImVec2 a = snap(ToPixels(x0, y0)), b = snap(ToPixels(x1, y1));
  // Texture row 0 is y0: flip the v coordinates when y0 maps below y1 on screen.
  ImVec2 uv0(0, 0), uv1(1, 1);
  if (a.y > b.y) {
    std::swap(a.y, b.y);
    std::swap(uv0.y, uv1.y);
  }
  draw_->AddImage(texture, a, b, uv0, uv1);
}

void Plot::VLine(double x, ImU32 color, float thickness) {
  const float px = ToPixels(x, 0).x;
  draw_->AddLine(ImVec2(px, min_.y), ImVec2(px, max_.y), color, thickness);
}

void Plot::HLine(double y, ImU32 color, float thickness) {
  const float py = ToPixels(0, y).y;
  draw_->AddLine(ImVec2(min_.x, py), ImVec2(max_.x, py), color, thickness);
}

void Plot::Rect(double x0, double y0, double x1, double y1, ImU32 color, float thickness) {
  ImVec2 a = ToPixels(x0, y0), b = ToPixels(x1, y1);
  draw_->AddRect(ImVec2(std::min(a.x, b.x), std::min(a.y, b.y)),
                 ImVec2(std::max(a.x, b.x), std::max(a.y, b.y)), color, 0.0f, 0, thickness);
}

void Plot::FilledRect(double x0, double y0, double x1, double y1, ImU32 color) {
  ImVec2 a = ToPixels(x0, y0), b = ToPixels(x1, y1);
  draw_->AddRectFilled(ImVec2(std::min(a.x, b.x), std::min(a.y, b.y)),
                       ImVec2(std::max(a.x, b.x), std::max(a.y, b.y)), color);
}

void Plot::Band(const double* edges, const double* lo, const double* hi, int n, ImU32 color) {
  for (int k = 0; k < n; ++k) {
    const ImVec2 a = ToPixels(edges[k], hi[k]), b = ToPixels(edges[k + 1], lo[k]);
    const float top = std::min(a.y, b.y), bottom = std::max(std::max(a.y, b.y), top + 1.0f);
    draw_->AddRectFilled(ImVec2(std::min(a.x, b.x), top), ImVec2(std::max(a.x, b.x), bottom),
                         color);
  }
}

std::string ElideToWidth(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  const char* ellipsis = "\xe2\x80\xa6";
  // Whole UTF-8 characters only: cut before a byte that continues a character.
  std::string cut = text;
  while (!cut.empty()) {
    do {
      cut.pop_back();
    } while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80);
    if (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0xC0) cut.pop_back();
    while (!cut.empty() && (cut.back() == ' ' || cut.back() == ',')) cut.pop_back();
    if (ImGui::CalcTextSize((cut + ellipsis).c_str()).x <= width) return cut + ellipsis;
  }
  return ellipsis;
}

namespace {
// The bar's ticks for a bar drawn `height` tall (ColorBar's layout).
std::vector<Tick> ColorBarTicks(float vmin, float vmax, float height, float em) {
  const float h = height - em * 2.2f;
  return NiceTicks(vmin, vmax, std::max(2, static_cast<int>(h / (em * 2.2f))));
}
}  // namespace

// A colour bar's tick (from the bar's edge) and where its label starts, in em: a clear gap, so
// the tick does not read as a minus sign before the number ("-10" for 10).
constexpr float kBarTickEm = 0.25f, kBarLabelEm = 0.6f;

float ColorBarWidth(float vmin, float vmax, float height, const char* label) {
  const float em = ImGui::GetFontSize();
  float widest = 0;
  for (const Tick& t : ColorBarTicks(vmin, vmax, height, em))
    widest = std::max(widest, ImGui::CalcTextSize(t.label.c_str()).x);
  // Bar, tick, label, and the gap ColorBar's callers leave before what follows; the title above
  // the bar too, when given, so it never runs into what follows.
  const float title = label != nullptr ? ImGui::CalcTextSize(label).x + em * 0.5f : 0.0f;
  return std::max(
      {em * 4.2f, em * (0.9f + kBarLabelEm) + widest + em * 0.6f + em * 0.5f, title + em * 0.5f});
}

void ColorBar(const char* id, ColormapId colormap, float vmin, float vmax, const char* label,
              ImVec2 size) {
  ImGui::PushID(id);
  const float em = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float bar_w = em * 0.9f;
  const ImVec2 top(origin.x, origin.y + em * 1.6f);
  const ImVec2 bottom(origin.x + bar_w, origin.y + size.y - em * 0.6f);
  const ColorLut& lut = GetColormap(colormap);
  const int segments = 64;
  const float h = bottom.y - top.y;
  for (int k = 0; k < segments; ++k) {
    // Top of the bar is vmax.
    const float y0 = top.y + h * k / segments, y1 = top.y + h * (k + 1) / segments;
    const Rgba8 a = lut[static_cast<size_t>((kLutSize - 1) * (segments - k) / segments)];
    const Rgba8 b = lut[static_cast<size_t>((kLutSize - 1) * (segments - k - 1) / segments)];
    const ImU32 ca = IM_COL32(a.r, a.g, a.b, 255), cb = IM_COL32(b.r, b.g, b.b, 255);
    draw->AddRectFilledMultiColor(ImVec2(top.x, y0), ImVec2(bottom.x, y1), ca, ca, cb, cb);
  }
  draw->AddRect(top, bottom, CurrentPlotColors().frame);
  if (label) draw->AddText(ImVec2(origin.x, origin.y), CurrentPlotColors().dim, label);
  for (const Tick& t : ColorBarTicks(vmin, vmax, size.y, em)) {
    const float y = bottom.y - static_cast<float>((t.value - vmin) / (vmax - vmin)) * h;
    draw->AddLine(ImVec2(bottom.x, y), ImVec2(bottom.x + em * kBarTickEm, y),
                  CurrentPlotColors().frame);
    draw->AddText(ImVec2(bottom.x + em * kBarLabelEm, y - em * 0.5f), CurrentPlotColors().dim,
                  t.label.c_str());
  }
  ImGui::Dummy(size);
  ImGui::PopID();
}

}  // namespace pe
