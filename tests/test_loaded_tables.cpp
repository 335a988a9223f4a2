// Tables loaded from files into the model (io/loaded_table.h, the --embeddings and
// --positions-table fields): files are written byte by byte here (NPY per NEP 1, safetensors per
// huggingface/safetensors' format description, GloVe text), so the expected values are the
// ones put in, independent of the readers. The heatmap's NPY export of a loaded table must give
// the file's values back: bit for bit for float32, exactly for float16 and bfloat16, rounded to
// nearest for float64.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <utime.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "encoding/encoding.h"
#include "encoding/learned.h"
#include "encoding/t5_buckets.h"
#include "io/loaded_table.h"
#include "io/word_vectors_reader.h"
#include "model/input_layer.h"
#include "model/param_fields.h"
#include "session/session.h"
#include "test_support.h"
#include "views/compare_view.h"
#include "views/view_tables.h"

namespace pe {
namespace {

// A FILE field set as the command line sets it: the path, then the load step.
Status SetAndLoad(ModelParams& m, const char* flag, const std::string& text) {
  if (Status s = FindParamField(flag)->set(m, text); !s.ok()) return s;
  return LoadParamFiles(m);
}

using pe::testing::NpyArray;
using pe::testing::ParseNpy;

using LoadedTables = pe::testing::TempDirTest;

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

template <class T>
std::string Raw(const std::vector<T>& values) {
  std::string s(values.size() * sizeof(T), '\0');
  std::memcpy(s.data(), values.data(), s.size());
  return s;
}

// An NPY v1.0 file: magic, version, header length, the dict padded with spaces to a multiple of
// 64 bytes and ended by '\n', then the data (NEP 1).
std::string Npy(const std::string& descr, int64_t rows, int64_t cols, const std::string& data,
                bool fortran = false) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': (" + std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string s = "\x93NUMPY";
  s += '\x01';
  s += '\x00';
  s += static_cast<char>(dict.size() & 0xff);
  s += static_cast<char>(dict.size() >> 8);
  return s + dict + data;
}

// A safetensors file: 8-byte little-endian header length, the JSON header, the tensors' data.
struct StTensor {
  std::string name, dtype;
  int64_t rows, cols;
  std::string data;
};
std::string Safetensors(const std::vector<StTensor>& tensors) {
  std::string json = "{";
  size_t offset = 0;
  std::string data;
  for (const StTensor& t : tensors) {
    if (json.size() > 1) json += ",";
    json += "\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[" +
            std::to_string(t.rows) + "," + std::to_string(t.cols) + "],\"data_offsets\":[" +
            std::to_string(offset) + "," + std::to_string(offset + t.data.size()) + "]}";
    offset += t.data.size();
    data += t.data;
  }
  json += "}";
  std::string s(8, '\0');
  const uint64_t n = json.size();
  for (int k = 0; k < 8; ++k) s[static_cast<size_t>(k)] = static_cast<char>((n >> (8 * k)) & 0xff);
  return s + json + data;
}

// The heatmap table of the learned scheme showing `spec` rows 0 .. max_len - 1, as NPY.
NpyArray HeatmapOf(const std::string& spec, int64_t max_len) {
  ModelParams m;
  SetScheme(m, Scheme::kLearned);
  EXPECT_TRUE(SetAndLoad(m, "--positions-table", spec).ok());
  EXPECT_TRUE(FindParamField("--max-len")->set(m, std::to_string(max_len)).ok());
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  EXPECT_TRUE(e.ok()) << e.message();
  std::ostringstream out;
  EXPECT_TRUE(WriteHeatmapTable(out, TableFormat::kNpy, *e.value()).ok());
  NpyArray a;
  std::string why;
  EXPECT_TRUE(ParseNpy(out.str(), a, why)) << why;
  return a;
}

std::vector<uint32_t> Bits(const std::vector<float>& v) {
  std::vector<uint32_t> b;
  for (float x : v) b.push_back(std::bit_cast<uint32_t>(x));
  return b;
}

// FNV-1a 64 test vectors from its authors (isthe.com/chongo/tech/comp/fnv): inputs shorter than
// one 8-byte word hash byte by byte, as plain FNV-1a.
TEST(TableHash, ShortInputsAreFnv1a64) {
  auto h = [](const char* s) { return HashBytes(std::as_bytes(std::span(s, std::strlen(s)))); };
  EXPECT_EQ(h(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(h("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(h("foobar"), 0x85944171f73967e8ull);
  EXPECT_EQ(HashText(0xaf63dc4c8601ec8cull), "af63dc4c8601ec8c");
}

// Longer inputs: 8-byte little-endian words, written out here from the definition.
TEST(TableHash, WordsThenTailBytesThenLength) {
  std::string s = "0123456789abcdefXYZ";  // two words and 3 tail bytes
  uint64_t want = 0xcbf29ce484222325ull;
  for (size_t k = 0; k + 8 <= s.size(); k += 8) {
    uint64_t w = 0;
    for (int b = 7; b >= 0; --b)
      w = (w << 8) | static_cast<unsigned char>(s[k + static_cast<size_t>(b)]);
    want = (want ^ w) * 0x100000001b3ull;
  }
  for (size_t k = 16; k < s.size(); ++k)
    want = (want ^ static_cast<unsigned char>(s[k])) * 0x100000001b3ull;
  const auto bytes = std::as_bytes(std::span(s.data(), s.size()));
  EXPECT_EQ(HashBytes(bytes), want);
  EXPECT_EQ(FinishHash(HashBytes(bytes), s.size()), (want ^ s.size()) * 0x100000001b3ull);
  // Continuing over a split at a word boundary is one call.
  EXPECT_EQ(HashBytes(bytes.subspan(8), HashBytes(bytes.first(8))), want);
}

TEST_F(LoadedTables, Float32NpyHeatmapExportIsBitForBit) {
  std::vector<float> v;
  for (int k = 0; k < 6 * 5; ++k)
    v.push_back(std::ldexp(static_cast<float>(k * 7919 % 1013) - 500.0f, -7) + 1e-7f * k);
  v[3] = std::numeric_limits<float>::denorm_min();
  v[4] = -0.0f;
  WriteBytes(Path("wpe.npy"), Npy("<f4", 6, 5, Raw(v)));
  const NpyArray a = HeatmapOf(Path("wpe.npy"), 6);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(Bits(a.data), Bits(v));
  // max_len shows the first rows.
  const NpyArray b = HeatmapOf(Path("wpe.npy"), 2);
  EXPECT_EQ(Bits(b.data), Bits(std::vector<float>(v.begin(), v.begin() + 10)));
}

TEST_F(LoadedTables, BigEndianAndFortranNpyGiveTheSameValues) {
  const std::vector<float> v = {1.5f, -2.25f, 3.0f, 0.125f, 1e-3f, -7.0f};  // (2, 3)
  std::string be;
  for (float x : v) {
    const uint32_t b = std::bit_cast<uint32_t>(x);
    for (int k = 3; k >= 0; --k) be += static_cast<char>((b >> (8 * k)) & 0xff);
  }
  WriteBytes(Path("be.npy"), Npy(">f4", 2, 3, be));
  EXPECT_EQ(Bits(HeatmapOf(Path("be.npy"), 2).data), Bits(v));
  // Fortran order: column by column.
  const std::vector<float> f = {v[0], v[3], v[1], v[4], v[2], v[5]};
  WriteBytes(Path("f.npy"), Npy("<f4", 2, 3, Raw(f), true));
  EXPECT_EQ(Bits(HeatmapOf(Path("f.npy"), 2).data), Bits(v));
}

TEST_F(LoadedTables, HalfBfloat16AndFloat64AreConvertedExactlyOrRounded) {
  // float16 bits and their values: 1.5, -0.25, 65504 (the largest), 2^-24 (smallest subnormal).
  const std::vector<uint16_t> f16 = {0x3E00, 0xB400, 0x7BFF, 0x0001};
  const std::vector<float> f16_values = {1.5f, -0.25f, 65504.0f, std::ldexp(1.0f, -24)};
  // bfloat16: the top halves of these float32 values.
  const std::vector<float> bf_values = {3.140625f, -1e30f, 0.0078125f, 1.0f};
  std::vector<uint16_t> bf16;
  for (float x : bf_values) bf16.push_back(static_cast<uint16_t>(std::bit_cast<uint32_t>(x) >> 16));
  // float64: rounded to the nearest float32.
  const std::vector<double> f64 = {0.1, -1.0 / 3.0, 1e-40, 16777217.0};
  const std::vector<float> f64_values = {0.1f, -1.0f / 3.0f, 1e-40f, 16777216.0f};
  WriteBytes(Path("m.safetensors"), Safetensors({{"h", "F16", 2, 2, Raw(f16)},
                                                 {"b", "BF16", 2, 2, Raw(bf16)},
                                                 {"d", "F64", 2, 2, Raw(f64)}}));
  EXPECT_EQ(Bits(HeatmapOf(Path("m.safetensors") + ":h", 2).data), Bits(f16_values));
  std::vector<float> bf_expect;
  for (uint16_t b : bf16) bf_expect.push_back(std::bit_cast<float>(static_cast<uint32_t>(b) << 16));
  EXPECT_EQ(Bits(HeatmapOf(Path("m.safetensors") + ":b", 2).data), Bits(bf_expect));
  EXPECT_EQ(Bits(HeatmapOf(Path("m.safetensors") + ":d", 2).data), Bits(f64_values));
  // NPY float16 and float64 too.
  WriteBytes(Path("h.npy"), Npy("<f2", 2, 2, Raw(f16)));
  EXPECT_EQ(Bits(HeatmapOf(Path("h.npy"), 2).data), Bits(f16_values));
  WriteBytes(Path("d.npy"), Npy("<f8", 2, 2, Raw(f64)));
  EXPECT_EQ(Bits(HeatmapOf(Path("d.npy"), 2).data), Bits(f64_values));
}

TEST_F(LoadedTables, SafetensorsListsAndPicksByName) {
  WriteBytes(Path("two.safetensors"),
             Safetensors({{"wte", "F32", 3, 2, Raw(std::vector<float>{1, 2, 3, 4, 5, 6})},
                          {"wpe", "F32", 2, 2, Raw(std::vector<float>{7, 8, 9, 10})}}));
  Result<LoadedTablePtr> none = LoadTable({Path("two.safetensors"), ""}, TableUse::kPositions);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("name one as FILE:TENSOR"), std::string::npos) << none.message();
  EXPECT_NE(none.message().find(Path("two.safetensors")), std::string::npos);
  Result<LoadedTablePtr> wpe = LoadTable({Path("two.safetensors"), "wpe"}, TableUse::kPositions);
  ASSERT_TRUE(wpe.ok()) << wpe.message();
  EXPECT_EQ(wpe.value()->At(1, 0), 9.0f);
  // The hash covers the header and this tensor's bytes, not the other tensor's.
  const std::string file = pe::testing::ReadFile(Path("two.safetensors"));
  const size_t header = 8 + file[0];
  const auto bytes = std::as_bytes(std::span(file.data(), file.size()));
  EXPECT_EQ(wpe.value()->hash(),
            FinishHash(HashBytes(bytes.subspan(header + 24, 16), HashBytes(bytes.first(header))),
                       header + 16));
}

TEST_F(LoadedTables, ShapesAndFilesAreCheckedWithMessagesNamingTheFile) {
  WriteBytes(Path("one_d.safetensors"),
             Safetensors({{"v", "F32", 1, 4, Raw(std::vector<float>(4))}}));
  // A 1-D array (written by hand: shape (4,)).
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  WriteBytes(Path("v.npy"), std::string("\x93NUMPY\x01\x00", 8) +
                                static_cast<char>(dict.size() + 1) + std::string(1, '\0') + dict +
                                "\n" + Raw(std::vector<float>(4)));
  Result<LoadedTablePtr> r = LoadTable({Path("v.npy"), ""}, TableUse::kPositions);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find(Path("v.npy")), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("expected a 2-D table"), std::string::npos) << r.message();
  r = LoadTable({Path("missing.npy"), ""}, TableUse::kEmbeddings);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find(Path("missing.npy")), std::string::npos) << r.message();
  // A truncated NPY.
  WriteBytes(Path("short.npy"), Npy("<f4", 4, 4, Raw(std::vector<float>(15))));
  r = LoadTable({Path("short.npy"), ""}, TableUse::kPositions);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find(Path("short.npy")), std::string::npos) << r.message();
  // A text file is no position table.
  WriteBytes(Path("g.txt"), "a 1 2\n");
  r = LoadTable({Path("g.txt"), ""}, TableUse::kPositions);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("does not come from word vectors"), std::string::npos) << r.message();
  // Over the memory cap.
  WriteBytes(Path("big.npy"), Npy("<f4", 64, 64, Raw(std::vector<float>(64 * 64))));
  r = LoadTable({Path("big.npy"), ""}, TableUse::kPositions, MemoryCap{1024});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("memory cap"), std::string::npos) << r.message();
}

