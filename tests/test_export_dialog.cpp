// The export dialog driven headless, the way a user drives it (clicks, Escape): it asks before
// replacing a file, stays open with the reason when an export fails, says which folder files go
// to, offers size presets only where they change the file, and probes for zenity once.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "frame/frame.h"
#include "jobs/export_runner.h"
#include "jobs/raster_worker.h"
#include "panels/panels.h"
#include "test_support.h"
#include "ui/app_state.h"
#include "ui/texture_store.h"
#include "ui/ui.h"
#include "views/view_registry.h"

namespace pe {
namespace {

constexpr int kEscape = 27;  // our io.KeyMap index for ImGuiKey_Escape

int zenity_probes = 0;  // counts CountingProbe calls
bool CountingProbe() {
  ++zenity_probes;
  return false;
}

class ExportDialog : public pe::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    ctx_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 800);
    io.DeltaTime = 1.0f / 60.0f;
    io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
    io.KeyMap[ImGuiKey_Escape] = kEscape;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    services_.exports = &exports_;
  }
  void TearDown() override {
    ImGui::DestroyContext(ctx_);
    TempDirTest::TearDown();
  }
  void Frame() {
    ImGui::NewFrame();
    DrawUi(state_, caches_, services_);
    ImGui::Render();
  }
  void Frames(int n) {
    for (int k = 0; k < n; ++k) Frame();
  }
  static ImGuiWindow* WindowNamed(const char* name) {
    for (ImGuiWindow* w : GImGui->Windows) {
      if (std::strcmp(w->Name, name) == 0 && w->Active) return w;
    }
    return nullptr;
  }
  ImGuiWindow* Dialog() { return WindowNamed("Export##dialog"); }
  void Open(const std::string& folder, const std::string& name, int format) {
    state_.export_dialog.open_requested = true;
    state_.export_dialog.folder = folder;
    state_.export_dialog.name = name;
    state_.export_dialog.format = format;
    Frames(2);
    ASSERT_NE(Dialog(), nullptr);
  }
  // Moves the pointer from `start` down (or across) until item `label` of the dialog is hovered.
  bool Find(const char* label, ImVec2 start, bool across, ImVec2* at) {
    ImGuiWindow* w = Dialog();
    if (!w) return false;
    const ImGuiID id = ImHashStr(label, 0, w->ID);
    // The window's end is read each step: an auto-sized dialog grows a frame after its content.
    for (float t = across ? start.x : start.y;
         t < (across ? w->Pos.x + w->Size.x : w->Pos.y + w->Size.y); t += 3.0f) {
      ImGui::GetIO().MousePos = across ? ImVec2(t, start.y) : ImVec2(start.x, t);
      Frame();
      if (GImGui->HoveredId == id) {
        *at = ImGui::GetIO().MousePos;
        return true;
      }
    }
    return false;
  }
  bool FindInFirstColumn(const char* label, ImVec2* at) {
    ImGuiWindow* w = Dialog();
    return w && Find(label, ImVec2(w->Pos.x + 16, w->Pos.y), false, at);
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
  void ClickButton(const char* label) {
    ImVec2 at;
    ASSERT_TRUE(FindInFirstColumn(label, &at)) << "no \"" << label << "\" button";
    Click(at);
    Frame();  // a popup closed by the click is gone the frame after
  }
  void PressEscape() {
    ImGuiIO& io = ImGui::GetIO();
    io.KeysDown[kEscape] = true;
    Frame();
    io.KeysDown[kEscape] = false;
    Frame();
  }

  ImGuiContext* ctx_ = nullptr;
  AppState state_;
  UiCaches caches_;
  MemoryTextureStore textures_;
  RasterWorker rasters_{/*synchronous=*/true};
  ExportRunner exports_{/*synchronous=*/true};
  UiServices services_{&textures_, &rasters_};
};

