#include "encoding/encoding_params.h"

#include <array>
#include <utility>

#include "encoding/scheme_descriptor.h"

namespace pe {
namespace {

// One table per enum: value and its command-line name.
template <typename E, size_t N>
using Names = std::array<std::pair<E, std::string_view>, N>;

constexpr Names<PeVariant, 3> kVariants{
    {{PeVariant::kPaper, "paper"}, {PeVariant::kT2t, "t2t"}, {PeVariant::kTfText, "tf-text"}}};
constexpr Names<WaveOrder, 2> kOrders{
    {{WaveOrder::kSinFirst, "sin-first"}, {WaveOrder::kCosFirst, "cos-first"}}};
constexpr Names<RopePairing, 2> kPairings{
    {{RopePairing::kHalf, "half"}, {RopePairing::kInterleaved, "interleaved"}}};
constexpr Names<RopeScaling, 7> kScalings{{{RopeScaling::kNone, "none"},
                                           {RopeScaling::kLinear, "linear"},
                                           {RopeScaling::kNtk, "ntk"},
                                           {RopeScaling::kDynamicNtk, "dynamic-ntk"},
                                           {RopeScaling::kYarn, "yarn"},
                                           {RopeScaling::kLlama3, "llama3"},
                                           {RopeScaling::kLongrope, "longrope"}}};
constexpr Names<RopePart, 3> kParts{
    {{RopePart::kCos, "cos"}, {RopePart::kSin, "sin"}, {RopePart::kAngle, "angle"}}};

constexpr Names<AlibiMode, 2> kAlibiModes{
    {{AlibiMode::kCausal, "causal"}, {AlibiMode::kSymmetric, "symmetric"}}};
constexpr Names<T5Direction, 2> kT5Directions{
    {{T5Direction::kBidirectional, "bidirectional"}, {T5Direction::kCausal, "causal"}}};
constexpr Names<XposSide, 2> kXposSides{{{XposSide::kQuery, "query"}, {XposSide::kKey, "key"}}};
constexpr Names<XposPositions, 2> kXposPositions{
    {{XposPositions::kAbsolute, "absolute"}, {XposPositions::kCentred, "centred"}}};
constexpr Names<MropeLayout, 2> kMropeLayouts{
    {{MropeLayout::kChunked, "chunked"}, {MropeLayout::kInterleaved, "interleaved"}}};

template <typename E, size_t N>
std::string_view NameOf(const Names<E, N>& names, E value) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  return "?";
}

template <typename E, size_t N>
std::optional<E> Parse(const Names<E, N>& names, std::string_view text) {
  for (const auto& [v, name] : names) {
    if (name == text) return v;
  }
  return std::nullopt;
}

}  // namespace

std::string_view SchemeName(Scheme v) {
  // A value past the last scheme names nothing (the field table walks the names until one
  // does not parse back).
  if (static_cast<size_t>(v) >= kSchemeCount) return {};
  return DescriptorOf(v).name;
}
std::optional<Scheme> ParseScheme(std::string_view s) {
  for (const SchemeDescriptor& d : kSchemeDescriptors) {
    if (d.name == s) return d.scheme;
  }
  return std::nullopt;
}
std::string_view VariantName(PeVariant v) {
  return NameOf(kVariants, v);
}
std::optional<PeVariant> ParseVariant(std::string_view s) {
  return Parse(kVariants, s);
}
std::string_view WaveOrderName(WaveOrder v) {
  return NameOf(kOrders, v);
}
std::optional<WaveOrder> ParseWaveOrder(std::string_view s) {
  return Parse(kOrders, s);
}
std::string_view LearnedInitName(LearnedInit v) {
  return EmbeddingInitName(v);
}
std::optional<LearnedInit> ParseLearnedInit(std::string_view s) {
  return ParseEmbeddingInit(s);
}
std::string_view RopePairingName(RopePairing v) {
  return NameOf(kPairings, v);
}
std::optional<RopePairing> ParseRopePairing(std::string_view s) {
  return Parse(kPairings, s);
}
std::string_view RopeScalingName(RopeScaling v) {
  return NameOf(kScalings, v);
}
std::optional<RopeScaling> ParseRopeScaling(std::string_view s) {
  return Parse(kScalings, s);
}
std::string_view RopePartName(RopePart v) {
  return NameOf(kParts, v);
}
std::optional<RopePart> ParseRopePart(std::string_view s) {
  return Parse(kParts, s);
}

std::string_view AlibiModeName(AlibiMode v) {
  return NameOf(kAlibiModes, v);
}
std::optional<AlibiMode> ParseAlibiMode(std::string_view s) {
  return Parse(kAlibiModes, s);
}
std::string_view T5DirectionName(T5Direction v) {
  return NameOf(kT5Directions, v);
}
std::optional<T5Direction> ParseT5Direction(std::string_view s) {
  return Parse(kT5Directions, s);
}
std::string_view XposSideName(XposSide v) {
  return NameOf(kXposSides, v);
}
std::optional<XposSide> ParseXposSide(std::string_view s) {
  return Parse(kXposSides, s);
}
std::string_view XposPositionsName(XposPositions v) {
  return NameOf(kXposPositions, v);
}
std::optional<XposPositions> ParseXposPositions(std::string_view s) {
  return Parse(kXposPositions, s);
}

std::string_view MropeLayoutName(MropeLayout v) {
  return NameOf(kMropeLayouts, v);
}
std::optional<MropeLayout> ParseMropeLayout(std::string_view s) {
  return Parse(kMropeLayouts, s);
}

}  // namespace pe
