#include "window/window.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <stb_image_write.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "frame/frame.h"
#include "io/file_writers.h"
#include "jobs/export_runner.h"
#include "jobs/raster_worker.h"
#include "jobs/table_load_job.h"
#include "ui/derived.h"
#include "ui/fonts.h"
#include "ui/session.h"
#include "ui/shortcuts.h"
#include "ui/ui.h"
#include "ui/ui_settings.h"
#include "window/gl_texture_store.h"

namespace pe {
namespace {

// The shortcut table names keys by GLFW's codes without including GLFW.
static_assert(native_key::kS == GLFW_KEY_S && native_key::kT == GLFW_KEY_T &&
              native_key::kO == GLFW_KEY_O && native_key::kY == GLFW_KEY_Y &&
              native_key::kZ == GLFW_KEY_Z && native_key::k0 == GLFW_KEY_0 &&
              native_key::kMinus == GLFW_KEY_MINUS && native_key::kEqual == GLFW_KEY_EQUAL &&
              native_key::kKeypad0 == GLFW_KEY_KP_0 &&
              native_key::kKeypadSubtract == GLFW_KEY_KP_SUBTRACT &&
              native_key::kKeypadAdd == GLFW_KEY_KP_ADD && native_key::kF1 == GLFW_KEY_F1 &&
              native_key::kF11 == GLFW_KEY_F11);

std::string g_glfw_error;  // written only by the GLFW error callback, read right after init
int g_events = 0;          // input and window events so far (InstallEventCounters, OnDrop)

void OnGlfwError(int /*code*/, const char* description) {
  g_glfw_error = description;
}

Status WritePng(const std::string& path, int w, int h, const std::vector<unsigned char>& rgba) {
  return WriteFileAtomically(path, [&](std::ostream& out) -> Status {
    auto sink = [](void* ctx, void* data, int size) {
      static_cast<std::ostream*>(ctx)->write(static_cast<const char*>(data), size);
    };
    if (!stbi_write_png_to_func(sink, &out, w, h, 4, rgba.data(), w * 4)) {
      return RuntimeError("PNG encoding failed");
    }
    return {};
  });
}

// Reads the back buffer (bottom-up in GL) into top-down RGBA rows.
std::vector<unsigned char> ReadPixels(int w, int h) {
  std::vector<unsigned char> px(static_cast<size_t>(w) * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  std::vector<unsigned char> flipped(px.size());
  const size_t row = static_cast<size_t>(w) * 4;
  for (int y = 0; y < h; ++y) {
    std::memcpy(&flipped[static_cast<size_t>(y) * row], &px[static_cast<size_t>(h - 1 - y) * row],
                row);
  }
  for (size_t k = 3; k < flipped.size(); k += 4) flipped[k] = 255;
  return flipped;
}

// A user panning and zooming: the heatmap view glides across the table and breathes in and
// out, and the curves scroll. The plot layer clamps the views to the data.
void AnimateViews(AppState& state, int frame) {
  const EncodingParams& p = state.params.pe;
  const double t = frame / 60.0;
  const double len = static_cast<double>(p.max_len), d = static_cast<double>(p.d_model);
  const double zoom = 0.05 + 0.95 * (0.5 + 0.5 * std::cos(t * 0.7));  // fraction of the table shown
  const double cy = static_cast<double>(p.offset) + len * (0.5 + 0.45 * std::sin(t * 0.3));
  const double cx = d * (0.5 + 0.4 * std::sin(t * 0.5));
  state.windows[ViewKind::kHeatmap].view = {cx - d * zoom / 2, cx + d * zoom / 2,
                                            cy - len * zoom / 2, cy + len * zoom / 2};
  PlotRange& c = state.windows[ViewKind::kCurves].view;
  const double span = c.x1 - c.x0;
  c.x0 = static_cast<double>(p.offset) + std::fmod(t * 20.0, std::max(1.0, len - span));
  c.x1 = c.x0 + span;
}

// Files dropped on the window, queued for the next frame by kind (the window's user pointer is
// the AppState): a small dispatcher by extension. Sessions and exported figures open as a
// session; every other file is offered to File > Open table.
void OnDrop(GLFWwindow* window, int count, const char** paths) {
  ++g_events;
  auto* state = static_cast<AppState*>(glfwGetWindowUserPointer(window));
  for (int k = 0; state != nullptr && k < count; ++k) {
    if (IsSessionOrFigurePath(paths[k])) {
      state->session.open_requests.emplace_back(paths[k]);
    } else {
      state->dropped_files.emplace_back(paths[k]);
    }
  }
}

// Input and window events since the loop last looked (GLFW calls these on the main thread,
// inside glfwPollEvents / glfwWaitEventsTimeout). Installed before ImGui's backend, which chains
// to them from its own mouse, key, character, scroll, focus and cursor-enter callbacks.
void CountEvent() {
  ++g_events;
}
void InstallEventCounters(GLFWwindow* window) {
  glfwSetCursorPosCallback(window, [](GLFWwindow*, double, double) { CountEvent(); });
  glfwSetMouseButtonCallback(window, [](GLFWwindow*, int, int, int) { CountEvent(); });
  glfwSetScrollCallback(window, [](GLFWwindow*, double, double) { CountEvent(); });
  glfwSetKeyCallback(window, [](GLFWwindow*, int, int, int, int) { CountEvent(); });
  glfwSetCharCallback(window, [](GLFWwindow*, unsigned int) { CountEvent(); });
  glfwSetWindowFocusCallback(window, [](GLFWwindow*, int) { CountEvent(); });
  glfwSetCursorEnterCallback(window, [](GLFWwindow*, int) { CountEvent(); });
  glfwSetWindowSizeCallback(window, [](GLFWwindow*, int, int) { CountEvent(); });
  glfwSetFramebufferSizeCallback(window, [](GLFWwindow*, int, int) { CountEvent(); });
  glfwSetWindowRefreshCallback(window, [](GLFWwindow*) { CountEvent(); });
  glfwSetWindowIconifyCallback(window, [](GLFWwindow*, int) { CountEvent(); });
}

// How long the loop may wait for an event before the next frame: an idle window draws a few
// frames a second instead of as many as the GPU allows (on a virtual display without vsync that
// was both cores, all the time). Frames follow every event for a few frames (ImGui settles hover
// and release states a frame later), and run freely while something moves on its own.
double IdleWait(bool moving, bool working, bool typing, int frames_since_event) {
  if (moving || frames_since_event < 3) return 0.0;  // poll: draw the next frame now
  if (working) return 0.02;  // a job or worker will finish soon: look 50 times a second
  if (typing) return 0.1;    // a text field's cursor blinks
  return 1.0;                // toasts and autosave still get a frame every second
}

double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace

int RunWindow(AppState& state, const WindowRequest& request,
              const std::function<void(const UiCaches&)>& after_last_frame,
              SessionKeeper* sessions) {
  glfwSetErrorCallback(OnGlfwError);
  if (!glfwInit()) {
    const char* display = std::getenv("DISPLAY");
    std::cerr << "pe-explorer: cannot open a window: "
              << (display && *display ? "no X display at DISPLAY=" + std::string(display)
                                      : std::string("no display (DISPLAY is not set)"))
              << ". Run it on a virtual display with `xvfb-run -a pe-explorer`, or write the "
                 "numbers without a window: `pe-explorer export --help`.\n";
    return 1;
  }
  const bool offscreen = !request.screenshot.empty() || request.frame_stats > 0;
  // The font atlas (30-50 ms of glyph rasterising) is built on another core while the window and
  // its GL context are made (90-120 ms with llvmpipe), for the monitor's content scale, which
  // X11 gives every window too; the ImGui context made after shares it.
  float monitor_scale = 1.0f, unused_scale = 1.0f;
  if (GLFWmonitor* monitor = glfwGetPrimaryMonitor())
    glfwGetMonitorContentScale(monitor, &monitor_scale, &unused_scale);
  auto atlas = std::make_unique<ImFontAtlas>();
  AppliedLook prebuilt;
  std::thread font_builder(
      [&prebuilt, &atlas, ui = state.ui, shown = ShownText(state), monitor_scale] {
        prebuilt = PrebuildFonts(ui, monitor_scale, shown, *atlas);
      });
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GL_TRUE);
  if (offscreen) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow* window =
      glfwCreateWindow(request.width, request.height, "PE Explorer", nullptr, nullptr);
  font_builder.join();
  if (!window) {
    std::cerr << "pe-explorer: cannot create an OpenGL 3.3 window: " << g_glfw_error << "\n";
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(offscreen ? 0 : 1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext(atlas.get());
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;  // Tab, arrows, Space: every control
  float xscale = 1.0f, yscale = 1.0f;
  glfwGetWindowContentScale(window, &xscale, &yscale);
  // Fonts at the UI scale's pixel size and a style scaled from a fresh copy; rebuilt between
  // frames when the scale, theme or shown text change (then the font texture is uploaded again).
  std::optional<AppliedLook> look;
  AdoptLook(prebuilt, state.ui, xscale, look);
  ApplyLook(state.ui, xscale, ShownText(state), look);
  InstallEventCounters(window);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  glfwSetWindowUserPointer(window, &state);
  glfwSetDropCallback(window, OnDrop);
  ImGui_ImplOpenGL3_Init("#version 330");

  UiCaches caches;
  // A large learned table is built off the UI thread, except where the frame must show it.
  caches.derived.set_background(!offscreen);
  caches.compare.versus.set_background(!offscreen);
  std::optional<GlTextureStore> textures;
  textures.emplace();
  // Screenshots must show the final raster and figures, so they compute them in the frame.
  RasterWorker rasters(/*synchronous=*/!request.screenshot.empty());
  FigureWorker figures(/*synchronous=*/!request.screenshot.empty());
  ExportRunner exports(/*synchronous=*/false);
  SaveFilePicker picker;
  TableLoadJob tables(/*synchronous=*/!request.screenshot.empty());
  UiServices services{&*textures, &rasters, &exports, &picker, &figures, sessions, &tables};
  std::vector<double> frame_ms;
  int frame = 0;
  const int frames_wanted = request.frame_stats > 0 ? request.frame_stats : request.frames;
  int exit_code = 0;
  double first_frame_ms = 0;
  int frames_since_event = 0, frames_since_work = 0;
  while (!glfwWindowShouldClose(window)) {
    // Offscreen runs (screenshots, frame statistics) and animations draw every frame; a window
    // waiting for its user waits (IdleWait): while work runs, 50 frames a second at most, and
    // work that just finished gets two frames at once, so its result is taken and drawn.
    const bool working = rasters.Busy() || figures.AnyBusy() || exports.busy() || tables.busy() ||
                         picker.running() || caches.derived.busy() || caches.compare.versus.busy();
    frames_since_work = working ? 0 : frames_since_work + 1;
    const bool just_finished = !working && frames_since_work <= 2;
    const bool moving = offscreen || request.animate || state.rotation.playing || just_finished;
    const double wait = IdleWait(moving, working, ImGui::GetIO().WantTextInput, frames_since_event);
    const int events_before = g_events;
    if (wait > 0) {
      glfwWaitEventsTimeout(wait);
    } else {
      glfwPollEvents();
    }
    frames_since_event = g_events != events_before ? 0 : frames_since_event + 1;
    const auto t0 = std::chrono::steady_clock::now();
    glfwGetWindowSize(window, &state.session.window_width, &state.session.window_height);
    if (request.animate && frame > 0) AnimateViews(state, frame);
    if (ApplyLook(state.ui, xscale, ShownText(state), look) && frame > 0) {
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    DrawUi(state, caches, services);
    ImGui::Render();
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    const auto t1 = std::chrono::steady_clock::now();
    frame_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (frame == 0) {
      glFinish();  // the first frame is on screen, not just queued
      first_frame_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                                 request.started)
                           .count();
    }
    ++frame;
    if (offscreen && frame >= frames_wanted) {
      if (!request.screenshot.empty()) {
        Status s = WritePng(request.screenshot, fb_w, fb_h, ReadPixels(fb_w, fb_h));
        if (!s.ok()) {
          std::cerr << "pe-explorer: " << s.message() << "\n";
          exit_code = 1;
        }
      }
      if (after_last_frame) after_last_frame(caches);
      break;
    }
    glfwSwapBuffers(window);
    // Start to first frame: from main's first line to the first frame's swap (a single-frame
    // run, which never swaps, keeps the time its frame was finished above).
    if (frame == 1) {
      first_frame_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                                 request.started)
                           .count();
    }
  }

  if (sessions != nullptr) {
    if (Status s = sessions->SaveNow(state); !s.ok()) {
      std::cerr << "pe-explorer: the session was not saved: " << s.message() << "\n";
    }
  }
  if (request.frame_stats > 0) {
    std::vector<double> sorted(frame_ms.begin() + std::min<size_t>(frame_ms.size() - 1, 2),
                               frame_ms.end());  // the first frames build fonts and caches
    std::sort(sorted.begin(), sorted.end());
    auto pct = [&](double q) {
      return sorted[std::min(sorted.size() - 1, static_cast<size_t>(q * sorted.size()))];
    };
    std::printf(
        "frames %zu%s  start to first frame %.0f ms  p50 %.2f ms  p99 %.2f ms  max %.2f ms"
        "  peak RSS %.1f MiB\n",
        frame_ms.size(), request.animate ? " (animated)" : "", first_frame_ms, pct(0.5), pct(0.99),
        sorted.back(), PeakRssMiB());
    // How far the heatmap's exact picture trails the view: frames from asking for a raster to
    // drawing it (0: the same frame).
    std::vector<int64_t> lag = rasters.FramesUntilPicture();
    if (!lag.empty()) {
      std::sort(lag.begin(), lag.end());
      std::printf("frames until the exact picture: p50 %lld  max %lld  (%zu pictures)\n",
                  static_cast<long long>(lag[lag.size() / 2]), static_cast<long long>(lag.back()),
                  lag.size());
    }
  }
  textures.reset();  // GL objects go before the context
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  atlas.reset();  // shared with the context, so it outlives it
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}

}  // namespace pe
