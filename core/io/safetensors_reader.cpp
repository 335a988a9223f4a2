#include "io/safetensors_reader.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

namespace pe {
namespace {

using Json = nlohmann::json;

// huggingface/safetensors, safetensors/src/tensor.rs: MAX_HEADER_SIZE.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

std::string At(uint64_t offset) {
  std::string s = "byte ";
  s += std::to_string(offset);
  s += ": ";
  return s;
}

struct DtypeInfo {
  const char* name;
  int bytes;
  bool readable;
};

// The dtypes of the reference's Dtype enum and their sizes.
constexpr DtypeInfo kDtypes[] = {
    {"BOOL", 1, false},    {"U8", 1, false},  {"I8", 1, false},  {"F8_E5M2", 1, false},
    {"F8_E4M3", 1, false}, {"I16", 2, false}, {"U16", 2, false}, {"F16", 2, true},
    {"BF16", 2, true},     {"I32", 4, false}, {"U32", 4, false}, {"F32", 4, true},
    {"F64", 8, true},      {"I64", 8, false}, {"U64", 8, false},
};

std::string Name(const std::string& name) {
  std::string s = "tensor \"";
  s += name;
  s += '"';
  return s;
}

// Reads one tensor entry; `header` names the header's byte range for messages.
Status ParseTensor(const std::string& name, const Json& v, const std::string& header,
                   SafetensorsTensorInfo& out) {
  out.name = name;
  const std::string who = header + Name(name);
  if (!v.is_object()) {
    return InvalidArgument(who +
                           " is not an object; expected {\"dtype\", \"shape\", "
                           "\"data_offsets\"}");
  }
  for (const auto& [key, value] : v.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      return InvalidArgument(who + " has the unexpected field \"" + key +
                             "\"; expected only \"dtype\", \"shape\" and \"data_offsets\"");
    }
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!v.contains(key)) {
      return InvalidArgument(who + " has no \"" + key +
                             "\"; expected \"dtype\", \"shape\" and \"data_offsets\"");
    }
  }
  const Json& dtype = v["dtype"];
  if (!dtype.is_string()) return InvalidArgument(who + ": \"dtype\" is not a string");
  out.dtype = dtype.get<std::string>();
  const DtypeInfo* info = nullptr;
  for (const DtypeInfo& d : kDtypes) {
    if (out.dtype == d.name) info = &d;
  }
  if (info == nullptr) {
    return InvalidArgument(who + ": unknown dtype \"" + out.dtype +
                           "\"; expected F64, F32, F16, BF16 (or BOOL, U8, I8, F8_E5M2, "
                           "F8_E4M3, I16, U16, I32, U32, I64, U64, listed but not read)");
  }
  out.item_bytes = info->bytes;
  out.readable = info->readable;
  const Json& shape = v["shape"];
  if (!shape.is_array()) return InvalidArgument(who + ": \"shape\" is not an array");
  for (const Json& d : shape) {
    if (!d.is_number_unsigned() ||
        d.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return InvalidArgument(who + ": \"shape\" holds " + d.dump() +
                             "; expected non-negative integers below 2^63");
    }
    out.shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
  }
  const Json& offsets = v["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    return InvalidArgument(who + ": \"data_offsets\" is " + offsets.dump() +
                           "; expected [begin, end], two non-negative integers");
  }
  out.begin = offsets[0].get<uint64_t>();
  out.end = offsets[1].get<uint64_t>();
  return {};
}

// Tracks the keys of every open object while nlohmann parses, to refuse duplicates (nlohmann
// keeps the last silently; a reader of weights must not pick one of two tensors by accident).
struct DuplicateKeys {
  std::vector<std::set<std::string>> open;
  std::string first_duplicate;
  int depth = -1;
  bool Event(int d, Json::parse_event_t event, const Json& parsed) {
    using E = Json::parse_event_t;
    if (event == E::object_start) open.emplace_back();
    if (event == E::object_end && !open.empty()) open.pop_back();
    if (event == E::key && !open.empty() && first_duplicate.empty() && parsed.is_string()) {
      if (!open.back().insert(parsed.get<std::string>()).second) {
        first_duplicate = parsed.get<std::string>();
        depth = d;
      }
    }
    return true;
  }
};

