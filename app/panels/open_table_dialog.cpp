// File > Open: a model's real tables in the window. The dialog takes a path (there is no native
// open dialog we use), lists the tensors of a safetensors file (ListTensorFile reads the header
// only, once per path submitted), asks what the table is for (token embeddings, the learned
// position table, T5's relative bias) and loads it on the table-load job with a progress bar and
// Cancel. The loaded table then enters the parameters through its field (--embeddings or
// --positions-table) and the load step, which finds it in the shared cache. Files dropped on the
// window arrive here too. The controls panel shows what is loaded (DrawLoadedTablesInfo). A
// tokenizer file (tokenizer.json, GPT-2's vocab.json; known by its content) is offered as the
// text's tokenizer only (--tokenizer-file), read on the same job.
#include <imgui.h>
#include <imgui_stdlib.h>
#include <sys/stat.h>

#include <algorithm>

#include "arch/open_model.h"
#include "io/loaded_table.h"
#include "jobs/table_load_job.h"
#include "model/param_fields.h"
#include "panels/panels.h"
#include "text/subword_tokenizer.h"
#include "ui/model_pick.h"
#include "ui/shortcuts.h"

namespace pe {
namespace {

constexpr const char* kDialog = "Open a table";

const char* TargetFlag(TableTarget t) {
  return t == TableTarget::kEmbeddings ? "--embeddings" : "--positions-table";
}

const char* TargetWords(TableTarget t) {
  switch (t) {
    case TableTarget::kEmbeddings:
      return "token embeddings";
    case TableTarget::kPositions:
      return "learned position table";
    case TableTarget::kT5Bias:
      return "T5 relative bias";
  }
  return "";
}

// Reads the tensor list of the file the path names (its header only).
void ListPath(OpenTableState& o) {
  o.listing.clear();
  o.note.clear();
  o.picked = -1;
  o.error.clear();
  o.tokenizer = false;
  // A tokenizer is known by its content (a JSON object with "model", or GPT-2's token -> id
  // map), whatever its name: it can only be the text's tokenizer, never a table.
  switch (SniffTokenizerPath(o.path)) {
    case TokenizerFileKind::kTokenizerJson:
      o.listed_path = o.path;
      o.tokenizer = true;
      o.note = "A Hugging Face tokenizer.json: it tokenizes the text (--tokenizer-file).";
      return;
    case TokenizerFileKind::kGpt2Vocab:
      o.listed_path = o.path;
      o.tokenizer = true;
      o.note =
          "GPT-2's token -> id map (vocab.json or encoder.json): with the merges.txt or "
          "vocab.bpe beside it, it tokenizes the text (--tokenizer-file).";
      return;
    case TokenizerFileKind::kNone:
      break;
  }
  Result<TensorSpec> spec = ParseTensorSpec(o.path);
  if (!spec.ok()) {
    o.note = spec.message();
    o.listed_path = o.path;
    return;
  }
  o.listed_path = o.path;
  Result<std::vector<TensorListing>> list = ListTensorFile(spec.value().path);
  if (!list.ok()) {
    // Not a tensor file: what it can be, not why it is not an NPY (which it never claimed).
    o.note =
        "It can be read as word vectors (GloVe text, .vec, word2vec binary): token "
        "embeddings only.";
    o.target = static_cast<int>(TableTarget::kEmbeddings);
    return;
  }
  o.listing = std::move(list).value();
  for (size_t k = 0; k < o.listing.size(); ++k) {
    if (o.listing[k].name == spec.value().tensor ||
        (spec.value().tensor.empty() && o.listing.size() == 1)) {
      o.picked = static_cast<int>(k);
    }
  }
  o.note = o.listing.size() == 1 && o.listing[0].name.empty()
               ? "An NPY array."
               : "A safetensors file with " + std::to_string(o.listing.size()) +
                     " tensors: pick one (2-D tensors of a float dtype can be used).";
}

// The spec the dialog would load: the path's file and the picked tensor.
std::string SpecToLoad(const OpenTableState& o) {
  Result<TensorSpec> spec = ParseTensorSpec(o.path);
  if (!spec.ok()) return o.path;
  TensorSpec s = spec.value();
  if (o.picked >= 0 && o.picked < static_cast<int>(o.listing.size())) {
    s.tensor = o.listing[static_cast<size_t>(o.picked)].name;
  }
  return TensorSpecText(s);
}

// What the picked table will do, from its shape.
std::string UseSentence(const OpenTableState& o, const ModelParams& m) {
  const auto target = static_cast<TableTarget>(o.target);
  std::string shape;
  int64_t rows = -1, cols = -1;
  if (o.picked >= 0 && o.picked < static_cast<int>(o.listing.size())) {
    const TensorListing& t = o.listing[static_cast<size_t>(o.picked)];
    if (t.shape.size() == 2) rows = t.shape[0], cols = t.shape[1];
  }
  auto n = [](int64_t v) { return std::to_string(v); };
  switch (target) {
    case TableTarget::kEmbeddings:
      return rows > 0 ? "E (" + n(rows) + ", " + n(cols) +
                            "): row = token id (typed ids or the "
                            "text's ids), d_model becomes " +
                            n(cols) + "."
                      : "E (V, d): rows are token ids (or the file's words), d_model becomes d.";
    case TableTarget::kPositions:
      return rows > 0 ? "W_pos (" + n(rows) + ", " + n(cols) +
                            ") for the learned scheme: row = "
                            "position, d_model becomes " +
                            n(cols) + ", max_len " + n(rows) + " (the whole table)" +
                            (m.pe.kind() != Scheme::kLearned ? " (switches to learned)." : ".")
                      : "W_pos (positions, d) for the learned scheme.";
    case TableTarget::kT5Bias:
      return rows > 0 ? "relative_attention_bias (" + n(rows) + ", " + n(cols) + "): " + n(rows) +
                            " buckets, " + n(cols) + " heads" +
                            (m.pe.kind() != Scheme::kT5 ? " (switches to t5)." : ".")
                      : "relative_attention_bias (buckets, heads) for the t5 scheme.";
  }
  return {};
}

// Puts a loaded table into the parameters through its field (a cache hit), switching to the
// scheme a position table belongs to.
void ApplyLoaded(AppState& st, const TableLoadRequest& request) {
  ModelParams next = st.params;
  if (request.target == TableTarget::kPositions) SetScheme(next, Scheme::kLearned);
  if (request.target == TableTarget::kT5Bias) SetScheme(next, Scheme::kT5);
  const ParamField* field = FindParamField(TargetFlag(request.target));
  // Set anew (a reload names the table held): the load step takes the table the job read.
  Status s = field->set(next, "");
  if (s.ok()) s = field->set(next, request.spec);
  if (s.ok()) s = LoadParamFiles(next);  // the table the job loaded: a hit in the shared cache
  if (s.ok()) s = ValidateEncodingParams(next.pe);
  if (!s.ok()) {
    st.open_table.error = InWindowTerms(s.message(), "");
    st.open_table.open_requested = true;
    return;
  }
  st.params = std::move(next);
  st.open_table.error.clear();
  st.open_table.loaded = true;
  st.toast = {std::string("Loaded ") + request.spec + " as the " + TargetWords(request.target),
              false, ImGui::GetTime() + 6.0};
}

// Makes the listed tokenizer file the text's tokenizer through its field (--tokenizer-file),
// with the tokenizer the loading job read from it.
void ApplyTokenizer(AppState& st, const std::string& path,
                    const std::shared_ptr<const SubwordTokenizer>& tokenizer) {
  ModelParams next = st.params;
  Status s = FindParamField("--tokenizer-file")->set(next, path);
  if (s.ok() && tokenizer != nullptr) next.example.subword = tokenizer;
  if (s.ok()) s = LoadParamFiles(next);  // nothing left to read when the job read it
  if (!s.ok()) {
    st.open_table.error = s.message();
    st.open_table.open_requested = true;
    return;
  }
  st.params = std::move(next);
  st.open_table.error.clear();
  st.open_table.loaded = true;
  st.toast = {"Tokenizer " + path + ": " + st.params.example.subword->Describe(), false,
              ImGui::GetTime() + 6.0};
}

}  // namespace

void DrawFileMenuItems(AppState& state) {
  if (ImGui::MenuItem("Open table...", ShortcutFor(ShortcutAction::kOpenTable).keys))
    state.open_table.open_requested = true;
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "Load a model's table from a file: token embeddings (NPY, safetensors, "
        "GloVe / word2vec / fastText), a learned position table, or T5's bias; or a "
        "tokenizer for the text (tokenizer.json, GPT-2's vocab.json). "
        "Dropping a file on the window opens this too.");
  }
}

