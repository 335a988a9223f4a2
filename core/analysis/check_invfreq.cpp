// `check --inv-freq` (check_invfreq.h). The vector is each pair's angular frequency, which is
// exactly what the table readings of check_drafts.cpp measure off a table's columns: the same
// drafts (RopeReadingDrafts) are made from it, then each is verified element by element against
// the engine's own frequencies (rope.h ComputeRopeFrequencies, after HF modeling_rope_utils.py).
#include "analysis/check_invfreq.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "analysis/check_diagnosis.h"
#include "analysis/check_drafts.h"
#include "encoding/rope.h"
#include "encoding/scheme_descriptor.h"

namespace pe {
namespace {

std::string Num(double v, int digits = 3) {
  return CheckNumberText(v, digits);
}

// The engine's vector for `p`: the scaled frequency of each rotated pair, 0 past the pairs that
// turn (proportional RoPE).
std::vector<double> EngineVector(const EncodingParams& p, RopeFrequencies* keep = nullptr) {
  RopeFrequencies f = ComputeRopeFrequencies(p);
  std::vector<double> out(f.pairs.size(), 0.0);
  for (size_t i = 0; i < f.pairs.size(); ++i) {
    if (static_cast<int64_t>(i) < f.rotating_pairs) out[i] = f.pairs[i].scaled;
  }
  if (keep != nullptr) *keep = std::move(f);
  return out;
}

// "rope cos, half pairing, theta ..." without what a vector cannot say (part, pairing).
std::string Describe(const EncodingParams& p) {
  std::string s = DescriptorOf(Scheme::kRope).check_describe(p);
  const size_t theta = s.find("theta");
  if (theta != std::string::npos) s = s.substr(theta);
  s = "rope inv_freq, " + s;
  const int64_t d_rot = RopeRotaryDims(p);
  s += ", d_rot " + std::to_string(d_rot);
  if (d_rot != p.d_model) s += " of a head of " + std::to_string(p.d_model);
  return s;
}

std::string Flags(const EncodingParams& p) {
  std::string s = DescriptorOf(Scheme::kRope).check_flags(p);
  const size_t theta = s.find(" --rope-theta");
  if (theta != std::string::npos) s = s.substr(theta);
  s = "--scheme rope" + s + " --d-model " + std::to_string(p.d_model);
  if (p.rope().rotary_fraction != 1.0)
    s += " --rotary-fraction " + Num(p.rope().rotary_fraction, 17);
  return s;
}

double ElementTolerance(double reference, const CheckConstraints& c) {
  if (c.tolerance) return *c.tolerance;
  const double ulp =
      std::abs(static_cast<double>(std::nextafter(static_cast<float>(reference),
                                                  std::numeric_limits<float>::infinity())) -
               static_cast<double>(static_cast<float>(reference)));
  return std::max(static_cast<double>(kInvFreqUlps) * ulp,
                  std::ldexp(std::abs(reference), -c.bits));
}

std::optional<InvFreqCandidate> Verify(const std::vector<float>& v, const EncodingParams& p,
                                       int unsnapped, const CheckConstraints& c) {
  if (!ValidateRopeParams(p).ok()) return std::nullopt;
  const std::vector<double> ref = EngineVector(p);
  InvFreqCandidate out;
  out.params = p;
  out.unsnapped = unsnapped;
  out.description = Describe(p);
  out.flags = Flags(p);
  if (ref.size() != v.size()) return out;  // a vector of another length: never a match
  double worst_err = -1;
  for (size_t i = 0; i < v.size(); ++i) {
    const double err = std::abs(static_cast<double>(v[i]) - ref[i]);
    const double rel = ref[i] > 0 ? err / ref[i] : err;
    out.max_rel = std::max(out.max_rel, rel);
    out.max_ulps = std::max(out.max_ulps, UlpDistance(v[i], static_cast<float>(ref[i])));
    if (err > ElementTolerance(ref[i], c)) ++out.over_tolerance;
    if (rel > worst_err) {
      worst_err = rel;
      out.worst = static_cast<int64_t>(i);
      out.worst_value = v[i];
      out.worst_reference = static_cast<float>(ref[i]);
    }
  }
  out.match = out.over_tolerance == 0;
  return out;
}

bool Better(const InvFreqCandidate& a, const InvFreqCandidate& b) {
  if (a.match != b.match) return a.match;
  if (a.match && a.unsnapped != b.unsnapped) return a.unsnapped < b.unsnapped;
  const bool fa = a.over_tolerance <= 2, fb = b.over_tolerance <= 2;  // a wrong element or two
  if (!a.match && fa != fb) return fa;
  return a.max_rel * (1 + 0.25 * a.unsnapped) < b.max_rel * (1 + 0.25 * b.unsnapped);
}

// What the reference formula of element i is under `p`, in words.
std::string ElementFormula(const EncodingParams& p, int64_t i, const RopeFrequencies& f) {
  const RopeParams& r = p.rope();
  const std::string base = "1/" + Num(f.base, 9) + "^(2\xc2\xb7" + std::to_string(i) + "/" +
                           std::to_string(f.d_rot) + ")";
  if (i >= f.rotating_pairs) {
    return "0: pair " + std::to_string(i) + " does not turn (proportion " + Num(r.proportion) + ")";
  }
  const RopePair& pair = f.pairs[static_cast<size_t>(i)];
  if (r.scaling == RopeScaling::kNone || r.scaling == RopeScaling::kNtk ||
      r.scaling == RopeScaling::kDynamicNtk) {
    return base;
  }
  if (r.scaling == RopeScaling::kLinear) return base + " / " + Num(r.factor);
  return base + ", " + std::string(PairTreatmentName(pair.treatment)) + " (weight " +
         Num(pair.ramp) + " on the unscaled frequency)";
}

std::vector<CheckCell> WorstElements(const std::vector<float>& v, const EncodingParams& p,
                                     size_t count, const CheckConstraints& c) {
  std::vector<CheckCell> out;
  if (!ValidateRopeParams(p).ok()) return out;
  RopeFrequencies f;
  const std::vector<double> ref = EngineVector(p, &f);
  if (ref.size() != v.size()) return out;
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto err = [&](size_t i) { return std::abs(static_cast<double>(v[i]) - ref[i]); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return err(a) > err(b); });
  // Elements beyond the tolerance when there are any (the rest differ by rounding only).
  bool any_beyond = false;
  for (size_t i = 0; i < v.size(); ++i)
    any_beyond = any_beyond || err(i) > ElementTolerance(ref[i], c);
  for (size_t k = 0; k < order.size() && k < count; ++k) {
    const size_t i = order[k];
    if (err(i) == 0 || (any_beyond && !(err(i) > ElementTolerance(ref[i], c)))) break;
    CheckCell cell;
    cell.col = static_cast<int64_t>(i);
    cell.table = v[i];
    cell.reference = static_cast<float>(ref[i]);
    cell.formula = ElementFormula(p, cell.col, f);
    out.push_back(std::move(cell));
  }
  return out;
}

std::string CellsText(const std::vector<CheckCell>& cells) {
  std::string s;
  for (const CheckCell& cell : cells) {
    s += "; pair " + std::to_string(cell.col) + ": " + CheckFloatText(cell.table) + ", reference " +
         CheckFloatText(cell.reference) + " (" + cell.formula + ")";
  }
  return s;
}

}  // namespace