// A loaded position table is shown whole: max_len follows its rows from the offset (1024 for
// GPT-2's wpe, not the default 100) unless given; a session's max_len, saved before the table in
// the field order, is the one it reopens with.
TEST_F(LoadedTables, MaxLenFollowsALoadedPositionTableUnlessGiven) {
  WriteBytes(Path("wpe.npy"), Npy("<f4", 1024, 4, Raw(std::vector<float>(4096, 0.25f))));
  ModelParams m;
  SetScheme(m, Scheme::kLearned);
  ASSERT_EQ(m.pe.max_len, 100);
  ASSERT_TRUE(SetAndLoad(m, "--positions-table", Path("wpe.npy")).ok());
  EXPECT_EQ(m.pe.max_len, 1024);
  EXPECT_EQ(m.pe.d_model, 4);
  ModelParams from24;
  SetScheme(from24, Scheme::kLearned);
  ASSERT_TRUE(FindParamField("--offset")->set(from24, "24").ok());
  ASSERT_TRUE(SetAndLoad(from24, "--positions-table", Path("wpe.npy")).ok());
  EXPECT_EQ(from24.pe.max_len, 1000);
  SessionDocument doc;
  doc.params = {{"scheme", "learned"}, {"max_len", "100"}, {"positions_table", Path("wpe.npy")}};
  Result<LoadedSession> session = SessionFromDocument(doc, ModelParams{});
  ASSERT_TRUE(session.ok()) << session.message();
  EXPECT_EQ(session.value().content.params.pe.max_len, 100);
}

