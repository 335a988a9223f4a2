#include "ui/session.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/figure_metadata_reader.h"
#include "io/file_writers.h"
#include "jobs/table_load_job.h"
#include "session/figure_session.h"
#include "session/gallery_session.h"
#include "ui/model_pick.h"
#include "ui/ui.h"
#include "ui/ui_settings.h"
#include "views/view_registry.h"

namespace pe {
namespace {

constexpr const char* kFigureFormats[] = {"png", "svg", "pdf", "csv",
                                          "npy"};  // export dialog order

std::string Bool(bool b) {
  return b ? "true" : "false";
}

std::string FloatText(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));  // reads back as the same float
  return buf;
}

std::string Join(const std::vector<float>& values) {
  std::string s;
  for (float v : values) {
    if (!s.empty()) s += ',';
    s += FloatText(v);
  }
  return s;
}

bool ParseFloats(const std::string& text, std::vector<float>& out) {
  out.clear();
  if (text.empty()) return true;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p <= end) {
    float v = 0;
    auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || !std::isfinite(v)) return false;
    out.push_back(v);
    if (next == end) return true;
    if (*next != ',') return false;
    p = next + 1;
  }
  return false;
}

bool ParseInt(const std::string& text, int64_t lo, int64_t hi, int64_t& out) {
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && p == text.data() + text.size() && out >= lo && out <= hi;
}

// Percent-decoding of the PDF keywords' encoding (PercentEncode), for the typed rows' labels.
bool PercentDecode(const std::string& text, std::string& out) {
  out.clear();
  for (size_t k = 0; k < text.size(); ++k) {
    if (text[k] != '%') {
      out += text[k];
      continue;
    }
    unsigned v = 0;
    if (k + 2 >= text.size()) return false;
    auto [p, ec] = std::from_chars(text.data() + k + 1, text.data() + k + 3, v, 16);
    if (ec != std::errc() || p != text.data() + k + 3) return false;
    out += static_cast<char>(v);
    k += 2;
  }
  return true;
}

struct PanelKey {
  const char* key;
  bool PanelVisibility::*flag;
};
constexpr PanelKey kPanels[] = {
    {"panel.controls", &PanelVisibility::controls},
    {"panel.heatmap", &PanelVisibility::heatmap},
    {"panel.curves", &PanelVisibility::curves},
    {"panel.sums", &PanelVisibility::sums},
    {"panel.rotation", &PanelVisibility::rotation},
    {"panel.frequencies", &PanelVisibility::frequencies},
    {"panel.scheme_views", &PanelVisibility::scheme_views},
};

KeyValues UiKeyValues(const AppState& state) {
  KeyValues ui;
  for (const PanelKey& p : kPanels) ui.emplace_back(p.key, Bool(state.show.*p.flag));
  if (state.session.shown_tab)
    ui.emplace_back("tab", std::string(ViewName(*state.session.shown_tab)));
  ui.emplace_back("focused_view", std::string(ViewName(state.focused_view)));
  if (state.session.window_width > 0 && state.session.window_height > 0) {
    ui.emplace_back("window_size", std::to_string(state.session.window_width) + "x" +
                                       std::to_string(state.session.window_height));
  }
  ui.emplace_back("sums.manual", Bool(state.sums.manual));
  // The UI scale and theme are preferences, kept in the config folder's settings.txt
  // (SessionKeeper), not with a session.
  ui.emplace_back("curves.search", state.curves.search);
  const ExportDialogState& d = state.export_dialog;
  ui.emplace_back("export.view", std::string(ViewName(d.view)));
  ui.emplace_back("export.folder", d.folder);
  ui.emplace_back("export.format", kFigureFormats[std::clamp(d.format, 0, 4)]);
  ui.emplace_back("export.size_preset", std::to_string(d.size_preset));
  ui.emplace_back("export.width", FloatText(d.width));
  ui.emplace_back("export.height", FloatText(d.height));
  ui.emplace_back("export.scale", FloatText(d.scale));
  ui.emplace_back("export.title", d.title);
  const ManualVectors& mv = state.manual;
  ui.emplace_back("manual.tokens", std::to_string(mv.tokens));
  ui.emplace_back("manual.dims", std::to_string(mv.dims));
  ui.emplace_back("manual.scale", Bool(mv.scale));
  std::string labels;
  for (const std::string& l : mv.labels) {
    if (!labels.empty()) labels += ',';
    // Percent-encoded with ',' too, so the commas between labels are the only ones.
    for (char c : PercentEncode(l)) labels += c == ',' ? std::string("%2C") : std::string(1, c);
  }
  ui.emplace_back("manual.labels", labels);
  ui.emplace_back("manual.embedding", Join(mv.embedding));
  ui.emplace_back("manual.positional", Join(mv.positional));
  return ui;
}

