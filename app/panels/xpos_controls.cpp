// The controls and explanation of xPos.
#include <imgui.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>

#include "encoding/xpos.h"
#include "model/param_fields.h"
#include "panels/panels.h"

namespace pe {

void DrawXposControls(AppState& state) {
  const XposParams& x = state.params.pe.xpos();
  double f64 = 0;
  if (NumberField(state, "theta", x.theta, &f64,
                  "Base of the rotation frequencies theta^(-2i/d), as RoPE's (torchscale's "
                  "fixed_pos_embedding uses 10000).")) {
    EditField(state, "theta", "--rope-theta", NumberText(f64));
  }
  if (NumberField(state, "scale base", x.scale_base, &f64,
                  "torchscale's scale_base (512): pair i of a query is multiplied by "
                  "zeta_i^(n/scale_base), of a key by zeta_i^(-n/scale_base). Larger: slower "
                  "decay.")) {
    EditField(state, "scale base", "--xpos-scale-base", NumberText(f64));
  }
  const char* parts[] = {"cos\xc2\xb7\xce\xb6 (decayed)", "sin\xc2\xb7\xce\xb6 (decayed)",
                         "angle p\xc2\xb7\xce\xb8"};
  const char* part_names[] = {"cos", "sin", "angle"};
  FieldCombo(
      state, "table", "--part", parts, part_names,
      "The table the heatmap and curves show: cos or sin times the chosen side's decay, each "
      "pair's value twice in a row (torchscale's duplicate_interleave), or the angle.");
  const char* sides[] = {"query", "key"};
  const char* side_names[] = {"query", "key"};
  FieldCombo(
      state, "side", "--xpos-side", sides, side_names,
      "Whose multiplier the table shows: queries take zeta^(n/scale_base) and shrink with the "
      "position (zeta < 1), keys take zeta^(-n/scale_base) and grow; the product depends on "
      "the distance only.");
  const char* positions[] = {"absolute", "centred"};
  const char* position_names[] = {"absolute", "centred"};
  FieldCombo(
      state, "decay n", "--xpos-positions", positions, position_names,
      "The n of the decay: the absolute position (the paper), or torchscale's centred one, n - "
      "ceil((max_len + offset) / 2). The rotation uses the absolute position either way, and "
      "scores are the same.");
}

void DrawXposExplanation(const AppState& state, const Derived& derived) {
  if (!derived.encoding) return;
  const EncodingParams& p = state.params.pe;
  const XposParams& x = p.xpos();
  const int64_t h = p.d_model / 2;
  const double z0 = XposZeta(p.d_model, 0), zh = XposZeta(p.d_model, h - 1);
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("What you are looking at");
  WrappedText(Printf(
      "xPos is RoPE (pairs 2i, 2i+1 turn by n\xc2\xb7\xce\xb8_i, \xce\xb8_i = %g^(-2i/%lld)) with "
      "a decay: pair i of a query at position m is multiplied by \xce\xb6_i^(m/%g), of a key at "
      "n by \xce\xb6_i^(-n/%g), so q\xc2\xb7k carries \xce\xb6_i^((m-n)/%g) and still depends "
      "only on m - n.",
      x.theta, static_cast<long long>(p.d_model), x.scale_base, x.scale_base, x.scale_base));
  WrappedText(Printf(
      "\xce\xb6_i = (2i + 0.4\xc2\xb7%lld) / (1.4\xc2\xb7%lld) runs from %.4f (pair 0) to %.4f "
      "(pair %lld). A key 512 positions behind the query is damped by \xce\xb6_i^(512/%g): "
      "x%.3g for the fastest pair, x%.3g for the slowest; 4096 positions behind: x%.3g and "
      "x%.3g.",
      static_cast<long long>(p.d_model), static_cast<long long>(p.d_model), z0, zh,
      static_cast<long long>(h - 1), x.scale_base, std::pow(z0, 512.0 / x.scale_base),
      std::pow(zh, 512.0 / x.scale_base), std::pow(z0, 4096.0 / x.scale_base),
      std::pow(zh, 4096.0 / x.scale_base)));
  if (x.positions == XposPositions::kCentred) {
    WrappedText(Printf(
        "Centred as torchscale does: the decay uses n - %lld (min_pos = -(max_len + offset) // 2); "
        "it scales every query pair by a constant and every key pair by its inverse, so scores "
        "do not change.",
        static_cast<long long>(-XposCentreShift(p))));
  }
  if (x.part != RopePart::kAngle) {
    const ValueRange r = derived.encoding->Range();
    const char* side = x.side == XposSide::kQuery ? "query" : "key";
    if (x.side == XposSide::kQuery && x.positions == XposPositions::kAbsolute) {
      WrappedText(Printf(
          "The query table only shrinks (n >= 0, largest multiplier %.4g): far rows round to 0 "
          "in float32, as torchscale's float32 does.",
          r.hi));
    } else {
      WrappedText(Printf(
          "The %s table's largest multiplier here is %.4g. Past about %.0f positions of growth "
          "it would pass float32's maximum (torchscale gives inf there), so longer tables are "
          "refused; shrinking values round to 0 as in float32. The colour range is that "
          "largest multiplier (pair 0 at the growing end), so slow pairs look pale; zoom in or "
          "look at the query side to see them.",
          side, r.hi, x.scale_base * std::log(3.4028234663852886e38) / -std::log(z0)));
    }
  }
}

}  // namespace pe
