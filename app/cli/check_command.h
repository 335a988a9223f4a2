// `pe-explorer check TABLE[:TENSOR]`: reads a table a user computed, identifies the scheme it
// holds (analysis/check.h) and prints the report, as text or JSON.
#pragma once

#include <iosfwd>

#include "analysis/check.h"
#include "analysis/check_invfreq.h"
#include "analysis/check_layouts.h"
#include "cli/command_line.h"

namespace pe {

// Returns the process exit code: 0 a match (or a float32-computed table of a known scheme),
// 1 no match, 2 bad input (unreadable file, not a 2-D float table, bad flags; message on stderr).
int RunCheck(const ModelParams& params, const CheckRequest& request);

// The report as text or JSON (`table` names the file in the first line / "file").
void PrintCheckReport(std::ostream& out, const CheckReport& report, const std::string& table,
                      const std::string& dtype);
void PrintCheckReportJson(std::ostream& out, const CheckReport& report, const std::string& table,
                          const std::string& dtype);

// A cos and a sin table checked together (FILE:COS,SIN and the cache layouts), as text or JSON.
void PrintPairReport(std::ostream& out, const CheckPairReport& report, const std::string& file,
                     const std::string& dtype);
void PrintPairReportJson(std::ostream& out, const CheckPairReport& report, const std::string& file,
                         const std::string& dtype);

// `check --inv-freq`'s report, as text or JSON.
void PrintInvFreqReport(std::ostream& out, const InvFreqReport& report, const std::string& file,
                        const std::string& dtype);
void PrintInvFreqReportJson(std::ostream& out, const InvFreqReport& report, const std::string& file,
                            const std::string& dtype);

}  // namespace pe
