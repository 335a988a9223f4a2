#include "io/loaded_table.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "io/npy_reader.h"
#include "io/safetensors_reader.h"
#include "io/word_vectors_reader.h"

namespace pe {

uint64_t HashBytes(std::span<const std::byte> bytes, uint64_t h) {
  constexpr uint64_t kPrime = 0x100000001b3ull;
  const std::byte* p = bytes.data();
  size_t n = bytes.size();
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t w = 0;
    std::memcpy(&w, p, 8);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    h = (h ^ w) * kPrime;
  }
  for (; n > 0; --n, ++p) h = (h ^ static_cast<uint64_t>(*p)) * kPrime;
  return h;
}

uint64_t FinishHash(uint64_t state, uint64_t total_bytes) {
  return (state ^ total_bytes) * 0x100000001b3ull;
}

std::string HashText(uint64_t hash) {
  char buf[17];
  static constexpr char kHex[] = "0123456789abcdef";
  for (int k = 15; k >= 0; --k, hash >>= 4) buf[k] = kHex[hash & 15];
  buf[16] = 0;
  return buf;
}

namespace {

bool IsNonFinite(float v) {
  return (std::bit_cast<uint32_t>(v) & 0x7f800000u) == 0x7f800000u;
}

void CountValues(const float* v, size_t n, int64_t& nan, int64_t& inf) {
  int64_t a = 0, b = 0;
  for (size_t k = 0; k < n; ++k) {
    const uint32_t bits = std::bit_cast<uint32_t>(v[k]);
    const bool special = (bits & 0x7f800000u) == 0x7f800000u;
    const bool mantissa = (bits & 0x007fffffu) != 0;
    a += special && mantissa ? 1 : 0;
    b += special && !mantissa ? 1 : 0;
  }
  nan += a;
  inf += b;
}

std::string NotTwoD(const std::string& path, std::span<const int64_t> shape, const char* what) {
  std::string m = Quoted(path);
  m += ": ";
  m += what;
  m += " has shape ";
  m += FormatShape(shape);
  m += "; expected a 2-D table (rows, columns) with at least one of each";
  return m;
}

bool Is2D(std::span<const int64_t> shape) {
  return shape.size() == 2 && shape[0] >= 1 && shape[1] >= 1;
}

}  // namespace

LoadedTable::~LoadedTable() = default;

int64_t LoadedTable::FindWord(std::string_view word) const {
  auto it = word_rows_.find(std::string(word));
  if (it != word_rows_.end()) return it->second;
  std::string lower(word);
  bool changed = false;
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a'), changed = true;
  }
  if (!changed) return -1;
  it = word_rows_.find(lower);
  return it == word_rows_.end() ? -1 : it->second;
}

void LoadedTable::Read(int64_t row0, int64_t n, int64_t col0, int64_t ncols, float* out) const {
  for (int64_t r = 0; r < n; ++r) {
    const int64_t row = row0 + r;
    const size_t k = static_cast<size_t>(
        std::upper_bound(chunk_first_.begin(), chunk_first_.end(), row) - chunk_first_.begin() - 1);
    const float* src = chunks_[k].data() + (row - chunk_first_[k]) * cols_ + col0;
    std::copy(src, src + ncols, out + r * ncols);
  }
}

namespace {

// `count` values of the file's dtype at `src` as float32 into `dst`.
void ConvertValues(LoadedTable::Dtype dtype, bool big_endian, const std::byte* src, size_t count,
                   float* dst) {
  switch (dtype) {
    case LoadedTable::Dtype::kF4:
      if (!big_endian && std::endian::native == std::endian::little) {
        std::memcpy(dst, src, 4 * count);  // the file's float32 bits as they are
        return;
      }
      for (size_t i = 0; i < count; ++i) {
        uint32_t bits = 0;
        std::memcpy(&bits, src + 4 * i, 4);
        if (big_endian) bits = __builtin_bswap32(bits);
        dst[i] = std::bit_cast<float>(bits);
      }
      return;
    case LoadedTable::Dtype::kF2:
    case LoadedTable::Dtype::kBf16:
      for (size_t i = 0; i < count; ++i) {
        uint16_t bits = 0;
        std::memcpy(&bits, src + 2 * i, 2);
        if (big_endian) bits = __builtin_bswap16(bits);
        dst[i] = dtype == LoadedTable::Dtype::kF2 ? HalfToFloat(bits) : BFloat16ToFloat(bits);
      }
      return;
    case LoadedTable::Dtype::kF8:
      for (size_t i = 0; i < count; ++i) {
        uint64_t bits = 0;
        std::memcpy(&bits, src + 8 * i, 8);
        if (big_endian) bits = __builtin_bswap64(bits);
        dst[i] = static_cast<float>(std::bit_cast<double>(bits));
      }
      return;
  }
}

size_t DtypeBytes(LoadedTable::Dtype dtype) {
  switch (dtype) {
    case LoadedTable::Dtype::kF2:
    case LoadedTable::Dtype::kBf16:
      return 2;
    case LoadedTable::Dtype::kF4:
      return 4;
    case LoadedTable::Dtype::kF8:
      return 8;
  }
  return 4;
}

}  // namespace

