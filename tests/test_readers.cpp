// The file readers (NPY, safetensors, word vectors): round trips through the project's own NPY
// writer and through bytes composed here by hand for every header version, byte order, memory
// order and dtype; exact values from known bit patterns; every class of bad input with its
// message; the path versions on regular files, directories and /dev/zero; and, when
// /usr/bin/python3 has numpy, files numpy itself wrote.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "io/file_writers.h"
#include "io/npy_reader.h"
#include "io/safetensors_reader.h"
#include "io/word_vectors_reader.h"

namespace pe {
namespace {

std::span<const std::byte> Span(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

uint32_t Bits(float f) {
  return std::bit_cast<uint32_t>(f);
}

// Appends the `bytes` low bytes of `v` in little- or big-endian order.
void Put(std::string& out, uint64_t v, int bytes, bool big_endian = false) {
  for (int k = 0; k < bytes; ++k) {
    const int shift = 8 * (big_endian ? bytes - 1 - k : k);
    out += static_cast<char>((v >> shift) & 0xff);
  }
}
void PutF32(std::string& out, float f, bool be = false) {
  Put(out, Bits(f), 4, be);
}
void PutF64(std::string& out, double d, bool be = false) {
  Put(out, std::bit_cast<uint64_t>(d), 8, be);
}

// An NPY file composed by hand, independently of the project's writer: magic, version, the
// header length in 2 (v1) or 4 (v2, v3) bytes, the dict padded with spaces to a multiple of 64
// and ended by '\n', then `data`.
std::string Npy(int version, const std::string& dict, const std::string& data) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(version);
  out += '\0';
  const int len_bytes = version == 1 ? 2 : 4;
  std::string header = dict;
  const size_t unpadded = 8 + len_bytes + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  Put(out, header.size(), len_bytes);
  return out + header + data;
}

std::string Dict(const std::string& descr, bool fortran, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

std::string TempDir() {
  char tmpl[] = "/tmp/pe-readers-XXXXXX";
  return ::mkdtemp(tmpl);
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// Expects `r` to fail with every one of `parts` in its message.
template <class R>
void ExpectError(const R& r, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(r.ok()) << "expected an error mentioning " << *parts.begin();
  for (const std::string& p : parts) {
    EXPECT_NE(r.message().find(p), std::string::npos)
        << "message \"" << r.message() << "\" lacks \"" << p << "\"";
  }
}

// ---------------------------------------------------------------------------------------------
// NPY

TEST(NpyReader, ReadsWhatTheProjectsWriterWrites) {
  const int64_t shape[] = {3, 4};
  std::vector<float> v(12);
  for (int k = 0; k < 12; ++k) v[k] = std::ldexp(static_cast<float>(k) - 5.5f, k - 6);
  v[3] = -0.0f;
  v[7] = std::numeric_limits<float>::denorm_min();
  v[11] = std::numeric_limits<float>::max();
  std::ostringstream out;
  out << NpyHeader(shape);
  WriteFloatsLE(out, v.data(), 12);
  auto r = ReadNpy(Span(out.str()));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().tensor.shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(r.value().header.descr, "<f4");
  EXPECT_EQ(r.value().header.version_major, 1);
  ASSERT_EQ(r.value().tensor.data.size(), 12u);
  for (int k = 0; k < 12; ++k) EXPECT_EQ(Bits(r.value().tensor.data[k]), Bits(v[k])) << k;
  EXPECT_FALSE(r.value().tensor.has_non_finite());
}

TEST(NpyReader, EveryVersionByteOrderAndFloatWidthGivesTheSameValues) {
  // Values exact in float16, so each dtype must give exactly these floats.
  const float values[] = {1.0f, -2.0f, 0.5f, 65504.0f, 0.333251953125f, -0.0f};
  // Their float16 bit patterns (IEEE 754 binary16: sign, 5 exponent bits biased 15, 10 bits).
  const uint16_t halves[] = {0x3c00, 0xc000, 0x3800, 0x7bff, 0x3555, 0x8000};
  for (int version : {1, 2, 3}) {
    for (bool be : {false, true}) {
      for (int width : {2, 4, 8}) {
        std::string data;
        for (int k = 0; k < 6; ++k) {
          if (width == 2) Put(data, halves[k], 2, be);
          if (width == 4) PutF32(data, values[k], be);
          if (width == 8) PutF64(data, values[k], be);
        }
        const std::string descr = std::string(be ? ">" : "<") + "f" + std::to_string(width);
        const std::string file = Npy(version, Dict(descr, false, "(2, 3)"), data);
        auto r = ReadNpy(Span(file));
        ASSERT_TRUE(r.ok()) << descr << " v" << version << ": " << r.message();
        EXPECT_EQ(r.value().header.version_major, version);
        EXPECT_EQ(r.value().header.big_endian, be);
        EXPECT_EQ(r.value().header.descr, descr);
        EXPECT_EQ(r.value().header.data_offset % 64, 0u);
        ASSERT_EQ(r.value().tensor.data.size(), 6u);
        for (int k = 0; k < 6; ++k) {
          EXPECT_EQ(Bits(r.value().tensor.data[k]), Bits(values[k])) << descr << " " << k;
        }
      }
    }
  }
}

TEST(NpyReader, Float16BitPatternsGiveKnownFloats) {
  // Subnormals 2^-24 and 1023 * 2^-24, the smallest normal 2^-14, the largest value, Inf,
  // NaN: IEEE 754-2008 table 3.5 (binary16).
  const uint16_t bits[] = {0x0001, 0x03ff, 0x0400, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x3bff};
  const float expect[] = {5.9604644775390625e-08f,
                          6.097555160522461e-05f,
                          6.103515625e-05f,
                          65504.0f,
                          INFINITY,
                          -INFINITY,
                          NAN,
                          0.99951171875f};
  std::string data;
  for (uint16_t b : bits) Put(data, b, 2);
  auto r = ReadNpy(Span(Npy(1, Dict("<f2", false, "(8,)"), data)));
  ASSERT_TRUE(r.ok()) << r.message();
  const auto& t = r.value().tensor;
  for (int k = 0; k < 8; ++k) {
    if (std::isnan(expect[k])) {
      EXPECT_TRUE(std::isnan(t.data[k]));
    } else {
      EXPECT_EQ(Bits(t.data[k]), Bits(expect[k])) << k;
    }
  }
  EXPECT_EQ(t.nan_count, 1);
  EXPECT_EQ(t.inf_count, 2);
  EXPECT_EQ(t.overflow_count, 0);
  EXPECT_TRUE(t.has_non_finite());
}

TEST(NpyReader, Float64RoundsToNearestEven) {
  const double one = 1.0;
  const double doubles[] = {
      0.1,                         // -> 0.1f, the float nearest 0.1
      one + std::ldexp(1.0, -24),  // halfway between 1 and 1 + 2^-23: even is 1
      one +
          3 * std::ldexp(1.0, -24),  // halfway between 1 + 2^-23 and 1 + 2^-22: even is the latter
      one + std::ldexp(1.0, -24) + std::ldexp(1.0, -50),  // just above halfway: rounds up
      1e39,    // beyond float32: Inf, counted as overflow
      -1e-50,  // underflows to -0
  };
  const float expect[] = {
      0.1f, 1.0f, 1.0f + std::ldexp(1.0f, -22), 1.0f + std::ldexp(1.0f, -23), INFINITY, -0.0f};
  std::string data;
  for (double d : doubles) PutF64(data, d);
  auto r = ReadNpy(Span(Npy(2, Dict("<f8", false, "(6,)"), data)));
  ASSERT_TRUE(r.ok()) << r.message();
  for (int k = 0; k < 6; ++k) EXPECT_EQ(Bits(r.value().tensor.data[k]), Bits(expect[k])) << k;
  EXPECT_EQ(r.value().tensor.overflow_count, 1);
  EXPECT_EQ(r.value().tensor.inf_count, 1);
  EXPECT_EQ(r.value().tensor.nan_count, 0);
}

// An empty Fortran-order tensor whose other dimension is huge reads at once as empty (a loop over
// that dimension once spun for seconds: found by the fuzzer).
TEST(NpyReader, EmptyFortranTensorWithAHugeDimensionReadsAtOnce) {
  for (const char* shape :
       {"(0, 4611686018427387904)", "(4611686018427387904, 0)", "(3, 0, 4611686018427387904)"}) {
    auto r = ReadNpy(Span(Npy(1, Dict(">f8", true, shape), "")));
    ASSERT_TRUE(r.ok()) << shape << ": " << r.message();
    EXPECT_TRUE(r.value().tensor.data.empty()) << shape;
  }
}

TEST(NpyReader, FortranOrderIsTransposedToCOrder) {
  // 2-D (2, 3): the file holds columns one after another.
  {
    std::string data;
    for (int j = 0; j < 3; ++j) {
      for (int i = 0; i < 2; ++i) PutF32(data, static_cast<float>(10 * i + j));
    }
    auto r = ReadNpy(Span(Npy(1, Dict("<f4", true, "(2, 3)"), data)));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r.value().tensor.data, (std::vector<float>{0, 1, 2, 10, 11, 12}));
  }
  // 3-D (2, 3, 4), big-endian float64: element (i, j, l) sits at i + 2 * (j + 3 * l).
  {
    std::vector<double> file(24);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int l = 0; l < 4; ++l) file[i + 2 * (j + 3 * l)] = 100 * i + 10 * j + l;
    std::string data;
    for (double d : file) PutF64(data, d, true);
    auto r = ReadNpy(Span(Npy(3, Dict(">f8", true, "(2, 3, 4)"), data)));
    ASSERT_TRUE(r.ok()) << r.message();
    const auto& t = r.value().tensor;
    EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3, 4}));
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int l = 0; l < 4; ++l)
          EXPECT_EQ(t.data[(i * 3 + j) * 4 + l], 100 * i + 10 * j + l) << i << j << l;
  }
  // 1-D Fortran is the same as C.
  {
    std::string data;
    for (int k = 0; k < 3; ++k) PutF32(data, static_cast<float>(k));
    auto r = ReadNpy(Span(Npy(1, Dict("<f4", true, "(3,)"), data)));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r.value().tensor.data, (std::vector<float>{0, 1, 2}));
  }
}

