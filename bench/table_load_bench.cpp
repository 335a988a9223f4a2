// Loading a model's tables (io/loaded_table.h), timed once per case on generated files in /tmp
// (never in the repository; removed at the end):
//   1. a GloVe-like text file ("w123 v1 ... v300", values like -0.123456) of --glove-mib MiB
//      (default 1024), parsed on 1 and 2 threads, and by the serial reader on a 1/8 slice;
//   2. an NPY float32 file of --npy-mib MiB (default 2048) and a 2 MiB one: the header open
//      (mmap, size-independent), the one pass that hashes and counts NaN/Inf, and the first
//      heatmap (a learned-scheme encoding of 100 rows rastered to 960 x 540).
// Run: build/table_load_bench [--glove-mib N] [--npy-mib N] [--keep]
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "encoding/encoding.h"
#include "io/loaded_table.h"
#include "io/npy_reader.h"
#include "io/word_vectors_reader.h"
#include "model/param_fields.h"
#include "views/heatmap_raster.h"

namespace pe {
namespace {

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Writes rows "w<k> v1 ... v300\n" until `bytes`; values are 6-decimal numbers in (-1, 1).
uint64_t WriteGlove(const std::string& path, uint64_t bytes, int d) {
  std::ofstream out(path, std::ios::binary);
  std::vector<char> buf;
  buf.reserve(1 << 22);
  uint64_t x = 88172645463325252ull, written = 0;
  for (int64_t row = 0; written < bytes; ++row) {
    std::string word(1, 'w');
    word += std::to_string(row);
    buf.insert(buf.end(), word.begin(), word.end());
    for (int k = 0; k < d; ++k) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      buf.push_back(' ');
      if (x & 1) buf.push_back('-');
      buf.push_back('0');
      buf.push_back('.');
      uint64_t v = (x >> 8) % 1000000;
      char digits[6];
      for (int j = 5; j >= 0; --j, v /= 10) digits[j] = static_cast<char>('0' + v % 10);
      buf.insert(buf.end(), digits, digits + 6);
    }
    buf.push_back('\n');
    if (buf.size() > (1 << 22) - 4096) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      written += buf.size();
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  return written + buf.size();
}

void WriteNpy(const std::string& path, int64_t rows, int64_t cols) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) +
                     ", " + std::to_string(cols) + "), }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::ofstream out(path, std::ios::binary);
  out << "\x93NUMPY" << '\x01' << '\x00' << static_cast<char>(dict.size() & 0xff)
      << static_cast<char>(dict.size() >> 8) << dict;
  std::vector<float> row(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c)
      row[static_cast<size_t>(c)] = static_cast<float>((r * 31 + c) % 1000) * 1e-3f - 0.5f;
    out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(cols * 4));
  }
}

void BenchNpy(const std::string& path, int64_t rows, int64_t cols) {
  WriteNpy(path, rows, cols);
  const double mib = static_cast<double>(rows * cols * 4) / (1 << 20);
  std::system("sync");
  MemoryCap cap{uint64_t{64} << 30};
  // The header open alone: mmap and parse, as the loader starts.
  auto t0 = std::chrono::steady_clock::now();
  auto source = FileSource::Open(path, cap.bytes);
  auto header = ReadNpyHeader(*source.value(), cap);
  const double open_s = Seconds(t0);
  if (!header.ok()) std::printf("header: %s\n", header.message().c_str());
  // The loader: header, then one pass hashing and counting NaN/Inf.
  t0 = std::chrono::steady_clock::now();
  Result<LoadedTablePtr> t = LoadTable({path, ""}, TableUse::kPositions, cap);
  const double load_s = Seconds(t0);
  if (!t.ok()) {
    std::printf("load: %s\n", t.message().c_str());
    return;
  }
  // The first heatmap: the learned scheme showing rows 0..99, rastered to 960 x 540.
  t0 = std::chrono::steady_clock::now();
  EncodingParams p;
  p.scheme = LearnedParams{};
  p.d_model = cols;
  p.max_len = 100;
  p.learned().table = {path, t.value()->hash(), t.value(), std::nullopt};
  Result<EncodingPtr> e = MakeEncoding(p, cap);
  RasterRequest req{e.value(), 0, static_cast<double>(cols), 0, 100, 960, 540};
  const Raster r = ComputeRaster(req);
  const double heat_s = Seconds(t0);
  std::printf(
      "npy %8.1f MiB (%lld x %lld f4): header open %.3f ms, load (hash + NaN count) "
      "%.0f ms = %.2f GB/s, first heatmap %.2f ms (%dx%d)\n",
      mib, static_cast<long long>(rows), static_cast<long long>(cols), open_s * 1e3, load_s * 1e3,
      static_cast<double>(rows * cols * 4) / load_s / 1e9, heat_s * 1e3, r.width, r.height);
  std::remove(path.c_str());
}

