// Panels that draw the core's Figure of their view, so the screen and an exported file share
// one geometry (samples, bars, arrows, labels, colours): the figure is built by the view's
// registry entry at the panel's size and drawn here with the plot layer. The view window is the
// figure's own; double-click fits it again.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "arch/model_choice.h"
#include "figure/label_placement.h"
#include "figure/markup.h"
#include "model/model_schedule.h"
#include "panels/panels.h"
#include "ui/model_pick.h"
#include "ui/plot.h"
#include "views/view_registry.h"

namespace pe {
namespace {

ImU32 ToImU32(Rgba8 c) {
  return IM_COL32(c.r, c.g, c.b, c.a);
}

// `v` widened on one axis, about its centre, so x span / y span is `aspect`.
PlotRange WidenToAspect(PlotRange v, double aspect) {
  const double sx = v.x1 - v.x0, sy = v.y1 - v.y0;
  if (!(sx > 0) || !(sy > 0) || !(aspect > 0)) return v;
  if (sx / sy < aspect) {
    const double c = (v.x0 + v.x1) / 2, half = sy * aspect / 2;
    v.x0 = c - half;
    v.x1 = c + half;
  } else {
    const double c = (v.y0 + v.y1) / 2, half = sx / aspect / 2;
    v.y0 = c - half;
    v.y1 = c + half;
  }
  return v;
}

// The rotation view's position p (a slider over the table's positions) and a play switch that
// advances p every frame, so the arrows turn as a sequence goes on.
}  // namespace

void RotationControls(AppState& state, const Derived& derived, ViewKind) {
  const Encoding& e = *derived.encoding;
  const int64_t first = e.first_position(), last = e.last_position();
  int64_t p = state.rotation.position == -1 ? std::min(first + 10, last) : state.rotation.position;
  bool playing = state.rotation.playing;
  if (ImGui::Checkbox("play", &playing)) {
    Edit(state, [playing](AppState& st) { st.rotation.playing = playing; });
  }
  ItemTooltip("Advance the position every frame: each pair turns at its own speed.");
  if (e.scheme() == Scheme::kSinusoidal) {
    // The offset K of PE(p + K) = R(K) PE(p), through the parameter table.
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
    int64_t typed = 0;
    if (NumberField(state, "K", state.params.rotation_offset, &typed,
                    "The offset K: each pair of PE(p) turns by K times its frequency to "
                    "PE(p + K) (a whole number, negative goes back).")) {
      EditField(state, "K", "--rotation-offset", std::to_string(typed));
    }
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  const ImGuiSliderFlags flags =
      ImGuiSliderFlags_AlwaysClamp | (last - first > 2000 ? ImGuiSliderFlags_Logarithmic : 0);
  if (first < last && ImGui::SliderScalar("##position", ImGuiDataType_S64, &p, &first, &last,
                                          "position p = %lld", flags)) {
    Edit(state, [p](AppState& st) { st.rotation.position = p; });
  }
  ItemTooltip(e.scheme() == Scheme::kSinusoidal
                  ? "The position p of PE(p), turned by R(K) to PE(p + K) (Ctrl+click to type)."
                  : "The position p whose rotation R_p turns the query (Ctrl+click to type).");
  if (state.rotation.playing) {
    // About ten seconds from the first to the last position at 60 frames a second, at least
    // one position a frame.
    const int64_t step = std::max<int64_t>(1, (last - first) / 600);
    const int64_t next = p + step > last ? first : p + step;
    Edit(state, [next](AppState& st) { st.rotation.position = next; });
  }
}

// The attention mask (--attention-window: a combo and its W or C) and the softmax scale, through
// the parameter table as the command line sets them; a refused value stays red under its field.
void AttentionMaskControls(AppState& state) {
  const float em = ImGui::GetFontSize();
  const ModelParams& p = state.params;
  const AttentionWindow window = EffectiveAttentionWindow(p);
  // Causal ALiBi masks later keys itself (bias -inf there): the combo says so in its tooltip.
  const bool inherent = p.pe.kind() == Scheme::kAlibi && p.pe.alibi().mode == AlibiMode::kCausal;
  const char* labels[] = {"full", "causal", "sliding", "sliding-bidirectional", "chunked"};
  int kind = static_cast<int>(window.kind);
  ImGui::SetNextItemWidth(em * 8);
  FitComboWidth("mask", labels);
  if (ImGui::Combo("mask", &kind, labels, 5)) {
    // A new band starts at a size models use: Mistral's 4096, ModernBERT's 128, Llama 4's 8192.
    const int64_t sizes[] = {0, 0, 4096, 128, 8192};
    const auto k = static_cast<AttentionWindowKind>(kind);
    const int64_t size = window.banded() ? window.size : sizes[kind];
    EditField(
        state, "mask", "--attention-window",
        AttentionWindowText(AttentionWindow{
            k, k == AttentionWindowKind::kFull || k == AttentionWindowKind::kCausal ? 0 : size}));
  }
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    WrappedTooltip(
        inherent ? "Which keys each query sees. Causal ALiBi also masks the keys after each "
                   "query itself (its bias is -inf there); choose symmetric ALiBi to see them."
                 : "Which keys each query sees: full (all), causal (n <= m), sliding W "
                   "(m - W < n <= m: Mistral, Gemma 2/3, GPT-OSS), sliding-bidirectional W "
                   "(|m - n| <= W/2: ModernBERT), chunked C (same chunk of C and n <= m: "
                   "Llama 4).");
  }
  if (window.banded()) {
    int64_t typed = 0;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em * 5);
    const char* label = window.kind == AttentionWindowKind::kChunked ? "C##mask" : "W##mask";
    if (NumberField(state, label, window.size, &typed,
                    window.kind == AttentionWindowKind::kChunked
                        ? "The chunk size C: a query sees the keys of its own chunk up to itself."
                        : "The window W in positions.")) {
      EditField(state, label, "--attention-window",
                std::string(AttentionWindowKindName(window.kind)) + ":" + std::to_string(typed));
    }
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(em * 6);
  const double d = static_cast<double>(p.pe.d_model);
  const double shown = p.softmax_scale > 0 ? p.softmax_scale : 1.0 / std::sqrt(d);
  double typed_scale = 0;
  if (NumberField(state, "softmax scale", shown, &typed_scale,
                  "The factor q.k is multiplied by before the bias and the softmax; "
                  "1/sqrt(d_model) by default (DeepSeek-V3: mscale^2/sqrt(d), mscale = 0.1 ln 40 "
                  "+ 1).")) {
    EditField(state, "softmax scale", "--softmax-scale", NumberText(typed_scale));
  }
  if (p.softmax_scale > 0) {
    ImGui::SameLine();
    if (ImGui::SmallButton("1/\xe2\x88\x9a"
                           "d")) {
      EditField(state, "softmax scale", "--softmax-scale", "default");
    }
    ItemTooltip("Back to the default scale 1/sqrt(d_model).");
  }
}

// The decay view's overlays (the schemes and model layers drawn beside this one, as --compare
// lists them: checkboxes in one drop-down, so the row stays short) and its normalisation
// (--decay-norm, --log-y).
void DecayControls(AppState& state) {
  const float em = ImGui::GetFontSize();
  const ModelParams& p = state.params;
  std::vector<std::string> listed;
  for (size_t start = 0; start <= p.compare.size() && !p.compare.empty();) {
    size_t comma = p.compare.find(',', start);
    if (comma == std::string::npos) comma = p.compare.size();
    listed.push_back(p.compare.substr(start, comma - start));
    start = comma + 1;
  }
  // The schemes in table order, then the layers in the order they were ticked.
  auto set_listed = [&](const std::string& name, bool on) {
    std::vector<std::string> next;
    for (const SchemeDescriptor& e : kSchemeDescriptors) {
      const std::string other(e.name);
      const bool was = std::find(listed.begin(), listed.end(), other) != listed.end();
      if (other == name ? on : was) next.push_back(other);
    }
    for (const std::string& item : listed) {
      if (item.rfind("layer:", 0) == 0 && item != name) next.push_back(item);
    }
    if (on && name.rfind("layer:", 0) == 0) next.push_back(name);
    std::string list;
    for (const std::string& item : next) list += (list.empty() ? "" : ",") + item;
    EditField(state, "overlay", "--compare", list);
  };
  const std::string preview = listed.empty()
                                  ? std::string("this one only")
                                  : std::to_string(listed.size()) + " more: " + p.compare;
  ImGui::SetNextItemWidth(em * 9);
  if (ImGui::BeginCombo("overlay", preview.c_str())) {
    for (const SchemeDescriptor& d : kSchemeDescriptors) {
      if (d.scheme == p.pe.kind()) continue;  // drawn anyway, first
      const std::string name(d.name);
      bool on = std::find(listed.begin(), listed.end(), name) != listed.end();
      ImGui::PushID(name.c_str());
      if (ImGui::Checkbox(name.c_str(), &on)) set_listed(name, on);
      ItemTooltip("Draw this scheme's curve too, with its defaults and this shape (--compare).");
      ImGui::PopID();
    }
    if (p.model) {
      // The opened model's layers: the first of each treatment the model has (Gemma's local
      // and global, Llama 4's RoPE and NoPE), the layer shown left out.
      const std::vector<LayerPosition>& layers = p.model->layers;
      const bool shown_valid =
          p.model_layer >= 0 && static_cast<size_t>(p.model_layer) < layers.size();
      for (size_t k = 0; k < layers.size(); ++k) {
        bool seen = false;
        for (size_t j = 0; j < k && !seen; ++j) seen = layers[j] == layers[k];
        if (seen || (shown_valid && layers[static_cast<size_t>(p.model_layer)] == layers[k])) {
          continue;
        }
        const std::string name = "layer:" + std::to_string(k);
        const std::string label =
            "layer " + std::to_string(k) +
            (layers[k].type.empty() ? std::string() : " (" + layers[k].type + ")");
        bool on = std::find(listed.begin(), listed.end(), name) != listed.end();
        ImGui::PushID(name.c_str());
        if (ImGui::Checkbox(label.c_str(), &on)) set_listed(name, on);
        ItemTooltip(("Draw layer " + std::to_string(k) +
                     " of the model too, with its own treatment and this one's rows (--compare " +
                     name + ").")
                        .c_str());
        ImGui::PopID();
      }
    }
    ImGui::EndCombo();
  }
  ItemTooltip(
      "Schemes (and the opened model's layers) drawn beside this one: tick them in the list.");
  ImGui::SameLine();
  const char* norms[] = {"raw", "minus-zero", "softmax"};
  int norm = static_cast<int>(p.decay_norm);
  ImGui::SetNextItemWidth(em * 7);
  FitComboWidth("normalise", norms);
  if (ImGui::Combo("normalise", &norm, norms, 3)) {
    EditField(state, "normalise", "--decay-norm", norms[norm]);
  }
  ItemTooltip(
      "raw: the scores as they are. minus-zero: each curve minus its score at distance 0, so "
      "curves of different sizes start together. softmax: each curve as softmax weights over "
      "every distance (they sum to 1), where a query's attention goes; with log y, ALiBi's "
      "steep heads no longer flatten the others.");
  ImGui::SameLine();
  ImGui::BeginDisabled(p.decay_norm != DecayNorm::kSoftmax && !p.decay_log_y);
  bool log_y = p.decay_log_y;
  if (ImGui::Checkbox("log y", &log_y)) {
    EditField(state, "log y", "--log-y", log_y ? "true" : "false");
  }
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    WrappedTooltip("A log y axis, for the softmax weights (positive): tiny weights far away show.");
  }
}

