// The parameter field table: what the CLI, figure metadata and sessions share.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "encoding/encoding.h"
#include "model/input_layer.h"
#include "model/param_fields.h"
#include "model/walkthrough_presets.h"

namespace pe {
namespace {

// Applies key -> value pairs (as read back from a figure's metadata) to fresh parameters, in
// the table's order, as a session loader would.
ModelParams FromValues(const std::vector<std::pair<std::string, std::string>>& values) {
  ModelParams m;
  for (const ParamField& f : ParamFields()) {
    for (const auto& [key, value] : values) {
      if (f.key.empty() || key != f.key) continue;
      Status s = f.set(m, value);
      EXPECT_TRUE(s.ok()) << key << "=" << value << ": " << (s.ok() ? "" : s.message());
    }
  }
  return m;
}

ModelParams Sample(Scheme scheme) {
  ModelParams m;
  SetScheme(m, scheme);
  m.pe.d_model = 96;
  m.pe.max_len = 333;
  m.pe.offset = scheme == Scheme::kSinusoidal ? -17 : 5;
  m.curve_dims = {1, 7, 3};
  m.example.text = "a b, c";
  m.example.tokenizer = TokenizerKind::kChar;
  m.example.seed = 42;
  m.input.scale = false;
  m.input.dropout = 0.25;
  m.input.dropout_seed = 9;
  m.input.train = true;
  m.colormap = ColormapId::kViridis;
  switch (scheme) {
    case Scheme::kSinusoidal:
      m.pe.sinusoidal() = {PeVariant::kT2t, WaveOrder::kCosFirst, 5000.5, 2.0, 0.125};
      break;
    case Scheme::kLearned:
      m.pe.learned().init = LearnedInit::kNormal1;
      m.pe.learned().seed = 42;
      break;
    case Scheme::kRope: {
      RopeParams& r = m.pe.rope();
      r.theta = 500000;
      r.pairing = RopePairing::kInterleaved;
      r.rotary_fraction = 0.5;
      r.scaling = RopeScaling::kYarn;
      r.factor = 4.5;
      r.original_max_len = 4096;
      r.beta_fast = 16;
      r.beta_slow = 0.5;
      r.attention_factor = 1.1;
      r.part = RopePart::kAngle;
      break;
    }
    case Scheme::kAlibi:
      m.pe.alibi() = {12, 5, AlibiMode::kSymmetric, 6.0};
      break;
    case Scheme::kT5:
      m.pe.t5().heads = 4;
      m.pe.t5().head = 3;
      m.pe.t5().buckets = 16;
      m.pe.t5().max_distance = 64;
      m.pe.t5().direction = T5Direction::kCausal;
      m.pe.t5().seed = 42;
      break;
    case Scheme::kXpos:
      m.pe.xpos().theta = 20000;
      m.pe.xpos().scale_base = 256;
      m.pe.xpos().part = RopePart::kSin;
      m.pe.xpos().side = XposSide::kKey;
      break;
    case Scheme::kNope:
      // No parameters of its own; Llama 4's temperature with other numbers, to read back.
      m.temperature = {TemperatureKind::kLlama4, 0.25, 100.5};
      break;
    case Scheme::kMrope:
      m.pe.mrope().theta = 5000000;
      m.pe.mrope().section = std::array<int64_t, 3>{16, 18, 14};  // d_model 96: 48 pairs
      m.pe.mrope().layout = MropeLayout::kInterleaved;
      m.pe.mrope().images = {{10, 1, 2, 3}, {2, 2, 2, 2}};
      m.pe.mrope().pairing = RopePairing::kInterleaved;
      m.pe.mrope().part = RopePart::kAngle;
      break;
  }
  return m;
}

TEST(ParamFields, MetadataReadBackGivesTheSameParameters) {
  for (Scheme s : kAllSchemeKinds) {
    const ModelParams m = Sample(s);
    ASSERT_TRUE(ValidateEncodingParams(m.pe).ok()) << SchemeName(s);
    const ModelParams back = FromValues(ParamValues(m));
    EXPECT_EQ(back.pe, m.pe) << SchemeName(s);
    EXPECT_EQ(back.curve_dims, m.curve_dims);
    EXPECT_EQ(back.example.text, m.example.text);
    EXPECT_EQ(back.example.tokenizer, m.example.tokenizer);
    EXPECT_EQ(back.example.seed, m.example.seed);
    // The input layer's settings are recorded where the positional vector is added.
    if (s == Scheme::kSinusoidal || s == Scheme::kLearned) {
      EXPECT_EQ(back.input, m.input);
    }
    EXPECT_EQ(back.colormap, m.colormap);
  }
  // Each scaling's own parameters survive too (they are recorded only when they apply).
  for (RopeScaling scaling :
       {RopeScaling::kLinear, RopeScaling::kNtk, RopeScaling::kDynamicNtk, RopeScaling::kLlama3}) {
    ModelParams m = Sample(Scheme::kRope);
    RopeParams& r = m.pe.rope();
    r.scaling = scaling;
    r.attention_factor.reset();
    r.beta_fast = 32;
    r.beta_slow = 1;
    r.sequence_len = scaling == RopeScaling::kDynamicNtk ? 9000 : 0;
    r.low_freq_factor = scaling == RopeScaling::kLlama3 ? 2 : 1;
    r.high_freq_factor = scaling == RopeScaling::kLlama3 ? 6 : 4;
    if (scaling == RopeScaling::kLinear || scaling == RopeScaling::kNtk) r.original_max_len = 8192;
    EXPECT_EQ(FromValues(ParamValues(m)).pe, m.pe) << RopeScalingName(scaling);
  }
  // A text of several lines (a poem, code with tabs) and an empty one read back as they were.
  for (const char* text : {"Roses are red,\n\tviolets blue\r\n", ""}) {
    ModelParams m;
    m.example.text = text;
    EXPECT_EQ(FromValues(ParamValues(m)).example.text, text);
  }
}

// The blog's typed embedding rows are a parameter: the i-love-nlp preset sets them, the sum is
// computed from them (not from seeded rows), figure metadata records them and reads them back,
// and bad rows are refused naming --embedding-rows.
TEST(ParamFields, NumbersAreWrittenAsPeopleTypeThemAndReadBackExactly) {
  ModelParams m;
  const ParamField* base = FindParamField("--base");
  ASSERT_NE(base, nullptr);
  const std::pair<double, const char*> cases[] = {{500, "500"},
                                                  {10000, "10000"},
                                                  {500000, "500000"},
                                                  {1.5, "1.5"},
                                                  {1.1, "1.1"},
                                                  {1.0001, "1.0001"},
                                                  {1e20, "1e+20"},
                                                  {4.0 / 3.0, "1.3333333333333333"},
                                                  {123456789012345.0, "123456789012345"}};
  for (const auto& [value, text] : cases) {
    m.pe.sinusoidal().base = value;
    EXPECT_EQ(base->get(m), text);
    ModelParams back;
    ASSERT_TRUE(base->set(back, base->get(m)).ok()) << text;
    EXPECT_EQ(back.pe.sinusoidal().base, value) << text;
  }
  const ParamField* min_ts = FindParamField("--min-timescale");
  ASSERT_NE(min_ts, nullptr);
  m.pe.sinusoidal().min_timescale = 1e-7;
  EXPECT_EQ(min_ts->get(m), "1e-07");
  m.pe.sinusoidal().min_timescale = 0.0002;
  EXPECT_EQ(min_ts->get(m), "0.0002");
}

TEST(ParamFields, TypedEmbeddingRowsAreAParameterTheBlogPresetSets) {
  ModelParams m;
  ASSERT_TRUE(ApplyWalkthroughPreset("i-love-nlp", m).ok());
  // The blog's E[1], E[2], E[3], as it prints them.
  const std::vector<std::vector<float>> blog = {
      {0.1f, 0.3f, 0.4f}, {0.2f, 0.6f, 0.5f}, {0.7f, 0.9f, 0.8f}};
  EXPECT_EQ(m.example.embedding_rows, blog);
  Result<SentenceResult> s = ComputeSentence(m.example, m.pe, m.input, m.cap);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(s.value().parts.embedding.rows, 3);
  for (int64_t t = 0; t < 3; ++t) {
    for (int64_t j = 0; j < 3; ++j) {
      EXPECT_EQ(s.value().parts.embedding.at(t, j),
                blog[static_cast<size_t>(t)][static_cast<size_t>(j)]);
    }
  }
  // Recorded and read back.
  std::string recorded;
  for (const auto& [k, v] : ParamValues(m)) {
    if (k == "embedding_rows") recorded = v;
  }
  EXPECT_EQ(recorded, "0.1,0.3,0.4;0.2,0.6,0.5;0.7,0.9,0.8");
  EXPECT_EQ(FromValues(ParamValues(m)).example.embedding_rows, blog);
  // Not recorded when there are none.
  for (const auto& [k, v] : ParamValues(ModelParams())) EXPECT_NE(k, "embedding_rows");
  // Refused: a bad number, rows of two widths, rows not d_model wide, an id without a row.
  const ParamField* f = FindParamField("--embedding-rows");
  ASSERT_NE(f, nullptr);
  ModelParams bad;
  Status st = f->set(bad, "0.1,x");
  EXPECT_NE(st.message().find("--embedding-rows: \"x\" in row 0"), std::string::npos)
      << st.message();
  st = f->set(bad, "1,2;3");
  EXPECT_NE(st.message().find("row 1 has 1 values but row 0 has 2"), std::string::npos)
      << st.message();
  ASSERT_TRUE(f->set(bad, "1,2;3,4").ok());
  s = ComputeSentence(bad.example, bad.pe, bad.input, bad.cap);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("2 values but d_model is 128"), std::string::npos) << s.message();
  ModelParams narrow = m;
  narrow.example.embedding_rows.pop_back();  // "NLP" is id 2
  s = ComputeSentence(narrow.example, narrow.pe, narrow.input, narrow.cap);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("token 2 has id 2 but only E[0] to E[1] are typed"), std::string::npos)
      << s.message();
}