int Main(int argc, char** argv) {
  uint64_t glove_mib = 1024, npy_mib = 2048;
  for (int k = 1; k + 1 < argc; k += 2) {
    if (std::strcmp(argv[k], "--glove-mib") == 0)
      glove_mib = std::strtoull(argv[k + 1], nullptr, 10);
    if (std::strcmp(argv[k], "--npy-mib") == 0) npy_mib = std::strtoull(argv[k + 1], nullptr, 10);
  }
  const std::string glove = "/tmp/pe_bench_glove.txt";
  auto t0 = std::chrono::steady_clock::now();
  const uint64_t bytes = WriteGlove(glove, glove_mib << 20, 300);
  std::printf("generated %s: %.1f MiB in %.1f s\n", glove.c_str(),
              static_cast<double>(bytes) / (1 << 20), Seconds(t0));
  {
    // The floor under the same load: std::from_chars alone over the first 64 MiB of the file's
    // values on one thread (words skipped), to compare the parser's MB/s with.
    std::ifstream in(glove, std::ios::binary);
    std::string head(64 << 20, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    const char* p = head.data();
    const char* e = p + in.gcount();
    float acc = 0;
    t0 = std::chrono::steady_clock::now();
    while (p < e) {
      float v = 0;
      auto r = std::from_chars(p, e, v);
      if (r.ec == std::errc()) acc += v, p = r.ptr;
      while (p < e && *p != ' ' && *p != '\n' && r.ec != std::errc()) ++p;
      ++p;
    }
    const double s = Seconds(t0);
    std::printf("floor: std::from_chars alone, 1 thread, 64 MiB: %.0f MB/s (%g)\n",
                static_cast<double>(e - head.data()) / s / 1e6, static_cast<double>(acc));
  }
  MemoryCap cap{uint64_t{16} << 30};
  // Once untimed so both timed runs read from the page cache.
  (void)LoadTable({glove, ""}, TableUse::kEmbeddings, cap, {}, 2);
  for (int threads : {1, 2}) {
    t0 = std::chrono::steady_clock::now();
    Result<LoadedTablePtr> t = LoadTable({glove, ""}, TableUse::kEmbeddings, cap, {}, threads);
    const double s = Seconds(t0);
    if (!t.ok()) {
      std::printf("glove: %s\n", t.message().c_str());
      break;
    }
    std::printf("glove %d thread%s: %lld words x %lld in %.2f s = %.0f MB/s (hash %s)\n", threads,
                threads == 1 ? " " : "s", static_cast<long long>(t.value()->rows()),
                static_cast<long long>(t.value()->cols()), s, static_cast<double>(bytes) / s / 1e6,
                HashText(t.value()->hash()).c_str());
  }
  {
    // The serial reader on the first eighth of the file, for comparison.
    const std::string slice = "/tmp/pe_bench_glove_slice.txt";
    const uint64_t slice_bytes = WriteGlove(slice, (glove_mib << 20) / 8, 300);
    t0 = std::chrono::steady_clock::now();
    Result<WordVectors> w = ReadWordVectorsFile(slice, WordVectorFormat::kAuto, cap);
    const double s = Seconds(t0);
    std::printf("serial reader (ReadWordVectorsFile) on %.0f MiB: %.2f s = %.0f MB/s\n",
                static_cast<double>(slice_bytes) / (1 << 20), s,
                static_cast<double>(slice_bytes) / s / 1e6);
    std::remove(slice.c_str());
  }
  std::remove(glove.c_str());
  BenchNpy("/tmp/pe_bench_small.npy", 512, 1024);
  BenchNpy("/tmp/pe_bench_big.npy", static_cast<int64_t>((npy_mib << 20) / 4096), 1024);
  return 0;
}

}  // namespace
}  // namespace pe

int main(int argc, char** argv) {
  return pe::Main(argc, argv);
}
