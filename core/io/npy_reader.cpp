#include "io/npy_reader.h"

#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

namespace pe {
namespace {

constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 20;  // a 3-D float header is ~128 bytes

std::string At(uint64_t offset) {
  std::string s = "byte ";
  s += std::to_string(offset);
  s += ": ";
  return s;
}

// How a byte reads in a message: 'x', or "byte 0x93".
std::string Describe(std::span<const std::byte> text, size_t pos) {
  if (pos >= text.size()) return "the end of the header";
  const auto c = static_cast<unsigned char>(text[pos]);
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
  return buf;
}

// Recursive-descent parser for the header dict; offsets in messages are file offsets.
class DictParser {
 public:
  DictParser(std::span<const std::byte> text, uint64_t base) : text_(text), base_(base) {}

  Status Parse(NpyHeaderInfo& out) {
    SkipSpace();
    if (Status s = Expect('{', "'{' opening the header dict"); !s.ok()) return s;
    bool have_descr = false, have_order = false, have_shape = false;
    for (;;) {
      SkipSpace();
      if (Peek() == '}') {
        ++pos_;
        break;
      }
      const size_t key_pos = pos_;
      std::string key;
      if (Status s = ParseString(key, "a key ('descr', 'fortran_order' or 'shape') or '}'");
          !s.ok())
        return s;
      bool* seen = key == "descr"           ? &have_descr
                   : key == "fortran_order" ? &have_order
                   : key == "shape"         ? &have_shape
                                            : nullptr;
      if (seen == nullptr) {
        return Fail(key_pos, "unexpected key '" + key +
                                 "'; expected only 'descr', 'fortran_order' and 'shape'");
      }
      if (*seen) return Fail(key_pos, "the key '" + key + "' appears twice");
      *seen = true;
      SkipSpace();
      if (Status s = Expect(':', "':' after the key '" + key + "'"); !s.ok()) return s;
      SkipSpace();
      Status s = key == "descr"           ? ParseDescr(out)
                 : key == "fortran_order" ? ParseBool(out.fortran_order)
                                          : ParseShape(out.shape);
      if (!s.ok()) return s;
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
      } else if (Peek() != '}') {
        return Fail(pos_, "expected ',' or '}' after the value of '" + key + "', found " +
                              Describe(text_, pos_));
      }
    }
    const char* missing = !have_descr ? "descr" : !have_order ? "fortran_order" : nullptr;
    if (missing == nullptr && !have_shape) missing = "shape";
    if (missing != nullptr) {
      return Fail(pos_ - 1, std::string("the header dict has no '") + missing +
                                "' key; expected 'descr', 'fortran_order' and 'shape'");
    }
    // numpy pads with spaces and ends the header with '\n'; nothing else may follow the dict.
    for (; pos_ < text_.size(); ++pos_) {
      const char c = Peek();
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return Fail(pos_, "expected only spaces and a newline after the header dict, found " +
                              Describe(text_, pos_));
      }
    }
    // NEP 1: the header "is terminated by a newline (\n)"; numpy always writes one.
    if (text_.empty() || static_cast<char>(text_.back()) != '\n') {
      const size_t last = text_.empty() ? 0 : text_.size() - 1;
      return Fail(last, "the header ends with " + Describe(text_, last) +
                            "; expected it to end with a newline ('\\n')");
    }
    return {};
  }

