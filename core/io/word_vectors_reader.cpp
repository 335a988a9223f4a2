#include "io/word_vectors_reader.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace pe {
namespace {

// Bytes per word charged against the cap besides its characters and values: the string, its
// copy in the duplicate map and the map node (an estimate on the high side).
constexpr uint64_t kBytesPerWord = 128;
// A header's d above this is taken for a corrupt file (real vectors have hundreds).
constexpr int64_t kMaxDimensions = int64_t{1} << 24;
// A word2vec binary word longer than this is taken for a corrupt file.
constexpr uint64_t kMaxBinaryWordBytes = 1 << 16;

std::string Line(int64_t line) {
  std::string s = "line ";
  s += std::to_string(line);
  s += ": ";
  return s;
}

// A token for a message, cut to 40 bytes and with control bytes shown as \xNN.
std::string Show(std::span<const std::byte> s) {
  std::string out = "\"";
  for (size_t k = 0; k < s.size() && k < 40; ++k) {
    const auto c = static_cast<unsigned char>(s[k]);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > 40) out += "...";
  out += '"';
  return out;
}

bool IsBlank(std::byte b) {
  return b == std::byte{' '} || b == std::byte{'\t'};
}

// Reads a source forward: lines for the text formats, raw bytes for the binary one. A stream
// is read in growing chunks as far as the parser goes, never all at once.
class Cursor {
 public:
  explicit Cursor(ByteSource& source) : source_(source) {}

  // Makes bytes [0, n) available when the source has them (fewer only at its end).
  Status Want(uint64_t n) {
    if (n <= bytes_.size() || done_) return {};
    uint64_t ask = std::max<uint64_t>({n, 2 * bytes_.size(), 1 << 16});
    if (source_.KnownSize()) ask = std::max<uint64_t>(ask, *source_.KnownSize());
    auto r = source_.Prefix(ask);
    if (!r.ok()) {
      // Asking ahead may pass a stream's limit; ask for exactly n before giving up.
      r = source_.Prefix(n);
      if (!r.ok()) return r.status();
      ask = n;
    }
    bytes_ = r.value();
    if (bytes_.size() < ask) done_ = true;
    return {};
  }
  std::span<const std::byte> bytes() const { return bytes_; }
  uint64_t pos() const { return pos_; }
  void set_pos(uint64_t p) { pos_ = p; }

  // The next line without its '\n' as [start, end); false at the end. A NUL byte is refused
  // at once (a text file never holds one), so /dev/zero fails on its first byte.
  Result<bool> NextLine(int64_t line_no, uint64_t& start, uint64_t& end) {
    if (Status s = Want(pos_ + 1); !s.ok()) return s.error();
    if (pos_ >= bytes_.size()) return false;
    uint64_t k = pos_;
    for (;;) {
      const auto* base = reinterpret_cast<const char*>(bytes_.data());
      const void* nl = std::memchr(base + k, '\n', bytes_.size() - k);
      const uint64_t stop =
          nl ? static_cast<uint64_t>(static_cast<const char*>(nl) - base) : bytes_.size();
      if (const void* nul = std::memchr(base + k, 0, stop - k)) {
        return InvalidArgument(Line(line_no) + "a NUL byte at byte " +
                               std::to_string(static_cast<const char*>(nul) - base) +
                               "; expected text (is this a binary file? name the "
                               "word2vec-binary format)");
      }
      if (nl) {
        start = pos_, end = stop, pos_ = stop + 1;
        return true;
      }
      k = stop;
      if (done_) break;
      if (Status s = Want(k + 1); !s.ok()) return s.error();
      if (k >= bytes_.size()) break;
    }
    start = pos_, end = bytes_.size(), pos_ = bytes_.size();
    return true;
  }

