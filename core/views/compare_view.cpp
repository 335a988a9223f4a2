// The compare view: two configurations side by side and their difference. A is the current
// parameters, B the same with the overrides of --versus (compare_view.h); an empty --versus
// compares with the scheme's counterpart (DefaultVersus, from the scheme's descriptor).
//   --compare-of score: the attention score score(m, n) of each (analysis/attention_score.h, the
//            score view's numbers), keys (x) by queries (y) over the visible window at screen
//            resolution (ComputeScoreRaster, the score view's raster). Table (3, L, L) float32 =
//            [A, B, A - B] over the positions first..first+L-1, A - B computed in double from the
//            two scores and rounded once; masked cells NaN (empty in CSV). CSV header
//            part,q,k<first>,...,k<last>, one line per part (A, B, A-B) and query.
//   --compare-of table: the encodings' tables (the heatmap's numbers), columns (x) by positions
//            (y), each texel the exact mean of its cells (ComputeRaster). Table (3, L, cols)
//            float32 = [A, B, A - B]; CSV header part,pos,d0,d1,... (i0,... for RoPE's angle,
//            k0,... for the bias tables).
// The difference needs the two tables to cover the same cells: the same positions (max_len and
// offset), and for tables the same width. Otherwise the figure shows A and B and says why there
// is no A - B, and the table is refused, naming both.
// The figure is three panels A | B | A - B (Figure::panels) titled with what differs; A and B
// share one colour range, A - B has its own, diverging and centred on 0.
#include "views/compare_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>

#include "analysis/attention_score.h"
#include "arch/model_choice.h"
#include "io/file_writers.h"
#include "model/param_fields.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/heatmap_raster.h"
#include "views/value_image.h"
#include "views/view_builders.h"

namespace pe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr Rgba8 kMaskedGrey{150, 150, 150, 255};
constexpr const char* kMinus = "\xe2\x88\x92";  // −

std::string Shape(const Encoding& e, bool with_cols) {
  std::string s = "L = " + std::to_string(e.rows());
  if (with_cols) s += ", " + std::to_string(e.cols()) + " columns";
  return s + ", positions " + std::to_string(e.first_position()) + " to " +
         std::to_string(e.last_position());
}

// Why A - B cannot be taken cell by cell, or "".
std::string NoDifference(const ModelParams& a, const Encoding& ea, const Encoding& eb) {
  const bool table = a.compare_of == CompareOf::kTable;
  const bool same = ea.rows() == eb.rows() && ea.first_position() == eb.first_position() &&
                    (!table || ea.cols() == eb.cols());
  if (same) return "";
  return std::string("no A ") + kMinus + " B: the two " + (table ? "tables" : "score tables") +
         " cover different cells (A: " + Shape(ea, table) + "; B: " + Shape(eb, table) + ")";
}

