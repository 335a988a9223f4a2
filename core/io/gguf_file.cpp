#include "io/gguf_file.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <optional>

namespace pe {

namespace {

// What ParseGguf keeps costs about this much beyond its strings and values (map node, vector
// slots), counted against the memory cap.
constexpr uint64_t kEntryOverhead = 256;
// The smallest bytes a key-value pair (8-byte key length, 4-byte type, a 1-byte value) and a
// tensor info (8-byte name length, 4-byte n_dims, 4-byte type, 8-byte offset) can take.
constexpr uint64_t kMinPairBytes = 13;
constexpr uint64_t kMinTensorInfoBytes = 24;
// The first read of a source; later reads double it.
constexpr uint64_t kFirstRead = uint64_t{64} << 10;

uint64_t ScalarBytes(GgufType t) {
  switch (t) {
    case GgufType::kUint8:
    case GgufType::kInt8:
    case GgufType::kBool:
      return 1;
    case GgufType::kUint16:
    case GgufType::kInt16:
      return 2;
    case GgufType::kUint32:
    case GgufType::kInt32:
    case GgufType::kFloat32:
      return 4;
    case GgufType::kUint64:
    case GgufType::kInt64:
    case GgufType::kFloat64:
      return 8;
    case GgufType::kString:
    case GgufType::kArray:
      return 0;
  }
  return 0;
}

bool KnownType(uint32_t t) {
  return t <= static_cast<uint32_t>(GgufType::kFloat64);
}

// Reads little-endian fields from a ByteSource, asking for a longer prefix as it goes. Every
// read checks the bytes are there first; the span is fetched again after each growth, so no
// pointer into an older prefix is kept.
class Cursor {
 public:
  Cursor(ByteSource& source, const std::string& name) : source_(source), name_(name) {}

  uint64_t pos() const { return pos_; }
  // The source's size when known, else what it has given so far.
  uint64_t known_size() const { return source_.KnownSize().value_or(view_.size()); }
  bool size_known() const { return source_.KnownSize().has_value(); }

  // Makes bytes [pos, pos + n) readable; an error naming `what` when the source ends first.
  // Whether bytes [pos, pos + n) are readable, asking the source for more if needed (an I/O
  // error is kept for Need to return). No message is built: the hot loops call this.
  bool Ensure(uint64_t n) {
    const uint64_t end = SaturatingAdd(pos_, n);
    if (end <= view_.size()) return true;
    if (ended_ || !io_error_.ok()) return false;
    uint64_t ask = std::max({end, kFirstRead, SaturatingMul(view_.size(), 2)});
    const auto size = source_.KnownSize();
    if (size) ask = std::min(ask, *size);
    auto got = source_.Prefix(ask);
    if (!got.ok()) {
      io_error_ = WithPath(got.error(), name_);
      return false;
    }
    view_ = got.value();
    if (view_.size() < ask || (size && view_.size() >= *size)) ended_ = true;
    return end <= view_.size();
  }

  // Ensure, or an error naming `what`.
  Status Need(uint64_t n, const std::string& what) {
    if (Ensure(n)) return {};
    return PastEnd(n, what);
  }
  Status PastEnd(uint64_t n, const std::string& what) const {
    if (!io_error_.ok()) return io_error_;
    return InvalidArgument(Quoted(name_) + ": " + what + " at byte " + std::to_string(pos_) +
                           " needs " + std::to_string(n) + " bytes, but the file ends at byte " +
                           std::to_string(view_.size()) + " (truncated, or a length that lies)");
  }

  // A little-endian integer of `bytes` bytes at pos, which Ensure has made readable.
  uint64_t UintUnchecked(int bytes) {
    uint64_t v = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&v, view_.data() + pos_, static_cast<size_t>(bytes));
    } else {
      for (int k = bytes - 1; k >= 0; --k) {
        v = (v << 8) | std::to_integer<uint64_t>(view_[static_cast<size_t>(pos_) + k]);
      }
    }
    pos_ += static_cast<uint64_t>(bytes);
    return v;
  }
  void Advance(uint64_t n) { pos_ += n; }

