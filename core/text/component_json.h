// Reading the members of a tokenizer.json component (a normalizer or a pre-tokenizer): a member
// absent and a member null alike, the component's "type", a boolean with its default.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"

namespace pe::component_json {

using Json = nlohmann::json;

// The member `key` of an object, or null when `j` is no object or the member is absent or null.
inline const Json* Member(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

// The component's "type", or "(no type)" for messages.
inline std::string TypeOf(const Json& j) {
  if (const Json* t = Member(j, "type"); t && t->is_string()) return t->get<std::string>();
  return "(no type)";
}

// A boolean member, `fallback` when absent; anything else than true or false is refused.
inline Result<bool> Bool(const Json& j, const char* key, bool fallback, const std::string& where) {
  const Json* v = Member(j, key);
  if (!v) return fallback;
  if (!v->is_boolean()) return InvalidArgument(where + ": " + key + " is not true or false");
  return v->get<bool>();
}

}  // namespace pe::component_json