// A recorded value as a title shows it: whole numbers in full ("500000", not the metadata's
// shortest "5e+05"), anything else as recorded.
std::string Pretty(const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x) || x != std::floor(x) ||
      std::abs(x) >= 1e15) {
    return v;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

// "rope, rope_theta=10000": the scheme, then each recorded parameter whose value differs from
// the other configuration's (or that --versus names and only this one has).
void Labels(const ModelParams& a, const ModelParams& b, const std::string& versus,
            std::string& a_label, std::string& b_label) {
  std::map<std::string, std::string> va, vb;
  for (auto& [k, v] : ParamValues(a)) va[k] = v;
  for (auto& [k, v] : ParamValues(b)) vb[k] = v;
  std::vector<std::string> named;
  if (Result<std::vector<std::pair<std::string, std::string>>> p = ParseVersus(versus); p.ok()) {
    for (const auto& kv : p.value()) named.push_back(kv.first);
  }
  auto is_named = [&](const std::string& k) {
    return std::find(named.begin(), named.end(), k) != named.end();
  };
  a_label = std::string(SchemeName(a.pe.kind()));
  b_label = std::string(SchemeName(b.pe.kind()));
  bool any = a.pe.kind() != b.pe.kind();
  // A model's layer first (two layers of one model: "rope, layer=0, ..."), where a narrow
  // panel's title, cut at its end, still names it; then the table's order.
  std::vector<const ParamField*> fields;
  for (const ParamField& f : ParamFields()) {
    if (f.key == "layer") fields.insert(fields.begin(), &f);
    if (f.key != "layer") fields.push_back(&f);
  }
  for (const ParamField* field : fields) {
    const ParamField& f = *field;
    const std::string key(f.key);
    if (key.empty() || key == "scheme" || key == "versus" || key == "compare_of") continue;
    const auto ia = va.find(key), ib = vb.find(key);
    const bool in_a = ia != va.end(), in_b = ib != vb.end();
    if (in_a && in_b) {
      if (ia->second == ib->second) continue;
      a_label += ", " + key + "=" + Pretty(ia->second);
      b_label += ", " + key + "=" + Pretty(ib->second);
      any = true;
    } else if (in_b && is_named(key)) {
      b_label += ", " + key + "=" + Pretty(ib->second);
      any = true;
    } else if (in_a && is_named(key)) {
      a_label += ", " + key + "=" + Pretty(ia->second);
      any = true;
    }
  }
  if (!any) b_label += " (the same as A)";
}

Figure Panel(const std::string& title, const FigureAxis& x, const FigureAxis& y,
             const ViewRange& view) {
  Figure p;
  p.title = title;
  p.x = x;
  p.y = y;
  p.view = view;
  return p;
}

// An image of (height, width) values over [x0, x1] x [y0, y1] on [lo, hi]; NaN grey.
FigureImage Image(const std::vector<float>& values, int width, int height, double x0, double x1,
                  double y0, double y1, ColormapId colormap, double lo, double hi, bool& any_nan) {
  return ValueImage(values, width, height,
                    {colormap, lo, hi, FlatValues::kNaN, kMaskedGrey, x0, x1, y0, y1}, &any_nan);
}

double MaxAbs(const std::vector<float>& v) {
  return MaxAbsIgnoringNaN(v);
}

// The diverging difference panel's range and colour bar; `equal` when A - B is 0 everywhere.
FigureColorBar DifferenceBar(const std::vector<float>& d, bool& equal) {
  double hi = MaxAbs(d);
  equal = !(hi > 0.0);
  if (equal) hi = 1.0;
  return FigureColorBar{ColormapId::kRdBu, -hi, hi, std::string("A ") + kMinus + " B"};
}

Result<AttentionScorer> ScorerB(const ModelParams&, const ComparePair& p) {
  Result<AttentionScorer> s = AttentionScorer::Make(p.b, p.b_encoding);
  if (!s.ok()) return InvalidArgument("B (--versus \"" + p.versus + "\"): " + s.message());
  return s;
}

// ---- score ------------------------------------------------------------------------------------

Result<Figure> ScoreCompareFigure(const ViewContext& c, const ComparePair& p) {
  Result<AttentionScorer> sa = AttentionScorer::Make(c.params, c.encoding);
  if (!sa.ok()) return sa.error();
  Result<AttentionScorer> sb = ScorerB(c.params, p);
  if (!sb.ok()) return sb.error();
  const Encoding& ea = *c.encoding;
  const Encoding& eb = *p.b_encoding;
  const bool diff = p.no_difference.empty();
  Figure f;
  f.title = std::string("Attention score score(m, n): A | B") +
            (diff ? std::string(" | A ") + kMinus + " B" : std::string());
  const ViewRange w = CompareWindow(c.params, ea, p, c.sel);
  f.view = w;  // recorded in the metadata
  const FigureAxis x{"key position n", true, false, true}, y{"query position m", true, true, true};
  f.panels.push_back(Panel("A: " + p.a_label, x, y, w));
  f.panels.push_back(Panel("B: " + p.b_label, x, y, w));
  if (diff) f.panels.push_back(Panel(std::string("A ") + kMinus + " B", x, y, w));
  // A typical colour bar, for the layout the rasters are sized to.
  for (Figure& panel : f.panels)
    panel.colorbar = FigureColorBar{ColormapId::kRdBu, -10, 10, "score"};
  const PixelSize px = PanelPixels(c, f).front();
  ScoreRasterRequest req{
      w.x0, w.x1, w.y0, w.y1, std::min(px.width, 4096), std::min(px.height, 4096)};
  for (const AttentionScorer* side : {&sa.value(), &sb.value()}) {
    if (Status st = CheckScoreRaster(*side, req); !st.ok()) return st.error();
  }
  ScoreRaster ra = ComputeScoreRaster(sa.value(), req);
  ScoreRaster rb = ComputeScoreRaster(sb.value(), req);
  if (ra.key_edges != rb.key_edges || ra.query_edges != rb.query_edges) {
    // One side on a lattice, the other not: both on the same texels, cell for cell.
    req.lattice = false;
    ra = ComputeScoreRaster(sa.value(), req);
    rb = ComputeScoreRaster(sb.value(), req);
  }
  if (Status st = RefuseSampledRaster(sa.value(), ra); !st.ok()) return st.error();
  if (Status st = RefuseSampledRaster(sb.value(), rb); !st.ok()) return st.error();
  double hi = std::max(MaxAbs(ra.values), MaxAbs(rb.values));
  if (!(hi > 0.0)) hi = 1.0;
  const FigureColorBar shared{ColormapId::kRdBu, -hi, hi, "A and B"};
  bool any_masked = false;
  const ScoreRaster* rasters[] = {&ra, &rb};
  for (int k = 0; k < 2; ++k) {
    const ScoreRaster& r = *rasters[k];
    f.panels[static_cast<size_t>(k)].colorbar = shared;
    if (r.empty()) continue;
    f.panels[static_cast<size_t>(k)].image =
        Image(r.values, r.width, r.height, static_cast<double>(r.key_edges.front()),
              TexelImageEnd(r.key_edges), static_cast<double>(r.query_edges.front()),
              TexelImageEnd(r.query_edges), ColormapId::kRdBu, -hi, hi, any_masked);
  }
  bool equal = false;
  if (diff) {
    // The same table and request give the same texels.
    std::vector<float> d(ra.values.size());
    if (ra.key_edges == rb.key_edges && ra.query_edges == rb.query_edges) {
      for (size_t i = 0; i < d.size(); ++i) d[i] = ra.values[i] - rb.values[i];
    }
    Figure& panel = f.panels[2];
    panel.colorbar = DifferenceBar(d, equal);
    if (!ra.empty()) {
      panel.image = Image(d, ra.width, ra.height, static_cast<double>(ra.key_edges.front()),
                          TexelImageEnd(ra.key_edges), static_cast<double>(ra.query_edges.front()),
                          TexelImageEnd(ra.query_edges), ColormapId::kRdBu, panel.colorbar->vmin,
                          panel.colorbar->vmax, any_masked);
    }
  }
  const std::string def_a =
      ScoreDefinition(ea, c.params.content, c.params.softmax_scale, c.params.temperature);
  const std::string def_b = ScoreDefinition(eb, p.b.content, p.b.softmax_scale, p.b.temperature);
  if (def_a == def_b) {
    f.legend.push_back({def_a, kNoColor});
  } else {
    f.legend.push_back({"A: " + def_a, kNoColor});
    f.legend.push_back({"B: " + def_b, kNoColor});
  }
  const std::string content_a = ScoreContentText(c.params), content_b = ScoreContentText(p.b);
  if (content_a == content_b) {
    f.legend.push_back({content_a, kNoColor});
  } else {
    f.legend.push_back({"A: " + content_a, kNoColor});
    f.legend.push_back({"B: " + content_b, kNoColor});
  }
  // Each side's encoding and the options that change its scores (the window, the softmax
  // scale; its temperature is in its definition above).
  const std::string options_a = ScoreOptionsText(c.params, false);
  const std::string options_b = ScoreOptionsText(p.b, false);
  f.legend.push_back(
      {"A: " + ea.Summary() + (options_a.empty() ? "" : ", " + options_a), kNoColor});
  f.legend.push_back(
      {"B: " + eb.Summary() + (options_b.empty() ? "" : ", " + options_b), kNoColor});
  if (any_masked) {
    // The rule that hides the grey cells: the causal one, or each side's window.
    auto rule = [](const AttentionScorer& s) {
      return s.banded() ? AttentionWindowRule(s.window())
                        : std::string(s.causal() ? "key after query" : "none");
    };
    const std::string rule_a = rule(sa.value()), rule_b = rule(sb.value());
    if (!sa.value().banded() && !sb.value().banded()) {
      f.legend.push_back({"grey: masked (key after query)", kMaskedGrey});
    } else if (rule_a == rule_b) {
      f.legend.push_back({"grey: masked, " + rule_a, kMaskedGrey});
    } else {
      f.legend.push_back({"grey: masked, A: " + rule_a + "; B: " + rule_b, kMaskedGrey});
    }
  }
  if (!(ra.one_cell_per_texel && rb.one_cell_per_texel)) {
    f.legend.push_back({ra.exact && rb.exact
                            ? std::string("texel = exact mean of its cells")
                            : "texel = mean of " + std::to_string(kScoreTexelSamples) + "\xc3\x97" +
                                  std::to_string(kScoreTexelSamples) +
                                  " cells sampled evenly in it",
                        kNoColor});
  }
  if (!diff) {
    f.legend.push_back({p.no_difference, kNoColor});
  } else if (equal) {
    f.legend.push_back(
        {std::string("A ") + kMinus + " B is 0 everywhere in this window", kNoColor});
  }
  return f;
}

// ---- table ------------------------------------------------------------------------------------

Result<Figure> TableCompareFigure(const ViewContext& c, const ComparePair& p) {
  const Encoding& ea = *c.encoding;
  const Encoding& eb = *p.b_encoding;
  const ColormapId colormap = c.params.colormap;
  const bool diff = p.no_difference.empty();
  Figure f;
  f.title = "Tables " + ea.TableName() +
            (eb.TableName() != ea.TableName() ? " and " + eb.TableName() : "") + ": A | B" +
            (diff ? std::string(" | A ") + kMinus + " B" : std::string());
  const ViewRange w = CompareWindow(c.params, ea, p, c.sel);
  f.view = w;  // recorded in the metadata
  // Each table on its own axes: a bias table is queries by keys, a PE table positions by columns.
  const TableAxes axes = AxesOf(ea), axes_b = AxesOf(eb);
  const FigureAxis x{axes.column_axis, true, false}, y{axes.row_axis, true, true};
  const FigureAxis xb{axes_b.column_axis, true, false}, yb{axes_b.row_axis, true, true};
  f.panels.push_back(Panel("A: " + p.a_label, x, y, w));
  f.panels.push_back(Panel("B: " + p.b_label, xb, yb, w));
  if (diff) f.panels.push_back(Panel(std::string("A ") + kMinus + " B", x, y, w));
  const ValueRange range_a = ea.Range(), range_b = eb.Range();
  const double lo = std::min(range_a.lo, range_b.lo), hi = std::max(range_a.hi, range_b.hi);
  const FigureColorBar shared{colormap, lo, hi, "A and B"};
  for (Figure& panel : f.panels) panel.colorbar = shared;
  // Tables of different cells (a PE table beside a bias table) are not compared value for
  // value: each on its own range, so neither is flattened by the other's.
  if (!diff) {
    f.panels[0].colorbar = FigureColorBar{colormap, range_a.lo, range_a.hi, "A"};
    f.panels[1].colorbar = FigureColorBar{colormap, range_b.lo, range_b.hi, "B"};
  }
  const PixelSize px = PanelPixels(c, f).front();
  auto raster = [&](const EncodingPtr& e) {
    return ComputeRaster(RasterRequest{e, w.x0, w.x1, w.y0, w.y1, std::min(px.width, 4096),
                                       std::min(px.height, 4096)});
  };
  const Raster ra = raster(c.encoding), rb = raster(p.b_encoding);
  bool any_nan = false;
  const Raster* rasters[] = {&ra, &rb};
  for (int k = 0; k < 2; ++k) {
    const Raster& r = *rasters[k];
    if (r.empty()) continue;
    f.panels[static_cast<size_t>(k)].image =
        Image(r.values, r.width, r.height, static_cast<double>(r.col_edges.front()),
              static_cast<double>(r.col_edges.back()), static_cast<double>(r.row_edges.front()),
              static_cast<double>(r.row_edges.back()), colormap,
              f.panels[static_cast<size_t>(k)].colorbar->vmin,
              f.panels[static_cast<size_t>(k)].colorbar->vmax, any_nan);
    // Keys a causal bias masks: grey, as in the heatmap (their 0 in the table is no bias).
    GreyMaskedTexels(r, f.panels[static_cast<size_t>(k)].image->rgba.data());
  }
  bool equal = false;
  if (diff) {
    std::vector<float> d(ra.values.size());
    if (ra.col_edges == rb.col_edges && ra.row_edges == rb.row_edges) {
      for (size_t i = 0; i < d.size(); ++i) d[i] = ra.values[i] - rb.values[i];
    }
    Figure& panel = f.panels[2];
    panel.colorbar = DifferenceBar(d, equal);
    if (!ra.empty()) {
      panel.image =
          Image(d, ra.width, ra.height, static_cast<double>(ra.col_edges.front()),
                static_cast<double>(ra.col_edges.back()), static_cast<double>(ra.row_edges.front()),
                static_cast<double>(ra.row_edges.back()), ColormapId::kRdBu, panel.colorbar->vmin,
                panel.colorbar->vmax, any_nan);
      GreyMaskedTexels(ra, panel.image->rgba.data());
      GreyMaskedTexels(rb, panel.image->rgba.data());
    }
  }
  f.legend.push_back({"A: " + ea.Summary(), kNoColor});
  f.legend.push_back({"B: " + eb.Summary(), kNoColor});
  const size_t before_mask = f.legend.size();
  AddMaskedLegend(ea, f);
  if (f.legend.size() == before_mask) AddMaskedLegend(eb, f);
  if (!(ra.one_cell_per_texel() && rb.one_cell_per_texel())) {
    f.legend.push_back({"texel = exact mean of its cells", kNoColor});
  }
  if (!diff) {
    f.legend.push_back({p.no_difference, kNoColor});
  } else if (equal) {
    f.legend.push_back(
        {std::string("A ") + kMinus + " B is 0 everywhere in this window", kNoColor});
  }
  return f;
}

// The numbers: refused without a difference; the sizes checked against the cap.
Status CheckCompareSize(const ViewContext& c, const ComparePair& p) {
  if (!p.no_difference.empty()) {
    return InvalidArgument("the compare table holds A, B and A " + std::string(kMinus) +
                           " B, so both must cover the same cells: " + p.no_difference);
  }
  const Encoding& ea = *c.encoding;
  const auto rows = static_cast<uint64_t>(ea.rows());
  if (c.params.compare_of == CompareOf::kTable) {
    return CheckFloatCount("the compare table (3, L, columns)", 3 * rows,
                           static_cast<uint64_t>(ea.cols()), c.params.cap);
  }
  if (Status s = CheckFloatCount("the compare table (3, L, L)", 3 * rows, rows, c.params.cap);
      !s.ok()) {
    return s;
  }
  // Each configuration's keys, (L, d) in double.
  return CheckFloatCount("the compare table's keys", rows,
                         2 * static_cast<uint64_t>(c.params.pe.d_model + p.b.pe.d_model),
                         c.params.cap);
}

const char* const kPartNames[] = {"A", "B", "A-B"};

void WriteCsvLine(std::ostream& out, int part, int64_t pos, const float* v, int64_t n) {
  std::string line = kPartNames[part];
  line += ',';
  line += std::to_string(pos);
  for (int64_t j = 0; j < n; ++j) {
    line += ',';
    if (!std::isnan(v[j])) line += FormatFloat(v[j]);
  }
  line += '\n';
  out.write(line.data(), static_cast<std::streamsize>(line.size()));
}

}  // namespace

