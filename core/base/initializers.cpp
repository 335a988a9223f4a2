#include "base/initializers.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <utility>

#include "base/random.h"

namespace pe {
namespace {

constexpr uint64_t kTruncatedTag = 0x7472756e63617465ull;  // "truncate"
constexpr double kTruncation = 2.0;                        // Haiku's lower = -2, upper = 2
constexpr int kMaxRedraws = 64;

struct InitName {
  EmbeddingInit init;
  std::string_view name;
};
constexpr InitName kNames[] = {{EmbeddingInit::kNormal1, "normal-1"},
                               {EmbeddingInit::kNormalScaled, "normal-scaled"},
                               {EmbeddingInit::kNormal002, "normal-0.02"},
                               {EmbeddingInit::kTruncatedNormal, "truncated-normal"}};

}  // namespace

std::string_view EmbeddingInitName(EmbeddingInit init) {
  if (init == EmbeddingInit::kTorch) return "torch";
  for (const InitName& n : kNames) {
    if (n.init == init) return n.name;
  }
  return "?";
}

std::optional<EmbeddingInit> ParseEmbeddingInit(std::string_view name) {
  for (const InitName& n : kNames) {
    if (n.name == name) return n.init;
  }
  return std::nullopt;
}

namespace {

// "torch:" and "torch-scalar:" followed by decimal digits only: no sign, no spaces, nothing
// after, no overflow.
std::optional<uint64_t> ParseTorchSeed(std::string_view digits) {
  uint64_t seed = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, seed);
  if (digits.empty() || digits.front() < '0' || digits.front() > '9' || ec != std::errc() ||
      ptr != end) {
    return std::nullopt;
  }
  return seed;
}

constexpr std::string_view kTorchPrefix = "torch:";
constexpr std::string_view kTorchScalarPrefix = "torch-scalar:";

}  // namespace

std::optional<InitChoice> ParseInitChoice(std::string_view text) {
  for (const auto& [prefix, kernel] : {std::pair{kTorchPrefix, TorchKernel::kAvx2},
                                       std::pair{kTorchScalarPrefix, TorchKernel::kScalar}}) {
    if (!text.starts_with(prefix)) continue;
    const std::optional<uint64_t> seed = ParseTorchSeed(text.substr(prefix.size()));
    if (!seed) return std::nullopt;
    return InitChoice{EmbeddingInit::kTorch, *seed, kernel};
  }
  if (std::optional<EmbeddingInit> init = ParseEmbeddingInit(text)) return InitChoice{*init, 0};
  return std::nullopt;
}

std::string InitChoiceName(const InitChoice& choice) {
  if (choice.init == EmbeddingInit::kTorch) {
    std::string s(choice.torch_kernel == TorchKernel::kScalar ? kTorchScalarPrefix : kTorchPrefix);
    s += std::to_string(choice.torch_seed);
    return s;
  }
  return std::string(EmbeddingInitName(choice.init));
}

double InitScale(EmbeddingInit init, int64_t d_model) {
  switch (init) {
    case EmbeddingInit::kNormal002:
      return 0.02;
    case EmbeddingInit::kNormalScaled:
      return 1.0 / std::sqrt(static_cast<double>(d_model));
    case EmbeddingInit::kNormal1:
    case EmbeddingInit::kTruncatedNormal:
    case EmbeddingInit::kTorch:
      break;
  }
  return 1.0;
}

double TruncatedNormalStd() {
  // var = 1 - 2 b phi(b) / (Phi(b) - Phi(-b)), Phi(b) - Phi(-b) = erf(b / sqrt 2).
  const double b = kTruncation;
  const double phi = std::exp(-0.5 * b * b) / std::sqrt(2.0 * std::numbers::pi);
  return std::sqrt(1.0 - 2.0 * b * phi / std::erf(b / std::numbers::sqrt2));
}

double InitStd(EmbeddingInit init, int64_t d_model) {
  const double s = InitScale(init, d_model);
  return init == EmbeddingInit::kTruncatedNormal ? s * TruncatedNormalStd() : s;
}

std::string InitFormula(EmbeddingInit init, int64_t d_model) {
  char buf[96];
  switch (init) {
    case EmbeddingInit::kNormal1:
      return "N(0, 1)";
    case EmbeddingInit::kNormal002:
      return "N(0, 0.02\xc2\xb2)";
    case EmbeddingInit::kNormalScaled:
      std::snprintf(buf, sizeof buf, "N(0, 1/d) = N(0, %.4g\xc2\xb2)", InitScale(init, d_model));
      return buf;
    case EmbeddingInit::kTorch:
      return "N(0, 1) as PyTorch draws it";
    case EmbeddingInit::kTruncatedNormal:
      break;
  }
  return "N(0, 1) truncated to [-2, 2]";
}

double InitValue(EmbeddingInit init, int64_t d_model, uint64_t stream, uint64_t k) {
  if (init != EmbeddingInit::kTruncatedNormal) {
    return InitScale(init, d_model) * RandomNormal(stream, k);
  }
  double z = RandomNormal(stream, k);
  for (int a = 1; std::abs(z) > kTruncation; ++a) {
    if (a > kMaxRedraws) return 0.0;
    z = RandomNormal(RandomBits(stream ^ kTruncatedTag, static_cast<uint64_t>(a)), k);
  }
  return z;
}

}  // namespace pe
