// The walkthrough panel, headless: Back / Next through every step with each step's highlighted
// values held against numbers computed here (the blog's sin 2 and cos 2, the seeded rows of E),
// a seed example loaded with one click, and the handout PDF from the command line (one page per
// step, the step titles in its text).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "headless_ui.h"
#include "model/embedding.h"
#include "model/walkthrough_presets.h"
#include "views/view_registry.h"

namespace pe {
namespace {

// Vaswani et al. 2017, section 3.5, in double: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] =
// cos(the same).
double PaperPe(int64_t p, int64_t j, int64_t d) {
  const double angle =
      static_cast<double>(p) / std::pow(10000.0, static_cast<double>(j - j % 2) / d);
  return j % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

class WalkthroughPanel : public HeadlessUi {
 protected:
  void Open() {
    state_.select_tab = ViewKind::kWalkthrough;
    Frames(3);
    ASSERT_NE(caches_.drawn.walkthrough, nullptr) << "the walkthrough tab is not drawn";
  }
  // Finds the button `label` (under `push_id` if given) of child `child`, scanning rows
  // `rows_from`..`rows_to` (in font heights from the child's top) across.
  bool FindButton(const char* child, const char* label, const char* push_id, float rows_from,
                  float rows_to, ImVec2* at) {
    ImGuiWindow* w = Child(child);
    if (w == nullptr) return false;
    const ImGuiID id = push_id ? ImHashStr(label, 0, ImHashStr(push_id, 0, w->ID)) : Id(w, label);
    const float em = ImGui::GetFontSize();
    for (float r = rows_from; r <= rows_to; r += 0.5f) {
      if (Find(w, id, ImVec2(w->Pos.x + 2, w->Pos.y + em * r), true, at)) return true;
    }
    return false;
  }
};

TEST_F(WalkthroughPanel, NextAndBackWalkEveryStepWithTheBlogsNumbers) {
  ASSERT_TRUE(ApplyWalkthroughPreset("blog-position-2", state_.params).ok());
  state_.selection.selected_token = 2;
  Open();
  ImVec2 next, back;
  ASSERT_TRUE(FindButton("walk_steps", "Next >", nullptr, 8, 16, &next));
  ASSERT_TRUE(FindButton("walk_steps", "< Back", nullptr, 8, 16, &back));
  // Independent numbers for token 2 ("NLP", id 2, position 2), d = 6, scaling off, eval mode.
  std::vector<double> e(6), pe(6), sum(6);
  for (int64_t j = 0; j < 6; ++j) {
    const auto k = static_cast<size_t>(j);
    e[k] = EmbeddingValue(0, 6, 2, j);
    pe[k] = PaperPe(2, j, 6);
    sum[k] = static_cast<float>(e[k]) + static_cast<float>(pe[k]);
  }
  EXPECT_NEAR(pe[0], 0.909297, 1e-6);
  EXPECT_NEAR(pe[1], -0.416147, 1e-6);
  auto check = [&](int step) {
    SCOPED_TRACE("step " + std::to_string(step));
    ASSERT_EQ(state_.walkthrough.step, step);
    ASSERT_EQ(caches_.drawn.walkthrough_step, step);
    const Walkthrough& w = *caches_.drawn.walkthrough;
    const WalkPage& p = w.pages[static_cast<size_t>(step)];
    switch (p.step) {
      case WalkStep::kIds:
        EXPECT_EQ(p.values, (std::vector<double>{0, 1, 2, 3}));  // I, love, NLP, .
        break;
      case WalkStep::kLookup:
      case WalkStep::kScale:  // scaling is off in the blog
        for (size_t k = 0; k < 6; ++k) EXPECT_EQ(p.values[k], e[k]);
        break;
      case WalkStep::kPosition:
        for (size_t k = 0; k < 6; ++k) EXPECT_NEAR(p.values[k], pe[k], 1e-6);
        // The other views: the sums view's token and the heatmap's row of position 2.
        EXPECT_EQ(state_.selection.selected_token, 2);
        EXPECT_EQ(caches_.drawn.heatmap_outlined_rows, 1);
        break;
      case WalkStep::kDropout:
        for (size_t k = 0; k < 6; ++k) EXPECT_EQ(p.alt_values[k], sum[k]);
        break;
      case WalkStep::kInput:
        for (size_t k = 0; k < 6; ++k) EXPECT_EQ(p.values[k], sum[k]);
        break;
      default:
        break;
    }
  };
  check(0);
  for (int step = 1; step < kWalkStepCount; ++step) {
    Click(next);
    Frame();
    check(step);
  }
  Click(next);  // disabled on the last step
  Frame();
  check(kWalkStepCount - 1);
  for (int step = kWalkStepCount - 2; step >= 0; --step) {
    Click(back);
    Frame();
    check(step);
  }
  Click(back);  // disabled on the first step
  Frame();
  check(0);
}

TEST_F(WalkthroughPanel, OneClickLoadsTheBlogsTypedSum) {
  Open();
  ImVec2 at;
  ASSERT_TRUE(
      FindButton("walkthrough", "Blog: \"I love NLP\" typed sum", "i-love-nlp", 1.5f, 4.5f, &at));
  Click(at);
  Frames(2);
  EXPECT_EQ(state_.params.walkthrough_preset, "i-love-nlp");
  // The sums panel shows the preset's rows through the input layer, not its own editor: the
  // bars it draws are the blog's sums, as the walkthrough's and the export's.
  EXPECT_FALSE(state_.sums.manual);
  state_.selection.selected_token = -1;
  state_.select_tab = ViewKind::kSums;
  Frames(3);
  ASSERT_EQ(caches_.drawn.sum_rows.size(), 3u);
  ASSERT_EQ(caches_.drawn.sum_width, 3);
  const double blog_sum[3][3] = {{0.11, 0.32, 0.43}, {0.24, 0.65, 0.56}, {0.77, 0.98, 0.89}};
  for (int t = 0; t < 3; ++t) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(caches_.drawn.sum_rows[static_cast<size_t>(t)][j], blog_sum[t][j], 1e-7);
    }
  }
  state_.select_tab = ViewKind::kWalkthrough;
  state_.walkthrough.step = static_cast<int>(WalkStep::kInput);
  Frames(3);
  ASSERT_NE(caches_.drawn.walkthrough, nullptr);
  const Walkthrough& w = *caches_.drawn.walkthrough;
  ASSERT_TRUE(w.typed);
  EXPECT_EQ(w.token_labels, (std::vector<std::string>{"I", "love", "NLP"}));
  const double blog[3][3] = {{0.11, 0.32, 0.43}, {0.24, 0.65, 0.56}, {0.77, 0.98, 0.89}};
  for (int t = 0; t < 3; ++t) {
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(w.parts.sum.at(t, j), blog[t][j], 1e-7);
  }
  // And the JAX pitfall: a zero table added, the intended sinusoid beside it.
  ASSERT_TRUE(
      FindButton("walkthrough", "JAX: the discarded .at[].set()", "jax-pitfall", 1.5f, 4.5f, &at));
  Click(at);
  state_.walkthrough.step = static_cast<int>(WalkStep::kPosition);
  Frames(2);
  const WalkPage& p = caches_.drawn.walkthrough->pages[static_cast<size_t>(WalkStep::kPosition)];
  const int64_t pos = caches_.drawn.walkthrough->positions[2];
  ASSERT_EQ(p.values.size(), 64u);
  for (size_t k = 0; k < 64; ++k) {
    EXPECT_EQ(p.values[k], 0.0);
    EXPECT_NEAR(p.alt_values[k], PaperPe(pos, static_cast<int64_t>(k), 64), 1e-6);
  }
  // The sums tab shows the same model input: the scaled embedding alone, no sinusoid added.
  const Matrix input = caches_.drawn.walkthrough->parts.sum;
  const Matrix scaled = caches_.drawn.walkthrough->parts.scaled;
  EXPECT_EQ(input.data, scaled.data);
  state_.select_tab = ViewKind::kSums;
  Frames(3);
  ASSERT_EQ(static_cast<int64_t>(caches_.drawn.sum_rows.size()), input.rows);
  for (int64_t t = 0; t < input.rows; ++t) {
    for (int64_t j = 0; j < input.cols; ++j) {
      EXPECT_EQ(caches_.drawn.sum_rows[static_cast<size_t>(t)][j], input.at(t, j)) << t << "," << j;
    }
  }
}

TEST_F(WalkthroughPanel, EveryFrameShowsTheWalkthroughOfTheCurrentState) {
  Open();
  state_.walkthrough.step = static_cast<int>(WalkStep::kLookup);
  for (int64_t d : {8, 3, 17}) {
    Edit(state_, [d](AppState& st) { st.params.pe.d_model = d; });
    Frame();  // the edit applies at the start of this frame, before anything is drawn
    ASSERT_NE(caches_.drawn.walkthrough, nullptr);
    Result<EncodingPtr> e = MakeEncoding(state_.params.pe);
    ASSERT_TRUE(e.ok());
    Result<Walkthrough> fresh =
        BuildWalkthrough(state_.params, *e.value(), state_.selection.selected_token);
    ASSERT_TRUE(fresh.ok());
    const Walkthrough& drawn = *caches_.drawn.walkthrough;
    EXPECT_EQ(drawn.d, d);
    for (int k = 0; k < kWalkStepCount; ++k) {
      EXPECT_EQ(drawn.pages[static_cast<size_t>(k)].values,
                fresh.value().pages[static_cast<size_t>(k)].values)
          << "d " << d << ", step " << k;
    }
    // The image on screen is E (V = 6 rows of the default sentence) with the new width.
    const MemoryTextureStore::Image& im =
        textures_.image(1 + static_cast<int>(ViewKind::kWalkthrough));
    EXPECT_EQ(im.w, d);
    EXPECT_EQ(im.h, 6);
  }
}

TEST_F(WalkthroughPanel, ExportsTheStepOnShowAsPng) {
  Open();
  state_.walkthrough.step = 3;
  Frames(1);
  char tmpl[] = "/tmp/pe-walk-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  const std::string path = dir + "/step.png";
  ExportRequestOptions options;
  ASSERT_TRUE(
      ExportView(ViewKind::kWalkthrough, state_.params, ViewsOf(state_), path, options).ok());
  const std::string png = testing::ReadFile(path);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  EXPECT_NE(png.find("walkthrough_step"), std::string::npos);
  EXPECT_NE(png.find("4. Rows of E"), std::string::npos) << "the title of step 4";
  std::system(("rm -rf " + dir).c_str());
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

class WalkthroughHandout : public testing::TempDirTest {
 protected:
  std::string Export(const std::string& args, const std::string& name) {
    return testing::Capture("(" + std::string(PE_EXPLORER_EXE) + " export --view walkthrough " +
                            args + " -o " + Path(name) + " 2>&1; echo exit=$?)");
  }
};

TEST_F(WalkthroughHandout, IsOnePdfPagePerStep) {
  EXPECT_NE(Export("--walkthrough-preset blog-position-2", "h.pdf").find("exit=0"),
            std::string::npos);
  EXPECT_EQ(CountPdfPages(testing::ReadFile(Path("h.pdf"))), kWalkStepCount);
  // A PNG has no current step from the command line: refused, naming .pdf, no file left.
  const std::string out = Export("", "h.png");
  EXPECT_NE(out.find("exit=2"), std::string::npos) << out;
  EXPECT_NE(out.find("write it as .pdf"), std::string::npos) << out;
  EXPECT_TRUE(testing::ReadFile(Path("h.png")).empty());
}

TEST_F(WalkthroughHandout, PopplerReadsEightPagesWithTheStepTitles) {
  if (std::system("command -v pdfinfo >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1") !=
      0) {
    GTEST_SKIP() << "poppler-utils (pdfinfo, pdftotext) is not installed";
  }
  ASSERT_NE(Export("--walkthrough-preset blog-position-2", "h.pdf").find("exit=0"),
            std::string::npos);
  const std::string info = testing::Capture("pdfinfo " + Path("h.pdf"));
  EXPECT_NE(info.find("Pages:           8"), std::string::npos) << info;
  for (int k = 1; k <= kWalkStepCount; ++k) {
    const std::string text = testing::Capture("pdftotext -f " + std::to_string(k) + " -l " +
                                              std::to_string(k) + " " + Path("h.pdf") + " -");
    const std::string title = std::to_string(k) + ". " +
                              std::string(WalkStepName(kWalkSteps[static_cast<size_t>(k - 1)]));
    EXPECT_NE(text.find(title), std::string::npos) << "page " << k << ":\n" << text;
  }
  const std::string page6 = testing::Capture("pdftotext -f 6 -l 6 " + Path("h.pdf") + " -");
  EXPECT_NE(page6.find("0.909297, -0.416147"), std::string::npos) << page6;
}

}  // namespace
}  // namespace pe
