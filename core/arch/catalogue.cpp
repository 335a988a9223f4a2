#include "arch/catalogue.h"

#include <string>

#include "arch/hf_config.h"

namespace pe {

std::span<const CatalogueEntry> ModelCatalogue() {
  return {};
}

Result<ModelSchedule> CatalogueModel(std::string_view name) {
  for (const CatalogueEntry& e : ModelCatalogue()) {
    if (e.name == name) return ReadHfConfig(e.config, e.name, e.source);
  }
  return InvalidArgument("--model: no model named '" + std::string(name) +
                         "' (pe-explorer export --list-models lists them)");
}

}  // namespace pe
