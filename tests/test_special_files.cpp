// Every file reader on files that are not what a reader expects: empty files, sparse files of
// exabytes, /dev/zero, /proc files, FIFOs with and without a writer, directories, and a table
// rewritten in place after (or while) it is loaded. Each must give a clear error or the right
// data, and none may hang, crash or throw. Files are written byte by byte here, so the expected
// values are the ones put in.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "io/figure_metadata_reader.h"
#include "io/loaded_table.h"
#include "io/npy_reader.h"
#include "io/read_support.h"
#include "io/safetensors_reader.h"
#include "io/session_file.h"
#include "io/tensor_file.h"
#include "io/word_vectors_reader.h"
#include "session/session.h"
#include "test_support.h"
#include "text/subword_tokenizer.h"
#include "text/tokenizer.h"

namespace pe {
namespace {

using SpecialFiles = pe::testing::TempDirTest;

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// An NPY v1.0 '<f4' file of (rows, cols) with value r * 1000 + c at (r, c), composed by hand
// (NEP 1: magic, version, header length, the dict padded to 64 bytes and ended by '\n').
std::string NpyTable(int64_t rows, int64_t cols, bool newline = true) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) +
                     ", " + std::to_string(cols) + "), }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += newline ? '\n' : ' ';
  std::string s = "\x93NUMPY";
  s += '\x01';
  s += '\x00';
  s += static_cast<char>(dict.size() & 0xff);
  s += static_cast<char>(dict.size() >> 8);
  s += dict;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const float v = static_cast<float>(r * 1000 + c);
      s.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  return s;
}

// A safetensors file holding one F32 tensor "t" of (rows, cols), values as NpyTable's.
std::string SafetensorsTable(int64_t rows, int64_t cols) {
  std::string data;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const float v = static_cast<float>(r * 1000 + c);
      data.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  const std::string json = "{\"t\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(rows) + "," +
                           std::to_string(cols) + "],\"data_offsets\":[0," +
                           std::to_string(data.size()) + "]}}";
  std::string s(8, '\0');
  for (int k = 0; k < 8; ++k) s[static_cast<size_t>(k)] = static_cast<char>(json.size() >> (8 * k));
  return s + json + data;
}

// GloVe text: "wR v v v" with values as NpyTable's.
std::string GloveTable(int64_t rows, int64_t cols) {
  std::string s;
  for (int64_t r = 0; r < rows; ++r) {
    s += 'w';
    s += std::to_string(r);
    for (int64_t c = 0; c < cols; ++c) {
      s += ' ';
      s += std::to_string(r * 1000 + c);
    }
    s += '\n';
  }
  return s;
}

void ExpectTableValues(const LoadedTable& t, int64_t rows, int64_t cols) {
  ASSERT_EQ(t.rows(), rows);
  ASSERT_EQ(t.cols(), cols);
  std::vector<float> row(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; r += std::max<int64_t>(1, rows / 97)) {
    t.Read(r, 1, 0, cols, row.data());
    for (int64_t c = 0; c < cols; ++c) {
      ASSERT_EQ(row[static_cast<size_t>(c)], static_cast<float>(r * 1000 + c)) << r << "," << c;
    }
  }
}

// ---- a table rewritten in place

// np.save truncates the file and writes it again: a view reading the loaded table after that
// must see the table as it was loaded (it read the file's pages through a mapping before, and
// the first page past the new end killed the process with SIGBUS).
TEST_F(SpecialFiles, ALoadedTableKeepsItsValuesWhenTheFileIsTruncated) {
  struct Case {
    std::string name, bytes;
  };
  const int64_t rows = 3000, cols = 24;
  for (const Case& c :
       {Case{"t.npy", NpyTable(rows, cols)}, Case{"t.safetensors", SafetensorsTable(rows, cols)},
        Case{"t.txt", GloveTable(rows, cols)}}) {
    SCOPED_TRACE(c.name);
    const std::string path = Path(c.name);
    WriteBytes(path, c.bytes);
    Result<LoadedTablePtr> t = LoadTable({path, ""}, TableUse::kEmbeddings);
    ASSERT_TRUE(t.ok()) << t.message();
    ASSERT_EQ(::truncate(path.c_str(), 0), 0);
    ExpectTableValues(*t.value(), rows, cols);
    Result<Matrix> m = t.value()->ReadRows(rows - 2, 2);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m.value().data.back(), static_cast<float>((rows - 1) * 1000 + cols - 1));
    // Loading again reads the file as it is now.
    Result<LoadedTablePtr> again = SharedTableCache().Get({path, ""}, TableUse::kEmbeddings);
    ASSERT_FALSE(again.ok());
    EXPECT_TRUE(Contains(again.message(), "the file is empty")) << again.message();
  }
}