// The blog's typed positional rows are a parameter too: the preset sets them, the sum adds
// them (the blog's [0.11, 0.32, 0.43], not E + the sinusoid's [0, 1, 0]), figure metadata (and
// so the copied command) records them, and a position without a row is refused.
TEST(ParamFields, TypedPositionalRowsAreAParameterTheBlogPresetSets) {
  ModelParams m;
  ASSERT_TRUE(ApplyWalkthroughPreset("i-love-nlp", m).ok());
  const std::vector<std::vector<float>> blog = {
      {0.01f, 0.02f, 0.03f}, {0.04f, 0.05f, 0.06f}, {0.07f, 0.08f, 0.09f}};
  EXPECT_EQ(m.example.positional_rows, blog);
  Result<SentenceResult> s = ComputeSentence(m.example, m.pe, m.input, m.cap);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s.value().ids, (std::vector<int64_t>{0, 1, 2}));
  const double sum[3][3] = {{0.11, 0.32, 0.43}, {0.24, 0.65, 0.56}, {0.77, 0.98, 0.89}};
  for (int64_t t = 0; t < 3; ++t) {
    for (int64_t j = 0; j < 3; ++j) {
      EXPECT_EQ(s.value().parts.positional.at(t, j),
                blog[static_cast<size_t>(t)][static_cast<size_t>(j)]);
      EXPECT_NEAR(s.value().parts.sum.at(t, j), sum[t][j], 1e-7);
    }
  }
  std::string recorded;
  for (const auto& [k, v] : ParamValues(m)) {
    if (k == "positional_rows") recorded = v;
  }
  EXPECT_EQ(recorded, "0.01,0.02,0.03;0.04,0.05,0.06;0.07,0.08,0.09");
  EXPECT_EQ(FromValues(ParamValues(m)).example.positional_rows, blog);
  for (const auto& [k, v] : ParamValues(ModelParams())) EXPECT_NE(k, "positional_rows");
  // Four tokens need P[3], which is not typed.
  ModelParams longer = m;
  longer.example.text = "I love NLP NLP";
  longer.pe.max_len = 4;
  s = ComputeSentence(longer.example, longer.pe, longer.input, longer.cap);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--positional-rows: token 3 is at position 3 but only P[0] to P[2] "
                             "are typed"),
            std::string::npos)
      << s.message();
}

