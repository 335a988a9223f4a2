#include "panels/check_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "analysis/check_cases.h"
#include "arch/catalogue.h"
#include "arch/model_choice.h"
#include "encoding/encoding.h"
#include "io/file_writers.h"
#include "io/tensor_file.h"
#include "jobs/job.h"
#include "model/model_schedule.h"
#include "ui/model_pick.h"

namespace pe {

// The job that computes the report, and the newest report it published.
struct CheckPanelCache {
  std::optional<CheckPanelResult> shown;  // on screen
  CheckPanelLayout layout;
  float report_height = 0;  // of the report's lines last frame
  std::optional<CheckPanelRequest> asked;
  struct Slot {
    std::mutex mutex;
    std::optional<CheckPanelResult> done;
  };
  std::shared_ptr<Slot> slot = std::make_shared<Slot>();
  std::unique_ptr<Job> job;  // last: joined before the slot goes
};

namespace {

// Tables up to this many cells are identified (a 131072 x 128 table takes well under a second).
constexpr int64_t kReportCells = int64_t{1} << 24;
constexpr size_t kWorstCells = 8;

std::string Named(const CheckCandidate& c) {
  return c.preset.empty() ? c.description : c.description + " (" + c.preset + ")";
}

std::string Capitalised(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  if (!s.empty() && s.back() != '.' && s.back() != ')') s += '.';
  if (!s.empty() && s.back() == ')') s += '.';
  return s;
}

// The cells of `table` farthest from `ref`, worst first.
std::vector<CheckCell> WorstOf(const Matrix& table, const Matrix& ref, const Encoding& e) {
  std::vector<CheckCell> worst;
  float floor = 0;  // the smallest |error| kept, once the list is full
  for (int64_t r = 0; r < table.rows; ++r) {
    const float* t = table.row(r);
    const float* f = ref.row(r);
    for (int64_t j = 0; j < table.cols; ++j) {
      const float err = std::abs(t[j] - f[j]);
      if (!(err > 0) || (worst.size() == kWorstCells && !(err > floor))) continue;
      CheckCell c;
      c.row = r;
      c.col = j;
      c.position = e.first_position() + r;
      c.table = t[j];
      c.reference = f[j];
      auto farther = [](const CheckCell& a, const CheckCell& b) {
        return std::abs(a.table - a.reference) > std::abs(b.table - b.reference);
      };
      worst.insert(std::upper_bound(worst.begin(), worst.end(), c, farther), c);
      if (worst.size() > kWorstCells) worst.pop_back();
      if (worst.size() == kWorstCells)
        floor = std::abs(worst.back().table - worst.back().reference);
    }
  }
  for (CheckCell& c : worst) c.formula = e.DescribeCell(c.position, c.col);
  return worst;
}

}  // namespace

CheckPanelResult ComputeCheckPanel(const CheckPanelRequest& request) {
  CheckPanelResult out;
  out.request = request;
  const MemoryCap& cap = request.params.cap;
  Result<TensorSpec> spec = ParseTensorSpec(request.table);
  if (!spec.ok()) {
    out.error = spec.message();
    return out;
  }
  Result<LoadedTensor> loaded = ReadTensorFile(spec.value(), cap);
  if (!loaded.ok()) {
    out.error = loaded.message();
    return out;
  }
  out.name = TensorSpecText(spec.value());
  out.dtype = loaded.value().dtype;
  Result<Matrix> table =
      TableFromTensor(loaded.value().values.shape, std::move(loaded.value().values.data));
  if (!table.ok()) {
    out.error = "\"" + out.name + "\": " + table.message();
    return out;
  }
  const Matrix& t = table.value();
  out.rows = t.rows;
  out.cols = t.cols;
  const int bits = DtypeSignificandBits(out.dtype);
  // The error map's reference: the window's parameters, shaped like the table.
  EncodingParams p = request.params.pe;
  p.d_model = t.cols;
  p.max_len = t.rows;
  if (Result<EncodingPtr> e = MakeEncoding(p, cap); e.ok()) {
    out.intent = e.value()->Summary();
    out.first_position = e.value()->first_position();
    if (Result<Matrix> ref = ComputeTable(*e.value(), cap); ref.ok()) {
      out.worst = WorstOf(t, ref.value(), *e.value());
    }
  } else {
    out.intent = e.message();
  }
  if (t.rows * t.cols > kReportCells) {
    out.error = "the table has " + std::to_string(t.rows * t.cols) +
                " cells; the window identifies tables up to " + std::to_string(kReportCells) +
                " (pe-explorer check FILE reads any)";
    return out;
  }
  CheckConstraints c = WholeIntent(request.params.pe, bits);
  if (request.params.model) {
    c.model = ModelLabel(request.params);
    c.model_format = request.params.model->format;
    c.model_type = request.params.model->model_type;
  }
  if (Result<CheckReport> r = CheckTable(t, c, cap); r.ok()) {
    out.report = std::move(r).value();
  } else {
    out.error = r.message();
  }
  if (!request.compare_model.empty()) {
    Result<ModelParams> m = PickCatalogueModel(request.params, request.compare_model);
    if (m.ok()) m = PickModelLayer(m.value(), request.compare_layer);
    if (!m.ok()) {
      out.model_error = m.message();
      return out;
    }
    const ModelParams& mp = m.value();
    out.model_label = ModelLabel(mp);
    CheckConstraints mc = WholeIntent(mp.pe, bits);
    mc.model = out.model_label;
    if (mp.model) {
      mc.model_format = mp.model->format;
      mc.model_type = mp.model->model_type;
    }
    if (Result<CheckReport> r = CheckTable(t, mc, cap); r.ok()) {
      out.model_report = std::move(r).value();
    } else {
      out.model_error = r.message();
    }
  }
  return out;
}

std::vector<std::string> CheckReportSentences(const CheckReport& r, const std::string& meant) {
  std::vector<std::string> out;
  if (r.identified) {
    const CheckCandidate& id = *r.identified;
    switch (id.verdict) {
      case CheckVerdict::kMatch:
        out.push_back("The table is " + Named(id) +
                      (id.stats.max_abs == 0 ? std::string(", exactly.")
                                             : ", to " + CheckNumberText(id.stats.max_abs) + "."));
        break;
      case CheckVerdict::kFloat32:
        out.push_back("The table is " + Named(id) + ", computed in float32 (max |error| " +
                      CheckNumberText(id.stats.max_abs) + ", growing with the position).");
        break;
      case CheckVerdict::kNoMatch:
        out.push_back("The table is no known convention exactly; the nearest is " + Named(id) +
                      " (max |error| " + CheckNumberText(id.stats.max_abs) + ").");
        break;
    }
  } else {
    out.push_back("The table is no convention the check knows (sinusoidal or RoPE).");
  }
  // "the window's parameters say", "llama-3.1-8b, layer 0 says".
  const std::string say = meant.rfind("the window", 0) == 0 ? " say" : " says";
  if (r.matches) {
    out.push_back("It is what " + meant + say +
                  (r.verdict == CheckVerdict::kFloat32 ? ", computed in float32." : "."));
  } else {
    out.push_back("It is not what " + meant + say +
                  (r.intended ? " (" + Named(*r.intended) + ")." : "."));
  }
  for (const std::string& w : r.warnings) out.push_back("Note: " + Capitalised(w));
  for (const CheckDiagnosis& d : r.diagnosis) {
    out.push_back(d.kind + ": " + Capitalised(d.text));
  }
  return out;
}

Result<std::string> WriteCheckCase(std::string_view name, const MemoryCap& cap) {
  Result<CheckCaseTable> made = MakeCheckCase(name, cap);
  if (!made.ok()) return made.error();
  std::error_code ec;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path(ec) / "pe-explorer-check-cases";
  if (ec) return RuntimeError("no temporary folder for the case's table: " + ec.message());
  std::filesystem::create_directories(dir, ec);
  if (ec) return RuntimeError("cannot make \"" + dir.string() + "\": " + ec.message());
  const std::string path = (dir / (std::string(name) + ".npy")).string();
  std::ofstream out(path, std::ios::binary);
  const Matrix& t = made.value().table;
  const int64_t shape[] = {t.rows, t.cols};
  out << NpyHeader(shape);
  WriteFloatsLE(out, t.data.data(), t.rows * t.cols);
  out.close();
  if (!out) return RuntimeError("cannot write \"" + path + "\"");
  return path;
}

PlotRange CheckCellWindow(const ViewRange& whole, int64_t position, int64_t column) {
  const double w = std::max(8.0, std::min(32.0, (whole.x1 - whole.x0) / 8));
  const double h = std::max(8.0, std::min(64.0, (whole.y1 - whole.y0) / 8));
  const double cx = static_cast<double>(column) + 0.5, cy = static_cast<double>(position) + 0.5;
  auto fit = [](double lo, double hi, double a, double b) {
    // [a, b] moved inside [lo, hi] (or [lo, hi] when wider).
    if (b - a >= hi - lo) return std::pair{lo, hi};
    if (a < lo) b += lo - a, a = lo;
    if (b > hi) a -= b - hi, b = hi;
    return std::pair{a, b};
  };
  const auto [x0, x1] = fit(whole.x0, whole.x1, cx - w / 2, cx + w / 2);
  const auto [y0, y1] = fit(whole.y0, whole.y1, cy - h / 2, cy + h / 2);
  return PlotRange{x0, x1, y0, y1};
}

const CheckPanelLayout* DrawnCheckPanel(const UiCaches& caches) {
  return caches.check_panel ? &caches.check_panel->layout : nullptr;
}

const CheckPanelResult* ShownCheckPanel(const UiCaches& caches) {
  if (!caches.check_panel || !caches.check_panel->shown) return nullptr;
  return &*caches.check_panel->shown;
}

namespace {

// The centre of the last item drawn, on screen.
ImVec2 Centre() {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  return ImVec2((a.x + b.x) / 2, (a.y + b.y) / 2);
}

constexpr const char* kChooser = "Choose a table to check";
constexpr const char* const kTableExtensions[] = {".npy", ".safetensors", ".csv", ".pt"};

// The path field, Load, Browse... and Clear.
void DrawTablePath(AppState& state) {
  const float em = ImGui::GetFontSize();
  const char* label = "table";
  const ImGuiID id = ImGui::GetID(label);
  FieldEdit& f = state.fields[id];
  if (!f.active && f.text.empty()) f.text = state.params.check_table;
  ImGui::SetNextItemWidth(std::max(em * 10, ImGui::GetContentRegionAvail().x - em * 17));
  if (!f.error.empty()) ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0.55f, 0.12f, 0.1f, 1.0f));
  const bool enter = ImGui::InputTextWithHint(label, "table.npy or model.safetensors:TENSOR",
                                              &f.text, ImGuiInputTextFlags_EnterReturnsTrue);
  if (!f.error.empty()) ImGui::PopStyleColor();
  ItemTooltip(
      "A table you computed, (L, d): an NPY file, or FILE.safetensors:TENSOR (any float dtype). "
      "It is compared with the exact table of the current parameters, d and L taken from the "
      "file. `pe-explorer check FILE` names the scheme it holds.");
  const bool active = ImGui::IsItemActive();
  if (active && !f.active) f.error.clear();
  f.active = active;
  ImGui::SameLine();
  if (ImGui::Button("Load") || enter) EditField(state, label, "--check-table", f.text);
  ImGui::SameLine();
  CheckViewState& cv = state.check_view;
  if (ImGui::Button("Browse...")) {
    if (!state.params.check_table.empty()) {
      const std::string path = ParseTensorSpec(state.params.check_table).ok()
                                   ? ParseTensorSpec(state.params.check_table).value().path
                                   : state.params.check_table;
      const size_t slash = path.rfind('/');
      if (slash != std::string::npos) cv.chooser.folder = path.substr(0, slash);
    }
    cv.chooser.open_requested = true;
  }
  ItemTooltip("Pick a .npy, .safetensors, .csv or .pt file from a folder listing.");
  ImGui::SameLine();
  if (ImGui::Button("Clear")) {
    f.text.clear();
    EditField(state, label, "--check-table", "");
  }
  if (!f.error.empty()) ErrorText(f.error);
  std::string chosen;
  if (DrawFileChooser(kChooser, cv.chooser, kTableExtensions, chosen)) {
    f.text = chosen;
    EditField(state, label, "--check-table", chosen);
  }
}

