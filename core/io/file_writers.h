// File formats for the numbers behind the views: NPY (v1.0, little-endian float32 or int32, C
// order) and
// CSV (shortest text that round-trips float32). Every writer writes to a std::ostream; files go
// through WriteFileAtomically so a failed export leaves nothing behind.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <span>
#include <string>

#include "base/status.h"

namespace pe {

// The element types of the NPY files written: float32 ('<f4', the default), int32 ('<i4',
// T5's bucket ids) and float64 ('<f8', M-RoPE's per-pair and neighbour tables).
enum class NpyDtype { kFloat32, kInt32, kFloat64 };

// The NPY header (magic, version, dict, padding to a multiple of 64 bytes) for an array of
// `dtype` (float32 unless told).
std::string NpyHeader(std::span<const int64_t> shape, NpyDtype dtype = NpyDtype::kFloat32);
// Appends `n` float32 values in little-endian byte order.
void WriteFloatsLE(std::ostream& out, const float* values, int64_t n);
// Appends `n` int32 values in little-endian byte order.
void WriteInt32sLE(std::ostream& out, const int32_t* values, int64_t n);
// Appends `n` float64 values in little-endian byte order.
void WriteDoublesLE(std::ostream& out, const double* values, int64_t n);

// Shortest decimal text that reads back as exactly `v` ("0.84147096", "-1", "nan").
std::string FormatFloat(float v);
// Shortest decimal text that reads back as exactly the double `v` ("0.1", "6.283185307179586").
std::string FormatDouble(double v);

// Writes `path` by calling `write` on a stream to a temporary file in the same folder, then
// putting it in place with one rename, so readers see the old file or the new one, never a part.
// The temporary is unnamed (O_TMPFILE) where the filesystem allows, so even SIGKILL leaves
// nothing; elsewhere (or with PE_EXPLORER_NAMED_TEMP=1 in the environment) it is named
// ".pe-export-PID-HOST-RANDOM.tmp", created with O_EXCL | O_NOFOLLOW, and removed on every
// catchable signal whose default action ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
// SIGPIPE, SIGXFSZ, SIGUSR1, ...: handlers installed where the action is the default; they
// re-raise the signal). Such temporaries that SIGKILL left in the folder (this user's regular
// files, named by a process of this machine that has ended) are removed at the next write into
// it. An existing target keeps its permission bits (0777, not set-user-ID, set-group-ID or
// sticky); a new one gets 0666 minus the umask. Targets that are not regular files
// (directories, FIFOs, devices, symbolic links) are refused. On any failure (the callback's, or
// I/O) `path` is untouched and nothing is left behind; an I/O error names the path and its
// cause (strerror) and takes precedence over the callback's own message. `path` "-" writes to
// standard output (errors name "standard output").
Status WriteFileAtomically(const std::string& path,
                           const std::function<Status(std::ostream&)>& write);

// WriteFileAtomically for the program's own files (the config folder's): when `path` is a
// symbolic link (a dotfile manager's), the file at the end of the chain of links is written,
// through a temporary in that file's folder and a rename, and the links stay as they are. A
// link to a missing file creates it. User exports refuse links instead (WriteFileAtomically).
Status WriteFileAtomicallyThroughLinks(const std::string& path,
                                       const std::function<Status(std::ostream&)>& write);

// The lower-case extension of `path` without the dot ("npy"), or "" when there is none.
std::string FileExtension(const std::string& path);

}  // namespace pe
