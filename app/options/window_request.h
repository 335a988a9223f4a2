// What the window is asked to do at start: parsed by the command line (app/cli), run by the
// window (app/window). No GUI library here, so the command line (core only) can include it.
#pragma once

#include <chrono>
#include <string>

namespace pe {

struct WindowRequest {
  std::string screenshot;  // write the pixels of the last frame here, then exit
  int frames = 3;          // frames to render for --screenshot / --frame-stats
  int frame_stats = 0;     // > 0: render this many frames and print timing
  bool animate = false;    // pan and zoom the heatmap and curves every frame (for --frame-stats)
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  int width = 1280;
  int height = 800;
  std::string tab;  // the scheme view to open on (a --view name), empty: the first
  // Sessions: a .pexs or exported figure to open; --fresh (do not restore the last session);
  // whether parameter flags or --size were given (then the command line, not the last
  // session, says what the window shows).
  std::string open;
  bool fresh = false;
  bool params_given = false;
  bool size_given = false;
  float ui_scale = 1.0f;     // --ui-scale, kMinUiScale to kMaxUiScale (options/ui_scale_range.h)
  bool light_theme = false;  // --theme light
  // Given on the command line: they win over the preferences (the config folder's
  // settings.txt) for this run; otherwise the preferences' scale and theme stay.
  bool ui_scale_given = false, theme_given = false;
};

}  // namespace pe