  // Skips `count` gguf strings (a vocabulary: hundreds of thousands), walking the bytes in hand
  // and asking for more only at their end. False when one runs past the end: `*done` is that
  // string, `*need` the bytes it needs from its start.
  bool SkipStrings(uint64_t count, uint64_t* done, uint64_t* need) {
    for (uint64_t k = 0; k < count; ++k) {
      *done = k;
      const uint64_t have = view_.size();
      if (pos_ + 8 <= have) {
        const uint64_t len = UintUnchecked(8);
        if (len <= have - pos_) {
          pos_ += len;
          continue;
        }
        pos_ -= 8;
      }
      *need = 8;
      if (!Ensure(8)) return false;
      const uint64_t len = UintUnchecked(8);
      pos_ -= 8;
      *need = SaturatingAdd(8, len);
      if (!Ensure(*need)) return false;
      pos_ += *need;
    }
    return true;
  }

  Result<uint64_t> Uint(int bytes, const std::string& what) {
    if (Status st = Need(static_cast<uint64_t>(bytes), what); !st.ok()) return st.error();
    return UintUnchecked(bytes);
  }

  // A gguf string: uint64 length, bytes. Kept whole when at most `keep` bytes, else skipped
  // (`length` says how long it was).
  Result<std::string> String(const std::string& what, uint64_t keep, uint64_t* length) {
    auto len = Uint(8, what + " (its length)");
    if (!len.ok()) return len.error();
    *length = len.value();
    if (Status st = Need(len.value(), what + " of " + std::to_string(len.value()) + " bytes");
        !st.ok()) {
      return st.error();
    }
    std::string out;
    if (len.value() <= keep) {
      out.assign(reinterpret_cast<const char*>(view_.data()) + pos_,
                 static_cast<size_t>(len.value()));
    }
    pos_ += len.value();
    return out;
  }

  Status Skip(uint64_t n, const std::string& what) {
    if (Status st = Need(n, what); !st.ok()) return st;
    pos_ += n;
    return {};
  }

 private:
  ByteSource& source_;
  const std::string& name_;
  std::span<const std::byte> view_;
  uint64_t pos_ = 0;
  bool ended_ = false;
  Status io_error_;
};

class Parser {
 public:
  Parser(ByteSource& source, const std::string& name, const MemoryCap& cap)
      : in_(source, name), name_(name), cap_(cap) {}

  Result<GgufFile> Run() {
    GgufFile f;
    if (Status st = Header(f); !st.ok()) return st.error();
    for (uint64_t k = 0; k < kv_count_; ++k) {
      if (Status st = Pair(f, k); !st.ok()) return st.error();
    }
    if (Status st = Alignment(f); !st.ok()) return st.error();
    for (uint64_t k = 0; k < f.tensor_count; ++k) {
      if (Status st = TensorInfo(f, k); !st.ok()) return st.error();
    }
    if (Status st = UniqueTensorNames(f); !st.ok()) return st.error();
    const uint64_t end = in_.pos();
    f.data_offset = SaturatingAdd(end, (f.alignment - end % f.alignment) % f.alignment);
    f.file_size = in_.known_size();
    return f;
  }

 private:
  Error Fail(const std::string& what) const { return InvalidArgument(Quoted(name_) + ": " + what); }

  // Counts `bytes` more kept in memory; an error once the total passes the cap.
  Status Keep(uint64_t bytes, const std::string& what) {
    kept_ = SaturatingAdd(kept_, bytes);
    if (kept_ > cap_.bytes) {
      return Fail(what + " would take the metadata kept in memory past the memory cap of " +
                  FormatBytes(cap_.bytes) + " (--memory-cap-mib)");
    }
    return {};
  }

