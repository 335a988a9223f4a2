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
    if (io.Fonts->AddFontFromFileTTF(path, size)) return size;
  }
  ImFontConfig config;
  config.SizePixels = 13.0f * scale;
  io.Fonts->AddFontDefault(&config);
  return config.SizePixels;
}

}  // namespace pe
