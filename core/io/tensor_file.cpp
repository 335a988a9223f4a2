#include "io/tensor_file.h"

#include <sys/stat.h>

#include <cstring>

#include "io/npy_reader.h"
#include "io/safetensors_reader.h"

namespace pe {
namespace {

bool IsRegularFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode);
}

// What a tensor file is read with: the larger of the NPY and safetensors readers' header
// allowances on top of the cap (a stream is held whole).
uint64_t TensorStreamLimit(const MemoryCap& cap) {
  return SaturatingAdd(cap.bytes, 100'000'000 + 16);
}

}  // namespace

Result<TensorSpec> ParseTensorSpec(std::string_view text) {
  if (text.empty()) return InvalidArgument("expected FILE or FILE:TENSOR, got an empty text");
  TensorSpec spec{std::string(text), ""};
  const size_t colon = text.rfind(':');
  if (colon != std::string_view::npos && !IsRegularFile(spec.path)) {
    spec.path = std::string(text.substr(0, colon));
    spec.tensor = std::string(text.substr(colon + 1));
    if (spec.path.empty()) {
      std::string m = "\"";
      m += text;
      m += "\": expected FILE or FILE:TENSOR; the part before ':' (the file) is empty";
      return InvalidArgument(m);
    }
  }
  return spec;
}

std::string TensorSpecText(const TensorSpec& spec) {
  if (spec.tensor.empty()) return spec.path;
  std::string s = spec.path;
  s += ':';
  s += spec.tensor;
  return s;
}

Result<TensorFileFormat> SniffTensorFormat(ByteSource& source, const std::string& path) {
  // A stream keeps what this reads in its buffer, so the reader after it starts at byte 0.
  auto head = source.Prefix(9);
  if (!head.ok()) return head.error();
  const std::span<const std::byte> b = head.value();
  if (b.empty()) return InvalidArgument(Quoted(path) + ": the file is empty");
  if (b.size() >= 6 && std::memcmp(b.data(), "\x93NUMPY", 6) == 0) return TensorFileFormat::kNpy;
  if (b.size() >= 9 && static_cast<char>(b[8]) == '{') return TensorFileFormat::kSafetensors;
  return InvalidArgument(Quoted(path) +
                         ": byte 0: expected an NPY file (magic \\x93NUMPY) or a safetensors "
                         "file (an 8-byte header length, then '{'); this is neither");
}

Result<LoadedTensor> ReadTensorFile(const TensorSpec& spec, const MemoryCap& cap) {
  auto source = FileSource::Open(spec.path, TensorStreamLimit(cap));
  if (!source.ok()) return source.error();
  return CatchReaderExceptions(
      spec.path, [&] { return ReadTensorSource(std::move(source).value(), spec, cap); });
}

Result<LoadedTensor> ReadTensorSource(std::unique_ptr<FileSource> source, const TensorSpec& spec,
                                      const MemoryCap& cap) {
  source->set_stream_limit(TensorStreamLimit(cap));
  auto format = SniffTensorFormat(*source, spec.path);
  if (!format.ok()) return format.error();
  LoadedTensor out;
  out.format = format.value();
  if (out.format == TensorFileFormat::kNpy) {
    if (!spec.tensor.empty()) {
      return InvalidArgument(Quoted(spec.path) + ": an NPY file holds one array; \"" + spec.tensor +
                             "\" names a tensor, which only a safetensors file has");
    }
    auto npy = ReadNpy(*source, cap);
    if (!npy.ok()) return WithPath(npy.error(), spec.path);
    out.dtype = npy.value().header.descr;
    out.values = std::move(npy.value().tensor);
    return out;
  }
  auto file = SafetensorsFile::FromSource(std::move(source), cap);
  if (!file.ok()) return file.error();
  const SafetensorsFile& f = file.value();
  std::string name = spec.tensor;
  if (name.empty()) {
    std::vector<const SafetensorsTensorInfo*> readable;
    for (const SafetensorsTensorInfo& t : f.tensors()) {
      if (t.readable) readable.push_back(&t);
    }
    if (readable.size() == 1) {
      name = readable[0]->name;
    } else {
      std::string m = Quoted(spec.path);
      if (readable.empty()) {
        m += ": no tensor of a float dtype (F64, F32, F16, BF16) to read";
        return InvalidArgument(m);
      }
      m += ": holds " + std::to_string(readable.size()) +
           " readable tensors; name one as FILE:TENSOR, e.g. ";
      for (size_t k = 0; k < readable.size() && k < 20; ++k) {
        if (k != 0) m += ", ";
        m += readable[k]->name;
      }
      if (readable.size() > 20) m += ", ... (" + std::to_string(readable.size() - 20) + " more)";
      return InvalidArgument(m);
    }
  }
  const SafetensorsTensorInfo* info = f.index().Find(name);
  if (info == nullptr) {
    return InvalidArgument(Quoted(spec.path) + ": no tensor named \"" + name + "\"");
  }
  auto t = f.Read(name, cap);
  if (!t.ok()) return t.error();
  out.tensor = name;
  out.dtype = info->dtype;
  out.values = std::move(t.value());
  return out;
}

namespace {

Result<std::vector<TensorListing>> ListTensorFileImpl(const std::string& path,
                                                      const MemoryCap& cap) {
  auto source = FileSource::Open(path, TensorStreamLimit(cap));
  if (!source.ok()) return source.error();
  auto format = SniffTensorFormat(*source.value(), path);
  if (!format.ok()) return format.error();
  std::vector<TensorListing> out;
  if (format.value() == TensorFileFormat::kNpy) {
    auto h = ReadNpyHeader(*source.value(), cap);
    if (!h.ok()) return WithPath(h.error(), path);
    out.push_back({"", h.value().descr, h.value().shape, true});
    return out;
  }
  auto file = SafetensorsFile::FromSource(std::move(source).value(), cap);
  if (!file.ok()) return file.error();
  for (const SafetensorsTensorInfo& t : file.value().tensors()) {
    out.push_back({t.name, t.dtype, t.shape, t.readable});
  }
  return out;
}

}  // namespace

Result<std::vector<TensorListing>> ListTensorFile(const std::string& path, const MemoryCap& cap) {
  return CatchReaderExceptions(path, [&] { return ListTensorFileImpl(path, cap); });
}

}  // namespace pe
