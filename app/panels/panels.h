// One free function per panel; each draws inside the child region the layout (ui.cpp) gives it.
#pragma once

#include "app_state.h"
#include "derived.h"
#include "ui.h"

namespace pe {

void DrawControlsPanel(AppState& state, const Derived& derived);
void DrawHeatmapPanel(AppState& state, const Derived& derived, HeatmapCache& cache,
                      UiServices& services);
void DrawCurvesPanel(AppState& state, const Derived& derived, CurvesCache& cache);
void DrawSumsPanel(AppState& state, const Derived& derived);
void DrawStatusLine(const AppState& state, const Derived& derived);

// Export: the dialog (Export... buttons, Ctrl+S) and the progress / result corner.
void OpenExportDialog(AppState& state, ViewKind view);
void DrawExportDialog(AppState& state, UiServices& services);
void DrawExportStatus(AppState& state, UiServices& services);

// Shared by panels: a tooltip on the last item, and a panel's error state.
void ItemTooltip(const char* text);
void ErrorText(const std::string& message);

}  // namespace pe
