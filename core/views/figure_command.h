// The `pe-explorer export` command line that writes a view's figure, built from the same
// metadata the figure carries: "copy the command" in the window, and `export --from FIGURE`,
// which turns a figure's metadata back into the flags that drew it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "views/figure_export.h"

namespace pe {

// One flag of the command: "--d-model" "64", or a switch ("--causal", value empty).
struct CommandFlag {
  std::string flag;
  std::string value;
  bool is_switch = false;
  std::string key;  // the metadata key it comes from
  bool operator==(const CommandFlag&) const = default;
};

// The flags that give back the figure whose metadata is `entries` (view, parameters,
// selection, size, title). Refused, naming the key: an unknown key, a figure from a newer
// app_version than this one (`this_version`), no view or app_version.
Result<std::vector<CommandFlag>> FlagsFromMetadata(
    const std::vector<std::pair<std::string, std::string>>& entries,
    const std::string& this_version);

// The flags of `export` that write the figure of `view` as the window shows it: --view, then
// only what differs from what `export` does without the flag (the scheme's defaults, the
// whole table, 960x540 at scale 1).
// `built`: the encoding of params.pe when the caller has it (a learned table is then not drawn
// again for the defaults), or null.
std::vector<CommandFlag> ExportCommandFlags(ViewKind view, const ModelParams& params,
                                            const ViewSelection& sel, const FigureSize& size,
                                            const std::string& title,
                                            const EncodingPtr& built = nullptr);

// 'it'"'"'s' style: bare when the text is only safe characters, else in single quotes.
std::string ShellQuote(const std::string& text);

// "pe-explorer export --view score --scheme rope -o pe-score_rope_d128_L100.png".
std::string ExportCommandLine(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                              const FigureSize& size, const std::string& title,
                              const std::string& output, const EncodingPtr& built = nullptr);

// "1.4.0" newer than "1.3.9"? Numeric dot-separated parts; text that is not such a version is
// refused by FlagsFromMetadata.
bool VersionNewer(const std::string& a, const std::string& b);

}  // namespace pe
