// `pe-explorer export`: writes the numbers behind a view without opening a window.
#pragma once

#include "cli/command_line.h"
#include "session/export_selection.h"

namespace pe {

// Returns the process exit code: 0 ok, 2 usage error, 1 runtime error (message on stderr).
int RunExport(const ModelParams& params, const ExportRequest& request);

// `pe-explorer describe`: prints the model card of the model opened into `params` (text or
// JSON) on `out`; returns 0.
int RunDescribe(const ModelParams& params, const DescribeRequest& request,
                std::ostream& out = std::cout);

}  // namespace pe