std::string DefaultVersus(const ModelParams& a) {
  return DescriptorOf(a.pe.kind()).default_versus(a.pe);
}

namespace {

const char* EmptyVersusNote(const ModelParams& a) {
  return a.versus.empty() ? " (the default B of an empty --versus)" : "";
}

// The start of an error about B's encoding: which overrides made it.
std::string AboutB(const ModelParams& a) {
  return "B (--versus \"" + (a.versus.empty() ? DefaultVersus(a) : a.versus) + "\"" +
         EmptyVersusNote(a) + "): ";
}

}  // namespace

namespace {

// B with the model keys of --versus (model, model_config, layer) applied as the command line
// applies --model and --layer: the named model's layer sets B's scheme, width, window,
// temperature and softmax scale, on A's rows; then the other keys override it. Without a model
// key, A's parameters with the overrides.
Result<ModelParams> VersusB(const ModelParams& a, const std::string& text) {
  Result<std::vector<std::pair<std::string, std::string>>> pairs = ParseVersus(text);
  if (!pairs.ok()) return pairs.error();
  std::string model_keys, other_keys;
  bool names_model = false, names_file = false;
  for (const auto& [key, value] : pairs.value()) {
    const bool is_model = key == "model" || key == "model_config" || key == "layer";
    names_model = names_model || key == "model";
    names_file = names_file || key == "model_config";
    std::string& to = is_model ? model_keys : other_keys;
    to += (to.empty() ? "" : ",") + key + "=" + value;
  }
  if (model_keys.empty()) return ApplyVersus(a, text);
  Result<ModelParams> b = ApplyVersus(a, model_keys);
  if (!b.ok()) return b;
  ModelParams& m = b.value();
  // A model named anew replaces A's (the other way of naming one is dropped).
  if (names_model && !names_file) m.model_config.clear();
  if (names_file && !names_model) m.model_name.clear();
  if (m.model_name != a.model_name || m.model_config != a.model_config) m.model = nullptr;
  if (!names_model && !names_file && a.model == nullptr) {
    return InvalidArgument("--versus: " + model_keys +
                           ": a layer of a model needs a model (A has none: give model=NAME)");
  }
  const int64_t rows = a.pe.max_len, offset = a.pe.offset;
  if (Status s = OpenModel(m); !s.ok()) return InvalidArgument("--versus: " + s.message());
  m.pe.max_len = rows;
  m.pe.offset = offset;
  if (other_keys.empty()) return b;
  return ApplyVersus(m, other_keys);
}

}  // namespace

