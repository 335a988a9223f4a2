// libFuzzer target for the NPY reader: any bytes either read as an array that keeps the
// header's promises or are refused with a message naming a byte offset.
#include <cmath>

#include "fuzz_check.h"
#include "io/npy_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pe;
  const MemoryCap cap{fuzz::kFuzzCapBytes};
  auto r = ReadNpy(fuzz::Bytes(data, size), cap);
  if (!r.ok()) {
    PE_FUZZ_CHECK(r.message().rfind("byte ", 0) == 0);
    return 0;
  }
  const NpyHeaderInfo& h = r.value().header;
  const FloatTensor& t = r.value().tensor;
  PE_FUZZ_CHECK(h.shape.size() >= 1 && h.shape.size() <= 3);
  PE_FUZZ_CHECK(t.shape == h.shape);
  const std::optional<uint64_t> count = ShapeCount(t.shape);
  PE_FUZZ_CHECK(count && *count == t.data.size());
  PE_FUZZ_CHECK(h.data_offset + h.data_bytes == size);
  int64_t nan = 0, inf = 0;
  for (float v : t.data) {
    nan += std::isnan(v) ? 1 : 0;
    inf += std::isinf(v) ? 1 : 0;
  }
  PE_FUZZ_CHECK(nan == t.nan_count && inf == t.inf_count && t.overflow_count <= inf);
  return 0;
}
