// What the file readers (npy_reader, safetensors_reader, word_vectors_reader) share: where their
// bytes come from (a span, a memory-mapped file, or a pipe or device read only as far as a
// parser asks), the float32 tensor they return, and the exact conversions from float16,
// bfloat16 and float64. Not a general I/O layer: nothing here writes.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"

namespace pe {

// A float32 tensor in C (row-major) order, as the readers return it.
struct FloatTensor {
  std::vector<int64_t> shape;  // any rank; empty = a scalar (one value)
  std::vector<float> data;     // product(shape) values, C order
  int64_t nan_count = 0;       // NaN values loaded as they are
  int64_t inf_count = 0;       // +-Inf values loaded as they are, including overflow_count
  int64_t overflow_count = 0;  // finite float64 values beyond float32's range, now +-Inf
  bool has_non_finite() const { return nan_count != 0 || inf_count != 0; }
};

// The bytes a reader parses. Readers ask for a prefix as long as they need; a span or a mapped
// file has every byte at once, a stream (pipe, character device) is read up to what is asked.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // The first min(n, size) bytes. Fewer than n only when the source ends first. The span stays
  // valid until the next call. Errors: an I/O failure, or a stream that would need more than
  // its limit in memory (the message names the limit).
  virtual Result<std::span<const std::byte>> Prefix(uint64_t n) = 0;
  // The total size when known without reading (a span, a regular file), else nullopt.
  virtual std::optional<uint64_t> KnownSize() const = 0;
};

// Bytes already in memory; the caller keeps them alive.
class SpanSource final : public ByteSource {
 public:
  explicit SpanSource(std::span<const std::byte> bytes) : bytes_(bytes) {}
  Result<std::span<const std::byte>> Prefix(uint64_t n) override;
  std::optional<uint64_t> KnownSize() const override { return bytes_.size(); }

 private:
  std::span<const std::byte> bytes_;
};

// A file opened for reading. A regular file is memory-mapped read-only; a prefix of up to
// kCopiedPrefixBytes (a header) is copied with pread instead, and ReadAt reads any range the
// same way, so neither can fault on a file truncated since it was opened (a reader that
// walks a large mapping can: LoadedTable copies what it keeps through ReadAt). Pipes,
// character devices (/dev/zero, /dev/stdin) and regular files whose size reads as 0 (an
// empty file, /proc/self/environ) are read on demand into a buffer, never beyond
// `stream_limit` bytes, so a device without end cannot make a reader hang or exhaust memory.
// Directories, sockets and block devices are refused. Errors name the path and the system's
// reason.
class FileSource final : public ByteSource {
 public:
  static constexpr uint64_t kCopiedPrefixBytes = uint64_t{16} << 20;
  static Result<std::unique_ptr<FileSource>> Open(const std::string& path, uint64_t stream_limit);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  Result<std::span<const std::byte>> Prefix(uint64_t n) override;
  std::optional<uint64_t> KnownSize() const override;
  const std::string& path() const { return path_; }
  void set_stream_limit(uint64_t limit) { stream_limit_ = limit; }
  // A mapped file only: `out.size()` bytes from `offset`, read with pread. A file that ends
  // first (truncated since it was opened) or cannot supply a page is an error, not a fault.
  Status ReadAt(uint64_t offset, std::span<std::byte> out) const;
  // A mapped file only: an error when its size or modification time is no longer what it was
  // when opened.
  Status CheckUnchanged() const;

 private:
  FileSource() = default;
  // Reads into buffer_ from byte `have` (what it holds so far) until it holds `until` bytes or
  // the file ends (then eof_), each read asking for the rest of buffer_; buffer_ ends resized to
  // the bytes read. pread at the byte's offset for a mapped file's copied prefix, read for a
  // stream.
  Status FillBuffer(size_t have, size_t until);
  std::string path_;
  int fd_ = -1;
  bool mapped_ = false;
  const std::byte* map_ = nullptr;  // (map_size_,) when mapped_
  uint64_t map_size_ = 0;
  int64_t mtime_ns_ = 0;           // when opened (a mapped file)
  std::vector<std::byte> buffer_;  // what a stream gave so far, or a mapped file's copied prefix
  bool eof_ = false;
  uint64_t stream_limit_ = 0;
};

