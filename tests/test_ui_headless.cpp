// Panels driven for several frames without a GPU or window: ImGui with a built font atlas and
// nothing rendered. Input goes through io.MousePos / MouseDown / KeysDown (ImGui 1.86).
#include <gtest/gtest.h>
#include <imgui.h>

#include "app_state.h"
#include "derived.h"
#include "ui.h"

namespace pe {
namespace {

class HeadlessUi : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 800);
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  void TearDown() override { ImGui::DestroyContext(ctx_); }
  void Frame() {
    ImGui::NewFrame();
    DrawUi(state_, cache_);
    ImGui::Render();
  }
  void Frames(int n) {
    for (int k = 0; k < n; ++k) Frame();
  }
  ImGuiContext* ctx_ = nullptr;
  AppState state_;
  DerivedCache cache_;
};

TEST_F(HeadlessUi, DefaultStateRunsAndDerivesTheExample) {
  Frames(5);
  const Derived& d = cache_.get();
  ASSERT_TRUE(d.pe_status.ok());
  EXPECT_EQ(d.columns.size(), 128u);
  EXPECT_NEAR(d.summary.norm_pe1, 8.0, 1e-12);  // sqrt(64 pairs)
  ASSERT_TRUE(d.sentence.ok());
  EXPECT_EQ(d.sentence.value().tokens.size(), 6u);
}

TEST_F(HeadlessUi, InvalidValuesShowAnErrorAndTheAppKeepsRunning) {
  Frames(2);
  state_.params.pe.d_model = 0;
  Frames(3);
  EXPECT_FALSE(cache_.get().pe_status.ok());
  EXPECT_FALSE(cache_.get().sentence.ok());
  state_.params.pe.d_model = 64;
  Frames(2);
  EXPECT_TRUE(cache_.get().pe_status.ok());
  EXPECT_EQ(cache_.get().columns.size(), 64u);
}

TEST_F(HeadlessUi, DerivedDataIsRebuiltOnlyWhenItsInputsChange) {
  Frames(3);
  const int gen = cache_.get().generation;
  Frames(10);
  EXPECT_EQ(cache_.get().generation, gen);
  state_.params.pe.base = 500.0;
  Frames(1);
  EXPECT_EQ(cache_.get().generation, gen + 1);
}

}  // namespace
}  // namespace pe
