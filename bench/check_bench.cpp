// `check` on a long table (analysis/check.h): a Llama 3.1 RoPE cos table of 131072 x 128
// (theta 500000, llama3 factor 8, original 8192), made by the engine, identified without an
// intent, checked against its own parameters as the intent, and with one cell changed (the
// diagnosis path: two searches and the worst cells). Each case timed once, best of three.
// Run on one core: taskset -c 0 build/check_bench
#include <algorithm>
#include <cstdio>
#include <ctime>

#include "analysis/check.h"
#include "encoding/encoding.h"

namespace pe {
namespace {

// The process's CPU time: the machine may be shared, and the check runs on one thread.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int Run() {
  EncodingParams p;
  p.d_model = 128;
  p.max_len = 131072;
  RopeParams r;
  r.theta = 500000;
  r.scaling = RopeScaling::kLlama3;
  r.factor = 8;
  r.original_max_len = 8192;
  p.scheme = r;
  Result<EncodingPtr> e = MakeEncoding(p);
  if (!e.ok()) return std::fprintf(stderr, "%s\n", e.message().c_str()), 1;
  Result<Matrix> table = ComputeTable(*e.value());
  if (!table.ok()) return std::fprintf(stderr, "%s\n", table.message().c_str()), 1;
  CheckConstraints intent;
  intent.intent = true;
  intent.fixed = p;
  intent.keys = {"scheme", "rope_theta", "rope_scaling", "scaling_factor", "original_max_len"};
  Matrix bad = table.value();
  bad.at(100000, 60) += 0.01f;
  struct Case {
    const char* name;
    const Matrix* table;
    const CheckConstraints* c;
  } cases[] = {{"identify (no intent)", &table.value(), nullptr},
               {"against the intent", &table.value(), &intent},
               {"one wrong cell, no intent", &bad, nullptr},
               {"one wrong cell, intent", &bad, &intent}};
  const CheckConstraints none;
  for (const Case& c : cases) {
    double best = 1e9;
    bool matches = false;
    size_t findings = 0;
    for (int k = 0; k < 3; ++k) {
      const double t0 = CpuSeconds();
      Result<CheckReport> rep = CheckTable(*c.table, c.c ? *c.c : none);
      best = std::min(best, CpuSeconds() - t0);
      if (!rep.ok()) return std::fprintf(stderr, "%s\n", rep.message().c_str()), 1;
      matches = rep.value().matches;
      findings = rep.value().diagnosis.size();
    }
    std::printf("%-28s 131072 x 128: %.3f s CPU (matches %d, %zu findings)\n", c.name, best,
                matches ? 1 : 0, findings);
  }
  return 0;
}

}  // namespace
}  // namespace pe

int main() {
  return pe::Run();
}
