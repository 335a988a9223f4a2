// The spectrum view: each pair's frequency and wavelength against the closed forms written out
// here (the paper's base^(-2i/d), tensor2tensor's get_timing_signal_1d ladder, RoPE's
// theta^(-2i/d_rot) and HF transformers' rope scalings from modeling_rope_utils.py, each written
// independently of rope.cpp), the count of pairs that turn fully within L against its closed
// form, the CSV columns, the legend's counts, and figures in every format.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "test_support.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

using pe::testing::NpyArray;
using pe::testing::ParseCsv;
using pe::testing::ParseNpy;

constexpr double kTwoPi = 2.0 * std::numbers::pi;

std::string Table(const ModelParams& m, TableFormat format) {
  Result<EncodingPtr> e = MakeEncoding(m.pe, m.cap);
  EXPECT_TRUE(e.ok()) << e.message();
  if (!e.ok()) return "";
  const ViewSelection sel = DefaultViews(m);
  const ViewContext c{m, e.value(), sel, FigureSize{}, FigureFormat::kPng};
  std::ostringstream out;
  const Status s = GetView(ViewKind::kSpectrum).write_table(out, format, c, {});
  EXPECT_TRUE(s.ok()) << s.message();
  return out.str();
}

NpyArray Npy(const ModelParams& m) {
  NpyArray a;
  std::string why;
  EXPECT_TRUE(ParseNpy(Table(m, TableFormat::kNpy), a, why)) << why;
  return a;
}

std::string Legend(const ModelParams& m) {
  const Result<Figure> f =
      BuildViewFigure(ViewKind::kSpectrum, m, DefaultViews(m), {}, FigureFormat::kPng);
  EXPECT_TRUE(f.ok()) << f.message();
  std::string legend;
  if (f.ok()) {
    for (const FigureLegendItem& it : f.value().legend) legend += it.label + "\n";
  }
  return legend;
}

ModelParams Sinusoidal(int64_t d, PeVariant variant, double base = 10000.0,
                       double min_timescale = 1.0, WaveOrder order = WaveOrder::kSinFirst) {
  ModelParams m;
  m.pe.d_model = d;
  m.pe.max_len = 100;
  SinusoidalParams s;
  s.variant = variant;
  s.base = base;
  s.min_timescale = min_timescale;
  s.order = order;
  m.pe.scheme = s;
  return m;
}

// Each row's frequency is `expected[i]` and its wavelength 2 pi / expected[i], both to float32
// rounding (the table stores float32; the reference is double).
void ExpectFrequencies(const NpyArray& a, int64_t cols, const std::vector<double>& expected,
                       int64_t freq_col, const std::string& what) {
  ASSERT_EQ(a.shape, (std::vector<int64_t>{static_cast<int64_t>(expected.size()), cols})) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    const float* row = a.data.data() + i * static_cast<size_t>(cols);
    EXPECT_EQ(row[0], static_cast<float>(i)) << what;
    EXPECT_FLOAT_EQ(row[freq_col], static_cast<float>(expected[i])) << what << " pair " << i;
    EXPECT_FLOAT_EQ(row[freq_col + 1], static_cast<float>(kTwoPi / expected[i]))
        << what << " pair " << i;
  }
}

TEST(SpectrumView, PaperAndTfTextFrequenciesAreBaseToTheMinus2iOverD) {
  // Vaswani et al. 2017, section 3.5: w_i = 1 / base^(2i/d). tf-text puts the same ladder in
  // [sin | cos] halves; the wave order does not change it. Odd d: the last sine is pair h.
  for (PeVariant v : {PeVariant::kPaper, PeVariant::kTfText}) {
    for (WaveOrder order : {WaveOrder::kSinFirst, WaveOrder::kCosFirst}) {
      for (int64_t d : {128, 64, 33}) {
        for (double base : {10000.0, 500.0}) {
          const ModelParams m = Sinusoidal(d, v, base, 1.0, order);
          std::vector<double> w;
          for (int64_t i = 0; i < (d + 1) / 2; ++i) {
            w.push_back(1.0 /
                        std::pow(base, 2.0 * static_cast<double>(i) / static_cast<double>(d)));
          }
          ExpectFrequencies(Npy(m), 4, w, 1,
                            std::string(VariantName(v)) + " d=" + std::to_string(d));
        }
      }
    }
  }
}