 private:
  ByteSource& source_;
  std::span<const std::byte> bytes_;
  bool done_ = false;
  uint64_t pos_ = 0;
};

// Splits a text line into tokens separated by spaces or tabs; a '\r' before the newline and
// trailing blanks (fastText writes "... vd \n") are dropped.
void Tokens(std::span<const std::byte> line, std::vector<std::span<const std::byte>>& out) {
  size_t n = line.size();
  while (n > 0 && (IsBlank(line[n - 1]) || line[n - 1] == std::byte{'\r'})) --n;
  out.clear();
  size_t k = 0;
  while (k < n) {
    size_t e = k;
    while (e < n && !IsBlank(line[e])) ++e;
    out.push_back(line.subspan(k, e - k));
    k = e;
    while (k < n && IsBlank(line[k])) ++k;
  }
}

// One number, correctly rounded to float32. Underflow rounds toward zero as float32 must;
// overflow (beyond float32's range) is an error. Returns what is wrong, or nullptr.
const char* ParseValue(std::span<const std::byte> token, float& out) {
  const auto* b = reinterpret_cast<const char*>(token.data());
  const char* e = b + token.size();
  auto [p, ec] = std::from_chars(b, e, out);
  if (ec == std::errc::result_out_of_range && p == e) {
    double d = 0;
    auto [p2, ec2] = std::from_chars(b, e, d);
    if (ec2 == std::errc() && p2 == e && std::fabs(d) < 1) {
      out = static_cast<float>(d);
      return nullptr;
    }
    return " is beyond float32's range (+-3.4e38)";
  }
  if (ec != std::errc() || p != e) return " is not a number";
  return nullptr;
}

bool IsUnsigned(std::span<const std::byte> t, int64_t& v) {
  if (t.empty()) return false;
  for (std::byte c : t) {
    if (c < std::byte{'0'} || c > std::byte{'9'}) return false;
  }
  const auto* b = reinterpret_cast<const char*>(t.data());
  auto [p, ec] = std::from_chars(b, b + t.size(), v);
  return ec == std::errc() && p == b + t.size();
}

class Reader {
 public:
  Reader(ByteSource& source, const MemoryCap& cap) : cursor_(source), source_(source), cap_(cap) {}

  Result<WordVectors> Run(WordVectorFormat format) {
    uint64_t start = 0, end = 0;
    auto first = cursor_.NextLine(1, start, end);
    if (!first.ok()) return first.error();
    if (!first.value()) {
      return InvalidArgument(
          "the file is empty; expected word vectors (GloVe rows, or a \"V d\" header line)");
    }
    std::vector<std::span<const std::byte>> tokens;
    Tokens(cursor_.bytes().subspan(start, end - start), tokens);
    int64_t v = 0, d = 0;
    const bool header = tokens.size() == 2 && IsUnsigned(tokens[0], v) && IsUnsigned(tokens[1], d);
    const bool header_format = format == WordVectorFormat::kVecText ||
                               format == WordVectorFormat::kWord2VecBinary ||
                               (format == WordVectorFormat::kAuto && header);
    if (header_format && header && (d < 1 || d > kMaxDimensions)) {
      return InvalidArgument(Line(1) + "the header's d is " + std::to_string(d) +
                             "; expected 1 to " + std::to_string(kMaxDimensions));
    }
    if (format == WordVectorFormat::kAuto) {
      format = !header ? WordVectorFormat::kGloveText : DetectAfterHeader(d);
    }
    out_.format = format;
    if (format == WordVectorFormat::kGloveText) {
      cursor_.set_pos(0);
      Status s = ReadTextRows(-1, 1);
      if (!s.ok()) return s.error();
      return Finish();
    }
    if (!header) {
      return InvalidArgument(Line(1) +
                             "expected the header \"V d\" (two integers: words and "
                             "dimensions) of the " +
                             std::string(WordVectorFormatName(format)) + " format, found " +
                             Show(cursor_.bytes().subspan(start, end - start)));
    }
    d_ = d;
    if (Status s = CheckHeader(v, d, format == WordVectorFormat::kWord2VecBinary); !s.ok()) {
      return s.error();
    }
    Status s = format == WordVectorFormat::kVecText ? ReadTextRows(v, 2) : ReadBinaryRows(v);
    if (!s.ok()) return s.error();
    return Finish();
  }