void ApplyUiSettings(const KeyValues& ui, AppState& state, std::vector<std::string>& warnings) {
  auto bad = [&](const std::string& key, const std::string& text) {
    warnings.push_back("ui." + key + " = \"" + text + "\" is not a value this version uses; kept " +
                       "the default");
  };
  ManualVectors manual = state.manual;
  for (const auto& [key, text] : ui) {
    bool done = false;
    for (const PanelKey& p : kPanels) {
      if (key != p.key) continue;
      done = true;
      if (text == "true" || text == "false") {
        state.show.*p.flag = text == "true";
      } else {
        bad(key, text);
      }
    }
    if (done) continue;
    int64_t n = 0;
    if (key == "tab" || key == "focused_view" || key == "export.view") {
      std::optional<ViewKind> v = ParseView(text);
      if (!v) {
        bad(key, text);
      } else if (key == "tab") {
        if (ViewApplies(*v, state.params)) state.select_tab = *v;
        state.session.shown_tab = *v;
      } else if (key == "focused_view") {
        state.focused_view = *v;
      } else {
        state.export_dialog.view = *v;
      }
    } else if (key == "window_size") {
      const size_t x = text.find('x');
      int64_t w = 0, h = 0;
      if (x != std::string::npos && ParseInt(text.substr(0, x), 320, 8192, w) &&
          ParseInt(text.substr(x + 1), 240, 8192, h)) {
        state.session.window_width = static_cast<int>(w);
        state.session.window_height = static_cast<int>(h);
      } else {
        bad(key, text);
      }
    } else if (key == "sums.manual") {
      if (text == "true" || text == "false")
        state.sums.manual = text == "true";
      else
        bad(key, text);
    } else if (key == "curves.search") {
      state.curves.search = text;
    } else if (key == "look.scale" || key == "look.theme") {
      // Older sessions carried the UI scale and theme; they are preferences now (settings.txt).
    } else if (key == "export.folder") {
      state.export_dialog.folder = text;
    } else if (key == "export.title") {
      state.export_dialog.title = text;
    } else if (key == "export.format") {
      const auto* it = std::find(std::begin(kFigureFormats), std::end(kFigureFormats), text);
      if (it == std::end(kFigureFormats))
        bad(key, text);
      else
        state.export_dialog.format = static_cast<int>(it - std::begin(kFigureFormats));
    } else if (key == "export.size_preset") {
      if (ParseInt(text, 0, 2, n))
        state.export_dialog.size_preset = static_cast<int>(n);
      else
        bad(key, text);
    } else if (key == "export.width" || key == "export.height" || key == "export.scale") {
      std::vector<float> v;
      if (!ParseFloats(text, v) || v.size() != 1) {
        bad(key, text);
      } else {
        (key == "export.width"    ? state.export_dialog.width
         : key == "export.height" ? state.export_dialog.height
                                  : state.export_dialog.scale) = v[0];
      }
    } else if (key == "manual.tokens" || key == "manual.dims") {
      const bool tokens = key == "manual.tokens";
      if (ParseInt(text, 1, tokens ? ManualVectors::kMaxTokens : ManualVectors::kMaxDims, n)) {
        (tokens ? manual.tokens : manual.dims) = static_cast<int>(n);
      } else {
        bad(key, text);
      }
    } else if (key == "manual.scale") {
      if (text == "true" || text == "false")
        manual.scale = text == "true";
      else
        bad(key, text);
    } else if (key == "manual.labels") {
      std::vector<std::string> labels;
      size_t at = 0;
      bool ok = true;
      while (ok && at <= text.size() && !text.empty()) {
        size_t comma = text.find(',', at);
        if (comma == std::string::npos) comma = text.size();
        std::string label;
        ok = PercentDecode(text.substr(at, comma - at), label);
        labels.push_back(label);
        at = comma + 1;
      }
      if (ok)
        manual.labels = labels;
      else
        bad(key, text);
    } else if (key == "manual.embedding" || key == "manual.positional") {
      std::vector<float> v;
      if (ParseFloats(text, v))
        (key == "manual.embedding" ? manual.embedding : manual.positional) = v;
      else
        bad(key, text);
    } else {
      warnings.push_back("ui." + key + " is not a setting this version knows; ignored");
    }
  }
  // The typed rows hold tokens x dims values and a label a row, or the defaults stay.
  const size_t cells = static_cast<size_t>(manual.tokens) * static_cast<size_t>(manual.dims);
  if (manual.embedding.size() == cells && manual.positional.size() == cells &&
      manual.labels.size() == static_cast<size_t>(manual.tokens)) {
    state.manual = manual;
  } else if (!(manual == state.manual)) {
    warnings.push_back(
        "ui.manual.*: the typed vectors do not hold tokens x dims values; kept the "
        "default");
  }
}