Result<InvFreqReport> CheckInvFreq(const std::vector<float>& v, const CheckConstraints& c) {
  if (v.empty()) return InvalidArgument("the inv_freq vector is empty");
  int64_t positive = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i]) || v[i] < 0) {
      return InvalidArgument("inv_freq[" + std::to_string(i) + "] is " + CheckFloatText(v[i]) +
                             ": a frequency vector holds finite numbers >= 0 (radians per "
                             "position, 0 for a pair that does not turn)");
    }
    positive += v[i] > 0 ? 1 : 0;
  }
  if (positive == 0) {
    return InvalidArgument("every element of the inv_freq vector is 0: no pair turns");
  }
  if (c.intent && c.fixed.kind() != Scheme::kRope) {
    return InvalidArgument("--inv-freq holds RoPE's frequencies; the intent is " +
                           std::string(SchemeName(c.fixed.kind())) +
                           " (give RoPE's parameters, e.g. --rope-theta, or a RoPE model)");
  }
  const auto n = static_cast<int64_t>(v.size());
  InvFreqReport report;
  report.pairs = n;
  report.has_intent = c.intent;
  report.tolerance_text =
      c.tolerance
          ? "|error| <= " + Num(*c.tolerance) + " per element (--tolerance)"
          : std::to_string(kInvFreqUlps) +
                " float32 ulps per element (the roundings of computing it in float32)" +
                (c.bits < 24 ? " or 2^-" + std::to_string(c.bits) + " relative (the file's type)"
                             : std::string());

  // The reading: each element is a pair's frequency; trailing zeros are pairs that stand still.
  RopeReading reading;
  reading.amplitude = std::nan("");  // a vector carries no attention factor
  reading.frequency.assign(v.size(), std::nan(""));
  reading.weight.assign(v.size(), 0.0);
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] > 0) reading.frequency[i] = v[i], reading.weight[i] = 1.0;
  }
  for (int64_t i = n - 1; i >= 0 && v[static_cast<size_t>(i)] == 0; --i) ++reading.still_pairs;
  EncodingParams shape;
  shape.scheme = RopeParams{};
  shape.d_model = 2 * n;
  shape.max_len = 1;
  shape.offset = 0;
  CheckConstraints free;
  free.tolerance = c.tolerance;
  free.bits = c.bits;
  std::vector<CheckDraft> drafts;
  RopeReadingDrafts(reading, shape, "rope inv_freq", RopePairing::kHalf, RopePart::kCos, free,
                    drafts);
  std::vector<InvFreqCandidate> found;
  for (const CheckDraft& d : drafts) {
    if (std::optional<InvFreqCandidate> k = Verify(v, d.params, d.unsnapped, free)) {
      found.push_back(std::move(*k));
    }
  }
  std::stable_sort(found.begin(), found.end(), Better);
  // A wrong element or two bend the fitted line: read again without the element farthest from
  // the best reading (twice at most), and keep what that finds when it leaves only a few off.
  for (int pass = 0; pass < 2 && !found.empty() && !found.front().match; ++pass) {
    const std::vector<double> ref = EngineVector(found.front().params);
    if (ref.size() != v.size()) break;
    size_t far = 0;
    double worst = -1;
    for (size_t i = 0; i < v.size(); ++i) {
      if (!(reading.weight[i] > 0) || !(ref[i] > 0)) continue;
      const double r = std::abs(std::log(static_cast<double>(v[i]) / ref[i]));
      if (r > worst) worst = r, far = i;
    }
    if (worst < 0) break;
    reading.weight[far] = 0;
    drafts.clear();
    RopeReadingDrafts(reading, shape, "rope inv_freq", RopePairing::kHalf, RopePart::kCos, free,
                      drafts);
    for (const CheckDraft& d : drafts) {
      if (std::optional<InvFreqCandidate> k = Verify(v, d.params, d.unsnapped, free)) {
        found.push_back(std::move(*k));
      }
    }
    std::stable_sort(found.begin(), found.end(), Better);
  }
  if (!found.empty()) report.identified = found.front();

  if (!c.intent) {
    report.matches = report.identified && report.identified->match;
    if (!report.identified) {
      report.diagnosis.push_back({"noise", "no RoPE frequency vector fits these numbers", {}});
      return report;
    }
    const InvFreqCandidate& id = *report.identified;
    if (id.match) {
      report.warnings = UnusualConventions(id.params);
      return report;
    }
    report.worst_cells = WorstElements(v, id.params, 5, c);
    if (id.over_tolerance <= 2) {
      report.diagnosis.push_back({"cells",
                                  std::to_string(id.over_tolerance) + " of " + std::to_string(n) +
                                      " elements differ from " + id.description +
                                      "; every other one matches it" +
                                      CellsText(report.worst_cells),
                                  static_cast<double>(id.over_tolerance)});
    } else {
      report.diagnosis.push_back({"noise",
                                  "no known scaling fits: the nearest, " + id.description +
                                      ", is off by up to " + Num(id.max_rel) +
                                      " (relative) at pair " + std::to_string(id.worst),
                                  id.max_rel});
    }
    return report;
  }

  // "Is this what I meant?": the intent shaped to the vector. A model's partial rotary keeps its
  // head dim when its rotated width is the vector's.
  EncodingParams meant = report.identified ? MeantParams(report.identified->params, c) : c.fixed;
  if (meant.kind() != Scheme::kRope) meant = c.fixed;
  meant.max_len = 1;
  meant.offset = 0;
  const bool model_width = !c.model.empty() || c.Has("rotary_fraction");
  EncodingParams head = meant;
  head.d_model = c.fixed.d_model;
  head.rope().rotary_fraction = c.fixed.rope().rotary_fraction;
  if (model_width && ValidateRopeParams(head).ok() && RopeRotaryDims(head) == 2 * n) {
    meant.d_model = head.d_model;
    meant.rope().rotary_fraction = head.rope().rotary_fraction;
  } else if (!c.model.empty() && ValidateRopeParams(head).ok()) {
    const int64_t d_rot = RopeRotaryDims(head);
    report.diagnosis.push_back(
        {"shape",
         "head_dim is " + std::to_string(c.fixed.d_model) + " in " + c.model +
             (d_rot != c.fixed.d_model ? " (rotated: " + std::to_string(d_rot) + ")" : "") +
             ", so its inv_freq has " + std::to_string(d_rot / 2) + " elements; yours has " +
             std::to_string(n),
         static_cast<double>(n)});
    // Another length is never what the model meant: nothing to compare element by element.
    report.matches = false;
    return report;
  } else {
    meant.d_model = 2 * n;
    meant.rope().rotary_fraction = 1.0;
  }
  report.intended = Verify(v, meant, 0, c);
  if (!report.intended) {
    return InvalidArgument("the intent's RoPE parameters are not valid for a vector of " +
                           std::to_string(n) + " elements: " + ValidateRopeParams(meant).message());
  }
  report.matches = report.intended->match;
  if (report.matches) {
    report.diagnosis.clear();
    report.identified = report.intended;
    return report;
  }
  const InvFreqCandidate& in = *report.intended;
  if (in.over_tolerance <= 2 && in.max_rel < 0.5 &&
      (!report.identified || !report.identified->match)) {
    report.worst_cells = WorstElements(v, meant, 5, c);
    report.diagnosis.push_back({"cells",
                                std::to_string(in.over_tolerance) + " of " + std::to_string(n) +
                                    " elements differ from " + in.description +
                                    "; every other one matches it" + CellsText(report.worst_cells),
                                static_cast<double>(in.over_tolerance)});
    report.identified = report.intended;
    return report;
  }
  if (report.identified) {
    // What the vector cannot tell is taken from the intent, so only what it shows is compared.
    EncodingParams seen = report.identified->params;
    RopeParams& s = seen.rope();
    const RopeParams& m = meant.rope();
    s.pairing = m.pairing;
    s.part = m.part;
    s.attention_factor = m.attention_factor;
    s.mscale = m.mscale;
    s.mscale_all_dim = m.mscale_all_dim;
    s.beta_fast = s.scaling == m.scaling ? m.beta_fast : s.beta_fast;
    s.beta_slow = s.scaling == m.scaling ? m.beta_slow : s.beta_slow;
    if (RopeRotaryDims(meant) == RopeRotaryDims(seen) && meant.d_model != seen.d_model) {
      seen.d_model = meant.d_model;
      s.rotary_fraction = m.rotary_fraction;
    }
    for (CheckDiagnosis& f : ParamDiagnosis(meant, seen, c)) {
      // The findings speak of tables; this is a vector.
      for (const auto& [from, to] :
           {std::pair<std::string, std::string>{"your table", "your vector"},
            {"the table's", "the vector's"},
            {"the table", "the vector"}}) {
        for (size_t at = f.text.find(from); at != std::string::npos;
             at = f.text.find(from, at + to.size())) {
          f.text.replace(at, from.size(), to);
        }
      }
      report.diagnosis.push_back(std::move(f));
    }
    if (report.identified->match == false) {
      report.worst_cells = WorstElements(v, meant, 5, c);
      if (report.diagnosis.empty()) {
        report.diagnosis.push_back({"noise",
                                    "the vector is off " + in.description + " by up to " +
                                        Num(in.max_rel) + " (relative) at pair " +
                                        std::to_string(in.worst) + ", and no known scaling fits it",
                                    in.max_rel});
      }
    }
  }
  if (report.worst_cells.empty()) report.worst_cells = WorstElements(v, meant, 5, c);
  if (report.diagnosis.empty()) {
    report.diagnosis.push_back({"noise",
                                "the vector differs from " + in.description + " by up to " +
                                    Num(in.max_rel) + " (relative) at pair " +
                                    std::to_string(in.worst),
                                in.max_rel});
  }
  return report;
}

}  // namespace pe