TEST_F(LoadedTables, DModelFollowsTheTableAndConflictsAreRefused) {
  WriteBytes(Path("wpe.npy"), Npy("<f4", 8, 3, Raw(std::vector<float>(24, 0.5f))));
  ModelParams m;
  SetScheme(m, Scheme::kLearned);
  ASSERT_TRUE(SetAndLoad(m, "--positions-table", Path("wpe.npy")).ok());
  EXPECT_EQ(m.pe.d_model, 3);
  EXPECT_EQ(m.pe.max_len, 8);  // the default 100 is limited to the table's rows
  Status s = FindParamField("--d-model")->set(m, "4");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--d-model 4 conflicts with --positions-table"), std::string::npos)
      << s.message();
  EXPECT_TRUE(FindParamField("--d-model")->set(m, "3").ok());
  s = FindParamField("--max-len")->set(m, "9");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--max-len 9"), std::string::npos) << s.message();
  ASSERT_TRUE(FindParamField("--offset")->set(m, "6").ok());
  m.pe.max_len = 3;  // as a session would hold it: the encoding refuses it
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("has 8"), std::string::npos) << e.message();
  // Embeddings of another width than the position table.
  WriteBytes(Path("wte.npy"), Npy("<f4", 5, 4, Raw(std::vector<float>(20, 1.0f))));
  m.pe.offset = 0;
  ASSERT_TRUE(SetAndLoad(m, "--embeddings", Path("wte.npy")).ok());
  EXPECT_EQ(m.pe.d_model, 4);
  e = MakeEncoding(m.pe, m.cap);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("d_model follows the table"), std::string::npos) << e.message();
}

