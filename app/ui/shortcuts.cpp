#include "ui/shortcuts.h"

#include <imgui.h>

#include <cassert>

#include "ui/session.h"

namespace pe {
namespace {

using native_key::k0;
using native_key::kE;
using native_key::kEqual;
using native_key::kF1;
using native_key::kF11;
using native_key::kKeypad0;
using native_key::kKeypadAdd;
using native_key::kKeypadSubtract;
using native_key::kMinus;
using native_key::kO;
using native_key::kS;
using native_key::kT;
using native_key::kY;
using native_key::kZ;

constexpr KeyChord Native(int key, bool ctrl = false, int shift = -1) {
  return {-1, key, 0, ctrl, shift};
}
constexpr KeyChord Named(ImGuiKey key) {
  return {key, -1, 0, false};
}
constexpr KeyChord Typed(ImWchar c) {
  return {-1, -1, c, false};
}

const Shortcut kShortcuts[] = {
    {ShortcutAction::kScaleUp,
     "Ctrl +",
     "Larger text and controls (UI scale up to 3x)",
     {Native(kEqual, true), Native(kKeypadAdd, true), KeyChord{}}},
    {ShortcutAction::kScaleDown,
     "Ctrl -",
     "Smaller text and controls (down to 0.5x)",
     {Native(kMinus, true), Native(kKeypadSubtract, true), KeyChord{}}},
    {ShortcutAction::kScaleReset,
     "Ctrl 0",
     "UI scale back to 1x",
     {Native(k0, true), Native(kKeypad0, true), KeyChord{}}},
    {ShortcutAction::kShortcuts,
     "F1 or ?",
     "Show or hide this list of shortcuts",
     {Native(kF1), Typed('?'), KeyChord{}}},
    {ShortcutAction::kPresentation,
     "F11",
     "Presentation mode: one view fills the window",
     {Native(kF11), KeyChord{}, KeyChord{}}},
    {ShortcutAction::kNextPanel,
     "Right or Page Down",
     "Presentation: the next view",
     {Named(ImGuiKey_RightArrow), Named(ImGuiKey_PageDown), KeyChord{}},
     true},
    {ShortcutAction::kPreviousPanel,
     "Left or Page Up",
     "Presentation: the previous view",
     {Named(ImGuiKey_LeftArrow), Named(ImGuiKey_PageUp), KeyChord{}},
     true},
    {ShortcutAction::kLeave,
     "Esc",
     "Close this list; leave presentation mode",
     {Named(ImGuiKey_Escape), KeyChord{}, KeyChord{}}},
    {ShortcutAction::kUndo,
     "Ctrl Z",
     "Undo the last change (parameters, views, panels)",
     {Native(kZ, true, 0), KeyChord{}, KeyChord{}},
     false,
     true},
    {ShortcutAction::kRedo,
     "Ctrl Shift Z or Ctrl Y",
     "Redo",
     {Native(kZ, true, 1), Native(kY, true), KeyChord{}},
     false,
     true},
    {ShortcutAction::kSaveSession,
     "Ctrl S",
     "Save the session (.pexs)",
     {Native(kS, true, 0), KeyChord{}, KeyChord{}},
     false,
     true},
    {ShortcutAction::kSaveSessionAs,
     "Ctrl Shift S",
     "Save the session as...",
     {Native(kS, true, 1), KeyChord{}, KeyChord{}},
     false,
     true},
    {ShortcutAction::kOpenSession,
     "Ctrl O",
     "Open a session or an exported figure",
     {Native(kO, true), KeyChord{}, KeyChord{}},
     false,
     true},
    {ShortcutAction::kOpenTable,
     "Ctrl T",
     "Open a model's table (embeddings, positions, T5 bias)",
     {Native(kT, true), KeyChord{}, KeyChord{}}},
    {ShortcutAction::kExport,
     "Ctrl E",
     "Export the focused view (figure or numbers)",
     {Native(kE, true), KeyChord{}, KeyChord{}}},
};

bool IsUnused(const KeyChord& c) {
  return c == KeyChord{};
}

}  // namespace

std::span<const Shortcut> Shortcuts() {
  return kShortcuts;
}

const Shortcut& ShortcutFor(ShortcutAction action) {
  for (const Shortcut& s : kShortcuts) {
    if (s.action == action) return s;
  }
  assert(false && "every ShortcutAction needs an entry in kShortcuts");
  return kShortcuts[0];
}

bool ChordPressed(const KeyChord& chord) {
  if (IsUnused(chord)) return false;
  const ImGuiIO& io = ImGui::GetIO();
  if (chord.ctrl != io.KeyCtrl) return false;
  if (chord.shift >= 0 && (chord.shift == 1) != io.KeyShift) return false;
  if (chord.character != 0) {
    for (ImWchar c : io.InputQueueCharacters) {
      if (c == chord.character) return true;
    }
    return false;
  }
  const int key = chord.named >= 0 ? ImGui::GetKeyIndex(chord.named) : chord.native;
  if (key < 0 || key >= IM_ARRAYSIZE(io.KeysDown)) return false;
  return ImGui::IsKeyPressed(key, /*repeat=*/chord.named >= 0);
}

std::optional<ShortcutAction> PressedShortcut(const UiSettings& ui) {
  // Keys without Ctrl belong to a field being typed into; Ctrl chords type nothing.
  const bool typing = ImGui::GetIO().WantTextInput;
  if (ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return std::nullopt;
  for (const Shortcut& s : kShortcuts) {
    if (s.presentation_only && !ui.presentation) continue;
    if (typing && s.not_while_typing) continue;
    for (const KeyChord& c : s.chords) {
      if (typing && !c.ctrl) continue;
      if (ChordPressed(c)) return s.action;
    }
  }
  return std::nullopt;
}

int DrawShortcutOverlay(AppState& state) {
  if (!state.ui.shortcuts_open) return 0;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(
      ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
      ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0),
                                      ImVec2(vp->WorkSize.x * 0.95f, vp->WorkSize.y * 0.95f));
  bool open = true;
  int rows = 0;
  const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoMove;
  if (ImGui::Begin("Keyboard shortcuts", &open, flags)) {
    if (ImGui::BeginTable("shortcut_table", 2,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                              ImGuiTableFlags_SizingFixedFit)) {
      ImGui::TableSetupColumn("Keys");
      ImGui::TableSetupColumn("What it does");
      ImGui::TableHeadersRow();
      for (const Shortcut& s : Shortcuts()) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.keys);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.what);
        ++rows;
      }
      ImGui::EndTable();
    }
    ImGui::TextDisabled("Mouse: wheel zooms a plot (Shift: across, Ctrl: down), drag pans,");
    ImGui::TextDisabled("double-click fits; right-click a table or heatmap to copy numbers.");
    ImGui::TextDisabled("Tab and the arrow keys move between controls; Space or Enter presses.");
  }
  ImGui::End();
  if (!open) Edit(state, [](AppState& st) { st.ui.shortcuts_open = false; });
  return rows;
}

}  // namespace pe