namespace {

// The table a target's field holds, or null when the scheme has no such field.
const TableRef* TargetTable(const ModelParams& m, TableTarget target) {
  switch (target) {
    case TableTarget::kEmbeddings:
      return &m.example.embeddings;
    case TableTarget::kPositions:
      return m.pe.kind() == Scheme::kLearned ? &m.pe.learned().table : nullptr;
    case TableTarget::kT5Bias:
      return m.pe.kind() == Scheme::kT5 ? &m.pe.t5().bias : nullptr;
  }
  return nullptr;
}

// Once a second, the size and modification time of each loaded table's file against those it
// had when the table was read; a difference shows a note with Reload (through the load job, off
// the UI thread) and Keep.
void WatchLoadedTables(AppState& state, UiServices& services) {
  OpenTableState& o = state.open_table;
  const double now = ImGui::GetTime();
  if (now >= o.next_watch) {
    o.next_watch = now + 1.0;
    for (int t = 0; t < 3; ++t) {
      WatchedTable& w = o.watched[t];
      const TableRef* ref = TargetTable(state.params, static_cast<TableTarget>(t));
      if (ref == nullptr || !ref->loaded()) {
        w = {};
        continue;
      }
      const Result<TensorSpec> spec = ParseTensorSpec(ref->spec);
      struct stat st {};
      const bool seen = spec.ok() && ::stat(spec.value().path.c_str(), &st) == 0;
      w.now_size = seen ? static_cast<int64_t>(st.st_size) : -1;
      w.now_mtime_ns =
          seen ? static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec : 0;
      if (w.spec != ref->spec || w.hash != ref->hash) {
        // Newly loaded (or reloaded): its file as it is now is what was read (a file already
        // gone is said at once).
        w = {ref->spec, ref->hash, w.now_size, w.now_mtime_ns, w.now_size, w.now_mtime_ns, !seen};
        continue;
      }
      w.changed = w.now_size != w.size || w.now_mtime_ns != w.mtime_ns;
    }
  }
  for (int t = 0; t < 3; ++t) {
    WatchedTable& w = o.watched[t];
    if (!w.changed) continue;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - 8,
                                   vp->WorkPos.y + vp->WorkSize.y - 8 - ImGui::GetFrameHeight()),
                            ImGuiCond_Always, ImVec2(1.0f, 1.0f));
    const ImGuiWindowFlags flags =
        ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
        ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
    if (ImGui::Begin("Table changed on disk", nullptr, flags)) {
      const Result<TensorSpec> spec = ParseTensorSpec(w.spec);
      const std::string file = spec.ok() ? spec.value().path : w.spec;
      const std::string what =
          w.now_size < 0 ? " is gone or unreadable" : " changed on disk since it was read";
      ImGui::Text("%s%s: the views show the table as it was read. Reload?", file.c_str(),
                  what.c_str());
      const auto target = static_cast<TableTarget>(t);
      TableLoadJob* job = services.tables;
      // Decided once: Start below makes the job busy before EndDisabled.
      const bool disabled = w.now_size < 0 || job == nullptr || job->busy();
      if (disabled) ImGui::BeginDisabled();
      if (ImGui::Button("Reload")) {
        job->Start(TableLoadRequest{w.spec, target, state.params.cap});
        w.size = w.now_size, w.mtime_ns = w.now_mtime_ns, w.changed = false;
      }
      if (disabled) ImGui::EndDisabled();
      ItemTooltip(
          (std::string("Read ") + file + " again as the " + TargetWords(target) + ".").c_str());
      ImGui::SameLine();
      if (ImGui::Button("Keep")) {
        w.size = w.now_size, w.mtime_ns = w.now_mtime_ns, w.changed = false;
      }
      ItemTooltip("Go on with the table as it was read; say nothing until the file changes again.");
    }
    ImGui::End();
    break;
  }
}