TEST(SpectrumView, T2tFrequenciesAreGetTimingSignal1d) {
  // tensor2tensor's get_timing_signal_1d: num_timescales = d // 2,
  // log_timescale_increment = log(max / min) / max(num_timescales - 1, 1),
  // inv_timescales = min_timescale * exp(arange(num_timescales) * -log_timescale_increment).
  // Odd d pads a zero column, which has no frequency.
  for (int64_t d : {128, 65, 4}) {
    for (double min_timescale : {1.0, 2.0}) {
      const double max_timescale = 10000.0;
      const ModelParams m = Sinusoidal(d, PeVariant::kT2t, max_timescale, min_timescale);
      const int64_t num_timescales = d / 2;
      const double increment = std::log(max_timescale / min_timescale) /
                               static_cast<double>(std::max<int64_t>(num_timescales - 1, 1));
      std::vector<double> w;
      for (int64_t i = 0; i < num_timescales; ++i) {
        w.push_back(min_timescale * std::exp(static_cast<double>(i) * -increment));
      }
      ExpectFrequencies(Npy(m), 4, w, 1, "t2t d=" + std::to_string(d));
    }
  }
}

// ---- RoPE: the unscaled ladder and each scaling, after HF transformers'
// modeling_rope_utils.py (default, linear, dynamic, yarn, llama3) and the NTK-aware base change.

struct RopeCase {
  RopeScaling scaling;
  double factor;
};

ModelParams Rope(int64_t d, RopeScaling scaling, double factor) {
  ModelParams m;
  m.pe.d_model = d;
  m.pe.max_len = 100;
  RopeParams r;
  r.scaling = scaling;
  r.factor = factor;
  r.original_max_len = 64;
  m.pe.scheme = r;
  return m;
}

std::vector<double> RopeReference(const ModelParams& m) {
  const RopeParams& r = m.pe.rope();
  const auto dim = static_cast<int64_t>(static_cast<double>(m.pe.d_model) * r.rotary_fraction);
  const int64_t half = dim / 2;
  auto ladder = [&](double base) {
    std::vector<double> w;
    for (int64_t i = 0; i < half; ++i) {
      w.push_back(1.0 / std::pow(base, static_cast<double>(2 * i) / static_cast<double>(dim)));
    }
    return w;
  };
  const double f = r.factor;
  const auto original = static_cast<double>(r.original_max_len);
  std::vector<double> inv = ladder(r.theta);
  switch (r.scaling) {
    case RopeScaling::kNone:
      return inv;
    case RopeScaling::kLinear:
      for (double& w : inv) w /= f;
      return inv;
    case RopeScaling::kNtk:
      return ladder(r.theta * std::pow(f, static_cast<double>(dim) / static_cast<double>(dim - 2)));
    case RopeScaling::kDynamicNtk: {
      // _compute_dynamic_ntk_parameters: seq_len = max(seq_len, max_position_embeddings),
      // base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2)).
      const double seq = std::max(static_cast<double>(m.pe.offset + m.pe.max_len), original);
      return ladder(r.theta * std::pow(f * seq / original - (f - 1),
                                       static_cast<double>(dim) / static_cast<double>(dim - 2)));
    }
    case RopeScaling::kYarn: {
      // _compute_yarn_parameters with truncation: the correction range from
      // find_correction_dim, floor / ceil, clamped; linear_ramp_factor; the blend.
      auto correction_dim = [&](double rotations) {
        return static_cast<double>(dim) * std::log(original / (rotations * kTwoPi)) /
               (2 * std::log(r.theta));
      };
      double low = std::max(0.0, std::floor(correction_dim(r.beta_fast)));
      double high = std::min(static_cast<double>(dim - 1), std::ceil(correction_dim(r.beta_slow)));
      if (low == high) high += 0.001;
      std::vector<double> out;
      for (int64_t i = 0; i < half; ++i) {
        const double ramp = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
        const double extrapolation = 1 - ramp;
        const double w = inv[static_cast<size_t>(i)];
        out.push_back(w / f * (1 - extrapolation) + w * extrapolation);
      }
      return out;
    }
    case RopeScaling::kLlama3: {
      const double low_wavelen = original / r.low_freq_factor;
      const double high_wavelen = original / r.high_freq_factor;
      std::vector<double> out;
      for (double w : inv) {
        const double wavelen = kTwoPi / w;
        double v = wavelen > low_wavelen ? w / f : w;
        if (!(wavelen < high_wavelen) && !(wavelen > low_wavelen)) {
          const double smooth =
              (original / wavelen - r.low_freq_factor) / (r.high_freq_factor - r.low_freq_factor);
          v = (1 - smooth) * v / f + smooth * v;
        }
        out.push_back(v);
      }
      return out;
    }
    case RopeScaling::kLongrope: {
      // _compute_longrope_parameters: inv_freq / ext, ext the long list past the original length.
      const bool long_list = static_cast<double>(m.pe.offset + m.pe.max_len) > original;
      const std::vector<double>& ext = long_list ? r.long_factor : r.short_factor;
      for (size_t i = 0; i < inv.size(); ++i) inv[i] /= ext[i];
      return inv;
    }
  }
  return inv;
}

