#include "views/figure_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "views/figure_budget.h"
#include "io/file_writers.h"
#include "views/heatmap_raster.h"

namespace pe {

std::string_view ViewName(ViewKind view) {
  switch (view) {
    case ViewKind::kHeatmap:
      return "heatmap";
    case ViewKind::kCurves:
      return "curves";
    case ViewKind::kSums:
      return "sum";
  }
  return "?";
}

std::optional<ViewKind> ParseView(std::string_view name) {
  for (ViewKind v : {ViewKind::kHeatmap, ViewKind::kCurves, ViewKind::kSums}) {
    if (name == ViewName(v)) return v;
  }
  return std::nullopt;
}

ViewSelection DefaultViews(const ModelParams& params) {
  const PeParams& p = params.pe;
  ViewSelection v;
  const auto first = static_cast<double>(p.offset);
  v.heatmap = {0, static_cast<double>(p.d_model), first, first + static_cast<double>(p.max_len)};
  v.curves = CurvesLimits(p);
  v.sums = {-0.5, static_cast<double>(p.d_model) - 0.5, -1, 1};
  return v;
}

ViewRange CurvesLimits(const PeParams& pe) {
  const auto first = static_cast<double>(pe.offset);
  const double last = first + static_cast<double>(pe.max_len - 1);
  if (pe.max_len == 1) return {first - 0.5, first + 0.5, -1.15, 1.15};
  return {first, last, -1.15, 1.15};
}

ViewRange SumsExtent(const std::vector<const float*>& series, int64_t d) {
  float lo = 0.0f, hi = 0.0f;
  for (const float* v : series) {
    for (int64_t j = 0; j < d; ++j) {
      lo = std::min(lo, v[j]);
      hi = std::max(hi, v[j]);
    }
  }
  const float pad = std::max(0.05f, (hi - lo) * 0.08f);
  return {-0.5, static_cast<double>(d) - 0.5, lo - pad, hi + pad};
}

namespace {

std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string RangeText(double a, double b) {
  return Num(a) + ":" + Num(b);
}

std::vector<std::pair<std::string, std::string>> Metadata(ViewKind view, const ModelParams& m,
                                                          const ViewSelection& sel,
                                                          const ViewRange& r) {
  std::string dims;
  for (int64_t d : m.curve_dims) {
    if (!dims.empty()) dims += ',';
    dims += std::to_string(d);
  }
  return {{"view", std::string(ViewName(view))},
          {"variant", std::string(VariantName(m.pe.variant))},
          {"d_model", std::to_string(m.pe.d_model)},
          {"max_len", std::to_string(m.pe.max_len)},
          {"base", Num(m.pe.base)},
          {"offset", std::to_string(m.pe.offset)},
          {"dims", dims},
          {"text", m.example.text},
          {"tokenizer", std::string(TokenizerName(m.example.tokenizer))},
          {"seed", std::to_string(m.example.seed)},
          {"scaling", m.input.scale ? "sqrt(d_model)" : "off"},
          {"dropout", Num(m.input.dropout)},
          {"dropout_seed", std::to_string(m.input.dropout_seed)},
          {"mode", m.input.train ? "train" : "eval"},
          {"colormap", std::string(ColormapName(m.colormap))},
          {"x_range", RangeText(r.x0, r.x1)},
          {"y_range", RangeText(r.y0, r.y1)},
          {"token", sel.selected_token < 0 ? "all" : std::to_string(sel.selected_token)},
          {"app_version", PE_VERSION}};
}

std::string DefaultTitle(ViewKind view, const ModelParams& m) {
  std::ostringstream t;
  const PeParams& p = m.pe;
  switch (view) {
    case ViewKind::kHeatmap:
      t << "Sinusoidal positional encoding (" << VariantName(p.variant)
        << "), d_model = " << p.d_model;
      break;
    case ViewKind::kCurves:
      t << "PE(position, dimension) as waves (" << VariantName(p.variant)
        << ", d_model = " << p.d_model << ")";
      break;
    case ViewKind::kSums:
      t << "Token embedding"
        << (m.input.scale ? " \xc3\x97 \xe2\x88\x9a"
                            "d"
                          : "")
        << " + positional encoding (d_model = " << p.d_model << ")";
      break;
  }
  return t.str();
}

std::string SumsTitle(const ModelParams& m, const SentenceResult& s, int token) {
  std::ostringstream t;
  if (token < 0) {
    t << "Model input (embedding"
      << (m.input.scale ? " \xc3\x97 \xe2\x88\x9a"
                          "d"
                        : "")
      << " + PE) of every token, d_model = " << m.pe.d_model;
  } else {
    t << "Input vector of \"" << s.tokens[static_cast<size_t>(token)].text << "\" (id "
      << s.ids[static_cast<size_t>(token)] << ", position " << m.pe.offset + token
      << "), d_model = " << m.pe.d_model;
  }
  return t.str();
}

const char* WaveName(PeWave w) {
  return w == PeWave::kSin ? "sin" : w == PeWave::kCos ? "cos" : "zero";
}

Result<Figure> HeatmapFigure(const ModelParams& m, const ViewSelection& sel, const FigureSize& size,
                             FigureFormat format) {
  const PeParams& p = m.pe;
  Figure f;
  f.x = {"dimension j", true, false};
  f.y = {"position p", true, true};
  f.view = sel.heatmap;
  f.colorbar = FigureColorBar{m.colormap, -1, 1, "PE(p, j)"};
  const PixelSize px = PlotAreaPixels(f, size, format);
  RasterRequest req{p,
                    sel.heatmap.x0,
                    sel.heatmap.x1,
                    sel.heatmap.y0,
                    sel.heatmap.y1,
                    std::min(px.width, 4096),
                    std::min(px.height, 4096)};
  const Raster r = ComputeRaster(req);
  if (!r.empty()) {
    FigureImage im;
    im.width = r.width;
    im.height = r.height;
    im.rgba.resize(static_cast<size_t>(r.width) * r.height * 4);
    MapToRgba(m.colormap, r.values.data(), static_cast<int64_t>(r.values.size()), -1, 1,
              im.rgba.data());
    im.x0 = static_cast<double>(r.col_edges.front());
    im.x1 = static_cast<double>(r.col_edges.back());
    im.y0 = static_cast<double>(r.row_edges.front());
    im.y1 = static_cast<double>(r.row_edges.back());
    f.image = std::move(im);
  }
  if (sel.highlight && sel.selected_token >= 0) {
    // The panel's outline: a colour no cell has, thin when rows are dense (layout units).
    const double y = static_cast<double>(p.offset + sel.selected_token);
    const double row_height = FigurePlotBox(f, size).h / (sel.heatmap.y1 - sel.heatmap.y0);
    f.overlays.push_back({0, y, static_cast<double>(p.d_model), y + 1,
                          SelectionHighlightColor(m.colormap), false,
                          SelectionLineWidth(row_height)});
  }
  return f;
}

Result<Figure> CurvesFigure(const ModelParams& m, const ViewSelection& sel, const FigureSize& size,
                            FigureFormat format) {
  const PeParams& p = m.pe;
  if (Status s = ValidateDims(p, m.curve_dims); !s.ok()) return s.error();
  Figure f;
  f.x = {"position p", false, false};
  f.y = {"PE(p, j)", false, false};
  f.view = sel.curves;
  f.hlines.push_back(0.0);
  for (size_t k = 0; k < m.curve_dims.size(); ++k) {
    const PeColumn c = DescribeColumn(p, m.curve_dims[k]);
    char label[128];
    std::snprintf(label, sizeof label, "j=%lld: i=%lld %s, \xcf\x89=%.4g, \xce\xbb=%.4g",
                  static_cast<long long>(c.dim), static_cast<long long>(c.pair), WaveName(c.wave),
                  c.frequency, c.wavelength());
    f.legend.push_back({label, SeriesRgba(static_cast<int>(k))});
  }
  const PixelSize px = PlotAreaPixels(f, size, format);
  const ViewRange& v = sel.curves;
  const int samples = std::clamp(2 * px.width + 1, 64, 20001);
  const double px_per_pos = px.width / (v.x1 - v.x0);
  const double last = static_cast<double>(p.offset + p.max_len - 1);
  for (size_t k = 0; k < m.curve_dims.size(); ++k) {
    const PeColumn c = DescribeColumn(p, m.curve_dims[k]);
    FigureSeries s;
    s.label = f.legend[k].label;
    s.color = SeriesRgba(static_cast<int>(k));
    s.line_width = 1.6;
    for (int i = 0; i < samples; ++i) {
      const double x = v.x0 + (v.x1 - v.x0) * i / (samples - 1);
      s.xs.push_back(x);
      s.ys.push_back(PeValueAt(c, x));
    }
    if (sel.markers && px_per_pos >= 5.0) {
      for (double x = std::max(std::ceil(v.x0), static_cast<double>(p.offset));
           x <= std::min(std::floor(v.x1), last); x += 1.0) {
        s.marker_xs.push_back(x);
        s.marker_ys.push_back(PeValue(c, static_cast<int64_t>(x)));
      }
    }
    f.series.push_back(std::move(s));
  }
  if (sel.highlight && sel.selected_token >= 0) {
    const double x = static_cast<double>(p.offset + sel.selected_token);
    f.overlays.push_back({x, -1.15, x, 1.15, SelectionHighlightColor(m.colormap), false, 1.5});
  }
  return f;
}

Result<Figure> SumsFigure(const ModelParams& m, const ViewSelection& sel, const FigureSize& size,
                          FigureFormat format) {
  Result<SentenceResult> sentence = ComputeSentence(m.example, m.pe, m.input, m.cap);
  if (!sentence.ok()) return sentence.error();
  const SentenceResult& s = sentence.value();
  if (s.tokens.empty()) return InvalidArgument("the text \"" + m.example.text + "\" has no tokens");
  const int tokens = static_cast<int>(s.tokens.size());
  if (sel.selected_token >= tokens) {
    return InvalidArgument("token must be in [0, " + std::to_string(tokens - 1) + "] or all, got " +
                           std::to_string(sel.selected_token));
  }
  const InputParts& parts = s.parts;
  const int64_t d = parts.embedding.cols;
  std::vector<const float*> series;
  Figure f;
  f.x = {"dimension j", false, false, true};
  f.y = {"value", false, false};
  const char* part_names[] = {"embedding E[id]",
                              "scaled E \xc3\x97 \xe2\x88\x9a"
                              "d",
                              "positional PE[p]", "sum (model input)"};
  if (sel.selected_token >= 0) {
    const int t = sel.selected_token;
    for (int k = 0; k < 4; ++k) {
      series.push_back(parts.part(kAllParts[k]).row(t));
      f.legend.push_back({part_names[k], SeriesRgba(k)});
    }
  } else {
    constexpr int kMaxTokenSeries = 32;  // as the panel: more would be an unreadable legend
    for (int t = 0; t < std::min(tokens, kMaxTokenSeries); ++t) {
      series.push_back(parts.sum.row(t));
      f.legend.push_back({"\"" + s.tokens[static_cast<size_t>(t)].text +
                              "\" (p=" + std::to_string(m.pe.offset + t) + ")",
                          SeriesRgba(t)});
    }
  }
  f.title = SumsTitle(m, s, sel.selected_token);
  if (sel.selected_token < 0 && tokens > static_cast<int>(series.size())) {
    f.legend.push_back(
        {"(first " + std::to_string(series.size()) + " of " + std::to_string(tokens) + " tokens)",
         {255, 255, 255, 0}});
  }
  const ViewRange extent = SumsExtent(series, d);
  f.view = {sel.sums.x0, sel.sums.x1, extent.y0, extent.y1};
  f.hlines.push_back(0.0);
  const PixelSize px = PlotAreaPixels(f, size, format);
  const double bar = 0.8 / static_cast<double>(series.size());
  const double px_per_dim = px.width / (f.view.x1 - f.view.x0);
  const auto j0 = static_cast<int64_t>(std::max(0.0, std::floor(f.view.x0)));
  const auto j1 = static_cast<int64_t>(std::min(static_cast<double>(d - 1), std::ceil(f.view.x1)));
  for (size_t k = 0; k < series.size(); ++k) {
    if (px_per_dim * bar >= 2.0) {
      for (int64_t j = j0; j <= j1; ++j) {
        const double x = static_cast<double>(j) - 0.4 + bar * static_cast<double>(k);
        f.rects.push_back(
            {x, 0.0, x + bar * 0.9, series[k][j], SeriesRgba(static_cast<int>(k)), true, 1});
      }
    } else {
      FigureSeries line;
      line.color = SeriesRgba(static_cast<int>(k));
      line.line_width = 1.0;
      for (int64_t j = j0; j <= j1; ++j) {
        line.xs.push_back(static_cast<double>(j));
        line.ys.push_back(series[k][j]);
      }
      f.series.push_back(std::move(line));
    }
  }
  return f;
}

}  // namespace

Result<Figure> BuildViewFigure(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                               const FigureSize& size, FigureFormat format,
                               const std::string& title) {
  if (Status s = ValidatePeParams(params.pe); !s.ok()) return s.error();
  if (Status s = ValidateFigureSize(size); !s.ok()) return s.error();
  Result<Figure> f = view == ViewKind::kHeatmap  ? HeatmapFigure(params, sel, size, format)
                     : view == ViewKind::kCurves ? CurvesFigure(params, sel, size, format)
                                                 : SumsFigure(params, sel, size, format);
  if (!f.ok()) return f;
  if (!title.empty()) {
    f.value().title = title;
  } else if (f.value().title.empty()) {
    f.value().title = DefaultTitle(view, params);
  }
  f.value().metadata = Metadata(view, params, sel, f.value().view);
  return f;
}

std::string SuggestedFileName(ViewKind view, const ModelParams& m, const std::string& ext) {
  std::string name = "pe-" + std::string(ViewName(view)) + "_" +
                     std::string(VariantName(m.pe.variant)) + "_d" + std::to_string(m.pe.d_model) +
                     "_L" + std::to_string(m.pe.max_len);
  if (m.pe.offset != 0) name += "_off" + std::to_string(m.pe.offset);
  return name + "." + ext;
}

Status ExportView(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                  const std::string& path, const ExportRequestOptions& options) {
  const std::string ext = path == "-" ? "csv" : FileExtension(path);
  if (std::optional<FigureFormat> fig = FigureFormatFromExtension(ext)) {
    if (path == "-") return InvalidArgument("figures cannot go to standard output: name a file");
    if (Status s = CheckFigureMemory(view, params, sel, options.size, *fig); !s.ok()) return s;
    // Cancel is honoured between the steps; a cancel during rendering discards the file.
    auto cancelled = [&](double fraction) {
      return options.progress && !options.progress(fraction);
    };
    if (cancelled(0.0)) return RuntimeError("the export was cancelled");
    Result<Figure> f = BuildViewFigure(view, params, sel, options.size, *fig, options.title);
    if (!f.ok()) return f.error();
    if (cancelled(0.5)) return RuntimeError("the export was cancelled");
    return WriteFileAtomically(path, [&](std::ostream& out) -> Status {
      Status s = RenderFigure(f.value(), *fig, options.size, out);
      if (s.ok() && cancelled(1.0)) return RuntimeError("the export was cancelled");
      return s;
    });
  }
  if (ext != "csv" && ext != "npy") {
    return InvalidArgument("cannot tell the format of \"" + path +
                           "\": use a .png, .svg, .pdf, .csv or .npy file name (or - for CSV on "
                           "standard output)");
  }
  const TableFormat format = ext == "csv" ? TableFormat::kCsv : TableFormat::kNpy;
  // Check everything before the file is opened, so a bad request leaves no file behind.
  if (Status s = ValidatePeParams(params.pe); !s.ok()) return s;
  Result<SentenceResult> sentence = InvalidArgument("not computed");
  if (view == ViewKind::kHeatmap) {
    if (Status s = CheckFloatCount("the positional-encoding table",
                                   static_cast<uint64_t>(params.pe.max_len),
                                   static_cast<uint64_t>(params.pe.d_model), params.cap);
        !s.ok()) {
      return s;
    }
  } else if (view == ViewKind::kCurves) {
    if (Status s = ValidateDims(params.pe, params.curve_dims); !s.ok()) return s;
  } else {
    sentence = ComputeSentence(params.example, params.pe, params.input, params.cap);
    if (!sentence.ok()) return sentence.status();
    if (sentence.value().tokens.empty()) {
      return InvalidArgument("the text \"" + params.example.text + "\" has no tokens");
    }
  }
  return WriteFileAtomically(path, [&](std::ostream& out) -> Status {
    if (view == ViewKind::kHeatmap)
      return WriteHeatmapTable(out, format, params.pe, params.cap, options.progress);
    if (view == ViewKind::kCurves) {
      return WriteCurvesTable(out, format, params.pe, params.curve_dims, params.cap,
                              options.progress);
    }
    return WriteSumTable(out, format, sentence.value(), params.pe);
  });
}

}  // namespace pe
