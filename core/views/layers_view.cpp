// The layers view of a real model (--model, --model-config): one cell per layer, coloured by
// its treatment (layers with equal LayerPosition share a colour: the scheme and its parameters,
// the window, the temperature), labelled with its base, scaling and window where the cell is
// wide enough, the layer the other views show outlined, and one legend line per class.
//   numbers: CSV only, one row per layer: layer,scheme,base,scaling,pairing,rotary,window,
//            temperature (arch/model_choice.h LayerColumnsOf; "" where a column does not apply).
//            NPY is refused: the columns are names and windows, not numbers.
#include <algorithm>
#include <cstdio>
#include <string>

#include "arch/model_choice.h"
#include "views/figure_budget.h"
#include "views/view_registry.h"

namespace pe {

Result<Figure> LayersFigure(const ViewContext& c);
Status CheckLayersTable(const ViewContext& c);
Status WriteLayersView(std::ostream& out, TableFormat format, const ViewContext& c,
                       const Progress& progress);
uint64_t LayersEstimate(const EstimateContext& c);
std::string LayersTitle(const ModelParams& m, const Encoding& e);

namespace {

Status NeedsModel(const ModelParams& m) {
  if (m.model && !m.model->layers.empty()) return {};
  if (m.model) {
    return InvalidArgument("the layers view: model " + m.model->name + " has no layers");
  }
  return InvalidArgument(
      "the layers view draws a model's layers: give --model NAME (pe-explorer export "
      "--list-models lists them) or --model-config FILE (a config.json or GGUF file)");
}

// "rope 500000 llama3, causal": what a legend line and a wide cell say of a layer.
std::string ShortText(const LayerPosition& l) {
  const LayerColumns col = LayerColumnsOf(l);
  std::string out = col.scheme;
  if (!col.base.empty()) out += " " + col.base;
  if (!col.scaling.empty() && col.scaling != "none") out += " " + col.scaling;
  out += ", " + col.window;
  if (col.temperature != "none") out += ", " + col.temperature;
  return out;
}

}  // namespace

std::string LayersTitle(const ModelParams& m, const Encoding&) {
  // The model's name follows in the "[NAME, layer N]" every model's figure ends with.
  const size_t n = m.model ? m.model->layers.size() : 0;
  return std::string(GetView(ViewKind::kLayers).title) + " (" + std::to_string(n) + " layers)";
}

Result<Figure> LayersFigure(const ViewContext& c) {
  if (Status s = NeedsModel(c.params); !s.ok()) return s.error();
  const ModelSchedule& s = *c.params.model;
  const auto n = static_cast<int64_t>(s.layers.size());
  const std::vector<LayerClass> classes = LayerClasses(s);
  Figure f;
  f.x = {"layer", true, false, true};
  f.y = {"", false, false, false, {Tick{0.5, ""}}};
  f.view = {0, static_cast<double>(n), 0, 1};  // padded below, once a cell's width is known
  const PixelSize px = PlotPixels(c, f);
  const double cell_px = static_cast<double>(px.width) / static_cast<double>(n);
  // The chosen layer's 3-pixel outline stays inside the plot on the first and last layer.
  const double pad = std::max(0.05, 4.0 / std::max(cell_px, 1.0));
  f.view = {-pad, static_cast<double>(n) + pad, 0, 1};
  // A cell too narrow for its class's text keeps its layer's number; too narrow for a number,
  // every k-th layer's (k = 2, 5, 10, 20, 50, ...), each number then over k cells.
  const double number_px = 7.0 * static_cast<double>(std::to_string(n - 1).size()) + 4.0;
  int64_t step = 1;
  for (int64_t decade = 1; cell_px * static_cast<double>(step) < number_px && step < n;
       decade *= 10) {
    for (const int64_t m : {1, 2, 5}) {
      step = m * decade;
      if (cell_px * static_cast<double>(step) >= number_px) break;
    }
  }
  // Each layer's class, so rects[i] and labels[i] are layer i's.
  std::vector<size_t> class_of(static_cast<size_t>(n));
  for (size_t k = 0; k < classes.size(); ++k) {
    for (int64_t i : classes[k].layers) class_of[static_cast<size_t>(i)] = k;
  }
  for (int64_t i = 0; i < n; ++i) {
    const size_t k = class_of[static_cast<size_t>(i)];
    const LayerClass& cl = classes[k];
    const std::string text = ShortText(*cl.layer);
    // About 7 output pixels a character at the tick font: a label only where it fits.
    const bool room = cell_px >= 7.0 * static_cast<double>(text.size()) + 8.0;
    const auto x = static_cast<double>(i);
    f.rects.push_back({x + 0.04, 0.2, x + 0.96, 0.8, SeriesRgba(static_cast<int>(k)), true, 1.0});
    const std::string shown = room ? text : i % step == 0 ? std::to_string(i) : std::string();
    f.labels.push_back({x + 0.5, 0.5, shown, Rgba8{32, 32, 32, 255},
                        "layer " + std::to_string(i) + ": " + LayerTreatmentText(*cl.layer)});
  }
  for (size_t k = 0; k < classes.size(); ++k) {
    const LayerClass& cl = classes[k];
    f.legend.push_back({(cl.layers.size() == 1 ? "layer " : "layers ") +
                            LayerRangesText(cl.layers) + ": " + ShortText(*cl.layer),
                        SeriesRgba(static_cast<int>(k))});
  }
  const int64_t chosen = c.params.model_layer;
  if (chosen >= 0 && chosen < n) {
    const auto x = static_cast<double>(chosen);
    // A grey that reads on the light figure and the dark window.
    f.overlays.push_back({x, 0.08, x + 1, 0.92, Rgba8{128, 128, 128, 255}, false, 3.0});
    f.legend.push_back({"outlined: layer " + std::to_string(chosen) +
                            (ModelModified(c.params) ? " (modified)" : "") +
                            ", the one the other views show",
                        kNoColor});
  }
  for (const LayerClass& cl : classes) {
    f.text.push_back({(cl.layers.size() == 1 ? "layer " : "layers ") + LayerRangesText(cl.layers) +
                          ": " + LayerTreatmentText(*cl.layer),
                      FigureText::Style::kNote});
  }
  return f;
}

Status CheckLayersTable(const ViewContext& c) {
  return NeedsModel(c.params);
}

Status WriteLayersView(std::ostream& out, TableFormat format, const ViewContext& c,
                       const Progress&) {
  if (Status s = NeedsModel(c.params); !s.ok()) return s;
  if (format == TableFormat::kNpy) {
    return InvalidArgument(
        "the layers view's table holds names and windows (scheme, scaling, pairing, window, "
        "temperature), not numbers: write it as .csv");
  }
  const ModelSchedule& s = *c.params.model;
  std::string text = "layer,scheme,base,scaling,pairing,rotary,window,temperature\n";
  for (size_t i = 0; i < s.layers.size(); ++i) {
    const LayerColumns col = LayerColumnsOf(s.layers[i]);
    text += std::to_string(i) + "," + col.scheme + "," + col.base + "," + col.scaling + "," +
            col.pairing + "," + col.rotary + "," + col.window + "," + col.temperature + "\n";
  }
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) return RuntimeError("writing the table failed");
  return {};
}

// As LayersFigure: a rectangle and a label per layer, a legend line and a text line per class.
uint64_t LayersEstimate(const EstimateContext& c) {
  const uint64_t layers = c.params.model ? c.params.model->layers.size() : 0;
  return kFigureBytesPerCurveSample * (64 * layers + 64);
}

}  // namespace pe