  Status Header(GgufFile& f) {
    if (Status st = in_.Need(4, "the magic \"GGUF\""); !st.ok()) {
      return Fail("not a GGUF file: it has fewer than 4 bytes (a GGUF file starts with \"GGUF\")");
    }
    auto magic = in_.Uint(4, "the magic");
    if (magic.value() != 0x46554747u) {  // "GGUF" read little-endian
      return Fail("not a GGUF file: it does not start with the bytes \"GGUF\"");
    }
    auto version = in_.Uint(4, "the version");
    if (!version.ok()) return version.error();
    f.version = static_cast<uint32_t>(version.value());
    if (f.version == 1) {
      return Fail(
          "GGUF version 1 (32-bit counts, written by llama.cpp before late 2023) is not read; "
          "convert the model again, or run llama.cpp's gguf-py to rewrite it as version 3");
    }
    if (f.version < 2 || f.version > 3) {
      return Fail("GGUF version " + std::to_string(f.version) +
                  " is not read (versions 2 and 3 are)");
    }
    auto tensors = in_.Uint(8, "tensor_count");
    if (!tensors.ok()) return tensors.error();
    auto kvs = in_.Uint(8, "kv_count");
    if (!kvs.ok()) return kvs.error();
    f.tensor_count = tensors.value();
    kv_count_ = kvs.value();
    if (in_.size_known()) {
      const uint64_t rest = in_.known_size() - in_.pos();
      if (kv_count_ > rest / kMinPairBytes) {
        return Fail("kv_count " + std::to_string(kv_count_) +
                    " key-value pairs cannot fit in the " + std::to_string(rest) +
                    " bytes after the header (each takes at least " +
                    std::to_string(kMinPairBytes) + ")");
      }
      if (f.tensor_count > rest / kMinTensorInfoBytes) {
        return Fail("tensor_count " + std::to_string(f.tensor_count) +
                    " tensor infos cannot fit in the " + std::to_string(rest) +
                    " bytes after the header (each takes at least " +
                    std::to_string(kMinTensorInfoBytes) + ")");
      }
    }
    return {};
  }

  // One scalar of type `t` into `v` (`what` names it in errors).
  Status Scalar(GgufType t, GgufValue& v, const std::string& what) {
    if (t == GgufType::kString) {
      auto s = in_.String(what, kGgufMaxKeptString, &v.string_length);
      if (!s.ok()) return s.error();
      v.s = std::move(s.value());
      return Keep(v.s.size(), what);
    }
    const int bytes = static_cast<int>(ScalarBytes(t));
    auto raw = in_.Uint(bytes, what);
    if (!raw.ok()) return raw.error();
    v.type = t;
    return Decode(v, raw.value(), what, UINT64_MAX);
  }

  // The raw bits `r` of a scalar of type v.type into `v`; `element` names an array element in
  // the error (UINT64_MAX: a scalar).
  Status Decode(GgufValue& v, uint64_t r, const std::string& what, uint64_t element) const {
    switch (v.type) {
      case GgufType::kUint8:
      case GgufType::kUint16:
      case GgufType::kUint32:
      case GgufType::kUint64:
        v.u = r;
        break;
      case GgufType::kInt8:
        v.i = static_cast<int8_t>(r);
        break;
      case GgufType::kInt16:
        v.i = static_cast<int16_t>(r);
        break;
      case GgufType::kInt32:
        v.i = static_cast<int32_t>(r);
        break;
      case GgufType::kInt64:
        v.i = static_cast<int64_t>(r);
        break;
      case GgufType::kFloat32:
        v.f = std::bit_cast<float>(static_cast<uint32_t>(r));
        break;
      case GgufType::kFloat64:
        v.f = std::bit_cast<double>(r);
        break;
      case GgufType::kBool:
        if (r > 1) {
          return Fail(
              what +
              (element == UINT64_MAX ? std::string() : " element " + std::to_string(element)) +
              ": a bool must be 0 or 1, got " + std::to_string(r) + " (byte " +
              std::to_string(in_.pos() - 1) + ")");
        }
        v.b = r == 1;
        break;
      case GgufType::kString:
      case GgufType::kArray:
        break;
    }
    return {};
  }

