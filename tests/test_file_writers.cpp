// NPY and CSV writers: header layout, round trips to exact float32 values, atomic files.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <vector>

#include "encoding/positional_encoding.h"
#include "folder_listing.h"
#include "io/file_writers.h"
#include "io/table_block_writer.h"
#include "test_support.h"
#include "views/figure_export.h"
#include "views/view_tables.h"

namespace pe {
namespace {

using pe::testing::FolderNames;
using pe::testing::NpyArray;
using pe::testing::ParseCsv;
using pe::testing::ParseNpy;

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string TempDir() {
  char tmpl[] = "/tmp/pe-writers-XXXXXX";
  return ::mkdtemp(tmpl);
}

TEST(Npy, HeaderIsAlignedAndDescribesTheArray) {
  const int64_t shape[] = {100, 128};
  const std::string h = NpyHeader(shape);
  EXPECT_EQ(h.size() % 64, 0u);
  EXPECT_EQ(h.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(h.find("{'descr': '<f4', 'fortran_order': False, 'shape': (100, 128), }"),
            std::string::npos);
  const int64_t one[] = {7};
  EXPECT_NE(NpyHeader(one).find("'shape': (7,)"), std::string::npos);
}

TEST(Npy, Int32ArraysSayTheirTypeAndKeepTheirBits) {
  const int64_t shape[] = {2, 3};
  std::stringstream out;
  out << NpyHeader(shape, NpyDtype::kInt32);
  const int32_t v[] = {0, 1, -1, 31, 2147483647, -2147483647 - 1};
  WriteInt32sLE(out, v, 6);
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(out.str(), a, why)) << why;
  EXPECT_EQ(a.header_total % 64, 0u);
  EXPECT_EQ(a.descr, "<i4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  const std::string bytes = out.str().substr(a.header_total);
  ASSERT_EQ(bytes.size(), 24u);
  // Little-endian, byte by byte: -1 is ff ff ff ff, 31 is 1f 00 00 00.
  EXPECT_EQ(bytes.substr(8, 4), std::string("\xff\xff\xff\xff", 4));
  EXPECT_EQ(bytes.substr(12, 4), std::string("\x1f\x00\x00\x00", 4));
  for (int k = 0; k < 6; ++k) {
    int32_t back = 0;
    std::memcpy(&back, bytes.data() + 4 * k, 4);
    EXPECT_EQ(back, v[k]);
  }
  // The float32 default is unchanged.
  EXPECT_NE(NpyHeader(shape).find("'<f4'"), std::string::npos);
}

TEST(Npy, HeatmapRoundTripsToTheEngineTable) {
  EncodingParams p;
  p.d_model = 13;
  p.max_len = 700;  // one block; Tables.MultiBlock* covers several
  p.sinusoidal().variant = PeVariant::kT2t;
  std::stringstream out;
  ASSERT_TRUE(WriteHeatmapTable(out, TableFormat::kNpy, p).ok());
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(out.str(), a, why)) << why;
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_FALSE(a.fortran_order);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{700, 13}));
  EXPECT_EQ(a.data, ComputePeTable(p).value().data);
}

TEST(Csv, FloatsRoundTripExactly) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int k = 0; k < 20000; ++k) {
    const float v = dist(rng) * std::pow(10.0f, static_cast<float>(k % 20 - 10));
    const std::string s = FormatFloat(v);
    ASSERT_EQ(std::strtof(s.c_str(), nullptr), v) << s;
  }
  EXPECT_EQ(FormatFloat(0.84147096f), "0.84147096");
  EXPECT_EQ(FormatFloat(-1.0f), "-1");
}

