// A small file chooser drawn with ImGui, for where no native dialog is installed (zenity is not
// needed): a folder's sub-folders and the files of the given extensions, Up to the parent,
// the arrow keys to move, Enter to open a folder or choose a file, Escape to close.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "panels/panels.h"

namespace pe {

namespace fs = std::filesystem;

std::vector<ChooserEntry> ListChooserFolder(const std::string& folder,
                                            std::span<const char* const> extensions,
                                            std::string* error) {
  std::vector<ChooserEntry> dirs, files;
  std::error_code ec;
  const fs::path dir = folder.empty() ? fs::current_path(ec) : fs::path(folder);
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    if (error) *error = "cannot list \"" + dir.string() + "\": " + ec.message();
    return {};
  }
  for (const fs::directory_entry& e : it) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;  // hidden files stay hidden
    std::error_code type_ec;
    if (e.is_directory(type_ec)) {
      dirs.push_back({name, true});
      continue;
    }
    std::string ext = e.path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* want : extensions) {
      if (ext == want) {
        files.push_back({name, false});
        break;
      }
    }
  }
  auto by_name = [](const ChooserEntry& a, const ChooserEntry& b) { return a.name < b.name; };
  std::sort(dirs.begin(), dirs.end(), by_name);
  std::sort(files.begin(), files.end(), by_name);
  dirs.insert(dirs.end(), files.begin(), files.end());
  if (error) error->clear();
  return dirs;
}

std::string ChooserParent(const std::string& folder) {
  std::error_code ec;
  fs::path p = folder.empty() ? fs::current_path(ec) : fs::path(folder);
  p = fs::absolute(p, ec).lexically_normal();
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  const fs::path parent = fs::path(s).parent_path();
  return parent.empty() ? s : parent.string();
}

bool DrawFileChooser(const char* title, FileChooserState& s,
                     std::span<const char* const> extensions, std::string& chosen) {
  if (s.open_requested) {
    s.open_requested = false;
    if (s.folder.empty()) {
      std::error_code ec;
      s.folder = fs::current_path(ec).string();
    }
    s.picked = -1;
    ImGui::OpenPopup(title);
  }
  const float em = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(ImVec2(em * 34, em * 26), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_NoSavedSettings)) return false;
  bool done = false;
  std::string error;
  const std::vector<ChooserEntry> entries = ListChooserFolder(s.folder, extensions, &error);
  auto open_entry = [&](int k) {
    const ChooserEntry& e = entries[static_cast<size_t>(k)];
    const std::string path = (fs::path(s.folder) / e.name).string();
    if (e.folder) {
      s.folder = path;
      s.picked = -1;
    } else {
      chosen = path;
      done = true;
    }
  };
  if (ImGui::Button("Up")) {
    s.folder = ChooserParent(s.folder);
    s.picked = -1;
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  ImGui::InputText("##folder", &s.folder);
  std::string shown;
  for (const char* ext : extensions) shown += std::string(shown.empty() ? "" : ", ") + ext;
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  WrappedText("Folders and " + shown + " files. Arrow keys move, Enter opens, Backspace goes up.");
  ImGui::PopStyleColor();
  if (!error.empty()) ErrorText(error);
  const bool typing = ImGui::IsAnyItemActive();
  if (!typing && !entries.empty()) {
    const int n = static_cast<int>(entries.size());
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow))) {
      s.picked = std::min(n - 1, s.picked + 1);
    }
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow))) {
      s.picked = std::max(0, s.picked - 1);
    }
  }
  if (!typing && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Backspace), false)) {
    s.folder = ChooserParent(s.folder);
    s.picked = -1;
  }
  const bool enter = !typing && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false);
  if (ImGui::BeginChild("chooser_list", ImVec2(0, -em * 2.2f), true)) {
    for (int k = 0; k < static_cast<int>(entries.size()) && !done; ++k) {
      const ChooserEntry& e = entries[static_cast<size_t>(k)];
      const std::string label = e.folder ? e.name + "/" : e.name;
      ImGui::PushID(k);
      if (ImGui::Selectable(label.c_str(), s.picked == k, ImGuiSelectableFlags_AllowDoubleClick)) {
        s.picked = k;
        if (ImGui::IsMouseDoubleClicked(0)) open_entry(k);
      }
      if (s.picked == k && ImGui::IsWindowAppearing()) ImGui::SetScrollHereY();
      ImGui::PopID();
    }
  }
  ImGui::EndChild();
  const bool has_pick = s.picked >= 0 && s.picked < static_cast<int>(entries.size());
  if (!done && has_pick && enter) open_entry(s.picked);
  if (!done) {
    ImGui::BeginDisabled(!has_pick);
    if (ImGui::Button("Open") && has_pick) open_entry(s.picked);
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
      ImGui::CloseCurrentPopup();
    }
  }
  if (done) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return done;
}

}  // namespace pe
