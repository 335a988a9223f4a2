// Images on a figure: an RGBA8 table as a cairo surface, painted with nearest-neighbour sampling,
// its pixels repeated in vector files so viewers that smooth images cannot blur its cells.
#include <algorithm>
#include <cmath>

#include "figure/figure_render_internal.h"

namespace pe::figure_internal {

// An ARGB32 cairo surface of an RGBA8 image (opaque or not; premultiplied as cairo wants), each
// pixel repeated as a `repeat` x `repeat` block.
cairo_surface_t* ImageSurface(int w, int h, const uint8_t* rgba, int repeat) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w * repeat, h * repeat);
  cairo_surface_flush(s);
  unsigned char* data = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < h * repeat; ++y) {
    auto* row = reinterpret_cast<uint32_t*>(data + static_cast<ptrdiff_t>(y) * stride);
    for (int x = 0; x < w * repeat; ++x) {
      const uint8_t* p = rgba + (static_cast<size_t>(y / repeat) * w + x / repeat) * 4;
      const uint32_t a = p[3];
      auto pm = [a](uint32_t c) { return (c * a + 127) / 255; };
      row[x] = (a << 24) | (pm(p[0]) << 16) | (pm(p[1]) << 8) | pm(p[2]);
    }
  }
  cairo_surface_mark_dirty(s);
  return s;
}

// How many times to repeat each image pixel in a vector file. SVG renderers (librsvg, Inkscape,
// browsers) ignore nearest-neighbour hints and smooth an enlarged image across each of its pixels;
// some PDF viewers ignore /Interpolate false the same way. With every cell kCellBlur times as
// many image pixels as it covers page units, that smoothing stays inside one unit at each cell
// edge, even viewed at 2x. The image stays within kMaxImageSide pixels per side and
// kMaxImagePixels in all (a few hundred KiB of PNG inside the file: the blocks compress well).
int VectorImageRepeat(int w, int h, double width_units, double height_units) {
  constexpr double kCellBlur = 2.0;
  constexpr int kMaxImageSide = 4096;
  constexpr double kMaxImagePixels = 8e6;
  const double units_per_pixel = std::max(width_units / w, height_units / h);
  int repeat = static_cast<int>(std::ceil(units_per_pixel * kCellBlur));
  repeat = std::min({repeat, kMaxImageSide / w, kMaxImageSide / h,
                     static_cast<int>(std::sqrt(kMaxImagePixels / (static_cast<double>(w) * h)))});
  return std::max(1, repeat);
}

// Output pixels per layout unit: PNG's scale; in SVG and PDF one texel per unit, so a viewer at
// 1x (72 dpi for PDF) shows every texel as one pixel and at 2x as a block of four.
double TexelsPerUnit(const FigureSize& size, FigureFormat format) {
  return format == FigureFormat::kPng ? size.scale : kVectorTexelsPerUnit;
}

// The grid line at or after `v` (in grid cells): the first cell whose centre is at or past v.
double GridEdge(double v) {
  return std::ceil(v - 0.5);
}

// Paints `img` (w x h pixels) onto the device rectangle from (dx0, dy0) to (dx1, dy1), which
// may be flipped, with nearest-neighbour sampling.
void PaintImage(cairo_t* cr, cairo_surface_t* img, int w, int h, double dx0, double dy0, double dx1,
                double dy1) {
  cairo_save(cr);
  cairo_translate(cr, dx0, dy0);
  cairo_scale(cr, (dx1 - dx0) / w, (dy1 - dy0) / h);
  cairo_set_source_surface(cr, img, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
  // No extend mode and a plain paint: cairo's SVG then places the image with one <use>, whose
  // image-rendering hint renderers honour, instead of filling with a <pattern>, whose hint they
  // ignore.
  cairo_rectangle(cr, 0, 0, w, h);
  cairo_clip(cr);
  cairo_paint(cr);
  cairo_restore(cr);
}

}  // namespace pe::figure_internal
