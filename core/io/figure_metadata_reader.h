// Reads back the metadata a figure exported by PE Explorer carries: the key/value pairs of its
// PNG tEXt chunks ("pe:KEY"), its SVG <pe:figure> element, or its PDF document information
// keywords ("pe-figure:", then percent-encoded KEY=VALUE items). The keys are what figure_export
// writes; what they mean (parameters, view, size) is read by figure_command. Only files this app
// writes are accepted: anything else, or a file cut short, is refused with a message saying what is
// wrong.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace pe {

enum class FigureFileFormat { kPng, kSvg, kPdf };

struct FigureFileMetadata {
  FigureFileFormat format = FigureFileFormat::kPng;
  std::vector<std::pair<std::string, std::string>> entries;  // in file order, keys unique
};

// The largest figure file read (larger ones are refused, naming the limit).
inline constexpr size_t kMaxFigureFileBytes = size_t{512} << 20;

// Parses the bytes of a figure. Errors say what is wrong ("not a PNG, SVG or PDF file",
// "the PNG ends inside a chunk at byte 1234", "no PE Explorer metadata", ...).
Result<FigureFileMetadata> ParseFigureMetadata(std::span<const std::byte> bytes);

// Reads `path` (a regular file) and parses it; every error names the path.
Result<FigureFileMetadata> ReadFigureMetadata(const std::string& path);

// The percent-encoding used in the PDF's keywords: every byte but letters, digits
// and " -._,:=/+" becomes %XX, so the text is plain ASCII with no parentheses or backslashes.
std::string PercentEncode(const std::string& text);

}  // namespace pe
