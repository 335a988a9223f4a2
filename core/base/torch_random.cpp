#include "base/torch_random.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <map>
#include <numbers>

namespace pe {

TorchMt19937::TorchMt19937(uint64_t seed) {
  state_[0] = static_cast<uint32_t>(seed & 0xffffffffu);
  for (uint32_t k = 1; k < 624; ++k) {
    const uint32_t w = state_[k - 1];
    state_[k] = 1812433253u * (w ^ (w >> 30)) + k;
  }
}

void TorchMt19937::Twist() {
  constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kMatrixA = 0x9908b0dfu;
  for (int k = 0; k < 624; ++k) {
    const uint32_t y = (state_[k] & kUpper) | (state_[(k + 1) % 624] & kLower);
    state_[k] = state_[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? kMatrixA : 0u);
  }
  index_ = 0;
}

uint32_t TorchMt19937::Next() {
  if (index_ >= 624) Twist();
  uint32_t y = state_[index_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

void TorchMt19937::Discard(uint64_t count) {
  for (uint64_t k = 0; k < count; ++k) {
    if (index_ >= 624) {
      // Whole twists skipped at once: only the state matters, not the tempered outputs.
      const uint64_t left = count - k;
      if (left >= 624) {
        Twist();
        index_ = 624;
        k += 623;
        continue;
      }
    }
    (void)Next();
  }
}

float TorchUniformFloat(uint32_t bits) {
  return static_cast<float>(bits & 0xffffffu) * (1.0f / 16777216.0f);
}

double TorchUniformDouble(uint32_t hi, uint32_t lo) {
  const uint64_t v = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<double>(v & ((uint64_t{1} << 53) - 1)) * 0x1.0p-53;
}

void TorchBoxMuller16(float* data) {
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];  // [0, 1) -> (0, 1] for the log
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * std::log(u1));
    // 2.0f * c10::pi<double> * u2 is computed in double and stored as float.
    const auto theta = static_cast<float>(2.0 * std::numbers::pi * static_cast<double>(u2));
    data[j] = radius * std::cos(theta);
    data[j + 8] = radius * std::sin(theta);
  }
}

namespace {

// n < 16: at::normal_distribution<double>, two values per pair of double uniforms.
std::vector<float> SmallNormals(uint64_t seed, int64_t n) {
  TorchMt19937 mt(seed);
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i += 2) {
    const uint32_t a = mt.Next(), b = mt.Next(), c = mt.Next(), d = mt.Next();
    const double u1 = TorchUniformDouble(a, b);
    const double u2 = TorchUniformDouble(c, d);
    const double r = std::sqrt(-2.0 * std::log1p(-u2));
    const double theta = 2.0 * std::numbers::pi * u1;
    out[static_cast<size_t>(i)] = static_cast<float>(r * std::cos(theta));
    if (i + 1 < n) out[static_cast<size_t>(i + 1)] = static_cast<float>(r * std::sin(theta));
  }
  return out;
}

}  // namespace

std::vector<float> TorchNormalAt(uint64_t seed, int64_t n, std::span<const int64_t> indices) {
  assert(n >= 0 && "the tensor size must not be negative");
  for ([[maybe_unused]] int64_t i : indices) assert(i >= 0 && i < n && "index outside [0, n)");
  std::vector<float> out(indices.size());
  if (n < 16) {
    const std::vector<float> all = SmallNormals(seed, n);
    for (size_t k = 0; k < indices.size(); ++k) out[k] = all[static_cast<size_t>(indices[k])];
    return out;
  }
  const bool tail = n % 16 != 0;
  // Where value i's block of uniforms starts in the stream, and i's place in it.
  auto block_of = [&](int64_t i) -> std::pair<int64_t, int64_t> {
    if (tail && i >= n - 16) return {n, i - (n - 16)};
    return {i / 16 * 16, i % 16};
  };
  std::map<int64_t, std::array<float, 16>> blocks;
  for (int64_t i : indices) blocks[block_of(i).first];
  TorchMt19937 mt(seed);
  int64_t pos = 0;
  for (auto& [start, block] : blocks) {
    mt.Discard(static_cast<uint64_t>(start - pos));
    for (float& u : block) u = TorchUniformFloat(mt.Next());
    pos = start + 16;
    TorchBoxMuller16(block.data());
  }
  for (size_t k = 0; k < indices.size(); ++k) {
    const auto [start, j] = block_of(indices[k]);
    out[k] = blocks[start][static_cast<size_t>(j)];
  }
  return out;
}

std::vector<float> TorchRandn(uint64_t seed, int64_t n) {
  if (n < 16) return SmallNormals(seed, n);
  std::vector<float> data(static_cast<size_t>(n));
  TorchMt19937 mt(seed);
  for (float& u : data) u = TorchUniformFloat(mt.Next());
  for (int64_t i = 0; i + 16 <= n; i += 16) TorchBoxMuller16(data.data() + i);
  if (n % 16 != 0) {
    float* last = data.data() + (n - 16);
    for (int k = 0; k < 16; ++k) last[k] = TorchUniformFloat(mt.Next());
    TorchBoxMuller16(last);
  }
  return data;
}

}  // namespace pe