void Notice(AppState& state, const std::string& text, bool error) {
  state.session.notice = text;
  state.session.notice_error = error;
}

// "Opened X" plus the first warning (and how many more), for the toast.
std::string WithWarnings(std::string text, const std::vector<std::string>& warnings) {
  if (warnings.empty()) return text;
  text += "; " + warnings.front();
  if (warnings.size() > 1) text += " (and " + std::to_string(warnings.size() - 1) + " more)";
  return text;
}

// The config folder's files: written through a symbolic link (a dotfile manager's) to the file
// it names.
Status WriteText(const std::string& path, const std::string& text) {
  return WriteFileAtomicallyThroughLinks(path, [&](std::ostream& out) -> Status {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return {};
  });
}

Status MakeDirs(const std::string& dir) {
  std::string at;
  size_t k = 0;
  while (k <= dir.size()) {
    size_t slash = dir.find('/', k);
    if (slash == std::string::npos) slash = dir.size();
    at = dir.substr(0, slash);
    if (!at.empty() && ::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST) {
      return RuntimeError("cannot create the folder \"" + at + "\": " + std::strerror(errno));
    }
    k = slash + 1;
  }
  return {};
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// The number of a copy of a broken last session in `dir`: "last.pexs.broken" is 0, and
// "last.pexs.broken.N" is N; -1 for any other name.
int64_t BrokenNumber(const char* name) {
  static constexpr char kBroken[] = "last.pexs.broken";
  const size_t len = sizeof kBroken - 1;
  if (std::strncmp(name, kBroken, len) != 0) return -1;
  const char* rest = name + len;
  if (*rest == '\0') return 0;
  if (*rest != '.' || rest[1] < '1' || rest[1] > '9') return -1;
  const char* end = rest + std::strlen(rest);
  if (end - rest > 19) return -1;  // 18 digits at most: no overflow
  int64_t n = 0;
  const auto [p, ec] = std::from_chars(rest + 1, end, n);
  return ec == std::errc() && p == end ? n : -1;
}

// The copies of broken last sessions in `dir`, by number, oldest first.
std::vector<std::pair<int64_t, std::string>> BrokenCopies(const std::string& dir) {
  std::vector<std::pair<int64_t, std::string>> copies;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      if (const int64_t n = BrokenNumber(e->d_name); n >= 0) copies.emplace_back(n, e->d_name);
    }
    ::closedir(d);
  }
  std::sort(copies.begin(), copies.end());
  return copies;
}

