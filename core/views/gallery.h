// The gallery: figures of the field's papers and tutorials, each a preset of this app's own
// views (scheme, parameters, view, ranges) written as the `export` flags that draw it, with its
// source. `export --figure NAME` and the window's Gallery menu apply the same flags; the
// exported figure's metadata records every parameter, as for any export.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace pe {

struct GalleryFigure {
  std::string_view name;         // `export --figure NAME`
  std::string_view label;        // the Gallery menu's item
  std::string_view description;  // one line: what it shows
  std::string_view source;       // title, authors, year, figure or section
  // The `export` flags that draw it, flag then value ("--view", "heatmap", ...); a switch is
  // a flag alone. They hold a --view and a --title.
  std::span<const std::string_view> flags;
};

// Every figure, in the menu's order (names unique, lower case with dashes).
std::span<const GalleryFigure> GalleryFigures();
// nullptr when no figure has the name.
const GalleryFigure* FindGalleryFigure(std::string_view name);
// "a, b, c": every name, for a refusal.
std::string GalleryNames();

}  // namespace pe