TEST(SpectrumView, RopeFrequenciesBeforeAndAfterEachScaling) {
  const RopeCase cases[] = {{RopeScaling::kNone, 1.0},  {RopeScaling::kLinear, 4.0},
                            {RopeScaling::kNtk, 8.0},   {RopeScaling::kDynamicNtk, 4.0},
                            {RopeScaling::kYarn, 16.0}, {RopeScaling::kLlama3, 8.0}};
  for (const RopeCase& rc : cases) {
    for (int64_t d : {128, 64}) {
      ModelParams m = Rope(d, rc.scaling, rc.factor);
      if (rc.scaling == RopeScaling::kLlama3) m.pe.rope().theta = 500000.0;
      if (rc.scaling == RopeScaling::kYarn) m.pe.rope().original_max_len = 4096;
      if (rc.scaling == RopeScaling::kLlama3) m.pe.rope().original_max_len = 8192;
      if (d == 64) m.pe.rope().rotary_fraction = 0.5;  // d_rot 32: 16 pairs
      ModelParams unscaled = m;
      unscaled.pe.rope().scaling = RopeScaling::kNone;
      const std::string what = std::string(RopeScalingName(rc.scaling)) + " d=" + std::to_string(d);
      const NpyArray a = Npy(m);
      ExpectFrequencies(a, 7, RopeReference(unscaled), 1, what + " original");
      ExpectFrequencies(a, 7, RopeReference(m), 3, what + " scaled");
    }
  }
}

TEST(SpectrumView, ScalingsMoveThePairsTheyShould) {
  // Not a tautology of the reference above: linear divides every pair, YaRN keeps pair 0 and
  // divides the last, Llama 3 keeps pair 0 and divides the last.
  for (RopeScaling s : {RopeScaling::kLinear, RopeScaling::kYarn, RopeScaling::kLlama3}) {
    ModelParams m = Rope(128, s, 8.0);
    m.pe.rope().original_max_len = 4096;
    const NpyArray a = Npy(m);
    ASSERT_EQ(a.shape[0], 64);
    const float* first = a.data.data();
    const float* last = a.data.data() + 63 * 7;
    EXPECT_FLOAT_EQ(last[3], last[1] / 8.0f) << RopeScalingName(s);
    if (s == RopeScaling::kLinear) {
      EXPECT_FLOAT_EQ(first[3], first[1] / 8.0f);
    } else {
      EXPECT_EQ(first[3], first[1]) << RopeScalingName(s);
    }
  }
}

TEST(SpectrumView, XposFrequenciesAreThetaToTheMinus2iOverD) {
  ModelParams m;
  m.pe.d_model = 64;
  XposParams x;
  x.theta = 2000.0;
  m.pe.scheme = x;
  std::vector<double> w;
  for (int64_t i = 0; i < 32; ++i)
    w.push_back(std::pow(2000.0, -2.0 * static_cast<double>(i) / 64.0));
  ExpectFrequencies(Npy(m), 4, w, 1, "xpos");
}