TEST_F(LoadedTables, T5BiasTableSetsBucketsAndHeads) {
  // (buckets = 8, heads = 3): bias(bucket b, head h) = 10 b + h.
  std::vector<float> v;
  for (int b = 0; b < 8; ++b) {
    for (int h = 0; h < 3; ++h) v.push_back(static_cast<float>(10 * b + h));
  }
  WriteBytes(Path("rel.safetensors"),
             Safetensors({{"encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                           "F32", 8, 3, Raw(v)}}));
  ModelParams m;
  SetScheme(m, Scheme::kT5);
  ASSERT_TRUE(FindParamField("--head")->set(m, "2").ok());
  ASSERT_TRUE(FindParamField("--t5-max-distance")->set(m, "16").ok());
  ASSERT_TRUE(SetAndLoad(m, "--positions-table", Path("rel.safetensors")).ok());
  EXPECT_EQ(m.pe.t5().buckets, 8);
  EXPECT_EQ(m.pe.t5().heads, 3);
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  ASSERT_TRUE(e.ok()) << e.message();
  for (int64_t q = 0; q < 20; q += 3) {
    for (int64_t k = 0; k < 20; k += 2) {
      const int64_t b = T5Bucket(k - q, true, 8, 16);
      EXPECT_EQ(e.value()->Bias(q, k), 10.0 * static_cast<double>(b) + 2.0) << q << " " << k;
    }
  }
  Status s = FindParamField("--heads")->set(m, "4");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("columns (heads)"), std::string::npos) << s.message();
  s = FindParamField("--t5-buckets")->set(m, "16");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rows (buckets)"), std::string::npos) << s.message();
}

TEST_F(LoadedTables, NanAndInfLoadAndAreFlagged) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> v = {1.0f, nan, -2.0f, inf, 0.5f, -inf};  // (3, 2)
  WriteBytes(Path("bad.npy"), Npy("<f4", 3, 2, Raw(v)));
  Result<LoadedTablePtr> t = LoadTable({Path("bad.npy"), ""}, TableUse::kPositions);
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t.value()->nan_count(), 1);
  EXPECT_EQ(t.value()->inf_count(), 2);
  EXPECT_NE(t.value()->Describe().find("1 NaN and 2 Inf"), std::string::npos);
  ModelParams m;
  SetScheme(m, Scheme::kLearned);
  ASSERT_TRUE(SetAndLoad(m, "--positions-table", Path("bad.npy")).ok());
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_NE(e.value()->Title().find("3 NaN/Inf values"), std::string::npos) << e.value()->Title();
  EXPECT_EQ(e.value()->Range().hi, 2.0);  // from the finite values
  EXPECT_TRUE(std::isnan(e.value()->ValueAt(1, 0.0)));
}

TEST_F(LoadedTables, GloveWordsNameTheRowsAndUnknownWordsTakeAZeroRow) {
  WriteBytes(Path("glove.txt"), "the 0.5 -1 2\ncat 1e-3 4 -0.25\non 7 8 9\nmat -1 -2 -3\n");
  ModelParams m;
  m.example.text = "The cat sat on the mat";
  ASSERT_TRUE(SetAndLoad(m, "--embeddings", Path("glove.txt")).ok());
  EXPECT_EQ(m.pe.d_model, 3);
  m.input.scale = false;
  Result<SentenceResult> r = ComputeSentence(m.example, m.pe, m.input, m.cap);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().ids, (std::vector<int64_t>{0, 1, 4, 2, 0, 3}));  // "sat": id V = 4
  EXPECT_EQ(r.value().unknown_tokens, (std::vector<int64_t>{2}));
  EXPECT_EQ(r.value().vocab_size, 5);
  const Matrix& emb = r.value().parts.embedding;
  EXPECT_EQ(emb.at(0, 1), -1.0f);  // "The" found lower-cased
  EXPECT_EQ(emb.at(1, 0), 1e-3f);
  EXPECT_EQ(emb.at(2, 0), 0.0f);
  EXPECT_EQ(emb.at(2, 2), 0.0f);
  EXPECT_EQ(emb.at(5, 2), -3.0f);
  // A file with an <unk> row gives it to unknown words.
  WriteBytes(Path("unk.txt"), "<unk> 9 9 9\nthe 1 1 1\n");
  ASSERT_TRUE(SetAndLoad(m, "--embeddings", Path("unk.txt")).ok());
  r = ComputeSentence(m.example, m.pe, m.input, m.cap);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().ids, (std::vector<int64_t>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(r.value().parts.embedding.at(1, 0), 9.0f);
  EXPECT_EQ(r.value().unknown_tokens, (std::vector<int64_t>{1, 2, 3, 5}));
}

TEST_F(LoadedTables, TensorEmbeddingsTakeTypedIdsAndRefuseIdsPastTheTable) {
  std::vector<float> v;
  for (int k = 0; k < 4 * 2; ++k) v.push_back(static_cast<float>(k) * 0.5f);
  WriteBytes(Path("wte.npy"), Npy("<f4", 4, 2, Raw(v)));
  ModelParams m;
  ASSERT_TRUE(SetAndLoad(m, "--embeddings", Path("wte.npy")).ok());
  ASSERT_TRUE(FindParamField("--ids")->set(m, "3,0,2").ok());
  m.input.scale = false;
  Result<SentenceResult> r = ComputeSentence(m.example, m.pe, m.input, m.cap);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.value().parts.embedding.data,
            (std::vector<float>{3.0f, 3.5f, 0.0f, 0.5f, 2.0f, 2.5f}));
  ASSERT_TRUE(FindParamField("--ids")->set(m, "1,4").ok());
  r = ComputeSentence(m.example, m.pe, m.input, m.cap);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("token id 4"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("wte.npy"), std::string::npos) << r.message();
}