void CloseButton() {
  if (ImGui::Button("Close") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
    ImGui::CloseCurrentPopup();
  }
}

// Ends the dialog's popup; a successful load closes it on the frame its edit is applied.
void EndDialog(OpenTableState& o) {
  if (o.loaded) {
    o.loaded = false;
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

// A model file's outcome: the model opened as one undo step, or its reason in place under the
// picker (the previous model stays); a dropped file that is no model's configuration goes to
// the dialog, as before.
void ApplyModelOutcome(AppState& state, TableLoadOutcome& out) {
  ModelPickState& pick = state.model_pick;
  const std::string& path = out.request.spec;
  if (out.not_a_model || !out.model) {
    OpenTableState& o = state.open_table;
    o.path = path;
    ListPath(o);
    o.open_requested = true;
    return;
  }
  Result<ModelParams> next =
      out.model->ok() ? PickOpenedModel(state.params, path, std::move(*out.model).value())
                      : Result<ModelParams>(out.model->error());
  pick.path = path;
  if (!next.ok()) {
    pick.error = InWindowTerms(next.message(), "");
    pick.enter_path = true;
    return;
  }
  QueueModelStep(state, std::move(next).value());
}

// The model picker's Open and files dropped on the window (sessions and figures go elsewhere):
// told apart and read on the loading job, one at a time; without a job (headless), in place.
void OpenModelFiles(AppState& state, TableLoadJob* job) {
  ModelPickState& pick = state.model_pick;
  if (job != nullptr) {
    if (std::optional<TableLoadOutcome> out = job->TakeModel()) ApplyModelOutcome(state, *out);
  }
  const bool dropped = pick.open_request.empty();
  const std::string path = !dropped                       ? pick.open_request
                           : !state.dropped_files.empty() ? state.dropped_files.back()
                                                          : std::string();
  if (path.empty()) return;
  if (job == nullptr) {
    TableLoadOutcome out;
    out.request.spec = path;
    out.dropped = dropped;
    if (dropped && !LooksLikeModelConfig(path)) {
      out.not_a_model = true;
    } else {
      out.model = OpenModelConfig(path, state.params.cap);
    }
    pick.open_request.clear();
    if (dropped) state.dropped_files.clear();
    ApplyModelOutcome(state, out);
    return;
  }
  if (!job->StartModel(path, state.params.cap, dropped)) return;  // busy: a later frame
  pick.open_request.clear();
  if (dropped) state.dropped_files.clear();
  if (std::optional<TableLoadOutcome> out = job->TakeModel()) ApplyModelOutcome(state, *out);
}

}  // namespace

void DrawOpenTableDialog(AppState& state, UiServices& services) {
  OpenTableState& o = state.open_table;
  WatchLoadedTables(state, services);
  // A dropped model file opens as the model; any other opens the dialog on it (the last one
  // wins when several come at once).
  OpenModelFiles(state, services.tables);
  TableLoadJob* job = services.tables;
  if (job != nullptr) {
    if (std::optional<TableLoadOutcome> out = job->Take()) {
      if (out->tokenizer) {
        if (out->tokenizer->ok()) {
          Edit(state, [path = out->request.spec, t = out->tokenizer->value()](AppState& st) {
            ApplyTokenizer(st, path, t);
          });
        } else {
          // As the field says it (--tokenizer-file's load step).
          o.error = "--tokenizer-file: " + out->tokenizer->message();
          o.open_requested = true;
        }
      } else if (out->table.ok()) {
        Edit(state, [request = out->request](AppState& st) { ApplyLoaded(st, request); });
      } else {
        o.error = out->table.message();
        // A reload started outside the dialog says why it failed where it can be seen.
        state.toast = {out->table.message(), true, ImGui::GetTime() + 12.0};
      }
    }
  }
  if (o.open_requested) {
    ImGui::OpenPopup(kDialog);
    o.open_requested = false;
  }
  const float em = ImGui::GetFontSize();
  // Tall enough for eight tensors and the choices below them (the list scrolls beyond that).
  ImGui::SetNextWindowSize(ImVec2(em * 40, em * 25), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal(kDialog, nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
  const bool busy = job != nullptr && job->busy();
  ImGui::TextUnformatted(
      "File: NPY, safetensors (FILE or FILE:TENSOR), word vectors, or a tokenizer");
  ImGui::SetNextItemWidth(-em * 7);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  const bool entered = ImGui::InputTextWithHint("##path", "/path/to/model.safetensors", &o.path,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("List") || entered) && !o.path.empty()) ListPath(o);
  ItemTooltip("Read the file's header: its tensors, their dtypes and shapes.");
  if (!o.note.empty() && o.listed_path == o.path) WrappedText(o.note);
  if (!o.listing.empty() && o.listed_path == o.path && !o.listing[0].name.empty()) {
    const float rows_h = std::min<float>(static_cast<float>(o.listing.size()), 8.0f);
    if (ImGui::BeginTable(
            "tensors", 3,
            ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY,
            ImVec2(0, (rows_h + 1.5f) * ImGui::GetTextLineHeightWithSpacing()))) {
      ImGui::TableSetupScrollFreeze(0, 1);
      ImGui::TableSetupColumn("tensor", ImGuiTableColumnFlags_WidthStretch);
      ImGui::TableSetupColumn("dtype", ImGuiTableColumnFlags_WidthFixed, em * 4);
      ImGui::TableSetupColumn("shape", ImGuiTableColumnFlags_WidthFixed, em * 8);
      ImGui::TableHeadersRow();
      ImGuiListClipper clipper;
      clipper.Begin(static_cast<int>(o.listing.size()));
      while (clipper.Step()) {
        for (int k = clipper.DisplayStart; k < clipper.DisplayEnd; ++k) {
          const TensorListing& t = o.listing[static_cast<size_t>(k)];
          ImGui::PushID(k);
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          const bool usable = t.readable && t.shape.size() == 2;
          if (!usable) ImGui::BeginDisabled();
          if (ImGui::Selectable(t.name.c_str(), o.picked == k,
                                ImGuiSelectableFlags_SpanAllColumns)) {
            o.picked = k;
          }
          if (!usable) ImGui::EndDisabled();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(t.dtype.c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(FormatShape(t.shape).c_str());
          ImGui::PopID();
        }
      }
      ImGui::EndTable();
    }
  }
  ImGui::Separator();
  const bool tokenizer = o.tokenizer && o.listed_path == o.path;
  if (tokenizer) {
    // A tokenizer is what it is: no table choices.
    ImGui::TextUnformatted("Use it as the text's tokenizer (--tokenizer-file)");
    if (!o.error.empty()) ErrorText(o.error);
    if (busy) ImGui::BeginDisabled();
    if (ImGui::Button("Use as tokenizer")) {
      o.error.clear();
      if (job != nullptr) {
        job->StartTokenizer(o.path, state.params.cap);
      } else {
        // No loading job (headless): read in place, through the field's load step.
        Edit(state, [path = o.path](AppState& st) { ApplyTokenizer(st, path, nullptr); });
      }
    }
    if (busy) ImGui::EndDisabled();
    if (busy) {
      ImGui::SameLine();
      ImGui::ProgressBar(static_cast<float>(job->progress()), ImVec2(em * 6, 0), "reading");
    }
    ImGui::SameLine();
    CloseButton();
    EndDialog(o);
    return;
  }
  ImGui::TextUnformatted("Use it as");
  ImGui::RadioButton("token embeddings (--embeddings)", &o.target,
                     static_cast<int>(TableTarget::kEmbeddings));
  ImGui::RadioButton("learned position table (--positions-table, learned)", &o.target,
                     static_cast<int>(TableTarget::kPositions));
  ImGui::RadioButton("T5 relative bias (--positions-table, t5)", &o.target,
                     static_cast<int>(TableTarget::kT5Bias));
  ImGui::TextDisabled("%s", UseSentence(o, state.params).c_str());
  if (!o.error.empty()) ErrorText(o.error);
  if (busy) {
    ImGui::ProgressBar(static_cast<float>(job->progress()), ImVec2(-em * 6, 0));
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) job->Cancel();
  } else {
    const bool can = job != nullptr && !o.path.empty();
    if (!can) ImGui::BeginDisabled();
    if (ImGui::Button("Load")) {
      o.error.clear();
      // A path typed and loaded without List: a tokenizer shows its own choice instead.
      if (o.listed_path != o.path) ListPath(o);
      if (!o.tokenizer) {
        job->Start({SpecToLoad(o), static_cast<TableTarget>(o.target), state.params.cap});
      }
    }
    if (!can) ImGui::EndDisabled();
    if (job == nullptr) {
      ImGui::SameLine();
      ImGui::TextDisabled("(loading is not available here)");
    }
    ImGui::SameLine();
    CloseButton();
  }
  EndDialog(o);
}

void DrawLoadedTablesInfo(AppState& state, const Derived& derived) {
  const ModelParams& p = state.params;
  struct Shown {
    const TableRef* ref;
    const char* what;
    const char* flag;
  };
  std::vector<Shown> shown;
  if (p.example.embeddings.loaded())
    shown.push_back({&p.example.embeddings, "Embeddings", "--embeddings"});
  if (p.pe.kind() == Scheme::kLearned && p.pe.learned().table.loaded()) {
    shown.push_back({&p.pe.learned().table, "Position table", "--positions-table"});
  }
  if (p.pe.kind() == Scheme::kT5 && p.pe.t5().bias.loaded()) {
    shown.push_back({&p.pe.t5().bias, "T5 bias", "--positions-table"});
  }
  for (size_t k = 0; k < shown.size(); ++k) {
    const LoadedTable& t = *shown[k].ref->table;
    ImGui::PushID(static_cast<int>(k));
    ImGui::Separator();
    ImGui::TextDisabled("%s from a file", shown[k].what);
    WrappedText(t.spec_text() + "  (" + std::to_string(t.rows()) + " x " +
                std::to_string(t.cols()) + ", " + t.dtype() + ", " + t.format() + ")");
    ImGui::TextDisabled("hash %s", HashText(t.hash()).c_str());
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "FNV-1a 64 of the bytes the table was read from; figure metadata records "
          "it, so a figure names the exact data it shows.");
    }
    if (std::string_view(shown[k].what) == "T5 bias") {
      WrappedText(Printf("buckets %lld and heads %lld follow the table.",
                         static_cast<long long>(t.rows()), static_cast<long long>(t.cols())));
    } else {
      WrappedText(Printf("d_model follows its %lld columns.", static_cast<long long>(t.cols())));
    }
    if (std::string_view(shown[k].what) == "Position table") {
      WrappedText(
          Printf("max_len follows its %lld rows from the offset (the whole table) unless "
                 "given smaller; max_len + offset is at most its rows.",
                 static_cast<long long>(t.rows())));
    }
    if (t.has_non_finite()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1.0f));
      WrappedText(
          Printf("Holds %lld NaN and %lld Inf values (loaded as they are; the colour "
                 "range ignores them).",
                 static_cast<long long>(t.nan_count()), static_cast<long long>(t.inf_count())));
      ImGui::PopStyleColor();
    }
    if (shown[k].ref == &p.example.embeddings && t.has_words() && derived.sentence.ok()) {
      const SentenceResult& s = derived.sentence.value();
      std::string missing;
      for (int64_t i : s.unknown_tokens) {
        if (!missing.empty()) missing += ", ";
        missing += s.tokens[static_cast<size_t>(i)].text;
      }
      if (!missing.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1.0f));
        WrappedText("Not in the file (<unk>: " +
                    std::string(t.FindWord(kUnknownToken) >= 0 ? "its <unk> row" : "a zero row") +
                    "): " + missing);
        ImGui::PopStyleColor();
      }
    }
    if (ImGui::SmallButton("Unload")) {
      const std::string flag = shown[k].flag;
      Edit(state, [flag](AppState& st) { (void)FindParamField(flag)->set(st.params, ""); });
    }
    ItemTooltip("Back to the seeded table.");
    ImGui::PopID();
  }
  if (!shown.empty()) ImGui::Separator();
}

}  // namespace pe