TEST(NpyReader, AcceptsEveryWayPythonWritesTheSameDict) {
  std::string data;
  for (int k = 0; k < 4; ++k) PutF32(data, static_cast<float>(k));
  for (const char* dict : {
           "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
           "{\"shape\": (2, 2), \"descr\": \"<f4\", \"fortran_order\": False}",
           "{ 'fortran_order' :False,'shape':(2,2,),'descr':'<f4' }",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 2L), }",  // Python 2
           "{'descr': '<f4',\n 'fortran_order': False,\n 'shape': (2, 2)}",
       }) {
    auto r = ReadNpy(Span(Npy(1, dict, data)));
    ASSERT_TRUE(r.ok()) << dict << ": " << r.message();
    EXPECT_EQ(r.value().tensor.shape, (std::vector<int64_t>{2, 2})) << dict;
    EXPECT_EQ(r.value().tensor.data, (std::vector<float>{0, 1, 2, 3})) << dict;
  }
  // Empty arrays are arrays: (0, 5) has no data.
  auto r = ReadNpy(Span(Npy(1, Dict("<f4", false, "(0, 5)"), "")));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_TRUE(r.value().tensor.data.empty());
}

TEST(NpyReader, RefusesBadHeadersNamingTheByteAndWhatWasExpected) {
  const std::string data8(8, '\0');  // two float32 zeros
  auto bad = [&](const std::string& dict, const std::string& data = std::string(8, '\0')) {
    return ReadNpy(Span(Npy(1, dict, data)));
  };
  // The dict starts at byte 10 in version 1.
  ExpectError(bad("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }"),
              {"byte 20:", "'<i4'", "'<f4'", "'>f8'"});
  ExpectError(bad("{'descr': 'f4', 'fortran_order': False, 'shape': (2,), }"), {"byte 20:"});
  ExpectError(bad("{'descr': '<f4', 'fortran_order': False, 'shape': (2), }"),
              {"byte 60:", "not a tuple", "(2,)"});
  ExpectError(bad("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", ""),
              {"byte 60:", "0-D"});
  ExpectError(bad("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 2), }"),
              {"byte 60:", "more than 3 dimensions"});
  ExpectError(bad("{'descr': '<f4', 'fortran_order': false, 'shape': (2,), }"),
              {"byte 44:", "True or False"});
  ExpectError(bad("{'descr': '<f4', 'shape': (2,), }"), {"no 'fortran_order' key"});
  ExpectError(bad("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}"),
              {"byte 27:", "'descr' appears twice"});
  ExpectError(bad("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"),
              {"byte 66:", "unexpected key 'x'"});
  ExpectError(bad("{'descr': '<f4', 'fortran_order': False, 'shape': (02,), }"),
              {"byte 61:", "leading zero"});
  ExpectError(bad("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }"),
              {"byte 61:", "non-negative integer"});
  ExpectError(bad("{'descr': '<f4', 'fortran_order': False, 'shape': (2,) }x"),
              {"byte 66:", "only spaces"});
  ExpectError(bad("{'descr': '<f4' 'fortran_order': False, 'shape': (2,) }"),
              {"byte 26:", "expected ',' or '}'"});
  ExpectError(bad("['descr', '<f4']"), {"byte 10:", "'{'"});
}