// Renames `from` to `to` unless `to` exists (then fails with EEXIST); filesystems without
// RENAME_NOREPLACE get a plain rename.
int RenameNoReplace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  if (Exists(to)) {
    errno = EEXIST;
    return -1;
  }
  return ::rename(from.c_str(), to.c_str());
}

// Moves `path` to `aside` (never over a file there). A symbolic link (a dotfile manager's)
// stays where it is: the bytes of the file it names are copied to `aside` instead, and the
// next autosave writes that file. -1 with errno on failure.
int KeepAside(const std::string& path, const std::string& aside) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return RenameNoReplace(path, aside);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) {
    errno = EIO;
    return -1;
  }
  const std::string text = bytes.str();
  const int fd = ::open(aside.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool ok = ::close(fd) == 0 && done == text.size();
  if (!ok) {
    ::unlink(aside.c_str());
    errno = EIO;
    return -1;
  }
  return 0;
}

}  // namespace

std::string DefaultConfigDir() {
  if (const char* d = std::getenv("PE_EXPLORER_CONFIG_DIR"); d != nullptr && *d != '\0') return d;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x != nullptr && *x == '/') {
    return std::string(x) + "/pe-explorer";
  }
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    return std::string(h) + "/.config/pe-explorer";
  }
  return "";
}

ModelParams WindowDefaultParams() {
  ModelParams p;
  p.example.truncate = true;
  return p;
}

namespace {

// What a session or figure is read over: the defaults, with the memory cap in force (given on the
// command line; no session records it), which bounds the files the session loads.
ModelParams SessionBase(const AppState& state) {
  ModelParams p = WindowDefaultParams();
  p.cap = state.params.cap;
  return p;
}

}  // namespace

SessionContent SessionOf(const AppState& state) {
  return {state.params, ViewsOf(state), UiKeyValues(state)};
}

void RestoreSession(AppState& state, const SessionContent& content,
                    std::vector<std::string>& warnings) {
  state.params = content.params;
  // The model it names is opened again; its saved parameters stay as saved.
  ReopenSavedModel(state.params, warnings);
  const ViewSelection& v = content.views;
  // The views as saved; the frame refits them only when the table's extents change later. The
  // encoding is not built here (a large learned table takes seconds): the frame's is used.
  const bool ok = ValidateEncodingParams(state.params.pe).ok() &&
                  CheckEncodingFits(state.params.pe, state.params.cap).ok();
  state.restored_views_for.reset();
  if (ok) state.restored_views_for = state.params.pe;
  for (ViewKind k : WindowOwners()) {
    const ViewRange& w = v.windows[k];
    state.windows[k] = {w, ok && (!GetView(k).window.empty_is_whole || w.x1 > w.x0)};
  }
  state.curves.markers = v.markers;
  state.selection.selected_token = v.selected_token;
  state.selection.batch_row = v.batch_row;
  state.export_dialog.token_chosen = v.highlight;
  state.rotation.position = v.rotation_position;
  state.walkthrough.step = std::max(0, v.walkthrough_step);
  ApplyUiSettings(content.ui, state, warnings);
}

