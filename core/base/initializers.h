// The initialisers of the model's embedding tables (token embeddings and a learned position
// table), each named after the code that uses it. Before training a table is only this noise,
// which is what the app shows. Every value comes from the counter-based generator of random.h,
// so entry k of a table is computed on its own and the table does not depend on its size.
//   normal-1          N(0, 1): torch.nn.Embedding.reset_parameters (init.normal_)
//   normal-scaled     N(0, 1/d): fairseq's Embedding (nn.init.normal_(std=d ** -0.5)) and
//                     tensor2tensor's embedding (random_normal_initializer(0, d ** -0.5))
//   normal-0.02       N(0, 0.02^2): GPT-2 and BERT's initializer_range (HF _init_weights)
//   truncated-normal  Haiku hk.Embed's default w_init, hk.initializers.TruncatedNormal() with
//                     stddev 1, mean 0: jax.random.truncated_normal(lower=-2, upper=2) * 1 + 0,
//                     i.e. N(0, 1) restricted to [-2, 2]. TruncatedNormal applies no stddev
//                     correction (only hk.initializers.VarianceScaling divides by
//                     .87962566103423978, scipy's truncnorm.std(-2, 2)), so the values'
//                     standard deviation is that number, not 1:
//                       var = 1 - 2 b phi(b) / (2 Phi(b) - 1) with b = 2, std = 0.8796256610.
//   torch:SEED        N(0, 1) exactly as PyTorch draws it: torch.manual_seed(SEED);
//                     nn.Embedding(V, d).weight (base/torch_random.h), as torch computes it on
//                     a CPU with AVX2 (its vectorised kernel for V * d >= 16).
//   torch-scalar:SEED The same with torch's scalar kernel (ATEN_CPU_CAPABILITY=default or a
//                     CPU without AVX2); the two differ in the last bits.
//                     Neither is counter-based: the table is one stream of V * d values, so
//                     it depends on V; InitValue does not make it (model/embedding.h
//                     EmbeddingRows does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/torch_random.h"

namespace pe {

// Declared in this order so a learned table's older values (normal-0.02, normal-1) keep theirs.
// kTorch is last and not in kAllEmbeddingInits, which lists the counter-based initialisers.
enum class EmbeddingInit { kNormal002, kNormal1, kNormalScaled, kTruncatedNormal, kTorch };
inline constexpr EmbeddingInit kAllEmbeddingInits[] = {
    EmbeddingInit::kNormal1, EmbeddingInit::kNormalScaled, EmbeddingInit::kNormal002,
    EmbeddingInit::kTruncatedNormal};
// The names as a message lists them.
inline constexpr const char* kEmbeddingInitChoices =
    "normal-1, normal-scaled, normal-0.02 or truncated-normal";

// "normal-1", "normal-scaled", "normal-0.02", "truncated-normal", and back ("torch" for
// kTorch, which ParseEmbeddingInit does not take: it needs its seed, see ParseInitChoice).
std::string_view EmbeddingInitName(EmbeddingInit init);
std::optional<EmbeddingInit> ParseEmbeddingInit(std::string_view name);

// The --init value: one of the four names, "torch:SEED" (torch's AVX2 kernel) or
// "torch-scalar:SEED" (its scalar kernel), with SEED a decimal integer in [0, 2^64 - 1] as
// torch.manual_seed takes it (at::mt19937 keeps its low 32 bits, so SEED and SEED + 2^32 give
// one table, as in PyTorch).
struct InitChoice {
  EmbeddingInit init = EmbeddingInit::kNormal1;
  uint64_t torch_seed = 0;                        // used by kTorch only
  TorchKernel torch_kernel = TorchKernel::kAvx2;  // used by kTorch only
  bool operator==(const InitChoice&) const = default;
};
inline constexpr const char* kInitChoices =
    "normal-1, normal-scaled, normal-0.02, truncated-normal, torch:SEED or torch-scalar:SEED "
    "(SEED an integer in [0, 18446744073709551615]; torch: PyTorch's numbers as on an AVX2 "
    "CPU, torch-scalar: as its scalar kernel draws them)";
std::optional<InitChoice> ParseInitChoice(std::string_view text);
// "normal-1" ... , "torch:7" or "torch-scalar:7"; ParseInitChoice reads it back.
std::string InitChoiceName(const InitChoice& choice);

// The standard deviation the initialiser multiplies N(0, 1) (or the truncated N(0, 1)) by:
// 1, d^-0.5, 0.02, 1 (d = d_model >= 1).
double InitScale(EmbeddingInit init, int64_t d_model);
// The standard deviation of the values themselves: InitScale, times 0.8796256610 for the
// truncated normal.
double InitStd(EmbeddingInit init, int64_t d_model);
// The standard deviation of N(0, 1) restricted to [-2, 2] (closed form above).
double TruncatedNormalStd();
// "N(0, 1)", "N(0, 1/d) = N(0, 0.125²)", "N(0, 0.02²)", "N(0, 1) truncated to [-2, 2]".
std::string InitFormula(EmbeddingInit init, int64_t d_model);

// Value k of the table of `stream` (a seed), in double (kTorch is not counter-based: it gives
// the normal-1 value here; the tables use EmbeddingRows):
//   normal kinds:  InitScale * RandomNormal(stream, k)
//   truncated:     the first of z_0 = RandomNormal(stream, k), z_a = RandomNormal(
//                  RandomBits(stream ^ kTruncatedTag, a), k) for a = 1, 2, ... with |z_a| <= 2.
// Rejection keeps each accepted z an exact draw of N(0, 1) conditioned on [-2, 2] (draws are
// independent, the acceptance test depends on z alone); 95.4% of values take the first draw,
// and those equal the normal-1 table's. After 64 rejections (probability 0.0455^64 < 1e-85)
// the value is 0.
double InitValue(EmbeddingInit init, int64_t d_model, uint64_t stream, uint64_t k);

}  // namespace pe
