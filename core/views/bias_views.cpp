// The attention-bias views: the bias of ALiBi and T5, T5's buckets, ALiBi's slopes.
//
// bias:    the chosen head's bias as a (query x key) heatmap, each texel the exact mean of the
//          cells it covers (ComputeRaster on the encoding, which takes the texels from the
//          encoding's closed-form block means, so a table of 2^31 x 2^31 never exists). Causal
//          ALiBi's masked cells (key after query) are drawn grey. Table: every head, (heads, L, L)
//          float32; CSV header head,query,k<first>,...,k<last> (absolute key positions), one line
//          per head and query.
// buckets: T5's bucket id against the relative position r = key - query (a step line: exact
//          near 0, log-spaced out to max_distance, then one bucket). Table: the bucket of every
//          (query, key), (L, L) int32; CSV header query,k<first>,...,k<last>.
// slopes:  ALiBi's slope per head as bars, the shown head highlighted. Table: (heads,) float32;
//          CSV header head,slope.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "encoding/alibi.h"
#include "encoding/t5_buckets.h"
#include "io/file_writers.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/heatmap_raster.h"
#include "views/view_builders.h"

namespace pe {
namespace {

std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

int64_t Heads(const EncodingParams& p) {
  return p.kind() == Scheme::kT5 ? p.t5().heads : p.alibi().heads;
}

// The encoding of head `h` with the other parameters of `p`.
Result<EncodingPtr> HeadEncoding(const EncodingParams& p, int64_t h) {
  EncodingParams q = p;
  if (q.kind() == Scheme::kT5) {
    q.t5().head = h;
  } else {
    q.alibi().head = h;
  }
  return MakeEncoding(q);
}

void WriteCsvKeyHeader(std::ostream& out, const char* first, const EncodingParams& p) {
  std::string line = first;
  for (int64_t k = 0; k < p.max_len; ++k) line += ",k" + std::to_string(p.offset + k);
  line += '\n';
  out.write(line.data(), static_cast<std::streamsize>(line.size()));
}

bool Report(const Progress& progress, double fraction) {
  return !progress || progress(fraction);
}

}  // namespace

// ---- bias ------------------------------------------------------------------------------------

Result<Figure> BiasFigure(const ViewContext& c) {
  const Encoding& e = *c.encoding;
  const ModelParams& m = c.params;
  const auto first = static_cast<double>(e.first_position());
  const auto len = static_cast<double>(e.rows());
  Figure f;
  f.title = e.Title();
  f.x = {"key position n", true, false, true};
  f.y = {"query position m", true, true, true};
  f.view = {first, first + len, first, first + len};
  const ValueRange range = e.Range();
  f.colorbar = FigureColorBar{m.colormap, range.lo, range.hi, "bias(m, n)"};
  AddMaskedLegend(e, f);
  const PixelSize px = PlotPixels(c, f);
  // x in table columns [0, L), y in absolute positions, as the heatmap raster takes them.
  RasterRequest req{
      c.encoding, 0, len, first, first + len, std::min(px.width, 4096), std::min(px.height, 4096)};
  const Raster r = ComputeRaster(req);
  if (!r.empty()) {
    FigureImage im;
    im.width = r.width;
    im.height = r.height;
    im.rgba.resize(static_cast<size_t>(r.width) * r.height * 4);
    MapToRgba(m.colormap, r.values.data(), static_cast<int64_t>(r.values.size()),
              static_cast<float>(range.lo), static_cast<float>(range.hi), im.rgba.data());
    GreyMaskedTexels(r, im.rgba.data());
    im.x0 = first + static_cast<double>(r.col_edges.front());
    im.x1 = first + static_cast<double>(r.col_edges.back());
    im.y0 = static_cast<double>(r.row_edges.front());
    im.y1 = static_cast<double>(r.row_edges.back());
    f.image = std::move(im);
  }
  return f;
}

Status CheckBiasTable(const ViewContext& c) {
  const EncodingParams& p = c.params.pe;
  // As (heads * L) rows of L: the message says the heads and L themselves.
  return CheckFloatCount("the bias table of " + std::to_string(Heads(p)) +
                             " heads x L x L, L = " + std::to_string(p.max_len) + ", as",
                         static_cast<uint64_t>(Heads(p)) * static_cast<uint64_t>(p.max_len),
                         static_cast<uint64_t>(p.max_len), c.params.cap);
}

Status WriteBiasView(std::ostream& out, TableFormat format, const ViewContext& c,
                     const Progress& progress) {
  if (Status s = CheckBiasTable(c); !s.ok()) return s;
  const EncodingParams& p = c.params.pe;
  const int64_t heads = Heads(p), len = p.max_len;
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {heads, len, len};
    out << NpyHeader(shape);
  } else {
    WriteCsvKeyHeader(out, "head,query", p);
  }
  const int64_t block_rows = std::min(TableBlockRows(len), len);
  std::vector<float> block(static_cast<size_t>(block_rows * len));
  for (int64_t h = 0; h < heads && out; ++h) {
    Result<EncodingPtr> e = HeadEncoding(p, h);
    if (!e.ok()) return e.error();
    for (int64_t r0 = 0; r0 < len && out; r0 += block_rows) {
      const int64_t rows = std::min(block_rows, len - r0);
      e.value()->FillBlock(r0, rows, 0, len, block.data());
      if (format == TableFormat::kNpy) {
        WriteFloatsLE(out, block.data(), rows * len);
      } else {
        for (int64_t r = 0; r < rows; ++r) {
          std::string line = std::to_string(h) + "," + std::to_string(p.offset + r0 + r);
          for (int64_t k = 0; k < len; ++k) {
            line += ',';
            line += FormatFloat(block[static_cast<size_t>(r * len + k)]);
          }
          line += '\n';
          out.write(line.data(), static_cast<std::streamsize>(line.size()));
        }
      }
      const double done =
          (static_cast<double>(h) * static_cast<double>(len) + static_cast<double>(r0 + rows)) /
          (static_cast<double>(heads) * static_cast<double>(len));
      if (!Report(progress, done)) return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// ---- buckets ---------------------------------------------------------------------------------

Result<Figure> BucketsFigure(const ViewContext& c) {
  const EncodingParams& p = c.params.pe;
  const T5Params& t = p.t5();
  const bool bidirectional = t.direction == T5Direction::kBidirectional;
  const int64_t max_exact = T5MaxExact(bidirectional, t.buckets);
  // The relative positions shown: those of the table, and at least out past max_distance so the
  // last bucket shows.
  const int64_t reach = std::clamp<int64_t>(
      std::max(p.max_len - 1, t.max_distance + t.max_distance / 4 + 1), 1, kMaxPosition);
  Figure f;
  f.title = "T5 bucket of r = n - m (" + std::string(T5DirectionName(t.direction)) + ", " +
            std::to_string(t.buckets) + " buckets, max distance " + std::to_string(t.max_distance) +
            ")";
  f.x = {"relative position r = n - m (key - query)", false, false, true};
  f.y = {"bucket", false, false, true};
  const auto rr = static_cast<double>(reach);
  f.view = {-rr - 0.5, rr + 0.5, -0.5, static_cast<double>(t.buckets) - 0.5};

  // The step line: each run of one bucket is a flat segment over [first - 0.5, last + 0.5].
  FigureSeries line;
  line.color = SeriesRgba(0);
  line.line_width = 1.6;
  auto add_run = [&](double r0, double r1, int64_t b) {
    line.xs.push_back(r0);
    line.ys.push_back(static_cast<double>(b));
    line.xs.push_back(r1);
    line.ys.push_back(static_cast<double>(b));
  };
  const std::vector<T5BucketRun> before = T5BucketRuns(t, -1, reach);
  const std::vector<T5BucketRun> after = T5BucketRuns(t, +1, reach);
  for (auto it = before.rbegin(); it != before.rend(); ++it) {
    add_run(-static_cast<double>(it->last) - 0.5, -static_cast<double>(it->first) + 0.5,
            it->bucket);
  }
  add_run(-0.5, 0.5, T5Bucket(0, bidirectional, t.buckets, t.max_distance));
  for (const T5BucketRun& run : after) {
    add_run(static_cast<double>(run.first) - 0.5, static_cast<double>(run.last) + 0.5, run.bucket);
  }
  // Dots at the integer positions when they are few enough to tell apart.
  const double units_per_step = FigurePlotBox(f, c.size).w / (2.0 * rr + 1.0);
  if (units_per_step >= 3.0) {
    for (int64_t r = -reach; r <= reach; ++r) {
      line.marker_xs.push_back(static_cast<double>(r));
      line.marker_ys.push_back(
          static_cast<double>(T5Bucket(r, bidirectional, t.buckets, t.max_distance)));
    }
    line.marker_radius = std::min(2.2, units_per_step * 0.3);
  }

  // Reference lines: where the exact buckets end and where max_distance is.
  auto vline = [&](double x, Rgba8 color) {
    FigureSeries v;
    v.color = color;
    v.line_width = 1.0;
    v.xs = {x, x};
    v.ys = {f.view.y0, f.view.y1};
    f.series.push_back(std::move(v));
  };
  const Rgba8 exact_color = SeriesRgba(2), far_color = SeriesRgba(1),
              table_color{120, 120, 125, 255};
  const auto me = static_cast<double>(max_exact), md = static_cast<double>(t.max_distance);
  vline(-me + 0.5, exact_color);
  if (bidirectional) vline(me - 0.5, exact_color);
  if (md <= rr) {
    vline(-md, far_color);
    if (bidirectional) vline(md, far_color);
  }
  const auto table_reach = static_cast<double>(p.max_len - 1);
  if (table_reach < rr) {
    vline(-table_reach, table_color);
    vline(table_reach, table_color);
  }
  f.series.push_back(std::move(line));
  f.legend.push_back({"bucket(r), as HF T5Attention._relative_position_bucket", SeriesRgba(0)});
  f.legend.push_back(
      {"exact: |r| < " + std::to_string(max_exact) + ", one bucket each", exact_color});
  f.legend.push_back(
      {"log-spaced up to max_distance " + std::to_string(t.max_distance) + ", then one bucket",
       far_color});
  if (!bidirectional) {
    f.legend.push_back({"causal: keys after the query, r > 0: bucket 0", SeriesRgba(0)});
  }
  if (table_reach < rr) {
    f.legend.push_back(
        {"the table's reach: |r| <= L - 1 = " + std::to_string(p.max_len - 1), table_color});
  }
  return f;
}

Status CheckBucketsTable(const ViewContext& c) {
  const EncodingParams& p = c.params.pe;
  return CheckFloatCount("the bucket table (L x L int32)", static_cast<uint64_t>(p.max_len),
                         static_cast<uint64_t>(p.max_len), c.params.cap);
}

Status WriteBucketsView(std::ostream& out, TableFormat format, const ViewContext& c,
                        const Progress& progress) {
  if (Status s = CheckBucketsTable(c); !s.ok()) return s;
  const EncodingParams& p = c.params.pe;
  const T5Params& t = p.t5();
  const bool bidirectional = t.direction == T5Direction::kBidirectional;
  const int64_t len = p.max_len;
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {len, len};
    out << NpyHeader(shape, NpyDtype::kInt32);
  } else {
    WriteCsvKeyHeader(out, "query", p);
  }
  const int64_t block_rows = std::min(TableBlockRows(len), len);
  std::vector<int32_t> block(static_cast<size_t>(block_rows * len));
  for (int64_t r0 = 0; r0 < len && out; r0 += block_rows) {
    const int64_t rows = std::min(block_rows, len - r0);
#pragma omp parallel for schedule(static) if (rows * len >= (int64_t{1} << 16))
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t q = p.offset + r0 + r;
      for (int64_t k = 0; k < len; ++k) {
        block[static_cast<size_t>(r * len + k)] = static_cast<int32_t>(
            T5Bucket(p.offset + k - q, bidirectional, t.buckets, t.max_distance));
      }
    }
    if (format == TableFormat::kNpy) {
      WriteInt32sLE(out, block.data(), rows * len);
    } else {
      for (int64_t r = 0; r < rows; ++r) {
        std::string line = std::to_string(p.offset + r0 + r);
        for (int64_t k = 0; k < len; ++k) {
          line += ',';
          line += std::to_string(block[static_cast<size_t>(r * len + k)]);
        }
        line += '\n';
        out.write(line.data(), static_cast<std::streamsize>(line.size()));
      }
    }
    if (!Report(progress, static_cast<double>(r0 + rows) / static_cast<double>(len))) {
      return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// ---- slopes ----------------------------------------------------------------------------------

Result<Figure> SlopesFigure(const ViewContext& c) {
  const AlibiParams& a = c.params.pe.alibi();
  const std::vector<double> exponents = AlibiSlopeExponents(a.heads, a.max_bias);
  const std::vector<double> slopes = AlibiSlopes(a.heads, a.max_bias);
  const auto heads = static_cast<double>(a.heads);
  Figure f;
  f.title = "ALiBi slope s per head (" + std::to_string(a.heads) + " heads, max bias " +
            Num(a.max_bias) + ")";
  f.x = {"head", true, false, true};
  f.y = {"slope s (bias = -s \xc2\xb7 distance)", false, false};
  const double top = *std::max_element(slopes.begin(), slopes.end());
  f.view = {0, heads, 0, top * 1.08};
  const Rgba8 bar = SeriesRgba(0), chosen = SeriesRgba(1);
  // Bars a little narrower than their cell while they are wide enough to leave a gap.
  const double gap = FigurePlotBox(f, c.size).w / heads >= 4.0 ? 0.12 : 0.0;
  for (int64_t h = 0; h < a.heads; ++h) {
    const auto x = static_cast<double>(h);
    f.rects.push_back({x + gap, 0, x + 1 - gap, slopes[static_cast<size_t>(h)],
                       h == a.head ? chosen : bar, true, 1.0});
  }
  const int64_t c_pow = static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(a.heads)));
  f.legend.push_back({"slope of each head", bar});
  f.legend.push_back({"head " + std::to_string(a.head) + ": s = 2^" +
                          Num(exponents[static_cast<size_t>(a.head)]) + " = " +
                          Num(slopes[static_cast<size_t>(a.head)]),
                      chosen});
  if (c_pow != a.heads) {
    f.legend.push_back(
        {"0-" + std::to_string(c_pow - 1) + ": " + std::to_string(c_pow) + "-head slopes",
         kNoColor});
    f.legend.push_back({std::to_string(c_pow) + "-" + std::to_string(a.heads - 1) +
                            ": odd slopes of " + std::to_string(2 * c_pow) + " heads",
                        kNoColor});
  }
  return f;
}

Status CheckSlopesTable(const ViewContext&) {
  return {};
}

Status WriteSlopesView(std::ostream& out, TableFormat format, const ViewContext& c,
                       const Progress&) {
  const AlibiParams& a = c.params.pe.alibi();
  const std::vector<double> slopes = AlibiSlopes(a.heads, a.max_bias);
  std::vector<float> v(slopes.begin(), slopes.end());
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {a.heads};
    out << NpyHeader(shape);
    WriteFloatsLE(out, v.data(), a.heads);
  } else {
    out << "head,slope\n";
    for (int64_t h = 0; h < a.heads; ++h) {
      out << h << ',' << FormatFloat(v[static_cast<size_t>(h)]) << '\n';
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// As BucketsFigure: a step line of two points per run of one bucket (at most the buckets on
// each side, plus r = 0), dots at the integer positions when they are a few pixels apart (at
// most one per plot pixel), and a few two-point reference lines.
uint64_t BucketsEstimate(const EstimateContext& c) {
  const auto buckets =
      c.params.pe.kind() == Scheme::kT5 ? static_cast<uint64_t>(c.params.pe.t5().buckets) : 32;
  return kFigureBytesPerCurveSample * (4 * (buckets + 1) + c.width_px + 16);
}

// As SlopesFigure: one bar per head.
uint64_t SlopesEstimate(const EstimateContext& c) {
  const auto heads =
      c.params.pe.kind() == Scheme::kAlibi ? static_cast<uint64_t>(c.params.pe.alibi().heads) : 8;
  return kFigureBytesPerSumItem * heads;
}

// A (query x key) image at screen resolution, at most 4096 texels a side, plus a curve.
uint64_t BiasEstimate(const EstimateContext& c) {
  const uint64_t w = EstimatedScreenTexels(c.width_px), h = EstimatedScreenTexels(c.height_px);
  return kFigureBytesPerTexel * w * h +
         kFigureBytesPerCurveSample * EstimatedCurveSamples(c.width_px);
}

}  // namespace pe
