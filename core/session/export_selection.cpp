#include "session/export_selection.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "analysis/attention_row.h"
#include "base/closest_word.h"
#include "io/file_writers.h"
#include "session/session.h"
#include "text/tokenizer.h"
#include "views/view_registry.h"

namespace pe {

bool ExportRequest::Given(const std::string& flag) const {
  return std::find(given.begin(), given.end(), flag) != given.end();
}

std::string FromFigureMessage(const ExportRequest& request, const std::string& message) {
  const std::pair<std::string, std::string>* best = nullptr;
  for (const auto& from : request.from_keys) {
    const std::string& flag = from.first;
    if (message.rfind(flag, 0) != 0) continue;
    if (message.size() > flag.size() && message[flag.size()] != ' ' &&
        message[flag.size()] != ':') {
      continue;
    }
    if (best == nullptr || flag.size() > best->first.size()) best = &from;
  }
  if (best == nullptr) return message;
  std::string rest = message.substr(best->first.size());
  if (rest.rfind(':', 0) == 0) rest.erase(0, 1);
  if (rest.rfind(' ', 0) == 0) rest.erase(0, 1);
  return request.from + ": metadata " + best->second + ": " + rest;
}

std::vector<std::string> ExportSelectionFlags() {
  std::vector<std::string> flags = {"--positions", "--dim-range", "--token", "--batch-row",
                                    "--rotation-position"};
  for (ViewKind k : WindowOwners()) flags.push_back(WindowFlag(k));
  flags.emplace_back("--walkthrough-step");
  return flags;
}

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

// The largest |coordinate| of a window (every whole position and dimension of a table is far
// below) and the smallest extent: beyond them no figure can be drawn (cairo's matrix of
// 0:1e308 has no inverse) and nothing a table holds is shown.
constexpr double kMaxWindowCoordinate = 9007199254740992.0;  // 2^53
constexpr double kMinWindowExtent = 1.0 / kMaxWindowCoordinate;

// "X0:X1:Y0:Y1", four finite numbers with X0 < X1 and Y0 < Y1, within the limits above.
Result<ViewRange> ParseWindow(const std::string& flag, const std::string& text) {
  const std::optional<ViewRange> w = ParseWindowNumbers(text);
  bool ok = w.has_value();
  if (ok) {
    for (double c : {w->x0, w->x1, w->y0, w->y1}) ok = ok && std::fabs(c) <= kMaxWindowCoordinate;
    ok = ok && w->x1 - w->x0 >= kMinWindowExtent && w->y1 - w->y0 >= kMinWindowExtent;
  }
  if (!ok) {
    return InvalidArgument(flag +
                           " must be X0:X1:Y0:Y1, four finite numbers with X0 < X1 and Y0 < Y1, "
                           "|each| <= 9007199254740992 (2^53) and X1 - X0, Y1 - Y0 >= 2^-53, "
                           "got \"" +
                           text + "\"");
  }
  return *w;
}

}  // namespace