namespace {

// A figure read back (ReadFigureSession) into `state`.
void RestoreFigureSession(AppState& state, const std::string& path,
                          const Result<FigureSession>& f) {
  std::vector<std::string> ignored;
  RestoreSession(state, {f.value().params, f.value().views, {}}, ignored);
  const FigureSession& fig = f.value();
  ExportDialogState& d = state.export_dialog;
  d.view = fig.view;
  d.title = fig.title;
  const std::string ext = FileExtension(path);
  for (int k = 0; k < 3; ++k) {
    if (ext == kFigureFormats[k]) d.format = k;
  }
  const bool png = d.format == 0;
  if (fig.size.width == 960 && fig.size.height == 540 && fig.size.scale == 1) {
    d.size_preset = 0;
  } else if (fig.size.width == 960 && fig.size.height == 540 && fig.size.scale == 2 && png) {
    d.size_preset = 1;
  } else {
    d.size_preset = 2;
    d.width = static_cast<float>(fig.size.width);
    d.height = static_cast<float>(fig.size.height);
    d.scale = static_cast<float>(fig.size.scale);
  }
  state.focused_view = fig.view;
  if (ViewApplies(fig.view, state.params)) state.select_tab = fig.view;
}

}  // namespace

Status OpenFigureSession(AppState& state, const std::string& path) {
  Result<FigureSession> f = ReadFigureSession(path, state.params.cap);
  if (!f.ok()) return f.error();
  RestoreFigureSession(state, path, f);
  return {};
}

Status ApplyGalleryFigure(AppState& state, std::string_view name) {
  Result<FigureSession> f = GalleryFigureSession(name, state.params.cap);
  if (!f.ok()) {
    Notice(state, "Cannot show the gallery figure: " + f.message(), true);
    return f.error();
  }
  // Queued as one edit: its parameters are one undo step, as any other change.
  Edit(state, [f = std::move(f), label = std::string(name)](AppState& st) {
    RestoreFigureSession(st, "gallery.png", f);
    Notice(st, "Gallery: " + label + " (" + st.export_dialog.title + ")", false);
  });
  return {};
}

namespace {

// The recent list as AddRecent writes it: at most kRecentBytes are read (the list is a few
// paths), and a line longer than a path can be is skipped, so a damaged file costs nothing.
constexpr size_t kRecentBytes = 64 << 10;
constexpr size_t kRecentLineBytes = 4096;  // PATH_MAX on Linux

std::vector<std::string> ReadRecentList(const std::string& path, size_t max_entries) {
  std::vector<std::string> out;
  // O_NONBLOCK and a regular file only: a FIFO or device put there cannot hold the start.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return out;
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    text.resize(kRecentBytes + 1);
    size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    text.resize(got);
  }
  ::close(fd);
  const bool cut = text.size() > kRecentBytes;
  if (cut) text.resize(kRecentBytes);
  for (size_t at = 0; at < text.size() && out.size() < max_entries;) {
    const size_t nl = text.find('\n', at);
    if (nl == std::string::npos && cut) break;  // a line cut by the bound
    const size_t end = nl == std::string::npos ? text.size() : nl;
    std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty() || line.size() > kRecentLineBytes || line.find('\0') != std::string::npos)
      continue;
    if (std::find(out.begin(), out.end(), line) == out.end()) out.push_back(std::move(line));
  }
  return out;
}

}  // namespace

SessionKeeper::SessionKeeper(std::string config_dir) : dir_(std::move(config_dir)) {
  if (dir_.empty()) return;
  recent_ = ReadRecentList(RecentPath(), kMaxRecent);
}

std::string SessionKeeper::LastSessionPath() const {
  return dir_ + "/last.pexs";
}
std::string SessionKeeper::RecentPath() const {
  return dir_ + "/recent.txt";
}
std::string SessionKeeper::SettingsPath() const {
  return dir_ + "/settings.txt";
}

namespace {
std::string SettingsText(const UiSettings& ui) {
  char scale[32];  // the shortest text that reads back as the same float ("1.1")
  const auto [end, ec] = std::to_chars(scale, scale + sizeof scale, ui.scale);
  return "ui_scale=" + std::string(scale, ec == std::errc() ? end : scale) +
         "\ntheme=" + std::string(UiThemeName(ui.theme)) + "\n";
}
}  // namespace

