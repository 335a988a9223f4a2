// Decoded RGBA images for tests that read back pixels (PNG via stb_image, which libstb ships).
#pragma once

#include <stb_image.h>

#include <string>
#include <vector>

namespace pe::testing {

struct RgbaImage {
  int w = 0, h = 0;
  std::vector<unsigned char> rgba;  // (h, w, 4)
  const unsigned char* at(int x, int y) const {
    return &rgba[(static_cast<size_t>(y) * w + x) * 4];
  }
};

inline RgbaImage DecodePng(const std::string& bytes) {
  RgbaImage img;
  int n = 0;
  unsigned char* px = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(bytes.data()),
                                            static_cast<int>(bytes.size()), &img.w, &img.h, &n, 4);
  if (px) {
    img.rgba.assign(px, px + static_cast<size_t>(img.w) * img.h * 4);
    stbi_image_free(px);
  }
  return img;
}

}  // namespace pe::testing
