#include "io/session_file.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "io/read_support.h"

namespace pe {
namespace {

// ordered_json keeps the file's key order, so params read back in the order they were written.
using Json = nlohmann::ordered_json;

constexpr uint64_t kFnvOffsetBasis = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

uint64_t Fnv1a64Update(uint64_t h, const unsigned char* p, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    h ^= p[k];
    h *= kFnvPrime;
  }
  return h;
}

// "line 3, column 7" of the 0-based byte `at` of `text` (columns count bytes from 1).
std::string LineColumn(std::string_view text, size_t at) {
  at = std::min(at, text.size());
  size_t line = 1, line_start = 0;
  for (size_t k = 0; k < at; ++k) {
    if (text[k] == '\n') {
      ++line;
      line_start = k + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(at - line_start + 1);
}

std::string TypeName(const Json& v) {
  if (v.is_string()) return "a string";
  if (v.is_number()) return "a number";
  if (v.is_boolean()) return "true/false";
  if (v.is_null()) return "null";
  if (v.is_array()) return "a list";
  return "an object";
}

// Keys seen in every open object, to refuse a key given twice (nlohmann keeps the last one
// silently; a session must not pick one of two values by accident).
struct DuplicateKeys {
  std::vector<std::set<std::string>> open;
  std::string first;
  bool Event(Json::parse_event_t event, const Json& parsed) {
    using E = Json::parse_event_t;
    if (event == E::object_start) open.emplace_back();
    if (event == E::object_end && !open.empty()) open.pop_back();
    if (event == E::key && !open.empty() && first.empty() && parsed.is_string()) {
      if (!open.back().insert(parsed.get<std::string>()).second) first = parsed.get<std::string>();
    }
    return true;
  }
};

// An object of strings ("params", "views", "ui") into `out`, in file order.
Status ReadStrings(const Json& root, const char* section, KeyValues& out) {
  auto it = root.find(section);
  if (it == root.end()) return {};
  if (!it->is_object()) {
    return InvalidArgument(std::string("\"") + section + "\" is " + TypeName(*it) +
                           "; expected an object of \"key\": \"text\" entries");
  }
  for (const auto& [key, value] : it->items()) {
    if (!value.is_string()) {
      return InvalidArgument(std::string(section) + "." + key + " is " + TypeName(value) + " (" +
                             value.dump() + "); expected a string, e.g. \"" +
                             (value.is_primitive() && !value.is_string() ? value.dump() : "...") +
                             "\"");
    }
    if (key.empty()) return InvalidArgument(std::string(section) + " has an empty key");
    out.emplace_back(key, value.get<std::string>());
  }
  return {};
}

Result<uint64_t> ParseHash(const std::string& where, const std::string& text) {
  uint64_t h = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), h, 16);
  if (text.size() != 16 || ec != std::errc() || p != text.data() + text.size()) {
    return InvalidArgument(where + " is \"" + text + "\"; expected 16 hex digits");
  }
  return h;
}

Status ReadFiles(const Json& root, std::vector<SessionFile>& out) {
  auto it = root.find("files");
  if (it == root.end()) return {};
  if (!it->is_object()) {
    return InvalidArgument("\"files\" is " + TypeName(*it) +
                           "; expected an object of \"key\": {\"path\": ..., \"fnv1a64\": ...}");
  }
  for (const auto& [key, value] : it->items()) {
    const std::string where = "files." + key;
    if (!value.is_object()) {
      return InvalidArgument(where + " is " + TypeName(value) +
                             "; expected {\"path\": \"...\", \"fnv1a64\": \"16 hex digits\"}");
    }
    SessionFile f;
    f.key = key;
    for (const auto& [k, v] : value.items()) {
      if (k != "path" && k != "fnv1a64") {
        return InvalidArgument(where + " has the unknown key \"" + k +
                               "\"; expected path and fnv1a64");
      }
      if (!v.is_string()) {
        return InvalidArgument(where + "." + k + " is " + TypeName(v) + "; expected a string");
      }
    }
    if (!value.contains("path") || !value.contains("fnv1a64")) {
      return InvalidArgument(where + " needs both \"path\" and \"fnv1a64\"");
    }
    f.path = value["path"].get<std::string>();
    Result<uint64_t> h = ParseHash(where + ".fnv1a64", value["fnv1a64"].get<std::string>());
    if (!h.ok()) return h.error();
    f.fnv1a64 = h.value();
    out.push_back(std::move(f));
  }
  return {};
}

Status Unchanged(SessionDocument&) {
  return {};
}

// Version 1 is the first format; a v2 adds {1, "...", step to 2} before an entry {2, ...}.
constexpr SessionMigration kMigrations[] = {
    {1, "the first format (params, files, views, ui as text)", &Unchanged},
};

}  // namespace

