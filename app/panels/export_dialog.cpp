// The export dialog (Export... on a panel, or Ctrl+S on the focused one): file name that says
// what it is, format by extension (figures PNG/SVG/PDF, numbers CSV/NPY), PNG size presets,
// title; then the export runs on the ExportRunner while a corner shows progress and, at the
// end, a toast naming the file or the reason it failed.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstring>

#include "export_runner.h"
#include "figure_export.h"
#include "file_writers.h"
#include "panels.h"

namespace pe {
namespace {

constexpr const char* kExportFormats[] = {"png", "svg", "pdf", "csv", "npy"};
constexpr const char* kFormatLabels[] = {"PNG image", "SVG vector figure", "PDF vector figure",
                                         "CSV numbers", "NPY numbers (numpy.load)"};
constexpr const char* kDialogId = "Export##dialog";

bool IsFigure(int format) {
  return format <= 2;
}

// The format index a file name's extension names, or `current` when it names none.
int FormatOf(const std::string& name, int current) {
  const std::string ext = FileExtension(name);
  for (int k = 0; k < 5; ++k) {
    if (ext == kExportFormats[k]) return k;
  }
  return current;
}

std::string ReplaceExtension(const std::string& name, const char* ext) {
  const size_t dot = name.find_last_of('.');
  return (dot == std::string::npos ? name : name.substr(0, dot)) + "." + ext;
}

std::string JoinPath(const std::string& folder, const std::string& name) {
  if (folder.empty() || name.front() == '/') return name;
  return folder.back() == '/' ? folder + name : folder + "/" + name;
}

FigureSize ChosenSize(const ExportDialogState& d) {
  if (d.size_preset == 0) return {960, 540, 1};
  if (d.size_preset == 1) return {960, 540, 2};
  return {d.width, d.height, d.scale};
}

}  // namespace

void OpenExportDialog(AppState& state, ViewKind view) {
  ExportDialogState& d = state.export_dialog;
  d.view = view;
  d.name = SuggestedFileName(view, state.params, kExportFormats[d.format]);
  d.error.clear();
  d.open_requested = true;
}

void DrawExportDialog(AppState& state, UiServices& services) {
  ExportDialogState& d = state.export_dialog;
  if (d.open_requested) {
    ImGui::OpenPopup(kDialogId);
    d.open_requested = false;
  }
  const float em = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(ImVec2(em * 32, 0));
  if (!ImGui::BeginPopupModal(kDialogId, nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
  ImGui::Text("Export the %s view", std::string(ViewName(d.view)).c_str());
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled(
      "Exactly what the panel shows: its zoom window, dimensions, token and colormap.");
  ImGui::PopTextWrapPos();
  ImGui::Spacing();
  ImGui::SetNextItemWidth(-em * 6);
  ImGui::InputTextWithHint("folder", "current folder", &d.folder);
  ImGui::SetNextItemWidth(-em * 6);
  if (ImGui::InputText("file name", &d.name)) d.format = FormatOf(d.name, d.format);
  if (services.picker && SaveFilePicker::Available()) {
    if (ImGui::Button(services.picker->running() ? "Choosing..." : "Browse...") &&
        !services.picker->running()) {
      services.picker->Open(JoinPath(d.folder, d.name));
    }
    ItemTooltip("Choose the file in the system's save dialog.");
  }
  if (services.picker) {
    if (std::optional<std::string> chosen = services.picker->Take()) {
      const size_t slash = chosen->find_last_of('/');
      d.folder = slash == std::string::npos ? "" : chosen->substr(0, slash);
      d.name = slash == std::string::npos ? *chosen : chosen->substr(slash + 1);
      d.format = FormatOf(d.name, d.format);
    }
  }
  ImGui::SetNextItemWidth(em * 14);
  if (ImGui::Combo("format", &d.format, kFormatLabels, 5))
    d.name = ReplaceExtension(d.name, kExportFormats[d.format]);
  if (IsFigure(d.format)) {
    ImGui::RadioButton("1x", &d.size_preset, 0);
    ImGui::SameLine();
    ImGui::RadioButton("2x", &d.size_preset, 1);
    ImGui::SameLine();
    ImGui::RadioButton("custom", &d.size_preset, 2);
    if (d.size_preset == 2) {
      ImGui::SetNextItemWidth(em * 5);
      ImGui::InputFloat("width", &d.width, 0, 0, "%.0f");
      ImGui::SameLine();
      ImGui::SetNextItemWidth(em * 5);
      ImGui::InputFloat("height", &d.height, 0, 0, "%.0f");
      ImGui::SameLine();
      ImGui::SetNextItemWidth(em * 4);
      ImGui::InputFloat("scale", &d.scale, 0, 0, "%.2f");
    }
    const FigureSize size = ChosenSize(d);
    if (d.format == 0) {
      ImGui::TextDisabled("%.0f x %.0f pixels", size.width * size.scale, size.height * size.scale);
    } else {
      ImGui::TextDisabled("%.0f x %.0f %s, text and lines as vectors", size.width, size.height,
                          d.format == 1 ? "px" : "pt");
    }
    ImGui::SetNextItemWidth(-em * 6);
    ImGui::InputTextWithHint("title", "default: names the parameters", &d.title);
  } else {
    ImGui::TextDisabled("The numbers behind the view, as `pe-explorer export` writes them.");
  }
  if (!d.error.empty()) ErrorText(d.error);
  ImGui::Spacing();
  if (ImGui::Button("Save", ImVec2(em * 6, 0))) {
    const FigureSize size = ChosenSize(d);
    Status ok = ValidateFigureSize(size);
    if (d.name.empty()) ok = InvalidArgument("the file name is empty");
    if (!ok.ok()) {
      d.error = ok.message();
    } else if (!services.exports) {
      d.error = "exporting is not available here";
    } else {
      ExportJob job{d.view, state.params, ViewsOf(state), JoinPath(d.folder, d.name),
                    size,   d.title};
      if (services.exports->Start(std::move(job))) {
        ImGui::CloseCurrentPopup();
      } else {
        d.error = "an export is still running; wait for it or cancel it";
      }
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel", ImVec2(em * 6, 0))) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

void DrawExportStatus(AppState& state, UiServices& services) {
  const double now = ImGui::GetTime();
  if (services.exports) {
    if (std::optional<ExportOutcome> o = services.exports->Take()) {
      state.toast.error = !o->status.ok();
      state.toast.text =
          o->status.ok() ? "Saved " + o->path : "Export failed: " + o->status.message();
      state.toast.until = now + (o->status.ok() ? 5.0 : 10.0);
    }
  }
  const bool busy = services.exports && services.exports->busy();
  if (!busy && state.toast.until <= now) return;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float em = ImGui::GetFontSize();
  ImGui::SetNextWindowPos(
      ImVec2(vp->WorkPos.x + vp->WorkSize.x - em, vp->WorkPos.y + vp->WorkSize.y - em * 2.5f),
      ImGuiCond_Always, ImVec2(1, 1));
  ImGui::SetNextWindowBgAlpha(0.92f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
  if (ImGui::Begin("##export_status", nullptr, flags)) {
    if (busy) {
      ImGui::TextUnformatted("Exporting...");
      ImGui::ProgressBar(static_cast<float>(services.exports->progress()), ImVec2(em * 14, 0));
      ImGui::SameLine();
      if (ImGui::SmallButton("Cancel")) services.exports->Cancel();
    } else {
      if (state.toast.error) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
      ImGui::TextUnformatted(state.toast.text.c_str());
      if (state.toast.error) ImGui::PopStyleColor();
    }
  }
  ImGui::End();
}

}  // namespace pe
