#include "io/file_writers.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <streambuf>
#include <utility>
#include <vector>

namespace pe {

std::string NpyHeader(std::span<const int64_t> shape, NpyDtype dtype) {
  std::string dict = "{'descr': '";
  dict += dtype == NpyDtype::kInt32 ? "<i4" : dtype == NpyDtype::kFloat64 ? "<f8" : "<f4";
  dict += "', 'fortran_order': False, 'shape': (";
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

void WriteInt32sLE(std::ostream& out, const int32_t* values, int64_t n) {
  if constexpr (std::endian::native == std::endian::little) {
    out.write(reinterpret_cast<const char*>(values), static_cast<std::streamsize>(n * 4));
  } else {
    for (int64_t k = 0; k < n; ++k) {
      const auto bits = static_cast<uint32_t>(values[k]);
      char b[4] = {static_cast<char>(bits), static_cast<char>(bits >> 8),
                   static_cast<char>(bits >> 16), static_cast<char>(bits >> 24)};
      out.write(b, 4);
    }
  }
}

void WriteDoublesLE(std::ostream& out, const double* values, int64_t n) {
  if constexpr (std::endian::native == std::endian::little) {
    out.write(reinterpret_cast<const char*>(values), static_cast<std::streamsize>(n * 8));
  } else {
    for (int64_t k = 0; k < n; ++k) {
      const auto bits = std::bit_cast<uint64_t>(values[k]);
      char b[8];
      for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(bits >> (8 * i));
      out.write(b, 8);
    }
  }
}

std::string FormatDouble(double v) {
  char buf[40];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ec == std::errc() ? end : buf);
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

namespace {

// Closes a file descriptor when it goes out of scope, unless released.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  int Release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// A buffered stream sink on a file descriptor that keeps the errno of the first failed write,
// so an error can say why ("No space left on device") where std::ofstream only sets failbit.
class FdOutBuf : public std::streambuf {
 public:
  explicit FdOutBuf(int fd) : fd_(fd), buffer_(kBufferBytes) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  ~FdOutBuf() override { Drain(); }
  int error() const { return error_; }  // 0 while every write succeeded

 protected:
  int_type overflow(int_type ch) override {
    if (!Drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return Drain() ? 0 : -1; }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    // Large blocks (table rows in NPY) go straight to the file, not through the buffer.
    if (n < static_cast<std::streamsize>(buffer_.size())) return std::streambuf::xsputn(s, n);
    if (!Drain() || !WriteAll(s, static_cast<size_t>(n))) return 0;
    return n;
  }

 private:
  static constexpr size_t kBufferBytes = size_t{1} << 16;
  bool Drain() {
    const bool ok = WriteAll(pbase(), static_cast<size_t>(pptr() - pbase()));
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return ok;
  }
  bool WriteAll(const char* p, size_t n) {
    if (error_ != 0) return false;
    while (n > 0) {
      const ssize_t k = ::write(fd_, p, n);
      if (k < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      p += k;
      n -= static_cast<size_t>(k);
    }
    return true;
  }
  int fd_;
  int error_ = 0;
  std::vector<char> buffer_;
};

std::string FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Named temporaries that the signal handlers remove. Signal handlers see only globals, so this
// table is process-wide; a slot is claimed (1), filled, then published (2) for the handler.
constexpr int kTempSlots = 8;
constexpr size_t kTempNameBytes = 64;
struct TempSlot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 holds a name to remove
  int dir_fd = -1;
  char name[kTempNameBytes] = {};
};
TempSlot g_temp_slots[kTempSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads these slots");

// Removes every published temporary with async-signal-safe calls only, then dies of the same
// signal through its default action, so the exit status still tells what happened.
extern "C" void RemoveTemporariesAndReraise(int sig) {
  const int saved_errno = errno;
  for (TempSlot& slot : g_temp_slots) {
    if (slot.state.load() == 2) ::unlinkat(slot.dir_fd, slot.name, 0);
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);  // blocked while this handler runs; delivered with the default action on return
  errno = saved_errno;
}

// Every signal a handler can catch whose default action ends the process (signal(7): "Term"
// and "Core"), the real-time ones included. SIGKILL cannot be caught: the next export into the
// folder removes what it leaves (RemoveStaleTemporaries).
std::vector<int> TerminatingSignals() {
  std::vector<int> sigs = {SIGHUP,  SIGINT,  SIGQUIT,   SIGILL,  SIGTRAP, SIGABRT, SIGBUS,
                           SIGFPE,  SIGUSR1, SIGSEGV,   SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,
                           SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGSYS};
#ifdef SIGSTKFLT
  sigs.push_back(SIGSTKFLT);
#endif
#ifdef SIGPWR
  sigs.push_back(SIGPWR);
#endif
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) sigs.push_back(sig);
  return sigs;
}

// Installs the handler for every terminating signal whose action is the default; a handler the
// program set, or an ignored signal (nohup), is left alone. Checked at each registration (a few
// dozen system calls), so a signal set back to its default later is covered again.
void InstallTemporaryCleanup() {
  static const std::vector<int> kSignals = TerminatingSignals();
  for (int sig : kSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO) != 0) {
      continue;
    }
    struct sigaction sa {};
    sa.sa_handler = RemoveTemporariesAndReraise;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(sig, &sa, nullptr);
  }
}

// One named temporary, registered for removal on a terminating signal while active.
class TempName {
 public:
  ~TempName() { Release(); }
  void Register(int dir_fd, const std::string& name) {
    Release();
    assert(name.size() < kTempNameBytes && "temporary names are short and fixed-length");
    std::snprintf(name_, sizeof name_, "%s", name.c_str());
    InstallTemporaryCleanup();
    for (TempSlot& slot : g_temp_slots) {
      int expected = 0;
      if (slot.state.compare_exchange_strong(expected, 1)) {
        slot.dir_fd = dir_fd;
        std::memcpy(slot.name, name_, sizeof name_);
        slot.state.store(2);
        slot_ = &slot;
        break;
      }
    }
    active_ = true;  // with every slot taken it still works, only without the signal cleanup
  }
  void Release() {
    if (slot_ != nullptr) slot_->state.store(0);
    slot_ = nullptr;
    active_ = false;
  }
  bool active() const { return active_; }
  const char* name() const { return name_; }

