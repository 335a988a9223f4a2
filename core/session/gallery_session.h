// A gallery figure (views/gallery.h) as what it shows: its flags read as `export` reads them,
// into the view, parameters and selection the window applies from its Gallery menu.
#pragma once

#include <string_view>
#include <vector>

#include "session/figure_session.h"
#include "views/gallery.h"

namespace pe {

// The figure's flags as CommandFlags (a flag followed by a value, or a switch alone).
std::vector<CommandFlag> GalleryCommandFlags(const GalleryFigure& figure);

// What `export --figure NAME` draws: the view, parameters, selection, size and title. An
// unknown name is refused, listing the names.
Result<FigureSession> GalleryFigureSession(std::string_view name, const MemoryCap& cap = {});

}  // namespace pe
