// The attention walkthrough in the window (headless) and as a handout from the command line: the
// switch between the walkthroughs, live numbers when a parameter changes, a preset that starts
// at step 1, and PDFs of both walkthroughs with one page per step and the step titles.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "headless_ui.h"
#include "model/param_fields.h"
#include "model/walkthrough_presets.h"
#include "panels/panels.h"
#include "views/view_registry.h"

namespace pe {
namespace {

class AttentionWalkthroughPanel : public HeadlessUi {};

// RoPE with q = k = ones: (1/sqrt(d)) sum_i 2 cos(3 base^(-2i/d)) (RoFormer eq. 16).
double RopeOnes(int64_t d, double base) {
  double s = 0;
  for (int64_t i = 0; i < d / 2; ++i) {
    s += 2 * std::cos(3 * std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d)));
  }
  return s / std::sqrt(static_cast<double>(d));
}

TEST_F(AttentionWalkthroughPanel, ShowsTheAttentionStepsWithLiveNumbers) {
  Edit(state_, [](AppState& st) {
    SetScheme(st.params, Scheme::kRope);
    st.params.pe.d_model = 8;
    st.params.pe.max_len = 32;
    st.params.content.kind = ScoreContent::Kind::kOnes;
    st.params.walkthrough = WalkthroughKind::kAttention;
  });
  state_.select_tab = ViewKind::kWalkthrough;
  Frames(3);
  // RoPE adds nothing, yet the tab is there: the attention walkthrough applies to every scheme.
  ASSERT_NE(caches_.drawn.walkthrough, nullptr) << "the walkthrough tab is not drawn";
  EXPECT_EQ(caches_.drawn.walkthrough->kind, WalkthroughKind::kAttention);
  EXPECT_EQ(caches_.drawn.walkthrough->pages.size(), static_cast<size_t>(kAttentionStepCount));
  EXPECT_NEAR(caches_.drawn.walkthrough->attention.score, RopeOnes(8, 10000.0), 1e-9);
  for (double theta : {500.0, 1e6}) {
    Edit(state_, [theta](AppState& st) { st.params.pe.rope().theta = theta; });
    Frame();
    ASSERT_NE(caches_.drawn.walkthrough, nullptr);
    EXPECT_NEAR(caches_.drawn.walkthrough->attention.score, RopeOnes(8, theta), 1e-9) << theta;
  }
  // Every step can be shown.
  for (int k = 0; k < kAttentionStepCount; ++k) {
    state_.walkthrough.step = k;
    Frame();
    EXPECT_EQ(caches_.drawn.walkthrough_step, k);
  }
  // Back to the input walkthrough: RoPE has none, refused in place (no walkthrough drawn).
  Edit(state_, [](AppState& st) { st.params.walkthrough = WalkthroughKind::kInput; });
  Frames(2);
  EXPECT_EQ(caches_.drawn.walkthrough, nullptr);
}

TEST_F(AttentionWalkthroughPanel, APresetStartsAtStepOne) {
  state_.select_tab = ViewKind::kWalkthrough;
  Edit(state_, [](AppState& st) { st.params.walkthrough = WalkthroughKind::kAttention; });
  Frames(3);
  state_.walkthrough.step = 5;
  Frames(1);
  // The preset buttons of the attention walkthrough: find "ALiBi's 8 heads" and click it.
  ImGuiWindow* w = Child("walkthrough");
  ASSERT_NE(w, nullptr);
  const ImGuiID id = ImHashStr("ALiBi's 8 heads", 0, ImHashStr("alibi-8-heads", 0, w->ID));
  ImVec2 at;
  bool found = false;
  const float em = ImGui::GetFontSize();
  for (float r = 1.0f; r <= 6.0f && !found; r += 0.5f) {
    found = Find(w, id, ImVec2(w->Pos.x + 2, w->Pos.y + em * r), true, &at);
  }
  ASSERT_TRUE(found) << "no ALiBi preset button";
  Click(at);
  Frames(2);
  EXPECT_EQ(state_.params.walkthrough_preset, "alibi-8-heads");
  EXPECT_EQ(state_.params.pe.kind(), Scheme::kAlibi);
  EXPECT_EQ(state_.walkthrough.step, 0);
  ASSERT_NE(caches_.drawn.walkthrough, nullptr);
  EXPECT_EQ(caches_.drawn.walkthrough->attention.slopes.size(), 8u);
}

// Page objects in a PDF: "/Type /Page" not followed by "s" (the /Pages tree).
int CountPdfPages(const std::string& pdf) {
  int n = 0;
  for (size_t at = pdf.find("/Type /Page"); at != std::string::npos;
       at = pdf.find("/Type /Page", at + 1)) {
    if (at + 11 >= pdf.size() || pdf[at + 11] != 's') ++n;
  }
  return n;
}

