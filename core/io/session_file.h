// The session file (.pexs): human-readable JSON holding what a person set up in the window, as
// text keyed like figure metadata. This layer knows the format only (the version, the sections,
// their types, the migrations from older versions); what the keys mean is model/session.h's.
// Writing and parsing work on text, so the reader is fuzzed in memory; nothing throws.
//
//   {
//     "format": "pe-explorer-session",
//     "version": 1,
//     "app_version": "0.1.0",
//     "params": {"scheme": "rope", "d_model": "64", ...},        // the parameter field table's
//     keys "files":  {"embeddings": {"path": "/data/wte.npy", "fnv1a64": "3f1e0c2a9b7d6e45"}},
//     "views":  {"heatmap_window": "0:64:0:100", "token": "2", ...},
//     "ui":     {"panel.controls": "true", "tab": "score", "window_size": "1280x800", ...}
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace pe {

// The version this build writes, and the newest it reads.
inline constexpr int kSessionFormatVersion = 1;
inline constexpr std::string_view kSessionFormatName = "pe-explorer-session";
// The largest session file read (larger ones are refused, naming the limit).
inline constexpr size_t kMaxSessionFileBytes = size_t{16} << 20;

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// A file a parameter names, with the 64-bit FNV-1a hash of its bytes when the session was saved.
struct SessionFile {
  std::string key;   // the parameter's key
  std::string path;  // as the parameter holds it
  uint64_t fnv1a64 = 0;
  bool operator==(const SessionFile&) const = default;
};

struct SessionDocument {
  int version = kSessionFormatVersion;  // after ParseSessionText: always the current one
  std::string app_version;
  KeyValues params;  // key -> the field's text, in the field table's order
  std::vector<SessionFile> files;
  KeyValues views;  // what each view shows (windows, token, ...)
  KeyValues ui;     // the window's settings (panels, tab, size, ...)
  bool operator==(const SessionDocument&) const = default;
};

// 64-bit FNV-1a (Fowler, Noll, Vo: offset basis 14695981039346656037, prime 1099511628211) of
// `bytes`; "a" hashes to 0xaf63dc4c8601ec8c.
uint64_t Fnv1a64(std::span<const std::byte> bytes);
// The same over a regular file's bytes (a FIFO or device is refused, so it cannot hang the
// read), read in blocks up to the size it had when opened, at most kMaxHashedFileBytes; errors
// name the path.
inline constexpr uint64_t kMaxHashedFileBytes = uint64_t{64} << 30;
Result<uint64_t> Fnv1a64File(const std::string& path);
// 16 lower-case hex digits, as the file writes it.
std::string SessionHashText(uint64_t h);

// The document as JSON text (two-space indent, keys in the document's order, ending in a newline).
std::string WriteSessionText(const SessionDocument& doc);

// Parses session text and migrates an older version to the current one. Refused with a message
// naming the place: a JSON error by line and column, a wrong type or unknown key by its path
// ("params.d_model"), a version newer than this build's by both versions.
Result<SessionDocument> ParseSessionText(std::string_view text);

// One step of the migration table: turns a document of `from_version` into `from_version + 1`
// (the entry of the current version changes nothing). A v2 that renames a key adds an entry
// {1, "...", rename} and makes the current version's entry the identity at 2.
struct SessionMigration {
  int from_version;
  std::string_view what;  // what changed, for the reader of the table
  Status (*migrate)(SessionDocument& doc);
};
std::span<const SessionMigration> SessionMigrations();
// Applies `table` to `doc` from its version until it reaches `to_version`; refused when a
// version has no entry. ParseSessionText runs it with SessionMigrations().
Status MigrateSession(SessionDocument& doc, int to_version,
                      std::span<const SessionMigration> table);

}  // namespace pe