TEST_F(ExportDialog, AsksBeforeReplacingAFile) {
  const std::string path = Path("x.svg");
  std::system(("echo old > " + path).c_str());
  Open(dir_, "x.svg", 1);
  ClickButton("Save");
  ASSERT_NE(Dialog(), nullptr) << "Save on an existing file must ask, not write";
  EXPECT_EQ(state_.export_dialog.confirm_path, path);
  EXPECT_EQ(pe::testing::ReadFile(path), "old\n");
  PressEscape();  // Escape answers "Cancel": back to the form, file untouched
  ASSERT_NE(Dialog(), nullptr);
  EXPECT_TRUE(state_.export_dialog.confirm_path.empty());
  EXPECT_EQ(pe::testing::ReadFile(path), "old\n");
  ClickButton("Save");
  ClickButton("Replace");
  EXPECT_EQ(Dialog(), nullptr) << "the dialog closes once the file is saved";
  EXPECT_EQ(pe::testing::ReadFile(path).rfind("<?xml", 0), 0u) << "the file was replaced";
  EXPECT_EQ(state_.toast.text, "Saved " + path);
}

TEST_F(ExportDialog, FailureKeepsTheDialogOpenWithTheReason) {
  Open(dir_ + "/missing-folder", "x.pdf", 2);
  ClickButton("Save");
  ASSERT_NE(Dialog(), nullptr) << "a failed export must leave the dialog open";
  EXPECT_NE(state_.export_dialog.error.find("cannot write " + dir_ + "/missing-folder/x.pdf"),
            std::string::npos)
      << state_.export_dialog.error;
  EXPECT_FALSE(state_.export_dialog.saving);
  // Fixing the folder and saving again works from the same dialog.
  state_.export_dialog.folder = dir_;
  ClickButton("Save");
  EXPECT_EQ(Dialog(), nullptr);
  EXPECT_EQ(state_.toast.text, "Saved " + dir_ + "/x.pdf");
}

TEST_F(ExportDialog, EscapeClosesIt) {
  Open(dir_, "x.png", 0);
  PressEscape();
  EXPECT_EQ(Dialog(), nullptr);
  EXPECT_TRUE(pe::testing::ReadFile(Path("x.png")).empty()) << "Escape saves nothing";
}

TEST_F(ExportDialog, RelativeFoldersAreSavedAndNamedAsAbsolutePaths) {
  ASSERT_EQ(std::system(("mkdir " + Path("sub")).c_str()), 0);
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(::chdir(dir_.c_str()), 0);
  Open("sub", "numbers.csv", 3);
  ClickButton("Save");
  ASSERT_EQ(::chdir(cwd), 0);
  EXPECT_EQ(state_.toast.text, "Saved " + dir_ + "/sub/numbers.csv");
  EXPECT_FALSE(pe::testing::ReadFile(Path("sub/numbers.csv")).empty());
}

TEST_F(ExportDialog, ScoreExportDrawsThePannedAndZoomedWindow) {
  // The score view's window is panned and zoomed on screen the way a user does it (wheel, then a
  // drag in its plot); Save in the dialog then writes that window, not the whole table.
  state_.params.pe.scheme = RopeParams{};
  state_.params.pe.max_len = 1000;
  state_.select_tab = ViewKind::kScore;
  Frames(3);
  ImGuiWindow* panel = nullptr;
  for (ImGuiWindow* w : GImGui->Windows) {
    const char* tail = std::strstr(w->Name, "/score_");
    if (tail && !std::strchr(tail + 1, '/') && w->Active) panel = w;
  }
  ASSERT_NE(panel, nullptr);
  EXPECT_EQ(state_.windows[ViewKind::kScore].view, (ViewRange{0, 1000, 0, 1000}));
  // A point in the plot: a third across the panel (the legend is on the right), half down.
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 at(panel->Pos.x + panel->Size.x * 0.3f, panel->Pos.y + panel->Size.y * 0.55f);
  io.MousePos = at;
  Frame();
  io.MouseWheel = 3.0f;  // zoom in about the pointer
  Frame();
  io.MouseWheel = 0.0f;
  io.MouseDown[0] = true;
  Frame();
  io.MousePos = ImVec2(at.x + 40, at.y + 25);  // drag: pan
  Frame();
  io.MouseDown[0] = false;
  Frames(2);
  const ViewRange panned = state_.windows[ViewKind::kScore].view;
  ASSERT_LT(panned.x1 - panned.x0, 700.0) << "the wheel did not zoom the score plot";
  ASSERT_GT(panned.x0, 0.0);
  ASSERT_NE(panned, (ViewRange{0, 1000, 0, 1000}));
  state_.export_dialog.view = ViewKind::kScore;
  Open(dir_, "score.svg", 1);
  ClickButton("Save");
  const std::string svg = pe::testing::ReadFile(Path("score.svg"));
  ASSERT_FALSE(svg.empty()) << state_.toast.text << state_.export_dialog.error;
  auto num = [](double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return std::string(buf);
  };
  EXPECT_NE(svg.find("name=\"x_range\" value=\"" + num(panned.x0) + ":" + num(panned.x1) + "\""),
            std::string::npos)
      << "x " << panned.x0 << ".." << panned.x1;
  EXPECT_NE(svg.find("name=\"y_range\" value=\"" + num(panned.y0) + ":" + num(panned.y1) + "\""),
            std::string::npos)
      << "y " << panned.y0 << ".." << panned.y1;
}