Result<ModelParams> CompareB(const ModelParams& a) {
  Result<ModelParams> b = VersusB(a, a.versus.empty() ? DefaultVersus(a) : a.versus);
  if (!b.ok()) return InvalidArgument(b.message() + EmptyVersusNote(a));
  // A table or tokenizer B names (A's are loaded already), named by its override as when
  // setting the field read the file.
  if (Status s = LoadParamFiles(b.value()); !s.ok()) {
    std::string said = "--versus: " + s.message();
    const std::string& text = a.versus.empty() ? DefaultVersus(a) : a.versus;
    if (auto pairs = ParseVersus(text); pairs.ok()) {
      for (const auto& [key, value] : pairs.value()) {
        const ParamField* f = FindParamField(key);
        if (f != nullptr && s.message().rfind(std::string(f->flag) + ":", 0) == 0) {
          said = "--versus: " + key + "=" + value + ": " + s.message();
        }
      }
    }
    return InvalidArgument(said + EmptyVersusNote(a));
  }
  return b;
}

Status CheckCompareB(const ModelParams& a) {
  Result<ModelParams> b = CompareB(a);
  if (!b.ok()) return b.status();
  Status s = ValidateEncodingParams(b.value().pe);
  if (s.ok()) s = CheckEncodingFits(b.value().pe, b.value().cap);
  if (s.ok()) return s;
  return InvalidArgument(AboutB(a) + s.message());
}

