#include "arch/open_model.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "arch/gguf_reader.h"
#include "arch/hf_config.h"
#include "io/read_support.h"

namespace pe {

namespace {

// The file's name without its folders, for the schedule's name.
std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A reader's refusal with one prefix, "--model-config PATH: ", in place of the reader's own
// ("config.json NAME: " or "\"PATH\": "), which would name the file a second time.
Result<ModelSchedule> Prefixed(Result<ModelSchedule> r, const std::string& path,
                               const std::string& own) {
  if (r.ok()) return r;
  Error e = r.error();
  if (e.message.rfind(own, 0) == 0) e.message.erase(0, own.size());
  e.message = "--model-config " + path + ": " + e.message;
  return e;
}

// The whole file, at most kMaxConfigJsonBytes (the caller checked the size).
bool ReadAll(const RegularFileReader& file, std::string& text) {
  text.assign(file.size(), '\0');
  size_t have = 0;
  while (have < text.size()) {
    const ssize_t n =
        pread(file.fd(), text.data() + have, text.size() - have, static_cast<off_t>(have));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  text.resize(have);
  return true;
}

}  // namespace

bool LooksLikeModelConfig(const std::string& path) {
  RegularFileReader file = RegularFileReader::Open(path);
  if (file.failure() != RegularFileReader::Failure::kNone) return false;
  char magic[4] = {};
  if (pread(file.fd(), magic, sizeof magic, 0) == 4 && std::memcmp(magic, "GGUF", 4) == 0) {
    return true;
  }
  if (file.size() > kMaxConfigJsonBytes) return false;
  std::string text;
  if (!ReadAll(file, text)) return false;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') return false;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && (j.contains("model_type") || j.contains("architectures"));
}

Result<ModelSchedule> OpenModelConfig(const std::string& path, const MemoryCap& cap) {
  RegularFileReader file = RegularFileReader::Open(path);
  switch (file.failure()) {
    case RegularFileReader::Failure::kNone:
      break;
    case RegularFileReader::Failure::kCannotRead:
      return InvalidArgument("--model-config: cannot read " + Quoted(path) + ": " +
                             std::strerror(file.error()));
    case RegularFileReader::Failure::kNotRegular:
      return InvalidArgument("--model-config: " + Quoted(path) + " is " +
                             FileKindName(file.mode()) + ", not a config.json or GGUF file");
  }
  char magic[4] = {};
  const ssize_t got = pread(file.fd(), magic, sizeof magic, 0);
  if (got == 4 && std::memcmp(magic, "GGUF", 4) == 0) {
    return Prefixed(ReadGgufFile(path, cap), path, Quoted(path) + ": ");
  }
  if (file.size() > kMaxConfigJsonBytes) {
    return InvalidArgument("--model-config: " + Quoted(path) + " is " +
                           std::to_string(file.size()) +
                           " bytes and does not start with GGUF; a config.json is at most " +
                           std::to_string(kMaxConfigJsonBytes) + " bytes");
  }
  std::string text;
  if (!ReadAll(file, text)) {
    return InvalidArgument("--model-config: cannot read " + Quoted(path) + ": " +
                           std::strerror(errno));
  }
  return Prefixed(ReadHfConfig(text, BaseName(path), path), path,
                  "config.json " + BaseName(path) + ": ");
}

}  // namespace pe
