// The parameters of every positional scheme: a shape shared by all of them (width, rows, first
// position) and one plain struct per scheme in a std::variant.
//
// The shape lives outside the variant on purpose: switching the scheme in the window keeps the
// table's d, L and first position, as a user expects, and every view sizes itself from the same
// three numbers whatever the scheme.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "base/initializers.h"
#include "base/table_ref.h"

namespace pe {

// ---- sinusoidal ------------------------------------------------------------------------------

// Which column layout and frequencies a sinusoidal table uses (positional_encoding.h has the
// formulas): interleaved (paper), [sin | cos] halves with tensor2tensor's frequencies (t2t),
// [sin | cos] halves with the paper's frequencies (tf-text).
enum class PeVariant { kPaper, kT2t, kTfText };
// Which wave comes first in each pair (interleaved) or half (concatenated): the paper and most
// code put sin first; MusicGen and diffusers' flip_sin_to_cos put cos first.
enum class WaveOrder { kSinFirst, kCosFirst };

struct SinusoidalParams {
  PeVariant variant = PeVariant::kPaper;
  WaveOrder order = WaveOrder::kSinFirst;
  double base = 10000.0;       // the max timescale (tensor2tensor's max_timescale)
  double min_timescale = 1.0;  // tensor2tensor / Flax / TF Model Garden's min_timescale
  double output_scale = 1.0;   // multiplies every value (x-transformers uses d^-0.5)
  bool operator==(const SinusoidalParams&) const = default;
};

// ---- learned absolute table ------------------------------------------------------------------

// How a learned table starts: one of the embedding initialisers (base/initializers.h); GPT-2
// and BERT's N(0, 0.02^2) by default.
using LearnedInit = EmbeddingInit;

struct LearnedParams {
  LearnedInit init = LearnedInit::kNormal002;
  uint64_t seed = 0;
  // A trained table loaded from a file (--positions-table, (rows >= offset + max_len, d_model));
  // empty: the seeded table above.
  TableRef table;
  bool operator==(const LearnedParams&) const = default;
};

// ---- rotary (RoPE) ---------------------------------------------------------------------------

// How the rotated dimensions pair up: half (HF rotate_half: dim i with i + d_rot/2; HF Llama,
// GPT-NeoX) or interleaved (dims 2i and 2i+1: Meta's Llama, GPT-J, RoFormer).
enum class RopePairing { kHalf, kInterleaved };
// The context-extension scalings of HF config.json's rope_scaling.
enum class RopeScaling { kNone, kLinear, kNtk, kDynamicNtk, kYarn, kLlama3, kLongrope };
// Which table the heatmap and the table exports show: cos, sin (both (L, d_rot), in the
// pairing's layout, attention factor applied) or the angle p * theta_i, (L, d_rot / 2).
enum class RopePart { kCos, kSin, kAngle };

struct RopeParams {
  double theta = 10000.0;  // rope_theta
  RopePairing pairing = RopePairing::kHalf;
  double rotary_fraction = 1.0;  // partial_rotary_factor: d_rot = int(d_model * fraction)
  RopeScaling scaling = RopeScaling::kNone;
  double factor = 8.0;                     // rope_scaling.factor (>= 1; unused without a scaling)
  int64_t original_max_len = 8192;         // original_max_position_embeddings
  double beta_fast = 32.0;                 // YaRN
  double beta_slow = 1.0;                  // YaRN
  std::optional<double> attention_factor;  // YaRN; none: 0.1 ln(factor) + 1
  double low_freq_factor = 1.0;            // Llama 3
  double high_freq_factor = 4.0;           // Llama 3
  int64_t sequence_len = 0;  // dynamic NTK's current length; 0: the table's last position + 1
  RopePart part = RopePart::kCos;
  // LongRoPE (Phi-3, Phi-3.5, Phi-4-mini): one divisor of each pair's frequency per list,
  // (d_rot / 2) each; the long list when the sequence is longer than original_max_len. Empty:
  // not given (refused for longrope). max_position_embeddings / original_max_len is the s of
  // the default attention factor.
  std::vector<double> short_factor;
  std::vector<double> long_factor;
  int64_t max_position_embeddings = 131072;
  // YaRN's find_correction_range: floor the fast end and ceil the slow end (HF's default);
  // false keeps the fractional ends (GPT-OSS's config sets truncate false).
  bool yarn_truncate = true;
  // YaRN's mscale and mscale_all_dim (DeepSeek): when both are non-zero (HF tests them for
  // truth, so 0 is "not given"), the attention factor is get_mscale(s, mscale) /
  // get_mscale(s, mscale_all_dim), get_mscale(s, m) = 0.1 m ln s + 1 (1 for s <= 1).
  double mscale = 0.0;
  double mscale_all_dim = 0.0;
  // Proportional RoPE (p-RoPE; Gemma 4's "proportional" rope type): the first
  // floor(proportion * d / 2) pairs turn at theta^(-2i/d) over the WHOLE head dim d, the others
  // have frequency 0 (cos 1, sin 0); the table stays d wide. In (0, 1]; 1: every pair turns.
  double proportion = 1.0;
  bool operator==(const RopeParams&) const = default;
};

// ---- attention biases (ALiBi, T5) and xPos ------------------------------------------------------

// ALiBi (Press et al. 2022): a per-head linear penalty on the query-key distance.
enum class AlibiMode { kCausal, kSymmetric };  // -m (i - j) for j <= i, or -m |i - j|
struct AlibiParams {
  int64_t heads = 8;
  int64_t head = 0;  // the head whose bias the table shows
  AlibiMode mode = AlibiMode::kCausal;
  double max_bias = 8.0;  // MPT's alibi_bias_max: slopes 2^(-max_bias k / n) for n = 2^j heads
  bool operator==(const AlibiParams&) const = default;
};

// T5's relative position buckets (HF T5Attention._relative_position_bucket) with a per-head
// bias per bucket (learned in real models; seeded N(0, 1) here).
enum class T5Direction { kBidirectional, kCausal };
struct T5Params {
  int64_t heads = 8;
  int64_t head = 0;
  int64_t buckets = 32;
  int64_t max_distance = 128;
  T5Direction direction = T5Direction::kBidirectional;
  uint64_t seed = 0;
  // A trained relative_attention_bias loaded from a file (--positions-table, (buckets, heads));
  // empty: the seeded biases.
  TableRef bias;
  bool operator==(const T5Params&) const = default;
};

// xPos (Sun et al. 2023, torchscale's XPOS): RoPE in the interleaved pairing times a per-pair
// decay zeta_i^(n / scale_base) on queries and zeta_i^(-n / scale_base) on keys.
enum class XposSide { kQuery, kKey };
// The n of the decay: the absolute position (the paper's formula), or the position minus
// ceil((max_len + offset) / 2) as torchscale's XPOS.forward centres it (min_pos). The rotation
// uses the absolute position either way; the shift multiplies every query pair by one constant
// and every key pair by its inverse, so q . k is the same (xpos.h).
enum class XposPositions { kAbsolute, kCentred };
struct XposParams {
  double theta = 10000.0;
  double scale_base = 512.0;
  RopePart part = RopePart::kCos;  // cos / sin times the decay, or the angle
  XposSide side = XposSide::kQuery;
  XposPositions positions = XposPositions::kAbsolute;
  bool operator==(const XposParams&) const = default;
};

// ---- no positional encoding (NoPE) ------------------------------------------------------------

// A layer with no positional treatment (Kazemnejad et al. 2023, "The Impact of Positional
// Encoding on Length Generalization in Transformers"; Llama 4's and SmolLM3's every fourth
// layer): nothing is added, rotated or biased. Its table is all zeros, (max_len, d_model): what
// is added to the token embeddings. Only a causal mask tells positions apart.
struct NopeParams {
  bool operator==(const NopeParams&) const = default;
};

// ---- multimodal RoPE (M-RoPE: Qwen2-VL, Qwen2.5-VL, Qwen3-VL) ----------------------------------

// Which pairs take which of a token's three position ids (t, h, w): chunked (Qwen2-VL and
// Qwen2.5-VL: the first T pairs t, the next H pairs h, the last W pairs w) or interleaved
// (Qwen3-VL: h on pairs 1, 4, 7, ... below 3 H, w on pairs 2, 5, 8, ... below 3 W, t on the
// rest). encoding/mrope.h has the rules and their sources.
enum class MropeLayout { kChunked, kInterleaved };

// An image of t x h x w patches (after any spatial merge: the grid as given) whose first token is
// token `at` of the sequence; its t * h * w tokens follow in (t, h, w) row-major order.
struct MropeImage {
  int64_t at = 0;
  int64_t t = 1, h = 1, w = 1;
  bool operator==(const MropeImage&) const = default;
};

struct MropeParams {
  double theta = 1000000.0;  // rope_theta (Qwen2-VL's 1e6)
  RopePairing pairing = RopePairing::kHalf;
  // mrope_section: pairs per axis (t, h, w), summing to d_rot / 2. None ("auto"): the layout's
  // model's proportions for the head dim (MropeSection in encoding/mrope.h: Qwen2-VL's
  // [16, 24, 24] chunked, Qwen3-VL's [24, 20, 20] interleaved at head dim 128), so the head dim
  // can change without a section to match.
  std::optional<std::array<int64_t, 3>> section;
  MropeLayout layout = MropeLayout::kChunked;
  std::vector<MropeImage> images;  // in the order given; none: a text-only sequence
  RopePart part = RopePart::kCos;
  bool operator==(const MropeParams&) const = default;
};

// ---- all of them -----------------------------------------------------------------------------

enum class Scheme { kSinusoidal, kLearned, kRope, kAlibi, kT5, kXpos, kNope, kMrope };
inline constexpr Scheme kAllSchemeKinds[] = {Scheme::kSinusoidal, Scheme::kLearned, Scheme::kRope,
                                             Scheme::kAlibi,      Scheme::kT5,      Scheme::kXpos,
                                             Scheme::kNope,       Scheme::kMrope};
using SchemeParams = std::variant<SinusoidalParams, LearnedParams, RopeParams, AlibiParams,
                                  T5Params, XposParams, NopeParams, MropeParams>;

struct EncodingParams {
  int64_t d_model = 128;  // table width: the model width, or the head dimension for RoPE
  int64_t max_len = 100;  // rows
  int64_t offset = 0;     // position of row 0 (may be negative for sinusoidal tables)
  SchemeParams scheme;    // default: sinusoidal, paper layout
  bool operator==(const EncodingParams&) const = default;

