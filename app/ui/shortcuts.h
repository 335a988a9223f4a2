// The keyboard shortcuts: one table that the key handling reads and the F1 overlay prints, so
// the overlay cannot list a key that does nothing or miss one that does something.
#pragma once

#include <imgui.h>

#include <array>
#include <optional>
#include <span>
#include <string>

#include "ui/app_state.h"

namespace pe {

enum class ShortcutAction {
  kScaleUp,
  kScaleDown,
  kScaleReset,
  kShortcuts,
  kPresentation,
  kNextPanel,      // presentation mode
  kPreviousPanel,  // presentation mode
  kLeave,          // closes the overlay, leaves presentation mode
  kUndo,
  kRedo,
  kSaveSession,
  kSaveSessionAs,
  kOpenSession,
  kOpenTable,
  kExport,  // last: the count of actions is kExport + 1
};

// Native key codes for keys ImGui 1.86 has no ImGuiKey for: GLFW's (GLFW/glfw3.h), which the
// GLFW backend writes into io.KeysDown. window.cpp checks them against GLFW's own constants.
namespace native_key {
inline constexpr int kS = 83;
inline constexpr int kT = 84;
inline constexpr int kO = 79;
inline constexpr int kY = 89;
inline constexpr int kZ = 90;
inline constexpr int kE = 69;
inline constexpr int k0 = 48;
inline constexpr int kMinus = 45;
inline constexpr int kEqual = 61;
inline constexpr int kKeypad0 = 320;
inline constexpr int kKeypadSubtract = 333;
inline constexpr int kKeypadAdd = 334;
inline constexpr int kF1 = 290;
inline constexpr int kF11 = 300;
}  // namespace native_key

// One way to trigger an action: a named ImGui key (through io.KeyMap), a native key code, or a
// typed character (layout-independent, e.g. '?').
struct KeyChord {
  ImGuiKey named = -1;  // ImGuiKey_*, or -1
  int native = -1;      // native_key::*, or -1
  ImWchar character = 0;
  bool ctrl = false;
  // Shift: -1 with or without it (Ctrl + is Shift and = on many layouts), 0 not held, 1 held.
  int shift = -1;
  bool operator==(const KeyChord&) const = default;
};

struct Shortcut {
  ShortcutAction action;
  const char* keys;  // as the overlay and the menus print them
  const char* what;
  std::array<KeyChord, 3> chords;  // unused entries are KeyChord{}
  bool presentation_only = false;  // only in presentation mode (arrow keys stay with the panels)
  bool not_while_typing = false;   // a text field keeps these (its own Ctrl Z) even with Ctrl
};

std::span<const Shortcut> Shortcuts();
// The table's entry for `action` (every action has exactly one).
const Shortcut& ShortcutFor(ShortcutAction action);

// Whether `chord` was pressed this frame (never while a text field takes the keys).
bool ChordPressed(const KeyChord& chord);

// The action whose keys were pressed this frame, if any: nothing while a text field has the
// keyboard (but for Ctrl chords) or a popup (the export dialog) is open.
std::optional<ShortcutAction> PressedShortcut(const UiSettings& ui);

// The overlay listing every shortcut (F1, '?'), while state.ui.shortcuts_open. Returns the rows
// it printed (keys, what), for tests.
int DrawShortcutOverlay(AppState& state);

}  // namespace pe
