// Rotary position embedding (RoPE; Su et al. 2021, "RoFormer", section 3.4): the frequency of
// each rotated pair, before and after the context-extension scalings of HF config.json's
// rope_scaling. The formulas follow HF transformers' src/transformers/modeling_rope_utils.py,
// one function per scaling (named below); frequencies are in double precision, where HF's torch
// code works in float32.
//
// With d_rot the rotated dimensions (a prefix of the head dimension) and pair i in [0, d_rot/2):
//  none:        w_i = theta^(-2i/d_rot)                      (_compute_default_rope_parameters)
//  linear:      w_i / factor: position interpolation  (_compute_linear_scaling_rope_parameters)
//  ntk:         base' = theta * factor^(d_rot/(d_rot-2)), w_i = base'^(-2i/d_rot)
//               (the NTK-aware base change; HF has no static function for it)
//  dynamic-ntk: as ntk with factor' = factor * seq / original - (factor - 1), where seq is the
//               current length, never less than original (so below it base' = theta)
//                                                             (_compute_dynamic_ntk_parameters)
//  yarn:        pairs that turn more than beta_fast times over the original context keep w_i,
//               pairs that turn fewer than beta_slow times use w_i / factor, a linear ramp over
//               the pairs in between; cos and sin are multiplied by an attention factor,
//               0.1 ln(factor) + 1 unless given                         (_compute_yarn_parameters)
//  llama3:      pairs whose wavelength 2 pi / w_i is below original / high_freq_factor keep w_i,
//               above original / low_freq_factor use w_i / factor, in between a blend weighted
//               by original / wavelength (no band when the factors are equal: Llama 4)
//                                                                     (_compute_llama3_parameters)
//  longrope:    w_i / ext_i, ext = long_factor when the sequence is longer than original, else
//               short_factor (one number per pair); cos and sin times an attention factor,
//               sqrt(1 + ln s / ln original) with s = max_position_embeddings / original (1 when
//               s <= 1) unless given          (_compute_longrope_parameters; the list chosen by
//               the sequence length as dynamic_rope_update's longrope_frequency_update does)
//  proportion:  p-RoPE (Barbero et al. 2025, "Round and Round We Go"; Gemma 4's proportional
//               type): with d the whole head dim, pairs i < floor(P d / 2) turn at theta^(-2i/d),
//               the rest at frequency 0; then / factor (linear)
//                                                        (_compute_proportional_rope_parameters)
// HF v5's modeling_rope_utils.py also gives YaRN `truncate` (floor / ceil of the correction
// range, default true) and DeepSeek's mscale / mscale_all_dim for its attention factor.
//
// How each pair is treated, compared with its unscaled frequency (RopePair::treatment, ramp):
//  - kept: scaled == original exactly; ramp 1.
//  - interpolated: scaled == original / factor exactly; ramp 0. Linear scaling interpolates
//    every pair; YaRN and Llama 3 the low-frequency ones.
//  - blended: anything else. For YaRN and Llama 3 the ramp is their blend weight of the original
//    frequency: scaled = (1 - ramp) * original / factor + ramp * original.
//    NTK and dynamic NTK change the base instead of blending, so every pair but pair 0 (always
//    w = 1) moves and is called blended, never interpolated; its ramp says where it sits on a
//    log scale between interpolated (0) and kept (1): ln(scaled / (original / factor)) /
//    ln(factor), clamped to [0, 1]. For static NTK that is 1 - 2i/(d_rot - 2), so the last pair
//    lands on original / factor (ramp 0) and the pairs between fall geometrically. Dynamic NTK
//    past factor * original pushes low pairs below original / factor (clamped to 0); with
//    factor 1 every moved pair has ramp 0.
//    LongRoPE divides each pair by its own number ext_i: kept when ext_i is 1, interpolated when
//    it is s, else blended with ramp 1 - ln(ext_i) / ln(s) clamped to [0, 1] (0 when s <= 1).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "encoding/encoding_params.h"

