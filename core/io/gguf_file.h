// The bytes of a GGUF file (llama.cpp's model file, versions 2 and 3): its header, its metadata
// as a key -> typed value map, and its tensor infos, parsed from any ByteSource without reading
// the tensor data. What the values mean for positions is gguf_reader's business, not this one's.
//
// Layout (llama.cpp `ggml/src/gguf.cpp` `gguf_init_from_file_impl`, `docs/gguf.md`), all little
// endian: "GGUF", uint32 version, uint64 tensor_count, uint64 kv_count; kv_count pairs of (gguf
// string key, uint32 type, value); tensor_count infos of (gguf string name, uint32 n_dims,
// n_dims x uint64 dims, uint32 ggml type, uint64 offset); padding to `general.alignment` (32 when
// absent); the data section, each tensor at data_offset + offset. A gguf string is a uint64
// length and that many bytes; an array is a uint32 element type, a uint64 count and the values.
// Version 1 (uint32 counts and lengths) is refused.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"
#include "io/read_support.h"

namespace pe {

// The value types of gguf.md (`enum gguf_type`).
enum class GgufType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};
// "uint8" ... "float64", "bool", "string", "array"; "type N" for a number outside the list.
std::string GgufTypeName(uint32_t type);

// The longest string value kept whole; a longer one (a chat template, an embedded
// tokenizer.json) keeps its length only.
inline constexpr uint64_t kGgufMaxKeptString = 4096;
// The longest numeric array whose values are kept (per-layer counts, M-RoPE sections); a longer
// one (token scores, token types) keeps its count only. String arrays (the vocabulary, the
// merges) always keep their count only.
inline constexpr uint64_t kGgufMaxKeptArray = 65536;
// ggml's GGML_MAX_DIMS.
inline constexpr uint32_t kGgufMaxDims = 4;

struct GgufValue {
  GgufType type = GgufType::kUint8;
  // Scalars: an unsigned integer in `u`, a signed one in `i`, a float in `f` (a float32 as the
  // double it is exactly), a bool in `b`, a string in `s` (when no longer than
  // kGgufMaxKeptString; else empty with `string_length` set).
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  uint64_t string_length = 0;
  // Arrays: the element type and the count; the values as doubles (exact for every integer
  // below 2^53 and every float) when numeric or bool and count <= kGgufMaxKeptArray.
  GgufType element = GgufType::kUint8;
  uint64_t count = 0;
  std::vector<double> numbers;
  bool numbers_kept = false;
  // Where the array's values start in the file (after its element type and count), so a
  // reader that needs a long array (the vocabulary) can read it again: ReadGgufStrings,
  // ReadGgufNumbers.
  uint64_t values_offset = 0;
  uint64_t values_end = 0;  // and where they end

  bool is_integer() const;  // a scalar of one of the eight integer types
  bool is_number() const;   // an integer or a float scalar
  // The scalar as a number: integers as they are (an integer above 2^53 rounds), floats as
  // stored. Only for is_number() values.
  double AsDouble() const;
};

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // ggml order: dims[0] is the fastest-varying (the row length)
  uint32_t type = 0;           // ggml_type: 0 F32, 1 F16, 30 BF16, ...
  uint64_t offset = 0;         // from the start of the data section
};

struct GgufFile {
  uint32_t version = 0;
  uint64_t tensor_count = 0;
  std::vector<std::string> keys;  // in file order
  std::map<std::string, GgufValue> metadata;
  std::vector<GgufTensorInfo> tensors;  // in file order
  uint64_t alignment = 32;              // general.alignment
  uint64_t data_offset = 0;             // where the data section starts (aligned)
  uint64_t file_size = 0;               // the bytes the source has (a stream: those read)

  const GgufValue* Find(const std::string& key) const;
  const GgufTensorInfo* FindTensor(const std::string& name) const;
};

// Parses the header, the metadata and the tensor infos. `name` (the path, or a label) starts
// every error. Errors: a file that is not GGUF (magic), version 1 or above 3, a count that the
// bytes cannot hold (each pair and each info needs at least a few bytes), a string or an array
// running past the end, an unknown value type, a nested array, a duplicate key or tensor name,
// an alignment that is not a power of two, a tensor with more than 4 dims or an offset that is
// not aligned, and anything that would keep more than `cap` in memory. Each names the key or
// the tensor, the value and the byte offset. Never throws (bad_alloc included).
Result<GgufFile> ParseGguf(ByteSource& source, const std::string& name, const MemoryCap& cap);

// The values of a small F32 or F16 tensor of `file` (F16 converted exactly), read from the
// source (ReadAt for a mapped file, so a file truncated since it was opened is an error, not a
// fault). Errors: another type, a tensor whose bytes run past the end, or more than `max_values`
// values.
Result<std::vector<float>> ReadGgufFloatTensor(ByteSource& source, const GgufFile& file,
                                               const GgufTensorInfo& tensor,
                                               const std::string& name, uint64_t max_values);

// The strings of a string array `value` (of key `key`), read again from the source. Errors: not
// a string array, a string running past the end, or more than `cap` in memory.
Result<std::vector<std::string>> ReadGgufStrings(ByteSource& source, const GgufValue& value,
                                                 const std::string& key, const std::string& name,
                                                 const MemoryCap& cap);
// The values of a numeric or bool array `value` as doubles (exact for every float32 and every
// integer below 2^53), read again from the source when ParseGguf did not keep them.
Result<std::vector<double>> ReadGgufNumbers(ByteSource& source, const GgufValue& value,
                                            const std::string& key, const std::string& name,
                                            const MemoryCap& cap);

// A printable, bounded form of a key or a name for messages: bytes outside printable ASCII as
// \xNN, at most 80 characters (then "...").
std::string GgufPrintable(std::string_view text);

}  // namespace pe