float LoadedTable::At(int64_t row, int64_t col) const {
  float v = 0;
  Read(row, 1, col, 1, &v);
  return v;
}

Result<Matrix> LoadedTable::ReadRows(int64_t row0, int64_t n, const MemoryCap& cap) const {
  Result<Matrix> m = MakeMatrix("rows of " + Quoted(spec_text()), n, cols_, cap);
  if (!m.ok()) return m;
  Read(row0, n, 0, cols_, m.value().data.data());
  return m;
}

std::string LoadedTable::Describe() const {
  std::string s = spec_text();
  s += ", (" + std::to_string(rows_) + ", " + std::to_string(cols_) + ") ";
  s += dtype_;
  if (has_words()) s += " word vectors (" + format_ + ")";
  if (has_non_finite()) {
    s += ", " + std::to_string(nan_count_) + " NaN and " + std::to_string(inf_count_) + " Inf";
  }
  return s;
}

// ---- loading ---------------------------------------------------------------------------------

class TableLoader {
 public:
  TableLoader(const TensorSpec& spec, TableUse use, const MemoryCap& cap, const Progress& progress,
              int threads)
      : spec_(spec), use_(use), cap_(cap), progress_(progress), threads_(threads) {}

  Result<LoadedTablePtr> Run() {
    std::shared_ptr<LoadedTable> t(new LoadedTable());
    t->spec_ = spec_;
    table_ = t.get();
    // A stream is held whole (an NPY or safetensors header on top of the cap's data); the
    // readers check what they keep against the cap.
    auto source = FileSource::Open(spec_.path, SaturatingAdd(cap_.bytes, 100'000'000 + 16));
    if (!source.ok()) return source.error();
    file_ = std::move(source).value();
    // A pipe's first bytes stay in the source's buffer: every reader below reads this source,
    // from byte 0, and never opens the path again.
    auto head = file_->Prefix(9);
    if (!head.ok()) return head.error();
    const std::span<const std::byte> b = head.value();
    if (b.empty()) return InvalidArgument(Quoted(spec_.path) + ": the file is empty");
    const bool npy = b.size() >= 6 && std::memcmp(b.data(), "\x93NUMPY", 6) == 0;
    const bool safetensors = !npy && b.size() >= 9 && static_cast<char>(b[8]) == '{';
    Status s;
    if (npy || safetensors) {
      s = file_->KnownSize() ? (npy ? OpenNpy() : OpenSafetensors()) : ReadWhole();
    } else if (use_ == TableUse::kPositions) {
      s = InvalidArgument(Quoted(spec_.path) +
                          ": byte 0: expected an NPY file (magic \\x93NUMPY) or a safetensors "
                          "file (an 8-byte header length, then '{'); a position table does not "
                          "come from word vectors");
    } else if (!spec_.tensor.empty()) {
      s = InvalidArgument(Quoted(spec_.path) + ": \"" + spec_.tensor +
                          "\" names a tensor, but the file is neither NPY nor safetensors (a "
                          "word-vector file is named without \":TENSOR\")");
    } else {
      s = ReadWordVectorFile();
    }
    if (!s.ok()) return s.error();
    if (Status c = CheckFloatCount(Quoted(spec_.path) + "'s table", static_cast<uint64_t>(t->rows_),
                                   static_cast<uint64_t>(t->cols_), cap_);
        !c.ok()) {
      return c.error();
    }
    return LoadedTablePtr(std::move(t));
  }

 private:
  bool Report(double fraction) { return !progress_ || progress_(std::clamp(fraction, 0.0, 1.0)); }
  Status Cancelled() const {
    return InvalidArgument(Quoted(spec_.path) + ": loading was cancelled");
  }

