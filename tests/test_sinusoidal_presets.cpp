// The named sinusoidal presets: every one applies, names are unique command-line words, unknown
// names are refused with the list, and the few settings that set them apart are the ones their
// sources use. (Their tables are checked against numpy re-implementations of each source by
// check_sinusoidal_presets.py.)
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "encoding/sinusoidal_presets.h"

namespace pe {
namespace {

EncodingParams Shape(int64_t d, int64_t len) {
  EncodingParams p;
  p.d_model = d;
  p.max_len = len;
  return p;
}

EncodingParams Applied(std::string_view name, int64_t d = 128, int64_t len = 50) {
  EncodingParams p = Shape(d, len);
  const Status s = ApplySinusoidalPreset(name, p);
  EXPECT_TRUE(s.ok()) << name;
  return p;
}

TEST(SinusoidalPresets, EveryPresetAppliesAndKeepsTheShape) {
  ASSERT_FALSE(SinusoidalPresets().empty());
  for (const SinusoidalPreset& preset : SinusoidalPresets()) {
    EncodingParams p = Shape(17, 33);
    p.scheme = LearnedParams{};  // a preset switches the scheme, whatever it was
    p.offset = -5;
    const Status s = ApplySinusoidalPreset(preset.name, p);
    ASSERT_TRUE(s.ok()) << preset.name << ": " << s.message();
    EXPECT_EQ(p.kind(), Scheme::kSinusoidal) << preset.name;
    EXPECT_EQ(p.d_model, 17) << preset.name;
    EXPECT_EQ(p.max_len, 33) << preset.name;
    EXPECT_GE(p.offset, 0) << preset.name;
    const SinusoidalParams& s_params = p.sinusoidal();
    EXPECT_EQ(s_params.base, 10000.0) << preset.name;
    EXPECT_EQ(s_params.min_timescale, 1.0) << preset.name;
    EXPECT_GT(s_params.output_scale, 0.0) << preset.name;
    EXPECT_LE(s_params.output_scale, 1.0) << preset.name;
  }
}

TEST(SinusoidalPresets, ApplyingTwiceGivesTheSameParams) {
  for (const SinusoidalPreset& preset : SinusoidalPresets()) {
    EncodingParams once = Applied(preset.name);
    EncodingParams twice = once;
    SinusoidalParams& s = twice.sinusoidal();
    s.base = 500.0;  // stray settings from before are replaced, not kept
    s.min_timescale = 3.0;
    s.output_scale = 7.0;
    ASSERT_TRUE(ApplySinusoidalPreset(preset.name, twice).ok());
    EXPECT_EQ(once, twice) << preset.name;
  }
}

TEST(SinusoidalPresets, NamesAreUniqueLowerCaseWordsWithDashes) {
  std::set<std::string_view> names, labels;
  for (const SinusoidalPreset& preset : SinusoidalPresets()) {
    EXPECT_TRUE(names.insert(preset.name).second) << "duplicate name " << preset.name;
    EXPECT_TRUE(labels.insert(preset.label).second) << "duplicate label " << preset.label;
    ASSERT_FALSE(preset.name.empty());
    EXPECT_NE(preset.name.front(), '-') << preset.name;
    EXPECT_NE(preset.name.back(), '-') << preset.name;
    for (char c : preset.name) {
      EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')
          << preset.name << " has '" << c << "'";
    }
    EXPECT_FALSE(preset.label.empty()) << preset.name;
    EXPECT_NE(preset.source.find('/'), std::string_view::npos)
        << preset.name << ": source should name a repository";
    EXPECT_FALSE(preset.note.empty()) << preset.name;
    EXPECT_EQ(preset.note.find('\n'), std::string_view::npos) << preset.name;
  }
}

TEST(SinusoidalPresets, UnknownNameIsRefusedWithTheValueAndTheKnownNames) {
  EncodingParams p = Shape(64, 10);
  p.offset = 4;
  const EncodingParams before = p;
  for (std::string_view bad : {"fairseqq", "", "Fairseq", "paper"}) {
    const Status s = ApplySinusoidalPreset(bad, p);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.error().kind, Error::Kind::kInvalidArgument);
    std::string quoted(1, '"');
    quoted.append(bad).push_back('"');
    EXPECT_NE(s.message().find(quoted), std::string::npos) << s.message();
    for (const SinusoidalPreset& preset : SinusoidalPresets()) {
      EXPECT_NE(s.message().find(std::string(preset.name)), std::string::npos)
          << s.message() << " does not list " << preset.name;
    }
    EXPECT_EQ(p, before) << "a refused preset must leave the params alone";
  }
}

TEST(SinusoidalPresets, TheSettingsThatSetThemApart) {
  struct Expect {
    std::string_view name;
    PeVariant variant;
    WaveOrder order;
    int64_t offset;
  };
  const Expect expected[] = {
      {"annotated-transformer", PeVariant::kPaper, WaveOrder::kSinFirst, 0},
      {"pytorch-tutorial", PeVariant::kPaper, WaveOrder::kSinFirst, 0},
      {"distilbert", PeVariant::kPaper, WaveOrder::kSinFirst, 0},
      {"tensorflow-tutorial", PeVariant::kTfText, WaveOrder::kSinFirst, 0},
      {"marian", PeVariant::kTfText, WaveOrder::kSinFirst, 0},
      {"sockeye", PeVariant::kTfText, WaveOrder::kSinFirst, 0},
      {"x-transformers", PeVariant::kTfText, WaveOrder::kSinFirst, 0},
      {"tensor2tensor", PeVariant::kT2t, WaveOrder::kSinFirst, 0},
      {"fairseq", PeVariant::kT2t, WaveOrder::kSinFirst, 2},
      {"whisper", PeVariant::kT2t, WaveOrder::kSinFirst, 0},
      {"opennmt-tf", PeVariant::kT2t, WaveOrder::kSinFirst, 1},
      {"musicgen", PeVariant::kT2t, WaveOrder::kCosFirst, 0},
      {"diffusers-flip", PeVariant::kT2t, WaveOrder::kCosFirst, 0},
  };
  EXPECT_EQ(SinusoidalPresets().size(), std::size(expected));
  for (const Expect& e : expected) {
    const EncodingParams p = Applied(e.name);
    EXPECT_EQ(p.sinusoidal().variant, e.variant) << e.name;
    EXPECT_EQ(p.sinusoidal().order, e.order) << e.name;
    EXPECT_EQ(p.offset, e.offset) << e.name;
    if (e.name != "x-transformers") {
      EXPECT_EQ(p.sinusoidal().output_scale, 1.0) << e.name;
    }
  }
}

TEST(SinusoidalPresets, XTransformersScalesByOneOverRootD) {
  for (int64_t d : {2, 8, 17, 128, 1000}) {
    const EncodingParams p = Applied("x-transformers", d);
    EXPECT_DOUBLE_EQ(p.sinusoidal().output_scale, 1.0 / std::sqrt(static_cast<double>(d))) << d;
  }
}

}  // namespace
}  // namespace pe