void SessionKeeper::LoadSettings(UiSettings& ui, std::vector<std::string>& warnings) const {
  if (dir_.empty()) return;
  std::ifstream in(SettingsPath());
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (line.empty() || eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq), text = line.substr(eq + 1);
    std::vector<float> v;
    if (key == "ui_scale") {
      if (ParseFloats(text, v) && v.size() == 1 && v[0] >= kMinUiScale && v[0] <= kMaxUiScale) {
        ui.scale = v[0];
      } else {
        warnings.push_back(SettingsPath() + ": ui_scale = \"" + text +
                           "\" is not a UI scale from " + FloatText(kMinUiScale) + " to " +
                           FloatText(kMaxUiScale) + "; kept " + FloatText(ui.scale));
      }
    } else if (key == "theme") {
      if (std::optional<UiTheme> t = ParseUiTheme(text)) {
        ui.theme = *t;
      } else {
        warnings.push_back(SettingsPath() + ": theme = \"" + text +
                           "\" is not light or dark; kept " + std::string(UiThemeName(ui.theme)));
      }
    }
  }
}

Status SessionKeeper::SaveSettings(const UiSettings& ui) {
  if (dir_.empty()) return {};
  const std::string text = SettingsText(ui);
  // The look the run started with (the file's, or --ui-scale / --theme for this run only) is
  // not written; a change made in the window is, and every one after it.
  if (!settings_text_) {
    settings_text_ = text;
    return {};
  }
  if (text == *settings_text_) return {};
  if (Status s = MakeDirs(dir_); !s.ok()) return s;
  if (Status s = WriteText(SettingsPath(), text); !s.ok()) return s;
  settings_text_ = text;
  return {};
}

void SessionKeeper::AddRecent(const std::string& path) {
  if (dir_.empty() || path.find('\n') != std::string::npos) return;
  std::string absolute = path;
  if (!path.empty() && path[0] != '/') {
    if (char* cwd = ::realpath(".", nullptr)) {
      absolute = std::string(cwd) + "/" + path;
      std::free(cwd);
    }
  }
  std::erase(recent_, absolute);
  recent_.insert(recent_.begin(), absolute);
  if (recent_.size() > kMaxRecent) recent_.resize(kMaxRecent);
  std::string text;
  for (const std::string& r : recent_) text += r + "\n";
  if (MakeDirs(dir_).ok()) (void)WriteText(RecentPath(), text);
}

Status SessionKeeper::RestoreLast(AppState& state, std::vector<std::string>& warnings) {
  // A symbolic link to a file not made yet (a dotfile manager's) is no last session: the
  // autosave makes the file.
  struct stat st {};
  if (dir_.empty() || ::stat(LastSessionPath().c_str(), &st) != 0) return {};
  const std::string path = LastSessionPath();
  Result<LoadedSession> s = LoadSessionFile(path, SessionBase(state));
  if (!s.ok()) {
    // Kept aside under a new name, never over another copy: last.pexs.broken, .broken.1, ...
    // (one more than the newest); of the copies only the newest kMaxBrokenCopies stay.
    std::vector<std::pair<int64_t, std::string>> copies = BrokenCopies(dir_);
    int64_t next = copies.empty() ? 0 : copies.back().first + 1;
    std::string aside;
    bool moved = false;
    for (int attempt = 0; attempt < 8 && !moved; ++attempt, ++next) {
      aside = path + ".broken";
      if (next != 0) aside += '.' + std::to_string(next);
      moved = KeepAside(path, aside) == 0;
      if (!moved && errno != EEXIST) break;
    }
    std::string note;
    if (moved) {
      note = "; it was kept as \"" + aside + "\"";
      copies = BrokenCopies(dir_);
      std::vector<std::string> removed;
      for (size_t k = 0; k + kMaxBrokenCopies < copies.size(); ++k) {
        const std::string old = dir_ + "/" + copies[k].second;
        if (::unlink(old.c_str()) == 0) removed.push_back(old);
      }
      if (!removed.empty()) {
        note += " (only the newest " + std::to_string(kMaxBrokenCopies) + " copies are kept: ";
        note += removed.size() == 1
                    ? "the oldest, \"" + removed[0] + "\", was removed)"
                    : "the " + std::to_string(removed.size()) + " oldest, up to \"" +
                          removed.back() + "\", were removed)";
      }
    }
    return Error{s.error().kind, "the last session could not be restored: " + s.message() + note +
                                     "; starting on the built-in example"};
  }
  RestoreSession(state, s.value().content, warnings);
  for (std::string& w : s.value().warnings) warnings.push_back(std::move(w));
  return {};
}

