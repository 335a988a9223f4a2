// The recent-files list read at start (config folder's recent.txt): bounded, so a damaged or
// huge file costs nothing, and only a regular file is read.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "test_support.h"
#include "ui/session.h"

namespace pe {
namespace {

using RecentList = pe::testing::TempDirTest;

TEST_F(RecentList, OverlongLinesAreSkippedAndTheReadIsBounded) {
  const std::string config = Path("config");
  ASSERT_EQ(::mkdir(config.c_str(), 0700), 0);
  {
    std::ofstream out(config + "/recent.txt", std::ios::binary);
    out << "/data/a.npy\n" << std::string(300000, 'x') << "\n/data/b.npy\n/data/a.npy\n";
  }
  // The 300 kB line is past the 64 KiB read: the list ends before it.
  EXPECT_EQ(SessionKeeper(config).recent(), (std::vector<std::string>{"/data/a.npy"}));
  {
    std::ofstream out(config + "/recent.txt", std::ios::binary);
    out << "/data/a.npy\n" << std::string(5000, 'x') << "\n/data/b.npy\n/data/a.npy\n";
  }
  // A line longer than a path can be is skipped; a repeated one is kept once.
  EXPECT_EQ(SessionKeeper(config).recent(),
            (std::vector<std::string>{"/data/a.npy", "/data/b.npy"}));
}

TEST_F(RecentList, AFifoInPlaceOfTheListIsIgnored) {
  const std::string config = Path("config");
  ASSERT_EQ(::mkdir(config.c_str(), 0700), 0);
  ASSERT_EQ(::mkfifo((config + "/recent.txt").c_str(), 0600), 0);
  EXPECT_TRUE(SessionKeeper(config).recent().empty());
}

}  // namespace
}  // namespace pe