// What the scores are of: the content (one random vector, ones, or two tokens of the sentence)
// and the causal mask, through the parameter table as the command line sets them.
void ScoreControls(AppState& state, const Derived& derived, ViewKind view) {
  const float em = ImGui::GetFontSize();
  const ScoreContent& c = state.params.content;
  const char* contents[] = {"random x", "ones", "two tokens"};
  int kind = static_cast<int>(c.kind);
  ImGui::SetNextItemWidth(em * 7);
  FitComboWidth("content", contents);
  if (ImGui::Combo("content", &kind, contents, 3)) {
    const char* texts[] = {"random", "ones", nullptr};
    EditField(state, "content", "--content",
              kind == 2 ? "tokens:" + std::to_string(c.token_a) + "," + std::to_string(c.token_b)
                        : std::string(texts[kind]));
  }
  ItemTooltip(
      "What q and k are made of before the scheme acts: one seeded N(0,1) vector used as both, "
      "all ones, or the embeddings of two tokens of the sentence (A as the query, B as the key).");
  if (c.kind == ScoreContent::Kind::kTokens) {
    int64_t typed = 0;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em * 3);
    if (NumberField(state, "A", c.token_a, &typed,
                    "The query's token (its index in the sentence).")) {
      EditField(state, "A", "--content",
                "tokens:" + std::to_string(typed) + "," + std::to_string(c.token_b));
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em * 3);
    if (NumberField(state, "B", c.token_b, &typed,
                    "The key's token (its index in the sentence).")) {
      EditField(state, "B", "--content",
                "tokens:" + std::to_string(c.token_a) + "," + std::to_string(typed));
    }
  }
  if (view == ViewKind::kScore || view == ViewKind::kAttention || view == ViewKind::kDecay) {
    AttentionMaskControls(state);
  }
  TemperatureControls(state, derived);
  if (view == ViewKind::kScore) {
    bool position = state.params.score_part == ScorePart::kPosition;
    if (ImGui::Checkbox("position part only", &position)) {
      EditField(state, "position part only", "--score-part", position ? "position" : "all");
    }
    ItemTooltip(
        "Subtract the content term: the score minus the same score with no positional scheme. "
        "With random content x.x/sqrt(d) is about sqrt(d) and hides the +-0.1 that position "
        "adds; this shows that part alone (added schemes: x.PE_n + PE_m.x + PE_m.PE_n).");
  }
  if (view == ViewKind::kDecay) DecayControls(state);
}

