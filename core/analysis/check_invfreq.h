// `check --inv-freq`: a RoPE frequency vector as engines keep it (HF's `inv_freq` buffer, the
// (d/2,) vector vLLM and llama.cpp compute their caches from), identified and compared with an
// intent. The vector says the base, the scaling (linear, NTK, YaRN, Llama 3), the proportion
// (trailing zeros: Gemma 4's proportional RoPE) and the rotated width; it cannot say the
// pairing, the part or YaRN's attention factor, which live in the cache and the rotation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/check.h"
#include "base/status.h"

namespace pe {

// One reading of the vector, verified element by element against the engine's frequencies
// (ComputeRopeFrequencies: pairs[i].scaled, 0 for pairs that do not turn).
struct InvFreqCandidate {
  EncodingParams params;    // RoPE; d_model = the rotated width (2 x the vector's length)
  std::string description;  // "rope inv_freq, theta 500000, llama3 factor 8, ..."
  std::string flags;        // "--scheme rope --rope-theta 500000 --rope-scaling llama3 ..."
  double max_rel = 0;       // max |v - ref| / ref over the turning pairs (|v| where ref is 0)
  int64_t max_ulps = 0;     // the largest float32 ulp distance
  int64_t worst = 0;        // the index of the worst element
  float worst_value = 0, worst_reference = 0;
  int64_t over_tolerance = 0;  // elements beyond the tolerance
  bool match = false;
  int unsnapped = 0;  // parameters kept as read (not a short decimal)
};

struct InvFreqReport {
  int64_t pairs = 0;  // the vector's length
  bool has_intent = false;
  bool matches = false;  // exit 0: the intent, or without one a known convention
  std::optional<InvFreqCandidate> identified, intended;
  std::vector<CheckDiagnosis> diagnosis;
  // The elements farthest from the intended (else the identified) vector, largest first:
  // row 0, column = pair index i, position 0, formula "theta^(-2i/d) ...".
  std::vector<CheckCell> worst_cells;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;
  std::string tolerance_text;
};

// The element tolerance without --tolerance: 8 float32 ulps of the reference, since engines
// compute the vector in float32 (HF: 1 / base ** (arange(0, d, 2).float() / d), and Llama 3's
// and YaRN's blends in float32 too: a few roundings), or 2^-bits relative for a bf16/fp16 file.
inline constexpr int64_t kInvFreqUlps = 8;

// Errors (kInvalidArgument): an empty vector, non-finite or negative values, an intent that is
// not RoPE.
Result<InvFreqReport> CheckInvFreq(const std::vector<float>& v, const CheckConstraints& c);

}  // namespace pe