TEST(Csv, HeatmapAndCurvesHaveHeadersAndAbsolutePositions) {
  EncodingParams p;
  p.d_model = 20;
  p.max_len = 300;
  p.offset = 5;
  std::stringstream heat;
  ASSERT_TRUE(WriteHeatmapTable(heat, TableFormat::kCsv, p).ok());
  auto rows = ParseCsv(heat.str());
  ASSERT_EQ(rows.size(), 301u);
  EXPECT_EQ(rows[0][0], "pos");
  EXPECT_EQ(rows[0][1], "d0");
  EXPECT_EQ(rows[0][20], "d19");
  Matrix t = ComputePeTable(p).value();
  for (int r = 0; r < 300; ++r) {
    ASSERT_EQ(rows[r + 1][0], std::to_string(r + 5));
    for (int j = 0; j < 20; ++j)
      ASSERT_EQ(std::strtof(rows[r + 1][j + 1].c_str(), nullptr), t.at(r, j));
  }
  std::stringstream curves;
  ASSERT_TRUE(WriteCurvesTable(curves, TableFormat::kCsv, p, {4, 5, 6, 7}).ok());
  rows = ParseCsv(curves.str());
  EXPECT_EQ(rows[0], (std::vector<std::string>{"pos", "d4", "d5", "d6", "d7"}));
  for (int r = 0; r < 300; ++r) {
    for (int j = 0; j < 4; ++j) {
      ASSERT_EQ(std::strtof(rows[r + 1][j + 1].c_str(), nullptr), t.at(r, 4 + j));
    }
  }
}

TEST(Csv, SumHasOneRowPerTokenAndPart) {
  EncodingParams p;
  p.d_model = 8;
  TextExample ex;
  ex.text = "a, \"b\"";
  SentenceResult s = ComputeSentence(ex, p, {}).value();
  std::stringstream out;
  ASSERT_TRUE(WriteSumTable(out, TableFormat::kCsv, s, p).ok());
  auto rows = ParseCsv(out.str());
  ASSERT_EQ(rows.size(), 1u + 5 * 4);  // tokens a , " b "
  EXPECT_EQ(rows[0][3], "part");
  EXPECT_EQ(rows[0][4], "v0");
  EXPECT_EQ(rows[1][0], "a");
  EXPECT_EQ(rows[5][0], ",");
  EXPECT_EQ(rows[9][0], "\"");
  EXPECT_EQ(rows[13][0], "b");
  const char* parts[] = {"embedding", "scaled", "positional", "sum"};
  for (int t = 0; t < 5; ++t) {
    for (int k = 0; k < 4; ++k) {
      const auto& row = rows[1 + t * 4 + k];
      ASSERT_EQ(row.size(), 12u);
      EXPECT_EQ(row[1], std::to_string(t));
      EXPECT_EQ(row[3], parts[k]);
      const Matrix& m = s.parts.part(kAllParts[k]);
      for (int j = 0; j < 8; ++j) EXPECT_EQ(std::strtof(row[4 + j].c_str(), nullptr), m.at(t, j));
    }
  }
  std::stringstream npy;
  ASSERT_TRUE(WriteSumTable(npy, TableFormat::kNpy, s, p).ok());
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(npy.str(), a, why)) << why;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{5, 4, 8}));
  EXPECT_EQ(a.data[(2 * 4 + 3) * 8 + 5], s.parts.sum.at(2, 5));
}

TEST(AtomicFile, FailuresLeaveNothingBehind) {
  const std::string dir = TempDir();
  const std::string path = dir + "/out.csv";
  Status s = WriteFileAtomically(path, [](std::ostream& out) -> Status {
    out << "partial";
    return RuntimeError("stopped halfway");
  });
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(Exists(path));
  EXPECT_EQ(std::system(("rmdir " + dir).c_str()), 0) << "a temporary file was left in " << dir;

  Status missing =
      WriteFileAtomically("/nonexistent-dir/x.csv", [](std::ostream&) -> Status { return {}; });
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("/nonexistent-dir/x.csv"), std::string::npos);
}

TEST(AtomicFile, SuccessReplacesTheFileWhole) {
  const std::string dir = TempDir();
  const std::string path = dir + "/out.txt";
  ASSERT_TRUE(WriteFileAtomically(path, [](std::ostream& o) -> Status {
                o << "one";
                return {};
              }).ok());
  ASSERT_TRUE(WriteFileAtomically(path, [](std::ostream& o) -> Status {
                o << "two";
                return {};
              }).ok());
  EXPECT_EQ(pe::testing::ReadFile(path), "two");
  // A failed rewrite keeps the previous file intact.
  EXPECT_FALSE(WriteFileAtomically(path, [](std::ostream& o) -> Status {
                 o << "xx";
                 return RuntimeError("no");
               }).ok());
  EXPECT_EQ(pe::testing::ReadFile(path), "two");
  std::remove(path.c_str());
  std::remove(dir.c_str());
}

