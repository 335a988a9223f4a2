// The headless UI harness: ImGui with a built font atlas and nothing rendered, driven the way a
// user's clicks and keys arrive (io.MousePos / MouseDown / MouseWheel / KeysDown and
// AddInputCharactersUTF8, ImGui 1.86). Shared by the headless UI tests.
#pragma once

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cmath>
#include <cstring>
#include <string>

#include "frame/frame.h"
#include "jobs/export_runner.h"
#include "test_support.h"
#include "ui/app_state.h"
#include "ui/derived.h"
#include "ui/ui.h"

namespace pe {

class HeadlessUi : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 800);
    io.DeltaTime = 1.0f / 60.0f;
    io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;  // as the OpenGL 3 backend sets
    io.KeyMap[ImGuiKey_A] = 'A';
    io.KeyMap[ImGuiKey_Enter] = 13;
    io.KeyMap[ImGuiKey_Backspace] = 8;
    io.KeyMap[ImGuiKey_Escape] = 27;
    io.KeyMap[ImGuiKey_Tab] = 9;
    services_.exports = &exports_;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  void TearDown() override { ImGui::DestroyContext(ctx_); }

  void Frame() {
    ImGui::NewFrame();
    DrawUi(state_, caches_, services_);
    ImGui::Render();
    ImGui::GetIO().MouseWheel = 0.0f;
  }
  void Frames(int n) {
    for (int k = 0; k < n; ++k) Frame();
  }

  // The child window whose id starts with `name` (e.g. "controls").
  ImGuiWindow* Child(const char* name) {
    const std::string needle = std::string("/") + name + "_";
    for (ImGuiWindow* w : GImGui->Windows) {
      if (std::strstr(w->Name, needle.c_str()) && std::strncmp(w->Name, "PE Explorer/", 12) == 0)
        return w;
    }
    return nullptr;
  }
  static ImGuiID Id(ImGuiWindow* w, const char* label) { return ImHashStr(label, 0, w->ID); }
  static ImGuiID IdUnderInt(ImGuiWindow* w, int n, const char* label) {
    return ImHashStr(label, 0, ImHashData(&n, sizeof n, w->ID));
  }
  // Moves the pointer down (or across, from `start`) until item `id` is hovered.
  // The controls panel and a point of its field `name`, found down the panel's left side.
  bool FindControlsField(const char* name, ImGuiWindow** controls, ImVec2* at) {
    *controls = Child("controls");
    if (*controls == nullptr) return false;
    const ImVec2 start((*controls)->Pos.x + 25, (*controls)->Pos.y);
    return Find(*controls, Id(*controls, name), start, false, at);
  }

  bool Find(ImGuiWindow* w, ImGuiID id, ImVec2 start, bool across, ImVec2* at) {
    ImGuiIO& io = ImGui::GetIO();
    const float end = across ? w->Pos.x + w->Size.x : w->Pos.y + w->Size.y;
    for (float t = across ? start.x : start.y; t < end; t += 3.0f) {
      io.MousePos = across ? ImVec2(t, start.y) : ImVec2(start.x, t);
      Frame();
      if (GImGui->HoveredId == id) {
        *at = io.MousePos;
        return true;
      }
    }
    return false;
  }
  void Click(ImVec2 at) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = at;
    Frame();
    io.MouseDown[0] = true;
    Frame();
    io.MouseDown[0] = false;
    Frame();
  }
  void SelectAllAndType(const char* text) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = true;
    io.KeysDown['A'] = true;
    Frame();
    io.KeysDown['A'] = false;
    io.KeyCtrl = false;
    Frame();
    io.AddInputCharactersUTF8(text);
    Frame();
    io.KeysDown[13] = true;
    Frame();
    io.KeysDown[13] = false;
    Frames(2);
  }
  // Screen position of the centre of heatmap cell (pos, dim).
  ImVec2 CellPixel(double pos, double dim) const {
    const HeatmapCache& c = caches_.heatmap;
    const PlotRange& v = state_.windows[ViewKind::kHeatmap].view;
    return ImVec2(static_cast<float>(c.plot_min.x + (dim + 0.5 - v.x0) / (v.x1 - v.x0) *
                                                        (c.plot_max.x - c.plot_min.x)),
                  static_cast<float>(c.plot_min.y + (pos + 0.5 - v.y0) / (v.y1 - v.y0) *
                                                        (c.plot_max.y - c.plot_min.y)));
  }

  ImGuiContext* ctx_ = nullptr;
  AppState state_;
  UiCaches caches_;
  MemoryTextureStore textures_;
  RasterWorker rasters_{/*synchronous=*/true};
  ExportRunner exports_{/*synchronous=*/true};
  UiServices services_{&textures_, &rasters_};
};

}  // namespace pe