Result<SafetensorsIndex> ParseIndex(ByteSource& source, const MemoryCap& cap) {
  auto pre = source.Prefix(8);
  if (!pre.ok()) return pre.error();
  if (pre.value().size() < 8) {
    return InvalidArgument(At(pre.value().size()) +
                           "the file ends inside the 8-byte header length (a .safetensors file "
                           "starts with the JSON header's length, little-endian)");
  }
  uint64_t n = 0;
  for (int k = 7; k >= 0; --k) n = (n << 8) | static_cast<uint64_t>(pre.value()[k]);
  const uint64_t header_cap = std::min(kMaxHeaderBytes, cap.bytes);
  if (n > header_cap) {
    return InvalidArgument(
        At(0) + "header length " + std::to_string(n) + " bytes; expected at most " +
        std::to_string(header_cap) +
        (header_cap == kMaxHeaderBytes ? " (the format's limit)" : " (the memory cap)"));
  }
  if (n < 2) {
    return InvalidArgument(At(0) + "header length " + std::to_string(n) +
                           "; expected a JSON object of at least 2 bytes (\"{}\")");
  }
  SafetensorsIndex index;
  index.header_bytes = n;
  index.data_offset = 8 + n;
  auto head = source.Prefix(8 + n);
  if (!head.ok()) return head.error();
  if (head.value().size() < 8 + n) {
    return InvalidArgument(At(head.value().size()) + "the file ends inside the header, which " +
                           "byte 0 says runs to byte " + std::to_string(8 + n));
  }
  const std::string header = "header (bytes 8 to " + std::to_string(8 + n) + "): ";
  const auto* text = reinterpret_cast<const char*>(head.value().data()) + 8;
  if (text[0] != '{') {
    return InvalidArgument(At(8) + "expected '{' starting the JSON header, found byte " +
                           std::to_string(static_cast<unsigned char>(text[0])));
  }
  Json root;
  DuplicateKeys dups;
  try {
    root = Json::parse(
        text, text + n,
        [&dups](int d, Json::parse_event_t e, Json& parsed) { return dups.Event(d, e, parsed); },
        /*allow_exceptions=*/true);
  } catch (const Json::parse_error& e) {
    // e.byte counts from 1 at the first character of the input.
    const uint64_t where = 8 + (e.byte > 0 ? static_cast<uint64_t>(e.byte) - 1 : 0);
    std::string why = e.what();
    const size_t colon = why.find("syntax error");
    if (colon != std::string::npos) why = why.substr(colon);
    return InvalidArgument(At(where) + "the header is not valid JSON (" + why + ")");
  } catch (const std::exception& e) {
    return InvalidArgument(header + "cannot parse the JSON: " + e.what());
  }
  if (!dups.first_duplicate.empty()) {
    return InvalidArgument(header + "the key \"" + dups.first_duplicate + "\" appears twice " +
                           (dups.depth <= 1 ? "(two tensors of one name)" : "in one object"));
  }
  if (!root.is_object()) return InvalidArgument(header + "expected a JSON object");
  try {
    for (const auto& [key, value] : root.items()) {
      if (key == "__metadata__") {
        if (!value.is_object()) {
          return InvalidArgument(header + "\"__metadata__\" is not an object of strings");
        }
        for (const auto& [mk, mv] : value.items()) {
          if (!mv.is_string()) {
            return InvalidArgument(header + "\"__metadata__\" entry \"" + mk + "\" is " +
                                   mv.dump() + "; expected a string");
          }
          index.metadata.emplace_back(mk, mv.get<std::string>());
        }
        continue;
      }
      SafetensorsTensorInfo info;
      if (Status s = ParseTensor(key, value, header, info); !s.ok()) return s.error();
      index.tensors.push_back(std::move(info));
    }
  } catch (const std::exception& e) {
    return InvalidArgument(header + "unexpected JSON content: " + e.what());
  }
  std::sort(index.metadata.begin(), index.metadata.end());
  std::sort(index.tensors.begin(), index.tensors.end(),
            [](const SafetensorsTensorInfo& a, const SafetensorsTensorInfo& b) {
              return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
            });
  // Tiling, as the reference's Metadata::validate: each tensor starts where the last ended.
  uint64_t next = 0;
  const SafetensorsTensorInfo* previous = nullptr;
  for (const SafetensorsTensorInfo& t : index.tensors) {
    const std::string where = Name(t.name) + " (data_offsets [" + std::to_string(t.begin) + ", " +
                              std::to_string(t.end) + "], file bytes " +
                              std::to_string(index.data_offset + t.begin) + " to " +
                              std::to_string(index.data_offset + t.end) + ")";
    if (t.end < t.begin) {
      return InvalidArgument(header + where + " ends before it begins");
    }
    if (t.begin < next) {
      return InvalidArgument(header + where + " overlaps " + Name(previous->name) +
                             ", which ends at data offset " + std::to_string(next));
    }
    if (t.begin > next) {
      return InvalidArgument(header + where + " leaves a gap of " + std::to_string(t.begin - next) +
                             " bytes after " +
                             (previous ? Name(previous->name) : std::string("the header")) +
                             "; expected the tensors to tile the data");
    }
    const std::optional<uint64_t> count = ShapeCount(t.shape);
    const auto item = static_cast<uint64_t>(t.item_bytes);
    if (!count || *count > std::numeric_limits<uint64_t>::max() / item ||
        *count * item != t.end - t.begin) {
      std::string m = header + where + ": shape " + FormatShape(t.shape) + " of " + t.dtype +
                      " needs " +
                      (count && *count <= std::numeric_limits<uint64_t>::max() / item
                           ? std::to_string(*count * item)
                           : std::string("more than 2^64")) +
                      " bytes; the offsets span " + std::to_string(t.end - t.begin);
      // A shape no file could hold is also named against the cap, as the other readers do.
      if (Status over = CheckTensorCap(t.shape, cap); !over.ok()) {
        m += " (and as float32 it needs ";
        m += count && *count <= std::numeric_limits<uint64_t>::max() / 4
                 ? FormatBytes(*count * 4)
                 : std::string("more than 16 EiB");
        m += ", over the memory cap of ";
        m += FormatBytes(cap.bytes);
        m += ')';
      }
      return InvalidArgument(std::move(m));
    }
    next = t.end;
    previous = &t;
  }
  const uint64_t end = index.data_offset + next;
  if (end < next) return InvalidArgument(header + "data offsets overflow");
  if (!source.KnownSize() && next > cap.bytes) {
    return InvalidArgument(header + "the tensors' data (" + FormatBytes(next) +
                           ") must be held in memory to read this stream, over the memory cap "
                           "of " +
                           FormatBytes(cap.bytes));
  }
  auto all = source.Prefix(end + 1);
  if (!all.ok()) return all.error();
  const uint64_t size = all.value().size();
  if (size < end) {
    return InvalidArgument(At(size) + "the file ends " + std::to_string(end - size) +
                           " bytes early: the header's tensors run to byte " + std::to_string(end) +
                           (previous ? " (the last is " + Name(previous->name) + ")" : ""));
  }
  if (size > end) {
    return InvalidArgument(At(end) + "bytes after the last tensor's data" +
                           (source.KnownSize()
                                ? " (" + std::to_string(*source.KnownSize() - end) + " bytes)"
                                : std::string()) +
                           "; expected the file to end where the tensors end");
  }
  return index;
}

}  // namespace

