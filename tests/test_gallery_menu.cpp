// The window's Gallery menu, headless: clicking an item applies the figure's preset (scheme,
// parameters, view) as one undo step.
#include <cstring>

#include "headless_ui.h"
#include "ui/session.h"
#include "views/gallery.h"

namespace pe {
namespace {

class GalleryMenu : public HeadlessUi {
 protected:
  // The open menu's popup window ("##Menu_00"), or nullptr.
  static ImGuiWindow* OpenMenuPopup() {
    for (ImGuiWindow* w : GImGui->Windows) {
      if (std::strncmp(w->Name, "##Menu_", 7) == 0 && w->Active) return w;
    }
    return nullptr;
  }
  // Clicks the Gallery menu, then its item for figure `name`.
  bool ClickGalleryItem(const char* name) {
    ImGuiWindow* host = ImGui::FindWindowByName("PE Explorer");
    if (host == nullptr) return false;
    const ImGuiID menubar = ImHashStr("##menubar", 0, host->ID);
    ImVec2 at;
    const float y = host->Pos.y + host->MenuBarHeight() * 0.5f;
    if (!Find(host, ImHashStr("Gallery", 0, menubar), ImVec2(host->Pos.x + 2, y), true, &at)) {
      return false;
    }
    Click(at);
    ImGuiWindow* popup = OpenMenuPopup();
    if (popup == nullptr) return false;
    const GalleryFigure* f = FindGalleryFigure(name);
    const std::string label(f->label);
    const ImGuiID item =
        ImHashStr(label.c_str(), 0, ImHashStr(f->name.data(), f->name.size(), popup->ID));
    if (!Find(popup, item, ImVec2(popup->Pos.x + 20, popup->Pos.y), false, &at)) return false;
    Click(at);
    return true;
  }
};

TEST_F(GalleryMenu, AnItemAppliesTheFigureAsOneUndoStep) {
  Frames(3);
  const ModelParams before = state_.params;
  ASSERT_EQ(before.pe.kind(), Scheme::kSinusoidal);
  ASSERT_TRUE(ClickGalleryItem("roformer-decay"));
  Frames(2);
  // RoFormer's Figure 2: rope, head dim 128, 251 distances, its view on show and focused.
  ASSERT_EQ(state_.params.pe.kind(), Scheme::kRope);
  EXPECT_EQ(state_.params.pe.d_model, 128);
  EXPECT_EQ(state_.params.pe.max_len, 251);
  EXPECT_EQ(state_.focused_view, ViewKind::kRoformerDecay);
  EXPECT_EQ(state_.export_dialog.view, ViewKind::kRoformerDecay);
  EXPECT_EQ(state_.export_dialog.title, "RoFormer's Figure 2: long-term decay, d 128");
  // One step back is the parameters before.
  ASSERT_FALSE(state_.history.undo.empty());
  Undo(state_);
  Frames(2);
  EXPECT_TRUE(state_.params == before);
}

TEST_F(GalleryMenu, EveryFigureAppliesInTheWindow) {
  Frames(2);
  for (const GalleryFigure& f : GalleryFigures()) {
    SCOPED_TRACE(std::string(f.name));
    ASSERT_TRUE(ApplyGalleryFigure(state_, f.name).ok());
    Frames(2);
    EXPECT_FALSE(state_.toast.error) << state_.toast.text;
  }
  // The last one (the bf16 precision figure): rope, 65536 positions, the precision view.
  EXPECT_EQ(state_.params.pe.max_len, 65536);
  EXPECT_EQ(state_.focused_view, ViewKind::kPrecision);
  EXPECT_FALSE(ApplyGalleryFigure(state_, "no-such-figure").ok());
}

}  // namespace
}  // namespace pe