// Truncated while it is being read (here: when the load reports its first progress): a clear
// error naming the change, not SIGBUS and not a table that mixes two files.
TEST_F(SpecialFiles, ATableTruncatedWhileItLoadsIsRefused) {
  for (const std::string name : {"t.npy", "t.safetensors"}) {
    SCOPED_TRACE(name);
    const std::string path = Path(name);
    WriteBytes(path, name == "t.npy" ? NpyTable(70000, 4) : SafetensorsTable(70000, 4));
    bool truncated = false;
    Progress cut = [&](double) {
      if (!truncated) truncated = ::truncate(path.c_str(), 4096) == 0;
      return true;
    };
    Result<LoadedTablePtr> t = LoadTable({path, ""}, TableUse::kEmbeddings, {}, cut);
    ASSERT_TRUE(truncated);
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(Contains(t.message(), "changed while it was read")) << t.message();
    EXPECT_TRUE(Contains(t.message(), path)) << t.message();
  }
}

// The same for word-vector text past the part every file source copies (16 MiB): it is read
// into memory, then parsed, and the change is noticed.
TEST_F(SpecialFiles, WordVectorsTruncatedWhileTheyLoadAreRefused) {
  const std::string path = Path("big.txt");
  const int64_t rows = 60000, cols = 40;  // about 20 MB of text
  WriteBytes(path, GloveTable(rows, cols));
  bool truncated = false;
  Progress cut = [&](double) {
    if (!truncated) truncated = ::truncate(path.c_str(), 4096) == 0;
    return true;
  };
  Result<LoadedTablePtr> t = LoadTable({path, ""}, TableUse::kEmbeddings, {}, cut, 2);
  ASSERT_TRUE(truncated);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(Contains(t.message(), "changed while it was read")) << t.message();
  // Untouched, the same file loads with its values.
  WriteBytes(path, GloveTable(rows, cols));
  Result<LoadedTablePtr> again = LoadTable({path, ""}, TableUse::kEmbeddings, {}, {}, 2);
  ASSERT_TRUE(again.ok()) << again.message();
  ExpectTableValues(*again.value(), rows, cols);
}

// ---- pipes

