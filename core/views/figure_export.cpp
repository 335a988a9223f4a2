#include "views/figure_export.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "arch/model_choice.h"
#include "io/file_writers.h"
#include "io/tensor_file.h"
#include "model/param_fields.h"
#include "model/walkthrough_presets.h"
#include "views/figure_budget.h"
#include "views/figure_paths.h"
#include "views/heatmap_raster.h"
#include "views/rope_views.h"
#include "views/view_registry.h"

namespace pe {

Result<EncodingPtr> ReuseOrMakeEncoding(const EncodingParams& params, const MemoryCap& cap,
                                        const EncodingPtr& built) {
  if (built && built->params() == params) return built;
  return MakeEncoding(params, cap);
}

ViewSelection DefaultViews(const ModelParams& params) {
  Result<EncodingPtr> e = MakeEncoding(params.pe, params.cap);
  if (!e.ok()) return {};
  return DefaultViews(params, *e.value());
}

ViewSelection DefaultViews(const ModelParams& params, const Encoding& e) {
  ViewSelection v;
  for (ViewKind k : WindowOwners()) v.windows[k] = GetView(k).window.whole(params, e);
  // A walkthrough preset follows its own token (the blog's position 2).
  if (const WalkthroughPreset* p = FindWalkthroughPreset(params.walkthrough_preset)) {
    v.selected_token = p->focus_token;
  }
  return v;
}

ByView<ViewRange> InitialWindows() {
  ByView<ViewRange> w;
  for (const ViewEntry& v : Views()) {
    if (v.window.empty_is_whole) w[v.kind] = {0, 0, 0, 0};
  }
  return w;
}

ViewRange CurvesLimits(const Encoding& e) {
  const auto first = static_cast<double>(e.first_position());
  const double last = static_cast<double>(e.last_position());
  // The values' range plus 15%, as the sinusoid's [-1.15, 1.15].
  const ValueRange r = e.Range();
  const double pad = 0.15 * std::max(std::abs(r.lo), std::abs(r.hi));
  const double y0 = r.lo - pad, y1 = r.hi + pad;
  if (e.rows() == 1) return {first - 0.5, first + 0.5, y0, y1};
  return {first, last, y0, y1};
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

std::string Exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string WindowText(const ViewRange& r) {
  return Exact(r.x0) + ":" + Exact(r.x1) + ":" + Exact(r.y0) + ":" + Exact(r.y1);
}

std::vector<ViewKind> WindowOwners() {
  std::vector<ViewKind> out;
  for (const ViewEntry& v : Views()) {
    if (!v.window.key.empty()) out.push_back(v.kind);
  }
  return out;
}

std::vector<ViewKind> ViewWindowKeys(ViewKind view) {
  const ViewEntry& entry = GetView(view);
  std::vector<ViewKind> out;
  if (!entry.window.key.empty()) out.push_back(view);
  out.insert(out.end(), entry.windows.begin(), entry.windows.end());
  return out;
}

std::string_view WindowKeyName(ViewKind owner) {
  return GetView(owner).window.key;
}

std::string WindowFlag(ViewKind owner) {
  std::string flag = "--" + std::string(WindowKeyName(owner));
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::vector<std::pair<std::string, std::string>> FigureMetadata(
    ViewKind view, const ModelParams& m, const ViewSelection& sel, const FigureSize& size,
    const std::string& title, const ViewRange* shown, const EncodingPtr& built) {
  // The view, every parameter that applies to the scheme (the same keys a session file uses),
  // then what the view shows: enough to draw the same figure again (export --from).
  std::vector<std::pair<std::string, std::string>> out = {{"view", std::string(ViewName(view))}};
  for (auto& kv : ParamValues(m)) {
    // What only another view reads is no part of this figure: a --versus left from another
    // scheme, or a query past a shortened table, would make it impossible to draw again.
    if (OnlyOtherViewsRead(kv.first, view)) continue;
    out.push_back(std::move(kv));
  }
  // Whether other parameters changed the model's layer (told, not read back: export --from
  // works it out again).
  if (m.model) out.push_back({"model_modified", ModelModified(m) ? "true" : "false"});
  // A table named by a relative path: also the absolute path it was read from (export --from).
  for (auto& kv : AbsoluteFileEntries(out)) out.push_back(std::move(kv));
  if (shown != nullptr) {
    out.push_back({"x_range", RangeText(shown->x0, shown->x1)});
    out.push_back({"y_range", RangeText(shown->y0, shown->y1)});
  }
  out.push_back({"token", sel.selected_token < 0 ? "all" : std::to_string(sel.selected_token)});
  // The windows the view reads, where they are not the whole table the window opens on.
  Result<EncodingPtr> e = ReuseOrMakeEncoding(m.pe, m.cap, built);
  ViewSelection defaults = e.ok() ? DefaultViews(m, *e.value()) : ViewSelection{};
  for (ViewKind k : ViewWindowKeys(view)) {
    const ViewRange& w = sel.windows[k];
    if (!(w == defaults.windows[k])) out.push_back({std::string(WindowKeyName(k)), WindowText(w)});
  }
  // What else of the selection the view reads.
  if (const ViewEntry& entry = GetView(view); entry.metadata != nullptr) {
    entry.metadata(m, sel, out);
  } else {
    AddPresetMetadata(m, out);
  }
  out.push_back({"width", Exact(size.width)});
  out.push_back({"height", Exact(size.height)});
  out.push_back({"scale", Exact(size.scale)});
  // (Only when not the default, so that figures made before keep their metadata.)
  if (size.font_pt != kDefaultFontPt) out.push_back({"font_size", Exact(size.font_pt)});
  if (size.svg_outlines) out.push_back({"svg_text", "outlines"});
  if (!title.empty()) out.push_back({"title", title});
  out.push_back({"app_version", PE_VERSION});
  return out;
}

namespace {

std::string DefaultTitle(ViewKind view, const ModelParams& m, const Encoding& e) {
  const ViewEntry& entry = GetView(view);
  if (entry.default_title != nullptr) return entry.default_title(m, e);
  return std::string(entry.title) + " (" + e.Title() + ")";
}

// A title not given says which model the parameters came from, after the view's own:
// "... [gemma-3-4b, layer 5]", "... [modified from gemma-3-4b, layer 5]".
void AddModelLabel(std::string& title, const ModelParams& m) {
  const std::string model = ModelLabel(m);
  if (!model.empty()) title += " [" + model + "]";
}

}  // namespace

Result<Figure> BuildViewFigure(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                               const FigureSize& size, FigureFormat format,
                               const std::string& title, const EncodingPtr& built) {
  if (Status s = ValidateEncodingParams(params.pe); !s.ok()) return s.error();
  if (Status s = CheckViewApplies(view, params); !s.ok()) return s.error();
  if (Status s = ValidateFigureSize(size); !s.ok()) return s.error();
  Result<EncodingPtr> encoding = ReuseOrMakeEncoding(params.pe, params.cap, built);
  if (!encoding.ok()) return encoding.error();
  ViewContext context{params, encoding.value(), sel, size, format};
  Result<Figure> f = InvalidArgument("no figure");
  // A raster is computed on the plot area's pixels; when the finished figure's plot area (its
  // legend and title in) has another grid than the builder measured, it is built again on that
  // grid, so no texel is dropped or stretched in the file.
  for (int pass = 0; pass < 3; ++pass) {
    context.pixels_used.clear();
    f = GetView(view).figure(context);
    if (!f.ok()) return f;
    if (!title.empty()) {
      f.value().title = title;
    } else if (f.value().title.empty()) {
      f.value().title = DefaultTitle(view, params, *encoding.value());
    }
    if (title.empty()) AddModelLabel(f.value().title, params);
    const Figure& built_figure = f.value();
    const bool has_image = built_figure.image.has_value() ||
                           std::any_of(built_figure.panels.begin(), built_figure.panels.end(),
                                       [](const Figure& p) { return p.image.has_value(); });
    if (!has_image || context.pixels_used.empty()) break;
    std::vector<PixelSize> finished =
        built_figure.panels.empty()
            ? std::vector<PixelSize>{PlotAreaPixels(built_figure, size, format)}
            : PanelAreaPixels(built_figure, size, format);
    if (finished == context.pixels_used) break;
    context.plot_pixels = std::move(finished);
  }
  f.value().metadata =
      FigureMetadata(view, params, sel, size, title, &f.value().view, encoding.value());
  return f;
}

Result<std::vector<Figure>> BuildViewPages(ViewKind view, const ModelParams& params,
                                           const ViewSelection& sel, const FigureSize& size,
                                           const std::string& title, const EncodingPtr& built) {
  const ViewEntry& entry = GetView(view);
  if (entry.pdf_pages == nullptr) {
    Result<Figure> f = BuildViewFigure(view, params, sel, size, FigureFormat::kPdf, title, built);
    if (!f.ok()) return f.error();
    return std::vector<Figure>{std::move(f).value()};
  }
  if (Status s = ValidateEncodingParams(params.pe); !s.ok()) return s.error();
  if (Status s = CheckViewApplies(view, params); !s.ok()) return s.error();
  if (Status s = ValidateFigureSize(size); !s.ok()) return s.error();
  Result<EncodingPtr> encoding = ReuseOrMakeEncoding(params.pe, params.cap, built);
  if (!encoding.ok()) return encoding.error();
  const ViewContext context{params, encoding.value(), sel, size, FigureFormat::kPdf};
  Result<std::vector<Figure>> pages = entry.pdf_pages(context);
  if (!pages.ok()) return pages;
  ViewSelection all_steps = sel;
  all_steps.walkthrough_step = -1;
  for (size_t k = 0; k < pages.value().size(); ++k) {
    Figure& f = pages.value()[k];
    // The document's title is the first page's: the given one, else the view's.
    if (k == 0 && !title.empty()) {
      f.title = title;
    } else if (f.title.empty()) {
      f.title = DefaultTitle(view, params, *encoding.value());
    }
    if (k == 0 && title.empty()) AddModelLabel(f.title, params);
    f.metadata = FigureMetadata(view, params, all_steps, size, title, &f.view, encoding.value());
  }
  return pages;
}

namespace {

// The check view's name from its table's own shape (its header only):
// "pe-check_rope_cos_d128_L4096" for rope_cos.npy of shape (4096, 128), ":TENSOR" naming a
// safetensors tensor; empty when the file cannot be listed.
std::string CheckTableFileName(const std::string& spec_text, const std::string& ext) {
  Result<TensorSpec> spec = ParseTensorSpec(spec_text);
  if (!spec.ok()) return {};
  Result<std::vector<TensorListing>> list = ListTensorFile(spec.value().path);
  if (!list.ok()) return {};
  const TensorListing* t = nullptr;
  for (const TensorListing& l : list.value()) {
    if (l.name == spec.value().tensor ||
        (spec.value().tensor.empty() && list.value().size() == 1)) {
      t = &l;
    }
  }
  if (t == nullptr) return {};
  std::vector<int64_t> dims;
  for (int64_t n : t->shape) {
    if (n != 1) dims.push_back(n);
  }
  if (dims.size() != 2) return {};
  std::string stem = spec.value().path;
  if (const size_t slash = stem.rfind('/'); slash != std::string::npos) stem.erase(0, slash + 1);
  if (const size_t dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.erase(dot);
  if (!spec.value().tensor.empty()) stem += "_" + spec.value().tensor;
  for (char& ch : stem) {
    const auto u = static_cast<unsigned char>(ch);
    if (!std::isalnum(u) && ch != '-' && ch != '_') ch = '-';
  }
  return "pe-check_" + stem + "_d" + std::to_string(dims[1]) + "_L" + std::to_string(dims[0]) +
         "." + ext;
}

}  // namespace

std::string SuggestedFileName(ViewKind view, const ModelParams& m, const std::string& ext) {
  if (view == ViewKind::kCheck && !m.check_table.empty()) {
    std::string name = CheckTableFileName(m.check_table, ext);
    if (!name.empty()) return name;
  }
  // The encoding's own tag ("paper", "rope-yarn", ...). A stored table is not drawn or read for
  // a name (the window suggests one as its export dialog opens): it is tagged by its scheme.
  Result<EncodingPtr> e = StoredCells(m.pe) > 0 ? Result<EncodingPtr>(InvalidArgument("stored"))
                                                : MakeEncoding(m.pe, m.cap);
  const std::string scheme = e.ok() ? e.value()->FileTag() : std::string(SchemeName(m.pe.kind()));
  std::string name = "pe-" + std::string(ViewName(view)) + "_" + scheme + "_d" +
                     std::to_string(m.pe.d_model) + "_L" + std::to_string(m.pe.max_len);
  if (m.pe.offset != 0) name += "_off" + std::to_string(m.pe.offset);
  return name + "." + ext;
}

std::string ShrunkTextNote(const FigureSize& size, double drawn, double largest) {
  if (drawn >= size.font_pt) return "";
  char buf[320];
  const std::string page = FormatDouble(size.width) + " x " + FormatDouble(size.height);
  if (largest >= kLeastFontPt) {
    std::snprintf(buf, sizeof buf,
                  "the text is drawn at %.1f pt, not %s: a %s page has no room for it (nothing "
                  "is cut); --font-size %s or a larger page draws every size as asked",
                  drawn, FormatDouble(size.font_pt).c_str(), page.c_str(),
                  FormatDouble(largest).c_str());
  } else {
    std::snprintf(buf, sizeof buf,
                  "the text is drawn at %.1f pt, not %s: a %s page has no room for it (nothing "
                  "is cut); a larger page draws it as asked",
                  drawn, FormatDouble(size.font_pt).c_str(), page.c_str());
  }
  return buf;
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
    // A PDF holds every page of a view that has several (the walkthrough's handout).
    Result<std::vector<Figure>> f =
        *fig == FigureFormat::kPdf && GetView(view).pdf_pages != nullptr
            ? BuildViewPages(view, params, sel, options.size, options.title, options.encoding)
            : [&]() -> Result<std::vector<Figure>> {
      Result<Figure> one =
          BuildViewFigure(view, params, sel, options.size, *fig, options.title, options.encoding);
      if (!one.ok()) return one.error();
      return std::vector<Figure>{std::move(one).value()};
    }();
    if (!f.ok()) return f.error();
    if (options.note) {
      // The smallest text of any page (the handout lays its pages out itself and keeps sizes).
      double drawn = options.size.font_pt, largest = options.size.font_pt;
      for (const Figure& page : f.value()) {
        if (!page.placed.empty()) continue;
        double whole = 0;
        const double pt = FigureTextPt(page, options.size, &whole);
        if (pt < drawn) drawn = pt;
        largest = std::min(largest, whole);
      }
      *options.note = ShrunkTextNote(options.size, drawn, largest);
    }
    if (cancelled(0.5)) return RuntimeError("the export was cancelled");
    return WriteFileAtomically(path, [&](std::ostream& out) -> Status {
      Status s = RenderFigurePages(f.value(), *fig, options.size, out);
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
  if (Status s = ValidateEncodingParams(params.pe); !s.ok()) return s;
  if (Status s = CheckViewApplies(view, params); !s.ok()) return s;
  Result<EncodingPtr> encoding = ReuseOrMakeEncoding(params.pe, params.cap, options.encoding);
  if (!encoding.ok()) return encoding.error();
  const ViewContext context{params, encoding.value(), sel, options.size, FigureFormat::kPng};
  const ViewEntry& entry = GetView(view);
  if (Status s = entry.check_table(context); !s.ok()) return s;
  return WriteFileAtomically(path, [&](std::ostream& out) -> Status {
    return entry.write_table(out, format, context, options.progress);
  });
}

}  // namespace pe
