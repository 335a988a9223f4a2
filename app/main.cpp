// pe-explorer: parses the command line, then either writes a view's numbers (export) or opens
// the window. Everything else lives in its own file.
#include <chrono>
#include <exception>
#include <iostream>

#include "cli/command_line.h"
#include "cli/export_command.h"
#include "model/walkthrough_presets.h"
#include "window/window.h"

int main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  try {
    int exit_code = 0;
    std::optional<pe::CommandLine> cl = pe::ParseCommandLine(argc, argv, exit_code);
    if (!cl) return exit_code;
    if (cl->mode == pe::RunMode::kExport) return pe::RunExport(cl->params, cl->export_request);
    pe::AppState state;
    state.params = cl->params;
    state.params.example.truncate = true;  // the window shows what a model would see
    // A walkthrough preset follows its own token, as its button in the window does.
    if (const pe::WalkthroughPreset* p = pe::FindWalkthroughPreset(state.params.walkthrough_preset)) {
      state.selection.selected_token = p->focus_token;
      state.sums.manual = p->typed != nullptr;
    }
    if (!cl->window.tab.empty()) state.select_tab = pe::ParseView(cl->window.tab);
    state.ui.scale = cl->window.ui_scale;
    state.ui.theme = cl->window.light_theme ? pe::UiTheme::kLight : pe::UiTheme::kDark;
    cl->window.started = started;
    return pe::RunWindow(state, cl->window);
  } catch (const std::exception& e) {
    std::cerr << "pe-explorer: unexpected error: " << e.what() << "\n";
    return 1;
  }
}
