// The built-in catalogue of real models: each entry is a config.json kept in assets/models/ and
// compiled into the program, read by the same reader as a user's file (arch/hf_config.h).
#pragma once

#include <span>
#include <string_view>

#include "base/status.h"
#include "model/model_schedule.h"

namespace pe {

struct CatalogueEntry {
  std::string_view name;    // "llama-3.1-8b": what --model takes
  std::string_view title;   // "Llama 3.1 8B"
  std::string_view source;  // where its config.json was published (a URL)
  std::string_view note;    // which values were chosen where sources disagree, and why
  std::string_view config;  // the config.json text
};

// Every entry, in the order --list-models prints them.
std::span<const CatalogueEntry> ModelCatalogue();

// The schedule of catalogue entry `name`; an unknown name is an error that suggests the closest
// name and points to --list-models.
Result<ModelSchedule> CatalogueModel(std::string_view name);

}  // namespace pe
