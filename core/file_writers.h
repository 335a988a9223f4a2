// File formats for the numbers behind the views: NPY (v1.0, little-endian float32, C order) and
// CSV (shortest text that round-trips float32). Every writer writes to a std::ostream; files go
// through WriteFileAtomically so a failed export leaves nothing behind.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <span>
#include <string>

#include "status.h"

namespace pe {

// The NPY header (magic, version, dict, padding to a multiple of 64 bytes) for a float32 array.
std::string NpyHeader(std::span<const int64_t> shape);
// Appends `n` float32 values in little-endian byte order.
void WriteFloatsLE(std::ostream& out, const float* values, int64_t n);

// Shortest decimal text that reads back as exactly `v` ("0.84147096", "-1", "nan").
std::string FormatFloat(float v);

// Writes `path` by calling `write` on a stream to a temporary file beside it, then renaming.
// On any failure (the callback's, or I/O) the temporary file is removed, `path` is untouched,
// and the error names the path and the reason. `path` "-" writes to standard output.
Status WriteFileAtomically(const std::string& path,
                           const std::function<Status(std::ostream&)>& write);

// The lower-case extension of `path` without the dot ("npy"), or "" when there is none.
std::string FileExtension(const std::string& path);

}  // namespace pe
