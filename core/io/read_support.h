// What the file readers (npy_reader, safetensors_reader, word_vectors_reader) share: where their
// bytes come from (a span, a memory-mapped file, or a pipe or device read only as far as a
// parser asks), the float32 tensor they return, and the exact conversions from float16,
// bfloat16 and float64. Not a general I/O layer: nothing here writes.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
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

// A file opened for reading. A regular file is memory-mapped read-only (pages are read when a
// reader touches them; a file truncated by someone else while mapped is undefined behaviour,
// as for any mmap reader). Pipes and character devices (/dev/zero, /dev/stdin) are read on
// demand into a buffer, never beyond `stream_limit` bytes, so a device without end cannot
// make a reader hang or exhaust memory. Directories, sockets and block devices are refused.
// Errors name the path and the system's reason.
class FileSource final : public ByteSource {
 public:
  static Result<std::unique_ptr<FileSource>> Open(const std::string& path, uint64_t stream_limit);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  Result<std::span<const std::byte>> Prefix(uint64_t n) override;
  std::optional<uint64_t> KnownSize() const override;
  const std::string& path() const { return path_; }

 private:
  FileSource() = default;
  std::string path_;
  int fd_ = -1;
  bool mapped_ = false;
  const std::byte* map_ = nullptr;  // (map_size_,) when mapped_
  uint64_t map_size_ = 0;
  std::vector<std::byte> buffer_;  // what a stream gave so far
  bool eof_ = false;
  uint64_t stream_limit_ = 0;
};

// Sets `t.nan_count` and `t.inf_count` from its values (overflow_count is left alone).
void CountNonFinite(FloatTensor& t);

// "\"path\"" for messages.
std::string Quoted(const std::string& path);

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
