// The names in a folder, for tests that check what a writer left behind (temporaries, copies).
#pragma once

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

namespace pe::testing {

// The names in `dir` (without "." and ".."), sorted; empty when it cannot be read.
inline std::vector<std::string> FolderNames(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace pe::testing