// Tables longer than one block, every value against an independent float64 evaluation of the
// paper's formula, PE[p, 2i] = sin(p * 10000^(-2i/d)), PE[p, 2i+1] = cos(...), rounded to
// float32. A block that restarted at row 0 or skipped rows would fail here.
TEST(Tables, MultiBlockHeatmapMatchesTheFormulaInEveryRow) {
  constexpr double kTolerance = 1e-6;
  EncodingParams p;
  p.d_model = 10;
  p.offset = 3;
  p.max_len = 2 * TableBlockRows(p.d_model) + 1234;  // two full blocks and a part
  ASSERT_GT(p.max_len, 2 * TableBlockRows(p.d_model));
  auto expected = [&](int64_t row, int64_t j) {
    const double pos = static_cast<double>(p.offset + row);
    const double w = std::pow(10000.0, -2.0 * static_cast<double>(j / 2) / 10.0);
    return static_cast<float>(j % 2 == 0 ? std::sin(pos * w) : std::cos(pos * w));
  };
  std::stringstream npy;
  int reports = 0;
  ASSERT_TRUE(WriteHeatmapTable(npy, TableFormat::kNpy, p, {}, [&](double) {
                ++reports;
                return true;
              }).ok());
  EXPECT_EQ(reports, 3);  // one per block
  NpyArray a;
  std::string why;
  ASSERT_TRUE(ParseNpy(npy.str(), a, why)) << why;
  ASSERT_EQ(a.shape, (std::vector<int64_t>{p.max_len, 10}));
  for (int64_t r = 0; r < p.max_len; ++r) {
    for (int64_t j = 0; j < 10; ++j) {
      ASSERT_NEAR(a.data[static_cast<size_t>(r * 10 + j)], expected(r, j), kTolerance)
          << "row " << r << " col " << j;
    }
  }
  std::stringstream csv;
  ASSERT_TRUE(WriteHeatmapTable(csv, TableFormat::kCsv, p).ok());
  const auto rows = ParseCsv(csv.str());
  ASSERT_EQ(rows.size(), static_cast<size_t>(p.max_len + 1));
  for (int64_t r = 0; r < p.max_len; ++r) {
    const auto& row = rows[static_cast<size_t>(r + 1)];
    ASSERT_EQ(row.size(), 11u);
    ASSERT_EQ(row[0], std::to_string(p.offset + r));
    for (int64_t j = 0; j < 10; ++j) {
      ASSERT_NEAR(std::strtof(row[static_cast<size_t>(j + 1)].c_str(), nullptr), expected(r, j),
                  kTolerance)
          << "row " << r << " col " << j;
    }
  }
}

