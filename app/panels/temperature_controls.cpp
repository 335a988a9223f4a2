// The score views' attention temperature (Llama 4): a choice and its two numbers, set through
// the parameter table as --attention-temperature, --temperature-scale and --temperature-floor,
// with a curve of tau over the table's positions.
#include <imgui.h>

#include <algorithm>
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
  // tau over the table's positions, 96 evenly spread: a staircase from 1.
  const Encoding& e = *derived.encoding;
  const int64_t first = e.first_position(), last = e.last_position();
  constexpr int kSamples = 96;
  std::vector<float> taus(kSamples);
  for (int i = 0; i < kSamples; ++i) {
    const int64_t p =
        first + static_cast<int64_t>(static_cast<double>(last - first) * i / (kSamples - 1));
    taus[static_cast<size_t>(i)] = static_cast<float>(TemperatureAt(t, p));
  }
  const auto [lo, hi] = std::minmax_element(taus.begin(), taus.end());
  const std::string overlay =
      Printf("tau %.6g (p %lld) .. %.6g (p %lld)", TemperatureAt(t, first),
             static_cast<long long>(first), TemperatureAt(t, last), static_cast<long long>(last));
  ImGui::PlotLines("##tau", taus.data(), kSamples, 0, overlay.c_str(), *lo - 0.01f, *hi + 0.01f,
                   ImVec2(-1, em * 3));
  ItemTooltip(
      "tau(p) over the table's positions: the factor on the query at p. With the table inside "
      "the first floor - 1 positions it is 1 everywhere.");
}

}  // namespace pe