Result<ViewSelection> ExportSelection(const ModelParams& params, const ExportRequest& request,
                                      std::optional<ModelParams>* table_params,
                                      EncodingPtr* built) {
  auto fail = [](const Error& e) -> Result<ViewSelection> { return e; };
  std::optional<ViewKind> view = ParseView(request.view);
  if (!view) {
    std::string names;
    for (const ViewEntry& v : Views()) names += (names.empty() ? "" : ", ") + std::string(v.name);
    return fail(InvalidArgument("--view must be one of " + names + ", got \"" + request.view +
                                "\"" + DidYouMean(request.view, WordsOfList(names))));
  }
  if (Status s = CheckViewApplies(*view, params); !s.ok()) return fail(s.error());
  Result<EncodingPtr> encoding = MakeEncoding(params.pe, params.cap);
  if (!encoding.ok()) return fail(encoding.error());
  if (built != nullptr) *built = encoding.value();
  const int64_t cols = encoding.value()->cols();
  ViewSelection sel = DefaultViews(params, *encoding.value());
  sel.markers = !request.no_markers;
  const EncodingParams& p = params.pe;
  const std::string ext = request.output == "-" ? "csv" : FileExtension(request.output);
  const bool table = ext == "csv" || ext == "npy";
  const double first = static_cast<double>(p.offset), end = first + static_cast<double>(p.max_len);
  // Given, also with an empty value (refused below like any other bad value).
  auto given = [&request](const char* flag, const std::string& value) {
    return !value.empty() || request.Given(flag);
  };
  if (given("--positions", request.positions)) {
    Result<std::pair<double, double>> r = ParseRange("--positions", request.positions, first, end);
    if (!r.ok()) return fail(r.error());
    const auto [a, b] = r.value();
    if (table) {
      // Rows A to B-1, like numpy's PE[A:B]: the table of positions [A, B) is the table with
      // offset A and max_len B - A, shape (B - A, d_model) or (B - A, len(dims)).
      if (*view == ViewKind::kSums) {
        return fail(InvalidArgument(
            "--positions does not apply to the sum table: its rows are the sentence's tokens"));
      }
      if (a != std::floor(a) || b != std::floor(b)) {
        return fail(InvalidArgument(
            "--positions for a table must be whole positions A:B (rows A to B-1), got \"" +
            request.positions + "\""));
      }
      if (table_params != nullptr) {
        *table_params = params;
        (*table_params)->pe.offset = static_cast<int64_t>(a);
        (*table_params)->pe.max_len = static_cast<int64_t>(b - a);
      }
    }
    // Every window's positions (the heatmap's rows, the curves' x, the score's queries and
    // keys) are A to B.
    for (ViewKind k : WindowOwners()) {
      const ViewWindowSpec& w = GetView(k).window;
      ViewRange& window = sel.windows[k];
      if (w.x == WindowAxis::kPositions) window.x0 = a, window.x1 = b;
      if (w.y == WindowAxis::kPositions) window.y0 = a, window.y1 = b;
    }
  }
  if (given("--dim-range", request.dim_range)) {
    Result<std::pair<double, double>> r =
        ParseRange("--dim-range", request.dim_range, 0, static_cast<double>(cols));
    if (!r.ok()) return fail(r.error());
    // Every window's dimensions: cells A to B (the heatmap), bars centred on A to B - 1 (sums).
    for (ViewKind k : WindowOwners()) {
      const WindowAxis x = GetView(k).window.x;
      const double shift = x == WindowAxis::kDimBars ? 0.5 : 0.0;
      if (x != WindowAxis::kDimCells && x != WindowAxis::kDimBars) continue;
      sel.windows[k].x0 = r.value().first - shift;
      sel.windows[k].x1 = r.value().second - shift;
    }
  }
  if (given("--token", request.token)) {
    // A token index means a token of the sentence in every view (the heatmap and curves
    // outline its position), so the range is the sentence's, not max_len's.
    sel.highlight = true;
    const int64_t tokens = ExampleTokenCount(params.example);
    int64_t t = -1;
    auto [ptr, ec] =
        std::from_chars(request.token.data(), request.token.data() + request.token.size(), t);
    if (request.token == "all") {
      sel.selected_token = -1;
    } else if (ec == std::errc() && ptr == request.token.data() + request.token.size() && t >= 0 &&
               t < tokens && t < p.max_len) {
      sel.selected_token = static_cast<int>(t);
    } else if (tokens == 0) {
      return fail(InvalidArgument("--token needs a sentence with tokens, but the text \"" +
                                  params.example.text + "\" has none; got \"" + request.token +
                                  "\""));
    } else {
      return fail(InvalidArgument("--token must be all or a token index in [0, " +
                                  std::to_string(std::min(tokens, p.max_len) - 1) +
                                  "] (the sentence has " + std::to_string(tokens) +
                                  " tokens), got \"" + request.token + "\""));
    }
  }
  if (given("--batch-row", request.batch_row)) {
    const int64_t batch = ExampleBatch(params.example);
    int64_t row = -1;
    const std::string& text = request.batch_row;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), row);
    if (params.example.ids.size() < 2) {
      return fail(
          InvalidArgument("--batch-row applies to a batch of --ids (rows separated by "
                          "';'), got \"" +
                          text + "\""));
    }
    if (ec != std::errc() || ptr != text.data() + text.size() || row < 0 || row >= batch) {
      return fail(InvalidArgument("--batch-row must be a row of the ids in [0, " +
                                  std::to_string(batch - 1) + "], got \"" + text + "\""));
    }
    if (*view != ViewKind::kSums) {
      return fail(InvalidArgument("--batch-row applies to the sum view, not to " +
                                  std::string(GetView(*view).name)));
    }
    sel.batch_row = row;
  }
  // --query names a position of the table for every view, as the attention view requires
  // (others draw every query, but a position outside the table is a mistake either way).
  if (params.query != -1) {
    const int64_t first_pos = params.pe.offset, last_pos = first_pos + params.pe.max_len - 1;
    if (Status s = CheckQueryPosition(first_pos, last_pos, params.query); !s.ok()) {
      return fail(s.error());
    }
  }
  if (given("--rotation-position", request.rotation_position)) {
    // Checked here for every view, so a mistyped position never passes silently.
    const auto last = static_cast<int64_t>(p.offset + p.max_len - 1);
    int64_t pos = 0;
    const std::string& text = request.rotation_position;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), pos);
    if (ec != std::errc() || ptr != text.data() + text.size() || pos < p.offset || pos > last) {
      return fail(InvalidArgument("--rotation-position must be a whole position in [" +
                                  std::to_string(p.offset) + ", " + std::to_string(last) +
                                  "] (the table's positions), got \"" + text + "\""));
    }
    if (*view != ViewKind::kRotation) {
      return fail(InvalidArgument("--rotation-position applies to the rotation view, not to " +
                                  request.view));
    }
    sel.rotation_position = pos;
  }
  // Exact windows (what a panned panel shows; --from and copied commands give them).
  for (ViewKind k : WindowOwners()) {
    const std::string flag = WindowFlag(k);  // "--heatmap-window"
    const std::string& text = request.windows[k];
    if (!given(flag.c_str(), text)) continue;
    Result<ViewRange> w = ParseWindow(flag, text);
    if (!w.ok()) return fail(w.error());
    sel.windows[k] = w.value();
  }
  if (request.highlight) sel.highlight = true;
  if (request.no_highlight) sel.highlight = false;
  if (given("--walkthrough-step", request.walkthrough_step)) {
    if (*view != ViewKind::kWalkthrough) {
      return fail(InvalidArgument("--walkthrough-step applies to the walkthrough view, not to " +
                                  request.view));
    }
    int64_t step = -1;
    const std::string& text = request.walkthrough_step;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), step);
    if (ec != std::errc() || ptr != text.data() + text.size() || step < 0 || step > 7) {
      return fail(
          InvalidArgument("--walkthrough-step must be a step in [0, 7], got \"" + text + "\""));
    }
    sel.walkthrough_step = static_cast<int>(step);
  }
  if (*view == ViewKind::kWalkthrough && sel.walkthrough_step < 0 &&
      (ext == "png" || ext == "svg")) {
    return fail(InvalidArgument("a walkthrough ." + ext +
                                " holds one step: give --walkthrough-step S (0 to 7), or write "
                                "it as .pdf (the handout of every step)"));
  }
  return sel;
}

Result<double> ParseFontSize(const std::string& text) {
  return ParseNumber("--font-size", text, "a number in [5, 36]",
                     [](double v) { return v >= kLeastFontPt && v <= kMostFontPt; });
}

Result<bool> ParseSvgText(const std::string& text) {
  if (text == "text") return false;
  if (text == "outlines") return true;
  return InvalidArgument("--svg-text must be text or outlines, got \"" + text + "\"");
}

}  // namespace pe