TEST(ParamFields, OnlyTheFieldsOfTheSchemeAreRecorded) {
  auto keys = [](const ModelParams& m) {
    std::set<std::string> k;
    for (const auto& kv : ParamValues(m)) k.insert(kv.first);
    return k;
  };
  const auto sin = keys(Sample(Scheme::kSinusoidal));
  const auto learned = keys(Sample(Scheme::kLearned));
  const auto rope = keys(Sample(Scheme::kRope));
  EXPECT_TRUE(sin.count("variant") && sin.count("base") && sin.count("min_timescale"));
  EXPECT_FALSE(sin.count("rope_theta") || sin.count("learned_init"));
  // --init names the token embeddings' initialiser for every scheme; the learned table's own
  // is recorded after it.
  EXPECT_TRUE(sin.count("init") && learned.count("init") && learned.count("learned_init"));
  EXPECT_FALSE(learned.count("variant") || learned.count("rope_theta"));
  EXPECT_TRUE(rope.count("rope_theta") && rope.count("beta_fast") && rope.count("part"));
  EXPECT_FALSE(rope.count("variant") || rope.count("low_freq_factor"));  // yarn: no llama3 keys
  for (const auto* k : {&sin, &learned, &rope}) {
    EXPECT_TRUE(k->count("scheme") && k->count("d_model") && k->count("max_len") &&
                k->count("offset") && k->count("seed"));
  }
}