class AttentionHandout : public testing::TempDirTest {
 protected:
  std::string Export(const std::string& args, const std::string& name) {
    return testing::Capture("(" + std::string(PE_EXPLORER_EXE) + " export --view walkthrough " +
                            args + " -o " + Path(name) + " 2>&1; echo exit=$?)");
  }
};

TEST_F(AttentionHandout, BothWalkthroughsArePdfsOfOnePagePerStepWithTheirTitles) {
  const bool poppler = std::system("command -v pdftotext >/dev/null 2>&1") == 0;
  for (const char* kind : {"attention", "input"}) {
    SCOPED_TRACE(kind);
    const bool attention = std::string(kind) == "attention";
    const std::string args = std::string("--walkthrough ") + kind +
                             (attention ? " --walkthrough-preset rope-positions-2-and-5" : "");
    const std::string out = Export(args, "h.pdf");
    ASSERT_NE(out.find("exit=0"), std::string::npos) << out;
    const std::string pdf = testing::ReadFile(Path("h.pdf"));
    EXPECT_EQ(CountPdfPages(pdf), 8);
    if (!poppler) continue;
    const std::span<const WalkStep> steps =
        WalkStepsOf(attention ? WalkthroughKind::kAttention : WalkthroughKind::kInput);
    for (int k = 1; k <= 8; ++k) {
      const std::string text = testing::Capture("pdftotext -f " + std::to_string(k) + " -l " +
                                                std::to_string(k) + " " + Path("h.pdf") + " -");
      const std::string title =
          std::to_string(k) + ". " + std::string(WalkStepName(steps[static_cast<size_t>(k - 1)]));
      EXPECT_NE(text.find(title), std::string::npos) << "page " << k << ":\n" << text;
    }
  }
  // Every scheme has an attention handout.
  for (Scheme s : kAllSchemeKinds) {
    const std::string out =
        Export("--walkthrough attention --scheme " + std::string(SchemeName(s)) + " --max-len 64",
               "s.pdf");
    EXPECT_NE(out.find("exit=0"), std::string::npos) << SchemeName(s) << ": " << out;
    EXPECT_EQ(CountPdfPages(testing::ReadFile(Path("s.pdf"))), 8) << SchemeName(s);
  }
}

TEST_F(AttentionHandout, OneStepAsPngAndRefusals) {
  std::string out = Export("--walkthrough attention --scheme alibi --walkthrough-step 4", "s.png");
  ASSERT_NE(out.find("exit=0"), std::string::npos) << out;
  const std::string png = testing::ReadFile(Path("s.png"));
  EXPECT_NE(png.find("5. Biases"), std::string::npos);
  EXPECT_NE(png.find("walkthrough"), std::string::npos);
  // The input walkthrough still refuses a scheme that adds nothing; a bad name is named.
  out = Export("--scheme alibi", "r.pdf");
  EXPECT_NE(out.find("exit=2"), std::string::npos) << out;
  EXPECT_NE(out.find("the walkthrough view needs"), std::string::npos) << out;
  out = Export("--walkthrough atention", "r.pdf");
  EXPECT_NE(out.find("--walkthrough must be input or attention, got \"atention\""),
            std::string::npos)
      << out;
  out = Export("--walkthrough attention", "t.csv");
  EXPECT_NE(out.find("the attention walkthrough has no table"), std::string::npos) << out;
  // --list-presets lists the walkthrough presets.
  const std::string list =
      testing::Capture(std::string(PE_EXPLORER_EXE) + " export --list-presets 2>&1");
  for (const char* name : {"rope-positions-2-and-5", "alibi-8-heads", "t5-buckets-of-a-sentence",
                           "llama-3-1-past-8192", "gpt2-learned-vs-sinusoid"}) {
    EXPECT_NE(list.find(name), std::string::npos) << name;
  }
}

// The walkthrough panel's title names the walkthrough on show; other panels keep theirs.
TEST(AttentionWalkthroughTitle, NamesTheWalkthroughOnShow) {
  const Derived derived;
  ModelParams params;
  const PanelEntry* walk = nullptr;
  const PanelEntry* heatmap = nullptr;
  for (const PanelEntry& p : ViewPanels()) {
    if (p.view == ViewKind::kWalkthrough) walk = &p;
    if (p.view == ViewKind::kHeatmap) heatmap = &p;
  }
  ASSERT_NE(walk, nullptr);
  ASSERT_NE(heatmap, nullptr);
  EXPECT_STREQ(PanelTitle(*walk, derived, params), "Walkthrough: from text to model input");
  const std::string heatmap_title = PanelTitle(*heatmap, derived, params);
  params.walkthrough = WalkthroughKind::kAttention;
  EXPECT_STREQ(PanelTitle(*walk, derived, params), "Walkthrough: position in attention");
  EXPECT_EQ(PanelTitle(*heatmap, derived, params), heatmap_title);
}

}  // namespace
}  // namespace pe