  // An NPY array in C order stays mapped; Fortran order is read whole.
  Status OpenNpy() {
    LoadedTable& t = *table_;
    auto header = ReadNpyHeader(*file_, cap_);
    if (!header.ok())
      return Error{header.error().kind, Quoted(spec_.path) + ": " + header.message()};
    const NpyHeaderInfo& h = header.value();
    if (!spec_.tensor.empty()) {
      return InvalidArgument(Quoted(spec_.path) + ": an NPY file holds one array; \"" +
                             spec_.tensor + "\" names a tensor, which only a safetensors file has");
    }
    if (!Is2D(h.shape)) return InvalidArgument(NotTwoD(spec_.path, h.shape, "the array"));
    const uint64_t size = *file_->KnownSize();
    if (size != h.data_offset + h.data_bytes) {
      return InvalidArgument(Quoted(spec_.path) + ": the header says " +
                             std::to_string(h.data_bytes) + " bytes of data after byte " +
                             std::to_string(h.data_offset) + ", but the file has " +
                             std::to_string(size) + " bytes");
    }
    t.format_ = "npy";
    t.dtype_ = h.descr;
    t.rows_ = h.shape[0];
    t.cols_ = h.shape[1];
    t.file_bytes_ = size;
    if (Status s = CheckTensorCap(h.shape, cap_); !s.ok()) {
      return InvalidArgument(Quoted(spec_.path) + ": " + s.message());
    }
    if (h.fortran_order) return ReadWhole();
    const LoadedTable::Dtype dtype = h.type == NpyFloatType::kFloat16   ? LoadedTable::Dtype::kF2
                                     : h.type == NpyFloatType::kFloat32 ? LoadedTable::Dtype::kF4
                                                                        : LoadedTable::Dtype::kF8;
    return Scan(0, h.data_offset, h.data_offset, h.data_bytes, dtype, h.big_endian);
  }

  Status OpenSafetensors() {
    LoadedTable& t = *table_;
    auto index = ReadSafetensorsIndex(*file_, cap_);
    if (!index.ok()) {
      return Error{index.error().kind, Quoted(spec_.path) + ": " + index.message()};
    }
    const SafetensorsIndex& ix = index.value();
    std::string name = spec_.tensor;
    int readable = 0;
    for (const SafetensorsTensorInfo& info : ix.tensors) {
      if (info.readable && ++readable == 1 && spec_.tensor.empty()) name = info.name;
    }
    const SafetensorsTensorInfo* info = ix.Find(name);
    if (info == nullptr || (spec_.tensor.empty() && readable != 1) || !info->readable) {
      // ReadTensorFile words these refusals (the list of tensors to pick from); it fails
      // before reading any data.
      auto r = ReadTensorFile(spec_, cap_);
      if (!r.ok()) return r.status();
      return InvalidArgument(Quoted(spec_.path) + ": cannot read tensor \"" + name + "\"");
    }
    if (!Is2D(info->shape)) {
      return InvalidArgument(NotTwoD(spec_.path, info->shape, ("tensor \"" + name + "\"").c_str()));
    }
    if (Status s = CheckTensorCap(info->shape, cap_); !s.ok()) {
      return InvalidArgument(Quoted(spec_.path) + ": " + s.message());
    }
    t.format_ = "safetensors";
    t.dtype_ = info->dtype;
    t.tensor_name_ = name;
    t.spec_.tensor = name;
    t.rows_ = info->shape[0];
    t.cols_ = info->shape[1];
    t.file_bytes_ = *file_->KnownSize();
    const LoadedTable::Dtype dtype = info->dtype == "F32"    ? LoadedTable::Dtype::kF4
                                     : info->dtype == "F16"  ? LoadedTable::Dtype::kF2
                                     : info->dtype == "BF16" ? LoadedTable::Dtype::kBf16
                                                             : LoadedTable::Dtype::kF8;
    return Scan(0, ix.data_offset, ix.data_offset + info->begin, info->end - info->begin, dtype,
                false);
  }