TEST(ParamFields, FieldsOfAnotherSchemeSayWhichSchemeTheyBelongTo) {
  ModelParams m;  // sinusoidal
  EXPECT_EQ(FindParamField("--rope-theta")->WhyNotApplicable(m),
            "--rope-theta applies to the rope or xpos or mrope scheme, not to sinusoidal");
  EXPECT_EQ(FindParamField("--learned-init")->WhyNotApplicable(m),
            "--learned-init applies to the learned scheme, not to sinusoidal");
  EXPECT_EQ(FindParamField("--init")->WhyNotApplicable(m), "");
  EXPECT_EQ(FindParamField("--d-model")->WhyNotApplicable(m), "");
  SetScheme(m, Scheme::kRope);
  EXPECT_EQ(FindParamField("--variant")->WhyNotApplicable(m),
            "--variant applies to the sinusoidal scheme, not to rope");
  EXPECT_EQ(FindParamField("--low-freq-factor")->WhyNotApplicable(m),
            "--low-freq-factor: it applies to --rope-scaling llama3, not none");
  m.pe.rope().scaling = RopeScaling::kLlama3;
  EXPECT_EQ(FindParamField("--low-freq-factor")->WhyNotApplicable(m), "");
}

TEST(ParamFields, KeysAndFlagsAreUniqueAndFindable) {
  std::set<std::string_view> keys, flags;
  for (const ParamField& f : ParamFields()) {
    EXPECT_TRUE(flags.insert(f.flag).second) << f.flag;
    if (!f.key.empty()) {
      EXPECT_TRUE(keys.insert(f.key).second) << f.key;
    }
    EXPECT_EQ(FindParamField(f.flag), &f);
    EXPECT_FALSE(f.help.empty()) << f.flag;
  }
  EXPECT_EQ(FindParamField("d_model")->flag, "--d-model");
  EXPECT_EQ(FindParamField("--nope"), nullptr);
}

