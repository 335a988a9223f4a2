// What an export does to the file system, checked on the real CLI binary and on ExportView:
// signals mid-export leave nothing behind (unnamed temporaries, and the named fallback's signal
// cleanup), targets that are not regular files are refused, modes are kept, write errors say
// where and why, input files are bounded by the memory cap, and a cancel leaves no file.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"
#include "views/figure_export.h"

namespace pe {
namespace {

using pe::testing::ReadFile;

struct CliRun {
  int code = -1;
  std::string output;  // stdout and stderr
};

// Runs `script` with bash; PE (the CLI's path) is set in its environment.
CliRun RunShell(const std::string& script) {
  std::string quoted;
  for (char c : script) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  const std::string cmd = "PE='" + std::string(PE_EXPLORER_EXE) + "' bash -c '" + quoted + "' 2>&1";
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while (p && (n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = p ? ::pclose(p) : -1;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Runs that a broken build would never end (reading a FIFO, building a 30 GiB figure) go
// through `timeout`, so such a build fails the test instead of hanging or exhausting the host.
const char kGuard[] = "timeout 120 ";

std::set<std::string> ListDir(const std::string& dir) {
  std::set<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.insert(name);
    }
    ::closedir(d);
  }
  return names;
}

void WriteText(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? st.st_mode : 0;
}

using ExportFiles = pe::testing::TempDirTest;

// Starts a CSV export of about 10 GB into the test folder (never finished: the test stops it),
// waits until the CLI has written at least 1 MiB into a file in that folder, then sends `sig`.
// `named`: take the fallback path of filesystems without O_TMPFILE.
void KillMidExport(const std::string& dir, int sig, bool named) {
  const std::string target = dir + "/pe.csv";
  WriteText(target, "previous\n");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // As at a terminal: the signals have their default actions, whatever the test runner set.
    for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (named) ::setenv("PE_EXPLORER_NAMED_TEMP", "1", 1);
    const int null_fd = ::open("/dev/null", O_WRONLY);
    ::dup2(null_fd, STDOUT_FILENO);
    ::dup2(null_fd, STDERR_FILENO);
    ::execl(PE_EXPLORER_EXE, PE_EXPLORER_EXE, "export", "--view", "heatmap", "--d-model", "1024",
            "--max-len", "1000000", "--memory-cap-mib", "8192", "-o", target.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Under way: one of its open files lies in `dir` (an unnamed one shows as "dir/#123
  // (deleted)") and holds 1 MiB. The deadline only keeps a broken build from hanging the run.
  bool under_way = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  while (!under_way && std::chrono::steady_clock::now() < deadline) {
    for (const std::string& fd : ListDir(fd_dir)) {
      char link[4096];
      const ssize_t n = ::readlink((fd_dir + "/" + fd).c_str(), link, sizeof link - 1);
      struct stat st {};
      if (n > 0 && std::string(link, static_cast<size_t>(n)).rfind(dir + "/", 0) == 0 &&
          ::stat((fd_dir + "/" + fd).c_str(), &st) == 0 && st.st_size >= (1 << 20)) {
        under_way = true;
      }
    }
    int status = 0;
    if (!under_way && ::waitpid(pid, &status, WNOHANG) == pid) {
      FAIL() << "the export ended before it was under way, status " << status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, under_way ? sig : SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(under_way) << "the export never wrote 1 MiB";
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_EQ(ListDir(dir), std::set<std::string>{"pe.csv"}) << "signal " << sig;
  EXPECT_EQ(ReadFile(target), "previous\n");
}

TEST_F(ExportFiles, SignalsMidExportLeaveNothingBehind) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGKILL}) {
    SCOPED_TRACE("signal " + std::to_string(sig));
    KillMidExport(dir_, sig, /*named=*/false);
  }
}

TEST_F(ExportFiles, TheNamedFallbackIsRemovedOnCatchableSignals) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE("signal " + std::to_string(sig));
    KillMidExport(dir_, sig, /*named=*/true);
  }
}

TEST_F(ExportFiles, TargetsThatAreNotRegularFilesAreRefused) {
  ASSERT_EQ(::mkfifo(Path("fifo.csv").c_str(), 0644), 0);
  ASSERT_EQ(::mkdir(Path("dir.csv").c_str(), 0755), 0);
  WriteText(Path("real.csv"), "real\n");
  ASSERT_EQ(::symlink(Path("real.csv").c_str(), Path("link.csv").c_str()), 0);
  struct Case {
    std::string target, kind;
  };
  const Case cases[] = {{Path("fifo.csv"), "a FIFO"},
                        {Path("dir.csv"), "a directory"},
                        {Path("link.csv"), "a symbolic link"}};
  for (const Case& c : cases) {
    CliRun r = RunShell("\"$PE\" export --d-model 4 --max-len 3 -o " + c.target);
    EXPECT_EQ(r.code, 1) << c.target << "\n" << r.output;
    EXPECT_NE(
        r.output.find("cannot write " + c.target + ": it is " + c.kind + ", not a regular file"),
        std::string::npos)
        << r.output;
  }
  EXPECT_TRUE(S_ISFIFO(ModeOf(Path("fifo.csv"))));
  EXPECT_TRUE(S_ISDIR(ModeOf(Path("dir.csv"))));
  EXPECT_TRUE(S_ISLNK(ModeOf(Path("link.csv"))));
  EXPECT_EQ(ReadFile(Path("real.csv")), "real\n");
  EXPECT_EQ(ListDir(dir_), (std::set<std::string>{"fifo.csv", "dir.csv", "real.csv", "link.csv"}));
}

TEST_F(ExportFiles, ModesAreKeptAndNewFilesFollowTheUmask) {
  WriteText(Path("private.csv"), "old\n");
  ASSERT_EQ(::chmod(Path("private.csv").c_str(), 0600), 0);
  CliRun r =
      RunShell("umask 022; \"$PE\" export --d-model 4 --max-len 3 -o " + Path("private.csv") +
               " && umask 027 && \"$PE\" export -o " + Path("new.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(ModeOf(Path("private.csv")) & 07777, 0600u);
  EXPECT_EQ(ReadFile(Path("private.csv")).substr(0, 4), "pos,");
  EXPECT_EQ(ModeOf(Path("new.npy")) & 07777, 0640u);
}

TEST_F(ExportFiles, ALongestLegalFileNameWorks) {
  const std::string name = std::string(251, 'n') + ".csv";  // 255 bytes, NAME_MAX
  CliRun r = RunShell("\"$PE\" export --d-model 4 --max-len 3 -o " + Path(name));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(ListDir(dir_), std::set<std::string>{name});
}

TEST_F(ExportFiles, WriteErrorsNameThePathAndTheCause) {
  CliRun full = RunShell("\"$PE\" export --d-model 64 --max-len 1000 -o - > /dev/full");
  EXPECT_EQ(full.code, 1) << full.output;
  EXPECT_NE(full.output.find("cannot write to standard output: No space left on device"),
            std::string::npos)
      << full.output;
  CliRun closed = RunShell("\"$PE\" export --d-model 64 --max-len 1000 -o - >&-");
  EXPECT_EQ(closed.code, 1) << closed.output;
  EXPECT_NE(closed.output.find("cannot write to standard output: Bad file descriptor"),
            std::string::npos)
      << closed.output;
  // A full disk for a file target, as the file-size limit gives it (EFBIG instead of ENOSPC).
  const std::string target = Path("big.csv");
  WriteText(target, "previous\n");
  CliRun limited = RunShell(
      "trap '' XFSZ; ulimit -f 64; \"$PE\" export --d-model 64 "
      "--max-len 100000 -o " +
      target);
  EXPECT_EQ(limited.code, 1) << limited.output;
  EXPECT_NE(limited.output.find("cannot write " + target + ": File too large"), std::string::npos)
      << limited.output;
  EXPECT_EQ(ReadFile(target), "previous\n");
  EXPECT_EQ(ListDir(dir_), std::set<std::string>{"big.csv"});
}

// A device named like a table (here /dev/full's numbers, 1:7) is refused, not replaced.
TEST_F(ExportFiles, ADeviceTargetIsRefused) {
  if (::mknod(Path("full.csv").c_str(), S_IFCHR | 0666, ::makedev(1, 7)) != 0) {
    GTEST_SKIP() << "cannot create a device node here (needs CAP_MKNOD): " << std::strerror(errno);
  }
  CliRun r = RunShell("\"$PE\" export --d-model 4 --max-len 3 -o " + Path("full.csv"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write " + Path("full.csv") + ": it is a character device"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(S_ISCHR(ModeOf(Path("full.csv"))));
}

TEST_F(ExportFiles, VocabularyFilesAreRegularAndBoundedByTheCap) {
  ASSERT_EQ(::mkfifo(Path("fifo.txt").c_str(), 0644), 0);
  struct Case {
    std::string path, message;
  };
  const Case cases[] = {
      {"/dev/zero", "--vocab: \"/dev/zero\" is a character device; expected a regular text file"},
      {dir_, "--vocab: \"" + dir_ + "\" is a directory; expected a regular text file"},
      {Path("fifo.txt"), "--vocab: \"" + Path("fifo.txt") + "\" is a FIFO; expected a regular"},
  };
  for (const Case& c : cases) {
    CliRun r =
        RunShell(kGuard + std::string("\"$PE\" export --view sum --vocab ") + c.path + " -o -");
    EXPECT_EQ(r.code, 2) << c.path << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }
  // 512 KiB of short words: the file is under the 1 MiB cap, its list in memory is not.
  std::string words;
  for (int k = 0; words.size() < (512u << 10); ++k) words += "w" + std::to_string(k) + "\n";
  WriteText(Path("vocab.txt"), words);
  CliRun r = RunShell("\"$PE\" export --view sum --memory-cap-mib 1 --vocab " + Path("vocab.txt") +
                      " -o -");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("over the memory cap of 1.0 MiB"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(Path("vocab.txt")), std::string::npos) << r.output;
  CliRun fits = RunShell("\"$PE\" export --view sum --memory-cap-mib 64 --vocab " +
                         Path("vocab.txt") + " -o -");
  EXPECT_EQ(fits.code, 0) << fits.output.substr(0, 400);
}

TEST_F(ExportFiles, FiguresOverTheMemoryCapAreRefusedBeforeTheyAreBuilt) {
  // 64 curves (the cap a figure shares with the panel) at 20001 samples each: about 0.3 GB.
  CliRun r = RunShell(kGuard +
                      std::string("\"$PE\" export --view curves --d-model 65536 --dims 0-65535 "
                                  "--width 10000 --memory-cap-mib 100 -o ") +
                      Path("c.svg"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("the curves figure needs about"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("over the memory cap of 100.0 MiB"), std::string::npos) << r.output;
  EXPECT_TRUE(ListDir(dir_).empty());
  CliRun small = RunShell("\"$PE\" export --view heatmap --memory-cap-mib 64 -o " + Path("h.png"));
  EXPECT_EQ(small.code, 0) << small.output;
}

TEST_F(ExportFiles, ProgressGoesToATerminalOnly) {
  // `script` gives the CLI a terminal; the table has 3 blocks, so progress is reported.
  const std::string args = "export --d-model 8 --max-len 40000 -o " + Path("p.csv");
  CliRun tty = RunShell("script -qec \"$PE " + args + "\" /dev/null");
  ASSERT_EQ(tty.code, 0) << tty.output;
  EXPECT_NE(tty.output.find("\rpe-explorer export:  40%"), std::string::npos) << tty.output;
  EXPECT_NE(tty.output.find("100%"), std::string::npos) << tty.output;
  CliRun piped = RunShell("\"$PE\" " + args);
  ASSERT_EQ(piped.code, 0) << piped.output;
  EXPECT_EQ(piped.output, "");
}

TEST_F(ExportFiles, ACancelMidExportLeavesNoFile) {
  ModelParams params;
  params.pe.d_model = 8;
  params.pe.max_len = 40000;  // 3 blocks of 16384 rows
  const ViewSelection sel = DefaultViews(params);
  const std::pair<ViewKind, const char*> cases[] = {
      {ViewKind::kHeatmap, "t.csv"}, {ViewKind::kHeatmap, "t.npy"}, {ViewKind::kHeatmap, "f.svg"},
      {ViewKind::kHeatmap, "f.png"}, {ViewKind::kSums, "s.csv"},    {ViewKind::kSums, "s.npy"}};
  for (const auto& [view, name] : cases) {
    SCOPED_TRACE(name);
    int calls = 0;
    ExportRequestOptions options;
    options.progress = [&calls](double) { return ++calls < 2; };  // cancel at the 2nd report
    Status s = ExportView(view, params, sel, Path(name), options);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.message(), "the export was cancelled");
    EXPECT_EQ(calls, 2);
    EXPECT_TRUE(ListDir(dir_).empty());
  }
  // Figures are also cancelled after drawing, before the file is put in place.
  int calls = 0;
  ExportRequestOptions late;
  late.progress = [&calls](double fraction) { return ++calls, fraction < 1.0; };
  EXPECT_FALSE(ExportView(ViewKind::kCurves, params, sel, Path("late.pdf"), late).ok());
  EXPECT_EQ(calls, 3);
  EXPECT_TRUE(ListDir(dir_).empty());
}

}  // namespace
}  // namespace pe