TEST_F(ExportDialog, CopiedCommandWritesTheSameFileAsSave) {
  // The score view panned and zoomed on screen, exported with Save as a 2x PNG with a title;
  // "Copy command" puts a command line on the clipboard which, run through the real CLI, writes
  // the same bytes.
  state_.params.pe.scheme = RopeParams{};
  state_.params.pe.max_len = 200;
  state_.params.pe.d_model = 32;
  state_.select_tab = ViewKind::kScore;
  Frames(3);
  ImGuiWindow* panel = nullptr;
  for (ImGuiWindow* w : GImGui->Windows) {
    const char* tail = std::strstr(w->Name, "/score_");
    if (tail && !std::strchr(tail + 1, '/') && w->Active) panel = w;
  }
  ASSERT_NE(panel, nullptr);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = ImVec2(panel->Pos.x + panel->Size.x * 0.3f, panel->Pos.y + panel->Size.y * 0.55f);
  Frame();
  io.MouseWheel = 2.0f;
  Frame();
  io.MouseWheel = 0.0f;
  Frames(2);
  ASSERT_NE(state_.windows[ViewKind::kScore].view, (ViewRange{0, 200, 0, 200}))
      << "the wheel did not zoom";
  state_.export_dialog.view = ViewKind::kScore;
  state_.export_dialog.size_preset = 1;  // 2x
  state_.export_dialog.title = "Rope's score, zoomed";
  Open(dir_, "window.png", 0);
  // Copy command sits on Save's line, after Cancel.
  ImVec2 save, copy;
  ASSERT_TRUE(FindInFirstColumn("Save", &save));
  ASSERT_TRUE(Find("Copy command", save, /*across=*/true, &copy)) << "no Copy command button";
  Click(copy);
  Frame();
  const std::string command = state_.export_dialog.copied_command;
  ASSERT_EQ(command.rfind("pe-explorer export --view score --scheme rope", 0), 0u) << command;
  EXPECT_EQ(command, ImGui::GetClipboardText());
  EXPECT_NE(command.find("--score-window "), std::string::npos) << command;
  EXPECT_NE(command.find("--scale 2"), std::string::npos) << command;
  ClickButton("Save");
  const std::string saved = pe::testing::ReadFile(Path("window.png"));
  ASSERT_FALSE(saved.empty()) << state_.toast.text << state_.export_dialog.error;
  // Run it as a shell runs it, writing window.png's twin.
  const std::string out = Path("window.png");
  ASSERT_NE(command.find(" -o " + out), std::string::npos) << command;
  const std::string cli =
      std::string(command).replace(0, std::string("pe-explorer").size(), PE_EXPLORER_EXE);
  const std::string twin = Path("twin.png");
  std::string script = cli.substr(0, cli.rfind(" -o ")) + " -o " + twin;
  std::string quoted;
  for (char c : script) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  ASSERT_EQ(std::system(("bash -c '" + quoted + "'").c_str()), 0) << script;
  EXPECT_TRUE(pe::testing::ReadFile(twin) == saved) << script;
}

