// The controls and explanation of ALiBi and T5. Every field goes through the parameter table
// (EditField), as the command line sets it.
#include <imgui.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <string>

#include "encoding/alibi.h"
#include "encoding/t5_buckets.h"
#include "model/param_fields.h"
#include "panels/panels.h"

namespace pe {
namespace {

// Heads and the shown head. Fewer heads than the shown head + 1 also moves the head to the
// last one, in the same edit (each alone would be refused).
void HeadFields(AppState& state, int64_t heads, int64_t head) {
  int64_t typed = 0;
  if (NumberField(state, "heads", heads, &typed,
                  "Attention heads, 1 to 4096: each has its own slope (ALiBi) or its own bias "
                  "per bucket (T5).")) {
    if (typed >= 1 && head >= typed) {
      const ParamField* heads_field = FindParamField("--heads");
      const ParamField* head_field = FindParamField("--head");
      ModelParams next = state.params;
      Status s = heads_field->set(next, std::to_string(typed));
      if (s.ok()) s = head_field->set(next, std::to_string(typed - 1));
      if (s.ok()) s = ValidateEncodingParams(next.pe);
      if (!s.ok()) {
        RefuseField(state, "heads", s.message());
      } else {
        Edit(state, [next](AppState& st) { st.params = next; });
      }
    } else {
      EditField(state, "heads", "--heads", std::to_string(typed));
    }
  }
  if (NumberField(state, "head", head, &typed,
                  "The head whose bias the bias view, the heatmap and the curves show "
                  "(0 to heads - 1).")) {
    EditField(state, "head", "--head", std::to_string(typed));
  }
}

void DrawAlibiControls(AppState& state) {
  const AlibiParams& a = state.params.pe.alibi();
  HeadFields(state, a.heads, a.head);
  const char* modes[] = {"causal (decoder)", "symmetric |m - n|"};
  const char* mode_names[] = {"causal", "symmetric"};
  FieldCombo(state, "mode", "--alibi-mode", modes, mode_names,
             "causal: -s (m - n) for keys at or before the query, later keys masked (BLOOM, MPT); "
             "symmetric: -s |m - n| for every key (bidirectional ALiBi). s is the head's slope "
             "(the ALiBi paper calls it m; here m is the query).");
  double f64 = 0;
  if (NumberField(state, "max bias", a.max_bias, &f64,
                  "MPT's alibi_bias_max (8 in the paper and BLOOM): with n heads a power of "
                  "two, slopes are 2^(-max k / n), k = 1..n.")) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", f64);
    EditField(state, "max bias", "--alibi-max-bias", buf);
  }
}

void DrawT5Controls(AppState& state) {
  const T5Params& t = state.params.pe.t5();
  HeadFields(state, t.heads, t.head);
  const char* dirs[] = {"bidirectional (encoder)", "causal (decoder)"};
  const char* dir_names[] = {"bidirectional", "causal"};
  FieldCombo(state, "direction", "--t5-direction", dirs, dir_names,
             "bidirectional: half the buckets for keys before the query, half for keys after; "
             "causal: every bucket for keys before, later keys share bucket 0.");
  int64_t typed = 0;
  if (NumberField(state, "buckets", t.buckets, &typed,
                  "relative_attention_num_buckets (32): at least 2, even and at least 4 when "
                  "bidirectional.")) {
    EditField(state, "buckets", "--t5-buckets", std::to_string(typed));
  }
  if (NumberField(state, "max distance", t.max_distance, &typed,
                  "relative_attention_max_distance (128): where the log-spaced buckets end; "
                  "farther keys all share the last bucket. Greater than the exact distances.")) {
    EditField(state, "max distance", "--t5-max-distance", std::to_string(typed));
  }
}

void DrawAlibiExplanation(const AppState& state) {
  const EncodingParams& p = state.params.pe;
  const AlibiParams& a = p.alibi();
  const std::vector<double> e = AlibiSlopeExponents(a.heads, a.max_bias);
  const double slope = std::exp2(e[static_cast<size_t>(a.head)]);
  const bool causal = a.mode == AlibiMode::kCausal;
  WrappedText(
      Printf("ALiBi adds nothing to the tokens. Each head adds a penalty to the attention "
             "logit that grows with the distance between query m and key n: %s, with its own "
             "slope s (the ALiBi paper's m).",
             causal ? "-s (m - n) for keys n <= m (later keys are masked)" : "-s |m - n|"));
  const int64_t c = static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(a.heads)));
  std::string rule = Printf("%lld heads: head h has s = 2^(-%g (h + 1) / %lld)",
                            static_cast<long long>(a.heads), a.max_bias, static_cast<long long>(c));
  if (c != a.heads) {
    rule += Printf(" for the first %lld; heads %lld-%lld take the odd slopes of %lld heads",
                   static_cast<long long>(c), static_cast<long long>(c),
                   static_cast<long long>(a.heads - 1), static_cast<long long>(2 * c));
  }
  WrappedText(rule + ".");
  // What the shown head does: how far until the penalty reaches 1 and 10 (e and e^10 times less
  // weight for the same content score).
  WrappedText(
      Printf("Head %lld: s = 2^%g = %.6g. A key 10 positions away loses %.4g in the logit; "
             "the penalty reaches 1 (weight / e) at distance %.4g and 10 (weight / 22026) at "
             "%.4g. Steep heads look near, shallow heads far.",
             static_cast<long long>(a.head), e[static_cast<size_t>(a.head)], slope, 10 * slope,
             1 / slope, 10 / slope));
  const double far = slope * static_cast<double>(std::max<int64_t>(1, p.max_len - 1));
  // Only the causal bias is a row's constant plus s n: symmetric ALiBi has no such form.
  WrappedText(
      causal ? Printf("Across this table (%lld positions) the bias runs from 0 to %.6g. Softmax "
                      "ignores a constant per row, so BLOOM adds s n instead of -s (m - n): the "
                      "same attention.",
                      static_cast<long long>(p.max_len), -far)
             : Printf("Across this table (%lld positions) the bias runs from 0 to %.6g, the same "
                      "on both sides of the query.",
                      static_cast<long long>(p.max_len), -far));
}