  // One pass over the table's bytes: the file's bytes [header_offset, + header_bytes) and
  // [data_offset, + data_bytes) (values of `dtype`) are read with pread, never through the
  // mapping, so a file truncated meanwhile is an error, not SIGBUS. The values are kept as
  // float32 (the caller checked their size against the cap), NaN and Inf counted, and the hash
  // taken of the header then of the data (each in 8-byte words from its start; blocks of a
  // multiple of 8 rows keep the words of one call), a block at a time with progress.
  Status Scan(uint64_t header_offset, uint64_t header_bytes, uint64_t data_offset,
              uint64_t data_bytes, LoadedTable::Dtype dtype, bool big_endian) {
    LoadedTable& t = *table_;
    const size_t item = DtypeBytes(dtype);
    const auto count = static_cast<uint64_t>(t.rows_) * static_cast<uint64_t>(t.cols_);
    if (data_bytes != count * item) {
      return InvalidArgument(Quoted(spec_.path) + ": the table's data is " +
                             std::to_string(data_bytes) + " bytes; expected " +
                             std::to_string(count * item));
    }
    std::vector<float> values;
    std::vector<std::byte> header(static_cast<size_t>(header_bytes));
    const int64_t block_rows = (std::max<int64_t>(1, (int64_t{1} << 18) / t.cols_) + 7) / 8 * 8;
    const uint64_t row_bytes = static_cast<uint64_t>(t.cols_) * item;
    std::vector<std::byte> raw;
    try {
      values.resize(static_cast<size_t>(count));
      raw.resize(static_cast<size_t>(static_cast<uint64_t>(block_rows) * row_bytes));
    } catch (const std::exception&) {  // bad_alloc: the cap is larger than the memory there is
      return RuntimeError(Quoted(spec_.path) + ": cannot allocate " + FormatBytes(count * 4) +
                          " for the table's values");
    }
    if (Status s = file_->ReadAt(header_offset, header); !s.ok()) return s;
    uint64_t h = HashBytes(header);
    for (int64_t r = 0; r < t.rows_; r += block_rows) {
      if (!Report(static_cast<double>(r) / static_cast<double>(t.rows_))) return Cancelled();
      const int64_t n = std::min(block_rows, t.rows_ - r);
      const std::span<std::byte> block(raw.data(), static_cast<size_t>(n) * row_bytes);
      if (Status s = file_->ReadAt(data_offset + static_cast<uint64_t>(r) * row_bytes, block);
          !s.ok()) {
        return s;
      }
      float* dst = values.data() + static_cast<size_t>(r * t.cols_);
      ConvertValues(dtype, big_endian, block.data(), static_cast<size_t>(n * t.cols_), dst);
      CountValues(dst, static_cast<size_t>(n * t.cols_), t.nan_count_, t.inf_count_);
      h = HashBytes(block, h);
    }
    // Rewritten while read (np.save truncates, then writes): refuse rather than keep a mix.
    if (Status s = file_->CheckUnchanged(); !s.ok()) return s;
    t.hash_ = FinishHash(h, header_bytes + data_bytes);
    t.chunks_.push_back(std::move(values));
    t.chunk_first_ = {0};
    Report(1.0);
    return {};
  }

  // A pipe or device, or a Fortran-order array: read into float32 by the readers.
  Status ReadWhole() {
    LoadedTable& t = *table_;
    auto r = ReadTensorSource(std::move(file_), spec_, cap_);
    if (!r.ok()) return r.status();
    LoadedTensor& lt = r.value();
    if (!Is2D(lt.values.shape))
      return InvalidArgument(NotTwoD(spec_.path, lt.values.shape, "the tensor"));
    t.format_ = lt.format == TensorFileFormat::kNpy ? "npy" : "safetensors";
    t.dtype_ = lt.dtype;
    t.tensor_name_ = lt.tensor;
    if (!lt.tensor.empty()) t.spec_.tensor = lt.tensor;
    t.rows_ = lt.values.shape[0];
    t.cols_ = lt.values.shape[1];
    t.nan_count_ = lt.values.nan_count;
    t.inf_count_ = lt.values.inf_count;
    // The hash of the values as float32 (the file's bytes are not all at hand for a stream).
    t.hash_ =
        FinishHash(HashBytes(std::as_bytes(std::span(lt.values.data))), lt.values.data.size() * 4);
    t.file_bytes_ = lt.values.data.size() * 4;
    t.chunks_.push_back(std::move(lt.values.data));
    t.chunk_first_ = {0};
    return {};
  }

  // ---- word vectors

  struct ChunkResult {
    std::vector<float> values;
    std::vector<std::string_view> words;
    int64_t nan = 0, inf = 0;
    bool ok = true;
  };

  static bool IsBlank(char c) { return c == ' ' || c == '\t'; }

