// A tokenizer from a path: a tokenizer.json, GPT-2's vocab.json / encoder.json with the merges
// beside it, or a folder holding them; and what a file's first bytes say it is (File > Open).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/gguf_file.h"
#include "io/read_support.h"
#include "text/subword_tokenizer.h"

namespace pe {

namespace {

// A regular file's bytes, refused when it is something else or does not fit `budget`.
Result<std::string> ReadSmallFile(const std::string& path, uint64_t factor, const MemoryCap& cap) {
  const std::string quoted = "\"" + path + "\"";
  const RegularFileReader file = RegularFileReader::Open(path);
  if (file.failure() == RegularFileReader::Failure::kCannotRead) {
    return RuntimeError("cannot read " + quoted + ": " + std::strerror(file.error()));
  }
  if (file.failure() == RegularFileReader::Failure::kNotRegular) {
    return InvalidArgument(quoted + " is not a regular file");
  }
  const int fd = file.fd();
  const uint64_t size = file.size();
  // Saturating: a sparse file of 4 EiB must not wrap the product below the cap.
  const uint64_t need = SaturatingMul(size, factor);
  if (need > cap.bytes || size > std::string().max_size()) {
    return InvalidArgument(
        quoted + " (" + FormatBytes(size) + ") needs about " +
        (need == UINT64_MAX ? std::string("more than 16 EiB") : FormatBytes(need)) +
        " to parse, over the memory cap of " + FormatBytes(cap.bytes) + " (--memory-cap-mib)");
  }
  std::string bytes;
  try {
    bytes.resize(static_cast<size_t>(size));
  } catch (const std::exception&) {  // bad_alloc, length_error
    return RuntimeError("cannot read " + quoted + ": " + FormatBytes(size) +
                        " could not be allocated");
  }
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return RuntimeError("cannot read " + quoted + ": " + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);  // a file that shrank while read is read as far as it goes
  return bytes;
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

constexpr uint64_t kJsonFactor = 24;  // parsed JSON and the tables built from it, per file byte

}  // namespace

TokenizerFileKind SniffTokenizerFile(std::string_view b) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  size_t k = 0;
  if (b.substr(0, 3) == "\xEF\xBB\xBF") k = 3;  // a byte order mark
  while (k < b.size() && is_space(b[k])) ++k;
  if (k >= b.size() || b[k] != '{') return TokenizerFileKind::kNone;
  ++k;
  int depth = 1;
  bool first_member = true;
  while (k < b.size() && depth > 0) {
    const char c = b[k];
    if (c == '"') {
      // A string: at depth 1 followed by ':' it is a top-level key.
      const size_t begin = ++k;
      while (k < b.size() && b[k] != '"') k += b[k] == '\\' ? 2 : 1;
      if (k >= b.size()) break;
      const std::string_view str = b.substr(begin, k - begin);
      ++k;
      if (depth != 1) continue;
      size_t j = k;
      while (j < b.size() && is_space(b[j])) ++j;
      if (j >= b.size() || b[j] != ':') continue;  // a value
      if (str == "model") return TokenizerFileKind::kTokenizerJson;
      k = j + 1;  // past the ':', at the value
      if (first_member) {
        first_member = false;
        size_t v = k;
        while (v < b.size() && is_space(b[v])) ++v;
        if (v < b.size() && (b[v] == '-' || (b[v] >= '0' && b[v] <= '9'))) {
          return TokenizerFileKind::kGpt2Vocab;
        }
      }
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    ++k;
  }
  return TokenizerFileKind::kNone;
}

TokenizerFileKind SniffTokenizerPath(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return TokenizerFileKind::kNone;
  Result<std::unique_ptr<FileSource>> src = FileSource::Open(path, 0);
  if (!src.ok()) return TokenizerFileKind::kNone;
  Result<std::span<const std::byte>> bytes = src.value()->Prefix(UINT64_MAX);
  if (!bytes.ok()) return TokenizerFileKind::kNone;
  return SniffTokenizerFile(
      std::string_view(reinterpret_cast<const char*>(bytes.value().data()), bytes.value().size()));
}

namespace {

// Whether the regular file at `path` starts with GGUF's magic.
bool StartsWithGguf(const std::string& path) {
  Result<std::unique_ptr<FileSource>> src = FileSource::Open(path, 4);
  if (!src.ok()) return false;
  Result<std::span<const std::byte>> head = src.value()->Prefix(4);
  return head.ok() && head.value().size() == 4 && std::memcmp(head.value().data(), "GGUF", 4) == 0;
}

Result<std::shared_ptr<const SubwordTokenizer>> LoadSubwordTokenizerImpl(const std::string& path,
                                                                         const MemoryCap& cap) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return RuntimeError("cannot read \"" + path + "\": " + std::strerror(errno));
  }
  auto wrap = [](Result<SubwordTokenizer> t) -> Result<std::shared_ptr<const SubwordTokenizer>> {
    if (!t.ok()) return t.error();
    return std::shared_ptr<const SubwordTokenizer>(
        std::make_shared<SubwordTokenizer>(std::move(t).value()));
  };
  if (!S_ISDIR(st.st_mode) && StartsWithGguf(path)) {
    // A GGUF file's tokenizer: its metadata parsed, the vocabulary's arrays read again.
    Result<std::unique_ptr<FileSource>> src = FileSource::Open(path, cap.bytes);
    if (!src.ok()) return src.error();
    Result<GgufFile> file = ParseGguf(*src.value(), path, cap);
    if (!file.ok()) return file.error();
    return wrap(SubwordTokenizer::FromGguf(*src.value(), file.value(), path, cap));
  }
  if (!S_ISDIR(st.st_mode) && path.size() > 6 && path.compare(path.size() - 6, 6, ".model") == 0) {
    // A SentencePiece model (tokenizer.model), run by the SentencePiece library.
    Result<std::string> bytes = ReadSmallFile(path, kJsonFactor, cap);
    if (!bytes.ok()) return bytes.error();
    return wrap(SubwordTokenizer::FromSentencePiece(bytes.value(), path));
  }
  if (!S_ISDIR(st.st_mode) && SniffTokenizerPath(path) == TokenizerFileKind::kGpt2Vocab) {
    // GPT-2's vocab.json (or encoder.json) names its folder: the merges are beside it.
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "./" : path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::string merges = dir + (base == "encoder.json" ? "vocab.bpe" : "merges.txt");
    if (!IsFile(merges)) {
      return InvalidArgument("\"" + path + "\" is GPT-2's token -> id map; its merges, \"" +
                             merges + "\", are not beside it");
    }
    Result<std::string> v = ReadSmallFile(path, kJsonFactor, cap);
    if (!v.ok()) return v.error();
    Result<std::string> m = ReadSmallFile(merges, kJsonFactor, cap);
    if (!m.ok()) return m.error();
    return wrap(SubwordTokenizer::FromGpt2Files(v.value(), path, m.value(), merges));
  }
  if (S_ISDIR(st.st_mode)) {
    std::string dir = path;
    if (!dir.empty() && dir.back() != '/') dir += '/';
    for (auto [vocab, merges] :
         {std::pair{"vocab.json", "merges.txt"}, std::pair{"encoder.json", "vocab.bpe"}}) {
      if (!IsFile(dir + vocab) || !IsFile(dir + merges)) continue;
      Result<std::string> v = ReadSmallFile(dir + vocab, kJsonFactor, cap);
      if (!v.ok()) return v.error();
      Result<std::string> m = ReadSmallFile(dir + merges, kJsonFactor, cap);
      if (!m.ok()) return m.error();
      return wrap(SubwordTokenizer::FromGpt2Files(v.value(), dir + vocab, m.value(), dir + merges));
    }
    if (IsFile(dir + "tokenizer.json")) {
      Result<std::string> j = ReadSmallFile(dir + "tokenizer.json", kJsonFactor, cap);
      if (!j.ok()) return j.error();
      return wrap(SubwordTokenizer::FromTokenizerJson(j.value(), dir + "tokenizer.json"));
    }
    return InvalidArgument("the folder \"" + path +
                           "\" holds none of vocab.json + merges.txt, encoder.json + vocab.bpe "
                           "or tokenizer.json");
  }
  Result<std::string> j = ReadSmallFile(path, kJsonFactor, cap);
  if (!j.ok()) return j.error();
  return wrap(SubwordTokenizer::FromTokenizerJson(j.value(), path));
}

}  // namespace

Result<std::shared_ptr<const SubwordTokenizer>> LoadSubwordTokenizer(const std::string& path,
                                                                     const MemoryCap& cap) {
  return CatchReaderExceptions(path, [&] { return LoadSubwordTokenizerImpl(path, cap); });
}

}  // namespace pe
