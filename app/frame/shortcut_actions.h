// What each shortcut does (ui/shortcuts.h lists them): above the panels, as kExport opens the
// export dialog (app/panels).
#pragma once

#include "ui/app_state.h"
#include "ui/shortcuts.h"

namespace pe {

// What `action` does to the settings (and, for kExport, the export dialog), as an edit for the
// next frame. `panels` is the number of panels presentation mode steps through.
void ApplyShortcut(AppState& state, ShortcutAction action, int panels);

}  // namespace pe
