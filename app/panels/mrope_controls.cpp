// The controls and explanation of M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL).
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <string>

#include "encoding/mrope.h"
#include "model/param_fields.h"
#include "panels/panels.h"

namespace pe {
namespace {

// A list typed as text (the section, the images): applied on Enter or when the field loses
// focus; a text the parameter table refuses stays with its reason in a red frame.
void ListField(AppState& state, const char* label, const char* flag, const std::string& current,
               const char* hint, const char* tip) {
  const ImGuiID id = ImGui::GetID(label);
  FieldEdit& f = state.fields[id];
  if (!f.active && f.error.empty()) f.text = current;
  const bool refused = !f.error.empty();
  if (refused) PushRefusedFrame();
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 8,
                                   ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(label).x -
                                       ImGui::GetStyle().ItemInnerSpacing.x));
  ImGui::InputTextWithHint(label, hint, &f.text);
  if (refused) PopRefusedFrame();
  ItemTooltip(tip);
  const bool active = ImGui::IsItemActive();
  if (active && !f.active) f.error.clear();
  f.active = active;
  if (ImGui::IsItemDeactivatedAfterEdit() && f.text != current) {
    EditField(state, label, flag, f.text);
  }
  if (!f.error.empty()) ErrorText(f.error);
}

}  // namespace

void DrawMropeControls(AppState& state) {
  const MropeParams& m = state.params.pe.mrope();
  double f64 = 0;
  if (NumberField(state, "rope_theta", m.theta, &f64,
                  "The base of the rotation frequencies (Qwen2-VL: 1000000; Qwen3-VL: 5000000).")) {
    EditField(state, "rope_theta", "--rope-theta", FieldNumberText(f64));
  }
  const char* layouts[] = {"chunked (Qwen2-VL, 2.5-VL)", "interleaved (Qwen3-VL)"};
  const char* layout_names[] = {"chunked", "interleaved"};
  FieldCombo(state, "layout", "--mrope-layout", layouts, layout_names,
             "Which pairs take which id: chunked gives the first T pairs t, the next H pairs h, "
             "the last W pairs w; interleaved gives h to pairs 1, 4, 7, ... and w to pairs 2, "
             "5, 8, ... (up to 3H, 3W) and t to the rest.");
  ListField(state, "section", "--mrope-section", MropeSectionText(m.section), "auto or 16,24,24",
            "mrope_section T,H,W: how many pairs each id turns; they must sum to d_rot/2 "
            "(head dim / 2). Qwen2-VL: 16,24,24; Qwen3-VL: 24,20,20. auto: the layout's "
            "model's proportions for this head dim (set auto before changing the head dim). "
            "Enter applies.");
  ListField(state, "images", "--mrope-image", MropeImagesText(m.images), "at=3,grid=1x4x4",
            "Images in the sequence, separated by ';': at=P,grid=TxHxW puts T x H x W patch "
            "tokens from token P. Their ids are (t0 + t, t0 + h, t0 + w), t0 the next id; the "
            "text after resumes at the largest id + 1. Empty: text only (plain RoPE). Enter "
            "applies.");
  const char* pairings[] = {"half (rotate_half)", "interleaved (2i, 2i+1)"};
  const char* pairing_names[] = {"half", "interleaved"};
  FieldCombo(state, "pairing", "--rope-pairing", pairings, pairing_names,
             "Which dims turn together: half pairs dim i with i + d_rot/2 (HF's Qwen models); "
             "interleaved pairs 2i with 2i+1.");
  const char* parts[] = {"cos", "sin", "angle"};
  const char* part_names[] = {"cos", "sin", "angle"};
  FieldCombo(state, "table", "--part", parts, part_names,
             "The table the heatmap shows, one row per token: cos and sin of each pair's angle "
             "(its id times its frequency) in the pairing's layout, or the angle.");
}

