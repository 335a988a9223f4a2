// The teaching cases of `check` (analysis/check_cases.h): each buggy table gets the diagnosis
// word its case names, and the tables hold the values the bug gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analysis/check_cases.h"
#include "encoding/encoding.h"

namespace pe {
namespace {

bool HasKind(const CheckReport& r, std::string_view kind) {
  return std::any_of(r.diagnosis.begin(), r.diagnosis.end(),
                     [&](const CheckDiagnosis& d) { return d.kind == kind; });
}

std::string Kinds(const CheckReport& r) {
  std::string s;
  for (const CheckDiagnosis& d : r.diagnosis) s += d.kind + ": " + d.text + "\n";
  return s;
}

TEST(CheckCases, EachCaseGetsItsDiagnosisWord) {
  ASSERT_EQ(CheckCases().size(), 6u);
  for (const CheckCase& c : CheckCases()) {
    SCOPED_TRACE(std::string(c.name));
    Result<CheckCaseTable> made = MakeCheckCase(c.name);
    ASSERT_TRUE(made.ok()) << made.message();
    Result<CheckReport> r = CheckTable(made.value().table, WholeIntent(made.value().intent));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_FALSE(r.value().matches);
    EXPECT_TRUE(HasKind(r.value(), c.expect)) << Kinds(r.value());
    // The specific finding stands alone: no generic "noise" finding or note after it.
    EXPECT_FALSE(HasKind(r.value(), "noise")) << Kinds(r.value());
    for (const std::string& note : r.value().notes) {
      EXPECT_EQ(note.find("noise on the values"), std::string::npos) << note;
    }
  }
}

TEST(CheckCases, AnUnknownNameIsRefusedWithTheNames) {
  Result<CheckCaseTable> made = MakeCheckCase("yarn");
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.message().find("--case: \"yarn\" is not a teaching case"), std::string::npos);
  EXPECT_NE(made.message().find("float32-1e6"), std::string::npos);
}

// The intended table is what was meant: the exact table of the intent matches it.
TEST(CheckCases, TheIntentsOwnTableMatches) {
  for (const CheckCase& c : CheckCases()) {
    SCOPED_TRACE(std::string(c.name));
    const EncodingParams intent = MakeCheckCase(c.name).value().intent;
    const Matrix exact = ComputeTable(*MakeEncoding(intent).value()).value();
    Result<CheckReport> r = CheckTable(exact, WholeIntent(intent));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_TRUE(r.value().matches) << Kinds(r.value());
  }
}

// The float32 case's cells, as numpy computes HF's RotaryEmbedding in float32:
//   inv = 1 / (np.float32(10000) ** (np.arange(0, 128, 2).astype(np.float32) / np.float32(128)))
//   np.cos(np.outer(np.arange(1000000, 1000064).astype(np.float32), inv))
// (transformers modeling_rope_utils.py _compute_default_rope_parameters; modeling_llama.py
// LlamaRotaryEmbedding.forward), halves paired: column j is pair j mod 64.
TEST(CheckCases, TheFloat32CaseHoldsFloat32Angles) {
  const Matrix t = MakeCheckCase("float32-1e6").value().table;
  ASSERT_EQ(t.rows, 64);
  ASSERT_EQ(t.cols, 128);
  EXPECT_NEAR(t.at(0, 0), 0.9367521405220032, 2e-7);
  EXPECT_NEAR(t.at(5, 1), 0.32582834362983704, 2e-7);
  EXPECT_NEAR(t.at(63, 3), 0.373826801776886, 2e-7);
  EXPECT_NEAR(t.at(17, 66), -0.7938453555107117, 2e-7);
  // The exact value of (5, 1) is cos(1000005 / 10000^(2/128)) = 0.35808: off by 0.03.
  EXPECT_GT(std::abs(t.at(5, 1) - 0.3580756409452969), 0.03);
}

// DeepSeek's case: the diagnosis names the factor the table has, YaRN's default 0.1 ln 40 + 1.
TEST(CheckCases, TheAttentionFactorCaseSaysTheDefault) {
  const CheckCaseTable made = MakeCheckCase("deepseek-attention-factor").value();
  const CheckReport r = CheckTable(made.table, WholeIntent(made.intent)).value();
  for (const CheckDiagnosis& d : r.diagnosis) {
    if (d.kind != "attention-factor") continue;
    ASSERT_TRUE(d.value.has_value());
    EXPECT_NEAR(*d.value, 1.3688879454113936, 1e-6);  // 0.1 * math.log(40) + 1
    return;
  }
  ADD_FAILURE() << Kinds(r);
}

}  // namespace
}  // namespace pe