// The paper's pairs that turn fully within L: 2 pi base^(2i/d) <= L, i.e.
// i <= d ln(L / 2 pi) / (2 ln base): floor of that + 1 pairs, clamped to [0, ceil(d/2)].
int64_t PaperFullTurns(int64_t d, double base, double length) {
  if (length < kTwoPi) return 0;
  const double last = static_cast<double>(d) * std::log(length / kTwoPi) / (2 * std::log(base));
  return std::min<int64_t>((d + 1) / 2, static_cast<int64_t>(std::floor(last)) + 1);
}

TEST(SpectrumView, FullTurnCountIsTheClosedForm) {
  // L = 100, d = 128, base 10000: i <= 19.23, so 20 pairs; L = 5 < 2 pi: none.
  EXPECT_EQ(PaperFullTurns(128, 10000.0, 100.0), 20);
  for (int64_t d : {128, 64, 33}) {
    for (double base : {10000.0, 50.0}) {
      for (int64_t length : {5, 7, 100, 1000, 100000}) {
        ModelParams m = Sinusoidal(d, PeVariant::kPaper, base);
        m.pe.max_len = length;
        const NpyArray a = Npy(m);
        int64_t full = 0;
        for (int64_t i = 0; i < a.shape[0]; ++i) {
          const float flag = a.data[static_cast<size_t>(i * 4 + 3)];
          ASSERT_TRUE(flag == 0 || flag == 1);
          full += flag == 1;
          // The flag is the pair's own wavelength against L.
          EXPECT_EQ(flag == 1, kTwoPi * std::pow(base, 2.0 * static_cast<double>(i) /
                                                           static_cast<double>(d)) <=
                                   static_cast<double>(length))
              << i;
        }
        const int64_t expected = PaperFullTurns(d, base, static_cast<double>(length));
        EXPECT_EQ(full, expected) << "d=" << d << " base=" << base << " L=" << length;
        const int64_t n = a.shape[0];
        const std::string legend = Legend(m);
        EXPECT_NE(legend.find("a full turn within L (\xce\xbb_i \xe2\x89\xa4 L): " +
                              std::to_string(expected) + " of " + std::to_string(n) + " pairs"),
                  std::string::npos)
            << legend;
        EXPECT_NE(legend.find("less than one turn within L: " + std::to_string(n - expected) +
                              " of " + std::to_string(n) + " pairs"),
                  std::string::npos)
            << legend;
      }
    }
  }
}

TEST(SpectrumView, RopeCountsBeforeAndAfterTheScaling) {
  ModelParams m = Rope(128, RopeScaling::kLinear, 4.0);
  m.pe.max_len = 1000;
  // Before: theta^(2i/d) 2 pi <= 1000, i <= 128 ln(1000 / 2 pi) / (2 ln 10000) = 35.4: 36.
  // After: the wavelengths are 4 times longer: i <= 128 ln(250 / 2 pi) / (2 ln 10000) = 25.6: 26.
  const NpyArray a = Npy(m);
  int64_t before = 0, after = 0;
  for (int64_t i = 0; i < 64; ++i) {
    before += a.data[static_cast<size_t>(i * 7 + 5)] == 1;
    after += a.data[static_cast<size_t>(i * 7 + 6)] == 1;
  }
  EXPECT_EQ(before, 36);
  EXPECT_EQ(after, 26);
  const std::string legend = Legend(m);
  EXPECT_NE(legend.find("36 of 64 pairs turn fully within L"), std::string::npos) << legend;
  EXPECT_NE(legend.find("L): 26 of 64 pairs"), std::string::npos) << legend;
}

