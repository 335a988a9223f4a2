// Speed of `export --view heatmap -o table.npy` against the file system's floor: writing the same
// bytes to a fresh file in the same folder with one large write() per 8 MiB block, from a buffer
// that is already faulted in (no fsync: the export does none either). Both run in every
// iteration, in alternating order, and the median per-iteration ratio is the counter x_write.
// The export goes through ExportView, the function `pe-explorer export` calls: the atomic
// writer's unnamed temporary, the table's fill and the link into place. Files go to
// $PE_BENCH_DIR (default /tmp) and are removed outside the timed part.
//   build/pe_bench --benchmark_filter=Export --benchmark_repetitions=5
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <streambuf>
#include <string>
#include <vector>

#include "encoding/encoding.h"
#include "io/file_writers.h"
#include "model/model_params.h"
#include "views/figure_export.h"
#include "views/view_tables.h"

namespace pe {
namespace {

using Clock = std::chrono::steady_clock;
using Ms = std::chrono::duration<double, std::milli>;

constexpr size_t kFloorBlockBytes = size_t{8} << 20;

std::string BenchDir() {
  const char* d = std::getenv("PE_BENCH_DIR");
  return d != nullptr && *d != '\0' ? d : "/tmp";
}

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// The floor: `bytes` to a new file, one write() per block of `block` (faulted in), then close.
// Returns false (and skips the benchmark) when the folder is not writable.
bool WriteFloorFile(const std::string& path, const std::vector<char>& block, size_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = true;
  for (size_t done = 0; done < bytes && ok;) {
    const size_t n = std::min(block.size(), bytes - done);
    const ssize_t k = ::write(fd, block.data(), n);
    ok = k > 0;
    if (ok) done += static_cast<size_t>(k);
  }
  return ::close(fd) == 0 && ok;
}

ModelParams ExportParams(const benchmark::State& state) {
  ModelParams m;
  m.pe.max_len = state.range(0);
  m.pe.d_model = state.range(1);
  return m;
}

// Each iteration: the floor file and the export of the (L, d) sinusoidal table as NPY through
// ExportView, in alternating order so neither always meets the other's writeback. The
// iteration's time is the export's. Counters: x_write, the median of export / floor;
// floor_ms and export_ms, their medians.
void BM_ExportNpy(benchmark::State& state) {
  const ModelParams m = ExportParams(state);
  const ViewSelection sel = DefaultViews(m);
  const int64_t shape[] = {m.pe.max_len, m.pe.d_model};
  const size_t bytes = NpyHeader(shape).size() +
                       static_cast<size_t>(m.pe.max_len) * static_cast<size_t>(m.pe.d_model) * 4;
  const std::string dir = BenchDir();
  const std::string floor_path = dir + "/pe_bench_floor.bin";
  const std::string export_path = dir + "/pe_bench_export.npy";
  std::vector<char> block(kFloorBlockBytes, 0x3f);  // written once: every page is faulted in
  std::vector<double> ratios, floor_ms, export_ms;
  int64_t k = 0;
  for (auto _ : state) {
    double took_floor = 0, took_export = 0;
    Status s;
    bool floor_ok = true;
    for (int step = 0; step < 2; ++step) {
      const bool floor_now = (step == 0) == (k % 2 == 0);
      const Clock::time_point t0 = Clock::now();
      if (floor_now) {
        floor_ok = WriteFloorFile(floor_path, block, bytes);
      } else {
        s = ExportView(ViewKind::kHeatmap, m, sel, export_path, {});
      }
      const double took = Ms(Clock::now() - t0).count();
      (floor_now ? took_floor : took_export) = took;
    }
    ::unlink(floor_path.c_str());
    ::unlink(export_path.c_str());
    if (!floor_ok || !s.ok()) {
      state.SkipWithError(!floor_ok ? "cannot write the floor file (set PE_BENCH_DIR)"
                                    : s.message().c_str());
      break;
    }
    state.SetIterationTime(took_export / 1000.0);
    ratios.push_back(took_export / took_floor);
    floor_ms.push_back(took_floor);
    export_ms.push_back(took_export);
    ++k;
  }
  if (ratios.empty()) return;
  state.counters["x_write"] = MedianOf(ratios);
  state.counters["floor_ms"] = MedianOf(floor_ms);
  state.counters["export_ms"] = MedianOf(export_ms);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

// A stream that drops what it is given: the table's fill and the writer's hand-over alone.
class NullBuf : public std::streambuf {
 protected:
  int_type overflow(int_type ch) override { return traits_type::not_eof(ch); }
  std::streamsize xsputn(const char* /*s*/, std::streamsize n) override { return n; }
};

// The same table written to a stream that drops it: what the fill costs without the file.
void BM_ExportNpyNoFile(benchmark::State& state) {
  const ModelParams m = ExportParams(state);
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  if (!e.ok()) {
    state.SkipWithError(e.message().c_str());
    return;
  }
  for (auto _ : state) {
    NullBuf sink;
    std::ostream out(&sink);
    Status s = WriteHeatmapTable(out, TableFormat::kNpy, *e.value(), m.cap);
    if (!s.ok()) {
      state.SkipWithError(s.message().c_str());
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0) *
                          state.range(1) * 4);
}

}  // namespace

BENCHMARK(BM_ExportNpy)
    ->Args({131072, 1024})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(6);
BENCHMARK(BM_ExportNpyNoFile)->Args({131072, 1024})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace pe