// The precision view's format, through the parameter table as --dtype sets it.
void PrecisionControls(AppState& state, const Derived&, ViewKind) {
  const float em = ImGui::GetFontSize();
  const char* names[] = {"bfloat16 (bf16)", "float16 (fp16)"};
  const char* values[] = {"bf16", "fp16"};
  int dtype = state.params.dtype == LowPrecision::kBf16 ? 0 : 1;
  ImGui::SetNextItemWidth(em * 9);
  FitComboWidth("format", names);
  if (ImGui::Combo("format", &dtype, names, 2)) {
    EditField(state, "format", "--dtype", values[dtype]);
  }
  ItemTooltip(
      "The format the table is stored in. bfloat16 keeps float32's range with 8 significant "
      "bits; float16 keeps 11 bits, overflows past 65504 and has subnormals below 2^-14.");
}

// The similarity views' measure, through the parameter table as --measure sets it.
void SimilarityControls(AppState& state, const Derived&, ViewKind) {
  const float em = ImGui::GetFontSize();
  const char* measures[] = {"dot", "cosine"};
  int measure = state.params.measure == SimilarityMeasure::kCosine ? 1 : 0;
  ImGui::SetNextItemWidth(em * 7);
  FitComboWidth("measure", measures);
  if (ImGui::Combo("measure", &measure, measures, 2)) {
    EditField(state, "measure", "--measure", measures[measure]);
  }
  ItemTooltip("dot: PE(p)\xc2\xb7PE(q). cosine: the dot over |PE(p)| |PE(q)|, 1 on the diagonal.");
}

