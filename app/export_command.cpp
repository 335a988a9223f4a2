#include "export_command.h"

#include <iostream>

#include "file_writers.h"
#include "view_tables.h"

namespace pe {

int RunExport(const ModelParams& params, const ExportRequest& request) {
  auto fail = [](const Error& e) {
    std::cerr << "pe-explorer export: " << e.message << "\n";
    return e.kind == Error::Kind::kInvalidArgument ? 2 : 1;
  };
  const std::string& path = request.output;
  const std::string ext = path == "-" ? "csv" : FileExtension(path);
  TableFormat format;
  if (ext == "csv") {
    format = TableFormat::kCsv;
  } else if (ext == "npy") {
    format = TableFormat::kNpy;
  } else {
    return fail(InvalidArgument("cannot tell the format of \"" + path +
                                "\": use a .csv or .npy file name (or - for CSV on stdout)"));
  }
  if (request.view != "heatmap" && request.view != "curves" && request.view != "sum") {
    return fail(InvalidArgument("--view must be heatmap, curves or sum, got \"" + request.view +
                                "\""));
  }
  // Check everything before the file is opened, so a bad request leaves no file behind.
  Status checked;
  Result<SentenceResult> sentence = InvalidArgument("not computed");
  if (request.view == "heatmap") {
    checked = CheckFloatCount("the positional-encoding table",
                              static_cast<uint64_t>(params.pe.max_len),
                              static_cast<uint64_t>(params.pe.d_model), params.cap);
  } else if (request.view == "curves") {
    checked = ValidateDims(params.pe, params.curve_dims);
  } else {
    sentence = ComputeSentence(params.example, params.pe, params.input);
    if (!sentence.ok()) {
      checked = sentence.status();
    } else if (sentence.value().tokens.empty()) {
      checked = InvalidArgument("--text \"" + params.example.text + "\" has no tokens");
    }
  }
  if (!checked.ok()) return fail(checked.error());

  Status s = WriteFileAtomically(path, [&](std::ostream& out) -> Status {
    if (request.view == "heatmap") return WriteHeatmapTable(out, format, params.pe, params.cap);
    if (request.view == "curves") {
      return WriteCurvesTable(out, format, params.pe, params.curve_dims, params.cap);
    }
    return WriteSumTable(out, format, sentence.value(), params.pe);
  });
  if (!s.ok()) return fail(s.error());
  return 0;
}

}  // namespace pe