// A FIFO fed by a thread. `keep` holds a read end open so the writer's open returns at once;
// it never reads, so every byte goes to the reader under test.
class FifoFeeder {
 public:
  FifoFeeder(const std::string& path, std::string bytes) {
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
    keep_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
    const int w = ::open(path.c_str(), O_WRONLY);
    EXPECT_GE(w, 0);
    writer_ = std::thread([w, bytes = std::move(bytes)] {
      size_t done = 0;
      while (done < bytes.size()) {
        const ssize_t n = ::write(w, bytes.data() + done, bytes.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      ::close(w);
    });
  }
  ~FifoFeeder() {
    // Whatever the reader left (it failed early) is drained, so the writer can finish.
    ::fcntl(keep_, F_SETFL, 0);
    char buf[4096];
    while (::read(keep_, buf, sizeof buf) > 0) {
    }
    writer_.join();
    ::close(keep_);
  }

 private:
  int keep_ = -1;
  std::thread writer_;
};

// The format is sniffed from the same stream the reader then reads: the first bytes are not
// lost (before, the reader opened the FIFO again and read from byte 9 on).
TEST_F(SpecialFiles, TablesFromAFifoAreReadFromTheirFirstByte) {
  const int64_t rows = 5000, cols = 8;  // 160 KB: more than a pipe holds at once
  struct Case {
    std::string name, bytes;
  };
  for (const Case& c :
       {Case{"npy", NpyTable(rows, cols)}, Case{"safetensors", SafetensorsTable(rows, cols)},
        Case{"glove", GloveTable(rows, cols)}}) {
    SCOPED_TRACE(c.name);
    const std::string path = Path(c.name + ".fifo");
    {
      FifoFeeder feed(path, c.bytes);
      Result<LoadedTablePtr> t = LoadTable({path, ""}, TableUse::kEmbeddings);
      ASSERT_TRUE(t.ok()) << t.message();
      ExpectTableValues(*t.value(), rows, cols);
    }
    if (c.name == "glove") continue;
    ::unlink(path.c_str());
    FifoFeeder feed(path, c.bytes);
    Result<LoadedTensor> r = ReadTensorFile({path, ""});
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r.value().values.data.size(), static_cast<size_t>(rows * cols));
    EXPECT_EQ(r.value().values.data[1234], static_cast<float>(154 * 1000 + 2));
  }
}

// ---- sizes near 2^62 and 2^63

TEST(SpecialFileSizes, SaturatingArithmeticNeverWraps) {
  EXPECT_EQ(SaturatingMul(uint64_t{1} << 62, 24), UINT64_MAX);  // wrapped to 0 before
  EXPECT_EQ(SaturatingMul(uint64_t{1} << 63, 4), UINT64_MAX);
  EXPECT_EQ(SaturatingMul(1000, 24), 24000u);
  EXPECT_EQ(SaturatingAdd(UINT64_MAX - 1, 5), UINT64_MAX);
  EXPECT_EQ(SaturatingAdd(2, 5), 7u);
}

// A folder on tmpfs when there is one (ext4 refuses sizes past 16 TiB), else `fallback`.
std::string SparseDir(const std::string& fallback) {
  char tmpl[] = "/dev/shm/pe-test-XXXXXX";
  if (::mkdtemp(tmpl) != nullptr) return tmpl;
  return fallback;
}

// A sparse file of `size` bytes, or false when the file system cannot have one.
bool MakeSparse(const std::string& path, uint64_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return false;
  const bool ok = ::ftruncate(fd, static_cast<off_t>(size)) == 0;
  ::close(fd);
  return ok;
}

// tokenizer.json and a vocabulary of 4 EiB and of 8 EiB - 1: refused by size before a byte is
// read (the size check wrapped: 2^62 * 24 is 0 mod 2^64, and the resize threw).
TEST_F(SpecialFiles, SparseFilesOfExabytesAreRefusedBySize) {
  const std::string dir = SparseDir(dir_);
  bool any = false;
  for (const uint64_t size : {uint64_t{1} << 62, (uint64_t{1} << 63) - 1}) {
    SCOPED_TRACE(size);
    const std::string path = dir + "/tokenizer.json";
    if (!MakeSparse(path, size)) continue;
    any = true;
    auto tok = LoadSubwordTokenizer(path, MemoryCap{});
    ASSERT_FALSE(tok.ok());
    EXPECT_TRUE(Contains(tok.message(), "over the memory cap")) << tok.message();
    auto vocab = ReadVocabularyFile(path, MemoryCap{});
    ASSERT_FALSE(vocab.ok());
    EXPECT_TRUE(Contains(vocab.message(), "over the memory cap")) << vocab.message();
    auto hash = Fnv1a64File(path);
    ASSERT_FALSE(hash.ok());
    EXPECT_TRUE(Contains(hash.message(), "larger than")) << hash.message();
    ::unlink(path.c_str());
  }
  if (dir != dir_) ::rmdir(dir.c_str());
  if (!any) GTEST_SKIP() << "no file system here takes a sparse file of 2^62 bytes";
}

// ---- the matrix: every reader on every special file

struct Reader {
  const char* name;
  std::function<std::string(const std::string&)> run;  // "" when it read data, else the error
};

template <class R>
std::string Message(const R& r) {
  return r.ok() ? std::string() : r.message();
}

std::vector<Reader> AllReaders() {
  const MemoryCap cap{uint64_t{64} << 20};
  return {
      {"npy", [=](const std::string& p) { return Message(ReadNpyFile(p, cap)); }},
      {"safetensors", [=](const std::string& p) { return Message(SafetensorsFile::Open(p, cap)); }},
      {"tensor file",
       [=](const std::string& p) {
         return Message(ReadTensorFile({p, ""}, cap));
       }},
      {"tensor list", [=](const std::string& p) { return Message(ListTensorFile(p, cap)); }},
      {"word vectors",
       [=](const std::string& p) {
         return Message(ReadWordVectorsFile(p, WordVectorFormat::kAuto, cap));
       }},
      {"embeddings table",
       [=](const std::string& p) {
         return Message(LoadTable({p, ""}, TableUse::kEmbeddings, cap));
       }},
      {"positions table",
       [=](const std::string& p) {
         return Message(LoadTable({p, ""}, TableUse::kPositions, cap));
       }},
      {"vocabulary", [=](const std::string& p) { return Message(ReadVocabularyFile(p, cap)); }},
      {"tokenizer", [=](const std::string& p) { return Message(LoadSubwordTokenizer(p, cap)); }},
      {"session", [=](const std::string& p) { return Message(ReadSessionDocument(p)); }},
      {"session hash", [=](const std::string& p) { return Message(Fnv1a64File(p)); }},
      {"figure metadata", [=](const std::string& p) { return Message(ReadFigureMetadata(p)); }},
  };
}

TEST_F(SpecialFiles, EveryReaderRefusesSpecialFilesClearlyWithoutHanging) {
  WriteBytes(Path("empty"), "");
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0600), 0);  // no writer, ever
  ASSERT_EQ(::mkdir(Path("folder").c_str(), 0700), 0);
  const std::string sparse_dir = SparseDir(dir_);
  const std::string sparse = sparse_dir + "/sparse";
  const bool have_sparse = MakeSparse(sparse, uint64_t{1} << 62);
  std::vector<std::string> paths = {Path("empty"), Path("fifo"),         Path("folder"),
                                    "/dev/zero",   "/proc/self/environ", "/proc/self/mem"};
  if (have_sparse) paths.push_back(sparse);
  for (const Reader& reader : AllReaders()) {
    for (const std::string& path : paths) {
      SCOPED_TRACE(std::string(reader.name) + " on " + path);
      std::string message;
      ASSERT_NO_THROW(message = reader.run(path));
      // A session's hash of a regular file (empty, or a /proc file) is a hash; nothing else
      // here has data a reader can use.
      struct stat st {};
      if (std::string(reader.name) == "session hash" && ::stat(path.c_str(), &st) == 0 &&
          S_ISREG(st.st_mode) && st.st_size == 0) {
        continue;
      }
      EXPECT_FALSE(message.empty());
      EXPECT_TRUE(Contains(message, path)) << message;
    }
  }
  if (have_sparse) ::unlink(sparse.c_str());
  if (sparse_dir != dir_) ::rmdir(sparse_dir.c_str());
}

