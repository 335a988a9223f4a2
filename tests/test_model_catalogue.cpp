// The built-in catalogue against values worked independently from each model's own reference
// code: tests/model_golden.inc, written by tests/model_reference.py (a numpy port of HF
// transformers' modeling_rope_utils.py scalings, DeepSeek-V3's yarn_get_mscale and softmax
// scale, Llama 4's interleaved rotation and attention temperature, Qwen2-VL / Qwen3-VL's
// M-RoPE, GPT-J's rotate_every_two, BLOOM's build_alibi_tensor, MPT's gen_slopes, T5's
// _relative_position_bucket, GPT-NeoX's rotary_pct and Whisper's sinusoids; each function there
// names its source). It reads assets/models/*.json itself, never this program's reader.
//
// For every catalogue model: CatalogueModel(name) gives the golden number of layers and the
// golden layer pattern (which layers share which treatment); every layer, copied into
// ModelParams by ApplyLayer, has the golden scheme, width, window, softmax scale and
// temperature; and the encoding built from it has the golden frequencies, attention factor,
// slopes, buckets and table cells.
//
// Tolerances:
//  - inverse frequencies: relative 1e-14. Both sides work in float64 but in a different order
//    (HF: 1 / base^(2i/d), blends as (1 - r) w / s + r w); a few ulp of double apart.
//  - cos / sin "exact" (float64 angle p * w_i, cos times the attention factor, rounded once to
//    float32): 1 float32 ulp. PE Explorer computes the same in double and rounds once, so only
//    the last bit of a value on a rounding boundary may differ.
//  - cos / sin "hf32" (float32 w_i times float32 p, float32 cos, times the factor, as HF's
//    rotary forward runs): |p w_i| * 2^-21 + 2 ulp. The float32 angle carries up to about
//    4 roundings of 2^-24 relative (pow, division, the product), so at position p the angle is
//    off by up to |p w_i| 2^-22, which moves cos and sin by as much; PE Explorer is nearer to
//    the exact value than HF's own float32 tables are.
//  - ALiBi slopes: relative 1e-15 against float64; the float32 slopes BLOOM builds with
//    torch.pow(float32 base, k) within k * 2^-24 relative + 1 ulp (the rounded base, raised to k).
//  - Whisper's float32 sinusoids: |angle| * 2^-21 + 2 ulp, as for RoPE.
//  - temperature: relative 1e-15 against float64.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "arch/catalogue.h"
#include "encoding/alibi.h"
#include "encoding/encoding.h"
#include "encoding/mrope.h"
#include "encoding/rope.h"
#include "encoding/t5_buckets.h"
#include "model/attention_window.h"
#include "model/model_params.h"
#include "model/model_schedule.h"

