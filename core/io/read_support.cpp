#include "io/read_support.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace pe {

Result<std::span<const std::byte>> SpanSource::Prefix(uint64_t n) {
  return bytes_.first(static_cast<size_t>(std::min<uint64_t>(n, bytes_.size())));
}

std::string Quoted(const std::string& path) {
  std::string q = "\"";
  q += path;
  q += '"';
  return q;
}

Error WithPath(Error e, const std::string& path) {
  const std::string q = Quoted(path);
  if (e.message.rfind(q, 0) != 0) e.message = q + ": " + e.message;
  return e;
}

const char* FileKindName(unsigned mode) {
  return S_ISREG(mode)    ? "a regular file"
         : S_ISDIR(mode)  ? "a directory"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

RegularFileReader RegularFileReader::Open(const std::string& path) {
  RegularFileReader f;
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st {};
  if (f.fd_ < 0 || ::fstat(f.fd_, &st) != 0) {
    f.failure_ = Failure::kCannotRead;
    f.error_ = errno;
    return f;
  }
  f.mode_ = st.st_mode;
  f.size_ = static_cast<uint64_t>(st.st_size);
  if (!S_ISREG(st.st_mode)) f.failure_ = Failure::kNotRegular;
  return f;
}

RegularFileReader::RegularFileReader(RegularFileReader&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      failure_(other.failure_),
      error_(other.error_),
      mode_(other.mode_),
      size_(other.size_) {}

RegularFileReader::~RegularFileReader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<FileSource>> FileSource::Open(const std::string& path,
                                                     uint64_t stream_limit) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; reads block again below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return RuntimeError("cannot read " + Quoted(path) + ": " + std::strerror(errno));
  std::unique_ptr<FileSource> f(new FileSource());
  f->fd_ = fd;
  f->path_ = path;
  f->stream_limit_ = stream_limit;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return RuntimeError("cannot read " + Quoted(path) + ": " + std::strerror(errno));
  }
  // A regular file of size 0 may be empty or a kernel file (/proc) that has content: read
  // it as a stream.
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    f->mapped_ = true;
    f->map_size_ = static_cast<uint64_t>(st.st_size);
    f->mtime_ns_ = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (f->map_size_ > std::numeric_limits<size_t>::max()) {
      return InvalidArgument(Quoted(path) + " is " + FormatBytes(f->map_size_) +
                             ", more than this system can map");
    }
    void* p = ::mmap(nullptr, static_cast<size_t>(f->map_size_), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      return RuntimeError("cannot map " + Quoted(path) + " (" + FormatBytes(f->map_size_) +
                          "): " + std::strerror(errno));
    }
    f->map_ = static_cast<const std::byte*>(p);
    return f;
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode)) {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return f;
  }
  const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  return InvalidArgument(Quoted(path) + " is " + kind +
                         "; expected a regular file (or a pipe or character device)");
}

FileSource::~FileSource() {
  if (map_ != nullptr) ::munmap(const_cast<std::byte*>(map_), static_cast<size_t>(map_size_));
  if (fd_ >= 0) ::close(fd_);
}

std::optional<uint64_t> FileSource::KnownSize() const {
  if (mapped_) return map_size_;
  return std::nullopt;
}

Status FileSource::ReadAt(uint64_t offset, std::span<std::byte> out) const {
  assert(mapped_);
  size_t done = 0;
  while (done < out.size()) {
    const uint64_t at = offset + done;
    const ssize_t got = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return RuntimeError("cannot read " + Quoted(path_) + " at byte " + std::to_string(at) + ": " +
                          std::strerror(errno));
    }
    if (got == 0) {
      return RuntimeError(Quoted(path_) + " changed while it was read: it ends at byte " +
                          std::to_string(at) + ", but had " + std::to_string(map_size_) +
                          " bytes when opened; load it again");
    }
    done += static_cast<size_t>(got);
  }
  return {};
}

Status FileSource::CheckUnchanged() const {
  assert(mapped_);
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    return RuntimeError("cannot read " + Quoted(path_) + ": " + std::strerror(errno));
  }
  const int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (static_cast<uint64_t>(st.st_size) != map_size_ || mtime != mtime_ns_) {
    return RuntimeError(Quoted(path_) + " changed while it was read (" + std::to_string(map_size_) +
                        " bytes when opened, " + std::to_string(st.st_size) +
                        " now); load it again");
  }
  return {};
}

Status FileSource::FillBuffer(size_t have, size_t until) {
  while (have < until) {
    const size_t room = buffer_.size() - have;
    const ssize_t got = mapped_
                            ? ::pread(fd_, buffer_.data() + have, room, static_cast<off_t>(have))
                            : ::read(fd_, buffer_.data() + have, room);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int err = errno;
      buffer_.resize(have);
      return RuntimeError("cannot read " + Quoted(path_) + " at byte " + std::to_string(have) +
                          ": " + std::strerror(err));
    }
    if (got == 0) {
      eof_ = true;
      break;
    }
    have += static_cast<size_t>(got);
  }
  buffer_.resize(have);
  return {};
}

