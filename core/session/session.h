// A session in core terms: the model parameters (through the one parameter field table, so a
// field added there is saved and restored with no change here), what each view shows, and the
// app's own settings passed through as text. Files a parameter names are recorded with their
// FNV-1a hash, so a file changed since the session was saved is reported when it is opened.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "io/session_file.h"
#include "model/model_params.h"
#include "views/figure_export.h"

namespace pe {

// "x0:x1:y0:y1": four finite numbers separated by colons, nothing else; nullopt otherwise. The
// session's views and the export command's --X-window flags read windows so, each with its own
// limits and message.
std::optional<ViewRange> ParseWindowNumbers(const std::string& text);

struct SessionContent {
  ModelParams params;
  ViewSelection views;
  KeyValues ui;  // the window's settings (app/ui/session_state.h gives their keys)
};

struct LoadedSession {
  SessionContent content;
  // Things to tell the person that do not stop the session from opening: a file changed or
  // gone since it was saved.
  std::vector<std::string> warnings;
};

// Hashes files for sessions, remembering each file's hash by (path, size, modification time)
// so an autosave every few seconds does not read a large table again.
class FileHashCache {
 public:
  Result<uint64_t> Hash(const std::string& path);

 private:
  std::map<std::string, std::tuple<int64_t, int64_t, uint64_t>> known_;  // size, mtime ns, hash
};

// The document of `content`: every recorded field that applies (ParamValues), the walkthrough
// preset, a hash of each file a FILE field names (a file that cannot be read is left out of
// "files"), every view key and the ui settings.
SessionDocument MakeSessionDocument(const SessionContent& content, FileHashCache* hashes = nullptr);

// `base` with the document's parameters applied in the field table's order (the preset first,
// then the scheme), its views and ui. Refused, naming the key ("params.d_model: ..."), when a
// key is unknown, does not apply to the scheme, or has a bad value; a FILE field whose file
// cannot be loaded, or a file whose hash differs, is a warning.
// `progress` follows the reading of the tables (LoadParamFiles) and may cancel it.
Result<LoadedSession> SessionFromDocument(const SessionDocument& doc, const ModelParams& base,
                                          const Progress& progress = {});

// The document as text, written through a temporary file renamed over `path` (never half a file).
Status SaveSessionFile(const std::string& path, const SessionDocument& doc);
// Reads, parses and applies `path`; every error starts with the quoted path.
Result<LoadedSession> LoadSessionFile(const std::string& path, const ModelParams& base,
                                      const Progress& progress = {});
// Reads and parses only (the content is not applied); every error starts with the quoted path.
Result<SessionDocument> ReadSessionDocument(const std::string& path);

// The selection keys of "views" and their text, and back (a window is "x0:x1:y0:y1", exact).
KeyValues ViewSelectionText(const ViewSelection& views);
Status ApplyViewSelectionText(const KeyValues& views, ViewSelection& out);

}  // namespace pe
