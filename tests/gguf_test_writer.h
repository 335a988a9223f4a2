// Composes GGUF files byte by byte (llama.cpp `docs/gguf.md`, version 3 unless told): header,
// metadata pairs, tensor infos, padding and a data section holding only the tensors given
// values. For the reader's tests, its bench and the fuzzer's seeds; not a general writer.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace pe::testing_gguf {

class GgufBuilder {
 public:
  explicit GgufBuilder(uint32_t version = 3) : version_(version) {}

  GgufBuilder& U32(const std::string& key, uint32_t v) { return Scalar(key, 4, Le(v, 4)); }
  GgufBuilder& I32(const std::string& key, int32_t v) {
    return Scalar(key, 5, Le(static_cast<uint32_t>(v), 4));
  }
  GgufBuilder& U64(const std::string& key, uint64_t v) { return Scalar(key, 10, Le(v, 8)); }
  GgufBuilder& F32(const std::string& key, float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return Scalar(key, 6, Le(bits, 4));
  }
  GgufBuilder& Bool(const std::string& key, bool v) { return Scalar(key, 7, std::string(1, v)); }
  GgufBuilder& Str(const std::string& key, const std::string& v) { return Scalar(key, 8, S(v)); }
  GgufBuilder& U32Array(const std::string& key, const std::vector<uint32_t>& v) {
    std::string body = Le(4, 4) + Le(v.size(), 8);
    for (uint32_t x : v) body += Le(x, 4);
    return Scalar(key, 9, body);
  }
  GgufBuilder& I32Array(const std::string& key, const std::vector<int32_t>& v) {
    std::string body = Le(5, 4) + Le(v.size(), 8);
    for (int32_t x : v) body += Le(static_cast<uint32_t>(x), 4);
    return Scalar(key, 9, body);
  }
  GgufBuilder& StrArray(const std::string& key, const std::vector<std::string>& v) {
    std::string body = Le(8, 4) + Le(v.size(), 8);
    for (const std::string& x : v) body += S(x);
    return Scalar(key, 9, body);
  }
  GgufBuilder& F32Array(const std::string& key, const std::vector<float>& v) {
    std::string body = Le(6, 4) + Le(v.size(), 8);
    for (float x : v) {
      uint32_t bits;
      std::memcpy(&bits, &x, 4);
      body += Le(bits, 4);
    }
    return Scalar(key, 9, body);
  }
  // An array of `count` one-byte strings (a vocabulary's shape without its text).
  GgufBuilder& Tokens(uint64_t count) {
    std::string body = Le(8, 4) + Le(count, 8);
    body.reserve(body.size() + count * 9);
    for (uint64_t k = 0; k < count; ++k) body += S(std::string(1, static_cast<char>('a' + k % 26)));
    return Scalar("tokenizer.ggml.tokens", 9, body);
  }
  // Raw bytes for a pair (type and value bytes as given).
  GgufBuilder& Raw(const std::string& key, uint32_t type, const std::string& value) {
    return Scalar(key, type, value);
  }
  // A tensor whose data is `values` as float32 (stored in the data section).
  GgufBuilder& F32Tensor(const std::string& name, const std::vector<float>& values) {
    std::string data;
    for (float v : values) {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      data += Le(bits, 4);
    }
    return Tensor(name, {values.size()}, 0, data);
  }
  // A tensor info with `data` as its bytes (none: the info only, its offset past the data).
  GgufBuilder& Tensor(const std::string& name, const std::vector<uint64_t>& dims, uint32_t type,
                      const std::string& data) {
    infos_.push_back({name, dims, type, data});
    return *this;
  }
  // Overrides the counts written in the header (a file that lies).
  GgufBuilder& LieCounts(uint64_t tensors, uint64_t kvs) {
    lie_ = true;
    lie_tensors_ = tensors;
    lie_kvs_ = kvs;
    return *this;
  }

  std::string Build() const {
    std::string data;
    std::string head = Head(&data);
    return head + data;
  }
  // Where the data section starts in Build()'s bytes.
  size_t DataOffset() const {
    std::string data;
    return Head(&data).size();
  }

  static std::string Le(uint64_t v, int bytes) {
    std::string s;
    for (int k = 0; k < bytes; ++k) s += static_cast<char>((v >> (8 * k)) & 0xff);
    return s;
  }
  static std::string S(const std::string& v) { return Le(v.size(), 8) + v; }

 private:
  struct Info {
    std::string name;
    std::vector<uint64_t> dims;
    uint32_t type;
    std::string data;
  };
  std::string Head(std::string* data) const {
    std::string out = "GGUF" + Le(version_, 4);
    const uint64_t nt = lie_ ? lie_tensors_ : infos_.size();
    const uint64_t nk = lie_ ? lie_kvs_ : kv_count_;
    if (version_ == 1) {
      out += Le(nt, 4) + Le(nk, 4);
    } else {
      out += Le(nt, 8) + Le(nk, 8);
    }
    out += kvs_;
    uint64_t offset = 0;
    for (const Info& t : infos_) {
      out += S(t.name) + Le(t.dims.size(), 4);
      for (uint64_t d : t.dims) out += Le(d, 8);
      out += Le(t.type, 4) + Le(offset, 8);
      *data += t.data;
      offset += t.data.size();
      while (offset % 32 != 0) {
        *data += '\0';
        ++offset;
      }
      if (t.data.empty()) offset += 32;  // an info only: its bytes are not written
    }
    while (out.size() % 32 != 0) out += '\0';
    return out;
  }
  GgufBuilder& Scalar(const std::string& key, uint32_t type, const std::string& value) {
    kvs_ += S(key) + Le(type, 4) + value;
    ++kv_count_;
    return *this;
  }
  uint32_t version_;
  std::string kvs_;
  uint64_t kv_count_ = 0;
  std::vector<Info> infos_;
  bool lie_ = false;
  uint64_t lie_tensors_ = 0, lie_kvs_ = 0;
};

// The divisors llama.cpp's converter writes as rope_freqs.weight for Llama 3.1 8B (theta 5e5,
// head dim 128, factor 8, low 1, high 4, original 8192): float32, from numpy following
// `LlamaModel.generate_extra_tensors` in convert_hf_to_gguf.py (freqs in float32, the
// wavelength thresholds and the blend in double).
inline std::vector<float> Llama31RopeFreqs() {
  std::vector<float> v(29, 1.0f);
  for (float x : {1.2074840068817139f, 1.5534145832061768f, 2.026313066482544f, 2.6945300102233887f,
                  3.684252977371216f, 5.257326602935791f}) {
    v.push_back(x);
  }
  v.resize(64, 8.0f);
  return v;
}

}  // namespace pe::testing_gguf
