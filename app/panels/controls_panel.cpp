// The controls: every parameter of the model input, each with a tooltip that says what it
// means in the transformer. Edits apply at once; invalid values show the core's message here.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

#include "panels.h"

namespace pe {
namespace {

void InputI64(const char* label, int64_t* v, const char* tip, int64_t step = 1) {
  const int64_t fast = step * 16;
  ImGui::InputScalar(label, ImGuiDataType_S64, v, &step, &fast);
  ItemTooltip(tip);
}

// A few sentences on what the views show, with the current numbers filled in.
void DrawExplanation(const AppState& state, const Derived& derived) {
  if (!derived.pe_status.ok() || derived.columns.empty()) return;
  const PeParams& p = state.params.pe;
  const double fastest = derived.fastest_wavelength, slowest = derived.slowest_wavelength;
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("What you are looking at");
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text(
      "Row p of the table is the vector added to the token at position p. Its %lld "
      "columns are sines and cosines of p at %lld frequencies.",
      static_cast<long long>(p.d_model), static_cast<long long>((p.d_model + 1) / 2));
  ImGui::Text(
      "The fastest wave repeats every %.3g positions, the slowest every %.6g: early "
      "columns tell neighbours apart, late ones tell far-apart positions apart.",
      fastest, slowest);
  ImGui::Text(
      "A sin/cos pair of one frequency is a point on a circle; moving k positions "
      "rotates it by k times that frequency. So PE(p)\xc2\xb7PE(p+k) depends only on "
      "k: the model can read relative distance.");
  if (state.params.input.scale) {
    ImGui::Text(
        "Before the sum, embeddings are multiplied by \xe2\x88\x9a%lld = %.4g, so the "
        "token's meaning outweighs its position code.",
        static_cast<long long>(p.d_model), std::sqrt(static_cast<double>(p.d_model)));
  }
  ImGui::PopTextWrapPos();
}

}  // namespace

void ItemTooltip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

void ErrorText(const std::string& message) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
  ImGui::TextWrapped("%s", message.c_str());
  ImGui::PopStyleColor();
}

void DrawControlsPanel(AppState& state, const Derived& derived) {
  ModelParams& p = state.params;
  ImGui::PushItemWidth(ImGui::GetFontSize() * 9);
  ImGui::TextDisabled("Positional encoding");
  InputI64("d_model", &p.pe.d_model,
           "Width of every token vector: the number of columns of the PE table (1 to 65536).", 2);
  InputI64("max_len", &p.pe.max_len,
           "Number of positions in the table: the longest sequence the model can be given.", 1);
  ImGui::InputDouble("base", &p.pe.base, 0, 0, "%.6g");
  ItemTooltip(
      "Base of the geometric frequency ladder (10000 in the paper): wavelengths run from 2*pi to "
      "about 2*pi*base.");
  int variant = static_cast<int>(p.pe.variant);
  const char* variants[] = {"paper (interleaved)", "t2t [sin|cos]", "tf-text [sin|cos]"};
  if (ImGui::Combo("variant", &variant, variants, 3))
    p.pe.variant = static_cast<PeVariant>(variant);
  ItemTooltip(
      "Column layout: paper interleaves sin/cos (PyTorch tutorial code); t2t and tf-text put all "
      "sines first, then all cosines, with slightly different frequencies for t2t.");
  InputI64("offset", &p.pe.offset,
           "Position of the first row: a model continuing a long text sees positions offset, "
           "offset+1, ...");
  if (!derived.pe_status.ok()) ErrorText(derived.pe_status.message());

  ImGui::Spacing();
  ImGui::TextDisabled("Heatmap");
  int cmap = static_cast<int>(p.colormap);
  const char* cmaps[] = {"RdBu (diverging, 0 = white)", "viridis"};
  if (ImGui::Combo("colormap", &cmap, cmaps, 2)) p.colormap = static_cast<ColormapId>(cmap);
  ItemTooltip(
      "Colours of the heatmap: a diverging map centred on 0 shows sign; viridis is "
      "perceptually uniform and prints well in grey.");

  ImGui::Spacing();
  ImGui::TextDisabled("Input layer");
  ImGui::Checkbox("scale by sqrt(d_model)", &p.input.scale);
  ItemTooltip(
      "The paper multiplies embeddings by sqrt(d_model) so that they are not drowned by the "
      "positional encoding, whose entries are at most 1.");
  float dropout = static_cast<float>(p.input.dropout);
  if (ImGui::SliderFloat("dropout p", &dropout, 0.0f, 1.0f, "%.2f")) p.input.dropout = dropout;
  ItemTooltip(
      "Probability of zeroing each entry of the sum in train mode; kept entries are scaled by "
      "1/(1-p) so the expected value is unchanged.");
  ImGui::Checkbox("train mode", &p.input.train);
  ItemTooltip("Dropout only acts while training; in eval mode it is the identity.");
  ImGui::InputScalar("dropout seed", ImGuiDataType_U64, &p.input.dropout_seed);
  ItemTooltip("Seed of the dropout mask: the same seed gives the same zeros.");
  ImGui::InputScalar("embedding seed", ImGuiDataType_U64, &p.example.seed);
  ItemTooltip("Seed of the N(0,1) embedding table (an untrained nn.Embedding).");
  ImGui::PopItemWidth();

  ImGui::Spacing();
  if (ImGui::Button("Reset to defaults")) {
    const PanelVisibility show = state.show;
    state = AppState();
    state.show = show;
  }
  ItemTooltip(
      "Back to the built-in example: d_model 128, max_len 100, base 10000, "
      "\"The cat sits on the mat\".");
  DrawExplanation(state, derived);
}

void DrawStatusLine(const AppState& state, const Derived& derived) {
  if (!derived.pe_status.ok()) {
    ImGui::TextDisabled("No table: %s", derived.pe_status.message().c_str());
    return;
  }
  const TableSummary& s = derived.summary;
  ImGui::Text("PE table %lld x %lld (%s)   %s [%.6f, %.6f]   |PE(1)| = %.6f",
              static_cast<long long>(state.params.pe.max_len),
              static_cast<long long>(state.params.pe.d_model),
              std::string(VariantName(state.params.pe.variant)).c_str(),
              s.exact ? "min/max" : "bound", static_cast<double>(s.min), static_cast<double>(s.max),
              s.norm_pe1);
}

}  // namespace pe
