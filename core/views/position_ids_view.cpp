// The position-ids view of M-RoPE: each token's three ids (t, h, w) over the token axis, as
// MropeSequence::Ids gives them (encoding/mrope.h), with the images' tokens shaded.
//   numbers: (max_len, 3) int32, columns t, h, w; CSV header token,t,h,w, one row per token.
//   figure:  three step lines (t under h under w, so where they coincide on text all three
//            show), exact at up to half a curve's samples of tokens in view, else a line
//            through every k-th token (at most a curve's samples); a shaded span per image.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

#include "encoding/mrope.h"
#include "io/file_writers.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {

Result<Figure> PositionIdsFigure(const ViewContext& c);
Status CheckPositionIdsTable(const ViewContext& c);
Status WritePositionIdsView(std::ostream& out, TableFormat format, const ViewContext& c,
                            const Progress& progress);
uint64_t PositionIdsEstimate(const EstimateContext& c);
std::string PositionIdsTitle(const ModelParams& m, const Encoding& e);

namespace {

// The smallest and largest id of the sequence: ids never fall below the offset; the largest is
// the last token's or the top of an image's widest axis.
std::pair<int64_t, int64_t> IdRange(const EncodingParams& p, const MropeSequence& seq) {
  if (seq.tokens() <= 0) return {p.offset, p.offset};
  const MropeIds last = seq.Ids(seq.tokens() - 1);
  int64_t hi = std::max({last.id[0], last.id[1], last.id[2]});
  for (const MropeSequence::Image& im : seq.images()) {
    hi = std::max(hi, im.first_id + std::max({im.image.t, im.image.h, im.image.w}) - 1);
  }
  return {p.offset, hi};
}

constexpr const char* kAxisNames[3] = {"t (time)", "h (row)", "w (column)"};

std::string ImageLabel(const MropeImage& im) {
  char label[160];
  std::snprintf(label, sizeof label, "image %lldx%lldx%lld at token %lld",
                static_cast<long long>(im.t), static_cast<long long>(im.h),
                static_cast<long long>(im.w), static_cast<long long>(im.at));
  return label;
}

}  // namespace

std::string PositionIdsTitle(const ModelParams& m, const Encoding&) {
  const EncodingParams& p = m.pe;
  return std::string(GetView(ViewKind::kPositionIds).title) + " (M-RoPE, " +
         std::string(MropeLayoutName(p.mrope().layout)) + " layout, section " +
         MropeSectionText(MropeSection(p.mrope(), p.d_model / 2)) +
         ", max_len = " + std::to_string(p.max_len) +
         (p.offset != 0 ? ", ids from " + std::to_string(p.offset) : std::string()) + ")";
}

Result<Figure> PositionIdsFigure(const ViewContext& c) {
  const EncodingParams& p = c.params.pe;
  if (Status s = CheckViewApplies(ViewKind::kPositionIds, p); !s.ok()) return s.error();
  const MropeSequence seq(p);
  const int64_t n = seq.tokens();
  const auto [lo, hi] = IdRange(p, seq);
  Figure f;
  f.x = {"token", false, false, true};
  f.y = {"position id", false, false, true};
  const double pad = std::max(0.5, 0.04 * static_cast<double>(hi - lo));
  f.view = {-0.5, static_cast<double>(n) - 0.5, static_cast<double>(lo) - pad,
            static_cast<double>(hi) + pad};
  const PixelSize px = PlotPixels(c, f);
  const int samples = static_cast<int>(EstimatedCurveSamples(static_cast<uint64_t>(px.width)));
  // Exact steps (two points a token) while they fit in a curve's samples; else every k-th token.
  const bool exact = n <= samples / 2;
  const int64_t step = exact ? 1 : (n + samples - 2) / (samples - 1);
  for (int a = 0; a < 3; ++a) {
    FigureSeries s;
    s.label = kAxisNames[a];
    s.color = SeriesRgba(a);
    s.line_width = 5.0 - 1.6 * a;  // t widest, w on top
    for (int64_t k = 0; k < n; k += step) {
      const auto id = static_cast<double>(seq.Ids(k).id[static_cast<size_t>(a)]);
      if (exact) {
        s.xs.push_back(static_cast<double>(k) - 0.5);
        s.ys.push_back(id);
        s.xs.push_back(static_cast<double>(k) + 0.5);
        s.ys.push_back(id);
      } else {
        s.xs.push_back(static_cast<double>(k));
        s.ys.push_back(id);
      }
    }
    if (!exact && (n - 1) % step != 0) {
      s.xs.push_back(static_cast<double>(n - 1));
      s.ys.push_back(static_cast<double>(seq.Ids(n - 1).id[static_cast<size_t>(a)]));
    }
    if (exact && static_cast<double>(px.width) / static_cast<double>(n) >= 5.0) {
      s.marker_xs.reserve(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) {
        s.marker_xs.push_back(static_cast<double>(k));
        s.marker_ys.push_back(static_cast<double>(seq.Ids(k).id[static_cast<size_t>(a)]));
      }
      s.marker_radius = 3.6 - 0.8 * a;
    }
    f.legend.push_back({s.label, s.color});
    f.series.push_back(std::move(s));
  }
  const Rgba8 shade{120, 120, 120, 48};
  for (const MropeSequence::Image& im : seq.images()) {
    const double x0 = static_cast<double>(im.image.at) - 0.5;
    const double x1 = x0 + static_cast<double>(im.tokens());
    f.rects.push_back({x0, f.view.y0, x1, f.view.y1, shade, true, 1.0});
    f.labels.push_back({x0, static_cast<double>(hi), ImageLabel(im.image),
                        Rgba8{128, 128, 128, 255},
                        ImageLabel(im.image) + ": ids from " + std::to_string(im.first_id)});
  }
  if (!seq.images().empty()) f.legend.push_back({"shaded: an image's tokens", kNoColor});
  if (!exact) {
    char note[160];
    std::snprintf(note, sizeof note, "%lld tokens: the lines pass through every %lld-th token",
                  static_cast<long long>(n), static_cast<long long>(step));
    f.legend.push_back({note, kNoColor});
  }
  return f;
}

