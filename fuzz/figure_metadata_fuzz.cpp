// libFuzzer target for the figure metadata reader (export --from): any bytes either read as a
// PNG, SVG or PDF with at least one key, every key non-empty and unique, or are refused with a
// message.
#include <set>
#include <string>

#include "fuzz_check.h"
#include "io/figure_metadata_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pe;
  auto r = ParseFigureMetadata(fuzz::Bytes(data, size));
  if (!r.ok()) {
    PE_FUZZ_CHECK(!r.message().empty());
    return 0;
  }
  PE_FUZZ_CHECK(!r.value().entries.empty());
  std::set<std::string> keys;
  size_t bytes = 0;
  for (const auto& [k, v] : r.value().entries) {
    PE_FUZZ_CHECK(!k.empty());
    PE_FUZZ_CHECK(keys.insert(k).second);
    bytes += k.size() + v.size();
  }
  PE_FUZZ_CHECK(bytes <= size);  // nothing is read that the input does not hold
  return 0;
}
