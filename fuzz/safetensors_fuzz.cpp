// libFuzzer target for the safetensors reader: a header that validates describes tensors that
// tile the data exactly, and every float tensor it lists reads (or is refused by the cap).
#include <cmath>

#include "fuzz_check.h"
#include "io/safetensors_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pe;
  const MemoryCap cap{fuzz::kFuzzCapBytes};
  const auto bytes = fuzz::Bytes(data, size);
  auto index = ReadSafetensorsIndex(bytes, cap);
  if (!index.ok()) {
    PE_FUZZ_CHECK(!index.message().empty());
    return 0;
  }
  const SafetensorsIndex& ix = index.value();
  uint64_t next = 0;
  for (const SafetensorsTensorInfo& t : ix.tensors) {
    PE_FUZZ_CHECK(t.begin == next && t.end >= t.begin);
    next = t.end;
  }
  PE_FUZZ_CHECK(ix.data_offset == 8 + ix.header_bytes && ix.data_offset + next == size);
  int reads = 0;
  for (const SafetensorsTensorInfo& t : ix.tensors) {
    if (++reads > 16) break;
    auto r = ReadSafetensor(bytes, ix, t.name, cap);
    if (!t.readable) {
      PE_FUZZ_CHECK(!r.ok());
      continue;
    }
    // The tensor's bytes are in the file, so only the cap may refuse it (4 bytes per value).
    const uint64_t values = (t.end - t.begin) / static_cast<uint64_t>(t.item_bytes);
    PE_FUZZ_CHECK(r.ok() == (values * 4 <= cap.bytes));
    if (!r.ok()) continue;
    PE_FUZZ_CHECK(r.value().data.size() == values && r.value().shape == t.shape);
    int64_t nan = 0;
    for (float v : r.value().data) nan += std::isnan(v) ? 1 : 0;
    PE_FUZZ_CHECK(nan == r.value().nan_count);
  }
  return 0;
}