TEST(NpyReader, RefusesWrongMagicVersionsAndTruncation) {
  const std::string good = Npy(1, Dict("<f4", false, "(2,)"), std::string(8, '\0'));
  std::string magic = good;
  magic[1] = 'X';
  ExpectError(ReadNpy(Span(magic)), {"byte 1:", "magic"});
  ExpectError(ReadNpy(Span(std::string("PK\x03\x04", 4))), {"byte 0:", "magic"});
  ExpectError(ReadNpy(Span(good.substr(0, 4))), {"byte 4:", "ends inside the magic"});
  std::string v4 = good;
  v4[6] = 4;
  ExpectError(ReadNpy(Span(v4)), {"byte 6:", "version 4.0", "1.0, 2.0 or 3.0"});
  ExpectError(ReadNpy(Span(good.substr(0, 9))), {"byte 9:", "header length"});
  ExpectError(ReadNpy(Span(good.substr(0, 40))),
              {"byte 40:", "ends inside the header", "to byte 128"});
  ExpectError(ReadNpy(Span(good.substr(0, good.size() - 3))),
              {"byte 133:", "3 bytes early", "(2,)", "'<f4'", "8 bytes"});
  ExpectError(ReadNpy(Span(good + "xyz")), {"byte 136:", "3 bytes after the data"});
  // A header length past 1 MiB (version 2 allows 4 GiB) is refused before it is read.
  std::string huge("\x93NUMPY\x02\x00", 8);
  Put(huge, uint64_t{1} << 31, 4);
  ExpectError(ReadNpy(Span(huge)), {"byte 8:", "header length 2147483648"});
}

TEST(NpyReader, RefusesShapesOverTheCapBeforeAllocating) {
  // 2^62 x 4 float32 is 2^66 bytes: named with the shape and the cap, never attempted.
  ExpectError(ReadNpy(Span(Npy(1, Dict("<f4", false, "(4611686018427387904, 4)"), ""))),
              {"(4611686018427387904, 4)", "more than 16 EiB", "memory cap of 2.0 GiB"});
  ExpectError(ReadNpy(Span(Npy(1, Dict("<f8", false, "(4611686018427387904,)"), ""))),
              {"(4611686018427387904,)", "memory cap"});
  // A small cap refuses a small file: 100 x 100 float32 = 39.1 KiB over 1 KiB.
  const std::string file = Npy(1, Dict("<f2", false, "(100, 100)"), std::string(20000, '\0'));
  ExpectError(ReadNpy(Span(file), MemoryCap{1024}), {"(100, 100)", "39.1 KiB", "1.0 KiB"});
  EXPECT_TRUE(ReadNpy(Span(file), MemoryCap{40000}).ok());
}

