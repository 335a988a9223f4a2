#include "base/torch_random.h"

#include <algorithm>
#include <array>
#include <bit>
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

void TorchBoxMuller16(float* data, float mean, float std) {
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];  // [0, 1) -> (0, 1] for the log
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * std::log(u1));
    // 2.0f * c10::pi<double> * u2 is computed in double and stored as float.
    const auto theta = static_cast<float>(2.0 * std::numbers::pi * static_cast<double>(u2));
    // radius * cos * std + mean, left to right, each rounded (no FMA in the default build).
    data[j] = radius * std::cos(theta) * std + mean;
    data[j + 8] = radius * std::sin(theta) * std + mean;
  }
}

// The AVX2 kernel, one lane at a time. Every step below is one float operation of
// avx_mathfun.h (log256_ps, sincos256_ps) or DistributionTemplates.h (normal_fill_16_AVX2) in
// its order, rounded to float; core is compiled with -ffp-contract=off, so a * b + c here is
// two roundings and std::fma one. PyTorch builds its AVX2 kernels with GCC and -mfma, and GCC
// fuses each vector multiply whose only use is an add or subtract into that add (the first such
// multiply in program order when an add has two); the std::fma calls below are exactly those.
// (Fusing or not makes no difference in the steps marked "exact": a product of a small integer
// and a constant with few bits, or a halving.) Without the fusing, about 1% of values differ by
// 1 or 2 ulps from PyTorch's.
namespace {

float FloatOf(uint32_t bits) {
  return std::bit_cast<float>(bits);
}
uint32_t BitsOf(float x) {
  return std::bit_cast<uint32_t>(x);
}

// avx_mathfun's constants are double literals stored in float arrays: rounded once to float.
constexpr float kSqrtHalf = static_cast<float>(0.707106781186547524);
constexpr float kLogP[9] = {
    static_cast<float>(7.0376836292E-2), static_cast<float>(-1.1514610310E-1),
    static_cast<float>(1.1676998740E-1), static_cast<float>(-1.2420140846E-1),
    static_cast<float>(1.4249322787E-1), static_cast<float>(-1.6668057665E-1),
    static_cast<float>(2.0000714765E-1), static_cast<float>(-2.4999993993E-1),
    static_cast<float>(3.3333331174E-1)};
constexpr float kLogQ1 = static_cast<float>(-2.12194440e-4);
constexpr float kLogQ2 = static_cast<float>(0.693359375);
constexpr float kFourOverPi = static_cast<float>(1.27323954473516);
constexpr float kMinusDp1 = static_cast<float>(-0.78515625);
constexpr float kMinusDp2 = static_cast<float>(-2.4187564849853515625e-4);
constexpr float kMinusDp3 = static_cast<float>(-3.77489497744594108e-8);
constexpr float kSinP[3] = {static_cast<float>(-1.9515295891E-4),
                            static_cast<float>(8.3321608736E-3),
                            static_cast<float>(-1.6666654611E-1)};
constexpr float kCosP[3] = {static_cast<float>(2.443315711809948E-005),
                            static_cast<float>(-1.388731625493765E-003),
                            static_cast<float>(4.166664568298827E-002)};

}  // namespace

float TorchAvxLog(float x) {
  const bool invalid = x <= 0.0f;  // or NaN (all bits set) in at the end
  // _mm256_max_ps(x, min_norm_pos): the second operand unless x is greater (so also for NaN).
  x = x > FloatOf(0x00800000u) ? x : FloatOf(0x00800000u);
  int32_t exponent = static_cast<int32_t>(BitsOf(x) >> 23);
  x = FloatOf((BitsOf(x) & ~0x7f800000u) | BitsOf(0.5f));  // mantissa in [0.5, 1)
  exponent -= 0x7f;
  float e = static_cast<float>(exponent) + 1.0f;
  // x < sqrt(1/2): e -= 1, x = x + x - 1; else x = x - 1 (as masked adds: x - 1 + (x or 0)).
  const bool below = x < kSqrtHalf;
  const float masked_x = below ? x : 0.0f;
  x = x - 1.0f;
  e = e - (below ? 1.0f : 0.0f);
  x = x + masked_x;
  const float z = x * x;
  float y = kLogP[0];
  for (int k = 1; k < 9; ++k) y = std::fma(y, x, kLogP[k]);  // y * x + p_k, fused
  y = y * x;
  y = std::fma(y, z, e * kLogQ1);  // y * z + e * q1: the first product is fused
  y = y - z * 0.5f;                // exact product
  x = x + y;
  x = x + e * kLogQ2;  // exact product
  return invalid ? FloatOf(0xffffffffu) : x;
}

