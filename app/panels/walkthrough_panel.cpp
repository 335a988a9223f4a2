// The walkthrough panel: the tutorials' examples one click away, the eight steps from text to model
// input in a list with Back / Next, and the step on show: its title, sentence, formula, the
// current example's numbers, the seed code it corresponds to, what the other views outline, and
// its table (E with the looked-up rows outlined, the PE rows, the model input) as an image. The
// steps come from the core (views/walkthrough.h), the same ones the PDF handout prints.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "figure/colormap.h"
#include "model/walkthrough_presets.h"
#include "panels/panels.h"
#include "ui/plot.h"
#include "views/view_registry.h"

namespace pe {
namespace {

ImU32 ToImU32(Rgba8 c) {
  return IM_COL32(c.r, c.g, c.b, c.a);
}

// One button per preset, wrapping; the loaded one is marked. A preset resets the parameters to
// its example and follows its token; a preset's typed rows are parameters, so the sums view
// (leaving its own "type the vectors yourself" editor) shows the same numbers.
void PresetButtons(AppState& state) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  // The switch between the two walkthroughs (--walkthrough).
  ImGui::TextDisabled("Walkthrough:");
  for (WalkthroughKind kind : {WalkthroughKind::kInput, WalkthroughKind::kAttention}) {
    ImGui::SameLine();
    const char* label =
        kind == WalkthroughKind::kInput ? "Text to model input" : "Position in attention";
    if (ImGui::RadioButton(label, state.params.walkthrough == kind)) {
      Edit(state, [kind](AppState& st) {
        st.params.walkthrough = kind;
        st.walkthrough.step = 0;
        st.walkthrough.fitted_step = -1;
      });
    }
  }
  const bool attention = state.params.walkthrough == WalkthroughKind::kAttention;
  ImGui::TextDisabled(attention ? "Attention examples:" : "Tutorial examples:");
  ImGui::SameLine();
  bool first = true;
  for (const WalkthroughPreset& p : WalkthroughPresets()) {
    if ((PresetWalkthrough(p) == WalkthroughKind::kAttention) != attention) continue;
    const std::string label(p.label);
    const float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
    if (!first && ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w < right) {
      ImGui::SameLine();
    }
    first = false;
    const bool loaded = state.params.walkthrough_preset == p.name;
    ImGui::PushID(p.name.data(), p.name.data() + p.name.size());
    if (loaded) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.75f, 0.6f, 0.1f, 1.0f));
    if (ImGui::SmallButton(label.c_str())) {
      const std::string name(p.name);
      const int focus = p.focus_token;
      Edit(state, [name, focus](AppState& st) {
        const bool truncate = st.params.example.truncate;  // the window's own choice
        if (!ApplyWalkthroughPreset(name, st.params).ok()) return;
        st.params.example.truncate = truncate;
        st.selection.selected_token = focus;
        st.sums.manual = false;   // the sums view shows the preset's own rows
        st.walkthrough.step = 0;  // a preset starts its walkthrough at step 1
        st.walkthrough.fitted_step = -1;
        st.walkthrough.step = 0;  // a preset starts its example from step 1
      });
    }
    if (loaded) ImGui::PopStyleColor();
    ItemTooltip(std::string(p.source).c_str());
    ImGui::PopID();
  }
  if (!state.params.walkthrough_preset.empty()) {
    // Wrapped like the presets: on their row only when it fits.
    const char* leave = "keep settings, leave preset";
    const float w = ImGui::CalcTextSize(leave).x + ImGui::GetStyle().FramePadding.x * 2;
    if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w < right) ImGui::SameLine();
    if (ImGui::SmallButton(leave)) {
      Edit(state, [](AppState& st) {
        st.params.walkthrough_preset.clear();
        st.params.input.pe_discarded = false;  // the pitfall belongs to its preset
        st.sums.manual = false;
      });
    }
    ItemTooltip(
        "Forget the preset and its pitfall (the JAX notebook's zero PE table); the "
        "parameters, typed rows included, stay as they are.");
  }
}

