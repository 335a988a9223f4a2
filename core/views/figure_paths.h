// Table files named in a figure's metadata, for `export --from` run from another folder: a file
// given by a relative path is recorded as given and, under "<key>_absolute", as the absolute
// path it was read from (its content hash is recorded as for every table). Reading the figure
// back, a relative path is looked up beside the figure first, then at the absolute path.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "views/figure_command.h"

namespace pe {

// The "<key>_absolute" entries for the file parameters among `values` whose path is relative
// (resolved against the current folder, as the file was opened).
std::vector<std::pair<std::string, std::string>> AbsoluteFileEntries(
    const std::vector<std::pair<std::string, std::string>>& values);

// Whether `key` is one AbsoluteFileEntries writes.
bool IsAbsoluteFileKey(std::string_view key);

// Rewrites the file flags of `flags` (read from the metadata `entries` of the figure at
// `figure_path`) whose path is relative: the file beside the figure when there is one, else the
// absolute path recorded when there is a file there; otherwise the flag is left as it is (and
// the load names the path).
void ResolveFigureFiles(std::vector<CommandFlag>& flags,
                        const std::vector<std::pair<std::string, std::string>>& entries,
                        const std::string& figure_path);

}  // namespace pe
