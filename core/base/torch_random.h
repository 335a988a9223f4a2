// PyTorch's CPU normal_ reproduced: `torch.manual_seed(seed); t = torch.empty(n); t.normal_()`
// (so nn.Embedding(V, d).weight, whose reset_parameters calls init.normal_, is t.view(V, d) for
// n = V * d). This is a sequential generator, unlike random.h's counter-based one: value i needs
// the stream up to i, and the last values depend on n.
//
// What PyTorch does (read in pytorch/pytorch, written here from that description):
//  - The generator (CPUGeneratorImpl, aten/src/ATen/CPUGeneratorImpl.cpp) is at::mt19937
//    (aten/src/ATen/core/MT19937RNGEngine.h), the standard 32-bit Mersenne Twister seeded with
//    the seed's low 32 bits; manual_seed also clears the cached second Box-Muller sample.
//    random() is one 32-bit draw, random64() = (first draw << 32) | second draw.
//  - uniform_real_distribution<float> (aten/src/ATen/core/DistributionsHelper.h,
//    TransformationHelper.h uniform_real): (random() & (2^24 - 1)) * 2^-24 in float, in [0, 1);
//    for double: (random64() & (2^53 - 1)) * 2^-53.
//  - normal_kernel (aten/src/ATen/native/cpu/DistributionTemplates.h): a contiguous float
//    tensor with n >= 16 takes normal_fill: n float uniforms first, then each whole block of 16
//    is turned in place into normals with Box-Muller in float,
//        u1 = 1 - data[j], u2 = data[j + 8]               (j = 0..7)
//        radius = sqrt(-2 log u1), theta = float(2 pi (double) * u2)
//        data[j] = radius cos(theta) std + mean, data[j + 8] = radius sin(theta) std + mean;
//    when n is not a multiple of 16 the last 16 values are drawn again (16 more uniforms) and
//    transformed the same way. With AVX2 compiled in (CPU_CAPABILITY_AVX2) the same steps run
//    as normal_fill_16_AVX2 with avx_mathfun's log256_ps / sincos256_ps and theta =
//    float(2 pi) * u2 in float, which can differ from the scalar libm values in the last bits
//    (see TorchNormalFill below).
//  - n < 16 takes at::normal_distribution<double> per value: u1, u2 = two double uniforms,
//    r = sqrt(-2 log1p(-u2)), theta = 2 pi u1, value = r cos(theta) and the next value is the
//    cached r sin(theta); each is rounded to float.
// Precision: the float path computes in float with the C library's logf, cosf, sinf, sqrtf,
// exactly as PyTorch's scalar normal_fill_16; the double path in double.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace pe {

// The 32-bit Mersenne Twister (Matsumoto and Nishimura 1998) as at::mt19937: state word 0 is the
// seed's low 32 bits, word k = 1812433253 * (w ^ (w >> 30)) + k; tempered outputs.
class TorchMt19937 {
 public:
  explicit TorchMt19937(uint64_t seed);
  uint32_t Next();
  // Skips `count` outputs.
  void Discard(uint64_t count);

 private:
  void Twist();
  uint32_t state_[624];
  int index_ = 624;
};

// The float uniform PyTorch makes from one draw: (bits & 0xFFFFFF) * 2^-24, in [0, 1).
float TorchUniformFloat(uint32_t bits);
// The double uniform from two draws (hi, lo): (((hi << 32) | lo) & (2^53 - 1)) * 2^-53.
double TorchUniformDouble(uint32_t hi, uint32_t lo);

// Box-Muller on one block of 16 uniforms in place, as normal_fill_16 (std 1, mean 0).
void TorchBoxMuller16(float* data);

// Values `indices` (each in [0, n)) of torch.manual_seed(seed); torch.empty(n).normal_(), in
// the order given. Runs the stream once up to the furthest block needed (the whole stream when a
// value of the redrawn tail is asked for): cost O(max index), memory O(indices).
std::vector<float> TorchNormalAt(uint64_t seed, int64_t n, std::span<const int64_t> indices);
// All n values (n >= 0): torch.manual_seed(seed); torch.randn(n).
std::vector<float> TorchRandn(uint64_t seed, int64_t n);

}  // namespace pe
