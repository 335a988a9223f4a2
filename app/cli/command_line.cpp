#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>

#include "io/file_writers.h"
#include "views/view_tables.h"

namespace pe {
namespace {

// Raw flag values, as the user typed them; numbers are parsed (decimal only, whole text, full
// range) and checked after CLI11 has split the arguments, so an error can echo the exact text.
struct Flags {
  std::string d_model = std::to_string(PeParams().d_model);
  std::string max_len = std::to_string(PeParams().max_len);
  std::string base = "10000";
  std::string variant = "paper";
  std::string offset = "0";
  std::string dims = "4,5,6,7";
  std::string text = TextExample().text;
  std::string tokenizer = "word";
  std::string vocab_file;
  std::string seed = "0";
  bool no_scale = false;
  std::string dropout = "0";
  std::string dropout_seed = "0";
  bool train = false;
  std::string colormap = "rdbu";
  std::string memory_cap_mib = "2048";
};

// A decimal integer in [lo, hi], the whole of `text` ("064" is 64; "0x10", "1e3", "+5", " 5"
// and "" are refused).
template <class T>
Result<T> ParseIntegerFlag(const std::string& flag, const std::string& text, T lo, T hi) {
  T v{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < lo || v > hi) {
    return InvalidArgument(flag + " must be an integer in [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "], got \"" + text + "\"");
  }
  return v;
}

// A finite decimal number, the whole of `text` ("1e-3" is fine; "0x10", "nan", "inf" and ""
// are refused), that `in_range` accepts; `range` words the allowed values for the message.
Result<double> ParseNumberFlag(const std::string& flag, const std::string& text,
                               const std::string& range, bool (*in_range)(double)) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, std::chars_format::general);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v) || !in_range(v)) {
    return InvalidArgument(flag + " must be " + range + ", got \"" + text + "\"");
  }
  return v;
}

// Text flags end up in figure titles and SVG/PDF metadata: they must be valid UTF-8 and hold
// no control characters but tab (XML cannot carry them). Refused rather than cleaned up, so a
// figure never shows a text other than the one given.
Status CheckTextFlag(const std::string& flag, const std::string& text) {
  auto fail = [&](size_t at, const char* what) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned char>(text[at]));
    return InvalidArgument(flag + " " + what + " at byte offset " + std::to_string(at) + " (" +
                           buf + ")");
  };
  for (size_t k = 0; k < text.size();) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7F) {
        return fail(k, "holds a control character (only tab is allowed)");
      }
      ++k;
      continue;
    }
    // UTF-8 (RFC 3629): shortest form, no surrogates, at most U+10FFFF.
    const int len = c >= 0xC2 && c <= 0xDF   ? 2
                    : c >= 0xE0 && c <= 0xEF ? 3
                    : c >= 0xF0 && c <= 0xF4 ? 4
                                             : 0;
    if (len == 0 || k + static_cast<size_t>(len) > text.size()) {
      return fail(k, "is not valid UTF-8");
    }
    const auto c1 = static_cast<unsigned char>(text[k + 1]);
    const unsigned char lo1 = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi1 = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    if (c1 < lo1 || c1 > hi1) return fail(k, "is not valid UTF-8");
    for (int j = 2; j < len; ++j) {
      if ((static_cast<unsigned char>(text[k + static_cast<size_t>(j)]) & 0xC0) != 0x80) {
        return fail(k, "is not valid UTF-8");
      }
    }
    k += static_cast<size_t>(len);
  }
  return {};
}