// A cancel at the second block report stops the write, and the file never appears.
TEST(AtomicFile, ACancelledTableLeavesNothing) {
  const std::string dir = TempDir();
  EncodingParams p;
  p.d_model = 8;
  p.max_len = 3 * TableBlockRows(p.d_model);
  int reports = 0;
  Status s = WriteFileAtomically(dir + "/t.npy", [&](std::ostream& out) {
    return WriteHeatmapTable(out, TableFormat::kNpy, p, {}, [&](double) { return ++reports < 2; });
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "the export was cancelled");
  EXPECT_EQ(reports, 2);
  EXPECT_EQ(std::system(("rmdir " + dir).c_str()), 0) << "something was left in " << dir;
}

// The old temporary name, "<target>.tmp-<pid>", was predictable: a link planted there made the
// export write through it. Nothing may be written through any planted name.
TEST(AtomicFile, APlantedLinkAtAPredictableNameIsNotFollowed) {
  const std::string dir = TempDir();
  const std::string path = dir + "/out.csv", victim = dir + "/victim";
  { std::ofstream(victim) << "keep"; }
  const std::string planted = path + ".tmp-" + std::to_string(::getpid());
  ASSERT_EQ(::symlink(victim.c_str(), planted.c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(path, [](std::ostream& o) -> Status {
                o << "new";
                return {};
              }).ok());
  EXPECT_EQ(pe::testing::ReadFile(victim), "keep");
  EXPECT_EQ(pe::testing::ReadFile(path), "new");
  std::system(("rm -rf " + dir).c_str());
}

// The named fallback (filesystems without O_TMPFILE) also keeps modes and leaves nothing.
TEST(AtomicFile, TheNamedFallbackReplacesWholeAndCleansUp) {
  const std::string dir = TempDir();
  const std::string path = dir + "/out.txt";
  { std::ofstream(path) << "old"; }
  ASSERT_EQ(::chmod(path.c_str(), 0604), 0);
  ASSERT_EQ(::setenv("PE_EXPLORER_NAMED_TEMP", "1", 1), 0);
  EXPECT_FALSE(WriteFileAtomically(path, [](std::ostream& o) -> Status {
                 o << "partial";
                 return RuntimeError("stopped");
               }).ok());
  EXPECT_EQ(pe::testing::ReadFile(path), "old");
  ASSERT_TRUE(WriteFileAtomically(path, [](std::ostream& o) -> Status {
                o << "new";
                return {};
              }).ok());
  ::unsetenv("PE_EXPLORER_NAMED_TEMP");
  EXPECT_EQ(pe::testing::ReadFile(path), "new");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0604u);
  EXPECT_EQ(std::system(("test \"$(ls -A " + dir + ")\" = out.txt").c_str()), 0);
  std::system(("rm -rf " + dir).c_str());
}

// A child process that overwrites `path` through the named fallback and stops in the middle of
// the data (the first part written to the temporary), until a signal ends it. `before` runs in
// the child first. Returns its pid once it is stopped there, or -1.
pid_t StartExportStoppedMidWrite(const std::string& path, const std::function<void()>& before) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(ready[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the test
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);  // SIGQUIT, SIGABRT, ...: no core file for the test
    ::setenv("PE_EXPLORER_NAMED_TEMP", "1", 1);
    before();
    (void)WriteFileAtomically(path, [&](std::ostream& out) -> Status {
      out << std::string(100000, 'p');
      out.flush();
      const char c = 'r';
      (void)!::write(ready[1], &c, 1);
      for (;;) ::pause();  // until the signal
      return {};
    });
    ::_exit(3);
  }
  ::close(ready[1]);
  char c = 0;
  const bool stopped = child > 0 && ::read(ready[0], &c, 1) == 1;
  ::close(ready[0]);
  if (!stopped && child > 0) ::waitpid(child, nullptr, 0);
  return stopped ? child : -1;
}

// Every catchable signal whose default action ends the process, sent while the named temporary
// is half written: the temporary goes, the old target stays whole, and the process still dies
// of that signal (re-raised with the default action).
TEST(AtomicFile, EveryTerminatingSignalMidWriteRemovesTheNamedTemporary) {
  std::vector<int> sigs = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM,   SIGUSR1,  SIGUSR2, SIGPIPE,
                           SIGALRM, SIGXFSZ, SIGXCPU, SIGVTALRM, SIGPROF,  SIGABRT, SIGIO,
                           SIGPWR,  SIGSYS,  SIGTRAP, SIGSTKFLT, SIGRTMIN, SIGRTMAX};
  for (int sig : sigs) {
    SCOPED_TRACE(std::string("signal ") + std::to_string(sig) + " (" + ::strsignal(sig) + ")");
    const std::string dir = TempDir();
    const std::string path = dir + "/out.txt";
    { std::ofstream(path) << "old"; }
    const pid_t child = StartExportStoppedMidWrite(path, [sig] {
      // As a user's shell leaves it: the default action, not blocked.
      ::signal(sig, SIG_DFL);
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, sig);
      ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
    });
    ASSERT_GT(child, 0);
    const std::string temp_prefix = ".pe-export-" + std::to_string(child) + "-";
    const std::vector<std::string> during = FolderNames(dir);
    ASSERT_EQ(during.size(), 2u);  // the target and the named temporary, with the writer's pid
    EXPECT_EQ(during[0].rfind(temp_prefix, 0), 0u) << during[0];
    ASSERT_EQ(::kill(child, sig), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
    EXPECT_EQ(FolderNames(dir), std::vector<std::string>{"out.txt"});
    EXPECT_EQ(pe::testing::ReadFile(path), "old");
    std::system(("rm -rf " + dir).c_str());
  }
}