  Status Array(GgufValue& v, const std::string& key) {
    const std::string what = "the array of key \"" + key + "\"";
    auto elem = in_.Uint(4, what + " (its element type)");
    if (!elem.ok()) return elem.error();
    if (!KnownType(static_cast<uint32_t>(elem.value()))) {
      return Fail("key \"" + key + "\": unknown array element type " +
                  std::to_string(elem.value()) + " (GGUF types are 0 to 12)");
    }
    v.element = static_cast<GgufType>(elem.value());
    if (v.element == GgufType::kArray) {
      return Fail("key \"" + key + "\": an array of arrays is not read (llama.cpp writes none)");
    }
    auto count = in_.Uint(8, what + " (its count)");
    if (!count.ok()) return count.error();
    v.count = count.value();
    v.values_offset = in_.pos();
    if (v.element == GgufType::kString) {
      // Each string takes at least its 8-byte length.
      if (in_.size_known() && v.count > (in_.known_size() - in_.pos()) / 8) {
        return Fail("key \"" + key + "\": an array of " + std::to_string(v.count) +
                    " strings cannot fit in the " + std::to_string(in_.known_size() - in_.pos()) +
                    " bytes left (each takes at least 8)");
      }
      uint64_t k = 0, need = 0;
      if (!in_.SkipStrings(v.count, &k, &need)) {
        return in_.PastEnd(need, what + " element " + std::to_string(k) + " (a string)");
      }
      v.values_end = in_.pos();
      return {};
    }
    const uint64_t size = ScalarBytes(v.element);
    const uint64_t bytes = SaturatingMul(v.count, size);
    if (v.count > kGgufMaxKeptArray) {
      v.values_end = SaturatingAdd(v.values_offset, bytes);
      return in_.Skip(bytes, what + " of " + std::to_string(v.count) + " " +
                                 GgufTypeName(static_cast<uint32_t>(v.element)) + " values");
    }
    if (Status st = in_.Need(bytes, what + " of " + std::to_string(v.count) + " " +
                                        GgufTypeName(static_cast<uint32_t>(v.element)) + " values");
        !st.ok()) {
      return st;
    }
    if (Status st = Keep(v.count * sizeof(double), what); !st.ok()) return st;
    v.numbers.reserve(static_cast<size_t>(v.count));
    for (uint64_t k = 0; k < v.count; ++k) {
      GgufValue e;
      e.type = v.element;
      if (Status st = Decode(e, in_.UintUnchecked(static_cast<int>(size)), what, k); !st.ok()) {
        return st;
      }
      v.numbers.push_back(v.element == GgufType::kBool ? (e.b ? 1.0 : 0.0) : e.AsDouble());
    }
    v.numbers_kept = true;
    v.values_end = in_.pos();
    return {};
  }

  Status Pair(GgufFile& f, uint64_t index) {
    const std::string what = "key-value pair " + std::to_string(index);
    uint64_t key_len = 0;
    auto key = in_.String(what + " (its key)", UINT64_MAX, &key_len);
    if (!key.ok()) return key.error();
    const std::string printable = GgufPrintable(key.value());
    if (Status st = Keep(2 * key.value().size() + kEntryOverhead, "key \"" + printable + "\"");
        !st.ok()) {
      return st;
    }
    auto type = in_.Uint(4, "the type of key \"" + printable + "\"");
    if (!type.ok()) return type.error();
    if (!KnownType(static_cast<uint32_t>(type.value()))) {
      return Fail("key \"" + printable + "\": unknown value type " + std::to_string(type.value()) +
                  " at byte " + std::to_string(in_.pos() - 4) + " (GGUF types are 0 to 12)");
    }
    GgufValue v;
    v.type = static_cast<GgufType>(type.value());
    Status st = v.type == GgufType::kArray
                    ? Array(v, printable)
                    : Scalar(v.type, v, "the value of key \"" + printable + "\"");
    if (!st.ok()) return st;
    if (f.metadata.count(key.value()) != 0) {
      return Fail("key \"" + printable + "\" appears twice (llama.cpp refuses such a file)");
    }
    f.keys.push_back(key.value());
    f.metadata.emplace(std::move(key.value()), std::move(v));
    return {};
  }

  Status Alignment(GgufFile& f) {
    const GgufValue* a = f.Find("general.alignment");
    if (a == nullptr) return {};
    // llama.cpp reads it with gguf_get_val_u32: another type is an error there too.
    if (a->type != GgufType::kUint32) {
      return Fail("key \"general.alignment\" must be a uint32, got a " +
                  GgufTypeName(static_cast<uint32_t>(a->type)));
    }
    if (a->u == 0 || (a->u & (a->u - 1)) != 0) {
      return Fail("key \"general.alignment\" must be a power of two, got " + std::to_string(a->u));
    }
    f.alignment = a->u;
    return {};
  }