void AddParameterOptions(CLI::App& app, Flags& f) {
  app.add_option("--d-model", f.d_model, "Model width d_model, 1 to 65536")->capture_default_str();
  app.add_option("--max-len", f.max_len, "Positions in the table, 1 to 2^31")
      ->capture_default_str();
  app.add_option("--base", f.base, "Base of the frequencies (> 1)")->capture_default_str();
  app.add_option("--variant", f.variant, "Column layout: paper, t2t or tf-text")
      ->capture_default_str();
  app.add_option("--offset", f.offset, "Position of the first table row")->capture_default_str();
  app.add_option("--dims", f.dims, "Dimensions for the curves, e.g. 4,5,6,7 or 0-3")
      ->capture_default_str();
  app.add_option("--text", f.text, "Sentence for the token sums")->capture_default_str();
  app.add_option("--tokenizer", f.tokenizer, "word or char")->capture_default_str();
  app.add_option("--vocab", f.vocab_file,
                 "Fixed vocabulary file, one token per line (unknown words map to <unk>); "
                 "default: built from the text in order of first appearance");
  app.add_option("--seed", f.seed, "Seed of the N(0,1) embedding table")->capture_default_str();
  app.add_flag("--no-scale", f.no_scale, "Do not multiply embeddings by sqrt(d_model)");
  app.add_option("--dropout", f.dropout, "Dropout probability p in [0, 1] (train mode only)")
      ->capture_default_str();
  app.add_option("--dropout-seed", f.dropout_seed, "Seed of the dropout mask")
      ->capture_default_str();
  app.add_flag("--train", f.train, "Train mode: apply dropout (eval mode is the identity)");
  app.add_option("--colormap", f.colormap, "Heatmap colours: rdbu or viridis")
      ->capture_default_str();
  app.add_option("--memory-cap-mib", f.memory_cap_mib,
                 "Largest table a request may allocate, in MiB")
      ->capture_default_str();
}

// Turns flags into params; on error prints it and returns the exit code (2 usage, 1 runtime).
int BuildParams(const Flags& f, ModelParams& p) {
  auto fail = [](const std::string& message, int code = 2) {
    std::cerr << "pe-explorer: " << message << "\n";
    return code;
  };
  constexpr uint64_t kMaxSeed = std::numeric_limits<uint64_t>::max();
  Result<int64_t> d_model = ParseIntegerFlag<int64_t>("--d-model", f.d_model, 1, kMaxDModel);
  if (!d_model.ok()) return fail(d_model.message());
  Result<int64_t> max_len = ParseIntegerFlag<int64_t>("--max-len", f.max_len, 1, kMaxPosition + 1);
  if (!max_len.ok()) return fail(max_len.message());
  Result<int64_t> offset = ParseIntegerFlag<int64_t>("--offset", f.offset, 0, kMaxPosition);
  if (!offset.ok()) return fail(offset.message());
  Result<double> base = ParseNumberFlag("--base", f.base, "a finite number greater than 1",
                                        [](double v) { return v > 1; });
  if (!base.ok()) return fail(base.message());
  Result<uint64_t> seed = ParseIntegerFlag<uint64_t>("--seed", f.seed, 0, kMaxSeed);
  if (!seed.ok()) return fail(seed.message());
  Result<double> dropout = ParseNumberFlag("--dropout", f.dropout, "a number in [0, 1]",
                                           [](double v) { return v >= 0 && v <= 1; });
  if (!dropout.ok()) return fail(dropout.message());
  Result<uint64_t> dropout_seed =
      ParseIntegerFlag<uint64_t>("--dropout-seed", f.dropout_seed, 0, kMaxSeed);
  if (!dropout_seed.ok()) return fail(dropout_seed.message());
  Result<int64_t> cap_mib =
      ParseIntegerFlag<int64_t>("--memory-cap-mib", f.memory_cap_mib, 1, int64_t{1} << 40);
  if (!cap_mib.ok()) return fail(cap_mib.message());
  if (Status s = CheckTextFlag("--text", f.text); !s.ok()) return fail(s.message());
  p.pe.d_model = d_model.value();
  p.pe.max_len = max_len.value();
  p.pe.base = base.value();
  p.pe.offset = offset.value();
  std::optional<PeVariant> variant = ParseVariant(f.variant);
  if (!variant) {
    return fail("--variant must be one of paper, t2t, tf-text, got \"" + f.variant + "\"");
  }
  p.pe.variant = *variant;
  if (Status s = ValidatePeParams(p.pe); !s.ok()) return fail(s.message());
  p.cap.bytes = static_cast<uint64_t>(cap_mib.value()) << 20;
  Result<std::vector<int64_t>> dims = ParseDimList(f.dims);
  if (!dims.ok()) return fail(dims.message());
  p.curve_dims = dims.value();
  std::optional<TokenizerKind> tok = ParseTokenizer(f.tokenizer);
  if (!tok) return fail("--tokenizer must be word or char, got \"" + f.tokenizer + "\"");
  p.example.text = f.text;
  p.example.tokenizer = *tok;
  p.example.seed = seed.value();
  if (!f.vocab_file.empty()) {
    Result<std::vector<std::string>> words = ReadVocabularyFile(f.vocab_file, p.cap);
    if (!words.ok()) {
      return fail("--vocab: " + words.message(),
                  words.error().kind == Error::Kind::kInvalidArgument ? 2 : 1);
    }
    if (Result<Vocabulary> v = Vocabulary::FromList(words.value()); !v.ok()) {
      return fail("--vocab: " + v.message());
    }
    p.example.vocabulary = std::move(words).value();
  }
  p.input.scale = !f.no_scale;
  p.input.dropout = dropout.value();
  p.input.dropout_seed = dropout_seed.value();
  p.input.train = f.train;
  if (Status s = ValidateInputLayerParams(p.input); !s.ok()) return fail(s.message());
  std::optional<ColormapId> cmap = ParseColormap(f.colormap);
  if (!cmap) return fail("--colormap must be rdbu or viridis, got \"" + f.colormap + "\"");
  p.colormap = *cmap;
  return 0;
}

}  // namespace