// The step list and, below it, Back / Next and the token followed. In a short panel the list
// scrolls (keeping the current step in sight) and the buttons stay where they can be reached.
void StepList(AppState& state, const Walkthrough& w) {
  const int step = state.walkthrough.step;
  const ImGuiStyle& style = ImGui::GetStyle();
  const bool follow = w.token_labels.size() > 1;
  const float footer = ImGui::GetFrameHeightWithSpacing() + style.ItemSpacing.y +
                       (follow ? style.ItemSpacing.y + ImGui::GetTextLineHeightWithSpacing() +
                                     ImGui::GetFrameHeightWithSpacing()
                               : 0.0f);
  const float list_h = std::max(ImGui::GetContentRegionAvail().y - footer,
                                ImGui::GetTextLineHeightWithSpacing() * 2);
  if (ImGui::BeginChild("step_names", ImVec2(0, list_h), false)) {
    const ImGuiID shown = ImGui::GetID("shown_step");  // the step last scrolled into view
    for (int k = 0; k < static_cast<int>(w.pages.size()); ++k) {
      ImGui::PushID(k);
      const std::string label = std::to_string(k + 1) + ". " +
                                std::string(WalkStepName(w.pages[static_cast<size_t>(k)].step));
      if (ImGui::Selectable(label.c_str(), k == step)) {
        Edit(state, [k](AppState& st) { st.walkthrough.step = k; });
      }
      // A step chosen elsewhere (Next, Back, a key, a session) is scrolled wholly into the
      // list's view, once per change (the list may then be scrolled by hand).
      if (k == step) {
        ImGuiStorage* storage = ImGui::GetStateStorage();
        const float top = ImGui::GetWindowPos().y;
        const float bottom = top + ImGui::GetWindowHeight();
        if (storage->GetInt(shown, -1) != step) {
          if (ImGui::GetItemRectMin().y < top || ImGui::GetItemRectMax().y > bottom) {
            ImGui::SetScrollHereY(0.5f);
          }
          storage->SetInt(shown, step);
        }
      }
      ImGui::PopID();
    }
  }
  ImGui::EndChild();
  ImGui::Spacing();
  ImGui::BeginDisabled(step <= 0);
  if (ImGui::Button("< Back")) {
    Edit(state, [](AppState& st) { st.walkthrough.step = std::max(0, st.walkthrough.step - 1); });
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  const int last = static_cast<int>(w.pages.size()) - 1;
  ImGui::BeginDisabled(step >= last);
  if (ImGui::Button("Next >")) {
    Edit(state,
         [last](AppState& st) { st.walkthrough.step = std::min(last, st.walkthrough.step + 1); });
  }
  ImGui::EndDisabled();
  // The token the steps follow (the sums view's selected token).
  const auto tokens = static_cast<int>(w.token_labels.size());
  if (tokens > 1 && w.kind == WalkthroughKind::kInput) {
    ImGui::Spacing();
    ImGui::TextDisabled("Follow token");
    int t = w.focus;
    ImGui::SetNextItemWidth(-1);
    const std::string shown = w.token_labels[static_cast<size_t>(w.focus)];
    if (ImGui::SliderInt("##follow", &t, 0, tokens - 1, shown.c_str(),
                         ImGuiSliderFlags_AlwaysClamp)) {
      Edit(state, [t](AppState& st) { st.selection.selected_token = t; });
    }
    ItemTooltip("The token whose numbers the steps show (also selected in the sums view).");
  }
}

// The step's table as an image with its outlined rows.
void StepImage(AppState& state, const Walkthrough& w, WalkthroughCache& cache, UiServices& services,
               ImVec2 size) {
  const int step = state.walkthrough.step;
  const std::vector<WalkMatrix>& ms = w.matrices[static_cast<size_t>(step)];
  if (ms.empty() || ms.front().values.rows == 0 || size.y < ImGui::GetFontSize() * 5) return;
  const WalkMatrix& m = ms.front();
  if (cache.uploaded_step != step) {
    const FigureImage im = WalkMatrixImage(m, state.params.colormap, &cache.range);
    cache.rgba = im.rgba;
    cache.texture = services.textures
                        ? services.textures->Upload(1 + static_cast<int>(ViewKind::kWalkthrough),
                                                    im.width, im.height, cache.rgba.data())
                        : nullptr;
    cache.uploaded_step = step;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  WrappedText(m.caption);
  ImGui::PopStyleColor();
  size = ImGui::GetContentRegionAvail();
  const auto cols = static_cast<double>(m.values.cols), rows = static_cast<double>(m.values.rows);
  if (state.walkthrough.fitted_step != step) {
    state.walkthrough.view = {0, cols, 0, rows};
    state.walkthrough.fitted_step = step;
  }
  PlotSpec spec;
  spec.x_label = "dimension";
  spec.y_label = m.row_axis == "id" ? "row of E" : "token";
  spec.limits = {0, cols, 0, rows};
  spec.y_down = true;
  spec.x_cells = spec.y_cells = true;
  spec.x_integer = true;
  spec.min_x_span = std::min(4.0, cols);
  spec.min_y_span = std::min(2.0, rows);
  const float em = ImGui::GetFontSize();
  // Rows of tokens are named by their tokens, every k-th row when the rows shown are too
  // thin for a name each (k the least that keeps the names apart).
  const std::vector<Tick> row_names =
      m.row_axis == "token"
          ? WalkRowTicks(w, m, state.walkthrough.view.y1 - state.walkthrough.view.y0,
                         size.y - em * 2.5f, em * 1.15f)
          : std::vector<Tick>{};
  spec.y_ticks = row_names;
  const float bar_w = ColorBarWidth(-cache.range, cache.range, size.y - em * 2.5f);
  Plot plot("walk_plot", state.walkthrough.view, spec, ImVec2(size.x - bar_w, size.y));
  if (cache.texture != nullptr) plot.Image(cache.texture, 0, 0, cols, rows);
  const ImU32 outline = ToImU32(SelectionHighlightColor(state.params.colormap));
  for (int64_t r : m.outlined) {
    const auto y = static_cast<double>(r);
    plot.Rect(0, y, cols, y + 1, outline, r == m.focus_row ? 3.0f : 1.5f);
  }
  plot.End();
  ImGui::SameLine();
  ColorBar("walk_colorbar", state.params.colormap, -cache.range, cache.range, "value",
           ImVec2(bar_w - em * 0.5f, size.y - em * 2.5f));
}

// The step's comparison as bars (the × √d step's norms), each named in a legend line above.
void StepBars(const std::vector<WalkBar>& bars, const std::string& axis, ImVec2 size) {
  double hi = 0, lo = 0;
  for (const WalkBar& b : bars) {
    hi = std::max(hi, b.value);
    lo = std::min(lo, b.value);
  }
  for (size_t k = 0; k < bars.size(); ++k) {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float em = ImGui::GetFontSize();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + em * 0.2f),
                                              ImVec2(at.x + em * 0.8f, at.y + em),
                                              ToImU32(SeriesRgba(static_cast<int>(k))));
    ImGui::Dummy(ImVec2(em, em));
    ImGui::SameLine();
    char line[256];
    std::snprintf(line, sizeof line, "%zu: %s = %.6g", k, bars[k].label.c_str(), bars[k].value);
    WrappedText(line);
  }
  // Never squeezed away: in a short panel the legend and the chart scroll together.
  const ImVec2 left(ImGui::GetContentRegionAvail().x,
                    std::max(ImGui::GetContentRegionAvail().y, ImGui::GetFontSize() * 9));
  PlotRange view{0, static_cast<double>(bars.size()), lo * 1.08,
                 hi > 0 ? hi * 1.08 : (lo < 0 ? 0.0 : 1.0)};
  PlotSpec spec;
  spec.y_label = axis.c_str();
  spec.limits = view;
  spec.x_cells = true;
  spec.x_integer = true;
  spec.crosshair = false;
  Plot plot("walk_bars", view, spec, ImVec2(size.x, left.y));
  for (size_t k = 0; k < bars.size(); ++k) {
    const auto x = static_cast<double>(k);
    plot.FilledRect(x + 0.15, 0, x + 0.85, bars[k].value, ToImU32(SeriesRgba(static_cast<int>(k))));
  }
  plot.End();
}

}  // namespace