// Sets `t.nan_count` and `t.inf_count` from its values (overflow_count is left alone).
void CountNonFinite(FloatTensor& t);

// "\"path\"" for messages.
std::string Quoted(const std::string& path);

// Runs a reader `f` (returning a Result or Status) and turns an exception it lets out into an
// error naming `path`: bad_alloc when the cap is more than the memory there is, length_error
// and the like from a library. Readers call this at their public boundary so nothing throws
// across core's API.
template <class F>
auto CatchReaderExceptions(const std::string& path, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return RuntimeError(Quoted(path) +
                        ": out of memory while reading it (lower --memory-cap-mib to have such "
                        "files refused before they are read)");
  } catch (const std::exception& e) {
    return RuntimeError(Quoted(path) + ": cannot be read (" + e.what() + ")");
  }
}

// What a file of mode `mode` (stat's st_mode) is, for messages: "a directory", "a FIFO",
// "a character device", "a block device", "a socket", "a regular file".
const char* FileKindName(unsigned mode);

// A file opened read-only without waiting for a FIFO's writer (O_NONBLOCK) and stat'ed through
// what was opened, so a path swapped for a FIFO after a stat cannot hold a read. Move-only; the
// descriptor closes with it. Callers word their own messages from `failure`, `error` and `mode`.
class RegularFileReader {
 public:
  enum class Failure {
    kNone,        // a regular file: fd() reads it (blocking reads are not needed on one)
    kCannotRead,  // open or fstat failed with errno `error()`
    kNotRegular,  // opened, but `mode()` is a directory, FIFO, device or socket
  };
  // Opens `path`; check failure() before reading.
  static RegularFileReader Open(const std::string& path);
  RegularFileReader(RegularFileReader&& other) noexcept;
  RegularFileReader& operator=(RegularFileReader&&) = delete;
  RegularFileReader(const RegularFileReader&) = delete;
  RegularFileReader& operator=(const RegularFileReader&) = delete;
  ~RegularFileReader();

  Failure failure() const { return failure_; }
  int error() const { return error_; }
  unsigned mode() const { return mode_; }
  uint64_t size() const { return size_; }  // its size when opened
  int fd() const { return fd_; }

 private:
  RegularFileReader() = default;
  int fd_ = -1;
  Failure failure_ = Failure::kNone;
  int error_ = 0;
  unsigned mode_ = 0;
  uint64_t size_ = 0;
};

// `size * factor`, or UINT64_MAX when the product does not fit: size checks against a cap
// stay right for sizes near 2^63 (a sparse file can claim any size).
inline uint64_t SaturatingMul(uint64_t size, uint64_t factor) {
  uint64_t out = 0;
  return __builtin_mul_overflow(size, factor, &out) ? UINT64_MAX : out;
}

// `a + b`, or UINT64_MAX when the sum does not fit.
inline uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  uint64_t out = 0;
  return __builtin_add_overflow(a, b, &out) ? UINT64_MAX : out;
}

// `e` with its message starting "\"path\": " (unless it already starts with the quoted path).
Error WithPath(Error e, const std::string& path);

// IEEE 754 binary16 bits -> float32, exact (every half value is a float32 value).
float HalfToFloat(uint16_t bits);
// bfloat16 bits (the top half of a float32) -> float32, exact.
inline float BFloat16ToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

// True when `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF); otherwise false with `bad` at the offset of the first bad byte.
bool IsValidUtf8(std::span<const std::byte> s, size_t* bad);

// "(3, 4)" for a shape; "()" for a scalar.
std::string FormatShape(std::span<const int64_t> shape);

// The number of values of `shape` when it fits in uint64, else nullopt.
std::optional<uint64_t> ShapeCount(std::span<const int64_t> shape);

// Refuses a float32 tensor of `shape` whose values would not fit under `cap`, before anything
// is allocated: "shape (4611686018427387904, 2) needs more than 16 EiB as float32, over the
// memory cap of 2.0 GiB ...".
Status CheckTensorCap(std::span<const int64_t> shape, const MemoryCap& cap);

}  // namespace pe