  Status TensorInfo(GgufFile& f, uint64_t index) {
    const std::string what = "tensor info " + std::to_string(index);
    GgufTensorInfo t;
    uint64_t len = 0;
    auto name = in_.String(what + " (its name)", UINT64_MAX, &len);
    if (!name.ok()) return name.error();
    t.name = std::move(name.value());
    const std::string printable = GgufPrintable(t.name);
    if (Status st = Keep(2 * t.name.size() + kEntryOverhead, "tensor \"" + printable + "\"");
        !st.ok()) {
      return st;
    }
    auto n_dims = in_.Uint(4, "n_dims of tensor \"" + printable + "\"");
    if (!n_dims.ok()) return n_dims.error();
    if (n_dims.value() > kGgufMaxDims) {
      return Fail("tensor \"" + printable + "\" has n_dims " + std::to_string(n_dims.value()) +
                  "; ggml tensors have at most " + std::to_string(kGgufMaxDims));
    }
    uint64_t elements = 1;
    for (uint64_t d = 0; d < n_dims.value(); ++d) {
      auto dim = in_.Uint(8, "dim " + std::to_string(d) + " of tensor \"" + printable + "\"");
      if (!dim.ok()) return dim.error();
      // ggml keeps dims in int64 and refuses a product that does not fit.
      if (dim.value() > static_cast<uint64_t>(INT64_MAX) ||
          (dim.value() != 0 && elements > static_cast<uint64_t>(INT64_MAX) / dim.value())) {
        return Fail("tensor \"" + printable + "\" has " + std::to_string(dim.value()) + " as dim " +
                    std::to_string(d) + ": its element count does not fit in int64");
      }
      elements *= dim.value();
      t.dims.push_back(dim.value());
    }
    auto type = in_.Uint(4, "the type of tensor \"" + printable + "\"");
    if (!type.ok()) return type.error();
    t.type = static_cast<uint32_t>(type.value());
    auto offset = in_.Uint(8, "the offset of tensor \"" + printable + "\"");
    if (!offset.ok()) return offset.error();
    t.offset = offset.value();
    if (t.offset % f.alignment != 0) {
      return Fail("tensor \"" + printable + "\" has offset " + std::to_string(t.offset) +
                  ", not a multiple of the alignment " + std::to_string(f.alignment));
    }
    f.tensors.push_back(std::move(t));
    return {};
  }

  Status UniqueTensorNames(const GgufFile& f) {
    std::vector<const std::string*> names;
    names.reserve(f.tensors.size());
    for (const GgufTensorInfo& t : f.tensors) names.push_back(&t.name);
    std::sort(names.begin(), names.end(),
              [](const std::string* a, const std::string* b) { return *a < *b; });
    for (size_t k = 1; k < names.size(); ++k) {
      if (*names[k] == *names[k - 1]) {
        return Fail("tensor \"" + GgufPrintable(*names[k]) +
                    "\" appears twice (llama.cpp refuses such a file)");
      }
    }
    return {};
  }

  Cursor in_;
  const std::string& name_;
  MemoryCap cap_;
  uint64_t kv_count_ = 0;
  uint64_t kept_ = 0;
};

}  // namespace

std::string GgufTypeName(uint32_t type) {
  static const char* const kNames[] = {"uint8",  "int8",    "uint16", "int16",  "uint32",
                                       "int32",  "float32", "bool",   "string", "array",
                                       "uint64", "int64",   "float64"};
  if (type < std::size(kNames)) return kNames[type];
  return "type " + std::to_string(type);
}

bool GgufValue::is_integer() const {
  switch (type) {
    case GgufType::kUint8:
    case GgufType::kInt8:
    case GgufType::kUint16:
    case GgufType::kInt16:
    case GgufType::kUint32:
    case GgufType::kInt32:
    case GgufType::kUint64:
    case GgufType::kInt64:
      return true;
    default:
      return false;
  }
}

bool GgufValue::is_number() const {
  return is_integer() || type == GgufType::kFloat32 || type == GgufType::kFloat64;
}

double GgufValue::AsDouble() const {
  switch (type) {
    case GgufType::kUint8:
    case GgufType::kUint16:
    case GgufType::kUint32:
    case GgufType::kUint64:
      return static_cast<double>(u);
    case GgufType::kInt8:
    case GgufType::kInt16:
    case GgufType::kInt32:
    case GgufType::kInt64:
      return static_cast<double>(i);
    case GgufType::kFloat32:
    case GgufType::kFloat64:
      return f;
    default:
      return 0;
  }
}

const GgufValue* GgufFile::Find(const std::string& key) const {
  const auto it = metadata.find(key);
  return it == metadata.end() ? nullptr : &it->second;
}

const GgufTensorInfo* GgufFile::FindTensor(const std::string& name) const {
  for (const GgufTensorInfo& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string GgufPrintable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (out.size() >= 80) {
      out += "...";
      break;
    }
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\') {
      out += c;
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
  }
  return out;
}