 private:
  char Peek() const { return pos_ < text_.size() ? static_cast<char>(text_[pos_]) : '\0'; }
  bool AtEnd() const { return pos_ >= text_.size(); }
  void SkipSpace() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r')) {
      ++pos_;
    }
  }
  Status Fail(size_t pos, const std::string& what) const {
    return InvalidArgument(At(base_ + pos) + what);
  }
  Status Expect(char c, const std::string& what) {
    if (!AtEnd() && Peek() == c) {
      ++pos_;
      return {};
    }
    return Fail(pos_, "expected " + what + ", found " + Describe(text_, pos_));
  }
  // A Python string literal without escapes ('...' or "...").
  Status ParseString(std::string& out, const std::string& what) {
    const char quote = Peek();
    if (AtEnd() || (quote != '\'' && quote != '"')) {
      return Fail(pos_, "expected " + what + ", found " + Describe(text_, pos_));
    }
    const size_t start = ++pos_;
    while (!AtEnd() && Peek() != quote) {
      const auto c = static_cast<unsigned char>(Peek());
      if (c == '\\' || c == '\n' || c < 0x20 || c >= 0x7f) {
        return Fail(pos_, "unexpected " + Describe(text_, pos_) +
                              " in a string (plain ASCII without escapes expected)");
      }
      ++pos_;
    }
    if (AtEnd()) return Fail(start - 1, "the string opened here is never closed");
    out.assign(reinterpret_cast<const char*>(text_.data()) + start, pos_ - start);
    ++pos_;
    return {};
  }
  Status ParseDescr(NpyHeaderInfo& out) {
    const size_t start = pos_;
    if (Status s = ParseString(out.descr, "a string for 'descr' such as '<f4'"); !s.ok()) return s;
    const std::string& d = out.descr;
    const bool order_ok = d.size() == 3 && (d[0] == '<' || d[0] == '>');
    const bool type_ok =
        d.size() == 3 && d[1] == 'f' && (d[2] == '2' || d[2] == '4' || d[2] == '8');
    if (!order_ok || !type_ok) {
      return Fail(start, "'descr' is '" + d +
                             "'; expected a float type: '<f2', '<f4', '<f8' (little-endian) or "
                             "'>f2', '>f4', '>f8' (big-endian)");
    }
    out.big_endian = d[0] == '>';
    out.type = d[2] == '2'   ? NpyFloatType::kFloat16
               : d[2] == '4' ? NpyFloatType::kFloat32
                             : NpyFloatType::kFloat64;
    return {};
  }
  Status ParseBool(bool& out) {
    for (const char* word : {"True", "False"}) {
      const size_t n = std::strlen(word);
      if (pos_ + n <= text_.size() && std::memcmp(text_.data() + pos_, word, n) == 0) {
        const char next = pos_ + n < text_.size() ? static_cast<char>(text_[pos_ + n]) : ' ';
        if (std::isalnum(static_cast<unsigned char>(next)) || next == '_') break;
        out = word[0] == 'T';
        pos_ += n;
        return {};
      }
    }
    return Fail(pos_, "expected True or False for 'fortran_order', found " + Describe(text_, pos_));
  }
  Status ParseInt(int64_t& out) {
    const size_t start = pos_;
    if (AtEnd() || Peek() < '0' || Peek() > '9') {
      return Fail(pos_,
                  "expected a dimension (a non-negative integer), found " + Describe(text_, pos_));
    }
    uint64_t v = 0;
    while (!AtEnd() && Peek() >= '0' && Peek() <= '9') {
      const auto digit = static_cast<uint64_t>(Peek() - '0');
      if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10) {
        return Fail(start, "a dimension does not fit in 64 bits");
      }
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ - start > 1 && text_[start] == std::byte{'0'}) {
      return Fail(start, "a dimension with a leading zero (not a Python integer literal)");
    }
    if (!AtEnd() && (Peek() == 'L' || Peek() == 'l')) ++pos_;  // Python 2 long, as numpy allows
    out = static_cast<int64_t>(v);
    return {};
  }
  Status ParseShape(std::vector<int64_t>& shape) {
    const size_t start = pos_;
    if (Status s = Expect('(', "'(' opening the 'shape' tuple"); !s.ok()) return s;
    bool trailing_comma = false;
    for (;;) {
      SkipSpace();
      if (Peek() == ')') {
        ++pos_;
        break;
      }
      int64_t dim = 0;
      if (Status s = ParseInt(dim); !s.ok()) return s;
      if (shape.size() == 3) {
        return Fail(start, "the shape has more than 3 dimensions; expected 1, 2 or 3");
      }
      shape.push_back(dim);
      SkipSpace();
      trailing_comma = false;
      if (Peek() == ',') {
        ++pos_;
        trailing_comma = true;
      } else if (Peek() != ')') {
        return Fail(pos_,
                    "expected ',' or ')' in the 'shape' tuple, found " + Describe(text_, pos_));
      }
    }
    if (shape.size() == 1 && !trailing_comma) {
      return Fail(start, "'shape' (" + std::to_string(shape[0]) +
                             ") is not a tuple; a 1-tuple is written (" + std::to_string(shape[0]) +
                             ",)");
    }
    if (shape.empty()) {
      return Fail(start, "the shape () is a 0-D array; expected 1, 2 or 3 dimensions");
    }
    return {};
  }

  std::span<const std::byte> text_;
  uint64_t base_;
  size_t pos_ = 0;
};

int ItemBytes(NpyFloatType t) {
  return t == NpyFloatType::kFloat16 ? 2 : t == NpyFloatType::kFloat32 ? 4 : 8;
}