TEST(NpyReader, PathVersionNamesTheFileAndHandlesOddFiles) {
  const std::string dir = TempDir();
  const std::string path = dir + "/table.npy";
  const int64_t shape[] = {2, 2};
  const float v[] = {1.5f, -2.25f, 3.0f, 4.125f};
  ASSERT_TRUE(WriteFileAtomically(path, [&](std::ostream& out) {
                out << NpyHeader(shape);
                WriteFloatsLE(out, v, 4);
                return Status();
              }).ok());
  auto r = ReadNpyFile(path);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().tensor.data, (std::vector<float>{1.5f, -2.25f, 3.0f, 4.125f}));

  WriteBytes(dir + "/short.npy", Npy(1, Dict("<f4", false, "(4,)"), std::string(4, '\0')));
  ExpectError(ReadNpyFile(dir + "/short.npy"), {"\"" + dir + "/short.npy\": ", "12 bytes early"});
  WriteBytes(dir + "/empty.npy", "");
  ExpectError(ReadNpyFile(dir + "/empty.npy"), {"/empty.npy\": byte 0:", "magic"});
  ExpectError(ReadNpyFile(dir), {"\"" + dir + "\" is a directory"});
  ExpectError(ReadNpyFile(dir + "/missing.npy"), {"cannot read", "missing.npy", "No such file"});
  // A device without end: refused at its first bytes, not read forever.
  ExpectError(ReadNpyFile("/dev/zero"), {"\"/dev/zero\": byte 0:", "magic"});
}

// Arrays numpy itself writes (its own writer, versions 1.0, 2.0 and 3.0, both byte orders,
// Fortran order, float16/32/64), with the float32 values numpy computes for them.
TEST(NpyReader, ReadsFilesNumpyWrites) {
  const char* python = "/usr/bin/python3";
  if (::access(python, X_OK) != 0 ||
      std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0) {
    GTEST_SKIP() << "no /usr/bin/python3 with numpy";
  }
  const std::string dir = TempDir();
  const std::string script = dir + "/write.py";
  WriteBytes(script, R"PY(
import sys, numpy as np
from numpy.lib import format as fmt
d = sys.argv[1]
rng = np.random.default_rng(7)
base = rng.standard_normal((3, 4, 5)) * 100
cases = [('a', '<f4', 'C', 2, (3, 4, 5)), ('b', '>f8', 'F', 1, (3, 4, 5)),
         ('c', '<f2', 'F', 3, (12, 5)), ('d', '>f2', 'C', 1, (60,)), ('e', '<f8', 'F', 2, (4, 15))]
with open(d + '/expect.txt', 'w') as out:
    for name, dt, order, version, shape in cases:
        a = np.asarray(base.reshape(shape), dtype=dt, order=order)
        with open(d + '/' + name + '.npy', 'wb') as f:
            fmt.write_array(f, a, version=(version, 0))
        f32 = np.ascontiguousarray(a.astype('<f4'))
        out.write(name + ' ' + ' '.join(str(int(x)) for x in f32.reshape(-1).view('<u4')) + '\n')
)PY");
  ASSERT_EQ(std::system(("/usr/bin/python3 " + script + " " + dir).c_str()), 0);
  std::ifstream expect(dir + "/expect.txt");
  int files = 0;
  for (std::string line; std::getline(expect, line);) {
    std::istringstream in(line);
    std::string name;
    in >> name;
    std::vector<uint32_t> bits;
    for (uint32_t b; in >> b;) bits.push_back(b);
    auto r = ReadNpyFile(dir + "/" + name + ".npy");
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r.value().tensor.data.size(), bits.size()) << name;
    for (size_t k = 0; k < bits.size(); ++k) {
      ASSERT_EQ(Bits(r.value().tensor.data[k]), bits[k]) << name << " value " << k;
    }
    ++files;
  }
  EXPECT_EQ(files, 5);
}

// ---------------------------------------------------------------------------------------------
// safetensors

// A safetensors file by hand: 8-byte little-endian length, the JSON, the data.
std::string Safetensors(const std::string& json, const std::string& data) {
  std::string out;
  Put(out, json.size(), 8);
  return out + json + data;
}

