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
//    tensor with n >= 16 takes normal_fill (or normal_fill_AVX2, see TorchKernel): n float
//    uniforms first, then each whole block of 16 is turned in place into normals with
//    Box-Muller in float,
//        u1 = 1 - data[j], u2 = data[j + 8]               (j = 0..7)
//        radius = sqrt(-2 log u1)
//        data[j] = radius cos(theta) std + mean, data[j + 8] = radius sin(theta) std + mean;
//    when n is not a multiple of 16 the last 16 values are drawn again (16 more uniforms) and
//    transformed the same way. The two kernels differ in log, sin, cos and theta only.
//  - n < 16 takes at::normal_distribution<double> per value: u1, u2 = two double uniforms,
//    r = sqrt(-2 log1p(-u2)), theta = 2 pi u1, value = r cos(theta) and the next value is the
//    cached r sin(theta); each is value * std + mean in double, rounded to float (both kernels).
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

// PyTorch's two CPU kernels for a float tensor of n >= 16 values (normal_kernel is compiled
// once per CPU capability and at::native dispatches to one at run time):
//  kAvx2    normal_fill_16_AVX2, what torch runs on a CPU with AVX2 (torch.__config__.show()
//           says "CPU capability usage: AVX2"; AVX512 gives the same values): theta =
//           float(2 pi) * u2 in float, log and sincos from avx_mathfun.h (log256_ps and
//           sincos256_ps, Cephes polynomials) with the multiply-adds GCC fuses into FMA when it
//           builds them with -mfma, then fmadd(n, std, mean).
//  kScalar  normal_fill_16, the scalar loop (ATEN_CPU_CAPABILITY=default, CPUs without AVX2):
//           theta = float(2 pi (double) * u2), the C library's logf, sqrtf, cosf, sinf, no FMA.
// Both checked bit for bit against Debian's python3-torch 1.13.1 (tests/torch_goldens.inc).
// They differ in the last bits: at most 2.2e-6 absolute over 2 million values of seed 5, which
// near zero is many ulps; e.g. torch.manual_seed(0); nn.Embedding(10, 128).weight[1, 74] is
// 0x3ec8b7b0 with AVX2 and 0x3ec8b7af with the scalar kernel. n < 16 is the same for both.
enum class TorchKernel { kAvx2, kScalar };

// Box-Muller on one block of 16 uniforms in place, as normal_fill_16 (the scalar kernel).
void TorchBoxMuller16(float* data, float mean = 0.0f, float std = 1.0f);
// The same as normal_fill_16_AVX2 computes it, lane by lane in scalar float operations.
void TorchBoxMuller16Avx2(float* data, float mean = 0.0f, float std = 1.0f);
// One lane of avx_mathfun's log256_ps (x > 0; NaN for x <= 0, denormals read as 2^-126).
float TorchAvxLog(float x);
// One lane of avx_mathfun's sincos256_ps (accurate for |x| < 8192, as there).
void TorchAvxSinCos(float x, float* sin_x, float* cos_x);

// Values `indices` (each in [0, n)) of torch.manual_seed(seed); torch.empty(n).normal_(), in
// the order given. Runs the stream once up to the furthest block needed (the whole stream when a
// value of the redrawn tail is asked for): cost O(max index), memory O(indices).
std::vector<float> TorchNormalAt(uint64_t seed, int64_t n, std::span<const int64_t> indices,
                                 TorchKernel kernel = TorchKernel::kAvx2);
// All n values (n >= 0) of torch.manual_seed(seed); torch.empty(n).normal_(mean, std).
std::vector<float> TorchNormal(uint64_t seed, int64_t n, double mean, double std,
                               TorchKernel kernel = TorchKernel::kAvx2);
// torch.manual_seed(seed); torch.randn(n): TorchNormal with mean 0, std 1.
std::vector<float> TorchRandn(uint64_t seed, int64_t n, TorchKernel kernel = TorchKernel::kAvx2);

}  // namespace pe