// The parallel text parser against the serial reader: the same words and the same bits, for
// GloVe and .vec files cut into chunks at every thread count.
TEST_F(LoadedTables, ParallelWordVectorParseEqualsTheSerialReader) {
  std::string glove;
  uint64_t x = 12345;
  for (int r = 0; r < 3000; ++r) {
    glove += 'w';
    glove += std::to_string(r);
    glove += r % 7 == 0 ? "\xc3\xa9" : "";
    for (int k = 0; k < 9; ++k) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      const double v =
          static_cast<double>(static_cast<int64_t>(x >> 20) % 2000001 - 1000000) / 123457.0;
      char buf[40];
      std::snprintf(buf, sizeof buf, k % 3 == 0 ? " %.9g" : " %.6e", v);
      glove += buf;
    }
    glove += r % 5 == 0 ? " \r\n" : "\n";
  }
  WriteBytes(Path("g.txt"), glove);
  WriteBytes(Path("g.vec"), "3000 9\n" + glove);
  for (const char* name : {"g.txt", "g.vec"}) {
    Result<WordVectors> serial = ReadWordVectorsFile(Path(name));
    ASSERT_TRUE(serial.ok()) << serial.message();
    for (int threads : {1, 2, 3, 8}) {
      Result<LoadedTablePtr> t =
          LoadTable({Path(name), ""}, TableUse::kEmbeddings, {}, {}, threads);
      ASSERT_TRUE(t.ok()) << t.message();
      const LoadedTable& lt = *t.value();
      EXPECT_EQ(lt.format(), WordVectorFormatName(serial.value().format));
      EXPECT_EQ(lt.words(), serial.value().words);
      Matrix all = lt.ReadRows(0, lt.rows()).value();
      EXPECT_EQ(Bits(all.data), Bits(serial.value().table.data)) << name << " " << threads;
      EXPECT_EQ(lt.FindWord("w14\xc3\xa9"), 14);
    }
  }
}