TEST(SafetensorsReader, ListsTwoTensorsAndReadsEachByName) {
  // "embed" F32 (2, 3) at data [0, 24); "scale" BF16 (2,) at [24, 28).
  std::string data;
  for (float f : {0.5f, -1.0f, 2.0f, 3.25f, -4.5f, 1e-3f}) PutF32(data, f);
  Put(data, 0x3f80, 2);  // bfloat16 1.0
  Put(data, 0xc049, 2);  // bfloat16 -3.140625: sign, exponent 128, mantissa 0x49 / 128
  const std::string json = R"({"scale":{"dtype":"BF16","shape":[2],"data_offsets":[24,28]},)"
                           R"("__metadata__":{"format":"pt"},)"
                           R"("embed":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}})";
  const std::string file = Safetensors(json, data);
  auto index = ReadSafetensorsIndex(Span(file));
  ASSERT_TRUE(index.ok()) << index.message();
  const auto& t = index.value().tensors;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].name, "embed");  // sorted by data offset
  EXPECT_EQ(t[0].dtype, "F32");
  EXPECT_EQ(t[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t[1].name, "scale");
  EXPECT_EQ(t[1].dtype, "BF16");
  EXPECT_EQ(index.value().data_offset, 8 + json.size());
  ASSERT_EQ(index.value().metadata.size(), 1u);
  EXPECT_EQ(index.value().metadata[0].second, "pt");
  auto embed = ReadSafetensor(Span(file), "embed");
  ASSERT_TRUE(embed.ok()) << embed.message();
  EXPECT_EQ(embed.value().shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(embed.value().data, (std::vector<float>{0.5f, -1.0f, 2.0f, 3.25f, -4.5f, 1e-3f}));
  auto scale = ReadSafetensor(Span(file), "scale");
  ASSERT_TRUE(scale.ok()) << scale.message();
  EXPECT_EQ(scale.value().data, (std::vector<float>{1.0f, -3.140625f}));
  ExpectError(ReadSafetensor(Span(file), "bias"), {"no tensor \"bias\"", "\"embed\", \"scale\""});
}

TEST(SafetensorsReader, Float16BFloat16AndFloat64GiveKnownFloats) {
  std::string data;
  for (uint16_t h : {0x0001, 0x7bff, 0xfc00, 0x7e00}) Put(data, h, 2);  // F16 [0, 8)
  for (uint16_t b : {0x0001, 0x7f7f, 0xff80, 0x4049}) Put(data, b, 2);  // BF16 [8, 16)
  for (double d : {0.1, 1e300}) PutF64(data, d);                        // F64 [16, 32)
  const std::string json = R"({"h":{"dtype":"F16","shape":[4],"data_offsets":[0,8]},)"
                           R"("b":{"dtype":"BF16","shape":[2,2],"data_offsets":[8,16]},)"
                           R"("d":{"dtype":"F64","shape":[2],"data_offsets":[16,32]}})";
  const std::string file = Safetensors(json, data);
  auto h = ReadSafetensor(Span(file), "h");
  ASSERT_TRUE(h.ok()) << h.message();
  EXPECT_EQ(h.value().data[0], std::ldexp(1.0f, -24));
  EXPECT_EQ(h.value().data[1], 65504.0f);
  EXPECT_EQ(h.value().data[2], -INFINITY);
  EXPECT_TRUE(std::isnan(h.value().data[3]));
  EXPECT_EQ(h.value().nan_count, 1);
  EXPECT_EQ(h.value().inf_count, 1);
  auto b = ReadSafetensor(Span(file), "b");
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b.value().data[0], std::ldexp(1.0f, -133));   // the smallest bfloat16 subnormal
  EXPECT_EQ(b.value().data[1], std::ldexp(255.0f, 120));  // the largest: (2 - 2^-7) * 2^127
  EXPECT_EQ(b.value().data[2], -INFINITY);
  EXPECT_EQ(b.value().data[3], 3.140625f);
  auto d = ReadSafetensor(Span(file), "d");
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_EQ(d.value().data[0], 0.1f);
  EXPECT_EQ(d.value().data[1], INFINITY);
  EXPECT_EQ(d.value().overflow_count, 1);
}

