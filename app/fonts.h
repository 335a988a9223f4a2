// Fonts for the UI: DejaVu Sans (fonts-dejavu-core) at a size scaled for the screen, or ImGui's
// built-in font when the file is missing.
#pragma once

namespace pe {

// Adds the UI font to the current ImGui context's atlas. Returns the pixel size used.
float LoadUiFont(float scale);

}  // namespace pe