// The teaching cases: one click writes the case's buggy table (an NPY file in the temporary
// folder) and sets the window's parameters to what was meant, with the table loaded.
void DrawTeachingCases(AppState& state) {
  CheckViewState& cv = state.check_view;
  const float em = ImGui::GetFontSize();
  const ImGuiID table_id = ImGui::GetID("table");  // the path field's, outside the popup
  ImGui::SetNextItemWidth(em * 18);
  if (ImGui::BeginCombo("teaching case", "load a buggy table...")) {
    for (const CheckCase& c : CheckCases()) {
      const std::string label = std::string(c.title) + "##" + std::string(c.name);
      if (ImGui::Selectable(label.c_str())) {
        Result<std::string> path = WriteCheckCase(c.name, state.params.cap);
        if (!path.ok()) {
          cv.case_error = path.message();
        } else {
          cv.case_error.clear();
          Result<CheckCaseTable> made = MakeCheckCase(c.name, state.params.cap);
          const EncodingParams intent = made.value().intent;
          state.fields[table_id].text = path.value();
          Edit(state, [intent, p = path.value()](AppState& st) {
            st.params = DetachModel(st.params);
            st.params.pe = intent;
            st.params.check_table = p;
          });
        }
      }
      ItemTooltip(
          (std::string(c.story) + " Expected diagnosis: " + std::string(c.expect) + ".").c_str());
    }
    ImGui::EndCombo();
  }
  ItemTooltip(
      "Load a table made with a bug real ports had, with the window's parameters set to what "
      "was meant: the report above the map names the bug (pe-explorer check --case NAME).");
  if (!cv.case_error.empty()) ErrorText(cv.case_error);
}

