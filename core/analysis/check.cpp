// Verification and the report of `check` (check.h): each candidate of check_drafts.cpp (the
// readings and drafts) verified cell by cell against the engine's own table, ranked, and told.
// The measuring (errors, ulps, tolerances) is in check_compare.cpp; each scheme's description
// and flags are in its descriptor (encoding/scheme_descriptor.h).
#include "analysis/check.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>

#include "analysis/check_diagnosis.h"
#include "analysis/check_drafts.h"
#include "encoding/encoding.h"
#include "encoding/positional_encoding.h"
#include "encoding/rope.h"
#include "encoding/sinusoidal_presets.h"

namespace pe {
namespace {

// Tables longer than this are read off their first kReadRows rows (Identify).
constexpr int64_t kReadRows = 8192;
// Above this many cells, candidates clearly off are measured on kSubsetRows rows only.
constexpr int64_t kFullVerifyCells = int64_t{1} << 21;
constexpr int64_t kSubsetRows = 4096;

std::string Num(double v, int digits = 3) {
  return CheckNumberText(v, digits);
}

// ---- verification ------------------------------------------------------------------------------

std::string Describe(const EncodingParams& p) {
  return DescriptorOf(p.kind()).check_describe(p) + ", offset " + std::to_string(p.offset);
}

std::string FindPreset(const EncodingParams& p) {
  if (p.kind() != Scheme::kSinusoidal) return {};
  for (const SinusoidalPreset& preset : SinusoidalPresets()) {
    EncodingParams q = p;
    if (!ApplySinusoidalPreset(preset.name, q).ok()) continue;
    if (q.scheme == p.scheme && q.offset == p.offset) return std::string(preset.name);
  }
  return {};
}

double AmplitudeOf(const Encoding& e) {
  const ValueRange r = e.Range();
  const double a = std::max(std::abs(r.lo), std::abs(r.hi));
  return a > 0 && std::isfinite(a) ? a : 1.0;
}

// Rows spread over the table (always the first and the last), for a first score.
std::vector<int64_t> SampleRows(int64_t rows) {
  std::vector<int64_t> out;
  const int64_t n = std::min<int64_t>(rows, 48);
  for (int64_t k = 0; k < n; ++k) {
    out.push_back(n == 1 ? 0 : k * (rows - 1) / (n - 1));
  }
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double SampleScore(const Matrix& t, const Encoding& e, int64_t cols,
                   const std::vector<int64_t>& rows) {
  std::vector<float> ref(static_cast<size_t>(cols));
  double worst = 0;
  for (int64_t r : rows) {
    e.FillBlock(r, 1, 0, cols, ref.data());
    for (int64_t j = 0; j < cols; ++j) {
      const double err = std::abs(static_cast<double>(t.at(r, j)) - ref[static_cast<size_t>(j)]);
      worst = std::isnan(err) ? INFINITY : std::max(worst, err);
    }
  }
  return worst / AmplitudeOf(e);
}

// Every cell within what computing the angle p w in float32 (and w itself from exp or pow in
// float32) does to a wave: |error| <= A 2^-24 (4 + |p| w (2 ln(w_max / w_min) + 12)).
bool Float32Explained(const Matrix& t, const Matrix& ref, const Encoding& e, double amplitude) {
  const std::span<const WaveColumn> waves = e.waves();
  if (waves.empty()) return false;
  double w_max = 0, w_min = INFINITY;
  for (const WaveColumn& w : waves) {
    if (w.wave == Wave::kZero || !(w.frequency > 0)) continue;
    w_max = std::max(w_max, w.frequency), w_min = std::min(w_min, w.frequency);
  }
  if (!(w_max > 0)) return false;
  const double span = 2 * std::log(w_max / w_min) + 12;
  const double unit = amplitude * std::ldexp(1.0, -24);
  const int64_t cols = std::min(t.cols, ref.cols);
  for (int64_t r = 0; r < t.rows; ++r) {
    const double p = std::abs(static_cast<double>(e.first_position() + r));
    for (int64_t j = 0; j < cols; ++j) {
      const double w = waves[static_cast<size_t>(j)].frequency;
      const double bound = unit * (4 + p * w * span);
      if (!(std::abs(static_cast<double>(t.at(r, j)) - ref.at(r, j)) <= bound)) return false;
    }
  }
  return true;
}

Result<CheckCandidate> Verify(const Matrix& t, const CheckDraft& d, const CheckConstraints& c,
                              const MemoryCap& cap) {
  Result<EncodingPtr> e = MakeEncoding(d.params, cap);
  if (!e.ok()) return e.error();
  Result<Matrix> ref = ComputeTable(*e.value(), cap);
  if (!ref.ok()) return ref.error();
  CheckCandidate out;
  out.params = d.params;
  out.amplitude = AmplitudeOf(*e.value());
  Tolerance tol;
  tol.absolute = c.tolerance;
  tol.bits = c.bits;
  tol.amplitude = out.amplitude;
  out.stats = CompareTables(t, ref.value(), tol);
  out.score = out.stats.max_abs / out.amplitude;
  out.unsnapped = d.unsnapped;
  out.description = Describe(d.params);
  out.flags = ParamsFlags(d.params);
  out.preset = FindPreset(d.params);
  out.layout = d.hypothesis;
  if (out.stats.over_tolerance == 0 && out.stats.rows > 0) {
    out.verdict = CheckVerdict::kMatch;
  } else if (!c.tolerance && Float32Explained(t, ref.value(), *e.value(), out.amplitude)) {
    out.verdict = CheckVerdict::kFloat32;
  }
  out.worst_formula = e.value()->DescribeCell(e.value()->first_position() + out.stats.worst_row,
                                              out.stats.worst_col);
  return out;
}

// A layout's name, as the drafts name their hypothesis ("sinusoidal t2t sin-first",
// "rope cos half").
std::string LayoutName(const EncodingParams& p) {
  if (p.kind() == Scheme::kSinusoidal) {
    return "sinusoidal " + std::string(VariantName(p.sinusoidal().variant)) + " " +
           std::string(WaveOrderName(p.sinusoidal().order));
  }
  if (p.kind() == Scheme::kRope) {
    return "rope " + std::string(RopePartName(p.rope().part)) + " " +
           std::string(RopePairingName(p.rope().pairing));
  }
  return std::string(SchemeName(p.kind()));
}

// A few cells off and every other one within the tolerance: wrong cells, not a wrong scheme.
bool FewCells(const ErrorStats& s) {
  return s.over_tolerance > 0 && s.over_tolerance <= std::max<int64_t>(8, s.rows * s.cols / 10000);
}

// A candidate measured on every kSubsetRows-th row (at most kSubsetRows rows): never a match.
Result<CheckCandidate> VerifyRows(const Matrix& t, const CheckDraft& d, const CheckConstraints& c,
                                  const MemoryCap& cap) {
  Result<EncodingPtr> e = MakeEncoding(d.params, cap);
  if (!e.ok()) return e.error();
  const Encoding& enc = *e.value();
  const int64_t stride = (t.rows + kSubsetRows - 1) / kSubsetRows;
  const int64_t n = (t.rows + stride - 1) / stride;
  const int64_t cols = std::min(t.cols, enc.cols());
  Matrix sub, ref;
  sub.rows = ref.rows = n;
  sub.cols = ref.cols = cols;
  sub.data.resize(static_cast<size_t>(n * cols));
  ref.data.resize(static_cast<size_t>(n * cols));
  for (int64_t k = 0; k < n; ++k) {
    std::copy(t.row(k * stride), t.row(k * stride) + cols, sub.row(k));
    enc.FillBlock(k * stride, 1, 0, cols, ref.row(k));
  }
  CheckCandidate out;
  out.params = d.params;
  out.amplitude = AmplitudeOf(enc);
  Tolerance tol;
  tol.absolute = c.tolerance;
  tol.bits = c.bits;
  tol.amplitude = out.amplitude;
  out.stats = CompareTables(sub, ref, tol);
  out.stats.worst_row *= stride;
  out.score = out.stats.max_abs / out.amplitude;
  out.unsnapped = d.unsnapped;
  out.description = Describe(d.params);
  out.flags = ParamsFlags(d.params);
  out.preset = FindPreset(d.params);
  out.layout = d.hypothesis;
  out.worst_formula =
      enc.DescribeCell(enc.first_position() + out.stats.worst_row, out.stats.worst_col);
  return out;
}

int VerdictRank(CheckVerdict v) {
  return v == CheckVerdict::kMatch ? 0 : v == CheckVerdict::kFloat32 ? 1 : 2;
}

// The candidates of every layout for a table `assumed_d` wide, verified and ranked.
Result<std::vector<CheckCandidate>> Identify(const Matrix& t, int64_t assumed_d,
                                             const CheckConstraints& c, const MemoryCap& cap) {
  std::vector<CheckDraft> drafts;
  // The readings take the first kReadRows rows of a longer table: the frequencies and the phases
  // they give are exact enough for the short decimals they snap to, and verification then
  // covers every row.
  Matrix head;
  if (t.rows > kReadRows) {
    head.rows = kReadRows;
    head.cols = t.cols;
    head.data.assign(t.data.begin(), t.data.begin() + kReadRows * t.cols);
  }
  const Matrix& read = t.rows > kReadRows ? head : t;
  if (SchemeAllowed(c, Scheme::kSinusoidal)) {
    const bool fixed_sin = c.fixed.kind() == Scheme::kSinusoidal;
    for (PeVariant v : {PeVariant::kPaper, PeVariant::kT2t, PeVariant::kTfText}) {
      if (fixed_sin && c.Has("variant") && c.fixed.sinusoidal().variant != v) continue;
      for (WaveOrder o : {WaveOrder::kSinFirst, WaveOrder::kCosFirst}) {
        if (fixed_sin && c.Has("order") && c.fixed.sinusoidal().order != o) continue;
        SinusoidalDrafts(read, assumed_d, v, o, c, drafts);
      }
    }
  }
  if (SchemeAllowed(c, Scheme::kRope)) {
    const bool fixed_rope = c.fixed.kind() == Scheme::kRope;
    for (RopePairing pr : {RopePairing::kHalf, RopePairing::kInterleaved}) {
      if (fixed_rope && c.Has("rope_pairing") && c.fixed.rope().pairing != pr) continue;
      for (RopePart part : {RopePart::kCos, RopePart::kSin}) {
        if (fixed_rope && c.Has("part") && c.fixed.rope().part != part) continue;
        RopeDrafts(read, assumed_d, pr, part, c, drafts);
      }
    }
  }
  for (CheckDraft& d : drafts) d.params.max_len = t.rows;
  // The intent itself, whatever the readings say: a few wrong cells may derail a reading, and
  // the table is then still compared with what was meant.
  if (c.intent && (c.fixed.kind() == Scheme::kSinusoidal || c.fixed.kind() == Scheme::kRope)) {
    CheckDraft d;
    d.params = c.fixed;
    // A partial rotary table is d_rot = int(d * fraction) wide: a model's head dim stays.
    const bool partial = c.fixed.kind() == Scheme::kRope && c.fixed.rope().rotary_fraction < 1 &&
                         static_cast<int64_t>(static_cast<double>(c.fixed.d_model) *
                                              c.fixed.rope().rotary_fraction) == assumed_d;
    if (!partial) d.params.d_model = assumed_d;
    d.params.max_len = t.rows;
    d.hypothesis = LayoutName(d.params);
    drafts.push_back(std::move(d));
  }
  // A first score on sampled rows; the best of each layout and the best few overall are then
  // verified on every cell.
  const std::vector<int64_t> rows = SampleRows(t.rows);
  const int64_t cols = std::min(t.cols, assumed_d);
  std::vector<std::pair<double, size_t>> scored;
  for (size_t k = 0; k < drafts.size(); ++k) {
    Result<EncodingPtr> e = MakeEncoding(drafts[k].params, cap);
    if (!e.ok()) continue;
    if (e.value()->cols() < cols) continue;
    scored.push_back({SampleScore(t, *e.value(), cols, rows) + 1e-9 * drafts[k].unsnapped, k});
  }
  std::stable_sort(scored.begin(), scored.end());
  std::vector<size_t> chosen;
  std::vector<std::string> layouts;
  for (const auto& [score, k] : scored) {
    const bool new_layout =
        std::find(layouts.begin(), layouts.end(), drafts[k].hypothesis) == layouts.end();
    if (new_layout || chosen.size() < 3) {
      chosen.push_back(k);
      if (new_layout) layouts.push_back(drafts[k].hypothesis);
    }
  }
  // On a large table a candidate whose sampled rows are already off by more than any tolerance
  // is measured on a subset of rows only (its numbers then describe those rows); the best one
  // and any that may match are verified on every cell.
  const bool large = t.rows * cols > kFullVerifyCells;
  std::vector<CheckCandidate> out;
  for (size_t k : chosen) {
    double sampled = INFINITY;
    for (const auto& [score, j] : scored) {
      if (j == k) sampled = score;
    }
    const bool off =
        large && k != scored.front().second &&
        sampled > std::max(1e-5, std::ldexp(8.0, -c.bits)) + 4 * c.tolerance.value_or(0.0);
    Result<CheckCandidate> v =
        off ? VerifyRows(t, drafts[k], c, cap) : Verify(t, drafts[k], c, cap);
    if (!v.ok()) {
      if (v.error().kind == Error::Kind::kInvalidArgument) continue;
      return v.error();
    }
    out.push_back(std::move(v).value());
  }
  std::stable_sort(out.begin(), out.end(), [](const CheckCandidate& a, const CheckCandidate& b) {
    if (VerdictRank(a.verdict) != VerdictRank(b.verdict)) {
      return VerdictRank(a.verdict) < VerdictRank(b.verdict);
    }
    if (a.verdict != CheckVerdict::kNoMatch && a.unsnapped != b.unsnapped) {
      return a.unsnapped < b.unsnapped;
    }
    // A near miss with a few wrong cells is nearer than any with errors everywhere.
    if (a.verdict == CheckVerdict::kNoMatch && FewCells(a.stats) != FewCells(b.stats)) {
      return FewCells(a.stats);
    }
    // Among near misses an unround reading has to be clearly nearer to rank first.
    if (a.verdict == CheckVerdict::kNoMatch) {
      return a.score * (1 + 0.25 * a.unsnapped) < b.score * (1 + 0.25 * b.unsnapped);
    }
    return a.score < b.score;
  });
  // One candidate per layout: the runner-up is another reading of the table, not the same one
  // with a base rounded differently.
  std::vector<CheckCandidate> unique;
  for (CheckCandidate& cand : out) {
    bool seen = false;
    for (const CheckCandidate& u : unique) seen = seen || u.layout == cand.layout;
    if (!seen) unique.push_back(std::move(cand));
  }
  return unique;
}

Matrix Transposed(const Matrix& t) {
  Matrix out;
  out.rows = t.cols;
  out.cols = t.rows;
  out.data.resize(t.data.size());
  for (int64_t r = 0; r < t.rows; ++r) {
    for (int64_t j = 0; j < t.cols; ++j) out.at(j, r) = t.at(r, j);
  }
  return out;
}

Matrix FirstColumns(const Matrix& t, int64_t cols) {
  Matrix out;
  out.rows = t.rows;
  out.cols = cols;
  out.data.resize(static_cast<size_t>(t.rows * cols));
  for (int64_t r = 0; r < t.rows; ++r) {
    std::copy(t.row(r), t.row(r) + cols, out.row(r));
  }
  return out;
}

bool Matches(const std::vector<CheckCandidate>& v) {
  return !v.empty() && v.front().verdict != CheckVerdict::kNoMatch;
}

std::string Float32Note(const CheckCandidate& best) {
  const ErrorStats& s = best.stats;
  return "the error grows with the position (mean |error| " + Num(s.mean_abs_head) +
         " over the first quarter of the rows, " + Num(s.mean_abs_tail) +
         " over the last; largest " + Num(s.max_abs) + " at row " + std::to_string(s.worst_row) +
         "): the table was computed in float32. float32 holds the angle p\xc2\xb7w "
         "to a relative 2^-24, so the angle is off by about p\xc2\xb7w\xc2\xb7"
         "2^-24 radians "
         "(and w itself, made in float32 by exp or pow, by a few 2^-24 relative); every cell is "
         "within A\xc2\xb7"
         "2^-24\xc2\xb7(4 + p\xc2\xb7w\xc2\xb7(2 ln(w_max/w_min) + 12)) of the "
         "exact value. Compute p\xc2\xb7w in float64 and round once to float32 to match to "
         "float32 rounding.";
}

}  // namespace

bool CheckConstraints::Has(const std::string& key) const {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string_view CheckVerdictName(CheckVerdict v) {
  switch (v) {
    case CheckVerdict::kMatch:
      return "match";
    case CheckVerdict::kFloat32:
      return "float32";
    case CheckVerdict::kNoMatch:
      break;
  }
  return "no match";
}

namespace {

// The search under `c`: the ranked candidates, the verdict of the best and, when nothing
// matches, notes on why.
// `explain`: when nothing matches, look for why (a transposed table, a column extra or missing,
// a constant added: each a search of its own). The intent's search leaves that to the table's
// own search, which the diagnosis reads.
Result<CheckReport> Search(const Matrix& table, const CheckConstraints& c, const MemoryCap& cap,
                           bool explain = true) {
  CheckReport report;
  report.rows = table.rows;
  report.cols = table.cols;
  report.tolerance_text = c.tolerance
                              ? "|error| <= " + Num(*c.tolerance) + " per cell (--tolerance)"
                              : std::string(c.bits == 24   ? "float32 rounding"
                                            : c.bits == 11 ? "float16 rounding"
                                            : c.bits == 8  ? "bf16 rounding"
                                                           : "the rounding of a reading") +
                                    ": 1 ulp of the reference or 2^-" + std::to_string(c.bits) +
                                    " \xc3\x97 amplitude per cell";
  Result<std::vector<CheckCandidate>> ranked = Identify(table, table.cols, c, cap);
  if (!ranked.ok()) return ranked.error();
  report.ranked = std::move(ranked).value();
  if (report.ranked.size() > kCheckCandidatesKept) report.ranked.resize(kCheckCandidatesKept);
  if (report.ranked.empty()) {
    report.notes.push_back("no scheme applies to a table of this shape with the parameters given");
    return report;
  }
  const CheckCandidate& best = report.ranked.front();
  report.verdict = best.verdict;
  if (best.verdict == CheckVerdict::kFloat32) report.notes.push_back(Float32Note(best));
  if (best.verdict == CheckVerdict::kNoMatch && FewCells(best.stats)) {
    report.notes.push_back(std::to_string(best.stats.over_tolerance) + " of " +
                           std::to_string(best.stats.rows * best.stats.cols) +
                           " cells differ from " + best.description +
                           " beyond the tolerance; every other cell matches it");
    return report;
  }
  // A match that needs an unround base (say 19306.98) is more likely a table of the next or
  // previous width with a column missing or extra: the layouts of odd d are prefixes of d + 1.
  const bool suspicious = best.verdict != CheckVerdict::kNoMatch && best.unsnapped > 0;
  if (best.verdict != CheckVerdict::kNoMatch && !suspicious) return report;
  if (!explain) return report;
  auto clean_match = [](const Result<std::vector<CheckCandidate>>& r) {
    return r.ok() && Matches(r.value()) && r.value().front().unsnapped == 0;
  };
  auto refuse = [&](std::string note) {
    if (suspicious) {
      note += " (the table also equals " + best.description +
              ", whose parameters are not round numbers any implementation uses)";
    }
    report.notes.push_back(std::move(note));
    report.verdict = CheckVerdict::kNoMatch;
    return report;
  };
  // Why nothing matches: the shapes a table most often comes in by mistake, then the error's
  // own shape.
  if (table.rows != table.cols && !suspicious && table.rows <= 65536) {
    Result<std::vector<CheckCandidate>> t = Identify(Transposed(table), table.rows, c, cap);
    if (t.ok() && Matches(t.value())) {
      return refuse("the table is transposed: it holds (d, L) = (" + std::to_string(table.rows) +
                    ", " + std::to_string(table.cols) + "), and as (L, d) = (" +
                    std::to_string(table.cols) + ", " + std::to_string(table.rows) +
                    ") it matches " + t.value().front().description + "; transpose it (table.T)");
    }
  }
  if (table.cols >= 3) {
    Result<std::vector<CheckCandidate>> t =
        Identify(FirstColumns(table, table.cols - 1), table.cols - 1, c, cap);
    if (clean_match(t)) {
      return refuse("one column too many: the first " + std::to_string(table.cols - 1) +
                    " columns match " + t.value().front().description +
                    " (d = " + std::to_string(table.cols - 1) +
                    "), the last column (j = " + std::to_string(table.cols - 1) + ") is extra");
    }
  }
  {
    Result<std::vector<CheckCandidate>> t = Identify(table, table.cols + 1, c, cap);
    if (clean_match(t)) {
      return refuse("one column missing: the " + std::to_string(table.cols) +
                    " columns match the first ones of " + t.value().front().description +
                    " with d = " + std::to_string(table.cols + 1) +
                    "; column j = " + std::to_string(table.cols) + " is not in the table");
    }
  }
  if (suspicious) return report;
  // A constant added to every value: the middle of the table's range is then that constant
  // (a sinusoid spans [-A, A]).
  {
    const auto [lo, hi] = std::minmax_element(table.data.begin(), table.data.end());
    const double shift = 0.5 * (static_cast<double>(*lo) + static_cast<double>(*hi));
    if (std::abs(shift) > 1e-3 * (static_cast<double>(*hi) - static_cast<double>(*lo))) {
      Matrix moved = table;
      for (float& v : moved.data) v = static_cast<float>(static_cast<double>(v) - shift);
      CheckConstraints loose = c;
      // The range's ends are only as near +-A as the rows come to a crest: a loose first look,
      // then the shift is the mean difference from what it found.
      loose.tolerance = std::max(c.tolerance.value_or(0.0), 1e-2 * (*hi - *lo));
      Result<std::vector<CheckCandidate>> t = Identify(moved, table.cols, loose, cap);
      if (t.ok() && Matches(t.value())) {
        const CheckCandidate& found = t.value().front();
        const double exact_shift = shift + found.stats.mean_signed;
        const double spread = found.stats.max_abs + std::abs(found.stats.mean_signed);
        return refuse("every value is off by " + Num(exact_shift) + " (to within " + Num(spread) +
                      "): less that constant, the table matches " + found.description);
      }
    }
  }
  const ErrorStats& s = best.stats;
  const double spread = std::sqrt(std::max(0.0, s.rms * s.rms - s.mean_signed * s.mean_signed));
  if (std::abs(s.mean_signed) > 1e-4 * best.amplitude && spread < 0.05 * std::abs(s.mean_signed)) {
    report.notes.push_back("every value is off by about " + Num(s.mean_signed) + " from " +
                           best.description + " (the same shift in every cell, spread " +
                           Num(spread) + "): a constant added to the table?");
  } else if (s.max_abs < 8 * s.rms && s.max_abs_tail < 4 * s.max_abs_head &&
             s.max_abs_head < 4 * s.max_abs_tail) {
    report.notes.push_back(
        "the nearest candidate, " + best.description + ", differs by " + Num(s.rms) +
        " (rms) spread over every position and column with no growth along the rows (largest " +
        Num(s.max_abs) + "): noise on the values, rows in another order, or another scheme");
  } else {
    report.notes.push_back("the nearest candidate, " + best.description + ", differs by up to " +
                           Num(s.max_abs) + " (row " + std::to_string(s.worst_row) + ", column " +
                           std::to_string(s.worst_col) + "), beyond " + report.tolerance_text);
  }
  return report;
}

// The findings when nothing matches, from the search's notes and its best candidate.
void DiagnoseMiss(const Matrix& table, const CheckReport& search, const MemoryCap& cap,
                  CheckReport& out) {
  if (search.ranked.empty()) return;
  const CheckCandidate& best = search.ranked.front();
  if (FewCells(best.stats)) {
    Result<std::vector<CheckCell>> cells = WorstCells(table, best.params, best.stats, 5, cap);
    if (cells.ok()) out.worst_cells = std::move(cells).value();
    std::string text = std::to_string(best.stats.over_tolerance) +
                       (best.stats.over_tolerance == 1 ? " cell differs" : " cells differ") +
                       " from " + best.description + "; every other cell matches it";
    for (const CheckCell& cell : out.worst_cells) {
      if (std::abs(static_cast<double>(cell.table) - cell.reference) == 0) break;
      text += "; position " + std::to_string(cell.position) + ", column " +
              std::to_string(cell.col) + ": " + CheckFloatText(cell.table) + ", reference " +
              CheckFloatText(cell.reference) + " (" + cell.formula + ")";
    }
    out.diagnosis.push_back({"cells", text, static_cast<double>(best.stats.over_tolerance)});
    return;
  }
  for (const std::string& n : search.notes) {
    if (n.find("transposed") != std::string::npos) {
      out.diagnosis.push_back({"transposed", n, {}});
      return;
    }
    if (n.find("column") != std::string::npos && n.find("one column") == 0) {
      out.diagnosis.push_back({"shape", n, {}});
      return;
    }
  }
  out.diagnosis.push_back(
      {"noise", search.notes.empty() ? "nothing matches" : search.notes.back(), best.stats.rms});
}

Result<CheckReport> CheckTableFindings(const Matrix& table, const CheckConstraints& c,
                                       const MemoryCap& cap);

}  // namespace

namespace {

// The significand bits every value of a float32 table fits in when it was rounded to bfloat16
// (8) or float16 (11) before it was saved as float32; 24 otherwise. A table of a few distinct
// values (0, 1, -1) says nothing, so at least 16 distinct magnitudes must fit.
int StoredBits(const Matrix& t) {
  bool bf16 = true, fp16 = true;
  std::vector<float> seen;
  for (float v : t.data) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    bf16 = bf16 && (bits & 0xFFFFu) == 0;
    if (fp16 && v != 0) {
      int e = 0;
      const double m = std::frexp(static_cast<double>(std::abs(v)), &e);  // m in [0.5, 1)
      // float16: 11 significant bits for normal values (e - 1 >= -14), down to 2^-24.
      const int significant = e - 1 >= -14 ? 11 : 11 - (-14 - (e - 1));
      fp16 = e - 1 <= 15 && significant >= 1 &&
             std::ldexp(m, significant) == std::round(std::ldexp(m, significant));
    }
    if (!bf16 && !fp16) return 24;
    if (seen.size() < 16 && std::find(seen.begin(), seen.end(), std::abs(v)) == seen.end()) {
      seen.push_back(std::abs(v));
    }
  }
  if (seen.size() < 16) return 24;
  return bf16 ? 8 : 11;
}

}  // namespace

// A specific finding says what is wrong: the generic "noise" finding, and the note on the nearest
// candidate's spread errors (which a wrong pairing or scaling also gives), then only muddle it.
Result<CheckReport> CheckTable(const Matrix& table, const CheckConstraints& c,
                               const MemoryCap& cap) {
  Result<CheckReport> r = CheckTableFindings(table, c, cap);
  if (!r.ok()) return r;
  // A float32 file whose values are all bfloat16 or float16 numbers: the table was rounded to
  // that type before it was saved. Under that type's rounding it may be exactly what was meant.
  if (!r.value().matches && !c.tolerance && c.bits == 24) {
    const int stored = StoredBits(table);
    if (stored < 24) {
      CheckConstraints rounded = c;
      rounded.bits = stored;
      Result<CheckReport> again = CheckTableFindings(table, rounded, cap);
      if (again.ok() && again.value().verdict == CheckVerdict::kMatch) {
        const std::string type = stored == 8 ? "bfloat16" : "float16";
        CheckReport out = std::move(again).value();
        const CheckCandidate& k = out.ranked.front();
        out.diagnosis.clear();
        out.diagnosis.push_back(
            {"dtype",
             "every value is a " + type + " number stored as float32: the table was rounded to " +
                 type + " (" + std::to_string(stored) + " significant bits, errors up to 2^-" +
                 std::to_string(stored) + " of the amplitude) and matches " + k.description +
                 " to that rounding; keep the cache in float32 (cos and sin in float32, cast the "
                 "rotated q and k afterwards) or check with --tolerance " +
                 CheckNumberText(std::ldexp(k.amplitude, -stored)) + " if " + type +
                 " is what you meant",
             static_cast<double>(stored)});
        // "What is this?": a known convention in bfloat16. "Is it what I meant?": not in float32.
        out.matches = !c.intent;
        if (c.intent) out.verdict = CheckVerdict::kNoMatch;
        return out;
      }
    }
  }
  CheckReport& report = r.value();
  const bool specific = std::any_of(report.diagnosis.begin(), report.diagnosis.end(),
                                    [](const CheckDiagnosis& d) { return d.kind != "noise"; });
  if (specific) {
    std::erase_if(report.diagnosis, [](const CheckDiagnosis& d) { return d.kind == "noise"; });
    std::erase_if(report.notes, [](const std::string& n) {
      return n.find("noise on the values") != std::string::npos;
    });
  }
  return r;
}

namespace {

Result<CheckReport> CheckTableFindings(const Matrix& table, const CheckConstraints& c,
                                       const MemoryCap& cap) {
  if (table.rows <= 0 || table.cols <= 0) {
    return InvalidArgument("the table is empty (" + std::to_string(table.rows) + " rows, " +
                           std::to_string(table.cols) + " columns)");
  }
  int64_t non_finite = 0;
  for (float v : table.data) non_finite += std::isfinite(v) ? 0 : 1;
  if (non_finite > 0) {
    return InvalidArgument("the table holds " + std::to_string(non_finite) +
                           " NaN or infinite values; a positional table is finite everywhere");
  }
  if (!c.intent) {
    // "What is this?": the identification, its warnings, and why nothing matches.
    Result<CheckReport> found = Search(table, c, cap);
    if (!found.ok()) return found.error();
    CheckReport report = std::move(found).value();
    report.matches = report.verdict != CheckVerdict::kNoMatch;
    if (report.ranked.empty()) return report;
    report.identified = report.ranked.front();
    if (report.verdict == CheckVerdict::kMatch) {
      report.warnings = UnusualConventions(report.ranked.front().params);
    } else if (report.verdict == CheckVerdict::kFloat32) {
      report.diagnosis.push_back(Float32Finding(report.ranked.front()));
    } else {
      DiagnoseMiss(table, report, cap, report);
    }
    return report;
  }
  // "Is this what I meant?": the table under the intent, then what it is instead.
  Result<CheckReport> meant = Search(table, c, cap, /*explain=*/false);
  if (!meant.ok()) return meant.error();
  CheckReport report = std::move(meant).value();
  report.has_intent = true;
  report.matches = report.verdict == CheckVerdict::kMatch;
  if (!report.matches) {
    // The nearest under the intent is a table of the intent's kind: its scheme and, for RoPE,
    // its part (a cos intent is never answered with a sin table while a cos one was tried).
    const auto same_kind = [&c](const CheckCandidate& k) {
      if (k.params.kind() != c.fixed.kind()) return false;
      return k.params.kind() != Scheme::kRope || k.params.rope().part == c.fixed.rope().part;
    };
    std::stable_partition(report.ranked.begin(), report.ranked.end(), same_kind);
  }
  if (!report.ranked.empty()) report.intended = report.ranked.front();
  // A match that needs an unround reading of a parameter nobody fixed is kept only when the
  // table is nothing rounder: a t2t table is also tf-text with base 10000^(h/(h-1)).
  if (report.matches && report.intended->unsnapped == 0) {
    report.identified = report.intended;
    return report;
  }
  // The intent with a few wrong cells: that is what the table is.
  if (report.intended && report.intended->verdict == CheckVerdict::kNoMatch &&
      FewCells(report.intended->stats)) {
    report.identified = report.intended;
    DiagnoseMiss(table, report, cap, report);
    return report;
  }
  CheckConstraints free;
  free.tolerance = c.tolerance;
  free.bits = c.bits;
  Result<CheckReport> found = Search(table, free, cap);
  if (!found.ok()) return found.error();
  const CheckReport& own = found.value();
  if (!own.ranked.empty()) report.identified = own.ranked.front();
  const CheckCandidate* id = report.identified ? &*report.identified : nullptr;
  const bool near = id != nullptr && (id->verdict != CheckVerdict::kNoMatch || FewCells(id->stats));
  if (report.matches) {
    const bool rounder = near && id->verdict == CheckVerdict::kMatch && id->unsnapped == 0 &&
                         !ParamDiagnosis(MeantParams(id->params, c), id->params, c).empty();
    if (!rounder) {
      report.identified = report.intended;
      return report;
    }
    report.matches = false;
    report.verdict = CheckVerdict::kNoMatch;
  }
  const int64_t model_cols = c.fixed.kind() == Scheme::kRope
                                 ? static_cast<int64_t>(static_cast<double>(c.fixed.d_model) *
                                                        c.fixed.rope().rotary_fraction)
                                 : c.fixed.d_model;
  if (!c.model.empty() && model_cols != table.cols) {
    report.diagnosis.push_back(
        {"shape",
         std::string(c.fixed.kind() == Scheme::kRope ? "head_dim" : "the width") + " is " +
             std::to_string(c.fixed.d_model) + " in " + c.model +
             (model_cols != c.fixed.d_model ? " (rotated: " + std::to_string(model_cols) + ")"
                                            : std::string()) +
             "; your table has " + std::to_string(table.cols) + " columns",
         static_cast<double>(table.cols)});
  }
  if (near) {
    // What was meant for this table: the table's own reading with what the intent fixes.
    CheckDraft d;
    d.params = MeantParams(id->params, c);
    d.hypothesis = LayoutName(d.params);
    Result<CheckCandidate> in = Verify(table, d, c, cap);
    if (in.ok()) report.intended = std::move(in).value();
    if (report.intended && report.intended->verdict == CheckVerdict::kMatch) {
      report.ranked.insert(report.ranked.begin(), *report.intended);
      report.verdict = CheckVerdict::kMatch;
      report.matches = true;
      report.notes.clear();
      report.diagnosis.clear();
      return report;
    }
    for (CheckDiagnosis& f : ParamDiagnosis(d.params, id->params, c)) {
      report.diagnosis.push_back(std::move(f));
    }
    if (id->verdict == CheckVerdict::kFloat32) report.diagnosis.push_back(Float32Finding(*id));
    if (FewCells(id->stats)) DiagnoseMiss(table, own, cap, report);
    return report;
  }
  if (!report.intended) {
    report.diagnosis.push_back(
        {"layout", "check compares sinusoidal and RoPE tables; the intent is neither", {}});
    return report;
  }
  const CheckCandidate& in = *report.intended;
  if (in.verdict == CheckVerdict::kFloat32) {
    report.diagnosis.push_back(Float32Finding(in));
    return report;
  }
  if (FewCells(in.stats)) {
    DiagnoseMiss(table, report, cap, report);
    return report;
  }
  DiagnoseMiss(table, own, cap, report);
  return report;
}

}  // namespace

std::string ParamsFlags(const EncodingParams& p) {
  std::string s = "--scheme " + std::string(SchemeName(p.kind()));
  s += DescriptorOf(p.kind()).check_flags(p);
  if (p.offset != 0) s += " --offset " + std::to_string(p.offset);
  s += " --d-model " + std::to_string(p.d_model) + " --max-len " + std::to_string(p.max_len);
  return s;
}

}  // namespace pe