// An empty file is named as such (the word-vector path ran memchr on a null mapping).
TEST_F(SpecialFiles, AnEmptyTableFileSaysItIsEmpty) {
  for (const std::string name : {"e.txt", "e.npy", "e.safetensors"}) {
    WriteBytes(Path(name), "");
    for (TableUse use : {TableUse::kEmbeddings, TableUse::kPositions}) {
      Result<LoadedTablePtr> t = LoadTable({Path(name), ""}, use);
      ASSERT_FALSE(t.ok());
      EXPECT_EQ(t.message(), "\"" + Path(name) + "\": the file is empty");
    }
    Result<LoadedTensor> r = ReadTensorFile({Path(name), ""});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.message(), "\"" + Path(name) + "\": the file is empty");
  }
}

// A kernel file whose size reads as 0 has content: it is read as a stream and refused for
// what it holds, not mapped as empty.
TEST(SpecialFileKinds, AProcFileIsReadForWhatItHolds) {
  Result<LoadedTablePtr> t = LoadTable({"/proc/self/environ", ""}, TableUse::kEmbeddings);
  ASSERT_FALSE(t.ok());
  EXPECT_FALSE(Contains(t.message(), "empty")) << t.message();
}

// ---- session hashes

TEST_F(SpecialFiles, SessionHashesReadOnlyRegularFiles) {
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0600), 0);
  for (const std::string& path : {Path("fifo"), std::string("/dev/zero")}) {
    Result<uint64_t> h = Fnv1a64File(path);
    ASSERT_FALSE(h.ok());
    EXPECT_TRUE(Contains(h.message(), "expected a regular file")) << h.message();
  }
  WriteBytes(Path("a"), "a");
  Result<uint64_t> h = Fnv1a64File(Path("a"));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h.value(), 0xaf63dc4c8601ec8cull);
}

// ---- strict headers and named lines