// Fields are applied in table order (the CLI, sessions, figure metadata): the memory cap must
// come before every field that loads a file or a preset's tables, whatever order they are given.
TEST(ParamFields, TheMemoryCapComesBeforeEveryFieldThatLoads) {
  const auto fields = ParamFields();
  auto index = [&](std::string_view flag) {
    for (size_t k = 0; k < fields.size(); ++k) {
      if (fields[k].flag == flag) return k;
    }
    ADD_FAILURE() << flag;
    return fields.size();
  };
  const size_t cap = index("--memory-cap-mib");
  EXPECT_EQ(cap, 0u);
  for (std::string_view flag : {"--walkthrough-preset", "--tokenizer-file", "--embeddings",
                                "--positions-table", "--check-table", "--preset"}) {
    EXPECT_LT(cap, index(flag)) << flag;
  }
  // Applied in table order, a cap given after the file still bounds it.
  ModelParams m;
  for (const ParamField& f : fields) {
    if (f.flag == "--memory-cap-mib") {
      ASSERT_TRUE(f.set(m, "1").ok());
    }
    if (f.flag == "--d-model") {
      EXPECT_EQ(m.cap.bytes, uint64_t{1} << 20) << "set after the shape";
    }
  }
}

TEST(ParamFields, BadValuesNameTheFlagTheRangeAndTheText) {
  ModelParams m;
  auto set = [&](const char* flag, const std::string& text) {
    Status s = FindParamField(flag)->set(m, text);
    return s.ok() ? std::string("ok") : s.message();
  };
  EXPECT_EQ(set("--d-model", "0x10"), "--d-model must be an integer in [1, 65536], got \"0x10\"");
  EXPECT_EQ(set("--min-timescale", "-1"),
            "--min-timescale must be a finite number greater than 0, got \"-1\"");
  EXPECT_EQ(set("--order", "sideways"), "--order must be sin-first or cos-first, got \"sideways\"");
  EXPECT_EQ(set("--scheme", "spiral"),
            "--scheme must be one of sinusoidal, learned, rope, alibi, t5, xpos, none, mrope, got "
            "\"spiral\"");
  EXPECT_EQ(set("--scheme", "sinusoid"),
            "--scheme must be one of sinusoidal, learned, rope, alibi, t5, xpos, none, mrope, got "
            "\"sinusoid\" "
            "(did you mean sinusoidal?)");
  EXPECT_EQ(set("--preset", "nope").substr(0, 25), "--preset must be one of a");
  EXPECT_EQ(
      set("--variant", "tf_text"),
      "--variant must be one of paper, t2t, tf-text, got \"tf_text\" (did you mean tf-text?)");
  EXPECT_NE(set("--preset", "fairsaq").find("(did you mean fairseq?)"), std::string::npos);
  SetScheme(m, Scheme::kRope);
  EXPECT_EQ(set("--rotary-fraction", "1.5"),
            "--rotary-fraction must be a number in (0, 1], got \"1.5\"");
  EXPECT_EQ(set("--part", "tan"), "--part must be one of cos, sin, angle, got \"tan\"");
  EXPECT_EQ(set("--attention-factor", "default"), "ok");
  EXPECT_FALSE(m.pe.rope().attention_factor.has_value());
}

TEST(ParamFields, SwitchingSchemesKeepsTheShapeAndTheSeed) {
  ModelParams m;
  m.pe.d_model = 64;
  m.pe.max_len = 512;
  m.example.seed = 7;
  SetScheme(m, Scheme::kLearned);
  EXPECT_EQ(m.pe.d_model, 64);
  EXPECT_EQ(m.pe.max_len, 512);
  EXPECT_EQ(m.pe.learned().seed, 7u);
  SetScheme(m, Scheme::kRope);
  EXPECT_EQ(m.pe.rope(), RopeParams{});
  EXPECT_EQ(m.pe.d_model, 64);
}

}  // namespace
}  // namespace pe