// A file-size limit reached in the middle of the data raises SIGXFSZ in the writer itself.
TEST(AtomicFile, AFileSizeLimitMidWriteLeavesNoTemporary) {
  const std::string dir = TempDir();
  const std::string path = dir + "/out.npy";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlimit no_core{0, 0}, limit{65536, 65536};
    ::setrlimit(RLIMIT_CORE, &no_core);
    ::signal(SIGXFSZ, SIG_DFL);
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::setenv("PE_EXPLORER_NAMED_TEMP", "1", 1);
    (void)WriteFileAtomically(path, [](std::ostream& out) -> Status {
      out << std::string(1 << 20, 'x');
      return {};
    });
    ::_exit(3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) << "status " << status;
  EXPECT_EQ(FolderNames(dir), std::vector<std::string>{});
  std::system(("rm -rf " + dir).c_str());
}

// SIGKILL cannot be caught: its temporary stays until the next export into the folder, which
// removes it because its writer is gone. A live writer's, a link, another machine's (its host
// part differs) and, as root, another user's are kept.
TEST(AtomicFile, AKilledWritersTemporaryIsRemovedByTheNextExport) {
  const std::string dir = TempDir();
  const std::string path = dir + "/out.txt";
  { std::ofstream(path) << "old"; }
  const pid_t child = StartExportStoppedMidWrite(path, [] {});
  ASSERT_GT(child, 0);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  std::vector<std::string> left = FolderNames(dir);
  ASSERT_EQ(left.size(), 2u);
  const std::string dead = left[0];
  const std::string dead_prefix = ".pe-export-" + std::to_string(child) + "-";
  ASSERT_EQ(dead.rfind(dead_prefix, 0), 0u) << dead;
  EXPECT_EQ(pe::testing::ReadFile(path), "old");
  ASSERT_EQ(::kill(child, 0), -1);  // reaped: no such process
  // The same name with this (live) process's pid, with another host part, and as a link.
  const std::string rest = dead.substr(dead_prefix.size());  // HOST-RANDOM.tmp
  const std::string live = ".pe-export-" + std::to_string(::getpid()) + "-" + rest;
  std::string other_host = dead;
  other_host[dead_prefix.size()] = other_host[dead_prefix.size()] == '0' ? '1' : '0';
  std::string link = dead;
  link[link.size() - 5] = link[link.size() - 5] == '0' ? '1' : '0';  // last random digit
  for (const std::string& n : {live, other_host}) {
    std::ofstream(dir + "/" + n) << "keep";
  }
  ASSERT_EQ(::symlink("out.txt", (dir + "/" + link).c_str()), 0);
  std::vector<std::string> kept = {".pe-export-a.tmp", link, live, other_host};
  if (::geteuid() == 0) {  // another user's temporary of a dead writer
    std::string others = dead;
    others[others.size() - 6] = others[others.size() - 6] == '0' ? '1' : '0';
    { std::ofstream(dir + "/" + others) << "keep"; }
    ASSERT_EQ(::chown((dir + "/" + others).c_str(), 65534, 65534), 0);
    kept.push_back(others);
  }
  { std::ofstream(dir + "/.pe-export-a.tmp") << "keep"; }  // not a name this program makes
  // The next export into the folder, by either path, to another file there.
  ASSERT_TRUE(WriteFileAtomically(dir + "/new.csv", [](std::ostream& o) -> Status {
                o << "new";
                return {};
              }).ok());
  kept.push_back("new.csv");
  kept.push_back("out.txt");
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(FolderNames(dir), kept);
  EXPECT_EQ(pe::testing::ReadFile(path), "old");
  std::system(("rm -rf " + dir).c_str());
}

