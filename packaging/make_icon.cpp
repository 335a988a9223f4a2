// make_icon: draws the app's icon at build time, a small heatmap of the sinusoidal table
// (positions down, dimensions across, RdBu centred on 0, as the PE heatmap shows it) with one of
// its sine columns traced over it, in a rounded square. It uses the engine's own table
// (ComputePeTable) and colormap, and cairo, which draws every exported figure.
//   make_icon OUT_DIR  ->  OUT_DIR/pe-explorer.svg and OUT_DIR/NxN/pe-explorer.png
#include <cairo-svg.h>
#include <cairo.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "encoding/positional_encoding.h"
#include "encoding/wave.h"
#include "figure/colormap.h"

namespace {

constexpr int kCells = 12;      // positions and dimensions shown
constexpr double kBase = 40.0;  // a short base, so the slow columns still turn within 12 rows
constexpr int kCurveDim = 2;    // the traced column: sin of pair 1

void RoundedSquare(cairo_t* cr, double x, double y, double s, double r) {
  cairo_new_sub_path(cr);
  cairo_arc(cr, x + s - r, y + r, r, -M_PI / 2, 0);
  cairo_arc(cr, x + s - r, y + s - r, r, 0, M_PI / 2);
  cairo_arc(cr, x + r, y + s - r, r, M_PI / 2, M_PI);
  cairo_arc(cr, x + r, y + r, r, M_PI, 3 * M_PI / 2);
  cairo_close_path(cr);
}

// Draws the icon on a square of side `size` (pixels or SVG px).
void DrawIcon(cairo_t* cr, double size, const pe::Matrix& table, const pe::WaveColumn& wave) {
  const double margin = size / 16.0;
  const double side = size - 2 * margin;
  const double cell = side / kCells;
  // The cells as one image scaled nearest-neighbour, as exported figures embed the heatmap
  // (one picture in the SVG, crisp cells at every size). Each cell is a block of kBlock pixels,
  // so SVG viewers that smooth images anyway keep the cells crisp.
  constexpr int kBlock = 16;
  cairo_surface_t* cells =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, kCells * kBlock, kCells * kBlock);
  cairo_surface_flush(cells);
  unsigned char* data = cairo_image_surface_get_data(cells);
  const int stride = cairo_image_surface_get_stride(cells);
  for (int y = 0; y < kCells * kBlock; ++y) {
    auto* row = reinterpret_cast<uint32_t*>(data + y * stride);
    for (int x = 0; x < kCells * kBlock; ++x) {
      const pe::Rgba8 c =
          pe::MapValue(pe::ColormapId::kRdBu, table.at(y / kBlock, x / kBlock), -1.f, 1.f);
      row[x] = (uint32_t{c.r} << 16) | (uint32_t{c.g} << 8) | uint32_t{c.b};
    }
  }
  cairo_surface_mark_dirty(cells);
  cairo_save(cr);
  RoundedSquare(cr, margin, margin, side, side * 0.18);
  cairo_clip(cr);
  cairo_save(cr);
  cairo_translate(cr, margin, margin);
  cairo_scale(cr, cell / kBlock, cell / kBlock);
  cairo_set_source_surface(cr, cells, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
  cairo_paint(cr);
  cairo_restore(cr);
  cairo_surface_destroy(cells);
  // The traced column as a continuous wave running down the table: x = its value, y = position.
  // Under 32 pixels the cells alone read better.
  if (size >= 32) {
    cairo_new_path(cr);
    for (int k = 0; k <= 200; ++k) {
      const double pos = (kCells - 0.5) * k / 200.0;  // through the cell centres
      const double v = pe::WaveValueAt(wave, pos);
      const double x = margin + side * (0.5 + 0.36 * v);
      const double y = margin + (pos + 0.5) * cell;
      k == 0 ? cairo_move_to(cr, x, y) : cairo_line_to(cr, x, y);
    }
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_source_rgb(cr, 0.12, 0.12, 0.14);
    cairo_set_line_width(cr, std::max(1.6, size * 0.075));
    cairo_stroke_preserve(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, std::max(0.8, size * 0.04));
    cairo_stroke(cr);
  }
  cairo_restore(cr);
  // Outline of the tile.
  RoundedSquare(cr, margin, margin, side, side * 0.18);
  cairo_set_source_rgb(cr, 0.15, 0.17, 0.22);
  cairo_set_line_width(cr, std::max(1.0, size / 64.0));
  cairo_stroke(cr);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_icon OUT_DIR\n");
    return 2;
  }
  const std::filesystem::path out = argv[1];
  pe::EncodingParams params;
  params.d_model = kCells;
  params.max_len = kCells;
  pe::SinusoidalParams s;
  s.base = kBase;
  params.scheme = s;
  pe::Result<pe::Matrix> table = pe::ComputePeTable(params);
  if (!table.ok()) {
    std::fprintf(stderr, "make_icon: %s\n", table.message().c_str());
    return 1;
  }
  const pe::WaveColumn wave = pe::DescribeColumn(params, kCurveDim);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  const std::string svg = (out / "pe-explorer.svg").string();
  cairo_surface_t* surface = cairo_svg_surface_create(svg.c_str(), 256, 256);
  cairo_t* cr = cairo_create(surface);
  DrawIcon(cr, 256, table.value(), wave);
  cairo_destroy(cr);
  cairo_surface_finish(surface);
  cairo_status_t status = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) {
    std::fprintf(stderr, "make_icon: %s: %s\n", svg.c_str(), cairo_status_to_string(status));
    return 1;
  }
  for (int size : {16, 22, 24, 32, 48, 64, 128, 256}) {
    const std::string n = std::to_string(size);
    const std::filesystem::path dir = out / (n + "x" + n);
    std::filesystem::create_directories(dir, ec);
    const std::string png = (dir / "pe-explorer.png").string();
    surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, size, size);
    cr = cairo_create(surface);
    DrawIcon(cr, size, table.value(), wave);
    cairo_destroy(cr);
    status = cairo_surface_write_to_png(surface, png.c_str());
    cairo_surface_destroy(surface);
    if (status != CAIRO_STATUS_SUCCESS) {
      std::fprintf(stderr, "make_icon: %s: %s\n", png.c_str(), cairo_status_to_string(status));
      return 1;
    }
  }
  return 0;
}
