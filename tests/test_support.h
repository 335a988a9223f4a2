// Helpers shared by the tests: a minimal NPY reader and a CSV splitter, written independently
// of the writers they check.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "encoding/encoding.h"
#include "io/file_writers.h"

namespace pe::testing {

struct NpyArray {
  std::string descr;
  bool fortran_order = true;
  std::vector<int64_t> shape;
  std::vector<float> data;
  size_t header_total = 0;  // bytes before the data
};

// Parses a v1.0 '<f4' NPY blob; returns false with `why` set when it is malformed.
inline bool ParseNpy(const std::string& bytes, NpyArray& out, std::string& why) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return why = "bad magic", false;
  if (bytes[6] != 1 || bytes[7] != 0) return why = "not version 1.0", false;
  const size_t len =
      static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  if (10 + len > bytes.size()) return why = "short header", false;
  const std::string dict = bytes.substr(10, len);
  out.header_total = 10 + len;
  if (dict.back() != '\n') return why = "header does not end in newline", false;
  auto field = [&](const std::string& key) {
    size_t k = dict.find("'" + key + "': ");
    return k == std::string::npos ? std::string() : dict.substr(k + key.size() + 4);
  };
  std::string d = field("descr");
  out.descr = d.substr(1, d.find('\'', 1) - 1);
  out.fortran_order = field("fortran_order").rfind("True", 0) == 0;
  std::string s = field("shape");
  s = s.substr(1, s.find(')') - 1);
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.find_first_not_of(' ') != std::string::npos) out.shape.push_back(std::stoll(item));
  }
  size_t n = 1;
  for (int64_t x : out.shape) n *= static_cast<size_t>(x);
  if (bytes.size() != out.header_total + 4 * n)
    return why = "data size does not match shape", false;
  out.data.resize(n);
  std::memcpy(out.data.data(), bytes.data() + out.header_total, 4 * n);
  return true;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (size_t k = 0; k < line.size(); ++k) {
    char c = line[k];
    if (quoted) {
      if (c == '"' && k + 1 < line.size() && line[k + 1] == '"') {
        cell += '"';
        ++k;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  return cells;
}

inline std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) rows.push_back(SplitCsvLine(line));
  return rows;
}

// Standard output and error of a shell command.
inline std::string Capture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

// A fixture with a fresh temporary folder, removed afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/pe-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

// Writes the exact table of `p` to `path` as float32 NPY with `delta` added to cell
// (wrong_row, wrong_col): a file for the check view to find the wrong cell in.
inline bool WriteTableNpyWithAWrongCell(const std::string& path, const EncodingParams& p,
                                        int64_t wrong_row, int64_t wrong_col, float delta) {
  const EncodingPtr e = MakeEncoding(p).value();
  const int64_t rows = p.max_len, cols = p.d_model;
  std::vector<float> table(static_cast<size_t>(rows * cols));
  e->FillBlock(0, rows, 0, cols, table.data());
  table[static_cast<size_t>(wrong_row * cols + wrong_col)] += delta;
  const int64_t shape[] = {rows, cols};
  return WriteFileAtomically(path,
                             [&](std::ostream& out) {
                               const std::string header = NpyHeader(shape);
                               out.write(header.data(),
                                         static_cast<std::streamsize>(header.size()));
                               WriteFloatsLE(out, table.data(), static_cast<int64_t>(table.size()));
                               return Status{};
                             })
      .ok();
}

// The exact sinusoidal table (paper layout) of rows x cols with `delta` (0.5 unless given)
// added to cell (wrong_row, wrong_col).
inline bool WriteSinusoidNpyWithAWrongCell(const std::string& path, int64_t rows, int64_t cols,
                                           int64_t wrong_row, int64_t wrong_col,
                                           float delta = 0.5f) {
  EncodingParams p;
  p.d_model = cols;
  p.max_len = rows;
  return WriteTableNpyWithAWrongCell(path, p, wrong_row, wrong_col, delta);
}

}  // namespace pe::testing