  Scheme kind() const { return static_cast<Scheme>(scheme.index()); }
  // The scheme's parameters; the caller checks kind() first.
  const SinusoidalParams& sinusoidal() const { return std::get<SinusoidalParams>(scheme); }
  SinusoidalParams& sinusoidal() { return std::get<SinusoidalParams>(scheme); }
  const LearnedParams& learned() const { return std::get<LearnedParams>(scheme); }
  LearnedParams& learned() { return std::get<LearnedParams>(scheme); }
  const RopeParams& rope() const { return std::get<RopeParams>(scheme); }
  RopeParams& rope() { return std::get<RopeParams>(scheme); }
  const AlibiParams& alibi() const { return std::get<AlibiParams>(scheme); }
  AlibiParams& alibi() { return std::get<AlibiParams>(scheme); }
  const T5Params& t5() const { return std::get<T5Params>(scheme); }
  T5Params& t5() { return std::get<T5Params>(scheme); }
  const XposParams& xpos() const { return std::get<XposParams>(scheme); }
  XposParams& xpos() { return std::get<XposParams>(scheme); }
  const MropeParams& mrope() const { return std::get<MropeParams>(scheme); }
  MropeParams& mrope() { return std::get<MropeParams>(scheme); }
};

// Names as the command line spells them, and back.
// "sinusoidal", "learned", "rope", "alibi", "t5", "xpos", "none", "mrope"
std::string_view SchemeName(Scheme scheme);
std::optional<Scheme> ParseScheme(std::string_view name);
std::string_view VariantName(PeVariant variant);  // "paper", "t2t", "tf-text"
std::optional<PeVariant> ParseVariant(std::string_view name);
std::string_view WaveOrderName(WaveOrder order);  // "sin-first", "cos-first"
std::optional<WaveOrder> ParseWaveOrder(std::string_view name);
// "normal-0.02", "normal-1", "normal-scaled", "truncated-normal" (EmbeddingInitName)
std::string_view LearnedInitName(LearnedInit init);
std::optional<LearnedInit> ParseLearnedInit(std::string_view name);
std::string_view RopePairingName(RopePairing pairing);  // "half", "interleaved"
std::optional<RopePairing> ParseRopePairing(std::string_view name);
// "none", "linear", "ntk", "dynamic-ntk", "yarn", "llama3", "longrope"
std::string_view RopeScalingName(RopeScaling scaling);
std::optional<RopeScaling> ParseRopeScaling(std::string_view name);
std::string_view RopePartName(RopePart part);  // "cos", "sin", "angle"
std::optional<RopePart> ParseRopePart(std::string_view name);
std::string_view AlibiModeName(AlibiMode mode);  // "causal", "symmetric"
std::optional<AlibiMode> ParseAlibiMode(std::string_view name);
std::string_view T5DirectionName(T5Direction d);  // "bidirectional", "causal"
std::optional<T5Direction> ParseT5Direction(std::string_view name);
std::string_view XposSideName(XposSide side);  // "query", "key"
std::optional<XposSide> ParseXposSide(std::string_view name);
std::string_view XposPositionsName(XposPositions positions);  // "absolute", "centred"
std::optional<XposPositions> ParseXposPositions(std::string_view name);
std::string_view MropeLayoutName(MropeLayout layout);  // "chunked", "interleaved"
std::optional<MropeLayout> ParseMropeLayout(std::string_view name);

}  // namespace pe
