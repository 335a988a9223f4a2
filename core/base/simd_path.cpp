#include "base/simd_path.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace pe {

std::string_view SimdPathName(SimdPath path) {
  switch (path) {
    case SimdPath::kScalar:
      return "scalar";
    case SimdPath::kAvx2:
      return "avx2";
    case SimdPath::kAvx512:
      return "avx512";
  }
  return "?";
}

namespace {
std::string Lower(std::string_view s) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}
}  // namespace

std::optional<SimdPath> ParseSimdPath(std::string_view name) {
  const std::string lower = Lower(name);
  for (SimdPath p : kAllSimdPaths) {
    if (lower == SimdPathName(p)) return p;
  }
  return std::nullopt;
}

std::string MissingSimdFeatures(SimdPath path) {
#if defined(__x86_64__) || defined(__i386__)
  switch (path) {
    case SimdPath::kScalar:
      return {};
    case SimdPath::kAvx2:
      // The wave sums' kernels use fused multiply-adds (every AVX2 processor has them).
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                 ? std::string()
                 : std::string("AVX2 with FMA (avx2, fma)");
    case SimdPath::kAvx512:
      // 64-bit lane multiplies (vpmullq, DQ) and 256-bit masked forms (VL) on top of F.
      if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
          __builtin_cpu_supports("avx512vl")) {
        return {};
      }
      return "AVX-512 (avx512f, avx512dq, avx512vl)";
  }
  return {};
#else
  switch (path) {
    case SimdPath::kScalar:
      return {};
    case SimdPath::kAvx2:
      return "AVX2 (an x86-64 processor)";
    case SimdPath::kAvx512:
      return "AVX-512 (an x86-64 processor)";
  }
  return {};
#endif
}

bool CpuHasSimdPath(SimdPath path) {
  return MissingSimdFeatures(path).empty();
}

SimdPath BestSimdPath() {
  for (SimdPath p : {SimdPath::kAvx512, SimdPath::kAvx2}) {
    if (CpuHasSimdPath(p)) return p;
  }
  return SimdPath::kScalar;
}

SimdChoice ResolveSimdPath(SimdPath wanted, std::string_view source) {
  SimdChoice choice{wanted, {}};
  while (!CpuHasSimdPath(choice.path)) {
    choice.path = static_cast<SimdPath>(static_cast<int>(choice.path) - 1);
  }
  if (choice.path != wanted) {
    choice.note.append(source);
    choice.note.append(": this processor lacks ");
    choice.note.append(MissingSimdFeatures(wanted));
    choice.note.append("; using ");
    choice.note.append(SimdPathName(choice.path));
  }
  return choice;
}

SimdChoice SimdPathFromEnvironment(const char* value) {
  const std::string_view v = value == nullptr ? std::string_view() : std::string_view(value);
  std::string source = "PE_SIMD=";
  source.append(v);
  if (const std::optional<SimdPath> p = ParseSimdPath(v)) return ResolveSimdPath(*p, source);
  SimdChoice best{BestSimdPath(), {}};
  if (!v.empty() && Lower(v) != "auto") {
    best.note = source;
    best.note.append(": expected scalar, avx2, avx512 or auto; using ");
    best.note.append(SimdPathName(best.path));
  }
  return best;
}

namespace {

constexpr int kNotForced = -1;
std::atomic<int> forced_path{kNotForced};

SimdPath EnvironmentPath() {
  // Read once per process: the variable is the user's choice for the whole run.
  static const SimdPath path = [] {
    const SimdChoice c = SimdPathFromEnvironment(std::getenv("PE_SIMD"));
    if (!c.note.empty()) std::fprintf(stderr, "%s\n", c.note.c_str());
    return c.path;
  }();
  return path;
}

}  // namespace

SimdPath ActiveSimdPath() {
  const int forced = forced_path.load(std::memory_order_relaxed);
  return forced == kNotForced ? EnvironmentPath() : static_cast<SimdPath>(forced);
}

SimdChoice ForceSimdPath(SimdPath wanted) {
  std::string source = "forcing ";
  source.append(SimdPathName(wanted));
  SimdChoice c = ResolveSimdPath(wanted, source);
  forced_path.store(static_cast<int>(c.path), std::memory_order_relaxed);
  return c;
}

void ClearForcedSimdPath() {
  forced_path.store(kNotForced, std::memory_order_relaxed);
}

}  // namespace pe
