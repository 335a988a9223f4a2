// `check` on RoPE caches that hold more than one table: a cos and a sin tensor checked together
// (`check FILE:COS,SIN`), vLLM's cos_sin_cache ([cos | sin] side by side, one column per pair:
// vllm rotary_embedding.py _compute_cos_sin_cache), Meta's freqs_cis as real pairs
// ((L, d/2, 2): torch.view_as_real(torch.polar(1, freqs))) and a cos table with one column per
// pair ((L, d/2)). Each is brought to the (L, d) tables check.h compares; a table with one
// column per pair is read in the half layout, since it cannot show the pairing.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "analysis/check.h"
#include "base/matrix.h"
#include "base/status.h"
#include "encoding/encoding_params.h"

namespace pe {

struct CheckPairReport {
  std::string layout;  // "cos and sin tensors", "cos_sin_cache [cos | sin]", ...
  bool one_column_per_pair = false;
  std::optional<RopePairing> pairing;  // read from a rotation (CheckRotation); else not known
  CheckReport cos, sin;  // each table's report (the cos one with part cos, the sin one sin)
  bool matches = false;  // both match (the intent, or without one the same known convention)
  // The pair's findings first (order: the two swapped), then each table's, named "cos: ..."
  // and "sin: ...".
  std::vector<CheckDiagnosis> diagnosis;
  std::vector<std::string> notes;  // how the input was read (a partial rotation's width)
};

// (L, h) with one column per pair -> (L, 2h) in the half layout (column i and i + h equal).
Matrix ExpandOneColumnPerPair(const Matrix& t);

// A cos and a sin table of one shape, each (L, d) or each one column per pair (L, d/2): the
// reading in which more of them match is kept. `layout` names the input in the report.
Result<CheckPairReport> CheckCosSin(const Matrix& cos, const Matrix& sin, const std::string& layout,
                                    bool one_column_per_pair, const CheckConstraints& c,
                                    const MemoryCap& cap = {});

// Whether `t` is a [cos | sin] cache (vLLM's cos_sin_cache): its halves, one column per pair,
// identify as RoPE's cos and sin. None when they do not (the table is then something else).
std::optional<CheckPairReport> ReadCosSinCache(const Matrix& t, const CheckConstraints& c,
                                               const MemoryCap& cap = {});

// `check --rotated FILE --unrotated FILE`: q before and after the user's apply-rotary at
// positions 0 .. L-1, each (L, d). The pairing is the one under which every pair keeps its
// length (up to the attention factor); each pair's cos and sin are then read off the rotation
// (x.y / |x|^2 and the cross product over |x|^2) and checked as the pair above, at 2^-20 of the
// amplitude (the rotation's float32 rounding) unless a tolerance is given. With an intent that
// fixes another pairing, the `pairing` finding comes first. Errors: other shapes, a zero pair,
// an input that is no rotation under either pairing.
Result<CheckPairReport> CheckRotation(const Matrix& unrotated, const Matrix& rotated,
                                      const CheckConstraints& c, const MemoryCap& cap = {});

// An M-RoPE cache before its sections are merged, (3, L, d) as HF Qwen2-VL's rotary module
// returns cos and sin for the temporal, height and width position ids: each axis is a RoPE
// table at its own positions. For text (every axis's id the token's position) the three agree
// and each is checked as one table; with image tokens an axis's rows hold that axis's ids,
// which the cache alone does not carry, and those rows read as no match.
struct MropeCacheReport {
  std::array<CheckReport, 3> axes;        // t, h, w
  bool same = false;                      // the three slices are equal value for value
  bool matches = false;                   // every axis matches
  std::vector<CheckDiagnosis> diagnosis;  // each axis's findings, named "t: ...", "h: ..."
};
Result<MropeCacheReport> CheckMropeCache(const std::array<Matrix, 3>& axes,
                                         const CheckConstraints& c, const MemoryCap& cap = {});

}  // namespace pe
