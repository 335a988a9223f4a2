// libFuzzer target for the config.json reader: what reads has one layer per layer of its shape,
// each with a width, a length and a window in range; what does not read has a message.
#include <cmath>
#include <string_view>

#include "arch/hf_config.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pe;
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  Result<ModelSchedule> r = ReadHfConfig(json, "fuzz", "fuzz.json");
  if (!r.ok()) {
    PE_FUZZ_CHECK(!r.message().empty());
    return 0;
  }
  const ModelSchedule& s = r.value();
  PE_FUZZ_CHECK(s.shape.layers >= 1);
  PE_FUZZ_CHECK(static_cast<int64_t>(s.layers.size()) == s.shape.layers);
  for (const LayerPosition& l : s.layers) {
    PE_FUZZ_CHECK(l.pe.d_model >= 1 && l.pe.max_len >= 1);
    PE_FUZZ_CHECK(l.window.size >= 0 && l.window.size <= kMaxAttentionWindow);
    PE_FUZZ_CHECK(std::isfinite(l.softmax_scale) && l.softmax_scale >= 0);
    if (l.pe.kind() == Scheme::kRope) {
      PE_FUZZ_CHECK(l.pe.rope().theta > 1 && l.pe.rope().factor >= 1);
    }
    if (l.pe.kind() == Scheme::kMrope) {
      const auto& a = *l.pe.mrope().section;
      PE_FUZZ_CHECK(a[0] + a[1] + a[2] == l.pe.d_model / 2);
    }
  }
  return 0;
}