void TorchAvxSinCos(float x, float* sin_x, float* cos_x) {
  uint32_t sign_sin = BitsOf(x) & 0x80000000u;
  x = FloatOf(BitsOf(x) & 0x7fffffffu);
  // The octant j = (trunc(|x| 4 / pi) + 1) & ~1, even; y = j as float. _mm256_cvttps_epi32
  // truncates, and gives 0x80000000 for NaN or a value past 2^31; the integer steps wrap.
  const float scaled = x * kFourOverPi;
  uint32_t j =
      scaled < 2147483648.0f ? static_cast<uint32_t>(static_cast<int32_t>(scaled)) : 0x80000000u;
  j = (j + 1u) & ~1u;
  const auto y = static_cast<float>(static_cast<int32_t>(j));
  const uint32_t swap_sign_sin = (j & 4u) << 29;
  const bool sin_poly_for_sin = (j & 2u) == 0;
  // x - y * pi / 4 in three parts, each product fused into its add.
  x = std::fma(y, kMinusDp1, x);
  x = std::fma(y, kMinusDp2, x);
  x = std::fma(y, kMinusDp3, x);
  const uint32_t sign_cos = (~(j - 2u) & 4u) << 29;
  sign_sin ^= swap_sign_sin;
  const float z = x * x;
  // cos on [-pi/4, pi/4]: ((c0 z + c1) z + c2) z z - z / 2 + 1; the second "* z" is fused into
  // the subtraction of z * 0.5, which stays a rounded product.
  float yc = std::fma(kCosP[0], z, kCosP[1]);
  yc = std::fma(yc, z, kCosP[2]);
  yc = yc * z;
  yc = std::fma(yc, z, -(z * 0.5f));
  yc = yc + 1.0f;
  // sin on [-pi/4, pi/4]: ((s0 z + s1) z + s2) z x + x, the last product fused.
  float ys = std::fma(kSinP[0], z, kSinP[1]);
  ys = std::fma(ys, z, kSinP[2]);
  ys = ys * z;
  ys = std::fma(ys, x, x);
  // The selection as avx_mathfun writes it: masked parts taken out and added back (+0 terms).
  const float sin_from_ys = sin_poly_for_sin ? ys : 0.0f;
  const float sin_from_yc = sin_poly_for_sin ? 0.0f : yc;
  ys = ys - sin_from_ys;
  yc = yc - sin_from_yc;
  *sin_x = FloatOf(BitsOf(sin_from_yc + sin_from_ys) ^ sign_sin);
  *cos_x = FloatOf(BitsOf(yc + ys) ^ sign_cos);
}

void TorchBoxMuller16Avx2(float* data, float mean, float std) {
  // _mm256_set1_ps(2.0f * c10::pi<double>): the double 2 pi rounded to float once.
  const auto two_pi = static_cast<float>(2.0 * std::numbers::pi);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];  // lanes 0..7 of the block
    const float u2 = data[j + 8];     // lanes 8..15
    const float radius = std::sqrt(-2.0f * TorchAvxLog(u1));
    const float theta = two_pi * u2;
    float sin_theta = 0.0f, cos_theta = 0.0f;
    TorchAvxSinCos(theta, &sin_theta, &cos_theta);
    const float n1 = radius * cos_theta;
    const float n2 = radius * sin_theta;
    data[j] = std::fma(n1, std, mean);  // _mm256_fmadd_ps
    data[j + 8] = std::fma(n2, std, mean);
  }
}

namespace {

// n < 16: at::normal_distribution<double>, two values per pair of double uniforms, each
// value * std + mean in double (transformation::normal), then rounded to float.
std::vector<float> SmallNormals(uint64_t seed, int64_t n, double mean, double std) {
  TorchMt19937 mt(seed);
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i += 2) {
    const uint32_t a = mt.Next(), b = mt.Next(), c = mt.Next(), d = mt.Next();
    const double u1 = TorchUniformDouble(a, b);
    const double u2 = TorchUniformDouble(c, d);
    const double r = std::sqrt(-2.0 * std::log1p(-u2));
    const double theta = 2.0 * std::numbers::pi * u1;
    out[static_cast<size_t>(i)] = static_cast<float>(r * std::cos(theta) * std + mean);
    if (i + 1 < n) {
      out[static_cast<size_t>(i + 1)] = static_cast<float>(r * std::sin(theta) * std + mean);
    }
  }
  return out;
}

void BoxMuller16(TorchKernel kernel, float* block, float mean, float std) {
  if (kernel == TorchKernel::kAvx2) {
    TorchBoxMuller16Avx2(block, mean, std);
  } else {
    TorchBoxMuller16(block, mean, std);
  }
}

}  // namespace

std::vector<float> TorchNormalAt(uint64_t seed, int64_t n, std::span<const int64_t> indices,
                                 TorchKernel kernel) {
  assert(n >= 0 && "the tensor size must not be negative");
  for ([[maybe_unused]] int64_t i : indices) assert(i >= 0 && i < n && "index outside [0, n)");
  std::vector<float> out(indices.size());
  if (n < 16) {
    const std::vector<float> all = SmallNormals(seed, n, 0.0, 1.0);
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
    BoxMuller16(kernel, block.data(), 0.0f, 1.0f);
  }
  for (size_t k = 0; k < indices.size(); ++k) {
    const auto [start, j] = block_of(indices[k]);
    out[k] = blocks[start][static_cast<size_t>(j)];
  }
  return out;
}

std::vector<float> TorchNormal(uint64_t seed, int64_t n, double mean, double std,
                               TorchKernel kernel) {
  if (n < 16) return SmallNormals(seed, n, mean, std);
  // normal_kernel hands the float fill static_cast<float>(mean) and (std).
  const auto mean_f = static_cast<float>(mean), std_f = static_cast<float>(std);
  std::vector<float> data(static_cast<size_t>(n));
  TorchMt19937 mt(seed);
  for (float& u : data) u = TorchUniformFloat(mt.Next());
  for (int64_t i = 0; i + 16 <= n; i += 16) BoxMuller16(kernel, data.data() + i, mean_f, std_f);
  if (n % 16 != 0) {
    float* last = data.data() + (n - 16);
    for (int k = 0; k < 16; ++k) last[k] = TorchUniformFloat(mt.Next());
    BoxMuller16(kernel, last, mean_f, std_f);
  }
  return data;
}

std::vector<float> TorchRandn(uint64_t seed, int64_t n, TorchKernel kernel) {
  return TorchNormal(seed, n, 0.0, 1.0, kernel);
}

}  // namespace pe
