#include "figure/colormap.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

namespace pe {
namespace {

const std::vector<uint32_t>& KeyHex(ColormapId id) {
  static const std::vector<uint32_t> rdbu = {0x67001f, 0xb2182b, 0xd6604d, 0xf4a582,
                                             0xfddbc7, 0xf7f7f7, 0xd1e5f0, 0x92c5de,
                                             0x4393c3, 0x2166ac, 0x053061};
  static const std::vector<uint32_t> viridis = {0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c,
                                                0x28ae80, 0x5ec962, 0xaddc30, 0xfde725};
  // cividis (Nunez, Anderton and Renslow 2018, "Optimizing colormaps with consideration for
  // color vision deficiency", PLOS ONE 13(7): e0199239): every third entry (0, 3, ..., 255) of
  // the 256-entry table matplotlib ships as _cividis_data (lib/matplotlib/_cm_listed.py), each
  // channel times 255 and rounded. The red channel is 0 up to entry 22 and then rises, a knee
  // that sparse keys would cut: with every third entry the interpolated LUT stays within 2.1/255
  // of the full table (9 keys would be 18/255 off).
  static const std::vector<uint32_t> cividis = {
      0x00224e, 0x002553, 0x002758, 0x00295d, 0x002b62, 0x002d68, 0x002f6d, 0x003170, 0x053371,
      0x0f3570, 0x163770, 0x1c396f, 0x213b6e, 0x263d6e, 0x2a3f6d, 0x2e416d, 0x32436d, 0x35456c,
      0x39486c, 0x3c4a6c, 0x3f4c6c, 0x424e6c, 0x45506c, 0x48526c, 0x4b546c, 0x4e566c, 0x51586d,
      0x545a6d, 0x565c6d, 0x595e6e, 0x5c616e, 0x5e636f, 0x61656f, 0x646770, 0x666970, 0x696b71,
      0x6c6d72, 0x6e6f73, 0x717274, 0x737475, 0x767676, 0x787877, 0x7b7a78, 0x7e7c78, 0x807f78,
      0x838179, 0x868379, 0x898578, 0x8c8878, 0x8f8a78, 0x928c78, 0x948e77, 0x979177, 0x9a9376,
      0x9d9576, 0xa09875, 0xa39a74, 0xa69c74, 0xa99f73, 0xaca172, 0xafa471, 0xb3a670, 0xb6a96f,
      0xb9ab6d, 0xbcae6c, 0xbfb06b, 0xc2b369, 0xc5b568, 0xc8b866, 0xccba64, 0xcfbd62, 0xd2c060,
      0xd5c25e, 0xd9c55c, 0xdcc859, 0xdfca57, 0xe2cd54, 0xe6d051, 0xe9d34e, 0xedd54a, 0xf0d846,
      0xf3db42, 0xf7de3e, 0xfbe138, 0xfee434, 0xfee838};
  switch (id) {
    case ColormapId::kRdBu:
      return rdbu;
    case ColormapId::kViridis:
      return viridis;
    case ColormapId::kCividis:
      return cividis;
  }
  return rdbu;
}

ColorLut Expand(const std::vector<uint32_t>& keys) {
  ColorLut lut{};
  const double segments = static_cast<double>(keys.size() - 1);
  for (int k = 0; k < kLutSize; ++k) {
    const double t = static_cast<double>(k) / (kLutSize - 1) * segments;
    const size_t i = std::min(static_cast<size_t>(t), keys.size() - 2);
    const double f = t - static_cast<double>(i);
    auto channel = [&](int shift) {
      const double a = (keys[i] >> shift) & 0xff, b = (keys[i + 1] >> shift) & 0xff;
      return static_cast<uint8_t>(std::lround(a + (b - a) * f));
    };
    lut[static_cast<size_t>(k)] = {channel(16), channel(8), channel(0), 255};
  }
  return lut;
}

// sRGB (0..255) -> CIELAB, D65 white (IEC 61966-2-1 transfer curve; CIE 15 Lab), in double.
std::array<double, 3> ToLab(Rgba8 c) {
  auto linear = [](uint8_t v) {
    const double s = v / 255.0;
    return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
  };
  const double r = linear(c.r), g = linear(c.g), b = linear(c.b);
  const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
  const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
  const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
  auto f = [](double t) {
    return t > 216.0 / 24389.0 ? std::cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0;
  };
  return {116.0 * f(y) - 16.0, 500.0 * (f(x) - f(y)), 200.0 * (f(y) - f(z))};
}

Rgba8 FarthestFrom(const ColorLut& lut) {
  std::vector<std::array<double, 3>> lab;
  for (const Rgba8& c : lut) lab.push_back(ToLab(c));
  Rgba8 best{};
  double best_distance = -1;
  for (int r = 0; r <= 255; r += 17) {
    for (int g = 0; g <= 255; g += 17) {
      for (int b = 0; b <= 255; b += 17) {
        const Rgba8 c{static_cast<uint8_t>(r), static_cast<uint8_t>(g), static_cast<uint8_t>(b),
                      255};
        const std::array<double, 3> p = ToLab(c);
        double nearest = 1e300;  // squared: the same order as the distance, without 1M roots
        for (const auto& q : lab) {
          const double d0 = p[0] - q[0], d1 = p[1] - q[1], d2 = p[2] - q[2];
          nearest = std::min(nearest, d0 * d0 + d1 * d1 + d2 * d2);
        }
        if (nearest > best_distance) {
          best_distance = nearest;
          best = c;
        }
      }
    }
  }
  return best;
}

}  // namespace

std::string_view ColormapName(ColormapId id) {
  switch (id) {
    case ColormapId::kRdBu:
      return "rdbu";
    case ColormapId::kViridis:
      return "viridis";
    case ColormapId::kCividis:
      return "cividis";
  }
  return "rdbu";
}

std::optional<ColormapId> ParseColormap(std::string_view name) {
  if (name == "rdbu") return ColormapId::kRdBu;
  if (name == "viridis") return ColormapId::kViridis;
  if (name == "cividis") return ColormapId::kCividis;
  return std::nullopt;
}

const ColorLut& GetColormap(ColormapId id) {
  static const std::array<ColorLut, kColormapCount> luts = [] {
    std::array<ColorLut, kColormapCount> out;
    for (int k = 0; k < kColormapCount; ++k) out[k] = Expand(KeyHex(static_cast<ColormapId>(k)));
    return out;
  }();
  return luts[static_cast<size_t>(id)];
}

const std::vector<Rgba8>& ColormapKeys(ColormapId id) {
  auto to_rgba = [](const std::vector<uint32_t>& hex) {
    std::vector<Rgba8> keys;
    for (uint32_t h : hex) {
      keys.push_back({static_cast<uint8_t>(h >> 16), static_cast<uint8_t>(h >> 8),
                      static_cast<uint8_t>(h), 255});
    }
    return keys;
  };
  static const std::array<std::vector<Rgba8>, kColormapCount> keys = [&] {
    std::array<std::vector<Rgba8>, kColormapCount> out;
    for (int k = 0; k < kColormapCount; ++k) out[k] = to_rgba(KeyHex(static_cast<ColormapId>(k)));
    return out;
  }();
  return keys[static_cast<size_t>(id)];
}

int ColormapIndex(float v, float vmin, float vmax) {
  if (!(v == v)) return 0;
  const double t = (static_cast<double>(v) - vmin) / (static_cast<double>(vmax) - vmin);
  const long k = std::lround(t * (kLutSize - 1));
  return static_cast<int>(std::clamp(k, 0L, static_cast<long>(kLutSize - 1)));
}

Rgba8 SelectionHighlightColor(ColormapId id) {
  // Each map's on first use only (about 2 ms each; all of them at start-up cost the first frame
  // 25 ms).
  static std::array<std::once_flag, kColormapCount> once;
  static std::array<Rgba8, kColormapCount> colors;
  const auto k = static_cast<size_t>(id);
  std::call_once(once[k], [&] { colors[k] = FarthestFrom(GetColormap(id)); });
  return colors[k];
}

double ColorDistanceLab(Rgba8 a, Rgba8 b) {
  const std::array<double, 3> p = ToLab(a), q = ToLab(b);
  return std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

double SelectionLineWidth(double row_height) {
  return std::clamp(row_height / 4.0, 1.0, 2.5);
}

void MapToRgba(ColormapId id, const float* values, int64_t n, float vmin, float vmax,
               uint8_t* rgba) {
  const ColorLut& lut = GetColormap(id);
  for (int64_t k = 0; k < n; ++k) {
    const Rgba8 c = lut[static_cast<size_t>(ColormapIndex(values[k], vmin, vmax))];
    rgba[4 * k + 0] = c.r;
    rgba[4 * k + 1] = c.g;
    rgba[4 * k + 2] = c.b;
    rgba[4 * k + 3] = c.a;
  }
}

}  // namespace pe