Status CheckPositionIdsTable(const ViewContext& c) {
  const EncodingParams& p = c.params.pe;
  if (Status s = CheckViewApplies(ViewKind::kPositionIds, p); !s.ok()) return s;
  const MropeSequence seq(p);
  const auto [lo, hi] = IdRange(p, seq);
  if (lo < INT32_MIN || hi > INT32_MAX) {
    return InvalidArgument("the position-ids table is int32: its ids must lie in [" +
                           std::to_string(INT32_MIN) + ", " + std::to_string(INT32_MAX) +
                           "], got ids " + std::to_string(lo) + " to " + std::to_string(hi) +
                           " (--offset " + std::to_string(p.offset) + ")");
  }
  return {};
}

Status WritePositionIdsView(std::ostream& out, TableFormat format, const ViewContext& c,
                            const Progress& progress) {
  if (Status s = CheckPositionIdsTable(c); !s.ok()) return s;
  const MropeSequence seq(c.params.pe);
  const int64_t n = seq.tokens();
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {n, 3};
    out << NpyHeader(shape, NpyDtype::kInt32);
  } else {
    out << "token,t,h,w\n";
  }
  constexpr int64_t kBlock = 1 << 16;
  std::vector<int32_t> block;
  std::string text;
  for (int64_t k0 = 0; k0 < n && out; k0 += kBlock) {
    const int64_t rows = std::min(kBlock, n - k0);
    block.resize(static_cast<size_t>(rows * 3));
    for (int64_t r = 0; r < rows; ++r) {
      const MropeIds ids = seq.Ids(k0 + r);
      for (size_t a = 0; a < 3; ++a) {
        block[static_cast<size_t>(r * 3) + a] = static_cast<int32_t>(ids.id[a]);
      }
    }
    if (format == TableFormat::kNpy) {
      WriteInt32sLE(out, block.data(), rows * 3);
    } else {
      text.clear();
      for (int64_t r = 0; r < rows; ++r) {
        text += std::to_string(k0 + r);
        for (size_t a = 0; a < 3; ++a) {
          text += ',';
          text += std::to_string(block[static_cast<size_t>(r * 3) + a]);
        }
        text += '\n';
      }
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
    }
    if (progress && !progress(static_cast<double>(k0 + rows) / static_cast<double>(n))) {
      return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// As PositionIdsFigure: three lines of at most a curve's samples (plus a marker per token when
// there are fewer tokens than pixels), and per image a shaded rectangle and its label.
uint64_t PositionIdsEstimate(const EstimateContext& c) {
  const uint64_t samples = EstimatedCurveSamples(c.width_px) + c.width_px + 1;
  const uint64_t images =
      c.params.pe.kind() == Scheme::kMrope ? c.params.pe.mrope().images.size() : 0;
  return kFigureBytesPerCurveSample * (3 * samples + 8 * images + 16);
}

}  // namespace pe
