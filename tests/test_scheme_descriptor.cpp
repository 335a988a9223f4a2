// The scheme descriptors (encoding/scheme_descriptor.h) against the rest of the program: every
// scheme of the enum has its entry, the encodings agree with what their entry says, every view
// an entry's facts open builds a figure, and every parameter field and view names only schemes
// that exist.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <variant>

#include "encoding/encoding.h"
#include "encoding/rope.h"
#include "encoding/scheme_descriptor.h"
#include "model/param_fields.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

// Every alternative of SchemeParams, by index: the enum's values, whether or not any list of
// them was kept up to date.
std::vector<Scheme> EverySchemeOfTheVariant() {
  std::vector<Scheme> out;
  for (size_t i = 0; i < std::variant_size_v<SchemeParams>; ++i) {
    out.push_back(static_cast<Scheme>(i));
  }
  return out;
}

ModelParams SmallModel(Scheme s) {
  ModelParams m;
  m.pe.d_model = 8;
  m.pe.max_len = 12;
  SetScheme(m, s);
  // An image, so the views of a patch (mrope-neighbours) have one to show.
  if (s == Scheme::kMrope) m.pe.mrope().images = {{2, 1, 2, 3}};
  return m;
}

TEST(SchemeDescriptor, EverySchemeHasItsEntryAtItsIndex) {
  ASSERT_EQ(kSchemeCount, std::variant_size_v<SchemeParams>);
  ASSERT_EQ(std::size(kAllSchemeKinds), kSchemeCount);
  std::set<std::string_view> names;
  for (Scheme s : EverySchemeOfTheVariant()) {
    const SchemeDescriptor& d = DescriptorOf(s);
    EXPECT_EQ(d.scheme, s);
    ASSERT_FALSE(d.name.empty());
    EXPECT_EQ(d.name.data()[d.name.size()], '\0') << "the window passes names as C strings";
    EXPECT_EQ(d.window_label.data()[d.window_label.size()], '\0');
    EXPECT_EQ(d.width_label.data()[d.width_label.size()], '\0');
    EXPECT_TRUE(names.insert(d.name).second) << d.name << " named twice";
    EXPECT_EQ(SchemeName(s), d.name);
    EXPECT_EQ(ParseScheme(d.name), s);
    EXPECT_NE(d.default_versus, nullptr);
    EXPECT_NE(d.check_describe, nullptr);
    EXPECT_NE(d.check_flags, nullptr);
    EXPECT_NE(kAllSchemes & SchemeBit(s), 0u);
  }
  // Past the last scheme there is no name (the field table's list of choices stops there).
  EXPECT_EQ(SchemeName(static_cast<Scheme>(kSchemeCount)), "");
  EXPECT_EQ(kAllSchemes, (1u << kSchemeCount) - 1);
}

// What the entry says is what the encoding does: its family, its width label, and the rotary
// pairs for the rotary family alone.
TEST(SchemeDescriptor, EncodingsAgreeWithTheirEntries) {
  for (Scheme s : EverySchemeOfTheVariant()) {
    SCOPED_TRACE(std::string(SchemeName(s)));
    const ModelParams m = SmallModel(s);
    Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
    ASSERT_TRUE(e.ok()) << e.message();
    const SchemeDescriptor& d = DescriptorOf(s);
    EXPECT_EQ(e.value()->family(), d.family);
    EXPECT_EQ(e.value()->WidthLabel(), d.family == Family::kRotary ? "head dim" : "d_model");
    // M-RoPE turns its pairs by three ids per token, not by one position times a frequency,
    // so it has no pairs for the closed forms; its scores go through RotateQuery / RotateKey.
    EXPECT_EQ(e.value()->rotary_pairs().empty(),
              d.family != Family::kRotary || s == Scheme::kMrope);
    EXPECT_NE(d.check_describe(m.pe), "");
  }
}