TEST_F(ExportDialog, CommandFollowsEveryChangeWhileOpen) {
  // The command line is kept between frames; a change of parameters, title, size or view range
  // while the dialog is open must still show in the next copy.
  state_.params.pe.d_model = 32;
  state_.params.pe.max_len = 50;
  Frames(2);
  Open(dir_, "f.png", 0);
  auto copy = [&] {
    ImVec2 save, at;
    EXPECT_TRUE(FindInFirstColumn("Save", &save));
    EXPECT_TRUE(Find("Copy command", save, /*across=*/true, &at));
    Click(at);
    Frame();
    return state_.export_dialog.copied_command;
  };
  const std::string first = copy();
  EXPECT_NE(first.find("--d-model 32 --max-len 50"), std::string::npos) << first;
  state_.params.pe.d_model = 48;
  Frames(2);
  const std::string wider = copy();
  EXPECT_NE(wider.find("--d-model 48 --max-len 50"), std::string::npos) << wider;
  state_.params.pe.sinusoidal().base = 500;  // a parameter that leaves the view range as it is
  Frames(2);
  const std::string based = copy();
  EXPECT_NE(based.find("--base 500"), std::string::npos) << based;
  state_.export_dialog.title = "Wider";
  state_.export_dialog.size_preset = 1;  // 2x
  Frame();
  const std::string titled = copy();
  EXPECT_NE(titled.find("--title Wider"), std::string::npos) << titled;
  EXPECT_NE(titled.find("--scale 2"), std::string::npos) << titled;
  state_.windows[ViewKind::kHeatmap].view = ViewRange{0, 48, 10, 20};
  Frame();
  const std::string zoomed = copy();
  EXPECT_NE(zoomed.find("--heatmap-window 0:48:10:20"), std::string::npos) << zoomed;
}

TEST_F(ExportDialog, SizePresetsOnlyForPng) {
  // The labels on the size row, found by sweeping across it.
  auto size_row_labels = [&](const char* first) {
    std::set<std::string> seen;
    ImVec2 at;
    if (!FindInFirstColumn(first, &at)) return seen;
    const ImGuiID first_id = ImHashStr(first, 0, Dialog()->ID);
    for (const char* label : {"1x", "2x", "960 x 540", "custom"}) {
      ImVec2 hit;
      if (Find(label, ImVec2(Dialog()->Pos.x + 4, at.y), true, &hit)) seen.insert(label);
    }
    EXPECT_NE(first_id, 0u);
    return seen;
  };
  Open(dir_, "f.png", 0);
  EXPECT_EQ(size_row_labels("1x"), (std::set<std::string>{"1x", "2x", "custom"}));
  state_.export_dialog.format = 1;
  state_.export_dialog.name = "f.svg";
  state_.export_dialog.size_preset = 1;  // 2x, chosen while the format was PNG
  Frames(2);
  EXPECT_EQ(size_row_labels("960 x 540"), (std::set<std::string>{"960 x 540", "custom"}));
  ClickButton("Save");
  const std::string svg = pe::testing::ReadFile(Path("f.svg"));
  EXPECT_NE(svg.find("width=\"960px\" height=\"540px\""), std::string::npos) << svg.substr(0, 300);
}

// The format combo lists what the view's entry writes: the layers view's table is names, so it
// offers CSV and not NPY, and a dialog opened on it with NPY chosen before starts on CSV.
TEST_F(ExportDialog, OffersOnlyTheFormatsTheViewWrites) {
  auto listed = [&](ViewKind view) {
    state_.export_dialog.format = 4;  // NPY, chosen for another view
    state_.export_dialog.folder = dir_;
    OpenExportDialog(state_, view);
    Frames(2);
    std::set<std::string> seen;
    ImVec2 at;
    if (!FindInFirstColumn("format", &at)) return seen;
    Click(at);
    Frames(2);
    ImGuiWindow* popup = nullptr;
    for (ImGuiWindow* w : GImGui->Windows) {
      if (std::strncmp(w->Name, "##Combo_", 8) == 0 && w->Active) popup = w;
    }
    if (popup == nullptr) return seen;
    for (float y = popup->Pos.y; y < popup->Pos.y + popup->Size.y; y += 2.0f) {
      ImGui::GetIO().MousePos = ImVec2(popup->Pos.x + 20, y);
      Frame();
      for (const char* label : {"PNG image", "SVG vector figure", "PDF vector figure",
                                "CSV numbers", "NPY numbers (numpy.load)"}) {
        if (GImGui->HoveredId == ImHashStr(label, 0, popup->ID)) seen.insert(label);
      }
    }
    PressEscape();
    PressEscape();
    return seen;
  };
  const std::set<std::string> layers = listed(ViewKind::kLayers);
  EXPECT_EQ(state_.export_dialog.format, 3);
  EXPECT_EQ(layers, (std::set<std::string>{"PNG image", "SVG vector figure", "PDF vector figure",
                                           "CSV numbers"}));
  EXPECT_FALSE(GetView(ViewKind::kLayers).npy);
  const std::set<std::string> heatmap = listed(ViewKind::kHeatmap);
  EXPECT_EQ(state_.export_dialog.format, 4);
  EXPECT_EQ(heatmap.count("NPY numbers (numpy.load)"), 1u);
}

