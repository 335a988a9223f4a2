#include "views/figure_command.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "arch/model_choice.h"
#include "model/param_fields.h"
#include "views/figure_export.h"
#include "views/figure_paths.h"
#include "views/view_registry.h"

namespace pe {
namespace {

// What a switch's field reads as when the switch is given ("off" for --no-scale).
std::string SwitchOnValue(const ParamField& f) {
  ModelParams m;
  for (Scheme s : kAllSchemeKinds) {
    if (f.schemes & SchemeBit(s)) {
      SetScheme(m, s);
      break;
    }
  }
  if (!f.set(m, "true").ok()) return "true";
  return f.get(m);
}

// The selection and size keys, with the flag each becomes.
struct SelectionKey {
  std::string key, flag;
};
// In the order of the flags they become: the token, each view's window, the rest.
std::vector<SelectionKey> SelectionKeys() {
  std::vector<SelectionKey> keys = {{"token", "--token"}};
  for (ViewKind k : WindowOwners()) keys.push_back({std::string(WindowKeyName(k)), WindowFlag(k)});
  for (const char* key : {"batch_row", "walkthrough_step", "rotation_position", "width", "height",
                          "scale", "title", "font_size", "svg_text"}) {
    std::string flag = "--" + std::string(key);
    std::replace(flag.begin(), flag.end(), '_', '-');
    keys.push_back({key, flag});
  }
  return keys;
}

std::vector<int64_t> VersionParts(const std::string& v, bool& ok) {
  std::vector<int64_t> parts;
  ok = !v.empty();
  size_t at = 0;
  while (ok && at <= v.size()) {
    size_t dot = v.find('.', at);
    if (dot == std::string::npos) dot = v.size();
    int64_t n = -1;
    auto [p, ec] = std::from_chars(v.data() + at, v.data() + dot, n);
    ok = ec == std::errc() && p == v.data() + dot && n >= 0;
    parts.push_back(n);
    at = dot + 1;
  }
  return parts;
}

}  // namespace

bool VersionNewer(const std::string& a, const std::string& b) {
  bool ok_a = false, ok_b = false;
  std::vector<int64_t> pa = VersionParts(a, ok_a), pb = VersionParts(b, ok_b);
  pa.resize(std::max(pa.size(), pb.size()), 0);
  pb.resize(pa.size(), 0);
  return pa > pb;
}

Result<std::vector<CommandFlag>> FlagsFromMetadata(
    const std::vector<std::pair<std::string, std::string>>& entries,
    const std::string& this_version) {
  std::map<std::string, std::string> values(entries.begin(), entries.end());
  const std::vector<SelectionKey> selection_keys = SelectionKeys();
  auto it = values.find("app_version");
  if (it == values.end()) return InvalidArgument("has no app_version in its metadata");
  bool ok = false;
  VersionParts(it->second, ok);
  if (!ok) {
    return InvalidArgument("has app_version \"" + it->second + "\", which is not a version");
  }
  if (VersionNewer(it->second, this_version)) {
    return InvalidArgument("was written by PE Explorer " + it->second + ", newer than this " +
                           this_version +
                           ": its parameters may mean something this version "
                           "does not know; open it with that version or newer");
  }
  // Every key must be one this version writes. The drawn ranges are not read back (the windows
  // are), but a figure whose ranges are not two finite numbers is not one this app wrote.
  for (const auto& [key, value] : entries) {
    if (key == "x_range" || key == "y_range") {
      const size_t colon = value.find(':');
      double a = NAN, b = NAN;
      if (colon != std::string::npos) {
        const char* t = value.c_str();
        auto [pa, ea] = std::from_chars(t, t + colon, a);
        auto [pb, eb] = std::from_chars(t + colon + 1, t + value.size(), b);
        if (ea != std::errc() || pa != t + colon || eb != std::errc() || pb != t + value.size()) {
          a = NAN;
        }
      }
      if (!std::isfinite(a) || !std::isfinite(b)) {
        return InvalidArgument("has metadata " + key + " \"" + value +
                               "\", which is not A:B, two finite numbers");
      }
    }
    if (key == "view" || key == "app_version" || key == "x_range" || key == "y_range" ||
        key == "highlight" || key == "markers" || key == "walkthrough_preset" ||
        key == "model_modified") {
      continue;
    }
    bool known = false;
    for (const SelectionKey& s : selection_keys) known = known || s.key == key;
    const ParamField* f = FindParamField(key);
    known = known || (f != nullptr && f->key == key) || IsAbsoluteFileKey(key);
    if (!known) {
      return InvalidArgument("has the unknown metadata key \"" + key +
                             "\" (not one this version of PE Explorer writes)");
    }
  }
  std::vector<CommandFlag> out;
  it = values.find("view");
  if (it == values.end()) return InvalidArgument("has no view in its metadata");
  out.push_back({"--view", it->second, false, "view"});
  if (auto w = values.find("walkthrough_preset"); w != values.end()) {
    out.push_back({"--walkthrough-preset", w->second, false, "walkthrough_preset"});
  }
  // Figures written before other views left out the keys of one view may hold a --versus that
  // no longer applies to their scheme, or a query past their table: not read for them.
  for (const ParamField& f : ParamFields()) {
    if (f.key.empty() || OnlyOtherViewsRead(f.key, it->second)) continue;
    auto v = values.find(std::string(f.key));
    if (v == values.end()) continue;
    // A model's config file is not read again: the figure's parameters give its numbers, and a
    // built-in model (--model) its layers. So its layer is not given either.
    if (f.key == "model_config" || (f.key == "layer" && values.count("model") == 0)) continue;
    if (f.is_switch()) {
      if (v->second == SwitchOnValue(f)) out.push_back({std::string(f.flag), "", true, v->first});
    } else {
      out.push_back({std::string(f.flag), v->second, false, v->first});
    }
  }
  for (const SelectionKey& s : selection_keys) {
    auto v = values.find(std::string(s.key));
    if (v == values.end()) continue;
    if (s.key == "batch_row" && v->second == "0") continue;  // also the only row of one
    out.push_back({std::string(s.flag), v->second, false, v->first});
  }
  // --token outlines the token in the heatmap and curves unless --no-highlight.
  if (auto h = values.find("highlight"); h != values.end()) {
    const bool token_given = values.count("token") > 0;
    if (h->second == "true" && !token_given) out.push_back({"--highlight", "", true, "highlight"});
    if (h->second == "false" && token_given) {
      out.push_back({"--no-highlight", "", true, "highlight"});
    }
  }
  if (auto m = values.find("markers"); m != values.end() && m->second == "false") {
    out.push_back({"--no-markers", "", true, "markers"});
  }
  return out;
}

std::vector<CommandFlag> ExportCommandFlags(ViewKind view, const ModelParams& params,
                                            const ViewSelection& sel, const FigureSize& size,
                                            const std::string& title, const EncodingPtr& built) {
  // One encoding for the defaults and both metadata lists (each would build its own).
  Result<EncodingPtr> e = ReuseOrMakeEncoding(params.pe, params.cap, built);
  const EncodingPtr encoding = e.ok() ? e.value() : nullptr;
  const ViewSelection default_sel = encoding ? DefaultViews(params, *encoding) : ViewSelection{};
  auto metadata = FigureMetadata(view, params, sel, size, title, nullptr, encoding);
  // Without the highlight key, so --token alone decides it; added back below.
  std::erase_if(metadata, [](const auto& kv) { return kv.first == "highlight"; });
  Result<std::vector<CommandFlag>> all = FlagsFromMetadata(metadata, PE_VERSION);
  if (!all.ok()) return {{"--view", std::string(ViewName(view)), false, "view"}};
  const std::map<std::string, std::string> defaults_sel = [&] {
    auto d = FigureMetadata(view, params, default_sel, FigureSize{}, "", nullptr, encoding);
    return std::map<std::string, std::string>(d.begin(), d.end());
  }();
  ModelParams scheme_defaults;
  SetScheme(scheme_defaults, params.pe.kind());
  // From a model, the command names it and its layer, which set the rest: a parameter is left
  // out when it is the layer's (as opening the model gives it), not the scheme's default.
  // (A scheme other than the layer's is given with --scheme and compared with its defaults.)
  bool from_model = false;
  if (params.model && params.model_layer >= 0) {
    ModelParams layer;
    layer.pe.max_len = ModelDefaultRows(*params.model, params.model_layer);
    from_model = ApplyLayer(*params.model, params.model_layer, layer).ok() &&
                 layer.pe.kind() == params.pe.kind();
    if (from_model) scheme_defaults = std::move(layer);
  }
  const auto dv = ParamValues(scheme_defaults);
  std::map<std::string, std::string> defaults_params(dv.begin(), dv.end());
  // Fields that apply only once another of the scheme's parameters is set (YaRN's betas under
  // --rope-scaling yarn) have defaults too: the scheme's, so they are left out when unchanged.
  for (const ParamField& f : ParamFields()) {
    if (f.key.empty() || defaults_params.count(std::string(f.key)) > 0 ||
        !f.WhyNotApplicable(params).empty()) {
      continue;
    }
    defaults_params[std::string(f.key)] = f.get(scheme_defaults);
  }
  // The scheme's own parameters are its defaults once --scheme is given; the scheme is not.
  for (const auto& [k, v] : ParamValues(ModelParams{})) {
    if (k == "scheme" && !from_model) defaults_params[k] = v;
  }
  std::vector<CommandFlag> out;
  bool token_given = false;
  for (CommandFlag& f : all.value()) {
    const ParamField* field = FindParamField(f.key);
    const bool is_param = field != nullptr && field->key == f.key;
    const std::map<std::string, std::string>& defaults = is_param ? defaults_params : defaults_sel;
    const std::string value = [&] {
      for (const auto& [k, v] : metadata) {
        if (k == f.key) return v;
      }
      return std::string();
    }();
    auto d = defaults.find(f.key);
    const bool is_default = d != defaults.end() && d->second == value;
    if (f.key == "view" || f.key == "walkthrough_preset" || f.key == "markers" || !is_default) {
      if (f.key == "token") token_given = true;
      out.push_back(std::move(f));
    }
  }
  if (view == ViewKind::kHeatmap || view == ViewKind::kCurves) {
    if (sel.highlight && !token_given) out.push_back({"--highlight", "", true, "highlight"});
    if (!sel.highlight && token_given) out.push_back({"--no-highlight", "", true, "highlight"});
  }
  return out;
}

std::string ShellQuote(const std::string& text) {
  bool safe = !text.empty();
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    safe = safe && ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
                    std::string_view("-_.,:/+=%@").find(c) != std::string_view::npos);
  }
  if (safe) return text;
  if (text.find_first_of("\n\r\t") != std::string::npos) {
    // A text of several lines stays one command line: bash's $'...' with \n, \r and \t.
    std::string out = "$'";
    for (char c : text) {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == '\\' || c == '\'') {
        out += '\\';
        out += c;
      } else {
        out += c;
      }
    }
    return out + "'";
  }
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\"'\"'";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

std::string ExportCommandLine(ViewKind view, const ModelParams& params, const ViewSelection& sel,
                              const FigureSize& size, const std::string& title,
                              const std::string& output, const EncodingPtr& built) {
  std::string line = "pe-explorer export";
  for (const CommandFlag& f : ExportCommandFlags(view, params, sel, size, title, built)) {
    line += ' ';
    line += f.flag;
    if (!f.is_switch) {
      line += ' ';
      line += ShellQuote(f.value);
    }
  }
  line += " -o ";
  line += ShellQuote(output);
  return line;
}

}  // namespace pe