TEST(SafetensorsReader, RefusesBadFilesNamingTheOffsetAndWhatWasExpected) {
  const std::string t1 = R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  const std::string good = Safetensors("{" + t1 + "}", std::string(8, '\0'));
  ASSERT_TRUE(ReadSafetensorsIndex(Span(good)).ok());
  ExpectError(ReadSafetensorsIndex(Span(good.substr(0, 5))), {"byte 5:", "8-byte header length"});
  std::string huge;
  Put(huge, uint64_t{1} << 40, 8);
  ExpectError(ReadSafetensorsIndex(Span(huge + "{}")),
              {"byte 0:", "header length 1099511627776", "100000000"});
  ExpectError(ReadSafetensorsIndex(Span(good.substr(0, 20))),
              {"byte 20:", "ends inside the header"});
  ExpectError(ReadSafetensorsIndex(Span(Safetensors("[1, 2]", ""))), {"byte 8:", "'{'"});
  ExpectError(ReadSafetensorsIndex(Span(Safetensors("{\"a\": tru}", ""))),
              {"byte 17:", "not valid JSON"});
  ExpectError(ReadSafetensorsIndex(Span(Safetensors("{" + t1 + "," + t1 + "}", ""))),
              {"\"a\" appears twice"});
  ExpectError(ReadSafetensorsIndex(
                  Span(Safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                   R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                   std::string(8, '\0')))),
              {"tensor \"b\"", "[4, 8]", "overlaps tensor \"a\""});
  ExpectError(
      ReadSafetensorsIndex(Span(Safetensors(
          R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", std::string(12, '\0')))),
      {"gap of 4 bytes"});
  ExpectError(
      ReadSafetensorsIndex(Span(Safetensors(
          R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", std::string(8, '\0')))),
      {"shape (3,) of F32 needs 12 bytes", "span 8"});
  ExpectError(ReadSafetensorsIndex(Span(Safetensors(
                  R"({"a":{"dtype":"F32","shape":[2147483648,2147483648,4],"data_offsets":[0,8]}})",
                  std::string(8, '\0')))),
              {"more than 2^64", "memory cap of 2.0 GiB"});
  ExpectError(ReadSafetensorsIndex(Span(Safetensors(
                  R"({"a":{"dtype":"F32","shape":[4611686018427387904],"data_offsets":[0,8]}})",
                  std::string(8, '\0')))),
              {"shape (4611686018427387904,)", "more than 2^64", "over the memory cap of 2.0 GiB"});
  ExpectError(
      ReadSafetensorsIndex(Span(Safetensors(
          R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", std::string(8, '\0')))),
      {"8 bytes early", "run to byte 79"});
  ExpectError(ReadSafetensorsIndex(Span(good + "zz")), {"bytes after the last tensor", "2 bytes"});
  ExpectError(ReadSafetensorsIndex(Span(
                  Safetensors(R"({"a":{"dtype":"F12","shape":[2],"data_offsets":[0,8]}})", ""))),
              {"tensor \"a\"", "unknown dtype \"F12\"", "BF16"});
  ExpectError(ReadSafetensorsIndex(Span(
                  Safetensors(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", ""))),
              {"\"shape\" holds -2"});
  ExpectError(ReadSafetensorsIndex(Span(
                  Safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", ""))),
              {"ends before it begins"});
  ExpectError(ReadSafetensorsIndex(
                  Span(Safetensors(R"({"a":{"dtype":"F32","shape":[2],"offsets":[0,8]}})", ""))),
              {"unexpected field \"offsets\""});
  ExpectError(ReadSafetensorsIndex(Span(Safetensors(R"({"__metadata__":{"n":3}})", ""))),
              {"\"__metadata__\" entry \"n\" is 3"});
  // Integer tensors are listed but not read as floats.
  const std::string ints = Safetensors(
      R"({"ids":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", std::string(8, '\0'));
  ASSERT_TRUE(ReadSafetensorsIndex(Span(ints)).ok());
  ExpectError(ReadSafetensor(Span(ints), "ids"), {"tensor \"ids\" is I64", "F16 and BF16"});
}

TEST(SafetensorsReader, RefusesTensorsOverTheCap) {
  // 300 float32 = 1200 bytes, over a 1 KiB cap: the header lists it, reading it is refused.
  const std::string file = Safetensors(
      R"({"big":{"dtype":"F32","shape":[300],"data_offsets":[0,1200]}})", std::string(1200, '\0'));
  ASSERT_TRUE(ReadSafetensorsIndex(Span(file), MemoryCap{4096}).ok());
  ExpectError(ReadSafetensor(Span(file), "big", MemoryCap{1024}),
              {"tensor \"big\"", "(300,)", "1.2 KiB", "memory cap of 1.0 KiB"});
}

TEST(SafetensorsReader, PathVersionMapsTheFileAndNamesIt) {
  const std::string dir = TempDir();
  std::string data;
  for (float f : {1.0f, 2.0f, 3.0f}) PutF32(data, f);
  Put(data, 0x3c00, 2);  // F16 1.0
  Put(data, 0x4000, 2);  // F16 2.0
  WriteBytes(dir + "/m.safetensors",
             Safetensors(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},)"
                         R"("h":{"dtype":"F16","shape":[1,2],"data_offsets":[12,16]}})",
                         data));
  auto f = SafetensorsFile::Open(dir + "/m.safetensors");
  ASSERT_TRUE(f.ok()) << f.message();
  ASSERT_EQ(f.value().tensors().size(), 2u);
  auto h = f.value().Read("h");
  ASSERT_TRUE(h.ok()) << h.message();
  EXPECT_EQ(h.value().data, (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(h.value().shape, (std::vector<int64_t>{1, 2}));
  ExpectError(f.value().Read("x"), {"\"" + dir + "/m.safetensors\": no tensor \"x\""});
  ExpectError(SafetensorsFile::Open(dir), {"is a directory"});
  // /dev/zero: a header length of 0, refused at once.
  ExpectError(SafetensorsFile::Open("/dev/zero"), {"\"/dev/zero\": byte 0:", "header length 0"});
  WriteBytes(dir + "/cut.safetensors",
             Safetensors(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})", "abc"));
  ExpectError(SafetensorsFile::Open(dir + "/cut.safetensors"),
              {"/cut.safetensors\": byte ", "9 bytes early"});
}

// ---------------------------------------------------------------------------------------------
// Word vectors

TEST(WordVectorsReader, ReadsGloveText) {
  const std::string file =
      "the 0.418 0.24968 -0.41242\n, 0.013441 0.23682 -0.16899\ncat 1e-3 -2 3.5\n";
  auto r = ReadWordVectors(Span(file));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().format, WordVectorFormat::kGloveText);
  EXPECT_EQ(r.value().words, (std::vector<std::string>{"the", ",", "cat"}));
  EXPECT_EQ(r.value().table.rows, 3);
  EXPECT_EQ(r.value().table.cols, 3);
  // The compiler's own decimal-to-float conversion of the same literals, correctly rounded.
  EXPECT_EQ(r.value().table.data, (std::vector<float>{0.418f, 0.24968f, -0.41242f, 0.013441f,
                                                      0.23682f, -0.16899f, 1e-3f, -2.0f, 3.5f}));
  // No final newline, Windows line ends: the same table.
  auto crlf = ReadWordVectors(Span(std::string("a 1 2\r\nb 3 4")));
  ASSERT_TRUE(crlf.ok()) << crlf.message();
  EXPECT_EQ(crlf.value().table.data, (std::vector<float>{1, 2, 3, 4}));
}

TEST(WordVectorsReader, ReadsFastTextVecWithItsHeaderAndTrailingSpaces) {
  const std::string file = "3 2\n</s> 0.1 0.2 \nkönig -1.5 2.5 \n日本 nan inf \n";
  auto r = ReadWordVectors(Span(file));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().format, WordVectorFormat::kVecText);
  EXPECT_EQ(r.value().words, (std::vector<std::string>{"</s>", "könig", "日本"}));
  EXPECT_EQ(r.value().table.rows, 3);
  EXPECT_EQ(r.value().table.at(0, 1), 0.2f);
  EXPECT_EQ(r.value().table.at(1, 0), -1.5f);
  EXPECT_TRUE(std::isnan(r.value().table.at(2, 0)));
  EXPECT_EQ(r.value().table.at(2, 1), INFINITY);
  EXPECT_EQ(r.value().nan_count, 1);
  EXPECT_EQ(r.value().inf_count, 1);
}

// word2vec.c's binary layout: "V d\n", then per word "word " + d float32 + "\n".
std::string Word2VecBinary(const std::vector<std::pair<std::string, std::vector<float>>>& rows,
                           bool newlines = true) {
  std::string out =
      std::to_string(rows.size()) + " " + std::to_string(rows[0].second.size()) + "\n";
  for (const auto& [w, v] : rows) {
    out += w + " ";
    for (float f : v) PutF32(out, f);
    if (newlines) out += "\n";
  }
  return out;
}

TEST(WordVectorsReader, ReadsWord2VecBinaryWithAndWithoutNewlines) {
  const std::vector<std::pair<std::string, std::vector<float>>> rows = {
      {"in", {0.0f, 1.0f, -2.5f}}, {"for", {1e-30f, 0.1f, 10.0f}}, {"Ωmega", {3.0f, 4.0f, 5.0f}}};
  for (bool nl : {true, false}) {
    auto r = ReadWordVectors(Span(Word2VecBinary(rows, nl)));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r.value().format, WordVectorFormat::kWord2VecBinary);
    EXPECT_EQ(r.value().words, (std::vector<std::string>{"in", "for", "Ωmega"}));
    EXPECT_EQ(r.value().table.data,
              (std::vector<float>{0.0f, 1.0f, -2.5f, 1e-30f, 0.1f, 10.0f, 3.0f, 4.0f, 5.0f}));
    auto named = ReadWordVectors(Span(Word2VecBinary(rows, nl)), WordVectorFormat::kWord2VecBinary);
    ASSERT_TRUE(named.ok()) << named.message();
    EXPECT_EQ(named.value().table.data, r.value().table.data);
  }
}

TEST(WordVectorsReader, RefusesBadRowsWithTheLineNumber) {
  ExpectError(ReadWordVectors(Span(std::string("a 1 2\nb 3 4\na 5 6\n"))),
              {"line 3:", "\"a\" appears again", "line 1"});
  ExpectError(ReadWordVectors(Span(std::string("a 1 2\nb\xff 3 4\n"))),
              {"line 2:", "not valid UTF-8", "byte 1"});
  ExpectError(ReadWordVectors(Span(std::string("a 1 2\nb 3 4 5\n"))),
              {"line 2:", "\"b\" has 3 values; expected 2", "line 1"});
  ExpectError(ReadWordVectors(Span(std::string("a 1 2\nb 3\n"))), {"line 2:", "has 1 values"});
  ExpectError(ReadWordVectors(Span(std::string("a 1 2\nb 3 x4\n"))),
              {"line 2:", "value 2 of \"b\"", "\"x4\" is not a number"});
  ExpectError(ReadWordVectors(Span(std::string("a 1 2\nb 3 1e39\n"))),
              {"line 2:", "\"1e39\" is beyond float32's range"});
  ExpectError(ReadWordVectors(Span(std::string("a 1 2\n\nb 3 4\n"))), {"line 2:", "empty line"});
  ExpectError(ReadWordVectors(Span(std::string("2 2\na 1.25 2.5\n"))),
              {"line 3:", "ends after 1 rows", "says 2"});
  ExpectError(ReadWordVectors(Span(std::string("1 2\na 1 2\nb 3 4\n"))),
              {"line 3:", "a row after the 1"});
  ExpectError(ReadWordVectors(Span(std::string("1 2\na 1 2 3 \n"))),
              {"line 2:", "has 3 values; expected 2 (the header's d)"});
  ExpectError(ReadWordVectors(Span(std::string("a 1\0 2\n", 7))), {"line 1:", "NUL byte"});
  ExpectError(ReadWordVectors(Span(std::string())), {"empty"});
  ExpectError(ReadWordVectors(Span(std::string("a\n"))), {"line 1:", "no values"});
  ExpectError(ReadWordVectors(Span(std::string("a 1 2\n")), WordVectorFormat::kVecText),
              {"line 1:", "expected the header \"V d\""});
  // Small values underflow as float32 does (to a subnormal or zero), not as an error.
  auto tiny = ReadWordVectors(Span(std::string("a 1e-40 1e-50\n")));
  ASSERT_TRUE(tiny.ok()) << tiny.message();
  EXPECT_EQ(tiny.value().table.data[1], 0.0f);
  EXPECT_GT(tiny.value().table.data[0], 0.0f);
}

TEST(WordVectorsReader, RefusesLyingHeadersBeforeAllocating) {
  // 10^15 x 300 float32 is over any cap: the shape and the cap are named, nothing allocated.
  ExpectError(ReadWordVectors(Span(std::string("1000000000000000 300\na 1 2\n"))),
              {"line 1:", "1000000000000000 x 300", "memory cap of 2.0 GiB"});
  ExpectError(ReadWordVectors(Span(std::string("0 4611686018427387904\n"))),
              {"line 1:", "d is 4611686018427387904", "expected 1 to 16777216"});
  ExpectError(ReadWordVectors(Span(std::string("3 0\n"))), {"line 1:", "d is 0"});
  // Under the cap but more rows than the bytes could hold.
  ExpectError(ReadWordVectors(Span(std::string("1000 2\na 1 2\n"))),
              {"line 1:", "1000 words of 2 values", "6 bytes follow"});
  // The running total of a GloVe file (no header) against a small cap.
  std::string many;
  for (int k = 0; k < 100; ++k) {
    many += 'w';
    many += std::to_string(k);
    many += " 1 2 3 4\n";
  }
  ExpectError(ReadWordVectors(Span(many), WordVectorFormat::kAuto, MemoryCap{2048}),
              {"line ", "over the memory cap of 2.0 KiB"});
  EXPECT_TRUE(ReadWordVectors(Span(many), WordVectorFormat::kAuto, MemoryCap{1 << 20}).ok());
}

TEST(WordVectorsReader, RefusesBadBinaryRowsWithTheRowAndByte) {
  // "2 2\n" (bytes 0-3), "alpha " + 8 + "\n" (4-18), "bravo " + 8 + "\n" (19-33).
  const std::string good = Word2VecBinary({{"alpha", {1, 2}}, {"bravo", {3, 4}}});
  ASSERT_EQ(good.size(), 34u);
  ExpectError(
      ReadWordVectors(Span(good.substr(0, 30))),
      {"row 2, byte 19:", "ends inside the values of \"bravo\"", "expected 8 bytes", "found 5"});
  ExpectError(ReadWordVectors(Span(good + "c ")), {"byte 34:", "data after the 2 rows"});
  // A header promising 2 rows, with one long row: the second is missing.
  std::string one = Word2VecBinary({{"alphabetagammadelta", {1, 2}}});
  one[0] = '2';
  ExpectError(ReadWordVectors(Span(one)), {"row 2, byte 33:", "ends after 1 rows", "says 2"});
  // Too few bytes for the rows promised, before any row is read.
  ExpectError(ReadWordVectors(Span(good.substr(0, 19))),
              {"line 1:", "2 words of 2 values, at least 10 bytes each", "only 15 bytes"});
  const std::string dup = Word2VecBinary({{"a", {1, 2}}, {"a", {3, 4}}});
  ExpectError(ReadWordVectors(Span(dup)), {"row 2", "\"a\" appears again (first at row 1)"});
  const std::string bad_utf8 = Word2VecBinary({{"a", {1, 2}}, {"\xc3(", {3, 4}}});
  ExpectError(ReadWordVectors(Span(bad_utf8)), {"row 2", "not valid UTF-8"});
  ExpectError(ReadWordVectors(Span(std::string("9999 2\n")), WordVectorFormat::kWord2VecBinary),
              {"line 1:", "9999 words"});
}

TEST(WordVectorsReader, PathVersionNamesTheFileAndStopsOnDevices) {
  const std::string dir = TempDir();
  WriteBytes(dir + "/v.txt", "x 1 2\ny 3 4\n");
  auto r = ReadWordVectorsFile(dir + "/v.txt");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().words, (std::vector<std::string>{"x", "y"}));
  WriteBytes(dir + "/bad.txt", "x 1 2\ny 3\n");
  ExpectError(ReadWordVectorsFile(dir + "/bad.txt"), {"\"" + dir + "/bad.txt\": line 2:"});
  ExpectError(ReadWordVectorsFile(dir), {"is a directory"});
  // /dev/zero is NUL bytes: refused on line 1 after one chunk, not read to the cap.
  ExpectError(ReadWordVectorsFile("/dev/zero"), {"\"/dev/zero\": line 1:", "NUL byte at byte 0"});
  ExpectError(ReadWordVectorsFile("/dev/zero", WordVectorFormat::kWord2VecBinary),
              {"\"/dev/zero\": line 1:"});
}

// ---------------------------------------------------------------------------------------------
// Streams: a pipe is read as far as the reader needs, through the same path functions.

// Gives `bytes` to a reader through a pipe opened by path (/dev/fd/N), as a shell's <(...)
// does; the writer thread ignores a reader that stops early (EPIPE, SIGPIPE blocked).
template <class Read>
auto ThroughPipe(const std::string& bytes, Read read) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, nullptr);
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fds[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  auto result = read("/dev/fd/" + std::to_string(fds[0]));
  ::close(fds[0]);
  writer.join();
  return result;
}

TEST(ReaderStreams, PipesReadLikeFiles) {
  // An NPY of 40,000 values (160 KB, more than a pipe holds at once).
  std::string data;
  for (int k = 0; k < 40000; ++k) PutF32(data, static_cast<float>(k) * 0.5f);
  const std::string npy = Npy(2, Dict("<f4", false, "(200, 200)"), data);
  auto a = ThroughPipe(npy, [](const std::string& p) { return ReadNpyFile(p); });
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a.value().tensor.data[39999], 19999.5f);
  // The cap bounds what a stream may make the reader hold.
  auto capped =
      ThroughPipe(npy, [](const std::string& p) { return ReadNpyFile(p, MemoryCap{100000}); });
  ExpectError(capped, {"(200, 200)", "memory cap of 97.7 KiB"});
  // A GloVe file of 3,000 lines, read in growing chunks.
  std::string glove;
  for (int k = 0; k < 3000; ++k) {
    glove += "w";
    glove += std::to_string(k);
    glove += " 0.25 -1 ";
    glove += std::to_string(k);
    glove += "\n";
  }
  auto w = ThroughPipe(glove, [](const std::string& p) { return ReadWordVectorsFile(p); });
  ASSERT_TRUE(w.ok()) << w.message();
  EXPECT_EQ(w.value().table.rows, 3000);
  EXPECT_EQ(w.value().table.at(2999, 2), 2999.0f);
  EXPECT_EQ(w.value().words[1234], "w1234");
  // A safetensors file: the header, then the data up to the last tensor.
  std::string st_data;
  for (int k = 0; k < 3; ++k) PutF32(st_data, static_cast<float>(k));
  const std::string st =
      Safetensors(R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})", st_data);
  auto s = ThroughPipe(st, [](const std::string& p) -> Result<FloatTensor> {
    auto f = SafetensorsFile::Open(p);
    if (!f.ok()) return f.error();
    return f.value().Read("t");
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s.value().data, (std::vector<float>{0, 1, 2}));
  // A truncated stream names the pipe and the byte.
  auto cut = ThroughPipe(npy.substr(0, 1000), [](const std::string& p) { return ReadNpyFile(p); });
  ExpectError(cut, {"\"/dev/fd/", "byte 1000:", "bytes early"});
}

}  // namespace
}  // namespace pe
