// pe-explorer: parses the command line, then either writes a view's numbers (export) or opens
// the window. Everything else lives in its own file.
#include <chrono>
#include <exception>
#include <iostream>
#include <optional>

#include "cli/check_command.h"
#include "cli/command_line.h"
#include "cli/export_command.h"
#include "model/walkthrough_presets.h"
#include "ui/session.h"
#include "window/window.h"

int main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  try {
    int exit_code = 0;
    std::optional<pe::CommandLine> cl = pe::ParseCommandLine(argc, argv, exit_code);
    if (!cl) return exit_code;
    if (cl->mode == pe::RunMode::kExport) return pe::RunExport(cl->params, cl->export_request);
    if (cl->mode == pe::RunMode::kCheck) return pe::RunCheck(cl->params, cl->check_request);
    if (cl->mode == pe::RunMode::kDescribe) return pe::RunDescribe(cl->params, cl->describe);
    if (cl->mode == pe::RunMode::kTokenize) return pe::RunTokenize(cl->tokenize);
    pe::WindowRequest& window = cl->window;
    pe::AppState state;
    state.params = cl->params;
    state.params.example.truncate = true;  // the window shows what a model would see
    // A walkthrough preset follows its own token, as its button in the window does.
    if (const pe::WalkthroughPreset* p =
            pe::FindWalkthroughPreset(state.params.walkthrough_preset)) {
      state.selection.selected_token = p->focus_token;
    }
    // Screenshots and frame statistics show the built-in example (or the file given) and keep
    // nothing; a window of its own restores the last session unless flags or --fresh say what
    // to show, and autosaves it.
    const bool offscreen = !window.screenshot.empty() || window.frame_stats > 0;
    std::optional<pe::SessionKeeper> keeper;
    if (!offscreen) keeper.emplace(pe::DefaultConfigDir());
    pe::SessionKeeper* sessions = keeper ? &*keeper : nullptr;
    std::vector<std::string> warnings;
    if (!window.open.empty() && !offscreen) {
      // Opened on the window's loading job, like File > Open: its tables are not read here.
      state.session.open_requests.push_back(window.open);
    } else if (!window.open.empty()) {
      if (pe::Status s = pe::OpenSessionPath(state, window.open, sessions); !s.ok()) {
        std::cerr << "pe-explorer: " << s.message() << "\n";
      }
    } else if (keeper && !window.fresh && !window.params_given) {
      if (pe::Status s = keeper->RestoreLast(state, warnings); !s.ok()) {
        std::cerr << "pe-explorer: " << s.message() << "\n";
        state.session.notice = s.message();
        state.session.notice_error = true;
      } else if (!warnings.empty()) {
        for (const std::string& w : warnings) std::cerr << "pe-explorer: " << w << "\n";
        state.session.notice = "Restored the last session; " + warnings.front();
        state.session.notice_error = true;
      }
    }
    if (!window.size_given && state.session.window_width > 0 && state.session.window_height > 0) {
      window.width = state.session.window_width;
      window.height = state.session.window_height;
    }
    if (!window.tab.empty()) state.select_tab = pe::ParseView(window.tab);
    // The UI scale and theme are preferences: neither --fresh nor a session changes them.
    std::vector<std::string> look_warnings;
    pe::ApplyStartLook(state, sessions,
                       window.ui_scale_given ? std::optional<float>(window.ui_scale) : std::nullopt,
                       window.theme_given
                           ? std::optional<pe::UiTheme>(window.light_theme ? pe::UiTheme::kLight
                                                                           : pe::UiTheme::kDark)
                           : std::nullopt,
                       look_warnings);
    for (const std::string& w : look_warnings) std::cerr << "pe-explorer: " << w << "\n";
    window.started = started;
    return pe::RunWindow(state, window, {}, sessions);
  } catch (const std::exception& e) {
    std::cerr << "pe-explorer: unexpected error: " << e.what() << "\n";
    return 1;
  }
}