uint64_t LoadUint(const std::byte* p, int bytes, bool big_endian) {
  uint64_t v = 0;
  for (int k = 0; k < bytes; ++k) {
    const auto b = static_cast<uint64_t>(p[big_endian ? k : bytes - 1 - k]);
    v = (v << 8) | b;
  }
  return v;
}

}  // namespace

Result<NpyHeaderInfo> ReadNpyHeader(ByteSource& source, const MemoryCap& cap) {
  auto pre = source.Prefix(12);
  if (!pre.ok()) return pre.error();
  std::span<const std::byte> p = pre.value();
  static const unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  for (size_t k = 0; k < 6; ++k) {
    if (k >= p.size()) {
      return InvalidArgument(At(p.size()) +
                             "the file ends inside the magic; expected "
                             "\\x93NUMPY (the NPY magic)");
    }
    if (static_cast<unsigned char>(p[k]) != kMagic[k]) {
      return InvalidArgument(At(k) + "found " + Describe(p, k) +
                             "; expected the NPY magic \\x93NUMPY (is this an .npy file?)");
    }
  }
  if (p.size() < 8) return InvalidArgument(At(p.size()) + "the file ends before the version");
  NpyHeaderInfo h;
  const auto major = static_cast<int>(p[6]);
  const auto minor = static_cast<int>(p[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return InvalidArgument(At(6) + "format version " + std::to_string(major) + "." +
                           std::to_string(minor) + "; expected 1.0, 2.0 or 3.0");
  }
  h.version_major = major;
  const int len_bytes = major == 1 ? 2 : 4;
  if (p.size() < static_cast<size_t>(8 + len_bytes)) {
    return InvalidArgument(At(p.size()) + "the file ends inside the " + std::to_string(len_bytes) +
                           "-byte header length");
  }
  const uint64_t header_len = LoadUint(p.data() + 8, len_bytes, false);
  const uint64_t dict_start = 8 + static_cast<uint64_t>(len_bytes);
  if (header_len > kMaxHeaderBytes) {
    return InvalidArgument(At(8) + "header length " + std::to_string(header_len) +
                           " bytes; expected at most " + std::to_string(kMaxHeaderBytes) +
                           " (an NPY header of a float array is about 128 bytes)");
  }
  auto whole = source.Prefix(dict_start + header_len);
  if (!whole.ok()) return whole.error();
  if (whole.value().size() < dict_start + header_len) {
    return InvalidArgument(At(whole.value().size()) + "the file ends inside the header, which " +
                           "byte 8 says runs to byte " + std::to_string(dict_start + header_len));
  }
  const std::span<const std::byte> dict = whole.value().subspan(dict_start, header_len);
  // Versions 1 and 2 are latin-1; version 3 is UTF-8. Either way the keys and values numpy
  // writes are ASCII, and the parser refuses any other byte outside the padding.
  DictParser parser(dict, dict_start);
  if (Status s = parser.Parse(h); !s.ok()) return s.error();
  if (Status s = CheckTensorCap(h.shape, cap); !s.ok()) {
    return InvalidArgument(At(dict_start) + "the header's " + s.message());
  }
  h.data_offset = dict_start + header_len;
  const uint64_t count = *ShapeCount(h.shape);  // fits: the cap check passed
  const auto item = static_cast<uint64_t>(ItemBytes(h.type));
  if (count > std::numeric_limits<uint64_t>::max() / item) {
    return InvalidArgument(At(dict_start) + "shape " + FormatShape(h.shape) + " of '" + h.descr +
                           "' needs more than 16 EiB");
  }
  h.data_bytes = count * item;
  return h;
}

Result<NpyFloatArray> ReadNpy(ByteSource& source, const MemoryCap& cap) {
  auto header = ReadNpyHeader(source, cap);
  if (!header.ok()) return header.error();
  NpyFloatArray out;
  out.header = std::move(header).value();
  const NpyHeaderInfo& h = out.header;
  const uint64_t end = h.data_offset + h.data_bytes;
  if (end < h.data_offset) return InvalidArgument(At(h.data_offset) + "data size overflows");
  // One byte past the end tells an exact file from one with bytes the header does not explain.
  auto all = source.Prefix(end + 1);
  if (!all.ok()) return all.error();
  const std::span<const std::byte> bytes = all.value();
  const std::string what = "shape " + FormatShape(h.shape) + " of '" + h.descr + "' needs " +
                           std::to_string(h.data_bytes) + " bytes of data from byte " +
                           std::to_string(h.data_offset);
  if (bytes.size() < end) {
    return InvalidArgument(At(bytes.size()) + "the file ends " +
                           std::to_string(end - bytes.size()) + " bytes early: the header's " +
                           what);
  }
  if (bytes.size() > end) {
    std::string extra = source.KnownSize() ? std::to_string(*source.KnownSize() - end) : "more";
    return InvalidArgument(At(end) + extra + " bytes after the data: the header's " + what +
                           ", ending at byte " + std::to_string(end));
  }
  const uint64_t count = *ShapeCount(h.shape);
  out.tensor.shape = h.shape;
  out.tensor.data.resize(static_cast<size_t>(count));
  const std::byte* src = bytes.data() + h.data_offset;
  float* dst = out.tensor.data.data();
  // Dimensions padded to 3; the file holds element (i, j, l) at i + d0 * (j + d1 * l) in Fortran
  // order and at (i * d1 + j) * d2 + l in C order. The output is always C order.
  const auto d0 = static_cast<uint64_t>(h.shape[0]);
  const uint64_t d1 = h.shape.size() > 1 ? static_cast<uint64_t>(h.shape[1]) : 1;
  const uint64_t d2 = h.shape.size() > 2 ? static_cast<uint64_t>(h.shape[2]) : 1;
  // An empty tensor has nothing to convert: a Fortran loop over its other dimensions (one of
  // them may be 2^31 or more) would only spin.
  const bool fortran = h.fortran_order && h.shape.size() > 1 && count > 0;
  auto run = [&](auto convert) {
    if (count == 0) return;
    const auto item = static_cast<uint64_t>(ItemBytes(h.type));
    if (!fortran) {
      for (uint64_t k = 0; k < count; ++k) dst[k] = convert(src + k * item);
      return;
    }
    uint64_t k = 0;
    for (uint64_t l = 0; l < d2; ++l) {
      for (uint64_t j = 0; j < d1; ++j) {
        for (uint64_t i = 0; i < d0; ++i, ++k) dst[(i * d1 + j) * d2 + l] = convert(src + k * item);
      }
    }
  };
  // One loop per dtype and byte order, so the element loop has no branches on either.
  auto dispatch = [&](auto big_endian) {
    constexpr bool kBe = decltype(big_endian)::value;
    switch (h.type) {
      case NpyFloatType::kFloat16:
        run([](const std::byte* p) {
          return HalfToFloat(static_cast<uint16_t>(LoadUint(p, 2, kBe)));
        });
        break;
      case NpyFloatType::kFloat32:
        if (!fortran && !kBe && std::endian::native == std::endian::little) {
          if (count > 0) std::memcpy(dst, src, static_cast<size_t>(count) * 4);
        } else {
          run([](const std::byte* p) {
            return std::bit_cast<float>(static_cast<uint32_t>(LoadUint(p, 4, kBe)));
          });
        }
        break;
      case NpyFloatType::kFloat64:
        run([](const std::byte* p) {
          return static_cast<float>(std::bit_cast<double>(LoadUint(p, 8, kBe)));  // nearest even
        });
        break;
    }
  };
  if (h.big_endian) {
    dispatch(std::true_type{});
  } else {
    dispatch(std::false_type{});
  }
  CountNonFinite(out.tensor);
  if (h.type == NpyFloatType::kFloat64 && out.tensor.inf_count > 0) {
    // Which infinities were finite doubles: only then is the source read again.
    for (uint64_t k = 0; k < count; ++k) {
      const double x = std::bit_cast<double>(LoadUint(src + 8 * k, 8, h.big_endian));
      if (std::isfinite(x) && std::isinf(static_cast<float>(x))) ++out.tensor.overflow_count;
    }
  }
  return out;
}

Result<NpyFloatArray> ReadNpy(std::span<const std::byte> bytes, const MemoryCap& cap) {
  SpanSource source(bytes);
  return ReadNpy(source, cap);
}

Result<NpyFloatArray> ReadNpyFile(const std::string& path, const MemoryCap& cap) {
  // A stream is held in memory whole: header plus data, which the cap bounds.
  auto source = FileSource::Open(path, SaturatingAdd(cap.bytes, kMaxHeaderBytes + 16));
  if (!source.ok()) return source.error();
  auto result = CatchReaderExceptions(path, [&] { return ReadNpy(*source.value(), cap); });
  if (result.ok()) return result;
  const std::string& m = result.message();
  if (m.rfind(Quoted(path), 0) == 0) return result;  // the source already named the file
  return Error{result.error().kind, Quoted(path) + ": " + m};
}

}  // namespace pe
