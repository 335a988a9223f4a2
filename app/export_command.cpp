#include "export_command.h"

#include <charconv>
#include <cmath>
#include <iostream>

#include "figure_export.h"

namespace pe {
namespace {

// "A:B" with A < B, both finite, inside [lo, hi].
Result<std::pair<double, double>> ParseRange(const std::string& flag, const std::string& text,
                                             double lo, double hi) {
  const size_t colon = text.find(':');
  double a = NAN, b = NAN;
  if (colon != std::string::npos) {
    const char* s = text.c_str();
    auto [pa, ea] = std::from_chars(s, s + colon, a);
    auto [pb, eb] = std::from_chars(s + colon + 1, s + text.size(), b);
    if (ea != std::errc() || pa != s + colon || eb != std::errc() || pb != s + text.size()) a = NAN;
  }
  if (!(a < b) || !std::isfinite(a) || !std::isfinite(b) || a < lo || b > hi) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s must be A:B with %.10g <= A < B <= %.10g, got \"%s\"",
                  flag.c_str(), lo, hi, text.c_str());
    return InvalidArgument(buf);
  }
  return std::make_pair(a, b);
}

}  // namespace

int RunExport(const ModelParams& params, const ExportRequest& request) {
  auto fail = [](const Error& e) {
    std::cerr << "pe-explorer export: " << e.message << "\n";
    return e.kind == Error::Kind::kInvalidArgument ? 2 : 1;
  };
  std::optional<ViewKind> view = ParseView(request.view);
  if (!view) {
    return fail(
        InvalidArgument("--view must be heatmap, curves or sum, got \"" + request.view + "\""));
  }
  ViewSelection sel = DefaultViews(params);
  sel.markers = !request.no_markers;
  const PeParams& p = params.pe;
  const double first = static_cast<double>(p.offset), end = first + static_cast<double>(p.max_len);
  if (!request.positions.empty()) {
    Result<std::pair<double, double>> r = ParseRange("--positions", request.positions, first, end);
    if (!r.ok()) return fail(r.error());
    sel.heatmap.y0 = sel.curves.x0 = r.value().first;
    sel.heatmap.y1 = sel.curves.x1 = r.value().second;
  }
  if (!request.dim_range.empty()) {
    Result<std::pair<double, double>> r =
        ParseRange("--dim-range", request.dim_range, 0, static_cast<double>(p.d_model));
    if (!r.ok()) return fail(r.error());
    sel.heatmap.x0 = r.value().first;
    sel.heatmap.x1 = r.value().second;
    sel.sums.x0 = r.value().first - 0.5;
    sel.sums.x1 = r.value().second - 0.5;
  }
  if (!request.token.empty()) {
    sel.highlight = true;
    int64_t t = -1;
    auto [ptr, ec] =
        std::from_chars(request.token.data(), request.token.data() + request.token.size(), t);
    if (request.token == "all") {
      sel.selected_token = -1;
    } else if (ec == std::errc() && ptr == request.token.data() + request.token.size() && t >= 0 &&
               t < p.max_len) {
      sel.selected_token = static_cast<int>(t);
    } else {
      return fail(InvalidArgument("--token must be all or a token index in [0, " +
                                  std::to_string(p.max_len - 1) + "], got \"" + request.token +
                                  "\""));
    }
  }
  ExportRequestOptions options;
  options.size = {request.width, request.height, request.scale};
  if (Status s = ValidateFigureSize(options.size); !s.ok()) return fail(s.error());
  options.title = request.title;
  if (Status s = ExportView(*view, params, sel, request.output, options); !s.ok())
    return fail(s.error());
  return 0;
}

}  // namespace pe
