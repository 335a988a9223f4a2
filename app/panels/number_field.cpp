// Numeric fields that apply what was typed on Enter or when the field loses focus, never a
// half-typed value, and parse decimal text only (no octal "064", no hex "0x10"). Escape puts
// back the value the field had. A value refused (here or by the caller) stays in the field as
// typed, in a red frame, with its reason under it; nothing of it is applied.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "model/param_fields.h"
#include "panels/panels.h"

namespace pe {
namespace {

std::string Trim(const std::string& text) {
  const size_t a = text.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const size_t b = text.find_last_not_of(" \t");
  return text.substr(a, b - a + 1);
}

std::string FormatNumber(int64_t v) {
  return std::to_string(v);
}
std::string FormatNumber(uint64_t v) {
  return std::to_string(v);
}
std::string FormatNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

const char* KindName(int64_t) {
  return "a whole number";
}
const char* KindName(uint64_t) {
  return "a whole number from 0 to 18446744073709551615";
}
const char* KindName(double) {
  return "a finite decimal number";
}

template <typename T>
bool ParseNumber(const std::string& text, T* out) {
  const std::string t = Trim(text);
  if (t.empty()) return false;
  const char* first = t.data();
  const char* last = t.data() + t.size();
  if constexpr (std::is_same_v<T, double>) {
    if (*first == '+') ++first;
    auto [ptr, ec] = std::from_chars(first, last, *out, std::chars_format::general);
    return ec == std::errc() && ptr == last && std::isfinite(*out);
  } else {
    if (*first == '+') ++first;
    auto [ptr, ec] = std::from_chars(first, last, *out, 10);
    return ec == std::errc() && ptr == last;
  }
}

// The controls whose label is not their parameter's key (the others show the key: "max_len").
struct ControlName {
  std::string_view flag, label;
};
constexpr ControlName kControlNames[] = {
    {"--alibi-max-bias", "max bias"},
    {"--t5-buckets", "buckets"},
    {"--t5-max-distance", "max distance"},
    {"--xpos-scale-base", "scale base"},
    {"--rotation-offset", "K"},
    {"--scaling-factor", "factor"},
    {"--original-max-len", "original len"},
    {"--sequence-len", "sequence len"},
    {"--min-timescale", "min timescale"},
    {"--output-scale", "output scale"},
    {"--rotary-fraction", "rotary fraction"},
    {"--attention-factor", "attention factor"},
    {"--low-freq-factor", "low freq factor"},
    {"--high-freq-factor", "high freq factor"},
    {"--vocab-size", "vocab size"},
    {"--dropout-seed", "dropout seed"},
    {"--compare-of", "compare"},
    {"--causal", "causal mask"},
    {"--dtype", "format"},
    {"--preset", "preset"},
    {"--attention-window", "mask"},
    {"--softmax-scale", "softmax scale"},
    {"--rope-proportion", "rotating proportion"},
    {"--yarn-truncate", "truncate"},
    {"--mrope-image", "images"},
    {"--model-config", "model file"},
};

bool FlagChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
}

// What the window calls `field`: `label` (without its "##" id part) for the field typed into,
// else its control's label, else its key, else (no control) its flag.
std::string ControlLabel(const ParamField& field, std::string_view label, std::string_view flag) {
  const std::string_view shown = label.substr(0, label.find("##"));
  if (!flag.empty() && field.flag == flag && !shown.empty()) return std::string(shown);
  for (const ControlName& c : kControlNames) {
    if (c.flag == field.flag) return std::string(c.label);
  }
  // A field with no key is the command line's alone (--memory-cap-mib): its flag is its name.
  return std::string(field.key.empty() ? field.flag : field.key);
}

template <typename T>
bool NumberFieldImpl(AppState& state, const char* label, T current, T* typed, const char* tip) {
  const ImGuiID id = ImGui::GetID(label);
  FieldEdit& f = state.fields[id];
  // Not being typed into: show the state, unless the last text was refused (it stays, red, with
  // its reason, until it is fixed, Escape puts the state's value back, or the parameters change).
  if (!f.active && f.error.empty()) f.text = FormatNumber(current);
  // No character filter: ImGui's filters drop what they do not allow as it is typed, so "1e3"
  // in a whole-number field became 13 and "abc" in base vanished, both without a word. Every
  // character stays, and the parse on Enter names what is wrong.
  const ImGuiInputTextFlags flags = ImGuiInputTextFlags_AutoSelectAll;
  const bool refused = !f.error.empty();
  if (refused) PushRefusedFrame();
  ImGui::InputText(label, &f.text, flags);
  if (refused) PopRefusedFrame();
  ItemTooltip(tip);
  const bool active = ImGui::IsItemActive();
  bool finished = ImGui::IsItemDeactivatedAfterEdit();
  // Left without an edit, or with Escape: the refused text goes, the state's value is back.
  const bool escaped = ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape));
  if (ImGui::IsItemDeactivated() && (escaped || !finished)) {
    f.error.clear();
    f.text = FormatNumber(current);
    finished = false;
  }
  f.active = active;
  bool changed = false;
  if (finished) {
    f.error.clear();
    T value{};
    if (!ParseNumber(f.text, &value)) {
      f.error = std::string(label) + " must be " + KindName(T{}) + ", got \"" + f.text + "\"";
      // A field of the parameter table says it as an out-of-range value is said, with its range.
      if (const ParamField* field = FindParamField(label)) {
        ModelParams scratch = state.params;
        if (Status s = field->set(scratch, f.text); !s.ok()) {
          f.error = InWindowTerms(s.message(), label, field->flag);
        }
      }
      // A whole number typed another way ("1e3", "2048.0"): say how to write it.
      double as_double = 0;
      if constexpr (!std::is_same_v<T, double>) {
        if (ParseNumber(f.text, &as_double) && as_double == std::floor(as_double) &&
            std::abs(as_double) < 1e18) {
          f.error += "; in digits that is " + FormatNumber(static_cast<int64_t>(as_double));
        }
      }
    } else if (value != current) {
      *typed = value;
      changed = true;
    }
  }
  if (!f.error.empty()) ErrorText(f.error);
  return changed;
}

}  // namespace

