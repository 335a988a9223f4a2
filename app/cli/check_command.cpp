#include "cli/check_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/check_cases.h"
#include "arch/model_choice.h"
#include "encoding/encoding.h"
#include "io/tensor_file.h"
#include "model/param_fields.h"

namespace pe {
namespace {

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

void PrintCheckReportJson(std::ostream& out, const CheckReport& r, const std::string& table,
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
  j["diagnosis"] = nlohmann::json::array();
  for (const CheckDiagnosis& d : r.diagnosis) {
    nlohmann::json dj{{"class", d.kind}, {"text", d.text}};
    if (d.value) dj["value"] = *d.value;
    j["diagnosis"].push_back(dj);
  }
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
  Result<TensorSpec> spec = ParseTensorSpec(request.table);
  if (!spec.ok()) return fail(spec.message(), 2);
  Result<LoadedTensor> loaded = ReadTensorFile(spec.value(), params.cap);
  if (!loaded.ok()) return fail(loaded.message(), 2);
  const std::string name = TensorSpecText(spec.value());
  LoadedTensor& t = loaded.value();
  Result<Matrix> table = TableFromTensor(t.values.shape, std::move(t.values.data));
  if (!table.ok()) return fail("\"" + name + "\": " + table.message(), 2);
  CheckConstraints c;
  c.fixed = params.pe;
  c.keys = request.fixed_keys;
  c.bits = DtypeSignificandBits(t.dtype);
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
  Result<CheckReport> report = CheckTable(table.value(), c, params.cap);
  if (!report.ok()) {
    return fail("\"" + name + "\": " + report.message(),
                report.error().kind == Error::Kind::kInvalidArgument ? 2 : 1);
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