Result<std::span<const std::byte>> FileSource::Prefix(uint64_t n) {
  if (mapped_) {
    n = std::min(n, map_size_);
    if (n > kCopiedPrefixBytes) return std::span<const std::byte>(map_, static_cast<size_t>(n));
    // A header: copied, so a file truncated meanwhile gives fewer bytes instead of a fault.
    if (n > buffer_.size() && !eof_) {
      const size_t have = buffer_.size();
      buffer_.resize(static_cast<size_t>(
          std::min<uint64_t>({map_size_, kCopiedPrefixBytes, std::max<uint64_t>(n, 2 * have)})));
      if (Status filled = FillBuffer(have, buffer_.size()); !filled.ok()) return filled.error();
    }
    return std::span<const std::byte>(buffer_.data(),
                                      static_cast<size_t>(std::min<uint64_t>(n, buffer_.size())));
  }
  if (n > buffer_.size() && !eof_) {
    // One byte past the limit tells a stream that ends at the limit from a longer one.
    const uint64_t target = std::min<uint64_t>(n, stream_limit_ + 1);
    // Allocate geometrically so a reader asking line by line costs amortised O(size).
    const uint64_t want = std::max<uint64_t>(
        target, std::min<uint64_t>({2 * buffer_.size(), target + (1 << 20), stream_limit_ + 1}));
    const size_t have = buffer_.size();
    buffer_.resize(static_cast<size_t>(want));
    if (Status filled = FillBuffer(have, static_cast<size_t>(target)); !filled.ok()) {
      return filled.error();
    }
    if (buffer_.size() > stream_limit_) {
      return InvalidArgument(Quoted(path_) + ": the stream goes on past " +
                             FormatBytes(stream_limit_) +
                             " (the memory cap) before the reader has what it needs; "
                             "raise the cap (--memory-cap-mib) if the data is real");
    }
  }
  return std::span<const std::byte>(buffer_.data(),
                                    static_cast<size_t>(std::min<uint64_t>(n, buffer_.size())));
}

void CountNonFinite(FloatTensor& t) {
  // Exponent all ones: Inf when the mantissa is 0, else NaN. Integer tests, so the loop
  // vectorises and behaves the same under -ffast-math.
  int64_t nan = 0, inf = 0;
  for (const float v : t.data) {
    const uint32_t bits = std::bit_cast<uint32_t>(v);
    const bool special = (bits & 0x7f800000u) == 0x7f800000u;
    const bool mantissa = (bits & 0x007fffffu) != 0;
    nan += special && mantissa ? 1 : 0;
    inf += special && !mantissa ? 1 : 0;
  }
  t.nan_count = nan;
  t.inf_count = inf;
}

float HalfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float32 (ldexp of a small integer).
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) {  // Inf, or NaN with its payload kept in the top mantissa bits
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  }
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

bool IsValidUtf8(std::span<const std::byte> s, size_t* bad) {
  size_t k = 0;
  const size_t n = s.size();
  auto at = [&](size_t i) { return static_cast<unsigned>(s[i]); };
  while (k < n) {
    const unsigned c = at(k);
    size_t len = 0;
    unsigned lo = 0x80, hi = 0xbf;  // range of the second byte
    if (c < 0x80) {
      ++k;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
    } else if (c == 0xe0) {
      len = 3, lo = 0xa0;  // no overlong 3-byte forms
    } else if (c >= 0xe1 && c <= 0xef) {
      len = 3;
      if (c == 0xed) hi = 0x9f;  // no surrogates U+D800..U+DFFF
    } else if (c == 0xf0) {
      len = 4, lo = 0x90;  // no overlong 4-byte forms
    } else if (c >= 0xf1 && c <= 0xf3) {
      len = 4;
    } else if (c == 0xf4) {
      len = 4, hi = 0x8f;  // nothing above U+10FFFF
    } else {
      if (bad) *bad = k;
      return false;
    }
    if (k + len > n) {
      if (bad) *bad = k;
      return false;
    }
    if (at(k + 1) < lo || at(k + 1) > hi) {
      if (bad) *bad = k;
      return false;
    }
    for (size_t j = 2; j < len; ++j) {
      if (at(k + j) < 0x80 || at(k + j) > 0xbf) {
        if (bad) *bad = k;
        return false;
      }
    }
    k += len;
  }
  return true;
}

std::string FormatShape(std::span<const int64_t> shape) {
  std::string s = "(";
  for (size_t k = 0; k < shape.size(); ++k) {
    if (k > 0) s += ", ";
    s += std::to_string(shape[k]);
  }
  if (shape.size() == 1) s += ",";
  s += ")";
  return s;
}

std::optional<uint64_t> ShapeCount(std::span<const int64_t> shape) {
  uint64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    const auto u = static_cast<uint64_t>(d);
    if (u != 0 && count > std::numeric_limits<uint64_t>::max() / u) {
      // Overflow unless a later dimension is 0: then the tensor is empty.
      if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
      return std::nullopt;
    }
    count *= u;
  }
  return count;
}

Status CheckTensorCap(std::span<const int64_t> shape, const MemoryCap& cap) {
  const std::optional<uint64_t> count = ShapeCount(shape);
  const bool overflow = !count || *count > std::numeric_limits<uint64_t>::max() / sizeof(float);
  if (!overflow && *count * sizeof(float) <= cap.bytes) return {};
  const std::string need =
      overflow ? std::string("more than 16 EiB") : FormatBytes(*count * sizeof(float));
  std::string m = "shape ";
  m += FormatShape(shape);
  m += " needs ";
  m += need;
  m += " as float32, over the memory cap of ";
  m += FormatBytes(cap.bytes);
  m += "; refusing it before allocating (raise the cap with --memory-cap-mib if it is real)";
  return InvalidArgument(std::move(m));
}

}  // namespace pe
