// The figure writers: one page as PNG or SVG, one or more pages as PDF, through a cairo surface
// whose bytes go to a stream, with the figure's metadata embedded.
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <zlib.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <memory>

#include "figure/figure_render.h"
#include "figure/figure_render_internal.h"
#include "io/figure_metadata_reader.h"

namespace pe {

using namespace figure_internal;

Status RenderFigure(const Figure& figure, FigureFormat format, const FigureSize& size,
                    std::ostream& out) {
  return RenderFigurePages(std::span<const Figure>(&figure, 1), format, size, out);
}

Status RenderFigurePages(std::span<const Figure> pages, FigureFormat format, const FigureSize& size,
                         std::ostream& out) {
  if (Status s = ValidateFigureSize(size); !s.ok()) return s;
  if (pages.empty()) return InvalidArgument("a figure needs at least one page");
  if (pages.size() > 1 && format != FigureFormat::kPdf) {
    return InvalidArgument("a figure of " + std::to_string(pages.size()) +
                           " pages can only be written as PDF: use a .pdf file name");
  }
  const Figure& figure = pages.front();
  std::string bytes;
  cairo_surface_t* surface = nullptr;
  switch (format) {
    case FigureFormat::kPng:
      surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32,
                                           static_cast<int>(std::lround(size.width * size.scale)),
                                           static_cast<int>(std::lround(size.height * size.scale)));
      break;
    case FigureFormat::kSvg:
      surface =
          cairo_svg_surface_create_for_stream(AppendToString, &bytes, size.width, size.height);
      cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX);
      break;
    case FigureFormat::kPdf: {
      surface =
          cairo_pdf_surface_create_for_stream(AppendToString, &bytes, size.width, size.height);
      cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, figure.title.c_str());
      cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_SUBJECT, Describe(figure).c_str());
      // The keywords end with the metadata again, machine-readable: "pe-figure:" and
      // percent-encoded KEY=VALUE items separated by spaces (read back by ReadFigureMetadata).
      std::string keywords =
          "positional encoding; " + MetadataValue(figure, "view") + "; pe-figure:";
      for (size_t k = 0; k < figure.metadata.size(); ++k) {
        if (k > 0) keywords += ' ';
        keywords += PercentEncode(figure.metadata[k].first) + "=" +
                    PercentEncode(figure.metadata[k].second);
      }
      cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_KEYWORDS, keywords.c_str());
      cairo_pdf_surface_set_metadata(
          surface, CAIRO_PDF_METADATA_CREATOR,
          ("PE Explorer " + MetadataValue(figure, "app_version")).c_str());
      {
        // The same figure gives the same bytes: the dates are SOURCE_DATE_EPOCH's, else the
        // epoch itself, never the clock (cairo would write the time of the export).
        const char* epoch = std::getenv("SOURCE_DATE_EPOCH");
        const std::time_t t =
            epoch != nullptr ? static_cast<std::time_t>(std::strtoll(epoch, nullptr, 10)) : 0;
        std::tm tm{};
        gmtime_r(&t, &tm);
        char iso[32];
        std::strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, iso);
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_MOD_DATE, iso);
      }
      break;
    }
  }
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> owner(surface,
                                                                           cairo_surface_destroy);
  if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
    return RuntimeError(std::string("cannot create the figure: ") +
                        cairo_status_to_string(cairo_surface_status(surface)));
  }
  cairo_t* cr = cairo_create(surface);
  if (format == FigureFormat::kPng) cairo_scale(cr, size.scale, size.scale);
  // SVG: the text as <text> elements (figure_svg_text.cpp), unless outlines are asked for.
  std::vector<SvgText> svg_text;
  if (format == FigureFormat::kSvg && !size.svg_outlines) g_svg_text = &svg_text;
  for (size_t k = 0; k < pages.size(); ++k) {
    if (k > 0) cairo_show_page(cr);  // PDF: the next page, same size
    cairo_save(cr);
    FontScope scope(size.font_pt);
    Draw(cr, pages[k], size, format);
    cairo_restore(cr);
  }
  g_svg_text = nullptr;
  const cairo_status_t draw_status = cairo_status(cr);
  cairo_destroy(cr);
  if (draw_status != CAIRO_STATUS_SUCCESS) {
    return RuntimeError(std::string("drawing the figure failed: ") +
                        cairo_status_to_string(draw_status));
  }
  if (format == FigureFormat::kPng) {
    if (cairo_surface_write_to_png_stream(surface, AppendToString, &bytes) !=
        CAIRO_STATUS_SUCCESS) {
      return RuntimeError("PNG encoding failed");
    }
    std::vector<std::pair<std::string, std::string>> text = {
        {"Title", figure.title},
        {"Software", "PE Explorer " + MetadataValue(figure, "app_version")},
        {"Description", Describe(figure)}};
    for (const auto& [k, v] : figure.metadata) text.emplace_back("pe:" + k, v);
    bytes = WithPngText(bytes, text);
  } else {
    cairo_surface_finish(surface);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
      return RuntimeError(std::string("writing the figure failed: ") +
                          cairo_status_to_string(cairo_surface_status(surface)));
    }
    if (format == FigureFormat::kSvg) {
      bytes = WithSvgMetadata(std::move(bytes), figure);
      if (!size.svg_outlines) bytes = WithSvgText(std::move(bytes), svg_text);
    }
  }
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out ? Status() : RuntimeError("writing the figure failed");
}

}  // namespace pe
