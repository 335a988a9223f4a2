// `check` on caches that hold more than one table (check_layouts.h).
#include "analysis/check_layouts.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "analysis/check_diagnosis.h"

namespace pe {
namespace {

Matrix Columns(const Matrix& t, int64_t first, int64_t count) {
  Matrix out;
  out.rows = t.rows;
  out.cols = count;
  out.data.resize(static_cast<size_t>(t.rows * count));
  for (int64_t r = 0; r < t.rows; ++r) {
    std::copy(t.row(r) + first, t.row(r) + first + count, out.row(r));
  }
  return out;
}

bool IsRopePart(const std::optional<CheckCandidate>& k, RopePart part) {
  return k && k->params.kind() == Scheme::kRope && k->params.rope().part == part &&
         k->verdict != CheckVerdict::kNoMatch;
}

// The constraints of one of the two tables: with a RoPE intent, its part is the table's own, and
// a table with one column per pair (read as the half layout) cannot show the pairing.
CheckConstraints PartConstraints(const CheckConstraints& c, RopePart part, bool one_per_pair) {
  CheckConstraints out = c;
  if (c.intent && c.fixed.kind() == Scheme::kRope) {
    out.fixed.rope().part = part;
    if (!out.Has("part")) out.keys.emplace_back("part");
    if (one_per_pair) out.fixed.rope().pairing = RopePairing::kHalf;
  }
  return out;
}

Result<CheckPairReport> Pair(const Matrix& cos, const Matrix& sin, const std::string& layout,
                             bool one_per_pair, const CheckConstraints& c, const MemoryCap& cap) {
  CheckPairReport out;
  out.layout = layout;
  out.one_column_per_pair = one_per_pair;
  Result<CheckReport> rc = CheckTable(one_per_pair ? ExpandOneColumnPerPair(cos) : cos,
                                      PartConstraints(c, RopePart::kCos, one_per_pair), cap);
  if (!rc.ok()) return rc.error();
  Result<CheckReport> rs = CheckTable(one_per_pair ? ExpandOneColumnPerPair(sin) : sin,
                                      PartConstraints(c, RopePart::kSin, one_per_pair), cap);
  if (!rs.ok()) return rs.error();
  out.cos = std::move(rc).value();
  out.sin = std::move(rs).value();
  const bool swapped = IsRopePart(out.cos.identified, RopePart::kSin) &&
                       IsRopePart(out.sin.identified, RopePart::kCos);
  if (swapped) {
    out.diagnosis.push_back(
        {"order",
         "the two are swapped: the tensor given as cos holds sin(p\xc2\xb7w) (" +
             out.cos.identified->description +
             ") and the one given as sin holds cos(p\xc2\xb7w); "
             "rotating with them turns every pair the wrong way by a quarter turn",
         {}});
    return out;
  }
  const bool cos_ok = out.cos.matches && IsRopePart(out.cos.identified, RopePart::kCos);
  const bool sin_ok = out.sin.matches && IsRopePart(out.sin.identified, RopePart::kSin);
  if (cos_ok && !sin_ok) {
    // sin(-p w) = -sin(p w): a rotation the wrong way (q cos - rotate_half(q) sin).
    Matrix negated = one_per_pair ? ExpandOneColumnPerPair(sin) : sin;
    for (float& v : negated.data) v = -v;
    Result<CheckReport> neg =
        CheckTable(negated, PartConstraints(c, RopePart::kSin, one_per_pair), cap);
    if (neg.ok() && neg.value().matches) {
      out.diagnosis.push_back({"order",
                               "the sin table is negated: it holds -sin(p\xc2\xb7w) = "
                               "sin(-p\xc2\xb7w), so the rotation "
                               "turns every pair the wrong way (as q\xc2\xb7"
                               "cos - rotate_half(q)\xc2\xb7"
                               "sin does); "
                               "negated, it matches " +
                                   neg.value().ranked.front().description,
                               {}});
      return out;
    }
  }
  out.matches = cos_ok && sin_ok;
  if (out.matches) {
    // The same frequencies on both sides: the two tables of one rotation.
    EncodingParams a = out.cos.identified->params;
    a.rope().part = RopePart::kSin;
    const std::vector<CheckDiagnosis> differ =
        ParamDiagnosis(a, out.sin.identified->params, CheckConstraints{});
    if (!differ.empty()) {
      out.matches = false;
      for (const CheckDiagnosis& d : differ) {
        out.diagnosis.push_back({d.kind,
                                 "the sin table is not the cos table's partner (" +
                                     out.sin.identified->description + " vs " +
                                     out.cos.identified->description + "): " + d.text,
                                 d.value});
      }
    }
    return out;
  }
  // A finding both tables share (a scaling left out of both) is told once.
  auto in_both = [&](const CheckDiagnosis& d) {
    const auto same = [&d](const CheckDiagnosis& e) { return e.kind == d.kind; };
    return std::any_of(out.cos.diagnosis.begin(), out.cos.diagnosis.end(), same) &&
           std::any_of(out.sin.diagnosis.begin(), out.sin.diagnosis.end(), same);
  };
  for (const auto& [name, r] :
       {std::pair<const char*, const CheckReport*>{"cos", &out.cos}, {"sin", &out.sin}}) {
    for (const CheckDiagnosis& d : r->diagnosis) {
      if (in_both(d)) {
        if (r == &out.sin) continue;
        out.diagnosis.push_back({d.kind, "cos and sin: " + d.text, d.value});
        continue;
      }
      out.diagnosis.push_back({d.kind, std::string(name) + ": " + d.text, d.value});
    }
    if (!r->matches && r->diagnosis.empty()) {
      out.diagnosis.push_back(
          {"noise",
           std::string(name) + ": " + (r->notes.empty() ? "no match" : r->notes.back()),
           {}});
    }
  }
  return out;
}

int Matched(const CheckPairReport& r) {
  return (r.cos.matches ? 1 : 0) + (r.sin.matches ? 1 : 0);
}

}  // namespace

Matrix ExpandOneColumnPerPair(const Matrix& t) {
  Matrix out;
  out.rows = t.rows;
  out.cols = 2 * t.cols;
  out.data.resize(static_cast<size_t>(out.rows * out.cols));
  for (int64_t r = 0; r < t.rows; ++r) {
    std::copy(t.row(r), t.row(r) + t.cols, out.row(r));
    std::copy(t.row(r), t.row(r) + t.cols, out.row(r) + t.cols);
  }
  return out;
}

Result<CheckPairReport> CheckCosSin(const Matrix& cos, const Matrix& sin, const std::string& layout,
                                    bool one_column_per_pair, const CheckConstraints& c,
                                    const MemoryCap& cap) {
  if (cos.rows != sin.rows || cos.cols != sin.cols) {
    return InvalidArgument("the cos and sin tables differ in shape: (" + std::to_string(cos.rows) +
                           ", " + std::to_string(cos.cols) + ") and (" + std::to_string(sin.rows) +
                           ", " + std::to_string(sin.cols) + ")");
  }
  if (one_column_per_pair) return Pair(cos, sin, layout, true, c, cap);
  Result<CheckPairReport> full = Pair(cos, sin, layout, false, c, cap);
  const auto known = [](const CheckReport& r) {
    return r.identified && r.identified->verdict != CheckVerdict::kNoMatch;
  };
  if (!full.ok() || full.value().matches || full.value().diagnosis.empty() ||
      full.value().diagnosis.front().kind == "order" || known(full.value().cos) ||
      known(full.value().sin)) {
    return full;
  }
  // Each pair once ((L, d/2), as vLLM and Meta keep them): kept when more of it matches.
  Result<CheckPairReport> halves = Pair(cos, sin, layout + ", one column per pair", true, c, cap);
  if (halves.ok() &&
      (Matched(halves.value()) > Matched(full.value()) ||
       (!halves.value().diagnosis.empty() && halves.value().diagnosis.front().kind == "order"))) {
    return halves;
  }
  return full;
}

Result<CheckPairReport> CheckRotation(const Matrix& unrotated, const Matrix& rotated,
                                      const CheckConstraints& c, const MemoryCap& cap) {
  if (rotated.cols % 2 != 0) {
    return InvalidArgument("a rotation turns pairs of columns: the width must be even, got " +
                           std::to_string(rotated.cols));
  }
  if (unrotated.rows != rotated.rows || unrotated.cols != rotated.cols) {
    return InvalidArgument("the unrotated and rotated inputs differ in shape: (" +
                           std::to_string(unrotated.rows) + ", " + std::to_string(unrotated.cols) +
                           ") and (" + std::to_string(rotated.rows) + ", " +
                           std::to_string(rotated.cols) + ")");
  }
  const int64_t L = rotated.rows;
  // Columns the rotation leaves alone at every position (GPT-NeoX's partial rotary passes the
  // dims past d_rot through): the rotation is read from the columns before them.
  int64_t d = 0;
  for (int64_t j = rotated.cols - 1; j >= 0 && d == 0; --j) {
    for (int64_t p = 0; p < L; ++p) {
      if (rotated.at(p, j) != unrotated.at(p, j)) {
        d = j + 1;
        break;
      }
    }
  }
  if (d == 0) {
    return InvalidArgument(
        "the rotated input equals the unrotated one at every position: "
        "nothing was rotated (was the rotation applied, or the output saved "
        "before it?)");
  }
  d += d % 2;
  std::vector<std::string> read_notes;
  if (d < rotated.cols) {
    read_notes.push_back("columns " + std::to_string(d) + " to " +
                         std::to_string(rotated.cols - 1) +
                         " are not rotated at any position (partial rotary: " + std::to_string(d) +
                         " of " + std::to_string(rotated.cols) +
                         " dims turn); the rotation is read from the first " + std::to_string(d));
  }
  const int64_t h = d / 2;
  if (d < 4 || L < 3) {
    return InvalidArgument(
        "a rotation is read from at least 3 positions of an even width >= 4; "
        "got (" +
        std::to_string(L) + ", " + std::to_string(d) + ")");
  }
  // Under each pairing, each pair's rotation: cos = x.y / |x|^2, sin = (x1 y2 - x2 y1) / |x|^2
  // (HF rotate_half: y1 = x1 cos - x2 sin, y2 = x2 cos + x1 sin), and how far the norm ratio
  // |y| / |x| strays from its mean: a rotation keeps it (the attention factor) for every pair.
  struct Reading {
    Matrix cos, sin;
    double spread = INFINITY;
  };
  auto read = [&](RopePairing pairing) -> Result<Reading> {
    Reading out;
    out.cos.rows = out.sin.rows = L;
    out.cos.cols = out.sin.cols = h;
    out.cos.data.resize(static_cast<size_t>(L * h));
    out.sin.data.resize(static_cast<size_t>(L * h));
    double sum = 0, sum2 = 0;
    for (int64_t p = 0; p < L; ++p) {
      for (int64_t i = 0; i < h; ++i) {
        const int64_t a = pairing == RopePairing::kHalf ? i : 2 * i;
        const int64_t b = pairing == RopePairing::kHalf ? i + h : 2 * i + 1;
        const double x1 = unrotated.at(p, a), x2 = unrotated.at(p, b);
        const double y1 = rotated.at(p, a), y2 = rotated.at(p, b);
        const double n2 = x1 * x1 + x2 * x2;
        if (!(n2 > 1e-30) || !std::isfinite(n2) || !std::isfinite(y1) || !std::isfinite(y2)) {
          return InvalidArgument(
              "the unrotated input is zero (or not finite) at position " + std::to_string(p) +
              ", columns " + std::to_string(a) + " and " + std::to_string(b) +
              ": a rotation cannot be read there; give inputs with no zero pair (torch.randn)");
        }
        out.cos.at(p, i) = static_cast<float>((x1 * y1 + x2 * y2) / n2);
        out.sin.at(p, i) = static_cast<float>((x1 * y2 - x2 * y1) / n2);
        const double ratio = std::sqrt((y1 * y1 + y2 * y2) / n2);
        sum += ratio, sum2 += ratio * ratio;
      }
    }
    const double n = static_cast<double>(L * h);
    const double mean = sum / n;
    out.spread = std::sqrt(std::max(0.0, sum2 / n - mean * mean)) / mean;
    return out;
  };
  Result<Reading> half = read(RopePairing::kHalf);
  if (!half.ok()) return half.error();
  Result<Reading> inter = read(RopePairing::kInterleaved);
  if (!inter.ok()) return inter.error();
  const bool is_half = half.value().spread <= inter.value().spread;
  const Reading& best = is_half ? half.value() : inter.value();
  const RopePairing pairing = is_half ? RopePairing::kHalf : RopePairing::kInterleaved;
  // A rotation keeps each pair's length to the inputs' rounding (float16: 2^-11).
  const double keeps = std::max(1e-4, std::ldexp(8.0, -c.bits));
  if (!(best.spread < keeps)) {
    return InvalidArgument(
        "the rotated input is not a rotation of the unrotated one under either pairing: the "
        "length of each pair changes (relative spread " +
        CheckNumberText(best.spread) + " for half pairs, " +
        CheckNumberText(is_half ? inter.value().spread : half.value().spread) +
        " for the other); give q before and after apply-rotary, at positions 0 .. L-1");
  }
  // The cos and sin read from a float32 rotation carry its rounding (a few 2^-24 of the pair's
  // length), so they are compared at 2^-20 of the amplitude.
  CheckConstraints loose = c;
  if (!loose.tolerance) loose.bits = std::min(loose.bits, 20);

  Result<CheckPairReport> out =
      CheckCosSin(best.cos, best.sin,
                  std::string("rotation read from the inputs, ") +
                      (is_half ? "half pairs (i, i + d/2)" : "interleaved pairs (2i, 2i + 1)"),
                  true, loose, cap);
  if (!out.ok()) return out;
  CheckPairReport& r = out.value();
  r.pairing = pairing;
  r.notes.insert(r.notes.begin(), read_notes.begin(), read_notes.end());
  if (c.intent && c.fixed.kind() == Scheme::kRope && c.Has("rope_pairing") &&
      c.fixed.rope().pairing != pairing) {
    const bool meant_half = c.fixed.rope().pairing == RopePairing::kHalf;
    r.diagnosis.insert(
        r.diagnosis.begin(),
        {"pairing",
         std::string("the rotation turns ") +
             (is_half ? "half pairs (i, i + d/2: HF rotate_half, GPT-NeoX)"
                      : "interleaved pairs (2i, 2i + 1: GPT-J, Meta's llama, GGUF)") +
             " where " +
             (meant_half ? "half pairs (i, i + d/2)" : "interleaved pairs (2i, 2i + 1)") +
             " were meant" + (c.model.empty() ? std::string() : " (" + c.model + ")") +
             ": the lengths of " + (meant_half ? "half" : "interleaved") +
             " pairs change by a relative " +
             CheckNumberText(is_half ? inter.value().spread : half.value().spread) +
             "; pair i of the intent is columns " + (meant_half ? "(i, i + d/2)" : "(2i, 2i + 1)"),
         {}});
    r.matches = false;
  }
  return out;
}

std::optional<CheckPairReport> ReadCosSinCache(const Matrix& t, const CheckConstraints& c,
                                               const MemoryCap& cap) {
  if (t.cols < 4 || t.cols % 2 != 0 || t.rows < 3) return std::nullopt;
  const int64_t h = t.cols / 2;
  // First a look without the intent: are the halves RoPE's cos and sin at all?
  CheckConstraints free;
  free.tolerance = c.tolerance;
  free.bits = c.bits;
  Result<CheckPairReport> seen =
      Pair(Columns(t, 0, h), Columns(t, h, h), "cos_sin_cache [cos | sin]", true, free, cap);
  if (!seen.ok()) return std::nullopt;
  const CheckPairReport& s = seen.value();
  const bool is_cache =
      IsRopePart(s.cos.identified, RopePart::kCos) && IsRopePart(s.sin.identified, RopePart::kSin);
  const bool swapped = !s.diagnosis.empty() && s.diagnosis.front().kind == "order";
  if (!is_cache && !swapped) return std::nullopt;
  // [sin | cos] is a layout of its own, not a swap: HF GPT-J's embed_positions
  // (create_sinusoidal_positions: cat(sin, cos), one column per pair).
  const int64_t cos_at = swapped ? h : 0, sin_at = swapped ? 0 : h;
  const std::string layout =
      swapped ? "[sin | cos] (HF GPT-J's embed_positions)" : "cos_sin_cache [cos | sin] (vLLM's)";
  if (!c.intent && !swapped) {
    CheckPairReport out = std::move(seen).value();
    out.layout = layout;
    return out;
  }
  Result<CheckPairReport> meant =
      Pair(Columns(t, cos_at, h), Columns(t, sin_at, h), layout, true, c.intent ? c : free, cap);
  if (!meant.ok()) return std::nullopt;
  return std::move(meant).value();
}

Result<MropeCacheReport> CheckMropeCache(const std::array<Matrix, 3>& axes,
                                         const CheckConstraints& c, const MemoryCap& cap) {
  MropeCacheReport out;
  out.same = axes[0].data == axes[1].data && axes[1].data == axes[2].data;
  const char* const names[] = {"t", "h", "w"};
  out.matches = true;
  for (size_t k = 0; k < 3; ++k) {
    if (k > 0 && out.same) {
      out.axes[k] = out.axes[0];
      continue;
    }
    Result<CheckReport> r = CheckTable(axes[k], c, cap);
    if (!r.ok()) return r.error();
    out.axes[k] = std::move(r).value();
  }
  for (size_t k = 0; k < 3; ++k) {
    out.matches = out.matches && out.axes[k].matches;
    if (out.same && k > 0) continue;
    for (const CheckDiagnosis& d : out.axes[k].diagnosis) {
      out.diagnosis.push_back(
          {d.kind, (out.same ? std::string("every axis") : std::string(names[k])) + ": " + d.text,
           d.value});
    }
  }
  return out;
}

}  // namespace pe
