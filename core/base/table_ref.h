// A reference to a table loaded from a file (io/loaded_table.h), as parameters hold it: the
// FILE[:TENSOR] text the user gave, the content hash of the bytes it was read from, and the
// shared, immutable table itself. Setting the parameter records the text only; the load step
// (model/param_fields.h LoadParamFiles) reads the table and fills in the hash and the table. Two
// references are equal when their text and hash are: the table's values are never compared, copied
// or stored in the parameters (DESIGN.md: loaded data is referenced by path and content hash).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace pe {

class LoadedTable;

struct TableRef {
  std::string spec;   // "FILE" or "FILE:TENSOR"; empty: no table (the seeded one is used)
  uint64_t hash = 0;  // LoadedTable::hash() of what `table` was read from (0 until loaded)
  std::shared_ptr<const LoadedTable> table;  // null when spec is empty or not loaded yet
  // The hash --embeddings-hash / --positions-table-hash gave before the table was loaded: the
  // load step checks the table against it.
  std::optional<uint64_t> expected_hash;
  bool loaded() const { return table != nullptr; }
  bool operator==(const TableRef& o) const { return spec == o.spec && hash == o.hash; }
};

}  // namespace pe
