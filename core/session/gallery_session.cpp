#include "session/gallery_session.h"

#include <algorithm>
#include <string>

#include "model/param_fields.h"

namespace pe {

std::vector<CommandFlag> GalleryCommandFlags(const GalleryFigure& figure) {
  std::vector<CommandFlag> out;
  const auto& f = figure.flags;
  for (size_t k = 0; k < f.size(); ++k) {
    CommandFlag c;
    c.flag = std::string(f[k]);
    // The metadata key: the parameter field's, else the flag's words joined by '_' ("view").
    const ParamField* field = FindParamField(c.flag);
    if (field != nullptr && !field->key.empty()) {
      c.key = std::string(field->key);
    } else {
      c.key = c.flag.substr(2);
      std::replace(c.key.begin(), c.key.end(), '-', '_');
    }
    const bool has_value = k + 1 < f.size() && f[k + 1].rfind("--", 0) != 0;
    if (has_value) {
      c.value = std::string(f[++k]);
    } else {
      c.is_switch = true;
    }
    out.push_back(std::move(c));
  }
  return out;
}

Result<FigureSession> GalleryFigureSession(std::string_view name, const MemoryCap& cap) {
  const GalleryFigure* figure = FindGalleryFigure(name);
  if (figure == nullptr) {
    return InvalidArgument("--figure must be a gallery figure (" + GalleryNames() + "), got \"" +
                           std::string(name) + "\"");
  }
  FigureFlags flags;
  flags.flags = GalleryCommandFlags(*figure);
  for (const CommandFlag& f : flags.flags) flags.shown_keys.push_back(f.flag);
  return FigureSessionFromFlags(flags, "gallery figure " + std::string(name), "png", cap);
}

}  // namespace pe