// An overwritten file keeps rwx bits only: a set-user-ID, set-group-ID or sticky bit would now
// apply to a file the writer made.
TEST(AtomicFile, AnOverwrittenTargetKeepsPermissionBitsButNotSetIdOrSticky) {
  const std::string dir = TempDir();
  const std::string path = dir + "/tool";
  for (const bool named : {false, true}) {
    SCOPED_TRACE(named ? "named temporary" : "unnamed temporary");
    { std::ofstream(path) << "old"; }
    ASSERT_EQ(::chmod(path.c_str(), 07751), 0);
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    ASSERT_EQ(st.st_mode & 07777, 07751u);  // the filesystem keeps them
    if (named) {
      ASSERT_EQ(::setenv("PE_EXPLORER_NAMED_TEMP", "1", 1), 0);
    }
    const Status s = WriteFileAtomically(path, [](std::ostream& o) -> Status {
      o << "new";
      return {};
    });
    ::unsetenv("PE_EXPLORER_NAMED_TEMP");
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0751u);
    EXPECT_EQ(pe::testing::ReadFile(path), "new");
  }
  std::system(("rm -rf " + dir).c_str());
}

// A write error wins over the writer's own words: the message names the path and errno.
TEST(AtomicFile, AnIoErrorNamesThePathAndItsCause) {
  const int saved = ::dup(STDOUT_FILENO);
  const int full = ::open("/dev/full", O_WRONLY);
  ASSERT_GE(full, 0);
  ::dup2(full, STDOUT_FILENO);
  Status s = WriteFileAtomically("-", [](std::ostream& o) -> Status {
    o << std::string(1 << 20, 'x');
    return o ? Status() : RuntimeError("writing the table failed");
  });
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ::close(full);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot write to standard output: No space left on device");
}

TEST(DimList, ParsesListsAndRanges) {
  EXPECT_EQ(ParseDimList("4,5,6,7").value(), (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(ParseDimList("0-2, 9").value(), (std::vector<int64_t>{0, 1, 2, 9}));
  EXPECT_EQ(ParseDimList("4,x").message(),
            "dims: \"x\" is not a dimension index or a range like 4-7 (in \"4,x\")");
  EXPECT_FALSE(ParseDimList("").ok());
  EncodingParams p;
  p.d_model = 8;
  EXPECT_EQ(ValidateDims(*MakeEncoding(p).value(), {1, 8}).message(),
            "dims: dimension 8 is outside [0, 7] for d_model 8");
  EXPECT_EQ(ValidateDims(*MakeEncoding(p).value(), {1, 1}).message(),
            "dims: dimension 1 is listed twice");
}

// The NPY export of a table of several blocks, through ExportView (what `export -o t.npy`
// calls) into a real file: the header, then the engine's whole table computed in one piece
// (ComputePeTable for the sinusoid; one FillBlock over every row for the learned table), byte
// for byte. The file is three blocks and a part, so its size is no multiple of a block, and the
// width is odd so no block is a round number of bytes either.
TEST(Tables, MultiBlockNpyFileIsTheEngineTableByteForByte) {
  const std::string dir = TempDir();
  for (const bool learned : {false, true}) {
    SCOPED_TRACE(learned ? "learned" : "sinusoidal");
    ModelParams m;
    if (learned) m.pe.scheme = LearnedParams{};
    m.pe.d_model = 37;
    m.pe.offset = learned ? 0 : 5;
    const int64_t block_rows = TableBlockRows(m.pe.d_model);
    m.pe.max_len = 3 * block_rows + 1001;
    const int64_t shape[] = {m.pe.max_len, m.pe.d_model};
    const std::string header = NpyHeader(shape);
    const size_t block_bytes = static_cast<size_t>(block_rows * m.pe.d_model * 4);
    const size_t table_bytes = static_cast<size_t>(m.pe.max_len * m.pe.d_model * 4);
    ASSERT_NE(table_bytes % block_bytes, 0u);
    std::vector<float> expected;
    if (learned) {
      expected.resize(table_bytes / 4);
      MakeEncoding(m.pe).value()->FillBlock(0, m.pe.max_len, 0, m.pe.d_model, expected.data());
    } else {
      expected = ComputePeTable(m.pe).value().data;
    }
    const std::string path = dir + "/t.npy";
    ASSERT_TRUE(ExportView(ViewKind::kHeatmap, m, DefaultViews(m), path, {}).ok());
    const std::string bytes = pe::testing::ReadFile(path);
    ASSERT_EQ(bytes.size(), header.size() + table_bytes);
    EXPECT_EQ(bytes.substr(0, header.size()), header);
    for (size_t k = 0; k < expected.size(); ++k) {
      float v = 0;
      std::memcpy(&v, bytes.data() + header.size() + 4 * k, 4);
      ASSERT_EQ(std::bit_cast<uint32_t>(v), std::bit_cast<uint32_t>(expected[k]))
          << "row " << k / 37 << " col " << k % 37;
    }
    std::remove(path.c_str());
  }
  EXPECT_EQ(std::system(("rmdir " + dir).c_str()), 0) << "something was left in " << dir;
}

// The block writer on its own, with a fill whose every value names its cell (row * cols + col,
// exact in float32 below 2^24): any thread count, blocks that do not divide the rows, each
// block in its place once, progress once per block ending at 1.
TEST(TableBlocks, EveryBlockLandsInItsPlaceWhateverTheThreads) {
  constexpr int64_t kRows = 1000, kCols = 3, kBlockRows = 7;
  std::string naive;
  for (int64_t k = 0; k < kRows * kCols; ++k) {
    const auto v = static_cast<float>(k);
    naive.append(reinterpret_cast<const char*>(&v), 4);
  }
  auto fill = [](int64_t row0, int64_t rows, float* block) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < kCols; ++c)
        block[r * kCols + c] = static_cast<float>((row0 + r) * kCols + c);
    }
  };
  for (int threads : {1, 2, 3, 7, 200}) {
    std::ostringstream out;
    std::vector<double> reports;
    ASSERT_TRUE(WriteTableBlocks(
                    out, kRows, kCols, kBlockRows, fill,
                    [&](double f) {
                      reports.push_back(f);
                      return true;
                    },
                    threads)
                    .ok());
    EXPECT_TRUE(out.str() == naive) << threads << " threads";
    ASSERT_EQ(reports.size(), static_cast<size_t>((kRows + kBlockRows - 1) / kBlockRows));
    EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
    EXPECT_EQ(reports.back(), 1.0);
  }
}