uint64_t Fnv1a64(std::span<const std::byte> bytes) {
  return Fnv1a64Update(kFnvOffsetBasis, reinterpret_cast<const unsigned char*>(bytes.data()),
                       bytes.size());
}

Result<uint64_t> Fnv1a64File(const std::string& path) {
  // A FIFO is refused instead of waiting for a writer.
  const RegularFileReader file = RegularFileReader::Open(path);
  if (file.failure() == RegularFileReader::Failure::kCannotRead) {
    return RuntimeError("cannot read \"" + path + "\": " + std::strerror(file.error()));
  }
  // Only a regular file has a content to hash: a FIFO or /dev/zero would never end.
  if (file.failure() == RegularFileReader::Failure::kNotRegular) {
    return InvalidArgument("\"" + path + "\" is " + FileKindName(file.mode()) +
                           "; expected a regular file");
  }
  const int fd = file.fd();
  // No further than the size it had when opened, so a file that keeps growing cannot hold
  // the read; and no file larger than a table can be (a sparse file can claim exabytes).
  const uint64_t size = file.size();
  if (size > kMaxHashedFileBytes) {
    return InvalidArgument("\"" + path + "\" is " + FormatBytes(size) + ", larger than the " +
                           FormatBytes(kMaxHashedFileBytes) + " a session's file may be");
  }
  uint64_t h = kFnvOffsetBasis;
  unsigned char buf[1 << 16];
  for (uint64_t done = 0; done < size;) {
    const ssize_t n =
        ::read(fd, buf, static_cast<size_t>(std::min<uint64_t>(sizeof buf, size - done)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return RuntimeError("cannot read \"" + path + "\" at byte " + std::to_string(done) + ": " +
                          std::strerror(errno));
    }
    if (n == 0) break;
    h = Fnv1a64Update(h, buf, static_cast<size_t>(n));
    done += static_cast<uint64_t>(n);
  }
  return h;
}

std::string SessionHashText(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string WriteSessionText(const SessionDocument& doc) {
  Json root = Json::object();
  root["format"] = kSessionFormatName;
  root["version"] = doc.version;
  root["app_version"] = doc.app_version;
  auto strings = [](const KeyValues& kv) {
    Json o = Json::object();
    for (const auto& [k, v] : kv) o[k] = v;
    return o;
  };
  root["params"] = strings(doc.params);
  Json files = Json::object();
  for (const SessionFile& f : doc.files) {
    files[f.key] = Json{{"path", f.path}, {"fnv1a64", SessionHashText(f.fnv1a64)}};
  }
  root["files"] = std::move(files);
  root["views"] = strings(doc.views);
  root["ui"] = strings(doc.ui);
  // Text values are checked UTF-8 (CheckText); a path that is not is written with U+FFFD, and
  // its hash check then says the file is not found.
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<SessionDocument> ParseSessionText(std::string_view text) {
  if (text.size() > kMaxSessionFileBytes) {
    return InvalidArgument("is " + std::to_string(text.size()) +
                           " bytes; a session file is at most " +
                           std::to_string(kMaxSessionFileBytes) + " bytes");
  }
  // JSON text holds no NUL byte: binary data (or a file zeroed by a crash) is named as such
  // instead of a parse error ("unexpected end of input" at a NUL).
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return InvalidArgument("is not a session file: binary data (a NUL byte) at byte " +
                           std::to_string(nul) + "; a session file is JSON text");
  }
  Json root;
  DuplicateKeys dups;
  try {
    root = Json::parse(
        text.begin(), text.end(),
        [&dups](int, Json::parse_event_t e, Json& parsed) { return dups.Event(e, parsed); },
        /*allow_exceptions=*/true);
  } catch (const Json::parse_error& e) {
    // e.byte counts from 1 at the first character.
    const size_t at = e.byte > 0 ? static_cast<size_t>(e.byte) - 1 : 0;
    std::string why = e.what();
    const size_t syntax = why.find("syntax error");
    if (syntax != std::string::npos) why = why.substr(syntax);
    return InvalidArgument("is not valid JSON at " + LineColumn(text, at) + " (" + why + ")");
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("is not valid JSON (") + e.what() + ")");
  }
  if (!dups.first.empty()) {
    return InvalidArgument("has the key \"" + dups.first + "\" twice in one object");
  }
  if (!root.is_object()) {
    return InvalidArgument("is " + TypeName(root) + "; a session file is a JSON object");
  }
  auto format = root.find("format");
  if (format == root.end() || !format->is_string() ||
      format->get<std::string>() != kSessionFormatName) {
    return InvalidArgument(std::string("is not a PE Explorer session: \"format\" must be \"") +
                           std::string(kSessionFormatName) + "\"" +
                           (format == root.end() ? " (it is missing)" : ", got " + format->dump()));
  }
  SessionDocument doc;
  auto version = root.find("version");
  if (version == root.end() || !version->is_number_integer() || version->get<int64_t>() < 1) {
    return InvalidArgument("has " +
                           (version == root.end() ? std::string("no \"version\"")
                                                  : "\"version\": " + version->dump()) +
                           "; expected a whole number from 1 to " +
                           std::to_string(kSessionFormatVersion));
  }
  if (auto app = root.find("app_version"); app != root.end()) {
    if (!app->is_string()) return InvalidArgument("app_version is " + TypeName(*app));
    doc.app_version = app->get<std::string>();
  }
  if (version->get<int64_t>() > kSessionFormatVersion) {
    return InvalidArgument(
        "was written by a newer PE Explorer" +
        (doc.app_version.empty() ? std::string() : " (" + doc.app_version + ")") +
        ": session format version " + std::to_string(version->get<int64_t>()) +
        ", and this version reads up to " + std::to_string(kSessionFormatVersion) +
        "; open it with that version or newer");
  }
  doc.version = static_cast<int>(version->get<int64_t>());
  for (const auto& [key, value] : root.items()) {
    if (key != "format" && key != "version" && key != "app_version" && key != "params" &&
        key != "files" && key != "views" && key != "ui") {
      return InvalidArgument("has the unknown key \"" + key +
                             "\" (a session holds format, version, app_version, params, files, "
                             "views and ui)");
    }
  }
  if (Status s = ReadStrings(root, "params", doc.params); !s.ok()) return s.error();
  if (Status s = ReadFiles(root, doc.files); !s.ok()) return s.error();
  if (Status s = ReadStrings(root, "views", doc.views); !s.ok()) return s.error();
  if (Status s = ReadStrings(root, "ui", doc.ui); !s.ok()) return s.error();
  if (Status s = MigrateSession(doc, kSessionFormatVersion, SessionMigrations()); !s.ok()) {
    return s.error();
  }
  return doc;
}

std::span<const SessionMigration> SessionMigrations() {
  return kMigrations;
}

Status MigrateSession(SessionDocument& doc, int to_version,
                      std::span<const SessionMigration> table) {
  for (;;) {
    const SessionMigration* step = nullptr;
    for (const SessionMigration& m : table) {
      if (m.from_version == doc.version) step = &m;
    }
    if (step == nullptr) {
      return InvalidArgument("has session format version " + std::to_string(doc.version) +
                             ", which this version cannot read");
    }
    const int from = doc.version;
    if (Status s = step->migrate(doc); !s.ok()) return s;
    if (from == to_version) return {};
    if (doc.version != from + 1) {
      return InvalidArgument("the migration from session format version " + std::to_string(from) +
                             " did not reach version " + std::to_string(from + 1));
    }
  }
}

}  // namespace pe