Status SessionKeeper::SaveNow(const AppState& state) {
  if (dir_.empty()) return {};
  // The preferences and the session are written apart: one failing does not stop the other.
  const Status settings = SaveSettings(state.ui);
  const std::string text = WriteSessionText(MakeSessionDocument(SessionOf(state), &hashes_));
  if (text == saved_text_) return settings;
  if (Status s = MakeDirs(dir_); !s.ok()) return s;
  if (Status s = WriteText(LastSessionPath(), text); !s.ok()) return s;
  saved_text_ = text;
  return settings;
}

void SessionKeeper::Tick(AppState& state, double now) {
  if (dir_.empty() || now - last_check_ < kAutosaveSeconds) return;
  last_check_ = now;
  Status s = SaveNow(state);
  if (!s.ok() && !reported_error_) {
    Notice(state, "Autosave failed: " + s.message(), true);
    reported_error_ = true;
  }
}

bool IsSessionOrFigurePath(const std::string& path) {
  const std::string ext = FileExtension(path);
  return ext == "pexs" || ext == "png" || ext == "svg" || ext == "pdf";
}

namespace {

// What a session or figure opened (read and loaded, here or on the loading job) into `state`:
// exactly one of `figure` and `session` is set.
Status FinishOpening(AppState& state, const std::string& path, SessionKeeper* keeper,
                     const Result<FigureSession>* figure, Result<LoadedSession>* session) {
  std::vector<std::string> warnings;
  if (figure != nullptr) {
    if (!figure->ok()) {
      Notice(state, "Cannot open the figure: " + figure->message(), true);
      return figure->error();
    }
    AppState opened = state;
    RestoreFigureSession(opened, path, *figure);
    state = std::move(opened);
    state.session.path.clear();  // Save asks for a .pexs name
    Notice(state, "Opened the figure " + path + " as a session", false);
  } else {
    Result<LoadedSession>& s = *session;
    if (!s.ok()) {
      Notice(state, "Cannot open the session: " + s.message(), true);
      return s.error();
    }
    RestoreSession(state, s.value().content, warnings);
    for (std::string& w : s.value().warnings) warnings.push_back(std::move(w));
    state.session.path = path;
    Notice(state, WithWarnings("Opened " + path, warnings), !warnings.empty());
  }
  state.pending_edits.clear();  // edits meant for the state before
  if (keeper != nullptr) keeper->AddRecent(path);
  return {};
}

bool IsFigurePath(const std::string& path) {
  const std::string ext = FileExtension(path);
  return ext == "png" || ext == "svg" || ext == "pdf";
}

}  // namespace

Status OpenSessionPath(AppState& state, const std::string& path, SessionKeeper* keeper) {
  if (IsFigurePath(path)) {
    const Result<FigureSession> f = ReadFigureSession(path, state.params.cap);
    return FinishOpening(state, path, keeper, &f, nullptr);
  }
  Result<LoadedSession> s = LoadSessionFile(path, SessionBase(state));
  return FinishOpening(state, path, keeper, nullptr, &s);
}

Status SaveSessionAs(AppState& state, const std::string& path, SessionKeeper* keeper) {
  const Status s = SaveSessionFile(path, MakeSessionDocument(SessionOf(state)));
  if (!s.ok()) {
    Notice(state, "Cannot save the session: " + s.message(), true);
    return s;
  }
  state.session.path = path;
  Notice(state, "Saved the session to " + path, false);
  if (keeper != nullptr) keeper->AddRecent(path);
  return {};
}

