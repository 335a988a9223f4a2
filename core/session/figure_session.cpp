#include "session/figure_session.h"

#include <algorithm>

#include "io/figure_metadata_reader.h"
#include "io/file_writers.h"
#include "model/param_fields.h"
#include "session/export_selection.h"
#include "text/tokenizer.h"
#include "views/figure_paths.h"
#include "views/view_registry.h"

namespace pe {

Result<FigureFlags> ReadFigureFlags(const std::string& path) {
  Result<FigureFileMetadata> metadata = ReadFigureMetadata(path);
  if (!metadata.ok()) return metadata.error();
  Result<std::vector<CommandFlag>> flags = FlagsFromMetadata(metadata.value().entries, PE_VERSION);
  if (!flags.ok()) return InvalidArgument("\"" + path + "\" " + flags.message());
  // Table files named by relative paths: beside the figure, else where they were read from.
  ResolveFigureFiles(flags.value(), metadata.value().entries, path);
  FigureFlags out;
  out.flags = std::move(flags).value();
  for (const CommandFlag& f : out.flags) {
    // As the file shows the key: a PNG's tEXt keyword, an SVG's or PDF's item name.
    out.shown_keys.push_back((metadata.value().format == FigureFileFormat::kPng ? "pe:" : "") +
                             f.key);
  }
  return out;
}

Result<FigureSession> ReadFigureSession(const std::string& path, const MemoryCap& cap,
                                        const Progress& progress) {
  const std::string ext = FileExtension(path);
  if (ext != "png" && ext != "svg" && ext != "pdf") {
    return InvalidArgument("\"" + path + "\" is not a figure (.png, .svg or .pdf)");
  }
  Result<FigureFlags> read = ReadFigureFlags(path);
  if (!read.ok()) {
    const Error& e = read.error();
    return Error{e.kind == Error::Kind::kInvalidArgument ? e.kind : Error::Kind::kRuntime,
                 e.message};
  }
  return FigureSessionFromFlags(read.value(), path, ext, cap, progress);
}

Result<FigureSession> FigureSessionFromFlags(const FigureFlags& figure, const std::string& path,
                                             const std::string& ext, const MemoryCap& cap,
                                             const Progress& progress) {
  // The request and parameter values the flags give, as `export --from` takes them.
  ExportRequest request;
  request.from = path;
  request.output = "figure." + ext;
  std::string width = "960", height = "540", scale = "1", font_size = "12", svg_text = "text";
  std::vector<std::pair<std::string, std::string*>> texts = {
      {"--view", &request.view},
      {"--font-size", &font_size},
      {"--svg-text", &svg_text},
      {"--width", &width},
      {"--height", &height},
      {"--scale", &scale},
      {"--title", &request.title},
      {"--positions", &request.positions},
      {"--dim-range", &request.dim_range},
      {"--token", &request.token},
      {"--batch-row", &request.batch_row},
      {"--rotation-position", &request.rotation_position},
      {"--walkthrough-step", &request.walkthrough_step}};
  for (ViewKind k : WindowOwners()) texts.emplace_back(WindowFlag(k), &request.windows[k]);
  const std::pair<const char*, bool*> switches[] = {{"--highlight", &request.highlight},
                                                    {"--no-highlight", &request.no_highlight},
                                                    {"--no-markers", &request.no_markers}};
  // (flag, value) of the parameter fields given; the memory cap is the caller's.
  std::vector<CommandFlag> params_given = {
      {"--memory-cap-mib", std::to_string(cap.bytes >> 20), false, ""}};
  const std::vector<std::string> selection_flags = ExportSelectionFlags();
  for (size_t k = 0; k < figure.flags.size(); ++k) {
    const CommandFlag& f = figure.flags[k];
    request.from_keys.emplace_back(f.flag, figure.shown_keys[k]);
    bool taken = false;
    for (const auto& [flag, value] : texts) {
      if (f.flag == flag) *value = f.value, taken = true;
    }
    for (const auto& [flag, value] : switches) {
      if (f.flag == flag) *value = true, taken = true;
    }
    for (const std::string& flag : selection_flags) {
      if (f.flag == flag) request.given.push_back(flag);
    }
    if (taken) continue;
    const ParamField* field = FindParamField(f.flag);
    if (field == nullptr || field->flag != f.flag) {
      return InvalidArgument("\"" + path + "\" has the flag " + f.flag +
                             ", which `export` does not take");
    }
    params_given.push_back(f);
  }
  auto fail = [&request](const std::string& message,
                         Error::Kind kind = Error::Kind::kInvalidArgument) -> Error {
    return Error{kind, FromFigureMessage(request, message)};
  };
  // The size as `export` checks it, so that the message repeats the text.
  Result<int64_t> w = ParseInteger("--width", width, 120, 10000);
  if (!w.ok()) return fail(w.message());
  Result<int64_t> h = ParseInteger("--height", height, 90, 10000);
  if (!h.ok()) return fail(h.message());
  Result<double> fs = ParseFontSize(font_size);
  if (!fs.ok()) return fail(fs.message());
  Result<bool> outlines = ParseSvgText(svg_text);
  if (!outlines.ok()) return fail(outlines.message());
  request.font_size = fs.value();
  request.svg_outlines = outlines.value();
  Result<double> sc = ParseNumber("--scale", scale, "a number in [0.25, 8]",
                                  [](double v) { return v >= 0.25 && v <= 8; });
  if (!sc.ok()) return fail(sc.message());
  request.width = static_cast<double>(w.value());
  request.height = static_cast<double>(h.value());
  request.scale = sc.value();
  if (Status s = CheckText("--title", request.title); !s.ok()) return fail(s.message());
  // The parameters, in the field table's order (the memory cap and the scheme first).
  ModelParams p;
  auto value_of = [&params_given](const ParamField& field) -> const CommandFlag* {
    for (const CommandFlag& f : params_given) {
      if (f.flag == field.flag) return &f;
    }
    return nullptr;
  };
  const auto fields = ParamFields();
  for (const ParamField& field : fields) {
    const CommandFlag* given = value_of(field);
    if (given == nullptr) continue;
    if (std::string why = field.WhyNotApplicable(p); !why.empty()) return fail(why);
    if (Status s = field.set(p, field.is_switch() ? "true" : given->value); !s.ok()) {
      return fail(s.message());
    }
  }
  // The files the flags name, read once every flag is set.
  if (Status s = LoadParamFiles(p, progress); !s.ok()) return fail(s.message());
  // A loaded table fixes d_model, max_len's limit and T5's heads and buckets; those flags were
  // applied before it, so they are checked again now.
  for (const ParamField& field : fields) {
    if (field.flag != "--d-model" && field.flag != "--max-len" && field.flag != "--heads" &&
        field.flag != "--t5-buckets") {
      continue;
    }
    const CommandFlag* given = value_of(field);
    if (given == nullptr || !field.WhyNotApplicable(p).empty()) continue;
    if (Status s = field.set(p, given->value); !s.ok()) return fail(s.message());
  }
  if (Status s = ValidateEncodingParams(p.pe); !s.ok()) return fail(s.message());
  if (Status s = CheckLoadedTables(p); !s.ok()) return fail(s.message());
  if (Status s = ValidateInputLayerParams(p.input); !s.ok()) return fail(s.message());
  Result<ViewSelection> views = ExportSelection(p, request, nullptr);
  if (!views.ok()) {
    // Named by the metadata key when it is about one, else by the file.
    const std::string said = FromFigureMessage(request, views.message());
    return InvalidArgument(said != views.message() ? said : "\"" + path + "\": " + said);
  }
  FigureSession out;
  out.view = *ParseView(request.view);
  out.params = std::move(p);
  out.views = views.value();
  out.size = {request.width, request.height, request.scale, request.font_size,
              request.svg_outlines};
  out.title = request.title;
  return out;
}

}  // namespace pe