 private:
  // After a header: text rows make the .vec format, anything else word2vec's binary one.
  WordVectorFormat DetectAfterHeader(int64_t d) {
    const uint64_t pos = cursor_.pos();
    const uint64_t look = pos + 256 + 48 * static_cast<uint64_t>(std::max<int64_t>(d, 0));
    if (!cursor_.Want(look).ok()) return WordVectorFormat::kWord2VecBinary;
    auto bytes = cursor_.bytes();
    if (pos >= bytes.size()) return WordVectorFormat::kVecText;  // no rows: either reads the same
    uint64_t nl = pos;
    while (nl < bytes.size() && bytes[nl] != std::byte{'\n'}) ++nl;
    if (nl == bytes.size() && bytes.size() >= look) return WordVectorFormat::kWord2VecBinary;
    const auto line = bytes.subspan(pos, nl - pos);
    for (std::byte c : line) {  // text is tabs, spaces, '\r' and printable bytes
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != std::byte{'\t'} && c != std::byte{'\r'}) || u == 0x7f) {
        return WordVectorFormat::kWord2VecBinary;
      }
    }
    return WordVectorFormat::kVecText;
  }

  // Refuses a header whose table would not fit the cap, or whose rows could not fit in the
  // bytes the file has, before anything is allocated.
  Status CheckHeader(int64_t v, int64_t d, bool binary) {
    Status s = CheckFloatCount("the header's table", static_cast<uint64_t>(v),
                               static_cast<uint64_t>(d), cap_);
    if (!s.ok()) return InvalidArgument(Line(1) + s.message());
    const auto uv = static_cast<uint64_t>(v);
    const uint64_t need = uv * static_cast<uint64_t>(d) * 4;  // fits: checked above
    if (uv > (std::numeric_limits<uint64_t>::max() - need) / kBytesPerWord ||
        need + uv * kBytesPerWord > cap_.bytes) {
      return InvalidArgument(Line(1) + "the header's " + std::to_string(v) +
                             " words need more than the memory cap of " + FormatBytes(cap_.bytes) +
                             " with their strings");
    }
    if (const auto size = source_.KnownSize()) {
      const uint64_t rest = *size - std::min(*size, cursor_.pos());
      // The shortest row: a 1-byte word, then d values as " 0" (text) or a space and d
      // float32 (binary). d is at most kMaxDimensions here.
      const uint64_t row =
          binary ? 4 * static_cast<uint64_t>(d) + 2 : 2 * static_cast<uint64_t>(d) + 1;
      if (uv > rest / row) {
        return InvalidArgument(Line(1) + "the header says " + std::to_string(v) + " words of " +
                               std::to_string(d) + " values, at least " + std::to_string(row) +
                               " bytes each, but only " + std::to_string(rest) +
                               " bytes follow the header");
      }
      out_.words.reserve(static_cast<size_t>(uv));
      table_.reserve(static_cast<size_t>(uv * static_cast<uint64_t>(d)));
    }
    return {};
  }

  // Charges one row against the cap and records its word; `where` prefixes messages.
  template <class Where>
  Status AddWord(std::span<const std::byte> word, int64_t d, const Where& where_fn,
                 int64_t line_no) {
    if (word.empty()) return InvalidArgument(where_fn() + "an empty word");
    size_t bad = 0;
    if (!IsValidUtf8(word, &bad)) {
      return InvalidArgument(where_fn() + "the word " + Show(word) + " is not valid UTF-8 (byte " +
                             std::to_string(bad) + " of the word)");
    }
    used_ += 4 * static_cast<uint64_t>(d) + 2 * word.size() + kBytesPerWord;
    if (used_ > cap_.bytes) {
      return InvalidArgument(where_fn() + "the vocabulary and table so far (" +
                             std::to_string(out_.words.size() + 1) + " words of " +
                             std::to_string(d) + " values) need about " + FormatBytes(used_) +
                             ", over the memory cap of " + FormatBytes(cap_.bytes));
    }
    std::string w(reinterpret_cast<const char*>(word.data()), word.size());
    auto [it, inserted] = seen_.emplace(w, line_no);
    if (!inserted) {
      return InvalidArgument(where_fn() + "the word " + Show(word) + " appears again (first at " +
                             (out_.format == WordVectorFormat::kWord2VecBinary ? "row " : "line ") +
                             std::to_string(it->second) + "); expected unique words");
    }
    out_.words.push_back(std::move(w));
    return {};
  }

  void Count(float x) {
    if (std::isnan(x)) ++out_.nan_count;
    if (std::isinf(x)) ++out_.inf_count;
  }

  // Text rows from the cursor; `expect` rows (-1: until the end, GloVe), the first on line
  // `line_no`. GloVe takes d from its first row.
  Status ReadTextRows(int64_t expect, int64_t line_no) {
    const bool glove = expect < 0;
    const std::string source_of_d = glove ? " (the count on line 1)" : " (the header's d)";
    int64_t rows = 0;
    std::vector<std::span<const std::byte>> tokens;
    for (;; ++line_no) {
      uint64_t start = 0, end = 0;
      auto more = cursor_.NextLine(line_no, start, end);
      if (!more.ok()) return more.status();
      if (!more.value()) break;
      const auto line = cursor_.bytes().subspan(start, end - start);
      Tokens(line, tokens);
      if (!glove && rows == expect) {
        return InvalidArgument(Line(line_no) + "a row after the " + std::to_string(expect) +
                               " the header (line 1) announced");
      }
      if (tokens.empty()) {
        return InvalidArgument(Line(line_no) + "an empty line; expected a word and its values");
      }
      if (IsBlank(line[0])) {
        return InvalidArgument(Line(line_no) + "the line starts with a blank; expected a word");
      }
      if (glove && rows == 0) {
        d_ = static_cast<int64_t>(tokens.size()) - 1;
        if (d_ == 0) {
          return InvalidArgument(Line(line_no) + "the word " + Show(tokens[0]) +
                                 " has no values; expected \"word v1 ... vd\"");
        }
      }
      const auto values = static_cast<int64_t>(tokens.size()) - 1;
      if (values != d_) {
        return InvalidArgument(Line(line_no) + "the word " + Show(tokens[0]) + " has " +
                               std::to_string(values) + " values; expected " + std::to_string(d_) +
                               source_of_d + (values > d_ ? " (a word with a space in it?)" : ""));
      }
      if (Status s = AddWord(
              tokens[0], d_, [&] { return Line(line_no); }, line_no);
          !s.ok()) {
        return s;
      }
      for (int64_t k = 1; k <= d_; ++k) {
        float x = 0;
        const auto token = tokens[static_cast<size_t>(k)];
        if (const char* wrong = ParseValue(token, x)) {
          return InvalidArgument(Line(line_no) + "value " + std::to_string(k) + " of " +
                                 Show(tokens[0]) + ", " + Show(token) + wrong);
        }
        Count(x);
        table_.push_back(x);
      }
      ++rows;
    }
    if (!glove && rows < expect) {
      return InvalidArgument(Line(line_no) + "the file ends after " + std::to_string(rows) +
                             " rows; the header (line 1) says " + std::to_string(expect));
    }
    if (glove && rows == 0) return InvalidArgument("no rows; expected \"word v1 ... vd\" lines");
    return {};
  }

  // word2vec binary rows after the header line: [\n...] word ' ' d x float32 LE.
  Status ReadBinaryRows(int64_t expect) {
    const uint64_t row_bytes = 4 * static_cast<uint64_t>(d_);
    for (int64_t r = 1; r <= expect; ++r) {
      uint64_t p = cursor_.pos();
      // word2vec.c ends each row with '\n'; gensim strips newlines before a word.
      for (;;) {
        if (Status s = cursor_.Want(p + 1); !s.ok()) return s;
        if (p < cursor_.bytes().size() && cursor_.bytes()[p] == std::byte{'\n'}) {
          ++p;
        } else {
          break;
        }
      }
      auto where = [&r, start = p] {
        std::string w = "row ";
        w += std::to_string(r);
        w += ", byte ";
        w += std::to_string(start);
        w += ": ";
        return w;
      };
      uint64_t e = p;
      for (;; ++e) {
        if (e - p > kMaxBinaryWordBytes) {
          return InvalidArgument(where() + "no space after " + std::to_string(kMaxBinaryWordBytes) +
                                 " bytes; expected a word, a space and " + std::to_string(d_) +
                                 " float32 values");
        }
        if (Status s = cursor_.Want(e + 1); !s.ok()) return s;
        if (e >= cursor_.bytes().size()) {
          return InvalidArgument(where() + "the file ends after " + std::to_string(r - 1) +
                                 " rows; the header (line 1) says " + std::to_string(expect));
        }
        const std::byte c = cursor_.bytes()[e];
        if (c == std::byte{' '}) break;
        if (c == std::byte{0} || c == std::byte{'\n'}) {
          return InvalidArgument(where() + "byte " + std::to_string(e) + " inside the word " +
                                 Show(cursor_.bytes().subspan(p, e - p + 1)) +
                                 "; expected a word, then a space");
        }
      }
      if (Status s = cursor_.Want(e + 1 + row_bytes); !s.ok()) return s;
      const auto bytes = cursor_.bytes();
      if (Status s = AddWord(bytes.subspan(p, e - p), d_, where, r); !s.ok()) {
        return s;
      }
      if (bytes.size() < e + 1 + row_bytes) {
        return InvalidArgument(where() + "the file ends inside the values of " +
                               Show(bytes.subspan(p, e - p)) + ": expected " +
                               std::to_string(row_bytes) + " bytes (" + std::to_string(d_) +
                               " float32), found " + std::to_string(bytes.size() - e - 1));
      }
      const std::byte* v = bytes.data() + e + 1;
      for (int64_t k = 0; k < d_; ++k, v += 4) {
        const uint32_t bits = static_cast<uint32_t>(v[0]) | static_cast<uint32_t>(v[1]) << 8 |
                              static_cast<uint32_t>(v[2]) << 16 | static_cast<uint32_t>(v[3]) << 24;
        const float x = std::bit_cast<float>(bits);
        Count(x);
        table_.push_back(x);
      }
      cursor_.set_pos(e + 1 + row_bytes);
    }
    uint64_t p = cursor_.pos();
    for (;;) {
      if (Status s = cursor_.Want(p + 1); !s.ok()) return s;
      if (p < cursor_.bytes().size() && cursor_.bytes()[p] == std::byte{'\n'}) {
        ++p;
      } else {
        break;
      }
    }
    if (p < cursor_.bytes().size()) {
      return InvalidArgument("byte " + std::to_string(p) + ": data after the " +
                             std::to_string(expect) +
                             " rows the header (line 1) announced; expected the end of the file");
    }
    return {};
  }

  Result<WordVectors> Finish() {
    out_.table.rows = static_cast<int64_t>(out_.words.size());
    out_.table.cols = d_;
    out_.table.data = std::move(table_);
    return std::move(out_);
  }

  Cursor cursor_;
  ByteSource& source_;
  MemoryCap cap_;
  WordVectors out_;
  std::vector<float> table_;                       // (rows so far, d)
  std::unordered_map<std::string, int64_t> seen_;  // word -> line (or row) of first use
  uint64_t used_ = 0;                              // bytes charged against the cap
  int64_t d_ = 0;                                  // values per row
};

}  // namespace

