// The File menu (sessions and figures: new, open, save, save as, recent), the Edit menu (undo,
// redo of parameter changes), their keys, and the dialogs asking for a session's path. What
// they do happens at the start of the next frame (ui/session.h: HandleSessionRequests).
#include <imgui.h>
#include <imgui_stdlib.h>

#include <filesystem>
#include <system_error>

#include "io/file_writers.h"
#include "panels/panels.h"
#include "ui/session.h"
#include "ui/shortcuts.h"

namespace pe {
namespace {

constexpr const char* kOpenDialog = "Open a session or figure";
constexpr const char* kSaveDialog = "Save the session as";

// The dialogs' own state: the text typed and why the last try was refused. Lives in AppState
// (session.dialog_path); the error is shown under the field.
std::string SessionPathError(const std::string& path, bool saving) {
  if (path.empty()) return "Type a file path.";
  const std::string ext = FileExtension(path);
  if (saving && !ext.empty() && ext != "pexs") {
    return "A session file ends in .pexs (\"" + path + "\" ends in ." + ext + ").";
  }
  if (!saving && !IsSessionOrFigurePath(path)) {
    return "Open a session (.pexs) or a figure this app exported (.png, .svg, .pdf).";
  }
  return "";
}

std::string DefaultSessionPath(const AppState& state) {
  if (!state.session.path.empty()) return state.session.path;
  const std::string& folder = state.export_dialog.folder;
  return (folder.empty() ? std::string() : folder + "/") + "session.pexs";
}

}  // namespace

std::string SessionFolder(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path.empty() ? "x" : path, ec);
  if (ec) {
    std::string why = "(";
    why += ec.message();
    return why + ")";
  }
  const std::filesystem::path folder = p.parent_path();
  std::string text = folder.string();
  if (!std::filesystem::is_directory(folder, ec)) text += " (no such folder)";
  return text;
}

void DrawFileMenu(AppState& state, UiServices& services) {
  if (!ImGui::BeginMenu("File")) return;
  SessionUiState& s = state.session;
  if (ImGui::MenuItem("New session (defaults)")) s.new_requested = true;
  ItemTooltip("Start again on the built-in example (Edit > Undo brings the parameters back).");
  if (ImGui::MenuItem("Open...", ShortcutFor(ShortcutAction::kOpenSession).keys))
    s.open_dialog = true;
  ItemTooltip(
      "Open a session (.pexs), or a figure this app exported (PNG, SVG, PDF): its view, "
      "parameters and window, as they were when it was saved.");
  const SessionKeeper* keeper = services.sessions;
  if (ImGui::BeginMenu("Open recent", keeper != nullptr && !keeper->recent().empty())) {
    for (size_t k = 0; keeper != nullptr && k < keeper->recent().size(); ++k) {
      ImGui::PushID(static_cast<int>(k));
      if (ImGui::MenuItem(keeper->recent()[k].c_str()))
        s.open_requests.push_back(keeper->recent()[k]);
      ImGui::PopID();
    }
    ImGui::EndMenu();
  }
  DrawFileMenuItems(state);
  ImGui::Separator();
  if (ImGui::MenuItem("Save", ShortcutFor(ShortcutAction::kSaveSession).keys))
    s.save_requested = true;
  ItemTooltip(s.path.empty() ? "Save the session: parameters, views, panels (asks for a name)."
                             : ("Save the session to " + s.path).c_str());
  if (ImGui::MenuItem("Save as...", ShortcutFor(ShortcutAction::kSaveSessionAs).keys))
    s.save_as_dialog = true;
  ImGui::Separator();
  if (ImGui::MenuItem("Export the focused view...", ShortcutFor(ShortcutAction::kExport).keys,
                      false, services.exports != nullptr)) {
    OpenExportDialog(state, state.focused_view);
  }
  ImGui::EndMenu();
}

void DrawEditMenu(AppState& state) {
  if (!ImGui::BeginMenu("Edit")) return;
  const UndoHistory& h = state.history;
  if (ImGui::MenuItem("Undo", ShortcutFor(ShortcutAction::kUndo).keys, false, !h.undo.empty()))
    Undo(state);
  ItemTooltip("Put back the parameters before the last change (a slider drag is one change).");
  if (ImGui::MenuItem("Redo", ShortcutFor(ShortcutAction::kRedo).keys, false, !h.redo.empty()))
    Redo(state);
  ImGui::EndMenu();
}

void DrawSessionDialogs(AppState& state, UiServices& /*services*/) {
  SessionUiState& s = state.session;
  auto open = [&](bool& flag, const char* id, std::string initial) {
    if (!flag) return;
    flag = false;
    s.dialog_path = std::move(initial);
    state.fields[ImGui::GetID(id)].error.clear();
    ImGui::OpenPopup(id);
  };
  open(s.open_dialog, kOpenDialog, s.path);
  open(s.save_as_dialog, kSaveDialog, DefaultSessionPath(state));
  const float em = ImGui::GetFontSize();
  for (const char* id : {kOpenDialog, kSaveDialog}) {
    const bool saving = id == kSaveDialog;
    ImGui::SetNextWindowSize(ImVec2(em * 30, 0));
    if (!ImGui::BeginPopupModal(id, nullptr, ImGuiWindowFlags_NoSavedSettings)) continue;
    std::string& error = state.fields[ImGui::GetID(id)].error;
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(saving ? "The session (parameters, views, panels) as a .pexs file:"
                                  : "A session (.pexs) or a figure this app exported (.png, "
                                    ".svg, .pdf):");
    ImGui::PopTextWrapPos();
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    ImGui::SetNextItemWidth(-FLT_MIN);
    const bool enter =
        ImGui::InputText("##path", &s.dialog_path, ImGuiInputTextFlags_EnterReturnsTrue);
    if (saving) {
      // Where the file goes: a bare name is relative to the working folder, which the field
      // does not show.
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("Folder: %s", SessionFolder(s.dialog_path).c_str());
      ImGui::PopTextWrapPos();
    }
    if (!error.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ErrorText(error);
      ImGui::PopTextWrapPos();
    }
    const bool go = ImGui::Button(saving ? "Save" : "Open") || enter;
    ImGui::SameLine();
    const bool cancel =
        ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
    if (go) {
      std::string path = s.dialog_path;
      if (saving && FileExtension(path).empty() && !path.empty()) path += ".pexs";
      // A path that is neither a session nor a figure is a table: File > Open table takes it.
      if (!saving && !path.empty() && !IsSessionOrFigurePath(path)) {
        state.dropped_files.push_back(path);
        ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
        continue;
      }
      error = SessionPathError(path, saving);
      if (error.empty()) {
        if (saving) {
          s.save_as_request = path;
        } else {
          s.open_requests.push_back(path);
        }
        ImGui::CloseCurrentPopup();
      }
    }
    if (cancel) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

}  // namespace pe
