#include "cli/command_line.h"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <sstream>
#include <string_view>

#include "analysis/check_cases.h"
#include "arch/catalogue.h"
#include "arch/model_choice.h"
#include "base/closest_word.h"
#include "encoding/sinusoidal_presets.h"
#include "io/file_writers.h"
#include "model/param_fields.h"
#include "model/walkthrough_presets.h"
#include "options/ui_scale_range.h"
#include "session/figure_session.h"
#include "session/gallery_session.h"
#include "text/tokenizer.h"
#include "views/view_registry.h"
#include "views/view_tables.h"

namespace pe {

namespace {

// Raw flag values, as the user typed them, one per parameter field (model/param_fields.h);
// numbers are parsed (decimal only, whole text, full range) and checked after CLI11 has split
// the arguments, so an error can echo the exact text.
struct Flags {
  std::vector<std::string> values;  // (ParamFields().size())
  std::vector<bool> switches;       // (ParamFields().size()): a switch was given
  std::string vocab_file;
  Flags() {
    for (const ParamField& f : ParamFields()) {
      // The default of a scheme's own parameter is that scheme's default.
      ModelParams defaults;
      for (Scheme s : kAllSchemeKinds) {
        if (f.schemes & SchemeBit(s)) {
          SetScheme(defaults, s);
          break;
        }
      }
      values.push_back(f.is_switch() ? "" : f.get(defaults));
      switches.push_back(false);
    }
  }
};

std::string FieldHelp(const ParamField& f) {
  if (f.schemes == kAllSchemes) return std::string(f.help);
  std::string names;
  for (Scheme s : kAllSchemeKinds) {
    if (f.schemes & SchemeBit(s)) names += (names.empty() ? "" : ", ") + std::string(SchemeName(s));
  }
  return "[" + names + "] " + std::string(f.help);
}

// For each "--word" on the command line that the command it follows does not take, one line:
// "--d-modle is not an option (did you mean --d-model?)", "--ui-scale is a window option; `export`
// never opens a window ...", "--view is an option of `export`, not of the window ...". "" when
// every flag is known where it stands.
std::string UnknownFlagHints(const CLI::App& app, int argc, const char* const* argv) {
  auto names = [](const CLI::App& a) {
    std::vector<std::string> v;
    for (const CLI::Option* o : a.get_options()) {
      for (const std::string& n : o->get_lnames()) v.push_back("--" + n);
    }
    return v;
  };
  auto has = [](const std::vector<std::string>& v, const std::string& n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  const std::vector<std::string> top = names(app);
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  const CLI::App* sub = nullptr;  // the command, once its word has been passed
  std::vector<std::string> sub_names;
  std::string hints;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--") break;  // what follows is not flags
    if (sub == nullptr && arg.substr(0, 1) != "-") {
      for (const CLI::App* c : subs) {
        if (c->get_name() == arg) sub = c, sub_names = names(*c);
      }
      continue;
    }
    if (arg.size() < 3 || arg.substr(0, 2) != "--") continue;
    const std::string name(arg.substr(0, arg.find('=')));
    const std::vector<std::string>& here = sub != nullptr ? sub_names : top;
    if (has(here, name)) continue;
    if (sub != nullptr && has(top, name)) {
      hints += name + " is a window option; `" + sub->get_name() +
               "` never opens a window (remove it, or drop `" + sub->get_name() +
               "` to open the window)\n";
      continue;
    }
    if (sub == nullptr) {
      const CLI::App* owner = nullptr;
      for (const CLI::App* c : subs) {
        if (owner == nullptr && has(names(*c), name)) owner = c;
      }
      if (owner != nullptr) {
        hints += name + " is an option of `" + owner->get_name() + "`: pe-explorer " +
                 owner->get_name() + " " + name + " ...\n";
        continue;
      }
    }
    std::string hint = DidYouMean(name, here);
    for (const CLI::App* c : subs) {
      if (!hint.empty() || sub != nullptr) break;
      if (std::optional<std::string> w = ClosestWord(name, names(*c))) {
        hint = " (did you mean `" + c->get_name() + " " + *w + "`?)";
      }
    }
    hints += name + " is not an option" + hint + "\n";
  }
  return hints;
}

// A first word that is no file but a slip away from a command ("exprot"): the message, else "".
std::string MistypedCommand(int argc, const char* const* argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  struct stat st {};
  if (stat(argv[1], &st) == 0) return "";
  std::optional<std::string> c = ClosestWord(argv[1], {"export", "check", "describe", "tokenize"});
  if (!c) return "";
  return "\"" + std::string(argv[1]) + "\" is neither a file nor a command (did you mean `" + *c +
         "`?)";
}

void AddParameterOptions(CLI::App& app, Flags& f) {
  const auto fields = ParamFields();
  for (size_t k = 0; k < fields.size(); ++k) {
    const ParamField& field = fields[k];
    const std::string flag(field.flag);
    if (field.is_switch()) {
      // std::vector<bool> has no addressable elements: a callback records the switch.
      app.add_flag_callback(
          flag, [&f, k] { f.switches[k] = true; }, FieldHelp(field));
    } else {
      CLI::Option* option = app.add_option(flag, f.values[k], FieldHelp(field))
                                ->type_name(std::string(field.value_name))
                                ->capture_default_str();
      // --mrope-image may be given once per image: its values reach the field joined by new
      // lines, which it reads as a list.
      if (field.key == "mrope_images") option->multi_option_policy(CLI::MultiOptionPolicy::Join);
    }
    if (field.key == "tokenizer") {
      app.add_option("--vocab", f.vocab_file,
                     "Fixed vocabulary file, one token per line (unknown words map to <unk>); "
                     "default: built from the text in order of first appearance")
          ->type_name("FILE");
    }
  }
}

// Turns the flags given into params, in the field table's order (the scheme first), refusing a
// flag that does not apply to the chosen scheme; on error prints it and returns the exit code
// (2 usage, 1 runtime). `before`: the top level when `app` is the export subcommand, where a
// parameter given before the word `export` counts too (later ones win, as CLI11 parses them in
// order).
int BuildParams(const CLI::App& app, const CLI::App* before, const Flags& f, ModelParams& p,
                const ExportRequest& request, std::ostream& errors) {
  auto fail = [&request, &errors](const std::string& message, int code = 2) {
    errors << "pe-explorer: " << FromFigureMessage(request, message) << "\n";
    return code;
  };
  const auto fields = ParamFields();
  auto is_given = [&](size_t k) {
    const std::string flag(fields[k].flag);
    return fields[k].is_switch()
               ? f.switches[k]
               : app.count(flag) > 0 || (before != nullptr && before->count(flag) > 0);
  };
  // The model first, after the memory cap that bounds reading its file: its layer sets the
  // scheme, its parameters, the width, the window and the temperature, and every other flag
  // given then overrides them (arch/model_choice.h).
  auto is_model_field = [](const ParamField& field) {
    return field.flag == "--model" || field.flag == "--model-config" || field.flag == "--layer";
  };
  for (size_t k = 0; k < fields.size(); ++k) {
    if (!is_given(k) || !(is_model_field(fields[k]) || fields[k].flag == "--memory-cap-mib")) {
      continue;
    }
    if (Status s = fields[k].set(p, f.values[k]); !s.ok()) return fail(s.message());
  }
  if (Status s = OpenModel(p); !s.ok()) {
    return fail(s.message(), s.error().kind == Error::Kind::kInvalidArgument ? 2 : 1);
  }
  for (size_t k = 0; k < fields.size(); ++k) {
    const ParamField& field = fields[k];
    const bool given = is_given(k);
    if (!given || is_model_field(field)) continue;
    if (std::string why = field.WhyNotApplicable(p); !why.empty()) return fail(why);
    if (Status s = field.set(p, field.is_switch() ? "true" : f.values[k]); !s.ok()) {
      return fail(s.message());
    }
  }
  // The files the flags name, read once every flag is set (so --memory-cap-mib bounds them in
  // any order).
  if (Status s = LoadParamFiles(p); !s.ok()) return fail(s.message());
  // A loaded table (--embeddings, --positions-table) fixes d_model, max_len's limit and T5's
  // heads and buckets; those flags were applied before it, so they are checked again now.
  for (size_t k = 0; k < fields.size(); ++k) {
    const ParamField& field = fields[k];
    if (field.flag != "--d-model" && field.flag != "--max-len" && field.flag != "--heads" &&
        field.flag != "--t5-buckets") {
      continue;
    }
    const std::string flag(field.flag);
    if (app.count(flag) == 0 && (before == nullptr || before->count(flag) == 0)) continue;
    if (!field.WhyNotApplicable(p).empty()) continue;
    if (Status s = field.set(p, f.values[k]); !s.ok()) return fail(s.message());
  }
  if (Status s = ValidateEncodingParams(p.pe); !s.ok()) return fail(s.message());
  if (Status s = CheckLoadedTables(p); !s.ok()) return fail(s.message());
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
  if (Status s = ValidateInputLayerParams(p.input); !s.ok()) return fail(s.message());
  return 0;
}

// The views (--view names) that read the window `key`: those whose figures record it
// (ViewWindowKeys), and the check view, which draws the heatmap's window.
std::vector<std::string_view> WindowReaders(ViewKind key) {
  std::vector<std::string_view> out;
  for (const ViewEntry& v : Views()) {
    const std::vector<ViewKind> keys = ViewWindowKeys(v.kind);
    if (std::find(keys.begin(), keys.end(), key) != keys.end() ||
        (key == ViewKind::kHeatmap && v.kind == ViewKind::kCheck)) {
      out.push_back(v.name);
    }
  }
  return out;
}

// A flag given on the command line (not taken from the figure of --from) that the view of
// `request` does not read, as a message naming the flag and the views it applies to, like a
// flag of another scheme; "" when every flag given has an effect. (--batch-row,
// --rotation-position and --walkthrough-step say so themselves, after their values.)
std::string FlagNotForView(const CLI::App& exp, const CLI::App& top, const ExportRequest& request) {
  if (!ParseView(request.view)) return "";  // ExportSelection names the view
  auto typed = [&](const std::string& flag) {
    for (const auto& from : request.from_keys) {
      if (from.first == flag) return false;
    }
    const CLI::Option* before = top.get_option_no_throw(flag);
    return exp.count(flag) > 0 || (before != nullptr && before->count() > 0);
  };
  if (typed("--highlight") && typed("--no-highlight")) {
    return "--highlight and --no-highlight contradict each other: give one of them";
  }
  auto not_read = [&](const std::string& flag,
                      const std::vector<std::string_view>& readers) -> std::string {
    if (readers.empty() || !typed(flag) ||
        std::find(readers.begin(), readers.end(), request.view) != readers.end()) {
      return "";
    }
    std::string names;
    for (size_t k = 0; k < readers.size(); ++k) {
      names += (k == 0 ? "" : k + 1 == readers.size() ? " and " : ", ") + std::string(readers[k]);
    }
    return flag + " applies to the " + names + (readers.size() > 1 ? " views" : " view") +
           ", not to " + request.view;
  };
  for (const ParamField& f : ParamFields()) {
    if (f.key.empty()) continue;
    std::string why = not_read(std::string(f.flag), ViewsReading(f.key));
    if (!why.empty()) return why;
  }
  for (ViewKind owner : WindowOwners()) {
    if (std::string why = not_read(WindowFlag(owner), WindowReaders(owner)); !why.empty()) {
      return why;
    }
  }
  // --dim-range: the readers of every window with a dimensions axis.
  std::vector<std::string_view> dims;
  for (ViewKind owner : WindowOwners()) {
    const WindowAxis x = GetView(owner).window.x;
    if (x != WindowAxis::kDimCells && x != WindowAxis::kDimBars) continue;
    for (std::string_view v : WindowReaders(owner)) dims.push_back(v);
  }
  for (const auto& [flag, readers] :
       std::initializer_list<std::pair<const char*, std::vector<std::string_view>>>{
           {"--dim-range", dims},
           {"--highlight", {"heatmap", "curves"}},
           {"--no-highlight", {"heatmap", "curves"}},
           {"--no-markers", {"curves"}}}) {
    if (std::string why = not_read(flag, readers); !why.empty()) return why;
  }
  return "";
}

// `export ... --from FIGURE ...`: argv with --from replaced by the flags the figure's metadata
// gives, placed before the ones given on the command line. A flag given there drops the
// file's; a --scheme or --walkthrough-preset given drops the file's scheme parameters and
// windows (they describe another table); a table output (.csv, .npy) drops the figure flags.
// Nothing when there is no --from; an error names the file and what is wrong with it.
template <size_t N>
Result<std::optional<std::vector<std::string>>> MergeFromFigure(
    int argc, const char* const* argv, const char* const (&figure_flags)[N],
    ExportRequest& request) {
  int export_at = -1;
  for (int k = 1; k < argc; ++k) {
    if (std::string_view(argv[k]) == "export") {
      export_at = k;
      break;
    }
  }
  if (export_at < 0) return std::optional<std::vector<std::string>>();
  std::string from, output, gallery;
  bool has_from = false, has_gallery = false;
  std::vector<std::string> given;  // the arguments after `export`, without --from
  std::vector<std::string> given_flags;
  for (int k = export_at + 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--from" || a.rfind("--from=", 0) == 0) {
      if (a == "--from") {
        if (k + 1 >= argc) return InvalidArgument("--from needs a figure file (PNG, SVG or PDF)");
        from = argv[++k];
      } else {
        from = a.substr(7);
      }
      if (has_from) return InvalidArgument("--from is given twice");
      has_from = true;
      continue;
    }
    // --figure NAME stays among the arguments (the parser takes it); its flags come first.
    if (a == "--figure" && k + 1 < argc) gallery = argv[k + 1], has_gallery = true;
    if (a.rfind("--figure=", 0) == 0) gallery = a.substr(9), has_gallery = true;
    if ((a == "-o" || a == "--output") && k + 1 < argc) output = argv[k + 1];
    if (a.rfind("--output=", 0) == 0) output = a.substr(9);
    if (a.rfind("--", 0) == 0) given_flags.push_back(a.substr(0, a.find('=')));
    given.push_back(a);
  }
  if (!has_from && !has_gallery) return std::optional<std::vector<std::string>>();
  if (has_from && has_gallery) {
    return InvalidArgument(
        "--figure and --from both say what to draw: give one (a figure exported with --figure "
        "holds its flags, so --from FILE alone draws it again)");
  }
  // The figure's flags, table files resolved beside it; or the gallery figure's.
  Result<FigureFlags> figure = FigureFlags{};
  if (has_gallery) {
    const GalleryFigure* g = FindGalleryFigure(gallery);
    if (g == nullptr) {
      return InvalidArgument("--figure must be a gallery figure (" + GalleryNames() +
                             "; export --list-figures describes them), got \"" + gallery + "\"" +
                             DidYouMean(gallery, [] {
                               std::vector<std::string> names;
                               for (const GalleryFigure& f : GalleryFigures())
                                 names.emplace_back(f.name);
                               return names;
                             }()));
    }
    figure.value().flags = GalleryCommandFlags(*g);
    figure.value().shown_keys.assign(figure.value().flags.size(), "");
  } else {
    figure = ReadFigureFlags(from);
    if (!figure.ok()) return Error{figure.error().kind, "--from " + figure.message()};
  }
  auto given_flag = [&](std::string_view f) {
    return std::find(given_flags.begin(), given_flags.end(), f) != given_flags.end();
  };
  const bool new_table = given_flag("--scheme") || given_flag("--walkthrough-preset");
  // Another view asked for: what only the figure's own view reads (a compare figure's --versus,
  // which may not apply to a new --scheme) is not carried over.
  std::string view;
  for (size_t k = 0; k < given.size(); ++k) {
    if (given[k] == "--view" && k + 1 < given.size()) view = given[k + 1];
    if (given[k].rfind("--view=", 0) == 0) view = given[k].substr(7);
  }
  const std::string ext = output == "-" ? "csv" : FileExtension(output);
  const bool table = ext == "csv" || ext == "npy";
  std::vector<std::string> out(argv, argv + export_at + 1);
  for (size_t k = 0; k < figure.value().flags.size(); ++k) {
    const CommandFlag& f = figure.value().flags[k];
    if (given_flag(f.flag)) continue;
    if (!view.empty() && OnlyOtherViewsRead(f.key, view)) continue;
    if ((f.flag == "--highlight" && given_flag("--no-highlight")) ||
        (f.flag == "--no-highlight" && given_flag("--highlight"))) {
      continue;
    }
    if (table && std::find(std::begin(figure_flags), std::end(figure_flags), f.flag) !=
                     std::end(figure_flags)) {
      continue;
    }
    if (new_table) {
      const ParamField* field = FindParamField(f.flag);
      if (field != nullptr && field->schemes != kAllSchemes) continue;
      if (f.flag.size() > 7 && f.flag.substr(f.flag.size() - 7) == "-window") continue;
    }
    out.push_back(f.flag);
    if (!f.is_switch) out.push_back(f.value);
    if (has_from) request.from_keys.emplace_back(f.flag, figure.value().shown_keys[k]);
  }
  request.from = from;
  out.insert(out.end(), given.begin(), given.end());
  return std::optional<std::vector<std::string>>(std::move(out));
}

}  // namespace

