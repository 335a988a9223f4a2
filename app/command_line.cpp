#include "command_line.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <fstream>
#include <iostream>

#include "view_tables.h"

namespace pe {
namespace {

// Raw flag values, turned into ModelParams (and checked) after parsing.
struct Flags {
  int64_t d_model = PeParams().d_model;
  int64_t max_len = PeParams().max_len;
  double base = PeParams().base;
  std::string variant = "paper";
  int64_t offset = 0;
  std::string dims = "4,5,6,7";
  std::string text = TextExample().text;
  std::string tokenizer = "word";
  std::string vocab_file;
  uint64_t seed = 0;
  bool no_scale = false;
  double dropout = 0.0;
  uint64_t dropout_seed = 0;
  bool train = false;
  std::string colormap = "rdbu";
  int64_t memory_cap_mib = 2048;
};

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
  p.pe.d_model = f.d_model;
  p.pe.max_len = f.max_len;
  p.pe.base = f.base;
  p.pe.offset = f.offset;
  std::optional<PeVariant> variant = ParseVariant(f.variant);
  if (!variant) {
    return fail("--variant must be one of paper, t2t, tf-text, got \"" + f.variant + "\"");
  }
  p.pe.variant = *variant;
  if (Status s = ValidatePeParams(p.pe); !s.ok()) return fail(s.message());
  if (f.memory_cap_mib < 1 || f.memory_cap_mib > (int64_t{1} << 40)) {
    return fail("--memory-cap-mib must be in [1, 2^40], got " + std::to_string(f.memory_cap_mib));
  }
  p.cap.bytes = static_cast<uint64_t>(f.memory_cap_mib) << 20;
  Result<std::vector<int64_t>> dims = ParseDimList(f.dims);
  if (!dims.ok()) return fail(dims.message());
  p.curve_dims = dims.value();
  std::optional<TokenizerKind> tok = ParseTokenizer(f.tokenizer);
  if (!tok) return fail("--tokenizer must be word or char, got \"" + f.tokenizer + "\"");
  p.example.text = f.text;
  p.example.tokenizer = *tok;
  p.example.seed = f.seed;
  if (!f.vocab_file.empty()) {
    std::ifstream in(f.vocab_file);
    if (!in) return fail("--vocab: cannot read \"" + f.vocab_file + "\"", 1);
    std::vector<std::string> words;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) words.push_back(line);
    }
    if (words.empty()) return fail("--vocab: \"" + f.vocab_file + "\" holds no tokens");
    if (Result<Vocabulary> v = Vocabulary::FromList(words); !v.ok()) {
      return fail("--vocab: " + v.message());
    }
    p.example.vocabulary = std::move(words);
  }
  p.input.scale = !f.no_scale;
  p.input.dropout = f.dropout;
  p.input.dropout_seed = f.dropout_seed;
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
  app.add_option("--screenshot", cl.window.screenshot,
                 "Render --frames frames, write the window's pixels to this PNG, and exit");
  app.add_option("--frames", cl.window.frames,
                 "Frames to render before the screenshot (1 to 100000)")
      ->capture_default_str();
  app.add_option("--frame-stats", cl.window.frame_stats,
                 "Render this many frames, print frame-time p50/p99 (CPU, ms) and peak RSS, exit");
  app.add_flag("--animate", cl.window.animate,
               "With --frame-stats: pan and zoom the heatmap and curves every frame, like a user");
  std::string size = "1280x800";
  app.add_option("--size", size, "Window size WxH")->capture_default_str();

  CLI::App* exp = app.add_subcommand(
      "export", "Write the numbers behind a view to a file (.csv or .npy) without a window");
  exp->add_option("--view", cl.export_request.view, "heatmap, curves or sum")
      ->capture_default_str();
  exp->add_option("-o,--output", cl.export_request.output,
                  "Output file; the format follows the extension: .png, .svg, .pdf (the figure) "
                  "or .csv, .npy (the numbers); - writes CSV to standard output")
      ->required();
  ExportRequest& er = cl.export_request;
  exp->add_option("--width", er.width, "Figure width (SVG px, PDF points, PNG pixels at scale 1)")
      ->capture_default_str();
  exp->add_option("--height", er.height, "Figure height")->capture_default_str();
  exp->add_option("--scale", er.scale, "PNG pixels per unit (2 for a 2x image)")
      ->capture_default_str();
  exp->add_option("--title", er.title, "Figure title (default: one naming the parameters)");
  exp->add_option("--positions", er.positions, "Positions shown, A:B (heatmap rows, curves x)");
  exp->add_option("--dim-range", er.dim_range, "Dimensions shown, A:B (heatmap and sum)");
  exp->add_option("--token", er.token,
                  "Token N (0-based) or all: the sum view's token; outlined in heatmap and curves");
  exp->add_flag("--no-markers", er.no_markers, "No dots at integer positions on the curves");
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
  cl.mode = exp->parsed() ? RunMode::kExport : RunMode::kWindow;
  if (int code = BuildParams(flags, cl.params); code != 0) {
    exit_code = code;
    return std::nullopt;
  }
  if (cl.mode == RunMode::kWindow) {
    int w = 0, h = 0;
    char x = 0, extra = 0;
    if (std::sscanf(size.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || x != 'x' || w < 320 ||
        h < 240 || w > 8192 || h > 8192) {
      std::cerr << "pe-explorer: --size must be WxH with W in [320, 8192] and H in [240, 8192], "
                   "got \""
                << size << "\"\n";
      exit_code = 2;
      return std::nullopt;
    }
    cl.window.width = w;
    cl.window.height = h;
    if (cl.window.frames < 1 || cl.window.frames > 100000) {
      std::cerr << "pe-explorer: --frames must be in [1, 100000], got " << cl.window.frames << "\n";
      exit_code = 2;
      return std::nullopt;
    }
    if (cl.window.frame_stats < 0 || cl.window.frame_stats > 100000) {
      std::cerr << "pe-explorer: --frame-stats must be in [1, 100000], got "
                << cl.window.frame_stats << "\n";
      exit_code = 2;
      return std::nullopt;
    }
  }
  exit_code = 0;
  return cl;
}

}  // namespace pe
