// Writes the fuzzers' seed corpus: small valid files of every variant each reader accepts
// (NPY versions, byte orders, memory orders and widths; safetensors of every float dtype with
// metadata; GloVe, .vec and word2vec binary), each checked to read back before it is written.
// Usage: pe_fuzz_seeds OUT_DIR  (creates OUT_DIR/npy, OUT_DIR/safetensors, OUT_DIR/word_vectors,
// ..., OUT_DIR/gguf)
#include <sentencepiece_trainer.h>
#include <sys/stat.h>

#include <bit>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../tests/gguf_test_writer.h"
#include "arch/hf_config.h"
#include "io/figure_metadata_reader.h"
#include "io/file_writers.h"
#include "io/gguf_file.h"
#include "io/npy_reader.h"
#include "io/safetensors_reader.h"
#include "io/session_file.h"
#include "io/word_vectors_reader.h"
#include "text/subword_tokenizer.h"
#include "text/unicode_props.h"

namespace {

void Put(std::string& out, uint64_t v, int bytes, bool big_endian = false) {
  for (int k = 0; k < bytes; ++k) {
    const int shift = 8 * (big_endian ? bytes - 1 - k : k);
    out += static_cast<char>((v >> shift) & 0xff);
  }
}

std::string Npy(int version, const std::string& dict, const std::string& data) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(version);
  out += '\0';
  const int len_bytes = version == 1 ? 2 : 4;
  std::string header = dict;
  const size_t unpadded = 8 + static_cast<size_t>(len_bytes) + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  Put(out, header.size(), len_bytes);
  return out + header + data;
}

std::string Safetensors(const std::string& json, const std::string& data) {
  std::string out;
  Put(out, json.size(), 8);
  return out + json + data;
}

int failures = 0;

void Write(const std::string& dir, const std::string& name, const std::string& bytes,
           const std::function<pe::Status(std::span<const std::byte>)>& check) {
  const pe::Status s = check(std::as_bytes(std::span(bytes.data(), bytes.size())));
  if (!s.ok()) {
    std::fprintf(stderr, "seed %s/%s does not read: %s\n", dir.c_str(), name.c_str(),
                 s.message().c_str());
    ++failures;
    return;
  }
  std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
}

