#include "cli/check_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/check_cases.h"
#include "analysis/check_invfreq.h"
#include "analysis/check_layouts.h"
#include "arch/model_choice.h"
#include "encoding/encoding.h"
#include "io/tensor_file.h"
#include "model/param_fields.h"

namespace pe {
namespace {

// The findings as JSON: [{"class", "text", "value" where there is a number}].
nlohmann::json DiagnosisJson(const std::vector<CheckDiagnosis>& diagnosis) {
  nlohmann::json out = nlohmann::json::array();
  for (const CheckDiagnosis& d : diagnosis) {
    nlohmann::json dj{{"class", d.kind}, {"text", d.text}};
    if (d.value) dj["value"] = *d.value;
    out.push_back(std::move(dj));
  }
  return out;
}

std::string Named(const CheckCandidate& c) {
  return c.preset.empty() ? c.description : c.description + " (" + c.preset + ")";
}

std::string VerdictText(const CheckCandidate& c) {
  switch (c.verdict) {
    case CheckVerdict::kMatch:
      return "matches " + Named(c) +
             (c.stats.max_abs == 0 ? std::string(" exactly")
                                   : " to " + CheckNumberText(c.stats.max_abs));
    case CheckVerdict::kFloat32:
      return "matches " + Named(c) + " as computed in float32 (max |error| " +
             CheckNumberText(c.stats.max_abs) + ", growing with the position)";
    case CheckVerdict::kNoMatch:
      break;
  }
  return "no match; nearest: " + Named(c) + ", max |error| " + CheckNumberText(c.stats.max_abs);
}

}  // namespace

void PrintCheckReport(std::ostream& out, const CheckReport& r, const std::string& table,
                      const std::string& dtype) {
  out << "table: " << table << ", (" << r.rows << ", " << r.cols << ") " << dtype << "\n";
  if (r.has_intent) {
    // The answer first: what the table is, then what was meant and how they differ.
    if (r.identified) {
      out << "identified: " << VerdictText(*r.identified) << "\n";
      out << "  flags: " << r.identified->flags << "\n";
    } else {
      out << "identified: no known convention\n";
    }
    if (r.intended) {
      out << "intended: " << Named(*r.intended) << (r.matches ? ": matches" : ": does not match")
          << "\n  flags: " << r.intended->flags << "\n";
    }
  }
  auto findings = [&] {
    for (const std::string& w : r.warnings) out << "warning: " << w << "\n";
    for (const CheckDiagnosis& d : r.diagnosis) {
      out << "diagnosis (" << d.kind << "): " << d.text << "\n";
    }
  };
  if (r.has_intent) {
    findings();
    if (!r.ranked.empty()) out << "under the intent:\n";
  }
  if (r.ranked.empty()) {
    out << "no match\n";
    if (!r.has_intent) findings();
  } else {
    const CheckCandidate& b = r.ranked.front();
    // A near miss says "no match; nearest: ..." once; a match "match: matches ...".
    out << (r.verdict == CheckVerdict::kNoMatch ? "" : "match: ") << VerdictText(b) << "\n";
    out << "  flags: " << b.flags << "\n";
    if (!r.has_intent) findings();
    const ErrorStats& s = b.stats;
    out << "  max |error| " << CheckNumberText(s.max_abs) << ", mean |error| "
        << CheckNumberText(s.mean_abs) << ", largest " << s.max_ulps << " ulps, "
        << s.over_tolerance << " of " << s.rows * s.cols << " cells beyond the tolerance\n";
    out << "  worst cell: row " << s.worst_row << " (position " << b.params.offset + s.worst_row
        << "), column " << s.worst_col << ": table " << CheckFloatText(s.worst_table)
        << ", reference " << CheckFloatText(s.worst_reference) << "\n";
    out << "    reference formula: " << b.worst_formula << "\n";
    out << "  error in float32 ulps:\n";
    const int64_t cells = s.rows * s.cols;
    int label_width = 0;  // the widest label shown, so the counts line up
    for (int k = 0; k < kUlpBuckets; ++k) {
      if (s.ulp_histogram[static_cast<size_t>(k)] > 0) {
        label_width = std::max(label_width, static_cast<int>(UlpBucketLabel(k).size()));
      }
    }
    for (int k = 0; k < kUlpBuckets; ++k) {
      const int64_t n = s.ulp_histogram[static_cast<size_t>(k)];
      if (n == 0) continue;
      const double share = cells > 0 ? static_cast<double>(n) / static_cast<double>(cells) : 0;
      char line[160];
      std::snprintf(line, sizeof line, "    %*s  %10lld  %5.1f%%  ", label_width,
                    UlpBucketLabel(k).c_str(), static_cast<long long>(n), 100 * share);
      out << line << std::string(static_cast<size_t>(std::lround(share * 40)), '#') << "\n";
    }
    if (r.ranked.size() > 1) {
      out << "other readings, ranked as the first by max |error| over the table's amplitude (an "
             "unround parameter counts a quarter more among near misses):\n";
    }
    const char* const ordinal[] = {"second", "third", "fourth", "fifth"};
    for (size_t k = 1; k < r.ranked.size() && k <= 4; ++k) {
      const CheckCandidate& c = r.ranked[k];
      out << ordinal[k - 1] << ": " << Named(c) << ", max |error| "
          << CheckNumberText(c.stats.max_abs);
      if (c.verdict != CheckVerdict::kNoMatch) {
        out << " (" << CheckVerdictName(c.verdict) << " too";
        if (c.unsnapped > 0) out << ", with parameters that are not round numbers";
        out << ")";
      }
      out << "\n";
    }
  }
  for (const std::string& n : r.notes) out << "note: " << n << "\n";
  out << "tolerance: " << r.tolerance_text << "\n";
}

namespace {

nlohmann::json CheckReportJson(const CheckReport& r, const std::string& table,
                               const std::string& dtype) {
  nlohmann::json j;
  j["file"] = table;
  j["dtype"] = dtype;
  j["shape"] = {r.rows, r.cols};
  j["verdict"] = std::string(CheckVerdictName(r.verdict));
  j["tolerance"] = r.tolerance_text;
  j["candidates"] = nlohmann::json::array();
  for (const CheckCandidate& c : r.ranked) {
    nlohmann::json cj;
    cj["description"] = c.description;
    cj["layout"] = c.layout;
    cj["preset"] = c.preset;
    cj["flags"] = c.flags;
    cj["verdict"] = std::string(CheckVerdictName(c.verdict));
    cj["max_abs"] = c.stats.max_abs;
    cj["mean_abs"] = c.stats.mean_abs;
    cj["max_ulps"] = c.stats.max_ulps;
    cj["score"] = c.score;
    cj["unround_parameters"] = c.unsnapped;
    cj["cells_beyond_tolerance"] = c.stats.over_tolerance;
    cj["worst"] = {{"row", c.stats.worst_row},
                   {"column", c.stats.worst_col},
                   {"position", c.params.offset + c.stats.worst_row},
                   {"table", c.stats.worst_table},
                   {"reference", c.stats.worst_reference},
                   {"formula", c.worst_formula}};
    nlohmann::json hist = nlohmann::json::array();
    for (int k = 0; k < kUlpBuckets; ++k) {
      const int64_t n = c.stats.ulp_histogram[static_cast<size_t>(k)];
      if (n != 0) hist.push_back({{"ulps", UlpBucketLabel(k)}, {"cells", n}});
    }
    cj["ulp_histogram"] = hist;
    j["candidates"].push_back(cj);
  }
  j["notes"] = r.notes;
  j["matches"] = r.matches;
  auto reading = [](const CheckCandidate& c) {
    return nlohmann::json{{"description", c.description},
                          {"flags", c.flags},
                          {"verdict", std::string(CheckVerdictName(c.verdict))},
                          {"max_abs", c.stats.max_abs}};
  };
  j["intended"] = r.intended ? reading(*r.intended) : nlohmann::json(nullptr);
  j["identified"] = r.identified ? reading(*r.identified) : nlohmann::json(nullptr);
  j["diagnosis"] = DiagnosisJson(r.diagnosis);
  j["worst_cells"] = nlohmann::json::array();
  for (const CheckCell& c : r.worst_cells) {
    j["worst_cells"].push_back({{"row", c.row},
                                {"column", c.col},
                                {"position", c.position},
                                {"table", c.table},
                                {"reference", c.reference},
                                {"formula", c.formula}});
  }
  j["warnings"] = r.warnings;
  return j;
}

}  // namespace

void PrintCheckReportJson(std::ostream& out, const CheckReport& r, const std::string& table,
                          const std::string& dtype) {
  out << CheckReportJson(r, table, dtype).dump(2) << "\n";
}

namespace {

// One table of a pair in a few lines: what it is, what was meant, its worst cell.
void PrintTableSummary(std::ostream& out, const CheckReport& r, const char* name) {
  out << name << ": ";
  if (r.identified) {
    out << VerdictText(*r.identified) << "\n  flags: " << r.identified->flags << "\n";
  } else {
    out << "no known convention\n";
  }
  if (r.has_intent && r.intended && !r.matches) {
    out << "  intended: " << Named(*r.intended) << ": does not match\n";
  }
  if (!r.ranked.empty() && !r.matches) {
    const CheckCandidate& b = r.ranked.front();
    const ErrorStats& s = b.stats;
    out << "  max |error| " << CheckNumberText(s.max_abs) << " (" << s.over_tolerance << " of "
        << s.rows * s.cols << " cells beyond the tolerance); worst: position "
        << b.params.offset + s.worst_row << ", column " << s.worst_col << ": "
        << CheckFloatText(s.worst_table) << ", reference " << CheckFloatText(s.worst_reference)
        << "\n";
  }
}

}  // namespace

void PrintPairReport(std::ostream& out, const CheckPairReport& r, const std::string& file,
                     const std::string& dtype) {
  out << "cos and sin: " << file << ", " << r.layout << " (" << r.cos.rows << ", "
      << (r.one_column_per_pair ? r.cos.cols / 2 : r.cos.cols) << ") each\n";
  out << (r.matches ? "match: both tables match" : "no match") << "\n";
  for (const CheckDiagnosis& d : r.diagnosis) {
    out << "diagnosis (" << d.kind << "): " << d.text << "\n";
  }
  if (r.pairing) {
    out << "pairing: " << RopePairingName(*r.pairing)
        << " (every pair keeps its length under it; read from the rotation)\n";
  } else if (r.one_column_per_pair) {
    out << "note: one column per pair is read as the half layout (each pair's column twice); it "
           "cannot show the pairing, which the code that applies the rotation decides\n";
  }
  for (const std::string& n : r.notes) out << "note: " << n << "\n";
  PrintTableSummary(out, r.cos, "cos");
  PrintTableSummary(out, r.sin, "sin");
  out << "(--json gives each table's whole report; " << dtype << ")\n";
  out << "tolerance: " << r.cos.tolerance_text << "\n";
}

void PrintPairReportJson(std::ostream& out, const CheckPairReport& r, const std::string& file,
                         const std::string& dtype) {
  nlohmann::json j;
  j["file"] = file;
  j["dtype"] = dtype;
  j["input"] = "cos,sin";
  j["layout"] = r.layout;
  j["one_column_per_pair"] = r.one_column_per_pair;
  j["pairing"] = r.pairing ? nlohmann::json(std::string(RopePairingName(*r.pairing)))
                           : nlohmann::json(nullptr);
  j["matches"] = r.matches;
  j["verdict"] = r.matches ? "match" : "no match";
  j["diagnosis"] = DiagnosisJson(r.diagnosis);
  j["identified"] = r.cos.identified
                        ? nlohmann::json{{"description", r.cos.identified->description},
                                         {"flags", r.cos.identified->flags}}
                        : nlohmann::json(nullptr);
  j["intended"] = r.cos.intended && r.cos.has_intent
                      ? nlohmann::json{{"description", r.cos.intended->description},
                                       {"flags", r.cos.intended->flags}}
                      : nlohmann::json(nullptr);
  j["worst_cells"] = nlohmann::json::array();
  for (const auto& [name, rep] :
       {std::pair<const char*, const CheckReport*>{"cos", &r.cos}, {"sin", &r.sin}}) {
    for (const CheckCell& c : rep->worst_cells) {
      j["worst_cells"].push_back({{"tensor", name},
                                  {"row", c.row},
                                  {"column", c.col},
                                  {"position", c.position},
                                  {"table", c.table},
                                  {"reference", c.reference},
                                  {"formula", c.formula}});
    }
  }
  j["notes"] = r.notes;
  j["cos"] = CheckReportJson(r.cos, file + " (cos)", dtype);
  j["sin"] = CheckReportJson(r.sin, file + " (sin)", dtype);
  out << j.dump(2) << "\n";
}

namespace {

nlohmann::json InvFreqJson(const InvFreqCandidate& k) {
  return nlohmann::json{
      {"description", k.description},
      {"flags", k.flags},
      {"verdict", k.match ? "match" : "no match"},
      {"max_relative_error", k.max_rel},
      {"max_ulps", k.max_ulps},
      {"elements_beyond_tolerance", k.over_tolerance},
      {"worst", {{"pair", k.worst}, {"value", k.worst_value}, {"reference", k.worst_reference}}}};
}

std::string InvFreqLine(const InvFreqCandidate& k) {
  if (k.match) {
    return "matches " + k.description +
           (k.max_ulps == 0 ? std::string(" exactly")
                            : " (largest error " + std::to_string(k.max_ulps) + " float32 ulps)");
  }
  return "no match; nearest: " + k.description + ", largest relative error " +
         CheckNumberText(k.max_rel) + " at pair " + std::to_string(k.worst);
}

}  // namespace

void PrintInvFreqReport(std::ostream& out, const InvFreqReport& r, const std::string& file,
                        const std::string& dtype) {
  out << "inv_freq: " << file << ", (" << r.pairs << ",) " << dtype << "\n";
  if (r.identified) {
    out << "identified: " << InvFreqLine(*r.identified) << "\n  flags: " << r.identified->flags
        << "\n";
  } else {
    out << "identified: no known RoPE frequencies\n";
  }
  if (r.has_intent && r.intended) {
    out << "intended: " << r.intended->description << (r.matches ? ": matches" : ": does not match")
        << "\n  flags: " << r.intended->flags << "\n";
  }
  for (const std::string& w : r.warnings) out << "warning: " << w << "\n";
  for (const CheckDiagnosis& d : r.diagnosis) {
    out << "diagnosis (" << d.kind << "): " << d.text << "\n";
  }
  if (!r.matches && !r.worst_cells.empty()) {
    out << "largest differences:\n";
    for (const CheckCell& c : r.worst_cells) {
      out << "  pair " << c.col << ": " << CheckFloatText(c.table) << ", reference "
          << CheckFloatText(c.reference) << " (" << c.formula << ")\n";
    }
  }
  for (const std::string& n : r.notes) out << "note: " << n << "\n";
  out << "note: a frequency vector cannot show the pairing, the part (cos or sin) or an attention "
         "factor; check the cos/sin cache (check FILE) for those\n";
  out << "tolerance: " << r.tolerance_text << "\n";
}

void PrintInvFreqReportJson(std::ostream& out, const InvFreqReport& r, const std::string& file,
                            const std::string& dtype) {
  nlohmann::json j;
  j["file"] = file;
  j["dtype"] = dtype;
  j["shape"] = {r.pairs};
  j["input"] = "inv_freq";
  j["matches"] = r.matches;
  j["verdict"] = r.matches ? "match" : "no match";
  j["tolerance"] = r.tolerance_text;
  j["intended"] = r.intended && r.has_intent ? InvFreqJson(*r.intended) : nlohmann::json(nullptr);
  j["identified"] = r.identified ? InvFreqJson(*r.identified) : nlohmann::json(nullptr);
  j["diagnosis"] = DiagnosisJson(r.diagnosis);
  j["worst_cells"] = nlohmann::json::array();
  for (const CheckCell& c : r.worst_cells) {
    j["worst_cells"].push_back({{"pair", c.col},
                                {"column", c.col},
                                {"table", c.table},
                                {"reference", c.reference},
                                {"formula", c.formula}});
  }
  j["warnings"] = r.warnings;
  j["notes"] = r.notes;
  out << j.dump(2) << "\n";
}

int RunCheck(const ModelParams& params, const CheckRequest& request) {
  auto fail = [&](const std::string& message, int code) {
    std::cerr << "pe-explorer check: " << message << "\n";
    return code;
  };
  if (request.list_cases) {
    for (const CheckCase& c : CheckCases()) {
      std::cout << c.name << "\t" << c.title << "\tdiagnosis: " << c.expect << "\n  " << c.story
                << "\n";
    }
    return 0;
  }
  if (!request.case_name.empty()) {
    Result<CheckCaseTable> made = MakeCheckCase(request.case_name, params.cap);
    if (!made.ok()) return fail(made.message(), 2);
    Result<CheckReport> report =
        CheckTable(made.value().table, WholeIntent(made.value().intent), params.cap);
    if (!report.ok()) return fail(report.message(), 1);
    const std::string name = "case " + request.case_name + " (made by pe-explorer)";
    if (request.json) {
      PrintCheckReportJson(std::cout, report.value(), name, "<f4");
    } else {
      std::cout << FindCheckCase(request.case_name)->story << "\n";
      PrintCheckReport(std::cout, report.value(), name, "<f4");
    }
    std::cout.flush();
    return report.value().matches ? 0 : 1;
  }
  CheckConstraints c;
  c.fixed = params.pe;
  c.keys = request.fixed_keys;
  c.intent = request.intent;
  if (params.model) {
    c.model = ModelLabel(params);
    c.model_format = params.model->format;
    c.model_type = params.model->model_type;
  }
  if (!request.tolerance.empty()) {
    Result<double> tol = ParseNumber("--tolerance", request.tolerance, "a finite number >= 0",
                                     [](double v) { return v >= 0; });
    if (!tol.ok()) return fail(tol.message(), 2);
    c.tolerance = tol.value();
  }
  if (!request.inv_freq.empty()) {
    Result<TensorSpec> spec = ParseTensorSpec(request.inv_freq);
    if (!spec.ok()) return fail("--inv-freq: " + spec.message(), 2);
    Result<LoadedTensor> loaded = ReadTensorFile(spec.value(), params.cap);
    if (!loaded.ok()) return fail("--inv-freq: " + loaded.message(), 2);
    const std::string name = TensorSpecText(spec.value());
    const LoadedTensor& t = loaded.value();
    std::vector<int64_t> axes;
    for (int64_t n : t.values.shape) {
      if (n != 1) axes.push_back(n);
    }
    if (axes.size() > 1) {
      std::string shape;
      for (int64_t n : t.values.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(n);
      return fail("--inv-freq \"" + name + "\": a frequency vector is 1-D, shape (d/2,); got (" +
                      shape + ")",
                  2);
    }
    c.bits = DtypeSignificandBits(t.dtype);
    Result<InvFreqReport> report = CheckInvFreq(t.values.data, c);
    if (!report.ok()) return fail("--inv-freq \"" + name + "\": " + report.message(), 2);
    if (request.json) {
      PrintInvFreqReportJson(std::cout, report.value(), name, t.dtype);
    } else {
      PrintInvFreqReport(std::cout, report.value(), name, t.dtype);
    }
    std::cout.flush();
    return report.value().matches ? 0 : 1;
  }
  auto print_pair = [&](const Result<CheckPairReport>& pair, const std::string& name,
                        const std::string& dtype) {
    if (!pair.ok()) {
      return fail("\"" + name + "\": " + pair.message(),
                  pair.error().kind == Error::Kind::kInvalidArgument ? 2 : 1);
    }
    if (request.json) {
      PrintPairReportJson(std::cout, pair.value(), name, dtype);
    } else {
      PrintPairReport(std::cout, pair.value(), name, dtype);
    }
    std::cout.flush();
    return pair.value().matches ? 0 : 1;
  };
  if (!request.rotated.empty()) {
    c.bits = 24;
    auto load = [&](const std::string& flag, const std::string& text) -> Result<Matrix> {
      Result<TensorSpec> sp = ParseTensorSpec(text);
      if (!sp.ok()) return InvalidArgument(flag + ": " + sp.message());
      Result<LoadedTensor> lt = ReadTensorFile(sp.value(), params.cap);
      if (!lt.ok()) return InvalidArgument(flag + ": " + lt.message());
      c.bits = std::min(c.bits, DtypeSignificandBits(lt.value().dtype));
      Result<Matrix> m =
          TableFromTensor(lt.value().values.shape, std::move(lt.value().values.data));
      if (!m.ok()) {
        return InvalidArgument(flag + " \"" + TensorSpecText(sp.value()) + "\": " + m.message() +
                               " (one head: q[:, h, :])");
      }
      return m;
    };
    Result<Matrix> after = load("--rotated", request.rotated);
    if (!after.ok()) return fail(after.message(), 2);
    Result<Matrix> before = load("--unrotated", request.unrotated);
    if (!before.ok()) return fail(before.message(), 2);
    return print_pair(CheckRotation(before.value(), after.value(), c, params.cap),
                      request.rotated + " from " + request.unrotated, "<f4");
  }
  Result<TensorSpec> spec = ParseTensorSpec(request.table);
  if (!spec.ok()) return fail(spec.message(), 2);
  // FILE:COS,SIN: two tensors of one file, read and checked together.
  const size_t comma = spec.value().tensor.find(',');
  if (comma != std::string::npos) {
    TensorSpec cos_spec = spec.value(), sin_spec = spec.value();
    cos_spec.tensor = spec.value().tensor.substr(0, comma);
    sin_spec.tensor = spec.value().tensor.substr(comma + 1);
    if (cos_spec.tensor.empty() || sin_spec.tensor.empty() ||
        sin_spec.tensor.find(',') != std::string::npos) {
      return fail("\"" + TensorSpecText(spec.value()) +
                      "\": expected FILE:COS,SIN, two tensor names separated by one comma",
                  2);
    }
    Result<LoadedTensor> cos_t = ReadTensorFile(cos_spec, params.cap);
    if (!cos_t.ok()) return fail(cos_t.message(), 2);
    Result<LoadedTensor> sin_t = ReadTensorFile(sin_spec, params.cap);
    if (!sin_t.ok()) return fail(sin_t.message(), 2);
    const std::string name = TensorSpecText(spec.value());
    const std::string dtype = cos_t.value().dtype;
    Result<Matrix> cos_m =
        TableFromTensor(cos_t.value().values.shape, std::move(cos_t.value().values.data));
    if (!cos_m.ok()) return fail("\"" + TensorSpecText(cos_spec) + "\": " + cos_m.message(), 2);
    Result<Matrix> sin_m =
        TableFromTensor(sin_t.value().values.shape, std::move(sin_t.value().values.data));
    if (!sin_m.ok()) return fail("\"" + TensorSpecText(sin_spec) + "\": " + sin_m.message(), 2);
    c.bits = std::min(DtypeSignificandBits(dtype), DtypeSignificandBits(sin_t.value().dtype));
    return print_pair(
        CheckCosSin(cos_m.value(), sin_m.value(), "cos and sin tensors", false, c, params.cap),
        name, dtype);
  }
  Result<LoadedTensor> loaded = ReadTensorFile(spec.value(), params.cap);
  if (!loaded.ok()) return fail(loaded.message(), 2);
  const std::string name = TensorSpecText(spec.value());
  LoadedTensor& t = loaded.value();
  c.bits = DtypeSignificandBits(t.dtype);
  // (L, d/2, 2): cos and sin of each pair side by side, as torch.view_as_real(freqs_cis) keeps
  // Meta's complex rotations.
  {
    std::vector<int64_t> axes;
    for (int64_t n : t.values.shape) {
      if (n != 1) axes.push_back(n);
    }
    if (axes.size() == 3 && axes[0] == 3 && axes[2] != 2) {
      // (3, L, d): an M-RoPE cache's temporal, height and width axes.
      std::array<Matrix, 3> slices;
      const size_t cells = static_cast<size_t>(axes[1] * axes[2]);
      for (size_t k = 0; k < 3; ++k) {
        slices[k].rows = axes[1];
        slices[k].cols = axes[2];
        slices[k].data.assign(t.values.data.begin() + static_cast<std::ptrdiff_t>(k * cells),
                              t.values.data.begin() + static_cast<std::ptrdiff_t>((k + 1) * cells));
      }
      Result<MropeCacheReport> m = CheckMropeCache(slices, c, params.cap);
      if (!m.ok()) {
        return fail("\"" + name + "\": " + m.message(),
                    m.error().kind == Error::Kind::kInvalidArgument ? 2 : 1);
      }
      const MropeCacheReport& r = m.value();
      if (request.json) {
        nlohmann::json j;
        j["file"] = name;
        j["dtype"] = t.dtype;
        j["input"] = "mrope axes";
        j["axes_equal"] = r.same;
        j["matches"] = r.matches;
        j["verdict"] = r.matches ? "match" : "no match";
        j["diagnosis"] = DiagnosisJson(r.diagnosis);
        const CheckReport& a0 = r.axes[0];
        j["identified"] = a0.identified
                              ? nlohmann::json{{"description", a0.identified->description},
                                               {"flags", a0.identified->flags}}
                              : nlohmann::json(nullptr);
        const char* const names[] = {"t", "h", "w"};
        for (size_t k = 0; k < 3; ++k) j[names[k]] = CheckReportJson(r.axes[k], name, t.dtype);
        std::cout << j.dump(2) << "\n";
      } else {
        std::cout << "M-RoPE cache: " << name << ", 3 axes (t, h, w) of (" << axes[1] << ", "
                  << axes[2] << ") " << t.dtype << "\n"
                  << (r.matches ? "match: every axis matches" : "no match") << "\n";
        if (r.same) {
          std::cout << "note: the three axes are equal (text positions: each axis's id is the "
                       "token's position), so the cache is one RoPE table\n";
        }
        for (const CheckDiagnosis& d : r.diagnosis) {
          std::cout << "diagnosis (" << d.kind << "): " << d.text << "\n";
        }
        if (!r.same && !r.matches) {
          std::cout << "note: an axis whose rows are not positions 0 .. L-1 (an image's height "
                       "and width ids repeat) cannot match: the cache does not carry its position "
                       "ids; check a text-only cache, or each axis's rows at known ids\n";
        }
        PrintTableSummary(std::cout, r.axes[0], r.same ? "every axis" : "t");
        if (!r.same) {
          PrintTableSummary(std::cout, r.axes[1], "h");
          PrintTableSummary(std::cout, r.axes[2], "w");
        }
        std::cout << "tolerance: " << r.axes[0].tolerance_text << "\n";
      }
      std::cout.flush();
      return r.matches ? 0 : 1;
    }
    if (axes.size() == 3 && axes[2] == 2) {
      Matrix cos_m, sin_m;
      cos_m.rows = sin_m.rows = axes[0];
      cos_m.cols = sin_m.cols = axes[1];
      const size_t cells = static_cast<size_t>(axes[0] * axes[1]);
      cos_m.data.resize(cells);
      sin_m.data.resize(cells);
      for (size_t k = 0; k < cells; ++k) {
        cos_m.data[k] = t.values.data[2 * k];
        sin_m.data[k] = t.values.data[2 * k + 1];
      }
      return print_pair(CheckCosSin(cos_m, sin_m,
                                    "(L, d/2, 2) real and imaginary parts "
                                    "(torch.view_as_real of Meta's freqs_cis)",
                                    true, c, params.cap),
                        name, t.dtype);
    }
  }
  Result<Matrix> table = TableFromTensor(t.values.shape, std::move(t.values.data));
  if (!table.ok()) return fail("\"" + name + "\": " + table.message(), 2);
  Result<CheckReport> report = CheckTable(table.value(), c, params.cap);
  if (!report.ok()) {
    return fail("\"" + name + "\": " + report.message(),
                report.error().kind == Error::Kind::kInvalidArgument ? 2 : 1);
  }
  // Only a table that is no known convention as it stands (its own reading matches nothing, or
  // is another scheme than the intent's: [cos | sin] is also a sinusoidal table).
  const std::optional<CheckCandidate>& own = report.value().identified;
  const bool unknown = !own || own->verdict == CheckVerdict::kNoMatch ||
                       (c.intent && own->params.kind() != c.fixed.kind());
  if (!report.value().matches && unknown && (!c.intent || c.fixed.kind() == Scheme::kRope)) {
    // The layouts engines keep that are not one (L, d) table: [cos | sin] side by side
    // (vLLM's cos_sin_cache), or a cos or sin table with one column per pair.
    if (std::optional<CheckPairReport> cache = ReadCosSinCache(table.value(), c, params.cap)) {
      return print_pair(std::move(*cache), name, t.dtype);
    }
    Result<CheckReport> expanded = CheckTable(ExpandOneColumnPerPair(table.value()), c, params.cap);
    if (expanded.ok() && expanded.value().matches) {
      report = std::move(expanded);
      report.value().notes.push_back(
          "the table has one column per pair, (L, d/2) as vLLM and Meta's freqs_cis keep it: it is "
          "read as the half layout with each column twice (d = " +
          std::to_string(2 * table.value().cols) +
          "), and cannot show the pairing, which the code that rotates decides");
    }
  }
  if (request.json) {
    PrintCheckReportJson(std::cout, report.value(), name, t.dtype);
  } else {
    PrintCheckReport(std::cout, report.value(), name, t.dtype);
  }
  std::cout.flush();
  return report.value().matches ? 0 : 1;
}

}  // namespace pe
