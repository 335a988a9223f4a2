// What an exported file says about its figure: PNG tEXt chunks, SVG <title> and <metadata>
// (with ids made stable across processes), and the values the PDF's metadata takes.
#include <zlib.h>

#include <cctype>
#include <map>
#include <sstream>

#include "figure/figure_render_internal.h"
#include "io/figure_metadata_reader.h"

namespace pe::figure_internal {

cairo_status_t AppendToString(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

namespace {

std::string XmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      // Character references, so an attribute keeps them (a parser turns a raw newline or tab
      // in an attribute value into a space).
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      case '\t':
        out += "&#9;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string Describe(const Figure& f) {
  std::string s;
  for (const auto& [k, v] : f.metadata) {
    if (!s.empty()) s += "; ";
    s += k;
    s += '=';
    s += v;
  }
  return s;
}

// PNG tEXt chunks (Latin-1 keyword, NUL, text) go right after IHDR.
std::string WithPngText(const std::string& png,
                        const std::vector<std::pair<std::string, std::string>>& entries) {
  constexpr size_t kAfterIhdr = 8 + 4 + 4 + 13 + 4;
  if (png.size() < kAfterIhdr) return png;
  std::string chunks;
  for (const auto& [key, text] : entries) {
    std::string data = key.substr(0, 79) + '\0' + text;
    std::string chunk;
    auto be32 = [&](uint32_t v) {
      for (int sh = 24; sh >= 0; sh -= 8) chunk += static_cast<char>((v >> sh) & 0xff);
    };
    be32(static_cast<uint32_t>(data.size()));
    const std::string body = "tEXt" + data;
    chunk += body;
    be32(static_cast<uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
    chunks += chunk;
  }
  return png.substr(0, kAfterIhdr) + chunks + png.substr(kAfterIhdr);
}

namespace {

// cairo numbers SVG ids (surface5, image6, glyph0-1, clip2) with counters that live as long as
// the process, so a second export from the window differed from the CLI's file. Renames every
// id, and the references to it (id="x", "#x", url(#x)), to its prefix and its order of first
// appearance: the same figure gives the same bytes in any process.
std::string WithStableSvgIds(const std::string& svg) {
  auto is_id_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; };
  std::map<std::string, std::string> renamed;
  std::map<std::string, int> count;  // per prefix
  for (size_t at = svg.find(" id=\""); at != std::string::npos; at = svg.find(" id=\"", at + 1)) {
    const size_t begin = at + 5;
    size_t end = begin;
    while (end < svg.size() && is_id_char(svg[end])) ++end;
    const std::string id = svg.substr(begin, end - begin);
    size_t letters = 0;
    while (letters < id.size() && std::isalpha(static_cast<unsigned char>(id[letters]))) ++letters;
    const std::string prefix = id.substr(0, letters);
    if (!renamed.count(id)) renamed[id] = prefix + std::to_string(count[prefix]++);
  }
  std::string out;
  out.reserve(svg.size());
  size_t at = 0;
  while (at < svg.size()) {
    const bool at_id = svg.compare(at, 5, " id=\"") == 0;
    const bool at_ref = svg[at] == '#';
    if (!at_id && !at_ref) {
      out += svg[at++];
      continue;
    }
    const size_t begin = at + (at_id ? 5 : 1);
    size_t end = begin;
    while (end < svg.size() && is_id_char(svg[end])) ++end;
    const auto it = renamed.find(svg.substr(begin, end - begin));
    out.append(svg, at, begin - at);
    out += it == renamed.end() ? svg.substr(begin, end - begin) : it->second;
    at = end;
  }
  return out;
}

}  // namespace

// Stable ids, nearest-neighbour hints on images, then <title> and <metadata> right after the
// <svg> tag.
std::string WithSvgMetadata(std::string svg, const Figure& f) {
  svg = WithStableSvgIds(svg);
  for (size_t at = svg.find("<image "); at != std::string::npos; at = svg.find("<image ", at + 1)) {
    svg.insert(at + 7, "image-rendering=\"optimizeSpeed\" style=\"image-rendering:pixelated\" ");
  }
  const size_t open = svg.find("<svg");
  const size_t end = open == std::string::npos ? open : svg.find('>', open);
  if (end == std::string::npos) return svg;
  std::string meta =
      "\n<title>" + XmlEscape(f.title.empty() ? "PE Explorer figure" : f.title) + "</title>\n";
  meta += "<desc>" + XmlEscape(Describe(f)) +
          "</desc>\n<metadata>\n<pe:figure xmlns:pe=\"urn:pe-explorer:figure\">\n";
  for (const auto& [k, v] : f.metadata) {
    meta += "  <pe:param name=\"" + XmlEscape(k) + "\" value=\"" + XmlEscape(v) + "\"/>\n";
  }
  meta += "</pe:figure>\n</metadata>";
  svg.insert(end + 1, meta);
  return svg;
}

std::string MetadataValue(const Figure& f, const std::string& key) {
  for (const auto& [k, v] : f.metadata) {
    if (k == key) return v;
  }
  return "";
}

}  // namespace pe::figure_internal
