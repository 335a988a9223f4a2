// Lists and reads the tensors of a .safetensors file (Hugging Face's format): an 8-byte
// little-endian header length N, N bytes of JSON (tensor name -> {"dtype", "shape",
// "data_offsets": [begin, end]}, optionally "__metadata__": {string: string}), then the data,
// little-endian, offsets relative to byte 8 + N. Reading converts F64 (rounded to nearest),
// F32 (bit for bit), F16 and BF16 (exact) to a float32 tensor; other dtypes are listed but not
// read.
//
// Validation follows the reference implementation (huggingface/safetensors,
// safetensors/src/tensor.rs, Metadata::validate): the header is at most 100,000,000 bytes and
// starts with '{'; sorted by their offsets the tensors tile the data with no gap and no
// overlap, each spans exactly product(shape) * item size bytes, and the last ends where the
// file ends. Stricter than the reference: duplicate keys and unknown fields are refused.
// Every refusal names the byte offset (or the tensor and its byte range) and what was
// expected. JSON is parsed by nlohmann-json; nothing throws across this API.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"
#include "io/read_support.h"

namespace pe {

// One tensor as the header describes it.
struct SafetensorsTensorInfo {
  std::string name;
  std::string dtype;           // as written: "F32", "BF16", "I64" ...
  int item_bytes = 0;          // bytes per value (1 for BOOL, U8, I8, F8_*)
  bool readable = false;       // F64, F32, F16 or BF16: ReadSafetensor converts it
  std::vector<int64_t> shape;  // any rank; [] is a scalar
  uint64_t begin = 0;          // data_offsets, relative to the data section
  uint64_t end = 0;
};

// What a header holds, tensors sorted by their data offsets.
struct SafetensorsIndex {
  uint64_t header_bytes = 0;  // N
  uint64_t data_offset = 0;   // 8 + N: where the data section starts in the file
  std::vector<SafetensorsTensorInfo> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;  // "__metadata__", sorted by key
  const SafetensorsTensorInfo* Find(const std::string& name) const;
};

// Parses and validates the header against the whole of `source` (a stream is read to the end
// of the last tensor and one byte more, never further). `cap` bounds the header, and for a
// stream the data it must hold.
Result<SafetensorsIndex> ReadSafetensorsIndex(ByteSource& source, const MemoryCap& cap = {});
Result<SafetensorsIndex> ReadSafetensorsIndex(std::span<const std::byte> bytes,
                                              const MemoryCap& cap = {});

// Reads the tensor `name` from the file bytes `bytes` described by `index`, as float32 in C
// order; its shape is checked against `cap` before anything is allocated.
Result<FloatTensor> ReadSafetensor(std::span<const std::byte> bytes, const SafetensorsIndex& index,
                                   const std::string& name, const MemoryCap& cap = {});
// The same, parsing the header first.
Result<FloatTensor> ReadSafetensor(std::span<const std::byte> bytes, const std::string& name,
                                   const MemoryCap& cap = {});

// A .safetensors file on disk, memory-mapped: opening reads the header only (the data pages are
// touched when a tensor is read, and only that tensor's). A pipe or device is read into memory
// up to the end of the last tensor, under `cap`. Messages start with the quoted path.
class SafetensorsFile {
 public:
  static Result<SafetensorsFile> Open(const std::string& path, const MemoryCap& cap = {});
  // From a file already open (a stream's first bytes may be in its buffer already).
  static Result<SafetensorsFile> FromSource(std::unique_ptr<FileSource> source,
                                            const MemoryCap& cap = {});
  const SafetensorsIndex& index() const { return index_; }
  const std::vector<SafetensorsTensorInfo>& tensors() const { return index_.tensors; }
  Result<FloatTensor> Read(const std::string& name, const MemoryCap& cap = {}) const;

 private:
  std::string path_;
  std::unique_ptr<FileSource> source_;
  std::span<const std::byte> bytes_;  // the whole file, owned by source_
  SafetensorsIndex index_;
};

}  // namespace pe