std::optional<CommandLine> ParseCommandLine(int argc, const char* const* argv, int& exit_code,
                                            std::ostream& errors) {
  CommandLine cl;
  Flags flags;
  CLI::App app{
      "PE Explorer: see how a transformer turns text into its input vectors and how position "
      "enters attention: token embeddings, the positional schemes real models use (sinusoidal "
      "in every layout, learned tables, RoPE and its scalings, ALiBi, T5 buckets, xPos) and "
      "their effect on attention scores. Without a subcommand it opens the window.",
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
  app.add_option("--tab", cl.window.tab,
                 "Open the window on this view's tab below the heatmap and curves (a --view name "
                 "that applies to the scheme, e.g. score)");
  app.add_option("file", cl.window.open,
                 "A session (.pexs) or a figure this app exported (.png, .svg, .pdf) to open: "
                 "the figure's view, parameters and window")
      ->type_name("FILE");
  app.add_flag("--fresh", cl.window.fresh,
               "Start on the built-in example instead of restoring the last session");
  std::string ui_scale = "1", theme = "dark";
  app.add_option("--ui-scale", ui_scale,
                 "Size of text and controls in the window, 0.5 to 3 (Ctrl +, Ctrl -, Ctrl 0 in "
                 "the window)")
      ->capture_default_str();
  app.add_option("--theme", theme, "Window colours: dark, or light for projectors")
      ->capture_default_str();
  const char* const kWindowFlags[] = {"--screenshot", "--frames",   "--frame-stats",
                                      "--animate",    "--size",     "--tab",
                                      "--fresh",      "--ui-scale", "--theme"};

  CLI::App* exp = app.add_subcommand(
      "export",
      "Write a view as a figure (.png, .svg, .pdf) or its numbers (.csv, .npy) without "
      "a window");
  std::string view_help = "The view:";
  for (const ViewEntry& v : Views()) {
    view_help += " " + std::string(v.name);
    if (v.schemes != kAllSchemes) {
      std::string only;
      for (Scheme s : kAllSchemeKinds) {
        if (v.schemes & SchemeBit(s))
          only += (only.empty() ? "" : "/") + std::string(SchemeName(s));
      }
      view_help += " (" + only + ")";
    }
    view_help += ",";
  }
  view_help.back() = '.';
  exp->add_option("--view", cl.export_request.view, view_help)->capture_default_str();
  exp->add_option("-o,--output", cl.export_request.output,
                  "Output file; the format follows the extension: .png, .svg, .pdf (the figure) "
                  "or .csv, .npy (the numbers); - writes CSV to standard output");
  exp->add_flag("--list-presets", cl.export_request.list_presets,
                "Print the sinusoidal presets (name, source, what is special) and the "
                "walkthrough presets (--walkthrough-preset), and exit");
  ExportRequest& er = cl.export_request;
  std::string width = "960", height = "540", scale = "1";
  exp->add_option("--width", width, "Figure width (SVG px, PDF points, PNG pixels at scale 1)")
      ->capture_default_str();
  exp->add_option("--height", height, "Figure height")->capture_default_str();
  exp->add_option("--scale", scale, "PNG pixels per unit (2 for a 2x image)")
      ->capture_default_str();
  std::string font_size = "12", svg_text = "text";
  exp->add_option("--font-size", font_size,
                  "Body text size PT in layout units, 5 to 36 (legends, ticks; titles and axis "
                  "titles larger in proportion); a page too small for it gets a smaller plot "
                  "area first, then smaller text")
      ->type_name("PT")
      ->capture_default_str();
  exp->add_option("--svg-text", svg_text,
                  "SVG text: text (<text> elements, editable and searchable) or outlines (glyph "
                  "outlines)")
      ->type_name("text|outlines")
      ->capture_default_str();
  exp->add_option("--title", er.title, "Figure title (default: one naming the parameters)");
  exp->add_option("--positions", er.positions,
                  "Positions shown, A:B (heatmap rows, curves x, score queries and keys); for a "
                  ".csv/.npy table of the "
                  "heatmap or curves, whole positions: rows A to B-1");
  exp->add_option("--dim-range", er.dim_range, "Dimensions shown, A:B (heatmap and sum)");
  exp->add_option("--token", er.token,
                  "Token N (0-based) or all: the sum view's token; outlined in heatmap and curves");
  exp->add_flag("--no-markers", er.no_markers, "No dots at integer positions on the curves");
  exp->add_option("--batch-row", er.batch_row,
                  "Row B (0-based) of a batch of --ids that the sum figure shows (the .npy/.csv "
                  "table holds every row)")
      ->type_name("INT");
  exp->add_option("--rotation-position", er.rotation_position,
                  "Position P of the rotation view: rope turns the query by R_P, sinusoidal turns "
                  "PE(P) by R(K) to PE(P + K) (--rotation-offset K); a whole position of the "
                  "table (default: the first + 10, or the last)");
  // Flags that only change a drawn figure; a .csv/.npy table would silently ignore them.
  auto window_help = [](std::string_view what) {
    return "Exact window X0:X1:Y0:Y1 of the " + std::string(what) +
           " (what a panned or zoomed panel shows; default: the whole table)";
  };
  for (ViewKind owner : WindowOwners()) {
    exp->add_option(WindowFlag(owner), er.windows[owner], window_help(GetView(owner).window.help));
  }
  exp->add_flag("--highlight", er.highlight,
                "Outline the token's row / position in the heatmap and curves (--token does)");
  exp->add_flag("--no-highlight", er.no_highlight, "Do not outline the token (with --token)");
  exp->add_option("--walkthrough-step", er.walkthrough_step,
                  "Step S (0 to 7) that a walkthrough PNG or SVG shows (the PDF has every step)")
      ->type_name("INT");
  exp->add_option("--from", er.from,
                  "Draw the figure described by this PNG, SVG or PDF's metadata (one this app "
                  "exported): its view, parameters, window, size and title; other flags "
                  "override what the file says, and -o may change the format")
      ->type_name("FIGURE");
  const char* const kFigureFlags[] = {
      "--width",       "--height",       "--scale",     "--title",          "--dim-range",
      "--token",       "--no-markers",   "--batch-row", "--heatmap-window", "--curves-window",
      "--sums-window", "--score-window", "--highlight", "--no-highlight",   "--walkthrough-step",
      "--font-size",   "--svg-text"};
  AddParameterOptions(*exp, flags);

  CLI::App* chk = app.add_subcommand(
      "check",
      "Compare a positional table you computed (NPY, or a tensor of a .safetensors file) with "
      "the exact tables and name the scheme it holds: the sinusoidal layout, base, min "
      "timescale, first position and scale, or RoPE's pairing, part and scaling. Parameter "
      "flags, or --model / --model-config with --layer, are the intent: they fix what they name "
      "(and imply their scheme), and the report diagnoses how the table differs. Exit 0: the "
      "intent within float32 rounding (or --tolerance), or without one a known convention "
      "(exact or computed in float32); 1: not; 2: bad input");
  CheckRequest& cr = cl.check_request;
  // Checked after parsing, for a message that says what to give.
  chk->add_option("table", cr.table,
                  "The table, FILE or FILE:TENSOR, shape (L, d); or FILE:COS,SIN, a cos and a sin "
                  "tensor of one safetensors file checked together")
      ->type_name("FILE[:TENSOR|:COS,SIN]");
  chk->add_option("--inv-freq", cr.inv_freq,
                  "Check a RoPE frequency vector in place of a table: HF's inv_freq buffer, "
                  "shape (d/2,), NPY or a safetensors tensor; it tells the base, the scaling, the "
                  "proportion (trailing zeros) and the rotated width")
      ->type_name("FILE[:TENSOR]");
  chk->add_option("--rotated", cr.rotated,
                  "Check a rotation in place of a table: q after your apply-rotary at positions "
                  "0 .. L-1, shape (L, d), with --unrotated; the pairing and the frequencies are "
                  "read off the rotation itself")
      ->type_name("FILE[:TENSOR]");
  chk->add_option("--unrotated", cr.unrotated,
                  "q before the rotation (the input of --rotated), shape (L, d); random values "
                  "(torch.randn) read every pair")
      ->type_name("FILE[:TENSOR]");
  chk->add_flag("--json", cr.json, "Print the report as JSON");
  chk->add_option("--tolerance", cr.tolerance,
                  "Largest |error| per cell that still matches (default: float32 rounding, 1 ulp "
                  "of the reference or 2^-24 times the amplitude)")
      ->type_name("NUMBER");
  chk->add_option("--case", cr.case_name,
                  "Check a teaching case in place of a file: a buggy table the app makes as a "
                  "real port made it, against what was meant (--list-cases names them)")
      ->type_name("NAME");
  chk->add_flag("--list-cases", cr.list_cases,
                "List the teaching cases of --case: name, title, the diagnosis each gets, and "
                "its story");
  AddParameterOptions(*chk, flags);

  CLI::App* desc = app.add_subcommand(
      "describe",
      "Print a model's card: its name, source, format and shape, and one line per run of layers "
      "with the same positional treatment (scheme and parameters, width, window, temperature), "
      "then the keys not read, what is not modelled and notes");
  std::string describe_model, describe_config, describe_layer;
  bool describe_json = false;
  desc->add_option("--model", describe_model,
                   "A built-in model (pe-explorer export --list-models lists them)")
      ->type_name("NAME");
  desc->add_option("--model-config", describe_config, "A model's config.json or GGUF file")
      ->type_name("FILE");
  desc->add_option("--layer", describe_layer,
                   "Also describe this layer, 0-based (default: none beyond the runs)")
      ->type_name("INT");
  desc->add_flag("--json", describe_json, "Print the card as JSON");
  bool list_models = false;
  exp->add_flag("--list-models", list_models,
                "Print the built-in models (name, title and source, one per line, tab-separated) "
                "and exit");
  bool list_figures = false;
  std::string gallery_figure;
  exp->add_flag("--list-figures", list_figures,
                "Print the gallery's figures of papers and tutorials (name, what it shows, "
                "source, one per line, tab-separated) and exit");
  exp->add_option("--figure", gallery_figure,
                  "Draw this gallery figure (export --list-figures): its scheme, parameters, "
                  "view and title; other flags override it")
      ->type_name("NAME");
  CLI::App* tok = app.add_subcommand(
      "tokenize",
      "Print a text's tokens under a tokenizer file: one line per token with its position, id, "
      "the token as readable text (a leading space as U+2423, a newline as U+21B5, a byte piece "
      "as <0xE2>, the SentencePiece mark U+2581 kept) and the bytes of the text it covers");
  TokenizeRequest& tr = cl.tokenize;
  tok->add_option("--tokenizer-file", tr.tokenizer_file,
                  "A Hugging Face tokenizer.json, a SentencePiece .model, a .gguf (its "
                  "tokenizer), or a GPT-2 folder (vocab.json + merges.txt)")
      ->type_name("FILE");
  CLI::Option* tok_text =
      tok->add_option("--text", tr.text, "The text to tokenize")->type_name("TEXT");
  tok->add_option("--text-file", tr.text_file, "Tokenize this UTF-8 file's text instead")
      ->type_name("FILE");
  tok->add_option("--special-tokens", tr.special_tokens,
                  "add: the tokens the tokenizer's post-processor puts around the text (BERT's "
                  "[CLS] ... [SEP], Llama's <s>), as Python's tokenizer(text) does; none: "
                  "without them (add_special_tokens=False)")
      ->type_name("add|none")
      ->capture_default_str();
  tok->add_flag("--json", tr.json, "Print {\"ids\": [...], \"tokens\": [...]} instead");
  app.require_subcommand(0, 1);

  // "--text=" gives an empty value; CLI11 would take the next argument (another flag) for it,
  // so an option that takes a value gets "--text" "" instead. After "--" nothing is a flag.
  std::vector<std::string> split;
  for (int k = 0; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--") {
      split.insert(split.end(), argv + k, argv + argc);
      break;
    }
    const std::string name = a.substr(0, a.find('='));
    const bool takes_value = [&] {
      for (const CLI::App* c :
           {static_cast<const CLI::App*>(&app), static_cast<const CLI::App*>(exp),
            static_cast<const CLI::App*>(chk), static_cast<const CLI::App*>(desc),
            static_cast<const CLI::App*>(tok)}) {
        const CLI::Option* o = c->get_option_no_throw(name);
        if (o != nullptr && o->get_type_size_max() > 0) return true;
      }
      return false;
    }();
    split.push_back(k > 0 && a.size() > 3 && a.rfind("--", 0) == 0 && a.back() == '=' &&
                            name.size() + 1 == a.size() && takes_value
                        ? name
                        : a);
    if (split.back() != a) split.emplace_back();
  }
  std::vector<const char*> split_argv;
  for (const std::string& a : split) split_argv.push_back(a.c_str());
  argc = static_cast<int>(split_argv.size());
  argv = split_argv.data();
  // export --from FIGURE: the figure's metadata as flags, before the ones given (which win).
  std::vector<std::string> merged;
  if (Result<std::optional<std::vector<std::string>>> m =
          MergeFromFigure(argc, argv, kFigureFlags, er);
      !m.ok()) {
    errors << "pe-explorer export: " << m.message() << "\n";
    exit_code = m.error().kind == Error::Kind::kInvalidArgument ? 2 : 1;
    return std::nullopt;
  } else if (m.value()) {
    merged = std::move(*m.value());
  }
  std::vector<const char*> merged_argv;
  for (const std::string& a : merged) merged_argv.push_back(a.c_str());
  if (!merged.empty()) {
    argc = static_cast<int>(merged_argv.size());
    argv = merged_argv.data();
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    exit_code = app.exit(e, std::cout, errors);
    return std::nullopt;
  } catch (const CLI::CallForAllHelp& e) {
    exit_code = app.exit(e, std::cout, errors);
    return std::nullopt;
  } catch (const CLI::CallForVersion& e) {
    exit_code = app.exit(e, std::cout, errors);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (const std::string m = MistypedCommand(argc, argv); !m.empty()) {
      errors << "pe-explorer: " << m << "\n";
      exit_code = 2;
      return std::nullopt;
    }
    // Flags out of place: each named with what is wrong and what was meant, instead of the
    // parser's list of the words it could not place.
    const std::string hints = UnknownFlagHints(app, argc, argv);
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && !hints.empty()) {
      std::istringstream lines(hints);
      for (std::string line; std::getline(lines, line);) errors << "pe-explorer: " << line << "\n";
      errors << "Run with --help for the options.\n";
    } else {
      errors << "pe-explorer: " << e.what() << "\n"
             << hints << "Run with --help for the options.\n";
    }
    exit_code = 2;
    return std::nullopt;
  }
  auto usage_error = [&](const std::string& message) {
    errors << "pe-explorer: " << FromFigureMessage(er, message) << "\n";
    exit_code = 2;
    return std::nullopt;
  };
  cl.mode = exp->parsed()    ? RunMode::kExport
            : chk->parsed()  ? RunMode::kCheck
            : desc->parsed() ? RunMode::kDescribe
            : tok->parsed()  ? RunMode::kTokenize
                             : RunMode::kWindow;
  if (cl.mode == RunMode::kTokenize) {
    for (const char* flag : kWindowFlags) {
      if (app.count(flag) > 0) {
        return usage_error(std::string(flag) +
                           " is a window option; `tokenize` never opens a window");
      }
    }
    tr.text_given = tok_text->count() > 0;
    exit_code = 0;
    return cl;
  }
  if (cl.mode == RunMode::kDescribe) {
    for (const char* flag : kWindowFlags) {
      if (app.count(flag) > 0) {
        return usage_error(std::string(flag) +
                           " is a window option; `describe` never opens a window");
      }
    }
    ModelParams& m = cl.params;
    for (const auto& [flag, value] :
         {std::pair<const char*, const std::string*>{"--model", &describe_model},
          {"--model-config", &describe_config},
          {"--layer", &describe_layer}}) {
      if (desc->count(flag) == 0) continue;
      if (Status s = FindParamField(flag)->set(m, *value); !s.ok()) return usage_error(s.message());
    }
    if (m.model_name.empty() && m.model_config.empty()) {
      return usage_error(
          "describe needs a model: --model NAME (pe-explorer export --list-models lists them) or "
          "--model-config FILE (a config.json or GGUF file)");
    }
    if (Status s = OpenModel(m); !s.ok()) {
      errors << "pe-explorer describe: " << s.message() << "\n";
      exit_code = s.error().kind == Error::Kind::kInvalidArgument ? 2 : 1;
      return std::nullopt;
    }
    cl.describe.json = describe_json;
    cl.describe.layer = desc->count("--layer") > 0 ? m.model_layer : -1;
    exit_code = 0;
    return cl;
  }
  if (cl.mode == RunMode::kCheck && (cr.list_cases || !cr.case_name.empty())) {
    if (!cr.table.empty() || !cr.inv_freq.empty() || !cr.rotated.empty()) {
      return usage_error(std::string(cr.list_cases ? "--list-cases" : "--case") +
                         " takes no table: the case makes its own");
    }
    for (const ParamField& f : ParamFields()) {
      const std::string flag(f.flag);
      if (f.key.empty() || f.flag == "--memory-cap-mib") continue;
      if (chk->count(flag) > 0 || app.count(flag) > 0) {
        return usage_error(flag + " does not apply to --case: the case gives what was meant");
      }
    }
    for (const char* flag : {"--model", "--model-config", "--layer", "--tolerance"}) {
      if (chk->count(flag) > 0 || (std::string(flag) != "--tolerance" && app.count(flag) > 0)) {
        return usage_error(std::string(flag) +
                           " does not apply to --case: the case gives what was meant");
      }
    }
    return cl;
  }
  if (cl.mode == RunMode::kCheck && cr.rotated.empty() != cr.unrotated.empty()) {
    return usage_error(std::string(cr.rotated.empty() ? "--unrotated" : "--rotated") + " needs " +
                       (cr.rotated.empty() ? "--rotated" : "--unrotated") +
                       ": the rotation is read from q before and after it");
  }
  if (cl.mode == RunMode::kCheck && !cr.rotated.empty() &&
      (!cr.table.empty() || !cr.inv_freq.empty())) {
    return usage_error(
        "check takes one input: a table, --inv-freq, or --rotated with "
        "--unrotated (got --rotated and " +
        std::string(cr.table.empty() ? "--inv-freq" : "a table") + ")");
  }
  if (cl.mode == RunMode::kCheck && !cr.inv_freq.empty() && !cr.table.empty()) {
    return usage_error("check takes a table or --inv-freq, not both (got \"" + cr.table +
                       "\" and --inv-freq \"" + cr.inv_freq + "\")");
  }
  if (cl.mode == RunMode::kCheck && cr.table.empty() && cr.inv_freq.empty() && cr.rotated.empty()) {
    return usage_error(
        "check needs the table to compare: pe-explorer check FILE.npy, or "
        "FILE.safetensors:TENSOR (a table of shape (L, d)), FILE.safetensors:COS,SIN, or "
        "--inv-freq FILE (a RoPE frequency vector)");
  }
  if (cl.mode == RunMode::kCheck) {
    for (const char* flag : kWindowFlags) {
      if (app.count(flag) > 0) {
        return usage_error(std::string(flag) + " is a window option; `check` never opens a window");
      }
    }
    for (const char* flag : {"--d-model", "--max-len"}) {
      if (chk->count(flag) > 0 || app.count(flag) > 0) {
        return usage_error(
            std::string(flag) + " does not apply to check: " +
            (!cr.inv_freq.empty()  ? std::string("the vector's length gives d (2 x length)")
             : !cr.rotated.empty() ? std::string("the inputs' shape (L, d) gives it")
                                   : std::string("the table's shape (L, d) gives it")) +
            (!cr.inv_freq.empty() ? std::string(", and a vector has no positions")
                                  : std::string()));
      }
    }
    if (chk->count("--tolerance") > 0) {
      Result<double> t = ParseNumber("--tolerance", cr.tolerance, "a finite number >= 0",
                                     [](double v) { return v >= 0; });
      if (!t.ok()) return usage_error(t.message());
    }
    // An intent: a model, or any parameter flag. Flags alone imply their scheme: the schemes
    // every scheme-specific flag given applies to, sinusoidal (the default) or else RoPE
    // first (--rope-theta means RoPE).
    const bool model = chk->count("--model") > 0 || app.count("--model") > 0 ||
                       chk->count("--model-config") > 0 || app.count("--model-config") > 0;
    unsigned schemes = kAllSchemes;
    for (const ParamField& f : ParamFields()) {
      const std::string flag(f.flag);
      if (chk->count(flag) == 0 && app.count(flag) == 0) continue;
      if (f.key.empty() || f.flag == "--memory-cap-mib") continue;
      cr.intent = true;
      schemes &= f.schemes;
    }
    cr.intent = cr.intent || model;
    const bool scheme_given = chk->count("--scheme") > 0 || app.count("--scheme") > 0;
    if (!scheme_given && !model && (!cr.inv_freq.empty() || !cr.rotated.empty())) {
      // A frequency vector is RoPE's: its flags mean RoPE whatever they also apply to.
      if (Status st = FindParamField("--scheme")->set(cl.params, "rope"); !st.ok()) {
        return usage_error(st.message());
      }
      if (cr.intent) cr.fixed_keys.emplace_back("scheme");
    } else if (!scheme_given && !model && schemes != 0 &&
               (schemes & SchemeBit(Scheme::kSinusoidal)) == 0) {
      const Scheme implied =
          (schemes & SchemeBit(Scheme::kRope)) != 0 ? Scheme::kRope : Scheme::kSinusoidal;
      if (implied == Scheme::kRope) {
        if (Status s = FindParamField("--scheme")->set(cl.params, "rope"); !s.ok()) {
          return usage_error(s.message());
        }
        cr.fixed_keys.emplace_back("scheme");
      }
    }
    if (model) {
      // The model fixes its layer's scheme and parameters and the first position 0 (which
      // part, cos or sin, is the table's own).
      const std::vector<std::string> keys = WholeIntentKeys();
      cr.fixed_keys.insert(cr.fixed_keys.end(), keys.begin(), keys.end());
    }
    for (const ParamField& f : ParamFields()) {
      const std::string flag(f.flag);
      if (chk->count(flag) == 0 && app.count(flag) == 0) continue;
      if (f.flag == "--preset") {
        // A preset fixes every sinusoidal parameter and the first position.
        for (const char* key :
             {"scheme", "variant", "order", "base", "min_timescale", "output_scale", "offset"}) {
          cr.fixed_keys.emplace_back(key);
        }
      } else if (!f.key.empty()) {
        cr.fixed_keys.emplace_back(f.key);
      }
    }
  }
  if (cl.mode == RunMode::kExport && cl.export_request.list_presets) {
    for (const SinusoidalPreset& p : SinusoidalPresets()) {
      std::cout << p.name << "\n  " << p.note << "\n  source: " << p.source << "\n";
    }
    std::cout << "\nwalkthrough presets (--walkthrough-preset NAME):\n";
    for (const WalkthroughPreset& p : WalkthroughPresets()) {
      std::cout << p.name << "\n  " << p.label << " (" << WalkthroughKindName(PresetWalkthrough(p))
                << " walkthrough)\n  source: " << p.source << "\n";
    }
    exit_code = 0;
    return std::nullopt;
  }
  if (cl.mode == RunMode::kExport && list_models) {
    for (const CatalogueEntry& e : ModelCatalogue()) {
      std::cout << e.name << "\t" << e.title << "\t" << e.source << "\n";
    }
    exit_code = 0;
    return std::nullopt;
  }
  if (cl.mode == RunMode::kExport && list_figures) {
    for (const GalleryFigure& f : GalleryFigures()) {
      std::cout << f.name << "\t" << f.description << "\t" << f.source << "\n";
    }
    exit_code = 0;
    return std::nullopt;
  }
  if (cl.mode == RunMode::kExport && cl.export_request.output.empty()) {
    return usage_error(
        "export needs -o,--output FILE (or --list-presets, --list-models, --list-figures)");
  }
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
    // The ranges of ValidateFigureSize (which checks the window's exports and the pixel count),
    // here so that the message repeats the text given.
    Result<int64_t> w = ParseInteger("--width", width, 120, 10000);
    if (!w.ok()) return usage_error(w.message());
    Result<int64_t> h = ParseInteger("--height", height, 90, 10000);
    if (!h.ok()) return usage_error(h.message());
    Result<double> fs = ParseFontSize(font_size);
    if (!fs.ok()) return usage_error(fs.message());
    Result<bool> outlines = ParseSvgText(svg_text);
    if (!outlines.ok()) return usage_error(outlines.message());
    er.font_size = fs.value();
    er.svg_outlines = outlines.value();
    Result<double> sc = ParseNumber("--scale", scale, "a number in [0.25, 8]",
                                    [](double v) { return v >= 0.25 && v <= 8; });
    if (!sc.ok()) return usage_error(sc.message());
    er.width = static_cast<double>(w.value());
    er.height = static_cast<double>(h.value());
    er.scale = sc.value();
    for (const std::string& flag : ExportSelectionFlags()) {
      if (exp->count(flag) > 0) er.given.push_back(flag);
    }
    if (std::string why = FlagNotForView(*exp, app, er); !why.empty()) return usage_error(why);
    if (Status s = CheckText("--title", er.title); !s.ok()) return usage_error(s.message());
  }
  CLI::App& flags_app = cl.mode == RunMode::kExport  ? *exp
                        : cl.mode == RunMode::kCheck ? *chk
                                                     : app;
  if (int code = BuildParams(flags_app, cl.mode == RunMode::kWindow ? nullptr : &app, flags,
                             cl.params, er, errors);
      code != 0) {
    exit_code = code;
    return std::nullopt;
  }
  if (cl.mode == RunMode::kWindow) {
    cl.window.size_given = app.count("--size") > 0;
    const auto fields = ParamFields();
    for (size_t k = 0; k < fields.size(); ++k) {
      const bool given =
          fields[k].is_switch() ? flags.switches[k] : app.count(std::string(fields[k].flag)) > 0;
      // The memory cap is no parameter of a session: it bounds the one opened or restored.
      if (fields[k].flag == "--memory-cap-mib") continue;
      cl.window.params_given = cl.window.params_given || given;
    }
    cl.window.params_given = cl.window.params_given || !flags.vocab_file.empty();
  }
  if (cl.mode == RunMode::kWindow && !cl.window.open.empty()) {
    // A mistyped command would be taken for a file to open.
    if (const std::string m = MistypedCommand(argc, argv); !m.empty()) return usage_error(m);
    // The file says every parameter; flags beside it would be silently outvoted.
    if (cl.window.params_given) {
      return usage_error("\"" + cl.window.open +
                         "\" sets every parameter, so parameter flags beside it would be "
                         "ignored: open it and change them in the window, or draw it with other "
                         "ones with `pe-explorer export --from FILE [flags] -o OUT`");
    }
  }
  if (cl.mode == RunMode::kWindow && app.count("--screenshot") > 0 &&
      FileExtension(cl.window.screenshot) != "png") {
    return usage_error("--screenshot writes a PNG: give a .png file name, got \"" +
                       cl.window.screenshot + "\"");
  }
  if (cl.mode == RunMode::kWindow && app.count("--tab") > 0) {
    std::optional<ViewKind> tab = ParseView(cl.window.tab);
    if (!tab) {
      std::vector<std::string> names;
      for (const ViewEntry& v : Views()) names.emplace_back(v.name);
      return usage_error("--tab must be a view name (see export --help), got \"" + cl.window.tab +
                         "\"" + DidYouMean(cl.window.tab, names));
    }
    if (Status s = CheckViewApplies(*tab, cl.params); !s.ok()) {
      return usage_error("--tab: " + s.message());
    }
  }
  if (cl.mode == RunMode::kWindow) {
    const size_t x = size.find('x');
    Result<int64_t> w = ParseInteger("--size width", size.substr(0, x), 320, 8192);
    Result<int64_t> h =
        ParseInteger("--size height", x == std::string::npos ? "" : size.substr(x + 1), 240, 8192);
    if (!w.ok() || !h.ok()) {
      return usage_error("--size must be WxH with W in [320, 8192] and H in [240, 8192], got \"" +
                         size + "\"");
    }
    cl.window.width = static_cast<int>(w.value());
    cl.window.height = static_cast<int>(h.value());
    Result<double> ui_scale_value =
        ParseNumber("--ui-scale", ui_scale, "a number from 0.5 to 3 (1 = normal size)",
                    [](double v) { return v >= kMinUiScale && v <= kMaxUiScale; });
    if (!ui_scale_value.ok()) return usage_error(ui_scale_value.message());
    cl.window.ui_scale = static_cast<float>(ui_scale_value.value());
    if (theme != "dark" && theme != "light") {
      return usage_error("--theme must be dark or light, got \"" + theme + "\"" +
                         DidYouMean(theme, {"dark", "light"}));
    }
    cl.window.light_theme = theme == "light";
    cl.window.ui_scale_given = app.count("--ui-scale") > 0;
    cl.window.theme_given = app.count("--theme") > 0;
    Result<int64_t> n = ParseInteger("--frames", frames, 1, 100000);
    if (!n.ok()) return usage_error(n.message());
    cl.window.frames = static_cast<int>(n.value());
    if (app.count("--frame-stats") > 0) {
      Result<int64_t> stats = ParseInteger("--frame-stats", frame_stats, 1, 100000);
      if (!stats.ok()) return usage_error(stats.message());
      cl.window.frame_stats = static_cast<int>(stats.value());
    }
  }
  exit_code = 0;
  return cl;
}

}  // namespace pe