// A stream that takes `room` bytes and then fails, as a full disk does.
class FailingBuf : public std::streambuf {
 public:
  explicit FailingBuf(size_t room) : room_(room) {}

 protected:
  int_type overflow(int_type ch) override {
    return room_-- > 0 ? traits_type::not_eof(ch) : traits_type::eof();
  }
  std::streamsize xsputn(const char* /*s*/, std::streamsize n) override {
    const auto k = std::min(room_, static_cast<size_t>(n));
    room_ -= k;
    return static_cast<std::streamsize>(k);
  }

 private:
  size_t room_;
};

// A fill that throws, a stream that fails and a cancel each end the write with their message,
// with every worker stopped (a worker left running would crash the test on exit).
TEST(TableBlocks, FailuresStopTheWorkersWithTheirReason) {
  auto fill = [](int64_t row0, int64_t rows, float* block) {
    if (row0 == 40) throw std::runtime_error("no memory for row 40");
    std::fill(block, block + rows * 2, 1.0f);
  };
  std::ostringstream out;
  EXPECT_EQ(WriteTableBlocks(out, 100, 2, 10, fill, {}, 3).message(),
            "filling the table failed: no memory for row 40");
  FailingBuf full(100);
  std::ostream to_full(&full);
  EXPECT_EQ(WriteTableBlocks(to_full, 100, 2, 10, fill, {}, 3).message(),
            "writing the table failed");
  int reports = 0;
  std::ostringstream cancelled;
  EXPECT_EQ(WriteTableBlocks(
                cancelled, 100, 2, 10,
                [](int64_t, int64_t rows, float* b) { std::fill(b, b + rows * 2, 0.f); },
                [&](double) { return ++reports < 3; }, 2)
                .message(),
            "the export was cancelled");
  EXPECT_EQ(reports, 3);
  EXPECT_EQ(cancelled.str().size(), 3u * 10 * 2 * 4);  // three blocks, then nothing
}

}  // namespace
}  // namespace pe
