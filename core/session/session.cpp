#include "session/session.h"

#include <sys/stat.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "io/file_writers.h"
#include "io/read_support.h"
#include "model/param_fields.h"
#include "model/walkthrough_presets.h"

namespace pe {
namespace {

// The fields whose value names a file (loaded tables, tokenizer files, ...).
bool IsFileField(const ParamField& f) {
  return f.value_name == "FILE";
}

const std::string* Find(const KeyValues& kv, std::string_view key) {
  for (const auto& [k, v] : kv) {
    if (k == key) return &v;
  }
  return nullptr;
}

Result<int64_t> Integer(const std::string& key, const std::string& text, int64_t lo, int64_t hi) {
  return ParseInteger("views." + key, text, lo, hi);
}

Result<bool> Boolean(const std::string& key, const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return InvalidArgument("views." + key + " must be true or false, got \"" + text + "\"");
}

// "x0:x1:y0:y1", four finite numbers (an empty score window, x1 <= x0, means the whole table).
Result<ViewRange> Window(const std::string& key, const std::string& text) {
  std::optional<ViewRange> v = ParseWindowNumbers(text);
  if (!v) {
    return InvalidArgument("views." + key + " must be x0:x1:y0:y1, four finite numbers, got \"" +
                           text + "\"");
  }
  return *v;
}

}  // namespace

std::optional<ViewRange> ParseWindowNumbers(const std::string& text) {
  double v[4] = {0, 0, 0, 0};
  const char* p = text.data();
  const char* end = p + text.size();
  for (int k = 0; k < 4; ++k) {
    auto [next, ec] = std::from_chars(p, end, v[k]);
    if (ec != std::errc() || !std::isfinite(v[k]) ||
        !(k == 3 ? next == end : next < end && *next == ':')) {
      return std::nullopt;
    }
    p = next + 1;
  }
  return ViewRange{v[0], v[1], v[2], v[3]};
}

Result<uint64_t> FileHashCache::Hash(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return Fnv1a64File(path);
  const int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  auto it = known_.find(path);
  if (it != known_.end() && std::get<0>(it->second) == st.st_size &&
      std::get<1>(it->second) == mtime) {
    return std::get<2>(it->second);
  }
  Result<uint64_t> h = Fnv1a64File(path);
  if (h.ok()) known_[path] = {st.st_size, mtime, h.value()};
  return h;
}

KeyValues ViewSelectionText(const ViewSelection& v) {
  KeyValues out;
  for (ViewKind k : WindowOwners()) {
    out.emplace_back(std::string(WindowKeyName(k)), WindowText(v.windows[k]));
  }
  out.emplace_back("token", v.selected_token < 0 ? "all" : std::to_string(v.selected_token));
  out.emplace_back("batch_row", std::to_string(v.batch_row));
  out.emplace_back("highlight", v.highlight ? "true" : "false");
  out.emplace_back("markers", v.markers ? "true" : "false");
  out.emplace_back("rotation_position", std::to_string(v.rotation_position));
  out.emplace_back("walkthrough_step", std::to_string(v.walkthrough_step));
  return out;
}

Status ApplyViewSelectionText(const KeyValues& views, ViewSelection& out) {
  ViewSelection v = out;
  const std::vector<ViewKind> owners = WindowOwners();
  for (const auto& [key, text] : views) {
    bool window = false;
    for (ViewKind k : owners) {
      if (key != WindowKeyName(k)) continue;
      Result<ViewRange> r = Window(key, text);
      if (!r.ok()) return r.error();
      v.windows[k] = r.value();
      window = true;
    }
    if (window) continue;
    if (key == "token") {
      if (text == "all") {
        v.selected_token = -1;
        continue;
      }
      Result<int64_t> t = Integer(key, text, 0, int64_t{1} << 30);
      if (!t.ok()) return InvalidArgument(t.message() + " (or all)");
      v.selected_token = static_cast<int>(t.value());
    } else if (key == "batch_row") {
      Result<int64_t> r = Integer(key, text, 0, int64_t{1} << 40);
      if (!r.ok()) return r.error();
      v.batch_row = r.value();
    } else if (key == "highlight" || key == "markers") {
      Result<bool> b = Boolean(key, text);
      if (!b.ok()) return b.error();
      (key == "highlight" ? v.highlight : v.markers) = b.value();
    } else if (key == "rotation_position") {
      Result<int64_t> r = Integer(key, text, -kMaxPosition, kMaxPosition);
      if (!r.ok()) return r.error();
      v.rotation_position = r.value();
    } else if (key == "walkthrough_step") {
      Result<int64_t> r = Integer(key, text, -1, 7);
      if (!r.ok()) return r.error();
      v.walkthrough_step = static_cast<int>(r.value());
    } else {
      std::string known;
      for (ViewKind k : owners) known += std::string(WindowKeyName(k)) + ", ";
      return InvalidArgument("views." + key + " is not a view key this version knows (" + known +
                             "token, batch_row, highlight, markers, rotation_position, "
                             "walkthrough_step)");
    }
  }
  out = v;
  return {};
}

SessionDocument MakeSessionDocument(const SessionContent& content, FileHashCache* hashes) {
  SessionDocument doc;
  doc.app_version = PE_VERSION;
  const ModelParams& m = content.params;
  if (!m.walkthrough_preset.empty())
    doc.params.emplace_back("walkthrough_preset", m.walkthrough_preset);
  for (auto& kv : ParamValues(m)) doc.params.push_back(std::move(kv));
  FileHashCache local;
  FileHashCache& cache = hashes != nullptr ? *hashes : local;
  for (const ParamField& f : ParamFields()) {
    if (!IsFileField(f)) continue;
    const std::string* path = Find(doc.params, f.key);
    if (path == nullptr || path->empty()) continue;
    if (Result<uint64_t> h = cache.Hash(*path); h.ok()) {
      doc.files.push_back({std::string(f.key), *path, h.value()});
    }
  }
  doc.views = ViewSelectionText(content.views);
  doc.ui = content.ui;
  return doc;
}

Result<LoadedSession> SessionFromDocument(const SessionDocument& doc, const ModelParams& base,
                                          const Progress& progress) {
  LoadedSession out;
  ModelParams& m = out.content.params;
  m = base;
  // Every key must be one this version knows, before anything is applied.
  for (const auto& [key, value] : doc.params) {
    if (key == "walkthrough_preset") continue;
    const ParamField* f = FindParamField(key);
    if (f == nullptr || f->key != key) {
      return InvalidArgument("params." + key +
                             " is not a parameter this version of PE Explorer "
                             "knows");
    }
  }
  if (const std::string* preset = Find(doc.params, "walkthrough_preset")) {
    if (Status s = ApplyWalkthroughPreset(*preset, m); !s.ok()) {
      return InvalidArgument("params.walkthrough_preset: " + s.message());
    }
  }
  for (const ParamField& f : ParamFields()) {
    if (f.key.empty()) continue;
    const std::string* text = Find(doc.params, f.key);
    if (text == nullptr) continue;
    const std::string key(f.key);
    if (std::string why = f.WhyNotApplicable(m); !why.empty()) {
      return InvalidArgument("params." + key + " does not apply: " + why);
    }
    ModelParams trial = m;
    Status s = f.set(trial, *text);
    if (!s.ok() && key == "versus") {
      // The compare view's B, typed for another scheme than the one saved: the rest opens, and
      // the compare view starts on the scheme's own counterpart.
      out.warnings.push_back("params.versus was left out: " + s.message());
      continue;
    }
    if (!s.ok()) return InvalidArgument("params." + key + ": " + s.message());
    m = std::move(trial);
  }
  // The files the parameters name, read in the field order (each table before its hash): a
  // table or tokenizer file that is gone or unreadable is a warning and the rest of the session
  // opens without it; a table whose hash is not the one saved is refused.
  for (const ParamField& f : ParamFields()) {
    if (!f.loads() || f.key.empty() || !f.WhyNotApplicable(m).empty()) continue;
    if (Status s = f.load(m, progress); !s.ok()) {
      const std::string key(f.key);
      if (!IsFileField(f)) return InvalidArgument("params." + key + ": " + s.message());
      out.warnings.push_back("params." + key + " was not loaded: " + s.message());
      (void)f.set(m, "");
    }
  }
  // A loaded position table sets max_len to its rows; the max_len saved (applied before the
  // table, in the field order) is the one shown.
  if (const std::string* saved = Find(doc.params, "max_len")) {
    ModelParams trial = m;
    if (FindParamField("max_len")->set(trial, *saved).ok()) m = std::move(trial);
  }
  for (const SessionFile& file : doc.files) {
    const std::string* path = Find(doc.params, file.key);
    if (path == nullptr) {
      return InvalidArgument("files." + file.key + " names no parameter of \"params\"");
    }
    if (*path != file.path) {
      return InvalidArgument("files." + file.key + ".path \"" + file.path +
                             "\" is not the parameter's value \"" + *path + "\"");
    }
    Result<uint64_t> now = Fnv1a64File(file.path);
    if (!now.ok()) {
      out.warnings.push_back(file.key + ": " + now.message() + " (the session was saved with it)");
    } else if (now.value() != file.fnv1a64) {
      out.warnings.push_back(
          file.key + ": \"" + file.path + "\" changed since the session was saved (FNV-1a 64 was " +
          SessionHashText(file.fnv1a64) + ", now " + SessionHashText(now.value()) +
          "); the views show the file as it is now");
    }
  }
  out.content.views = DefaultViews(m);
  if (Status s = ApplyViewSelectionText(doc.views, out.content.views); !s.ok()) return s.error();
  out.content.ui = doc.ui;
  return out;
}

Status SaveSessionFile(const std::string& path, const SessionDocument& doc) {
  const std::string text = WriteSessionText(doc);
  return WriteFileAtomically(path, [&](std::ostream& out) -> Status {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return {};
  });
}

Result<SessionDocument> ReadSessionDocument(const std::string& path) {
  Result<std::unique_ptr<FileSource>> src = FileSource::Open(path, kMaxSessionFileBytes + 1);
  if (!src.ok()) return src.error();
  Result<std::span<const std::byte>> bytes = src.value()->Prefix(kMaxSessionFileBytes + 1);
  if (!bytes.ok()) return bytes.error();
  const std::string_view text(reinterpret_cast<const char*>(bytes.value().data()),
                              bytes.value().size());
  Result<SessionDocument> doc = CatchReaderExceptions(path, [&] { return ParseSessionText(text); });
  if (!doc.ok()) {
    if (doc.message().rfind(Quoted(path), 0) == 0) return doc.error();  // an exception caught
    return InvalidArgument(Quoted(path) + " " + doc.message());
  }
  return doc;
}

Result<LoadedSession> LoadSessionFile(const std::string& path, const ModelParams& base,
                                      const Progress& progress) {
  Result<SessionDocument> doc = ReadSessionDocument(path);
  if (!doc.ok()) return doc.error();
  Result<LoadedSession> s = SessionFromDocument(doc.value(), base, progress);
  if (!s.ok()) return Error{s.error().kind, Quoted(path) + " " + s.message()};
  return s;
}

}  // namespace pe