Result<GgufFile> ParseGguf(ByteSource& source, const std::string& name, const MemoryCap& cap) {
  try {
    Parser p(source, name, cap);
    return p.Run();
  } catch (const std::bad_alloc&) {
    return RuntimeError(Quoted(name) +
                        ": out of memory while reading its metadata (lower --memory-cap-mib to "
                        "have such files refused before they are read)");
  } catch (const std::exception& e) {
    return RuntimeError(Quoted(name) + ": cannot be read (" + e.what() + ")");
  }
}

Result<std::vector<float>> ReadGgufFloatTensor(ByteSource& source, const GgufFile& file,
                                               const GgufTensorInfo& tensor,
                                               const std::string& name, uint64_t max_values) {
  const std::string what = Quoted(name) + ": tensor \"" + GgufPrintable(tensor.name) + "\"";
  uint64_t item = 0;
  if (tensor.type == 0) {
    item = 4;  // GGML_TYPE_F32
  } else if (tensor.type == 1) {
    item = 2;  // GGML_TYPE_F16
  } else {
    return InvalidArgument(what + " has ggml type " + std::to_string(tensor.type) +
                           "; only F32 (0) and F16 (1) are read");
  }
  uint64_t count = 1;
  for (const uint64_t d : tensor.dims) count = SaturatingMul(count, d);
  if (count > max_values) {
    return InvalidArgument(what + " has " + std::to_string(count) + " values; at most " +
                           std::to_string(max_values) + " are read");
  }
  const uint64_t begin = SaturatingAdd(file.data_offset, tensor.offset);
  const uint64_t bytes = count * item;
  const uint64_t end = SaturatingAdd(begin, bytes);
  std::vector<std::byte> raw(static_cast<size_t>(bytes));
  auto* mapped = dynamic_cast<FileSource*>(&source);
  if (mapped != nullptr && mapped->KnownSize().has_value()) {
    if (end > *mapped->KnownSize()) {
      return InvalidArgument(what + " runs from byte " + std::to_string(begin) + " to " +
                             std::to_string(end) + ", past the end of the file (" +
                             std::to_string(*mapped->KnownSize()) + " bytes)");
    }
    if (Status st = mapped->ReadAt(begin, raw); !st.ok()) return WithPath(st.error(), name);
  } else {
    auto got = source.Prefix(end);
    if (!got.ok()) return WithPath(got.error(), name);
    if (got.value().size() < end) {
      return InvalidArgument(what + " runs from byte " + std::to_string(begin) + " to " +
                             std::to_string(end) + ", past the end of the file (" +
                             std::to_string(got.value().size()) + " bytes)");
    }
    if (bytes != 0) std::memcpy(raw.data(), got.value().data() + begin, static_cast<size_t>(bytes));
  }
  std::vector<float> out(static_cast<size_t>(count));
  for (uint64_t k = 0; k < count; ++k) {
    const std::byte* p = raw.data() + k * item;
    if (item == 4) {
      uint32_t bits = 0;
      for (int b = 3; b >= 0; --b) bits = (bits << 8) | std::to_integer<uint32_t>(p[b]);
      out[static_cast<size_t>(k)] = std::bit_cast<float>(bits);
    } else {
      const uint16_t bits = static_cast<uint16_t>(std::to_integer<uint32_t>(p[0]) |
                                                  (std::to_integer<uint32_t>(p[1]) << 8));
      out[static_cast<size_t>(k)] = HalfToFloat(bits);
    }
  }
  return out;
}

namespace {

// Bytes [begin, end) of the source: read with pread from a mapped file (a file truncated since
// it was opened is an error, not a fault), else from the source's prefix.
Result<std::vector<std::byte>> ReadRange(ByteSource& source, uint64_t begin, uint64_t end,
                                         const std::string& what, const std::string& name) {
  auto* mapped = dynamic_cast<FileSource*>(&source);
  const std::optional<uint64_t> size = source.KnownSize();
  if (end < begin || (size && end > *size)) {
    return InvalidArgument(what + " runs from byte " + std::to_string(begin) + " to " +
                           std::to_string(end) + ", past the end of the file");
  }
  std::vector<std::byte> raw(static_cast<size_t>(end - begin));
  if (mapped != nullptr && size) {
    if (Status st = mapped->ReadAt(begin, raw); !st.ok()) return WithPath(st.error(), name);
    return raw;
  }
  auto got = source.Prefix(end);
  if (!got.ok()) return WithPath(got.error(), name);
  if (got.value().size() < end) {
    return InvalidArgument(what + " runs from byte " + std::to_string(begin) + " to " +
                           std::to_string(end) + ", past the end of the file (" +
                           std::to_string(got.value().size()) + " bytes)");
  }
  if (!raw.empty()) std::memcpy(raw.data(), got.value().data() + begin, raw.size());
  return raw;
}

uint64_t LittleEndian(const std::byte* p, int bytes) {
  uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | std::to_integer<uint64_t>(p[k]);
  return v;
}

}  // namespace