TEST_F(LoadedTables, BadWordVectorFilesGiveTheSerialReadersMessageNamingTheFile) {
  WriteBytes(Path("dup.txt"), "a 1 2\nb 3 4\na 5 6\n");
  Result<LoadedTablePtr> r = LoadTable({Path("dup.txt"), ""}, TableUse::kEmbeddings, {}, {}, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find(Path("dup.txt")), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("line 3"), std::string::npos) << r.message();
  WriteBytes(Path("short.txt"), "a 1 2\nb 3\n");
  r = LoadTable({Path("short.txt"), ""}, TableUse::kEmbeddings, {}, {}, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("line 2"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find(Path("short.txt")), std::string::npos) << r.message();
  WriteBytes(Path("count.vec"), "3 2\na 1 2\nb 3 4\n");
  r = LoadTable({Path("count.vec"), ""}, TableUse::kEmbeddings, {}, {}, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("says 3"), std::string::npos) << r.message();
}

TEST_F(LoadedTables, CancellingStopsTheLoad) {
  std::string glove;
  for (int r = 0; r < 20000; ++r) {
    glove += 'w';
    glove += std::to_string(r);
    glove += " 1 2 3 4\n";
  }
  WriteBytes(Path("g.txt"), glove);
  Result<LoadedTablePtr> r =
      LoadTable({Path("g.txt"), ""}, TableUse::kEmbeddings, {}, [](double) { return false; });
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("cancelled"), std::string::npos) << r.message();
  WriteBytes(Path("t.npy"), Npy("<f4", 2, 2, Raw(std::vector<float>(4))));
  r = LoadTable({Path("t.npy"), ""}, TableUse::kPositions, {}, [](double) { return false; });
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("cancelled"), std::string::npos) << r.message();
}

