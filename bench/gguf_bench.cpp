// Opening a GGUF model file (arch/gguf_reader.h), timed on a generated sparse file in /tmp:
// the header and the metadata of a Llama 3.1 8B conversion (its 128256 tokens, 280147 merges,
// token types, a chat template, 292 tensor infos and the rope_freqs tensor) at the start, then
// ftruncate to --gib GiB (default 10), so the reader must not touch the data section. Prints
// the first open and the median of --runs (default 20) opens. Removed at the end unless --keep.
// --file PATH times an existing GGUF file instead (a real model's).
// Run: build/gguf_bench [--gib N] [--runs N] [--keep] [--file PATH]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "../tests/gguf_test_writer.h"
#include "arch/gguf_reader.h"

namespace {

double Millis(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string Llama31Header() {
  using pe::testing_gguf::GgufBuilder;
  GgufBuilder b;
  b.Str("general.architecture", "llama")
      .Str("general.name", "Meta Llama 3.1 8B Instruct")
      .U32("general.file_type", 15)
      .U32("llama.block_count", 32)
      .U32("llama.context_length", 131072)
      .U32("llama.embedding_length", 4096)
      .U32("llama.feed_forward_length", 14336)
      .U32("llama.attention.head_count", 32)
      .U32("llama.attention.head_count_kv", 8)
      .F32("llama.rope.freq_base", 500000.0f)
      .F32("llama.attention.layer_norm_rms_epsilon", 1e-5f)
      .U32("llama.rope.dimension_count", 128)
      .Str("tokenizer.ggml.model", "gpt2")
      .Str("tokenizer.ggml.pre", "llama-bpe");
  // Tokens of typical length (about 7 bytes), token types, merges, a chat template.
  std::string tokens = GgufBuilder::Le(8, 4) + GgufBuilder::Le(128256, 8);
  for (int k = 0; k < 128256; ++k) tokens += GgufBuilder::S("tok" + std::to_string(k));
  b.Raw("tokenizer.ggml.tokens", 9, tokens);
  std::string types = GgufBuilder::Le(5, 4) + GgufBuilder::Le(128256, 8);
  for (int k = 0; k < 128256; ++k) types += GgufBuilder::Le(1, 4);
  b.Raw("tokenizer.ggml.token_type", 9, types);
  std::string merges = GgufBuilder::Le(8, 4) + GgufBuilder::Le(280147, 8);
  for (int k = 0; k < 280147; ++k) {
    std::string merge = "m";
    merge += std::to_string(k);
    merge += " x";
    merges += GgufBuilder::S(merge);
  }
  b.Raw("tokenizer.ggml.merges", 9, merges);
  b.Str("tokenizer.chat_template", std::string(6000, 'c'));
  b.F32Tensor("rope_freqs.weight", pe::testing_gguf::Llama31RopeFreqs());
  b.Tensor("token_embd.weight", {4096, 128256}, 12, "");
  for (int l = 0; l < 32; ++l) {
    for (const char* t : {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up",
                          "ffn_down", "attn_norm", "ffn_norm"}) {
      b.Tensor("blk." + std::to_string(l) + "." + t + ".weight", {4096, 4096}, 12, "");
    }
  }
  b.Tensor("output_norm.weight", {4096}, 0, "");
  b.Tensor("output.weight", {4096, 128256}, 14, "");
  return b.Build();
}

}  // namespace

int main(int argc, char** argv) {
  long gib = 10, runs = 20;
  bool keep = false;
  std::string file;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--gib") && i + 1 < argc) gib = std::atol(argv[++i]);
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atol(argv[++i]);
    if (!std::strcmp(argv[i], "--keep")) keep = true;
    if (!std::strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
  }
  std::string path = file;
  if (file.empty()) {
    path = "/tmp/pe_gguf_bench_" + std::to_string(::getpid()) + ".gguf";
    const std::string header = Llama31Header();
    std::ofstream(path, std::ios::binary) << header;
    if (::truncate(path.c_str(), static_cast<off_t>(gib) << 30) != 0) {
      std::perror("truncate");
      return 1;
    }
    std::printf("GGUF %s: %.1f MiB of header and metadata, file %ld GiB (sparse)\n", path.c_str(),
                static_cast<double>(header.size()) / (1 << 20), gib);
  }
  auto t0 = std::chrono::steady_clock::now();
  auto first = pe::ReadGgufFile(path);
  const double first_ms = Millis(t0);
  if (!first.ok()) {
    std::fprintf(stderr, "%s\n", first.message().c_str());
    return 1;
  }
  std::vector<double> times;
  for (long r = 0; r < runs; ++r) {
    t0 = std::chrono::steady_clock::now();
    auto s = pe::ReadGgufFile(path);
    times.push_back(Millis(t0));
    if (!s.ok()) return 1;
  }
  std::sort(times.begin(), times.end());
  std::printf(
      "open + schedule: first %.2f ms, median %.2f ms, max %.2f ms over %ld runs (%zu "
      "layers, vocab %lld)\n",
      first_ms, times[times.size() / 2], times.back(), runs, first.value().layers.size(),
      static_cast<long long>(first.value().shape.vocab));
  if (!keep && file.empty()) std::remove(path.c_str());
  return 0;
}
