// The config folder's own files: copies of broken last sessions (never overwritten, the newest
// kept) and last.pexs / recent.txt kept elsewhere through symbolic links (dotfile managers).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "folder_listing.h"
#include "test_support.h"
#include "ui/session.h"

namespace pe {
namespace {

using pe::testing::FolderNames;
using pe::testing::ReadFile;
using ConfigFolder = pe::testing::TempDirTest;

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string Broken(int n) {
  return n == 0 ? "last.pexs.broken" : "last.pexs.broken." + std::to_string(n);
}

// After 1000 copies (.broken, .broken.1 ... .broken.999) the next one used to replace .999.
TEST_F(ConfigFolder, ABrokenLastSessionNeverReplacesAnEarlierCopy) {
  ASSERT_EQ(::mkdir(Path("config").c_str(), 0700), 0);
  for (int n = 0; n < 1000; ++n) WriteBytes(Path("config/" + Broken(n)), std::to_string(n));
  WriteBytes(Path("config/last.pexs"), "{\"newest\"");
  AppState state;
  std::vector<std::string> warnings;
  const Status s = SessionKeeper(Path("config")).RestoreLast(state, warnings);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("kept as \"" + Path("config/last.pexs.broken.1000") + "\""),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("only the newest 20 copies are kept: the 981 oldest, up to \"" +
                             Path("config/last.pexs.broken.980") + "\", were removed"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(ReadFile(Path("config/last.pexs.broken.1000")), "{\"newest\"");
  EXPECT_EQ(ReadFile(Path("config/last.pexs.broken.999")), "999");
  std::vector<std::string> expected;
  for (int n = 981; n <= 1000; ++n) expected.push_back(Broken(n));
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(FolderNames(Path("config")), expected);
}

// One broken start after another: each copy is new, and the oldest go past 20, by number.
TEST_F(ConfigFolder, OnlyTheNewestTwentyBrokenCopiesAreKept) {
  ASSERT_EQ(::mkdir(Path("config").c_str(), 0700), 0);
  WriteBytes(Path("config/notes.txt"), "mine");  // other files stay
  for (int k = 0; k < 25; ++k) {
    WriteBytes(Path("config/last.pexs"), "{" + std::to_string(k));
    AppState state;
    std::vector<std::string> warnings;
    const Status s = SessionKeeper(Path("config")).RestoreLast(state, warnings);
    ASSERT_FALSE(s.ok());
    const std::string removed = "only the newest 20 copies are kept: the oldest, \"" +
                                Path("config/" + Broken(k - 20)) + "\", was removed";
    if (k < 20) {
      EXPECT_EQ(s.message().find("were removed"), std::string::npos) << s.message();
      EXPECT_EQ(s.message().find("was removed"), std::string::npos) << s.message();
    } else {
      EXPECT_NE(s.message().find(removed), std::string::npos) << s.message();
    }
  }
  std::vector<std::string> expected = {"notes.txt"};
  for (int n = 5; n < 25; ++n) expected.push_back(Broken(n));
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(FolderNames(Path("config")), expected);
  for (int n = 5; n < 25; ++n)
    EXPECT_EQ(ReadFile(Path("config/" + Broken(n))), "{" + std::to_string(n));
}

// last.pexs and recent.txt as links into a dotfiles folder (relative, then absolute, the file
// not there yet): read at start, and every save goes to the file at the end of the links.
TEST_F(ConfigFolder, LinkedConfigFilesAreWrittenThroughTheirLinks) {
  ASSERT_EQ(::mkdir(Path("config").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir(Path("dotfiles").c_str(), 0700), 0);
  ASSERT_EQ(::symlink("../dotfiles/session-link", Path("config/last.pexs").c_str()), 0);
  ASSERT_EQ(::symlink(Path("dotfiles/last.pexs").c_str(), Path("dotfiles/session-link").c_str()),
            0);
  ASSERT_EQ(::symlink("../dotfiles/recent.txt", Path("config/recent.txt").c_str()), 0);
  {
    SessionKeeper keeper(Path("config"));
    AppState a;
    a.params.pe.d_model = 48;
    const Status s = keeper.SaveNow(a);
    ASSERT_TRUE(s.ok()) << s.message();
    keeper.AddRecent(Path("a.pexs"));
    a.params.pe.d_model = 56;
    keeper.Tick(a, 100.0);  // the autosave
  }
  struct stat st {};
  ASSERT_EQ(::lstat(Path("config/last.pexs").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(::lstat(Path("config/recent.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_NE(ReadFile(Path("dotfiles/last.pexs")).find("\"d_model\": \"56\""), std::string::npos);
  EXPECT_EQ(ReadFile(Path("dotfiles/recent.txt")), Path("a.pexs") + "\n");
  EXPECT_EQ(FolderNames(Path("config")), (std::vector<std::string>{"last.pexs", "recent.txt"}));
  EXPECT_EQ(FolderNames(Path("dotfiles")),
            (std::vector<std::string>{"last.pexs", "recent.txt", "session-link"}));
  AppState b;
  std::vector<std::string> warnings;
  SessionKeeper again(Path("config"));
  ASSERT_TRUE(again.RestoreLast(b, warnings).ok());
  EXPECT_EQ(b.params.pe.d_model, 56);
  ASSERT_EQ(again.recent().size(), 1u);

  // A link to something that is not a regular file: refused, naming both.
  ASSERT_EQ(::unlink(Path("dotfiles/last.pexs").c_str()), 0);
  ASSERT_EQ(::mkdir(Path("dotfiles/last.pexs").c_str(), 0700), 0);
  const Status s = again.SaveNow(b);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot write " + Path("dotfiles/last.pexs") +
                             ": it is a directory, not a regular file; name a regular file or a "
                             "new one (" +
                             Path("config/last.pexs") + " is a symbolic link to it)");
}

// A dangling link at start is no last session (the autosave makes its file), and a linked
// session that cannot be read is copied aside: the link stays for the next autosave.
TEST_F(ConfigFolder, ALinkedLastSessionStaysALink) {
  ASSERT_EQ(::mkdir(Path("config").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir(Path("dotfiles").c_str(), 0700), 0);
  ASSERT_EQ(::symlink("../dotfiles/last.pexs", Path("config/last.pexs").c_str()), 0);
  AppState a;
  std::vector<std::string> warnings;
  const Status none = SessionKeeper(Path("config")).RestoreLast(a, warnings);
  EXPECT_TRUE(none.ok()) << none.message();
  EXPECT_EQ(FolderNames(Path("config")), std::vector<std::string>{"last.pexs"});

  WriteBytes(Path("dotfiles/last.pexs"), "{\"broken");
  SessionKeeper keeper(Path("config"));
  const Status s = keeper.RestoreLast(a, warnings);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("kept as \"" + Path("config/last.pexs.broken") + "\""),
            std::string::npos)
      << s.message();
  struct stat st {};
  ASSERT_EQ(::lstat(Path("config/last.pexs").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(::lstat(Path("config/last.pexs.broken").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(ReadFile(Path("config/last.pexs.broken")), "{\"broken");
  a.params.pe.d_model = 40;
  ASSERT_TRUE(keeper.SaveNow(a).ok());
  EXPECT_NE(ReadFile(Path("dotfiles/last.pexs")).find("\"d_model\": \"40\""), std::string::npos);
  EXPECT_EQ(FolderNames(Path("dotfiles")), std::vector<std::string>{"last.pexs"});
}

}  // namespace
}  // namespace pe