 private:
  TempSlot* slot_ = nullptr;
  bool active_ = false;
  char name_[kTempNameBytes] = {};
};

// This machine in the temporaries' names: 32-bit FNV-1a of the host name. On a folder shared
// between machines (NFS) a process id means something only on the machine that wrote it.
uint32_t HostTag() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  uint32_t h = 2166136261u;
  for (const char* p = host; *p != '\0'; ++p) {
    h ^= static_cast<unsigned char>(*p);
    h *= 16777619u;
  }
  return h;
}

constexpr char kTempPrefix[] = ".pe-export-";

// ".pe-export-PID-HOST-0123456789abcdef.tmp" (PID decimal, HOST 8 hex digits of HostTag()):
// short whatever the target's name (a 255-byte target name still works), unguessable, so
// nobody can plant a file or link there in advance, and naming its writer, so one left by
// SIGKILL can be recognised as stale.
std::string RandomTempName() {
  uint64_t bits = 0;
  if (::getrandom(&bits, sizeof bits, 0) != static_cast<ssize_t>(sizeof bits)) {
    bits = static_cast<uint64_t>(std::random_device{}()) << 32 ^ std::random_device{}();
  }
  char name[kTempNameBytes];
  std::snprintf(name, sizeof name, "%s%d-%08x-%016llx.tmp", kTempPrefix,
                static_cast<int>(::getpid()), static_cast<unsigned>(HostTag()),
                static_cast<unsigned long long>(bits));
  return name;
}

// The writer's process id in a temporary's name made on this machine (`host`), or 0 when
// `name` is not such a temporary.
pid_t TemporaryWriter(const char* name, uint32_t host) {
  const size_t prefix = sizeof kTempPrefix - 1;
  if (std::strncmp(name, kTempPrefix, prefix) != 0) return 0;
  const char* p = name + prefix;
  int64_t pid = 0;
  int digits = 0;
  for (; *p >= '0' && *p <= '9'; ++p, ++digits) {
    if (digits == 10) return 0;
    pid = pid * 10 + (*p - '0');
  }
  if (digits == 0 || pid <= 0 || pid > INT_MAX || *p != '-') return 0;
  char expected_host[10];
  std::snprintf(expected_host, sizeof expected_host, "%08x-", static_cast<unsigned>(host));
  if (std::strncmp(p + 1, expected_host, 9) != 0) return 0;
  p += 10;
  for (int k = 0; k < 16; ++k, ++p) {
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return 0;
  }
  return std::strcmp(p, ".tmp") == 0 ? static_cast<pid_t>(pid) : 0;
}

