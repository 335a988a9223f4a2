#include "fonts.h"

#include <imgui.h>

#include <cstdio>

namespace pe {

float LoadUiFont(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  const float size = 15.0f * scale;
  const char* path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  if (FILE* f = std::fopen(path, "rb")) {
    std::fclose(f);
    // Latin-1 plus Greek (omega, lambda), arrows, math operators (sqrt) and the open-box space.
    static const ImWchar kRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2190, 0x21FF,
                                      0x2200, 0x22FF, 0x2420, 0x2426, 0};
    if (io.Fonts->AddFontFromFileTTF(path, size, nullptr, kRanges)) return size;
  }
  ImFontConfig config;
  config.SizePixels = 13.0f * scale;
  io.Fonts->AddFontDefault(&config);
  return config.SizePixels;
}

}  // namespace pe
