// Reads NumPy .npy files of floating-point arrays into float32 tensors: format versions 1.0,
// 2.0 and 3.0; float16, float32 and float64 in either byte order ('<f2', '>f4', '<f8' ...);
// C or Fortran order; 1, 2 or 3 dimensions. Not a general NPY reader: integer, complex,
// structured and object arrays, and 0-D or 4-D+ arrays, are refused with a message.
//
// The format is NEP 1 / numpy/lib/format.py: the magic "\x93NUMPY", two version bytes, the
// header length (uint16 little-endian for 1.0, uint32 for 2.0 and 3.0), then the header: a
// Python dict literal with exactly the keys 'descr', 'fortran_order' and 'shape', padded with
// spaces and ended by '\n' (latin-1 text for 1.0 and 2.0, UTF-8 for 3.0), then the data.
// numpy evaluates that literal with ast.literal_eval; this reader parses the subset numpy
// writes, strictly: either quote style, any whitespace between tokens, keys in any order, a
// trailing comma, Python 2's "3L" long suffix (numpy's _filter_header accepts it). Every
// refusal names the byte offset and what was expected there.
//
// Conversions: float16 -> float32 exact; float32 kept bit for bit; float64 -> float32 rounded
// to nearest (ties to even). NaN and Inf are loaded as they are and counted in the result.
// The data must end exactly where the file ends: a file longer or shorter than the header
// says is refused. Nothing throws.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"
#include "io/read_support.h"

namespace pe {

enum class NpyFloatType { kFloat16, kFloat32, kFloat64 };

// What an NPY header says.
struct NpyHeaderInfo {
  int version_major = 1;  // 1, 2 or 3
  std::string descr;      // as written, e.g. "<f4"
  NpyFloatType type = NpyFloatType::kFloat32;
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<int64_t> shape;  // 1 to 3 dimensions
  uint64_t data_offset = 0;    // bytes before the data
  uint64_t data_bytes = 0;     // product(shape) * item size
};

// A loaded array: its header and the values as float32 in C order, shape header.shape.
struct NpyFloatArray {
  NpyHeaderInfo header;
  FloatTensor tensor;
};

// Parses the magic, version and header dict of the NPY bytes in `source` (reading no more than
// the header), and checks the shape against `cap` (float32 values) before anything is
// allocated. Does not look at the data.
Result<NpyHeaderInfo> ReadNpyHeader(ByteSource& source, const MemoryCap& cap = {});

// Reads a whole NPY array. Messages name the byte offset ("byte 18: ...").
Result<NpyFloatArray> ReadNpy(ByteSource& source, const MemoryCap& cap = {});
Result<NpyFloatArray> ReadNpy(std::span<const std::byte> bytes, const MemoryCap& cap = {});

// The same from a file (memory-mapped; a pipe or device is read no further than the header
// says). Every message starts with the quoted path.
Result<NpyFloatArray> ReadNpyFile(const std::string& path, const MemoryCap& cap = {});

}  // namespace pe
