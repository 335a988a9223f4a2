// Which instruction set the vector kernels run on, chosen once at run time: the best the
// processor has, unless the environment (PE_SIMD=scalar|avx2|avx512|auto) or a caller (tests,
// benchmarks) forces one. A forced path the processor lacks falls back to the best path below
// it, with a message saying which feature is missing; nothing ever runs an instruction the
// processor does not have. Thread-safe: kernels read the path with one atomic load.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pe {

// Ordered: each path needs everything the ones before it need (avx2: AVX2 and FMA; avx512:
// AVX-512 F, DQ and VL as well).
enum class SimdPath { kScalar, kAvx2, kAvx512 };
inline constexpr SimdPath kAllSimdPaths[] = {SimdPath::kScalar, SimdPath::kAvx2, SimdPath::kAvx512};

std::string_view SimdPathName(SimdPath path);  // "scalar", "avx2", "avx512"
// "scalar", "avx2" or "avx512" (any case); nullopt otherwise.
std::optional<SimdPath> ParseSimdPath(std::string_view name);

// The processor features `path` needs that this processor lacks, in words ("AVX-512 (avx512f,
// avx512dq, avx512vl)"); empty when it has them all. kScalar needs nothing.
std::string MissingSimdFeatures(SimdPath path);
bool CpuHasSimdPath(SimdPath path);
SimdPath BestSimdPath();  // the best path this processor has

// A request resolved against this processor: the path that will run and, when it is not the
// one asked for, why ("PE_SIMD=avx512: this processor lacks AVX-512 (...); using avx2").
struct SimdChoice {
  SimdPath path = SimdPath::kScalar;
  std::string note;  // empty when the request was taken as it is
};
// `wanted`, or the best path below it the processor has. `source` names the request in the note.
SimdChoice ResolveSimdPath(SimdPath wanted, std::string_view source = "the requested path");
// The value of PE_SIMD: null, empty or "auto" is the best path; an unknown value is the best
// path with a note naming the allowed values.
SimdChoice SimdPathFromEnvironment(const char* value);

// The path the kernels take now: the forced one, else PE_SIMD's (read once; its note, if any,
// goes to stderr once), else the best.
SimdPath ActiveSimdPath();
// Forces the kernels onto `wanted` (or the best path below it the processor has) until
// ClearForcedSimdPath; returns what runs and why it differs from `wanted`, if it does.
SimdChoice ForceSimdPath(SimdPath wanted);
void ClearForcedSimdPath();  // back to PE_SIMD or the best path

}  // namespace pe