// A PNG chunk: length, type, data, CRC-32 (ISO 3309, as PNG specifies it).
std::string PngChunk(const std::string& type, const std::string& data) {
  std::string out;
  Put(out, data.size(), 4, true);
  const std::string body = type + data;
  uint32_t c = 0xffffffffu;
  for (char ch : body) {
    c ^= static_cast<unsigned char>(ch);
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
  }
  return out + body + [&] {
    std::string crc;
    Put(crc, c ^ 0xffffffffu, 4, true);
    return crc;
  }();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string root = argv[1];
  for (const char* sub : {"", "/npy", "/safetensors", "/word_vectors", "/figure_metadata",
                          "/tokenizer_json", "/session", "/hf_config", "/gguf", "/sentencepiece"}) {
    ::mkdir((root + sub).c_str(), 0777);
  }
  using pe::Status;

  // NPY
  const std::string npy_dir = root + "/npy";
  auto npy_ok = [](std::span<const std::byte> b) { return pe::ReadNpy(b).status(); };
  {
    const int64_t shape[] = {2, 3};
    const float v[] = {0.5f, -1.0f, 2.0f, 1e-3f, 65504.0f, -0.0f};
    std::ostringstream out;
    out << pe::NpyHeader(shape);
    pe::WriteFloatsLE(out, v, 6);
    Write(npy_dir, "project_writer.npy", out.str(), npy_ok);
  }
  int n = 0;
  for (int version : {1, 2, 3}) {
    for (const char* order : {"<", ">"}) {
      for (int width : {2, 4, 8}) {
        for (bool fortran : {false, true}) {
          const char* shapes[] = {"(3,)", "(2, 2)", "(1, 2, 2)"};
          const std::string shape = shapes[n % 3];
          const int count = n % 3 == 0 ? 3 : 4;
          std::string data;
          for (int k = 0; k < count; ++k) {
            const double x = 0.25 * (k + 1) * (k % 2 ? -1 : 1);
            if (width == 2) Put(data, 0x3400u + static_cast<unsigned>(k), 2, order[0] == '>');
            if (width == 4)
              Put(data, std::bit_cast<uint32_t>(static_cast<float>(x)), 4, order[0] == '>');
            if (width == 8) Put(data, std::bit_cast<uint64_t>(x), 8, order[0] == '>');
          }
          const std::string dict =
              std::string("{'descr': '") + order + "f" + std::to_string(width) +
              "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
          Write(npy_dir, "v" + std::to_string(version) + "_" + std::to_string(n) + ".npy",
                Npy(version, dict, data), npy_ok);
          ++n;
        }
      }
    }
  }

  // safetensors
  const std::string st_dir = root + "/safetensors";
  auto st_ok = [](std::span<const std::byte> b) -> Status {
    auto index = pe::ReadSafetensorsIndex(b);
    if (!index.ok()) return index.status();
    for (const auto& t : index.value().tensors) {
      if (auto r = pe::ReadSafetensor(b, index.value(), t.name); !r.ok()) return r.status();
    }
    return {};
  };
  {
    std::string data;
    for (float f : {1.0f, -2.0f, 0.5f, 3.0f}) Put(data, std::bit_cast<uint32_t>(f), 4);
    for (uint16_t h : {0x3c00, 0xc000}) Put(data, h, 2);
    for (uint16_t b : {0x3f80, 0xc049}) Put(data, b, 2);
    Put(data, std::bit_cast<uint64_t>(0.1), 8);
    Write(st_dir, "four_dtypes.safetensors",
          Safetensors(R"({"__metadata__":{"format":"pt"},)"
                      R"("w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
                      R"("h":{"dtype":"F16","shape":[2],"data_offsets":[16,20]},)"
                      R"("b":{"dtype":"BF16","shape":[1,2],"data_offsets":[20,24]},)"
                      R"("d":{"dtype":"F64","shape":[],"data_offsets":[24,32]}})",
                      data),
          st_ok);
    Write(st_dir, "empty.safetensors", Safetensors("{}", ""), st_ok);
    Write(st_dir, "padded.safetensors",
          Safetensors(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}    )",
                      std::string("\0\0\x80\x3f", 4)),
          st_ok);
  }

  // word vectors
  const std::string wv_dir = root + "/word_vectors";
  auto wv_ok = [](std::span<const std::byte> b) { return pe::ReadWordVectors(b).status(); };
  Write(wv_dir, "glove.txt", "the 0.418 0.24968 -0.41242\n, 0.013441 0.23682 -0.16899\n", wv_ok);
  Write(wv_dir, "fasttext.vec", "2 3\n</s> 0.1 0.2 0.3 \nkönig -1e-3 2.5 nan \n", wv_ok);
  Write(wv_dir, "crlf.txt", "a 1 2\r\nb 3 4\r\n", wv_ok);
  {
    std::string bin = "2 2\n";
    for (const char* w : {"in", "日本"}) {
      bin += w;
      bin += ' ';
      for (float f : {0.5f, -1.5f}) Put(bin, std::bit_cast<uint32_t>(f), 4);
      bin += '\n';
    }
    Write(wv_dir, "word2vec.bin", bin, wv_ok);
  }
  if (failures != 0) return 1;
  std::printf("seed corpus written to %s\n", root.c_str());
  // Figure metadata: the shapes the app writes, with a few keys each.
  const std::string fig_dir = root + "/figure_metadata";
  auto fig_ok = [](std::span<const std::byte> b) { return pe::ParseFigureMetadata(b).status(); };
  {
    std::string ihdr;
    Put(ihdr, 1, 4, true);
    Put(ihdr, 1, 4, true);
    ihdr += std::string("\x08\x06\x00\x00\x00", 5);
    const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + PngChunk("IHDR", ihdr) +
                            PngChunk("tEXt", std::string("pe:view\0heatmap", 15)) +
                            PngChunk("tEXt", std::string("pe:title\0a & b", 15)) +
                            PngChunk("tEXt", std::string("pe:app_version\0"
                                                         "0.1.0",
                                                         20)) +
                            PngChunk("IEND", "");
    Write(fig_dir, "figure.png", png, fig_ok);
    Write(fig_dir, "figure.svg",
          "<?xml version=\"1.0\"?>\n<svg width=\"1\" height=\"1\">\n<metadata>\n"
          "<pe:figure xmlns:pe=\"urn:pe-explorer:figure\">\n"
          "  <pe:param name=\"view\" value=\"curves\"/>\n"
          "  <pe:param name=\"title\" value=\"&quot;x&quot; &amp; &lt;y&gt;\"/>\n"
          "  <pe:param name=\"app_version\" value=\"0.1.0\"/>\n"
          "</pe:figure>\n</metadata>\n</svg>\n",
          fig_ok);
    Write(fig_dir, "figure.pdf",
          "%PDF-1.5\n1 0 obj\n<< /Keywords (positional encoding; score; pe-figure:view=score "
          "title=a%20%28b%29 app_version=0.1.0) >>\nendobj\n%%EOF\n",
          fig_ok);
  }
  // tokenizer.json: a byte-level BPE (all 256 byte tokens, two merges, an added token) and a
  // WordPiece with BERT's normalizer.
  const std::string tok_dir = root + "/tokenizer_json";
  auto tok_ok = [](std::span<const std::byte> b) {
    return pe::SubwordTokenizer::FromTokenizerJson(
               std::string_view(reinterpret_cast<const char*>(b.data()), b.size()), "seed")
        .status();
  };
  {
    std::string vocab;
    for (int b = 0; b < 256; ++b) {
      std::string s;
      pe::AppendUtf8(s, pe::ByteToUnicode(static_cast<unsigned char>(b)));
      if (s == "\"" || s == "\\") s = "\\" + s;
      vocab += "\"" + s + "\": " + std::to_string(b) + ", ";
    }
    vocab += "\"he\": 256, \"hel\": 257, \"\xc4\xa0w\": 258, \"<|endoftext|>\": 259";
    Write(tok_dir, "bpe.json",
          "{\"added_tokens\": [{\"id\": 259, \"content\": \"<|endoftext|>\", \"special\": true}],"
          " \"normalizer\": null, \"pre_tokenizer\": {\"type\": \"ByteLevel\", "
          "\"add_prefix_space\": false, \"use_regex\": true}, \"model\": {\"type\": \"BPE\", "
          "\"vocab\": {" +
              vocab + "}, \"merges\": [\"h e\", [\"he\", \"l\"], \"\xc4\xa0 w\"]}}",
          tok_ok);
    Write(tok_dir, "bpe_llama3.json",
          "{\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", "
          "\"pattern\": {\"Regex\": " +
              nlohmann::json(std::string(pe::SplitPatternRegex(pe::SplitPattern::kLlama3))).dump() +
              "}}, {\"type\": \"ByteLevel\", \"use_regex\": "
              "false}]}, \"model\": {\"type\": \"BPE\", \"ignore_merges\": true, \"vocab\": {" +
              vocab + "}, \"merges\": [\"h e\"]}}",
          tok_ok);
    // The general path: normalizers, a regex Split with a behaviour, Digits, Metaspace.
    Write(tok_dir, "bpe_components.json",
          "{\"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"NFKC\"}, "
          "{\"type\": \"Lowercase\"}, {\"type\": \"Replace\", \"pattern\": {\"Regex\": "
          "\"\\\\s{2,}\"}, \"content\": \" \"}, {\"type\": \"Prepend\", \"prepend\": \"x\"}]}, "
          "\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": "
          "\"Split\", \"pattern\": {\"Regex\": \"\\\\p{N}{1,3}|(?=\\\\p{Lu})\"}, \"behavior\": "
          "\"MergedWithNext\", \"invert\": false}, {\"type\": \"Digits\", "
          "\"individual_digits\": true}, {\"type\": \"Metaspace\", \"prepend_scheme\": "
          "\"first\", \"split\": true}, {\"type\": \"ByteLevel\", \"add_prefix_space\": true, "
          "\"use_regex\": true}]}, \"model\": {\"type\": \"BPE\", \"vocab\": {" +
              vocab + "}, \"merges\": [\"h e\"]}}",
          tok_ok);
    Write(tok_dir, "wordpiece.json",
          "{\"normalizer\": {\"type\": \"BertNormalizer\", \"lowercase\": true, "
          "\"strip_accents\": null}, \"pre_tokenizer\": {\"type\": \"BertPreTokenizer\"}, "
          "\"model\": {\"type\": \"WordPiece\", \"unk_token\": \"[UNK]\", "
          "\"max_input_chars_per_word\": 100, \"vocab\": {\"[UNK]\": 0, \"hello\": 1, "
          "\"world\": 2, \"##s\": 3, \",\": 4, \"na\": 5, \"##ive\": 6}}}",
          tok_ok);
  }
  // Session files (.pexs): one the writer makes, the smallest one, and one by hand.
  const std::string session_dir = root + "/session";
  auto session_ok = [](std::span<const std::byte> b) {
    return pe::ParseSessionText(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()))
        .status();
  };
  {
    pe::SessionDocument doc;
    doc.app_version = "0.1.0";
    doc.params = {{"scheme", "rope"}, {"d_model", "64"}, {"text", "I love \"NLP\" \u00e9"}};
    doc.files = {{"embeddings", "/data/wte.npy", 0xaf63dc4c8601ec8cull}};
    doc.views = {{"heatmap_window", "0:64:0:100"}, {"token", "all"}};
    doc.ui = {{"panel.controls", "true"}, {"window_size", "1280x800"}};
    Write(session_dir, "written.pexs", pe::WriteSessionText(doc), session_ok);
    Write(session_dir, "minimal.pexs", "{\"format\": \"pe-explorer-session\", \"version\": 1}",
          session_ok);
    Write(session_dir, "by_hand.pexs",
          "{\n  \"format\": \"pe-explorer-session\",\n  \"version\": 1,\n  \"params\": "
          "{\"scheme\": \"alibi\", \"heads\": \"12\"},\n  \"files\": {},\n  \"views\": "
          "{\"score_window\": \"0:0:0:0\"},\n  \"ui\": {\"tab\": \"bias\"}\n}\n",
          session_ok);
  }
  // config.json: v4 and v5 RoPE, per-layer patterns, M-RoPE, T5, a learned table.
  const std::string hf_dir = root + "/hf_config";
  auto hf_ok = [](std::span<const std::byte> b) {
    return pe::ReadHfConfig(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()),
                            "seed", "seed")
        .status();
  };
  {
    Write(hf_dir, "llama_v4.json",
          "{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_attention_heads\": 4, "
          "\"num_hidden_layers\": 2, \"max_position_embeddings\": 4096, \"rope_theta\": "
          "500000.0, \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0, "
          "\"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, "
          "\"original_max_position_embeddings\": 1024}}",
          hf_ok);
    Write(hf_dir, "yarn_v5.json",
          "{\"model_type\": \"qwen2\", \"hidden_size\": 128, \"num_attention_heads\": 2, "
          "\"num_hidden_layers\": 2, \"max_position_embeddings\": 8192, \"rope_parameters\": "
          "{\"rope_type\": \"yarn\", \"rope_theta\": 10000.0, \"factor\": 4.0, "
          "\"beta_fast\": 32, \"beta_slow\": 1, \"truncate\": false}}",
          hf_ok);
    Write(hf_dir, "gemma3_nested.json",
          "{\"model_type\": \"gemma3\", \"text_config\": {\"model_type\": \"gemma3_text\", "
          "\"hidden_size\": 64, \"num_hidden_layers\": 3, \"sliding_window\": 16, "
          "\"layer_types\": [\"sliding_attention\", \"sliding_attention\", "
          "\"full_attention\"], \"rope_parameters\": {\"full_attention\": {\"rope_type\": "
          "\"linear\", \"factor\": 8.0, \"rope_theta\": 1000000.0}, \"sliding_attention\": "
          "{\"rope_type\": \"default\", \"rope_theta\": 10000.0}}}}",
          hf_ok);
    Write(hf_dir, "llama4_nope.json",
          "{\"model_type\": \"llama4_text\", \"hidden_size\": 128, \"num_attention_heads\": "
          "2, \"num_hidden_layers\": 4, \"max_position_embeddings\": 65536, "
          "\"attention_chunk_size\": 8192, \"no_rope_layers\": [1, 1, 1, 0], "
          "\"attn_temperature_tuning\": true, \"rope_theta\": 500000.0}",
          hf_ok);
    Write(hf_dir, "qwen2_vl.json",
          "{\"model_type\": \"qwen2_vl\", \"hidden_size\": 256, \"num_attention_heads\": 2, "
          "\"num_hidden_layers\": 1, \"max_position_embeddings\": 32768, \"rope_theta\": "
          "1000000.0, \"rope_scaling\": {\"type\": \"mrope\", \"mrope_section\": [16, 24, "
          "24]}}",
          hf_ok);
    Write(hf_dir, "t5.json",
          "{\"model_type\": \"t5\", \"d_model\": 64, \"d_kv\": 16, \"num_heads\": 4, "
          "\"num_layers\": 2, \"relative_attention_num_buckets\": 32}",
          hf_ok);
    Write(hf_dir, "gpt2.json",
          "{\"model_type\": \"gpt2\", \"n_embd\": 64, \"n_head\": 4, \"n_layer\": 2, "
          "\"n_positions\": 128}",
          hf_ok);
  }
  // GGUF: the reader's test models in small (tokens and tensors few), every value type, and
  // version 2.
  const std::string gguf_dir = root + "/gguf";
  auto gguf_ok = [](std::span<const std::byte> b) {
    pe::SpanSource src(b);
    return pe::ParseGguf(src, "seed.gguf", pe::MemoryCap{}).status();
  };
  // A tokenizer seed must load as one.
  auto gguf_tokenizer_ok = [](std::span<const std::byte> b) -> pe::Status {
    pe::SpanSource src(b);
    auto f = pe::ParseGguf(src, "seed.gguf", pe::MemoryCap{});
    if (!f.ok()) return f.error();
    return pe::SubwordTokenizer::FromGguf(src, f.value(), "seed.gguf", pe::MemoryCap{}).status();
  };
  {
    using pe::testing_gguf::GgufBuilder;
    Write(gguf_dir, "llama31.gguf",
          GgufBuilder()
              .Str("general.architecture", "llama")
              .U32("llama.block_count", 2)
              .U32("llama.context_length", 131072)
              .U32("llama.embedding_length", 4096)
              .U32("llama.attention.head_count", 32)
              .F32("llama.rope.freq_base", 500000.0f)
              .Tokens(5)
              .F32Tensor("rope_freqs.weight", pe::testing_gguf::Llama31RopeFreqs())
              .Build(),
          gguf_ok);
    Write(gguf_dir, "types_v2.gguf",
          GgufBuilder(2)
              .Raw("a.u8", 0, "\x01")
              .Raw("a.i8", 1, "\xff")
              .Raw("a.u16", 2, "\x01\x02")
              .Raw("a.i16", 3, "\xff\xff")
              .U32("a.u32", 7)
              .I32("a.i32", -7)
              .F32("a.f32", 0.1f)
              .Bool("a.bool", true)
              .Str("a.str", "gemma3")
              .I32Array("a.arr", {3, 4, 5, 0})
              .U64("a.u64", 1u << 20)
              .Raw("a.i64", 11, std::string(8, '\xff'))
              .Raw("a.f64", 12, std::string("\0\0\0\0\0\0\xf0\x3f", 8))
              .U32("general.alignment", 64)
              .Tensor("t", {2, 2}, 1, std::string(8, '\0'))
              .Build(),
          gguf_ok);
    // Tokenizers: byte-level BPE (all 256 byte tokens, a merge, a control token added as BOS),
    // SentencePiece BPE from scores with byte fallback, Unigram, WordPiece.
    std::vector<std::string> bytes;
    for (int b = 0; b < 256; ++b) {
      std::string s;
      pe::AppendUtf8(s, pe::ByteToUnicode(static_cast<unsigned char>(b)));
      bytes.push_back(s);
    }
    std::vector<std::string> bl = bytes;
    bl.push_back("He");
    bl.push_back("<s>");
    std::vector<int32_t> bl_types(bl.size(), 1);
    bl_types.back() = 3;
    Write(gguf_dir, "tokenizer_gpt2.gguf",
          GgufBuilder()
              .Str("tokenizer.ggml.model", "gpt2")
              .Str("tokenizer.ggml.pre", "qwen2")
              .StrArray("tokenizer.ggml.tokens", bl)
              .I32Array("tokenizer.ggml.token_type", bl_types)
              .StrArray("tokenizer.ggml.merges", {"H e"})
              .U32("tokenizer.ggml.bos_token_id", 257)
              .Bool("tokenizer.ggml.add_bos_token", true)
              .Build(),
          gguf_tokenizer_ok);
    std::vector<std::string> spm = {"<unk>", "<s>", "</s>"};
    std::vector<int32_t> spm_types = {2, 3, 3};
    for (int b = 0; b < 256; ++b) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "<0x%02X>", b);
      spm.push_back(buf);
      spm_types.push_back(6);
    }
    for (const char* p : {"\xE2\x96\x81", "H", "e", "l", "o", "He", "ll", "\xE2\x96\x81He"}) {
      spm.push_back(p);
      spm_types.push_back(1);
    }
    std::vector<float> spm_scores(spm.size(), 0.0f);
    for (size_t k = 259; k < spm.size(); ++k) spm_scores[k] = -static_cast<float>(k);
    Write(gguf_dir, "tokenizer_llama.gguf",
          GgufBuilder()
              .Str("tokenizer.ggml.model", "llama")
              .StrArray("tokenizer.ggml.tokens", spm)
              .F32Array("tokenizer.ggml.scores", spm_scores)
              .I32Array("tokenizer.ggml.token_type", spm_types)
              .Build(),
          gguf_tokenizer_ok);
    Write(gguf_dir, "tokenizer_t5.gguf",
          GgufBuilder()
              .Str("tokenizer.ggml.model", "t5")
              .StrArray("tokenizer.ggml.tokens", spm)
              .F32Array("tokenizer.ggml.scores", spm_scores)
              .I32Array("tokenizer.ggml.token_type", spm_types)
              .U32("tokenizer.ggml.eos_token_id", 2)
              .U32("tokenizer.ggml.unknown_token_id", 0)
              .Build(),
          gguf_tokenizer_ok);
    Write(gguf_dir, "tokenizer_bert.gguf",
          GgufBuilder()
              .Str("tokenizer.ggml.model", "bert")
              .StrArray("tokenizer.ggml.tokens",
                        {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "\xE2\x96\x81hello", "lo", "h"})
              .U32("tokenizer.ggml.bos_token_id", 2)
              .U32("tokenizer.ggml.seperator_token_id", 3)
              .U32("tokenizer.ggml.unknown_token_id", 1)
              .Build(),
          gguf_tokenizer_ok);
  }
  // SentencePiece: a unigram and a BPE model trained here by SentencePiece's own trainer, with
  // byte fallback.
  {
    const std::string sp_dir = root + "/sentencepiece";
    const std::string corpus = sp_dir + "/corpus.txt.tmp";
    {
      std::ofstream out(corpus);
      for (int r = 0; r < 10; ++r) {
        out << "The quick brown fox jumps over the lazy dog.\nLe renard brun saute, \xc3\xa0 "
               "l'\xc3\xa9vidence.\n\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\n";
      }
    }
    for (const char* type : {"unigram", "bpe"}) {
      const std::string prefix = sp_dir + "/" + type;
      const auto st = sentencepiece::SentencePieceTrainer::Train(
          "--input=" + corpus + " --model_prefix=" + prefix + " --model_type=" + type +
          " --vocab_size=300 --byte_fallback=true --hard_vocab_limit=false --minloglevel=2");
      std::ifstream in(prefix + ".model", std::ios::binary);
      std::stringstream bytes;
      bytes << in.rdbuf();
      if (!st.ok() ||
          !pe::SubwordTokenizer::FromSentencePiece(bytes.str(), prefix + ".model").ok()) {
        std::fprintf(stderr, "seed %s.model does not load\n", prefix.c_str());
        ++failures;
      }
      std::remove((prefix + ".vocab").c_str());
    }
    std::remove(corpus.c_str());
  }
  return failures == 0 ? 0 : 1;
}
