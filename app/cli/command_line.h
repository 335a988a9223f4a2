// The command line: `pe-explorer [options]` opens the window, `pe-explorer export ...` writes a
// view's numbers without one. Both take the same parameter flags.
#pragma once

#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/tokenize_command.h"
#include "model/model_params.h"
#include "options/window_request.h"
#include "session/export_selection.h"

namespace pe {

enum class RunMode { kWindow, kExport, kCheck, kDescribe, kTokenize };

// `pe-explorer check TABLE[:TENSOR]`: the table to identify, and what the flags fixed.
struct CheckRequest {
  std::string table;     // FILE[:TENSOR], or FILE:COS,SIN (two tensors of one file)
  std::string inv_freq;  // --inv-freq FILE[:TENSOR]: a RoPE frequency vector in place of a table
  std::string rotated, unrotated;  // --rotated / --unrotated FILE[:TENSOR]: q after and before
  bool json = false;               // the report as JSON
  std::string tolerance;           // absolute tolerance per cell as typed; empty: float32 rounding
  // Keys of the parameter fields given (ParamField::key), which identification keeps.
  std::vector<std::string> fixed_keys;
  // A parameter flag or a model was given: the table must be what they say (exit 1 otherwise).
  bool intent = false;
  std::string case_name;    // --case NAME: a teaching case's table and intent (check_cases.h)
  bool list_cases = false;  // --list-cases
};

// `pe-explorer describe --model NAME | --model-config FILE [--layer N] [--json]`; the model
// is opened into CommandLine::params.
struct DescribeRequest {
  bool json = false;
  int64_t layer = -1;  // a layer to describe beyond the runs; -1: none
};

struct CommandLine {
  RunMode mode = RunMode::kWindow;
  ModelParams params;
  ExportRequest export_request;
  CheckRequest check_request;
  WindowRequest window;
  DescribeRequest describe;
  TokenizeRequest tokenize;
};

// Parses argv. On --help, prints it and returns exit code 0 in `exit_code`; on an error,
// prints the message on `errors` and sets exit code 2 (1 when a file cannot be read). A value
// means: go on and run it.
std::optional<CommandLine> ParseCommandLine(int argc, const char* const* argv, int& exit_code,
                                            std::ostream& errors = std::cerr);

}  // namespace pe
