// printf-style formatting into a std::string, for the short labels and summaries the encodings
// write (at most 255 bytes: longer text is cut).
#pragma once

#include <cstdio>
#include <string>

namespace pe {

template <typename... Args>
std::string Fmt(const char* format, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

}  // namespace pe
