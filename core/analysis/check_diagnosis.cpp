// The diagnosis of `check` (check_diagnosis.h): each parameter the table's own identification
// gives differently from the intent, told in one word and a sentence.
#include "analysis/check_diagnosis.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "encoding/encoding.h"
#include "encoding/rope.h"

namespace pe {
namespace {

std::string Num(double v) {
  return CheckNumberText(v, 6);
}

bool Near(double a, double b, double rel = 1e-6) {
  return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

// The config key a parameter comes from, in the intent's model's config; "" without a model.
std::string ConfigKey(const CheckConstraints& c, const std::string& what) {
  if (c.model.empty()) return {};
  if (c.model_format.rfind("GGUF", 0) == 0) {
    const std::string a = c.model_type.empty() ? "llama" : c.model_type;
    if (what == "rope_theta") return a + ".rope.freq_base";
    if (what == "rope_type") return a + ".rope.scaling.type";
    if (what == "factor") return a + ".rope.scaling.factor";
    if (what == "original_max_position_embeddings") {
      return a + ".rope.scaling.original_context_length";
    }
    if (what == "partial_rotary_factor") return a + ".rope.dimension_count";
    if (what == "head_dim") return a + ".attention.key_length";
    if (what == "pairing") return "general.architecture";
    return a + ".rope.scaling." + what;
  }
  const bool v5 = c.model_format.find("v5") != std::string::npos;
  if (what == "head_dim" || what == "partial_rotary_factor") return what;
  if (what == "pairing") return "model_type";
  if (v5) return "rope_parameters." + what;
  if (what == "rope_theta") return what;
  return "rope_scaling." + what;
}

// "rope_scaling.factor is 8 in llama-3.1-8b, layer 0; your table has no scaling" with a
// model, else "the intent says 8; the table has no scaling".
std::string Sentence(const CheckConstraints& c, const std::string& key, const std::string& meant,
                     const std::string& found) {
  const std::string k = ConfigKey(c, key);
  if (!k.empty()) {
    return k + " is " + meant + " in " + c.model + "; your table has " + found;
  }
  return "the table has " + found + " where " + meant + " was meant";
}

std::string ScalingText(const RopeParams& r) {
  std::string s(RopeScalingName(r.scaling));
  if (r.scaling == RopeScaling::kNone) return "no scaling";
  s += " scaling, factor " + Num(r.factor);
  if (r.scaling == RopeScaling::kLlama3) {
    s += ", low_freq_factor " + Num(r.low_freq_factor) + ", high_freq_factor " +
         Num(r.high_freq_factor);
  }
  if (r.scaling == RopeScaling::kYarn) {
    s += ", beta_fast " + Num(r.beta_fast) + ", beta_slow " + Num(r.beta_slow);
  }
  if (r.scaling == RopeScaling::kYarn || r.scaling == RopeScaling::kLlama3 ||
      r.scaling == RopeScaling::kLongrope) {
    s += ", original " + std::to_string(r.original_max_len);
  }
  return s;
}

// The base `found` read where `meant` was intended: its square root is what an exponent i/d in
// place of 2i/d gives (base^(i/d) = sqrt(base)^(2i/d)).
CheckDiagnosis BaseFinding(const CheckConstraints& c, const std::string& key, double meant,
                           double found) {
  CheckDiagnosis d;
  d.value = found;
  if (Near(found * found, meant, 1e-4)) {
    d.kind = "exponent";
    d.text = "the table's base reads as " + Num(found) + " = sqrt(" + Num(meant) +
             "): its exponent is i/d where 2i/d was meant (" + Num(meant) +
             "^(i/d) = " + Num(found) + "^(2i/d)); divide by " + Num(meant) + "^(2i/d), not " +
             Num(meant) + "^(i/d)";
    if (!c.model.empty()) d.text += " (" + ConfigKey(c, key) + " is " + Num(meant) + ")";
    return d;
  }
  if (Near(found, meant * meant, 1e-4)) {
    d.kind = "exponent";
    d.text = "the table's base reads as " + Num(found) + " = " + Num(meant) +
             "^2: its exponent is 4i/d where 2i/d was meant";
    return d;
  }
  d.kind = "base";
  d.text = Sentence(c, key, "base " + Num(meant), "base " + Num(found));
  return d;
}

std::string PairingText(RopePairing p) {
  return p == RopePairing::kHalf ? "half pairs (i, i + d/2: HF rotate_half, GPT-NeoX)"
                                 : "interleaved pairs (2i, 2i + 1: GPT-J, Meta's llama, GGUF)";
}

}  // namespace

std::vector<CheckDiagnosis> ParamDiagnosis(const EncodingParams& intended,
                                           const EncodingParams& table, const CheckConstraints& c) {
  std::vector<CheckDiagnosis> out;
  auto add = [&out](std::string kind, std::string text, std::optional<double> value = {}) {
    out.push_back({std::move(kind), std::move(text), value});
  };
  if (intended.kind() != table.kind()) {
    add("layout", "the table holds " + DescriptorOf(table.kind()).check_describe(table) +
                      ", not a " + std::string(SchemeName(intended.kind())) + " table");
    return out;
  }
  const int64_t d = table.d_model;
  if (table.kind() == Scheme::kSinusoidal) {
    const SinusoidalParams& m = intended.sinusoidal();
    const SinusoidalParams& t = table.sinusoidal();
    if (m.order != t.order) {
      add("order", std::string("sin and cos are swapped: the table puts ") +
                       (t.order == WaveOrder::kCosFirst ? "cos" : "sin") + " first where " +
                       (m.order == WaveOrder::kCosFirst ? "cos" : "sin") +
                       " first was meant (cos first is MusicGen's and diffusers' "
                       "flip_sin_to_cos order); swap the two waves (--order " +
                       std::string(WaveOrderName(t.order)) + " describes the table)");
    }
    const bool t_half = t.variant != PeVariant::kPaper, m_half = m.variant != PeVariant::kPaper;
    if (t_half != m_half) {
      add("pairing",
          std::string("the table ") +
              (t_half ? "puts the sins in the first half and the cosines in the second "
                        "(columns i and i + d/2 share a frequency, tensor2tensor's layout)"
                      : "interleaves sin and cos (columns 2i and 2i + 1 share a frequency, the "
                        "paper's layout)") +
              " where the " + (m_half ? "half" : "interleaved") + " layout was meant: column " +
              (t_half ? "i" : "2i") + " of the table is column " + (t_half ? "2i" : "i") +
              " of the intended table, column " + (t_half ? "i + d/2" : "2i + 1") + " is column " +
              (t_half ? "2i + 1" : "i + d/2"));
    }
    const bool t_t2t = t.variant == PeVariant::kT2t, m_t2t = m.variant == PeVariant::kT2t;
    if (t_t2t != m_t2t) {
      add("exponent", std::string("the table's frequencies are base^-") +
                          (t_t2t ? "(i/(d/2 - 1)) (tensor2tensor's)" : "(2i/d) (the paper's)") +
                          " where base^-" + (m_t2t ? "(i/(d/2 - 1))" : "(2i/d)") +
                          " was meant (--variant " + std::string(VariantName(t.variant)) +
                          " describes the table)");
    }
    if (!Near(m.base, t.base)) out.push_back(BaseFinding(c, "base", m.base, t.base));
    if (!Near(m.min_timescale, t.min_timescale)) {
      add("base",
          "the table's min timescale is " + Num(t.min_timescale) + " where " +
              Num(m.min_timescale) + " was meant",
          t.min_timescale);
    }
    if (!Near(m.output_scale, t.output_scale)) {
      add("scale",
          "the table's values are scaled by " + Num(t.output_scale) + " where " +
              Num(m.output_scale) + " was meant",
          t.output_scale);
    }
  }
  if (table.kind() == Scheme::kRope) {
    const RopeParams& m = intended.rope();
    const RopeParams& t = table.rope();
    if (m.part != t.part) {
      add("order", "the table holds " + std::string(RopePartName(t.part)) + " where " +
                       std::string(RopePartName(m.part)) +
                       " was meant: the cos and sin tables are swapped");
    }
    if (m.pairing != t.pairing) {
      std::string perm = t.pairing == RopePairing::kInterleaved
                             ? "columns 2i and 2i + 1 of the table are columns i and i + " +
                                   std::to_string(d / 2) + " of the intended one"
                             : "columns i and i + " + std::to_string(d / 2) +
                                   " of the table are columns 2i and 2i + 1 of the intended one";
      std::string text = "the table rotates " + PairingText(t.pairing) + " where " +
                         PairingText(m.pairing) + " were meant: " + perm;
      if (!c.model.empty()) {
        text += " (" + c.model + " rotates " + PairingText(m.pairing) + ", from its " +
                ConfigKey(c, "pairing") + ")";
      }
      add("pairing", text);
    }
    if (t.proportion < 1 && Near(m.proportion, t.proportion) && m.theta > 1 &&
        Near(std::log(t.theta), std::log(m.theta) / t.proportion, 1e-6)) {
      // theta^(-2i/d_rot) over the d_rot = proportion d dims that turn reads as the base
      // theta^(1/proportion) over the whole head.
      add("partial",
          "the table's exponent runs over the " +
              std::to_string(static_cast<int64_t>(std::floor(t.proportion * double(d) / 2)) * 2) +
              " dims that turn (theta^(-2i/d_rot), partial rotary) where proportional RoPE "
              "(Gemma 4) takes theta^(-2i/d) over the whole head of " +
              std::to_string(d) + ": its base reads as " + Num(t.theta) + " = " + Num(m.theta) +
              "^(d/d_rot)",
          t.theta);
    } else if (!Near(m.theta, t.theta)) {
      out.push_back(BaseFinding(c, "rope_theta", m.theta, t.theta));
    }
    if (!Near(m.rotary_fraction, t.rotary_fraction) &&
        RopeRotaryDims(intended) != RopeRotaryDims(table)) {
      add("partial",
          Sentence(c, "partial_rotary_factor", "a rotary fraction of " + Num(m.rotary_fraction),
                   "a rotary fraction of " + Num(t.rotary_fraction)),
          t.rotary_fraction);
    }
    if (!Near(m.proportion, t.proportion)) {
      add("proportional",
          Sentence(c, "partial_rotary_factor", "a proportion of " + Num(m.proportion),
                   "a proportion of " + Num(t.proportion)),
          t.proportion);
    }
    const bool same_scaling =
        m.scaling == t.scaling &&
        (m.scaling == RopeScaling::kNone ||
         (Near(m.factor, t.factor) &&
          ((m.scaling != RopeScaling::kYarn && m.scaling != RopeScaling::kLlama3) ||
           m.original_max_len == t.original_max_len) &&
          (m.scaling != RopeScaling::kLlama3 || (Near(m.low_freq_factor, t.low_freq_factor) &&
                                                 Near(m.high_freq_factor, t.high_freq_factor))) &&
          (m.scaling != RopeScaling::kYarn ||
           (Near(m.beta_fast, t.beta_fast) && Near(m.beta_slow, t.beta_slow)))));
    if (!same_scaling) {
      std::string key = "rope_type";
      std::string meant = ScalingText(m);
      if (m.scaling != RopeScaling::kNone && m.scaling == t.scaling) {
        key = !Near(m.factor, t.factor)                  ? "factor"
              : m.original_max_len != t.original_max_len ? "original_max_position_embeddings"
              : m.scaling == RopeScaling::kLlama3        ? "low_freq_factor"
                                                         : "beta_fast";
      } else if (m.scaling != RopeScaling::kNone && t.scaling == RopeScaling::kNone) {
        key = "factor";
        meant = Num(m.factor) + " (" + ScalingText(m) + ")";
      }
      if (c.model.empty()) meant = ScalingText(m);
      add("scaling", Sentence(c, key, meant, ScalingText(t)),
          t.scaling == RopeScaling::kNone ? 1.0 : t.factor);
    }
    if (same_scaling && m.scaling == RopeScaling::kYarn) {
      // The factors in effect: given, DeepSeek's mscale ratio, or YaRN's default.
      const double mt = RopeYarnAttentionFactor(m);
      const double tt = RopeYarnAttentionFactor(t);
      if (!Near(mt, tt)) {
        add("attention-factor",
            Sentence(c, "attention_factor", "an attention factor of " + Num(mt),
                     "an attention factor (amplitude) of " + Num(tt)),
            tt);
      }
    }
  }
  if (intended.offset != table.offset) {
    const int64_t k = table.offset - intended.offset;
    add("offset",
        "the table's positions start at " + std::to_string(table.offset) + " where " +
            std::to_string(intended.offset) + " was meant: shifted by k = " + std::to_string(k) +
            " (row r holds position " + std::to_string(table.offset) + " + r; --offset " +
            std::to_string(table.offset) + " describes it)",
        static_cast<double>(k));
  }
  return out;
}

EncodingParams MeantParams(const EncodingParams& table, const CheckConstraints& c) {
  EncodingParams p = table;
  if (c.fixed.kind() != table.kind()) {
    if (!c.Has("scheme")) return p;
    p = c.fixed;
    p.d_model = table.d_model;
    p.max_len = table.max_len;
    if (!c.Has("offset")) p.offset = table.offset;
    return p;
  }
  if (c.Has("offset")) p.offset = c.fixed.offset;
  if (p.kind() == Scheme::kSinusoidal) {
    const SinusoidalParams& f = c.fixed.sinusoidal();
    SinusoidalParams& s = p.sinusoidal();
    if (c.Has("variant")) s.variant = f.variant;
    if (c.Has("order")) s.order = f.order;
    if (c.Has("base")) s.base = f.base;
    if (c.Has("min_timescale")) s.min_timescale = f.min_timescale;
    if (c.Has("output_scale")) s.output_scale = f.output_scale;
  }
  if (p.kind() == Scheme::kRope) {
    const RopeParams& f = c.fixed.rope();
    RopeParams& r = p.rope();
    if (c.Has("rope_theta")) r.theta = f.theta;
    if (c.Has("rope_pairing")) r.pairing = f.pairing;
    if (c.Has("part")) r.part = f.part;
    if (c.Has("rotary_fraction")) r.rotary_fraction = f.rotary_fraction;
    if (c.Has("rope_proportion")) r.proportion = f.proportion;
    // A partial rotary table is as wide as the rotated dims: the intent's head dim stays when
    // its rotated width is the table's (GPT-J: 64 of 256).
    if (c.Has("rotary_fraction") && f.rotary_fraction < 1 &&
        static_cast<int64_t>(static_cast<double>(c.fixed.d_model) * f.rotary_fraction) ==
            table.d_model) {
      p.d_model = c.fixed.d_model;
    }
    if (c.Has("rope_scaling") && r.scaling != f.scaling) {
      // Another scaling: its parameters are the intent's (given or default), not the table's.
      const RopePart part = r.part;
      const RopePairing pairing = r.pairing;
      const double theta = r.theta;
      const double fraction = r.rotary_fraction, proportion = r.proportion;
      r = f;
      r.part = part, r.pairing = pairing, r.theta = theta;
      r.rotary_fraction = fraction, r.proportion = proportion;
      if (c.Has("rope_theta")) r.theta = f.theta;
      if (c.Has("rope_pairing")) r.pairing = f.pairing;
      if (c.Has("part")) r.part = f.part;
      if (c.Has("rotary_fraction")) r.rotary_fraction = f.rotary_fraction;
      if (c.Has("rope_proportion")) r.proportion = f.proportion;
    }
    if (c.Has("scaling_factor")) r.factor = f.factor;
    if (c.Has("original_max_len")) r.original_max_len = f.original_max_len;
    if (c.Has("beta_fast")) r.beta_fast = f.beta_fast;
    if (c.Has("beta_slow")) r.beta_slow = f.beta_slow;
    if (c.Has("attention_factor")) r.attention_factor = f.attention_factor;
    // DeepSeek's mscale pair sets the attention factor when none is given; GPT-OSS keeps YaRN's
    // ramp ends unrounded (truncate false).
    if (c.Has("mscale")) r.mscale = f.mscale;
    if (c.Has("mscale_all_dim")) r.mscale_all_dim = f.mscale_all_dim;
    if (c.Has("yarn_truncate")) r.yarn_truncate = f.yarn_truncate;
    if (c.Has("low_freq_factor")) r.low_freq_factor = f.low_freq_factor;
    if (c.Has("high_freq_factor")) r.high_freq_factor = f.high_freq_factor;
  }
  return p;
}

Result<std::vector<CheckCell>> WorstCells(const Matrix& table, const EncodingParams& params,
                                          const ErrorStats& stats, size_t count,
                                          const MemoryCap& cap) {
  Result<EncodingPtr> e = MakeEncoding(params, cap);
  if (!e.ok()) return e.error();
  if (stats.over_tolerance > 0 &&
      static_cast<size_t>(stats.over_tolerance) == stats.off_cells.size()) {
    // Every cell beyond the tolerance is known: their references alone.
    std::vector<CheckCell> out;
    for (const auto& [row, col] : stats.off_cells) {
      CheckCell c;
      c.row = row, c.col = col;
      c.position = e.value()->first_position() + row;
      c.table = table.at(row, col);
      e.value()->FillBlock(row, 1, col, 1, &c.reference);
      out.push_back(std::move(c));
    }
    std::stable_sort(out.begin(), out.end(), [](const CheckCell& a, const CheckCell& b) {
      return std::abs(static_cast<double>(a.table) - a.reference) >
             std::abs(static_cast<double>(b.table) - b.reference);
    });
    if (out.size() > count) out.resize(count);
    for (CheckCell& c : out) c.formula = e.value()->DescribeCell(c.position, c.col);
    return out;
  }
  Result<Matrix> ref = ComputeTable(*e.value(), cap);
  if (!ref.ok()) return ref.error();
  const Matrix& r = ref.value();
  const int64_t rows = std::min(table.rows, r.rows), cols = std::min(table.cols, r.cols);
  using Item = std::pair<double, int64_t>;  // |error|, cell; a min-heap of the largest
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const double err =
          std::abs(static_cast<double>(table.at(i, j)) - static_cast<double>(r.at(i, j)));
      if (heap.size() < count) {
        heap.push({err, i * cols + j});
      } else if (err > heap.top().first) {
        heap.pop();
        heap.push({err, i * cols + j});
      }
    }
  }
  std::vector<CheckCell> out;
  while (!heap.empty()) {
    const int64_t cell = heap.top().second;
    heap.pop();
    CheckCell c;
    c.row = cell / cols, c.col = cell % cols;
    c.position = e.value()->first_position() + c.row;
    c.table = table.at(c.row, c.col);
    c.reference = r.at(c.row, c.col);
    c.formula = e.value()->DescribeCell(c.position, c.col);
    out.push_back(std::move(c));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<std::string> UnusualConventions(const EncodingParams& p) {
  std::vector<std::string> out;
  double base = 0;
  if (p.kind() == Scheme::kSinusoidal) {
    if (p.sinusoidal().order == WaveOrder::kCosFirst) {
      out.push_back(
          "cos first is an unusual order (MusicGen's, and diffusers' flip_sin_to_cos): most code "
          "puts sin first; if you meant sin first, the two waves are swapped");
    }
    base = p.sinusoidal().base;
  }
  if (p.kind() == Scheme::kRope) base = p.rope().theta;
  if (base > 1e10) {
    out.push_back("a base of " + CheckNumberText(base) +
                  " is far above any model's (Llama 3: 5e5, Gemma's and Qwen's global layers: "
                  "1e6): an exponent taken over fewer dims than it should (theta^(-2i/d_rot) "
                  "where theta^(-2i/d) was meant) reads as theta^(d/d_rot)");
  }
  if (base > 0 && Near(base, 100.0, 1e-6)) {
    out.push_back(
        "a base of 100 usually means the exponent i/d where 2i/d was meant: 10000^(i/d) = "
        "100^(2i/d)");
  }
  return out;
}

CheckDiagnosis Float32Finding(const CheckCandidate& c) {
  const ErrorStats& s = c.stats;
  return {
      "float32",
      "the angles were computed in float32: the error grows with the position (mean |error| " +
          CheckNumberText(s.mean_abs_head) + " over the first quarter of the rows, " +
          CheckNumberText(s.mean_abs_tail) + " over the last; largest " +
          CheckNumberText(s.max_abs) + " at row " + std::to_string(s.worst_row) +
          "); compute p\xc2\xb7w in float64 and round once to float32. HF's rotary modules "
          "and most engines compute it in float32 too: if that is what you meant, --tolerance " +
          CheckNumberText(std::ldexp(std::ceil(std::ldexp(s.max_abs, 12)), -12), 2) +
          " accepts this table",
      s.max_abs};
}

}  // namespace pe