  // Parses lines [b, e) of a text body with d values per row; false at anything the serial
  // reader would refuse or treat specially (it then gives the message).
  // `budget` is shared by every chunk: together they stay under the cap (the serial reader
  // then refuses the file with its line).
  static void ParseChunk(const char* b, const char* e, int64_t d, uint64_t cap_bytes,
                         std::atomic<uint64_t>& budget, std::atomic<uint64_t>& done,
                         const std::atomic<bool>& stop, ChunkResult& out) {
    uint64_t used = 0, charged = 0;
    const char* last_report = b;
    while (b < e) {
      if (stop.load(std::memory_order_relaxed)) {
        out.ok = false;
        return;
      }
      const char* nl = static_cast<const char*>(std::memchr(b, '\n', static_cast<size_t>(e - b)));
      const char* le = nl ? nl : e;
      const char* next = nl ? nl + 1 : e;
      while (le > b && (IsBlank(le[-1]) || le[-1] == '\r')) --le;
      if (le == b || IsBlank(*b)) {
        out.ok = false;
        return;
      }
      const char* q = b;
      bool ascii = true;
      for (; q < le && !IsBlank(*q); ++q) {
        const auto u = static_cast<unsigned char>(*q);
        if (u < 0x20 || u == 0x7f) {
          out.ok = false;
          return;
        }
        ascii &= u < 0x80;
      }
      if (!ascii &&
          !IsValidUtf8(std::as_bytes(std::span(b, static_cast<size_t>(q - b))), nullptr)) {
        out.ok = false;
        return;
      }
      out.words.emplace_back(b, static_cast<size_t>(q - b));
      for (int64_t k = 0; k < d; ++k) {
        while (q < le && IsBlank(*q)) ++q;
        float v = 0;
        auto [p, ec] = std::from_chars(q, le, v);
        if (q == le || ec != std::errc() || (p != le && !IsBlank(*p))) {
          out.ok = false;
          return;
        }
        if (IsNonFinite(v)) {
          if (std::isnan(v))
            ++out.nan;
          else
            ++out.inf;
        }
        out.values.push_back(v);
        q = p;
      }
      while (q < le && IsBlank(*q)) ++q;
      if (q != le) {
        out.ok = false;
        return;
      }
      used += 4 * static_cast<uint64_t>(d) + 2 * out.words.back().size() + 128;
      if (used - charged > (uint64_t{1} << 20) || used > cap_bytes) {
        const uint64_t total = budget.fetch_add(used - charged) + (used - charged);
        charged = used;
        if (total > cap_bytes) {
          out.ok = false;
          return;
        }
      }
      b = next;
      if (b - last_report > (1 << 20)) {
        done.fetch_add(static_cast<uint64_t>(b - last_report), std::memory_order_relaxed);
        last_report = b;
      }
    }
    done.fetch_add(static_cast<uint64_t>(b - last_report), std::memory_order_relaxed);
  }