// The attention view's query: a slider over the table's positions (-1, the default, shows as
// the last position), set through the parameter table as --query.
void AttentionControls(AppState& state, const Derived& derived, ViewKind view) {
  ScoreControls(state, derived, view);
  const Encoding& e = *derived.encoding;
  const int64_t first = e.first_position(), last = e.last_position();
  int64_t m = state.params.query == -1 ? last : std::clamp(state.params.query, first, last);
  ImGui::SetNextItemWidth(-1);
  const ImGuiSliderFlags flags =
      ImGuiSliderFlags_AlwaysClamp | (last - first > 2000 ? ImGuiSliderFlags_Logarithmic : 0);
  if (first < last && ImGui::SliderScalar("##query", ImGuiDataType_S64, &m, &first, &last,
                                          "query m = %lld", flags)) {
    EditField(state, "query", "--query", std::to_string(m));
  }
  ItemTooltip("The query whose softmax over every key is drawn (Ctrl+click to type).");
}

namespace {

// A figure's point labels beside their points, placed as the exported figure places them
// (label_placement.h), and the hovered point's description in a tooltip.
void DrawPointLabels(Plot& plot, const Figure& f, float em) {
  std::vector<LabelRequest> points, labels;
  double radius = 0;
  for (const FigureSeries& s : f.series) {
    radius = std::max(radius, s.marker_radius * em / 13.0);
    for (size_t k = 0; k < s.marker_xs.size(); ++k) {
      const ImVec2 at = plot.ToPixels(s.marker_xs[k], s.marker_ys[k]);
      points.push_back({at.x, at.y, 0, 0});
    }
  }
  const float text_h = ImGui::GetTextLineHeight();
  for (const FigureLabel& l : f.labels) {
    const ImVec2 at = plot.ToPixels(l.x, l.y);
    labels.push_back({at.x, at.y, ImGui::CalcTextSize(l.text.c_str()).x, text_h});
  }
  const ImVec2 lo = plot.area_min(), hi = plot.area_max();
  const std::vector<PlacedLabel> placed =
      PlaceLabels(labels, points, radius, em * 0.15, {lo.x, lo.y, hi.x, hi.y});
  const ImVec2 mouse = ImGui::GetMousePos();
  const FigureLabel* hovered = nullptr;
  float best = em * 0.6f;  // within this many pixels of a point
  for (size_t k = 0; k < f.labels.size(); ++k) {
    const FigureLabel& l = f.labels[k];
    if (placed[k].shown && !l.text.empty()) {
      // A backing in the window's colour, so arrows under a label do not cross its letters.
      const ImVec2 at(static_cast<float>(placed[k].x), static_cast<float>(placed[k].y));
      ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
      bg.w = 0.85f;
      plot.draw_list()->AddRectFilled(
          ImVec2(at.x - 1, at.y), ImVec2(at.x + static_cast<float>(labels[k].w) + 1, at.y + text_h),
          ImGui::ColorConvertFloat4ToU32(bg));
      plot.draw_list()->AddText(
          ImVec2(static_cast<float>(placed[k].x), static_cast<float>(placed[k].y)),
          ToImU32(l.color), l.text.c_str());
    }
    const float dx = static_cast<float>(labels[k].x) - mouse.x;
    const float dy = static_cast<float>(labels[k].y) - mouse.y;
    const float dist = std::sqrt(dx * dx + dy * dy);
    if (plot.hovered() && dist < best) {
      best = dist;
      hovered = &l;
    }
  }
  if (hovered)
    ImGui::SetTooltip("%s",
                      hovered->hover.empty() ? hovered->text.c_str() : hovered->hover.c_str());
}

// The layers view's cells: hovering a layer's column says what a click and a right-click do; a
// click (not a drag) picks the layer, as the controls' layer slider does (one undo step); a
// right-click opens a menu comparing the layer shown with the one clicked (--versus
// "layer=N").
void DrawLayerCellActions(const Plot& plot, AppState& state, float em) {
  constexpr const char* kMenu = "layer_cell_menu";
  if (state.params.model && plot.hovered()) {
    const ModelSchedule& s = *state.params.model;
    const double x = std::floor(plot.mouse_x());
    if (x >= 0 && x < static_cast<double>(s.layers.size())) {
      const auto layer = static_cast<int64_t>(x);
      const int64_t shown = state.params.model_layer;
      ImGui::BeginTooltip();
      ImGui::TextUnformatted(("Layer " + std::to_string(layer) + ": " +
                              LayerTreatmentText(s.layers[static_cast<size_t>(layer)]))
                                 .c_str());
      ImGui::TextDisabled(layer == shown
                              ? "The layer every view shows."
                              : "Click: show this layer in every view. Right-click: compare "
                                "layer %lld with this layer.",
                          static_cast<long long>(shown));
      ImGui::EndTooltip();
      if (ImGui::IsMouseReleased(ImGuiMouseButton_Left) &&
          ImGui::GetIO().MouseDragMaxDistanceSqr[0] < em * em * 0.25f && layer != shown) {
        if (Result<ModelParams> next = PickModelLayer(state.params, layer); next.ok()) {
          QueueModelStep(state, std::move(next).value());
        }
      }
      if (ImGui::IsMouseReleased(ImGuiMouseButton_Right)) {
        state.model_pick.menu_layer = layer;
        ImGui::OpenPopup(kMenu);
      }
    }
  }
  if (ImGui::BeginPopup(kMenu)) {
    const int64_t layer = state.model_pick.menu_layer, shown = state.params.model_layer;
    const std::string item = "Compare layer " + std::to_string(shown) + " with this layer (" +
                             std::to_string(layer) + ")";
    if (ImGui::MenuItem(item.c_str(), nullptr, false, layer != shown && layer >= 0)) {
      CompareWithLayer(state, layer);
    }
    ItemTooltip(layer == shown ? "This is the layer shown: pick another to compare with."
                               : "The compare view with A the layer shown (as the parameters "
                                 "are now) and B this layer, as --versus \"layer=N\" makes it.");
    const std::string pick = "Show layer " + std::to_string(layer) + " in every view";
    if (ImGui::MenuItem(pick.c_str(), nullptr, false, layer != shown && layer >= 0)) {
      if (Result<ModelParams> next = PickModelLayer(state.params, layer); next.ok()) {
        QueueModelStep(state, std::move(next).value());
      }
    }
    ImGui::EndPopup();
  }
}

}  // namespace

