// The catalogue: assets/models/catalogue.tsv (name, title, source, note) joined with the
// config.json files beside it, both compiled in by core/arch/make_catalogue.cmake.
#include "arch/catalogue.h"

#include <cctype>
#include <string>
#include <vector>

#include "arch/hf_config.h"
#include "base/closest_word.h"

namespace pe {

namespace {

struct CatalogueFile {
  std::string_view name;  // NAME of assets/models/NAME.json
  std::string_view text;
};

#include "catalogue_data.inc"

// The table's lines in order, each joined with its file. A line with fewer than four fields or a
// name with no file keeps what it has (an empty config, which the reader refuses): the
// catalogue's own test reads every entry.
std::vector<CatalogueEntry> BuildCatalogue() {
  std::vector<CatalogueEntry> out;
  std::string_view rest = kCatalogueTable;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    std::string_view fields[4];
    for (int i = 0; i < 4; ++i) {
      const size_t tab = i < 3 ? line.find('\t') : std::string_view::npos;
      fields[i] = line.substr(0, tab);
      line = tab == std::string_view::npos ? std::string_view() : line.substr(tab + 1);
    }
    CatalogueEntry e{fields[0], fields[1], fields[2], fields[3], {}};
    for (const CatalogueFile& f : kCatalogueFiles) {
      if (f.name == e.name) e.config = f.text;
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace

std::span<const CatalogueEntry> ModelCatalogue() {
  // Built once from the compiled-in text (views into it), then only read.
  static const std::vector<CatalogueEntry> catalogue = BuildCatalogue();
  return catalogue;
}

Result<ModelSchedule> CatalogueModel(std::string_view name) {
  std::vector<std::string> names;
  for (const CatalogueEntry& e : ModelCatalogue()) {
    if (e.name == name) return ReadHfConfig(e.config, e.name, e.source);
    names.emplace_back(e.name);
  }
  std::string hint = DidYouMean(name, names);
  if (hint.empty()) {
    // A family typed without its punctuation ("llama4", "phi3", "gemma3"): the names it begins.
    auto bare = [](std::string_view t) {
      std::string out;
      for (char ch : t) {
        if (ch != '-' && ch != '.' && ch != '_') {
          out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        }
      }
      return out;
    };
    const std::string word = bare(name);
    std::vector<std::string> starts;
    for (const std::string& n : names) {
      if (!word.empty() && bare(n).rfind(word, 0) == 0) starts.push_back(n);
    }
    if (!starts.empty() && starts.size() <= 4) {
      hint = " (did you mean ";
      for (size_t i = 0; i < starts.size(); ++i) {
        hint += (i == 0 ? "" : i + 1 == starts.size() ? " or " : ", ") + starts[i];
      }
      hint += "?)";
    }
  }
  return InvalidArgument("--model: no model named '" + std::string(name) + "'" + hint +
                         " (pe-explorer export --list-models lists them)");
}

}  // namespace pe
