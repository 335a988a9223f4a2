// The export dialog (Export... on a panel, or Ctrl+E on the focused one): the folder, shown as
// an absolute path; a file name that says what it is; the format by extension (figures PNG/SVG/
// PDF, numbers CSV/NPY); size presets for PNG, layout units for SVG and PDF; a title. Save asks
// before replacing a file, then waits for the export (on the ExportRunner) with progress: a
// failure stays in the dialog, a success closes it and a one-line toast on the status line names
// the full path (a click dismisses it). Escape or Cancel closes the dialog.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <cfloat>
#include <cstring>
#include <filesystem>

#include "io/file_writers.h"
#include "jobs/export_runner.h"
#include "panels/panels.h"
#include "views/figure_command.h"
#include "views/figure_export.h"
#include "views/view_registry.h"
namespace pe {
namespace {

constexpr const char* kExportFormats[] = {"png", "svg", "pdf", "csv", "npy"};
constexpr const char* kFormatLabels[] = {"PNG image", "SVG vector figure", "PDF vector figure",
                                         "CSV numbers", "NPY numbers (numpy.load)"};
constexpr const char* kDialogId = "Export##dialog";

bool IsFigure(int format) {
  return format <= 2;
}

// Whether the view writes format `format` (its entry says whether its table goes to NPY).
bool Offered(ViewKind view, int format) {
  return format != 4 || GetView(view).npy;
}

// The format index a file name's extension names, or `current` when it names none or one the
// view does not write.
int FormatOf(ViewKind view, const std::string& name, int current) {
  const std::string ext = FileExtension(name);
  for (int k = 0; k < 5; ++k) {
    if (ext == kExportFormats[k] && Offered(view, k)) return k;
  }
  return current;
}

// The format combo with only the formats the view writes; true when the choice changed.
bool FormatCombo(ViewKind view, int* format) {
  bool changed = false;
  if (ImGui::BeginCombo("format", kFormatLabels[*format])) {
    for (int k = 0; k < 5; ++k) {
      if (!Offered(view, k)) continue;
      if (ImGui::Selectable(kFormatLabels[k], k == *format) && k != *format) {
        *format = k;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

std::string ReplaceExtension(const std::string& name, const char* ext) {
  const size_t dot = name.find_last_of('.');
  return (dot == std::string::npos ? name : name.substr(0, dot)) + "." + ext;
}

std::string JoinPath(const std::string& folder, const std::string& name) {
  if (folder.empty() || name.front() == '/') return name;
  return folder.back() == '/' ? folder + name : folder + "/" + name;
}

// The folder files go to, as an absolute path ("" is the current directory), so the dialog and
// the toast say where a file really went.
std::string AbsoluteFolder(const std::string& folder) {
  std::error_code ec;
  const std::filesystem::path abs =
      std::filesystem::absolute(folder.empty() ? "." : folder, ec).lexically_normal();
  if (ec) return folder;
  std::string out = abs.string();
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// Presets scale PNG pixels only; SVG and PDF are drawn in layout units whatever the scale.
FigureSize ChosenSize(const ExportDialogState& d) {
  const bool png = d.format == 0;
  FigureSize size{960, 540, png && d.size_preset == 1 ? 2.0 : 1.0};
  if (d.size_preset == 2) size = {d.width, d.height, png ? d.scale : 1.0};
  size.font_pt = d.font_size;
  return size;
}

// Takes a finished export's outcome. A success becomes a toast naming the file; a failure goes
// into the dialog when the dialog is waiting for it, else into a toast. True when the dialog's
// own export succeeded (the dialog then closes).
bool TakeOutcome(AppState& state, UiServices& services) {
  if (!services.exports) return false;
  std::optional<ExportOutcome> o = services.exports->Take();
  if (!o) return false;
  ExportDialogState& d = state.export_dialog;
  const bool from_dialog = d.saving;
  d.saving = false;
  const double now = ImGui::GetTime();
  if (o->status.ok()) {
    // A page too small for the text size: said with the file (the text was drawn smaller).
    state.toast = {"Saved " + o->path + (o->note.empty() ? "" : "; " + o->note), false,
                   now + (o->note.empty() ? 6.0 : 12.0)};
    return from_dialog;
  }
  if (from_dialog) {
    d.error = o->status.message();
  } else {
    state.toast = {"Export failed: " + o->status.message(), true, now + 10.0};
  }
  return false;
}

// Starts the dialog's export to `path`. True when it already ended well (a synchronous runner),
// so the dialog closes.
bool StartExport(AppState& state, UiServices& services, const std::string& path,
                 const EncodingPtr& encoding) {
  ExportDialogState& d = state.export_dialog;
  ExportJob job{d.view,  state.params, ViewsOf(state, d.view), path, ChosenSize(d),
                d.title, encoding};
  if (!services.exports->Start(std::move(job))) {
    d.error = "an export is still running; wait for it or cancel it";
    return false;
  }
  d.error.clear();
  d.saving = true;
  return TakeOutcome(state, services);
}

void DrawSizeChoice(ExportDialogState& d) {
  const float em = ImGui::GetFontSize();
  const bool png = d.format == 0;
  if (png) {
    ImGui::RadioButton("1x", &d.size_preset, 0);
    ImGui::SameLine();
    ImGui::RadioButton("2x", &d.size_preset, 1);
  } else {
    int preset = d.size_preset == 2 ? 2 : 0;
    if (ImGui::RadioButton("960 x 540", &preset, 0)) d.size_preset = preset;
  }
  ImGui::SameLine();
  ImGui::RadioButton("custom", &d.size_preset, 2);
  if (d.size_preset == 2) {
    ImGui::SetNextItemWidth(em * 5);
    ImGui::InputFloat("width", &d.width, 0, 0, "%.0f");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em * 5);
    ImGui::InputFloat("height", &d.height, 0, 0, "%.0f");
    if (png) {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(em * 4);
      ImGui::InputFloat("scale", &d.scale, 0, 0, "%.2f");
    }
  }
  // Refused in place outside [5, 36], as `--font-size` is.
  const bool font_ok = d.font_size >= kLeastFontPt && d.font_size <= kMostFontPt;
  if (!font_ok) PushRefusedFrame();
  ImGui::SetNextItemWidth(em * 5);
  ImGui::InputFloat("font size", &d.font_size, 0, 0, "%.1f");
  if (!font_ok) PopRefusedFrame();
  ItemTooltip(
      "The body text's size in layout units (points in a PDF), 5 to 36, as `pe-explorer export "
      "--font-size` takes it; titles and axis titles are larger in proportion. A page too small "
      "for it gets smaller text, never cut text, and the saved message says so.");
  if (!font_ok) ErrorText(ValidateFigureSize(ChosenSize(d)).message());
  const FigureSize size = ChosenSize(d);
  if (png) {
    ImGui::TextDisabled("%.0f x %.0f pixels", size.width * size.scale, size.height * size.scale);
  } else {
    ImGui::TextDisabled("%.0f x %.0f %s, text and lines as vectors", size.width, size.height,
                        d.format == 1 ? "px" : "pt");
  }
}

}  // namespace

void OpenExportDialog(AppState& state, ViewKind view) {
  ExportDialogState& d = state.export_dialog;
  d.view = view;
  if (!Offered(view, d.format)) d.format = 3;  // CSV, which every view writes
  d.name = SuggestedFileName(view, state.params, kExportFormats[d.format]);
  d.error.clear();
  d.open_requested = true;
}

void DrawExportDialog(AppState& state, UiServices& services, const EncodingPtr& encoding) {
  ExportDialogState& d = state.export_dialog;
  bool close = TakeOutcome(state, services);
  if (d.open_requested) {
    ImGui::OpenPopup(kDialogId);
    d.open_requested = false;
    d.confirm_path.clear();
  }
  const float em = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(ImVec2(em * 32, 0));
  if (!ImGui::BeginPopupModal(kDialogId, nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
  const bool escape = ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
  ImGui::Text("Export the %s view", std::string(ViewName(d.view)).c_str());
  ImGui::PushTextWrapPos(0.0f);
  if (d.saving) {
    ImGui::TextUnformatted("Saving...");
    if (services.exports) {
      ImGui::ProgressBar(static_cast<float>(services.exports->progress()), ImVec2(-FLT_MIN, 0));
    }
    if (ImGui::Button("Cancel", ImVec2(em * 6, 0)) || escape) {
      // The outcome (saved, or cancelled) arrives later as a toast.
      if (services.exports) services.exports->Cancel();
      d.saving = false;
      close = true;
    }
  } else if (!d.confirm_path.empty()) {
    ImGui::Text("%s exists. Replace?", d.confirm_path.c_str());
    ImGui::Spacing();
    if (ImGui::Button("Replace", ImVec2(em * 6, 0))) {
      const std::string path = d.confirm_path;
      d.confirm_path.clear();
      close = StartExport(state, services, path, encoding);
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel", ImVec2(em * 6, 0)) || escape) d.confirm_path.clear();
  } else {
    if (d.view == ViewKind::kWalkthrough) {
      ImGui::TextDisabled("PNG or SVG: the step on show. PDF: the handout, one page per step.");
    } else if (IsFigure(d.format)) {
      ImGui::TextDisabled(
          "Exactly what the panel shows: its zoom window, dimensions, token and colormap.");
    } else {
      // The numbers are the view's whole table, as `pe-explorer export` writes them: a zoomed
      // panel still exports every position (the command line's --positions A:B keeps fewer).
      ImGui::TextDisabled(
          "The numbers behind the panel: its whole table (every position, not only the zoom "
          "window), with its dimensions and token.");
    }
    ImGui::Spacing();
    const std::string folder = AbsoluteFolder(d.folder);
    ImGui::SetNextItemWidth(-em * 6);
    ImGui::InputTextWithHint("folder", "current folder", &d.folder);
    ImGui::TextDisabled("in %s", folder.c_str());
    ImGui::SetNextItemWidth(-em * 6);
    if (ImGui::InputText("file name", &d.name)) d.format = FormatOf(d.view, d.name, d.format);
    if (services.picker && services.picker->available()) {
      if (ImGui::Button(services.picker->running() ? "Choosing..." : "Browse...") &&
          !services.picker->running()) {
        services.picker->Open(JoinPath(folder, d.name));
      }
      ItemTooltip("Choose the file in the system's save dialog.");
    }
    if (services.picker) {
      if (std::optional<std::string> chosen = services.picker->Take()) {
        const size_t slash = chosen->find_last_of('/');
        d.folder = slash == std::string::npos ? "" : chosen->substr(0, slash);
        d.name = slash == std::string::npos ? *chosen : chosen->substr(slash + 1);
        d.format = FormatOf(d.view, d.name, d.format);
      }
    }
    ImGui::SetNextItemWidth(em * 14);
    FitComboWidth("format", kFormatLabels);
    if (FormatCombo(d.view, &d.format)) d.name = ReplaceExtension(d.name, kExportFormats[d.format]);
    if (IsFigure(d.format)) {
      DrawSizeChoice(d);
      ImGui::SetNextItemWidth(-em * 6);
      ImGui::InputTextWithHint("title", "default: names the parameters", &d.title);
      // Only the heatmap and the curves outline a token.
      const bool outlines = d.view == ViewKind::kHeatmap || d.view == ViewKind::kCurves;
      if (outlines && state.selection.selected_token >= 0) {
        ImGui::Checkbox("outline the selected token", &d.token_chosen);
        ItemTooltip(
            "Outline the selected token's row (heatmap) or position (curves), as "
            "`pe-explorer export --token N` does. On once you pick a token.");
      }
    } else {
      ImGui::TextDisabled("The numbers behind the view, as `pe-explorer export` writes them.");
    }
    // The command line that writes the same file: only what differs from the defaults.
    // Made from the window's encoding, never a new one (a large learned table would be drawn
    // again); none while the table is being built. Made again only when what it names changes.
    std::string command;
    if (IsFigure(d.format) && ValidateFigureSize(ChosenSize(d)).ok() && encoding) {
      ExportDialogState::CommandLine key{d.view,
                                         state.params,
                                         ViewsOf(state, d.view),
                                         ChosenSize(d),
                                         d.title,
                                         JoinPath(folder, d.name),
                                         ""};
      const auto& c = d.command;
      if (!c || c->view != key.view || c->params != key.params || c->selection != key.selection ||
          c->size != key.size || c->title != key.title || c->path != key.path) {
        key.line = ExportCommandLine(key.view, key.params, key.selection, key.size, key.title,
                                     key.path, encoding);
        d.command = std::move(key);
      }
      command = d.command->line;
      ImGui::Spacing();
      ImGui::TextDisabled("Command:");
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", command.c_str());
      ImGui::PopStyleColor();
    }
    if (!d.error.empty()) ErrorText(d.error);
    ImGui::Spacing();
    if (ImGui::Button("Save", ImVec2(em * 6, 0))) {
      Status ok = ValidateFigureSize(ChosenSize(d));
      if (d.name.empty()) ok = InvalidArgument("the file name is empty");
      if (!ok.ok()) {
        d.error = ok.message();
      } else if (!services.exports) {
        d.error = "exporting is not available here";
      } else {
        const std::string path = JoinPath(folder, d.name);
        std::error_code ec;
        if (std::filesystem::exists(path, ec)) {
          d.confirm_path = path;
        } else {
          close = StartExport(state, services, path, encoding);
        }
      }
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel", ImVec2(em * 6, 0)) || escape) close = true;
    if (!command.empty()) {
      ImGui::SameLine();
      if (ImGui::Button("Copy command")) {
        ImGui::SetClipboardText(command.c_str());
        d.copied_command = command;
        state.toast = {"Copied the command", false, ImGui::GetTime() + 4.0};
      }
      ItemTooltip("Put the `pe-explorer export` command that writes this file on the clipboard.");
    }
  }
  ImGui::PopTextWrapPos();
  if (close) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

void DrawExportStatus(AppState& state, UiServices& services) {
  TakeOutcome(state, services);
  const double now = ImGui::GetTime();
  // The dialog shows the progress of its own export.
  const bool busy = services.exports && services.exports->busy() && !state.export_dialog.saving;
  if (!busy && state.toast.until <= now) return;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float em = ImGui::GetFontSize();
  // One line at the right end of the status line, under the panels rather than over their data.
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x, vp->WorkPos.y + vp->WorkSize.y),
                          ImGuiCond_Always, ImVec2(1, 1));
  ImGui::SetNextWindowBgAlpha(0.95f);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(em * 0.4f, em * 0.2f));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1, 1));  // the style's 32 px is 2 lines
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
  if (ImGui::Begin("##export_status", nullptr, flags)) {
    ImGui::PushTextWrapPos(vp->WorkSize.x * 0.6f);
    if (busy) {
      ImGui::TextUnformatted("Exporting...");
      ImGui::SameLine();
      ImGui::ProgressBar(static_cast<float>(services.exports->progress()),
                         ImVec2(em * 10, ImGui::GetTextLineHeight()));
      ImGui::SameLine();
      if (ImGui::SmallButton("Cancel")) services.exports->Cancel();
    } else {
      if (state.toast.error) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
      ImGui::TextUnformatted(state.toast.text.c_str());
      if (state.toast.error) ImGui::PopStyleColor();
      if (ImGui::IsWindowHovered() && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
        state.toast.until = 0;  // dismissed
      } else if (ImGui::IsWindowHovered()) {
        ImGui::SetTooltip("Click to dismiss.");
      }
    }
    ImGui::PopTextWrapPos();
  }
  ImGui::End();
  ImGui::PopStyleVar(2);
}

}  // namespace pe

namespace pe {

FigureSize ExportDialogSize(const ExportDialogState& d) {
  return ChosenSize(d);
}

}  // namespace pe