const SafetensorsTensorInfo* SafetensorsIndex::Find(const std::string& name) const {
  for (const SafetensorsTensorInfo& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

Result<SafetensorsIndex> ReadSafetensorsIndex(ByteSource& source, const MemoryCap& cap) {
  return ParseIndex(source, cap);
}

Result<SafetensorsIndex> ReadSafetensorsIndex(std::span<const std::byte> bytes,
                                              const MemoryCap& cap) {
  SpanSource source(bytes);
  return ParseIndex(source, cap);
}

Result<FloatTensor> ReadSafetensor(std::span<const std::byte> bytes, const SafetensorsIndex& index,
                                   const std::string& name, const MemoryCap& cap) {
  const SafetensorsTensorInfo* t = index.Find(name);
  if (t == nullptr) {
    std::string names;
    for (size_t k = 0; k < index.tensors.size() && k < 8; ++k) {
      names += k > 0 ? ", \"" : "\"";
      names += index.tensors[k].name;
      names += '"';
    }
    if (index.tensors.size() > 8) names += ", ...";
    return InvalidArgument("no " + Name(name) + " in the file; it holds " +
                           std::to_string(index.tensors.size()) + " tensors" +
                           (names.empty() ? std::string() : ": " + names));
  }
  if (!t->readable) {
    return InvalidArgument(Name(name) + " is " + t->dtype +
                           "; only F64, F32, F16 and BF16 tensors are read as float32");
  }
  if (Status s = CheckTensorCap(t->shape, cap); !s.ok()) {
    return InvalidArgument(Name(name) + ": " + s.message());
  }
  if (index.data_offset + t->end > bytes.size()) {
    return InvalidArgument(Name(name) + ": its data runs to byte " +
                           std::to_string(index.data_offset + t->end) + ", past the " +
                           std::to_string(bytes.size()) + " bytes given");
  }
  FloatTensor out;
  out.shape = t->shape;
  const uint64_t count = *ShapeCount(t->shape);
  out.data.resize(static_cast<size_t>(count));
  const std::byte* src = bytes.data() + index.data_offset + t->begin;
  float* dst = out.data.data();
  // Little-endian always (the format says so); one loop per dtype.
  auto load = [](const std::byte* p, int n) {
    uint64_t bits = 0;
    for (int b = n - 1; b >= 0; --b) bits = (bits << 8) | static_cast<uint64_t>(p[b]);
    return bits;
  };
  if (t->dtype == "F16") {
    for (uint64_t k = 0; k < count; ++k) {
      dst[k] = HalfToFloat(static_cast<uint16_t>(load(src + 2 * k, 2)));
    }
  } else if (t->dtype == "BF16") {
    for (uint64_t k = 0; k < count; ++k) {
      dst[k] = BFloat16ToFloat(static_cast<uint16_t>(load(src + 2 * k, 2)));
    }
  } else if (t->dtype == "F32") {
    if constexpr (std::endian::native == std::endian::little) {
      if (count > 0) std::memcpy(dst, src, static_cast<size_t>(count) * 4);
    } else {
      for (uint64_t k = 0; k < count; ++k) {
        dst[k] = std::bit_cast<float>(static_cast<uint32_t>(load(src + 4 * k, 4)));
      }
    }
  } else {  // F64: round to nearest, ties to even
    for (uint64_t k = 0; k < count; ++k) {
      const double x = std::bit_cast<double>(load(src + 8 * k, 8));
      dst[k] = static_cast<float>(x);
      if (std::isfinite(x) && std::isinf(dst[k])) ++out.overflow_count;
    }
  }
  CountNonFinite(out);
  return out;
}

Result<FloatTensor> ReadSafetensor(std::span<const std::byte> bytes, const std::string& name,
                                   const MemoryCap& cap) {
  auto index = ReadSafetensorsIndex(bytes, cap);
  if (!index.ok()) return index.error();
  return ReadSafetensor(bytes, index.value(), name, cap);
}

Result<SafetensorsFile> SafetensorsFile::Open(const std::string& path, const MemoryCap& cap) {
  auto source = FileSource::Open(path, SaturatingAdd(cap.bytes, kMaxHeaderBytes + 16));
  if (!source.ok()) return source.error();
  return FromSource(std::move(source).value(), cap);
}

Result<SafetensorsFile> SafetensorsFile::FromSource(std::unique_ptr<FileSource> source,
                                                    const MemoryCap& cap) {
  const std::string path = source->path();
  auto index = CatchReaderExceptions(path, [&] { return ParseIndex(*source, cap); });
  if (!index.ok()) return WithPath(index.error(), path);
  SafetensorsFile f;
  f.path_ = path;
  f.index_ = std::move(index).value();
  const uint64_t end =
      f.index_.data_offset + (f.index_.tensors.empty() ? 0 : f.index_.tensors.back().end);
  auto all = source->Prefix(end);
  if (!all.ok()) return all.error();
  if (all.value().size() < end) {
    return InvalidArgument(Quoted(path) + ": the file ends at byte " +
                           std::to_string(all.value().size()) + ", before the tensors' end at " +
                           std::to_string(end) + " (it changed while it was read)");
  }
  f.bytes_ = all.value();
  f.source_ = std::move(source);
  return f;
}

Result<FloatTensor> SafetensorsFile::Read(const std::string& name, const MemoryCap& cap) const {
  auto t = CatchReaderExceptions(path_, [&] { return ReadSafetensor(bytes_, index_, name, cap); });
  if (t.ok()) return t;
  return Error{t.error().kind, Quoted(path_) + ": " + t.message()};
}

}  // namespace pe