void DrawMropeExplanation(const AppState& state, const Derived& derived) {
  if (!derived.encoding) return;
  const EncodingParams& p = state.params.pe;
  const MropeParams& m = p.mrope();
  const MropeSequence seq(p);
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("What you are looking at");
  WrappedText(Printf(
      "M-RoPE gives every token three position ids (t, h, w) and turns each pair of a head's "
      "dims by one of them: %s. Text tokens have t = h = w, so a text-only sequence is plain "
      "RoPE. Rows of the table are tokens, not positions.",
      m.layout == MropeLayout::kChunked
          ? "pairs 0..T-1 by t, the next H by h, the last W by w (Qwen2-VL)"
          : "pairs 1, 4, 7, ... by h and 2, 5, 8, ... by w up to 3H and 3W, the rest by t "
            "(Qwen3-VL)"));
  for (size_t k = 0; k < seq.images().size() && k < 8; ++k) {
    const MropeSequence::Image& im = seq.images()[k];
    WrappedText(Printf(
        "Image %zu: tokens %lld to %lld, t in [%lld, %lld], h in [%lld, %lld], w in [%lld, "
        "%lld]; the text after it resumes at id %lld.",
        k, static_cast<long long>(im.image.at),
        static_cast<long long>(im.image.at + im.tokens() - 1), static_cast<long long>(im.first_id),
        static_cast<long long>(im.first_id + im.image.t - 1), static_cast<long long>(im.first_id),
        static_cast<long long>(im.first_id + im.image.h - 1), static_cast<long long>(im.first_id),
        static_cast<long long>(im.first_id + im.image.w - 1),
        static_cast<long long>(im.first_id + std::max({im.image.t, im.image.h, im.image.w}))));
  }
}

void MropeNeighboursControls(AppState& state, const Derived&, ViewKind) {
  const EncodingParams& p = state.params.pe;
  Result<MropeQueryPatch> q = ResolveMropePatch(p, state.params.mrope_patch);
  if (!q.ok()) {
    // A patch outside the images (they changed since it was picked): back to the centre.
    if (!MropeSequence(p).images().empty() && ImGui::Button("Back to the centre patch")) {
      EditField(state, "mrope_patch", "--mrope-patch", "centre");
    }
    return;  // the panel says why
  }
  MropePatch patch = q.value().patch;
  const MropeImage& im = q.value().image.image;
  const auto images = static_cast<int64_t>(MropeSequence(p).images().size());
  const float em = ImGui::GetFontSize();
  bool changed = false;
  struct Slider {
    const char* id;
    const char* format;
    int64_t* value;
    int64_t count;
    const char* tip;
  };
  const Slider sliders[] = {
      {"##image", "image %lld", &patch.image, images, "Which image, in token order."},
      {"##t", "t = %lld", &patch.t, im.t, "The query patch's frame."},
      {"##h", "h = %lld", &patch.h, im.h, "The query patch's row."},
      {"##w", "w = %lld", &patch.w, im.w, "The query patch's column."},
  };
  int shown = 0;
  for (const Slider& s : sliders) {
    if (s.count <= 1) continue;
    if (shown++ > 0) ImGui::SameLine();
    ImGui::SetNextItemWidth(em * 8);
    const int64_t lo = 0, hi = s.count - 1;
    if (ImGui::SliderScalar(s.id, ImGuiDataType_S64, s.value, &lo, &hi, s.format,
                            ImGuiSliderFlags_AlwaysClamp)) {
      changed = true;
    }
    ItemTooltip(s.tip);
  }
  if (changed) {
    // A new image starts at its centre.
    if (patch.image != q.value().patch.image) {
      const MropeImage& next = MropeSequence(p).images()[static_cast<size_t>(patch.image)].image;
      patch = {patch.image, next.t / 2, next.h / 2, next.w / 2};
    }
    EditField(state, "mrope_patch", "--mrope-patch", MropePatchText(patch));
  }
}

}  // namespace pe