void DrawWalkthroughPanel(AppState& state, const Derived& derived, WalkthroughCache& cache,
                          UiServices& services, DrawnRecord& drawn) {
  PresetButtons(state);
  if (!derived.pe_status.ok()) {
    NoEncodingText(derived, "Nothing to show: ");
    return;
  }
  if (Status s = CheckViewApplies(ViewKind::kWalkthrough, state.params); !s.ok()) {
    ErrorText(InWindowTerms(s.message(), ""));
    return;
  }
  const int focus = std::max(0, state.selection.selected_token);
  if (KeyChanged(cache.key, state.params, focus)) {
    Result<Walkthrough> w = BuildWalkthrough(state.params, derived.encoding, focus);
    cache.walk.reset();
    cache.error.clear();
    cache.uploaded_step = -1;
    state.walkthrough.fitted_step = -1;  // another table: fit its image again
    if (w.ok()) {
      cache.walk = std::move(w).value();
    } else {
      cache.error = w.message();
    }
  }
  if (!cache.walk) {
    ErrorText(InWindowTerms(cache.error, ""));
    return;
  }
  const Walkthrough& w = *cache.walk;
  const int step = std::clamp(state.walkthrough.step, 0,
                              static_cast<int>(w.pages.size()) - 1);  // clamped before the frame
  drawn.walkthrough = &w;
  drawn.walkthrough_step = step;
  const WalkPage& page = w.pages[static_cast<size_t>(step)];
  const float em = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (ImGui::BeginChild("walk_steps", ImVec2(em * 10, avail.y), true)) StepList(state, w);
  ImGui::EndChild();
  ImGui::SameLine();
  if (ImGui::BeginChild("walk_page", ImVec2(0, avail.y), false)) {
    // The text on the left, the step's table beside it (the row is wide and short).
    const std::vector<WalkBar>& bars = w.bars[static_cast<size_t>(step)];
    const bool has_image =
        !bars.empty() || (!w.matrices[static_cast<size_t>(step)].empty() &&
                          w.matrices[static_cast<size_t>(step)].front().values.rows > 0);
    const ImVec2 page_avail = ImGui::GetContentRegionAvail();
    const float text_w = has_image ? page_avail.x * 0.56f : page_avail.x;
    if (ImGui::BeginChild("walk_text", ImVec2(text_w, page_avail.y), false)) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.45f, 1.0f));
      WrappedText(page.title);
      ImGui::PopStyleColor();
      WrappedText(page.explanation);
      ImGui::Spacing();
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.65f, 0.9f, 1.0f, 1.0f));
      WrappedText(page.formula);
      ImGui::PopStyleColor();
      ImGui::Spacing();
      for (const std::string& line : page.numbers) WrappedText(line);
      ImGui::Spacing();
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.75f, 1.0f, 1.0f));
      WrappedText(page.code);
      ImGui::PopStyleColor();
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      WrappedText("In the other views: " + page.highlight_text);
      ImGui::PopStyleColor();
    }
    ImGui::EndChild();
    if (has_image) {
      ImGui::SameLine();
      ImGui::BeginGroup();
      if (bars.empty()) {
        StepImage(state, w, cache, services, ImGui::GetContentRegionAvail());
      } else {
        if (ImGui::BeginChild("walk_bars", ImGui::GetContentRegionAvail(), false)) {
          StepBars(bars, page.bar_axis, ImGui::GetContentRegionAvail());
        }
        ImGui::EndChild();
      }
      ImGui::EndGroup();
    }
  }
  ImGui::EndChild();
}

}  // namespace pe