bool NumberField(AppState& state, const char* label, int64_t current, int64_t* typed,
                 const char* tip) {
  return NumberFieldImpl(state, label, current, typed, tip);
}
bool NumberField(AppState& state, const char* label, uint64_t current, uint64_t* typed,
                 const char* tip) {
  return NumberFieldImpl(state, label, current, typed, tip);
}
bool NumberField(AppState& state, const char* label, double current, double* typed,
                 const char* tip) {
  return NumberFieldImpl(state, label, current, typed, tip);
}

void PushRefusedFrame() {
  ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0.55f, 0.12f, 0.1f, 1.0f));
  ImGui::PushStyleColor(ImGuiCol_Border, ImVec4(1.0f, 0.3f, 0.25f, 1.0f));
  ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, std::max(1.0f, ImGui::GetFontSize() / 12));
}

void PopRefusedFrame() {
  ImGui::PopStyleVar();
  ImGui::PopStyleColor(2);
}

void RefuseField(AppState& state, const char* label, const std::string& reason) {
  state.fields[ImGui::GetID(label)].error = InWindowTerms(reason, label);
}

std::string InWindowTerms(const std::string& message, std::string_view label,
                          std::string_view flag) {
  std::string out;
  size_t k = 0;
  while (k < message.size()) {
    if (message.compare(k, 2, "--") == 0 && (k == 0 || !FlagChar(message[k - 1]))) {
      size_t end = k + 2;
      while (end < message.size() && FlagChar(message[end])) ++end;
      const std::string_view token(message.data() + k, end - k);
      const ParamField* field = end > k + 2 ? FindParamField(token) : nullptr;
      if (field != nullptr && field->flag == token) {
        out += ControlLabel(*field, label, flag);
        k = end;
        continue;
      }
    }
    out += message[k++];
  }
  return out;
}

}  // namespace pe
