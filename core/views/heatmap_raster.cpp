#include "views/heatmap_raster.h"

#include <algorithm>
#include <cmath>

namespace pe {

bool Raster::one_cell_per_texel() const {
  return width > 0 && height > 0 && col_edges.back() - col_edges.front() == width &&
         row_edges.back() - row_edges.front() == height;
}

double MeanOverPositions(const PeColumn& c, int64_t first, int64_t n) {
  if (c.wave == PeWave::kZero) return 0.0;
  if (n == 1 || c.frequency == 0.0) return PeValueAt(c, static_cast<double>(first));
  // sum_{k<n} e^{i(first+k)w} = e^{i(2 first + n - 1) w / 2} sin(n w / 2) / sin(w / 2)
  const double w = c.frequency;
  const double mid = static_cast<double>(2 * first + n - 1) * w * 0.5;
  const double factor =
      std::sin(static_cast<double>(n) * w * 0.5) / (static_cast<double>(n) * std::sin(w * 0.5));
  return (c.wave == PeWave::kSin ? std::sin(mid) : std::cos(mid)) * factor;
}

namespace {

// Edges of `texels` slices over the integer range [lo, hi): one per integer when they fit.
std::vector<int64_t> Edges(int64_t lo, int64_t hi, int pixels) {
  std::vector<int64_t> edges;
  const int64_t n = hi - lo;
  if (n <= 0) return edges;
  if (n <= pixels) {
    for (int64_t k = lo; k <= hi; ++k) edges.push_back(k);
    return edges;
  }
  for (int k = 0; k <= pixels; ++k) {
    edges.push_back(lo + static_cast<int64_t>(static_cast<double>(n) * k / pixels));
  }
  edges.back() = hi;
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

}  // namespace

int64_t EstimateRasterWork(const RasterRequest& req) {
  const double cols = std::clamp(std::ceil(req.x1) - std::floor(req.x0), 0.0,
                                 static_cast<double>(req.params.d_model));
  const double rows = std::clamp(
      std::ceil(req.y1) - std::floor(req.y0), 0.0,
      std::min(static_cast<double>(req.params.max_len), static_cast<double>(req.height_px)));
  return static_cast<int64_t>(cols * rows);
}

Raster ComputeRaster(const RasterRequest& req) {
  Raster r;
  r.request = req;
  const PeParams& p = req.params;
  if (!(req.x1 > req.x0) || !(req.y1 > req.y0) || req.width_px < 1 || req.height_px < 1) return r;
  const double first_pos = static_cast<double>(p.offset);
  const double end_pos = first_pos + static_cast<double>(p.max_len);
  const auto c_lo = static_cast<int64_t>(std::clamp(std::floor(req.x0), 0.0, double(p.d_model)));
  const auto c_hi = static_cast<int64_t>(std::clamp(std::ceil(req.x1), 0.0, double(p.d_model)));
  const auto r_lo = static_cast<int64_t>(std::clamp(std::floor(req.y0), first_pos, end_pos));
  const auto r_hi = static_cast<int64_t>(std::clamp(std::ceil(req.y1), first_pos, end_pos));
  if (c_hi <= c_lo || r_hi <= r_lo) return r;
  // Pixels the visible part of the table spans (the view may extend past the table).
  const int px_w = std::max(
      1, static_cast<int>(std::ceil(req.width_px * double(c_hi - c_lo) / (req.x1 - req.x0))));
  const int px_h = std::max(
      1, static_cast<int>(std::ceil(req.height_px * double(r_hi - r_lo) / (req.y1 - req.y0))));
  r.col_edges = Edges(c_lo, c_hi, std::min(px_w, req.width_px));
  r.row_edges = Edges(r_lo, r_hi, std::min(px_h, req.height_px));
  r.width = static_cast<int>(r.col_edges.size()) - 1;
  r.height = static_cast<int>(r.row_edges.size()) - 1;
  r.values.assign(static_cast<size_t>(r.width) * r.height, 0.0f);

  std::vector<PeColumn> columns;
  columns.reserve(static_cast<size_t>(c_hi - c_lo));
  for (int64_t j = c_lo; j < c_hi; ++j) columns.push_back(DescribeColumn(p, j));
  // Rows of pixels are independent: large rasters use every core (the OpenMP pool).
  const bool parallel =
      static_cast<int64_t>(r.height) * static_cast<int64_t>(columns.size()) >= (int64_t{1} << 16);
#pragma omp parallel if (parallel)
  {
    std::vector<double> col_mean(columns.size());
#pragma omp for schedule(static)
    for (int y = 0; y < r.height; ++y) {
      const int64_t a = r.row_edges[static_cast<size_t>(y)];
      const int64_t n = r.row_edges[static_cast<size_t>(y) + 1] - a;
      for (size_t j = 0; j < columns.size(); ++j) col_mean[j] = MeanOverPositions(columns[j], a, n);
      float* out = r.values.data() + static_cast<size_t>(y) * r.width;
      for (int x = 0; x < r.width; ++x) {
        const auto b = static_cast<size_t>(r.col_edges[static_cast<size_t>(x)] - c_lo);
        const auto e = static_cast<size_t>(r.col_edges[static_cast<size_t>(x) + 1] - c_lo);
        double acc = 0.0;
        for (size_t j = b; j < e; ++j) acc += col_mean[j];
        out[x] = static_cast<float>(acc / static_cast<double>(e - b));
      }
    }
  }
  return r;
}

}  // namespace pe
