#include "file_writers.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

namespace pe {

std::string NpyHeader(std::span<const int64_t> shape) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (size_t k = 0; k < shape.size(); ++k) {
    dict += std::to_string(shape[k]);
    if (shape.size() == 1 || k + 1 < shape.size()) dict += ",";
    if (k + 1 < shape.size()) dict += " ";
  }
  dict += "), }";
  // magic (6) + version (2) + header length (2) + dict + padding + '\n' = multiple of 64.
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string header("\x93NUMPY\x01\x00", 8);
  const auto len = static_cast<uint16_t>(dict.size());
  header += static_cast<char>(len & 0xff);
  header += static_cast<char>(len >> 8);
  return header + dict;
}

void WriteFloatsLE(std::ostream& out, const float* values, int64_t n) {
  if constexpr (std::endian::native == std::endian::little) {
    out.write(reinterpret_cast<const char*>(values), static_cast<std::streamsize>(n * 4));
  } else {
    for (int64_t k = 0; k < n; ++k) {
      auto bits = std::bit_cast<uint32_t>(values[k]);
      char b[4] = {static_cast<char>(bits), static_cast<char>(bits >> 8),
                   static_cast<char>(bits >> 16), static_cast<char>(bits >> 24)};
      out.write(b, 4);
    }
  }
}

std::string FormatFloat(float v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ec == std::errc() ? end : buf);
}

std::string FileExtension(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

Status WriteFileAtomically(const std::string& path,
                           const std::function<Status(std::ostream&)>& write) {
  if (path == "-") {
    Status s = write(std::cout);
    std::cout.flush();
    if (s.ok() && !std::cout) return RuntimeError("could not write to standard output");
    return s;
  }
  if (path.empty()) return InvalidArgument("the output path is empty");
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) {
    return RuntimeError("cannot write " + path + ": " + std::strerror(errno));
  }
  Status s = write(out);
  out.flush();
  if (s.ok() && !out) s = RuntimeError("cannot write " + path + ": " + std::strerror(errno));
  out.close();
  if (s.ok() && out.fail()) s = RuntimeError("cannot finish writing " + path);
  if (s.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    s = RuntimeError("cannot rename the finished file to " + path + ": " + std::strerror(errno));
  }
  if (!s.ok()) std::remove(tmp.c_str());
  return s;
}

}  // namespace pe