Result<ComparePair> MakeComparePair(const ModelParams& a, const Encoding& ea,
                                    const EncodingPtr& built_b) {
  ComparePair p;
  p.versus = a.versus.empty() ? DefaultVersus(a) : a.versus;
  Result<ModelParams> b = CompareB(a);
  if (!b.ok()) return b.error();
  p.b = std::move(b).value();
  Result<EncodingPtr> eb = ReuseOrMakeEncoding(p.b.pe, p.b.cap, built_b);
  if (!eb.ok()) {
    return InvalidArgument(AboutB(a) + eb.message());
  }
  p.b_encoding = std::move(eb).value();
  Labels(a, p.b, p.versus, p.a_label, p.b_label);
  p.no_difference = NoDifference(a, ea, *p.b_encoding);
  return p;
}

ViewRange CompareWindow(const ModelParams& a, const Encoding& ea, const ComparePair& p,
                        const ViewSelection& sel) {
  const Encoding& eb = *p.b_encoding;
  const auto first_a = static_cast<double>(ea.first_position());
  const double end_a = first_a + static_cast<double>(ea.rows());
  const double first = std::min(first_a, static_cast<double>(eb.first_position()));
  const double end =
      std::max(end_a, static_cast<double>(eb.first_position()) + static_cast<double>(eb.rows()));
  // An axis showing the whole of A (or nothing) shows the whole of both.
  auto widen = [](double& lo, double& hi, double whole_lo, double whole_hi, double lo_all,
                  double hi_all) {
    if (!(hi > lo) || (lo == whole_lo && hi == whole_hi)) lo = lo_all, hi = hi_all;
  };
  ViewRange w;
  if (a.compare_of == CompareOf::kScore) {
    w = sel.windows[ViewKind::kScore];
    widen(w.x0, w.x1, first_a, end_a, first, end);
  } else {
    w = sel.windows[ViewKind::kHeatmap];
    const auto cols_a = static_cast<double>(ea.cols());
    widen(w.x0, w.x1, 0, cols_a, 0, std::max(cols_a, static_cast<double>(eb.cols())));
  }
  widen(w.y0, w.y1, first_a, end_a, first, end);
  return w;
}