namespace pe {

enum class PairTreatment { kKept, kInterpolated, kBlended };  // vs the unscaled frequency
std::string_view PairTreatmentName(PairTreatment t);          // "kept", "interpolated", "blended"

struct RopePair {
  int64_t index = 0;    // i in [0, d_rot/2)
  double original = 0;  // theta^(-2i/d_rot), radians per position
  double scaled = 0;    // the frequency the scaling uses
  PairTreatment treatment = PairTreatment::kKept;
  double ramp = 0;  // weight of the original frequency in [0,1] (1 for kept, 0 for interpolated)
};

struct RopeFrequencies {
  int64_t d_rot = 0;            // rotated dims: int(d_model * rotary_fraction), even, >= 2
  double base = 0;              // the base actually used (theta, or NTK / dynamic-NTK's base')
  double attention_factor = 1;  // multiplies cos and sin (YaRN; 1 otherwise)
  std::vector<RopePair> pairs;  // (d_rot / 2)
  // YaRN only: the correction range in pairs after HF's floor / ceil (with truncate) and clamp
  // to [0, d_rot - 1] (high + 0.001 when both are equal). Pairs <= low keep their frequency,
  // pairs >= high are interpolated.
  double yarn_low = 0;
  double yarn_high = 0;
  // Dynamic NTK only: the sequence length the base was computed for (RopeDynamicSequenceLength).
  // LongRoPE: the sequence length that chose the list (RopeLongropeSequenceLength).
  int64_t sequence_len = 0;
  // LongRoPE only: each pair's frequency with the short and with the long list, (d_rot / 2)
  // each; pairs[i].scaled is one of them, the long one when `longrope_long`.
  std::vector<double> longrope_short;
  std::vector<double> longrope_long;
  bool longrope_uses_long = false;
  // Pairs [0, rotating_pairs) turn; the rest have frequency 0 (proportional RoPE). d_rot / 2
  // without a proportion below 1.
  int64_t rotating_pairs = 0;
};

// Every RoPE parameter in range, or an error naming the parameter, its allowed range and the
// value given: theta finite > 1; rotary_fraction in (0, 1] giving an even d_rot >= 2;
// factor finite >= 1; original_max_len >= 1; beta_fast > beta_slow > 0, both finite;
// attention_factor finite > 0 when given; 0 < low_freq_factor <= high_freq_factor, both finite;
// sequence_len >= 0; max_position_embeddings >= 1; mscale, mscale_all_dim finite >= 0;
// proportion in (0, 1] leaving a rotating pair, and below 1 only with rotary_fraction 1 and
// scaling none or linear. LongRoPE alone: short and long factor lists given, d_rot / 2 finite
// numbers > 0 each. All but the lists are checked whatever the scaling (the defaults are
// valid). d_model, max_len and offset are checked with the shape, d_model in [1, 65536].
Status ValidateRopeParams(const EncodingParams& params);

// int(d_model * rotary_fraction), as HF computes the rotary dimension (the product in double,
// truncated). Valid params give an even number >= 2.
int64_t RopeRotaryDims(const EncodingParams& params);

// Dynamic NTK's length: sequence_len, or the table's last position + 1 (offset + max_len) when
// sequence_len is 0, and never less than original_max_len.
int64_t RopeDynamicSequenceLength(const EncodingParams& params);

// LongRoPE's length: sequence_len, or the table's last position + 1 (offset + max_len) when
// sequence_len is 0. The long list applies when it is greater than original_max_len.
int64_t RopeLongropeSequenceLength(const EncodingParams& params);

// LongRoPE's default attention factor (HF _compute_longrope_parameters):
// sqrt(1 + ln s / ln original) with s = max_position_embeddings / original, or 1 for s <= 1.
double RopeLongropeDefaultAttentionFactor(int64_t max_position_embeddings, int64_t original);

// YaRN's default attention factor (HF get_mscale with mscale 1): 0.1 ln(factor) + 1, or 1 for
// factor <= 1.
double RopeYarnDefaultAttentionFactor(double factor);

// HF get_mscale(factor, mscale): 0.1 mscale ln(factor) + 1, or 1 for factor <= 1.
double RopeYarnMscale(double factor, double mscale);

// YaRN's attention factor in HF's order: attention_factor when given, else
// get_mscale(s, mscale) / get_mscale(s, mscale_all_dim) when both are non-zero, else the default.
double RopeYarnAttentionFactor(const RopeParams& r);

// Proportional RoPE's rotating pairs, floor(proportion * d_model / 2) as HF's int(p * d // 2);
// d_rot / 2 when proportion is 1.
int64_t RopeRotatingPairs(const EncodingParams& params);

// All pairs of valid `params` (an assert checks that the scheme is RoPE).
RopeFrequencies ComputeRopeFrequencies(const EncodingParams& params);

// The slowest turning pair's wavelength 2 pi / w in positions, over the frequencies the table
// turns by (pairs[i].scaled: after the scaling, the proportion and the partial rotation), so
// that a label quoting it agrees with the table; 0 when no pair turns.
double RopeSlowestWavelength(const RopeFrequencies& freqs);

// GPT-NeoX's partial RoPE (the pairs past d_rot left out) and p-RoPE (the pairs past k never
// turn) at one share, each with the other settings of `params` (theta, scaling, ...), for the
// hint that sets them side by side. The share is the one below 1 of rotary_fraction and
// proportion (else 1). A side whose parameters are not valid (p-RoPE takes no scaling but
// linear) has wavelength 0 and says why in its status.
struct RopeShareComparison {
  double share = 1;
  int64_t partial_dims = 0;  // partial RoPE's d_rot
  double partial_wavelength = 0;
  Status partial_status;
  int64_t rotating_pairs = 0;  // p-RoPE's k of d_model / 2 pairs
  double proportional_wavelength = 0;
  Status proportional_status;
};
RopeShareComparison CompareRopeShares(const EncodingParams& params);

}  // namespace pe
