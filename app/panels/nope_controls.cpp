// The controls and explanation of NoPE (no positional encoding): it has no parameters of its
// own, so the panel says what such a layer is.
#include <imgui.h>

#include <string>

#include "panels/panels.h"
#include "ui/derived.h"

namespace pe {

void DrawNopeControls(AppState& state) {
  (void)state;
  ImGui::TextDisabled("NoPE has no parameters of its own.");
}

void DrawNopeExplanation(const AppState& state, const Derived& derived) {
  (void)state;
  if (!derived.encoding) return;
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("What you are looking at");
  WrappedText(
      "NoPE adds no position: nothing is added to the token embeddings, nothing rotates queries "
      "or keys, no bias reaches the logits. The model input is the token embedding alone, so the "
      "table is all zeros and the score of a query and a key is their content's dot product, "
      "the same at every position.");
  WrappedText(
      "A decoder still learns order: its causal mask lets position m see m + 1 keys, so a layer "
      "can count and, Kazemnejad et al. 2023 (\"The Impact of Positional Encoding on Length "
      "Generalization in Transformers\") show, represent absolute and relative positions; NoPE "
      "decoders generalised to longer inputs better than RoPE or ALiBi in their tasks.");
  WrappedText(
      "Llama 4 and SmolLM3 use it in every fourth layer, between RoPE layers. Llama 4 scales the "
      "queries of those layers with the position (attention temperature, in the score and "
      "attention views' controls) so attention does not flatten over long inputs.");
}

}  // namespace pe