TEST_F(LoadedTables, CacheHitsUntilTheFileChanges) {
  TableCache cache;
  WriteBytes(Path("t.npy"), Npy("<f4", 2, 2, Raw(std::vector<float>{1, 2, 3, 4})));
  Result<LoadedTablePtr> a = cache.Get({Path("t.npy"), ""}, TableUse::kPositions);
  Result<LoadedTablePtr> b = cache.Get({Path("t.npy"), ""}, TableUse::kPositions);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value().get(), b.value().get());
  EXPECT_EQ(cache.size(), 1u);
  // Same size, new values and a new modification time: read again, another hash.
  WriteBytes(Path("t.npy"), Npy("<f4", 2, 2, Raw(std::vector<float>{1, 2, 3, 5})));
  struct utimbuf times {
    1000000000, 1000000000
  };
  ::utime(Path("t.npy").c_str(), &times);
  Result<LoadedTablePtr> c = cache.Get({Path("t.npy"), ""}, TableUse::kPositions);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(c.value().get(), a.value().get());
  EXPECT_NE(c.value()->hash(), a.value()->hash());
  EXPECT_EQ(c.value()->At(1, 1), 5.0f);
  EXPECT_EQ(cache.size(), 1u);
}

TEST_F(LoadedTables, MetadataRecordsTheFileAndItsHashAndRefusesAChangedFile) {
  WriteBytes(Path("wpe.npy"), Npy("<f4", 4, 2, Raw(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8})));
  ModelParams m;
  SetScheme(m, Scheme::kLearned);
  ASSERT_TRUE(SetAndLoad(m, "--positions-table", Path("wpe.npy")).ok());
  std::string spec, hash;
  for (const auto& [k, v] : ParamValues(m)) {
    if (k == "positions_table") spec = v;
    if (k == "positions_table_hash") hash = v;
  }
  EXPECT_EQ(spec, Path("wpe.npy"));
  const std::string file = pe::testing::ReadFile(Path("wpe.npy"));
  EXPECT_EQ(hash, HashText(FinishHash(HashBytes(std::as_bytes(std::span(file.data(), file.size()))),
                                      file.size())));
  ModelParams back;
  SetScheme(back, Scheme::kLearned);
  ASSERT_TRUE(FindParamField("positions_table")->set(back, spec).ok());
  EXPECT_TRUE(FindParamField("positions_table_hash")->set(back, hash).ok());
  ASSERT_TRUE(LoadParamFiles(back).ok());
  EXPECT_EQ(back.pe, m.pe);
  Status s = FindParamField("positions_table_hash")->set(back, "0123456789abcdef");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not the one the figure was made from"), std::string::npos);
  // No table, no key.
  ModelParams plain;
  for (const auto& kv : ParamValues(plain)) EXPECT_NE(kv.first, "embeddings");
}

// Setting a FILE field records its path and reads nothing: a file that does not exist yet, or a
// FIFO no one writes to (opening it to read would wait forever), is taken; the load step then
// reads the file, or names the flag and the file when it cannot.
TEST_F(LoadedTables, SettingAFileFieldReadsNoFile) {
  const std::string fifo = Path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  int file_fields = 0;
  for (const ParamField& f : ParamFields()) {
    if (f.value_name != "FILE") continue;
    ++file_fields;
    for (const std::string& path : {Path("later.npy"), fifo}) {
      ModelParams m;
      if ((f.schemes & SchemeBit(m.pe.kind())) == 0) SetScheme(m, Scheme::kLearned);
      const ModelParams before = m;
      ASSERT_TRUE(f.set(m, path).ok()) << f.flag << " " << path;
      EXPECT_EQ(m.pe.d_model, before.pe.d_model) << f.flag;  // nothing follows a table not read
      EXPECT_EQ(m.pe.max_len, before.pe.max_len) << f.flag;
      if (!f.loads() || path == fifo) continue;
      Status s = LoadParamFiles(m);
      ASSERT_FALSE(s.ok()) << f.flag;
      EXPECT_EQ(s.message().rfind(std::string(f.flag) + ": ", 0), 0u) << s.message();
      EXPECT_NE(s.message().find(Quoted(path)), std::string::npos) << s.message();
    }
  }
  // --text-file, --tokenizer-file, --check-table, the two tables, --model-config
  EXPECT_EQ(file_fields, 6);
  // The file made after the path was set is what the load step reads.
  ModelParams m;
  SetScheme(m, Scheme::kLearned);
  ASSERT_TRUE(FindParamField("--positions-table")->set(m, Path("later.npy")).ok());
  ASSERT_TRUE(FindParamField("--positions-table-hash")->set(m, "0123456789abcdef").ok());
  EXPECT_FALSE(m.pe.learned().table.loaded());
  WriteBytes(Path("later.npy"), Npy("<f4", 6, 2, Raw(std::vector<float>(12, 0.5f))));
  Status s = LoadParamFiles(m);
  ASSERT_FALSE(s.ok());  // the hash given is checked once the table is read
  EXPECT_EQ(s.message(), "--positions-table-hash: " + Quoted(Path("later.npy")) +
                             " now hashes to " + HashText(m.pe.learned().table.hash) +
                             ", not 0123456789abcdef: the file is not the one the figure was "
                             "made from");
  ASSERT_TRUE(FindParamField("--text-file")->set(m, Path("later.txt")).ok());
  WriteBytes(Path("later.txt"), "read at load time");
  ASSERT_TRUE(LoadParamFiles(m).ok());
  EXPECT_EQ(m.example.text, "read at load time");
  EXPECT_FALSE(m.example.text_file.has_value());
}

