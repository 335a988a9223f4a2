// The window and the command line change a parameter through one route, the field table: the
// same value typed in a control or given as a flag is taken or refused alike, for the same reason.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "model/param_fields.h"
#include "panels/panels.h"

namespace pe {
namespace {

struct Outcome {
  bool ok = false;
  std::string message;  // the refusal, naming the flag
  ModelParams params;
};

// `pe-explorer --scheme S [setup...] FLAG TEXT`: what the command line makes of it.
Outcome ThroughTheCommandLine(Scheme scheme, const std::vector<std::string>& setup,
                              const std::string& flag, const std::string& text) {
  std::vector<std::string> args = {"pe-explorer", "--scheme", std::string(SchemeName(scheme))};
  args.insert(args.end(), setup.begin(), setup.end());
  args.push_back(flag);
  args.push_back(text);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  int exit_code = -1;
  std::ostringstream errors;
  std::optional<CommandLine> cl =
      ParseCommandLine(static_cast<int>(argv.size()), argv.data(), exit_code, errors);
  std::string said = errors.str();
  Outcome out;
  out.ok = cl.has_value();
  if (cl) out.params = cl->params;
  const std::string prefix = "pe-explorer: ";
  if (said.rfind(prefix, 0) == 0) said = said.substr(prefix.size());
  while (!said.empty() && said.back() == '\n') said.pop_back();
  out.message = said;
  return out;
}

// The same typed into the window's control: the state the setup flags make, then the field.
Outcome ThroughTheWindow(Scheme scheme, const std::vector<std::string>& setup,
                         const std::string& flag, const std::string& text) {
  ModelParams params;
  SetScheme(params, scheme);
  for (size_t k = 0; k + 1 < setup.size(); k += 2) {
    EXPECT_TRUE(FindParamField(setup[k])->set(params, setup[k + 1]).ok()) << setup[k];
  }
  Result<ModelParams> next = FieldEditResult(params, *FindParamField(flag), text);
  Outcome out;
  out.ok = next.ok();
  if (next.ok()) out.params = next.value();
  if (!next.ok()) out.message = next.message();
  return out;
}

TEST(EditRoutes, RandomValuesAreTakenOrRefusedAlikeByTheWindowAndTheCommandLine) {
  struct Control {
    Scheme scheme;
    std::vector<std::string> setup;  // flags the control's panel needs shown
    const char* flag;
    bool whole;     // a whole-number field
    double lo, hi;  // the values tried: uniform in [lo, hi], and the edges around the range
  };
  const Control controls[] = {
      {Scheme::kSinusoidal, {}, "--d-model", true, -4, 70000},
      {Scheme::kRope, {}, "--d-model", true, -4, 600},
      {Scheme::kSinusoidal, {}, "--max-len", true, -4, 5000},
      {Scheme::kSinusoidal, {}, "--offset", true, -5000, 5000},
      {Scheme::kLearned, {}, "--offset", true, -50, 50},
      {Scheme::kSinusoidal, {}, "--base", false, -2, 4},
      {Scheme::kSinusoidal, {}, "--min-timescale", false, -1, 3},
      {Scheme::kSinusoidal, {}, "--output-scale", false, -1, 1},
      {Scheme::kSinusoidal, {}, "--dropout", false, -0.5, 1.5},
      {Scheme::kSinusoidal, {}, "--dropout-seed", true, -3, 1e6},
      {Scheme::kSinusoidal, {}, "--seed", true, -3, 1e6},
      {Scheme::kRope, {}, "--rope-theta", false, -2, 5},
      {Scheme::kRope, {}, "--rotary-fraction", false, -0.5, 1.5},
      {Scheme::kRope, {"--rope-scaling", "linear"}, "--scaling-factor", false, -1, 4},
      {Scheme::kRope, {"--rope-scaling", "yarn"}, "--original-max-len", true, -3, 9000},
      {Scheme::kRope, {"--rope-scaling", "yarn"}, "--beta-fast", false, -1, 40},
      {Scheme::kRope, {"--rope-scaling", "yarn"}, "--beta-slow", false, -1, 40},
      {Scheme::kRope, {"--rope-scaling", "yarn"}, "--attention-factor", false, -1, 3},
      {Scheme::kRope, {"--rope-scaling", "dynamic-ntk"}, "--sequence-len", true, -3, 9000},
      {Scheme::kRope, {"--rope-scaling", "llama3"}, "--low-freq-factor", false, -1, 8},
      {Scheme::kRope, {"--rope-scaling", "llama3"}, "--high-freq-factor", false, -1, 8},
      {Scheme::kAlibi, {}, "--head", true, -2, 12},
      {Scheme::kAlibi, {}, "--alibi-max-bias", false, -1, 16},
      {Scheme::kT5, {}, "--t5-buckets", true, -2, 80},
      {Scheme::kT5, {}, "--t5-max-distance", true, -2, 300},
      {Scheme::kXpos, {}, "--rope-theta", false, -2, 5},
      {Scheme::kXpos, {}, "--xpos-scale-base", false, -1, 1000},
  };
  std::mt19937_64 rng(20261127);
  int refused = 0, taken = 0;
  for (const Control& c : controls) {
    std::uniform_real_distribution<double> value(c.lo, c.hi);
    for (int k = 0; k < 40; ++k) {
      double v = k == 0 ? 0 : k == 1 ? 1 : k == 2 ? c.lo : value(rng);
      std::string text;
      if (c.whole) {
        text = std::to_string(static_cast<int64_t>(std::floor(v)));
      } else {
        // Wide-ranging magnitudes: 10^v for the bases, as typed for the others.
        if (c.hi > 4 && k % 2 == 0) v = std::pow(10.0, v / 4);
        text = FieldNumberText(v);
      }
      SCOPED_TRACE(std::string(SchemeName(c.scheme)) + " " + c.flag + " " + text);
      const Outcome cli = ThroughTheCommandLine(c.scheme, c.setup, c.flag, text);
      const Outcome window = ThroughTheWindow(c.scheme, c.setup, c.flag, text);
      ASSERT_EQ(window.ok, cli.ok)
          << "command line: " << cli.message << "\nwindow: " << window.message;
      EXPECT_EQ(window.message, cli.message);
      if (cli.ok) {
        EXPECT_EQ(window.params.pe, cli.params.pe);
      }
      (cli.ok ? taken : refused) += 1;
    }
  }
  // Both outcomes were tried, often.
  EXPECT_GT(taken, 200);
  EXPECT_GT(refused, 100);
}

}  // namespace
}  // namespace pe