// Removes the temporaries that writers killed by SIGKILL (which no handler sees) left in the
// folder `dir_fd`: regular files of this user, named by a process of this machine that no
// longer exists. A live writer's (another export going on) are kept. Best effort: a folder
// that cannot be listed is left as it is.
void RemoveStaleTemporaries(int dir_fd) {
  const int list_fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (list_fd < 0) return;
  DIR* dir = ::fdopendir(list_fd);
  if (dir == nullptr) {
    ::close(list_fd);
    return;
  }
  const uint32_t host = HostTag();
  const uid_t user = ::geteuid();
  while (const dirent* entry = ::readdir(dir)) {
    const pid_t pid = TemporaryWriter(entry->d_name, host);
    if (pid <= 0) continue;
    struct stat st {};
    if (::fstatat(dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != user) {
      continue;
    }
    if (::kill(pid, 0) == -1 && errno == ESRCH) ::unlinkat(dir_fd, entry->d_name, 0);
  }
  ::closedir(dir);
}

// PE_EXPLORER_NAMED_TEMP=1 takes the fallback path for filesystems without O_TMPFILE, so it
// can be tested (and used where an unnamed temporary misbehaves).
bool ForceNamedTemporary() {
  const char* v = std::getenv("PE_EXPLORER_NAMED_TEMP");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

// Gives the unnamed file `fd` the name `name` in `dir_fd`; fails with EEXIST when taken.
int LinkUnnamed(int fd, int dir_fd, const char* name) {
  char proc_path[64];
  std::snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
  if (::linkat(AT_FDCWD, proc_path, dir_fd, name, AT_SYMLINK_FOLLOW) == 0) return 0;
  if (errno != ENOENT) return -1;
  return ::linkat(fd, "", dir_fd, name, AT_EMPTY_PATH);  // without /proc (needs privilege)
}

}  // namespace

Status WriteFileAtomically(const std::string& path,
                           const std::function<Status(std::ostream&)>& write) {
  if (path == "-") {
    std::cout.flush();  // anything printed through std::cout goes out before the data
    FdOutBuf sink(STDOUT_FILENO);
    std::ostream out(&sink);
    Status s = write(out);
    out.flush();
    if (sink.error() != 0) {
      return RuntimeError(std::string("cannot write to standard output: ") +
                          std::strerror(sink.error()));
    }
    if (s.ok() && !out) return RuntimeError("cannot write to standard output");
    return s;
  }
  if (path.empty()) return InvalidArgument("the output path is empty");
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) return InvalidArgument("cannot write " + path + ": it names a folder");
  auto io_error = [&](const std::string& what, int err) {
    return RuntimeError(what + " " + path + ": " + std::strerror(err));
  };

  const int dir_fd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return io_error("cannot write", errno);
  const FdCloser dir_closer{dir_fd};
  struct stat target {};
  const bool target_exists = ::fstatat(dir_fd, base.c_str(), &target, AT_SYMLINK_NOFOLLOW) == 0;
  if (!target_exists && errno != ENOENT) return io_error("cannot write", errno);
  // Only regular files are replaced. A FIFO, a device or a directory would be swapped for a
  // regular file by the rename. A symbolic link is refused too: the rename would replace the
  // link rather than write to the file it points at, and following it would let a link planted
  // in a shared folder redirect the export to any file the user can write.
  if (target_exists && !S_ISREG(target.st_mode)) {
    return RuntimeError("cannot write " + path + ": it is " + FileKind(target.st_mode) +
                        ", not a regular file; name a regular file or a new one");
  }

  // The data goes to an unnamed file in the target's folder (O_TMPFILE): until it is linked
  // in, no signal, not even SIGKILL, can leave it behind. Filesystems without O_TMPFILE get a
  // named temporary with a random name, created exclusively (O_EXCL, O_NOFOLLOW), that the
  // handlers of the terminating signals remove; what SIGKILL left there before goes first.
  RemoveStaleTemporaries(dir_fd);
  TempName named;
  int fd = -1;
  if (!ForceNamedTemporary()) {
    fd = ::openat(dir_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
      return io_error("cannot write", errno);
    }
  }
  const bool unnamed = fd >= 0;
  if (!unnamed) {
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
      named.Register(dir_fd, RandomTempName());
      fd = ::openat(dir_fd, named.name(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0666);
      if (fd < 0) {
        const int err = errno;
        named.Release();
        if (err != EEXIST) return io_error("cannot write", err);
      }
    }
    if (fd < 0) return io_error("cannot write", EEXIST);
  }
  FdCloser closer{fd};
  auto discard = [&](Status s) {
    if (named.active()) {
      ::unlinkat(dir_fd, named.name(), 0);
      named.Release();
    }
    return s;
  };
  // An overwritten file keeps its permission bits; a new one has 0666 minus the umask, as
  // open(2) gives it. (Owner and group stay those of the writer, so the set-user-ID,
  // set-group-ID and sticky bits are not carried over: they would now name the writer.)
  if (target_exists && ::fchmod(fd, target.st_mode & 0777) != 0) {
    return discard(io_error("cannot set the permissions of", errno));
  }

  Status s;
  {
    FdOutBuf sink(fd);
    std::ostream out(&sink);
    s = write(out);
    out.flush();
    // A failed write is reported with its path and cause, over the writer's own words.
    if (sink.error() != 0) return discard(io_error("cannot write", sink.error()));
    if (s.ok() && !out) s = RuntimeError("cannot write " + path + ": the output stream failed");
  }
  if (!s.ok()) return discard(s);

  if (named.active()) {
    if (::close(closer.Release()) != 0) return discard(io_error("cannot finish writing", errno));
    if (::renameat(dir_fd, named.name(), dir_fd, base.c_str()) != 0) {
      return discard(io_error("cannot put the finished file in place at", errno));
    }
    named.Release();
    return {};
  }
  // Unnamed: link it in. A new target is linked under its own name directly (linkat never
  // replaces, so a name planted meanwhile is not followed); an existing one is replaced
  // atomically through a randomly named link and rename.
  if (!target_exists) {
    if (LinkUnnamed(fd, dir_fd, base.c_str()) == 0) return {};
    if (errno != EEXIST) return io_error("cannot put the finished file in place at", errno);
  }
  for (int attempt = 0; attempt < 16; ++attempt) {
    named.Register(dir_fd, RandomTempName());
    if (LinkUnnamed(fd, dir_fd, named.name()) == 0) {
      if (::renameat(dir_fd, named.name(), dir_fd, base.c_str()) != 0) {
        return discard(io_error("cannot put the finished file in place at", errno));
      }
      named.Release();
      return {};
    }
    const int err = errno;
    named.Release();
    if (err != EEXIST) return io_error("cannot put the finished file in place at", err);
  }
  return io_error("cannot put the finished file in place at", EEXIST);
}

