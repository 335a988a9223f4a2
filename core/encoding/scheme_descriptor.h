// One descriptor per positional scheme: what the rest of the program knows about a scheme
// without building its encoding (its name, family, what it acts on, the facts the views test,
// the compare view's default B, how `check` describes it and writes its flags). The table is
// indexed by the Scheme enum; a static_assert keeps it covering every scheme, so adding a
// scheme means its params struct, its encoding file(s), one entry here, its controls and tests.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
#include <variant>

#include "encoding/encoding_params.h"

namespace pe {

// How position reaches attention.
enum class Family {
  kAdded,   // a vector added to each token's embedding (sinusoidal, learned)
  kRotary,  // a rotation of queries and keys (RoPE, xPos)
  kBias,    // a bias added to the attention logits (ALiBi, T5)
};

// The per-scheme texts of `check`: (valid params).
std::string CheckDescribeSinusoidal(const EncodingParams& p);
std::string CheckDescribeRope(const EncodingParams& p);
std::string CheckDescribeByName(const EncodingParams& p);
std::string CheckFlagsSinusoidal(const EncodingParams& p);
std::string CheckFlagsRope(const EncodingParams& p);
std::string NoFlags(const EncodingParams& p);
// The compare view's B for an empty --versus.
std::string DefaultVersusSinusoidal(const EncodingParams& p);
std::string DefaultVersusLearned(const EncodingParams& p);
std::string DefaultVersusRope(const EncodingParams& p);
std::string DefaultVersusAlibi(const EncodingParams& p);
std::string DefaultVersusT5(const EncodingParams& p);
std::string DefaultVersusXpos(const EncodingParams& p);
std::string DefaultVersusNope(const EncodingParams& p);
std::string DefaultVersusMrope(const EncodingParams& p);

struct SchemeDescriptor {
  Scheme scheme;
  std::string_view name;          // --scheme, figure metadata: "rope"
  std::string_view window_label;  // the window's scheme list: "RoPE (rotates q, k)"
  Family family;
  std::string_view acts_on;  // "adds a bias to the attention logits": for messages
  // What the table's width d_model is called in titles and the window: "head dim" for the
  // schemes that rotate one attention head (RoPE, xPos), else "d_model".
  std::string_view width_label;
  // A vector per position that the similarity and check views compare (sinusoidal, learned,
  // rope); xPos's vectors carry a decay that only cancels in q.k.
  bool vector_per_position;
  // q.k decays or grows along the offset n - m (xPos: zeta_i^((m - n) / scale_base)), so the
  // query's and key's scales can overflow far from position 0.
  bool decays;
  // The added vector in formulas, "PE" or "W_pos" (a learned table); empty for the others.
  std::string_view vector_symbol;
  // The compare view's B for an empty --versus: "key=value" overrides (ApplyVersus).
  std::string (*default_versus)(const EncodingParams& p);
  // `check`: "rope cos, half pairing, theta 10000" (before ", offset N"), and the flags after
  // "--scheme NAME" that rebuild the table (before --offset, --d-model and --max-len).
  std::string (*check_describe)(const EncodingParams& p);
  std::string (*check_flags)(const EncodingParams& p);
};

// One entry per scheme, in the order of the Scheme enum.
inline constexpr SchemeDescriptor kSchemeDescriptors[] = {
    {.scheme = Scheme::kSinusoidal,
     .name = "sinusoidal",
     .window_label = "sinusoidal (added)",
     .family = Family::kAdded,
     .acts_on = "adds a vector to each token's embedding",
     .width_label = "d_model",
     .vector_per_position = true,
     .decays = false,
     .vector_symbol = "PE",
     .default_versus = &DefaultVersusSinusoidal,
     .check_describe = &CheckDescribeSinusoidal,
     .check_flags = &CheckFlagsSinusoidal},
    {.scheme = Scheme::kLearned,
     .name = "learned",
     .window_label = "learned table (added)",
     .family = Family::kAdded,
     .acts_on = "adds a vector to each token's embedding",
     .width_label = "d_model",
     .vector_per_position = true,
     .decays = false,
     .vector_symbol = "W_pos",
     .default_versus = &DefaultVersusLearned,
     .check_describe = &CheckDescribeByName,
     .check_flags = &NoFlags},
    {.scheme = Scheme::kRope,
     .name = "rope",
     .window_label = "RoPE (rotates q, k)",
     .family = Family::kRotary,
     .acts_on = "rotates queries and keys",
     .width_label = "head dim",
     .vector_per_position = true,
     .decays = false,
     .vector_symbol = "",
     .default_versus = &DefaultVersusRope,
     .check_describe = &CheckDescribeRope,
     .check_flags = &CheckFlagsRope},
    {.scheme = Scheme::kAlibi,
     .name = "alibi",
     .window_label = "ALiBi (bias)",
     .family = Family::kBias,
     .acts_on = "adds a bias to the attention logits",
     .width_label = "d_model",
     .vector_per_position = false,
     .decays = false,
     .vector_symbol = "",
     .default_versus = &DefaultVersusAlibi,
     .check_describe = &CheckDescribeByName,
     .check_flags = &NoFlags},
    {.scheme = Scheme::kT5,
     .name = "t5",
     .window_label = "T5 buckets (bias)",
     .family = Family::kBias,
     .acts_on = "adds a bias to the attention logits",
     .width_label = "d_model",
     .vector_per_position = false,
     .decays = false,
     .vector_symbol = "",
     .default_versus = &DefaultVersusT5,
     .check_describe = &CheckDescribeByName,
     .check_flags = &NoFlags},
    {.scheme = Scheme::kXpos,
     .name = "xpos",
     .window_label = "xPos (rotates + decays)",
     .family = Family::kRotary,
     .acts_on = "rotates queries and keys and decays their product",
     .width_label = "head dim",
     .vector_per_position = false,
     .decays = true,
     .vector_symbol = "",
     .default_versus = &DefaultVersusXpos,
     .check_describe = &CheckDescribeByName,
     .check_flags = &NoFlags},
    // NoPE: an added vector that is always zero (encoding/nope.h); no vector_symbol, so the
    // formulas show the content alone.
    {.scheme = Scheme::kNope,
     .name = "none",
     .window_label = "none (NoPE)",
     .family = Family::kAdded,
     .acts_on = "adds nothing: no position reaches attention but through a causal mask",
     .width_label = "d_model",
     .vector_per_position = false,
     .decays = false,
     .vector_symbol = "",
     .default_versus = &DefaultVersusNope,
     .check_describe = &CheckDescribeByName,
     .check_flags = &NoFlags},
    // Three position ids per token (t, h, w): its table is a function of the token, not of one
    // position, so it has no vector per position to compare along an offset.
    {.scheme = Scheme::kMrope,
     .name = "mrope",
     .window_label = "M-RoPE (rotates q, k by t, h, w)",
     .family = Family::kRotary,
     .acts_on = "rotates queries and keys by three position ids per token",
     .width_label = "head dim",
     .vector_per_position = false,
     .decays = false,
     .vector_symbol = "",
     .default_versus = &DefaultVersusMrope,
     .check_describe = &CheckDescribeByName,
     .check_flags = &NoFlags},
};

inline constexpr size_t kSchemeCount = std::size(kSchemeDescriptors);

// Every scheme has its entry, at its enum's index.
constexpr bool SchemeDescriptorsCoverEverySchemeInOrder() {
  if (kSchemeCount != std::variant_size_v<SchemeParams>) return false;
  for (size_t i = 0; i < kSchemeCount; ++i) {
    if (static_cast<size_t>(kSchemeDescriptors[i].scheme) != i) return false;
  }
  return true;
}
static_assert(SchemeDescriptorsCoverEverySchemeInOrder(),
              "kSchemeDescriptors needs one entry per alternative of SchemeParams, in enum order");

constexpr const SchemeDescriptor& DescriptorOf(Scheme s) {
  return kSchemeDescriptors[static_cast<size_t>(s)];
}

// Bit per scheme: which schemes a parameter field or a view applies to.
inline constexpr unsigned SchemeBit(Scheme s) {
  return 1u << static_cast<unsigned>(s);
}
// The schemes whose descriptor `pred` accepts, as SchemeBit()s.
template <typename Pred>
constexpr unsigned SchemesWhere(Pred pred) {
  unsigned bits = 0;
  for (const SchemeDescriptor& d : kSchemeDescriptors) {
    if (pred(d)) bits |= SchemeBit(d.scheme);
  }
  return bits;
}
inline constexpr unsigned kAllSchemes = SchemesWhere([](const SchemeDescriptor&) { return true; });
constexpr unsigned SchemesOf(Family f) {
  return SchemesWhere([f](const SchemeDescriptor& d) { return d.family == f; });
}

}  // namespace pe