void DrawFigurePanel(const PanelEntry& p, AppState& state, const Derived& derived,
                     FigurePanelCache& cache, UiServices& services, DrawnRecord& drawn) {
  const ViewKind view = p.view;
  if (!derived.pe_status.ok()) {
    NoEncodingText(derived, "Nothing to show: ");
    return;
  }
  if (Status s = CheckViewApplies(view, state.params); !s.ok()) {
    ErrorText(InWindowTerms(s.message(), ""));
    return;
  }
  const float em = ImGui::GetFontSize();
  if (p.controls != nullptr) p.controls(state, derived, view);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // The legend's column, unless the view's figure has no legend (T5's bias): then the plot takes
  // the width (one figure is made again at the wider size when the first arrives).
  const bool no_legend = cache.figure && cache.figure->legend.empty();
  const float legend_w = no_legend ? 0.0f : std::min(em * 14.0f, avail.x * 0.38f);
  ViewSelection sel = ViewsOf(state, view);
  // The score and similarity views are computed for the window on screen (a table of 2^31
  // positions pans and zooms): the figure follows the plot's view (AppState's, so an export
  // draws it too; the two (position x position) views share it), within the whole table.
  const bool follows_view = p.window == FigureWindow::kScore;
  ViewRange whole;
  if (follows_view) {
    const Encoding& e = *derived.encoding;
    const auto first = static_cast<double>(e.first_position());
    const double end = first + static_cast<double>(e.rows());
    whole = {first, end, first, end};
  }
  // The precision view shows the heatmap's window (computed at screen resolution, so a table
  // of 2^31 positions pans and zooms): panning or zooming here moves the heatmap too, and an
  // export from the window shows the same window. The check view pans and zooms over the
  // loaded table in a window of its own (AppState's, so an export draws it too).
  const bool shares_heatmap_view = p.window == FigureWindow::kHeatmap;
  const bool own_table_view = p.window == FigureWindow::kOwnTable;
  if (shares_heatmap_view) {
    const Encoding& e = *derived.encoding;
    const auto first = static_cast<double>(e.first_position());
    whole = {0, static_cast<double>(e.cols()), first, first + static_cast<double>(e.rows())};
  }
  FigureSize size;
  size.width = std::max(200.0, static_cast<double>(avail.x - legend_w));
  size.height = std::max(200.0, static_cast<double>(avail.y));
  const FigureRequest request{view, state.params, derived.encoding, sel, size};
  // Built by the worker when there is one (newest request wins; quick figures still arrive in
  // this frame), else here.
  auto install = [&](FigureResult r) {
    cache.built = std::move(r.request);
    cache.figure = std::move(r.figure);
    cache.error = std::move(r.error);
    if (cache.figure) {
      if (!follows_view) cache.view = cache.figure->view;
      cache.area = ImVec2(0, 0);  // fit an equal-aspect figure to the plot again
      cache.image_uploaded = false;
    }
  };
  if (services.figures) {
    services.figures->Request(request);
    if (std::optional<FigureResult> r = services.figures->Take(view)) install(std::move(*r));
  } else if (!cache.built || !(*cache.built == request)) {
    install(BuildFigure(request));
  }
  // What is on screen must be of the current parameters: a figure of older parameters is never
  // shown as if current; one of these parameters for another window or size is (the newest
  // picture there is, in its own coordinates) until the new one is ready.
  const bool current_params = cache.built && cache.built->SameParams(state.params);
  if (!current_params) {
    drawn.figures_computing.push_back(view);
    ImGui::TextDisabled("Computing the figure for the new parameters...");
    return;
  }
  if (!cache.figure) {
    // A text without tokens (empty, or spaces only) is a state, not a mistake: said plainly.
    if (cache.error.find("has no tokens") != std::string::npos) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      WrappedText("Nothing to show: " + cache.error + ". Type a text in the token sums panel.");
      ImGui::PopStyleColor();
    } else {
      ErrorText(InWindowTerms(cache.error, ""));
    }
    return;
  }
  const Figure& f = *cache.figure;
  drawn.figures.push_back({view, &f});
  drawn.figure_params.push_back({view, cache.built->params});
  // Text only (the check view before a table is loaded): its lines.
  if (!f.plot) {
    for (const FigureText& t : f.text) WrappedText(t.text);
    return;
  }
  // One plot, or the figure's panels side by side (the first one pans, zooms and holds the
  // image; the others show their own fixed view).
  auto draw_plot = [&](const Figure& fig, PlotRange& range, float width, bool main) {
    PlotSpec spec;
    spec.x_label = fig.x.label.c_str();
    spec.y_label = fig.y.label.c_str();
    // (A figure of panels, as the check view's, holds its extent on the whole, not the panel.)
    spec.limits = main && (follows_view || shares_heatmap_view || own_table_view)
                      ? fig.extent.value_or(f.extent.value_or(whole))
                      : fig.view;
    // The figure was fitted to the exported figure's plot area, which reserves room for the
    // legend; here the legend has its own column, so the plot is wider: widen the view to the
    // plot's shape (last frame's, and from this frame on when it changed).
    if (fig.equal_aspect && cache.area.x > 0 && cache.area.y > 0) {
      spec.limits = WidenToAspect(fig.view, cache.area.x / cache.area.y);
    }
    spec.x_integer = fig.x.integer;
    spec.x_ticks = fig.x.ticks;
    spec.y_ticks = fig.y.ticks;
    spec.x_cells = fig.x.cells;
    spec.y_cells = fig.y.cells;
    spec.y_down = fig.y.reversed;
    // A figure with a colour bar (the score and bias heatmaps) gets one beside its plot.
    const float bar_w = fig.colorbar
                            ? ColorBarWidth(static_cast<float>(fig.colorbar->vmin),
                                            static_cast<float>(fig.colorbar->vmax),
                                            avail.y - em * 2.5f, fig.colorbar->label.c_str())
                            : 0.0f;
    ImGui::BeginGroup();
    Plot plot("figure_plot", range, spec, ImVec2(width - bar_w - em * 0.5f, avail.y));
    if (fig.equal_aspect && main) {
      const ImVec2 area(plot.area_max().x - plot.area_min().x,
                        plot.area_max().y - plot.area_min().y);
      if (area.x != cache.area.x || area.y != cache.area.y) {
        cache.area = area;
        cache.view = WidenToAspect(fig.view, static_cast<double>(area.x) / area.y);
      }
    }
    if (fig.image && services.textures && main) {
      if (!cache.image_uploaded) {
        cache.texture = services.textures->Upload(p.texture_slot, fig.image->width,
                                                  fig.image->height, fig.image->rgba.data());
        cache.image_uploaded = true;
      }
      plot.Image(cache.texture, fig.image->x0, fig.image->y0, fig.image->x1, fig.image->y1);
    }
    for (const FigureRect& r : fig.rects) {
      if (r.filled) {
        plot.FilledRect(r.x0, r.y0, r.x1, r.y1, ToImU32(r.color));
      } else {
        plot.Rect(r.x0, r.y0, r.x1, r.y1, ToImU32(r.color), static_cast<float>(r.line_width));
      }
    }
    for (double y : fig.hlines) plot.HLine(y, CurrentPlotColors().zero_line);
    for (const FigureSeries& s : fig.series) {
      if (!s.band_lo.empty() && s.band_edges.size() == s.band_lo.size() + 1 &&
          s.band_hi.size() == s.band_lo.size()) {
        const Rgba8 c = s.color;
        plot.Band(s.band_edges.data(), s.band_lo.data(), s.band_hi.data(),
                  static_cast<int>(s.band_lo.size()), IM_COL32(c.r, c.g, c.b, 140));
      }
      if (!s.xs.empty()) {
        plot.Line(s.xs.data(), s.ys.data(), static_cast<int>(s.xs.size()), ToImU32(s.color),
                  static_cast<float>(s.line_width));
      }
      if (!s.marker_xs.empty()) {
        plot.Markers(s.marker_xs.data(), s.marker_ys.data(), static_cast<int>(s.marker_xs.size()),
                     ToImU32(s.color), static_cast<float>(s.marker_radius) * em / 13.0f);
      }
    }
    for (const FigureRect& r : fig.overlays) {
      if (r.x0 == r.x1 || r.y0 == r.y1) {
        const double xs[] = {r.x0, r.x1}, ys[] = {r.y0, r.y1};
        plot.Line(xs, ys, 2, ToImU32(r.color), static_cast<float>(r.line_width));
      } else {
        plot.Rect(r.x0, r.y0, r.x1, r.y1, ToImU32(r.color), static_cast<float>(r.line_width));
      }
    }
    if (!fig.labels.empty()) DrawPointLabels(plot, fig, em);
    // The layers view: a click (not a drag) on layer i's column picks that layer, as the
    // controls' layer slider does; a right-click offers to compare the layer shown with it.
    if (view == ViewKind::kLayers && main) DrawLayerCellActions(plot, state, em);
    plot.End();
    ImGui::EndGroup();
    if (main && shares_heatmap_view && !(cache.view == fig.view)) {
      Edit(state, [v = cache.view](AppState& st) {
        st.windows[ViewKind::kHeatmap].view = v;
        st.windows[ViewKind::kHeatmap].fitted = true;
      });
    }
    if (fig.colorbar) {
      ImGui::SameLine();
      ColorBar("figure_colorbar", fig.colorbar->colormap, static_cast<float>(fig.colorbar->vmin),
               static_cast<float>(fig.colorbar->vmax), fig.colorbar->label.c_str(),
               ImVec2(bar_w - em * 0.5f, avail.y - em * 2.5f));
    }
  };
  // The picture of these parameters for another window or size stays until the new one is
  // there (a large table's precision picture can take a second): the plot says so in its corner.
  const bool other_window =
      services.figures && !(*cache.built == request) && services.figures->Busy(view);
  const ImVec2 plot_corner = ImGui::GetCursorScreenPos();
  // A loaded table of another extent (a new file) starts from the whole of it.
  CheckViewState& check = state.check_view;
  if (own_table_view && f.extent && (!check.fitted || !(check.whole == *f.extent))) {
    check.view = check.whole = *f.extent;
    check.fitted = true;
  }
  if (f.panels.empty()) {
    draw_plot(f, follows_view ? state.windows[ViewKind::kScore].view : cache.view,
              avail.x - legend_w, true);
  } else {
    const float each = (avail.x - legend_w) / static_cast<float>(f.panels.size());
    for (size_t k = 0; k < f.panels.size(); ++k) {
      ImGui::PushID(static_cast<int>(k));
      if (k > 0) ImGui::SameLine();
      PlotRange fixed = f.panels[k].view;
      draw_plot(f.panels[k],
                k > 0            ? fixed
                : own_table_view ? check.view
                                 : cache.view,
                each, k == 0);
      ImGui::PopID();
    }
  }
  if (other_window) {
    drawn.figures_for_other_window.push_back(view);
    const char* note = "Computing the picture for this window...";
    const ImVec2 at(plot_corner.x + em * 7.0f, plot_corner.y + em * 0.4f);
    const ImVec2 note_size = ImGui::CalcTextSize(note);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
    bg.w = 0.85f;
    dl->AddRectFilled(ImVec2(at.x - em * 0.3f, at.y - em * 0.1f),
                      ImVec2(at.x + note_size.x + em * 0.3f, at.y + note_size.y + em * 0.1f),
                      ImGui::ColorConvertFloat4ToU32(bg));
    dl->AddText(at, ImGui::GetColorU32(ImGuiCol_Text), note);
  }
  if (legend_w <= 0.0f) return;
  ImGui::SameLine();
  if (ImGui::BeginChild("figure_legend", ImVec2(legend_w, avail.y), true)) {
    // A swatch's label and its wrapped lines start after the swatch; a note (no swatch) uses
    // the whole width, every line from the left edge.
    for (const FigureLegendItem& item : f.legend) {
      if (&item != &f.legend.front()) ImGui::Dummy(ImVec2(0, em * 0.15f));  // items apart
      if (item.color.a == 0) {
        WrappedText(MarkupToUnicode(item.label));  // breaks at spaces: numbers stay whole
        continue;
      }
      const ImVec2 at = ImGui::GetCursorScreenPos();
      ImGui::GetWindowDrawList()->AddLine(ImVec2(at.x, at.y + em * 0.6f),
                                          ImVec2(at.x + em * 1.2f, at.y + em * 0.6f),
                                          ToImU32(item.color), 3.0f);
      ImGui::Indent(em * 1.4f);
      WrappedText(MarkupToUnicode(item.label));
      ImGui::Unindent(em * 1.4f);
    }
  }
  ImGui::EndChild();
}

}  // namespace pe
