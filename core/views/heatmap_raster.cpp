#include "views/heatmap_raster.h"

#include <algorithm>
#include <cmath>

namespace pe {

bool Raster::one_cell_per_texel() const {
  return width > 0 && height > 0 && col_edges.back() - col_edges.front() == width &&
         row_edges.back() - row_edges.front() == height;
}

namespace {

// Whether the encoding computes block means directly (MeanOverBlock).
bool HasBlockMeans(const Encoding& e) {
  double unused = 0;
  return e.MeanOverBlock(0, 1, 0, 1, &unused);
}

}  // namespace

double TexelImageEnd(const std::vector<int64_t>& edges) {
  if (edges.size() < 3) return edges.empty() ? 0.0 : static_cast<double>(edges.back());
  const int64_t span = edges[1] - edges[0];
  for (size_t i = 1; i + 2 < edges.size(); ++i) {
    if (edges[i + 1] - edges[i] != span) return static_cast<double>(edges.back());
  }
  if (edges.back() - edges[edges.size() - 2] >= span) return static_cast<double>(edges.back());
  return static_cast<double>(edges.front() + span * static_cast<int64_t>(edges.size() - 1));
}

int64_t EstimateRasterWork(const RasterRequest& req) {
  if (HasBlockMeans(*req.encoding)) {
    return static_cast<int64_t>(std::min(req.width_px, 4096)) * std::min(req.height_px, 4096);
  }
  const double cols = std::clamp(std::ceil(req.x1) - std::floor(req.x0), 0.0,
                                 static_cast<double>(req.encoding->cols()));
  const double rows = std::clamp(
      std::ceil(req.y1) - std::floor(req.y0), 0.0,
      std::min(static_cast<double>(req.encoding->rows()), static_cast<double>(req.height_px)));
  return static_cast<int64_t>(cols * rows);
}

void GreyMaskedTexels(const Raster& r, unsigned char* rgba) {
  if (!r.request.encoding || r.empty()) return;
  const Encoding& e = *r.request.encoding;
  if (!e.MasksAnyKey()) return;
  // Masks are causal: a texel is all mask when its first key comes after its last query.
  for (int y = 0; y < r.height; ++y) {
    const int64_t last_query = r.row_edges[static_cast<size_t>(y) + 1] - 1;
    for (int x = 0; x < r.width; ++x) {
      const int64_t first_key = e.first_position() + r.col_edges[static_cast<size_t>(x)];
      if (!e.Masked(last_query, first_key)) continue;
      unsigned char* px = rgba + (static_cast<size_t>(y) * r.width + x) * 4;
      px[0] = px[1] = px[2] = kMaskedTexelGrey;
      px[3] = 255;
    }
  }
}

Raster ComputeRaster(const RasterRequest& req) {
  Raster r;
  r.request = req;
  if (!req.encoding) return r;
  const Encoding& e = *req.encoding;
  if (!(req.x1 > req.x0) || !(req.y1 > req.y0) || req.width_px < 1 || req.height_px < 1) return r;
  const double first_pos = static_cast<double>(e.first_position());
  const double end_pos = first_pos + static_cast<double>(e.rows());
  const auto n_cols = static_cast<double>(e.cols());
  const auto c_lo = static_cast<int64_t>(std::clamp(std::floor(req.x0), 0.0, n_cols));
  const auto c_hi = static_cast<int64_t>(std::clamp(std::ceil(req.x1), 0.0, n_cols));
  const auto r_lo = static_cast<int64_t>(std::clamp(std::floor(req.y0), first_pos, end_pos));
  const auto r_hi = static_cast<int64_t>(std::clamp(std::ceil(req.y1), first_pos, end_pos));
  if (c_hi <= c_lo || r_hi <= r_lo) return r;
  // Pixels the visible part of the table spans (the view may extend past the table).
  const int px_w = std::max(
      1, static_cast<int>(std::ceil(req.width_px * double(c_hi - c_lo) / (req.x1 - req.x0))));
  const int px_h = std::max(
      1, static_cast<int>(std::ceil(req.height_px * double(r_hi - r_lo) / (req.y1 - req.y0))));
  r.col_edges = RasterEdges(c_lo, c_hi, std::min(px_w, req.width_px));
  r.row_edges = RasterEdges(r_lo, r_hi, std::min(px_h, req.height_px));
  r.width = static_cast<int>(r.col_edges.size()) - 1;
  r.height = static_cast<int>(r.row_edges.size()) - 1;
  r.values.assign(static_cast<size_t>(r.width) * r.height, 0.0f);

  const int64_t n_visible = c_hi - c_lo;
  // Many columns to a texel (a bias table of a million keys): texels straight from block means,
  // so the work is the texels', not texel rows x visible columns.
  if (n_visible > 4 * static_cast<int64_t>(r.width) && HasBlockMeans(e)) {
#pragma omp parallel for schedule(static) if (r.height * r.width >= (1 << 14))
    for (int y = 0; y < r.height; ++y) {
      const int64_t a = r.row_edges[static_cast<size_t>(y)];
      const int64_t n = r.row_edges[static_cast<size_t>(y) + 1] - a;
      for (int x = 0; x < r.width; ++x) {
        const int64_t b = r.col_edges[static_cast<size_t>(x)];
        const int64_t m = r.col_edges[static_cast<size_t>(x) + 1] - b;
        double mean = 0;
        e.MeanOverBlock(a - e.first_position(), n, b, m, &mean);
        r.values[static_cast<size_t>(y) * r.width + x] = static_cast<float>(mean);
      }
    }
    return r;
  }
  // Many rows to a texel row (a zoomed-out wave table): the texels' own closed form, whose cost
  // per texel row and column is a few multiplications (MeanOverTexels). Rows of single cells
  // keep the path below, which gives the cells bit for bit.
  if (r.row_edges.back() - r.row_edges.front() > r.height &&
      e.MeanOverTexels(r.row_edges, r.col_edges, r.values.data())) {
    return r;
  }
  // Rows of pixels are independent: large rasters use every core (the OpenMP pool).
  const bool parallel = static_cast<int64_t>(r.height) * n_visible >= (int64_t{1} << 16);
#pragma omp parallel if (parallel)
  {
    std::vector<double> col_mean(static_cast<size_t>(n_visible));
#pragma omp for schedule(static)
    for (int y = 0; y < r.height; ++y) {
      const int64_t a = r.row_edges[static_cast<size_t>(y)];
      const int64_t n = r.row_edges[static_cast<size_t>(y) + 1] - a;
      e.MeanOverRows(a - e.first_position(), n, c_lo, n_visible, col_mean.data());
      float* out = r.values.data() + static_cast<size_t>(y) * r.width;
      for (int x = 0; x < r.width; ++x) {
        const auto b = static_cast<size_t>(r.col_edges[static_cast<size_t>(x)] - c_lo);
        const auto end = static_cast<size_t>(r.col_edges[static_cast<size_t>(x) + 1] - c_lo);
        double acc = 0.0;
        for (size_t j = b; j < end; ++j) acc += col_mean[j];
        out[x] = static_cast<float>(acc / static_cast<double>(end - b));
      }
    }
  }
  return r;
}

}  // namespace pe