// "Compare with model ...": a catalogue model and its layer.
void DrawCompareModel(AppState& state, const CheckPanelResult* shown) {
  CheckViewState& cv = state.check_view;
  if (ImGui::Button("Compare with model ...")) ImGui::OpenPopup("check_compare_model");
  ItemTooltip(
      "Check the table against a built-in model's layer too: each disagreement is named with "
      "the config key it comes from, as `pe-explorer check --model NAME --layer N` says it.");
  if (ImGui::BeginPopup("check_compare_model")) {
    for (const CatalogueEntry& e : ModelCatalogue()) {
      const std::string name(e.name);
      const std::string label = name + "  (" + std::string(e.title) + ")";
      if (ImGui::Selectable(label.c_str(), cv.compare_model == name)) {
        cv.compare_model = name;
        cv.compare_layer = 0;
      }
    }
    ImGui::EndPopup();
  }
  if (cv.compare_model.empty()) return;
  ImGui::SameLine();
  const float em = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(em * 6);
  int layer = cv.compare_layer;
  if (ImGui::InputInt("layer##check_compare", &layer)) cv.compare_layer = std::max(0, layer);
  ImGui::SameLine();
  if (ImGui::Button("Stop comparing")) cv.compare_model.clear();
  (void)shown;
}

}  // namespace

