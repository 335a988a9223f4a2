#include "model/walkthrough_presets.h"

#include <algorithm>

#include "base/closest_word.h"
#include "model/param_fields.h"

namespace pe {
namespace {

// The blog's worked sum: three tokens, d = 3, its embedding rows E[1], E[2], E[3]
// and its positional rows, typed as the blog prints them.
const TypedVectors kILoveNlp = {
    {"I", "love", "NLP"},
    3,
    {0.1f, 0.3f, 0.4f, 0.2f, 0.6f, 0.5f, 0.7f, 0.9f, 0.8f},
    {0.01f, 0.02f, 0.03f, 0.04f, 0.05f, 0.06f, 0.07f, 0.08f, 0.09f},
};

const WalkthroughPreset kPresets[] = {
    {"the-cat-sits", "\"The cat sits\" -> [0, 1, 2]",
     "The PyTorch notes: the six-word vocabulary The, cat, sits, on, the, mat and the "
     "sentence \"The cat sits\" as ids [0, 1, 2], d_model 512 as its example width",
     0, false, nullptr,
     [](ModelParams& m) {
       m.example.text = "The cat sits";
       m.example.vocabulary = {"The", "cat", "sits", "on", "the", "mat"};
       m.pe.d_model = 512;
     }},
    {"blog-position-2", "Blog: d = 6, position 2",
     "The blog: a sequence of L = 4 tokens, d = 6, position 2 gives sin 2 = 0.909 and "
     "cos 2 = -0.416 in its first two dimensions",
     2, false, nullptr,
     [](ModelParams& m) {
       m.example.text = "I love NLP.";
       m.pe.d_model = 6;
       m.pe.max_len = 4;
       m.input.scale = false;
     }},
    {"i-love-nlp", "Blog: \"I love NLP\" typed sum",
     "The blog: its hand-typed token embeddings and positional rows for \"I love NLP\", "
     "added without scaling",
     0, false, &kILoveNlp,
     [](ModelParams& m) {
       m.example.text = "I love NLP";
       // Its ids 0, 1, 2 (first appearance) take the blog's rows E[1], E[2], E[3] (the blog
       // counts from 1), and its positions 0, 1, 2 the blog's positional rows: both are
       // parameters (--embedding-rows, --positional-rows), so every view and export adds them.
       for (size_t r = 0; r < kILoveNlp.labels.size(); ++r) {
         const auto at = static_cast<std::ptrdiff_t>(r * 3);
         m.example.embedding_rows.emplace_back(kILoveNlp.embedding.begin() + at,
                                               kILoveNlp.embedding.begin() + at + 3);
         m.example.positional_rows.emplace_back(kILoveNlp.positional.begin() + at,
                                                kILoveNlp.positional.begin() + at + 3);
       }
       m.pe.d_model = 3;
       m.pe.max_len = 3;
       m.input.scale = false;
     }},
    {"jax-pitfall", "JAX: the discarded .at[].set()",
     "The JAX/Haiku notebook: d_model 64, embeddings times sqrt(d); its positional table "
     "is built with .at[].set() calls whose results are never kept, so it stays zero",
     2, true, nullptr,
     [](ModelParams& m) {
       m.pe.d_model = 64;
       m.input.dropout = 0.1;
       m.input.pe_discarded = true;  // every view adds the zero table the code adds
     }},
    {"embedding-ids", "PyTorch ids [2, 5, 0, 9], V 10, d 128",
     "The PyTorch notes: nn.Embedding(10, 128) looking up the ids [2, 5, 0, 9]", 0, false, nullptr,
     [](ModelParams& m) {
       m.example.ids = {{2, 5, 0, 9}};
       m.example.vocab_size = 10;
       m.pe.d_model = 128;
     }},
    {"embedding-batch", "Batch (2, 5), V 100, d 4",
     "The Annotated-Transformer-style tutorial: nn.Embedding(100, 4) on a batch of two sequences "
     "of five ids, out[i, j] = W[x[i, j]], shape (2, 5, 4)",
     0, false, nullptr,
     [](ModelParams& m) {
       m.example.ids = {{23, 37, 3, 45, 82}, {97, 61, 19, 73, 53}};
       m.example.vocab_size = 100;
       m.pe.d_model = 4;
     }},
    // The attention walkthrough's examples (--walkthrough attention).
    {"rope-positions-2-and-5", "RoPE at positions 2 and 5",
     "RoFormer (Su et al. 2021, section 3.4): a query at position 5 and a key at position 2, "
     "turned pair by pair, d = 8 (four pairs); their score depends on 5 - 2 only",
     0, false, nullptr,
     [](ModelParams& m) {
       SetScheme(m, Scheme::kRope);
       m.pe.d_model = 8;
       m.pe.max_len = 32;
       m.walkthrough = WalkthroughKind::kAttention;
     }},
    {"alibi-8-heads", "ALiBi's 8 heads",
     "Press et al. 2022 (ALiBi): 8 heads with slopes 1/2, 1/4, ..., 1/256 and a causal mask", 0,
     false, nullptr,
     [](ModelParams& m) {
       SetScheme(m, Scheme::kAlibi);
       m.pe.d_model = 64;
       m.pe.max_len = 32;
       m.walkthrough = WalkthroughKind::kAttention;
     }},
    {"t5-buckets-of-a-sentence", "T5's buckets of a sentence",
     "Raffel et al. 2020 (T5): 32 bidirectional buckets up to distance 128 over a sentence of 23 "
     "words, exact up to 8 and log-spaced after; biases seeded until a model's are loaded",
     0, false, nullptr,
     [](ModelParams& m) {
       SetScheme(m, Scheme::kT5);
       m.example.text =
           "Position enters attention through a bias for each bucket of relative distance, "
           "exact for near keys and log spaced for the far ones";
       m.pe.d_model = 64;
       m.pe.max_len = 128;
       m.walkthrough = WalkthroughKind::kAttention;
     }},
    {"llama-3-1-past-8192", "Llama 3.1 past 8192",
     "Llama 3.1 (HF config.json rope_scaling llama3): base 500000, head dim 128, factor 8, "
     "low_freq_factor 1, high_freq_factor 4, trained on 8192 positions, 131072 in all",
     0, false, nullptr,
     [](ModelParams& m) {
       SetScheme(m, Scheme::kRope);
       m.pe.d_model = 128;
       m.pe.max_len = 131072;
       RopeParams& r = m.pe.rope();
       r.theta = 500000.0;
       r.scaling = RopeScaling::kLlama3;
       r.factor = 8.0;
       r.low_freq_factor = 1.0;
       r.high_freq_factor = 4.0;
       r.original_max_len = 8192;
       m.walkthrough = WalkthroughKind::kAttention;
     }},
    {"gpt2-learned-vs-sinusoid", "GPT-2's learned table vs the sinusoid",
     "GPT-2's wpe: a learned 1024 x 768 table drawn N(0, 0.02^2) before training (HF "
     "GPT2PreTrainedModel._init_weights), added like the sinusoid but not made of waves; "
     "--positions-table loads a trained one",
     0, false, nullptr,
     [](ModelParams& m) {
       SetScheme(m, Scheme::kLearned);
       m.pe.d_model = 768;
       m.pe.max_len = 1024;
       m.pe.learned().init = LearnedInit::kNormal002;
       m.walkthrough = WalkthroughKind::kAttention;
     }},
};

}  // namespace

std::string_view WalkthroughKindName(WalkthroughKind kind) {
  return kind == WalkthroughKind::kAttention ? "attention" : "input";
}

std::optional<WalkthroughKind> ParseWalkthroughKind(std::string_view name) {
  if (name == "input") return WalkthroughKind::kInput;
  if (name == "attention") return WalkthroughKind::kAttention;
  return std::nullopt;
}

std::span<const WalkthroughPreset> WalkthroughPresets() {
  return kPresets;
}

WalkthroughKind PresetWalkthrough(const WalkthroughPreset& preset) {
  ModelParams m;
  preset.apply(m);
  return m.walkthrough;
}

const WalkthroughPreset* FindWalkthroughPreset(std::string_view name) {
  for (const WalkthroughPreset& p : kPresets) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

Status ApplyWalkthroughPreset(const std::string& name, ModelParams& m) {
  if (name == "none") {
    m.walkthrough_preset.clear();
    m.input.pe_discarded = false;  // the pitfall belongs to its preset
    return {};
  }
  const WalkthroughPreset* p = FindWalkthroughPreset(name);
  if (p == nullptr) {
    std::string names;
    for (const WalkthroughPreset& q : kPresets) {
      names += names.empty() ? "" : ", ";
      names += q.name;
    }
    return InvalidArgument("--walkthrough-preset must be one of " + names + " or none, got \"" +
                           name + "\"" + DidYouMean(name, WordsOfList(names + ", none")));
  }
  ModelParams fresh;
  fresh.cap = m.cap;
  p->apply(fresh);
  // The curves show the first columns of a narrow table (the default 4..7 would not exist).
  if (fresh.pe.d_model < 8) {
    fresh.curve_dims.clear();
    for (int64_t j = 0; j < std::min<int64_t>(fresh.pe.d_model, 4); ++j)
      fresh.curve_dims.push_back(j);
  }
  fresh.walkthrough_preset = std::string(p->name);
  m = std::move(fresh);
  return {};
}

}  // namespace pe
