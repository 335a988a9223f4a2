// The check panel (panels/check_panel.h): the report at the top, "Apply the identified
// parameters" as one undo step, the worst cells that zoom the map, the teaching cases, the
// built-in file chooser, and the export name from the table's own shape.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "analysis/check_cases.h"
#include "headless_ui.h"
#include "panels/check_panel.h"
#include "panels/panels.h"
#include "test_support.h"
#include "ui/session.h"
#include "views/figure_export.h"

namespace pe {
namespace {

class CheckPanel : public HeadlessUi {
 protected:
  bool ChooseTab(const char* name) {
    ImGuiWindow* w = Child("scheme_views");
    if (!w) return false;
    ImGuiTabBar* bar = GImGui->TabBars.GetByKey(Id(w, "scheme_view_tabs"));
    if (!bar) return false;
    for (ImGuiTabItem& tab : bar->Tabs) {
      if (tab.NameOffset >= 0 && std::strcmp(bar->TabsNames.Buf.Data + tab.NameOffset, name) == 0) {
        bar->NextSelectedTabId = tab.ID;
        Frames(2);
        return true;
      }
    }
    return false;
  }
  static bool OnScreen(ImVec2 at) {
    return at.x > 0 && at.y > 0 && at.x < ImGui::GetIO().DisplaySize.x &&
           at.y < ImGui::GetIO().DisplaySize.y;
  }
};

// A Llama-3-style RoPE cos table (theta 500000, halves) checked from the default sinusoidal
// parameters: the report says what it is; Apply sets exactly that, and one Undo takes it back.
TEST_F(CheckPanel, ApplySetsTheIdentifiedParametersInOneUndoStep) {
  const std::string path = ::testing::TempDir() + "check_panel_apply.npy";
  EncodingParams rope;
  RopeParams r;
  r.theta = 500000;
  rope.scheme = r;
  rope.d_model = 64;
  rope.max_len = 256;
  ASSERT_TRUE(pe::testing::WriteTableNpyWithAWrongCell(path, rope, 0, 0, 0.0f));
  Frames(2);
  const EncodingParams before = state_.params.pe;
  state_.params.check_table = path;
  ASSERT_TRUE(ChooseTab("check"));
  Frames(3);
  const CheckPanelResult* shown = ShownCheckPanel(caches_);
  ASSERT_NE(shown, nullptr);
  ASSERT_TRUE(shown->report.has_value()) << shown->error;
  EXPECT_FALSE(shown->report->matches);
  ASSERT_TRUE(shown->report->identified.has_value());
  const std::vector<std::string> lines =
      CheckReportSentences(*shown->report, "the window's parameters");
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("The table is rope cos, half pairing, theta 500000", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(", exactly."), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].rfind("It is not what the window's parameters say", 0), 0u) << lines[1];
  const CheckPanelLayout* drawn = DrawnCheckPanel(caches_);
  ASSERT_NE(drawn, nullptr);
  ASSERT_TRUE(OnScreen(drawn->apply));
  Click(drawn->apply);
  Frames(2);
  ASSERT_EQ(state_.params.pe.kind(), Scheme::kRope);
  EXPECT_EQ(state_.params.pe, rope);
  EXPECT_EQ(state_.params.check_table, path);
  // Now the table is what the window says.
  Frames(2);
  shown = ShownCheckPanel(caches_);
  ASSERT_TRUE(shown && shown->report);
  EXPECT_TRUE(shown->report->matches);
  EXPECT_TRUE(shown->worst.empty());
  Undo(state_);
  Frames(2);
  EXPECT_EQ(state_.params.pe, before);
  std::remove(path.c_str());
}

// One wrong cell at position 1500, column 10 of a (2000, 64) table: it heads the worst cells,
// and a click zooms the map to it (the heatmap's window stays).
TEST_F(CheckPanel, AWorstCellClickedZoomsTheMapToIt) {
  const std::string path = ::testing::TempDir() + "check_panel_worst.npy";
  ASSERT_TRUE(pe::testing::WriteSinusoidNpyWithAWrongCell(path, 2000, 64, 1500, 10));
  // A tall window: the report (which scrolls in a short panel) shows its worst cells whole.
  ImGui::GetIO().DisplaySize = ImVec2(1280, 1600);
  Frames(2);
  const ViewRange heatmap = state_.windows[ViewKind::kHeatmap].view;
  state_.params.check_table = path;
  ASSERT_TRUE(ChooseTab("check"));
  Frames(3);
  const CheckPanelResult* shown = ShownCheckPanel(caches_);
  ASSERT_NE(shown, nullptr);
  ASSERT_EQ(shown->worst.size(), 1u);  // one cell differs
  EXPECT_EQ(shown->worst[0].position, 1500);
  EXPECT_EQ(shown->worst[0].col, 10);
  EXPECT_NEAR(shown->worst[0].table - shown->worst[0].reference, 0.5f, 1e-6f);
  EXPECT_EQ(state_.check_view.view, (ViewRange{0, 64, 0, 2000}));
  const CheckPanelLayout* drawn = DrawnCheckPanel(caches_);
  ASSERT_NE(drawn, nullptr);
  ASSERT_EQ(drawn->worst_cells.size(), 1u);
  ASSERT_TRUE(OnScreen(drawn->worst_cells[0]));
  Click(drawn->worst_cells[0]);
  Frames(2);
  const ViewRange v = state_.check_view.view;
  EXPECT_LE(v.x0, 10);
  EXPECT_GE(v.x1, 11);
  EXPECT_LE(v.y0, 1500);
  EXPECT_GE(v.y1, 1501);
  EXPECT_LE(v.x1 - v.x0, 16);
  EXPECT_LE(v.y1 - v.y0, 64);
  EXPECT_EQ(CheckCellWindow({0, 64, 0, 2000}, 1500, 10), v);
  EXPECT_EQ(state_.windows[ViewKind::kHeatmap].view, heatmap);
  std::remove(path.c_str());
}

// The zoom stays inside the table at its edges.
TEST(CheckCellWindow, StaysInsideTheTable) {
  EXPECT_EQ(CheckCellWindow({0, 64, 0, 2000}, 0, 0), (PlotRange{0, 8, 0, 64}));
  EXPECT_EQ(CheckCellWindow({0, 64, 0, 2000}, 1999, 63), (PlotRange{56, 64, 1936, 2000}));
  EXPECT_EQ(CheckCellWindow({0, 4, 10, 14}, 12, 2), (PlotRange{0, 4, 10, 14}));
}

// A teaching case written as the window loads it: an NPY the check reads back, whose report
// against the case's intent names the case's word.
TEST(CheckPanelCases, ACaseIsWrittenAndDiagnosed) {
  Result<std::string> path = WriteCheckCase("yarn-off");
  ASSERT_TRUE(path.ok()) << path.message();
  CheckPanelRequest request;
  request.table = path.value();
  request.params.pe = MakeCheckCase("yarn-off").value().intent;
  const CheckPanelResult r = ComputeCheckPanel(request);
  ASSERT_TRUE(r.report.has_value()) << r.error;
  EXPECT_EQ(r.rows, 1024);
  EXPECT_EQ(r.cols, 128);
  bool scaling = false;
  for (const CheckDiagnosis& d : r.report->diagnosis) scaling = scaling || d.kind == "scaling";
  EXPECT_TRUE(scaling);
}

// Compare with a catalogue model: the disagreements name the config key.
TEST(CheckPanelCases, ComparingWithAModelNamesTheConfigKey) {
  Result<std::string> path = WriteCheckCase("llama-gguf-pairing");
  ASSERT_TRUE(path.ok()) << path.message();
  CheckPanelRequest request;
  request.table = path.value();
  request.compare_model = "llama-3.1-8b";
  const CheckPanelResult r = ComputeCheckPanel(request);
  ASSERT_TRUE(r.model_report.has_value()) << r.model_error;
  EXPECT_EQ(r.model_label.rfind("llama-3.1-8b", 0), 0u) << r.model_label;
  bool pairing = false;
  for (const CheckDiagnosis& d : r.model_report->diagnosis) {
    if (d.kind == "pairing") pairing = d.text.find("model_type") != std::string::npos;
  }
  EXPECT_TRUE(pairing);
}

// The chooser lists folders first, then the table files, hidden ones left out.
TEST(FileChooser, ListsFoldersThenTableFiles) {
  char tmpl[] = "/tmp/pe-chooser-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  for (const char* name : {"b.npy", "a.SAFETENSORS", "notes.txt", ".hidden.npy", "t.csv"}) {
    std::ofstream(dir + "/" + name) << "x";
  }
  ASSERT_EQ(::mkdir((dir + "/sub").c_str(), 0700), 0);
  const char* const exts[] = {".npy", ".safetensors", ".csv", ".pt"};
  std::string error;
  const std::vector<ChooserEntry> got = ListChooserFolder(dir, exts, &error);
  EXPECT_TRUE(error.empty()) << error;
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].name, "sub");
  EXPECT_TRUE(got[0].folder);
  EXPECT_EQ(got[1].name, "a.SAFETENSORS");
  EXPECT_EQ(got[2].name, "b.npy");
  EXPECT_EQ(got[3].name, "t.csv");
  EXPECT_EQ(ChooserParent(dir + "/sub"), dir);
  EXPECT_EQ(ChooserParent("/"), "/");
  ListChooserFolder(dir + "/missing", exts, &error);
  EXPECT_NE(error.find("cannot list"), std::string::npos);
  std::system(("rm -rf " + dir).c_str());
}

// The check view's export is named from the table's own shape, not the window's parameters.
TEST(CheckPanelCases, TheExportNameComesFromTheTablesShape) {
  const std::string path = ::testing::TempDir() + "my_rope.npy";
  ASSERT_TRUE(pe::testing::WriteSinusoidNpyWithAWrongCell(path, 300, 32, 0, 0));
  ModelParams m;
  m.check_table = path;
  EXPECT_EQ(SuggestedFileName(ViewKind::kCheck, m, "png"), "pe-check_my_rope_d32_L300.png");
  m.check_table = "/nonexistent/table.npy";
  EXPECT_EQ(SuggestedFileName(ViewKind::kCheck, m, "png"), "pe-check_paper_d128_L100.png");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pe