std::optional<CommandLine> ParseCommandLine(int argc, const char* const* argv, int& exit_code) {
  CommandLine cl;
  Flags flags;
  CLI::App app{
      "PE Explorer: see how a transformer turns text into its input vectors (token embeddings, "
      "sinusoidal positional encodings and their sum). Without a subcommand it opens the window.",
      "pe-explorer"};
  app.set_version_flag("--version", std::string(PE_VERSION));
  AddParameterOptions(app, flags);
  std::string frames = std::to_string(cl.window.frames), frame_stats;
  app.add_option("--screenshot", cl.window.screenshot,
                 "Render --frames frames, write the window's pixels to this PNG, and exit");
  app.add_option("--frames", frames, "Frames to render before the screenshot (1 to 100000)")
      ->capture_default_str();
  app.add_option("--frame-stats", frame_stats,
                 "Render this many frames (1 to 100000), print frame-time p50/p99 (CPU, ms) and "
                 "peak RSS, exit");
  app.add_flag("--animate", cl.window.animate,
               "With --frame-stats: pan and zoom the heatmap and curves every frame, like a user");
  std::string size = "1280x800";
  app.add_option("--size", size, "Window size WxH")->capture_default_str();
  // Flags of the window only; given before `export` they would be silently ignored.
  const char* const kWindowFlags[] = {"--screenshot", "--frames", "--frame-stats", "--animate",
                                      "--size"};

  CLI::App* exp = app.add_subcommand(
      "export",
      "Write a view as a figure (.png, .svg, .pdf) or its numbers (.csv, .npy) without "
      "a window");
  exp->add_option("--view", cl.export_request.view, "heatmap, curves or sum")
      ->capture_default_str();
  exp->add_option("-o,--output", cl.export_request.output,
                  "Output file; the format follows the extension: .png, .svg, .pdf (the figure) "
                  "or .csv, .npy (the numbers); - writes CSV to standard output")
      ->required();
  ExportRequest& er = cl.export_request;
  std::string width = "960", height = "540", scale = "1";
  exp->add_option("--width", width, "Figure width (SVG px, PDF points, PNG pixels at scale 1)")
      ->capture_default_str();
  exp->add_option("--height", height, "Figure height")->capture_default_str();
  exp->add_option("--scale", scale, "PNG pixels per unit (2 for a 2x image)")
      ->capture_default_str();
  exp->add_option("--title", er.title, "Figure title (default: one naming the parameters)");
  exp->add_option("--positions", er.positions,
                  "Positions shown, A:B (heatmap rows, curves x); for a .csv/.npy table of the "
                  "heatmap or curves, whole positions: rows A to B-1");
  exp->add_option("--dim-range", er.dim_range, "Dimensions shown, A:B (heatmap and sum)");
  exp->add_option("--token", er.token,
                  "Token N (0-based) or all: the sum view's token; outlined in heatmap and curves");
  exp->add_flag("--no-markers", er.no_markers, "No dots at integer positions on the curves");
  // Flags that only change a drawn figure; a .csv/.npy table would silently ignore them.
  const char* const kFigureFlags[] = {"--width",     "--height", "--scale",     "--title",
                                      "--dim-range", "--token",  "--no-markers"};
  AddParameterOptions(*exp, flags);
  app.require_subcommand(0, 1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    exit_code = app.exit(e);
    return std::nullopt;
  } catch (const CLI::CallForAllHelp& e) {
    exit_code = app.exit(e);
    return std::nullopt;
  } catch (const CLI::CallForVersion& e) {
    exit_code = app.exit(e);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    std::cerr << "pe-explorer: " << e.what() << "\nRun with --help for the options.\n";
    exit_code = 2;
    return std::nullopt;
  }
  auto usage_error = [&](const std::string& message) {
    std::cerr << "pe-explorer: " << message << "\n";
    exit_code = 2;
    return std::nullopt;
  };
  cl.mode = exp->parsed() ? RunMode::kExport : RunMode::kWindow;
  if (cl.mode == RunMode::kExport) {
    for (const char* flag : kWindowFlags) {
      if (app.count(flag) > 0) {
        return usage_error(std::string(flag) +
                           " is a window option; `export` never opens a window (remove it, or "
                           "drop `export` to open the window)");
      }
    }
    const std::string ext = er.output == "-" ? "csv" : FileExtension(er.output);
    if (ext == "csv" || ext == "npy") {
      for (const char* flag : kFigureFlags) {
        if (exp->count(flag) > 0) {
          return usage_error(std::string(flag) +
                             " applies to figures (.png, .svg, .pdf), not to the ." + ext +
                             " table \"" + er.output + "\"");
        }
      }
    }
    // Their ranges are checked with the figure (ValidateFigureSize), where the window's
    // exports are checked too.
    auto any = [](double) { return true; };
    Result<double> w = ParseNumberFlag("--width", width, "a finite decimal number", any);
    if (!w.ok()) return usage_error(w.message());
    Result<double> h = ParseNumberFlag("--height", height, "a finite decimal number", any);
    if (!h.ok()) return usage_error(h.message());
    Result<double> sc = ParseNumberFlag("--scale", scale, "a finite decimal number", any);
    if (!sc.ok()) return usage_error(sc.message());
    er.width = w.value();
    er.height = h.value();
    er.scale = sc.value();
    if (Status s = CheckTextFlag("--title", er.title); !s.ok()) return usage_error(s.message());
  }
  if (int code = BuildParams(flags, cl.params); code != 0) {
    exit_code = code;
    return std::nullopt;
  }
  if (cl.mode == RunMode::kWindow) {
    const size_t x = size.find('x');
    Result<int64_t> w = ParseIntegerFlag<int64_t>("--size width", size.substr(0, x), 320, 8192);
    Result<int64_t> h = ParseIntegerFlag<int64_t>(
        "--size height", x == std::string::npos ? "" : size.substr(x + 1), 240, 8192);
    if (!w.ok() || !h.ok()) {
      return usage_error("--size must be WxH with W in [320, 8192] and H in [240, 8192], got \"" +
                         size + "\"");
    }
    cl.window.width = static_cast<int>(w.value());
    cl.window.height = static_cast<int>(h.value());
    Result<int> n = ParseIntegerFlag<int>("--frames", frames, 1, 100000);
    if (!n.ok()) return usage_error(n.message());
    cl.window.frames = n.value();
    if (app.count("--frame-stats") > 0) {
      Result<int> stats = ParseIntegerFlag<int>("--frame-stats", frame_stats, 1, 100000);
      if (!stats.ok()) return usage_error(stats.message());
      cl.window.frame_stats = stats.value();
    }
  }
  exit_code = 0;
  return cl;
}

}  // namespace pe