void DrawT5Explanation(const AppState& state) {
  const T5Params& t = state.params.pe.t5();
  const bool bidirectional = t.direction == T5Direction::kBidirectional;
  const int64_t max_exact = T5MaxExact(bidirectional, t.buckets);
  const int64_t side = bidirectional ? t.buckets / 2 : t.buckets;
  WrappedText(Printf(
      "T5 adds a learned number per head and bucket to the logit; the bucket depends "
      "only on r = key - query. %s",
      bidirectional ? Printf("Bidirectional: %lld buckets for keys before the query, %lld for keys "
                             "after it.",
                             static_cast<long long>(side), static_cast<long long>(side))
                          .c_str()
                    : "Causal: every bucket is for keys before the query; keys after it (masked "
                      "in a decoder) share bucket 0."));
  // Which distances share a bucket: the runs of the keys before the query.
  const std::vector<T5BucketRun> runs = T5BucketRuns(t, -1, t.max_distance * 2);
  std::string shared;
  int listed = 0;
  for (const T5BucketRun& run : runs) {
    if (run.last == run.first) continue;
    if (listed == 6) {
      shared += ", ...";
      break;
    }
    if (!shared.empty()) shared += ", ";
    shared += run.last >= t.max_distance * 2
                  ? Printf("%lld and farther", static_cast<long long>(run.first))
                  : Printf("%lld-%lld", static_cast<long long>(run.first),
                           static_cast<long long>(run.last));
    ++listed;
  }
  if (shared.empty()) shared = "none";
  if (shared.back() != '.') shared += '.';
  WrappedText(
      Printf("Distances 0 to %lld each have their own bucket. From %lld on, buckets are "
             "log-spaced up to max distance %lld; these distances share one: %s",
             static_cast<long long>(max_exact - 1), static_cast<long long>(max_exact),
             static_cast<long long>(t.max_distance), shared.c_str()));
  WrappedText(
      Printf("The biases are seeded N(0, 1) noise (seed %llu) until trained weights are "
             "loaded: the pattern of the bias view is the buckets', its colours are chance.",
             static_cast<unsigned long long>(t.seed)));
}

}  // namespace

void DrawBiasControls(AppState& state) {
  if (state.params.pe.kind() == Scheme::kAlibi) {
    DrawAlibiControls(state);
  } else if (state.params.pe.kind() == Scheme::kT5) {
    DrawT5Controls(state);
  }
}

void DrawBiasExplanation(const AppState& state, const Derived& derived) {
  if (!derived.encoding) return;
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("What you are looking at");
  if (state.params.pe.kind() == Scheme::kAlibi) {
    DrawAlibiExplanation(state);
  } else if (state.params.pe.kind() == Scheme::kT5) {
    DrawT5Explanation(state);
  }
}

}  // namespace pe
