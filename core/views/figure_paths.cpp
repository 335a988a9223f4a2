#include "views/figure_paths.h"

#include <filesystem>
#include <system_error>

#include "io/tensor_file.h"
#include "model/param_fields.h"

namespace pe {
namespace {

constexpr std::string_view kAbsoluteSuffix = "_absolute";

// The file parameters: FILE[:TENSOR] for tables, a plain path for a tokenizer.
bool IsFileKey(std::string_view key) {
  const ParamField* f = FindParamField(key);
  return f != nullptr && f->key == key && f->value_name == "FILE";
}

// The file part of a parameter's text and the rest ("", or ":TENSOR").
std::pair<std::string, std::string> SplitFile(std::string_view key, const std::string& text) {
  if (key != "tokenizer_file") {
    Result<TensorSpec> spec = ParseTensorSpec(text);
    if (spec.ok() && !spec.value().tensor.empty()) {
      return {spec.value().path, text.substr(spec.value().path.size())};
    }
  }
  return {text, ""};
}

bool Exists(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(p, ec);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> AbsoluteFileEntries(
    const std::vector<std::pair<std::string, std::string>>& values) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, text] : values) {
    if (text.empty() || !IsFileKey(key)) continue;
    const auto [file, rest] = SplitFile(key, text);
    const std::filesystem::path p(file);
    if (file.empty() || p.is_absolute()) continue;
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(p, ec);
    if (ec) continue;
    out.emplace_back(key + std::string(kAbsoluteSuffix), abs.lexically_normal().string() + rest);
  }
  return out;
}

bool IsAbsoluteFileKey(std::string_view key) {
  return key.size() > kAbsoluteSuffix.size() && key.ends_with(kAbsoluteSuffix) &&
         IsFileKey(key.substr(0, key.size() - kAbsoluteSuffix.size()));
}

void ResolveFigureFiles(std::vector<CommandFlag>& flags,
                        const std::vector<std::pair<std::string, std::string>>& entries,
                        const std::string& figure_path) {
  const std::filesystem::path folder = std::filesystem::path(figure_path).parent_path();
  for (CommandFlag& f : flags) {
    if (f.is_switch || f.value.empty() || !IsFileKey(f.key)) continue;
    const auto [file, rest] = SplitFile(f.key, f.value);
    if (file.empty() || std::filesystem::path(file).is_absolute()) continue;
    // Beside the figure first (a folder moved or shared with its figures).
    if (const std::filesystem::path beside = folder / file; Exists(beside)) {
      f.value = beside.string() + rest;
      continue;
    }
    // Then where it was read from when the figure was made.
    for (const auto& [key, text] : entries) {
      if (key != f.key + std::string(kAbsoluteSuffix)) continue;
      const auto [abs, abs_rest] = SplitFile(f.key, text);
      if (Exists(abs)) f.value = abs + abs_rest;
    }
  }
}

}  // namespace pe
