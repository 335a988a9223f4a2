// Sessions in the window: the AppState <-> session file mapping, opening sessions and figures,
// the last session kept in the config folder (restored at start, autosaved), the recent list,
// and undo / redo of parameter changes. No GL or GLFW; the file format is core's
// (session/session.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "session/session.h"
#include "ui/app_state.h"

namespace pe {

class TableLoadJob;

// The config folder: $PE_EXPLORER_CONFIG_DIR when set (tests point it at a temporary folder),
// else $XDG_CONFIG_HOME/pe-explorer, else $HOME/.config/pe-explorer; empty when none is known.
std::string DefaultConfigDir();

// The parameters the window starts from: the built-in example, showing what a model would see
// (a text longer than max_len is truncated, not refused).
ModelParams WindowDefaultParams();

// What `state` shows, as a session: parameters, views, and the window's settings under the
// "ui" keys (panel.NAME, tab, focused_view, window_size, sums.manual, curves.search, export.*,
// manual.*).
SessionContent SessionOf(const AppState& state);
// Puts a session into `state` (parameters, views fitted as saved, selection, ui settings); a
// ui value this version cannot use is left at its default and named in `warnings`.
void RestoreSession(AppState& state, const SessionContent& content,
                    std::vector<std::string>& warnings);
// A figure's view as a session: its parameters, windows and selection, its tab brought to the
// front and its size and title in the export dialog, so exporting it again gives the same file.
Status OpenFigureSession(AppState& state, const std::string& path);
// A gallery figure (views/gallery.h) applied as one edit, one undo step: its scheme,
// parameters, view (the tab shown and focused) and the export dialog's title and size. An
// unknown name is a notice and an error.
Status ApplyGalleryFigure(AppState& state, std::string_view name);

// The last session, the recent list and autosave, in one config folder. An empty folder keeps
// nothing (headless tests, screenshots).
class SessionKeeper {
 public:
  static constexpr size_t kMaxRecent = 8;
  static constexpr double kAutosaveSeconds = 2.0;
  static constexpr size_t kMaxBrokenCopies = 20;  // last.pexs.broken* kept, the newest

  explicit SessionKeeper(std::string config_dir);
  const std::string& dir() const { return dir_; }
  std::string LastSessionPath() const;  // DIR/last.pexs; a symbolic link is written through
  std::string RecentPath() const;       // DIR/recent.txt, one path a line, newest first
  // DIR/settings.txt: the preferences ("ui_scale=1.25", "theme=light"), which no session,
  // New session or --fresh changes.
  std::string SettingsPath() const;
  // The preferences into `ui`; a value that cannot be used is named in `warnings` and left.
  void LoadSettings(UiSettings& ui, std::vector<std::string>& warnings) const;
  // Writes the preferences when they changed in the window (the first call notes the look the
  // run started with, a command line's --ui-scale included, and writes nothing). SaveNow calls
  // it.
  Status SaveSettings(const UiSettings& ui);
  const std::vector<std::string>& recent() const { return recent_; }
  // Moves `path` to the front of the recent list and writes it (atomically).
  void AddRecent(const std::string& path);

  // The last session into `state`, when there is one. A file that cannot be read is moved
  // aside to last.pexs.broken, or last.pexs.broken.N with N one more than the newest copy
  // (never over another file), and the message returned as the error; a symbolic link stays,
  // its file's bytes are copied aside. Only the newest
  // kMaxBrokenCopies copies are kept: the oldest (lowest N) are removed, and the message says so.
  Status RestoreLast(AppState& state, std::vector<std::string>& warnings);
  // Writes the last session when it changed since the last write, at most every
  // kAutosaveSeconds (`now` in seconds); errors go to the toast once.
  void Tick(AppState& state, double now);
  // Writes the last session now (at exit).
  Status SaveNow(const AppState& state);

 private:
  std::string dir_;
  std::vector<std::string> recent_;
  std::string saved_text_;  // what last.pexs holds (as this run last wrote or read it)
  std::optional<std::string> settings_text_;  // the preferences as last noted or written
  double last_check_ = -1e300;
  bool reported_error_ = false;
  FileHashCache hashes_;
};

// Opens a session (.pexs) or an exported figure (.png, .svg, .pdf) into `state`, by extension;
// adds it to `keeper`'s recent list when there is one. The message (or a warning) goes to the
// toast; a file that cannot be read leaves `state` as it was.
Status OpenSessionPath(AppState& state, const std::string& path, SessionKeeper* keeper);
// Writes the session of `state` to `path` and makes it the file Save writes to.
Status SaveSessionAs(AppState& state, const std::string& path, SessionKeeper* keeper);
// The requests the File menu, drops and keys queued (open, new, save), at the start of a frame.
// With `loads`, a session or figure is read and its tables loaded on that job (never on the UI
// thread) and put into `state` at a later frame, when the job has finished; without, in place.
void HandleSessionRequests(AppState& state, SessionKeeper* keeper, TableLoadJob* loads = nullptr);
// True for the files a drop or the command line opens as a session: .pexs, .png, .svg, .pdf.
bool IsSessionOrFigurePath(const std::string& path);

// The look a window starts with: the config folder's preferences (`keeper` null: none), whatever
// session it opens (--fresh too), with the command line's --ui-scale and --theme over them.
void ApplyStartLook(AppState& state, const SessionKeeper* keeper, std::optional<float> scale,
                    std::optional<UiTheme> theme, std::vector<std::string>& warnings);

// Undo / redo: RecordUndo after the edits of a frame are applied (`holding`: a widget is held,
// so a drag goes on and is not yet a step); Undo and Redo queue the step as an edit.
void RecordUndo(AppState& state, bool holding);
void Undo(AppState& state);
void Redo(AppState& state);

}  // namespace pe