// RoPE's pairs are rope.h's frequencies after the scaling, in the pairing's dims, with YaRN's
// attention factor; xPos's pairs are interleaved and decay.
TEST(SchemeDescriptor, RotaryPairsAreTheFrequenciesOfRopeH) {
  ModelParams m = SmallModel(Scheme::kRope);
  m.pe.d_model = 16;
  m.pe.rope().scaling = RopeScaling::kYarn;
  m.pe.rope().original_max_len = 4;
  const EncodingPtr e = MakeEncoding(m.pe).value();
  const RopeFrequencies f = ComputeRopeFrequencies(m.pe);
  ASSERT_NE(e->frequencies(), nullptr);
  ASSERT_EQ(e->rotary_pairs().size(), f.pairs.size());
  for (size_t i = 0; i < f.pairs.size(); ++i) {
    const RotaryPair& p = e->rotary_pairs()[i];
    EXPECT_EQ(p.frequency, f.pairs[i].scaled);
    EXPECT_EQ(p.amplitude, f.attention_factor);
    EXPECT_EQ(p.dim_a, static_cast<int64_t>(i));
    EXPECT_EQ(p.dim_b, static_cast<int64_t>(i + f.pairs.size()));
    EXPECT_EQ(p.decay, 0.0);
  }
  EXPECT_NE(e->ScalingText().find("yarn x8"), std::string::npos) << e->ScalingText();

  const EncodingPtr x = MakeEncoding(SmallModel(Scheme::kXpos).pe).value();
  EXPECT_EQ(x->frequencies(), nullptr);
  for (const RotaryPair& p : x->rotary_pairs()) {
    EXPECT_EQ(p.dim_a, 2 * p.index);
    EXPECT_EQ(p.dim_b, 2 * p.index + 1);
    EXPECT_GT(p.decay, 0.0);  // zeta_i < 1: the product decays along n - m
  }
}

// Every view a scheme's facts open builds a figure for a small table, and refuses the others
// with a message naming the scheme.
TEST(SchemeDescriptor, ApplicableViewsBuildAFigure) {
  for (Scheme s : EverySchemeOfTheVariant()) {
    const ModelParams m = SmallModel(s);
    for (const ViewEntry& v : Views()) {
      SCOPED_TRACE(std::string(SchemeName(s)) + " / " + std::string(v.name));
      if (!ViewApplies(v.kind, m.pe)) {
        Status why = CheckViewApplies(v.kind, m.pe);
        ASSERT_FALSE(why.ok());
        EXPECT_NE(why.message().find(std::string(SchemeName(s))), std::string::npos);
        continue;
      }
      if (v.kind == ViewKind::kCheck) continue;   // compares a loaded file: none here
      if (v.kind == ViewKind::kLayers) continue;  // draws a model: test_layers_view.cpp
      // As pages: the walkthrough is a handout of one page per step.
      Result<std::vector<Figure>> pages =
          BuildViewPages(v.kind, ParamsViewReads(m, v.kind), ViewSelection{}, FigureSize{});
      ASSERT_TRUE(pages.ok()) << pages.message();
      EXPECT_FALSE(pages.value().empty());
    }
  }
}

// A field or a view names only schemes that exist, and at least one.
TEST(SchemeDescriptor, FieldsAndViewsNameExistingSchemes) {
  for (const ParamField& f : ParamFields()) {
    SCOPED_TRACE(std::string(f.flag));
    EXPECT_NE(f.schemes, 0u);
    EXPECT_EQ(f.schemes & ~kAllSchemes, 0u);
  }
  for (const ViewEntry& v : Views()) {
    SCOPED_TRACE(std::string(v.name));
    EXPECT_NE(v.schemes, 0u);
    EXPECT_EQ(v.schemes & ~kAllSchemes, 0u);
  }
}

// The compare view's default B is a --versus every scheme accepts for itself.
TEST(SchemeDescriptor, DefaultVersusApplies) {
  for (Scheme s : EverySchemeOfTheVariant()) {
    const ModelParams m = SmallModel(s);
    const std::string versus = DescriptorOf(s).default_versus(m.pe);
    Result<ModelParams> b = ApplyVersus(m, versus);
    EXPECT_TRUE(b.ok()) << SchemeName(s) << ": " << versus << ": " << b.message();
  }
}

}  // namespace
}  // namespace pe