CompareCell CompareCellValues(const ModelParams& a, const EncodingPtr& ea, const ComparePair& p,
                              int64_t row, int64_t col) {
  CompareCell cell{kNaN, kNaN, kNaN};
  if (a.compare_of == CompareOf::kScore) {
    auto score = [&](const ModelParams& m, const EncodingPtr& e) {
      if (row < e->first_position() || row > e->last_position() || col < e->first_position() ||
          col > e->last_position()) {
        return kNaN;
      }
      Result<AttentionScorer> s = AttentionScorer::Make(m, e);
      return s.ok() ? s.value().Score(row, col) : kNaN;
    };
    cell.a = score(a, ea);
    cell.b = score(p.b, p.b_encoding);
  } else {
    auto value = [&](const Encoding& e) {
      if (row < e.first_position() || row > e.last_position() || col < 0 || col >= e.cols()) {
        return kNaN;
      }
      float v = 0.0f;
      e.FillBlock(row - e.first_position(), 1, col, 1, &v);
      return static_cast<double>(v);
    };
    cell.a = value(*ea);
    cell.b = value(*p.b_encoding);
  }
  if (p.no_difference.empty()) cell.diff = cell.a - cell.b;
  return cell;
}

Result<Figure> CompareFigure(const ViewContext& c) {
  Result<ComparePair> p = MakeComparePair(c.params, *c.encoding, c.versus);
  if (!p.ok()) return p.error();
  return c.params.compare_of == CompareOf::kScore ? ScoreCompareFigure(c, p.value())
                                                  : TableCompareFigure(c, p.value());
}