Status WriteFileAtomicallyThroughLinks(const std::string& path,
                                       const std::function<Status(std::ostream&)>& write) {
  std::string at = path;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) break;  // the end of the chain
    if (hops == 40) {  // as the kernel's own limit (ELOOP)
      return RuntimeError("cannot write " + path + ": " + std::strerror(ELOOP));
    }
    std::vector<char> buf(static_cast<size_t>(st.st_size > 0 ? st.st_size : PATH_MAX) + 1);
    const ssize_t n = ::readlink(at.c_str(), buf.data(), buf.size());
    if (n < 0) {
      return RuntimeError("cannot write " + path + ": " + std::strerror(errno));
    }
    if (static_cast<size_t>(n) >= buf.size() || n == 0) {  // changed meanwhile, or empty
      return RuntimeError("cannot write " + path + ": its symbolic link cannot be read");
    }
    const std::string target(buf.data(), static_cast<size_t>(n));
    const size_t slash = at.find_last_of('/');
    at = target[0] == '/' || slash == std::string::npos ? target : at.substr(0, slash + 1) + target;
  }
  Status s = WriteFileAtomically(at, write);
  if (s.ok() || at == path) return s;
  return Error{s.error().kind, s.message() + " (" + path + " is a symbolic link to it)"};
}

}  // namespace pe