void DrawCheckPanel(const PanelEntry& p, AppState& state, const Derived& derived, UiCaches& caches,
                    UiServices& services) {
  if (!caches.check_panel) caches.check_panel = std::make_shared<CheckPanelCache>();
  CheckPanelCache& cache = *caches.check_panel;
  cache.layout = {};
  DrawTablePath(state);
  DrawTeachingCases(state);
  const float em = ImGui::GetFontSize();
  if (!state.params.check_table.empty()) {
    CheckPanelRequest request{state.params.check_table, state.params,
                              state.check_view.compare_model, state.check_view.compare_layer};
    if (!cache.asked || !(*cache.asked == request)) {
      cache.asked = request;
      if (services.figures == nullptr) {
        cache.shown = ComputeCheckPanel(request);
      } else {
        if (!cache.job) cache.job = std::make_unique<Job>(false);
        cache.job->Submit(0, [request, slot = cache.slot](JobContext& ctx) {
          CheckPanelResult r = ComputeCheckPanel(request);
          ctx.Publish([&] {
            std::lock_guard<std::mutex> lock(slot->mutex);
            slot->done = std::move(r);
          });
        });
      }
    }
    {
      std::lock_guard<std::mutex> lock(cache.slot->mutex);
      if (cache.slot->done) {
        cache.shown = std::move(cache.slot->done);
        cache.slot->done.reset();
      }
    }
    const CheckPanelResult* shown =
        cache.shown && cache.shown->request.table == request.table ? &*cache.shown : nullptr;
    const bool current = shown != nullptr && shown->request == request;
    // The report in a child as tall as it was last frame, up to half the panel (it scrolls
    // beyond): the map below keeps the rest.
    const float limit = std::max(em * 6, ImGui::GetContentRegionAvail().y * 0.5f);
    ImGui::BeginChild("check_report", ImVec2(0, std::clamp(cache.report_height, em * 2, limit)),
                      false);
    const float top = ImGui::GetCursorPosY();
    if (!current) ImGui::TextDisabled("Checking the table...");
    if (shown != nullptr) {
      if (!shown->error.empty()) ErrorText(shown->error);
      if (shown->report) {
        const std::string meant =
            state.params.model ? ModelLabel(state.params) : std::string("the window's parameters");
        const std::vector<std::string> lines = CheckReportSentences(*shown->report, meant);
        for (size_t k = 0; k < lines.size(); ++k) {
          if (k >= 2) ImGui::Bullet();
          WrappedText(lines[k]);
        }
        const std::optional<CheckCandidate>& id = shown->report->identified;
        const bool exact = id && id->verdict != CheckVerdict::kNoMatch;
        ImGui::BeginDisabled(!exact || shown->report->matches || !current);
        const bool apply = ImGui::Button("Apply the identified parameters");
        cache.layout.apply = Centre();
        if (apply && exact) {
          const EncodingParams pe = id->params;
          Edit(state, [pe](AppState& st) {
            st.params = DetachModel(st.params);
            st.params.pe = pe;
          });
        }
        ImGui::EndDisabled();
        ItemTooltip(
            "Set the window's scheme and parameters to what the table exactly is (its width, "
            "rows and first position too), in one step Undo takes back.");
        ImGui::SameLine();
      }
      DrawCompareModel(state, shown);
      if (!shown->model_error.empty()) ErrorText(shown->model_error);
      if (shown->model_report) {
        for (const std::string& line :
             CheckReportSentences(*shown->model_report, shown->model_label)) {
          if (line.rfind("The table is", 0) == 0) continue;  // said above
          ImGui::Bullet();
          WrappedText(line);
        }
      }
      if (!shown->worst.empty() &&
          ImGui::TreeNodeEx("check_worst", ImGuiTreeNodeFlags_DefaultOpen,
                            "Worst cells against the window's parameters (%zu): click one to "
                            "zoom the map to it",
                            shown->worst.size())) {
        const ViewRange whole{0, static_cast<double>(shown->cols),
                              static_cast<double>(shown->first_position),
                              static_cast<double>(shown->first_position + shown->rows)};
        for (size_t k = 0; k < shown->worst.size(); ++k) {
          const CheckCell& c = shown->worst[k];
          const std::string text =
              "position " + std::to_string(c.position) + ", column " + std::to_string(c.col) +
              ": table " + CheckFloatText(c.table) + ", reference " + CheckFloatText(c.reference) +
              " (|error| " + CheckNumberText(std::abs(double(c.table) - double(c.reference))) + ")";
          ImGui::PushID(static_cast<int>(k));
          const bool clicked = ImGui::Selectable(text.c_str());
          cache.layout.worst_cells.push_back(Centre());
          if (clicked) state.check_view.view = CheckCellWindow(whole, c.position, c.col);
          ImGui::PopID();
          ItemTooltip(("reference = " + c.formula).c_str());
        }
        ImGui::TreePop();
      }
    }
    cache.report_height = ImGui::GetCursorPosY() - top + ImGui::GetStyle().WindowPadding.y;
    ImGui::EndChild();
    ImGui::Dummy(ImVec2(0, em * 0.2f));
  }
  DrawFigurePanel(p, state, derived, caches.figure_panels[p.view], services, caches.drawn);
}

}  // namespace pe