TEST(SpectrumView, CsvColumns) {
  const auto sin_rows = ParseCsv(Table(Sinusoidal(16, PeVariant::kT2t), TableFormat::kCsv));
  ASSERT_EQ(sin_rows.size(), 9u);
  EXPECT_EQ(sin_rows[0],
            (std::vector<std::string>{"pair", "frequency", "wavelength", "full_turn"}));
  EXPECT_EQ(sin_rows[1][0], "0");
  EXPECT_EQ(sin_rows[1][1], "1");
  EXPECT_EQ(sin_rows[1][3], "1");
  EXPECT_EQ(sin_rows[8][3], "0");
  const auto rope_rows = ParseCsv(Table(Rope(16, RopeScaling::kYarn, 4.0), TableFormat::kCsv));
  ASSERT_EQ(rope_rows.size(), 9u);
  EXPECT_EQ(rope_rows[0],
            (std::vector<std::string>{"pair", "frequency", "wavelength", "scaled_frequency",
                                      "scaled_wavelength", "full_turn", "scaled_full_turn"}));
  EXPECT_EQ(rope_rows[8][0], "7");
}

TEST(SpectrumView, AppliesToSchemesWithFrequenciesOnly) {
  for (Scheme s : kAllSchemeKinds) {
    ModelParams m;
    SetScheme(m, s);
    const bool has = s == Scheme::kSinusoidal || s == Scheme::kRope || s == Scheme::kXpos;
    EXPECT_EQ(ViewApplies(ViewKind::kSpectrum, m.pe), has) << SchemeName(s);
    const Result<Figure> f =
        BuildViewFigure(ViewKind::kSpectrum, m, DefaultViews(m), {}, FigureFormat::kPng);
    EXPECT_EQ(f.ok(), has) << SchemeName(s);
    if (!has) {
      EXPECT_NE(f.message().find("the spectrum view needs a scheme made of frequencies"),
                std::string::npos)
          << f.message();
    }
  }
}

TEST(SpectrumView, FiguresRenderInEveryFormat) {
  std::vector<ModelParams> models = {
      Sinusoidal(128, PeVariant::kPaper), Sinusoidal(65, PeVariant::kT2t, 10000.0, 2.0),
      Sinusoidal(64, PeVariant::kTfText), Rope(128, RopeScaling::kYarn, 8.0),
      Rope(65536, RopeScaling::kLlama3, 8.0)};
  ModelParams xpos;
  xpos.pe.scheme = XposParams{};
  models.push_back(xpos);
  for (const ModelParams& m : models) {
    for (FigureFormat format : {FigureFormat::kPng, FigureFormat::kSvg, FigureFormat::kPdf}) {
      const Result<Figure> f = BuildViewFigure(ViewKind::kSpectrum, m, DefaultViews(m), {}, format);
      ASSERT_TRUE(f.ok()) << f.message();
      EXPECT_FALSE(f.value().series.empty());
      std::ostringstream out;
      const Status s = RenderFigure(f.value(), format, {}, out);
      EXPECT_TRUE(s.ok()) << s.message();
      EXPECT_GT(out.str().size(), 1000u);
      EXPECT_LT(EstimateFigureBytes(ViewKind::kSpectrum, m, DefaultViews(m), {}, format),
                64u << 20);
    }
  }
}

TEST(SpectrumView, TheFigurePlotsTheTablesLogValues) {
  // The upper line is log10 of the wavelengths, the lower log10 of the frequencies; L and
  // 2 pi / L are reference lines.
  const ModelParams m = Sinusoidal(32, PeVariant::kPaper);
  const Result<Figure> f =
      BuildViewFigure(ViewKind::kSpectrum, m, DefaultViews(m), {}, FigureFormat::kPng);
  ASSERT_TRUE(f.ok()) << f.message();
  bool wave = false, freq = false, l_line = false, w_line = false;
  for (const FigureSeries& s : f.value().series) {
    if (s.xs.size() == 16) {
      const double w15 = std::pow(10000.0, -30.0 / 32.0);
      if (std::abs(s.ys[15] - std::log10(kTwoPi / w15)) < 1e-12) wave = true;
      if (std::abs(s.ys[15] - std::log10(w15)) < 1e-12) freq = true;
    }
    if (s.ys.size() == 2 && s.ys[0] == s.ys[1]) {
      if (std::abs(s.ys[0] - 2.0) < 1e-12) l_line = true;
      if (std::abs(s.ys[0] - std::log10(kTwoPi / 100.0)) < 1e-12) w_line = true;
    }
  }
  EXPECT_TRUE(wave && freq && l_line && w_line) << wave << freq << l_line << w_line;
}

}  // namespace
}  // namespace pe