TEST_F(ExportDialog, ToastSitsOnTheStatusLineAndAClickDismissesIt) {
  Open(dir_, "t.csv", 3);
  ClickButton("Save");
  ASSERT_EQ(state_.toast.text, "Saved " + dir_ + "/t.csv");
  Frame();
  ImGuiWindow* toast = WindowNamed("##export_status");
  ASSERT_NE(toast, nullptr);
  const ImGuiIO& io = ImGui::GetIO();
  EXPECT_NEAR(toast->Pos.y + toast->Size.y, io.DisplaySize.y, 1.0) << "at the bottom edge";
  EXPECT_LE(toast->Size.y, ImGui::GetFontSize() * 1.6f) << "one line, over the status line only";
  Click(ImVec2(toast->Pos.x + toast->Size.x / 2, toast->Pos.y + toast->Size.y / 2));
  Frame();
  EXPECT_EQ(WindowNamed("##export_status"), nullptr) << "a click dismisses the toast";
}

// The dialog's font size is the command line's --font-size: the same page and size give the same
// file byte for byte; a size outside [5, 36] is refused in the dialog; a page too small for the
// text says, in the saved message, what size the text was drawn at.
TEST_F(ExportDialog, FontSizeFieldWritesWhatTheCommandLineWrites) {
  Open(dir_, "d.svg", 1);
  ExportDialogState& d = state_.export_dialog;
  d.size_preset = 2;
  d.width = 252;
  d.height = 180;
  d.font_size = 8;
  Frames(2);
  ClickButton("Save");
  ASSERT_EQ(Dialog(), nullptr) << d.error;
  EXPECT_EQ(state_.toast.text, "Saved " + Path("d.svg")) << "8 pt fits 252 x 180: no note";
  const std::string exe = PE_EXPLORER_EXE;
  ASSERT_EQ(std::system((exe + " export --view heatmap --width 252 --height 180 --font-size 8 -o " +
                         Path("cli.svg"))
                            .c_str()),
            0);
  const std::string dialog_svg = pe::testing::ReadFile(Path("d.svg"));
  EXPECT_NE(dialog_svg.find("font-size"), std::string::npos);
  EXPECT_EQ(dialog_svg, pe::testing::ReadFile(Path("cli.svg")));

  Open(dir_, "big.svg", 1);
  d.font_size = 40;
  Frames(2);
  ClickButton("Save");
  ASSERT_NE(Dialog(), nullptr) << "a font size outside [5, 36] is refused in the dialog";
  EXPECT_EQ(d.error, "font size must be in [5, 36], got 40");
  EXPECT_TRUE(pe::testing::ReadFile(Path("big.svg")).empty());
  PressEscape();

  Open(dir_, "tiny.svg", 1);
  d.width = 120;
  d.height = 90;
  d.font_size = 12;
  Frames(2);
  ClickButton("Save");
  ASSERT_EQ(Dialog(), nullptr) << d.error;
  EXPECT_EQ(state_.toast.text.rfind("Saved " + Path("tiny.svg") + "; the text is drawn at ", 0), 0u)
      << state_.toast.text;
  EXPECT_NE(state_.toast.text.find("not 12: a 120 x 90 page has no room for it (nothing is cut)"),
            std::string::npos)
      << state_.toast.text;
}

TEST_F(ExportDialog, LooksForZenityOncePerPicker) {
  zenity_probes = 0;
  SaveFilePicker picker(CountingProbe);
  services_.picker = &picker;
  Open(dir_, "x.png", 0);
  Frames(20);
  EXPECT_EQ(zenity_probes, 1);
  services_.picker = nullptr;
}

}  // namespace
}  // namespace pe
