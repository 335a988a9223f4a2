// What every fuzz target shares: the bytes as a span, and a check that stops the fuzzer (a
// crash it reports with the input) when a reader breaks one of its own promises.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>

namespace pe::fuzz {

inline std::span<const std::byte> Bytes(const uint8_t* data, size_t size) {
  return std::as_bytes(std::span<const uint8_t>(data, size));
}

#define PE_FUZZ_CHECK(cond)                                                           \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #cond); \
      __builtin_trap();                                                               \
    }                                                                                 \
  } while (0)

// The cap the targets read under: large enough for any input libFuzzer makes, small enough
// that a header's claim is refused rather than allocated.
constexpr uint64_t kFuzzCapBytes = uint64_t{64} << 20;

}  // namespace pe::fuzz