namespace {

// Whether the pair's table can be written (its size, and the scorers of a score comparison).
Status CheckComparePair(const ViewContext& c, const ComparePair& p) {
  if (Status s = CheckCompareSize(c, p); !s.ok()) return s;
  if (c.params.compare_of == CompareOf::kScore) {
    if (Status s = AttentionScorer::Make(c.params, c.encoding).status(); !s.ok()) return s;
    return ScorerB(c.params, p).status();
  }
  return {};
}

}  // namespace

Status CheckCompareTable(const ViewContext& c) {
  Result<ComparePair> p = MakeComparePair(c.params, *c.encoding, c.versus);
  if (!p.ok()) return p.error();
  return CheckComparePair(c, p.value());
}

Status WriteCompareView(std::ostream& out, TableFormat format, const ViewContext& c,
                        const Progress& progress) {
  // B is made once, for the check and the writing (a learned B is a table to draw).
  Result<ComparePair> pair = MakeComparePair(c.params, *c.encoding, c.versus);
  if (!pair.ok()) return pair.error();
  const ComparePair& p = pair.value();
  if (Status s = CheckComparePair(c, p); !s.ok()) return s;
  const Encoding& ea = *c.encoding;
  const Encoding& eb = *p.b_encoding;
  const bool score = c.params.compare_of == CompareOf::kScore;
  const int64_t L = ea.rows(), first = ea.first_position();
  const int64_t cols = score ? L : ea.cols();
  std::optional<AttentionScorer> sa, sb;
  std::vector<double> keys_a, keys_b;
  if (score) {
    sa = AttentionScorer::Make(c.params, c.encoding).value();
    sb = ScorerB(c.params, p).value();
    keys_a = ScoreKeys(*sa, first, L);
    keys_b = ScoreKeys(*sb, first, L);
  }
  if (format == TableFormat::kNpy) {
    const int64_t shape[] = {3, L, cols};
    out << NpyHeader(shape);
  } else {
    std::string header = score ? "part,q" : "part,pos";
    const std::string prefix = score ? "k" : AxesOf(ea).csv_prefix;
    for (int64_t j = 0; j < cols; ++j) {
      header += ',';
      header += prefix;
      header += std::to_string(score ? first + j : j);
    }
    header += '\n';
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
  }
  // Three passes (A, B, then A - B from both), each in row blocks, so no (L, L) table is held.
  const int64_t block_rows = std::min(TableBlockRows(cols), L);
  const auto block_size = static_cast<size_t>(block_rows * cols);
  std::vector<double> da(score ? block_size : 0), db(score ? block_size : 0);
  std::vector<float> fa(score ? 0 : block_size), fb(score ? 0 : block_size), block(block_size);
  for (int part = 0; part < 3; ++part) {
    for (int64_t r0 = 0; r0 < L && out; r0 += block_rows) {
      const int64_t rows = std::min(block_rows, L - r0);
      const auto n = static_cast<size_t>(rows * cols);
      if (score) {
        if (part != 1) ScoreBlock(*sa, keys_a.data(), first, L, first + r0, rows, da.data());
        if (part != 0) ScoreBlock(*sb, keys_b.data(), first, L, first + r0, rows, db.data());
        for (size_t i = 0; i < n; ++i) {
          block[i] = static_cast<float>(part == 0 ? da[i] : part == 1 ? db[i] : da[i] - db[i]);
        }
      } else {
        if (part != 1) ea.FillBlock(r0, rows, 0, cols, fa.data());
        if (part != 0) eb.FillBlock(r0, rows, 0, cols, fb.data());
        for (size_t i = 0; i < n; ++i) {
          // float - float is exact in double; one rounding to float32.
          block[i] =
              part == 0 ? fa[i]
              : part == 1
                  ? fb[i]
                  : static_cast<float>(static_cast<double>(fa[i]) - static_cast<double>(fb[i]));
        }
      }
      if (format == TableFormat::kNpy) {
        WriteFloatsLE(out, block.data(), rows * cols);
      } else {
        for (int64_t i = 0; i < rows; ++i) {
          WriteCsvLine(out, part, first + r0 + i, block.data() + i * cols, cols);
        }
      }
      const double done =
          (static_cast<double>(part) * static_cast<double>(L) + static_cast<double>(r0 + rows)) /
          (3.0 * static_cast<double>(L));
      if (progress && !progress(done)) return RuntimeError("the export was cancelled");
    }
  }
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// As CompareFigure: three images (A, B, A - B) each at most a third of the width, at most 4096
// texels a side; for scores, the two rasters' mean queries and keys, (texel rows + columns) x d
// doubles for each configuration (B's d_model from --versus).
uint64_t CompareEstimate(const EstimateContext& c) {
  const ModelParams& params = c.params;
  const uint64_t w = EstimatedScreenTexels(c.width_px / 3 + 1);
  const uint64_t h = EstimatedScreenTexels(c.height_px);
  uint64_t bytes = 3 * kFigureBytesPerTexel * w * h;
  if (params.compare_of == CompareOf::kScore) {
    const auto d = static_cast<uint64_t>(params.pe.d_model);
    uint64_t d_b = d;
    if (Result<ModelParams> b =
            ApplyVersus(params, params.versus.empty() ? DefaultVersus(params) : params.versus);
        b.ok()) {
      d_b = static_cast<uint64_t>(b.value().pe.d_model);
    }
    bytes += 8 * (w + h) * (d + d_b);
  }
  return bytes;
}

}  // namespace pe