void HandleSessionRequests(AppState& state, SessionKeeper* keeper, TableLoadJob* loads) {
  SessionUiState& s = state.session;
  // A session or figure the loading job has opened since the last frame.
  if (loads != nullptr) {
    if (std::optional<TableLoadOutcome> out = loads->TakeSession(); out && out->session_request) {
      const std::string& path = out->session_request->path;
      if (out->figure) {
        (void)FinishOpening(state, path, keeper, &*out->figure, nullptr);
      } else if (out->session) {
        (void)FinishOpening(state, path, keeper, nullptr, &*out->session);
      }
    }
  }
  if (s.new_requested) {
    s.new_requested = false;
    AppState fresh;
    fresh.params = SessionBase(state);
    fresh.history = std::move(state.history);  // "New" is a step to undo, not the end of history
    fresh.ui = state.ui;  // the UI scale and theme are preferences, not the session's
    fresh.session.window_width = s.window_width;
    fresh.session.window_height = s.window_height;
    state = std::move(fresh);
    Notice(state, "New session on the built-in example", false);
  }
  std::vector<std::string> requests = std::move(s.open_requests);
  s.open_requests.clear();
  if (loads != nullptr) {
    // On the loading job, one at a time: the tables a session names are never read here. A
    // request waits while another load runs.
    for (size_t k = 0; k < requests.size(); ++k) {
      if (loads->busy() || !loads->StartSession({requests[k], SessionBase(state)})) {
        s.open_requests.assign(requests.begin() + static_cast<std::ptrdiff_t>(k), requests.end());
        break;
      }
      Notice(state, "Opening " + requests[k] + "...", false);
    }
  } else {
    for (const std::string& path : requests) (void)OpenSessionPath(state, path, keeper);
  }
  if (!s.save_as_request.empty()) {
    const std::string path = std::move(s.save_as_request);
    s.save_as_request.clear();
    (void)SaveSessionAs(state, path, keeper);
  }
  if (s.save_requested) {
    s.save_requested = false;
    if (s.path.empty()) {
      s.save_as_dialog = true;
    } else {
      (void)SaveSessionAs(state, s.path, keeper);
    }
  }
}

void ApplyStartLook(AppState& state, const SessionKeeper* keeper, std::optional<float> scale,
                    std::optional<UiTheme> theme, std::vector<std::string>& warnings) {
  if (keeper != nullptr) keeper->LoadSettings(state.ui, warnings);
  if (scale) state.ui.scale = *scale;
  if (theme) state.ui.theme = *theme;
}

void RecordUndo(AppState& state, bool holding) {
  UndoHistory& h = state.history;
  if (!h.committed) {
    h.committed = UndoStep{state.params, state.selection.selected_token};
    return;
  }
  if (holding || state.params == h.committed->params) return;
  h.undo.push_back(std::move(*h.committed));
  if (h.undo.size() > UndoHistory::kMaxSteps) h.undo.erase(h.undo.begin());
  h.redo.clear();
  h.committed = UndoStep{state.params, state.selection.selected_token};
}

namespace {
void Step(AppState& s, std::vector<UndoStep>& from, std::vector<UndoStep>& to) {
  if (from.empty()) return;
  to.push_back(UndoStep{s.params, s.selection.selected_token});
  UndoStep step = std::move(from.back());
  from.pop_back();
  s.params = step.params;
  s.selection.selected_token = step.selected_token;
  s.history.committed = std::move(step);
}
}  // namespace

void Undo(AppState& state) {
  Edit(state, [](AppState& s) { Step(s, s.history.undo, s.history.redo); });
}

void Redo(AppState& state) {
  Edit(state, [](AppState& s) { Step(s, s.history.redo, s.history.undo); });
}

}  // namespace pe
