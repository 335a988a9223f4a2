// The score views' attention temperature (Llama 4): a choice and its two numbers, set through
// the parameter table as --attention-temperature, --temperature-scale and --temperature-floor,
// with tau's values over the table's positions.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model/choice_names.h"
#include "panels/panels.h"
#include "ui/derived.h"

namespace pe {

void TemperatureControls(AppState& state, const Derived& derived) {
  const float em = ImGui::GetFontSize();
  const AttentionTemperature& t = state.params.temperature;
  const char* labels[] = {"none", "Llama 4"};
  const char* names[] = {"none", "llama4"};
  ImGui::SetNextItemWidth(em * 7);
  FieldCombo(state, "temperature", "--attention-temperature", labels, names,
             "Llama 4 multiplies each query of its NoPE layers by tau(m) = 1 + scale "
             "ln(floor((m + 1) / floor) + 1): 1 up to position floor - 2, then larger by steps, "
             "so attention stays sharp over long inputs (positions 0-based, as in Meta's and "
             "HF's code). The bias, if any, is not scaled.");
  if (t.kind == TemperatureKind::kNone) return;
  double typed = 0;
  ImGui::SetNextItemWidth(em * 5);
  if (NumberField(state, "scale", t.scale, &typed,
                  "attn_scale (0.1 in Llama 4): any finite number.")) {
    EditField(state, "scale", "--temperature-scale", NumberText(typed));
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(em * 5);
  if (NumberField(state, "floor", t.floor, &typed,
                  "floor_scale (8192 in Llama 4): positions per step of tau; >= 1.")) {
    EditField(state, "floor", "--temperature-floor", NumberText(typed));
  }
  if (!derived.encoding) return;
  // tau at the table's first and last positions and where its first step starts: the
  // staircase in numbers.
  const Encoding& e = *derived.encoding;
  const int64_t first = e.first_position(), last = e.last_position();
  const auto step_at = static_cast<long long>(std::ceil(t.floor) - 1);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  WrappedText(
      Printf("\xcf\x84 = %.7g at m = %lld, %.7g at m = %lld (the last); 1 below m = %lld, "
             "then a step every %.7g positions",
             TemperatureAt(t, first), static_cast<long long>(first), TemperatureAt(t, last),
             static_cast<long long>(last), step_at, t.floor));
  ImGui::PopStyleColor();
}

}  // namespace pe
