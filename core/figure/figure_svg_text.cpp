// The text of an SVG figure as <text> elements (editable and searchable in Inkscape and
// Illustrator): cairo's SVG surface writes every glyph as an outline, so the renderer draws
// everything but text with cairo and records each text (Text, figure_text_layout.cpp) with its
// transformation, colour, font and spans, placed from the same measurements as the glyphs of
// the PNG and PDF; this writes them after cairo's drawing (text is drawn over the data there
// too). `--svg-text outlines` keeps cairo's outlines instead.
#include <cstdio>
#include <string>

#include "figure/figure_render_internal.h"

namespace pe::figure_internal {
namespace {

// A number for an attribute: at most 4 decimals, no trailing zeros ("12", "3.5", "-0.25").
std::string Num(double v) {
  if (v > -5e-5 && v < 5e-5) return "0";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

int Channel(double v) {
  return static_cast<int>(v * 255 + 0.5);
}

}  // namespace

std::string WithSvgText(std::string svg, const std::vector<SvgText>& texts) {
  std::string out = "<g id=\"text\">\n";
  for (const SvgText& t : texts) {
    if (t.spans.empty()) continue;
    const SvgText::Span& first = t.spans.front();
    out += "<text xml:space=\"preserve\" transform=\"matrix(";
    for (int k = 0; k < 6; ++k) {
      if (k > 0) out += ' ';
      out += Num(t.matrix[k]);
    }
    // (Appended piece by piece: GCC 12 warns of an overlap that cannot happen in "a" + s.)
    out.append(")\" font-family=\"").append(Escape(first.family));
    out.append("\" font-size=\"").append(Num(first.size)).append("\"");
    if (first.bold) out.append(" font-weight=\"bold\"");
    out.append(" fill=\"rgb(").append(std::to_string(Channel(t.r))).append(",");
    out.append(std::to_string(Channel(t.g))).append(",").append(std::to_string(Channel(t.b)));
    out.append(")\"");
    if (t.a < 1) out.append(" fill-opacity=\"").append(Num(t.a)).append("\"");
    out.append(">");
    for (const SvgText::Span& s : t.spans) {
      out.append("<tspan x=\"").append(Num(s.x)).append("\" y=\"").append(Num(-s.rise));
      out.append("\"");
      if (s.family != first.family)
        out.append(" font-family=\"").append(Escape(s.family)).append("\"");
      if (s.size != first.size) out.append(" font-size=\"").append(Num(s.size)).append("\"");
      out.append(">").append(Escape(s.text)).append("</tspan>");
    }
    out += "</text>\n";
  }
  out += "</g>\n";
  const size_t end = svg.rfind("</svg>");
  svg.insert(end == std::string::npos ? svg.size() : end, out);
  return svg;
}

}  // namespace pe::figure_internal
