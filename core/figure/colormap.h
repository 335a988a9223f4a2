// Colormaps as data: a few key colours expanded into a 256-entry lookup table, and one function
// that turns values into RGBA. The screen texture, the colour bar and exported images all come
// from these same pixels.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pe {

enum class ColormapId { kRdBu, kViridis, kCividis };
inline constexpr int kColormapCount = 3;

std::string_view ColormapName(ColormapId id);  // "rdbu", "viridis", "cividis"
std::optional<ColormapId> ParseColormap(std::string_view name);

struct Rgba8 {
  uint8_t r = 0, g = 0, b = 0, a = 255;
  bool operator==(const Rgba8&) const = default;
};

inline constexpr int kLutSize = 256;
using ColorLut = std::array<Rgba8, kLutSize>;

// kRdBu: ColorBrewer's 11-class RdBu (low = red, middle = near white, high = blue), as matplotlib.
// kViridis: matplotlib's viridis, from 9 key colours.
// kCividis: cividis (Nunez et al. 2018; matplotlib's table), from 86 key colours.
const ColorLut& GetColormap(ColormapId id);

// The key colours the LUT interpolates linearly, evenly spaced from vmin to vmax.
const std::vector<Rgba8>& ColormapKeys(ColormapId id);

// The LUT index of v on [vmin, vmax]: round((v - vmin) / (vmax - vmin) * 255), clamped; NaN -> 0.
int ColormapIndex(float v, float vmin, float vmax);

inline Rgba8 MapValue(ColormapId id, float v, float vmin, float vmax) {
  return GetColormap(id)[static_cast<size_t>(ColormapIndex(v, vmin, vmax))];
}

// values (n) -> rgba (n * 4 bytes).
void MapToRgba(ColormapId id, const float* values, int64_t n, float vmin, float vmax,
               uint8_t* rgba);

// The selected row's outline, shared by the heatmap panel and exported figures.
//
// SelectionHighlightColor: an opaque colour far from every colour of the map, so the outline
// reads on any cell (viridis ends in yellow, so a gold outline vanishes on +1). It is the colour of
// an RGB grid (steps of 17) whose smallest CIE76 distance (CIELAB, D65) to the 256 LUT entries is
// the largest; ColorDistanceLab measures that distance. Computed once per map.
Rgba8 SelectionHighlightColor(ColormapId id);
double ColorDistanceLab(Rgba8 a, Rgba8 b);  // CIE76 delta E between two sRGB colours

// The outline's line width, in the same unit as `row_height` (screen pixels, or figure layout
// units): 1 while rows are dense (under 4 units), growing to 2.5 for tall rows, so the line never
// hides the rows around the selected one.
double SelectionLineWidth(double row_height);

}  // namespace pe
