#include "io/figure_metadata_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <string_view>

#include "io/read_support.h"

namespace pe {
namespace {

constexpr std::string_view kPngSignature("\x89PNG\r\n\x1a\n", 8);
constexpr std::string_view kSvgFigureOpen = "<pe:figure xmlns:pe=\"urn:pe-explorer:figure\">";
constexpr std::string_view kPdfKeywords = "/Keywords (";
constexpr std::string_view kPdfMarker = "pe-figure:";
constexpr std::string_view kNotOurs =
    "has no PE Explorer metadata: it is not a figure this app exported (or its metadata was "
    "removed)";

uint32_t Crc32(std::string_view bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  uint32_t c = 0xffffffffu;
  for (char ch : bytes) c = table[(c ^ static_cast<unsigned char>(ch)) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

uint32_t Be32(std::string_view s, size_t at) {
  uint32_t v = 0;
  for (size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(s[at + k]);
  return v;
}

Status AddEntry(FigureFileMetadata& out, std::set<std::string>& seen, std::string key,
                std::string value) {
  if (key.empty()) return InvalidArgument("has a metadata entry with an empty key");
  if (!seen.insert(key).second) {
    return InvalidArgument("has the metadata key \"" + key + "\" twice");
  }
  out.entries.emplace_back(std::move(key), std::move(value));
  return Status();
}

Result<FigureFileMetadata> ParsePng(std::string_view s) {
  FigureFileMetadata out;
  out.format = FigureFileFormat::kPng;
  std::set<std::string> seen;
  size_t at = kPngSignature.size();
  bool first = true;
  while (true) {
    if (s.size() - at < 12) {
      return InvalidArgument("ends at byte " + std::to_string(s.size()) +
                             " before the PNG's IEND chunk: the file is cut short");
    }
    const uint32_t length = Be32(s, at);
    const std::string_view type = s.substr(at + 4, 4);
    if (length > s.size() - at - 12) {
      return InvalidArgument("ends inside the PNG chunk at byte " + std::to_string(at) +
                             ": the file is cut short");
    }
    const std::string_view body = s.substr(at + 4, 4 + length);
    if (Crc32(body) != Be32(s, at + 8 + length)) {
      return InvalidArgument("has a damaged PNG chunk at byte " + std::to_string(at) +
                             " (its checksum does not match)");
    }
    if (first && type != "IHDR") return InvalidArgument("is not a valid PNG (no IHDR first)");
    first = false;
    if (type == "tEXt") {
      const std::string_view data = body.substr(4);
      const size_t nul = data.find('\0');
      if (nul == std::string_view::npos) {
        return InvalidArgument("has a PNG text chunk without a keyword at byte " +
                               std::to_string(at));
      }
      const std::string_view keyword = data.substr(0, nul);
      if (keyword.substr(0, 3) == "pe:") {
        if (Status st = AddEntry(out, seen, std::string(keyword.substr(3)),
                                 std::string(data.substr(nul + 1)));
            !st.ok()) {
          return st.error();
        }
      }
    }
    at += 12 + length;
    if (type == "IEND") break;
  }
  return out;
}

Result<std::string> XmlUnescape(std::string_view s) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] != '&') {
      out += s[k];
      continue;
    }
    const size_t semi = s.find(';', k);
    const std::string_view entity =
        semi == std::string_view::npos ? s.substr(k) : s.substr(k, semi - k + 1);
    if (entity == "&amp;") {
      out += '&';
    } else if (entity == "&lt;") {
      out += '<';
    } else if (entity == "&gt;") {
      out += '>';
    } else if (entity == "&quot;") {
      out += '"';
    } else if (entity == "&#10;") {
      out += '\n';
    } else if (entity == "&#13;") {
      out += '\r';
    } else if (entity == "&#9;") {
      out += '\t';
    } else {
      return InvalidArgument("has an unknown XML entity \"" + std::string(entity.substr(0, 12)) +
                             "\" in its metadata");
    }
    k += entity.size() - 1;
  }
  return out;
}

Result<FigureFileMetadata> ParseSvg(std::string_view s) {
  FigureFileMetadata out;
  out.format = FigureFileFormat::kSvg;
  size_t end = s.size();
  while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == ' ' || s[end - 1] == '\r')) --end;
  if (end < 6 || s.substr(end - 6, 6) != "</svg>") {
    return InvalidArgument("does not end with </svg>: the SVG is cut short");
  }
  const size_t open = s.find(kSvgFigureOpen);
  if (open == std::string_view::npos) return InvalidArgument(std::string(kNotOurs));
  std::set<std::string> seen;
  size_t at = open + kSvgFigureOpen.size();
  constexpr std::string_view kParam = "<pe:param name=\"";
  constexpr std::string_view kValue = "\" value=\"";
  while (true) {
    while (at < s.size() && (s[at] == ' ' || s[at] == '\n')) ++at;
    if (s.substr(at, 12) == "</pe:figure>") break;
    if (s.substr(at, kParam.size()) != kParam) {
      return InvalidArgument("has damaged metadata at byte " + std::to_string(at) +
                             " (expected <pe:param name=... or </pe:figure>)");
    }
    const size_t name_begin = at + kParam.size();
    const size_t name_end = s.find(kValue, name_begin);
    if (name_end == std::string_view::npos) {
      return InvalidArgument("has damaged metadata at byte " + std::to_string(at));
    }
    const size_t value_begin = name_end + kValue.size();
    const size_t value_end = s.find("\"/>", value_begin);
    if (value_end == std::string_view::npos ||
        s.substr(name_begin, name_end - name_begin).find('"') != std::string_view::npos ||
        s.substr(value_begin, value_end - value_begin).find('"') != std::string_view::npos) {
      return InvalidArgument("has damaged metadata at byte " + std::to_string(at));
    }
    Result<std::string> key = XmlUnescape(s.substr(name_begin, name_end - name_begin));
    if (!key.ok()) return key.error();
    Result<std::string> value = XmlUnescape(s.substr(value_begin, value_end - value_begin));
    if (!value.ok()) return value.error();
    if (Status st = AddEntry(out, seen, std::move(key).value(), std::move(value).value());
        !st.ok()) {
      return st.error();
    }
    at = value_end + 3;
  }
  return out;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