TEST_F(SpecialFiles, AnNpyHeaderWithoutItsNewlineIsRefusedNamingTheByte) {
  const std::string bytes = NpyTable(2, 3, /*newline=*/false);
  Result<NpyFloatArray> r = ReadNpy(std::as_bytes(std::span(bytes.data(), bytes.size())));
  ASSERT_FALSE(r.ok());
  // The dict ends at byte 127 (10 bytes before it, padded to a multiple of 64).
  EXPECT_TRUE(Contains(r.message(), "byte 127: the header ends with ' '")) << r.message();
  EXPECT_TRUE(Contains(r.message(), "newline")) << r.message();
  const std::string good = NpyTable(2, 3);
  EXPECT_TRUE(ReadNpy(std::as_bytes(std::span(good.data(), good.size()))).ok());
}

TEST_F(SpecialFiles, AVocabularyNamesTheFileAndLineOfABadOrRepeatedToken) {
  WriteBytes(Path("v.txt"), "alpha\nbe\xfftween\ngamma\n");
  auto bad = ReadVocabularyFile(Path("v.txt"), MemoryCap{});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "\"" + Path("v.txt") +
                               "\" line 2: byte 2 of the line is not valid UTF-8; expected one "
                               "UTF-8 token a line");
  WriteBytes(Path("d.txt"), "alpha\n\nbeta\nalpha\n");
  auto dup = ReadVocabularyFile(Path("d.txt"), MemoryCap{});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.message(), "\"" + Path("d.txt") +
                               "\" line 4: the token \"alpha\" appears again (first at line 1); "
                               "expected unique tokens");
  WriteBytes(Path("ok.txt"), "alpha\r\n\n\xc3\xa9t\xc3\xa9\nbeta");
  auto ok = ReadVocabularyFile(Path("ok.txt"), MemoryCap{});
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok.value(), (std::vector<std::string>{"alpha", "\xc3\xa9t\xc3\xa9", "beta"}));
}

TEST_F(SpecialFiles, ASessionFileOfBinaryDataSaysSo) {
  WriteBytes(Path("last.pexs"), std::string("\0\0\0{}", 5));
  Result<SessionDocument> d = ReadSessionDocument(Path("last.pexs"));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.message(), "\"" + Path("last.pexs") +
                             "\" is not a session file: binary data (a NUL byte) at byte 0; a "
                             "session file is JSON text");
}

// ---- the memory cap of word vectors

#if defined(__SANITIZE_ADDRESS__)
#define PE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PE_TEST_ASAN 1
#endif
#endif

// A GloVe file whose table is several times the cap is refused before it is parsed: the peak
// memory stays under the cap (it was parsed whole on every core first, 4 to 11 times the cap).
TEST_F(SpecialFiles, WordVectorsOverTheCapAreRefusedNearTheCap) {
#ifdef PE_TEST_ASAN
  GTEST_SKIP() << "resident memory is not comparable under AddressSanitizer";
#else
  // 120,000 rows of 100 values: a 48 MB table, 8 MiB cap.
  const std::string path = Path("big.txt");
  {
    std::ofstream out(path, std::ios::binary);
    std::string row;
    for (int c = 0; c < 100; ++c) row += " 0.1234";
    for (int r = 0; r < 120000; ++r) out << 'w' << r << row << '\n';
  }
  // In a child whose peak is reset first (clear_refs 5), so the peak is the load's own.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto status_kib = [](const char* key) {
      std::ifstream in("/proc/self/status");
      for (std::string line; std::getline(in, line);) {
        if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key));
      }
      return -1L;
    };
    if (!(std::ofstream("/proc/self/clear_refs") << "5")) ::_exit(2);
    const long before = status_kib("VmRSS:");
    Result<LoadedTablePtr> t =
        LoadTable({path, ""}, TableUse::kEmbeddings, MemoryCap{uint64_t{8} << 20}, {}, 2);
    const long grew_kib = status_kib("VmHWM:") - before;
    const bool refused = !t.ok() && t.message().find("over the memory cap") != std::string::npos;
    // Refused from an estimate of the first lines: the first MiB of text and slack, 16 MiB.
    // Before, the whole file was touched (85 MB) and parsed on each core.
    ::_exit(!refused ? 3 : grew_kib < 16 * 1024 ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
#endif
}

}  // namespace
}  // namespace pe