  Status ReadWordVectorFile() {
    if (!file_->KnownSize()) return ReadWordVectorsSerial();
    LoadedTable& t = *table_;
    const uint64_t size = *file_->KnownSize();
    // Text that fits the cap is read with pread into memory, so a file truncated while it
    // loads is an error instead of SIGBUS; a larger one is parsed through the mapping.
    std::vector<std::byte> copy;
    std::span<const std::byte> text;
    if (size <= cap_.bytes && size > FileSource::kCopiedPrefixBytes) {
      try {
        copy.resize(static_cast<size_t>(size));
      } catch (const std::exception&) {
        return RuntimeError(Quoted(spec_.path) + ": cannot allocate " + FormatBytes(size) +
                            " to read it");
      }
      if (Status st = file_->ReadAt(0, copy); !st.ok()) return st;
      text = copy;
    } else {
      auto all = file_->Prefix(size);
      if (!all.ok()) return all.status();
      text = all.value();
    }
    if (text.size() != size || size == 0) return ReadWordVectorsSerial();
    const char* base = reinterpret_cast<const char*>(text.data());
    const char* end = base + size;
    // The first line: a "V d" header, or GloVe's first row (looked for in the first 16 MiB:
    // a longer line goes to the serial reader, which bounds it by the cap).
    const char* nl = static_cast<const char*>(
        std::memchr(base, '\n', static_cast<size_t>(std::min<uint64_t>(size, 16 << 20))));
    if (nl == nullptr && size > (16 << 20)) return ReadWordVectorsSerial();
    const char* first_end = nl ? nl : end;
    int64_t header_v = -1, d = 0;
    {
      const char* p = base;
      while (p < first_end && IsBlank(*p)) ++p;
      auto [p1, e1] = std::from_chars(p, first_end, header_v);
      const char* p2 = p1;
      while (p2 < first_end && IsBlank(*p2)) ++p2;
      auto [p3, e3] = std::from_chars(p2, first_end, d);
      const char* p4 = p3;
      while (p4 < first_end && (IsBlank(*p4) || *p4 == '\r')) ++p4;
      const bool header = p == base && e1 == std::errc() && p1 > p && p2 > p1 &&
                          e3 == std::errc() && p3 > p2 && p4 == first_end && header_v >= 0 &&
                          d >= 1;
      if (!header) header_v = -1;
    }
    const char* body = base;
    if (header_v >= 0) {
      body = nl ? nl + 1 : end;
      // Binary rows (word2vec.c) go to the serial reader; text rows hold no control bytes.
      const char* look_end = body + std::min<uint64_t>(static_cast<uint64_t>(end - body),
                                                       256 + 48 * static_cast<uint64_t>(d));
      for (const char* p = body; p < look_end && *p != '\n'; ++p) {
        const auto u = static_cast<unsigned char>(*p);
        if ((u < 0x20 && *p != '\t' && *p != '\r') || u == 0x7f) return ReadWordVectorsSerial();
      }
    } else {
      // GloVe: d from the first row's values.
      int64_t tokens = 0;
      for (const char* p = base; p < first_end;) {
        while (p < first_end && (IsBlank(*p) || *p == '\r')) ++p;
        if (p == first_end) break;
        ++tokens;
        while (p < first_end && !IsBlank(*p) && *p != '\r') ++p;
      }
      d = tokens - 1;
      if (d < 1) return ReadWordVectorsSerial();
    }
    // Before parsing: the table the file would make, estimated from its first lines (rows
    // from their mean length, each row charged as the serial reader charges it). Parsing
    // first peaked at several times the cap. A header's count is exact: the serial reader
    // refuses it before reading a row. Without one, an estimate clearly over the cap (by an
    // eighth, for a sample unlike the rest) is refused here, before a row is parsed; one near
    // the cap goes to the serial reader, which stops at the line where the cap is reached.
    {
      const char* sample_end =
          body + std::min<uint64_t>(static_cast<uint64_t>(end - body), 1 << 20);
      uint64_t lines = 0, word_bytes = 0;
      const char* p = body;
      while (p < sample_end) {
        const char* q =
            static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(sample_end - p)));
        if (q == nullptr) break;
        const char* w = p;
        while (w < q && !IsBlank(*w)) ++w;
        word_bytes += static_cast<uint64_t>(w - p);
        ++lines;
        p = q + 1;
      }
      if (header_v >= 0) {
        if (SaturatingMul(static_cast<uint64_t>(header_v), 4 * static_cast<uint64_t>(d) + 128) >
            cap_.bytes) {
          return ReadWordVectorsSerial();
        }
      } else if (lines > 0) {
        const auto body_bytes = static_cast<uint64_t>(end - body);
        const auto sampled = static_cast<uint64_t>(p - body);
        const uint64_t rows = SaturatingAdd(SaturatingMul(body_bytes / sampled, lines),
                                            (body_bytes % sampled) * lines / sampled);
        const uint64_t per_row = 4 * static_cast<uint64_t>(d) + 2 * (word_bytes / lines) + 128;
        const uint64_t need = SaturatingMul(rows, per_row);
        if (need > SaturatingAdd(cap_.bytes, cap_.bytes / 8)) {
          return InvalidArgument(
              Quoted(spec_.path) + ": about " + std::to_string(rows) + " words of " +
              std::to_string(d) + " values (estimated from the first " + std::to_string(lines) +
              " lines) need about " + FormatBytes(need) + ", over the memory cap of " +
              FormatBytes(cap_.bytes) +
              "; refusing it before parsing (raise the cap with --memory-cap-mib if it is real)");
        }
        if (need > cap_.bytes) return ReadWordVectorsSerial();
      }
    }
    // Chunks split at line ends, one per thread.
    const int threads = std::max(
        1, threads_ > 0 ? threads_ : static_cast<int>(std::thread::hardware_concurrency()));
    std::vector<const char*> cuts = {body};
    for (int k = 1; k < threads; ++k) {
      const char* guess = body + (end - body) * k / threads;
      guess = std::max(guess, cuts.back());
      const char* n2 =
          static_cast<const char*>(std::memchr(guess, '\n', static_cast<size_t>(end - guess)));
      cuts.push_back(n2 ? n2 + 1 : end);
    }
    cuts.push_back(end);
    std::vector<ChunkResult> parts(static_cast<size_t>(threads));
    std::atomic<uint64_t> done{0}, budget{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> workers;
    for (int k = 0; k < threads; ++k) {
      workers.emplace_back([&, k] {
        ParseChunk(cuts[static_cast<size_t>(k)], cuts[static_cast<size_t>(k) + 1], d, cap_.bytes,
                   budget, done, stop, parts[static_cast<size_t>(k)]);
        if (!parts[static_cast<size_t>(k)].ok) stop = true;
      });
    }
    // Meanwhile this thread hashes the file and reports progress (the hash counts as the
    // first tenth of the work).
    bool cancelled = false;
    uint64_t h = kFnvOffsetBasis;
    constexpr uint64_t kBlock = uint64_t{8} << 20;
    for (uint64_t at = 0; at < size && !cancelled; at += kBlock) {
      h = HashBytes(text.subspan(at, std::min(kBlock, size - at)), h);
      const double parsed = static_cast<double>(done.load()) / static_cast<double>(size);
      cancelled =
          !Report(0.1 * static_cast<double>(at) / static_cast<double>(size) + 0.85 * parsed);
    }
    while (!cancelled && !stop.load()) {
      const uint64_t now = done.load();
      if (now >= static_cast<uint64_t>(end - body)) break;
      cancelled = !Report(0.1 + 0.85 * static_cast<double>(now) / static_cast<double>(size));
      if (!cancelled) std::this_thread::sleep_for(std::chrono::milliseconds(15));
    }
    if (cancelled) stop = true;
    for (std::thread& w : workers) w.join();
    if (cancelled) return Cancelled();
    for (const ChunkResult& part : parts) {
      if (!part.ok) return ReadWordVectorsSerial();
    }
    int64_t rows = 0;
    uint64_t used = 0;  // charged as the serial reader charges it
    for (const ChunkResult& part : parts) {
      rows += static_cast<int64_t>(part.words.size());
      for (std::string_view w : part.words)
        used += 4 * static_cast<uint64_t>(d) + 2 * w.size() + 128;
    }
    if (rows == 0 || (header_v >= 0 && rows != header_v) || used > cap_.bytes) {
      return ReadWordVectorsSerial();
    }
    t.words_.reserve(static_cast<size_t>(rows));
    t.word_rows_.reserve(static_cast<size_t>(rows));
    for (ChunkResult& part : parts) {
      for (std::string_view w : part.words) {
        const auto row = static_cast<int64_t>(t.words_.size());
        if (!t.word_rows_.emplace(std::string(w), row).second) {
          t.words_.clear();
          t.word_rows_.clear();
          return ReadWordVectorsSerial();  // a repeated word: its message names both lines
        }
        t.words_.emplace_back(w);
      }
      t.chunk_first_.push_back(t.chunk_first_.empty()
                                   ? 0
                                   : t.chunk_first_.back() +
                                         static_cast<int64_t>(t.chunks_.back().size()) / d);
      t.nan_count_ += part.nan;
      t.inf_count_ += part.inf;
      t.chunks_.push_back(std::move(part.values));
      part.words.clear();
    }
    if (Status st = file_->CheckUnchanged(); !st.ok()) return st;
    t.format_ = header_v >= 0 ? WordVectorFormatName(WordVectorFormat::kVecText)
                              : WordVectorFormatName(WordVectorFormat::kGloveText);
    t.dtype_ = "text";
    t.rows_ = rows;
    t.cols_ = d;
    t.file_bytes_ = size;
    t.hash_ = FinishHash(h, size);
    Report(1.0);
    return {};
  }

  // The serial reader: word2vec binary, pipes, and every file the fast path refused (its
  // messages name the line and what is wrong).
  Status ReadWordVectorsSerial() {
    LoadedTable& t = *table_;
    if (!Report(0.0)) return Cancelled();
    // The same source: a pipe's first bytes are in its buffer, not read again.
    file_->set_stream_limit(cap_.bytes);
    auto wv = ReadWordVectors(*file_, WordVectorFormat::kAuto, cap_);
    if (!wv.ok()) return WithPath(wv.error(), spec_.path);
    WordVectors& v = wv.value();
    t.words_.clear();
    t.word_rows_.clear();
    t.chunks_.clear();
    t.chunk_first_.clear();
    t.format_ = WordVectorFormatName(v.format);
    t.dtype_ = v.format == WordVectorFormat::kWord2VecBinary ? "f32" : "text";
    t.rows_ = v.table.rows;
    t.cols_ = v.table.cols;
    t.nan_count_ = v.nan_count;
    t.inf_count_ = v.inf_count;
    t.words_ = std::move(v.words);
    for (size_t k = 0; k < t.words_.size(); ++k) {
      t.word_rows_.emplace(t.words_[k], static_cast<int64_t>(k));
    }
    t.chunks_.push_back(std::move(v.table.data));
    t.chunk_first_ = {0};
    if (file_->KnownSize()) {
      const uint64_t size = *file_->KnownSize();
      auto all = file_->Prefix(size);
      if (!all.ok()) return all.status();
      t.hash_ = FinishHash(HashBytes(all.value()), size);
      t.file_bytes_ = size;
    } else {
      t.hash_ =
          FinishHash(HashBytes(std::as_bytes(std::span(t.chunks_[0]))), t.chunks_[0].size() * 4);
      t.file_bytes_ = t.chunks_[0].size() * 4;
    }
    Report(1.0);
    return {};
  }

  TensorSpec spec_;
  TableUse use_;
  MemoryCap cap_;
  const Progress& progress_;
  int threads_;
  LoadedTable* table_ = nullptr;
  std::unique_ptr<FileSource> file_;
};

