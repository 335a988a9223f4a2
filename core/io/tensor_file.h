// One tensor from a file, named as a user names it on the command line: "table.npy",
// "model.safetensors:wpe.weight" (the part after the last ':' names the tensor when the part
// before it is an existing file, so a path holding ':' still works). The format comes from the
// file's first bytes (NPY magic, or a safetensors header length followed by '{'), not its name.
// Every message starts with the quoted path.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"
#include "io/read_support.h"

namespace pe {

struct TensorSpec {
  std::string path;
  std::string tensor;  // empty: the file's only tensor (an NPY file always has one)
};

// Splits "FILE[:TENSOR]". An empty text, or an empty path, is refused.
Result<TensorSpec> ParseTensorSpec(std::string_view text);
// "FILE" or "FILE:TENSOR", as ParseTensorSpec reads it back.
std::string TensorSpecText(const TensorSpec& spec);

enum class TensorFileFormat { kNpy, kSafetensors };

struct LoadedTensor {
  TensorFileFormat format = TensorFileFormat::kNpy;
  std::string tensor;  // the tensor's name in a safetensors file; empty for NPY
  std::string dtype;   // as the file says: "<f4", "BF16" ...
  FloatTensor values;  // float32, C order
};

// Reads the tensor `spec` names, under `cap`. A safetensors file with several tensors and no
// name given is refused with the list of its readable tensors (the first 20 and a count).
Result<LoadedTensor> ReadTensorFile(const TensorSpec& spec, const MemoryCap& cap = {});
// The same from a file already open, whose first bytes a stream may already have given (they
// stay in its buffer): a pipe is read once, from its first byte. `spec.path` names it.
Result<LoadedTensor> ReadTensorSource(std::unique_ptr<FileSource> source, const TensorSpec& spec,
                                      const MemoryCap& cap = {});
// The format from the first 9 bytes of `source` (NPY magic, or a safetensors header length
// then '{'); an empty file, or neither, is refused naming `path`.
Result<TensorFileFormat> SniffTensorFormat(ByteSource& source, const std::string& path);

// The names of the tensors of a file that ReadTensorFile can read ("" alone for an NPY file),
// with their shapes as "(rows, cols)"; for a picker in the window.
struct TensorListing {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  bool readable = false;
};
Result<std::vector<TensorListing>> ListTensorFile(const std::string& path,
                                                  const MemoryCap& cap = {});

}  // namespace pe