const char* WordVectorFormatName(WordVectorFormat format) {
  switch (format) {
    case WordVectorFormat::kAuto:
      return "auto";
    case WordVectorFormat::kGloveText:
      return "glove";
    case WordVectorFormat::kVecText:
      return "vec";
    case WordVectorFormat::kWord2VecBinary:
      return "word2vec-binary";
  }
  return "?";
}

Result<WordVectors> ReadWordVectors(ByteSource& source, WordVectorFormat format,
                                    const MemoryCap& cap) {
  Reader reader(source, cap);
  return reader.Run(format);
}

Result<WordVectors> ReadWordVectors(std::span<const std::byte> bytes, WordVectorFormat format,
                                    const MemoryCap& cap) {
  SpanSource source(bytes);
  return ReadWordVectors(source, format, cap);
}

Result<WordVectors> ReadWordVectorsFile(const std::string& path, WordVectorFormat format,
                                        const MemoryCap& cap) {
  auto source = FileSource::Open(path, cap.bytes);
  if (!source.ok()) return source.error();
  auto result =
      CatchReaderExceptions(path, [&] { return ReadWordVectors(*source.value(), format, cap); });
  if (result.ok() || result.message().rfind(Quoted(path), 0) == 0) return result;
  return Error{result.error().kind, Quoted(path) + ": " + result.message()};
}

}  // namespace pe