namespace pe {
namespace {

struct GoldenCell {
  int64_t position = 0;
  int64_t pair = 0;
  double inv_freq = 0;  // float64, at the sequence that ends at `position`
  float cos_exact = 0, sin_exact = 0, cos_hf = 0, sin_hf = 0;
};
struct GoldenTemp {
  int64_t position = 0;
  double hf = 0, exact = 0;
};
struct GoldenTableCell {
  int64_t position = 0, col = 0;
  float exact = 0, ref32 = 0;
};
struct GoldenTreatment {
  const char* scheme = "";  // "rope", "mrope", "alibi", "t5", "sinusoidal", "learned", "none"
  std::vector<int64_t> layers;
  int64_t d_model = 0;
  int64_t max_len = 0;  // the table's rows: the model's context, or the stack's own
  const char* window = "causal";
  int64_t window_size = 0;
  double softmax_scale = 0;  // 0: 1 / sqrt(head dim)
  int64_t d_rot = 0;
  const char* pairing = "";
  double theta = 0;
  const char* scaling = "";
  int64_t original = 0;
  std::vector<double> inv_freq, inv_freq_long;
  double attention_factor = 1;
  std::vector<GoldenCell> cells;
  std::vector<int64_t> section;
  const char* layout = "";
  std::vector<int> axes;
  double temp_scale = 0, temp_floor = 0;
  std::vector<GoldenTemp> temps;
  int64_t heads = 0;
  std::vector<double> slopes;
  std::vector<float> slopes32;
  int64_t t5_buckets = 0, t5_max_distance = 0;
  bool bidirectional = false;
  std::vector<std::pair<int64_t, int64_t>> buckets;
  std::vector<GoldenTableCell> table_cells;
};
struct GoldenModel {
  const char* name;
  int64_t layers, context, original;
  std::vector<GoldenTreatment> treatments;
};

// The generated initialisers name only the members each scheme has.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "model_golden.inc"
#pragma GCC diagnostic pop

// The CLI names, fixed.
const std::vector<std::string> kFixedNames = {"gpt2",
                                              "t5-base",
                                              "llama-3.1-8b",
                                              "gemma-3-4b",
                                              "llama-4-scout",
                                              "qwen2-vl-7b",
                                              "bert-base-uncased",
                                              "flan-t5-base",
                                              "bloom-560m",
                                              "mpt-7b",
                                              "whisper-base",
                                              "llama-2-7b",
                                              "codellama-7b",
                                              "llama-3-8b",
                                              "llama-3.2-1b",
                                              "mistral-7b-v0.1",
                                              "mistral-7b-v0.3",
                                              "qwen2.5-7b",
                                              "qwen2.5-7b-yarn",
                                              "qwen3-8b",
                                              "qwen3-vl-8b",
                                              "gemma-2-9b",
                                              "deepseek-v3",
                                              "phi-3-mini-128k",
                                              "phi-3.5-mini",
                                              "phi-4-mini",
                                              "gpt-neox-20b",
                                              "pythia-1b",
                                              "gpt-j-6b",
                                              "stablelm-3b-4e1t",
                                              "falcon-7b",
                                              "gpt-oss-20b",
                                              "smollm3-3b",
                                              "modernbert-base"};

float UlpOf(float v) {
  const float a = std::fabs(v);
  return std::nextafter(a, std::numeric_limits<float>::infinity()) - a;
}

Scheme SchemeOf(const std::string& s) {
  if (s == "rope") return Scheme::kRope;
  if (s == "mrope") return Scheme::kMrope;
  if (s == "alibi") return Scheme::kAlibi;
  if (s == "t5") return Scheme::kT5;
  if (s == "sinusoidal") return Scheme::kSinusoidal;
  if (s == "learned") return Scheme::kLearned;
  return Scheme::kNope;
}

// What the window lets a query see, as a name and size: a sliding window no shorter than the
// context is the causal mask (Phi-3's sliding_window 262144 on a 131072 context).
std::pair<std::string, int64_t> SeenWindow(const ModelParams& m, int64_t context) {
  const AttentionWindow w = EffectiveAttentionWindow(m);
  if (w.kind == AttentionWindowKind::kSliding && w.size >= context) return {"causal", 0};
  const bool sized = w.banded();
  return {std::string(AttentionWindowKindName(w.kind)), sized ? w.size : 0};
}

double EffectiveScale(double scale, int64_t head_dim) {
  return scale != 0 ? scale : 1.0 / std::sqrt(static_cast<double>(head_dim));
}

// One table cell of `p` at row `row`: column `col` of part `part`.
float Cell(EncodingParams p, RopePart part, int64_t row, int64_t col) {
  if (p.kind() == Scheme::kRope) p.rope().part = part;
  if (p.kind() == Scheme::kMrope) p.mrope().part = part;
  Result<EncodingPtr> e = MakeEncoding(p);
  EXPECT_TRUE(e.ok()) << e.message();
  if (!e.ok()) return std::nanf("");
  float v = 0;
  e.value()->FillBlock(row, 1, col, 1, &v);
  return v;
}

class Catalogue : public ::testing::TestWithParam<const GoldenModel*> {};

void CheckRope(const ModelSchedule& s, const GoldenModel& g, const GoldenTreatment& t,
               int64_t layer) {
  const bool mrope = std::string(t.scheme) == "mrope";
  for (const GoldenCell& c : t.cells) {
    SCOPED_TRACE("position " + std::to_string(c.position) + " pair " + std::to_string(c.pair));
    ModelParams m;
    m.pe.max_len = c.position + 1;  // the query at p ends a sequence of p + 1 tokens
    ASSERT_TRUE(ApplyLayer(s, layer, m).ok());
    const int64_t half = t.d_rot / 2;
    if (!mrope) {
      const RopeFrequencies f = ComputeRopeFrequencies(m.pe);
      ASSERT_EQ(f.d_rot, t.d_rot);
      EXPECT_NEAR(f.pairs[static_cast<size_t>(c.pair)].scaled, c.inv_freq, 1e-14 * c.inv_freq);
      EXPECT_NEAR(f.attention_factor, t.attention_factor, 1e-15 * t.attention_factor);
    }
    const bool interleaved = std::string(t.pairing) == "interleaved";
    const int64_t col = interleaved ? 2 * c.pair : c.pair;
    const int64_t twin = interleaved ? 2 * c.pair + 1 : c.pair + half;
    const float cs = Cell(m.pe, RopePart::kCos, c.position, col);
    const float sn = Cell(m.pe, RopePart::kSin, c.position, col);
    EXPECT_EQ(Cell(m.pe, RopePart::kCos, c.position, twin), cs);
    EXPECT_EQ(Cell(m.pe, RopePart::kSin, c.position, twin), sn);
    EXPECT_NEAR(cs, c.cos_exact, UlpOf(c.cos_exact));
    EXPECT_NEAR(sn, c.sin_exact, UlpOf(c.sin_exact));
    const double angle = static_cast<double>(c.position) * c.inv_freq;
    const double tol32 = t.attention_factor * angle * std::ldexp(1.0, -21);
    EXPECT_NEAR(cs, c.cos_hf, tol32 + 2 * UlpOf(c.cos_hf));
    EXPECT_NEAR(sn, c.sin_hf, tol32 + 2 * UlpOf(c.sin_hf));
  }
  (void)g;
}

TEST_P(Catalogue, MatchesTheReferenceCodeLayerByLayer) {
  const GoldenModel& g = *GetParam();
  Result<ModelSchedule> r = CatalogueModel(g.name);
  ASSERT_TRUE(r.ok()) << r.message();
  const ModelSchedule& s = r.value();
  ASSERT_EQ(static_cast<int64_t>(s.layers.size()), g.layers);
  EXPECT_EQ(s.shape.layers, g.layers);
  EXPECT_EQ(s.shape.context, g.context);
  EXPECT_EQ(s.shape.original_context, g.original);

  for (const GoldenTreatment& t : g.treatments) {
    SCOPED_TRACE(std::string(t.scheme) + " layers from " + std::to_string(t.layers.front()));
    const int64_t first = t.layers.front();
    // The layer pattern: every layer of a treatment is the same as its first.
    for (int64_t l : t.layers) {
      EXPECT_EQ(s.layers[static_cast<size_t>(l)].pe, s.layers[static_cast<size_t>(first)].pe)
          << "layer " << l;
      EXPECT_EQ(s.layers[static_cast<size_t>(l)].window,
                s.layers[static_cast<size_t>(first)].window)
          << "layer " << l;
      EXPECT_EQ(s.layers[static_cast<size_t>(l)].temperature,
                s.layers[static_cast<size_t>(first)].temperature)
          << "layer " << l;
    }
    const LayerPosition& lp = s.layers[static_cast<size_t>(first)];
    ASSERT_EQ(lp.pe.kind(), SchemeOf(t.scheme));
    EXPECT_EQ(lp.pe.d_model, t.d_model);
    EXPECT_EQ(lp.pe.max_len, t.max_len);

    ModelParams m;
    m.pe.max_len = 16;
    ASSERT_TRUE(ApplyLayer(s, first, m).ok());
    EXPECT_EQ(SeenWindow(m, g.context), (std::pair<std::string, int64_t>{t.window, t.window_size}));
    EXPECT_NEAR(EffectiveScale(m.softmax_scale, t.d_model),
                EffectiveScale(t.softmax_scale, t.d_model), 1e-15);

    if (t.temps.empty()) {
      EXPECT_EQ(m.temperature.kind, TemperatureKind::kNone);
    } else {
      EXPECT_EQ(m.temperature.kind, TemperatureKind::kLlama4);
      EXPECT_EQ(m.temperature.scale, t.temp_scale);
      EXPECT_EQ(m.temperature.floor, t.temp_floor);
      for (const GoldenTemp& tp : t.temps) {
        EXPECT_NEAR(TemperatureAt(m.temperature, tp.position), tp.exact, 1e-15 * tp.exact)
            << "position " << tp.position;
        EXPECT_NEAR(TemperatureAt(m.temperature, tp.position), tp.hf, 1e-6)
            << "position " << tp.position;
      }
    }

    const std::string scheme = t.scheme;
    if (scheme == "rope") {
      const RopeParams& rp = m.pe.rope();
      EXPECT_EQ(RopePairingName(rp.pairing), std::string(t.pairing));
      EXPECT_EQ(rp.theta, t.theta);
      EXPECT_EQ(RopeRotaryDims(m.pe), t.d_rot);
      const RopeFrequencies f = ComputeRopeFrequencies(m.pe);
      ASSERT_EQ(f.pairs.size(), t.inv_freq.size());
      if (!t.inv_freq_long.empty()) {
        ASSERT_EQ(f.longrope_short.size(), t.inv_freq.size());
        ASSERT_EQ(f.longrope_long.size(), t.inv_freq_long.size());
        for (size_t i = 0; i < t.inv_freq.size(); ++i) {
          EXPECT_NEAR(f.longrope_short[i], t.inv_freq[i], 1e-14 * t.inv_freq[i]) << "pair " << i;
          EXPECT_NEAR(f.longrope_long[i], t.inv_freq_long[i], 1e-14 * t.inv_freq_long[i])
              << "pair " << i;
        }
      } else {
        for (size_t i = 0; i < t.inv_freq.size(); ++i) {
          EXPECT_NEAR(f.pairs[i].scaled, t.inv_freq[i], 1e-14 * t.inv_freq[i]) << "pair " << i;
        }
      }
      EXPECT_NEAR(f.attention_factor, t.attention_factor, 1e-15 * t.attention_factor);
      CheckRope(s, g, t, first);
    } else if (scheme == "mrope") {
      const MropeParams& mp = m.pe.mrope();
      EXPECT_EQ(RopePairingName(mp.pairing), std::string(t.pairing));
      EXPECT_EQ(mp.theta, t.theta);
      EXPECT_EQ(MropeLayoutName(mp.layout), std::string(t.layout));
      const std::vector<MropeAxis> axes = MropePairAxes(mp, static_cast<int64_t>(t.axes.size()));
      ASSERT_EQ(axes.size(), t.axes.size());
      for (size_t i = 0; i < axes.size(); ++i) {
        EXPECT_EQ(static_cast<int>(axes[i]), t.axes[i]) << "pair " << i;
      }
      CheckRope(s, g, t, first);
    } else if (scheme == "alibi") {
      const AlibiParams& a = m.pe.alibi();
      ASSERT_EQ(a.heads, t.heads);
      EXPECT_EQ(a.mode, AlibiMode::kCausal);
      const std::vector<double> slopes = AlibiSlopes(a.heads, a.max_bias);
      ASSERT_EQ(slopes.size(), t.slopes.size());
      for (size_t k = 0; k < slopes.size(); ++k) {
        EXPECT_NEAR(slopes[k], t.slopes[k], 1e-15 * t.slopes[k]) << "head " << k;
      }
      for (size_t k = 0; k < t.slopes32.size(); ++k) {
        const float v = static_cast<float>(slopes[k]);
        EXPECT_NEAR(v, t.slopes32[k],
                    static_cast<double>(k + 1) * std::ldexp(v, -24) + UlpOf(t.slopes32[k]))
            << "head " << k;
      }
    } else if (scheme == "t5") {
      const T5Params& p = m.pe.t5();
      EXPECT_EQ(p.heads, t.heads);
      EXPECT_EQ(p.buckets, t.t5_buckets);
      EXPECT_EQ(p.max_distance, t.t5_max_distance);
      EXPECT_EQ(p.direction, t.bidirectional ? T5Direction::kBidirectional : T5Direction::kCausal);
      for (const auto& [offset, bucket] : t.buckets) {
        EXPECT_EQ(
            T5Bucket(offset, p.direction == T5Direction::kBidirectional, p.buckets, p.max_distance),
            bucket)
            << "key - query " << offset;
      }
    } else if (scheme == "sinusoidal") {
      EXPECT_EQ(m.pe.sinusoidal().variant, PeVariant::kT2t);
      EXPECT_EQ(m.pe.sinusoidal().base, 10000.0);
      ModelParams full;
      full.pe.max_len = t.max_len;
      ASSERT_TRUE(ApplyLayer(s, first, full).ok());
      Result<EncodingPtr> e = MakeEncoding(full.pe);
      ASSERT_TRUE(e.ok()) << e.message();
      for (const GoldenTableCell& c : t.table_cells) {
        float v = 0;
        e.value()->FillBlock(c.position, 1, c.col, 1, &v);
        EXPECT_NEAR(v, c.exact, UlpOf(c.exact)) << "position " << c.position << " col " << c.col;
        const int64_t k = c.col % (t.d_model / 2);
        const double w = std::exp(-std::log(10000.0) / static_cast<double>(t.d_model / 2 - 1) *
                                  static_cast<double>(k));
        const double tol = static_cast<double>(c.position) * w * std::ldexp(1.0, -21);
        EXPECT_NEAR(v, c.ref32, tol + 2 * UlpOf(c.ref32))
            << "position " << c.position << " col " << c.col;
      }
    }
  }
}

std::string NameOf(const ::testing::TestParamInfo<const GoldenModel*>& info) {
  std::string n = info.param->name;
  for (char& ch : n) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return n;
}

std::vector<const GoldenModel*> AllGolden() {
  std::vector<const GoldenModel*> out;
  for (const GoldenModel& g : kGoldenModels) out.push_back(&g);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Models, Catalogue, ::testing::ValuesIn(AllGolden()), NameOf);

TEST(CatalogueNames, AreExactlyTheFixedThirtyFour) {
  std::set<std::string> names;
  for (const CatalogueEntry& e : ModelCatalogue()) {
    EXPECT_TRUE(names.insert(std::string(e.name)).second) << "twice: " << e.name;
    EXPECT_FALSE(e.title.empty()) << e.name;
    EXPECT_EQ(e.source.substr(0, 8), "https://") << e.name;
  }
  EXPECT_EQ(names, std::set<std::string>(kFixedNames.begin(), kFixedNames.end()));
  EXPECT_EQ(kFixedNames.size(), 34u);
}

TEST(CatalogueNames, EveryEntryHasItsGoldenValues) {
  std::set<std::string> golden;
  for (const GoldenModel& g : kGoldenModels) golden.insert(g.name);
  for (const CatalogueEntry& e : ModelCatalogue()) {
    EXPECT_TRUE(golden.count(std::string(e.name))) << e.name;
  }
}

}  // namespace
}  // namespace pe