Result<LoadedTablePtr> LoadTable(const TensorSpec& spec, TableUse use, const MemoryCap& cap,
                                 const Progress& progress, int threads) {
  TableLoader loader(spec, use, cap, progress, threads);
  return CatchReaderExceptions(spec.path, [&] { return loader.Run(); });
}

Result<LoadedTablePtr> LoadTable(const TensorSpec& spec, TableUse use, const MemoryCap& cap,
                                 const Progress& progress) {
  return LoadTable(spec, use, cap, progress, 0);
}

// ---- the cache -------------------------------------------------------------------------------

namespace {

std::string CacheKey(const TensorSpec& spec, TableUse use) {
  std::string k = spec.path;
  k += '\0';
  k += spec.tensor;
  k += '\0';
  k += use == TableUse::kEmbeddings ? 'e' : 'p';
  return k;
}

bool Stat(const std::string& path, uint64_t& size, int64_t& mtime_ns) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  size = static_cast<uint64_t>(st.st_size);
  mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return true;
}

}  // namespace

LoadedTablePtr TableCache::Peek(const TensorSpec& spec, TableUse use) {
  uint64_t size = 0;
  int64_t mtime = 0;
  if (!Stat(spec.path, size, mtime)) return nullptr;
  const std::string key = CacheKey(spec, use);
  std::lock_guard lock(mutex_);
  for (Entry& e : entries_) {
    if (e.key == key && e.size == size && e.mtime_ns == mtime) {
      e.last_use = ++clock_;
      return e.table;
    }
  }
  return nullptr;
}