Result<std::string> PercentDecode(std::string_view s) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] != '%') {
      out += s[k];
      continue;
    }
    const int hi = k + 2 < s.size() ? HexDigit(s[k + 1]) : -1;
    const int lo = k + 2 < s.size() ? HexDigit(s[k + 2]) : -1;
    if (hi < 0 || lo < 0) return InvalidArgument("has a bad %-escape in its PDF metadata");
    out += static_cast<char>(hi * 16 + lo);
    k += 2;
  }
  return out;
}

Result<FigureFileMetadata> ParsePdf(std::string_view s) {
  FigureFileMetadata out;
  out.format = FigureFileFormat::kPdf;
  size_t end = s.size();
  while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == '\r' || s[end - 1] == ' ')) --end;
  if (end < 5 || s.substr(end - 5, 5) != "%%EOF") {
    return InvalidArgument("does not end with %%EOF: the PDF is cut short");
  }
  const size_t keywords = s.find(kPdfKeywords);
  if (keywords == std::string_view::npos) return InvalidArgument(std::string(kNotOurs));
  const size_t close = s.find(')', keywords);
  if (close == std::string_view::npos) return InvalidArgument("has damaged PDF metadata");
  const size_t marker = s.substr(keywords, close - keywords).find(kPdfMarker);
  if (marker == std::string_view::npos) return InvalidArgument(std::string(kNotOurs));
  const size_t begin = keywords + marker + kPdfMarker.size();
  const std::string_view text = s.substr(begin, close - begin);
  std::set<std::string> seen;
  size_t at = 0;
  while (at < text.size()) {
    size_t space = text.find(' ', at);
    if (space == std::string_view::npos) space = text.size();
    const std::string_view item = text.substr(at, space - at);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument("has damaged PDF metadata (an entry without '=')");
    }
    Result<std::string> k = PercentDecode(item.substr(0, eq));
    if (!k.ok()) return k.error();
    Result<std::string> v = PercentDecode(item.substr(eq + 1));
    if (!v.ok()) return v.error();
    if (Status st = AddEntry(out, seen, std::move(k).value(), std::move(v).value()); !st.ok()) {
      return st.error();
    }
    at = space + 1;
  }
  return out;
}

}  // namespace

std::string PercentEncode(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
        std::strchr("-._,:/+", c) != nullptr) {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

Result<FigureFileMetadata> ParseFigureMetadata(std::span<const std::byte> bytes) {
  const std::string_view s(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  Result<FigureFileMetadata> r = InvalidArgument("");
  if (s.substr(0, kPngSignature.size()) == kPngSignature) {
    r = ParsePng(s);
  } else if (s.substr(0, 5) == "%PDF-") {
    r = ParsePdf(s);
  } else {
    size_t at = 0;
    while (at < s.size() && (s[at] == ' ' || s[at] == '\n' || s[at] == '\r' || s[at] == '\t')) {
      ++at;
    }
    if (s.substr(at, 5) != "<?xml" && s.substr(at, 4) != "<svg") {
      return InvalidArgument(s.empty() ? "is empty" : "is not a PNG, SVG or PDF file");
    }
    r = ParseSvg(s);
  }
  if (r.ok() && r.value().entries.empty()) return InvalidArgument(std::string(kNotOurs));
  return r;
}

Result<FigureFileMetadata> ReadFigureMetadata(const std::string& path) {
  auto named = [&](const std::string& what) { return "\"" + path + "\" " + what; };
  // Opened once, without waiting for a FIFO's writer, and checked by what was opened: a
  // path swapped for a FIFO after a stat cannot hold the read.
  const RegularFileReader file = RegularFileReader::Open(path);
  if (file.failure() == RegularFileReader::Failure::kCannotRead) {
    return RuntimeError(named(std::string("cannot be read: ") + std::strerror(file.error())));
  }
  if (file.failure() == RegularFileReader::Failure::kNotRegular) {
    if (S_ISDIR(file.mode())) return InvalidArgument(named("is a directory, not a figure file"));
    return InvalidArgument(
        named(std::string("is ") + FileKindName(file.mode()) + ", not a regular file"));
  }
  if (file.size() > kMaxFigureFileBytes) {
    return InvalidArgument(named("is larger than the " + std::to_string(kMaxFigureFileBytes >> 20) +
                                 " MiB a figure file may have"));
  }
  const int fd = file.fd();
  std::string bytes(static_cast<size_t>(file.size()), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return RuntimeError(named(std::string("cannot be read: ") + std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got != bytes.size()) return RuntimeError(named("changed while it was read (it got shorter)"));
  Result<FigureFileMetadata> r = CatchReaderExceptions(
      path, [&] { return ParseFigureMetadata(std::as_bytes(std::span(bytes))); });
  if (!r.ok()) return InvalidArgument(named(r.message()));
  return r;
}

}  // namespace pe