// What a loaded table fixes is applied when it loads, not when its path is set: d_model and
// max_len follow a learned position table, d_model the embeddings, T5's buckets and heads its
// bias table; the memory cap in force at load time bounds the read.
TEST_F(LoadedTables, TheShapeFollowsATableWhenItLoads) {
  WriteBytes(Path("wpe.npy"), Npy("<f4", 12, 6, Raw(std::vector<float>(72, 0.25f))));
  WriteBytes(Path("wte.npy"), Npy("<f4", 5, 7, Raw(std::vector<float>(35, 1.0f))));
  WriteBytes(Path("rel.npy"), Npy("<f4", 10, 3, Raw(std::vector<float>(30, 2.0f))));
  ModelParams m;
  SetScheme(m, Scheme::kLearned);
  ASSERT_TRUE(FindParamField("--offset")->set(m, "2").ok());
  ASSERT_TRUE(FindParamField("--positions-table")->set(m, Path("wpe.npy")).ok());
  EXPECT_EQ(m.pe.d_model, ModelParams().pe.d_model);
  EXPECT_EQ(m.pe.max_len, 100);
  // Not loaded: refused rather than shown as the seeded tables.
  EXPECT_NE(CheckLoadedTables(m).message().find("not loaded"), std::string::npos);
  m.cap = MemoryCap{64};  // the cap given after the path still bounds the read
  Status s = LoadParamFiles(m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("memory cap"), std::string::npos) << s.message();
  m.cap = MemoryCap{};
  ASSERT_TRUE(LoadParamFiles(m).ok());
  EXPECT_EQ(m.pe.d_model, 6);
  EXPECT_EQ(m.pe.max_len, 10);  // 12 rows from offset 2
  EXPECT_TRUE(CheckLoadedTables(m).ok());
  ModelParams e;
  ASSERT_TRUE(FindParamField("--embeddings")->set(e, Path("wte.npy")).ok());
  EXPECT_EQ(e.pe.d_model, ModelParams().pe.d_model);
  ASSERT_TRUE(LoadParamFiles(e).ok());
  EXPECT_EQ(e.pe.d_model, 7);
  ModelParams t5;
  SetScheme(t5, Scheme::kT5);
  ASSERT_TRUE(FindParamField("--positions-table")->set(t5, Path("rel.npy")).ok());
  EXPECT_EQ(t5.pe.t5().buckets, T5Params().buckets);
  ASSERT_TRUE(LoadParamFiles(t5).ok());
  EXPECT_EQ(t5.pe.t5().buckets, 10);
  EXPECT_EQ(t5.pe.t5().heads, 3);
}

// The compare view's B may name a table of its own: --versus records it, and B's load step
// reads it, naming the override when it cannot.
TEST_F(LoadedTables, AVersusTableIsReadWhenBIsMade) {
  ModelParams m;
  ASSERT_TRUE(FindParamField("--versus")->set(m, "embeddings=" + Path("b.npy")).ok());
  Result<ModelParams> b = CompareB(m);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.message().rfind("--versus: embeddings=" + Path("b.npy") + ": --embeddings: ", 0), 0u)
      << b.message();
  WriteBytes(Path("b.npy"), Npy("<f4", 5, 8, Raw(std::vector<float>(40, 1.0f))));
  b = CompareB(m);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_TRUE(b.value().example.embeddings.loaded());
  EXPECT_EQ(b.value().pe.d_model, 8);
}

}  // namespace
}  // namespace pe
