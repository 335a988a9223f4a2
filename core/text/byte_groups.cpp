#include "text/byte_groups.h"

namespace pe {

std::vector<ByteFallbackGroup> ByteFallbackGroups(const SubwordTokenizer& tokenizer,
                                                  std::span<const int64_t> ids) {
  std::vector<ByteFallbackGroup> out;
  size_t k = 0;
  while (k < ids.size()) {
    const int lead = tokenizer.ByteFallbackByte(ids[k]);
    // The UTF-8 length a lead byte announces (RFC 3629): 110xxxxx 2, 1110xxxx 3, 11110xxx 4.
    const size_t length = lead >= 0xC2 && lead <= 0xDF   ? 2
                          : lead >= 0xE0 && lead <= 0xEF ? 3
                          : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                         : 0;
    if (length == 0 || k + length > ids.size()) {
      ++k;
      continue;
    }
    char32_t cp = static_cast<char32_t>(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
    std::string bytes(1, static_cast<char>(lead));
    bool whole = true;
    for (size_t j = 1; j < length && whole; ++j) {
      const int b = tokenizer.ByteFallbackByte(ids[k + j]);
      whole = b >= 0x80 && b <= 0xBF;
      if (whole) {
        cp = (cp << 6) | static_cast<char32_t>(b & 0x3F);
        bytes.push_back(static_cast<char>(b));
      }
    }
    const char32_t least = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
    whole = whole && cp >= least && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    if (!whole) {
      ++k;
      continue;
    }
    out.push_back({k, length, std::move(bytes), cp});
    k += length;
  }
  return out;
}

}  // namespace pe