Result<std::vector<std::string>> ReadGgufStrings(ByteSource& source, const GgufValue& value,
                                                 const std::string& key, const std::string& name,
                                                 const MemoryCap& cap) {
  const std::string what = Quoted(name) + ": key \"" + GgufPrintable(key) + "\"";
  if (value.type != GgufType::kArray || value.element != GgufType::kString) {
    return InvalidArgument(what + " must be an array of strings");
  }
  if (value.values_end < value.values_offset) return InvalidArgument(what + " was not parsed");
  const uint64_t need = value.values_end - value.values_offset;
  const uint64_t kept = SaturatingAdd(SaturatingMul(need, 2), SaturatingMul(value.count, 32));
  if (kept > cap.bytes) {
    return InvalidArgument(what + ": its " + std::to_string(value.count) + " strings (" +
                           FormatBytes(need) + ") would pass the memory cap of " +
                           FormatBytes(cap.bytes) + " (--memory-cap-mib)");
  }
  auto bytes = ReadRange(source, value.values_offset, value.values_end, what, name);
  if (!bytes.ok()) return bytes.error();
  const std::vector<std::byte>& raw = bytes.value();
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(value.count));
  size_t p = 0;
  for (uint64_t k = 0; k < value.count; ++k) {
    // The file may have changed since it was parsed: every length is checked again.
    if (raw.size() - p < 8) return InvalidArgument(what + " changed since it was read");
    const uint64_t n = LittleEndian(raw.data() + p, 8);
    p += 8;
    if (n > raw.size() - p) return InvalidArgument(what + " changed since it was read");
    out.emplace_back(reinterpret_cast<const char*>(raw.data() + p), static_cast<size_t>(n));
    p += static_cast<size_t>(n);
  }
  return out;
}

Result<std::vector<double>> ReadGgufNumbers(ByteSource& source, const GgufValue& value,
                                            const std::string& key, const std::string& name,
                                            const MemoryCap& cap) {
  const std::string what = Quoted(name) + ": key \"" + GgufPrintable(key) + "\"";
  const uint64_t item = ScalarBytes(value.element);
  if (value.type != GgufType::kArray || item == 0) {
    return InvalidArgument(what + " must be an array of numbers");
  }
  if (value.numbers_kept) return value.numbers;
  if (SaturatingMul(value.count, sizeof(double) + item) > cap.bytes) {
    return InvalidArgument(what + ": its " + std::to_string(value.count) +
                           " values would pass the memory cap of " + FormatBytes(cap.bytes) +
                           " (--memory-cap-mib)");
  }
  const uint64_t bytes = value.count * item;
  auto raw =
      ReadRange(source, value.values_offset, SaturatingAdd(value.values_offset, bytes), what, name);
  if (!raw.ok()) return raw.error();
  std::vector<double> out;
  out.reserve(static_cast<size_t>(value.count));
  for (uint64_t k = 0; k < value.count; ++k) {
    const uint64_t r = LittleEndian(raw.value().data() + k * item, static_cast<int>(item));
    double d = 0;
    switch (value.element) {
      case GgufType::kUint8:
      case GgufType::kUint16:
      case GgufType::kUint32:
      case GgufType::kUint64:
      case GgufType::kBool:
        d = static_cast<double>(r);
        break;
      case GgufType::kInt8:
        d = static_cast<int8_t>(r);
        break;
      case GgufType::kInt16:
        d = static_cast<int16_t>(r);
        break;
      case GgufType::kInt32:
        d = static_cast<int32_t>(r);
        break;
      case GgufType::kInt64:
        d = static_cast<double>(static_cast<int64_t>(r));
        break;
      case GgufType::kFloat32:
        d = std::bit_cast<float>(static_cast<uint32_t>(r));
        break;
      case GgufType::kFloat64:
        d = std::bit_cast<double>(r);
        break;
      default:
        break;
    }
    out.push_back(d);
  }
  return out;
}

}  // namespace pe