Result<LoadedTablePtr> TableCache::Get(const TensorSpec& spec, TableUse use, const MemoryCap& cap,
                                       const Progress& progress) {
  if (LoadedTablePtr hit = Peek(spec, use)) {
    // A table cached under a larger cap is refused under a smaller one, as a fresh load is.
    if (Status s =
            CheckFloatCount(Quoted(spec.path) + "'s table", static_cast<uint64_t>(hit->rows()),
                            static_cast<uint64_t>(hit->cols()), cap);
        !s.ok()) {
      return s.error();
    }
    return hit;
  }
  uint64_t size = 0;
  int64_t mtime = 0;
  const bool regular = Stat(spec.path, size, mtime);
  Result<LoadedTablePtr> loaded = LoadTable(spec, use, cap, progress);
  if (!loaded.ok() || !regular) return loaded;
  std::lock_guard lock(mutex_);
  const std::string key = CacheKey(spec, use);
  std::erase_if(entries_, [&](const Entry& e) { return e.key == key; });
  if (entries_.size() >= capacity_ && !entries_.empty()) {
    entries_.erase(
        std::min_element(entries_.begin(), entries_.end(),
                         [](const Entry& a, const Entry& b) { return a.last_use < b.last_use; }));
  }
  entries_.push_back({key, size, mtime, loaded.value(), ++clock_});
  return loaded;
}

size_t TableCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

void TableCache::Clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

TableCache& SharedTableCache() {
  static TableCache cache;
  return cache;
}

}  // namespace pe
